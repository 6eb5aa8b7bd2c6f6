"""Your data: server seconds of a trivial rerun with a large uploaded pair (issue 26).

A rerun that changes no data (the "Features shown in the charts" slider) should cost
about the same with a 45 MB pair as with the sample pair.  This runs the page through
``AppTest`` (``app.py``, the page's real uploaders), loads the pair, lets the first
run fit everything, then times ``--reruns`` slider moves and prints the median ms per
rerun; ``--profile`` prints the top of a cProfile of one rerun.  The large pair is
generated (seeded) into a temporary folder: ``--rows`` x ``--features`` random values
with 4 decimals, 10 % zeros in the source and 40 % in the target (about 26 + 20 MB
with the defaults).  ``--sample`` uses the sample pair instead.

Run: ``python3 benchmarks/bench_your_data.py [--sample] [--reruns 5] [--profile]``.
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--reruns", type=int, default=5)
    parser.add_argument("--sample", action="store_true", help="the sample pair instead")
    parser.add_argument("--profile", action="store_true", help="cProfile one rerun")
    args = parser.parse_args(argv)

    import conftest  # noqa: F401  (AppTest reports first charts as the browser does)
    from apptest_support import open_page

    with tempfile.TemporaryDirectory() as folder:
        if args.sample:
            paths = [ROOT / "sample_data" / "poisson_source.csv",
                     ROOT / "sample_data" / "poisson_target.csv"]
        else:
            paths = make_pair(folder, args.rows, args.features)
        at = open_page("pages/your_data.py", timeout=1800)
        at.reports_chart_draws = True
        for index, path in enumerate(paths):
            at.file_uploader[index].set_value((path.name, path.read_bytes(), "text/csv"))
            at.run()
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        slider = next(s for s in at.slider if s.label.startswith("Features shown"))
        times = []
        for i in range(args.reruns):
            value = 10 + i % 2
            start = time.perf_counter()
            if args.profile and i == args.reruns - 1:
                # AppTest runs the script in a new thread: profile that thread.
                profile = cProfile.Profile()

                def start_profile(*_, profile=profile):
                    sys.setprofile(None)
                    profile.enable()

                threading.setprofile(start_profile)
                at.slider(key=slider.key).set_value(value).run()
                threading.setprofile(None)
            else:
                at.slider(key=slider.key).set_value(value).run()
            times.append(time.perf_counter() - start)
            assert not at.exception, at.exception
        if args.profile:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        sizes = [p.stat().st_size for p in paths]
    print(json.dumps({"pair_mb": round(sum(sizes) / 2**20, 1),
                      "rerun_ms_median": round(1000 * statistics.median(times)),
                      "rerun_ms": [round(1000 * t) for t in times]}))


if __name__ == "__main__":
    main()
