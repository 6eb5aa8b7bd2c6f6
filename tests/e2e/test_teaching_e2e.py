"""The teaching features in a real browser (issue 12): the Lesson page step by step and
presentation mode across navigation on a 1920 x 1080 projector."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

import e2e_harness as h
from explorer.teaching.lesson import LESSON_STEPS, step_index

pytestmark = pytest.mark.e2e

PROJECTOR = {"width": 1920, "height": 1080}


def _step_heading(page):
    return page.locator('[data-testid="stMain"] h2').first.inner_text().strip()


def _button(page, text):
    return page.locator('[data-testid="stButton"] button').filter(has_text=text).first


def test_lesson_every_step_next_back_and_step_urls(streamlit_server, browser_page):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/lesson")
    for i, lesson_step in enumerate(LESSON_STEPS):
        assert _step_heading(page).startswith(lesson_step.title), (i, _step_heading(page))
        assert h.query(page).get("step") == lesson_step.slug
        assert not h.error_texts(page), lesson_step.slug
        if lesson_step.chart_key:
            assert h.visible_plots(page) >= 1, lesson_step.slug
        # predict first: the choices are shown, the answer only after Reveal (issue 25)
        assert page.locator('[data-testid="stRadio"]').filter(has_text=lesson_step.question).count() == 1
        assert page.locator('[data-testid="stExpander"]').filter(has_text="Why").count() == 0
        link = (
            page.locator('[data-testid="stMarkdownContainer"] a')
            .filter(has_text="Open the full page with these settings")
            .first
        )
        assert (
            urlparse(link.get_attribute("href")).path.rstrip("/").split("/")[-1]
            == (
                {
                    "pages/synthetic.py": "synthetic",
                    "pages/transfer.py": "transfer",
                    "pages/learning_curves.py": "learning_curves",
                    "pages/digits.py": "digits",
                    "pages/your_data.py": "your_data",
                    "pages/real_data.py": "real_data",
                }[lesson_step.page]
            )
        )
        h.act(page, tracker, _button(page, "Reveal").click)
        assert page.locator('[data-testid="stExpander"]').filter(has_text="Why").count() == 1
        if i < len(LESSON_STEPS) - 1:
            h.act(page, tracker, _button(page, "Next").click)
    assert _button(page, "Next").is_disabled()
    h.act(page, tracker, _button(page, "Back").click)
    assert _step_heading(page).startswith(LESSON_STEPS[-2].title)
    # a step's URL opens that step directly, in a fresh session
    h.open_page(page, tracker, f"{streamlit_server.url}/lesson?step=a-wrong-theta")
    assert _step_heading(page).startswith(f"{step_index('a-wrong-theta') + 1} ·")
    assert h.visible_plots(page) >= 1 and not h.error_texts(page)


def _font_sizes(page):
    """Pixel sizes of the axis tick labels of every drawn chart."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot .xtick text'))
                .map(t => parseFloat(getComputedStyle(t).fontSize))"""
    )


def test_presentation_mode_survives_navigation_at_1920x1080(streamlit_server, chromium):
    context, page, tracker = h.screen_page(chromium, PROJECTOR, f"{streamlit_server.url}/synthetic?present=1")
    try:
        assert not h.error_texts(page)
        # figures without controls (live controls are the Lesson's slides'); projector typography
        main = page.locator('[data-testid="stMain"]')
        assert main.locator('[data-testid="stWidgetLabel"]').count() == 0
        sizes = _font_sizes(page)
        assert sizes and min(sizes) >= 16, sizes
        # a page link in the body keeps the mode
        h.act(
            page,
            tracker,
            page.locator('[data-testid="stPageLink"] a').filter(has_text="What if θ̂ were wrong").first.click,
        )
        assert h.page_title(page) == "Transfer parameters"
        assert h.query(page).get("present") == "1", page.url
        assert main.locator('[data-testid="stWidgetLabel"]').count() == 0
        # and so does the sidebar navigation (Streamlit drops the query string there)
        page.locator(
            '[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button'
        ).first.click()
        h.act(
            page,
            tracker,
            page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Learning curves").first.click,
        )
        assert h.page_title(page) == "Learning curves"
        assert h.query(page).get("present") == "1", page.url
        assert main.locator('[data-testid="stWidgetLabel"]').count() == 0
        sizes = _font_sizes(page)
        assert sizes and min(sizes) >= 16, sizes
        assert not h.error_texts(page)
    finally:
        context.close()


def test_caption_equation_links_scroll_to_the_equations_panel(streamlit_server, browser_page):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
    link = page.locator('[data-testid="stCaptionContainer"] a').filter(has_text="Equation (11)").first
    assert link.get_attribute("href") == "#eq-11-flda-q-closed-form"
    link.click()
    anchor = page.locator("#eq-11-flda-q-closed-form")
    page.wait_for_function(
        "() => { const r = document.querySelector('#eq-11-flda-q-closed-form')"
        ".getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }"
    )
    assert anchor.first.is_visible()
    assert urlparse(page.url).fragment == anchor.first.get_attribute("id")
    # the formula under it is the typeset SVG (ui_equations): shown, in the text colour,
    # its file served; no KaTeX is loaded for it
    formulas = page.locator('.flda-equation [role="img"]')
    assert formulas.count() >= 7 and page.locator(".katex").count() == 0
    shown = formulas.first.evaluate("""async (e) => {
        const style = getComputedStyle(e), box = e.getBoundingClientRect();
        const url = style.maskImage.match(/url\\("(.*)"\\)/)[1];
        const answer = await fetch(url);
        return [box.width > 100 && box.height > 20, style.backgroundColor === style.color,
                answer.status, answer.headers.get("content-type")];
    }""")
    assert shown == [True, True, 200, "image/svg+xml"]
