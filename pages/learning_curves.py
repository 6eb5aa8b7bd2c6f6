"""Learning curves page (being built)."""

import streamlit as st

st.title("Learning curves")
