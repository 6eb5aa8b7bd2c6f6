"""The target risk as an expectation over the transfer model (section 3.2).

Under the paper's assumption -- labels are conditionally independent of the target
given the source -- the target risk of a classifier equals its expected loss on the
labelled source under the transfer model p(z | x) (Equations (1)-(2)), estimated by
the mean expected loss over the source sample (Equation (3)).  :func:`transfer_risk`
computes that estimate exactly for the 0-1 loss under dropout (every pattern of
dropped features enumerated), with its standard error over the source samples, so it
can be set beside the error measured on the labelled target.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from explorer.experiments.scoring import wrong_per_sample
from flda_core.transfer import dropout_from_rates

#: Dropout patterns are enumerated (2**m of them) up to this many features.
MAX_ENUMERATED_FEATURES = 12


@dataclass(frozen=True)
class RiskEstimate:
    """Equation (3)'s estimate of one classifier's target 0-1 error.

    Attributes
    ----------
    name : str
    expected : float
        Mean over the source samples of the expected 0-1 loss under dropout with ``theta``.
    expected_se : float
        Its standard error over the source samples.
    measured : float
        The error on the labelled target (what Equation (3) estimates).
    measured_se : float
        Its binomial standard error sqrt(p(1 - p) / n_target).
    gap_se : float
        Standard error of ``measured - expected``: the bootstrap over both samples, with
        θ̂ estimated again from each resampled pair (so its noise is in the gap's), the
        fitted classifiers fixed.
    """

    name: str
    expected: float
    expected_se: float
    measured: float
    measured_se: float
    gap_se: float


def binomial_se(error, n):
    """Standard error sqrt(p(1 - p) / n) of an error rate ``p`` measured on ``n`` samples."""
    p = float(error)
    return float(np.sqrt(max(p * (1.0 - p), 0.0) / max(int(n), 1)))


def _grouped(X, y):
    """``(rows, labels, counts)``: equal rows grouped (lattice data), else every row once."""
    from explorer.experiments.rows import distinct_rows

    X = np.asarray(X, dtype=np.float64)
    grouped = distinct_rows(X, np.asarray(y))
    return grouped if grouped is not None else (X, np.asarray(y), np.ones(len(X), dtype=np.int64))


def expected_loss(fit, X_rows, y_rows, theta):
    """Expected 0-1 loss of each row under dropout with ``theta`` of shape (m,) or (B, m):
    every pattern of dropped features enumerated; shape (rows,) or (B, rows)."""
    theta = np.asarray(theta, dtype=np.float64)
    thetas = np.atleast_2d(theta)
    scale = np.where(thetas < 1.0, 1.0 / np.where(thetas < 1.0, 1.0 - thetas, 1.0), 0.0)
    loss = np.zeros((len(thetas), len(y_rows)))
    for kept in itertools.product((False, True), repeat=thetas.shape[1]):
        kept = np.array(kept)
        prob = np.prod(np.where(kept, 1.0 - thetas, thetas), axis=1)
        for b in np.flatnonzero(prob > 0.0):
            Z = X_rows * np.where(kept, scale[b], 0.0)
            loss[b] += prob[b] * wrong_per_sample(fit.coef, fit.intercept, Z, y_rows)
    return loss if theta.ndim == 2 else loss[0]


def transfer_risk(fits, X_source, y_source, X_target, y_target, theta, n_boot=400, random_state=0):
    """Equation (3) for the 0-1 loss under dropout ``theta``, beside the measured target error.

    Parameters
    ----------
    fits : sequence of FittedLinear
        Binary linear classifiers (``coef``, ``intercept``, ``name``).
    X_source, y_source : ndarray
        The labelled source sample S.
    X_target, y_target : ndarray
        The labelled target (only to measure the error Equation (3) estimates).
    theta : array-like of shape (n_features,)
        The dropout probabilities of the transfer model (Equation (8)), estimated from
        ``X_source`` and ``X_target`` (θ̂).
    n_boot : int
        Bootstrap draws of the gap's standard error (:attr:`RiskEstimate.gap_se`).
    random_state : int

    Returns
    -------
    list of RiskEstimate
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.size > MAX_ENUMERATED_FEATURES:
        raise ValueError(f"Dropout patterns are enumerated for up to {MAX_ENUMERATED_FEATURES} features.")
    Xs, ys, cs = _grouped(X_source, y_source)
    Xt, yt, ct = _grouped(X_target, y_target)
    rng = np.random.default_rng(random_state)
    boot_s, boot_t = (rng.multinomial(int(c.sum()), c / c.sum(), size=n_boot) for c in (cs, ct))
    # θ̂ (section 3.3.1) of every resampled pair from its non-zero rates, shape (B, m)
    rates = [
        boot @ (X != 0).astype(float) / boot.sum(axis=1, keepdims=True)
        for boot, X in ((boot_s, Xs), (boot_t, Xt))
    ]
    boot_theta = dropout_from_rates(*rates)
    out = []
    for fit in fits:
        loss = expected_loss(fit, Xs, ys, theta)
        n = float(cs.sum())
        mean = float(cs @ loss / n)
        var = float(cs @ (loss - mean) ** 2 / max(n - 1.0, 1.0))
        wrong_t = wrong_per_sample(fit.coef, fit.intercept, Xt, yt)
        measured = float(ct @ wrong_t / ct.sum())
        gaps = (
            boot_t @ wrong_t / ct.sum() - np.sum(boot_s * expected_loss(fit, Xs, ys, boot_theta), axis=1) / n
        )
        expected_se, gap_se = float(np.sqrt(var / n)), float(np.std(gaps, ddof=1))
        out.append(
            RiskEstimate(fit.name, mean, expected_se, measured, binomial_se(measured, len(y_target)), gap_se)
        )
    return out
