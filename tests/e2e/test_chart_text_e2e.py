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
        "</script></body></html>",
        encoding="utf-8",
    )
    context = chromium.new_context(viewport={"width": 900, "height": 600})
    page = context.new_page()
    page.goto(html.as_uri())
    page.wait_for_function("document.querySelector('#plot .main-svg') !== null")
    return context, page


def _figure(title_y):
    return {
        "data": [{"type": "scatter", "x": [0, 1, 2], "y": [0, 1, 4]}],
        "layout": {
            "width": 800,
            "height": 500,
            "title": {"text": "A title"},
            "xaxis": {"title": {"text": "x axis"}},
            "annotations": [
                {
                    "text": "An annotation",
                    "xref": "paper",
                    "yref": "paper",
                    "x": 0.5,
                    "y": title_y,
                    "showarrow": False,
                    "font": {"size": 20},
                }
            ],
        },
    }


def test_the_check_finds_overlapping_and_cut_texts(chromium, tmp_path):
    context, page = _standalone(chromium, tmp_path, _figure(0.5))
    try:
        h.assert_no_text_overlaps(page, "apart")  # nothing touches
        # the annotation moved onto the x-axis title
        page.evaluate("Plotly.relayout('plot', {'annotations[0].y': -0.2})")
        overlaps = h.text_overlaps(h.chart_texts(page)[0])
        assert any({a, b} >= {"An annotation"} and "x axis" in (a, b) for a, _, b, _, _, _ in overlaps), (
            overlaps
        )
        with pytest.raises(AssertionError):
            h.assert_no_text_overlaps(page, "touching")
        # and above the chart's top edge
        page.evaluate("Plotly.relayout('plot', {'annotations[0].y': 1.4})")
        overlaps = h.text_overlaps(h.chart_texts(page)[0])
        assert any(a == "An annotation" and b == "(outside the chart)" for a, _, b, *_ in overlaps), overlaps
    finally:
        context.close()


#: Page -> how many charts it draws in presentation mode (all of them are checked).
CHARTS = {"synthetic": 1, "learning_curves": 2, "digits": 3, "real_data": 2}


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("path", sorted(CHARTS))
def test_full_pages_in_presentation_mode_keep_their_chart_texts_apart(
    streamlit_server, chromium, screen, path
):
    context, page, _ = h.screen_page(chromium, screen, f"{streamlit_server.url}/{path}?present=1")
    try:
        assert not h.error_texts(page), path
        charts = h.assert_no_text_overlaps(page, f"{path} at {screen['width']}")
        assert len(charts) == CHARTS[path], (path, [c["key"] for c in charts])
    finally:
        context.close()


#: Pages whose charts sit side by side in columns, with what a visitor does first.
SIDE_BY_SIDE = {spec.path: spec for spec in h.PAGES if spec.path in ("your_data", "real_data")}


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("path", sorted(SIDE_BY_SIDE))
def test_half_width_charts_show_their_whole_settings_line(streamlit_server, chromium, screen, path):
    """A chart in half a page's width breaks its settings line (explorer.figures.export.
    with_settings) where it would be cut off: every text stays inside its chart."""
    spec = SIDE_BY_SIDE[path]
    context, page, tracker = h.screen_page(chromium, screen, f"{streamlit_server.url}/{path}")
    try:
        if spec.prepare:
            spec.prepare(page, tracker)
        assert not h.error_texts(page), path
        charts = h.assert_no_text_overlaps(page, f"{path} at {screen['width']}")
        assert len(charts) >= 2, (path, [c["key"] for c in charts])
    finally:
        context.close()


def _settings_lines(page):
    """Chart key -> how many lines its title (with the settings line) is drawn in."""
    return page.evaluate("""() => Object.fromEntries(Array.from(
        document.querySelectorAll('[data-testid=fldaChart]')).map(c => [c.dataset.key,
        Math.max(1, c.querySelectorAll('.g-gtitle text tspan.line').length)]))""")


def _assert_titles_inside(page, where):
    """Every chart's title (and settings line) is inside its chart and touches no other
    text.  (Narrow charts' rotated tick labels have overlapping boxes; they are not the
    subject here.)"""
    for chart in h.chart_texts(page):
        overlaps = [o for o in h.text_overlaps(chart) if "gtitle" in o[1] + o[3]]
        assert not overlaps, (where, chart["key"], overlaps)


def test_settings_lines_break_again_when_the_window_is_resized(streamlit_server, chromium):
    """Narrowing the window breaks the settings lines where they no longer fit, and
    widening it again joins them: the titles stay inside their charts at each width."""
    spec = SIDE_BY_SIDE["your_data"]
    context, page, tracker = h.screen_page(
        chromium, {"width": 1920, "height": 1080}, f"{streamlit_server.url}/your_data"
    )
    try:
        spec.prepare(page, tracker)
        wide = _settings_lines(page)
        page.set_viewport_size({"width": 1100, "height": 800})
        page.wait_for_function(
            """(wide) => Array.from(document.querySelectorAll(
            '[data-testid=fldaChart]')).some(c => c.querySelectorAll(
            '.g-gtitle text tspan.line').length > (wide[c.dataset.key] || 1))""",
            arg=wide,
        )
        page.wait_for_timeout(300)  # the last redraws of the resize
        _assert_titles_inside(page, "your_data narrowed to 1100")
        narrow = _settings_lines(page)
        assert sum(narrow.values()) > sum(wide.values()), (wide, narrow)
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.wait_for_function(
            """(wide) => Array.from(document.querySelectorAll(
            '[data-testid=fldaChart]')).every(c => Math.max(1, c.querySelectorAll(
            '.g-gtitle text tspan.line').length) === (wide[c.dataset.key] || 1))""",
            arg=wide,
        )
        _assert_titles_inside(page, "your_data widened to 1920 again")
    finally:
        context.close()
