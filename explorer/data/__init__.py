"""Data the dashboard shows: digit collections, UCI sets, benchmark fetchers and the
readers of uploaded files (no streamlit)."""
