"""A class on one server: many concurrent browser sessions against one ``streamlit run app.py``.

The dashboard is meant to be run by a lecturer on one machine for a whole
class.  This benchmark starts one Streamlit server on a free loopback port
and opens ``--sessions`` (default 30) browser sessions at once in Debian's
Chromium (Playwright, ``executable_path=/usr/bin/chromium``, never
``playwright install``).  Every session but one opens a page (default the
Transfer parameters page) and moves a slider ``--moves`` times; one session
uploads a source and a target CSV on "Your data" instead.  Printed:

* p50 / p95 time from a control change (or the upload) to an updated figure,
  measured inside the browser: from just before the key press to Plotly's
  ``plotly_afterplot`` event of a chart redrawn by the new run;
* the same for one session alone, measured first in the same run (the
  baseline), and the ratio of the two;
* page-load p50 / p95, the server's peak resident memory (the process tree,
  via psutil, else ``/proc``) against its memory right after start, and
  every error (a timeout, an exception or error box on the page, a
  JavaScript error).

Goal of issue 11: 0 errors, p95 under 5 s, bounded memory with 30 sessions.
Only 127.0.0.1 is contacted; every wait has a timeout and every loop a bound.
It is heavy (30 Chromium tabs): ``run_all.py`` runs it only with ``--load``.

Run: ``python3 benchmarks/bench_load.py [--sessions 30] [--moves 3]``
(``--sessions 3`` for a quick check).

Results
-------
``python3 benchmarks/bench_load.py --sessions 30``, 2026-11-26 15:11 UTC, quiet 2-core
reference machine (load average not recorded; the 30 Chromium tabs share the server's
cores): a slider move to an updated figure p50 4.9 s, p95 7.8 s (87 of 87 moves; one
session alone p50 0.23 s); page load p50 138 s, p95 142 s (alone 3.3 s); the upload 72 s;
server RSS 245 MB after start, peak 287 MB; 0 errors.  The p95 goal (5 s) is not met
with the browsers on the server's own cores: ``bench_class.py`` measures the server alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from e2e_harness import (  # noqa: E402
    APP_ROOT,
    CHROMIUM,
    CHROMIUM_ARGS,
    ERROR_SELECTORS,
    PLOT_SELECTOR,
    SKELETON_SELECTOR,
    VIEWPORT,
    StreamlitServer,
    chromium_available,
    proc_rss,
)

#: Goal of issue 11 for the 95th percentile of the time to an updated figure.
GOAL_P95_S = 5.0
#: Upper bound for one page load or one action to show its figure.
ACTION_TIMEOUT_S = 180.0
#: Upper bound for the whole concurrent phase.
TOTAL_TIMEOUT_S = 1800.0
#: Page and slider every control session moves.
CONTROL_PAGES = {"transfer": "θ̂1 + …", "learning_curves": "Number of sizes"}
UPLOAD_FILES = (ROOT / "sample_data" / "poisson_source.csv", ROOT / "sample_data" / "poisson_target.csv")

# Hook every Plotly chart on the page (once) so that each redraw records its time.
_HOOK = """() => {
    const hook = gd => {
        if (gd.__benchHooked || typeof gd.on !== 'function') return;
        gd.__benchHooked = true;
        gd.on('plotly_afterplot', () => { window.__benchLastPlot = performance.now(); });
    };
    document.querySelectorAll('.js-plotly-plot').forEach(hook);
    return performance.now();
}"""
# Resolves with the time of the first chart redraw (or new chart) after t0.
_UPDATED = """(t0) => {
    document.querySelectorAll('.js-plotly-plot').forEach(gd => {
        if (!gd.__benchHooked && typeof gd.on === 'function' && gd.querySelector('.main-svg')) {
            gd.__benchHooked = true;   // a chart that appeared after the action: drawn now
            gd.on('plotly_afterplot', () => { window.__benchLastPlot = performance.now(); });
            window.__benchLastPlot = Math.max(window.__benchLastPlot || 0, performance.now());
        }
    });
    const last = window.__benchLastPlot || 0;
    return last > t0 ? last : false;
}"""
# The run is over and every chart has drawn.
_SETTLED = f"""() => {{
    const root = document.querySelector('{APP_ROOT}');
    if (!root || root.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('{SKELETON_SELECTOR}')) return false;
    return Array.from(document.querySelectorAll('{PLOT_SELECTOR}')).every(
        el => el.querySelector('.js-plotly-plot .main-svg') !== null);
}}"""


@dataclass
class SessionResult:
    kind: str
    load_s: float | None = None
    latencies_s: list = field(default_factory=list)
    errors: list = field(default_factory=list)


class RssMonitor(threading.Thread):
    """Samples the resident memory of a process and its children until stopped."""

    def __init__(self, pid, interval_s=0.25):
        super().__init__(daemon=True)
        self.pid, self.interval_s = pid, interval_s
        self.samples = []
        self._stop_event = threading.Event()

    def rss(self):
        try:
            import psutil
        except ImportError:
            return proc_rss(self.pid)
        try:
            process = psutil.Process(self.pid)
            tree = [process, *process.children(recursive=True)]
            return sum(p.memory_info().rss for p in tree if p.is_running())
        except psutil.Error:
            return 0

    def run(self):
        while not self._stop_event.is_set():
            self.samples.append(self.rss())
            self._stop_event.wait(self.interval_s)

    def stop(self):
        self._stop_event.set()
        self.join(timeout=5)
        return max(self.samples, default=0)


async def _errors_on_page(page):
    texts = []
    for selector in ERROR_SELECTORS:
        boxes = page.locator(selector)
        for k in range(min(await boxes.count(), 5)):
            if await boxes.nth(k).is_visible():
                texts.append((await boxes.nth(k).inner_text())[:200])
    return texts


async def _settle(page):
    await page.wait_for_function(_SETTLED, timeout=ACTION_TIMEOUT_S * 1000, polling=100)


async def _updated_after(page, action):
    """Run ``action`` and return seconds until a chart redraws (measured in the browser)."""
    t0 = await page.evaluate(_HOOK)
    await action()
    handle = await page.wait_for_function(_UPDATED, arg=t0, timeout=ACTION_TIMEOUT_S * 1000, polling=50)
    latency_ms = await handle.json_value() - t0
    await _settle(page)
    return latency_ms / 1000.0


async def _open(page, url):
    start = time.perf_counter()
    await page.goto(url, timeout=ACTION_TIMEOUT_S * 1000)
    await page.locator(f"{PLOT_SELECTOR} .js-plotly-plot .main-svg").first.wait_for(
        timeout=ACTION_TIMEOUT_S * 1000
    )
    await _settle(page)
    return time.perf_counter() - start


async def _session(browser, kind, steps):
    """One visitor: a fresh browser context (a new Streamlit session) running ``steps``."""
    result = SessionResult(kind)
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(ACTION_TIMEOUT_S * 1000)
    page = await context.new_page()
    page.on("pageerror", lambda error: result.errors.append(f"JavaScript: {error}"))
    try:
        await steps(page, result)
        result.errors.extend(await _errors_on_page(page))
    except Exception as error:  # a timeout or a broken page is a result, not a crash
        result.errors.append(f"{type(error).__name__}: {str(error).splitlines()[0][:200]}")
    finally:
        await context.close()
    return result


def control_session(browser, base_url, page_name, moves, key):
    """Open ``page_name`` and press ``key`` on its slider ``moves`` times."""

    async def steps(page, result):
        result.load_s = await _open(page, f"{base_url}/{page_name}")
        label = CONTROL_PAGES[page_name]
        box = (
            page.locator('[data-testid="stSlider"]')
            .filter(has=page.locator('[data-testid="stWidgetLabel"]', has_text=label))
            .first
        )
        thumb = box.locator('input[type="range"]').first
        for _ in range(moves):
            await thumb.scroll_into_view_if_needed()

            async def press():
                await thumb.focus()
                await thumb.press(key)

            result.latencies_s.append(await _updated_after(page, press))

    return _session(browser, "control", steps)


def upload_session(browser, base_url):
    """Open "Your data", upload the source, then time the target upload to a figure."""

    async def steps(page, result):
        start = time.perf_counter()
        await page.goto(f"{base_url}/your_data", timeout=ACTION_TIMEOUT_S * 1000)
        await _settle(page)
        result.load_s = time.perf_counter() - start
        inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
        await inputs.nth(0).set_input_files(str(UPLOAD_FILES[0]))
        await _settle(page)

        async def upload_target():
            await inputs.nth(1).set_input_files(str(UPLOAD_FILES[1]))

        result.latencies_s.append(await _updated_after(page, upload_target))

    return _session(browser, "upload", steps)


async def run_sessions(base_url, n_sessions, moves, page_name):
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            jobs = [upload_session(browser, base_url)] if n_sessions > 1 else []
            jobs += [
                control_session(
                    browser, base_url, page_name, moves, "ArrowRight" if k % 2 == 0 else "ArrowLeft"
                )
                for k in range(n_sessions - len(jobs))
            ]
            return await asyncio.wait_for(asyncio.gather(*jobs), TOTAL_TIMEOUT_S)
        finally:
            await browser.close()


def percentile(values, q):
    """The ``q``-th percentile (0-100) by linear interpolation; NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def summarize(results):
    controls = [t for r in results if r.kind == "control" for t in r.latencies_s]
    uploads = [t for r in results if r.kind == "upload" for t in r.latencies_s]
    loads = [r.load_s for r in results if r.load_s is not None]
    errors = [e for r in results for e in r.errors]
    return controls, uploads, loads, errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--moves", type=int, default=3, help="slider moves per session")
    parser.add_argument("--page", choices=sorted(CONTROL_PAGES), default="transfer")
    args = parser.parse_args(argv)
    if not chromium_available():
        print(f"SKIPPED: no Chromium at {CHROMIUM} (apt-get install chromium)")
        return 0
    if not 1 <= args.sessions <= 100 or not 1 <= args.moves <= 50:
        parser.error("use 1-100 sessions and 1-50 moves")
    log = Path(tempfile.gettempdir()) / f"bench_load_streamlit_{os.getpid()}.log"
    server = StreamlitServer(log_path=log)
    try:
        monitor = RssMonitor(server.process.pid)
        start_rss = monitor.rss()
        monitor.start()
        print(f"server {server.url} (log {log}), RSS after start {start_rss / 2**20:.0f} MB", flush=True)
        baseline = asyncio.run(run_sessions(server.url, 1, args.moves, args.page))
        base_controls, _, base_loads, base_errors = summarize(baseline)
        print(
            f"baseline, 1 session: page load {base_loads[0] if base_loads else float('nan'):.2f}"
            f" s, time to updated figure p50 {percentile(base_controls, 50):.2f} s",
            flush=True,
        )
        start = time.perf_counter()
        results = asyncio.run(run_sessions(server.url, args.sessions, args.moves, args.page))
        wall = time.perf_counter() - start
        peak_rss = monitor.stop()
    finally:
        server.stop()
    controls, uploads, loads, errors = summarize(results)
    errors = base_errors + errors
    p50, p95 = percentile(controls, 50), percentile(controls, 95)
    base_p50 = percentile(base_controls, 50)
    print(
        f"\n{args.sessions} concurrent sessions on '{args.page}' ({args.moves} slider moves "
        f"each, 1 upload on 'your_data'), {wall:.1f} s wall time"
    )
    print(
        f"  time to updated figure after a control change: p50 {p50:.2f} s, p95 {p95:.2f} s "
        f"({len(controls)} changes)"
    )
    print(
        f"  ratio p50 under load / p50 alone: {p50 / base_p50:.2f}"
        if base_p50 > 0
        else "  ratio p50 under load / p50 alone: n/a"
    )
    print(f"  ratio p95 / goal ({GOAL_P95_S:.0f} s): {p95 / GOAL_P95_S:.2f}")
    print(f"  upload to first figure: {', '.join(f'{t:.2f} s' for t in uploads) or 'n/a'}")
    print(f"  page load: p50 {percentile(loads, 50):.2f} s, p95 {percentile(loads, 95):.2f} s")
    print(
        f"  server RSS: {start_rss / 2**20:.0f} MB after start, peak {peak_rss / 2**20:.0f} MB "
        f"(ratio {peak_rss / max(start_rss, 1):.2f})"
    )
    print(f"  errors: {len(errors)}")
    for error in errors[:10]:
        print(f"    - {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
