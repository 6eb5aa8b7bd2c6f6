"""Comparing transfer models on one source/target pair (issue 15).

* :func:`compare_transfer_models` -- target errors of the source classifier,
  FLDA with each transfer model of :mod:`flda_core.transfer_models`, and the
  target oracle, as a tidy DataFrame.
* :func:`missing_data_split` and :func:`compare_missing_data` -- the paper's
  "missing data at test time" protocol (section 4.2.2, Table 3): source =
  rows without a gap, target = rows with one; gaps filled with zeros (the
  paper; dropout), with the source mean (plain mean imputation) or kept as
  ``NaN`` for the ``"imputation"`` transfer model.

The ridge penalty is chosen by stratified k-fold cross-validation on the
labelled source data for every method (transfer parameters, estimated once
from all source and target data, stay fixed in the folds); the oracle's
error is k-fold cross-validated on the target with ``l2`` chosen inside each
fold.  Pure functions, no Streamlit.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research, 17(171), 1-32.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from flda_core.classifier import FLDAClassifier
from flda_core.selection import FLDAClassifierCV
from flda_core.transfer_models import make_transfer_model

__all__ = [
    "L2_GRID",
    "TAGS",
    "fit_flda",
    "cv_l2",
    "cv_error",
    "compare_transfer_models",
    "missing_data_split",
    "compare_missing_data",
    "transfer_parameter_table",
    "transfer_parameter_frame",
]

#: Ridge penalties tried by cross-validation (as on the Digits page).
L2_GRID = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
#: loss -> (letter, source classifier, oracle) in the paper's names.
TAGS = {"logistic": ("L", "S-LR", "T-LR"), "quadratic": ("Q", "S-LS", "T-LS")}


def fit_flda(X, y, loss, l2, transfer="dropout", params=None, tol=1e-6, max_iter=1000):
    """:class:`FLDAClassifier` with given transfer parameters (``None``: the plain classifier).

    ``tol=1e-6``: looser L-BFGS tolerances move the missing-data (Table 3)
    target errors on the UCI data by up to 0.008 (1e-4) and 0.02 (1e-3);
    see ``benchmarks/bench_tolerance.py``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return FLDAClassifier(
            loss=loss, l2=l2, transfer=transfer, transfer_params=params, tol=tol, max_iter=max_iter
        ).fit(X, y)


def _error(model, X, y):
    return float(np.mean(model.predict(X) != y))


def _folds(y, n_folds, seed):
    n_folds = int(min(n_folds, np.min(np.unique(y, return_counts=True)[1])))
    if n_folds < 2:
        raise ValueError("Cross-validation needs at least 2 samples of every class.")
    return StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(y, y)


def _negative_error(model, X, y):
    return -_error(model, X, y)


def cv_l2(X, y, loss, transfer="dropout", params=None, n_folds=3, grid=L2_GRID, tol=1e-4):
    """The ``l2`` in ``grid`` with the lowest k-fold error on ``(X, y)``; ties -> larger.

    :class:`flda_core.FLDAClassifierCV` with the transfer parameters ``params``
    fixed (``None``: the plain classifier).  Logistic fits stop at ``tol`` (the
    ``l2`` chosen at 1e-4 equals the one chosen at 1e-8 in
    ``benchmarks/bench_tolerance.py``).
    """
    search = FLDAClassifierCV(
        loss=loss,
        l2s=grid,
        cv=list(_folds(y, n_folds, 0)),
        scoring=_negative_error,
        transfer=transfer,
        transfer_params=params,
        tol=tol,
        refit=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return search.fit(X, y).l2_


def cv_error(X, y, loss, n_folds=3, grid=L2_GRID):
    """k-fold cross-validated error of the plain classifier, ``l2`` chosen inside each fold."""
    wrong = 0
    for train, test in _folds(y, n_folds, 1):
        l2 = cv_l2(X[train], y[train], loss, n_folds=3, grid=grid)
        wrong += np.sum(fit_flda(X[train], y[train], loss, l2).predict(X[test]) != y[test])
    return float(wrong / len(y))


def _row(setting, method, loss, transfer, error, l2):
    return {
        "setting": setting,
        "method": method,
        "loss": loss,
        "transfer": transfer,
        "target_error": error,
        "l2": l2,
    }


def compare_transfer_models(
    X_source,
    y_source,
    X_target,
    y_target,
    transfers=("dropout", "two-sided", "rate"),
    losses=("logistic",),
    l2=None,
    n_folds=3,
    oracle=True,
    grid=L2_GRID,
    setting="",
):
    """Target errors of S-*, FLDA with every transfer model, and T-*.

    Parameters
    ----------
    X_source, y_source : labelled source data
    X_target, y_target : target data; ``y_target`` only scores the methods
        (and trains the oracle)
    transfers : sequence of transfer model names
    losses : sequence of {"logistic", "quadratic"}
    l2 : float or None
        Fixed ridge penalty, or ``None`` to cross-validate it on the source
        for every method (the oracle then cross-validates on the target).
    n_folds : int
    oracle : bool
        Include T-LR / T-LS (cross-validated on the target when ``l2`` is
        None; with a fixed ``l2`` fitted and scored on all target data).
    setting : str
        Label copied into the ``setting`` column.

    Returns
    -------
    pandas.DataFrame
        Columns ``setting, method, loss, transfer, target_error, l2`` (one row
        per method; ``transfer`` is empty for S-* and T-*).
    """
    params = {t: make_transfer_model(t).fit(X_source, X_target).params() for t in transfers}
    rows = []
    for loss in losses:
        tag, plain, target_oracle = TAGS[loss]
        pen = cv_l2(X_source, y_source, loss, n_folds=n_folds, grid=grid) if l2 is None else l2
        rows.append(
            _row(
                setting,
                plain,
                loss,
                "",
                _error(fit_flda(X_source, y_source, loss, pen), X_target, y_target),
                pen,
            )
        )
        for transfer in transfers:
            pen = (
                cv_l2(X_source, y_source, loss, transfer, params[transfer], n_folds, grid)
                if l2 is None
                else l2
            )
            model = fit_flda(X_source, y_source, loss, pen, transfer, params[transfer])
            rows.append(
                _row(
                    setting, f"FLDA-{tag} {transfer}", loss, transfer, _error(model, X_target, y_target), pen
                )
            )
        if oracle:
            if l2 is None:
                error = cv_error(X_target, y_target, loss, n_folds, grid)
            else:
                error = _error(fit_flda(X_target, y_target, loss, l2), X_target, y_target)
            rows.append(_row(setting, target_oracle, loss, "", error, l2))
    return pd.DataFrame(rows)


def missing_data_split(X, y):
    """Source = rows without a gap (``NaN``), target = rows with one.

    Features are min-max scaled to [0, 1] on the source rows, so a zero-filled
    gap is the smallest source value (zero means "absent", as dropout
    assumes).  Features never observed in the complete rows keep scale 1.

    Returns
    -------
    X_source, y_source, X_target, y_target : X_target keeps its ``NaN`` gaps.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    gap = np.isnan(X).any(axis=1)
    if gap.all() or not gap.any():
        raise ValueError(
            f"{int(gap.sum())} of {len(y)} rows have a missing value; the missing-data "
            "protocol needs some rows with gaps (target) and some without (source)."
        )
    Xs, Xt = X[~gap], X[gap]
    lo, hi = Xs.min(axis=0), Xs.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (Xs - lo) / span, y[~gap], (Xt - lo) / span, y[gap]


def compare_missing_data(X, y, losses=("logistic", "quadratic"), n_folds=5, grid=L2_GRID, setting=""):
    """Zero-filled dropout vs mean imputation on the paper's missing-data protocol.

    Methods per loss: the source classifier scored on zero-filled ("zeros")
    and mean-filled ("mean") target rows; FLDA with dropout and two-sided on
    zero-filled rows; FLDA with the ``"imputation"`` model on rows with their
    gaps kept as ``NaN``; the oracle on mean-filled target rows.

    Returns
    -------
    pandas.DataFrame with the columns of :func:`compare_transfer_models`.
    """
    Xs, ys, Xt, yt = missing_data_split(X, y)
    if len(np.unique(ys)) < 2:
        raise ValueError("The rows without gaps hold only one class; no source classifier can be trained.")
    zeros = np.nan_to_num(Xt, nan=0.0)
    means = np.where(np.isnan(Xt), Xs.mean(axis=0), Xt)
    rows = []
    for loss in losses:
        tag, plain, target_oracle = TAGS[loss]
        pen = cv_l2(Xs, ys, loss, n_folds=n_folds, grid=grid)
        model = fit_flda(Xs, ys, loss, pen)
        rows.append(_row(setting, f"{plain} zeros", loss, "", _error(model, zeros, yt), pen))
        rows.append(_row(setting, f"{plain} mean", loss, "", _error(model, means, yt), pen))
        for transfer, target in (("dropout", zeros), ("two-sided", zeros), ("imputation", Xt)):
            params = make_transfer_model(transfer).fit(Xs, target).params()
            pen = cv_l2(Xs, ys, loss, transfer, params, n_folds, grid)
            model = fit_flda(Xs, ys, loss, pen, transfer, params)
            kind = "NaN gaps" if transfer == "imputation" else "zeros"
            rows.append(
                _row(
                    setting, f"FLDA-{tag} {transfer} ({kind})", loss, transfer, _error(model, target, yt), pen
                )
            )
        rows.append(
            _row(
                setting,
                f"{target_oracle} mean ({n_folds}-fold CV)",
                loss,
                "",
                cv_error(means, yt, loss, n_folds, grid),
                None,
            )
        )
    return pd.DataFrame(rows)


def transfer_parameter_frame(transfer, params, true_params=None, feature_names=None):
    """Estimated (and, where known, true) transfer parameters, one row per feature.

    The wide form of :func:`transfer_parameter_table`
    for display next to the error tables (as the dropout θ̂ table of section
    3.3.1).

    Parameters
    ----------
    transfer : str
        Name of the transfer model.
    params : dict of str -> array of shape (n_features,)
        Its estimated parameters (``FLDAClassifier.transfer_params_``).
    true_params : dict, optional
        Parameters that made the data (e.g. ``ShiftedDomainPair.true_params``);
        those sharing a name with an estimated parameter get a ``true``
        column and an ``estimate - true`` column.
    feature_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        Columns ``feature``, then per parameter ``estimated <p>`` (and
        ``true <p>``, ``estimate - true <p>``).
    """
    table = transfer_parameter_table(make_transfer_model(transfer, params), feature_names)
    frame = table.pivot(index="feature", columns="parameter", values="value")
    frame = frame.reindex(index=table["feature"].unique(), columns=list(params))
    out = pd.DataFrame({"feature": frame.index})
    for name in params:
        estimate = frame[name].to_numpy()
        out[f"estimated {name}"] = estimate
        if true_params is not None and name in true_params:
            truth = np.broadcast_to(np.asarray(true_params[name], dtype=float), estimate.shape)
            out[f"true {name}"] = truth
            out[f"estimate - true {name}"] = estimate - truth
    return out


def transfer_parameter_table(model, feature_names=None):
    """Tidy table of a model's parameters: one row per (feature, parameter).

    Parameters
    ----------
    model : TransferModel or fitted FLDAClassifier
    feature_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame with columns ``transfer``, ``feature``, ``parameter``, ``value``.
    """
    model = getattr(model, "transfer_model_", model)
    params = model.params()
    n = len(next(iter(params.values())))
    names = [f"x{d + 1}" for d in range(n)] if feature_names is None else list(feature_names)
    if len(names) != n:
        raise ValueError(f"{len(names)} feature names for {n} features.")
    rows = [(model.name, names[d], k, float(v[d])) for k, v in params.items() for d in range(n)]
    return pd.DataFrame(rows, columns=["transfer", "feature", "parameter", "value"])
