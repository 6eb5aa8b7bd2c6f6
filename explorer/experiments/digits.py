"""Handwritten digits: the experiment of section 4.2.3 (Table 4, Figures 5-6).

The data come from :mod:`explorer.data.digits`; :func:`run_digits` is the page's entry
point and :func:`stored_fit` keeps the fits on disk, so that a server restart does not
refit.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from flda_core.classifier import FLDAClassifier
from flda_core.selection import FLDAClassifierCV
from explorer.data.digits import balanced_subsample, direction_data, fingerprint, make_offline_domains
from explorer.errors import DataValidationError
from explorer.names import TABLE_CLASSIFIERS, classifier_loss
from flda_core.transfer import estimate_dropout
from explorer.experiments import result_store
from explorer.experiments.progress import finish, report
from explorer.experiments.scoring import error_rate

#: Table 4 of the paper: target error rates, M = MNIST, U = USPS.
#: S-LS is not in the paper's table.
PAPER_TABLE4 = {
    "M → U": {"S-LR": 0.747, "FLDA-Q": 0.811, "FLDA-L": 0.678, "T-LR": 0.055},
    "U → M": {"S-LR": 0.770, "FLDA-Q": 0.640, "FLDA-L": 0.684, "T-LR": 0.234},
}
#: Ridge penalties tried by cross-validation on the source data.
L2_GRID = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
#: The two directions of the experiment, as :func:`direction_data` names them.
DIRECTIONS = ("A → B", "B → A")
#: BLAS threads used while fitting.  The matrices here are small (256 features,
#: 10 classes): on a shared machine multi-threaded BLAS is up to 10x *slower*
#: (measured: 15 s instead of 0.9 s for one S-LR fit on 900 digits).
BLAS_THREADS = 1


@dataclass(frozen=True)
class MethodResult:
    """One classifier fitted for one direction.

    Attributes
    ----------
    method : str
        Paper name (``"S-LR"``, ``"FLDA-L"``, ...).
    error : float
        Error rate on all target images (T-LR: 3-fold cross-validated on the target).
    l2 : float
        Ridge penalty used.
    cv_errors : dict
        ``{l2: mean validation error}`` when ``l2`` was chosen by cross-validation.
    coef : ndarray of shape (n_classes, n_features)
        One row per class (for two classes the second row is the fitted
        weight vector and the first its negative).
    intercept : ndarray of shape (n_classes,)
    classes : ndarray
    theta : ndarray of shape (n_features,)
        Dropout probabilities used (0 for S-* and T-LR).
    n_iter : int
    warnings : tuple of str
        Messages of the ``ConvergenceWarning``s of the final fit (iteration
        cap, abnormal solver stop, no iteration); see :func:`convergence_notes`.
    """

    method: str
    error: float
    l2: float
    cv_errors: dict
    coef: np.ndarray = field(repr=False)
    intercept: np.ndarray = field(repr=False)
    classes: np.ndarray = field(repr=False)
    theta: np.ndarray = field(repr=False)
    n_iter: int = 0
    warnings: tuple = ()

    def weights(self, label):
        """Weights of the one-vs-rest / softmax predictor of class ``label``."""
        index = np.flatnonzero(self.classes == label)
        if len(index) == 0:
            raise KeyError(f"Class {label!r} is not among {self.classes.tolist()}.")
        return self.coef[index[0]]


def make_classifier(method, l2, theta=None, tol=1e-6, max_iter=1000):
    """An unfitted :class:`FLDAClassifier` for a paper name.

    S-LS / S-LR / T-LR use ``theta = 0`` (plain least squares / logistic
    regression), FLDA-Q / FLDA-L the given dropout ``theta``.  ``tol=1e-6`` (the
    classifier's default): at 1e-5 the Table 4 errors of the offline domains
    move by up to 0.002, at 1e-4 by up to 0.06 (``benchmarks/bench_tolerance.py``).
    """
    if method not in TABLE_CLASSIFIERS and method != "T-LS":
        raise ValueError(f"Unknown method {method!r}; choose from {TABLE_CLASSIFIERS}.")
    return FLDAClassifier(
        loss=classifier_loss(method),
        l2=float(l2),
        theta=theta if method.startswith("FLDA") else None,
        tol=tol,
        max_iter=max_iter,
    )


def _folds(y, n_folds, random_state):
    """Shuffled stratified folds, at most as many as the rarest class has images."""
    n_folds = int(min(n_folds, np.min(np.unique(y, return_counts=True)[1])))
    if n_folds < 2:
        raise DataValidationError(
            "Cross-validation needs at least 2 images of every class.",
            "Use more images (every class needs at least 2 images in each domain).",
        )
    return StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)


def _negative_error(model, X, y):
    """The validation score of :func:`cross_validate_l2`: minus the page's error rate."""
    return -error_rate(model, X, y)


def _validate(X, y, method, theta, grid, n_folds, random_state, tol):
    """:class:`FLDAClassifierCV` (no refit) of ``method`` over ``grid`` on ``(X, y)``, on
    :data:`BLAS_THREADS`; every fit starts cold, as in scikit-learn's ``GridSearchCV``."""
    params = make_classifier(method, 0.0, theta, tol=tol).get_params()
    del params["l2"], params["warm_start"]
    search = FLDAClassifierCV(
        **params, l2s=grid, cv=_folds(y, n_folds, random_state), scoring=_negative_error, refit=False
    )
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return search.fit(X, y)


def cross_validate_l2(
    X, y, method, theta=None, grid=L2_GRID, n_folds=3, random_state=0, tol=1e-4, max_samples=3_000
):
    """Choose the ridge penalty by k-fold cross-validation on labelled data.

    As in the paper (section 4.2), on the source data only (T-LR, the oracle, on the
    target); FLDA keeps its ``theta`` fixed in every fold.  At most ``max_samples`` images
    (a seeded, stratified subset) are used and fits stop at ``tol`` (1e-4 picks the same
    ``l2`` as 1e-8 on the offline domains; ``benchmarks/bench_tolerance.py``); ties go to
    the larger penalty (:class:`flda_core.FLDAClassifierCV`).

    Returns
    -------
    best_l2 : float
    errors : dict ``{l2: mean validation error}``
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if len(y) > max_samples:
        keep = balanced_subsample(y, max_samples, random_state)
        X, y = X[keep], y[keep]
    search = _validate(X, y, method, theta, tuple(grid), n_folds, random_state, tol)
    errors = -search.cv_results_["mean_test_score"]
    return search.l2_, {float(l2): float(e) for l2, e in zip(grid, errors)}


def fit_method(
    X_source, y_source, X_target, y_target, method, l2=None, zero_tol=0.0, tol=1e-6, n_folds=3, random_state=0
):
    """Fit one of :data:`TABLE_CLASSIFIERS` for one direction and measure its target error.

    S-LS, S-LR, FLDA-Q and FLDA-L are trained on all source images (FLDA also sees the
    target images through ``theta``, with ``|x| <= zero_tol`` counted as zero) and tested on
    all target images, as in Table 4.  T-LR, the oracle, has the ``n_folds``-fold
    cross-validated error on the target and the weights of a fit on all of it.

    Parameters
    ----------
    l2 : float or None
        Ridge penalty; ``None`` chooses it with :func:`cross_validate_l2`.

    Returns
    -------
    MethodResult
    """
    X_source, X_target = np.asarray(X_source, dtype=np.float64), np.asarray(X_target, dtype=np.float64)
    y_source, y_target = np.asarray(y_source), np.asarray(y_target)
    flda = method.startswith("FLDA")
    theta = estimate_dropout(X_source, X_target, zero_tol=zero_tol) if flda else np.zeros(X_source.shape[1])
    oracle = method == "T-LR"
    train_X, train_y = (X_target, y_target) if oracle else (X_source, y_source)
    l2, cv_errors, model, stops = _train(train_X, train_y, method, l2, theta, random_state, tol)
    if oracle:
        search = _validate(X_target, y_target, method, theta, (l2,), n_folds, random_state, tol)
        error = float(-search.cv_results_["mean_test_score"][0])
    else:
        with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
            error = error_rate(model, X_target, y_target)
    # Copies: a remembered model is shared (see _train).
    coef, intercept = np.array(model.coef_), np.array(model.intercept_)
    if coef.shape[0] == 1:  # two classes: show the positive class's predictor for both
        coef, intercept = np.vstack([-coef[0], coef[0]]), np.array([-intercept[0], intercept[0]])
    return MethodResult(
        method=method,
        error=float(error),
        l2=float(l2),
        cv_errors=dict(cv_errors),
        coef=coef,
        intercept=intercept,
        classes=np.array(model.classes_),
        theta=theta,
        n_iter=int(model.n_iter_),
        warnings=stops,
    )


#: How many trainings of the classifiers without θ :func:`_train` remembers.
_TRAINED_SIZE = 8
_TRAINED = {}
_TRAINED_LOCK = threading.Lock()


def _train(X, y, method, l2, theta, random_state, tol):
    """The ridge penalty (cross-validated when ``l2`` is None), its validation errors, the
    classifier fitted on all of ``(X, y)`` and its convergence messages.

    A classifier without θ (S-LS, S-LR, T-LR) depends only on its labelled data and
    loss: S-LR of one direction and T-LR of the other train on the same images (the
    digits' source of one is the target of the other), so the training is remembered
    (the last :data:`_TRAINED_SIZE`, by content) and done once for both; what comes
    back is the same computation, bit for bit.
    """
    key = None
    if not method.startswith("FLDA"):
        key = (fingerprint(X, y), classifier_loss(method), l2, random_state, tol)
        with _TRAINED_LOCK:
            if key in _TRAINED:
                _TRAINED[key] = _TRAINED.pop(key)  # most recently used last
                return _TRAINED[key]
    cv_errors = {}
    if l2 is None:
        l2, cv_errors = cross_validate_l2(X, y, method, theta, random_state=random_state)
    with (
        threadpool_limits(limits=BLAS_THREADS, user_api="blas"),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always", ConvergenceWarning)
        model = make_classifier(method, l2, theta, tol=tol).fit(X, y)
    stops = tuple(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)))
    trained = (float(l2), cv_errors, model, stops)
    if key is not None:
        with _TRAINED_LOCK:
            _TRAINED[key] = trained
            while len(_TRAINED) > _TRAINED_SIZE:
                _TRAINED.pop(next(iter(_TRAINED)))
    return trained


def fit_direction(domains, direction, method, l2=None, zero_tol=0.0, seed=0):
    """:func:`fit_method` for one direction of ``domains`` (``"A → B"``: A is the source)."""
    X_s, y_s, X_t, y_t = direction_data(domains, direction)
    return fit_method(X_s, y_s, X_t, y_t, method, l2=l2, zero_tol=zero_tol, random_state=seed)


def stored_fit(domains, direction, method, l2=None, zero_tol=0.0, seed=0, store=None):
    """:func:`fit_direction`, kept on disk (:func:`explorer.experiments.result_store.stored`,
    JSON under ``$FLDA_CACHE_DIR/digits``, at most :data:`STORE_MAX_FILES` fits), keyed by
    the settings and the data's content (:attr:`DigitDomains.key`): read when this code fitted
    it before, else fitted and written.  What it returns equals a fresh fit exactly."""
    n = domains.X_a.shape[1]

    def valid(r):
        k = len(r.classes)
        shapes = (r.classes.ndim, r.coef.shape, r.intercept.shape, r.theta.shape)
        ranges = r.method == method and 0.0 <= r.error <= 1.0 and r.l2 >= 0.0 and r.n_iter >= 0
        return ranges and shapes == (1, (k, n), (k,), (n,))

    key = {"experiment": "digits (Table 4)", "data": domains.key, "direction": direction, "method": method}
    key |= {"l2": None if l2 is None else float(l2), "zero_tol": float(zero_tol), "seed": int(seed)}
    fit = functools.partial(fit_direction, domains, direction, method, l2, zero_tol, seed)
    return result_store.stored("digits", key, fit, MethodResult, valid, store, STORE_MAX_FILES).value


#: Fits kept in the digits' store at most (about 31 kB each: 16 MB), the oldest go first.
STORE_MAX_FILES = 500


def stored_fitter(domains, seed=0, store=None):
    """The ``fit=`` of :func:`run_digits` that keeps every fit in ``store``
    (:func:`stored_fit`): a fit this code made before on the same data is read, not fitted
    again."""
    return functools.partial(stored_fit, domains, seed=seed, store=store)


def precompute(seed=0, progress=None, store=None):
    """Fill the disk store with the page's default fits (:func:`run_digits` on the offline
    domains of ``seed``): meant for a background thread at server start."""
    domains = make_offline_domains(random_state=seed)
    return run_digits(domains, seed=seed, fit=stored_fitter(domains, seed, store), progress=progress)


def convergence_notes(results):
    """One message per distinct ``ConvergenceWarning`` of the final fits in ``results``
    (``{(direction, method): MethodResult}``), naming the fits it concerns."""
    notes = {}
    for (direction, method), result in results.items():
        for message in result.warnings:
            notes.setdefault(message, []).append(f"{method} ({direction})")
    return [f"{', '.join(fits)}: {message}" for message, fits in notes.items()]


def table4_frame(results, domains):
    """Target error rates, one row per direction, one column per method.

    Parameters
    ----------
    results : dict ``{(direction, method): MethodResult}``
    domains : DigitDomains

    Returns
    -------
    pandas.DataFrame
        Index: ``"A → B (name_a → name_b)"``, ...; columns: :data:`TABLE_CLASSIFIERS`
        present in ``results``; values in [0, 1].
    """
    rows = {}
    for direction in DIRECTIONS:
        row = {m: results[(direction, m)].error for m in TABLE_CLASSIFIERS if (direction, m) in results}
        if row:
            rows[f"{direction}: {' → '.join(domains.names_of(direction))}"] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "direction (source → target)"
    return frame.reindex(columns=[m for m in TABLE_CLASSIFIERS if m in frame.columns])


def paper_table(domains):
    """The paper's Table 4 as a DataFrame (S-LS, not in the paper, is missing), its rows
    in the order of :func:`table4_frame` (A -> B first), saying which direction of
    ``domains`` they correspond to (``paper_rows``)."""
    mapping = domains.paper_rows
    order = [(mapping[d], f"paper {mapping[d]} (like {d} here)") for d in DIRECTIONS]
    rows = {label: {m: PAPER_TABLE4[row].get(m, np.nan) for m in TABLE_CLASSIFIERS} for row, label in order}
    frame = pd.DataFrame.from_dict(rows, orient="index").astype(np.float64)
    frame.index.name = "direction (source → target)"
    return frame[list(TABLE_CLASSIFIERS)]


def comparison_table(ours, paper):
    """:func:`table4_frame` above :func:`paper_table`, one row each, a column saying which."""
    ours = ours.reindex(columns=list(TABLE_CLASSIFIERS)).assign(**{"from": "here"})
    paper = paper.reindex(columns=list(TABLE_CLASSIFIERS)).assign(**{"from": "paper, Table 4"})
    frame = pd.concat([ours, paper])
    return frame[["from", *TABLE_CLASSIFIERS]]


#: The pair of classifiers Figure 6 compares, per loss (source classifier, FLDA).
FIGURE6_PAIRS = {"logistic": ("S-LR", "FLDA-L"), "quadratic": ("S-LS", "FLDA-Q")}


def run_digits(
    domains, first_direction="A → B", loss="logistic", l2=None, zero_tol=0.0, seed=0, fit=None, progress=None
):
    """Every classifier of Table 4 in both directions: the experiment's entry point.

    The pair of Figure 6 for ``loss`` and ``first_direction`` is fitted first
    (so a page can show it early), then every other (direction, classifier).

    Parameters
    ----------
    domains : DigitDomains
    first_direction : {"A → B", "B → A"}
    loss : {"logistic", "quadratic"}
        Chooses the pair of :data:`FIGURE6_PAIRS` fitted first.
    l2 : float or None
        Ridge penalty of every fit; ``None`` cross-validates it per fit
        (:func:`cross_validate_l2`).
    zero_tol : float
        ``|x| <= zero_tol`` counts as zero when FLDA estimates ``theta``
        (the other classifiers get 0, so their fits do not depend on it).
    seed : int
        Seeds the cross-validation folds.
    fit : callable(direction, method, l2, zero_tol) -> MethodResult, optional
        Fits one classifier for one direction; defaults to :func:`fit_method`
        on :func:`~explorer.data.digits.direction_data`.  A page passes
        its cached version.
    progress : callable(fraction, text), optional
        See :mod:`explorer.experiments.progress`.

    Returns
    -------
    dict ``{(direction, method): MethodResult}``
    """
    fit = functools.partial(fit_direction, domains, seed=seed) if fit is None else fit
    jobs = [(first_direction, m) for m in FIGURE6_PAIRS[loss]]
    jobs += [(d, m) for d in DIRECTIONS for m in TABLE_CLASSIFIERS if (d, m) not in jobs]
    results = {}
    cv = ", choosing l2 by 3-fold cross-validation" if l2 is None else ""
    for i, (direction, method) in enumerate(jobs):
        names = " → ".join(domains.names_of(direction))
        report(
            progress, i, len(jobs), f"Fitting {method} for {direction} ({names}){cv} — {i + 1} of {len(jobs)}"
        )
        tol = zero_tol if method.startswith("FLDA") else 0.0
        results[(direction, method)] = fit(direction, method, l2, tol)
    finish(progress)
    return results


def pixel_frame(domains, rates, results, direction, loss, digit):
    """Per-pixel values behind Figures 5-6, for download.

    Columns: pixel ``row`` and ``column``, the non-zero proportions of both
    domains (``rates``, Figure 5), the ``theta`` FLDA used in ``direction``
    and the weights of the :data:`FIGURE6_PAIRS` classifiers for ``digit``
    (Figure 6).
    """
    shown = FIGURE6_PAIRS[loss]
    rows, cols = np.divmod(np.arange(domains.side**2), domains.side)
    frame = pd.DataFrame(
        {
            "row": rows,
            "column": cols,
            f"P_nonzero_A ({domains.name_a})": rates[0],
            f"P_nonzero_B ({domains.name_b})": rates[1],
            f"theta ({direction})": results[(direction, shown[1])].theta,
        }
    )
    for method in shown:
        frame[f"{method} weight, digit {digit} ({direction})"] = results[(direction, method)].weights(digit)
    return frame


def l2_frame(results):
    """The l2 used by every fit and, with cross-validation, the validation errors."""
    records = []
    for (direction, method), r in sorted(
        results.items(), key=lambda item: (DIRECTIONS.index(item[0][0]), TABLE_CLASSIFIERS.index(item[0][1]))
    ):
        record = {"direction": direction, "method": method, "l2": r.l2, "target error": r.error}
        record.update({f"CV error at l2={k:g}": v for k, v in r.cv_errors.items()})
        records.append(record)
    return pd.DataFrame.from_records(records)
