"""Benchmark of the numerical core (issue: flda_core performance).

Prints, measured in the same run on the same data:

* FLDA-L fit time / scikit-learn ``LogisticRegression(solver="lbfgs")`` fit
  time with the same ridge strength (``C = 1 / (2 * l2 * n)``), on (a) dense
  10,000 x 256 counts with 10 classes and (b) sparse 20,000 x 30,000 binary
  bag-of-words at 1 % density with 2 classes, at three tolerance settings:
  the same tolerance 1e-4 (goal: at most 2x), the same tolerance 1e-6, and
  each side's default (FLDA-L ``FLDAClassifier().tol``, scikit-learn 1e-4) --
  what a user sees.  Both stop when the largest gradient component is below
  ``tol`` (see ``flda_core.solvers.solve_logistic``), so "the same tolerance"
  is the same stopping test, and ``benchmarks/bench_tolerance.py`` shows why
  FLDA-L's default is tighter than scikit-learn's.
* FLDA-Q on (b): wall time and peak memory of the fit (tracemalloc).
  Goals: under 5 s and under 2 GB.

Run: ``python3 benchmarks/bench_core.py`` (add ``--quick`` for smaller data).

Results
-------
The latest figures, on the 2-core reference machine (load average not recorded):

=================================================  ==========  ===================================
FLDA-L / ``LogisticRegression`` fit time            date        result
=================================================  ==========  ===================================
dense, each side's default ``tol`` (1e-6 / 1e-4)   2026-11-26  8.2x single-threaded LR (loaded)
dense, same ``tol`` 1e-4 / 1e-6                    2026-11-26  1.9x / 2.4x single-threaded LR
sparse, each side's default ``tol``                 2026-11-26  4.3x single-threaded LR (loaded)
sparse, same ``tol`` 1e-4 / 1e-6                   2026-11-26  2.7x / 2.2x single-threaded LR
FLDA-Q on the sparse problem                       2026-11-25  1.7 s, 140 MiB peak (CG, 89 iter.)
=================================================  ==========  ===================================
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from flda_core.classifier import FLDAClassifier
from flda_core.transfer import apply_dropout


def dense_problem(n=10_000, m=256, n_classes=10, seed=0):
    """Count data with class-specific rates; target drops the first half of the
    features with probabilities up to 0.95 (some features become nearly absent)."""
    rng = np.random.default_rng(seed)
    rates = rng.gamma(1.0, 1.0, size=(n_classes, m))
    y = rng.integers(n_classes, size=n)
    X = rng.poisson(rates[y]).astype(float)
    theta = np.zeros(m)
    theta[: m // 2] = rng.uniform(0.0, 0.95, m // 2)
    X_target = apply_dropout(rng.poisson(rates[rng.integers(n_classes, size=n)]).astype(float), theta, rng)
    return X, y, X_target


def sparse_problem(n=20_000, m=30_000, density=0.01, seed=0):
    """Binary bag-of-words; the label depends on a few hundred words; the target
    domain drops a third of the vocabulary with probabilities up to 0.9."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, m, density=density, format="csr", random_state=rng, dtype=np.float64)
    X.data[:] = 1.0
    w_true = np.zeros(m)
    informative = rng.choice(m, 500, replace=False)
    w_true[informative] = rng.normal(0, 1.0, 500)
    score = X @ w_true
    y = (score + rng.normal(0, 0.5, n) > np.median(score)).astype(int)
    X_t = sp.random(n, m, density=density, format="csr", random_state=rng, dtype=np.float64)
    X_t.data[:] = 1.0
    theta = np.zeros(m)
    dropped = rng.choice(m, m // 3, replace=False)
    theta[dropped] = rng.uniform(0.0, 0.9, dropped.size)
    keep = rng.random(X_t.nnz) >= theta[X_t.indices]
    X_t.data = np.where(keep, X_t.data, 0.0)
    X_t.eliminate_zeros()
    return X, y, X_t


def best_of(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def compare_logistic(name, X, y, X_target, l2, tol, repeats, tol_lr=None):
    """FLDA-L fit time over LogisticRegression fit time, LR timed twice: with
    its default BLAS threads (what a user gets) and with one BLAS thread (the
    setting FLDA-L's dense solver uses internally, see solvers.solve_logistic).
    ``tol`` is FLDA-L's tolerance, ``tol_lr`` LogisticRegression's (default: the same)."""
    n = X.shape[0]
    tol_lr = tol if tol_lr is None else tol_lr

    def fit_lr():
        return LogisticRegression(C=1 / (2 * l2 * n), tol=tol_lr, max_iter=10_000).fit(X, y)

    def fit_lr_one_thread():
        with threadpool_limits(limits=1, user_api="blas"):
            return fit_lr()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t_sk, sk = best_of(fit_lr, repeats)
        t_sk1, _ = best_of(fit_lr_one_thread, repeats)
        flda = FLDAClassifier(loss="logistic", l2=l2, tol=tol, max_iter=10_000)
        t_fl, fl = best_of(lambda: flda.fit(X, y, X_target=X_target), repeats)
    print(
        f"{name} [FLDA-L tol {tol:g}, LR tol {tol_lr:g}]: "
        f"LogisticRegression {t_sk:6.3f} s ({sk.n_iter_.max()} it; "
        f"{t_sk1:6.3f} s with 1 BLAS thread) | FLDA-L {t_fl:6.3f} s ({fl.n_iter_} it) | "
        f"ratio FLDA-L/LR = {t_fl / t_sk:4.2f}x ({t_fl / t_sk1:4.2f}x vs 1 thread; goal <= 2x); "
        f"mean theta = {fl.theta_.mean():.3f}"
    )
    return t_fl / t_sk


def flda_q_time_and_memory(X, y, X_target, l2):
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    clf = FLDAClassifier(loss="quadratic", l2=l2, tol=1e-6).fit(X, y, X_target=X_target)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"FLDA-Q on (b): {elapsed:6.2f} s (goal < 5 s), peak memory {peak / 2**20:7.1f} MiB "
        f"(goal < 2048 MiB), solver={clf.solver_}, iterations={clf.n_iter_}"
    )
    return elapsed, peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller problems")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    scale = 5 if args.quick else 1
    # (FLDA-L tol, LogisticRegression tol): the same 1e-4, the same 1e-6, each default.
    settings = ((1e-4, 1e-4), (1e-6, 1e-6), (FLDAClassifier().tol, LogisticRegression().get_params()["tol"]))
    X, y, X_t = dense_problem(n=10_000 // scale)
    for tol, tol_lr in settings:
        compare_logistic(
            "(a) dense 10,000 x 256, 10 classes",
            X,
            y,
            X_t,
            l2=1e-4,
            tol=tol,
            repeats=args.repeats,
            tol_lr=tol_lr,
        )
    X, y, X_t = sparse_problem(n=20_000 // scale, m=30_000 // scale)
    for tol, tol_lr in settings:
        compare_logistic(
            "(b) sparse 20,000 x 30,000 (1%), 2 classes",
            X,
            y,
            X_t,
            l2=1e-4,
            tol=tol,
            repeats=args.repeats,
            tol_lr=tol_lr,
        )
    flda_q_time_and_memory(X, y, X_t, l2=1e-4)


if __name__ == "__main__":
    main()
