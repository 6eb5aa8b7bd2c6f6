"""A whole class at once: simulated students that speak Streamlit's websocket protocol.

``bench_load.py`` drives Chromium tabs on the server's own cores, so its figures
measure the browsers as much as the server.  This benchmark measures the
server alone: each simulated student is a small asyncio task that does what a
browser tab does on the wire, without rendering anything:

1. ``GET`` the page (which sets the XSRF cookie, and behind ``deploy/serve.sh``
   the sticky-session cookie), ``GET /_stcore/health`` and ``/_stcore/host-config``;
2. opens the websocket ``/_stcore/stream`` with the browser's subprotocols
   (``streamlit``, the XSRF cookie's value), its ``Origin`` and cookies, and sends
   the first ``rerun_script`` BackMsg with the page's name and query string;
3. reads the ForwardMsgs (``streamlit.proto``): the widgets of each run are
   found in the deltas (their element ids and options), charts that ask to
   report their first draw (``explorer/ui/charts.py``, "first chart first") get
   the same ``drawn`` trigger the chart element sends;
4. moves controls on a schedule (think time, a few pages, one student in ten
   uploads a CSV pair on "Your data" through ``/_stcore/upload_file``): a
   ``rerun_script`` with the changed ``WidgetStates`` (and the fragment id when
   the widget lives in an ``st.fragment``), like the browser.

Measured: seconds from sending a control change to the ``script_finished`` of
the run it caused (and of the run a chart's ``drawn`` report then owes), the
same for page opens, page switches and uploads (reported apart), and errors
(an exception or error box in a run, a run that does not finish within
``--timeout``, a refused connection or upload).  With no ``--url`` it starts its
own ``streamlit run app.py`` on a free loopback port and also reports the
server's CPU seconds and peak RSS (``/proc``); with ``--url``, ``--server-pid`` (once
per Streamlit process behind ``deploy/serve.sh``) reports them summed over those
processes.  Every run reports the load generator's own CPU seconds
(``client_cpu_s``): it shares the machine's cores with the server.

Only 127.0.0.1/localhost is contacted (other hosts are refused); every student
stops at ``--duration`` and every wait has a timeout.

Run: ``python3 benchmarks/bench_class.py [--url http://127.0.0.1:PORT [--server-pid PID ...]
| --serve 2] [--sessions 30] [--duration 60] [--seed 0]``; the last line printed is one JSON
object (``p50``, ``p95``, ``errors``, ``sessions``, ``reruns``, ...).  ``--serve N`` starts
``PROCESSES=N deploy/serve.sh`` (warm-ups on, as a class's server) and measures through it.

``--class``: a class over the class's own HTTP routes (``explorer/ui/class_routes.py``; no
Streamlit run on the students' path).  The lecturer starts a class (``/_flda/class/start``,
from loopback or with ``FLDA_LECTURER_TOKEN``) and walks every stage of every step with
``/_flda/class/steer`` "advance" (as the presenter's keys do); a projector follows with its
screen token; ``--sessions`` phones join, hold one long poll at a time and vote once in
every open round.  ``follow``: from the lecturer's action to each phone's poll answer
carrying it; ``vote``: from a vote's POST to the projector's poll first counting it;
``votes_counted`` what the projector showed per round (must equal ``votes_sent``);
``stalls``: phones that did not reach the last state.  ``--idle S``: phones waiting on one
step, the server's CPU.  Behind ``deploy/serve.sh`` every phone comes from 127.0.0.1:
start the server with ``FLDA_CLASS_DEVICES_PER_ADDRESS=1000`` (``--serve`` does).

Where the time goes (``--profile``: the routes in this process, no network; 2-core machine,
load average 3): one follow (a poll answered at once) costs 0.4 ms of CPU; one state
change (the steer's write, the watcher's read of the class row and, on a new tally or
step, its roster, the shared ``content`` and JSON built once, then one small answer per
waiting phone) costs 3.6 ms with 1 phone waiting, 4.7 ms with 30 and 6.0 ms with 100:
about 0.03 ms per phone.  Of the fixed part, the store calls are 0.4 ms (steer), 0.2 ms
(state) and 0.3 ms (roster of 30 seats), ``student_content`` 0.01 ms; the rest is the
request and thread hops.  The Streamlit path it replaces ran a whole page per student on
every state change (0.1-0.3 s of CPU each, measured 2026-11-27): 3-9 s per
process for 30 students.

Results
-------
Students browsing pages (no ``--class``), 2026-11-26 22:08-22:22 UTC at ``2a38b31``, quiet
2-core reference machine (load average 0.2-3.5, the load generator on the same cores),
60 s per run, 0 errors in every run.  One process: ``python3 benchmarks/bench_class.py
--sessions N --duration 60 --seed 0``; two: ``PROCESSES=2 bash deploy/serve.sh`` with
``FLDA_REAL_DATA_WARM_UP=0 FLDA_DIGITS_WARM_UP=0``, then ``--url ... --server-pid P1
--server-pid P2``:

=========  ========  ====================  ============  ============  ==============
server     students  change p50 / p95      open p95      CPU s/rerun   peak RSS
=========  ========  ====================  ============  ============  ==============
one        30        0.10 / 0.50 s         4.03 s        0.080         406 MB
one        40        0.16 / 0.82 s         4.44 s        0.084         406 MB
one        60        0.79 / 3.98 s         8.72 s        0.085         454 MB
two        60        0.12 / 0.56 s         3.28 s        0.078         791 MB (both)
two        100       0.19 / 1.05 s         4.51 s        0.061         899 MB (both)
two        120       0.39 / 2.92 s         9.52 s        0.068         943 MB (both)
=========  ========  ====================  ============  ============  ==============

One process is one core: it carries about 45 students at a change p95 under 2 s (40:
0.82 s, 50: 2.71 s), at a schedule far busier than a class following a lecture.

A class (``--class --serve 2 --think 0.5 3``, as ``run_all.py`` runs it), 2026-11-28
13:07-13:13 UTC at ``7be2cad``, quiet 2-core machine (load average 0.7-1.8, the client on
the same cores), every step and round of the 12-step lesson, 0 stalls and 0 errors:

========  ====================  ====================  =============  ============
phones    follow p50 / p95      vote p50 / p95        votes          server CPU s
========  ====================  ====================  =============  ============
60        0.034 / 0.199 s       0.012 / 0.150 s       1440 / 1440    17.1
200       0.060 / 0.207 s       0.016 / 0.067 s       4800 / 4800    49.1
========  ====================  ====================  =============  ============

200 idle phones (``--idle 60``): 4.1 % of one core.  One process (``PROCESSES=1``) with 60
phones: follow p95 0.054 s, vote p95 0.021 s (no process waits for the other's 0.2 s read
of the class row).  The projector keeps its cookies, as a browser does: without them every
poll went to either process, each answering with its own view of the count, and the vote
p95 read 1.1-1.6 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(1, str(ROOT))

from e2e_harness import QUIET_WARM_UPS, DeployedServer, StreamlitServer, proc_rss  # noqa: E402

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
#: Pages a student visits and the controls (label prefixes) moved there.
PAGES = {
    "transfer": ("θ̂1 + …", "θ̂2 + …", "ℓ2 penalty"),
    "synthetic": ("Loss", "ℓ2 penalty", "Also show source points"),
    "learning_curves": ("Number of sizes", "Logarithmic error axis", "l2 regularisation"),
    "": ("Random seed",),
}
UPLOAD_PAGE = "your_data"
UPLOAD_FILES = (ROOT / "sample_data" / "poisson_source.csv", ROOT / "sample_data" / "poisson_target.csv")
#: A student waits this long between two actions (seconds, drawn uniformly; ``--think``).
THINK_S = (2.0, 8.0)
#: Moves on one page before switching to another one.
MOVES_PER_PAGE = (2, 5)
#: Name of the chart element (explorer/ui/chart.py COMPONENT_NAME).
CHART_COMPONENT = "flda_chart"
#: ``Alert.Format.ERROR`` of streamlit.proto (an ``st.error`` box is an error here).
ALERT_ERROR = 1


def check_loopback(url):
    """``url`` with its trailing slash removed; ``ValueError`` unless it is http on loopback."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK:
        raise ValueError(f"refusing {url!r}: only http://127.0.0.1 or localhost may be loaded")
    return url.rstrip("/")


def percentile(values, q):
    """Nearest-rank ``q``-th percentile (a reported time really happened); None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


@dataclass
class Widget:
    """A control found in a run's deltas: its kind (proto field), element and fragment."""

    kind: str
    proto: object
    fragment_id: str = ""


@dataclass
class Stats:
    """What all students measured (seconds), and their errors."""

    changes: list = field(default_factory=list)
    opens: list = field(default_factory=list)
    switches: list = field(default_factory=list)
    uploads: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    reruns: int = 0
    students: int = 0


class Student:
    """One browser tab on the wire: its cookies, websocket and widget states.

    Parameters
    ----------
    base : str
        The app's address (``http://127.0.0.1:PORT``), checked by :func:`check_loopback`.
    rng : random.Random
        Choices and think times of this student.
    stats : Stats
        Where its measurements go.
    timeout : float
        Longest wait for one run (seconds): longer is an error.
    """

    def __init__(self, base, rng, stats, timeout=120.0):
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.base, self.rng, self.stats, self.timeout = check_loopback(base), rng, stats, timeout
        self._back, self._forward = BackMsg, ForwardMsg
        self.cookies = {}
        self.ws = None
        self.session_id = ""
        self.pages = {}  # url path -> page_script_hash (from the navigation message)
        self.page = ""
        self.widgets = {}  # label -> Widget (the last full run's, with fragment updates)
        self.states = {}  # widget id -> WidgetState sent (values the student set)
        self.backends = set()  # flda_backend cookies set (deploy/serve.sh's nginx: p1, p2, ...)
        self._run = None  # elements of the run in progress
        self._report_owed = None  # chart element id whose "drawn" trigger a run asked for
        self._file_urls = {}
        self.query = ""  # the tab's query string (the server may rewrite it)
        self.auto_rerun = None  # (fragment id, seconds) of an st.fragment(run_every=...)
        self.texts = []  # markdown and heading bodies drawn since the caller cleared it

    # ------------------------------------------------------------------ HTTP
    def _cookie_header(self):
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def _http(self, method, path, body=None, headers=None):
        """One HTTP request (in a worker thread); stores the cookies the answer sets."""
        request = urllib.request.Request(
            self.base + path,
            data=body,
            method=method,
            headers={"Cookie": self._cookie_header(), **(headers or {})},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            self._set_cookies(response.headers.get_all("Set-Cookie") or ())
            return response.status, dict(response.headers), response.read()

    def _set_cookies(self, headers):
        """Keep the cookies of ``Set-Cookie`` headers; note which process answered."""
        for header in headers:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
                if name == "flda_backend":
                    self.backends.add(morsel.value)

    async def http(self, method, path, body=None, headers=None):
        return await asyncio.to_thread(self._http, method, path, body, headers)

    # ------------------------------------------------------------- websocket
    async def connect(self, page="", query=""):
        """Load ``page`` as a fresh tab: HTTP, websocket, first run; returns its seconds."""
        from websockets.asyncio.client import connect

        start = time.perf_counter()
        await self.http("GET", f"/{page}" + (f"?{query}" if query else ""))
        await self.http("GET", "/_stcore/health")
        await self.http("GET", "/_stcore/host-config")
        protocols = ["streamlit", self.cookies.get("_streamlit_xsrf", "PLACEHOLDER_AUTH_TOKEN")]
        ws_url = "ws" + self.base[4:] + "/_stcore/stream"
        self.ws = await connect(
            ws_url,
            subprotocols=protocols,
            origin=self.base,
            additional_headers={"Cookie": self._cookie_header()},
            max_size=2**26,
            open_timeout=self.timeout,
        )
        self._set_cookies(self.ws.response.headers.get_all("Set-Cookie"))
        self.page = page
        self.query = query
        await self.rerun(query_string=query, page_name=page)
        return time.perf_counter() - start

    async def close(self):
        if self.ws is not None:
            await self.ws.close()

    async def rerun(
        self, query_string="", page_name="", page_script_hash="", changed=(), fragment_id="", extra=()
    ):
        """Send a ``rerun_script`` (after setting ``changed`` WidgetStates; ``extra``: sent
        once, as a button's trigger) and wait for the run, and the run a chart's "drawn"
        report owes, to finish."""
        for state in changed:
            self.states[state.id] = state
        await self._send_rerun(query_string, page_name, page_script_hash, fragment_id, extra)
        await self._wait_finished()
        while self._report_owed:
            trigger = self._widget_state(self._report_owed)
            trigger.json_trigger_value = json.dumps([{"event": "drawn", "value": True}])
            self._report_owed = None
            await self._send_rerun(page_script_hash=self.pages.get(self.page, ""), extra=[trigger])
            await self._wait_finished()

    def _widget_state(self, element_id):
        from streamlit.components.v2.bidi_component.main import _make_trigger_id
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        return WidgetState(id=_make_trigger_id(element_id, "events"))

    async def _send_rerun(self, query_string="", page_name="", page_script_hash="", fragment_id="", extra=()):
        msg = self._back()
        client = msg.rerun_script
        client.query_string = query_string or self.query
        client.page_name = page_name
        client.page_script_hash = page_script_hash
        client.fragment_id = fragment_id
        client.context_info.timezone = "UTC"
        client.context_info.locale = "en-US"
        client.context_info.url = f"{self.base}/{page_name}"
        client.widget_states.widgets.extend([*self.states.values(), *extra])
        self.stats.reruns += 1
        await self.ws.send(msg.SerializeToString())

    async def _wait_finished(self):
        """Read ForwardMsgs until a run finishes (not one ended early for a rerun)."""
        async with asyncio.timeout(self.timeout):
            while True:
                msg = self._forward()
                msg.ParseFromString(await self.ws.recv())
                kind = msg.WhichOneof("type")
                if kind == "new_session":
                    self.session_id = msg.new_session.initialize.session_id or self.session_id
                    self._run = {}
                elif kind == "navigation":
                    self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
                elif kind == "delta":
                    self._delta(msg.delta)
                elif kind == "file_urls_response":
                    self._file_urls[msg.file_urls_response.response_id] = msg.file_urls_response
                elif kind == "page_info_changed":
                    self.query = msg.page_info_changed.query_string
                elif kind == "auto_rerun":
                    self.auto_rerun = (msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
                elif kind == "script_finished":
                    status = msg.script_finished
                    if status == self._forward.FINISHED_WITH_COMPILE_ERROR:
                        raise RuntimeError("the script did not compile")
                    if status == self._forward.FINISHED_SUCCESSFULLY and self._run is not None:
                        self.widgets = self._run
                    elif status == self._forward.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                        self.widgets.update(self._run or {})
                    if status != self._forward.FINISHED_EARLY_FOR_RERUN:
                        self._run = {}
                        return

    def _delta(self, delta):
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if self._run is None:
            self._run = {}
        if kind == "exception" or (kind == "alert" and element.alert.format == ALERT_ERROR):
            text = element.exception.message if kind == "exception" else element.alert.body
            self.stats.errors.append(f"{self.page or 'home'}: {kind}: {text[:150]}")
        elif kind == "bidi_component" and element.bidi_component.component_name == CHART_COMPONENT:
            if '"report": true' in element.bidi_component.bytes.decode("utf-8", "replace"):
                self._report_owed = element.bidi_component.id
        elif kind in ("markdown", "heading"):
            self.texts.append(getattr(element, kind).body)
        elif kind in ("slider", "number_input", "radio", "selectbox", "checkbox", "file_uploader", "button"):
            proto = getattr(element, kind)
            self._run[proto.label] = Widget(kind, proto, delta.fragment_id)

    # --------------------------------------------------------------- actions
    def find(self, label):
        """The widget whose label starts with ``label`` in the last run, or None."""
        return next((w for name, w in self.widgets.items() if name.startswith(label)), None)

    def new_state(self, widget):
        """A WidgetState for ``widget`` with a value other than its current one."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        proto, state = widget.proto, WidgetState(id=widget.proto.id)
        old = self.states.get(proto.id)
        if widget.kind == "slider" and proto.options:  # st.select_slider: option texts
            current = old.string_array_value.data[0] if old else proto.options[int(proto.default[0])]
            index = list(proto.options).index(current)
            step = 1 if index + 1 < len(proto.options) else -1
            if index >= 1 and self.rng.random() < 0.5:
                step = -1
            state.string_array_value.data.append(proto.options[index + step])
        elif widget.kind == "slider":
            value = old.double_array_value.data[0] if old else proto.default[0]
            step = proto.step if value + proto.step <= proto.max else -proto.step
            if value - proto.step >= proto.min and self.rng.random() < 0.5:
                step = -proto.step
            state.double_array_value.data.append(value + step)
        elif widget.kind == "number_input":
            value = old.double_value if old else proto.default
            state.double_value = value + (proto.step or 1)
        elif widget.kind in ("radio", "selectbox"):
            current = old.string_value if old else proto.options[proto.default]
            state.string_value = self.rng.choice([o for o in proto.options if o != current])
        elif widget.kind == "checkbox":
            state.bool_value = not (old.bool_value if old else proto.default)
        else:
            raise ValueError(f"cannot move a {widget.kind}")
        return state

    async def change(self, label):
        """Move the control ``label``; returns seconds to the end of its run."""
        widget = self.find(label)
        if widget is None:
            raise LookupError(f"no control {label!r} on page {self.page or 'home'!r}")
        start = time.perf_counter()
        await self.rerun(
            page_script_hash=self.pages.get(self.page, ""),
            changed=[self.new_state(widget)],
            fragment_id=widget.fragment_id,
        )
        return time.perf_counter() - start

    async def switch_page(self, page):
        """Open ``page`` from the navigation (same session); returns seconds."""
        start = time.perf_counter()
        self.page = page
        self.states = {}  # the browser forgets the old page's widgets
        await self.rerun(page_script_hash=self.pages[page], page_name=page)
        return time.perf_counter() - start

    async def upload(self, label, path):
        """Upload ``path`` to the file uploader ``label`` as the browser does: ask for
        URLs over the websocket, ``PUT`` the file, rerun; returns seconds."""
        from streamlit.proto.Common_pb2 import UploadedFileInfo
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        widget = self.find(label)
        if widget is None:
            raise LookupError(f"no file uploader {label!r}")
        start = time.perf_counter()
        request_id = uuid.uuid4().hex
        msg = self._back()
        msg.file_urls_request.request_id = request_id
        msg.file_urls_request.file_names.append(path.name)
        msg.file_urls_request.session_id = self.session_id
        await self.ws.send(msg.SerializeToString())
        async with asyncio.timeout(self.timeout):
            while request_id not in self._file_urls:
                reply = self._forward()
                reply.ParseFromString(await self.ws.recv())
                if reply.WhichOneof("type") == "file_urls_response":
                    self._file_urls[reply.file_urls_response.response_id] = reply.file_urls_response
        urls = self._file_urls.pop(request_id).file_urls[0]
        data = path.read_bytes()
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{path.name}"\r\nContent-Type: text/csv\r\n\r\n'
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        upload_url = (
            urls.upload_url
            if urls.upload_url.startswith("/")
            else urllib.parse.urlsplit(urls.upload_url).path
        )
        await self.http(
            "PUT",
            upload_url,
            body,
            {
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "X-Xsrftoken": self.cookies.get("_streamlit_xsrf", ""),
            },
        )
        state = WidgetState(id=widget.proto.id)
        state.file_uploader_state_value.uploaded_file_info.append(
            UploadedFileInfo(name=path.name, size=len(data), file_id=urls.file_id, file_urls=urls)
        )
        await self.rerun(page_script_hash=self.pages.get(self.page, ""), changed=[state])
        return time.perf_counter() - start


async def student_life(base, index, seed, stats, deadline, timeout, think=THINK_S):
    """One student until ``deadline``: open a page, move its controls with think time,
    switch pages; every tenth student (index 9, 19, ...) uploads a CSV pair first."""
    rng = random.Random(seed * 1000 + index)
    student = Student(base, rng, stats, timeout)
    stats.students += 1
    await asyncio.sleep(rng.uniform(0, 3))  # a class does not click at the same instant
    try:
        uploader = index % 10 == 9
        first = UPLOAD_PAGE if uploader else rng.choice(list(PAGES))
        stats.opens.append(await student.connect(first))
        if uploader:
            for label, path in zip(("Source CSV", "Target CSV"), UPLOAD_FILES, strict=True):
                stats.uploads.append(await student.upload(label, path))
            await student.switch_page("transfer")
        page = student.page
        while time.monotonic() < deadline:
            for _ in range(rng.randint(*MOVES_PER_PAGE)):
                await asyncio.sleep(rng.uniform(*think))
                if time.monotonic() >= deadline:
                    return
                stats.changes.append(await student.change(rng.choice(PAGES[page])))
            page = rng.choice([p for p in PAGES if p != page])
            stats.switches.append(await student.switch_page(page))
    except Exception as error:  # a failed student is a result, not a crash
        stats.errors.append(
            f"student {index} on {student.page or 'home'!r}: {type(error).__name__}: {str(error)[:200]}"
        )
    finally:
        try:
            await student.close()
        except Exception:
            pass


async def run_class(base, sessions, duration, seed, timeout=120.0, think=THINK_S):
    """``sessions`` students for ``duration`` seconds against ``base``; returns Stats."""
    stats = Stats()
    deadline = time.monotonic() + duration
    tasks = [student_life(base, k, seed, stats, deadline, timeout, think) for k in range(sessions)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), duration + 2 * timeout)
    except TimeoutError:
        stats.errors.append("the class did not finish in time")
    return stats


# ------------------------------------------------------------- a class session
#: Seconds a poll is held at most (explorer/ui/class_routes.py HOLD_S), plus the watchdog's 5 s.
HOLD_S = 20.0


async def http(base, method, path, body=None, cookies=None, timeout=HOLD_S + 5):
    """One HTTP/1.1 request on its own connection (asyncio, no thread); keeps the cookies
    the answer sets in ``cookies``.  Returns ``(status, body as JSON or None)``."""
    parts = urllib.parse.urlsplit(base)
    data = b"" if body is None else json.dumps(body).encode()
    cookie = "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())
    head = [f"{method} {parts.path}{path} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close"]
    head += [f"Cookie: {cookie}"] if cookie else []
    head += ["Content-Type: application/json", f"Content-Length: {len(data)}"] if body is not None else []
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            raw = await reader.read()
        finally:
            writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "set-cookie" and cookies is not None:
            cookies.update({k: m.value for k, m in SimpleCookie(value.strip()).items()})
    if any(line.lower() == "transfer-encoding: chunked" for line in lines):
        payload = _unchunk(payload)
    try:
        return int(lines[0].split()[1]), json.loads(payload) if payload else None
    except ValueError:
        return int(lines[0].split()[1]), None


def _unchunk(payload):
    out = b""
    while payload:
        size, _, rest = payload.partition(b"\r\n")
        n = int(size.split(b";")[0], 16)
        if n == 0:
            break
        out, payload = out + rest[:n], rest[n + 2 :]
    return out


@dataclass
class ClassStats:
    """What ``--class`` measured (seconds) and counted."""

    follows: list = field(default_factory=list)  # lecturer action -> a student's answer with it
    votes: list = field(default_factory=list)  # vote POST -> the screen's poll showing its count
    votes_sent: int = 0
    votes_counted: int = 0
    polls: int = 0
    stalls: int = 0
    actions: int = 0
    errors: list = field(default_factory=list)


class Class:
    """The shared record of one class: when each version was sent, the votes per round."""

    def __init__(self, base, code, sessions):
        self.base, self.code, self.sessions = base, code, sessions
        self.sent = {}  # state version -> perf_counter when the lecturer sent it
        self.vote_times = {}  # (step, round) -> [perf_counter of each vote POST]
        self.version = 0


async def class_student(klass, index, stats, stop, think):
    """One phone: join, then one long poll at a time; vote once in every open round."""
    rng, cookies, token, seen, voted = random.Random(index), {}, "", set(), set()
    await asyncio.sleep(rng.uniform(0, 1))
    try:
        status, answer = await http(klass.base, "POST", "/_flda/class/join", {"code": klass.code}, cookies)
        if status != 200:
            raise RuntimeError(f"join: {status} {answer}")
        while not stop.is_set():
            query = urllib.parse.urlencode({"code": klass.code, "seen": token})
            status, answer = await http(klass.base, "GET", f"/_flda/class/state?{query}", cookies=cookies)
            now = time.perf_counter()
            stats.polls += 1
            if status != 200 or not answer or answer.get("state") is None:
                stats.errors.append(f"student {index}: poll {status}")
                await asyncio.sleep(0.5)
                continue
            token, state = answer["token"], answer["state"]
            for version in range(max(seen, default=0) + 1, state["version"] + 1):
                if version in klass.sent:
                    stats.follows.append(now - klass.sent[version])
            seen.add(state["version"])
            ballot = (state["step"], state["round"])
            if state["round_open"] and state["n_choices"] and ballot not in voted:
                voted.add(ballot)
                asyncio.ensure_future(_vote(klass, cookies, ballot, state["n_choices"], rng, stats, think))
    except Exception as error:  # a failed student is a result, not a crash
        stats.errors.append(f"student {index}: {type(error).__name__}: {str(error)[:200]}")
    finally:
        if max(seen, default=0) < klass.version:
            stats.stalls += 1


async def _vote(klass, cookies, ballot, n_choices, rng, stats, think):
    await asyncio.sleep(rng.uniform(*think))
    choice = rng.randrange(n_choices)
    start = time.perf_counter()
    # dated before the answer comes: the screen may count a vote before its POST returns
    klass.vote_times.setdefault(ballot, []).append(start)
    status, answer = await http(
        klass.base, "POST", "/_flda/class/vote", {"code": klass.code, "choice": choice}, cookies
    )
    if status == 200:
        stats.votes_sent += 1
    else:
        klass.vote_times[ballot].remove(start)
        stats.errors.append(f"vote {ballot}: {status} {answer}")


async def screen_watch(klass, screen, stats, stop, shown):
    """The projector: follows with its screen token; each new count of the open round
    dates the votes it adds (the earliest votes sent first)."""
    token, cookies = "", {}  # a browser's cookies: behind serve.sh it stays on one process
    while not stop.is_set():
        query = urllib.parse.urlencode({"code": klass.code, "seen": token, "screen": screen})
        try:
            status, answer = await http(klass.base, "GET", f"/_flda/class/state?{query}", cookies=cookies)
        except TimeoutError:
            continue
        now = time.perf_counter()
        if status != 200 or not answer or not answer.get("state"):
            await asyncio.sleep(0.2)
            continue
        token, state = answer["token"], answer["state"]
        ballot = (state["step"], state["round"])
        total = sum((answer.get("counts") or {}).get(str(state["round"]), {}).values())
        sent = sorted(klass.vote_times.get(ballot, []))
        done = shown.get(ballot, 0)
        stats.votes += [now - t for t in sent[done:total]]
        shown[ballot] = max(done, min(total, len(sent)))


async def run_class_session(base, sessions, seed, think, steps=None, round_timeout=60.0, token=""):
    """A lecturer (through ``/_flda/class/steer``, as the presenter's keys), a projector
    and ``sessions`` phones through the first ``steps`` lesson steps (default all)."""
    lecturer = {}
    status, links = await http(base, "POST", "/_flda/class/start", {"token": token}, lecturer)
    if status != 200:
        raise RuntimeError(f"could not start a class: {status} {links}")
    klass, stats, stop, shown = Class(base, links["code"], sessions), ClassStats(), asyncio.Event(), {}
    screen = links["projector"].split("screen=")[1]
    tasks = [asyncio.create_task(class_student(klass, k, stats, stop, think)) for k in range(sessions)]
    tasks.append(asyncio.create_task(screen_watch(klass, screen, stats, stop, shown)))
    await asyncio.sleep(3)  # everyone joined

    async def steer(stage):
        klass.sent[klass.version + 1] = time.perf_counter()  # before: a phone may see it first
        status, answer = await http(
            base, "POST", "/_flda/class/steer", {"code": klass.code, "action": "advance"}, lecturer
        )
        if status != 200:
            raise RuntimeError(f"steer {stage}: {status} {answer}")
        klass.version = answer["state"]["version"]
        return answer["state"]

    try:
        state = {"step": 0}
        last = (steps or 99) - 1
        while True:
            state = await steer("advance")
            if state["round_open"]:
                deadline = time.monotonic() + round_timeout
                ballot = (state["step"], state["round"])
                while shown.get(ballot, 0) < sessions and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                if shown.get(ballot, 0) < sessions:
                    stats.errors.append(f"round {ballot}: {shown.get(ballot, 0)} of {sessions} votes shown")
            else:
                await asyncio.sleep(0.5)
            if state["revealed"] and (state["step"] >= min(last, state["n_steps"] - 1)):
                break
        await asyncio.sleep(HOLD_S / 4)  # the last follows arrive
    except Exception as error:
        stats.errors.append(f"lecturer: {type(error).__name__}: {str(error)[:200]}")
    finally:
        stop.set()
        await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    stats.votes_counted, stats.actions = sum(shown.values()), len(klass.sent)
    return stats


def class_summary(stats, wall, server, sessions):
    def r(x):
        return None if x is None else round(x, 3)

    return {
        "follow_p50": r(percentile(stats.follows, 50)),
        "follow_p95": r(percentile(stats.follows, 95)),
        "vote_p50": r(percentile(stats.votes, 50)),
        "vote_p95": r(percentile(stats.votes, 95)),
        "votes_sent": stats.votes_sent,
        "votes_counted": stats.votes_counted,
        "follows": len(stats.follows),
        "actions": stats.actions,
        "follow_max": r(max(stats.follows, default=None)),
        "stalls": stats.stalls,
        "polls": stats.polls,
        "errors": len(stats.errors),
        "sessions": sessions,
        "wall_s": round(wall, 1),
        **server,
    }


async def idle_followers(base, sessions, duration, pids, token=""):
    """``sessions`` phones joined and waiting on one step: the server's CPU per second."""
    lecturer = {}
    _, links = await http(base, "POST", "/_flda/class/start", {"token": token}, lecturer)
    klass, stats, stop = Class(base, links["code"], sessions), ClassStats(), asyncio.Event()
    tasks = [asyncio.create_task(class_student(klass, k, stats, stop, (1, 2))) for k in range(sessions)]
    await asyncio.sleep(5)  # everyone joined
    cpu0, own0, start, polls0 = (
        [cpu_seconds(p) for p in pids],
        time.process_time(),
        time.perf_counter(),
        stats.polls,
    )
    await asyncio.sleep(duration)
    wall = time.perf_counter() - start
    used = sum(cpu_seconds(pid) for pid in pids) - sum(cpu0)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "idle_followers": sessions,
        "server_cpu_percent_of_one_core": round(100 * used / wall, 1),
        "client_cpu_percent_of_one_core": round(100 * (time.process_time() - own0) / wall, 1),
        "polls_per_s": round((stats.polls - polls0) / wall, 1),
        "errors": len(stats.errors),
        "seconds": round(wall, 1),
    }


# ------------------------------------------------------------------ the server
def cpu_seconds(pid):
    """User + system CPU seconds of process ``pid`` and its waited-for children (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


async def sample_rss(pids, peak, stop):
    """Keep ``peak[0]`` at the largest total RSS of ``pids`` until ``stop`` is set."""
    while not stop.is_set():
        peak[0] = max(peak[0], sum(proc_rss(pid) for pid in pids))
        try:
            await asyncio.wait_for(stop.wait(), 0.25)
        except TimeoutError:
            pass


async def measure(base, args, pids=()):
    """Run the class; with the server's ``pids`` also their CPU seconds and peak RSS
    (summed over the processes), and always the load generator's own CPU seconds."""
    cpu0 = [cpu_seconds(pid) for pid in pids]
    peak, stop = [sum(proc_rss(pid) for pid in pids)], asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pids, peak, stop)) if pids else None
    own0 = time.process_time()
    start = time.perf_counter()
    stats = await run_class(base, args.sessions, args.duration, args.seed, args.timeout, tuple(args.think))
    wall = time.perf_counter() - start
    server = {"client_cpu_s": round(time.process_time() - own0, 2)}
    if pids:
        stop.set()
        await sampler
        server |= {
            "server_cpu_s": round(sum(cpu_seconds(pid) for pid in pids) - sum(cpu0), 2),
            "server_peak_rss_mb": round(peak[0] / 2**20, 1),
        }
    return stats, wall, server


def summary(stats, wall, server):
    """The JSON line: percentiles (seconds, 3 decimals), counts, the server's use."""

    def r(x):
        return None if x is None else round(x, 3)

    return {
        "p50": r(percentile(stats.changes, 50)),
        "p95": r(percentile(stats.changes, 95)),
        "errors": len(stats.errors),
        "sessions": stats.students,
        "reruns": stats.reruns,
        "changes": len(stats.changes),
        "open_p50": r(percentile(stats.opens, 50)),
        "open_p95": r(percentile(stats.opens, 95)),
        "switch_p95": r(percentile(stats.switches, 95)),
        "upload_max": r(max(stats.uploads, default=None)),
        "wall_s": round(wall, 1),
        **server,
    }


def add_think_argument(parser):
    """``--think MIN MAX``: seconds between two actions of a student (also bench_soak.py)."""
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=THINK_S,
        metavar=("MIN", "MAX"),
        help="seconds between two actions of a student (uniform)",
    )


def run_class_mode(base, args, pids):
    """``--class``: the session (or, with ``--idle``, idle followers); prints the JSON line."""
    token = os.environ.get("FLDA_LECTURER_TOKEN", "")
    if args.idle:
        result = asyncio.run(idle_followers(base, args.sessions, args.idle, pids, token))
        print(json.dumps(result), flush=True)
        return 1 if result["errors"] else 0

    async def session():
        cpu0 = [cpu_seconds(pid) for pid in pids]
        own0, start = time.process_time(), time.perf_counter()
        stats = await run_class_session(
            base, args.sessions, args.seed, tuple(args.think), args.steps, token=token
        )
        wall = time.perf_counter() - start
        server = {"client_cpu_s": round(time.process_time() - own0, 2)}
        if pids:
            server["server_cpu_s"] = round(sum(cpu_seconds(pid) for pid in pids) - sum(cpu0), 2)
        return stats, wall, server

    stats, wall, server = asyncio.run(session())
    for error in stats.errors[:10]:
        print(f"error: {error}", file=sys.stderr)
    print(json.dumps(class_summary(stats, wall, server, args.sessions)), flush=True)
    return 1 if stats.errors or stats.stalls or stats.votes_counted != stats.votes_sent else 0


# ------------------------------------------------------------------ the profile
def profile_state_change(sizes=(1, 30, 100), repeats=5):
    """``--profile``: the server's CPU for one student's follow and for one state change
    with N students waiting in one process, on the routes in this process (no network,
    a fresh SQLite store); prints ``{N: ms}`` and cProfile's top functions at 30."""
    import cProfile
    import pstats

    from explorer.ui import class_routes
    from tests.app.class_asgi import Phone, app

    class_routes.POLLS_PER_WINDOW = 10**6  # one client polls many times here
    os.environ["FLDA_CLASS_DB_URL"] = f"sqlite:///{tempfile.mkdtemp()}/class.db"

    async def change(asgi, lecturer, code, phones, profiler=None):
        tokens = [(await p.poll(code)).json()["token"] for p in phones]
        held = [asyncio.create_task(p.poll(code, t)) for p, t in zip(phones, tokens, strict=True)]
        await asyncio.sleep(0.3)
        cpu = time.process_time()
        if profiler:
            profiler.enable()
        await lecturer.post("steer", {"code": code, "action": "advance"})
        await asyncio.gather(*held)
        if profiler:
            profiler.disable()
        return time.process_time() - cpu

    async def run():
        asgi, out = app(), {}
        lecturer = Phone(asgi, "127.0.0.1")
        code = (await lecturer.post("start", {})).json()["code"]
        phones = [Phone(asgi, f"10.0.{i // 250}.{i % 250 + 1}") for i in range(max(sizes))]
        for phone in phones:
            await phone.post("join", {"code": code})
        cpu = time.process_time()
        for _ in range(20):
            await phones[0].poll(code)
        out["one_follow_ms"] = round(1000 * (time.process_time() - cpu) / 20, 2)
        for n in sizes:
            runs = [await change(asgi, lecturer, code, phones[:n]) for _ in range(repeats)]
            out[f"state_change_ms_{n}_students"] = round(1000 * sorted(runs)[repeats // 2], 2)
        profiler = cProfile.Profile()
        await change(asgi, lecturer, code, phones[:30], profiler)
        return out, profiler

    out, profiler = asyncio.run(run())
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(15)
    print(json.dumps(out), flush=True)
    return 0


def arguments():
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url",
        help="an already running server (loopback only); "
        "default: start `streamlit run app.py` on a free port",
    )
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds")
    parser.add_argument("--seed", type=int, default=0)
    add_think_argument(parser)
    parser.add_argument("--timeout", type=float, default=120.0, help="longest wait for one run (seconds)")
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        default=[],
        metavar="PID",
        help="with --url: a server process whose CPU seconds and peak RSS "
        "to report (repeat for each Streamlit process behind deploy/serve.sh)",
    )
    parser.add_argument(
        "--class",
        dest="class_session",
        action="store_true",
        help="a class session instead: a presenter and --sessions students join by code, "
        "follow every lesson step over HTTP and vote in every round (follow_p95, vote_p95, votes_sent, "
        "votes_counted, errors)",
    )
    parser.add_argument(
        "--steps", type=int, default=0, help="with --class: only the first STEPS steps (default: all)"
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --class: --sessions students wait on one step for SECONDS; reports the "
        "server's CPU (needs --server-pid or no --url)",
    )
    parser.add_argument(
        "--serve",
        type=int,
        default=0,
        metavar="PROCESSES",
        help="start `PROCESSES=N deploy/serve.sh` (nginx in front of N Streamlit processes, "
        "warm-ups on, FLDA_CLASS_DEVICES_PER_ADDRESS=1000), measure through it and report "
        "its processes' CPU and peak RSS (instead of --url)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="the routes' CPU for one follow and one state change with 1, 30 and 100 students "
        "in this process (no server)",
    )
    return parser


def main(argv=None):
    parser = arguments()
    args = parser.parse_args(argv)
    if args.profile:
        return profile_state_change()
    if (
        not 1 <= args.sessions <= 200
        or not 1 <= args.duration <= 1800
        or not 0.1 <= args.think[0] <= args.think[1] <= 60
    ):
        parser.error("use 1-200 sessions, 1-1800 seconds and think times of 0.1-60 s")
    if args.serve:
        return run_through_serve_sh(args)
    if args.url:
        try:
            base = check_loopback(args.url)
        except ValueError as error:
            parser.error(str(error))
        missing = [pid for pid in args.server_pid if not Path(f"/proc/{pid}/stat").exists()]
        if missing:
            parser.error(f"no process {missing[0]} on this machine")
        return run_mode(base, args, tuple(args.server_pid))
    log = Path(tempfile.gettempdir()) / f"bench_class_streamlit_{os.getpid()}.log"
    server_process = StreamlitServer(log_path=log)
    print(f"server {server_process.url} (log {log})", file=sys.stderr, flush=True)
    try:
        return run_mode(server_process.url, args, (server_process.process.pid,))
    finally:
        server_process.stop()


def run_through_serve_sh(args):
    """``--serve N``: the deployment a class uses, started and stopped here."""
    os.environ["FLDA_CLASS_DEVICES_PER_ADDRESS"] = "1000"  # every phone comes from 127.0.0.1
    for name in QUIET_WARM_UPS:  # as a class's server runs (the harness turns them off)
        os.environ.setdefault(name, "1")
    log = Path(tempfile.gettempdir()) / f"bench_class_serve_{os.getpid()}.log"
    server = DeployedServer(processes=args.serve, log_path=log)
    print(f"serve.sh on {server.url} (log {log})", file=sys.stderr, flush=True)
    try:
        return run_mode(server.url, args, tuple(server.streamlit_pids().values()))
    finally:
        server.stop()


def run_mode(base, args, pids):
    """The class (``--class``) or the students browsing pages, against ``base``."""
    if args.class_session:
        return run_class_mode(base, args, pids)
    stats, wall, server = asyncio.run(measure(base, args, pids))
    for error in stats.errors[:10]:
        print(f"error: {error}", file=sys.stderr)
    print(json.dumps(summary(stats, wall, server)), flush=True)
    return 1 if stats.errors else 0


if __name__ == "__main__":
    sys.exit(main())
