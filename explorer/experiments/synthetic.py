"""Reusable experiments on synthetic domains (paper section 4.1), pure (no Streamlit).

:func:`fit_classifiers` fits the paper's six classifiers (S-LS / S-LR, the oracles T-LS /
T-LR and FLDA-Q / FLDA-L; section 4.1.1, Figure 1 and Figure 2) on a
:class:`~flda_core.synthetic.DomainPair`; :data:`PAPER_FIGURE1` and :data:`PAPER_FIGURE2`
hold the paper's settings and numbers.  Section 4.1.3 (Table 1, Figure 4) is
:mod:`explorer.experiments.perturbation`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from collections.abc import Mapping

import numpy as np
import pandas as pd

from flda_core.classifier import FLDAClassifier
from explorer.names import FAMILIES, LOSSES, classifier_name
from explorer.experiments.progress import finish, report, scaled
from explorer.experiments.rows import distinct_rows
from explorer.experiments.scoring import binary_error, wrong_per_sample

_TRAINED_ON = {
    "source": "labelled source",
    "target": "labelled target (oracle)",
    "flda": "labelled source + unlabelled target",
}


@dataclass(frozen=True)
class FittedLinear:
    """A fitted binary linear classifier ``sign(coef @ x + intercept)``.

    Attributes
    ----------
    name : str
        Paper name, e.g. ``"S-LS"`` or ``"FLDA-L"`` (see :mod:`explorer.figures.style`).
    family : {"source", "target", "flda"}
    loss : {"quadratic", "logistic"}
    coef : ndarray of shape (n_features,)
        Positive scores mean class 1.
    intercept : float
    theta : ndarray of shape (n_features,)
        Dropout probabilities used in the fit (zeros for S-* and T-*).
    target_error, source_error : float
        Misclassification rates on the target and the source domain.
    perturbation : float or None
        For FLDA refits of :func:`perturbation_sweep`: the amount added to the
        estimated theta of the perturbed feature.
    transfer : str
        The transfer model of an FLDA fit (:data:`flda_core.transfer_models.TRANSFER_MODELS`).
    transfer_params : dict or None
        Its fitted parameters (``FLDAClassifier.transfer_params_``; None for S-* and T-*).
    n_target : int
        Number of target samples ``target_error`` was measured on.
    target_wrong : ndarray of uint8 or None
        Which of them it got wrong, packed bits (``np.packbits``): for the paired
        standard error of two fits' difference (:func:`paired_se`).
    """

    name: str
    family: str
    loss: str
    coef: np.ndarray
    intercept: float
    theta: np.ndarray
    target_error: float
    source_error: float
    perturbation: float | None = None
    transfer: str = "dropout"
    transfer_params: Mapping[str, np.ndarray] | None = field(default=None, repr=False)
    n_target: int = 0
    target_wrong: np.ndarray | None = field(default=None, repr=False)


def paired_se(fit_a, fit_b):
    """Standard error of ``fit_a.target_error - fit_b.target_error``, paired over the target
    samples both were scored on (infinite when either fit lacks its mistakes)."""
    n = fit_a.n_target
    if fit_a.target_wrong is None or fit_b.target_wrong is None or n < 2 or fit_b.n_target != n:
        return float("inf")
    wrong = [np.unpackbits(f.target_wrong, count=n).astype(np.float64) for f in (fit_a, fit_b)]
    return float(np.std(wrong[0] - wrong[1], ddof=1) / np.sqrt(n))


@dataclass(frozen=True)
class ExperimentResult:
    """The six classifiers of section 4.1.1 fitted on one :class:`DomainPair`.

    Attributes
    ----------
    theta_true : ndarray of shape (n_features,)
        Dropout used to generate the target domain.
    theta_hat : ndarray of shape (n_features,)
        Maximum-likelihood estimate from the data (section 3.3.1).
    classifiers : dict
        Paper name -> :class:`FittedLinear`, ordered S, T, FLDA per loss.
    transfer : str
        FLDA's transfer model; ``transfer_params`` its estimated parameters
        (None when no FLDA classifier was fitted).
    """

    theta_true: np.ndarray
    theta_hat: np.ndarray
    classifiers: Mapping[str, FittedLinear] = field(default_factory=dict)
    transfer: str = "dropout"
    transfer_params: Mapping[str, np.ndarray] | None = field(default=None, repr=False)

    def for_loss(self, loss):
        """The (source, target, flda) classifiers of one loss, in that order."""
        return [
            self.classifiers[classifier_name(f, loss)]
            for f in FAMILIES
            if classifier_name(f, loss) in self.classifiers
        ]


@dataclass(frozen=True)
class PaperSetting:
    """One artificial-data experiment of the paper: its settings and reported errors.

    ``errors`` maps paper classifier names to the reported target error;
    ``<name>`` in ``summary`` is replaced by ``errors[name]`` (3 decimals).  The paper
    draws 100,000 samples per domain.
    """

    label: str
    distribution: str
    params: tuple
    theta: tuple
    errors: Mapping[str, float]
    summary: str
    n_source: int = 100_000
    n_target: int = 100_000

    def __post_init__(self):
        object.__setattr__(
            self, "summary", re.sub(r"<([^<>]+)>", lambda m: f"{self.errors[m.group(1)]:.3f}", self.summary)
        )


_REPORTS = "The paper reports S-LS <S-LS>, T-LS = FLDA-Q <FLDA-Q>, S-LR <S-LR> and T-LR = FLDA-L <FLDA-L>"
#: Section 4.1.1, Figure 1: bivariate Bernoulli, theta = [0.5, 0].
PAPER_FIGURE1 = PaperSetting(
    label="Figure 1 (Bernoulli)",
    distribution="bernoulli",
    params=((0.7, 0.7), (0.3, 0.3)),
    theta=(0.5, 0.0),
    errors={"S-LS": 0.400, "T-LS": 0.300, "FLDA-Q": 0.300, "S-LR": 0.248, "T-LR": 0.301, "FLDA-L": 0.301},
    summary=f"{_REPORTS}: FLDA's boundary lies on top of the target classifier's.",
)
#: Section 4.1.1, Figure 2: bivariate Poisson, rates 2 and 6, theta = [0.5, 0].
PAPER_FIGURE2 = PaperSetting(
    label="Figure 2 (Poisson)",
    distribution="poisson",
    params=((2.0, 2.0), (6.0, 6.0)),
    theta=(0.5, 0.0),
    errors={"S-LS": 0.181, "T-LS": 0.099, "FLDA-Q": 0.099, "S-LR": 0.170, "T-LR": 0.084, "FLDA-L": 0.084},
    summary=f"{_REPORTS}: FLDA fully adapts to the dropout of feature 1.",
)


def matching_paper_setting(distribution, params, theta, n_source=None, n_target=None, candidates=None):
    """The paper setting whose data model equals the arguments, else ``None``.

    Sample sizes are compared only when given (the paper used 100,000 per
    domain). ``candidates`` defaults to Figures 1 and 2 (section 4.1.1).
    """
    candidates = (PAPER_FIGURE1, PAPER_FIGURE2) if candidates is None else candidates
    for setting in candidates:
        if (
            setting.distribution == distribution
            and np.shape(params) == np.shape(setting.params)
            and np.allclose(params, setting.params)
            and np.shape(theta) == np.shape(setting.theta)
            and np.allclose(theta, setting.theta)
            and n_source in (None, setting.n_source)
            and n_target in (None, setting.n_target)
        ):
            return setting
    return None


#: Per loss, compress the training data (:func:`distinct_rows`) only when the distinct
#: rows are at most this share of all rows: above it the hashing costs more than the
#: smaller fit saves (FLDA-Q, a 10 ms closed form, is 4.7 times slower at 0.2;
#: ``bench_compression.py``).
MAX_DISTINCT_SHARE = {"logistic": 0.5, "quadratic": 0.05}


def lattice_counts(X, y, features=(0, 1)):
    """Number of samples of each class at each distinct point of two features.

    The markers of Figures 1, 2 and 4, counted by :func:`distinct_rows` (a row-wise
    ``np.unique`` took 225 ms for 100,000 samples).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Integer class labels.
    features : pair of int, default=(0, 1)
        Zero-based indices of the plotted features.

    Returns
    -------
    DataFrame with columns ``x1``, ``x2``, ``class``, ``count``, sorted by
    class, then point.  The counts of a class sum to its number of samples.
    """
    X = np.asarray(X, dtype=float)[:, list(features)]
    y = np.asarray(y)
    points, labels, counts = distinct_rows(X, y) if len(y) else (X, y, np.zeros(0, int))
    frame = pd.DataFrame(
        {"x1": points[:, 0], "x2": points[:, 1], "class": labels.astype(int), "count": counts.astype(int)}
    )
    return frame.sort_values(["class", "x1", "x2"], ignore_index=True)


def fit_linear(
    pair,
    family,
    loss,
    l2=0.0,
    theta=None,
    perturbation=None,
    transfer="dropout",
    estimator=None,
    compress=None,
):
    """Fit one of the paper's classifiers on ``pair`` and measure its errors.

    Parameters
    ----------
    pair : DomainPair of two classes
    family : {"source", "target", "flda"}
        ``"source"``: trained on labelled source data (S-LS / S-LR); ``"target"``: on
        labelled target data, the oracle (T-LS / T-LR); ``"flda"``: on source data under
        the transfer model estimated from the unlabelled target (FLDA-Q / FLDA-L,
        Algorithms 1 and 2), or with the dropout ``theta`` if given (section 4.1.3).
    loss : {"quadratic", "logistic"}
    l2 : float, default=0.0
        Ridge penalty (see :class:`~flda_core.classifier.FLDAClassifier`).
    theta : array-like of shape (n_features,), optional
    perturbation : float, optional
        Recorded in the result (:func:`~explorer.experiments.perturbation.perturbation_sweep`).
    transfer : str, default="dropout"
        FLDA's transfer model (:data:`flda_core.transfer_models.TRANSFER_MODELS`); ignored
        for S-* and T-*.
    estimator : FLDAClassifier, optional
        Refit this estimator (its ``loss``, ``l2``, ``theta`` and ``transfer`` are set
        here); one with ``warm_start=True`` starts each fit from the previous solution.
    compress : bool or None, default=None
        Fit on the distinct rows of the training data weighted by their counts
        (:func:`distinct_rows`): the same objective, many times faster on lattice data.
        ``None`` compresses when the distinct rows are at most ``MAX_DISTINCT_SHARE[loss]``
        of all rows; ``True`` always; ``False`` never.  FLDA's transfer model always sees
        the full unlabelled target.

    Returns
    -------
    FittedLinear
        Errors are measured on the whole target and source domains (the paper's
        protocol: the oracle's target error is its training error).
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}.")
    if len(pair.classes) != 2:
        raise ValueError(
            f"fit_linear handles two classes (the paper's section 4.1); got {len(pair.classes)}."
        )
    transfer = transfer if family == "flda" else "dropout"
    clf = FLDAClassifier() if estimator is None else estimator
    clf.set_params(loss=loss, l2=l2, theta=theta if family == "flda" else None, transfer=transfer)
    X, y = (pair.X_target, pair.y_target) if family == "target" else (pair.X_source, pair.y_source)
    extra = {"X_target": pair.X_target} if family == "flda" else {}
    if compress is not False:
        rows = distinct_rows(X, y, 1.0 if compress else MAX_DISTINCT_SHARE[loss])
        if rows is not None:
            X, y, extra["sample_weight"] = rows
    clf.fit(X, y, **extra)
    # Labels of a DomainPair are 0..K-1, so a positive score means class 1.
    coef, intercept = clf.coef_[0].copy(), float(clf.intercept_[0])
    wrong = wrong_per_sample(coef, intercept, pair.X_target, pair.y_target)
    return FittedLinear(
        name=classifier_name(family, loss),
        family=family,
        loss=loss,
        coef=coef,
        intercept=intercept,
        theta=getattr(clf, "theta_", np.zeros(pair.n_features)).copy(),  # "rate" has no theta
        target_error=float(np.mean(wrong)),
        source_error=binary_error(coef, intercept, pair.X_source, pair.y_source),
        perturbation=perturbation,
        transfer=transfer,
        transfer_params=dict(clf.transfer_params_) if family == "flda" else None,
        n_target=len(wrong),
        target_wrong=np.packbits(wrong.astype(bool)),
    )


def fit_classifiers(
    pair, losses=LOSSES, l2=0.0, progress=None, fit=None, families=FAMILIES, transfer="dropout"
):
    """Fit S-*, T-* and FLDA-* for each loss: the experiment of section 4.1.1 (Figures 1-2).

    Parameters
    ----------
    pair : DomainPair
    losses : sequence of {"quadratic", "logistic"}, default=both
    l2 : float, default=0.0
    progress : callable(fraction, text), optional
        See :mod:`explorer.experiments.progress`.
    fit : callable(family, loss, l2, theta=None, perturbation=None) -> FittedLinear, optional
        Fits one classifier on ``pair``; defaults to :func:`fit_linear`.  A page
        passes its cached version (``explorer.ui.caches.linear_fitter``).
    families : sequence of {"source", "target", "flda"}, default=all three
    transfer : str, default="dropout"
        FLDA's transfer model; any other than dropout is passed to ``fit`` as
        ``transfer=`` (so a ``fit`` that only knows dropout keeps working).

    Returns
    -------
    ExperimentResult
        With ``theta_hat`` the estimate FLDA used (identical for both losses;
        zeros for models without a dropout part) and ``transfer_params`` all
        of its estimated parameters.
    """
    losses = tuple(losses)
    for loss in losses:
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}.")
    fit = functools.partial(fit_linear, pair) if fit is None else fit
    extra = {} if transfer == "dropout" else {"transfer": transfer}
    fits = {}
    jobs = [(loss, family) for loss in losses for family in families]
    sizes = f"{len(pair.y_source):,} + {len(pair.y_target):,} samples"
    for i, (loss, family) in enumerate(jobs):
        name = classifier_name(family, loss)
        report(progress, i, len(jobs), f"Fitting {name} on {sizes} ({i + 1}/{len(jobs)})")
        fits[name] = fit(family, loss, l2, **(extra if family == "flda" else {}))
    finish(progress)
    flda = next((f for f in fits.values() if f.family == "flda"), None)
    theta_true = np.asarray(pair.theta_true, dtype=float).copy()
    if flda is None:
        return ExperimentResult(theta_true, np.zeros(pair.n_features), fits, transfer)
    return ExperimentResult(theta_true, flda.theta, fits, transfer, flda.transfer_params)


def transfer_errors(pair, transfers, losses=LOSSES, l2=0.0, fit=None, progress=None):
    """Target errors of S-*, FLDA with each transfer model in ``transfers``, and T-*.

    Parameters
    ----------
    pair : DomainPair or ShiftedDomainPair
    transfers : sequence of str
        Transfer models (:data:`flda_core.transfer_models.TRANSFER_MODELS`).
    losses, l2, fit, progress :
        As in :func:`fit_classifiers` (which fits every classifier).

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier``, ``target error``, ``transfer`` ("" for S-* and T-*),
        ``loss`` (errors first, for phones); per loss S-*, then FLDA per transfer
        model, then T-*.
    """
    transfers = tuple(transfers)
    steps = len(transfers) + 1
    plain = fit_classifiers(pair, losses, l2, scaled(progress, 0, 1 / steps), fit, ("source", "target"))
    flda = {
        transfer: fit_classifiers(
            pair, losses, l2, scaled(progress, (k + 1) / steps, (k + 2) / steps), fit, ("flda",), transfer
        ).classifiers
        for k, transfer in enumerate(transfers)
    }
    finish(progress)
    rows = []
    for loss in losses:
        source, target = (plain.classifiers[classifier_name(f, loss)] for f in ("source", "target"))
        name = classifier_name("flda", loss)
        rows.append((source.name, source.target_error, "", loss))
        rows += [(name, fits[name].target_error, transfer, loss) for transfer, fits in flda.items()]
        rows.append((target.name, target.target_error, "", loss))
    return pd.DataFrame(rows, columns=["classifier", "target error", "transfer", "loss"])


def classifier_errors(result, references=None):
    """Errors of the fitted classifiers as a DataFrame (the numbers of Figures 1-2).

    Parameters
    ----------
    result : ExperimentResult
    references : mapping of str to mapping, optional
        Extra columns of published numbers: column title -> {paper name ->
        target error}, e.g. ``{"paper, Figure 1": PAPER_FIGURE1.errors}``.
        Classifiers a reference does not report get NaN.

    Returns
    -------
    DataFrame with columns ``classifier``, ``target error``, ``source error``, one
    column per reference, ``loss``, ``trained on`` (the errors first, for phones).
    """
    rows = []
    for fit in result.classifiers.values():
        row = {"classifier": fit.name, "target error": fit.target_error, "source error": fit.source_error}
        for column, errors in (references or {}).items():
            row[column] = errors.get(fit.name, np.nan)
        row.update({"loss": fit.loss, "trained on": _TRAINED_ON[fit.family]})
        rows.append(row)
    return pd.DataFrame(rows)


def theta_table(theta_true, theta_hat, params=None, distribution=None):
    """True versus estimated dropout per feature (section 3.3.1).

    Columns: ``feature`` (1-based), optional class parameters, ``true theta``,
    ``estimated theta`` and ``estimate - true``.
    """
    theta_true = np.asarray(theta_true, dtype=float)
    theta_hat = np.asarray(theta_hat, dtype=float)
    data = {"feature": np.arange(1, len(theta_true) + 1)}
    if params is not None:
        word = "rate" if distribution == "poisson" else "probability"
        for k, row in enumerate(np.atleast_2d(params)):
            data[f"class {k + 1} {word}"] = np.asarray(row, dtype=float)
    data["true theta"] = theta_true
    data["estimated theta"] = theta_hat
    data["estimate - true"] = theta_hat - theta_true
    return pd.DataFrame(data)
