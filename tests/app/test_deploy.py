"""deploy/serve.sh (deploy/serve.py): supervised Streamlit processes behind nginx.

Streamlit keeps a session in the process that serves its websocket, so every request
of one browser (page, websocket, upload) must reach one process.  These tests start
``serve.sh`` with ``PROCESSES=2`` on a free port, drive sessions through nginx with the
protocol-level students of ``benchmarks/bench_class.py`` (cookies kept per session, as
a browser does), and break the deployment as a class's server breaks: a process
killed (the out-of-memory killer) or hung (SIGSTOP), thousands of held connections,
nginx's master or supervisord killed, a terminal's hang-up, a restart storm.  nginx's
timeouts are also checked alone, against stand-in processes.  Skipped without
Debian's nginx or supervisor.
"""

import asyncio
import concurrent.futures
import http.client
import http.server
import importlib.util
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
from e2e_harness import (
    NGINX,
    QUIET_WARM_UPS,
    ROOT,
    SKIP_NO_NGINX,
    DeployedServer,
    answers_health,
    die_with_parent,
    free_port,
)
from test_bench_class import bench_class

SUPERVISORD = "/usr/bin/supervisord"
needs_nginx = pytest.mark.skipif(not os.access(NGINX, os.X_OK), reason=SKIP_NO_NGINX)
needs_supervisor = pytest.mark.skipif(
    not os.access(SUPERVISORD, os.X_OK), reason="install Debian's supervisor (apt-get install supervisor)"
)


def needs_serve(test):
    """A slow test of serve.sh: skipped without nginx or supervisor."""
    return pytest.mark.slow(needs_nginx(needs_supervisor(test)))


def _serve_module():
    spec = importlib.util.spec_from_file_location("flda_serve", ROOT / "deploy" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def _serves(url, deadline_s=120):
    """Whether nginx answers health checks again within ``deadline_s``."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            if _get(url, timeout=10)[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.5)
    return False


def _run_dir(server):
    return Path(re.findall(r"configuration and logs in (\S+)", server.log_path.read_text())[-1])


def _supervisor_pids(server):
    return [int(p) for p in re.findall(r"\(supervisor pid (\d+)\)", server.log_path.read_text())]


def _program_state(server, name):
    """supervisord's state of ``name`` (``supervisorctl status``), e.g. "RUNNING", "FATAL"."""
    ctl = Path(SUPERVISORD).with_name("supervisorctl")
    done = subprocess.run(
        [ctl, "-c", _run_dir(server) / "supervisord.conf", "status", name],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return (done.stdout.split() or ["?", "?"])[1]


def _websocket(url, backend, **options):
    from websockets.sync.client import connect

    return connect(
        url.replace("http", "ws") + "/_stcore/stream",
        subprotocols=["streamlit"],
        origin=url,
        additional_headers={"Cookie": f"flda_backend={backend}"},
        open_timeout=30,
        **options,
    )


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


def _in_thread(coroutine):
    """Run ``coroutine`` on an event loop of its own (pytest's thread may hold one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@needs_serve
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
        keys = ("p1", "p2")
        assert [_backend(server.url, key) for key in keys] == ["p1", "p2"]

        # (b) each session's page, websocket and uploads reach its own process only
        async def both():
            return await asyncio.wait_for(asyncio.gather(*(_session(server.url, key) for key in keys)), 300)

        seen = _in_thread(both())
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


# ------------------------------------------------------------------ nginx alone


class _LiveProcess(http.server.BaseHTTPRequestHandler):
    """A stand-in Streamlit process: answers at once, holds a class long poll 20 s."""

    def do_GET(self):
        if self.path.startswith("/_flda/class/"):
            time.sleep(20)  # the class's long poll: held at most 20 s
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _closed_by_server(port, timeout):
    """Send half a request header and wait: True once the server closes (or resets) the
    connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: flda\r\n")
        try:
            while sock.recv(4096):
                pass
        except ConnectionResetError:
            pass
        except TimeoutError:
            return False
        return True


@pytest.mark.slow
@needs_nginx
def test_nginx_routes_around_a_hung_process_holds_long_polls_and_drops_half_headers(tmp_path):
    """nginx with serve.py's configuration in front of two stand-ins: "p1" accepts
    connections and never answers (as a SIGSTOPped process), "p2" answers.  A student
    whose cookie names p1 gets p2's answer within 10 s; a class long poll held 20 s
    comes back whole; a request whose header never ends is closed (slowloris)."""
    serve = _serve_module()
    hung = socket.create_server(("127.0.0.1", 0), backlog=64)  # listens, never accepts
    live = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _LiveProcess)
    threading.Thread(target=live.serve_forever, daemon=True).start()
    port = serve.free_ports(1)[0]
    ports = [hung.getsockname()[1], live.server_address[1]]
    conf = serve.nginx_conf(tmp_path, f"127.0.0.1:{port}", ports, 4096, {}, os.geteuid() == 0)
    (tmp_path / "nginx.conf").write_text(conf)
    nginx = subprocess.Popen(
        [
            NGINX,
            "-p",
            tmp_path,
            "-e",
            tmp_path / "error.log",
            "-c",
            tmp_path / "nginx.conf",
            "-g",
            "daemon off;",
        ],
        preexec_fn=die_with_parent,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        assert _serves(url, deadline_s=30)
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            student = pool.submit(_get, url, cookie="flda_backend=p1", timeout=10)
            long_poll = pool.submit(_get, url, "/_flda/class/wait", cookie="flda_backend=p2", timeout=40)
            slowloris = pool.submit(_closed_by_server, port, timeout=40)
            status, headers, _ = student.result()
            assert (status, _set_backend(headers)) == (200, ["p2"])
            assert long_poll.result()[::2] == (200, b"ok")
            assert slowloris.result()
    finally:
        nginx.terminate()
        nginx.wait(30)
        live.shutdown()
        hung.close()


# ------------------------------------------------------------------ one shared server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``PROCESSES=2 bash deploy/serve.sh``, shared by the tests below."""
    server = DeployedServer(processes=2, log_path=tmp_path_factory.mktemp("serve") / "serve.log")
    yield server
    assert server.stop() == 0, server.log_tail()


def _all_headers(url):
    """Every header of the answers a browser gets: pages, static files, the
    websocket's upgrade, Streamlit's endpoints and a missing path."""
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
    with _websocket(url, "") as ws:
        found += list(ws.response.headers.raw_items())
    return found


@needs_serve
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
            status, headers, _ = _get(url, cookie=cookie, timeout=120)
            seen.append((time.monotonic() - start, status, tuple(_set_backend(headers))))
        except OSError as error:
            seen.append((time.monotonic() - start, type(error).__name__, ()))
        stop.wait(0.2)


@needs_serve
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

    restarted, back, seen, backends = _in_thread(life())
    # supervisord started it again within 15 s; it answers once its start-up is done
    # (benchmarks/bench_soak.py measures how long that takes)
    assert restarted is not None and restarted <= 15, (restarted, served.log_tail())
    assert back is not None, served.log_tail()
    assert not stats.errors and backends == {"p2"}, stats.errors
    # The other process answered every health check, and answered the killed one's
    # students while it was down (their cookie did not pin them to a dead process).
    assert seen["p2"] and all(s[1:] == (200, ("p2",)) for s in seen["p2"]), seen["p2"]
    assert [s for s in seen["p1"] if s[1] != 200] == [], seen["p1"]
    assert ("p2",) in {s[2] for s in seen["p1"]}
    # and it is back behind nginx once nginx's failure window (fail_timeout) ends
    deadline = time.monotonic() + 30
    while _backend(served.url, "p1") != "p1" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _backend(served.url, "p1") == "p1"
    assert [pid for pid in survivors if not _running(pid)] == []
    assert not _running(pids[0])


@needs_serve
def test_a_restart_storm_does_not_leave_a_process_down_for_good(served):
    """The first process is killed at every start (as an out-of-memory killer might)
    until supervisord gives up on it (FATAL); once the storm is over it serves again
    by itself."""
    port = served.backend_ports()[0]
    killed, state, deadline = set(), "", time.monotonic() + 240
    while state != "FATAL" and time.monotonic() < deadline:
        pid = served.streamlit_pids().get(port)
        if pid and pid not in killed:
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        elif len(killed) > 2:
            state = _program_state(served, "streamlit-1")
        time.sleep(0.05)
    assert state == "FATAL", served.log_tail()
    deadline = time.monotonic() + 180
    while not answers_health(port) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert answers_health(port), served.log_tail()
    assert _backend(served.url, "p1") in ("p1", "p2")


# ------------------------------------------------------------------ a server of their own


@needs_serve
def test_a_hung_process_is_routed_around_then_restarted_and_idle_websockets_live(tmp_path, monkeypatch):
    """SIGSTOP the first process (its students' requests are held, supervisord still
    says RUNNING): a student whose cookie names it is answered by the other within
    10 s; the watchdog kills it and supervisord starts it again; the websocket it held
    is closed (the browser reconnects), while an idle websocket on the other process,
    kept open by Streamlit's pings alone, outlives nginx's websocket timeout."""
    # Streamlit pings every 10 s: nginx keeps a silent websocket 20 s (serve.py).
    monkeypatch.setenv("STREAMLIT_SERVER_WEBSOCKET_PING_INTERVAL", "10")
    server = DeployedServer(processes=2, log_path=tmp_path / "serve.log")
    hung, port = server.pids[0], server.backend_ports()[0]
    try:
        with (
            _websocket(server.url, "p2", ping_interval=None) as idle,
            _websocket(server.url, "p1") as on_hung,
        ):
            opened = time.monotonic()
            os.kill(hung, signal.SIGSTOP)
            status, headers, _ = _get(server.url, cookie="flda_backend=p1", timeout=10)
            assert (status, _set_backend(headers)) == (200, ["p2"])
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not (
                server.streamlit_pids().get(port, hung) != hung and answers_health(port)
            ):
                time.sleep(0.5)
            assert not _running(hung) and answers_health(port), server.log_tail()
            with pytest.raises(Exception, match="(?i)clos|eof|reset"):
                on_hung.recv(timeout=30)
            time.sleep(max(0.0, opened + 30 - time.monotonic()))  # beyond nginx's 20 s
            idle.ping().wait(10)
            assert idle.protocol.state.name == "OPEN"
    finally:
        if _running(hung):
            os.kill(hung, signal.SIGCONT)
        assert server.stop() == 0, server.log_tail()


@needs_serve
def test_thousands_of_held_connections_leave_room_for_a_new_student(tmp_path):
    """serve.sh started from a shell that allows 1,024 open files (a common default):
    2,000 websockets held open (as long polls hold theirs) and 2,000 requests whose
    header never ends (slowloris, reopened as nginx drops them) still let a new
    student open a page and run it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 16384:
        pytest.skip(f"the hard limit of open files is {hard}: too low for 4,000 held connections")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:
        server = DeployedServer(processes=2, log_path=tmp_path / "serve.log")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 16384), hard))
    port = int(server.url.rsplit(":", 1)[1])

    async def slowloris(stop, held):
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"GET / HTTP/1.1\r\nHost: flda\r\n")
                await writer.drain()
                held[0] += 1
                await asyncio.wait_for(reader.read(), 60)  # b"" once nginx drops it
                held[0] -= 1
                writer.close()
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)

    async def class_under_attack():
        import websockets

        uri = server.url.replace("http", "ws") + "/_stcore/stream"

        async def hold(i):
            return await websockets.connect(
                uri,
                subprotocols=["streamlit"],
                origin=server.url,
                additional_headers={"Cookie": f"flda_backend=p{i % 2 + 1}"},
                open_timeout=120,
            )

        sockets = []
        for start in range(0, 2000, 200):  # 200 at a time, as students arrive
            sockets += await asyncio.gather(*(hold(i) for i in range(start, start + 200)))
        stop, held = asyncio.Event(), [0]
        attackers = [asyncio.create_task(slowloris(stop, held)) for _ in range(2000)]
        deadline = time.monotonic() + 120
        while held[0] < 2000 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert held[0] >= 2000, held  # every half-sent request reached nginx
        stats = bench_class.Stats()
        student = bench_class.Student(server.url, random.Random(0), stats, timeout=120)
        try:
            await student.connect("transfer")
            await student.change("θ̂1 + …")
        finally:
            await student.close()
            stop.set()
            for task in attackers:
                task.cancel()
            await asyncio.gather(*attackers, return_exceptions=True)
            still_open = sum(ws.state.name == "OPEN" for ws in sockets)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        return stats, still_open

    try:
        stats, still_open = _in_thread(asyncio.wait_for(class_under_attack(), 600))
        assert not stats.errors and stats.reruns >= 2, stats  # the page and the change ran
        assert still_open == 2000
    finally:
        assert server.stop() == 0, server.log_tail()


@needs_serve
def test_the_run_outlives_a_hang_up_and_the_death_of_nginx_or_supervisord(tmp_path):
    """A terminal's hang-up (SIGHUP to serve.sh's process group) leaves the class up;
    nginx's master killed: no orphaned worker keeps the port, a new nginx serves;
    supervisord killed: serve.sh stops what it left and starts everything again."""
    server = DeployedServer(processes=2, log_path=tmp_path / "serve.log")
    try:
        os.killpg(server.process.pid, signal.SIGHUP)
        time.sleep(3)
        assert server.process.poll() is None and _serves(server.url, 30), server.log_tail()

        master = server.pids[-1]
        workers = _children(master)
        os.kill(master, signal.SIGKILL)
        time.sleep(1)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(_running(p) for p in workers):
            time.sleep(0.5)
        assert [p for p in workers if _running(p)] == [], "an orphaned nginx worker still serves"
        assert _serves(server.url, 60) and _program_state(server, "nginx") in ("STARTING", "RUNNING")

        supervisor = _supervisor_pids(server)[-1]
        before = [p for p in [*server.streamlit_pids().values(), *_children(supervisor)] if p != supervisor]
        os.kill(supervisor, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_supervisor_pids(server)) < 2:
            time.sleep(0.5)
        assert len(_supervisor_pids(server)) == 2, server.log_tail()
        assert [p for p in before if _running(p)] == [], "processes left unsupervised"
        assert server.process.poll() is None and _serves(server.url, 120), server.log_tail()
    finally:
        assert server.stop() == 0, server.log_tail()
    assert not _running(_supervisor_pids(server)[-1])


@needs_serve
def test_background_runs_start_stop_and_clean_up_after_a_crash():
    """``serve.sh start`` serves in the background (in a session of its own: a terminal's
    hang-up never reaches it) and ``status`` lists its programs.  serve.sh and its
    supervisord killed at once (SIGKILL) leave processes holding the port; the next
    ``start`` on that port stops them, and ``stop`` stops everything."""
    env = {**os.environ, "PORT": str(free_port()), "PROCESSES": "2", "PYTHON": sys.executable}
    env.update({name: os.environ.get(name, "0") for name in QUIET_WARM_UPS})
    url = f"http://127.0.0.1:{env['PORT']}"

    def serve(command):
        done = subprocess.run(
            ["bash", ROOT / "deploy" / "serve.sh", command], cwd=ROOT, env=env, capture_output=True, text=True
        )
        pids = [int(p) for p in re.findall(r"\(pid (\d+)\)", done.stderr)]
        return done, pids + [w for p in pids[-1:] for w in _children(p)]

    first, left = serve("start")
    try:
        assert first.returncode == 0 and _get(url)[0] == 200, first.stderr[-3000:]
        supervisor = int(re.findall(r"\(supervisor pid (\d+)\)", first.stderr)[-1])
        runner = int(re.findall(r"in the background \(pid (\d+)\)", first.stderr)[-1])
        assert os.getsid(runner) != os.getsid(0) and os.getsid(supervisor) != os.getsid(runner)
        os.kill(supervisor, signal.SIGKILL)
        os.kill(runner, signal.SIGKILL)
        time.sleep(1)
        assert any(_running(p) for p in left)  # the crash left processes behind
        second, started = serve("start")
        left += started
        assert second.returncode == 0 and _get(url)[0] == 200, second.stderr[-3000:]
        assert [p for p in left if _running(p) and p not in started] == []
        status = serve("status")[0].stdout
        assert {int(p) for p in re.findall(r"pid (\d+)", status)} == set(started[:3]), status
    finally:
        assert serve("stop")[0].returncode == 0
        running = [p for p in left if _running(p)]
        for pid in running:  # if the test failed: nothing left on the shared machine
            os.kill(pid, signal.SIGKILL)
    assert running == []


def test_a_visitor_sees_no_exception_details(monkeypatch):
    """An uncaught exception (SQL, a server path in its message) shows Streamlit's
    generic message only, with the shipped .streamlit/config.toml."""
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    monkeypatch.chdir(ROOT)
    config.get_config_options(force_reparse=True)
    at = AppTest.from_string("raise RuntimeError('SELECT votes FROM class -- /srv/flda/class.db')").run()
    [shown] = at.exception
    assert "SELECT" not in shown.proto.message and "/srv" not in shown.proto.message
    assert shown.proto.type == "" and list(shown.proto.stack_trace) == []


@needs_serve
def test_a_class_session_of_two_students_through_serve_sh(tmp_path, monkeypatch):
    """``--class --serve 2`` with 2 students over the first 2 steps, as ``run_all.py`` runs
    it: every vote sent is counted once, both students follow Next, and the JSON line has
    the class figures and both processes' CPU."""
    monkeypatch.setenv("FLDA_CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.db'}")
    monkeypatch.delenv("FLDA_LECTURER_TOKEN", raising=False)
    for name in QUIET_WARM_UPS:  # the lesson's steps are computed on demand here
        monkeypatch.setenv(name, "0")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_class.py"),
            "--serve",
            "2",
            "--class",
            "--sessions",
            "2",
            "--steps",
            "2",
        ]
        + ["--think", "0.2", "0.5", "--timeout", "60"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr
    assert {"follow_p95", "vote_p95", "votes_sent", "votes_counted", "errors"} <= set(result)
    assert result["errors"] == 0
    assert result["votes_sent"] == result["votes_counted"] == 2 * 2 * 2  # students x steps x rounds
    assert result["actions"] == 12  # the join slide away, 5 stages of step 1, Next, 5 of step 2
    assert result["follows"] == 2 * result["actions"] and result["stalls"] == 0  # both followed each
    assert 0 < result["vote_p50"] <= result["vote_p95"] and result["follow_p95"] > 0
    assert result["server_cpu_s"] > 0  # summed over the two Streamlit processes serve.sh ran
