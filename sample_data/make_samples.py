"""Regenerate the sample CSVs of the "Your data" page, byte for byte.

Run ``python3 sample_data/make_samples.py`` (or ``main(out_dir)`` from Python).
Every file is drawn with a fixed seed, so running the script again reproduces
the committed files exactly (a test checks this).

Files
-----
poisson_source.csv, poisson_target.csv, poisson_target_unlabelled.csv
    Synthetic word counts: 10 words, classes ``ham``/``spam``, Poisson
    class-conditionals (as in the paper's Figures 2-4) and a target made by the
    dropout transfer model (section 3.3.1) with 5 words dropped out with
    probabilities 0.3-0.8.  400 samples per domain.
breast_cancer_source.csv, breast_cancer_target.csv
    "Missing data at test time" (section 4.2.2) built from scikit-learn's
    Wisconsin breast cancer data: 60 % of the rows, complete, are the source;
    the other 40 % are the target, in which measurements are knocked out (empty
    cells): each "worst" feature with probability 0.6, each "mean" feature with
    0.3 and each "error" feature with 0.15, as if sensors had failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from flda_core.synthetic import make_poisson_domains  # noqa: E402
from explorer.data.tabular import SAMPLE_SETS  # noqa: E402

#: Fixed seeds: never change them, or the committed files change.
POISSON_SEED = 2016
BREAST_CANCER_SEED = 4_2_2

POISSON_WORDS = ("free", "win", "prize", "call", "offer", "urgent", "meeting", "report", "lunch", "thanks")
#: Poisson rates per class (rows: ham, spam) and word.
POISSON_RATES = (
    (0.3, 0.2, 0.1, 1.0, 0.3, 0.2, 1.5, 1.2, 0.8, 1.0),
    (2.0, 1.5, 1.0, 2.0, 1.5, 1.0, 0.3, 0.2, 0.3, 0.5),
)
#: True dropout probability per word in the target domain.
POISSON_THETA = (0.8, 0.7, 0.6, 0.0, 0.5, 0.0, 0.0, 0.3, 0.0, 0.0)
POISSON_CLASSES = ("ham", "spam")
POISSON_SAMPLES = 400

BREAST_CANCER_TARGET_FRACTION = 0.4
#: Probability that a measurement is missing in a target row, by feature group.
BREAST_CANCER_MISSING = {"mean": 0.3, "error": 0.15, "worst": 0.6}


def poisson_frames(seed=POISSON_SEED):
    """Source and (labelled) target data frames of the synthetic word-count pair."""
    pair = make_poisson_domains(
        n_source=POISSON_SAMPLES,
        n_target=POISSON_SAMPLES,
        rates=POISSON_RATES,
        theta=POISSON_THETA,
        random_state=seed,
    )
    frames = []
    for X, y in ((pair.X_source, pair.y_source), (pair.X_target, pair.y_target)):
        # Dropout rescales survivors by 1/(1-theta); keep 4 decimals in the file.
        frame = pd.DataFrame(np.round(X, 4), columns=list(POISSON_WORDS))
        frame["label"] = [POISSON_CLASSES[k] for k in y]
        frames.append(frame)
    return frames[0], frames[1]


def breast_cancer_frames(seed=BREAST_CANCER_SEED):
    """Complete source rows and target rows with knocked-out measurements."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    rng = np.random.default_rng(seed)
    order = rng.permutation(data.data.shape[0])
    n_target = int(round(BREAST_CANCER_TARGET_FRACTION * len(order)))
    target_rows, source_rows = np.sort(order[:n_target]), np.sort(order[n_target:])
    names = [str(n) for n in data.feature_names]
    p_missing = np.array(
        [
            BREAST_CANCER_MISSING["worst"]
            if n.startswith("worst")
            else BREAST_CANCER_MISSING["error"]
            if n.endswith("error")
            else BREAST_CANCER_MISSING["mean"]
            for n in names
        ]
    )
    diagnosis = np.asarray(data.target_names)[data.target]
    source = pd.DataFrame(data.data[source_rows], columns=names)
    source["diagnosis"] = diagnosis[source_rows]
    X_target = data.data[target_rows].copy()
    X_target[rng.random(X_target.shape) < p_missing] = np.nan
    target = pd.DataFrame(X_target, columns=names)
    target["diagnosis"] = diagnosis[target_rows]
    return source, target


def write_csv(frame, path):
    """Write ``frame`` with a fixed, platform-independent format (LF line ends)."""
    path.write_bytes(frame.to_csv(index=False, lineterminator="\n", float_format="%.10g").encode("utf-8"))


def main(out_dir=HERE):
    """Write every sample CSV into ``out_dir`` and return the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    poisson_source, poisson_target = poisson_frames()
    cancer_source, cancer_target = breast_cancer_frames()
    files = {
        SAMPLE_SETS["poisson"].source_file: poisson_source,
        SAMPLE_SETS["poisson"].target_file: poisson_target,
        SAMPLE_SETS["poisson_unlabelled"].target_file: poisson_target.drop(columns="label"),
        SAMPLE_SETS["breast_cancer"].source_file: cancer_source,
        SAMPLE_SETS["breast_cancer"].target_file: cancer_target,
    }
    written = []
    for name, frame in files.items():
        write_csv(frame, out_dir / name)
        written.append(out_dir / name)
    return written


if __name__ == "__main__":
    for path in main():
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
