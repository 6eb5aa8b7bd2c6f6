"""Reusable experiments on synthetic domains (paper section 4.1).

* :func:`fit_classifiers` fits the paper's six classifiers on a
  :class:`~flda_core.datasets.synthetic.DomainPair` -- the naive source classifiers
  S-LS / S-LR, the target oracles T-LS / T-LR and the adapted FLDA-Q / FLDA-L
  (section 4.1.1, Figures 1-2) -- and reports their target errors.
* :func:`perturbation_sweep` refits FLDA with the estimated dropout of one
  feature shifted by a list of perturbations (section 4.1.3, Table 1 and
  Figure 4).
* :data:`PAPER_FIGURE1`, :data:`PAPER_FIGURE2` and :data:`PAPER_TABLE1` hold the
  exact settings and the numbers the paper reports, so pages can show them
  alongside a reproduction.
* :func:`parse_per_feature` turns text such as ``"0.7, 0.7"`` into one value
  per feature, with error messages a user can act on.

Every function here is pure (no Streamlit) and returns plain data: frozen
dataclasses of NumPy arrays and pandas DataFrames.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from ..classifier import FLDAClassifier
from ..figures.style import classifier_name

__all__ = [
    "LOSSES", "FAMILIES", "FittedLinear", "ExperimentResult", "PaperSetting",
    "PAPER_FIGURE1", "PAPER_FIGURE2", "PAPER_TABLE1", "PAPER_PERTURBATIONS",
    "fit_linear", "fit_classifiers", "error_table", "theta_table",
    "feasible_perturbations", "perturbation_sweep", "sweep_frame", "table1_frame",
    "paper_table1_frame", "table1_unperturbed_errors", "parse_per_feature", "format_values", "matching_paper_setting",
]

#: The two losses of the paper, in the order the paper reports them.
LOSSES = ("quadratic", "logistic")
#: Classifier families: trained on source, on labelled target (oracle), adapted.
FAMILIES = ("source", "target", "flda")
_TRAINED_ON = {"source": "labelled source", "target": "labelled target (oracle)",
               "flda": "labelled source + unlabelled target"}
_LOSS_LABEL = {"quadratic": "Quadratic", "logistic": "Logistic"}


@dataclass(frozen=True)
class FittedLinear:
    """A fitted binary linear classifier ``sign(coef @ x + intercept)``.

    Attributes
    ----------
    name : str
        Paper name, e.g. ``"S-LS"`` or ``"FLDA-L"`` (see :mod:`flda_core.figures.style`).
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
    """

    theta_true: np.ndarray
    theta_hat: np.ndarray
    classifiers: Mapping[str, FittedLinear] = field(default_factory=dict)

    def for_loss(self, loss):
        """The (source, target, flda) classifiers of one loss, in that order."""
        return [self.classifiers[classifier_name(f, loss)] for f in FAMILIES
                if classifier_name(f, loss) in self.classifiers]


@dataclass(frozen=True)
class PaperSetting:
    """One artificial-data experiment of the paper: its settings and reported errors.

    ``errors`` maps paper classifier names to the reported target error.
    """

    label: str
    distribution: str
    params: tuple
    theta: tuple
    n_source: int
    n_target: int
    errors: Mapping[str, float]
    summary: str


#: Section 4.1.1, Figure 1: bivariate Bernoulli, theta = [0.5, 0].
PAPER_FIGURE1 = PaperSetting(
    label="Figure 1 (Bernoulli)", distribution="bernoulli",
    params=((0.7, 0.7), (0.3, 0.3)), theta=(0.5, 0.0), n_source=100_000, n_target=100_000,
    errors={"S-LS": 0.400, "T-LS": 0.300, "FLDA-Q": 0.300,
            "S-LR": 0.248, "T-LR": 0.301, "FLDA-L": 0.301},
    summary="The paper reports S-LS 0.400, T-LS = FLDA-Q 0.300, S-LR 0.248 and "
            "T-LR = FLDA-L 0.301: FLDA's boundary lies on top of the target classifier's.")
#: Section 4.1.1, Figure 2: bivariate Poisson, rates 2 and 6, theta = [0.5, 0].
PAPER_FIGURE2 = PaperSetting(
    label="Figure 2 (Poisson)", distribution="poisson",
    params=((2.0, 2.0), (6.0, 6.0)), theta=(0.5, 0.0), n_source=100_000, n_target=100_000,
    errors={"S-LS": 0.181, "T-LS": 0.099, "FLDA-Q": 0.099,
            "S-LR": 0.170, "T-LR": 0.084, "FLDA-L": 0.084},
    summary="The paper reports S-LS 0.181, T-LS = FLDA-Q 0.099, S-LR 0.170 and "
            "T-LR = FLDA-L 0.084: FLDA fully adapts to the dropout of feature 1.")
#: Perturbations added to the estimated theta of feature 1 in Table 1 / Figure 4.
PAPER_PERTURBATIONS = (0.0, 0.1, 0.2, 0.3)
#: Section 4.1.3, Table 1 (same data model as Figure 2). Keys of ``errors``:
#: S-*/T-* names, and ``"FLDA-Q+0.1"`` etc. for the perturbed FLDA fits.
PAPER_TABLE1 = PaperSetting(
    label="Table 1 / Figure 4 (Poisson, perturbed theta)", distribution="poisson",
    params=((2.0, 2.0), (6.0, 6.0)), theta=(0.5, 0.0), n_source=100_000, n_target=100_000,
    errors={"S-LS": 0.245, "T-LS": 0.137, "FLDA-Q+0": 0.138, "FLDA-Q+0.1": 0.145,
            "FLDA-Q+0.2": 0.149, "FLDA-Q+0.3": 0.150,
            "S-LR": 0.264, "T-LR": 0.139, "FLDA-L+0": 0.139, "FLDA-L+0.1": 0.140,
            "FLDA-L+0.2": 0.142, "FLDA-L+0.3": 0.146},
    summary="The paper reports that adding 0.1-0.3 to the estimated theta of feature 1 "
            "raises the target error only by a few percent (FLDA-Q 0.138 -> 0.150, "
            "FLDA-L 0.139 -> 0.146), while the naive S-LS / S-LR stay at 0.245 / 0.264.")


def matching_paper_setting(distribution, params, theta, n_source=None, n_target=None,
                           candidates=None):
    """The paper setting whose data model equals the arguments, else ``None``.

    Sample sizes are compared only when given (the paper used 100,000 per
    domain). ``candidates`` defaults to Figures 1 and 2 (section 4.1.1).
    """
    candidates = (PAPER_FIGURE1, PAPER_FIGURE2) if candidates is None else candidates
    for setting in candidates:
        if (setting.distribution == distribution
                and np.shape(params) == np.shape(setting.params)
                and np.allclose(params, setting.params)
                and np.shape(theta) == np.shape(setting.theta)
                and np.allclose(theta, setting.theta)
                and n_source in (None, setting.n_source)
                and n_target in (None, setting.n_target)):
            return setting
    return None


def _error(clf_coef, clf_intercept, X, y):
    scores = np.asarray(X @ clf_coef) + clf_intercept
    return float(np.mean((scores > 0).astype(int) != y))


def fit_linear(pair, family, loss, l2=0.0, theta=None, perturbation=None, estimator=None):
    """Fit one of the paper's classifiers on ``pair`` and measure its errors.

    Parameters
    ----------
    pair : DomainPair
        Binary (two-class) domains.
    family : {"source", "target", "flda"}
        ``"source"``: trained on labelled source data (S-LS / S-LR);
        ``"target"``: trained on labelled target data, the oracle (T-LS / T-LR);
        ``"flda"``: trained on source data with the dropout transfer model
        estimated from the unlabelled target data (FLDA-Q / FLDA-L,
        Algorithms 1 and 2), or with ``theta`` if given.
    loss : {"quadratic", "logistic"}
    l2 : float, default=0.0
        Ridge penalty (see :class:`~flda_core.classifier.FLDAClassifier`).
    theta : array-like of shape (n_features,), optional
        Fixed dropout probabilities for ``family="flda"`` (section 4.1.3).
    perturbation : float, optional
        Recorded in the result (see :func:`perturbation_sweep`).
    estimator : FLDAClassifier, optional
        Refit this estimator (its ``loss``, ``l2`` and ``theta`` are set here)
        instead of a new one; one with ``warm_start=True`` reused over calls
        starts each fit from the previous solution.

    Returns
    -------
    FittedLinear
        Errors are measured on the whole target and source domains (the
        paper's protocol: the oracle's target error is its training error).
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}.")
    if len(pair.classes) != 2:
        raise ValueError("fit_linear handles two classes (the paper's section 4.1); "
                         f"got {len(pair.classes)}.")
    clf = FLDAClassifier() if estimator is None else estimator
    clf.set_params(loss=loss, l2=l2, theta=theta if family == "flda" else None)
    if family == "source":
        clf.fit(pair.X_source, pair.y_source)
    elif family == "target":
        clf.fit(pair.X_target, pair.y_target)
    else:
        clf.fit(pair.X_source, pair.y_source, X_target=pair.X_target)
    # Labels of a DomainPair are 0..K-1, so classes_ == [0, 1] and a positive
    # score means class 1.
    coef = clf.coef_[0].copy()
    intercept = float(clf.intercept_[0])
    return FittedLinear(
        name=classifier_name(family, loss), family=family, loss=loss, coef=coef,
        intercept=intercept, theta=clf.theta_.copy(),
        target_error=_error(coef, intercept, pair.X_target, pair.y_target),
        source_error=_error(coef, intercept, pair.X_source, pair.y_source),
        perturbation=perturbation)


def fit_classifiers(pair, losses=LOSSES, l2=0.0, progress=None):
    """Fit S-*, T-* and FLDA-* for each loss: the experiment of section 4.1.1.

    Parameters
    ----------
    pair : DomainPair
    losses : sequence of {"quadratic", "logistic"}, default=both
    l2 : float, default=0.0
    progress : callable(fraction, message), optional
        Called before each fit (for progress bars).

    Returns
    -------
    ExperimentResult
        With ``theta_hat`` the estimate FLDA used (identical for both losses).
    """
    losses = tuple(losses)
    for loss in losses:
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}.")
    fits = {}
    jobs = [(loss, family) for loss in losses for family in FAMILIES]
    for i, (loss, family) in enumerate(jobs):
        name = classifier_name(family, loss)
        if progress is not None:
            progress(i / len(jobs), f"Fitting {name} ({i + 1}/{len(jobs)})")
        fits[name] = fit_linear(pair, family, loss, l2=l2)
    if progress is not None:
        progress(1.0, "Done")
    flda = [f for f in fits.values() if f.family == "flda"]
    theta_hat = flda[0].theta if flda else np.zeros(pair.n_features)
    return ExperimentResult(theta_true=np.asarray(pair.theta_true, dtype=float).copy(),
                            theta_hat=theta_hat, classifiers=fits)


def error_table(result, references=None):
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
    DataFrame with columns ``classifier``, ``loss``, ``trained on``,
    ``target error``, ``source error`` and one column per reference.
    """
    rows = []
    for fit in result.classifiers.values():
        row = {"classifier": fit.name, "loss": fit.loss, "trained on": _TRAINED_ON[fit.family],
               "target error": fit.target_error, "source error": fit.source_error}
        for column, errors in (references or {}).items():
            row[column] = errors.get(fit.name, np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def table1_unperturbed_errors():
    """Table 1's errors of the six classifiers without perturbation (FLDA at θ̂ + 0)."""
    errors = {}
    for loss in LOSSES:
        for family in FAMILIES:
            name = classifier_name(family, loss)
            errors[name] = PAPER_TABLE1.errors[f"{name}+0" if family == "flda" else name]
    return errors


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


def feasible_perturbations(theta_value, perturbations):
    """The perturbations ``d`` for which ``theta_value + d`` is a valid dropout in [0, 1].

    A tolerance of 1e-12 absorbs rounding; returned values keep their order.
    """
    return [float(d) + 0.0 for d in perturbations if -1e-12 <= theta_value + d <= 1 + 1e-12]


def perturbation_sweep(pair, perturbations, feature=0, losses=LOSSES, l2=0.0,
                       theta_base=None, progress=None):
    """Refit FLDA with one feature's dropout shifted: section 4.1.3, Table 1 / Figure 4.

    For each loss and each ``d`` in ``perturbations`` FLDA is fitted with
    ``theta = theta_base`` except ``theta[feature] = theta_base[feature] + d``.

    Parameters
    ----------
    pair : DomainPair
    perturbations : sequence of float
        Amounts added to ``theta_base[feature]``; every sum must lie in [0, 1]
        (filter with :func:`feasible_perturbations`).
    feature : int, default=0
        Zero-based index of the perturbed feature (the paper perturbs feature 1,
        index 0).
    losses : sequence of {"quadratic", "logistic"}
    l2 : float, default=0.0
    theta_base : array-like of shape (n_features,), optional
        Defaults to the maximum-likelihood estimate from the pair's data.
    progress : callable(fraction, message), optional

    Returns
    -------
    list of FittedLinear
        One per (loss, perturbation), losses outermost; ``perturbation`` set.
    """
    from ..transfer import estimate_dropout  # local: keeps the import list short

    if not 0 <= feature < pair.n_features:
        raise ValueError(f"feature must be in 0..{pair.n_features - 1}, got {feature}.")
    base = (estimate_dropout(pair.X_source, pair.X_target) if theta_base is None
            else np.asarray(theta_base, dtype=float).copy())
    perturbations = [float(d) for d in perturbations]
    bad = [d for d in perturbations if not -1e-12 <= base[feature] + d <= 1 + 1e-12]
    if bad:
        raise ValueError(
            f"theta[{feature}] = {base[feature]:.3f} plus {bad} leaves [0, 1]; "
            "use feasible_perturbations() to keep only valid perturbations.")
    jobs = [(loss, d) for loss in losses for d in perturbations]
    fits, warm_estimators = [], {}
    for i, (loss, d) in enumerate(jobs):
        if progress is not None:
            progress(i / len(jobs), f"Fitting {classifier_name('flda', loss)} with "
                                    f"theta_{feature + 1} {d:+.2f} ({i + 1}/{len(jobs)})")
        theta = base.copy()
        theta[feature] = min(1.0, max(0.0, base[feature] + d))
        # One warm-started estimator per loss: each refit starts from the
        # previous perturbation's solution (FLDA-L needs fewer L-BFGS steps).
        warm = warm_estimators.setdefault(loss, FLDAClassifier(warm_start=True))
        fits.append(fit_linear(pair, "flda", loss, l2=l2, theta=theta, perturbation=d,
                               estimator=warm))
    if progress is not None:
        progress(1.0, "Done")
    return fits


def sweep_frame(fits, feature=0):
    """Long table of a sweep: ``loss``, ``classifier``, ``perturbation``,
    ``theta of feature <feature+1>``, ``target error``, ``source error``."""
    return pd.DataFrame([{
        "loss": f.loss, "classifier": f.name, "perturbation": f.perturbation,
        f"theta of feature {feature + 1}": float(f.theta[feature]),
        "target error": f.target_error, "source error": f.source_error} for f in fits])


def _perturbation_column(delta, feature):
    return f"θ̂{_subscript(feature + 1)}{delta:+g}".replace("+-", "-")


def _subscript(number):
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def table1_frame(result, fits, feature=0):
    """Table 1 layout: one row per loss; columns SL, TL, then ``θ̂₁+0``, ``θ̂₁+0.1``, ...

    ``result`` supplies the naive S-* and T-* errors, ``fits`` (from
    :func:`perturbation_sweep`) the perturbed FLDA errors.
    """
    rows = []
    for loss in LOSSES:
        loss_fits = [f for f in fits if f.loss == loss]
        if not loss_fits:
            continue
        row = {"loss": _LOSS_LABEL[loss] + " loss",
               "SL": result.classifiers[classifier_name("source", loss)].target_error,
               "TL": result.classifiers[classifier_name("target", loss)].target_error}
        for f in sorted(loss_fits, key=lambda f: f.perturbation):
            row[_perturbation_column(f.perturbation, feature)] = f.target_error
        rows.append(row)
    return pd.DataFrame(rows).set_index("loss")


def paper_table1_frame():
    """The paper's Table 1 exactly as published, in the layout of :func:`table1_frame`."""
    rows = []
    for loss in LOSSES:
        flda = classifier_name("flda", loss)
        row = {"loss": _LOSS_LABEL[loss] + " loss",
               "SL": PAPER_TABLE1.errors[classifier_name("source", loss)],
               "TL": PAPER_TABLE1.errors[classifier_name("target", loss)]}
        for d in PAPER_PERTURBATIONS:
            row[_perturbation_column(d, 0)] = PAPER_TABLE1.errors[f"{flda}+{d:g}"]
        rows.append(row)
    return pd.DataFrame(rows).set_index("loss")


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def split_values(text):
    """The entries of a typed list: separated by commas, semicolons or white space."""
    return [token for token in re.split(r"[,;\s]+", str(text).strip()) if token]


def parse_per_feature(text, n_features, name, lo=None, hi=None):
    """Parse ``"0.7, 0.7"`` into one float per feature.

    Values are separated by commas, semicolons or spaces. Fewer values than
    features are allowed: the last value is repeated (so ``"0.5"`` means 0.5
    for every feature and ``"0.5, 0"`` with 5 features means
    ``0.5, 0, 0, 0, 0``).

    Parameters
    ----------
    text : str
    n_features : int
    name : str
        What the values are, used in error messages (e.g. ``"theta"``).
    lo, hi : float, optional
        Inclusive bounds every value must respect.

    Returns
    -------
    tuple of float, length ``n_features``

    Raises
    ------
    ValueError
        With a message naming the offending entry and how to fix it.
    """
    tokens = split_values(text)
    if not tokens:
        raise ValueError(f"{name}: no values given. Type one number per feature, "
                         "separated by commas, e.g. 0.7, 0.7.")
    bad = [t for t in tokens if not _NUMBER.match(t)]
    if bad:
        raise ValueError(f"{name}: {bad[0]!r} is not a number. Use digits with a "
                         "decimal point, separated by commas, e.g. 0.7, 0.7.")
    values = [float(t) for t in tokens]
    if len(values) > n_features:
        raise ValueError(f"{name}: {len(values)} values given but there are only "
                         f"{n_features} features. Remove {len(values) - n_features} "
                         "value(s) or increase the number of features.")
    for position, value in enumerate(values, start=1):
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"between {lo:g} and {hi:g}" if lo is not None and hi is not None \
                else (f"at least {lo:g}" if lo is not None else f"at most {hi:g}")
            raise ValueError(f"{name}: value {position} ({value:g}) must be {bounds}.")
    values += [values[-1]] * (n_features - len(values))
    return tuple(values)


def format_values(values):
    """Inverse of :func:`parse_per_feature` for display: ``(0.7, 0.7) -> "0.7, 0.7"``."""
    return ", ".join(f"{v:g}" for v in values)


#: What the per-class parameters are called, and their allowed range, per distribution.
PARAM_WORD = {"bernoulli": "success probabilities", "poisson": "rates"}
PARAM_BOUNDS = {"bernoulli": (0.0, 1.0), "poisson": (0.0, 1000.0)}


def parse_domain_config(distribution, n_features, class1, class2, theta,
                        n_source, n_target, seed):
    """Validate the synthetic-domain settings typed on a page (section 4.1).

    Parameters
    ----------
    distribution : {"bernoulli", "poisson"}
    n_features : int
    class1, class2, theta : str
        Per-feature values as typed, e.g. ``"0.7, 0.7"`` (see :func:`parse_per_feature`).
    n_source, n_target, seed : int

    Returns
    -------
    key : tuple or None
        ``(distribution, (class1, class2), n_source, n_target, theta, seed)``
        with tuples of floats: the arguments of
        :func:`flda_core.datasets.synthetic.make_domains` in a hashable form; None if
        any value is invalid.
    problems : list of str
        One message per invalid entry, naming it and how to fix it.
    """
    n = int(n_features)
    lo, hi = PARAM_BOUNDS[distribution]
    word = PARAM_WORD[distribution]
    problems, values = [], []
    for text, name, bounds in ((class1, f"Class 1 {word}", (lo, hi)),
                               (class2, f"Class 2 {word}", (lo, hi)),
                               (theta, "True dropout θ", (0.0, 1.0))):
        try:
            values.append(parse_per_feature(text, n, name, *bounds))
        except ValueError as error:
            problems.append(str(error))
    if problems:
        return None, problems
    return (distribution, (values[0], values[1]), int(n_source), int(n_target), values[2],
            int(seed)), []


def truncate_per_feature(text, n_features):
    """Keep the first ``n_features`` comma-separated values of ``text`` (others dropped)."""
    values = split_values(text)
    return ", ".join(values[:n_features]) if len(values) > n_features else text
