"""deploy/serve.sh: two Streamlit processes behind nginx, with sticky sessions.

Streamlit keeps a session in the process that serves its websocket, so every
request of one browser (page, websocket, upload) must reach one process.  These
tests start ``serve.sh`` with ``PROCESSES=2`` on a free port (``FLDA_E2E_PORTS``),
drive two independent sessions through nginx with the protocol-level students of
``benchmarks/bench_class.py`` (cookies kept per session, as a browser does) and
stop it with SIGTERM.  Skipped without Debian's nginx.
"""

import asyncio
import concurrent.futures
import os
import random
import urllib.request
import uuid

import pytest
from e2e_harness import NGINX, SKIP_NO_NGINX, DeployedServer
from test_bench_class import bench_class

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not os.access(NGINX, os.X_OK), reason=SKIP_NO_NGINX)]


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


def _backend(url, key):
    """The process nginx picks for the sticky-session cookie ``key``."""
    request = urllib.request.Request(f"{url}/_stcore/health", headers={"Cookie": f"flda_backend={key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers["X-FLDA-Backend"]


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
        # Two cookies that nginx sends to different processes (bounded search).
        keys = {}
        for _ in range(64):
            key = uuid.uuid4().hex
            keys.setdefault(_backend(server.url, key), key)
            if len(keys) == 2:
                break
        assert len(keys) == 2, "nginx sent 64 random cookies to one process"

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
