"""Run every benchmark in this folder: ``python3 benchmarks/run_all.py [--quick] [--load]``.

Each ``bench_*.py`` runs in its own Python process (so one benchmark's caches
and memory do not colour the next) and prints its own ratios against a
baseline measured in the same run.  ``--quick`` is passed on to benchmarks
that accept it.  The heavy ones in :data:`HEAVY` (``bench_load.py`` opens 30
Chromium sessions against one server) run only with ``--load``.
``bench_dask.py`` runs a small bag-of-words by default; ``--dask-rows N``
gives it ``--rows N`` (the issue's full size is 5000000).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

#: Benchmarks run only when ``--load`` is given.
HEAVY = ("bench_load.py",)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    dask_args = []
    if "--dask-rows" in argv:  # a size flag for bench_dask.py only
        at = argv.index("--dask-rows")
        dask_args, argv = ["--rows", argv[at + 1]], argv[:at] + argv[at + 2 :]
    here = pathlib.Path(__file__).resolve().parent
    failures = 0
    heavy = "--load" in argv
    argv = [a for a in argv if a != "--load"]
    for script in sorted(here.glob("bench_*.py")):
        if script.name in HEAVY and not heavy:
            print(f"\n=== {script.name}: skipped (heavy; pass --load to run it) ===", flush=True)
            continue
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        accepts_quick = "--quick" in script.read_text()
        args = [a for a in argv if a != "--quick" or accepts_quick]
        args += dask_args if script.name == "bench_dask.py" else []
        code = subprocess.call([sys.executable, str(script), *args], cwd=here.parent)
        print(f"--- {script.name}: exit {code}, {time.perf_counter() - start:.1f} s", flush=True)
        failures += code != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
