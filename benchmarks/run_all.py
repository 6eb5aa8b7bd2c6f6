"""Run every benchmark in this folder: ``python3 benchmarks/run_all.py [--quick] [--load]``.

Each ``bench_*.py`` runs in its own Python process (so one benchmark's caches
and memory do not colour the next) and prints its own ratios against a
baseline measured in the same run.  ``--quick`` is passed on to benchmarks
that accept it.  The heavy ones in :data:`HEAVY` (``bench_load.py`` opens 30
Chromium sessions against one server) run only with ``--load``.
``bench_dask.py`` runs a small bag-of-words by default; ``--dask-rows N``
gives it ``--rows N`` (the issue's full size is 5000000).

``bench_class.py`` runs once per entry of :data:`RUNS`: students browsing pages on one
process and, through ``PROCESSES=2 deploy/serve.sh``, 60 browsing, a whole class of 60
and of 200 phones (every step of the lesson, also with ``--quick``), and 200 idle phones.
At the end, the figures of "the room never waits" (issue 41) are printed in one table,
read from the JSON line each run ends with.  Each run's last line gives the load average
(1 minute) at its start and end: figures measured while other work shared the cores are
not a quiet machine's.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

#: Benchmarks run only when ``--load`` is given.
HEAVY = ("bench_load.py",)
#: Benchmarks run more than once: (name of the run, its arguments, its arguments with --quick).
CLASS_ARGS = ("--class", "--serve", "2", "--think", "0.5", "3")
RUNS = {
    "bench_class.py": (
        ("browsing, one process", [], ["--duration", "30"]),
        ("browsing, 60 through serve.sh", ["--serve", "2", "--sessions", "60"], ["--duration", "30"]),
        ("class of 60", [*CLASS_ARGS, "--sessions", "60"], []),
        ("class of 200", [*CLASS_ARGS, "--sessions", "200"], []),
        ("200 idle phones", ["--class", "--serve", "2", "--sessions", "200", "--idle", "60"], []),
    ),
}


def last_json(lines):
    """The last line of ``lines`` that is a JSON object, or None."""
    for line in reversed(lines):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def run(command, cwd):
    """Run ``command``, echoing its output; returns (exit code, its last JSON object)."""
    lines = []
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True, bufsize=1) as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line.strip())
    return process.returncode, last_json(lines)


def _s(value, unit="s", digits=2):
    return "-" if value is None else f"{value:.{digits}f}{unit}"


def room_summary(results):
    """Issue 41's figures from the runs' JSON lines: ``[(figure, value, goal)]``."""
    rows = []
    for name, goal in (("class of 60", "<= 1 s"), ("class of 200", "<= 2 s")):
        got = results.get(("bench_class.py", name)) or {}
        if got:
            counted = f"{got.get('votes_counted')} / {got.get('votes_sent')}"
            rows += [
                (f"{name}: follow p50 / p95", f"{_s(got['follow_p50'])} / {_s(got['follow_p95'])}", goal),
                (
                    f"{name}: vote p50 / p95",
                    f"{_s(got['vote_p50'])} / {_s(got['vote_p95'])}",
                    "<= 0.5 s at 60",
                ),
                (f"{name}: votes counted / sent", counted, "all"),
                (f"{name}: stalls, errors", f"{got.get('stalls')}, {got.get('errors')}", "0, 0"),
            ]
    idle = results.get(("bench_class.py", "200 idle phones")) or {}
    if idle:
        cpu = idle.get("server_cpu_percent_of_one_core")
        rows.append(("200 idle phones: server CPU", _s(cpu, " % of a core", 1), "<= 5 %"))
    browsing = results.get(("bench_class.py", "browsing, 60 through serve.sh")) or {}
    if browsing:
        rows.append(("60 browsing, serve.sh: change p95", _s(browsing.get("p95")), "<= 1 s"))
        rows.append(("60 browsing, serve.sh: errors", str(browsing.get("errors")), "0"))
    browser = results.get(("bench_browser.py", "")) or {}
    for label, got in browser.items():
        if label.startswith("/"):
            value = f"{_s(got['median'])} ({got['x_floor']:.1f}x {_s(got.get('paired_floor'))})"
            rows.append((f"first chart {label} (x its floor)", value, "<= 2 s, <= 1.3x"))
        elif "θ" in label or label.startswith("Lesson slides"):
            goal = {"θ": "<= 0.3 s", "100k": "<= 1 s", "Reveal": "<= 0.2 s", "figure": "<= 0.5 s"}
            rows.append((label, _s(got["median"], digits=3), [g for k, g in goal.items() if k in label][-1]))
    soak = results.get(("bench_soak.py", "")) or {}
    if soak:
        killed = soak.get("kill_at_s") is not None
        label = f"soak {soak.get('minutes'):g} min{', a kill' if killed else ''}: largest process"
        goal = "<= 500 MB" + (" (after the kill one carried all students)" if killed else "")
        rows.append((label, _s(soak.get("process_peak_rss_mb"), " MB", 0), goal))
        rows.append(("soak: restarted process serves again", _s(soak.get("restart_s")), "<= 5 s"))
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    dask_args = []
    if "--dask-rows" in argv:  # a size flag for bench_dask.py only
        at = argv.index("--dask-rows")
        dask_args, argv = ["--rows", argv[at + 1]], argv[:at] + argv[at + 2 :]
    here = pathlib.Path(__file__).resolve().parent
    failures, results = 0, {}
    heavy = "--load" in argv
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--load"]
    for script in sorted(here.glob("bench_*.py")):
        if script.name in HEAVY and not heavy:
            print(f"\n=== {script.name}: skipped (heavy; pass --load to run it) ===", flush=True)
            continue
        accepts_quick = "--quick" in script.read_text()
        args = [a for a in argv if a != "--quick" or accepts_quick]
        args += dask_args if script.name == "bench_dask.py" else []
        for name, extra, quick_extra in RUNS.get(script.name, (("", [], []),)):
            print(f"\n=== {script.name}{f' ({name})' if name else ''} ===", flush=True)
            start, load = time.perf_counter(), os.getloadavg()[0]
            command = [sys.executable, str(script), *args, *extra, *(quick_extra if quick else [])]
            code, results[script.name, name] = run(command, here.parent)
            print(
                f"--- {script.name}: exit {code}, {time.perf_counter() - start:.1f} s, "
                f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
                flush=True,
            )
            failures += code != 0
    print("\n=== The room never waits (issue 41): this run's figures ===")
    for figure, value, goal in room_summary(results):
        print(f"{figure:<52} {value:<26} goal {goal}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
