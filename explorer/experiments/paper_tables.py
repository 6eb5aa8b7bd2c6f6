"""The paper's benchmark tables (Tables 5-9, sections 4.2.4-4.2.7), pair by pair.

The protocol is the paper's (section 4.2.1: hyper-parameters by cross-validation on the
source) with the grid and folds of the authors' scripts, in a reader's words in
:data:`PROTOCOL`.  S-LR, FLDA-Q and FLDA-L are :class:`flda_core.FLDAClassifierCV` on the
data as :mod:`explorer.data.benchmarks` gives them (IMDB and spam sparse throughout); the
skada baselines (:mod:`explorer.experiments.baselines`) are fitted on bounded dense samples,
one at a time per process (:data:`BASELINE_SLOTS`).  Every cell is kept on disk
(:func:`stored_cell`: JSON under ``$FLDA_CACHE_DIR/paper_tables``, keyed by a fingerprint
of the code, the authors' files and the library versions).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass, field, replace
from urllib.parse import quote, urlencode

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold, cross_val_predict, train_test_split

from explorer.data import benchmarks as bm
from explorer.data.digits import default_cache_dir
from explorer.experiments import baselines as bl
from explorer.experiments import result_store
from explorer.experiments.missing_data import CellResult, cell_from_json, cell_to_json
from explorer.registry import url_path
from explorer.url_state import encode_url_value
from flda_core import FLDAClassifier, FLDAClassifierCV, estimate_dropout

__all__ = [
    "CLASSIFIERS",
    "FAST",
    "BASELINES",
    "OFFLINE",
    "PROTOCOL",
    "fit_cell",
    "stored_cell",
    "run_pair",
    "run_table",
    "precompute",
    "pair_summary",
    "verdict",
    "page_url",
]

#: The columns run here, in the paper's order (FLDA's first on screen: the page decides).
CLASSIFIERS = ("S-LR", "KMM", "SA", "TCA", "FLDA-Q", "FLDA-L", "T-LR")
#: The classifiers of the library (seconds per pair); the skada baselines take longer.
FAST = ("S-LR", "FLDA-Q", "FLDA-L", "T-LR")
BASELINES = ("KMM", "SA", "TCA")
#: The tables read from the shipped files (no network).
OFFLINE = tuple(k for k, b in bm.BENCHMARKS.items() if b.offline)
#: The authors' ridge penalties, on the summed loss, largest first.
LAMBDAS = (1e5, 1e4, 1e3, 1e2, 1e1, 1.0)
N_FOLDS = 2
#: L-BFGS / conjugate-gradient stopping of every fit here (Table 3's, too).
TOL, MAX_ITER = 1e-4, 500
#: Largest number of rows per domain a skada baseline is fitted on (dense).
BASELINE_MAX_ROWS = 1000
#: KMM's weights are raised to this (mean 1): FLDA needs a positive weight in every class.
KMM_MIN_WEIGHT = 1e-3
#: One skada baseline fit at a time per process (each holds up to two dense samples).
BASELINE_SLOTS = threading.BoundedSemaphore(1)
#: The page that shows these tables, and its settings' keys.
PAGE = "pages/benchmarks.py"
#: The protocol in a reader's words (the page's "how" list).
PROTOCOL = (
    "Data: the authors' files as they are (counts, no rescaling); IMDB and spam stay sparse.",
    f"S-LR, FLDA-Q, FLDA-L: FLDAClassifierCV, θ̂ from all source and target rows, the penalty by "
    f"{N_FOLDS}-fold stratified cross-validation on the source from the authors' grid λ = "
    f"{', '.join(f'{v:g}' for v in reversed(LAMBDAS))} on the summed loss (l2 = λ / source rows).",
    "T-LR (oracle): the same cross-validation on the target labels; its error is that "
    "cross-validated error (each row predicted by a fit that did not see it).",
    f"KMM: skada's weights (raised to at least {KMM_MIN_WEIGHT:g}), then S-LR weighted; SA, TCA: "
    "skada, then an RBF SVM (C and bandwidth by cross-validation). Each fitted on at most "
    f"{BASELINE_MAX_ROWS} rows per domain (stratified sample), predicting every target row.",
    "Not here: SCL and GFK (not in skada), S-SVM (minutes per pair on the text sets).",
)


def l2_grid(n_source):
    """The authors' λ on the summed loss as the library's ``l2`` on the mean loss."""
    return tuple(lam / n_source for lam in LAMBDAS)


def _chosen(l2, n):
    return f"λ={l2 * n:g} (l2={l2:.3g})"


def _model(loss, n, seed, sparse):
    return FLDAClassifierCV(
        loss=loss,
        l2s=l2_grid(n),
        cv=StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed),
        tol=TOL,
        max_iter=MAX_ITER,
        solver="cg" if sparse else "auto",  # no dense m x m or n x n matrix of a bag of words
    )


def _flda(name, Xs, ys, Xt, yt, seed):
    model = _model("quadratic" if name == "FLDA-Q" else "logistic", len(ys), seed, sp.issparse(Xs))
    model.fit(Xs, ys, X_target=None if name == "S-LR" else Xt)
    return int(np.sum(model.predict(Xt) != yt)), _chosen(model.l2_, len(ys))


def _oracle(name, Xs, ys, Xt, yt, seed):
    """T-LR: ``l2`` by cross-validation on the target, and the error of the same folds'
    predictions (each target row predicted by a fit that did not see it)."""
    model = _model("logistic", len(yt), seed, sp.issparse(Xt)).set_params(refit=False).fit(Xt, yt)
    fold_fit = FLDAClassifier(loss="logistic", l2=model.l2_, tol=TOL, max_iter=MAX_ITER)
    predicted = cross_val_predict(fold_fit, Xt, yt, cv=model.cv)
    return int(np.sum(predicted != yt)), _chosen(model.l2_, len(yt)) + " (CV on the target)"


def _sample(X, y, seed):
    """At most :data:`BASELINE_MAX_ROWS` rows (stratified by ``y`` when given), dense."""
    n = X.shape[0]
    keep = np.arange(n)
    if n > BASELINE_MAX_ROWS:
        keep = np.sort(train_test_split(keep, train_size=BASELINE_MAX_ROWS, random_state=seed, stratify=y)[0])
    rows = X[keep]
    return (rows.toarray() if sp.issparse(rows) else np.asarray(rows)), keep


def _baseline(name, Xs, ys, Xt, yt, seed):
    with BASELINE_SLOTS:
        Xs_fit, keep = _sample(Xs, ys, seed)
        Xt_fit, _ = _sample(Xt, None, seed)
        sizes = f"fitted on {len(keep)} of {len(ys)} source and {len(Xt_fit)} of {len(yt)} target rows"
        if name == "KMM":
            weights = np.maximum(bl.kmm_weights(Xs_fit, Xt_fit), KMM_MIN_WEIGHT)  # every class weighs
            model = _model("logistic", len(keep), seed, False).fit(Xs_fit, ys[keep], sample_weight=weights)
            return int(np.sum(model.predict(Xt) != yt)), f"{_chosen(model.l2_, len(keep))}, {sizes}"
        predicted, pipeline = bl.fit_baseline(name, Xs_fit, ys[keep], Xt_fit, random_state=seed, X_predict=Xt)
        chosen = ", ".join(f"{k}={v:.3g}" for k, v in pipeline[-1].base_estimator_.best_params_.items())
        return int(np.sum(predicted != yt)), f"{chosen}, {sizes}"


_FITS = {
    "S-LR": _flda,
    "FLDA-Q": _flda,
    "FLDA-L": _flda,
    "T-LR": _oracle,
    **dict.fromkeys(BASELINES, _baseline),
}


def fit_cell(key, pair, classifier, random_state=0, data=None):
    """Fit one classifier on one pair of a benchmark and score it on the target.

    Parameters
    ----------
    key : str
        A benchmark of :data:`explorer.data.benchmarks.BENCHMARKS`.
    pair : str
        ``"A → D"`` etc.
    classifier : str
        One of :data:`CLASSIFIERS`.
    random_state : int
        Seed of the folds and of the baselines' samples.
    data : tuple, optional
        ``(X_source, y_source, X_target, y_target)`` (default: :func:`~explorer.data.benchmarks.pair_data`).

    Returns
    -------
    CellResult
        ``key`` is ``"<benchmark> <pair>"``; ``params`` the choice cross-validation made.
    """
    if classifier not in _FITS:
        raise ValueError(f"Unknown classifier {classifier!r}; choose from {CLASSIFIERS}.")
    Xs, ys, Xt, yt = bm.pair_data(key, pair) if data is None else data
    start = time.perf_counter()
    wrong, params = _FITS[classifier](classifier, Xs, ys, Xt, yt, random_state)
    seconds = time.perf_counter() - start
    return CellResult(f"{key} {pair}", classifier, wrong / len(yt), wrong, len(yt), params, seconds)


@functools.lru_cache(maxsize=1)
def code_fingerprint():
    """Digest of the code (:func:`~explorer.experiments.result_store.core_files`), the
    authors' files and the library versions: a change of any gives other store files."""
    files = result_store.core_files() + sorted(bm.PAPER_DIR.glob("*.mat"))
    return result_store.fingerprint(files, result_store.PACKAGES)


def cell_store(directory=None):
    """The disk store of the cells: ``directory`` or ``$FLDA_CACHE_DIR/paper_tables``."""
    directory = default_cache_dir() / "paper_tables" if directory is None else directory
    return result_store.ResultStore(directory, code_fingerprint())


def stored_cell(key, pair, classifier, random_state=0, store=None):
    """:func:`fit_cell`, kept on disk: read when this code computed it before, else fitted
    and written (one process at a time per cell); ``computed_at``/``from_disk`` set."""
    store = cell_store() if store is None else store
    name = f"{key} {pair}"
    found = store.load_or_compute(
        {
            "experiment": "paper tables",
            "table": key,
            "pair": pair,
            "classifier": classifier,
            "seed": int(random_state),
        },
        lambda: fit_cell(key, pair, classifier, random_state),
        cell_to_json,
        lambda value: cell_from_json(value, name, classifier),
    )
    return replace(found.value, computed_at=found.computed_at, from_disk=found.from_disk, saved=found.saved)


def difference_se(p, q, n):
    """Standard error of the difference of two error rates on ``n`` target rows, taken as
    independent binomials (a conservative bound of the paired one)."""
    return float(np.sqrt((p * (1 - p) + q * (1 - q)) / max(int(n), 1)))


def verdict(errors, n, multiple):
    """The lowest error (the oracle T-LR aside) and whether it is lower than the runner-up
    by more than ``multiple`` standard errors of the difference.

    Returns
    -------
    dict with ``best``, ``runner_up``, ``gap``, ``se`` and ``beyond`` (bool).
    """
    names = [c for c in errors.index if c != "T-LR" and np.isfinite(errors[c])]
    ranked = sorted(names, key=lambda c: errors[c])
    best, runner = ranked[0], ranked[1]
    gap, se = errors[runner] - errors[best], difference_se(errors[best], errors[runner], n)
    return {"best": best, "runner_up": runner, "gap": gap, "se": se, "beyond": gap > multiple * se}


@dataclass(frozen=True)
class PairResult:
    """One pair of a benchmark: ``cells`` ``{classifier: CellResult}`` in run order."""

    key: str
    pair: str
    cells: dict = field(repr=False)

    @property
    def errors(self):
        return pd.Series({c: cell.error for c, cell in self.cells.items()}, dtype=float)

    @property
    def paper(self):
        return pd.Series(bm.PAPER_TABLES[self.key][self.pair]).reindex(self.errors.index)

    @property
    def n_target(self):
        return next(iter(self.cells.values())).n_target

    def frame(self):
        """Rows: this run, its binomial SE, the paper, this run minus the paper."""
        errors = self.errors
        se = errors.map(lambda p: np.sqrt(p * (1 - p) / self.n_target))
        rows = {"here": errors, "SE (binomial)": se, f"paper, {bm.BENCHMARKS[self.key].table}": self.paper}
        return pd.DataFrame({**rows, "here − paper": errors - self.paper}).T


@dataclass(frozen=True)
class TableResult:
    """A whole benchmark table: ``pairs`` ``{pair: PairResult}`` in the paper's order."""

    key: str
    pairs: dict = field(repr=False)

    @property
    def errors(self):
        return pd.DataFrame({p: r.errors for p, r in self.pairs.items()}).T.rename_axis("source → target")

    @property
    def paper(self):
        return bm.paper_rows(self.key).loc[list(self.pairs), list(self.errors.columns)]

    def reproduction(self):
        """Per classifier: mean |here − paper| over the pairs, and the worst pair."""
        delta = (self.errors - self.paper).dropna(axis=1, how="all")
        worst = delta.abs().idxmax()
        return pd.DataFrame(
            {
                "mean |here − paper|": delta.abs().mean(),
                "worst pair": worst,
                "here − paper there": [delta.loc[worst[c], c] for c in delta.columns],
            }
        ).rename_axis("classifier")

    def long_table(self):
        """One row per (pair, classifier): the CSV download."""
        table = bm.BENCHMARKS[self.key].table
        rows = []
        for pair, result in self.pairs.items():
            for name, cell in result.cells.items():
                paper = result.paper.get(name, np.nan)
                rows.append(
                    {
                        "table": table,
                        "source → target": pair,
                        "classifier": name,
                        "error": cell.error,
                        "SE (binomial)": np.sqrt(cell.error * (1 - cell.error) / cell.n_target),
                        f"paper ({table})": paper,
                        "here − paper": cell.error - paper,
                        "wrong": cell.n_wrong,
                        "target rows": cell.n_target,
                        "chosen by cross-validation": cell.params,
                        "seconds": round(cell.seconds, 2),
                    }
                )
        return pd.DataFrame(rows)


def run_pair(key, pair, classifiers=CLASSIFIERS, random_state=0, fit=stored_cell, progress=None):
    """Every classifier of ``classifiers`` on one pair (``fit(key, pair, classifier,
    random_state) -> CellResult``; ``progress(fraction, text)`` before each)."""
    cells = {}
    for i, name in enumerate(classifiers):
        if progress is not None:
            progress(i / len(classifiers), f"{name} on {pair} ({i + 1} of {len(classifiers)})")
        cells[name] = fit(key, pair, name, random_state)
    if progress is not None:
        progress(1.0, "Done")
    return PairResult(key, pair, cells)


def run_table(key, classifiers=CLASSIFIERS, random_state=0, fit=stored_cell, progress=None):
    """Every pair of a benchmark table, one progress bar over all its cells."""
    pairs, results = bm.pairs(key), {}
    for i, pair in enumerate(pairs):
        sub = None if progress is None else _within(progress, i, len(pairs))
        results[pair] = run_pair(key, pair, classifiers, random_state, fit, sub)
    if progress is not None:
        progress(1.0, "Done")
    return TableResult(key, results)


def _within(progress, i, n):
    """``progress`` of pair ``i`` of ``n`` (its "Done" dropped: the table reports its own)."""

    def report(fraction, text):
        if fraction < 1:
            progress((i + fraction) / n, text)

    return report


def precompute(keys=OFFLINE, classifiers=CLASSIFIERS, random_state=0, progress=None, store=None):
    """Fill the disk store with whole tables (default: Tables 5, 7 and 8, every classifier)."""

    def fit(*args):
        return stored_cell(*args, store=store)

    return {key: run_table(key, classifiers, random_state, fit, progress) for key in keys}


@functools.lru_cache(maxsize=32)
def pair_summary(key, pair):
    """A pair from the data alone: its sizes, the error of predicting the target's most
    frequent class for every row, and what θ̂ (section 3.3.1) says: how many features are
    never seen in the source, dropped whole (θ̂ = 1: never in the target), kept (θ̂ = 0)
    or partly dropped, and the mean and median θ̂ of those seen in the source."""
    Xs, ys, Xt, yt = bm.pair_data(key, pair)
    theta = estimate_dropout(Xs, Xt)
    seen = np.asarray((Xs != 0).sum(axis=0)).ravel() > 0
    rows = {
        "source rows": len(ys),
        "target rows": len(yt),
        "error of always predicting the target's most frequent class": 1
        - np.unique(yt, return_counts=True)[1].max() / len(yt),
        "features": theta.size,
        "never non-zero in the source": int(np.sum(~seen)),
        "θ̂ = 1 (in the source, never in the target)": int(np.sum(seen & (theta >= 1))),
        "θ̂ = 0 (as often or more often in the target)": int(np.sum(seen & (theta <= 0))),
        "0 < θ̂ < 1": int(np.sum(seen & (theta > 0) & (theta < 1))),
        "mean θ̂ (features seen in the source)": float(theta[seen].mean()),
        "median θ̂ (features seen in the source)": float(np.median(theta[seen])),
    }
    return pd.Series(rows, name=pair, dtype=float)


def page_url(key, pair, present=False):
    """URL (relative to the app) of :data:`PAGE` with ``key``'s table and ``pair`` chosen
    (its settings ``bench.table`` and ``bench.pair``), e.g. ``page_url("imdb", "A → F")``."""
    bm.pair_letters(key, pair)
    query = {"table": encode_url_value(key), "pair": encode_url_value(pair)}
    if present:
        query["present"] = "1"
    return f"{url_path(PAGE)}?{urlencode(query, quote_via=quote)}"
