"""Benchmark of the learning-curve experiment (issue: learning curves, section 4.1.2).

Goal: the paper's default setting of Figure 3 -- four sets of 10,000 Poisson
samples, 15 log-spaced sizes from 2 to 10,000, 50 repeats, S-LS / T-LS /
FLDA-Q, errors on both validation sets -- in under 5 s on a 2-core machine.

Prints, measured in the same run:

* the batched closed form (:func:`explorer.experiments.learning_curves.quadratic_learning_errors`),
  median of 5 runs, with and without drawing the data;
* the baseline it replaces: one ``FLDAClassifier(loss="quadratic")`` fit and
  two validation scorings per (classifier, size, repeat), timed on a few
  repeats and scaled to 50 (``--full-baseline`` times all 50), and the
  speed-up ratio.

Run: ``python3 benchmarks/bench_learning_curves.py``.

Results
-------
2026-11-26, 2-core reference machine, loaded by other work (load average not recorded):
the paper's setting takes 0.20 s median (the batched closed form; 0.29 s before its
prefix sums shared one Gram matrix).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from flda_core.classifier import FLDAClassifier
from explorer.experiments.scoring import TIE_RTOL
from explorer.experiments.learning_curves import (
    DOMAINS,
    make_learning_curve_data,
    quadratic_learning_errors,
    sample_size_grid,
    training_orders,
)

N_REPEATS = 50
GOAL_SECONDS = 5.0


def timed(func, *args, **kwargs):
    start = time.perf_counter()
    out = func(*args, **kwargs)
    return time.perf_counter() - start, out


def batched_run(seed=0):
    data = make_learning_curve_data(seed=seed)
    return quadratic_learning_errors(data, sample_size_grid(), range(N_REPEATS), seed=seed)


def baseline_errors(data, sizes, repeats, seed=0):
    """The straightforward loop: one estimator fit per (classifier, size, repeat)."""
    so, to = training_orders(data, repeats, seed)
    errors = np.empty((3, 2, len(repeats), len(sizes)))
    for r in range(len(repeats)):
        for g, n in enumerate(sizes):
            Xs, ys = data.X_source_train[so[r, :n]], data.y_source_train[so[r, :n]]
            Xt, yt = data.X_target_train[to[r, :n]], data.y_target_train[to[r, :n]]
            for f, (X, y, Xu) in enumerate(((Xs, ys, None), (Xt, yt, None), (Xs, ys, Xt))):
                clf = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xu)
                for d, domain in enumerate(DOMAINS):
                    X_val, y_val = data.validation(domain)
                    # predict(), with the batched code's tie rule for lattice points
                    scale = np.abs(X_val) @ np.abs(clf.coef_[0]) + abs(clf.intercept_[0])
                    predicted = clf.decision_function(X_val) > TIE_RTOL * scale
                    errors[f, d, r, g] = np.mean(predicted != (y_val == 1))
    return errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full-baseline", action="store_true", help="time the baseline loop on all 50 repeats (slow)"
    )
    args = parser.parse_args(argv)

    sizes = sample_size_grid()
    print(
        f"Figure 3 setting: 4 x 10,000 Poisson samples, {len(sizes)} sizes "
        f"({sizes[0]}..{sizes[-1]}), {N_REPEATS} repeats, 3 classifiers x 2 domains"
    )
    batched_run()  # warm-up (imports, caches)
    total = [timed(batched_run)[0] for _ in range(5)]
    data = make_learning_curve_data(seed=0)
    curves_only = [
        timed(quadratic_learning_errors, data, sizes, range(N_REPEATS), seed=0)[0] for _ in range(5)
    ]
    median_total, median_curves = statistics.median(total), statistics.median(curves_only)
    print(
        f"batched closed form, data + curves: median of 5 = {median_total:.3f} s "
        f"(runs: {', '.join(f'{t:.3f}' for t in total)})"
    )
    print(f"batched closed form, curves only:   median of 5 = {median_curves:.3f} s")
    print(f"goal < {GOAL_SECONDS:.0f} s: {'met' if median_total < GOAL_SECONDS else 'MISSED'}")

    n_base = N_REPEATS if args.full_baseline else 3
    t_base, base = timed(baseline_errors, data, sizes, range(n_base))
    batched = quadratic_learning_errors(data, sizes, range(n_base), seed=0)
    agree = np.mean(base == batched)
    t_base_50 = t_base * N_REPEATS / n_base
    label = "measured" if args.full_baseline else f"{t_base:.2f} s for {n_base} repeats, scaled"
    print(f"baseline (FLDAClassifier per fit), {N_REPEATS} repeats: {t_base_50:.2f} s ({label})")
    print(
        f"speed-up of the batched form over the baseline: {t_base_50 / median_curves:.0f}x; "
        f"identical error rates in {100 * agree:.2f} % of the {base.size} cells"
    )


if __name__ == "__main__":
    main()
