"""Synthetic source/target domains of the paper's section 4.1.

Source data are drawn from per-class, per-feature Bernoulli (section 4.1.1,
Figure 1) or Poisson (Figure 2, sections 4.1.2-4.1.3) distributions.  The
target domain is *fresh* source data passed through the dropout transfer model
with a known ``theta_true`` (Eq. (8)), so the model assumptions hold by
construction and FLDA should match a classifier trained on labelled target data.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from flda_core.transfer import apply_dropout, check_theta

__all__ = [
    "DomainPair",
    "make_bernoulli_domains",
    "make_poisson_domains",
    "make_domains",
    "bernoulli_target_lattice",
    "exact_target_error",
    "PAPER_BERNOULLI_PARAMS",
    "PAPER_POISSON_PARAMS",
    "PAPER_PARAMS",
    "PAPER_THETA",
    "ShiftedDomainPair",
    "make_appearance_domains",
    "make_rate_domains",
    "APPEARANCE_PARAMS",
    "RATE_PARAMS",
    "APPEARANCE_PHI",
    "RATE_FACTOR",
]

#: The paper's defaults (section 4.1.1): class one 0.7, class two 0.3, both features.
PAPER_BERNOULLI_PARAMS = ((0.7, 0.7), (0.3, 0.3))
#: The paper's defaults (sections 4.1.1-4.1.3): rates 2 (class one) and 6 (class two).
PAPER_POISSON_PARAMS = ((2.0, 2.0), (6.0, 6.0))
#: The paper's class-conditional parameters per distribution (section 4.1.1).
PAPER_PARAMS = {"bernoulli": PAPER_BERNOULLI_PARAMS, "poisson": PAPER_POISSON_PARAMS}
#: Feature 1 dropped with probability 0.5, feature 2 untouched.
PAPER_THETA = (0.5, 0.0)


@dataclass(frozen=True)
class DomainPair:
    """A labelled source domain and a target domain made by dropout transfer.

    Parameters
    ----------
    X_source, y_source, X_target, y_target, theta_true, distribution, params
        The attributes below, in this order (what :func:`make_domains` fills in).

    Attributes
    ----------
    X_source, y_source : ndarray
        Labelled training data.
    X_target, y_target : ndarray
        Target data; ``y_target`` is for evaluation only (FLDA never sees it).
    theta_true : ndarray of shape (n_features,)
        The dropout probabilities used to make the target domain.
    distribution : {"bernoulli", "poisson"}
    params : ndarray of shape (n_classes, n_features)
        Success probabilities (Bernoulli) or rates (Poisson) per class and feature.
    """

    X_source: np.ndarray
    y_source: np.ndarray
    X_target: np.ndarray
    y_target: np.ndarray
    theta_true: np.ndarray
    distribution: str
    params: np.ndarray = field(repr=False)

    @property
    def n_features(self):
        return self.X_source.shape[1]

    @property
    def classes(self):
        return np.arange(self.params.shape[0])


def _check_params(params, distribution):
    params = np.atleast_2d(np.asarray(params, dtype=np.float64))
    if params.ndim != 2 or params.shape[0] < 2 or params.shape[1] < 1:
        raise ValueError(
            f"params must have shape (n_classes >= 2, n_features >= 1); got shape {params.shape}."
        )
    if not np.all(np.isfinite(params)):
        raise ValueError("params must be finite.")
    if distribution == "bernoulli" and (np.any(params < 0) or np.any(params > 1)):
        raise ValueError("Bernoulli success probabilities must lie in [0, 1].")
    if distribution == "poisson" and np.any(params < 0):
        raise ValueError("Poisson rates must be >= 0.")
    return params


def _balanced_labels(n_samples, n_classes, rng):
    """Labels 0..K-1 in (as nearly as possible) equal numbers, in random order."""
    y = np.arange(n_samples) % n_classes
    rng.shuffle(y)
    return y


def _draw(distribution, params, y, rng):
    p = params[y]
    if distribution == "bernoulli":
        return (rng.random(p.shape) < p).astype(np.float64)
    return rng.poisson(p).astype(np.float64)


def make_domains(
    distribution, params, n_source=100_000, n_target=100_000, theta=PAPER_THETA, random_state=None
):
    """Draw a :class:`DomainPair` for ``distribution`` in {"bernoulli", "poisson"}.

    Source and target are independent draws from the class-conditionals with
    balanced classes; the target is then transformed by dropout with ``theta``.
    The same ``random_state`` always gives the same pair.

    Parameters
    ----------
    distribution : {"bernoulli", "poisson"}
        The class-conditional distribution of every feature.
    params : array-like of shape (n_classes, n_features)
        Success probabilities (Bernoulli, in [0, 1]) or rates (Poisson, >= 0) per
        class and feature.
    n_source, n_target : int, default=100_000
        Samples per domain (at least the number of classes).
    theta : float or array-like of shape (n_features,), default=PAPER_THETA
        Dropout probabilities of the target, in [0, 1].
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    DomainPair
        Labels ``0 .. n_classes - 1``; ``theta_true`` is ``theta``.
    """
    distribution = str(distribution).lower()
    if distribution not in ("bernoulli", "poisson"):
        raise ValueError(f"distribution must be 'bernoulli' or 'poisson', got {distribution!r}.")
    params = _check_params(params, distribution)
    n_classes, n_features = params.shape
    theta = check_theta(theta, n_features)
    for name, n in (("n_source", n_source), ("n_target", n_target)):
        if int(n) != n or n < n_classes:
            raise ValueError(f"{name} must be an integer >= the number of classes ({n_classes}).")
    rng = np.random.default_rng(random_state)
    y_source = _balanced_labels(int(n_source), n_classes, rng)
    X_source = _draw(distribution, params, y_source, rng)
    y_target = _balanced_labels(int(n_target), n_classes, rng)
    X_target = apply_dropout(_draw(distribution, params, y_target, rng), theta, rng)
    return DomainPair(X_source, y_source, X_target, y_target, theta, distribution, params)


def make_bernoulli_domains(
    n_source=100_000,
    n_target=100_000,
    probabilities=PAPER_BERNOULLI_PARAMS,
    theta=PAPER_THETA,
    random_state=None,
):
    """Bernoulli domains of section 4.1.1 (Figure 1).

    Parameters
    ----------
    n_source, n_target : int, default=100_000
        Sizes of the two domains (the paper uses 100,000).
    probabilities : array-like of shape (n_classes, n_features)
        Per-class, per-feature success probabilities; the paper's
        ``[[0.7, 0.7], [0.3, 0.3]]`` by default.
    theta : array-like of shape (n_features,)
        True dropout probabilities; the paper's ``[0.5, 0]`` by default.
    random_state : int or None

    Returns
    -------
    DomainPair
    """
    return make_domains("bernoulli", probabilities, n_source, n_target, theta, random_state)


def make_poisson_domains(
    n_source=100_000, n_target=100_000, rates=PAPER_POISSON_PARAMS, theta=PAPER_THETA, random_state=None
):
    """Poisson domains of sections 4.1.1-4.1.3 (Figures 2-4, Table 1).

    Parameters
    ----------
    n_source, n_target : int, default=100_000
    rates : array-like of shape (n_classes, n_features)
        Per-class, per-feature Poisson rates; the paper's ``[[2, 2], [6, 6]]``.
    theta : array-like of shape (n_features,)
        True dropout probabilities; the paper's ``[0.5, 0]`` by default.
    random_state : int or None

    Returns
    -------
    DomainPair
    """
    return make_domains("poisson", rates, n_source, n_target, theta, random_state)


def bernoulli_target_lattice(probabilities=PAPER_BERNOULLI_PARAMS, theta=PAPER_THETA):
    """Exact target distribution of the Bernoulli domains on their finite lattice.

    Under dropout a binary feature ``x_d`` becomes ``z_d = 1 / (1 - theta_d)``
    with probability ``p_kd (1 - theta_d)`` and 0 otherwise (Appendix A), so
    the target domain lives on ``2**m`` lattice points.

    Parameters
    ----------
    probabilities : array-like of shape (n_classes, n_features)
    theta : array-like of shape (n_features,)

    Returns
    -------
    points : ndarray of shape (2**n_features, n_features)
    class_probabilities : ndarray of shape (n_classes, 2**n_features)
        ``P(z = point | class)``; each row sums to 1.
    """
    params = _check_params(probabilities, "bernoulli")
    n_features = params.shape[1]
    if n_features > 16:
        raise ValueError("The exact lattice is only enumerated for up to 16 features.")
    theta = check_theta(theta, n_features)
    on = (np.arange(2**n_features)[:, None] >> np.arange(n_features)) & 1
    value = np.zeros(n_features)
    value[theta < 1] = 1.0 / (1.0 - theta[theta < 1])
    points = on * value
    p_on = params * (1.0 - theta)  # (K, m)
    class_probabilities = np.prod(
        np.where(on[None, :, :] == 1, p_on[:, None, :], 1.0 - p_on[:, None, :]), axis=2
    )
    return points, class_probabilities


def exact_target_error(predict, probabilities=PAPER_BERNOULLI_PARAMS, theta=PAPER_THETA, class_prior=None):
    """Population target error of a classifier on the Bernoulli domains (no sampling noise).

    Parameters
    ----------
    predict : callable
        Maps an array of shape (n_points, n_features) to class indices ``0..K-1``
        (e.g. a fitted classifier's ``predict`` with labels ``0..K-1``).
    probabilities, theta : see :func:`bernoulli_target_lattice`
    class_prior : array-like of shape (n_classes,), optional
        Defaults to balanced classes, as the generators draw them.

    Returns
    -------
    float
    """
    points, class_probabilities = bernoulli_target_lattice(probabilities, theta)
    n_classes = class_probabilities.shape[0]
    prior = np.full(n_classes, 1.0 / n_classes) if class_prior is None else np.asarray(class_prior)
    predicted = np.asarray(predict(points))
    wrong = predicted[None, :] != np.arange(n_classes)[:, None]
    return float(np.sum(prior[:, None] * class_probabilities * wrong))


# --------------------------------------------------------------------------
# Shifts dropout cannot model: appearance and a count-rate change
# --------------------------------------------------------------------------

#: Appearance preset: four binary features; feature 1 is the informative one.
APPEARANCE_PARAMS = ((0.7, 0.5, 0.6, 0.4), (0.2, 0.5, 0.4, 0.6))
#: Probability that a zero of each feature becomes 1 in the target.
APPEARANCE_PHI = (0.6, 0.0, 0.0, 0.0)
#: Rate preset: Poisson rates per class (the paper's 2 vs 6) and two features.
RATE_PARAMS = ((2.0, 2.0), (6.0, 6.0))
#: Target rates are the source rates times this factor per feature.
RATE_FACTOR = (2.5, 1.0)


@dataclass(frozen=True)
class ShiftedDomainPair:
    """Source and target domains related by a known non-dropout shift.

    Attributes
    ----------
    X_source, y_source, X_target, y_target : ndarray
    transfer : str
        The transfer model that describes the shift (``"two-sided"``, ``"rate"``).
    true_params : dict
        Its true parameters, in the names of :mod:`flda_core.transfer_models`.
    distribution : {"bernoulli", "poisson"}
    params : ndarray of shape (n_classes, n_features)
    """

    X_source: np.ndarray
    y_source: np.ndarray
    X_target: np.ndarray
    y_target: np.ndarray
    transfer: str
    true_params: dict = field(repr=False)
    distribution: str = "bernoulli"
    params: np.ndarray = field(repr=False, default=None)

    @property
    def n_features(self):
        return self.X_source.shape[1]

    @property
    def classes(self):
        return np.unique(self.y_source)

    @property
    def theta_true(self):
        """The true dropout part of the shift (zeros when the shift has none)."""
        return np.asarray(self.true_params.get("theta", np.zeros(self.n_features)), dtype=float)


def _labelled_draws(distribution, params, n_source, n_target, rng):
    n_classes = params.shape[0]
    for name, n in (("n_source", n_source), ("n_target", n_target)):
        if int(n) != n or n < n_classes:
            raise ValueError(f"{name} must be an integer >= the number of classes ({n_classes}).")
    y_source = _balanced_labels(int(n_source), n_classes, rng)
    y_target = _balanced_labels(int(n_target), n_classes, rng)
    return y_source, _draw(distribution, params, y_source, rng), y_target


def make_appearance_domains(
    n_source=10_000, n_target=10_000, probabilities=APPEARANCE_PARAMS, phi=APPEARANCE_PHI, random_state=None
):
    """Binary features that *appear* more often in the target ("blank-in").

    Source: per-class Bernoulli features (as in section 4.1.1).  Target:
    fresh draws in which every zero of feature ``d`` becomes 1 with
    probability ``phi_d`` (the appearance side of the two-sided transfer
    model, :class:`flda_core.transfer_models.TwoSidedTransfer`, with
    ``c_d = 1``).  No feature gets rarer, so the paper's dropout estimate is
    ``theta = 0`` and FLDA with dropout is the source classifier; the
    two-sided model can adapt.

    Returns
    -------
    ShiftedDomainPair
        ``true_params`` holds ``theta`` (0), ``phi`` and ``value`` (1).
    """
    from flda_core.transfer_models import TwoSidedTransfer

    params = _check_params(probabilities, "bernoulli")
    m = params.shape[1]
    phi = np.broadcast_to(np.asarray(phi, dtype=np.float64), (m,)).copy()
    if np.any(phi < 0) or np.any(phi > 1):
        raise ValueError("phi must lie in [0, 1].")
    truth = {"theta": np.zeros(m), "phi": phi, "value": np.ones(m)}
    rng = np.random.default_rng(random_state)
    y_source, X_source, y_target = _labelled_draws("bernoulli", params, n_source, n_target, rng)
    X_target = TwoSidedTransfer(**truth).sample(_draw("bernoulli", params, y_target, rng), rng)
    return ShiftedDomainPair(X_source, y_source, X_target, y_target, "two-sided", truth, "bernoulli", params)


def make_rate_domains(
    n_source=10_000, n_target=10_000, rates=RATE_PARAMS, rate_factor=RATE_FACTOR, random_state=None
):
    """Poisson counts whose rate changes by a factor per feature in the target.

    Source: per-class Poisson features (the paper's section 4.1.1 rates).
    Target: Poisson with every class rate multiplied by ``rate_factor`` (for
    example a word used on average 5 instead of 2 times).  For a factor
    below 1 this is exactly binomial thinning, the ``"rate"`` transfer model
    (:class:`flda_core.transfer_models.RateTransfer`); above 1 the model's
    mean is right but its variance (1 + Poisson per unit) is not the
    Poisson's -- a deliberately imperfect model.  Non-zero rates change too,
    so dropout sees a shift (for a rise it estimates ``theta = 0``).

    Returns
    -------
    ShiftedDomainPair
        ``true_params`` holds ``rate``.
    """
    params = _check_params(rates, "poisson")
    m = params.shape[1]
    factor = np.broadcast_to(np.asarray(rate_factor, dtype=np.float64), (m,)).copy()
    if np.any(factor < 0) or not np.all(np.isfinite(factor)):
        raise ValueError("rate_factor must be finite and >= 0.")
    rng = np.random.default_rng(random_state)
    y_source, X_source, y_target = _labelled_draws("poisson", params, n_source, n_target, rng)
    X_target = _draw("poisson", params * factor, y_target, rng)
    return ShiftedDomainPair(
        X_source, y_source, X_target, y_target, "rate", {"rate": factor}, "poisson", params
    )
