"""Streamlit helpers of the dashboard: the only package (with pages/ and app.py) that imports streamlit."""
