"""Data the dashboard shows: digit collections, UCI sets, benchmark fetchers, upload readers (no streamlit)."""
