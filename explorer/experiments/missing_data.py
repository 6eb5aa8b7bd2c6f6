"""Missing data at test time: the paper's section 4.2.2 (Tables 2 and 3).

Six UCI data sets (:mod:`explorer.data.uci`) are split into complete
rows (source, labelled) and rows with a gap (target, gaps filled with 0 or
the source mean).  Every classifier is trained on the source (FLDA and the
domain-adaptation baselines also see the unlabelled target rows) and scored
on the target.  :func:`run_missing_data` builds the data sets x classifiers
error table with the paper's Table 3 beside it, the gain of FLDA over S-LR
and the per-data-set θ̂.

FLDA's two stages are apart: :func:`data_parameters` gives θ̂ (or another
transfer model's parameters) from the data alone, without fitting any
classifier; the fits are per cell.  :func:`stored_fit_one` keeps every fitted
cell on disk (:mod:`explorer.experiments.result_store`, JSON under
``$FLDA_CACHE_DIR/missing_data``), keyed by the cell and a fingerprint of the
code, data and library versions (:func:`code_fingerprint`), so that a server
restart does not refit; :func:`precompute` fills it for the dashboard's
default table.

Classifiers (:data:`CLASSIFIERS`, in the column order of Table 3): S-SVM, S-LR (FLDA-L's
code with θ = 0), the skada baselines (:mod:`explorer.experiments.baselines`; SCL and GFK
are not available), FLDA-Q and FLDA-L (θ̂ from all source and target rows, section 3.3.1)
and the T-LR oracle; how each is fitted and scored, in a reader's words: :data:`PROTOCOL`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from flda_core.classifier import FLDAClassifier
from flda_core.selection import FLDAClassifierCV
from explorer.data import uci
from explorer.data.benchmarks import typed_table
from explorer.data.digits import default_cache_dir
from flda_core.transfer import estimate_dropout
from flda_core.transfer_models import make_transfer_model
from explorer.experiments import baselines as bl
from explorer.experiments import result_store

__all__ = [
    "CLASSIFIERS",
    "AVAILABLE",
    "FLDA_L2_GRID",
    "PAPER_TABLE3",
    "PROTOCOL",
    "CellResult",
    "MissingDataResult",
    "problem",
    "fit_arrays",
    "fit_one",
    "run_missing_data",
    "paper_table",
    "theta_table",
    "transfer_table",
    "DataParameters",
    "data_parameters",
    "code_fingerprint",
    "cell_store",
    "cell_to_json",
    "cell_from_json",
    "stored_fit_one",
    "precompute",
    "PACKAGES",
    "fingerprint_files",
]

#: Columns of the error table: the paper's Table 3 order, CORAL and OT (skada's
#: extra baselines) after TCA.
CLASSIFIERS = ("S-SVM", "S-LR", "KMM", "SCL", "SA", "GFK", "TCA", "CORAL", "OT", "FLDA-Q", "FLDA-L", "T-LR")
#: The classifiers that are run (SCL and GFK are not available, see
#: :data:`explorer.experiments.baselines.NOT_AVAILABLE`).
AVAILABLE = tuple(c for c in CLASSIFIERS if c not in bl.NOT_AVAILABLE)
#: Ridge penalties tried for S-LR, FLDA-Q, FLDA-L and T-LR, most regularised first
#: (ties in the cross-validation error go to the larger penalty).
FLDA_L2_GRID = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)
#: The paper's Table 3 (classification error on the target), typed from the paper.
PAPER_TABLE3 = typed_table(
    """
    hepatitis .213 .493 .347 .480 .253 .227 .213 .227 .200 .150
    ozone .060 .124 .126 .136 .047 .093 .140 .047 .079 .069
    heart .409 .338 .390 .319 .596 .362 .391 .203 .203 .177
    mammographic .331 .462 .446 .462 .323 .423 .323 .462 .431 .194
    automobile .848 .935 .913 .935 .587 .565 .848 .848 .848 .371
    arrhythmia .930 .854 .620 .818 .414 .651 .930 .456 .889 .353""",
    pair_rows=False,
)
_N_FOLDS = 3
#: How the numbers are computed, in a reader's words (the Real data page's list).
PROTOCOL = (
    f"Hyper-parameters by {_N_FOLDS}-fold cross-validation on the **source only**, as the paper does "
    f"(section 4.2.1): l2 of S-LR, FLDA-Q and FLDA-L from {', '.join(f'{v:g}' for v in FLDA_L2_GRID)} "
    f"(θ̂ held fixed); C ({', '.join(f'{v:g}' for v in bl.C_GRID)}) of every logistic regression and C "
    "and the RBF bandwidth of every SVM, for a baseline on the source after its adaptation step.",
    f"T-LR (the oracle) is trained on the target labels; its error is a {_N_FOLDS}-fold cross-validated "
    "error on the target (each row predicted by a model that did not see it), l2 chosen by "
    "cross-validation on the target.",
    *(f"{name}: {note}." for name, note in bl.BASELINE_NOTES.items()),
    *(f"{name}: not available — {why}." for name, why in bl.NOT_AVAILABLE.items()),
)


@dataclass(frozen=True)
class CellResult:
    """One classifier on one data set.

    Attributes
    ----------
    key, classifier : str
    error : float
        Fraction of target rows classified wrongly (NaN if not available).
    n_wrong, n_target : int
    params : str
        The hyper-parameters chosen by cross-validation, e.g. ``"l2=0.01"``.
    seconds : float
        Wall-clock time of the fit, cross-validation included.
    note : str
    computed_at : str
        When the fit finished (``"YYYY-MM-DD HH:MM UTC"``) if it went through
        :func:`stored_fit_one`, else ``""``.
    from_disk : bool
        True when :func:`stored_fit_one` read the cell from the disk store.
    saved : bool
        True when the cell is in the disk store (read from it, or written to it).
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


@functools.lru_cache(maxsize=32)
def problem(key, impute="zero", keep_gaps=False):
    """The (cached) :class:`~explorer.data.uci.MissingDataProblem` of a data set
    (``keep_gaps``: the target's gaps stay ``NaN``, for the imputation model)."""
    return uci.make_missing_problem(key, impute, keep_gaps=keep_gaps)


def _flda(loss, theta, transfer="dropout", params=None):
    if transfer != "dropout":
        return FLDAClassifier(loss=loss, transfer=transfer, transfer_params=params, tol=1e-4, max_iter=500)
    return FLDAClassifier(loss=loss, theta=theta, tol=1e-4, max_iter=500)


def _l2_cv(loss, theta, y, random_state, transfer="dropout", params=None):
    """FLDA with l2 chosen by cross-validation on ``y``'s rows (ties: the larger l2),
    its transfer parameters fixed."""
    params_cv = _flda(loss, theta, transfer, params).get_params()
    del params_cv["l2"], params_cv["warm_start"]
    return FLDAClassifierCV(
        **params_cv,
        l2s=FLDA_L2_GRID,
        cv=list(bl.cv_folds(y, _N_FOLDS, random_state)),
        scoring=_negative_error,
    )


def _negative_error(model, X, y):
    return -float(np.mean(model.predict(X) != y))


def _fit_quietly(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def _describe(params):
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def _oracle_predictions(X, y, random_state):
    """T-LR's cross-validated predictions on the target and the l2 chosen for them.

    l2 is chosen by cross-validation on the labelled target rows; every row is
    then predicted by a model fitted on the other folds (never on itself).
    """
    l2 = _fit_quietly(_l2_cv("logistic", None, y, random_state), X, y).l2_
    predicted = np.empty(len(y), dtype=y.dtype)
    for train, test in bl.cv_folds(y, _N_FOLDS, random_state):
        model = _flda("logistic", None).set_params(l2=l2)
        if len(np.unique(y[train])) < 2:
            predicted[test] = y[train][0]
            continue
        predicted[test] = model.fit(X[train], y[train]).predict(X[test])
    return predicted, f"l2={l2:g} (CV on the target)"


def fit_arrays(classifier, X_source, y_source, X_target, y_target, random_state=0, transfer="dropout"):
    """Fit one available classifier on a source/target pair and predict the target.

    The core of :func:`fit_one` (and of the Lesson's natural-data step).  ``y_target``
    is used by the T-LR oracle only.  ``transfer`` is FLDA's transfer model, estimated from
    all source and target rows and held fixed while ``l2`` is cross-validated
    (``"imputation"`` expects the target's gaps as ``NaN``).

    Returns
    -------
    predicted : ndarray of shape (n_target,)
    params : str
        The hyper-parameters cross-validation chose.
    """
    X_s, y_s = np.asarray(X_source, dtype=np.float64), np.asarray(y_source)
    X_t, y_t = np.asarray(X_target, dtype=np.float64), np.asarray(y_target)
    with threadpool_limits(limits=1, user_api="blas"):
        if classifier in bl.BASELINES:
            predicted, pipeline = bl.fit_baseline(
                classifier, X_s, y_s, X_t, n_folds=_N_FOLDS, random_state=random_state
            )
            return predicted, _describe(pipeline[-1].base_estimator_.best_params_)
        if classifier == "T-LR":
            return _oracle_predictions(X_t, y_t, random_state)
        if classifier == "S-SVM":
            model = bl.svm_cv(n_folds=_N_FOLDS, random_state=random_state)
        elif classifier in ("S-LR", "FLDA-Q", "FLDA-L"):
            loss = "quadratic" if classifier == "FLDA-Q" else "logistic"
            if classifier.startswith("FLDA") and transfer != "dropout":
                params = make_transfer_model(transfer).fit(X_s, X_t).params()
                model = _l2_cv(loss, None, y_s, random_state, transfer, params)
            else:
                theta = estimate_dropout(X_s, X_t) if classifier.startswith("FLDA") else None
                model = _l2_cv(loss, theta, y_s, random_state)
            _fit_quietly(model, X_s, y_s)
            return model.predict(X_t), _describe({"l2": model.l2_})
        else:
            raise ValueError(f"{classifier!r} is not available; choose from {AVAILABLE}.")
        model.fit(X_s, y_s)
        return model.predict(X_t), _describe(model.best_params_)


def fit_one(key, classifier, impute="zero", random_state=0, transfer="dropout"):
    """Fit one classifier on one data set and score it on the target rows.

    Parameters
    ----------
    key : str
        A data set of :data:`explorer.data.uci.UCI_SETS`.
    classifier : str
        One of :data:`CLASSIFIERS`.
    impute : {"zero", "mean"}
    random_state : int
        Seed of the cross-validation folds (and of SA/TCA's randomness).
    transfer : str, default="dropout"
        FLDA's transfer model; with ``"imputation"`` FLDA sees the target's
        gaps as gaps (``NaN``) and fills them in expectation with the source
        mean (every other classifier sees ``impute``).

    Returns
    -------
    CellResult
    """
    if classifier not in CLASSIFIERS:
        raise ValueError(f"Unknown classifier {classifier!r}; choose from {CLASSIFIERS}.")
    data = problem(key, impute, transfer == "imputation" and classifier.startswith("FLDA"))
    n_target = len(data.y_target)
    if classifier in bl.NOT_AVAILABLE:
        return CellResult(key, classifier, float("nan"), 0, n_target, "", 0.0, bl.NOT_AVAILABLE[classifier])
    start = time.perf_counter()
    try:
        predicted, params = fit_arrays(
            classifier, data.X_source, data.y_source, data.X_target, data.y_target, random_state, transfer
        )
    except ValueError as error:
        if transfer == "dropout" or not classifier.startswith("FLDA"):
            raise
        # The model does not apply to these data (e.g. "rate" needs counts >= 0): an
        # empty cell that says why, as for the classifiers skada lacks.
        return CellResult(
            key,
            classifier,
            float("nan"),
            0,
            n_target,
            "",
            0.0,
            f"{transfer} transfer model not applicable: {error}",
        )
    wrong = int(np.sum(predicted != data.y_target))
    return CellResult(key, classifier, wrong / n_target, wrong, n_target, params, time.perf_counter() - start)


#: The libraries whose versions enter :func:`code_fingerprint`.
PACKAGES = result_store.PACKAGES


@functools.lru_cache(maxsize=1)
def code_fingerprint():
    """Digest of what determines a cell of Table 3: every source file of
    the method and the app's data readers, experiments and baselines
    (:func:`~explorer.experiments.result_store.core_files`), the UCI files in
    ``sample_data/uci`` and the versions of
    :data:`PACKAGES` (and of Python).  Computed once per process."""
    return result_store.fingerprint(fingerprint_files(), PACKAGES)


def fingerprint_files():
    """The files whose contents enter :func:`code_fingerprint`."""
    return result_store.core_files() + sorted(uci.UCI_DIR.glob("*.csv"))


def cell_store(directory=None):
    """The disk store of Table 3's cells: ``<directory>`` or
    ``$FLDA_CACHE_DIR/missing_data`` (``~/.cache/flda/missing_data``)."""
    directory = default_cache_dir() / "missing_data" if directory is None else directory
    return result_store.ResultStore(directory, code_fingerprint())


def _cell_key(key, classifier, impute, random_state, transfer):
    return {
        "experiment": "missing_data (Table 3)",
        "data set": key,
        "classifier": classifier,
        "impute": impute,
        "seed": int(random_state),
        "transfer": transfer,
    }


def cell_to_json(cell):
    """A :class:`CellResult` as the store keeps it (JSON, NaN as null)."""
    return {
        "key": cell.key,
        "classifier": cell.classifier,
        "error": None if math.isnan(cell.error) else float(cell.error),
        "n_wrong": int(cell.n_wrong),
        "n_target": int(cell.n_target),
        "params": cell.params,
        "seconds": float(cell.seconds),
        "note": cell.note,
    }


def cell_from_json(value, key, classifier):
    """The stored cell, or None when a field is missing or of the wrong type."""
    number = (int, float)
    checks = (
        value.get("key") == key,
        value.get("classifier") == classifier,
        value.get("error") is None
        or (isinstance(value.get("error"), number) and 0.0 <= value["error"] <= 1.0),
        *(type(value.get(f)) is int and value[f] >= 0 for f in ("n_wrong", "n_target")),
        isinstance(value.get("params"), str),
        isinstance(value.get("note"), str),
        isinstance(value.get("seconds"), number) and not isinstance(value["seconds"], bool),
    )
    if not all(checks) or isinstance(value.get("error"), bool):
        return None
    error = float("nan") if value["error"] is None else float(value["error"])
    return CellResult(
        key,
        classifier,
        error,
        value["n_wrong"],
        value["n_target"],
        value["params"],
        float(value["seconds"]),
        value["note"],
    )


def stored_fit_one(key, classifier, impute="zero", random_state=0, transfer="dropout", store=None):
    """:func:`fit_one`, kept on disk: read from ``store`` when computed before with this
    code, data and libraries, else fitted and written.

    Parameters
    ----------
    key, classifier, impute, random_state, transfer
        As :func:`fit_one`.
    store : ResultStore, optional
        Default :func:`cell_store` (``$FLDA_CACHE_DIR/missing_data``).

    Returns
    -------
    CellResult
        With ``computed_at`` set and ``from_disk`` True when it was read from disk.
    """
    store = cell_store() if store is None else store
    found = store.load_or_compute(
        _cell_key(key, classifier, impute, random_state, transfer),
        lambda: fit_one(key, classifier, impute, random_state, transfer),
        cell_to_json,
        lambda value: cell_from_json(value, key, classifier),
    )
    return replace(found.value, computed_at=found.computed_at, from_disk=found.from_disk, saved=found.saved)


def precompute(
    keys=tuple(uci.UCI_SETS),
    classifiers=CLASSIFIERS,
    impute="zero",
    seed=0,
    transfer="dropout",
    progress=None,
    store=None,
):
    """Fill the disk store with a whole Table 3 (default: the dashboard's default table,
    all six data sets, every classifier, zeros in the gaps, seed 0, dropout).

    Meant for a background thread at server start; cells already stored are read,
    not refitted.  Returns the :class:`MissingDataResult`.
    """

    def fit(*args, **kwargs):
        return stored_fit_one(*args, **kwargs, store=store)

    return run_missing_data(keys, classifiers, impute, seed, fit=fit, progress=progress, transfer=transfer)


@dataclass(frozen=True)
class MissingDataResult:
    """The outcome of :func:`run_missing_data`.

    Attributes
    ----------
    cells : dict ``{(key, classifier): CellResult}``
    errors : DataFrame
        Data sets (the paper's abbreviations) x classifiers, target error here.
    paper : DataFrame
        The paper's Table 3, same layout (NaN where the paper has no column).
    gain : DataFrame
        Per data set: S-LR's error minus FLDA-Q's and FLDA-L's, here and in the
        paper (positive = FLDA makes fewer errors).
    params : DataFrame
        The hyper-parameters cross-validation chose, same layout as ``errors``.
    seconds : DataFrame
        Fit time per cell.
    thetas : dict ``{key: DataFrame}``
        Per data set, :func:`theta_table`.
    impute : str
    transfer : str
        FLDA's transfer model; ``transfer_params`` per data set its estimated
        parameters (:func:`transfer_table`; empty for dropout, whose θ̂ is in
        ``thetas``).
    """

    cells: dict = field(repr=False)
    errors: pd.DataFrame = field(repr=False)
    paper: pd.DataFrame = field(repr=False)
    gain: pd.DataFrame = field(repr=False)
    params: pd.DataFrame = field(repr=False)
    seconds: pd.DataFrame = field(repr=False)
    thetas: dict = field(repr=False)
    impute: str = "zero"
    transfer: str = "dropout"
    transfer_params: dict = field(default_factory=dict, repr=False)

    def long_table(self):
        """One row per (data set, classifier): error here, the paper's, the choice made."""
        rows = []
        for (key, name), cell in self.cells.items():
            rows.append(
                {
                    "data set": uci.UCI_SETS[key].title,
                    "classifier": name,
                    "error": cell.error,
                    "paper (Table 3)": PAPER_TABLE3[key].get(name),
                    "wrong": cell.n_wrong,
                    "target rows": cell.n_target,
                    "chosen by CV on the source": cell.params,
                    "seconds": round(cell.seconds, 3),
                    "note": cell.note,
                    "imputation": self.impute,
                    "transfer model": self.transfer,
                }
            )
        return pd.DataFrame(rows)


def theta_table(key, impute="zero"):
    """θ̂ per encoded feature of a data set, with how often its column is missing.

    Columns: ``feature``, ``column`` (the file column), ``theta`` (FLDA's
    estimate from all source and target rows, section 3.3.1) and
    ``missing in target`` (fraction of target rows with a gap in the column).
    """
    data = problem(key, impute)
    return pd.DataFrame(
        {
            "feature": data.feature_names,
            "column": data.feature_origin,
            "theta": estimate_dropout(data.X_source, data.X_target),
            "missing in target": data.missing_rate,
        }
    )


def transfer_table(key, transfer, impute="zero"):
    """FLDA's estimated ``transfer`` parameters per encoded feature of a data set
    (gaps kept as ``NaN`` for ``"imputation"``), with the share of target rows
    missing the feature's column; None when the model does not apply."""
    from explorer.experiments.transfer_models import transfer_parameter_frame

    data = problem(key, impute, transfer == "imputation")
    try:
        params = make_transfer_model(transfer).fit(data.X_source, data.X_target).params()
    except ValueError:
        return None  # the model does not apply to these data (see fit_one's note)
    frame = transfer_parameter_frame(transfer, params, feature_names=data.feature_names)
    frame["missing in target"] = data.missing_rate
    return frame


@dataclass(frozen=True)
class DataParameters:
    """FLDA's first stage on one data set: the transfer model estimated from the
    source and target rows alone (no classifier fitted).

    Attributes
    ----------
    key, impute, transfer : str
    thetas : DataFrame
        :func:`theta_table` (θ̂ per encoded feature, section 3.3.1).
    transfer_params : DataFrame or None
        :func:`transfer_table` for a transfer model other than dropout; None for
        dropout and where the model does not apply (``applicable`` False).
    applicable : bool
    """

    key: str
    impute: str
    transfer: str
    thetas: pd.DataFrame = field(repr=False)
    transfer_params: pd.DataFrame | None = field(repr=False)
    applicable: bool = True


@functools.lru_cache(maxsize=64)
def _data_parameters(key, impute, transfer):
    params = None if transfer == "dropout" else transfer_table(key, transfer, impute)
    return DataParameters(
        key, impute, transfer, theta_table(key, impute), params, transfer == "dropout" or params is not None
    )


def data_parameters(key, impute="zero", transfer="dropout"):
    """θ̂ (and ``transfer``'s parameters) of a data set from the data alone, cached.

    The same numbers FLDA-Q and FLDA-L use in :func:`fit_one` and that
    :func:`run_missing_data` reports (``thetas``, ``transfer_params``), without
    fitting a classifier: milliseconds instead of the whole table.

    Returns
    -------
    DataParameters
        Fresh copies of the cached tables (callers may modify them).
    """
    cached = _data_parameters(key, impute, transfer)
    return replace(
        cached,
        thetas=cached.thetas.copy(),
        transfer_params=(None if cached.transfer_params is None else cached.transfer_params.copy()),
    )


def _row_label(key):
    return uci.UCI_SETS[key].title


def paper_table(keys=tuple(uci.UCI_SETS), classifiers=CLASSIFIERS):
    """The paper's Table 3 as a DataFrame (rows: data sets, columns: classifiers)."""
    frame = pd.DataFrame(
        {_row_label(k): {c: PAPER_TABLE3[k].get(c, np.nan) for c in classifiers} for k in keys}
    ).T
    frame.index.name = "data set"
    return frame.astype(np.float64)


def _gain(errors, paper):
    columns = {}
    for flda in ("FLDA-Q", "FLDA-L"):
        for source, frame in (("here", errors), ("paper", paper)):
            if {"S-LR", flda} <= set(frame.columns):
                columns[f"S-LR − {flda} ({source})"] = frame["S-LR"] - frame[flda]
    gain = pd.DataFrame(columns, index=errors.index)
    gain.index.name = "data set"
    return gain


def run_missing_data(
    keys=tuple(uci.UCI_SETS),
    classifiers=AVAILABLE,
    impute="zero",
    random_state=0,
    fit=fit_one,
    progress=None,
    transfer="dropout",
    on_data_set=None,
):
    """The whole "missing data at test time" experiment (Table 3).

    Parameters
    ----------
    keys : sequence of str
        Data sets (default: all six, in the paper's order).
    classifiers : sequence of str
        Columns (default: every available classifier).
    impute : {"zero", "mean"}
    random_state : int
    fit : callable ``(key, classifier, impute, random_state) -> CellResult``
        Fits one cell (default :func:`fit_one`); the dashboard passes a cached
        wrapper so that every cell is computed once.
    progress : callable ``(fraction, text)``, optional
        Called before every cell and once at the end with fraction 1.
    transfer : str, default="dropout"
        FLDA's transfer model; any other than dropout is passed to ``fit`` as
        ``transfer=`` for FLDA-Q and FLDA-L.
    on_data_set : callable ``(MissingDataResult) -> None``, optional
        Called after each data set with the result of the data sets done so far
        (the dashboard shows the table filling in).

    Returns
    -------
    MissingDataResult
    """
    keys, classifiers = tuple(keys), tuple(classifiers)
    cells = {}
    total = len(keys) * len(classifiers)
    for i, (key, name) in enumerate((k, c) for k in keys for c in classifiers):
        if progress is not None:
            progress(i / total, f"{name} on {uci.UCI_SETS[key].title} ({i + 1} of {total})")
        extra = {"transfer": transfer} if transfer != "dropout" and name.startswith("FLDA") else {}
        cells[(key, name)] = fit(key, name, impute, random_state, **extra)
        if on_data_set is not None and name == classifiers[-1]:
            on_data_set(_assemble(cells, keys[: keys.index(key) + 1], classifiers, impute, transfer))
    if progress is not None:
        progress(1.0, "done")
    return _assemble(cells, keys, classifiers, impute, transfer)


def _assemble(cells, keys, classifiers, impute, transfer):
    """The :class:`MissingDataResult` of the cells of ``keys`` x ``classifiers``."""
    cells = {(k, c): cells[(k, c)] for k in keys for c in classifiers}

    def frame(value):
        table = pd.DataFrame({_row_label(k): {c: value(cells[(k, c)]) for c in classifiers} for k in keys}).T
        table.index.name = "data set"
        return table

    errors = frame(lambda cell: cell.error).astype(np.float64)
    paper = paper_table(keys, classifiers)
    return MissingDataResult(
        cells=cells,
        errors=errors,
        paper=paper,
        gain=_gain(errors, paper),
        params=frame(lambda cell: cell.params),
        seconds=frame(lambda cell: cell.seconds),
        thetas={k: data_parameters(k, impute).thetas for k in keys},
        impute=impute,
        transfer=transfer,
        transfer_params={}
        if transfer == "dropout"
        else {k: data_parameters(k, impute, transfer).transfer_params for k in keys},
    )
