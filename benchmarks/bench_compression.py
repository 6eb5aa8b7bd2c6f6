"""Benchmark: the synthetic pages' fits on distinct rows (issue 13, browser latency).

The synthetic domains of section 4.1 are lattice data: two Bernoulli features
have at most 4 distinct rows per class, Poisson(2/6) a few hundred.
``explorer.experiments.synthetic.fit_linear`` fits on the distinct rows with
their counts as ``sample_weight`` (the same objective), and this benchmark
prints, measured in the same run on the same data:

* for the Figure 1 (Bernoulli) and Figure 2 (Poisson) settings at 10,000 and
  100,000 samples per domain: the time of ``fit_linear`` per classifier
  (S-LS, T-LS, FLDA-Q, S-LR, T-LR, FLDA-L) uncompressed (the baseline,
  ``compress=False``) and compressed (the default), their ratio, and the
  largest coefficient difference between the two, and the sum over the six
  (what the Synthetic domains page fits for one new θ or data setting);
* the Transfer page's "Table 1 / Figure 4" preset
  (``run_perturbation`` on the Table 1 setting: perturbations +0..+0.3, the
  error curve over -0.5..0.5 in steps of 0.05, no ridge) with every fit cold
  as the page runs it (one cached ``fit_linear`` per classifier), before
  (uncompressed) and after (compressed), and the ratio.

Each time is the median of ``--repeats`` runs (default 5; 3 with ``--quick``,
which also skips the 100,000-sample sweep).

Run: ``python3 benchmarks/bench_compression.py [--quick] [--repeats N]``.

Results
-------
2026-11-26, 2-core reference machine, load average 5-6, 100,000 samples per domain:
one FLDA-L fit 7-8 ms compressed against 100-190 ms; the six classifiers of a Synthetic
run 27-30 ms against 315-557 ms; Table 1's 45-fit sweep 0.20 s against 4.4 s (10,000 per
domain: 0.09 s against 0.32 s).  Coefficients equal to 1e-14, errors identical.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from flda_core.synthetic import make_domains
from explorer.experiments.perturbation import PAPER_PERTURBATIONS, PAPER_TABLE1, run_perturbation
from explorer.experiments.synthetic import PAPER_FIGURE1, PAPER_FIGURE2, distinct_rows, fit_linear
from explorer.names import FAMILIES, LOSSES, classifier_name


def median_time(func, repeats):
    """Median wall time of ``func()`` over ``repeats`` calls (after one warm-up call)."""
    result = func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def _pair(setting, n):
    return make_domains(setting.distribution, setting.params, n, n, setting.theta, random_state=0)


def bench_fits(setting, n, repeats):
    pair = _pair(setting, n)
    n_rows = len(distinct_rows(pair.X_source, pair.y_source)[2])
    print(f"\n{setting.label}, {n:,} samples per domain ({n_rows} distinct source rows)")
    print(f"{'classifier':<10}{'full ms':>10}{'distinct ms':>13}{'ratio':>9}{'max |dcoef|':>14}")
    totals = np.zeros(2)
    for loss in LOSSES:
        for family in FAMILIES:
            full_s, full = median_time(
                lambda family=family, loss=loss: fit_linear(pair, family, loss, compress=False), repeats
            )
            fast_s, fast = median_time(
                lambda family=family, loss=loss: fit_linear(pair, family, loss), repeats
            )
            totals += full_s, fast_s
            print(
                f"{classifier_name(family, loss):<10}{full_s * 1e3:>10.1f}"
                f"{fast_s * 1e3:>13.1f}{fast_s / full_s:>9.3f}"
                f"{np.abs(fast.coef - full.coef).max():>14.1e}"
            )
    print(
        f"{'all six':<10}{totals[0] * 1e3:>10.1f}{totals[1] * 1e3:>13.1f}"
        f"{totals[1] / totals[0]:>9.3f}   (the fits of one Synthetic-domains page run)"
    )


def bench_table1(n, repeats):
    pair = _pair(PAPER_TABLE1, n)

    def sweep(compress):
        def fit(family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
            return fit_linear(
                pair,
                family,
                loss,
                l2=l2,
                theta=theta,
                perturbation=perturbation,
                transfer=transfer,
                compress=compress,
            )

        return run_perturbation(pair, 0, PAPER_PERTURBATIONS, (-0.5, 0.5), 0.0, fit=fit)

    before, slow = median_time(lambda: sweep(False), repeats)
    after, fast = median_time(lambda: sweep(None), repeats)
    n_fits = len(slow.sweep) + len(slow.naive.classifiers) + 1
    same = all(a.target_error == b.target_error for a, b in zip(slow.sweep, fast.sweep))
    print(
        f"\nTable 1 preset (run_perturbation, {n:,} per domain, {n_fits} cold fits): "
        f"before {before:.3f} s, after {after:.3f} s, ratio {after / before:.3f} "
        f"(target errors identical: {same})"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats and no 100,000-sample Table 1 sweep")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 5)
    for n in (10_000, 100_000):
        for setting in (PAPER_FIGURE1, PAPER_FIGURE2):
            bench_fits(setting, n, repeats)
    for n in (10_000,) if args.quick else (10_000, 100_000):
        bench_table1(n, repeats if n < 100_000 else max(1, repeats // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
