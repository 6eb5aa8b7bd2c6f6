"""The floor of "fresh server -> first chart" in Streamlit: a title and one tiny Plotly chart.

``bench_browser.py`` serves this script with its own server and times it exactly like the
app's pages: what no page can beat on the same machine and browser.  Two floors:

* ``/`` draws the chart with Streamlit's ``st.plotly_chart`` (Streamlit's shell plus its
  Plotly bundle, 4.7 MB of JavaScript in Streamlit 1.67, fetched and evaluated when the
  first chart arrives);
* ``/?element=1`` draws it with the explorer's chart element (``ui_chart.py``: the 1.2 MB
  plotly.js bundle of scatter, bar and heatmap), as every page of the app does.

Not part of the app.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from explorer.ui import chart as ui_chart  # noqa: E402


def run():
    import plotly.graph_objects as go

    st.set_page_config(page_title="Plotly floor", layout="wide")
    st.title("Plotly floor")
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    if st.query_params.get("element") == "1":
        ui_chart.plotly_chart(fig, "floor", {"displaylogo": False}, "A line.")
    else:
        st.plotly_chart(fig, width="stretch")


if __name__ == "__main__":
    run()
else:  # served by `streamlit run`, with the chart element's plotly.js route
    app = st.App(__file__, routes=ui_chart.routes())
