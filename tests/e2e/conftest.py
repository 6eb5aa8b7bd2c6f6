"""Fixtures of the browser end-to-end tests: one Streamlit server and one Chromium
per test session, a fresh browser context (cookies, session) per test.

The tests skip with a message saying how to enable them when Playwright's Python
package or Debian's Chromium (``/usr/bin/chromium``) is missing.  Full-page
screenshots go to ``$FLDA_SCREENSHOT_DIR`` when set, else to a temporary
directory (its path is printed in the test report's header).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

import e2e_harness as h


def _skip_reason():
    if importlib.util.find_spec("playwright") is None:
        return h.SKIP_NO_PLAYWRIGHT
    if not h.chromium_available():
        return h.SKIP_NO_CHROMIUM
    return None


@pytest.fixture(scope="session")
def browser_ready():
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def e2e_tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("e2e")


@pytest.fixture(scope="session")
def screenshot_dir(e2e_tmp):
    path = Path(os.environ.get("FLDA_SCREENSHOT_DIR") or e2e_tmp / "screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def streamlit_server(browser_ready, e2e_tmp):
    server = h.StreamlitServer(log_path=e2e_tmp / "streamlit.log")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium(browser_ready):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = h.launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    """``(page, tracker)`` in a new browser context: a new Streamlit session."""
    context = h.new_context(chromium)
    page = context.new_page()
    tracker = h.RunTracker(page)
    yield page, tracker
    context.close()
    assert not tracker.page_errors, f"JavaScript errors in the page: {tracker.page_errors}"
