"""Transfer parameters page (being built)."""

import streamlit as st

st.title("Transfer parameters")
