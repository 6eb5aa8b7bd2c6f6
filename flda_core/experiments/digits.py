"""Handwritten digits: the experiment of section 4.2.3 (Table 4, Figures 5-6).

The data come from :mod:`flda_core.datasets.digits`.  :func:`fit_method` fits
one of the paper's classifiers for one direction (source -> target) and
returns its target error, weights and ``theta``; :func:`cross_validate_l2`
chooses the ridge penalty on the source data; :func:`run_digits` is the page's
entry point (every classifier, both directions, with progress); the tables
(:func:`table4_frame`, :func:`paper_table`, :func:`comparison_table`,
:func:`l2_frame`) and :func:`pixel_frame` summarise the results.  Errors follow
:mod:`flda_core.experiments.scoring`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from ..classifier import FLDAClassifier
from ..datasets.digits import balanced_subsample, direction_data
from ..errors import DataValidationError
from ..names import TABLE_CLASSIFIERS, classifier_loss
from ..transfer import estimate_dropout
from .progress import finish, report
from .scoring import error_rate

__all__ = [
    "PAPER_TABLE4", "L2_GRID", "BLAS_THREADS", "DIRECTIONS", "MethodResult",
    "make_classifier", "cross_validate_l2", "fit_method", "run_digits", "table4_frame",
    "paper_table", "comparison_table", "l2_frame", "pixel_frame", "convergence_notes",
]

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


def make_classifier(method, l2, theta=None, tol=1e-4, max_iter=500):
    """An unfitted :class:`FLDAClassifier` for a paper name.

    S-LS / S-LR / T-LR use ``theta = 0`` (plain least squares / logistic
    regression), FLDA-Q / FLDA-L the given dropout ``theta``.
    """
    if method not in TABLE_CLASSIFIERS and method != "T-LS":
        raise ValueError(f"Unknown method {method!r}; choose from {TABLE_CLASSIFIERS}.")
    loss = classifier_loss(method)
    use_theta = theta if method.startswith("FLDA") else None
    return FLDAClassifier(loss=loss, l2=float(l2), theta=use_theta, tol=tol, max_iter=max_iter)


def _fold_errors(X, y, method, theta, grid, n_folds, random_state, tol):
    """Mean validation error per l2 over stratified folds, shape (len(grid),)."""
    n_folds = int(min(n_folds, np.min(np.unique(y, return_counts=True)[1])))
    if n_folds < 2:
        raise DataValidationError(
            "Cross-validation needs at least 2 images of every class.",
            "Upload more images of the rare classes (every class needs at least 2 images "
            "in each domain).")
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    errors = np.zeros(len(grid))
    for train, test in folds.split(X, y):
        for k, l2 in enumerate(grid):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = make_classifier(method, l2, theta, tol=tol).fit(X[train], y[train])
            errors[k] += error_rate(model, X[test], y[test]) / n_folds
    return errors


def cross_validate_l2(X, y, method, theta=None, grid=L2_GRID, n_folds=3, random_state=0,
                      tol=1e-3, max_samples=3_000):
    """Choose the ridge penalty by k-fold cross-validation on labelled data.

    As in the paper (section 4.2), hyperparameters are chosen on the source
    data only (T-LR, the oracle, on the target).  FLDA keeps its ``theta``
    (estimated from all source and target images) fixed in every fold.  To
    stay cheap, at most ``max_samples`` images (a seeded, stratified subset)
    are used and logistic fits stop at tolerance ``tol``.  Ties go to the
    larger penalty.

    Returns
    -------
    best_l2 : float
    errors : dict ``{l2: mean validation error}``
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if len(y) > max_samples:
        keep = balanced_subsample(y, max_samples, random_state)
        X, y = X[keep], y[keep]
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        errors = _fold_errors(X, y, method, theta, tuple(grid), n_folds, random_state, tol)
    best = max(range(len(grid)), key=lambda k: (-round(errors[k], 12), grid[k]))
    return float(grid[best]), {float(l2): float(e) for l2, e in zip(grid, errors)}


def fit_method(X_source, y_source, X_target, y_target, method, l2=None, zero_tol=0.0,
               tol=1e-4, n_folds=3, random_state=0):
    """Fit one of :data:`TABLE_CLASSIFIERS` for one direction and measure its target error.

    S-LS, S-LR, FLDA-Q and FLDA-L are trained on all source images (FLDA also
    sees the unlabelled target images through ``theta``, estimated with
    ``|x| <= zero_tol`` counted as zero) and tested on all target images, as
    in Table 4.  T-LR, the oracle, is trained on labelled target images; its
    error is the ``n_folds``-fold cross-validated error on the target, so it is
    never measured on images it was trained on; its weights come from a fit on
    all target images.

    Parameters
    ----------
    l2 : float or None
        Ridge penalty; ``None`` chooses it with :func:`cross_validate_l2`.

    Returns
    -------
    MethodResult
    """
    X_source = np.asarray(X_source, dtype=np.float64)
    X_target = np.asarray(X_target, dtype=np.float64)
    y_source, y_target = np.asarray(y_source), np.asarray(y_target)
    n_features = X_source.shape[1]
    theta = (estimate_dropout(X_source, X_target, zero_tol=zero_tol)
             if method.startswith("FLDA") else np.zeros(n_features))
    if method == "T-LR":
        train_X, train_y = X_target, y_target
    else:
        train_X, train_y = X_source, y_source
    cv_errors = {}
    if l2 is None:
        l2, cv_errors = cross_validate_l2(train_X, train_y, method, theta,
                                          random_state=random_state)
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = make_classifier(method, l2, theta, tol=tol).fit(train_X, train_y)
        stops = tuple(dict.fromkeys(str(w.message) for w in caught
                                    if issubclass(w.category, ConvergenceWarning)))
        warnings.simplefilter("ignore", ConvergenceWarning)
        if method == "T-LR":
            error = float(_fold_errors(X_target, y_target, method, theta, (l2,), n_folds,
                                       random_state, tol)[0])
        else:
            error = error_rate(model, X_target, y_target)
    coef = model.coef_
    if coef.shape[0] == 1:  # two classes: show the positive class's predictor for both
        coef = np.vstack([-coef[0], coef[0]])
        intercept = np.array([-model.intercept_[0], model.intercept_[0]])
    else:
        intercept = model.intercept_
    return MethodResult(method=method, error=float(error), l2=float(l2), cv_errors=cv_errors,
                        coef=coef, intercept=intercept, classes=model.classes_, theta=theta,
                        n_iter=int(model.n_iter_), warnings=stops)


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
        src, tgt = ("A", "B") if direction == "A → B" else ("B", "A")
        label = f"{direction}: {domains.name(src)} → {domains.name(tgt)}"
        row = {m: results[(direction, m)].error for m in TABLE_CLASSIFIERS if (direction, m) in results}
        if row:
            rows[label] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "direction (source → target)"
    return frame.reindex(columns=[m for m in TABLE_CLASSIFIERS if m in frame.columns])


def paper_table(domains=None):
    """The paper's Table 4 as a DataFrame (S-LS, not in the paper, is missing).

    With ``domains`` that mirror MNIST/USPS (``paper_rows`` set), the rows are
    in the order of :func:`table4_frame` (A -> B first) and say which direction
    here they correspond to.
    """
    mapping = {} if domains is None else dict(domains.paper_rows)
    if mapping:
        order = [(mapping[d], f"paper {mapping[d]} (like {d} here)")
                 for d in DIRECTIONS]
    else:
        order = [(row, f"paper {row}") for row in PAPER_TABLE4]
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


def run_digits(domains, first_direction="A → B", loss="logistic", l2=None, zero_tol=0.0,
               seed=0, fit=None, progress=None):
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
        on :func:`~flda_core.datasets.digits.direction_data`.  A page passes
        its cached version.
    progress : callable(fraction, text), optional
        See :mod:`flda_core.experiments.progress`.

    Returns
    -------
    dict ``{(direction, method): MethodResult}``
    """
    if fit is None:
        def fit(direction, method, l2, zero_tol):
            X_s, y_s, X_t, y_t = direction_data(domains, direction)
            return fit_method(X_s, y_s, X_t, y_t, method, l2=l2, zero_tol=zero_tol,
                              random_state=seed)
    jobs = [(first_direction, m) for m in FIGURE6_PAIRS[loss]]
    jobs += [(d, m) for d in DIRECTIONS for m in TABLE_CLASSIFIERS if (d, m) not in jobs]
    results = {}
    for i, (direction, method) in enumerate(jobs):
        src, tgt = ("A", "B") if direction == "A → B" else ("B", "A")
        report(progress, i, len(jobs),
               f"Fitting {method} for {direction} ({domains.name(src)} → {domains.name(tgt)})"
               + (", choosing l2 by 3-fold cross-validation" if l2 is None else "")
               + f" — {i + 1} of {len(jobs)}")
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
    rows, cols = np.divmod(np.arange(domains.side ** 2), domains.side)
    frame = pd.DataFrame({"row": rows, "column": cols,
                          f"P_nonzero_A ({domains.name_a})": rates[0],
                          f"P_nonzero_B ({domains.name_b})": rates[1],
                          f"theta ({direction})": results[(direction, shown[1])].theta})
    for method in shown:
        frame[f"{method} weight, digit {digit} ({direction})"] = \
            results[(direction, method)].weights(digit)
    return frame


def l2_frame(results):
    """The l2 used by every fit and, with cross-validation, the validation errors."""
    records = []
    for (direction, method), r in sorted(results.items(), key=lambda item: (
            DIRECTIONS.index(item[0][0]), TABLE_CLASSIFIERS.index(item[0][1]))):
        record = {"direction": direction, "method": method, "l2": r.l2,
                  "target error": r.error}
        record.update({f"CV error at l2={k:g}": v for k, v in r.cv_errors.items()})
        records.append(record)
    return pd.DataFrame.from_records(records)
