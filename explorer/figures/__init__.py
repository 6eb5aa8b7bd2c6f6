"""Plotly figure builders and the shared style (never imports streamlit)."""
