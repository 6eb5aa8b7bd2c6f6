"""Shared machinery of the browser end-to-end tests and of ``take_screenshots.py``.

* :class:`StreamlitServer` starts ``streamlit run app.py`` headless on a free
  port and waits for its health endpoint.
* :func:`launch_chromium` drives Debian's ``/usr/bin/chromium`` through
  Playwright (never ``playwright install``).
* :class:`RunTracker` knows when a script run has *really* finished.  The app
  root carries ``data-test-script-state`` (``initial`` / ``running`` /
  ``notRunning`` / ...), but after a widget changes the browser keeps showing
  ``notRunning`` until the server's "script started" message arrives, and a
  fast run can go from running back to notRunning inside one React render.
  Waiting on the attribute alone therefore needs a sleep; instead the tracker
  reads the websocket protocol itself: every ``rerun_script`` request the
  browser sends and every ``script_finished`` message the server answers,
  decoded with Streamlit's own protobuf classes.  A run is over when the last
  request has been answered *and* the attribute says ``notRunning`` *and*
  every Plotly chart has drawn its SVG.
* :data:`PAGES` describes each page: URL path, title, what it must show and
  which key control the test moves.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("FLDA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SKIP_NO_CHROMIUM = "install Debian's chromium (apt-get install chromium) to run the browser tests"
SKIP_NO_PLAYWRIGHT = (
    "install the Playwright Python package (python3 -m pip install -r "
    "requirements-dev.txt; never `playwright install`) to run the "
    "browser tests"
)
#: Laptop-sized window; screenshots then grow the height to the page's full height.
VIEWPORT = {"width": 1280, "height": 900}
#: Upper bound for one script run (generous: the machine may be shared and slow).
RUN_TIMEOUT_S = float(os.environ.get("FLDA_E2E_RUN_TIMEOUT", "240"))
#: Upper bound for the browser to *ask* for a run after an action (no server work).
REQUEST_TIMEOUT_S = 20.0
SERVER_START_TIMEOUT_S = 90.0

APP_ROOT = '[data-testid="stApp"]'
ERROR_SELECTORS = ('[data-testid="stException"]', '[data-testid="stAlertContentError"]')
SKELETON_SELECTOR = '[data-testid="stSkeleton"]'
#: The explorer's chart element (ui_chart.py); it wraps the Plotly graph div.
PLOT_SELECTOR = '[data-testid="fldaChart"]'
#: Name of that element's Streamlit component (ui_chart.COMPONENT_NAME).
CHART_COMPONENT = "flda_chart"
TABLE_SELECTOR = '[data-testid="stDataFrame"], [data-testid="stTable"]'


def chromium_available():
    return os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)


def free_port():
    """A TCP port nobody listens on.

    ``FLDA_E2E_PORTS="8605-8609"`` restricts the choice to a range (for machines
    shared by several developers); otherwise the operating system picks one.
    """
    wanted = os.environ.get("FLDA_E2E_PORTS")
    candidates = [0]
    if wanted:
        lo, _, hi = wanted.partition("-")
        candidates = list(range(int(lo), int(hi or lo) + 1))
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError(f"no free port in FLDA_E2E_PORTS={wanted}")


def proc_rss(pid):
    """Resident memory of process ``pid`` in bytes (``/proc``), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def die_with_parent():
    """``preexec_fn`` for servers: on Linux the child gets SIGTERM when the process that
    started it dies, even by SIGKILL (``prctl(PR_SET_PDEATHSIG)``), so a killed test
    or benchmark run leaves no server behind to skew the next measurement."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1: PDEATHSIG
    except (OSError, AttributeError):  # not Linux/glibc: stop() still stops the server
        pass


#: The server's warm-ups that servers under test leave out unless the environment asks
#: for them: the disk stores filled in the background (``explorer.ui.serving.STORE_WARM_UPS``),
#: which would compete with the pages for the CPU, and the lesson's steps computed before
#: the server opens (``serving.LESSON_WARM_UP``), which would slow every start.
QUIET_WARM_UPS = ("FLDA_REAL_DATA_WARM_UP", "FLDA_DIGITS_WARM_UP", "FLDA_LESSON_WARM_UP")


class StreamlitServer:
    """``streamlit run app.py`` (or ``script``) in its own process group, stopped by :meth:`stop`.

    ``extra_args`` are passed on, e.g. ``["--theme.base", "dark"]``.  The file
    watcher is off so that edits in the work tree never rerun a page mid-test.
    ``cwd`` is the server's working folder (another checkout, for benchmarks that
    compare two trees); ``base_path`` serves the app under a path, as behind a proxy.
    """

    def __init__(
        self, port=None, extra_args=(), log_path=None, script=ROOT / "app.py", cwd=ROOT, base_path=""
    ):
        self.port = port or free_port()
        base_path = base_path.strip("/")
        #: the app's address (with ``base_path``, as behind a proxy: ``server.baseUrlPath``)
        self.url = f"http://127.0.0.1:{self.port}" + (f"/{base_path}" if base_path else "")
        if base_path:
            extra_args = [*extra_args, "--server.baseUrlPath", base_path]
        self.log_path = Path(log_path) if log_path else None
        started = time.perf_counter()
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.runOnSave",
            "false",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
            *extra_args,
        ]
        # Open for the server's lifetime, closed in stop().
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        # Servers under test make none of the warm-ups in QUIET_WARM_UPS unless asked.
        env = {**os.environ, **{name: os.environ.get(name, "0") for name in QUIET_WARM_UPS}}
        self.process = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdout=self._log,
            env=env,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        #: seconds from launching the process to a healthy server
        self.start_seconds = time.perf_counter() - started

    def _wait_healthy(self):
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with code {self.process.returncode}; log: {self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and r.read().strip() == b"ok":
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not become healthy on {self.url}; log: {self.log_tail()}")
            time.sleep(0.05)  # polling a socket, not waiting for the app

    def log_tail(self, n=40):
        if not self.log_path or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self._log is not subprocess.DEVNULL:
            self._log.close()


NGINX = "/usr/sbin/nginx"
SKIP_NO_NGINX = "install Debian's nginx (apt-get install nginx) to test deploy/serve.sh"


def answers_health(port, host="127.0.0.1"):
    """Whether the server on ``port`` answers its health check now (2 s at most)."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


class DeployedServer:
    """``deploy/serve.sh``: ``processes`` Streamlit processes behind nginx on ``port``.

    Started in its own process group and stopped by :meth:`stop` (SIGTERM to the
    script, which stops its children; anything left in the group is then killed).
    ``pids`` are the processes as serve.sh printed them once all answered: the
    Streamlit processes and the nginx master (supervisord's children).
    """

    def __init__(self, processes=2, port=None, log_path=None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(log_path or f"/tmp/flda-serve-test-{os.getpid()}.log")
        env = {
            **os.environ,
            "PORT": str(self.port),
            "PROCESSES": str(processes),
            "PYTHON": sys.executable,
            **{name: os.environ.get(name, "0") for name in QUIET_WARM_UPS},
        }
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            ["bash", str(ROOT / "deploy" / "serve.sh")],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        try:
            self._wait_ready(processes)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, processes):
        deadline = time.monotonic() + 2 * SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve.sh exited: {self.log_tail()}")
            if len(self.pids) == processes + 1:
                try:
                    with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            return
                except OSError:
                    pass
            time.sleep(0.1)  # polling a socket, not waiting for the app
        raise RuntimeError(f"serve.sh did not serve {self.url}: {self.log_tail()}")

    @property
    def pids(self):
        """PIDs serve.sh started (Streamlit processes, nginx master), from its log."""
        return [int(pid) for pid in re.findall(r"\(pid (\d+)\)", self.log_path.read_text())]

    @property
    def supervisor_pid(self):
        """PID of the supervisord that serve.sh runs (it starts and restarts the others)."""
        found = re.search(r"\(supervisor pid (\d+)\)", self.log_path.read_text())
        return int(found.group(1)) if found else None

    def backend_ports(self):
        """Loopback ports of the Streamlit processes, in order, from serve.sh's log."""
        return [int(port) for port in re.findall(r"\) on 127\.0\.0\.1:(\d+)", self.log_path.read_text())]

    def streamlit_pids(self):
        """``{port: pid}`` of the Streamlit processes supervisord runs now (``/proc``)."""
        found = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) != self.supervisor_pid:
                    continue
                argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except (OSError, ValueError, IndexError):
                continue
            if b"streamlit" in argv and b"--server.port" in argv:
                found[int(argv[argv.index(b"--server.port") + 1])] = int(entry)
        return found

    def log_tail(self, n=30):
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def stop(self, timeout=40):
        """SIGTERM to serve.sh and wait for it; returns its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # whatever it failed to stop
        except ProcessLookupError:
            pass
        self.process.wait()
        self._log.close()
        return self.process.returncode


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def new_context(browser, color_scheme="light"):
    """A fresh browser context (a new Streamlit session) with a laptop-sized window.

    Locator actions fail after 20 s (an element that does not appear is a bug);
    page loads may take up to a minute on a busy machine.
    """
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, color_scheme=color_scheme)
    context.set_default_timeout(20_000)
    context.set_default_navigation_timeout(60_000)
    return context


def screen_page(browser, viewport, url):
    """``(context, page, tracker)``: a fresh session at ``viewport`` (a projector's size)
    that has opened ``url``; close the context when done."""
    context = new_context(browser)
    page = context.new_page()
    page.set_viewport_size(viewport)
    tracker = RunTracker(page)
    try:
        open_page(page, tracker, url)
    except BaseException:
        context.close()
        raise
    return context, page, tracker


# --------------------------------------------------------------------------- runs


class RunTracker:
    """Counts rerun requests and finished script runs on a page's Streamlit websocket."""

    def __init__(self, page):
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._back, self._forward = BackMsg, ForwardMsg
        self.page = page
        self.events = []  # ("rerun" | "finished" | "early", sequence number)
        self._seq = 0
        self._cache = {}  # ForwardMsg hash -> message (for reference messages)
        self._charts_this_run = {}
        self.expected_charts = {}  # chart key -> payload revision sent by the last complete run
        self.page_errors = []  # uncaught JavaScript exceptions
        self.run_kinds = []  # "full" or "fragment": each successful run, in order
        self.run_elements = []  # the element types each successful run sent, in order
        self._elements_this_run = []
        self._pending = set()  # HTTP requests in flight (lazily loaded code, fonts)
        # A run sent a chart that must report its draw (explorer.ui.charts.show_chart: the page's
        # first chart, the rest of the page held back): the report's rerun is still owed.
        self.report_owed = False
        page.on("websocket", self._attach)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on("request", lambda request: self._pending.add(request))
        page.on("requestfinished", lambda request: self._pending.discard(request))
        page.on("requestfailed", lambda request: self._pending.discard(request))

    def _attach(self, ws):
        if ws.url.endswith("/_stcore/stream"):
            ws.on("framesent", self._sent)
            ws.on("framereceived", self._received)

    def _record(self, kind):
        self._seq += 1
        self.events.append((kind, self._seq))

    def _sent(self, payload):
        if isinstance(payload, str):
            return
        msg = self._back()
        try:
            msg.ParseFromString(payload)
        except Exception:  # not a BackMsg: ignore
            return
        if msg.WhichOneof("type") == "rerun_script":
            if any(
                w.WhichOneof("value") == "json_trigger_value" and '"drawn"' in w.json_trigger_value
                for w in msg.rerun_script.widget_states.widgets
            ):
                self.report_owed = False
            self._record("rerun")

    def _received(self, payload):
        if isinstance(payload, str):
            return
        msg = self._forward()
        try:
            msg.ParseFromString(payload)
        except Exception:
            return
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":  # a message the browser already has: look it up
            msg = self._cache.get(msg.ref_hash)
            if msg is None:
                return
            kind = msg.WhichOneof("type")
        elif msg.hash:
            self._cache[msg.hash] = msg
        if kind == "new_session":  # sent at the start of every full script run
            self._charts_this_run = {}
            self._elements_this_run = []
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element_type = msg.delta.new_element.WhichOneof("type")
            self._elements_this_run.append(element_type)
            component = msg.delta.new_element.bidi_component
            if element_type == "bidi_component" and component.component_name == CHART_COMPONENT:
                payload = json.loads(component.bytes)
                self._charts_this_run[payload["key"]] = payload["revision"]
                if payload.get("report"):
                    self.report_owed = True
        elif kind == "script_finished":
            status = msg.script_finished
            if status == self._forward.FINISHED_EARLY_FOR_RERUN:
                self._record("early")
            else:
                if status == self._forward.FINISHED_SUCCESSFULLY:
                    self.expected_charts = dict(self._charts_this_run)
                    self.run_kinds.append("full")
                    self.run_elements.append(self._elements_this_run)
                elif status == self._forward.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    # a fragment redraws its own charts; the others stay as they are
                    self.expected_charts.update(self._charts_this_run)
                    self.run_kinds.append("fragment")
                    self.run_elements.append(self._elements_this_run)
                self._charts_this_run, self._elements_this_run = {}, []
                self._record("finished")

    def mark(self):
        """Position to wait from: call before an action, pass to :meth:`wait_idle`."""
        return self._seq

    def _settled(self, since):
        reruns = [s for k, s in self.events if k == "rerun" and s > since]
        if not reruns or self._pending or self.report_owed:
            return False
        return any(k == "finished" and s > reruns[-1] for k, s in self.events)

    def wait_idle(self, since, timeout_s=RUN_TIMEOUT_S, request_timeout_s=REQUEST_TIMEOUT_S):
        """Wait until every rerun requested after ``since`` has finished and drawn.

        The browser asks for a rerun as soon as a widget changes, before any
        server work, so an action that requests none within
        ``request_timeout_s`` did nothing: that fails at once instead of
        waiting out ``timeout_s``.
        """
        start = time.monotonic()
        deadline = start + timeout_s
        while not self._settled(since):
            now = time.monotonic()
            if not any(k == "rerun" for k in self.events_since(since)) and now > start + request_timeout_s:
                raise TimeoutError(
                    f"the action requested no script run within "
                    f"{request_timeout_s:.0f} s: nothing reacted to it"
                )
            if now > deadline:
                raise TimeoutError(
                    f"no finished script run within {timeout_s:.0f} s "
                    f"(events since mark: {self.events_since(since)})"
                )
            self.page.wait_for_timeout(40)  # lets Playwright deliver websocket events
        remaining_ms = max(1000.0, (deadline - time.monotonic()) * 1000)
        # The run's elements are committed once the root says notRunning.  Elements
        # whose code Streamlit loads lazily (sliders, charts, ...) show a skeleton,
        # then fetch their code: wait for those requests, the skeletons and charts.
        self.page.locator(f'{APP_ROOT}[data-test-script-state="notRunning"]').wait_for(
            state="attached", timeout=remaining_ms
        )
        while True:
            self._next_frame()
            if not self._pending and self.page.locator(SKELETON_SELECTOR).count() == 0:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"page still loading after {timeout_s:.0f} s: {[r.url for r in self._pending]}"
                )
            self.page.wait_for_timeout(40)
        wait_for_charts(self.page, self.expected_charts, remaining_ms)
        self._next_frame()

    def _next_frame(self):
        """Resolve after the browser painted twice (React commits what it scheduled)."""
        self.page.evaluate(
            "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )

    def events_since(self, since):
        return [k for k, s in self.events if s > since]


def wait_for_charts(page, expected=None, timeout_ms=30_000):
    """Every chart of the last run is on the page and shows that run's figure.

    ``expected`` maps chart keys to the payload revision the run sent
    (:attr:`RunTracker.expected_charts`).  A chart is redrawn in place when its
    figure changes, so "has an SVG" is not enough: each chart element must say
    (``data-revision``) that it has drawn that revision.
    """
    page.wait_for_function(
        """([sel, expected]) => {
               const charts = Array.from(document.querySelectorAll(sel));
               const drawn = el => el.querySelector('.js-plotly-plot .main-svg') !== null;
               return charts.every(drawn) && Object.entries(expected).every(
                   ([key, revision]) => charts.some(
                       el => el.dataset.key === key && el.dataset.revision === revision));
           }""",
        arg=[PLOT_SELECTOR, dict(expected or {})],
        timeout=timeout_ms,
    )


def open_page(page, tracker, url):
    """Load ``url`` and wait for its first script run to finish."""
    since = tracker.mark()
    page.goto(url)
    tracker.wait_idle(since)


def act(page, tracker, action):
    """Run ``action()`` (a click, a key press) and wait for the rerun it triggers."""
    since = tracker.mark()
    action()
    tracker.wait_idle(since)


# ------------------------------------------------------------------- assertions


def error_texts(page):
    """Texts of exception and error boxes that are shown (empty list: none)."""
    texts = []
    for selector in ERROR_SELECTORS:
        for box in page.locator(selector).all():
            if box.is_visible():
                texts.append(box.inner_text()[:500])
    return texts


def visible_plots(page):
    """Rendered Plotly charts with a real size (an empty or collapsed one does not count)."""
    count = 0
    for chart in page.locator(f"{PLOT_SELECTOR} .js-plotly-plot").all():
        box = chart.bounding_box()
        if chart.is_visible() and box and box["width"] > 200 and box["height"] > 150:
            count += 1
    return count


def visible_tables(page):
    count = 0
    for table in page.locator(TABLE_SELECTOR).all():
        box = table.bounding_box()
        if table.is_visible() and box and box["height"] > 30:
            count += 1
    return count


def page_title(page):
    """Text of the page's first heading (``st.title``)."""
    return page.locator('[data-testid="stMain"] h1').first.inner_text().strip()


def shows_page(page, spec):
    """The page's title starts with the expected heading (subtitles may follow)."""
    return page_title(page).startswith(spec.heading)


def sidebar_nav_labels(page):
    """Page titles in the sidebar navigation (without the icons' ligature names)."""
    return [
        label.inner_text().strip()
        for label in page.locator(
            '[data-testid="stSidebarNavLink"] [data-testid="stMarkdownContainer"]'
        ).all()
    ]


def query(page):
    """The page's current query string as ``{name: value}``."""
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def main_scroll_height(page):
    """Height (CSS px) the page needs to show everything without scrolling."""
    return page.evaluate(
        """() => {
            const heights = [document.documentElement.scrollHeight];
            for (const sel of ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]',
                               '[data-testid="stSidebarContent"]']) {
                const el = document.querySelector(sel);
                if (el) heights.push(el.scrollHeight);
            }
            return Math.max(...heights);
        }"""
    )


def full_page_screenshot(page, tracker, path, width=VIEWPORT["width"]):
    """Grow the viewport to the page's full height, let charts re-layout, save a PNG.

    Streamlit scrolls inside its own container, so Playwright's ``full_page``
    would only capture one screen; sizing the viewport shows the whole page.
    """
    # No tooltip left over from the last click: move the pointer away, drop focus.
    page.mouse.move(width - 1, 1)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stTooltipContent\"]').length === 0"
    )
    height = VIEWPORT["height"]
    for _ in range(4):  # growing the window can reflow the page: repeat until stable
        needed = int(main_scroll_height(page))
        if needed <= height:
            break
        height = needed
        page.set_viewport_size({"width": width, "height": height})
        wait_for_charts(page, tracker.expected_charts)
        page.wait_for_function("() => document.fonts.status === 'loaded'")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), animations="disabled", caret="hide")
    page.set_viewport_size(VIEWPORT)
    return height


# ---------------------------------------------------------------------- theme


def _rgb(css):
    """``(r, g, b)`` in 0..1 from a CSS ``rgb(...)``/``rgba(...)`` or ``#rgb``/``#rrggbb``
    string."""
    css = css.strip()
    if css.startswith("#"):
        digits = css[1:] if len(css) == 7 else "".join(c * 2 for c in css[1:4])
        return tuple(int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))
    values = css[css.index("(") + 1 : css.index(")")].replace("/", ",").split(",")
    return tuple(float(v) / 255 for v in values[:3])


def luminance(css):
    """WCAG relative luminance of a CSS colour."""

    def channel(c):
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(css_a, css_b):
    """WCAG contrast ratio of two CSS colours (1 to 21)."""
    hi, lo = sorted((luminance(css_a), luminance(css_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def theme_colors(page):
    """Colours actually painted: app background and text, and for every Plotly
    chart its background, axis tick labels, axis titles and legend text."""
    return page.evaluate(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const fill = el => el ? getComputedStyle(el).fill : null;
            const charts = Array.from(document.querySelectorAll('.js-plotly-plot')).map(c => ({
                background: getComputedStyle(c.querySelector('.main-svg')).backgroundColor,
                tick: fill(c.querySelector('.xtick text, .ytick text')),
                axisTitle: fill(c.querySelector('.xtitle, .ytitle')),
                legend: fill(c.querySelector('.legendtext')),
            }));
            return {background: getComputedStyle(app).backgroundColor,
                    text: getComputedStyle(app).color, charts};
        }"""
    )


def classifier_traces(page):
    """``[(chart index, trace name, colours)]`` of every drawn Plotly line, marker
    or bar trace whose name starts with a classifier's paper name (S-LS, FLDA-Q, ...).

    ``colours`` are all colours the trace paints with (line, marker, fill), as
    ``(r, g, b)`` in 0..255, after Plotly applied its defaults.
    """
    raw = page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(
            (gd, i) => (gd._fullData || []).filter(
                // colour-scale traces (weight maps) have no family colour
                t => t.visible !== false && !['heatmap', 'image', 'contour'].includes(t.type)
            ).map(t => [
                i, t.name || '',
                [t.line && t.line.color, t.marker && t.marker.color, t.fillcolor]
                    .flat().filter(c => typeof c === 'string')]))"""
    )
    traces = []
    for index, name, colors in raw:
        if re.match(r"(S-LS|S-LR|T-LS|T-LR|FLDA-Q|FLDA-L)(?![\w-])", name):
            traces.append((index, name, {css_rgb255(c) for c in colors}))
    return traces


#: Two text boxes of a chart "overlap" when they share more than this many CSS px both
#: across and down (a box is the font's em box: glyphs that merely sit close share none).
OVERLAP_TOLERANCE_PX = 1.0


def chart_texts(page, root=None):
    """Every text a drawn chart shows, per chart: ``[{"key", "texts": [{"text", "kind",
    "box": [left, top, right, bottom]}], "svg": [l, t, r, b]}]``.

    The texts are the ``<text>`` elements of the chart's SVG layers (titles, axis titles,
    tick labels, legend entries and title, colour-bar titles and tick labels, subplot
    titles and other annotations, labels on markers and bars), without the hover layer,
    empty strings and hidden elements.  ``kind`` is the element's or its group's class
    (``ytick``, ``legendtext``, ``annotation-text``, ``cbcoloraxistick`` ...).
    ``root``: a CSS selector of the part of the page to look in (default: the page)."""
    return page.evaluate(
        """([sel, root]) => {
            const scope = root ? document.querySelector(root) : document;
            if (!scope) return [];
            return Array.from(scope.querySelectorAll(sel)).map(chart => {
                const texts = [];
                for (const t of chart.querySelectorAll('.main-svg text')) {
                    if (!t.textContent.trim() || t.closest('.hoverlayer, .modebar')) continue;
                    const style = getComputedStyle(t);
                    if (style.display === 'none' || style.visibility === 'hidden'
                        || parseFloat(style.opacity) === 0) continue;
                    const r = t.getBoundingClientRect();
                    if (r.width < 1 || r.height < 1) continue;
                    const group = t.closest('g[class]');
                    const kind = [t.getAttribute('class'), group && group.getAttribute('class')]
                        .filter(Boolean).join(' ');
                    texts.push({text: t.textContent.trim().slice(0, 60), kind,
                                box: [r.left, r.top, r.right, r.bottom]});
                }
                const svg = chart.querySelector('.main-svg');
                const b = svg ? svg.getBoundingClientRect() : {left: 0, top: 0, right: 0,
                                                               bottom: 0};
                return {key: chart.dataset.key, texts,
                        svg: [b.left, b.top, b.right, b.bottom]};
            });
        }""",
        [PLOT_SELECTOR, root],
    )


def text_overlaps(chart, tolerance=OVERLAP_TOLERANCE_PX):
    """Pairs of texts of one chart (:func:`chart_texts`) whose boxes intersect, and texts
    that stick out of the chart: ``[(text, kind, other text, other kind, dx, dy)]``
    (``other`` is ``"(outside the chart)"`` for the latter)."""
    found = []
    texts = chart["texts"]
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            dx = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
            dy = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
            if dx > tolerance and dy > tolerance:
                found.append((a["text"], a["kind"], b["text"], b["kind"], round(dx), round(dy)))
    left, top, right, bottom = chart["svg"]
    for a in texts:
        x0, y0, x1, y1 = a["box"]
        if x0 < left - tolerance or x1 > right + tolerance or y0 < top - tolerance or y1 > bottom + tolerance:
            found.append((a["text"], a["kind"], "(outside the chart)", "", 0, 0))
    return found


def assert_no_text_overlaps(page, where, root=None, min_texts=3):
    """Every chart on the page (or in ``root``) shows its texts apart and inside it; each
    chart has at least ``min_texts`` texts (an undrawn chart has none to overlap)."""
    charts = chart_texts(page, root)
    for chart in charts:
        assert len(chart["texts"]) >= min_texts, (where, chart["key"], chart["texts"])
        overlaps = text_overlaps(chart)
        assert not overlaps, (where, chart["key"], overlaps[:6])
    return charts


def css_rgb255(css):
    """``(r, g, b)`` in 0..255 of ``#rrggbb`` or ``rgb(a)(...)`` (alpha ignored)."""
    return tuple(round(c * 255) for c in _rgb(css))


# ------------------------------------------------------------------- controls


def widget(page, testid, label):
    """A widget container of kind ``testid`` whose label contains ``label``."""
    return (
        page.locator(f'[data-testid="{testid}"]')
        .filter(has=page.locator('[data-testid="stWidgetLabel"]', has_text=label))
        .first
    )


def ensure_visible(page, locator):
    """Open a collapsed sidebar expander that holds ``locator``, then scroll to it."""
    if locator.count() and not locator.is_visible():
        expander = page.locator('[data-testid="stExpander"]').filter(has=locator).first
        if expander.count():
            expander.locator("summary").first.click()
    locator.scroll_into_view_if_needed()


SLIDER_THUMB = 'input[type="range"]'  # the (visually hidden) input behind each thumb


def press_slider(page, tracker, label, key="ArrowRight"):
    """Focus the first thumb of slider ``label``, press ``key``; returns the new value."""
    box = widget(page, "stSlider", label)
    ensure_visible(page, box)
    thumb = box.locator(SLIDER_THUMB).first
    before = thumb.input_value()
    act(page, tracker, lambda: (thumb.focus(), thumb.press(key)))
    after = thumb.input_value()
    assert after != before, f"slider {label!r} did not move with {key} ({before})"
    return after


def choose_radio(page, tracker, label, option):
    group = widget(page, "stRadio", label)
    ensure_visible(page, group)
    choice = group.locator("label").filter(has_text=option).first
    act(page, tracker, choice.click)
    assert choice.locator("input").is_checked(), f"radio {label!r} did not select {option!r}"


def click_toggle(page, tracker, label):
    box = widget(page, "stCheckbox", label)
    ensure_visible(page, box)
    checkbox = box.locator("input")
    before = checkbox.is_checked()
    act(page, tracker, lambda: box.locator("label").first.click())
    assert checkbox.is_checked() != before, f"toggle {label!r} did not change"


def step_number(page, tracker, label):
    """Click the ``+`` of a number input."""
    box = widget(page, "stNumberInput", label)
    ensure_visible(page, box)
    field_ = box.locator("input")
    before = field_.input_value()
    act(page, tracker, box.locator('[data-testid="stNumberInputStepUp"]').click)
    assert field_.input_value() != before, f"number input {label!r} did not change"
    return field_.input_value()


# ---------------------------------------------------------------------- pages


def _lesson_steps():
    """How many steps the lesson has (its page's title counts them)."""
    from explorer.teaching.lesson import LESSON_STEPS

    return len(LESSON_STEPS)


@dataclass(frozen=True)
class PageSpec:
    """What the tests expect of one page of ``st.navigation``.

    ``prepare(page, tracker)``, if given, is what a visitor does first on a page
    that starts empty.  ``move_control(page, tracker)`` changes one key control (waiting for the
    rerun) and returns ``(query_name, expected_value)`` that the page must
    then mirror into its URL, or ``None`` when it does not mirror that control.
    """

    path: str  # URL path, "" for the default page
    title: str  # navigation title
    heading: str  # the page's st.title
    slug: str  # screenshot file name
    move_control: Callable
    needs_plot: bool = True
    needs_table: bool = True
    prepare: Callable | None = None  # what a visitor does first (e.g. load a sample)


def _home_control(page, tracker):
    return "seed", step_number(page, tracker, "Random seed")


def _synthetic_control(page, tracker):
    choose_radio(page, tracker, "Loss", "quadratic")
    return "loss", "quadratic"


def _transfer_control(page, tracker):
    value = press_slider(page, tracker, "θ̂1 + …")
    return "delta_1", str(float(value))


def _learning_control(page, tracker):
    value = press_slider(page, tracker, "Number of sizes", "ArrowLeft")
    return "n_sizes", str(int(float(value)))


def _digits_control(page, tracker):
    choose_radio(page, tracker, "Direction", "B → A")
    return None


def _real_data_control(page, tracker):
    box = widget(page, "stSelectbox", "Data set")
    ensure_visible(page, box)
    box.click()
    act(page, tracker, page.get_by_role("option", name="Ozone (ozone)").click)
    return "pair", "ozone"


def _your_data_prepare(page, tracker):
    """The page starts empty: load the first sample pair, as a visitor would."""
    button = (
        page.locator('[data-testid="stButton"] button')
        .filter(has_text="Synthetic word counts (Poisson)")
        .first
    )
    act(page, tracker, button.click)


def _your_data_control(page, tracker):
    press_slider(page, tracker, "Features shown in the charts", "ArrowLeft")
    return None


def _lesson_control(page, tracker):
    """Next reveals the answer, then moves to step 2, whose slug the URL then carries."""
    for label in ("Reveal", "Next"):
        act(page, tracker, page.locator('[data-testid="stButton"] button').filter(has_text=label).first.click)
    from explorer.teaching.lesson import LESSON_STEPS

    return "step", LESSON_STEPS[1].slug


PAGES = (
    PageSpec(
        "",
        "Home",
        "Feature-level domain adaptation, live",
        "home",
        _home_control,
        needs_plot=False,
        needs_table=False,
    ),
    PageSpec(
        "lesson",
        "Lesson",
        f"Lesson: feature-level domain adaptation in {_lesson_steps()} steps",
        "lesson",
        _lesson_control,
        needs_table=False,
    ),
    PageSpec("synthetic", "Synthetic domains", "Synthetic domains", "synthetic", _synthetic_control),
    PageSpec("transfer", "Transfer parameters", "Transfer parameters", "transfer", _transfer_control),
    PageSpec("learning_curves", "Learning curves", "Learning curves", "learning_curves", _learning_control),
    PageSpec("digits", "Handwritten digits", "Handwritten digits", "digits", _digits_control),
    PageSpec(
        "real_data", "Real data", "Real data: the paper's Tables 3 and 5-9", "real_data", _real_data_control
    ),
    PageSpec(
        "your_data", "Your data", "Your data", "your_data", _your_data_control, prepare=_your_data_prepare
    ),
)
NAV_TITLES = [spec.title for spec in PAGES]
