"""Servers started by the browser tests and benchmarks never outlive the process that
started them (a leftover server skews every later measurement on a 2-core machine)."""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_server_child_dies_when_its_starter_is_killed():
    if not sys.platform.startswith("linux"):
        return  # prctl is Linux-only; the harness falls back to stop()
    starter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "sys.path.insert(0, 'tests/e2e')\n"
            "import e2e_harness as h\n"
            "child = subprocess.Popen(['sleep', '120'], start_new_session=True,\n"
            "                         preexec_fn=h.die_with_parent)\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    child = int(starter.stdout.readline())
    assert _running(child)
    starter.kill()  # SIGKILL: no cleanup code of the starter runs
    starter.wait()
    deadline = time.monotonic() + 10
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert not _running(child)
    finally:
        if _running(child):
            os.kill(child, 9)
