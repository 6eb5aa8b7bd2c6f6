"""A test app for user text in the browser (tests/e2e/test_user_text_e2e.py).

Each hostile text (a file name, a column name, a shared link's value) is shown the
way the pages show user text: escaped with ``escape_markdown`` in a caption, an
error box and markdown, and as a chart's text alternative (``alt_text`` of a
figure whose names went through ``escape_plotly``: the caption and the chart
element's aria-label).  ``raw`` shows the same texts unescaped, so the test also
checks that this Streamlit does make live links of them (its premise).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

from explorer.figures.export import alt_text  # noqa: E402
from explorer.safe_text import escape_markdown, escape_plotly  # noqa: E402
from explorer.ui import chart as ui_chart  # noqa: E402

#: Texts a user controls that GFM would turn into links, or that hold markup.
TEXTS = ("https://e.vil/data.csv", "www.e.vil.csv", "me@e.vil", "<img src=x>.csv")


def run():
    with st.container(key="escaped"):
        for text in TEXTS:
            st.caption(f"Loaded **{escape_markdown(text)}**")
            st.markdown(escape_markdown(text))
            st.error(f"**{escape_markdown(text)} was not loaded.**", icon=":material/error:")
        fig = go.Figure(
            go.Bar(x=[escape_plotly(t) for t in TEXTS], y=[1, 2, 3, 4], name=escape_plotly(TEXTS[0]))
        )
        fig.update_layout(xaxis_title=escape_plotly(TEXTS[3]), yaxis_title="count")
        text = alt_text(fig)
        ui_chart.plotly_chart(fig, "hostile", {"displaylogo": False}, text)
        st.caption("*Chart:* " + escape_markdown(text))
    with st.container(key="raw"):
        for text in TEXTS[:3]:
            st.markdown(text)


if __name__ == "__main__":
    run()
else:  # imported by ``streamlit run``: serve the chart element's plotly.js bundle
    app = st.App(__file__, routes=ui_chart.routes())
