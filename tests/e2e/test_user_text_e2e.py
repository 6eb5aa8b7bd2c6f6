"""User text in a real browser: never a live link, never visible HTML entities.

File names and other user text that look like ``https://…``, ``www.…`` or an
e-mail address are shown through ``escape_markdown``; Streamlit's markdown (GFM)
must not turn them into ``<a>`` elements (it does for the same text unescaped,
which the test checks too), and text taken back from a figure for the chart's
caption and aria-label shows ``<img …`` as typed, not ``&lt;img …``.
"""

from pathlib import Path

import pytest

import e2e_harness as h
from text_app import TEXTS

pytestmark = pytest.mark.e2e

APP = Path(__file__).resolve().parent / "text_app.py"
ZWSP = "\u200b"


@pytest.fixture(scope="module")
def text_server(browser_ready, e2e_tmp):
    server = h.StreamlitServer(script=APP, log_path=e2e_tmp / "text_app.log")
    yield server
    server.stop()


def _links(page, container):
    return page.evaluate(
        """(sel) => Array.from(document.querySelectorAll(sel + ' a'))
        .map(a => a.textContent)""",
        f".st-key-{container}",
    )


def test_user_text_is_never_a_live_link_nor_shows_entities(chromium, text_server):
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, text_server.url)
        h.wait_for_charts(page, {"hostile": tracker.expected_charts["hostile"]})
        raw = _links(page, "raw")
        assert len(raw) == 3, raw  # the premise: unescaped, each of them becomes a link
        assert _links(page, "escaped") == []
        shown = page.locator(".st-key-escaped").inner_text().replace(ZWSP, "")
        for text in TEXTS:
            assert text in shown
        assert "&lt;" not in shown and "&amp;" not in shown and "\\" not in shown
        label = page.locator(f'{h.PLOT_SELECTOR}[data-key="hostile"]').evaluate(
            "el => [el, ...el.querySelectorAll('[aria-label]')].filter(e => "
            "e.hasAttribute('aria-label') && !e.closest('.modebar'))"
            ".map(e => e.getAttribute('aria-label')).join(' | ')"
        )
        assert label and "<img src=x>.csv" in label and "&lt;" not in label, label
    finally:
        context.close()
