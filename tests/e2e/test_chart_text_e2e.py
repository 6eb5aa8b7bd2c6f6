"""No text of a chart touches another (issue 25): titles, axis titles, tick labels, legend
entries and colour-bar labels keep apart on the full pages in presentation mode at a
projector's two sizes (the lesson's slides are checked step by step in
``test_lesson_slides_e2e.py``), measured on the drawn SVG with
:func:`e2e_harness.assert_no_text_overlaps`; and that check finds an overlap when there
is one."""

from __future__ import annotations

import json

import pytest

import e2e_harness as h
from explorer.ui.chart import PLOTLY_BUNDLE

pytestmark = pytest.mark.e2e

SCREENS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})


def _standalone(chromium, tmp_path, figure):
    """A page with ``figure`` drawn by the app's plotly.js inside a chart element's
    wrapper (``data-testid=fldaChart``), as the harness finds charts."""
    html = tmp_path / "chart.html"
    html.write_text(
        f"<html><head><script src='{PLOTLY_BUNDLE.as_uri()}'></script></head><body>"
        "<div data-testid='fldaChart' data-key='probe'><div id='plot'></div></div><script>"
        f"const f = {json.dumps(figure)}; Plotly.newPlot('plot', f.data, f.layout);"
        "</script></body></html>", encoding="utf-8")
    context = chromium.new_context(viewport={"width": 900, "height": 600})
    page = context.new_page()
    page.goto(html.as_uri())
    page.wait_for_function("document.querySelector('#plot .main-svg') !== null")
    return context, page


def _figure(title_y):
    return {"data": [{"type": "scatter", "x": [0, 1, 2], "y": [0, 1, 4]}],
            "layout": {"width": 800, "height": 500, "title": {"text": "A title"},
                       "xaxis": {"title": {"text": "x axis"}},
                       "annotations": [{"text": "An annotation", "xref": "paper",
                                        "yref": "paper", "x": 0.5, "y": title_y,
                                        "showarrow": False, "font": {"size": 20}}]}}


def test_the_check_finds_overlapping_and_cut_texts(chromium, tmp_path):
    context, page = _standalone(chromium, tmp_path, _figure(0.5))
    try:
        h.assert_no_text_overlaps(page, "apart")                 # nothing touches
        # the annotation moved onto the x-axis title
        page.evaluate("Plotly.relayout('plot', {'annotations[0].y': -0.2})")
        overlaps = h.text_overlaps(h.chart_texts(page)[0])
        assert any({a, b} >= {"An annotation"} and "x axis" in (a, b)
                   for a, _, b, _, _, _ in overlaps), overlaps
        with pytest.raises(AssertionError):
            h.assert_no_text_overlaps(page, "touching")
        # and above the chart's top edge
        page.evaluate("Plotly.relayout('plot', {'annotations[0].y': 1.4})")
        overlaps = h.text_overlaps(h.chart_texts(page)[0])
        assert any(a == "An annotation" and b == "(outside the chart)"
                   for a, _, b, *_ in overlaps), overlaps
    finally:
        context.close()


#: Page -> how many charts it draws in presentation mode (all of them are checked).
CHARTS = {"synthetic": 1, "learning_curves": 2, "digits": 3, "real_data": 2}


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("path", sorted(CHARTS))
def test_full_pages_in_presentation_mode_keep_their_chart_texts_apart(streamlit_server,
                                                                      chromium, screen, path):
    context, page, _ = h.screen_page(chromium, screen,
                                     f"{streamlit_server.url}/{path}?present=1")
    try:
        assert not h.error_texts(page), path
        charts = h.assert_no_text_overlaps(page, f"{path} at {screen['width']}")
        assert len(charts) == CHARTS[path], (path, [c["key"] for c in charts])
    finally:
        context.close()
