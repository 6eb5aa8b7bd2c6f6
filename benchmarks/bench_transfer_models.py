"""Target errors of FLDA with each transfer model (issue 15).

Prints, for every setting, the target error rate of the source classifier
(S-LR / S-LS), FLDA with the paper's dropout model and with the models of
:mod:`flda_core.transfer_models` ("two-sided", "rate", "imputation"), and
the oracle trained on labelled target data (T-LR / T-LS).  A model that does
not apply to a setting is left out and said so.

1. Handwritten digits, offline domains (``make_offline_domains``), both
   directions: A -> B mirrors the paper's U -> M, B -> A its M -> U, where
   dropout cannot make the frame's ink appear.  FLDA-L; ``l2`` chosen by
   3-fold cross-validation on the source (the transfer parameters, estimated
   from all source and target images, stay fixed in the folds, as on the
   Digits page); T-LR's error is 3-fold cross-validated on the target.
2. The two synthetic presets of ``flda_core.synthetic``: features
   that appear in the target (``make_appearance_domains``) and a count-rate
   change (``make_rate_domains``); mean over seeds, no penalty, both losses;
   the oracle is fitted and scored on the target (4 or 2 features, 10,000
   samples: no visible overfitting).
3. Missing data at test time (section 4.2.2, Table 3) on UCI data sets in
   ``/work/shared/data/uci`` (or ``$FLDA_UCI_DIR``): source = rows without a
   gap, target = rows with one; numeric columns min-max scaled to [0, 1] on
   the source.  "zeros": gaps set to 0 (the paper's protocol) for S-*, dropout
   and two-sided; "mean": gaps set to the source mean for S-* (plain mean
   imputation); "imputation": FLDA with gaps kept as NaN.  ``l2`` by 5-fold
   cross-validation on the source; T-* by 5-fold cross-validation on the
   mean-filled target (``explorer.experiments.transfer_models``).

Run: ``python3 benchmarks/bench_transfer_models.py`` (``--quick``: fewer
seeds and data sets).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pandas as pd
from threadpoolctl import threadpool_limits

from explorer.data import digits as dg
from flda_core.synthetic import make_appearance_domains, make_rate_domains
from explorer.experiments.transfer_models import compare_missing_data, compare_transfer_models

UCI_DIR = pathlib.Path(os.environ.get("FLDA_UCI_DIR", "/work/shared/data/uci"))
#: data set -> (label column, columns that are not features)
UCI_SETS = {
    "hepatitis": ("class", ()),
    "heart": ("class", ("site",)),
    "mammographic": ("severity", ()),
    "ozone": ("class", ("date",)),
}
TRANSFERS = ("dropout", "two-sided", "rate")


def digits_tables():
    data = dg.make_offline_domains(random_state=0)
    for direction, paper in data.paper_rows.items():
        Xs, ys, Xt, yt = dg.direction_data(data, direction)
        yield compare_transfer_models(
            Xs, ys, Xt, yt, TRANSFERS, ("logistic",), n_folds=3, setting=f"digits {direction} (like {paper})"
        )


def synthetic_tables(quick=False):
    seeds = range(2 if quick else 5)
    for name, make in (("appearance preset", make_appearance_domains), ("rate preset", make_rate_domains)):
        runs = [
            compare_transfer_models(
                d.X_source, d.y_source, d.X_target, d.y_target, TRANSFERS, ("logistic", "quadratic"), l2=0.0
            )
            for d in (make(n_source=10_000, n_target=10_000, random_state=s) for s in seeds)
        ]
        mean = pd.concat(runs).groupby("method", sort=False)["target_error"].mean()
        yield pd.DataFrame(
            {
                "setting": f"{name} (mean of {len(seeds)} seeds, l2 = 0)",
                "method": mean.index,
                "target_error": mean.to_numpy(),
            }
        )


def load_uci(name):
    """Features (float, NaN = gap) and labels of one UCI data set, numeric columns only."""
    label, drop = UCI_SETS[name]
    table = pd.read_csv(UCI_DIR / f"{name}.csv")
    y = table[label].astype(str).to_numpy()
    features = table.drop(columns=[label, *drop]).select_dtypes(include="number")
    return features.to_numpy(dtype=np.float64), y


def uci_tables(quick=False):
    for name in ("hepatitis", "heart") if quick else UCI_SETS:
        path = UCI_DIR / f"{name}.csv"
        if not path.exists():
            print(f"(skipped {name}: {path} not found; set FLDA_UCI_DIR)")
            continue
        X, y = load_uci(name)
        gaps = np.isnan(X).any(axis=1)
        setting = (
            f"{name} ({int((~gaps).sum())} complete -> {int(gaps.sum())} with gaps, {X.shape[1]} features)"
        )
        yield compare_missing_data(X, y, n_folds=5, setting=setting)


def print_table(table):
    for setting, group in table.groupby("setting", sort=False):
        print(f"\n{setting}")
        best = group["target_error"].min()
        for _, row in group.iterrows():
            mark = "  <- lowest" if row["target_error"] == best else ""
            print(f"  {row['method']:<34s} {row['target_error']:.3f}{mark}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and data sets")
    args = parser.parse_args(argv)
    print("Target error rates per transfer model (lower is better).")
    with threadpool_limits(limits=1, user_api="blas"):
        for tables in (synthetic_tables(args.quick), digits_tables(), uci_tables(args.quick)):
            for table in tables:
                print_table(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
