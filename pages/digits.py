"""Handwritten digits page (being built)."""

import streamlit as st

st.title("Handwritten digits")
