"""The app in Chromium through ``deploy/serve.sh``: two Streamlit processes behind nginx.

A chart draws, an upload works (the file goes to ``/_stcore/upload_file`` of the
process that holds the tab's websocket: the sticky-session cookie) and a page switch
works.  Skipped without Debian's nginx.
"""

import os

import pytest

import e2e_harness as h

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(h.NGINX, os.X_OK), reason=h.SKIP_NO_NGINX),
]

SAMPLES = h.ROOT / "sample_data"


def test_charts_uploads_and_page_switches_through_nginx(browser_ready, chromium, e2e_tmp):
    server = h.DeployedServer(processes=2, log_path=e2e_tmp / "serve.log")
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{server.url}/transfer")
        assert h.visible_plots(page) >= 1 and not h.error_texts(page)
        cookies = {c["name"]: c["value"] for c in context.cookies()}
        assert cookies.get("flda_backend"), cookies  # the sticky-session cookie

        h.act(
            page,
            tracker,
            page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Your data").first.click,
        )
        assert h.page_title(page).startswith("Your data")
        inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
        h.act(page, tracker, lambda: inputs.nth(0).set_input_files(str(SAMPLES / "poisson_source.csv")))
        h.act(page, tracker, lambda: inputs.nth(1).set_input_files(str(SAMPLES / "poisson_target.csv")))
        assert h.visible_plots(page) >= 1 and not h.error_texts(page)
        assert page.get_by_text("poisson_target.csv").first.is_visible()

        h.act(
            page,
            tracker,
            page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Synthetic domains").first.click,
        )
        assert h.page_title(page) == "Synthetic domains"
        assert h.visible_plots(page) >= 1 and not h.error_texts(page)
        assert not tracker.page_errors, tracker.page_errors
    finally:
        context.close()
        assert server.stop() == 0, server.log_tail()
