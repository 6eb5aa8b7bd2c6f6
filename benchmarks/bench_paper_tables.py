"""The paper's Tables 5, 7 and 8: each pair's search time against LogisticRegression's.

For every pair of Office-Caltech (Table 5), IMDB (Table 7) and spam (Table 8), the
protocol of ``tests/library/test_paper_tables.py`` (``flda_core.paper_data``: the
authors' files divided by their largest count, two stratified source folds, λ from
1e-3 to 1e5 on the summed loss) is run three times side by side, on the same folds
and the same grid:

* FLDA-Q and FLDA-L: ``FLDAClassifierCV(l2s=paper_l2s(n))`` (the search and the
  refit);
* S-LR: ``GridSearchCV`` over scikit-learn's ``LogisticRegression(solver="lbfgs")``
  with ``C = 1 / (2 l2 n_train)`` (the same objective: mean loss + ``l2 ||W||²``,
  intercept free), then the refit at the chosen ``l2``.

FLDA-L and LogisticRegression stop at the same tolerance (``--tol``, default 1e-4,
scikit-learn's default; both test the largest gradient component); FLDA-Q runs at its
default. Everything runs with one BLAS thread (FLDA-L's default; on a shared 2-core
machine more threads make BLAS times erratic). The run prints each pair's seconds,
the ratios FLDA-Q/LR and FLDA-L/LR (goal: at most 1.0), the target errors beside the
paper's, whether the data stayed sparse, and the load average before and after.

``--profile T8:S→M`` (any pair) prints where a single FLDA-L and FLDA-Q fit spend
their time (cProfile, top 12 by own time) instead.

Run: ``python3 benchmarks/bench_paper_tables.py`` (``--tables "Table 8"`` for one).

Results
-------
One run on the shared 2-core machine, scikit-learn 1.9.1, numpy 2.4.6, scipy 1.17.1
(load average before and after in the last line); ratios per pair, seconds summed
per table:

(filled in from the run below)
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "library"))

from test_paper_tables import PAPER  # noqa: E402 (the paper's numbers, typed once)

from flda_core import FLDAClassifier, FLDAClassifierCV, load_paper_domains, paper_l2s  # noqa: E402
from flda_core.paper_data import PAPER_FILES  # noqa: E402

DATA = ROOT / "sample_data" / "paper"


class RidgeLogistic(ClassifierMixin, BaseEstimator):
    """``LogisticRegression`` with FLDA's penalty: ``l2`` on the mean loss, so that
    ``C = 1 / (2 l2 n)`` follows each fold's ``n`` as FLDA's ``l2`` does."""

    def __init__(self, l2=1e-4, tol=1e-4):
        self.l2 = l2
        self.tol = tol

    def fit(self, X, y):
        C = 1.0 / (2.0 * self.l2 * X.shape[0])
        self.model_ = LogisticRegression(C=C, tol=self.tol, max_iter=10_000).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _folds():
    return StratifiedKFold(2, shuffle=True, random_state=0)


def _search_flda(loss, X, y, X_target, tol):
    return FLDAClassifierCV(loss=loss, l2s=paper_l2s(X.shape[0]), cv=_folds(), tol=tol).fit(
        X, y, X_target=X_target
    )


def _search_lr(X, y, tol):
    search = GridSearchCV(
        RidgeLogistic(tol=tol), {"l2": list(paper_l2s(X.shape[0]))}, cv=_folds(), refit=True
    )
    return search.fit(X, y)


def _timed(fit, repeats=1):
    """Best wall time of ``repeats`` runs, and the model of the last."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - start)
    return best, model


def warm_up(domains, tol):
    """One small search of each kind first: the first fit of a process pays for imports
    and first-use set-up (LogisticRegression's first sparse fit took 1.06 s, the next 0.15 s)."""
    (X, y), (X_target, _) = next(iter(domains.values())), list(domains.values())[-1]
    rows = np.arange(0, X.shape[0], max(1, X.shape[0] // 200))  # both classes
    for loss in ("quadratic", "logistic"):
        _search_flda(loss, X[rows], y[rows], X_target, tol)
    _search_lr(X[rows], y[rows], tol)


def run_pair(table, pair, domains, tol, repeats):
    """Seconds (best of ``repeats``) and target errors of the three searches on one pair."""
    (X, y), (X_target, y_target) = domains[pair[0]], domains[pair[-1]]
    t_q, q = _timed(lambda: _search_flda("quadratic", X, y, X_target, 1e-6), repeats)
    t_l, lo = _timed(lambda: _search_flda("logistic", X, y, X_target, tol), repeats)
    t_lr, lr = _timed(lambda: _search_lr(X, y, tol), repeats)
    paper_q, paper_l = PAPER[table][pair]
    return {
        "pair": pair,
        "sparse": sp.issparse(X) and sp.issparse(X_target),
        "seconds": (t_q, t_l, t_lr),
        "errors": tuple(float(np.mean(m.predict(X_target) != y_target)) for m in (q, lo, lr)),
        "paper": (paper_q, paper_l),
    }


def run_tables(tables, tol, repeats):
    rows = []
    for table in tables:
        domains = load_paper_domains(DATA / PAPER_FILES[table])
        warm_up(domains, tol)
        for pair in PAPER[table]:
            row = run_pair(table, pair, domains, tol, repeats)
            row["table"] = table
            rows.append(row)
            t_q, t_l, t_lr = row["seconds"]
            e_q, e_l, e_lr = row["errors"]
            print(
                f"{table} {pair}  sparse={row['sparse']!s:5}  FLDA-Q {t_q:6.2f} s ({t_q / t_lr:4.2f}x)  "
                f"FLDA-L {t_l:6.2f} s ({t_l / t_lr:4.2f}x)  LR {t_lr:6.2f} s  |  target error "
                f"FLDA-Q {e_q:.3f} (paper {row['paper'][0]:.3f})  FLDA-L {e_l:.3f} "
                f"(paper {row['paper'][1]:.3f})  S-LR {e_lr:.3f}",
                flush=True,
            )
    return rows


def summarise(rows):
    print("\ntable    pairs  FLDA-Q s  FLDA-L s  LR s    worst FLDA-Q/LR  worst FLDA-L/LR")
    for table in dict.fromkeys(r["table"] for r in rows):
        mine = [r for r in rows if r["table"] == table]
        seconds = np.sum([r["seconds"] for r in mine], axis=0)
        ratio_q = max(r["seconds"][0] / r["seconds"][2] for r in mine)
        ratio_l = max(r["seconds"][1] / r["seconds"][2] for r in mine)
        print(
            f"{table}  {len(mine):5d}  {seconds[0]:8.1f}  {seconds[1]:8.1f}  {seconds[2]:6.1f}  "
            f"{ratio_q:15.2f}  {ratio_l:15.2f}"
        )


def profile(spec, tol):
    """cProfile of one FLDA-L and one FLDA-Q fit (the protocol's weakest penalty)."""
    label, pair = spec.split(":")
    table = {"T5": "Table 5", "T7": "Table 7", "T8": "Table 8"}[label]
    domains = load_paper_domains(DATA / PAPER_FILES[table])
    (X, y), (X_target, _) = domains[pair[0]], domains[pair[-1]]
    for loss, loss_tol in (("logistic", tol), ("quadratic", 1e-6)):
        model = FLDAClassifier(loss=loss, l2=paper_l2s(X.shape[0])[0], tol=loss_tol)
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.runcall(model.fit, X, y, X_target=X_target)
        print(f"\n{table} {pair} {loss}: {time.perf_counter() - start:.2f} s, {model.n_iter_} iterations")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="Table 5,Table 7,Table 8")
    parser.add_argument("--tol", type=float, default=1e-4, help="FLDA-L's and LogisticRegression's tolerance")
    parser.add_argument("--repeats", type=int, default=2, help="best of this many runs per search")
    parser.add_argument("--profile", help='one pair, e.g. "T8:S→M"')
    args = parser.parse_args(argv)
    before = os.getloadavg()
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", "FLDAClassifierCV chose", UserWarning)
        if args.profile:
            profile(args.profile, args.tol)
        else:
            summarise(run_tables([t.strip() for t in args.tables.split(",")], args.tol, args.repeats))
    after = os.getloadavg()
    print(f"\nload average before {before[0]:.2f} {before[1]:.2f}, after {after[0]:.2f} {after[1]:.2f}")


if __name__ == "__main__":
    main()
