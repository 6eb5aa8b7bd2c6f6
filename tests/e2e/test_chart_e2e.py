"""The chart element (ui_chart.py, assets/flda_chart.js) in Chromium.

* It looks like Streamlit's own chart: for the same figures (Figure 1's scatter, a
  digit heat map), light and dark, every colour, font and size Plotly resolved
  equals what ``st.plotly_chart`` resolves (tests/e2e/chart_app.py draws both).
* A new figure is drawn in place, once: the same Plotly graph, one
  ``plotly_afterplot`` per change; a rerun that leaves a figure alone does not
  redraw it; a theme switch re-themes the chart.
* The full-screen button shows the chart over the whole screen; a plotly.js that
  cannot be loaded gives a message, not an empty box.
"""

from contextlib import contextmanager
from pathlib import Path

import pytest

import e2e_harness as h
from explorer.ui import chart as ui_chart

pytestmark = pytest.mark.e2e

APP = Path(__file__).resolve().parent / "chart_app.py"
PAIRS = (("ours", "reference"), ("ours_heat", "reference_heat"))

#: What Plotly resolved for one chart: theme colours, fonts and sizes (not the width,
#: which Streamlit's chart fixes in pixels and this element leaves to the column).
RESOLVED = """(key) => {
    const gd = document.querySelector(key.startsWith('ours') || key === 'second_chart'
        ? `[data-testid="fldaChart"][data-key="${key}"] .js-plotly-plot`
        : `.st-key-${key} .js-plotly-plot`);
    const L = gd._fullLayout;
    const pick = (o, keys) => Object.fromEntries(keys.map(k => [k, o ? o[k] : undefined]));
    const font = f => f ? pick(f, ['color', 'family', 'size', 'weight']) : null;
    const axes = Object.keys(L).filter(k => /^[xy]axis\\d*$/.test(k)).sort().map(k => [k, {
        ...pick(L[k], ['gridcolor', 'zerolinecolor', 'linecolor', 'tickcolor', 'showgrid',
                       'zeroline', 'ticklabelposition']),
        tickfont: font(L[k].tickfont), title: font(L[k].title && L[k].title.font)}]);
    const coloraxes = Object.keys(L).filter(k => /^coloraxis\\d*$/.test(k)).sort().map(k => [k, {
        colorscale: L[k].colorscale, tickfont: font(L[k].colorbar.tickfont),
        thickness: L[k].colorbar.thickness, outlinecolor: L[k].colorbar.outlinecolor}]);
    return {
        ...pick(L, ['paper_bgcolor', 'plot_bgcolor', 'colorway', 'height']),
        font: font(L.font), title: font(L.title && L.title.font),
        legend: L.legend ? {font: font(L.legend.font), bgcolor: L.legend.bgcolor,
                            bordercolor: L.legend.bordercolor} : null,
        hoverlabel: {bgcolor: L.hoverlabel.bgcolor, bordercolor: L.hoverlabel.bordercolor,
                     font: font(L.hoverlabel.font)},
        margin: L.margin, axes, coloraxes,
        annotations: (L.annotations || []).map(a => [a.text, font(a.font)]),
        traces: gd._fullData.map(t => [t.type, t.name,
            t.marker && JSON.stringify(t.marker.color), t.line && t.line.color,
            t.colorscale ? JSON.stringify(t.colorscale) : null]),
    };
}"""

#: Counts Plotly's draws of each element chart, from now on.
COUNT_DRAWS = """() => {
    window.__afterplots = {};
    document.querySelectorAll('[data-testid="fldaChart"]').forEach(chart => {
        const gd = chart.querySelector('.js-plotly-plot');
        gd.__marked = true;
        window.__afterplots[chart.dataset.key] = 0;
        gd.on('plotly_afterplot', () => { window.__afterplots[chart.dataset.key] += 1; });
    });
}"""


@pytest.fixture(scope="module")
def chart_server(browser_ready, e2e_tmp):
    server = h.StreamlitServer(script=APP, log_path=e2e_tmp / "chart_app.log")
    yield server
    server.stop()


@contextmanager
def _session(chromium, server, query="", scheme="light"):
    """A fresh browser session on the test app, its first run finished."""
    context = h.new_context(chromium, color_scheme=scheme)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{server.url}/{query}")
        yield page, tracker
    finally:
        context.close()


def _chart_count(page):
    return page.evaluate(
        "() => document.querySelectorAll('[data-testid=\"fldaChart\"] .js-plotly-plot').length"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_look_like_streamlits_own(chromium, chart_server, scheme):
    with _session(chromium, chart_server, "?reference=1", scheme) as (page, _):
        page.locator(".st-key-reference_heat .js-plotly-plot .main-svg").first.wait_for()
        for ours, reference in PAIRS:
            mine, theirs = page.evaluate(RESOLVED, ours), page.evaluate(RESOLVED, reference)
            assert mine == theirs, (ours, scheme)
        background = h.theme_colors(page)["background"]
        dark = scheme == "dark"
        assert h.luminance(background) < 0.2 if dark else h.luminance(background) > 0.8
        assert h.css_rgb255(page.evaluate(RESOLVED, "ours")["paper_bgcolor"]) == h.css_rgb255(background)


def test_a_new_figure_is_drawn_in_place_once(chromium, chart_server):
    with _session(chromium, chart_server) as (page, tracker):
        page.evaluate(COUNT_DRAWS)
        revisions = dict(tracker.expected_charts)
        thumb = h.widget(page, "stSlider", "n").locator(h.SLIDER_THUMB).first
        for step in range(1, 4):
            h.act(page, tracker, lambda: thumb.press("ArrowRight"))
            assert tracker.expected_charts["ours"] != revisions["ours"]
            revisions = dict(tracker.expected_charts)
            # the same Plotly graph (no new chart mounted), drawn once per change
            assert (
                page.evaluate(
                    "() => document.querySelectorAll('[data-testid=\"fldaChart\"] .js-plotly-plot').length"
                )
                == 2
            )
            assert page.evaluate(
                "() => Array.from(document.querySelectorAll("
                "'[data-testid=\"fldaChart\"] .js-plotly-plot'))"
                ".every(gd => gd.__marked)"
            )
            assert page.evaluate("() => window.__afterplots") == {"ours": step, "ours_heat": step}
        assert not tracker.page_errors


def test_a_rerun_that_keeps_a_figure_does_not_redraw_it(chromium, chart_server):
    with _session(chromium, chart_server) as (page, tracker):
        page.evaluate(COUNT_DRAWS)
        draws = page.evaluate(
            '() => document.querySelector(\'[data-testid="fldaChart"][data-key="ours"]\').dataset.draws'
        )
        h.act(
            page, tracker, lambda: h.widget(page, "stCheckbox", "second chart").locator("label").first.click()
        )
        assert set(tracker.expected_charts) == {"ours", "ours_heat", "second_chart"}
        assert page.locator(f'{h.PLOT_SELECTOR}[data-key="second_chart"] .js-plotly-plot').count() == 1
        assert page.evaluate("() => window.__afterplots") == {"ours": 0, "ours_heat": 0}
        assert (
            page.evaluate(
                '() => document.querySelector(\'[data-testid="fldaChart"][data-key="ours"]\').dataset.draws'
            )
            == draws
        )
        h.act(
            page, tracker, lambda: h.widget(page, "stCheckbox", "second chart").locator("label").first.click()
        )
        assert page.locator(f'{h.PLOT_SELECTOR}[data-key="second_chart"]').count() == 0


def test_switching_the_theme_rethemes_the_chart(chromium, chart_server):
    with _session(chromium, chart_server) as (page, _):
        light = page.evaluate(RESOLVED, "ours")["paper_bgcolor"]
        page.emulate_media(color_scheme="dark")
        page.wait_for_function(
            '(bg) => getComputedStyle(document.querySelector(\'[data-testid="fldaChart"] '
            ".main-svg')).backgroundColor !== bg",
            arg="rgb({}, {}, {})".format(*h.css_rgb255(light)),
        )
        dark = page.evaluate(RESOLVED, "ours")
        assert h.luminance(dark["paper_bgcolor"]) < 0.2 < h.luminance(light)
        assert h.contrast(dark["axes"][0][1]["tickfont"]["color"], dark["paper_bgcolor"]) >= 4.5


def test_full_screen_button_fills_the_screen_and_returns(chromium, chart_server):
    with _session(chromium, chart_server) as (page, _):
        chart = page.locator(f'{h.PLOT_SELECTOR}[data-key="ours"]')
        chart.hover()
        chart.locator('.modebar-btn[data-title="Full screen (Esc to leave)"]').click()
        page.wait_for_function(
            "() => document.fullscreenElement && document.fullscreenElement.dataset.key === 'ours'"
        )
        page.wait_for_function(
            '() => document.querySelector(\'[data-key="ours"] '
            ".js-plotly-plot')._fullLayout.height === window.innerHeight"
        )
        # Esc is the browser's own (headless Chromium has no such key handling);
        # the same button leaves full screen too.
        chart.hover()
        chart.locator('.modebar-btn[data-title="Full screen (Esc to leave)"]').click()
        page.wait_for_function(
            "() => !document.fullscreenElement && document.querySelector("
            "'[data-key=\"ours\"] .js-plotly-plot')._fullLayout.height "
            "=== 560"
        )


def test_a_chart_library_that_cannot_load_is_reported(chromium, chart_server):
    context = h.new_context(chromium)
    page = context.new_page()
    try:
        page.goto(f"{chart_server.url}/?broken=1")
        alert = page.locator(f'{h.PLOT_SELECTOR} [role="alert"]').first
        alert.wait_for(timeout=60_000)
        assert "could not be drawn" in alert.inner_text()
        assert "Reload the page" in alert.inner_text()
    finally:
        context.close()


def test_the_browser_gets_exactly_the_trace_types_the_figures_are_checked_against(chromium, chart_server):
    """The shipped plotly.js draws scatter, bar and heatmap traces, no more and no fewer:
    ``ui_chart.BUNDLE_TRACE_TYPES``, which every figure of the app is checked against
    (``apptest_support.charts``), is what the browser has."""
    with _session(chromium, chart_server) as (page, _):
        traces = page.evaluate("() => Object.keys(window.Plotly.PlotSchema.get().traces)")
    assert set(traces) == ui_chart.BUNDLE_TRACE_TYPES


def test_charts_draw_when_the_app_is_served_under_a_path(chromium, e2e_tmp):
    """Behind a proxy (``server.baseUrlPath``) the element finds the bundle under the
    app's path (``ui_chart.bundle_url``; app.py routes it there)."""
    server = h.StreamlitServer(script=APP, base_path="course/flda", log_path=e2e_tmp / "base_path.log")
    try:
        with _session(chromium, server) as (page, _):
            assert _chart_count(page) == 2
            loaded = page.evaluate(
                "(name) => performance.getEntriesByType('resource')"
                ".map(r => new URL(r.name).pathname)"
                ".filter(p => p.endsWith(name))",
                ui_chart.PLOTLY_BUNDLE.name,
            )
            assert loaded and all(p.startswith("/course/flda/_flda/") for p in loaded), loaded
    finally:
        server.stop()


def test_names_that_read_like_theme_placeholders_are_shown_as_typed(chromium, chart_server):
    """Issue 36: a feature or class named ``#000001``...``#000049`` was replaced by a theme
    colour (the substitution ran over the whole figure text); only colour properties are
    themed now, and they still are."""
    with _session(chromium, chart_server, "?names=1") as (page, tracker):
        resolved = page.evaluate(
            """() => {
            const gd = document.querySelector('[data-testid="fldaChart"][data-key="names"] .js-plotly-plot');
            const t = gd._fullData[0];
            return {x: Array.from(t.x), name: t.name, text: Array.from(t.text),
                    axis: gd._fullLayout.xaxis.title.text, colorway: gd._fullLayout.colorway,
                    ticks: Array.from(gd.querySelectorAll('.xtick text')).map(e => e.textContent),
                    bar: t.marker.color};
        }"""
        )
        assert resolved["x"] == ["#000001", "#000035", "#000049"]
        assert resolved["ticks"] == ["#000001", "#000035", "#000049"]
        assert resolved["name"] == "#000002" and resolved["text"] == ["#000038"] * 3
        assert resolved["axis"] == "#000010"
        # the colour properties are themed: no placeholder left in the colours
        assert not [c for c in resolved["colorway"] if c.startswith("#0000")]
        assert not str(resolved["bar"]).startswith("#0000")
        assert not tracker.page_errors
