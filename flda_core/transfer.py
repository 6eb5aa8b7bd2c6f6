"""The dropout transfer model (paper section 3.3.1, Eqs. (7)-(9)).

A source sample ``x`` becomes a target sample ``z`` by dropping every feature
``d`` independently with probability ``theta_d`` and scaling the survivors by
``1 / (1 - theta_d)`` so that ``E[z | x] = x`` (Eq. (8)).  The maximum
likelihood estimate of ``theta`` from unlabelled data is
``theta_d = max(0, 1 - zeta_d / eta_d)`` where ``eta_d`` and ``zeta_d`` are the
fractions of non-zero entries of feature ``d`` in source and target
(Appendix A and the display after Eq. (9)).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

__all__ = [
    "nonzero_rate",
    "dropout_from_rates",
    "estimate_dropout",
    "dropout_variance_factor",
    "apply_dropout",
    "check_theta",
]


def nonzero_rate(X, zero_tol=0.0, sample_weight=None):
    """Fraction of samples in which each feature is non-zero.

    This is the maximum-likelihood Bernoulli parameter ``eta_d`` of Eq. (7)
    (or ``zeta_d`` when applied to target data).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    zero_tol : float, default=0.0
        Entries with ``|x| <= zero_tol`` count as zero (scanned images have
        faint, non-zero backgrounds).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights with a positive sum: the rate is then the
        weighted fraction ``sum_i w_i 1[x_id != 0] / sum_i w_i`` (the ML
        estimate on rows repeated ``w_i`` times).

    Returns
    -------
    rate : ndarray of shape (n_features,)
    """
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_all_finite=True)
    if X.shape[0] == 0:
        raise ValueError("Cannot estimate non-zero rates from zero samples.")
    if zero_tol < 0:
        raise ValueError(f"zero_tol must be >= 0, got {zero_tol}.")
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=np.float64)
        nonzero = abs(X) > zero_tol
        return np.asarray(nonzero.T @ weights, dtype=np.float64).ravel() / weights.sum()
    if sp.issparse(X):
        if X.format == "csr":
            columns = X.indices
        else:  # csc: expand the column pointer into one column index per entry
            columns = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
        counts = np.bincount(columns[np.abs(X.data) > zero_tol], minlength=X.shape[1])
        return counts / X.shape[0]
    return np.count_nonzero(np.abs(X) > zero_tol, axis=0) / X.shape[0]


def estimate_dropout(X_source, X_target, zero_tol=0.0, sample_weight=None, target_weight=None):
    """Maximum-likelihood dropout parameters of the transfer model.

    ``theta_d = max(0, 1 - zeta_d / eta_d)`` (section 3.3.1, Algorithm 1).

    Edge cases, all explicit:

    * a feature never non-zero in the source (``eta_d = 0``) gets
      ``theta_d = 0``: the model cannot drop what is never there;
    * a feature never non-zero in the target but present in the source gets
      ``theta_d = 1`` exactly (the classifier then gives it weight 0);
    * a feature more frequent in the target than in the source gets
      ``theta_d = 0``: dropout cannot make features *appear* (the paper's
      M -> U asymmetry, section 4.2.3).

    Parameters
    ----------
    X_source : {array-like, sparse matrix} of shape (n_source, n_features)
    X_target : {array-like, sparse matrix} of shape (n_target, n_features)
    zero_tol : float, default=0.0
        Entries with ``|x| <= zero_tol`` count as zero.
    sample_weight : array-like of shape (n_source,), optional
        Weights of the source samples (``eta_d`` becomes the weighted rate).
    target_weight : array-like of shape (n_target,), optional
        Weights of the target samples (for ``zeta_d``); by default unweighted.

    Returns
    -------
    theta : ndarray of shape (n_features,), values in [0, 1]
    """
    eta = nonzero_rate(X_source, zero_tol, sample_weight)
    zeta = nonzero_rate(X_target, zero_tol, target_weight)
    return dropout_from_rates(eta, zeta)


def dropout_from_rates(eta, zeta):
    """``theta_d = max(0, 1 - zeta_d / eta_d)`` from the two non-zero rates.

    The one implementation of the dropout estimate (section 3.3.1, the display
    after Eq. (9); Algorithm 1), used by :func:`estimate_dropout`, by the
    block-wise counts of :mod:`flda_core.dask_support` and by batched callers
    (e.g. one estimate per training subset).  Pure and vectorised: ``eta`` and
    ``zeta`` may have any (equal) shape, the last axis being the features.
    Only the ratio ``zeta_d / eta_d`` matters, so two non-zero *counts* over
    samples of the same size give the same ``theta`` as their rates.

    * ``eta_d = 0`` (the feature is never non-zero in the source):
      ``theta_d = 0``, the model cannot drop what is never there;
    * ``zeta_d = 0 < eta_d`` (never seen in the target): ``theta_d = 1``
      exactly, so the classifier gives the feature weight 0;
    * ``zeta_d > eta_d`` (more frequent in the target): ``theta_d = 0``,
      dropout cannot make features appear (section 4.2.3).

    Every value lies in [0, 1]: for non-negative rates ``1 - zeta/eta <= 1``
    and the ``max`` clips below.  Rates count entries with ``|x| > zero_tol``
    (:func:`nonzero_rate`); the estimate itself needs no tolerance.

    Parameters
    ----------
    eta : array-like of shape (..., n_features)
        Source non-zero rates (or counts), non-negative.
    zeta : array-like of shape (..., n_features)
        Target non-zero rates (or counts over as many samples), non-negative.

    Returns
    -------
    theta : ndarray of float64, the shape of ``eta``
    """
    eta = np.asarray(eta, dtype=np.float64)
    zeta = np.asarray(zeta, dtype=np.float64)
    if eta.shape != zeta.shape:
        raise ValueError(
            f"Source has {eta.shape[-1] if eta.ndim else 1} features but target has "
            f"{zeta.shape[-1] if zeta.ndim else 1}; both domains must share one feature space."
            if eta.shape[:-1] == zeta.shape[:-1]
            else f"eta has shape {eta.shape} but zeta has {zeta.shape}."
        )
    if np.any(eta < 0) or np.any(zeta < 0):
        raise ValueError("Non-zero rates must be non-negative.")
    theta = np.zeros_like(eta)
    present = eta > 0
    theta[present] = np.maximum(0.0, 1.0 - zeta[present] / eta[present])
    return theta


def check_theta(theta, n_features):
    """Validate a dropout vector: shape ``(n_features,)``, finite, in [0, 1]."""
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim == 0:
        theta = np.full(n_features, float(theta))
    if theta.shape != (n_features,):
        raise ValueError(f"theta has shape {theta.shape}; expected ({n_features},), one value per feature.")
    if not np.all(np.isfinite(theta)) or np.any(theta < 0) or np.any(theta > 1):
        raise ValueError("theta must contain finite values in [0, 1].")
    return theta


def dropout_variance_factor(theta):
    """``theta / (1 - theta)``, the per-feature variance factor of the transfer model.

    ``Var[z_d | x] = theta_d / (1 - theta_d) * x_d**2`` (section 3.3.1,
    the display after Eq. (9)).  For ``theta_d = 1`` the factor is ``inf``; callers must
    treat such features explicitly (their weight is exactly zero).

    Raises
    ------
    ValueError
        If any ``theta`` lies outside [0, 1].
    """
    theta = np.asarray(theta, dtype=np.float64)
    if np.any((theta < 0) | (theta > 1)):
        raise ValueError("theta must lie in [0, 1].")
    factor = np.full_like(theta, np.inf)
    finite = theta < 1.0
    factor[finite] = theta[finite] / (1.0 - theta[finite])
    return factor


def apply_dropout(X, theta, random_state=None):
    """Draw one target sample per row of ``X`` from the transfer model (Eq. (8)).

    Each entry ``x_d`` is set to 0 with probability ``theta_d`` and otherwise
    scaled by ``1 / (1 - theta_d)``.  Features with ``theta_d = 1`` become 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    theta : array-like of shape (n_features,)
    random_state : int, RandomState or Generator, optional

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
    """
    X = np.asarray(X, dtype=np.float64)
    theta = check_theta(theta, X.shape[1])
    rng = random_state if isinstance(random_state, np.random.Generator) else None
    if rng is None:
        rng = np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))
    keep = rng.random(X.shape) >= theta
    scale = np.zeros_like(theta)
    scale[theta < 1] = 1.0 / (1.0 - theta[theta < 1])
    return np.where(keep, X * scale, 0.0)
