"""The paper's real-data tables pair by pair: Table 3 (section 4.2.2) and Tables 5-9
(sections 4.2.4-4.2.7), one framework for all.

A *cell* is one classifier fitted on a pair's source (FLDA and the baselines also see the
unlabelled target rows) and scored on its target (:func:`fit_cell`); every cell is kept
on disk (:func:`stored_cell`, keyed by the cell and a fingerprint of the code, data and
library versions), so a server restart does not refit.  Table 3's protocol is
:mod:`explorer.experiments.missing_data`; Tables 5-9 follow the library's reproduction
(:mod:`flda_core.paper_data`; in a reader's words :data:`PROTOCOL`), with the skada
baselines fitted on bounded dense samples, one at a time per process
(:data:`BASELINE_SLOTS`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import functools
import math
import threading
import time
import warnings
from dataclasses import dataclass, field, replace
from urllib.parse import quote, urlencode

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold, train_test_split

from explorer.data import benchmarks as bm
from explorer.experiments import baselines as bl
from explorer.experiments import missing_data as md
from explorer.experiments import result_store
from explorer.experiments.progress import finish, report, scaled
from explorer.registry import url_path
from explorer.url_state import encode_url_value
from flda_core import FLDAClassifierCV, estimate_dropout, paper_l2s
from flda_core.paper_data import PAPER_PENALTIES

#: The columns of Tables 5-9 run here, in the paper's order.
CLASSIFIERS = ("S-LR", "KMM", "SA", "TCA", "FLDA-Q", "FLDA-L", "T-LR")
#: The classifiers of the library (seconds per pair), shown first on every table.
FAST = ("S-LR", "FLDA-Q", "FLDA-L", "T-LR")
BASELINES = ("KMM", "SA", "TCA")
N_FOLDS = 2
#: FLDA's stopping tolerance per loss, the library's test's (FLDA-L: scikit-learn's default).
TOLS = {"quadratic": 1e-6, "logistic": 1e-4}
#: Largest number of rows per domain a skada baseline is fitted on (dense).
BASELINE_MAX_ROWS = 1000
#: KMM's weights are raised to this (mean 1): FLDA needs a positive weight in every class.
KMM_MIN_WEIGHT = 1e-3
#: One skada baseline fit at a time per process (each holds up to two dense samples).
BASELINE_SLOTS = threading.BoundedSemaphore(1)
#: The page that shows these tables.
PAGE = "pages/real_data.py"
#: Tables 5-9's protocol in a reader's words (the page's "how" list).
PROTOCOL = (
    "Data: the authors' files with every count divided by the file's largest (Tables 6 and 9: skada's "
    "features divided by the pair's largest value); IMDB and spam stay sparse.",
    f"S-LR, FLDA-Q, FLDA-L: FLDAClassifierCV, θ̂ from all source and target rows, the penalty by "
    f"{N_FOLDS}-fold stratified cross-validation on the source from λ = "
    f"{', '.join(f'{v:g}' for v in PAPER_PENALTIES)} on the summed loss (l2 = λ / source rows), "
    "as the library's reproduction of the paper (flda_core.paper_data).",
    "T-LR (oracle): the same cross-validation on the target labels; its error is that "
    "cross-validated error (each row predicted by a fit that did not see it).",
    f"KMM: skada's weights (raised to at least {KMM_MIN_WEIGHT:g}), then S-LR weighted; SA, TCA: "
    "skada, then an RBF SVM (C and bandwidth by cross-validation). Each fitted on at most "
    f"{BASELINE_MAX_ROWS} rows per domain (stratified sample), predicting every target row.",
    "Not here: SCL and GFK (not in skada), S-SVM (minutes per pair on the text sets).",
)


def classifiers(key, baselines=True):
    """The columns run for ``key``'s table, the library's first (:data:`FAST`), then the rest
    in the paper's order (Table 3: S-SVM and five skada baselines; Tables 5-9: three);
    ``baselines=False`` leaves the skada baselines out."""
    names = md.AVAILABLE if key == bm.TABLE3 else CLASSIFIERS
    return FAST + tuple(c for c in names if c not in FAST and (baselines or c not in bl.BASELINES))


def protocol(key):
    """How the cells of ``key``'s table are computed, in a reader's words."""
    return md.PROTOCOL if key == bm.TABLE3 else PROTOCOL


@dataclass(frozen=True)
class CellResult:
    """One classifier on one pair.

    Attributes
    ----------
    key : str
        ``"<table> <pair>"``.
    classifier : str
    error : float
        Fraction of target rows classified wrongly (NaN where a transfer model does not apply).
    n_wrong, n_target : int
    params : str
        The hyper-parameters chosen by cross-validation.
    seconds : float
        Wall-clock time of the fit, cross-validation included.
    note : str
        Why the cell is empty.
    computed_at : str
        When the fit finished (``"YYYY-MM-DD HH:MM UTC"``) if it went through
        :func:`stored_cell`, else ``""``.
    from_disk, saved : bool
        :func:`stored_cell` read the cell from the disk store; the cell is in the store.
    """

    key: str
    classifier: str
    error: float
    n_wrong: int
    n_target: int
    params: str
    seconds: float
    note: str = ""
    computed_at: str = field(default="", compare=False)
    from_disk: bool = field(default=False, compare=False)
    saved: bool = field(default=False, compare=False)


def _chosen(l2, n):
    return f"λ={l2 * n:g} (l2={l2:.3g})"


def _search(loss, n, seed):
    """:func:`flda_core.paper_l2s` searched on ``n`` rows with two stratified folds."""
    cv = StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed)
    return FLDAClassifierCV(loss=loss, l2s=paper_l2s(n), cv=cv, tol=TOLS[loss])


def _sample(X, y, seed):
    """At most :data:`BASELINE_MAX_ROWS` rows (stratified by ``y`` when given), dense."""
    n = X.shape[0]
    keep = np.arange(n)
    if n > BASELINE_MAX_ROWS:
        keep = np.sort(train_test_split(keep, train_size=BASELINE_MAX_ROWS, random_state=seed, stratify=y)[0])
    rows = X[keep]
    return (rows.toarray() if sp.issparse(rows) else np.asarray(rows)), keep


def _baseline(name, Xs, ys, Xt, seed):
    with BASELINE_SLOTS:
        Xs_fit, keep = _sample(Xs, ys, seed)
        Xt_fit, _ = _sample(Xt, None, seed)
        sizes = f"fitted on {len(keep)} of {len(ys)} source and {len(Xt_fit)} of {Xt.shape[0]} target rows"
        if name == "KMM":
            weights = np.maximum(bl.kmm_weights(Xs_fit, Xt_fit), KMM_MIN_WEIGHT)  # every class weighs
            model = _search("logistic", len(keep), seed).fit(Xs_fit, ys[keep], sample_weight=weights)
            return model.predict(Xt), f"{_chosen(model.l2_, len(keep))}, {sizes}"
        predicted, pipeline = bl.fit_baseline(name, Xs_fit, ys[keep], Xt_fit, random_state=seed, X_predict=Xt)
        chosen = ", ".join(f"{k}={v:.3g}" for k, v in pipeline[-1].base_estimator_.best_params_.items())
        return predicted, f"{chosen}, {sizes}"


def _fit_arrays(name, Xs, ys, Xt, yt, seed, transfer="dropout"):
    """Tables 5-9's protocol: one classifier fitted, the target predicted (dropout only)."""
    with warnings.catch_warnings():  # λ = 1e-3, the protocol's end, is often the choice
        warnings.filterwarnings("ignore", "FLDAClassifierCV chose", UserWarning)
        if name in BASELINES:
            return _baseline(name, Xs, ys, Xt, seed)
        if name == "T-LR":
            predicted, l2 = md.oracle_predictions(_search("logistic", len(yt), seed), Xt, yt)
            return predicted, _chosen(l2, len(yt)) + " (CV on the target)"
        model = _search("quadratic" if name == "FLDA-Q" else "logistic", len(ys), seed)
        model.fit(Xs, ys, X_target=None if name == "S-LR" else Xt)
    return model.predict(Xt), _chosen(model.l2_, len(ys))


def fit_cell(key, pair, classifier, random_state=0, impute="zero", transfer="dropout"):
    """Fit one classifier on one pair of a table and score it on the target.

    Parameters
    ----------
    key : str
        A table of :data:`explorer.data.benchmarks.BENCHMARKS`.
    pair : str
        ``"A → D"`` etc.; for Table 3 a data set (``"heart"``).
    classifier : str
        One of :func:`classifiers` ``(key)``.
    random_state : int
        Seed of the folds and of the baselines' samples.
    impute, transfer : str
        Table 3 only: how the gaps are filled (``"zero"``, ``"mean"``) and FLDA's transfer
        model (``"imputation"``: FLDA sees the gaps as ``NaN``; a model that does not apply
        gives an empty cell whose note says why).

    Returns
    -------
    CellResult
    """
    if classifier not in classifiers(key):
        raise ValueError(f"Unknown classifier {classifier!r}; choose from {classifiers(key)}.")
    gaps = transfer == "imputation" and classifier.startswith("FLDA")
    Xs, ys, Xt, yt = bm.pair_data(key, pair, impute=impute, keep_gaps=gaps)
    fit = md.fit_arrays if key == bm.TABLE3 else _fit_arrays
    name, start = f"{key} {pair}", time.perf_counter()
    try:
        predicted, params = fit(classifier, Xs, ys, Xt, yt, random_state, transfer)
    except ValueError as error:
        if transfer == "dropout" or not classifier.startswith("FLDA"):
            raise
        # the model does not apply to these data (e.g. "rate" needs counts >= 0)
        note = f"{transfer} transfer model not applicable: {error}"
        return CellResult(name, classifier, float("nan"), 0, len(yt), "", 0.0, note)
    wrong = int(np.sum(predicted != yt))
    return CellResult(name, classifier, wrong / len(yt), wrong, len(yt), params, time.perf_counter() - start)


def stored_cell(key, pair, classifier, random_state=0, impute="zero", transfer="dropout", store=None):
    """:func:`fit_cell`, kept on disk (:func:`explorer.experiments.result_store.stored`, JSON
    under ``$FLDA_CACHE_DIR/paper_tables``): read when this code computed it before, else
    fitted and written (one process at a time per cell); ``computed_at``, ``from_disk`` and
    ``saved`` set."""
    name = f"{key} {pair}"

    def valid(cell):
        in_range = math.isnan(cell.error) or 0.0 <= cell.error <= 1.0
        return (
            (cell.key, cell.classifier) == (name, classifier)
            and min(cell.n_wrong, cell.n_target) >= 0
            and in_range
        )

    cell = {"table": key, "pair": pair, "classifier": classifier, "seed": int(random_state)}
    cell |= {"impute": impute, "transfer": transfer}
    fit = functools.partial(fit_cell, key, pair, classifier, random_state, impute, transfer)
    found = result_store.stored(
        "paper_tables", {"experiment": "paper tables", **cell}, fit, CellResult, valid, store
    )
    return replace(found.value, computed_at=found.computed_at, from_disk=found.from_disk, saved=found.saved)


def difference_se(p, q, n):
    """Standard error of the difference of two error rates on ``n`` target rows, taken as
    independent binomials (a conservative bound of the paired one); numbers or arrays."""
    return np.sqrt((p * (1 - p) + q * (1 - q)) / np.maximum(n, 1))


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


def binomial_se(errors, n):
    """The binomial standard error of error rates on ``n`` target rows."""
    return np.sqrt(errors * (1 - errors) / n)


@dataclass(frozen=True)
class PairResult:
    """One pair of a table: ``cells`` ``{classifier: CellResult}`` in run order;
    ``options`` the settings that made them (Table 3's gaps and transfer model)."""

    key: str
    pair: str
    cells: dict = field(repr=False)
    options: dict = field(default_factory=dict)

    @property
    def errors(self):
        return pd.Series({c: cell.error for c, cell in self.cells.items()}, dtype=float)

    @property
    def paper(self):
        return pd.Series(bm.PAPER_TABLES[self.key][self.pair], dtype=float).reindex(self.errors.index)

    @property
    def n_target(self):
        return next(iter(self.cells.values())).n_target

    def frame(self):
        """Rows: this run, its binomial SE, the paper, this run minus the paper."""
        errors, table = self.errors, bm.BENCHMARKS[self.key].table
        rows = {
            "here": errors,
            "SE (binomial)": binomial_se(errors, self.n_target),
            f"paper, {table}": self.paper,
        }
        return pd.DataFrame({**rows, "here − paper": errors - self.paper}).T


@dataclass(frozen=True)
class TableResult:
    """Pairs of a table: ``pairs`` ``{pair: PairResult}`` in the paper's order."""

    key: str
    pairs: dict = field(repr=False)

    @property
    def errors(self):
        """Pairs (by title) x classifiers: the error here."""
        frame = pd.DataFrame({bm.pair_title(self.key, p): r.errors for p, r in self.pairs.items()}).T
        return frame.rename_axis(bm.BENCHMARKS[self.key].pair_word)

    @property
    def paper(self):
        """The paper's rows of the same pairs and classifiers (NaN where it has none)."""
        return bm.paper_rows(self.key).reindex(index=self.errors.index, columns=self.errors.columns)

    @property
    def cells(self):
        return [cell for result in self.pairs.values() for cell in result.cells.values()]

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
        benchmark = bm.BENCHMARKS[self.key]
        rows = []
        for pair, result in self.pairs.items():
            for name, cell in result.cells.items():
                paper = result.paper.get(name, np.nan)
                rows.append(
                    {
                        "table": benchmark.table,
                        benchmark.pair_word: bm.pair_title(self.key, pair),
                        "classifier": name,
                        "error": cell.error,
                        "SE (binomial)": binomial_se(cell.error, cell.n_target),
                        f"paper ({benchmark.table})": paper,
                        "here − paper": cell.error - paper,
                        "wrong": cell.n_wrong,
                        "target rows": cell.n_target,
                        "chosen by cross-validation": cell.params,
                        "seconds": round(cell.seconds, 2),
                        "note": cell.note,
                        **result.options,
                    }
                )
        return pd.DataFrame(rows)


def run_pair(
    key, pair, names, random_state=0, fit=stored_cell, progress=None, impute="zero", transfer="dropout"
):
    """Every classifier of ``names`` on one pair: ``fit(key, pair, classifier, random_state,
    **options) -> CellResult``, the options being Table 3's ``impute`` (and ``transfer``
    for FLDA's cells when not dropout); ``progress(fraction, text)`` before each."""
    cells, title = {}, bm.pair_title(key, pair)
    for i, name in enumerate(names):
        report(progress, i, len(names), f"{name} on {title} ({i + 1} of {len(names)})")
        options = {"impute": impute} if key == bm.TABLE3 else {}
        if key == bm.TABLE3 and transfer != "dropout" and name.startswith("FLDA"):
            options["transfer"] = transfer
        cells[name] = fit(key, pair, name, random_state, **options)
    finish(progress)
    shown = {"gaps filled with": impute, "transfer model": transfer} if key == bm.TABLE3 else {}
    return PairResult(key, pair, cells, shown)


def run_table(key, names, random_state=0, fit=stored_cell, progress=None, on_pair=None, **options):
    """Every pair of a table, one progress bar over all its cells; ``on_pair(TableResult)``
    after each pair with the pairs done so far (a page shows the table filling in)."""
    pairs, results = bm.pairs(key), {}
    for i, pair in enumerate(pairs):
        sub = scaled(progress, i / len(pairs), (i + 1) / len(pairs))
        results[pair] = run_pair(key, pair, names, random_state, fit, sub, **options)
        if on_pair is not None:
            on_pair(TableResult(key, dict(results)))
    finish(progress)
    return TableResult(key, results)


#: The tables :func:`precompute` fills, the quickest first (Table 5's ten classes last).
WARM_UP = (bm.TABLE3, "spam", "imdb", "office_caltech")


def precompute(keys=WARM_UP, random_state=0, progress=None, store=None):
    """Fill the disk store with the page's tables at their defaults (seed 0): every pair of
    Table 3 with every classifier (zeros in the gaps, dropout; seconds) and of Tables 5, 7
    and 8 with the library's classifiers (:data:`FAST`; the skada baselines there take
    minutes).  Meant for a background thread at server start; cells already stored are
    read, not refitted."""

    fit = functools.partial(stored_cell, store=store)
    tables = {key: classifiers(key, baselines=key == bm.TABLE3) for key in keys}
    return {key: run_table(key, names, random_state, fit, progress) for key, names in tables.items()}


@functools.lru_cache(maxsize=32)
def pair_summary(key, pair, impute="zero"):
    """A pair from the data alone: its sizes, the error of predicting the target's most
    frequent class for every row, and what θ̂ (section 3.3.1) says: how many features are
    never seen in the source, dropped whole (θ̂ = 1: never in the target), kept (θ̂ = 0)
    or partly dropped, and the mean and median θ̂ of those seen in the source."""
    Xs, ys, Xt, yt = bm.pair_data(key, pair, impute=impute)
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
    (its settings ``real.table`` and ``real.pair``), e.g. ``page_url("imdb", "A → F")``
    or ``page_url("uci", "heart")``."""
    bm.check_pair(key, pair)
    query = {"table": encode_url_value(key), "pair": encode_url_value(pair)}
    if present:
        query["present"] = "1"
    return f"{url_path(PAGE)}?{urlencode(query, quote_via=quote)}"
