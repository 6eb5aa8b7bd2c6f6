"""The missing-data table (section 4.2.2, Table 3): time per classifier (issue 14).

Requirement: the whole table -- 6 UCI data sets x every available classifier
(S-SVM, S-LR, the skada baselines KMM/SA/TCA/CORAL/OT, FLDA-Q, FLDA-L, T-LR),
hyper-parameters cross-validated on the source -- finishes cold in under
60 s on the 2-core machine, and is instant when cached.

Cold = a fresh process (data loaded and encoded, skada imported, every cell
fitted), the cells written to a temporary disk store as the page does
(:func:`explorer.experiments.paper_tables.stored_cell`).  Cached = the same
table again through a memo of the cells, as the page's ``st.cache_data`` serves
it.  Restart = a new process reading the whole table back from that disk store
(what a restarted server does), timed inside it.  Printed per classifier:
seconds summed over the data sets and the ratio to S-LR measured in the same run.

Run: ``python3 benchmarks/bench_real_data.py [--quick]`` (about a minute;
``--quick``: hepatitis and heart only).

``--paper`` times Tables 5, 7 and 8 instead (the authors' files, the library's protocol):
each pair's first run of the page's default columns (S-LR, FLDA-Q, FLDA-L, T-LR) in a
fresh process and store, the load average before and after, and each table's
reproduction (mean |here − paper| and worst pair of FLDA-Q and FLDA-L).

Results
-------
2026-11-26, 2-core reference machine: the whole Table 3 cold 29 s wall clock and 15 s of
CPU (load average about 7), cached 11 ms; read back from the disk store by a new process
0.15 s against 16.1 s to compute it, 105x (load average 2).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pandas as pd

from explorer.data import uci
from explorer.experiments import paper_tables as pt

LIMIT_S = 60.0
NAMES = pt.classifiers("uci")


def run(keys, fit):
    """Table 3's rows ``keys`` with every classifier, cells from ``fit``."""
    return pt.TableResult("uci", {key: pt.run_pair("uci", key, NAMES, fit=fit) for key in keys})


def paper_tables():
    """Tables 5, 7 and 8 cold, pair by pair (``--paper``)."""
    store = pt.result_store.ResultStore(tempfile.mkdtemp(prefix="flda-bench-store-"))
    print(f"load average before: {os.getloadavg()}")
    for key in ("spam", "imdb", "office_caltech"):

        def cold(*args):
            return pt.stored_cell(*args, store=store)

        print(f"{key}:")
        result = pt.run_table(key, pt.FAST, fit=cold)
        for pair, cells in result.pairs.items():
            seconds = {name: round(cell.seconds, 1) for name, cell in cells.cells.items()}
            print(f"{pair}: {sum(seconds.values()):.1f} s {seconds}")
        with pd.option_context("display.width", 200):
            print(result.reproduction().loc[["FLDA-Q", "FLDA-L"]].round(3).to_string())
    print(f"load average after: {os.getloadavg()}")
    shutil.rmtree(store.directory, ignore_errors=True)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--paper" in argv:
        return paper_tables()
    keys = ("hepatitis", "heart") if "--quick" in argv else tuple(uci.UCI_SETS)
    memo = {}
    folder = tempfile.mkdtemp(prefix="flda-bench-store-")
    store = pt.result_store.ResultStore(folder)

    def remembered(table, key, classifier, seed, impute="zero"):
        if (key, classifier, impute, seed) not in memo:
            memo[(key, classifier, impute, seed)] = pt.stored_cell(
                table, key, classifier, seed, impute, store=store
            )
        return memo[(key, classifier, impute, seed)]

    start = time.perf_counter()
    result = run(keys, remembered)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    run(keys, remembered)
    cached = time.perf_counter() - start

    per = pd.Series(
        {name: sum(cell.seconds for cell in result.cells if cell.classifier == name) for name in NAMES}
    )
    table = pd.DataFrame({"seconds": per.round(2), "x S-LR": (per / per["S-LR"]).round(2)})
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(f"data sets: {', '.join(keys)}")
        print(table.to_string())
        print("\nerrors here:")
        print(result.errors.round(3).to_string())
        print("\nthe paper's Table 3:")
        print(result.paper.round(3).to_string())
    verdict = "OK" if cold < LIMIT_S else "TOO SLOW"
    print(
        f"\ncold: {cold:.1f} s (limit {LIMIT_S:.0f} s: {verdict}); "
        f"cached: {cached * 1000:.1f} ms ({cold / max(cached, 1e-9):,.0f}x faster)"
    )
    try:
        restart = restart_seconds(folder, keys)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"restart (new process, whole table read from the disk store): "
        f"{restart * 1000:.1f} ms ({cold / max(restart, 1e-9):,.0f}x faster than cold)"
    )
    return 0 if cold < LIMIT_S or "--quick" in argv else 1


def restart_seconds(folder, keys):
    """Seconds a new process needs to read the table back from the disk store (imports
    excluded); fails if any cell had to be fitted again."""
    code = (
        "import sys, time\n"
        "from explorer.experiments import paper_tables as pt\n"
        f"store = pt.result_store.ResultStore({folder!r})\n"
        "start = time.perf_counter()\n"
        f"keys = {tuple(keys)!r}\n"
        "cells = [pt.stored_cell('uci', k, n, store=store) for k in keys for n in pt.classifiers('uci')]\n"
        "seconds = time.perf_counter() - start\n"
        "assert all(cell.from_disk for cell in cells), 'refitted'\n"
        "print(seconds)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    sys.exit(main())
