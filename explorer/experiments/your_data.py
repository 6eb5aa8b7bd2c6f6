"""Your own data, step 3: fit the paper's classifiers and summarise them (section 4.2).

The "Your data" page's experiment (steps 1 and 2 are :mod:`explorer.data.csv` and
:mod:`explorer.data.tabular`).  :func:`fit_models`, the entry point, fits S-LS, S-LR,
FLDA-Q (Algorithm 1), FLDA-L (Algorithm 2) and, when the target carries labels of at least
two classes, the T-LR oracle of section 4.2.1; :func:`target_error_table`,
:func:`predictions_frame` and :func:`theta_frame` summarise them, with the tie rule of
:mod:`explorer.experiments.scoring`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools
import warnings as _warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from flda_core.classifier import FLDAClassifier
from explorer.data.tabular import native_labels
from explorer.names import TABLE_CLASSIFIERS, classifier_family, classifier_loss
from flda_core.transfer import estimate_dropout, nonzero_rate
from explorer.experiments.progress import finish, report
from explorer.experiments.scoring import predict_labels

#: The classifier whose class probabilities :func:`predictions_frame` reports.
PROBABILITY_MODEL = "FLDA-L"


def fit_model(prepared, name, l2=1e-3, transfer="dropout"):
    """Fit one of :data:`~explorer.names.TABLE_CLASSIFIERS` on prepared data.

    S-LS/S-LR: ``theta = 0`` (plain source classifiers); FLDA-Q/FLDA-L: ``theta``
    estimated from the target (Eq. (8), Algorithms 1-2) with the transfer model
    ``transfer`` (:data:`flda_core.transfer_models.TRANSFER_MODELS`); T-LR: logistic
    regression on the labelled target rows (the oracle), ``None`` when the target has
    fewer than two labelled classes.  Convergence warnings are kept in the model's
    ``convergence_warnings_`` (a tuple of messages) for :func:`convergence_notes`, not
    the log.
    """
    _check_names([name])
    if name == "T-LR" and not _target_trainable(prepared):
        return None
    flda = name.startswith("FLDA")
    model = FLDAClassifier(loss=classifier_loss(name), l2=l2, transfer=transfer if flda else "dropout")
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always", ConvergenceWarning)
        if name == "T-LR":
            mask = prepared.target_labelled
            model.fit(prepared.X_target[mask], native_labels(prepared.y_target[mask]))
        else:  # the source classifiers ignore the target; FLDA estimates theta from it
            model.fit(
                prepared.X_source, prepared.y_source, **({"X_target": prepared.X_target} if flda else {})
            )
    model.convergence_warnings_ = tuple(
        dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning))
    )
    for w in caught:  # other warnings go on as usual
        if not issubclass(w.category, ConvergenceWarning):
            _warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return model


def fit_models(prepared, l2=1e-3, names=TABLE_CLASSIFIERS, progress=None, fit=None, transfer="dropout"):
    """Fit the paper's classifiers on prepared data (sections 3.4, 4.2.1): the entry point.

    Parameters
    ----------
    prepared : PreparedDomains
    l2 : float, default=1e-3
        Ridge penalty on the *mean* loss, the same for every classifier.
    names : sequence of str
        Which of :data:`~explorer.names.TABLE_CLASSIFIERS` to fit (``"T-LR"`` is skipped
        when the target has fewer than two labelled classes).
    progress : callable(fraction, text), optional
        See :mod:`explorer.experiments.progress`.
    fit : callable(name, l2) -> FLDAClassifier or None, optional
        Fits one classifier (a page passes its cached one); default :func:`fit_model`.
    transfer : str, default="dropout"
        FLDA's transfer model; any other is passed to ``fit`` as ``transfer=`` for
        FLDA-Q and FLDA-L.

    Returns
    -------
    dict of str -> FLDAClassifier
    """
    _check_names(names)
    fit = fit or functools.partial(fit_model, prepared)
    extra = {} if transfer == "dropout" else {"transfer": transfer}
    names = [n for n in names if n != "T-LR" or _target_trainable(prepared)]
    models = {}
    for i, name in enumerate(names):
        report(progress, i, len(names), f"Fitting {name} ({i + 1} of {len(names)})…")
        model = fit(name, l2, **(extra if name.startswith("FLDA") else {}))
        if model is not None:
            models[name] = model
    finish(progress)
    return models


def convergence_notes(models):
    """Messages for fits whose solver did not converge normally: one for logistic fits
    that stopped at ``max_iter``, one per other ``ConvergenceWarning`` :func:`fit_model`
    recorded, naming the classifiers it concerns."""
    stalled = [
        name for name, model in models.items() if model.loss == "logistic" and model.n_iter_ >= model.max_iter
    ]
    notes = []
    if stalled:
        notes.append(
            f"{', '.join(stalled)} stopped after {models[stalled[0]].max_iter} "
            "iterations without converging; their results may be slightly off. "
            "Scale the features or increase l2."
        )
    others = {}
    for name, model in models.items():
        for message in getattr(model, "convergence_warnings_", ()):
            if name in stalled and message.startswith("L-BFGS did not converge"):
                continue  # the iteration cap, said above
            others.setdefault(message, []).append(name)
    notes.extend(f"{', '.join(names)}: {message}" for message, names in others.items())
    return notes


def _check_names(names):
    unknown = [n for n in names if n not in TABLE_CLASSIFIERS]
    if unknown:
        raise ValueError(f"Unknown classifier(s) {unknown}; choose from {TABLE_CLASSIFIERS}.")


def _target_trainable(prepared):
    if not prepared.has_target_labels:
        return False
    labels = prepared.y_target[prepared.target_labelled]
    return len({str(v) for v in labels}) >= 2


def target_error_table(prepared, models):
    """Classification error on the labelled target rows, one row per classifier (one row
    of the paper's tables, e.g. Table 3).

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier``, ``error``, ``errors``, ``family`` ("source",
        "flda" or "target"), ``n_target`` (errors first, for phones).  Empty when
        the target has no labels.
    """
    columns = ["classifier", "error", "errors", "family", "n_target"]
    if not prepared.has_target_labels:
        return pd.DataFrame(columns=columns)
    mask = prepared.target_labelled
    truth = prepared.y_target[mask]
    rows = []
    for name, model in models.items():
        predicted = predict_labels(model, prepared.X_target[mask])
        wrong = int(sum(p != t for p, t in zip(predicted, truth)))
        rows.append((name, wrong / len(truth), wrong, classifier_family(name), len(truth)))
    return pd.DataFrame(rows, columns=columns)


def predictions_frame(prepared, models):
    """Target predictions, one row per target sample: ``row`` (data row in the target
    file), ``true_label`` (if labelled), the labels each model predicts, and
    ``FLDA-L P(<class>)`` probabilities when FLDA-L was fitted."""
    frame = pd.DataFrame({"row": prepared.target_rows})
    if prepared.has_target_labels:
        frame["true_label"] = pd.Series(list(prepared.y_target), dtype=object)
    for name, model in models.items():
        frame[name] = pd.Series(list(predict_labels(model, prepared.X_target)), dtype=object)
    if PROBABILITY_MODEL in models:
        model = models[PROBABILITY_MODEL]
        probabilities = model.predict_proba(prepared.X_target)
        for j, cls in enumerate(model.classes_):
            frame[f"{PROBABILITY_MODEL} P({cls})"] = probabilities[:, j]
    return frame


def probability_columns(predictions):
    """The class-probability columns of :func:`predictions_frame` in class order, as
    ``(column, class)`` pairs, e.g. ``[("FLDA-L P(ham)", "ham"), ...]``."""
    prefix, suffix = f"{PROBABILITY_MODEL} P(", ")"
    return [
        (str(c), str(c)[len(prefix) : -len(suffix)])
        for c in predictions.columns
        if str(c).startswith(prefix) and str(c).endswith(suffix)
    ]


def theta_frame(prepared, models=None):
    """Per-feature transfer parameters and non-zero proportions.

    ``source_nonzero`` and ``target_nonzero`` are the fractions of rows in which the
    feature is non-zero (eta and zeta, as in the paper's word-proportion figures);
    ``theta`` is :func:`~flda_core.transfer.estimate_dropout`, ``max(0, 1 - zeta / eta)``
    (section 3.3.1).  With ``models``, the weights of binary S-LR and FLDA-L (on the
    scaled features) are added.

    Returns
    -------
    pandas.DataFrame, sorted by decreasing ``theta``.
    """
    eta = nonzero_rate(prepared.X_source)
    zeta = nonzero_rate(prepared.X_target)
    theta = estimate_dropout(prepared.X_source, prepared.X_target)
    frame = pd.DataFrame(
        {
            "feature": list(prepared.feature_names),
            "theta": theta,
            "source_nonzero": eta,
            "target_nonzero": zeta,
            "difference": zeta - eta,
        }
    )
    for name in ("S-LR", "FLDA-L"):
        if models and name in models and models[name].coef_.shape[0] == 1:
            frame[f"{name} weight"] = models[name].coef_[0]
    order = np.lexsort((frame["feature"].to_numpy(dtype=str), -frame["theta"].to_numpy()))
    return frame.iloc[order].reset_index(drop=True)
