"""The floor of "fresh server -> first chart" in Streamlit: a title and one tiny Plotly chart.

``bench_browser.py`` serves this script with its own server and times it exactly like the
app's pages: what no page can beat on the same machine and browser (Streamlit's shell plus
its Plotly bundle, 4.7 MB of JavaScript in Streamlit 1.67, fetched and evaluated when the
first chart arrives).  Not part of the app.
"""

import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="Plotly floor", layout="wide")
st.title("Plotly floor")
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), width="stretch")
