"""Your data page (being built)."""

import streamlit as st

st.title("Your data")
