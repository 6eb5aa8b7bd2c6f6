"""Every page of the dashboard in a real browser (Debian's Chromium via Playwright).

AppTest runs the scripts but renders nothing; these tests load each page from
``streamlit run app.py``, wait for its script run to finish (see
``e2e_harness.RunTracker``), check that no exception or error box is shown and
that a plot and a table are drawn, move a key control, and check again.  Each
page's full-page screenshot is written to the screenshot directory (see
``conftest.py``); ``python3 tests/e2e/take_screenshots.py`` refreshes the ones
in ``docs/screenshots/``.
"""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import urlparse

import pytest

import e2e_harness as h
from explorer.figures import style

pytestmark = pytest.mark.e2e


def _assert_classifier_colours(page, spec):
    """One colour per classifier family on every page (explorer.figures.style)."""
    for chart, name, colours in h.classifier_traces(page):
        family = style.classifier_family(re.match(r"[A-Z]+-[A-Z]+", name).group())
        expected = h.css_rgb255(style.FAMILY_COLORS[family])
        assert expected in colours, (
            f"{spec.title}, chart {chart}: trace {name!r} is drawn in {colours}, "
            f"not in the {family} colour {style.FAMILY_COLORS[family]}"
        )


def _assert_page_ok(page, tracker, spec, when):
    errors = h.error_texts(page)
    assert not errors, f"{spec.title} ({when}) shows an error: {errors}"
    assert h.shows_page(page, spec), f"{spec.title} ({when}): shows {h.page_title(page)!r}"
    if spec.needs_plot:
        assert h.visible_plots(page) >= 1, f"{spec.title} ({when}): no plot visible"
    if spec.needs_table:
        assert h.visible_tables(page) >= 1, f"{spec.title} ({when}): no table visible"
    assert not tracker.page_errors, f"{spec.title} ({when}): {tracker.page_errors}"
    _assert_classifier_colours(page, spec)


def test_first_request_deep_link_uses_app_navigation(browser_ready, chromium, e2e_tmp):
    """The very first page a fresh server serves may be a deep link.

    Streamlit decides per process whether ``pages/`` is a legacy
    pages-directory app until ``st.navigation`` first runs; before the fix the
    first request to /synthetic ran ``pages/synthetic.py`` alone under
    automatic navigation (file names as titles, no wide layout, no seed).
    """
    server = h.StreamlitServer(log_path=e2e_tmp / "streamlit-deeplink.log")
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{server.url}/synthetic")
        assert h.sidebar_nav_labels(page) == h.NAV_TITLES
        assert h.page_title(page) == "Synthetic domains"
        assert h.widget(page, "stNumberInput", "Random seed").is_visible()
        assert not h.error_texts(page)
        # the wide layout of app.py's set_page_config is in force
        main_width = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()["width"]
        assert main_width > 800, main_width
        # and the same session then navigates like any other
        h.act(
            page,
            tracker,
            page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Home").first.click,
        )
        assert h.page_title(page).startswith("Feature-level domain adaptation")
    finally:
        context.close()
        server.stop()


@pytest.mark.parametrize("spec", h.PAGES, ids=[s.slug for s in h.PAGES])
def test_page_loads_and_reacts(spec, streamlit_server, browser_page, screenshot_dir):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/{spec.path}")
    if spec.prepare:
        empty = dataclasses.replace(spec, needs_plot=False, needs_table=False)
        _assert_page_ok(page, tracker, empty, "before loading data")
        spec.prepare(page, tracker)
    h.full_page_screenshot(page, tracker, screenshot_dir / f"{spec.slug}.png")
    _assert_page_ok(page, tracker, spec, "after load")
    assert h.sidebar_nav_labels(page) == h.NAV_TITLES

    mirrored = spec.move_control(page, tracker)
    _assert_page_ok(page, tracker, spec, "after moving a control")
    if mirrored is not None:
        name, value = mirrored
        assert h.query(page).get(name) == value, (name, value, page.url)


def test_sidebar_links_and_settings_survive_page_switches(streamlit_server, browser_page):
    """Navigate by clicking: sidebar links and a Home page link; widget values persist."""
    page, tracker = browser_page
    h.open_page(page, tracker, streamlit_server.url)
    seed = h.step_number(page, tracker, "Random seed")

    for spec in h.PAGES[1:] + h.PAGES[:1]:
        link = page.locator('[data-testid="stSidebarNav"] a').filter(has_text=spec.title)
        h.act(page, tracker, link.first.click)
        assert h.shows_page(page, spec), h.page_title(page)
        assert urlparse(page.url).path.strip("/") == spec.path
        assert not h.error_texts(page), spec.title
        # the shared seed survives every switch, in the widget and in the URL
        assert h.widget(page, "stNumberInput", "Random seed").locator("input").input_value() == seed
        assert h.query(page).get("seed") == seed

    # a page link in the Home page's body
    h.act(
        page,
        tracker,
        page.locator('[data-testid="stPageLink"] a').filter(has_text="Synthetic domains").first.click,
    )
    assert h.page_title(page) == "Synthetic domains"
    h.choose_radio(page, tracker, "Loss", "logistic")
    h.act(
        page,
        tracker,
        page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Transfer parameters").first.click,
    )
    h.act(
        page,
        tracker,
        page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Synthetic domains").first.click,
    )
    loss = h.widget(page, "stRadio", "Loss").locator("label").filter(has_text="logistic")
    assert loss.locator("input").is_checked(), "the Loss choice was lost on a page switch"
    assert h.query(page).get("loss") == "logistic"


def test_no_distracting_chrome(streamlit_server, browser_page):
    """A classroom sees the app, not Streamlit's developer tools."""
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0
    assert page.locator('[data-testid="stToolbarActions"] button').count() == 0
    status = page.locator('[data-testid="stStatusWidget"]')
    assert status.count() == 0 or not status.is_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_light_and_dark_theme_readable(scheme, streamlit_server, chromium):
    """The app follows the viewer's light/dark preference and the figures follow the
    app's theme (a figure with a hard-coded white template would glare in dark mode,
    one with hard-coded black text would vanish)."""
    context = h.new_context(chromium, color_scheme=scheme)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
        colors = h.theme_colors(page)
        dark = h.luminance(colors["background"]) < 0.2
        assert dark == (scheme == "dark"), colors["background"]
        assert h.contrast(colors["text"], colors["background"]) >= 7, colors
        assert colors["charts"], "no chart to check"
        for chart in colors["charts"]:
            assert h.contrast(chart["background"], colors["background"]) < 1.2, chart
            for part in ("tick", "axisTitle", "legend"):
                if chart[part]:
                    assert h.contrast(chart[part], chart["background"]) >= 3, (part, chart)
    finally:
        context.close()


def test_presentation_mode_gives_figures_the_screen(streamlit_server, browser_page):
    """?present=1: no controls, sidebar collapsed, the figure spans the window."""
    page, tracker = browser_page
    # Synthetic domains (h.PAGES[1] became the Lesson, whose slides put the chart beside
    # the text: tests/e2e/test_lesson_slides_e2e.py)
    spec = next(s for s in h.PAGES if s.path == "synthetic")
    h.open_page(page, tracker, f"{streamlit_server.url}/{spec.path}?present=1")
    _assert_page_ok(page, tracker, spec, "presentation mode")
    assert page.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
    assert h.widget(page, "stRadio", "Loss").count() == 0, "controls shown while presenting"
    chart = page.locator(h.PLOT_SELECTOR).first.bounding_box()
    assert chart["width"] > 0.8 * h.VIEWPORT["width"], chart


def test_transfer_model_preset_is_mirrored_in_the_url(streamlit_server, browser_page):
    """The "Count rates change" preset (issue 15) loads its data and the rate transfer
    model, and both land in the URL so the configuration can be shared."""
    page, tracker = browser_page
    spec = next(s for s in h.PAGES if s.path == "synthetic")
    h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
    button = page.locator('[data-testid="stButton"] button').filter(has_text="Count rates change").first
    h.ensure_visible(page, button)
    h.act(page, tracker, button.click)
    _assert_page_ok(page, tracker, spec, "after the rate preset")
    assert h.query(page).get("shift") == "rate"
    assert h.query(page).get("transfer") == "rate"
    assert page.get_by_text("Which transfer model adapts?").first.is_visible()
