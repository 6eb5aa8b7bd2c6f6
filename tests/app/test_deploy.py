"""deploy/serve.sh: two supervised Streamlit processes behind nginx, with sticky sessions.

Streamlit keeps a session in the process that serves its websocket, so every
request of one browser (page, websocket, upload) must reach one process.  These
tests start ``serve.sh`` with ``PROCESSES=2`` on a free port (``FLDA_E2E_PORTS``),
drive independent sessions through nginx with the protocol-level students of
``benchmarks/bench_class.py`` (cookies kept per session, as a browser does), kill
one process with SIGKILL (what the out-of-memory killer does) and stop the script
with SIGTERM.  Skipped without Debian's nginx or supervisor.
"""

import asyncio
import concurrent.futures
import http.client
import os
import random
import signal
import threading
import time
import urllib.request
from http.cookies import SimpleCookie

import pytest
from e2e_harness import NGINX, SKIP_NO_NGINX, DeployedServer, answers_health
from test_bench_class import bench_class

SUPERVISORD = "/usr/bin/supervisord"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(NGINX, os.X_OK), reason=SKIP_NO_NGINX),
    pytest.mark.skipif(
        not os.access(SUPERVISORD, os.X_OK), reason="install Debian's supervisor (apt-get install supervisor)"
    ),
]


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _children(pid):
    """PIDs whose parent is ``pid`` (nginx's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return found


def _get(url, path="/_stcore/health", cookie=None, headers=None, timeout=30):
    """(status, [(header, value)], body) of one GET through nginx."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        extra = {**({"Cookie": cookie} if cookie is not None else {}), **(headers or {})}
        connection.request("GET", path, headers=extra)
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection.close()


def _set_backend(headers):
    """The flda_backend cookies an answer sets (the process that answered: p1, p2)."""
    found = []
    for name, value in headers:
        if name.lower() == "set-cookie":
            found += [m.value for n, m in SimpleCookie(value).items() if n == "flda_backend"]
    return found


def _backend(url, key):
    """The process that answers a browser holding the sticky-session cookie ``key``."""
    status, headers, _ = _get(url, cookie=f"flda_backend={key}")
    assert status == 200
    [answered] = _set_backend(headers)
    return answered


async def _session(url, key):
    """One browser tab: open Your data, upload the source CSV, move a control, then
    open Transfer and move its slider; returns the processes that answered it."""
    stats = bench_class.Stats()
    student = bench_class.Student(url, random.Random(0), stats, timeout=180)
    student.cookies["flda_backend"] = key
    try:
        await student.connect("your_data")
        await student.upload("Source CSV", bench_class.UPLOAD_FILES[0])
        await student.upload("Target CSV", bench_class.UPLOAD_FILES[1])
        await student.change("Regularisation l2")  # a rerun that uses the uploaded files
        await student.switch_page("transfer")
        await student.change("θ̂1 + …")
    finally:
        await student.close()
    assert not stats.errors, stats.errors
    return student.backends


def test_two_sessions_each_stay_on_one_process_and_sigterm_stops_everything(tmp_path):
    server = DeployedServer(processes=2, log_path=tmp_path / "serve.log")
    try:
        pids = server.pids
        workers = _children(pids[-1])  # nginx's master is printed last
        # (a) the health endpoint through nginx
        with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=30) as response:
            assert response.read().strip() == b"ok"
        # A browser without a cookie gets one of the two processes' (round-robin), and
        # a cookie naming a process is answered by that process.
        fresh = {_backend(server.url, "") for _ in range(4)}
        assert fresh == {"p1", "p2"}
        keys = {key: key for key in ("p1", "p2")}
        assert [_backend(server.url, key) for key in keys] == ["p1", "p2"]

        # (b) each session's page, websocket and uploads reach its own process only
        async def both():
            return await asyncio.wait_for(
                asyncio.gather(*(_session(server.url, key) for key in keys.values())), 300
            )

        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # no event loop in this one
            seen = pool.submit(asyncio.run, both()).result()
        assert [sorted(s) for s in seen] == [[backend] for backend in keys]
        # (d) each process knows how many share the machine: its share of the uploads'
        # total (explorer/ui/uploads.py)
        for pid in pids[:-1]:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                assert b"FLDA_SERVER_PROCESSES=2" in environ.read().split(b"\0")
    finally:
        code = server.stop()
    # (c) SIGTERM stopped nginx (master and workers) and both Streamlit processes
    assert code == 0, server.log_tail()
    assert len(pids) == 3 and workers
    assert [pid for pid in pids + workers if _running(pid)] == []
    assert "stopped nginx and 2 Streamlit processes" in server.log_tail()
    assert server.supervisor_pid and not _running(server.supervisor_pid)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``PROCESSES=2 bash deploy/serve.sh``, shared by the tests below."""
    server = DeployedServer(processes=2, log_path=tmp_path_factory.mktemp("serve") / "serve.log")
    yield server
    assert server.stop() == 0, server.log_tail()


def _all_headers(url):
    """Every header of the answers a browser gets: pages, static files, the
    websocket's upgrade, Streamlit's endpoints and a missing path."""
    from websockets.sync.client import connect

    status, headers, body = _get(url, "/")
    assert status == 200
    found = list(headers)
    script = body.split(b'src="', 1)[1].split(b'"', 1)[0].decode()  # a static asset
    for path in (
        "/transfer?theta=0.3",
        "/_stcore/host-config",
        f"/{script.lstrip('./')}",
        "/no-such-file.js",
    ):
        found += _get(url, path)[1]
    with connect(
        url.replace("http", "ws") + "/_stcore/stream", subprotocols=["streamlit"], origin=url, open_timeout=30
    ) as ws:
        found += list(ws.response.headers.raw_items())
    return found


def test_no_header_names_an_internal_address_and_hostile_cookies_are_replaced(served):
    ports = served.backend_ports()
    assert len(ports) == 2
    headers = _all_headers(served.url)
    names = {name.lower() for name, _ in headers}
    assert "x-flda-backend" not in names and "set-cookie" in names
    for _, value in headers:
        assert "127.0.0.1" not in value and not any(f":{port}" in value for port in ports), value
    # A cookie that names no process is ignored and replaced by a valid one, never echoed.
    hostile = ["A" * 3000, '"p1"', "p1,p2", "p1; x=1", "p3", "127.0.0.1:" + str(ports[0]), "p1\\x00"]
    for cookie in hostile:
        status, headers, body = _get(served.url, cookie=f"flda_backend={cookie}")
        assert (status, body.strip()) == (200, b"ok")
        assert _set_backend(headers) in (["p1"], ["p2"]), (cookie, headers)
        assert not any(cookie in value for _, value in headers), cookie


def _poll(url, cookie, seen, stop):
    """Until ``stop``: (seconds, status, process that answered) of health checks."""
    start = time.monotonic()
    while not stop.is_set():
        try:
            # a process restarting listens before it is ready: a request may wait for it
            status, headers, _ = _get(url, cookie=cookie, timeout=120)
            seen.append((time.monotonic() - start, status, tuple(_set_backend(headers))))
        except OSError as error:
            seen.append((time.monotonic() - start, type(error).__name__, ()))
        stop.wait(0.2)


def test_a_killed_process_is_restarted_while_the_other_serves(served):
    """SIGKILL one Streamlit process: the other keeps answering (its session too), the
    killed one is started again within 15 s and serves again, and serve.sh, supervisord
    and nginx never stop; meanwhile the killed process's students are sent to the live
    one."""
    pids, ports = served.pids, served.backend_ports()
    survivors = [served.process.pid, served.supervisor_pid, pids[1], pids[2]]  # script, supervisor, p2, nginx
    stats = bench_class.Stats()

    async def life():
        student = bench_class.Student(served.url, random.Random(0), stats, timeout=60)
        student.cookies["flda_backend"] = "p2"
        try:
            await student.connect("transfer")
            await student.change("θ̂1 + …")
            os.kill(pids[0], signal.SIGKILL)
            killed = time.monotonic()
            seen = {"p1": [], "p2": []}
            stop = threading.Event()
            pollers = [
                threading.Thread(target=_poll, args=(served.url, f"flda_backend={k}", seen[k], stop))
                for k in seen
            ]
            for poller in pollers:
                poller.start()
            try:
                restarted = back = None
                while time.monotonic() - killed < 120:
                    await student.change("θ̂2 + …")  # the other process's session goes on
                    if restarted is None and served.streamlit_pids().get(ports[0], pids[0]) != pids[0]:
                        restarted = time.monotonic() - killed
                    if answers_health(ports[0]):
                        back = time.monotonic() - killed
                        break
                    await asyncio.sleep(0.2)
                await asyncio.sleep(1.0)
            finally:
                stop.set()
                for poller in pollers:
                    poller.join()
            return restarted, back, seen, student.backends
        finally:
            await student.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        restarted, back, seen, backends = pool.submit(asyncio.run, life()).result()
    # supervisord started it again within 15 s; it answers once its start-up is done
    # (about 10 s on the quiet 2-core machine, longer when the machine is busy:
    # benchmarks/bench_soak.py measures it)
    assert restarted is not None and restarted <= 15, (restarted, served.log_tail())
    assert back is not None, served.log_tail()
    assert not stats.errors and backends == {"p2"}, stats.errors
    # The other process answered every health check, and answered the killed one's
    # students while it was down (their cookie did not pin them to a dead process).
    assert seen["p2"] and all(s[1:] == (200, ("p2",)) for s in seen["p2"]), seen["p2"]
    assert [s for s in seen["p1"] if s[1] != 200] == [], seen["p1"]
    assert ("p2",) in {s[2] for s in seen["p1"]}
    # and it is back behind nginx once nginx's failure window (fail_timeout, 10 s) ends
    deadline = time.monotonic() + 30
    while _backend(served.url, "p1") != "p1" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _backend(served.url, "p1") == "p1"
    assert [pid for pid in survivors if not _running(pid)] == []
    assert not _running(pids[0])
