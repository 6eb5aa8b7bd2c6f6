"""A test app for the chart element (tests/e2e/test_chart_e2e.py): the same figures
drawn by ``ui_chart.plotly_chart`` and, as the reference for the theme, by
Streamlit's own ``st.plotly_chart``.

``?broken=1`` points the element at a plotly.js URL that does not exist.
"""

import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "tests" / "app"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import streamlit as st  # noqa: E402

from explorer.ui import chart as ui_chart  # noqa: E402


def figures(n):
    """Figure 1's scatter with boundaries and a digit heat map (coloraxis), as the
    pages build them."""
    import numpy as np

    from explorer.figures.digits import digit_weights_figure
    from figure_samples import boundary_and_curve_figures

    boundaries, _ = boundary_and_curve_figures(n_samples=200 + 10 * n)
    weights = np.linspace(-1, 1, 256) * (1 + n / 10)
    heat = digit_weights_figure(weights, np.linspace(0, 1, 256), weights[::-1], 16, 3)
    return boundaries, heat


def run():
    if st.query_params.get("broken") == "1":
        # For this run only: later sessions of the same server get the real bundle.
        with mock.patch.object(ui_chart, "bundle_url", lambda: "/_flda/missing-plotly.js"):
            draw()
    else:
        draw()


#: Category and trace names that read like the theme's colour placeholders (issue 36).
PLACEHOLDER_NAMES = ("#000001", "#000035", "#000049")


def names_figure():
    """A bar chart whose categories and trace name are user text like ``#000001``."""
    import plotly.graph_objects as go

    figure = go.Figure(go.Bar(x=list(PLACEHOLDER_NAMES), y=[1, 2, 3], name="#000002", text=["#000038"] * 3))
    figure.update_layout(template="streamlit", showlegend=True, xaxis_title="#000010", xaxis_type="category")
    return figure


def draw():
    if st.query_params.get("names") == "1":
        ui_chart.plotly_chart(names_figure(), "names", None, "Names like colours.")
        return
    n = st.slider("n", 0, 20, 5, key="n")
    second = st.checkbox("second chart", key="second")
    boundaries, heat = figures(n)
    ui_chart.plotly_chart(boundaries, "ours", {"displaylogo": False}, "Scatter plot.")
    ui_chart.plotly_chart(heat, "ours_heat", {"displaylogo": False}, "Heat map.")
    if st.query_params.get("reference") == "1":
        st.plotly_chart(boundaries, key="reference")
        st.plotly_chart(heat, key="reference_heat")
    if second:
        ui_chart.plotly_chart(heat, "second_chart", None, "Heat map again.")


if __name__ == "__main__":
    run()
else:
    app = st.App(__file__, routes=ui_chart.routes())
