"""Captions computed from results, notes on the paper, equations and the lesson (no streamlit)."""
