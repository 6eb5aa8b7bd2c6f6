"""Your data: server seconds of a trivial rerun with a large uploaded pair (issue 26).

A rerun that changes no data (the "Features shown in the charts" slider) should cost
about the same with a 45 MB pair as with the sample pair.  This runs the page through
``AppTest`` (``app.py``, the page's real uploaders), loads a pair, lets the first
run fit everything, then times ``--reruns`` slider moves.  It does so first with the
sample pair (the baseline, measured in the same run) and then with a large pair, and
prints one JSON line: the median ms per rerun of each and their ratio (large / sample;
1 is the goal).  ``--profile`` prints the top of a cProfile of the large pair's last
rerun.  The large pair is generated (seeded) into a temporary folder: ``--rows`` x
``--features`` random values with 4 decimals, 10 % zeros in the source and 40 % in the
target (about 26 + 20 MB with the defaults).  ``--sample`` times the sample pair only.

Run: ``python3 benchmarks/bench_your_data.py [--sample] [--reruns 5] [--profile]``.

Results
-------
``python3 benchmarks/bench_your_data.py --reruns 5`` and ``... --sample --reruns 5``,
2026-11-26, the 2-core machine shared with other tests (load average not recorded): a
trivial rerun takes 124 ms with a 43.4 MB pair and 78 ms with the sample pair (1.6x).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "app"))


def make_pair(folder, rows, features, seed=0):
    """Write a large source/target CSV pair; returns their paths."""
    rng = np.random.default_rng(seed)
    paths = []
    for name, drop in (("big_source.csv", 0.1), ("big_target.csv", 0.4)):
        X = rng.random((rows, features)) * 10
        X[rng.random((rows, features)) < drop] = 0
        y = (X[:, :5].sum(1) > X[:, 5:10].sum(1)).astype(int)
        path = Path(folder) / name
        with open(path, "w") as out:
            out.write(",".join(f"f{j}" for j in range(features)) + ",label\n")
            for row, label in zip(np.round(X, 4), y, strict=True):
                out.write(",".join(f"{v:g}" for v in row) + f",{label}\n")
        paths.append(path)
    return paths


def rerun_times(paths, reruns, profile=False):
    """Seconds of ``reruns`` "Features shown" slider moves after loading ``paths``
    (source, target) into a fresh page; with ``profile`` the last one is profiled
    (the page's script thread) and its statistics printed."""
    from apptest_support import open_page

    at = open_page("pages/your_data.py", timeout=1800)
    at.reports_chart_draws = True
    for index, path in enumerate(paths):
        at.file_uploader[index].set_value((path.name, path.read_bytes(), "text/csv"))
        at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    slider = next(s for s in at.slider if s.label.startswith("Features shown"))
    times = []
    for i in range(reruns):
        value = 10 + i % 2
        start = time.perf_counter()
        if profile and i == reruns - 1:
            # AppTest runs the script in a new thread: profile that thread.
            profiler = cProfile.Profile()

            def start_profile(*_, profiler=profiler):
                sys.setprofile(None)
                profiler.enable()

            threading.setprofile(start_profile)
            at.slider(key=slider.key).set_value(value).run()
            threading.setprofile(None)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        else:
            at.slider(key=slider.key).set_value(value).run()
        times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--reruns", type=int, default=5)
    parser.add_argument("--sample", action="store_true", help="the sample pair only")
    parser.add_argument("--profile", action="store_true", help="cProfile one rerun")
    args = parser.parse_args(argv)

    import conftest  # noqa: F401  (AppTest reports first charts as the browser does)

    sample = [ROOT / "sample_data" / "poisson_source.csv", ROOT / "sample_data" / "poisson_target.csv"]
    baseline = rerun_times(sample, args.reruns, args.profile and args.sample)
    report = {
        "sample_rerun_ms_median": round(1000 * statistics.median(baseline)),
        "sample_rerun_ms": [round(1000 * t) for t in baseline],
    }
    if not args.sample:
        with tempfile.TemporaryDirectory() as folder:
            paths = make_pair(folder, args.rows, args.features)
            times = rerun_times(paths, args.reruns, args.profile)
            sizes = [p.stat().st_size for p in paths]
        report = {
            "pair_mb": round(sum(sizes) / 2**20, 1),
            "rerun_ms_median": round(1000 * statistics.median(times)),
            "rerun_ms": [round(1000 * t) for t in times],
            **report,
            "large_over_sample": round(statistics.median(times) / statistics.median(baseline), 2),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
