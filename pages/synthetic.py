"""Synthetic domains page (being built)."""

import streamlit as st

st.title("Synthetic domains")
