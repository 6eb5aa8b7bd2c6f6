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

from explorer.experiments.scoring import binary_error, positive_side

__all__ = ["RiskEstimate", "transfer_risk", "binomial_se", "wrong_per_sample", "MAX_ENUMERATED_FEATURES"]

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
    """

    name: str
    expected: float
    expected_se: float
    measured: float
    measured_se: float

    @property
    def gap_se(self):
        """Standard error of ``measured - expected`` (independent samples)."""
        return float(np.hypot(self.expected_se, self.measured_se))


def binomial_se(error, n):
    """Standard error sqrt(p(1 - p) / n) of an error rate ``p`` measured on ``n`` samples."""
    p = float(error)
    return float(np.sqrt(max(p * (1.0 - p), 0.0) / max(int(n), 1)))


def wrong_per_sample(coef, intercept, X, y):
    """0/1 per row, scored as every page scores (ties count as the first class)."""
    coef = np.asarray(coef, dtype=np.float64).ravel()
    X = np.asarray(X, dtype=np.float64)
    scores = X @ coef + float(intercept)
    says_one = positive_side(scores, np.abs(X) @ np.abs(coef) + abs(float(intercept)))
    return (says_one.astype(int) != np.asarray(y)).astype(np.float64)


def transfer_risk(fits, X_source, y_source, X_target, y_target, theta):
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
        The dropout probabilities of the transfer model (Equation (8)).

    Returns
    -------
    list of RiskEstimate
    """
    from explorer.experiments.rows import distinct_rows

    theta = np.asarray(theta, dtype=np.float64)
    m = theta.size
    if m > MAX_ENUMERATED_FEATURES:
        raise ValueError(f"Dropout patterns are enumerated for up to {MAX_ENUMERATED_FEATURES} features.")
    X = np.asarray(X_source, dtype=np.float64)
    y = np.asarray(y_source)
    grouped = distinct_rows(X, y)
    X_rows, y_rows, counts = grouped if grouped is not None else (X, y, np.ones(len(y), dtype=int))
    scale = np.where(theta < 1.0, 1.0 / np.where(theta < 1.0, 1.0 - theta, 1.0), 0.0)
    out = []
    for fit in fits:
        loss = np.zeros(len(y_rows))
        for kept in itertools.product((False, True), repeat=m):
            kept = np.array(kept)
            prob = float(np.prod(np.where(kept, 1.0 - theta, theta)))
            if prob == 0.0:
                continue
            Z = X_rows * np.where(kept, scale, 0.0)
            loss += prob * wrong_per_sample(fit.coef, fit.intercept, Z, y_rows)
        n = float(counts.sum())
        mean = float(np.sum(counts * loss) / n)
        var = float(np.sum(counts * (loss - mean) ** 2) / max(n - 1.0, 1.0))
        measured = binary_error(fit.coef, fit.intercept, X_target, y_target)
        out.append(
            RiskEstimate(
                fit.name, mean, float(np.sqrt(var / n)), measured, binomial_se(measured, len(y_target))
            )
        )
    return out
