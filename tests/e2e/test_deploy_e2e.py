"""The app in Chromium through ``deploy/serve.sh``: two Streamlit processes behind nginx.

A chart draws, an upload works (the file goes to ``/_stcore/upload_file`` of the
process that holds the tab's websocket: the sticky-session cookie) and a page switch
works; a tab whose process dies or hangs carries on.  Skipped without Debian's nginx.
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


@pytest.mark.parametrize("how", ["SIGKILL", "SIGSTOP"])
def test_a_tab_whose_process_dies_or_hangs_carries_on_from_its_url(browser_ready, chromium, e2e_tmp, how):
    """The tab's process is killed (SIGKILL, as the out-of-memory killer does) or hangs
    (SIGSTOP: serve.sh's watchdog kills it once its health check stops answering): the
    browser reconnects its websocket through nginx to the live process (Streamlit keeps
    the page on screen and runs nothing until the next action); the next action runs
    the page in a new session there, with the link's one-feature configuration."""
    import signal
    import time

    server = h.DeployedServer(processes=2, log_path=e2e_tmp / "serve.log")
    context = h.new_context(chromium)
    try:
        context.add_cookies([{"name": "flda_backend", "value": "p1", "url": server.url}])
        page = context.new_page()
        tracker = h.RunTracker(page)
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        link = f"{server.url}/synthetic?n_features=1&theta=0.3&class1=0.9&class2=0.2"
        h.open_page(page, tracker, link)
        theta = h.widget(page, "stTextInput", "True dropout θ").locator("input")
        assert theta.input_value() == "0.3" and not h.error_texts(page)
        opened = len(sockets)
        os.kill(server.pids[0], getattr(signal, how))
        deadline = time.monotonic() + 90
        cookie = "p1"
        while time.monotonic() < deadline and (cookie != "p2" or len(sockets) == opened):
            page.wait_for_timeout(250)
            cookie = {c["name"]: c["value"] for c in context.cookies()}.get("flda_backend")
        assert cookie == "p2" and len(sockets) > opened, "the tab did not reconnect to the live process"
        runs = len(tracker.run_kinds)
        # any action runs the page there, in a new session started from the link
        seed = h.widget(page, "stNumberInput", "Random seed")
        h.act(page, tracker, seed.locator('[data-testid="stNumberInputStepUp"]').click)
        assert len(tracker.run_kinds) > runs  # the live process ran the page
        theta = h.widget(page, "stTextInput", "True dropout θ").locator("input")
        assert theta.input_value() == "0.3"
        assert h.widget(page, "stNumberInput", "Number of features").locator("input").input_value() == "1"
        assert not h.error_texts(page) and h.query(page)["theta"] == "0.3"
        page.screenshot(path=str(e2e_tmp / "reconnected.png"), full_page=False)
        assert not tracker.page_errors, tracker.page_errors
    finally:
        context.close()
        assert server.stop() == 0, server.log_tail()
