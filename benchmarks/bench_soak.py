"""A class through ``deploy/serve.sh`` while one of its processes is killed (issue 36).

Starts ``PROCESSES=2 bash deploy/serve.sh`` on a free loopback port (supervisord, two
Streamlit processes, nginx), then runs ``--students`` simulated students for
``--minutes`` with the protocol client of ``benchmarks/bench_class.py`` (each a
browser tab on the wire: page loads, websocket, control changes with think time, page
switches; one in ten uploads a CSV pair on "Your data" through Streamlit's upload
endpoint first).  Half the students start on each process (their ``flda_backend``
cookie, ``p1`` or ``p2``).  At ``--kill-at`` of the run (default half-way) the first
Streamlit process is killed with SIGKILL, as the out-of-memory killer does (``--kill-at 1``:
never, for the memory of a whole class).

A student whose websocket closes (its process died) does what the browser does: it
reconnects after a second, with its cookie, to the page it was on, and goes on;
nginx sends it to a live process.  Reported, as one JSON line at the end:

* ``other_p50`` / ``other_p95``: change times (seconds from a control change to the
  end of its run) of the students of the process that was not killed, over the whole
  run and (``other_p95_after_kill``) from the kill to the end;
* ``respawn_s``: seconds from the kill until supervisord started a new process;
  ``restart_s``: until that process answers its health check (its start-up, the
  warm-ups before it opens included); ``students_on_killed``: students whose tab
  was on it then, ``killed_students_back_s``: until the last of them had a run
  served again (by the live process, through nginx), ``killed_students_not_back``;
* ``errors_before_kill``, ``errors_during_restart`` (lost connections of the killed
  process's students, expected), ``errors_after_restart`` (after ``restart_s``: should
  be 0) and the first few error texts;
* ``server_peak_rss_mb``: the largest sum of the Streamlit processes' resident memory,
  sampled every 0.5 s; ``process_peak_rss_mb``: the largest of one process;
  ``rss_mb_every_5_min``: ``[minute, MB of each process]`` every 5 minutes;
  ``load_avg``: the machine's 1-minute load average at the start, its largest value
  during the run and at the end (the machine may be shared).

The server's warm-ups run as in a class (``FLDA_*_WARM_UP`` default to on here; set
them to 0 to leave them out).  Only 127.0.0.1 is contacted; students, minutes and
every wait are bounded.

Run: ``python3 benchmarks/bench_soak.py --students 60 --minutes 10``

Results
-------
``python3 benchmarks/bench_soak.py --students 60 --minutes 4``, 2026-11-28 01:11-01:15 UTC,
the quiet 2-core machine (load average 0.28 at the start, at most 1.59): the other
process's students change p50 / p95 0.064 / 0.296 s (0.274 s at p95 after the kill, 2,706
changes); supervisord started a new process 0.17 s after the kill (``respawn_s``), which
answered after 4.1 s (``restart_s``); the killed process's 30 students were all served
again by the live process, the last 6.7 s after the kill; errors before / during / after
the restart 0 / 30 (the websockets the kill closed) / 0; peak memory of both Streamlit
processes 890 MB.

``--students 60 --minutes 60 --kill-at 1`` (no kill: memory over a whole class),
2026-11-28 03:00-04:01 UTC (load average 0.38 at the start, up to 8.1 while parallel test
runs shared the machine, 1.6 at the end: the change times of this run, p50 / p95 0.071 /
0.423 s, are not a quiet machine's): 41,664 changes and 6 uploads, 0 errors; RSS of the
two processes every 5 minutes (MB): 313/312 at the start, 423/445 after 5 minutes,
448/451 after 15, 449/473 after 45, 448/468 after 60; largest of one process 479 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import bench_class  # noqa: E402
from e2e_harness import QUIET_WARM_UPS, DeployedServer, answers_health, proc_rss  # noqa: E402

#: Seconds a student waits before reconnecting a closed websocket (as the browser does).
RECONNECT_S = 1.0


class Clock:
    """Seconds since the start of the class; the kill and the restart on that clock."""

    def __init__(self):
        self.start = time.monotonic()
        self.kill = None
        self.respawn = None
        self.restart = None

    def now(self):
        return time.monotonic() - self.start


class TimedErrors(list):
    """``Stats.errors`` that keeps when each error happened (``(seconds, text)``)."""

    def __init__(self, clock):
        super().__init__()
        self.clock = clock

    def append(self, text):
        super().append((self.clock.now(), text))


class Record:
    """What all students measured, by the process each started on."""

    def __init__(self, clock):
        self.clock = clock
        self.changes = {"p1": [], "p2": []}  # (seconds since start, change seconds)
        self.errors = []  # (seconds since start, home process, text)
        self.back = {}  # student index -> seconds since start of its first run after the kill
        self.uploads = 0
        self.current = {}  # student index -> its Student (the tab open now)
        self.on_killed = set()  # students whose tab was on the killed process when it died


def _think(rng, think):
    return rng.uniform(*think)


async def _pause(student, seconds):
    """Think for ``seconds``, or less if the websocket closes meanwhile (raises then)."""
    closed = asyncio.ensure_future(student.ws.wait_closed())
    try:
        await asyncio.wait_for(asyncio.shield(closed), seconds)
    except TimeoutError:
        return
    finally:
        closed.cancel()
    raise ConnectionError("the websocket closed")


async def soak_student(base, index, seed, record, deadline, timeout, think):
    """One student until ``deadline``: start on process p1 or p2 (alternately), move
    controls and switch pages; reconnect after a closed websocket or a failed run."""
    rng = random.Random(seed * 1000 + index)
    home = f"p{index % 2 + 1}"
    clock = record.clock
    stats = bench_class.Stats()
    stats.errors = TimedErrors(clock)
    cookies = {"flda_backend": home}
    uploader = index % 10 == 9
    page = bench_class.UPLOAD_PAGE if uploader else rng.choice(list(bench_class.PAGES))
    await asyncio.sleep(rng.uniform(0, 3))  # a class does not click at the same instant
    while time.monotonic() < deadline:
        student = bench_class.Student(base, rng, stats, timeout)
        student.cookies.update(cookies)
        record.current[index] = student
        seen = len(stats.errors)
        try:
            await student.connect(page)
            if clock.kill is not None and index not in record.back:
                record.back[index] = clock.now()
            if uploader:
                for label, path in zip(("Source CSV", "Target CSV"), bench_class.UPLOAD_FILES, strict=True):
                    await student.upload(label, path)
                record.uploads += 1
                uploader = False
                await student.switch_page("transfer")
                page = "transfer"
            while time.monotonic() < deadline:
                for _ in range(rng.randint(*bench_class.MOVES_PER_PAGE)):
                    await _pause(student, _think(rng, think))
                    if time.monotonic() >= deadline:
                        return
                    seconds = await student.change(rng.choice(bench_class.PAGES[page]))
                    record.changes[home].append((clock.now(), seconds))
                    if clock.kill is not None and index not in record.back:
                        record.back[index] = clock.now()
                page = rng.choice([p for p in bench_class.PAGES if p != page])
                await student.switch_page(page)
        except Exception as error:  # a lost connection is a result; reconnect as a browser
            stats.errors.append(f"{type(error).__name__}: {str(error)[:160]}")
            await asyncio.sleep(RECONNECT_S)
        finally:
            cookies = dict(student.cookies)
            try:
                await student.close()
            except Exception:
                pass
            for when, text in stats.errors[seen:]:
                record.errors.append((when, home, f"student {index} on {page or 'home'!r}: {text}"))
            del stats.errors[seen:]


async def kill_and_watch(server, record, at_s, limit_s=120):
    """At ``at_s`` kill the first Streamlit process (p1); note which students it was
    serving, and when it answers again."""
    clock = record.clock
    await asyncio.sleep(at_s)
    port = server.backend_ports()[0]
    pid = server.streamlit_pids()[port]
    os.kill(pid, signal.SIGKILL)
    clock.kill = clock.now()
    record.on_killed = {i for i, s in record.current.items() if s.cookies.get("flda_backend") == "p1"}
    while clock.now() - clock.kill < limit_s:
        await asyncio.sleep(0.05)
        if clock.respawn is None and server.streamlit_pids().get(port, pid) != pid:
            clock.respawn = clock.now()
        if clock.respawn is not None and await asyncio.to_thread(answers_health, port):
            clock.restart = clock.now()
            return


async def sample(server, peak, loads, stop, clock, timeline):
    """Largest summed RSS of the Streamlit processes, each process's largest, the
    1-minute load averages, and every 5 minutes each process's RSS (``timeline``)."""
    while not stop.is_set():
        rss = {port: proc_rss(pid) for port, pid in server.streamlit_pids().items()}
        peak[0] = max(peak[0], sum(rss.values()))
        peak[1] = max([peak[1], *rss.values()])
        loads.append(os.getloadavg()[0])
        if clock.now() >= 300 * len(timeline):
            timeline.append([round(clock.now() / 60), *(round(v / 2**20) for v in rss.values())])
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except TimeoutError:
            pass


async def soak(server, args):
    clock = Clock()
    record = Record(clock)
    duration = args.minutes * 60
    deadline = time.monotonic() + duration
    peak, loads, stop, timeline = [0, 0], [os.getloadavg()[0]], asyncio.Event(), []
    sampler = asyncio.create_task(sample(server, peak, loads, stop, clock, timeline))
    kill = args.kill_at < 1  # 1: no kill (memory over a whole class)
    killer = asyncio.create_task(kill_and_watch(server, record, duration * args.kill_at)) if kill else None
    students = [
        soak_student(server.url, k, args.seed, record, deadline, args.timeout, tuple(args.think))
        for k in range(args.students)
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*students), duration + 2 * args.timeout + 30)
    except TimeoutError:
        record.errors.append((clock.now(), "", "the class did not finish in time"))
    if killer:
        await killer
    stop.set()
    await sampler
    loads.append(os.getloadavg()[0])
    return record, clock, peak, loads, timeline


def summary(record, clock, peak, loads, timeline, args):
    """The JSON line."""

    def r(x):
        return None if x is None else round(x, 3)

    other = [s for _, s in record.changes["p2"]]
    after = [s for t, s in record.changes["p2"] if clock.kill is not None and t >= clock.kill]
    restart = None if clock.restart is None else clock.restart - clock.kill
    respawn = None if clock.respawn is None else clock.respawn - clock.kill
    killed_back = [t - clock.kill for k, t in record.back.items() if k in record.on_killed]

    def when(t):
        if clock.kill is None or t < clock.kill:
            return "before"
        return "during" if clock.restart is None or t <= clock.restart else "after"

    counts = {"before": 0, "during": 0, "after": 0}
    for t, _, _ in record.errors:
        counts[when(t)] += 1
    return {
        "students": args.students,
        "minutes": args.minutes,
        "other_p50": r(bench_class.percentile(other, 50)),
        "other_p95": r(bench_class.percentile(other, 95)),
        "other_p95_after_kill": r(bench_class.percentile(after, 95)),
        "killed_p95": r(bench_class.percentile([s for _, s in record.changes["p1"]], 95)),
        "changes": len(other) + len(record.changes["p1"]),
        "uploads": record.uploads,
        "kill_at_s": r(clock.kill),
        "respawn_s": r(respawn),
        "restart_s": r(restart),
        "students_on_killed": len(record.on_killed),
        "killed_students_back_s": r(max(killed_back, default=None)),
        "killed_students_not_back": len(record.on_killed - set(record.back)),
        "errors_before_kill": counts["before"],
        "errors_during_restart": counts["during"],
        "errors_after_restart": counts["after"],
        "first_errors": [f"{t:.1f}s {text[:120]}" for t, _, text in record.errors[:3]],
        "server_peak_rss_mb": round(peak[0] / 2**20, 1),
        "process_peak_rss_mb": round(peak[1] / 2**20, 1),
        "rss_mb_every_5_min": timeline,
        "load_avg": {"start": round(loads[0], 2), "max": round(max(loads), 2), "end": round(loads[-1], 2)},
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--kill-at", type=float, default=0.5, help="fraction of the run (0-1; 1: no kill)")
    parser.add_argument("--seed", type=int, default=0)
    bench_class.add_think_argument(parser)
    parser.add_argument("--timeout", type=float, default=60.0, help="longest wait for one run (seconds)")
    parser.add_argument("--log", type=Path, help="serve.sh's output (default: a temporary file)")
    args = parser.parse_args(argv)
    if (
        not 1 <= args.students <= 200
        or not 0.05 <= args.minutes <= 90
        or not 0 < args.kill_at <= 1
        or not 0.1 <= args.think[0] <= args.think[1] <= 60
        or not 5 <= args.timeout <= 300
    ):
        parser.error(
            "use 1-200 students, 0.05-90 minutes, --kill-at in (0, 1], think 0.1-60 s, timeout 5-300 s"
        )
    log = args.log or Path(f"/tmp/flda-soak-serve-{os.getpid()}.log")
    for name in QUIET_WARM_UPS:  # as a class's server runs (the harness turns them off)
        os.environ.setdefault(name, "1")
    server = DeployedServer(processes=2, log_path=log)
    print(f"serve.sh on {server.url} (log {log})", file=sys.stderr, flush=True)
    try:
        record, clock, peak, loads, timeline = asyncio.run(soak(server, args))
    finally:
        code = server.stop()
    result = summary(record, clock, peak, loads, timeline, args)
    result["serve_sh_exit"] = code
    for _, _, text in record.errors[:10]:
        print(f"error: {text}", file=sys.stderr)
    print(json.dumps(result), flush=True)
    restarted = args.kill_at == 1 or result["restart_s"] is not None
    return 0 if result["errors_after_restart"] == 0 and restarted else 1


if __name__ == "__main__":
    sys.exit(main())
