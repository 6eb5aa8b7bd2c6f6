"""The one check of what FLDA's estimators are given: parameters, fit inputs, domains.

:class:`flda_core.FLDAClassifier` and :class:`flda_core.FLDAClassifierCV` both
validate ``fit``'s inputs with :func:`validate_fit_inputs`, so both accept and
refuse the same data with the same messages.  Only public scikit-learn API is
used (``check_array``, ``validate_data``, ``check_classification_targets``).
"""

from __future__ import annotations

import inspect
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, validate_data

from flda_core.solvers import QUADRATIC_SOLVERS
from flda_core.transfer_models import _MODELS, TRANSFER_MODELS

__all__ = [
    "MAX_ABS_FEATURE",
    "MIN_ABS_FEATURE",
    "FitInputs",
    "check_parameters",
    "split_domains",
    "take_domains",
    "validate_fit_inputs",
]

#: Largest feature magnitude accepted: the objectives square feature values
#: (Eq. (10)), which overflows float64 beyond about 1.3e154.
MAX_ABS_FEATURE = 1e150

#: Smallest largest-magnitude of a non-zero feature column accepted: the
#: objectives square feature values (Eq. (10)), and below about 1e-154 the squares
#: underflow to 0, so such a column looks constant and the fit degenerates.
MIN_ABS_FEATURE = 1e-150


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


def _one_of(*options):
    def check(value):
        return isinstance(value, str) and value in options

    return check, "one of " + ", ".join(repr(o) for o in options)


def _number(low, low_closed=True, high=None, integer=False):
    kind = Integral if integer else Real

    def check(value):
        if isinstance(value, bool) or not isinstance(value, kind) or not np.isfinite(value):
            return False
        above = value >= low if low_closed else value > low
        return above and (high is None or value <= high)

    interval = ("[" if low_closed else "(") + f"{low}, " + ("inf)" if high is None else f"{high}]")
    return check, ("an int" if integer else "a number") + f" in {interval}"


def _boolean():
    return (lambda value: isinstance(value, (bool, np.bool_))), "True or False"


def _of_type(kinds, text):
    return (lambda value: value is None or isinstance(value, kinds)), text


def _theta():
    def check(value):
        if value is None or isinstance(value, (list, tuple, np.ndarray)):
            return True  # checked against the data by check_theta
        return _number(0.0, True, 1.0)[0](value)

    return check, "None, a number in [0, 1] or one per feature"


#: What each constructor parameter may be: ``name -> (check, description)``.
PARAMETER_CHECKS = {
    "loss": _one_of("logistic", "quadratic"),
    "l2": _number(0.0),
    "theta": _theta(),
    "zero_tol": _number(0.0),
    "solver": _one_of(*QUADRATIC_SOLVERS),
    "tol": _number(0.0, low_closed=False),
    "max_iter": _number(1, integer=True),
    "transfer": _one_of(*TRANSFER_MODELS),
    "transfer_params": _of_type(dict, "None or a dict"),
    "warm_start": _boolean(),
    "refit": _boolean(),
    "n_jobs": _of_type(Integral, "None or an int"),
    "scoring": (
        lambda value: value is None or isinstance(value, str) or callable(value),
        "None, a str or a callable",
    ),
}


def check_parameters(estimator):
    """Refuse constructor parameters of the wrong kind, naming what is allowed.

    Parameters
    ----------
    estimator : FLDAClassifier or FLDAClassifierCV
        Its parameters found in :data:`PARAMETER_CHECKS` are checked; the others
        (``l2s``, ``cv``) by the estimator itself.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        ``The 'l2' parameter of FLDAClassifier must be a number in [0.0, inf); got -1.``
    """
    for name, value in estimator.get_params(deep=False).items():
        if name not in PARAMETER_CHECKS:
            continue
        check, allowed = PARAMETER_CHECKS[name]
        if not check(value):
            raise ValueError(
                f"The {name!r} parameter of {type(estimator).__name__} must be {allowed}; got {value!r}."
            )


# --------------------------------------------------------------------------
# Features, labels and weights
# --------------------------------------------------------------------------


def finite_check(transfer):
    """``ensure_all_finite`` for scikit-learn's checks: NaN allowed where the transfer
    model imputes missing values (``"imputation"``), nowhere else."""
    return "allow-nan" if _MODELS[transfer].allows_nan else True


def _check_label_types(y):
    """A clear error for labels mixing text and numbers (they cannot be ordered)."""
    if y.dtype != object:
        return
    kinds = {
        "text" if isinstance(v, str) else "number" if isinstance(v, (Real, Integral)) else type(v).__name__
        for v in y
    }
    if len(kinds) > 1:
        examples = {}
        for v in y:
            examples.setdefault("text" if isinstance(v, str) else "other", v)
        raise ValueError(
            f"y mixes label types ({', '.join(sorted(kinds))}), e.g. "
            f"{' and '.join(repr(v) for v in examples.values())}; they cannot be ordered "
            "as classes. Convert all labels to one type first, e.g. y.astype(str)."
        )


def _check_magnitudes(X):
    """Refuse values whose squares overflow and columns whose squares underflow."""
    if not X.size:
        return
    largest = abs(X).max()
    if largest > MAX_ABS_FEATURE:
        raise ValueError(
            f"X has values as large as {float(largest):.3g}; FLDA squares feature values, "
            f"which overflows 64-bit floats beyond about 1e154. Rescale the features, e.g. "
            "divide every column by its root mean square."
        )
    if sp.issparse(X):
        column_max = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        column_max = np.fmax.reduce(np.abs(X), axis=0)  # NaN (imputation) ignored
    tiny = np.flatnonzero((column_max > 0) & (column_max < MIN_ABS_FEATURE))
    if len(tiny):
        shown = ", ".join(str(j) for j in tiny[:5]) + (" ..." if len(tiny) > 5 else "")
        raise ValueError(
            f"X has feature column(s) {shown} whose largest value is only "
            f"{float(column_max[tiny[0]]):.3g}; FLDA squares feature values (Eq. (10)), which "
            "underflow to 0 in 64-bit floats below about 1e-154, so the fit would be "
            "degenerate. Rescale the features, e.g. divide every column by its root mean "
            "square."
        )


def _check_sample_weight(sample_weight, n_rows):
    """``sample_weight`` as a float64 vector of ``n_rows`` finite, non-negative values,
    not all zero (scikit-learn's messages, with its public ``check_array``)."""
    if isinstance(sample_weight, Real):
        sample_weight = np.full(n_rows, sample_weight, dtype=np.float64)
    weights = check_array(sample_weight, ensure_2d=False, dtype=np.float64, input_name="sample_weight")
    if weights.ndim != 1 or len(weights) != n_rows:
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected ({n_rows},)!")
    if np.any(weights < 0):
        raise ValueError("Negative values in data passed to `sample_weight`")
    if not np.any(weights > 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return weights


def _normalise_weights(sample_weight):
    """``sample_weight`` divided by a power of two near its maximum (exact, so ordinary
    weights give bit-identical sums up to that common factor, which every weighted mean
    cancels): weights of any scale, 1e308 or 1e-320, give the fit of weights near 1."""
    largest = float(np.max(sample_weight))
    _, exponent = np.frexp(largest)
    scaled = np.ldexp(sample_weight, -int(exponent))
    lost = (scaled == 0) & (sample_weight > 0)
    if lost.any():
        raise ValueError(
            f"sample_weight spans too many orders of magnitude: {int(lost.sum())} positive "
            f"weight(s) (e.g. {float(sample_weight[lost][0]):.3g}) underflow to 0 next to the "
            f"largest ({largest:.3g}). Give those samples weight 0, or compress the weights "
            "(e.g. take a power < 1 of them)."
        )
    return scaled


def _check_class_weights(classes, y_index, sample_weight):
    """Every class needs a positive total weight (its intercept would run to -inf)."""
    totals = np.bincount(y_index, weights=sample_weight, minlength=len(classes))
    empty = classes[totals <= 0]
    if len(empty):
        raise ValueError(
            f"sample_weight gives class(es) {', '.join(repr(c) for c in empty.tolist())} a "
            "total weight of 0; every class in y needs a positive total weight. Remove the "
            "samples of such classes from X and y instead."
        )


# --------------------------------------------------------------------------
# skada's stacked domains
# --------------------------------------------------------------------------


def _num_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, rows):
    """Rows ``rows`` of ``X``: an array, a sparse matrix, a DataFrame (by position) or a list."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if sp.issparse(X):
        return X.tocsr()[rows]
    if isinstance(X, np.ndarray):
        return X[rows]
    return np.asarray(X)[rows]


def split_domains(X, y, sample_domain, sample_weight=None, X_target=None):
    """Source rows, their labels and weights, and the target rows of skada's stacked data.

    skada's convention: ``sample_domain`` labels every row with its domain,
    positive for a source domain and negative for a target domain (several of
    either are pooled); the labels of target rows are masked (``-1``, or
    ``NaN``) and never read here.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_domain : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), optional
    X_target : None
        Must be ``None``: the target rows come from ``X``.

    Returns
    -------
    X_source, y_source, sample_weight_source, X_target
        ``X_target`` is ``None`` when no row is a target row.
    """
    if X_target is not None:
        raise ValueError(
            "Give the target data either as X_target or as rows of X with a negative "
            "sample_domain (skada's convention), not both."
        )
    sample_domain = check_array(sample_domain, ensure_2d=False, dtype=None, input_name="sample_domain")
    if sample_domain.ndim != 1 or len(sample_domain) != _num_rows(X):
        raise ValueError(
            f"sample_domain must hold one domain label per row of X ({_num_rows(X)}); "
            f"got shape {sample_domain.shape}."
        )
    if not np.issubdtype(sample_domain.dtype, np.number) or not np.all(np.isfinite(sample_domain)):
        raise ValueError("sample_domain must be numbers: positive for source rows, negative for target rows.")
    source = np.flatnonzero(sample_domain >= 0)
    target = np.flatnonzero(sample_domain < 0)
    if not len(source):
        raise ValueError("sample_domain marks no source rows (none >= 0); FLDA needs labelled source rows.")
    X_target = take_rows(X, target) if len(target) else None
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)[source]
    return take_rows(X, source), np.asarray(y)[source], sample_weight, X_target


def take_domains(estimator, X, y, sample_domain, sample_weight=None, X_target=None):
    """:func:`split_domains`, warning when an estimate of the transfer model
    (no ``theta``/``transfer_params`` given) finds no target rows.

    Parameters
    ----------
    estimator : FLDAClassifier or FLDAClassifierCV
    X, y, sample_domain, sample_weight, X_target
        As in :func:`split_domains`.

    Returns
    -------
    X_source, y_source, sample_weight_source, X_target
    """
    X, y, sample_weight, X_target = split_domains(X, y, sample_domain, sample_weight, X_target)
    if X_target is None and estimator.theta is None and estimator.transfer_params is None:
        warnings.warn(
            "sample_domain marks no target rows (no negative domain label), so FLDA has "
            "nothing to adapt to: theta_ is 0 and the model is the plain source classifier. "
            "Give the unlabelled target rows a negative sample_domain (skada's convention).",
            UserWarning,
            stacklevel=4,
        )
    return X, y, sample_weight, X_target


# --------------------------------------------------------------------------
# X_target in a scikit-learn Pipeline
# --------------------------------------------------------------------------


def _fitting_pipeline(estimator):
    """The scikit-learn ``Pipeline`` on the call stack fitting ``estimator`` as its last
    step, or ``None``: a ``fit`` frame whose ``self`` is a Pipeline ending in it."""
    from sklearn.pipeline import Pipeline

    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_name in ("fit", "fit_transform", "fit_predict"):
            owner = frame.f_locals.get("self")
            if isinstance(owner, Pipeline) and owner.steps and owner.steps[-1][1] is estimator:
                return owner
        frame = frame.f_back
    return None


def refuse_untransformed_target(estimator):
    """Refuse ``X_target`` that skipped the transformers of the Pipeline fitting FLDA.

    In ``make_pipeline(StandardScaler(), FLDAClassifier())`` fitted with
    ``fldaclassifier__X_target=Xt`` (or ``X_target=Xt`` under metadata routing),
    scikit-learn scales ``X`` but hands ``Xt`` to FLDA untouched, so the transfer
    model would compare transformed source rows with raw target rows (measured on
    Office-Caltech: mean θ̂ 0.87 and a worse target error).  scikit-learn's own fix,
    ``transform_input=["X_target"]`` (metadata routing on), passes.

    Parameters
    ----------
    estimator : FLDAClassifier or FLDAClassifierCV
        About to use an ``X_target`` it was given.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Naming the two routes that transform the target rows.
    """
    pipeline = _fitting_pipeline(estimator)
    if pipeline is None:
        return
    transformers = [s for _, s in pipeline.steps[:-1] if s is not None and not isinstance(s, str)]
    if not transformers or "X_target" in (getattr(pipeline, "transform_input", None) or ()):
        return
    names = ", ".join(type(s).__name__ for s in transformers)
    raise ValueError(
        f"{type(estimator).__name__} got X_target inside a scikit-learn Pipeline whose steps "
        f"before it ({names}) transform X but not X_target, so the transfer model would "
        "compare transformed source rows with untransformed target rows. Let the pipeline "
        "transform the target too: sklearn.set_config(enable_metadata_routing=True) and "
        'make_pipeline(..., transform_input=["X_target"]), then fit(X, y, X_target=Xt); or '
        "stack the target rows into X with skada.make_da_pipeline(...) and sample_domain."
    )


# --------------------------------------------------------------------------
# fit's inputs, once
# --------------------------------------------------------------------------


class FitInputs(NamedTuple):
    """What :func:`validate_fit_inputs` returns."""

    X: object
    y: np.ndarray
    classes: np.ndarray
    y_index: np.ndarray
    sample_weight: object
    X_target: object


def validate_fit_inputs(estimator, X, y, X_target=None, sample_weight=None, sample_domain=None):
    """Check and convert the inputs of ``fit``, as every FLDA estimator does.

    Parameters, then skada's ``sample_domain`` (target rows taken out of ``X``),
    ``X`` and ``y`` (scikit-learn's ``validate_data``: float64, CSR/CSC kept,
    ``n_features_in_`` and feature names set), label types, at least two classes,
    value magnitudes FLDA can square, and the weights (finite, non-negative, a
    positive total in every class, divided by a power of two near their largest).
    ``X_target`` is only refused here when it skipped a Pipeline's transformers; it
    is checked against ``X`` when the transfer model is fitted.

    Parameters
    ----------
    estimator : FLDAClassifier or FLDAClassifierCV
    X, y, X_target, sample_weight, sample_domain
        As in :meth:`flda_core.FLDAClassifier.fit`.

    Returns
    -------
    FitInputs
        ``X`` (ndarray or CSR/CSC), ``y``, ``classes`` (sorted), ``y_index`` (the class
        index of every row), ``sample_weight`` (normalised, or ``None``) and
        ``X_target`` (or ``None``).
    """
    check_parameters(estimator)
    if sample_domain is not None:
        X, y, sample_weight, X_target = take_domains(estimator, X, y, sample_domain, sample_weight, X_target)
    if X_target is not None and estimator.theta is None and estimator.transfer_params is None:
        refuse_untransformed_target(estimator)
    X, y = validate_data(
        estimator,
        X,
        y,
        accept_sparse=("csr", "csc"),
        dtype=np.float64,
        y_numeric=False,
        ensure_all_finite=finite_check(estimator.transfer),
    )
    _check_label_types(y)
    _check_magnitudes(X)
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least 2 classes in the source "
            f"data; got only one class: '{classes[0]}'."
        )
    if sample_weight is not None:
        sample_weight = _check_sample_weight(sample_weight, X.shape[0])
        _check_class_weights(classes, y_index, sample_weight)
        sample_weight = _normalise_weights(sample_weight)
    return FitInputs(X, y, classes, y_index, sample_weight, X_target)
