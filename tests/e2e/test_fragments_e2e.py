"""Controls that re-run only part of their page (``st.fragment``), in a real browser.

Learning curves' l2 toggle and λ re-run only the results (the toggle sits in the
sidebar's *Classifiers* expander, the fragment writes it there); Transfer's
"your θ" sliders re-run only Figure 4 and its table.  A fragment run must still
keep everything a user relies on: the URL, the control's place in the sidebar,
the captions and the CSV downloads saying what the figure shows.
"""

from __future__ import annotations

import csv
import io

import pytest

import e2e_harness as h

pytestmark = pytest.mark.e2e


def _sidebar_order(page, labels):
    """Vertical positions of the sidebar widgets labelled ``labels``."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    return [
        sidebar.locator('[data-testid="stWidgetLabel"]').filter(has_text=label).first.bounding_box()["y"]
        for label in labels
    ]


def _chart_curve(page, key, name, dash):
    """(n, mean error) of the trace ``name`` drawn with line style ``dash`` in chart ``key``."""
    return page.evaluate(
        """([key, name, dash]) => {
               const gd = document.querySelector(`[data-key="${key}"] .js-plotly-plot`);
               const t = gd._fullData.find(d => d.name === name && d.line.dash === dash
                                                && d.mode.includes('markers'));
               return [Array.from(t.x), Array.from(t.y)];
           }""",
        [key, name, dash],
    )


def _download(page, label):
    button = page.locator('[data-testid="stDownloadButton"]').filter(has_text=label).locator("button").first
    button.scroll_into_view_if_needed()
    with page.expect_download() as info:
        button.click()
    return list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8").read())))


def _assert_csv_matches_chart(page):
    rows = [
        r
        for r in _download(page, "Download curves (CSV)")
        if r["classifier"] == "FLDA-Q" and r["domain"] == "target"
    ]
    n, y = _chart_curve(page, "lc_curves", "FLDA-Q", "solid")
    assert [int(r["n"]) for r in rows] == n
    assert [float(r["mean_error"]) for r in rows] == pytest.approx(y, abs=1e-12)


def test_learning_curves_l2_reruns_only_the_results(streamlit_server, browser_page):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/learning_curves?seed=5")
    # a first visit: the run that stops after the first chart, then the whole page
    # (test_first_chart_e2e.py)
    assert tracker.run_kinds[-1] == "full", tracker.run_kinds
    caption = (
        page.locator('[data-testid="stCaptionContainer"]')
        .filter(has_text="Mirrors the paper's Figure 3")
        .first
    )
    assert "No l2 regularisation" in caption.inner_text()
    plain = _chart_curve(page, "lc_curves", "FLDA-Q", "solid")

    h.click_toggle(page, tracker, "l2 regularisation")
    assert tracker.run_kinds[-1] == "fragment", tracker.run_kinds
    assert h.query(page).get("l2") == "true" and h.query(page).get("seed") == "5"
    # λ appears in the sidebar where it always was: under the toggle, in Classifiers,
    # above the Display expander's first control
    ridge = h.widget(page, "stSlider", "λ (ridge strength)")
    assert ridge.is_visible()
    h.ensure_visible(page, h.widget(page, "stCheckbox", "Show ± SEM bands"))
    repeats, toggle, lam, sem = _sidebar_order(
        page, ["Repeats", "l2 regularisation", "λ (ridge strength)", "Show ± SEM bands"]
    )
    assert repeats < toggle < lam < sem
    assert "l2-regularised with λ = 10" in caption.inner_text()
    ridged = _chart_curve(page, "lc_curves", "FLDA-Q", "solid")
    assert ridged != plain
    _assert_csv_matches_chart(page)

    h.press_slider(page, tracker, "λ (ridge strength)", "ArrowRight")
    assert tracker.run_kinds[-1] == "fragment", tracker.run_kinds
    assert h.query(page).get("ridge") == "30.0"
    assert "λ = 30" in caption.inner_text()
    _assert_csv_matches_chart(page)

    h.click_toggle(page, tracker, "l2 regularisation")
    assert tracker.run_kinds[-1] == "fragment", tracker.run_kinds
    assert h.query(page).get("l2") == "false"
    assert h.widget(page, "stSlider", "λ (ridge strength)").count() == 0
    assert _chart_curve(page, "lc_curves", "FLDA-Q", "solid") == plain
    # a data control still re-runs the whole page, and the fragment's controls stay once
    h.press_slider(page, tracker, "Number of sizes", "ArrowLeft")
    assert tracker.run_kinds[-1] == "full", tracker.run_kinds
    assert (
        page.locator('[data-testid="stSidebar"] [data-testid="stCheckbox"]')
        .filter(has_text="l2 regularisation")
        .count()
        == 1
    )
    assert not h.error_texts(page)


def test_transfer_your_theta_reruns_only_figure_4(streamlit_server, browser_page):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/transfer?seed=5")
    value = h.press_slider(page, tracker, "θ̂1 + …")
    assert tracker.run_kinds[-1] == "fragment", tracker.run_kinds
    assert h.query(page).get("delta_1") == str(float(value))
    assert not h.error_texts(page)


def _bars(page, key):
    """Number of bars of the first trace of chart ``key``."""
    return page.evaluate(
        """(key) => document.querySelector(`[data-key="${key}"] .js-plotly-plot`)
                       ._fullData[0].y.length""",
        key,
    )


def test_real_data_theta_section_reruns_alone_and_keeps_table_3(streamlit_server, browser_page):
    """Real data's "Features shown" re-runs only the θ̂ section (it redrew Table 3 and its
    72 cells before: 0.9 s per slider step); the URL follows, and the data set's chart of
    Table 3 below stays as it was."""
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/real_data?top_n=10")
    assert _bars(page, "real_theta") == 10
    errors_before = page.evaluate(
        """() => JSON.stringify(document.querySelector('[data-key="real_errors"] .js-plotly-plot')
                                ._fullData.map(d => Array.from(d.y || [])))"""
    )
    h.press_slider(page, tracker, "Features shown", "ArrowRight")
    assert tracker.run_kinds[-1] == "fragment", tracker.run_kinds
    assert h.query(page).get("top_n") == "11"
    assert _bars(page, "real_theta") == 11
    assert (
        page.evaluate(
            """() => JSON.stringify(document.querySelector('[data-key="real_errors"] .js-plotly-plot')
                                ._fullData.map(d => Array.from(d.y || [])))"""
        )
        == errors_before
    )
    assert not h.error_texts(page)
