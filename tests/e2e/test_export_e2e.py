"""Slide export in a real browser: Plotly.js lays each figure out at the export size
of :func:`explorer.figures.export.chart_config`, with the whole legend inside the
image, and saves a PNG of ``scale`` x that size.  Needs no Streamlit server: the
figure is loaded as a stand-alone Plotly page with the plotly.js bundle the app ships
(``ui_chart.PLOTLY_BUNDLE``)."""

import base64
import html
import re
import struct

import pytest

from figure_samples import boundary_and_curve_figures
from explorer.ui.chart import PLOTLY_BUNDLE
from explorer.figures.export import chart_config, presentation_style

pytestmark = pytest.mark.e2e


def _figures():
    boundaries, curve = boundary_and_curve_figures()
    return {
        "boundaries": boundaries,
        "curve": curve,
        "boundaries_presented": presentation_style(boundaries),
        "curve_presented": presentation_style(curve),
    }


FIGURES = _figures()


def _png_size(data_url):
    raw = base64.b64decode(data_url.split(",", 1)[1])
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_export_has_the_whole_legend_and_the_promised_size(chromium, name, tmp_path):
    fig = FIGURES[name]
    config = chart_config(f"test {name}")
    options = config["toImageButtonOptions"]
    html = tmp_path / "figure.html"
    html.write_text(
        fig.to_html(full_html=True, include_plotlyjs=PLOTLY_BUNDLE.as_uri(), config=config, div_id="figure"),
        encoding="utf-8",
    )
    context = chromium.new_context(viewport={"width": 820, "height": 700})
    page = context.new_page()
    try:
        page.goto(html.as_uri())
        page.wait_for_function("document.querySelector('#figure .legend') !== null")
        # The camera button re-lays the figure out at toImageButtonOptions' size.
        boxes = page.evaluate(
            """async ([w, h]) => {
                const gd = document.getElementById('figure');
                await Plotly.relayout(gd, {width: w, height: h});
                const g = gd.querySelector('.main-svg').getBoundingClientRect();
                const l = gd.querySelector('.legend').getBoundingClientRect();
                // Plotly.js scrolls a legend taller than it may be (_effHeight < _height):
                // entries would then be missing from the saved image.
                const L = gd._fullLayout.legend;
                return [g.left, g.top, g.right, g.bottom, l.left, l.top, l.right, l.bottom,
                        L._height, L._effHeight];
            }""",
            [options["width"], options["height"]],
        )
        gl, gt, gr, gb, ll, lt, lr, lb, full_height, shown_height = boxes
        assert gl - 1 <= ll and lr <= gr + 1 and gt - 1 <= lt and lb <= gb + 1, boxes
        assert shown_height >= full_height - 0.5, "the legend scrolls: entries are cut"
        data_url = page.evaluate(
            "async (o) => await Plotly.toImage(document.getElementById('figure'), o)",
            {k: options[k] for k in ("format", "width", "height", "scale")},
        )
        assert _png_size(data_url) == (
            options["width"] * options["scale"],
            options["height"] * options["scale"],
        )
    finally:
        context.close()


def test_a_pages_exported_svg_says_the_settings_it_was_computed_with(streamlit_server, chromium):
    """The camera button's image of a full page (here Synthetic with seed 3, θ = (0.8, 0)
    and ℓ2 = 0.01) carries the page's settings line as text: exported as SVG with the
    chart's own ``toImageButtonOptions`` and read back."""
    import urllib.parse

    import e2e_harness as h

    query = urllib.parse.urlencode({"seed": "3", "theta": "0.8, 0", "l2": "0.01"})
    context, page, _ = h.screen_page(
        chromium, {"width": 1280, "height": 900}, f"{streamlit_server.url}/synthetic?{query}"
    )
    try:
        svg = page.evaluate(
            """async (sel) => {
                const gd = document.querySelector(sel + ' .js-plotly-plot');
                const o = gd._context.toImageButtonOptions;
                const url = await Plotly.toImage(gd, {format: 'svg', width: o.width,
                                                      height: o.height, scale: o.scale});
                return decodeURIComponent(url.slice(url.indexOf(',') + 1));
            }""",
            h.PLOT_SELECTOR,
        )
    finally:
        context.close()
    assert svg.startswith("<svg")
    text = " ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S))
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    for part in ("θ = 0.8, 0", "seed 3", "ℓ2 = 0.01", "transfer model: dropout"):
        assert part in text, (part, text[:400])
