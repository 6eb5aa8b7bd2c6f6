"""Expected losses under the dropout transfer model and their exact gradients.

Everything here is a small pure function of ``(weights, X, labels, variance
factor)`` so that it can be checked against independent computations (Monte
Carlo over the transfer model, finite differences) in the test suite.

Notation (paper section 3): ``n`` source samples ``x_i`` with ``m`` features,
dropout ``theta``, variance factor ``c_d = theta_d / (1 - theta_d)`` so that
``Var[z_id | x_i] = c_d x_id**2`` and ``E[z_i | x_i] = x_i``.  We write
``Q = X**2 * c`` (the per-sample, per-feature dropout variances).  The intercept
``b`` is a separate parameter: it is never dropped out and never penalised.

All objectives are *means* over the source samples plus ``l2 * ||W||**2``
(intercept excluded), i.e. Eq. (3) with the paper's ``1/|S|``.  With sample
weights ``s_i >= 0`` the mean becomes the weighted mean
``sum_i s_i loss_i / sum_i s_i`` (every per-sample term, variance terms
included, is weighted), so integer weights are exactly repeated rows and
``l2`` keeps its meaning.

Quadratic loss (Eq. (10)) -- exact:

    J_Q(w, b) = 1/n sum_i E[(t_i - w.z_i - b)**2] + l2 ||w||**2
              = 1/n ( ||t - X w - b||**2 + sum_d c_d s_d w_d**2 ) + l2 ||w||**2,
    s_d = sum_i x_id**2.

Logistic loss (Eq. (12)) -- second-order Taylor expansion of the
log-partition ``A(a) = log sum_k exp(a_k)`` around ``a_i = W^T x_i + b``
(Eq. (13), Appendix C).  The first-order term vanishes because the
transfer model is unbiased; the second-order term is
``1/2 tr(Hess A(a_i) Cov[W^T z_i])`` with ``Hess A = diag(p) - p p^T`` and
``Cov[W^T z_i] = W^T diag(q_i) W``:

    J_L(W, b) = 1/n sum_i [ A(a_i) - a_{i, y_i}
                + 1/2 sum_d q_id ( sum_k p_ik W_dk**2 - (sum_k p_ik W_dk)**2 ) ]
                + l2 ||W||**2.

Two corrections to the paper's printed formulas, both verified numerically in
``tests/test_objectives.py``: (i) Appendix C keeps only the diagonal of the
softmax Hessian (``p_k - p_k**2``) and drops the cross-class covariances
``-p_j p_k``; the full Hessian is used here.  (ii) In the paper's binary
``{-1, +1}`` parametrisation, ``A(a) = log(e^a + e^-a)`` has
``A'' = 4 sigma(2a) sigma(-2a)``, so Eq. (13) should read
``2 sigma(2a) sigma(-2a) w^T V w`` (a factor 2 is missing).  For two classes
we use the standard logistic parametrisation ``p = sigma(w.x + b)``, which is
the multinomial model with the first class's weights fixed at 0; its
variance term is ``1/2 p (1 - p) sum_d q_d w_d**2``.

Other transfer models (:mod:`flda_core.transfer_models`): expanding around
``a_i = W^T E[z_i | x_i] + b`` the first-order term vanishes for any model, so
the same functions give the expected loss with ``X`` = the conditional means
and ``Q`` = the per-entry variances ``Var[z_id | x_i]``
(:func:`expected_quadratic_loss` takes them through ``variance=``).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit

__all__ = [
    "dropout_variances",
    "expected_quadratic_loss",
    "logistic_binary_objective",
    "logistic_multinomial_objective",
]

# Rows per block when a dense (n_rows x n_classes) temporary is needed at the
# non-zeros of a sparse matrix; keeps the temporary near 64 MB.
_BLOCK_ENTRIES = 8_000_000


def dropout_variances(X, c):
    """``Q = X**2 * c``: per-sample, per-feature variance of ``z`` under dropout.

    Sparse input keeps its sparsity pattern.  ``c`` must be finite (features
    with ``theta = 1`` are removed by the caller before this point).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        Q = X.copy()
        Q.data = Q.data**2 * c[Q.indices]
        return Q
    return np.asarray(X) ** 2 * c


def _normalized_weights(sample_weight, n):
    """Weights rescaled to sum ``n`` (``None`` stays ``None``): ``1/n sum_i s_i l_i``
    is then the weighted mean ``sum_i w_i l_i / sum_i w_i``."""
    if sample_weight is None:
        return None
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    return sample_weight * (n / sample_weight.sum())


def _scale_rows(Q, s):
    """``diag(s) Q`` (CSR for sparse ``Q``); ``Q`` itself when ``s`` is None."""
    if s is None:
        return Q
    if sp.issparse(Q):
        return sp.csr_matrix(sp.diags(s) @ Q)
    return Q * s[:, None]


def expected_quadratic_loss(w, b, X, t, c, variance=None, sample_weight=None):
    """Exact mean expected squared loss under dropout (Eq. (10) / n).

    Parameters
    ----------
    w : ndarray of shape (n_features,) or (n_features, n_outputs)
    b : float or ndarray of shape (n_outputs,)
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Source samples (dropout: ``E[z | x] = x``), or the conditional means
        ``E[z_i | x_i]`` of any transfer model when ``variance`` is given.
    t : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Regression targets (``{-1, +1}`` class codes).
    c : ndarray of shape (n_features,) or None
        Finite variance factors ``theta / (1 - theta)``; ignored when
        ``variance`` is given.
    variance : {ndarray, sparse matrix} of shape (n_samples, n_features), optional
        Per-entry ``Var[z_id | x_i]`` of a general transfer model
        (:mod:`flda_core.transfer_models`): then
        ``E (t - w.z - b)**2 = (t - w.E[z] - b)**2 + sum_d Var[z_d] w_d**2``.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative weights: the weighted mean over samples.

    Returns
    -------
    float
        ``1/n sum_i E[ ||t_i - W^T z_i - b||**2 ]`` (weighted mean with weights).
    """
    n = X.shape[0]
    s = _normalized_weights(sample_weight, n)
    residual = t - (X @ w) - b
    if residual.ndim == 1:
        residual = residual[:, None]
    if variance is None:
        variance = dropout_variances(X, c)
    cs = np.asarray(_scale_rows(variance, s).sum(axis=0)).ravel()
    squares = (residual**2).sum(axis=1)
    data = np.sum(squares) if s is None else np.dot(s, squares)
    w2 = w**2 if w.ndim == 1 else (w**2).sum(axis=1)
    return float((data + np.dot(cs, w2)) / n)


def logistic_binary_objective(w, b, X, Q, y01, l2, penalized=None, sample_weight=None):
    """Taylor-approximated expected logistic loss for two classes, and its gradient.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
    b : float
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    Q : same type as X, shape (n_samples, n_features) or (n_samples, len(penalized))
        Dropout variances ``X**2 * c`` (:func:`dropout_variances`), of the
        ``penalized`` columns only if given.
    y01 : ndarray of shape (n_samples,)
        1.0 for the positive class, 0.0 otherwise.
    l2 : float
        Ridge penalty ``l2 * ||w||**2`` (intercept excluded).
    penalized : ndarray of int, optional
        The features with ``theta > 0``; the variance term is computed on these
        columns only (exact: the others contribute 0).  Default: all features.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative weights; the objective is then the weighted mean of the
        per-sample expected losses (data and variance terms alike).

    Returns
    -------
    value : float
    grad_w : ndarray of shape (n_features,)
    grad_b : float
    """
    n = X.shape[0]
    s = _normalized_weights(sample_weight, n)
    wp = w if penalized is None else w[penalized]
    a = np.asarray(X @ w).ravel() + b
    r = np.asarray(Q @ (wp * wp)).ravel()  # sum_d q_id w_d^2
    p = expit(a)
    pi = p * (1.0 - p)  # A''(a) of the standard logistic loss
    # log(1 + e^a) - y a, computed stably.
    data_term = -(y01 * log_expit(a) + (1.0 - y01) * log_expit(-a))
    residual = p - y01
    if s is not None:
        data_term, residual, r, pi_q = data_term * s, residual * s, r * s, pi * s
    else:
        pi_q = pi
    value = (data_term.sum() + 0.5 * np.dot(pi, r)) / n + l2 * np.dot(w, w)
    grad_a = (residual + 0.5 * r * pi * (1.0 - 2.0 * p)) / n
    grad_w = np.asarray(X.T @ grad_a).ravel() + 2.0 * l2 * w
    _add_rows(grad_w, np.asarray(Q.T @ pi_q).ravel() * wp / n, penalized)
    return value, grad_w, float(grad_a.sum())


def _sparse_rows_dot(Q, P, W):
    """For each stored entry (i, d) of CSR ``Q``: ``v_id = sum_k P_ik W_dk``.

    Returns the values aligned with ``Q.data``; computed in row blocks so that
    the ``nnz x K`` temporary stays bounded.
    """
    out = np.empty_like(Q.data)
    n_classes = P.shape[1]
    rows_per_block = max(1, _BLOCK_ENTRIES // max(1, n_classes * max(1, Q.nnz // max(1, Q.shape[0]))))
    for start in range(0, Q.shape[0], rows_per_block):
        stop = min(Q.shape[0], start + rows_per_block)
        lo, hi = Q.indptr[start], Q.indptr[stop]
        if lo == hi:
            continue
        rows = np.repeat(np.arange(start, stop), np.diff(Q.indptr[start : stop + 1]))
        cols = Q.indices[lo:hi]
        out[lo:hi] = np.einsum("ek,ek->e", P[rows], W[cols])
    return out


def logistic_multinomial_objective(W, b, X, Q, Y, l2, penalized=None, sample_weight=None):
    """Taylor-approximated expected multinomial logistic loss, and its gradient.

    The variance term uses the full softmax Hessian ``diag(p) - p p^T``
    (see the module docstring for the derivation and the correction to
    Appendix C).

    Parameters
    ----------
    W : ndarray of shape (n_features, n_classes)
    b : ndarray of shape (n_classes,)
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    Q : same type as X, shape (n_samples, n_features) or (n_samples, len(penalized))
        Dropout variances ``X**2 * c`` (of the ``penalized`` columns only, if given).
    Y : ndarray of shape (n_samples, n_classes)
        One-hot labels.
    l2 : float
    penalized : ndarray of int, optional
        The features with a non-zero dropout variance (``theta > 0``); the
        variance term is computed on these columns only, which is exact
        (the others contribute 0) and saves most of the work when few
        features are dropped out.  Default: all features.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative weights; the objective is then the weighted mean of the
        per-sample expected losses (data and variance terms alike).

    Returns
    -------
    value : float
    grad_W : ndarray of shape (n_features, n_classes)
    grad_b : ndarray of shape (n_classes,)
    """
    n = X.shape[0]
    s = _normalized_weights(sample_weight, n)
    if not sp.issparse(X):
        return _multinomial_dense_blocked(W, b, np.asarray(X), Q, Y, l2, penalized, s)
    # The variance term is linear in each row of Q: weighting it is weighting Q's rows.
    Q = _scale_rows(Q, s)
    A = np.asarray(X @ W) + b
    P, log_partition = _softmax_and_log_partition(A)
    if s is None:
        data_term = float(np.sum(log_partition) - np.sum(A * Y))
        grad_A = (P - Y) / n
    else:
        data_term = float(np.dot(s, log_partition - np.sum(A * Y, axis=1)))
        grad_A = (P - Y) * (s / n)[:, None]
    Wp = W if penalized is None else W[penalized]
    variance_term = 0.0
    direct = None
    if Wp.shape[0]:
        U = np.asarray(Q @ (Wp * Wp))  # u_ik = sum_d q_id W_dk^2
        v = _sparse_rows_dot(Q, P, Wp)  # v_id = sum_k p_ik W_dk at non-zeros
        QV = sp.csr_matrix((Q.data * v, Q.indices, Q.indptr), shape=Q.shape)
        variance_term = 0.5 * (float(np.vdot(P, U)) - float(np.dot(QV.data, v)))
        # d(variance term)/dP, then through the softmax Jacobian.
        G = 0.5 * (U - 2.0 * np.asarray(QV @ Wp)) / n
        grad_A += P * (G - np.sum(G * P, axis=1, keepdims=True))
        direct = (Wp * np.asarray(Q.T @ P) - np.asarray(QV.T @ P)) / n
    value = (data_term + variance_term) / n + l2 * float(np.vdot(W, W))
    grad_W = np.asarray(X.T @ grad_A) + 2.0 * l2 * W
    _add_rows(grad_W, direct, penalized)
    return value, grad_W, grad_A.sum(axis=0)


def _softmax_and_log_partition(A):
    """Row-wise softmax ``P`` and ``log sum_k exp(A_ik)``, sharing one ``exp``."""
    A_max = A.max(axis=1, keepdims=True)
    E = np.exp(A - A_max)
    E_sum = E.sum(axis=1, keepdims=True)
    return E / E_sum, (np.log(E_sum) + A_max).ravel()


def _add_rows(target, rows, index):
    if rows is None:
        return
    if index is None:
        target += rows
    else:
        target[index] += rows


#: Rows per block of the dense multinomial objective: the block's slices of X,
#: Q and two n x m temporaries stay in cache (the objective is memory bound).  64
#: rows: 4.1 ms per evaluation on Table 5's C→A (1123 x 800, 10 classes) against
#: 6.4 ms with 256 (one BLAS thread; ``benchmarks/bench_paper_tables.py``).
_DENSE_BLOCK_ROWS = 64


def _multinomial_dense_blocked(W, b, X, Q, Y, l2, penalized, s=None):
    """Dense multinomial objective in one cache-friendly pass over row blocks.

    Same quantities as the sparse branch of
    :func:`logistic_multinomial_objective`, but every ``n x m`` product is
    formed block by block, so ``X`` and ``Q`` are each read from memory once
    per evaluation instead of about a dozen times.  ``s``: weights summing
    to ``n`` (see :func:`_normalized_weights`) or None.
    """
    n = X.shape[0]
    Wp = W if penalized is None else W[penalized]
    Wp_sq = Wp * Wp
    has_variance = Wp.shape[0] > 0
    grad_W = 2.0 * l2 * W
    direct = np.zeros_like(Wp) if has_variance else None
    grad_b = np.zeros_like(b, dtype=np.float64)
    data_term = variance_term = 0.0
    for start in range(0, n, _DENSE_BLOCK_ROWS):
        rows = slice(start, min(n, start + _DENSE_BLOCK_ROWS))
        Xb, Yb = X[rows], Y[rows]
        A = Xb @ W + b
        P, log_partition = _softmax_and_log_partition(A)
        if s is None:
            data_term += float(np.sum(log_partition) - np.vdot(A, Yb))
            grad_A = (P - Yb) / n
        else:
            sb = s[rows]
            data_term += float(np.dot(sb, log_partition - np.sum(A * Yb, axis=1)))
            grad_A = (P - Yb) * (sb / n)[:, None]
        if has_variance:
            Qb = Q[rows] if s is None else Q[rows] * sb[:, None]
            U = Qb @ Wp_sq  # u_ik = sum_d q_id W_dk^2
            V = P @ Wp.T  # v_id = sum_k p_ik W_dk
            QV = Qb * V
            variance_term += 0.5 * (float(np.vdot(P, U)) - float(np.vdot(QV, V)))
            # d(variance term)/dP, then through the softmax Jacobian.
            G = 0.5 * (U - 2.0 * (QV @ Wp)) / n
            grad_A += P * (G - np.sum(G * P, axis=1, keepdims=True))
            direct += (Wp * (Qb.T @ P) - QV.T @ P) / n
        grad_W += Xb.T @ grad_A
        grad_b += grad_A.sum(axis=0)
    value = (data_term + variance_term) / n + l2 * float(np.vdot(W, W))
    _add_rows(grad_W, direct, penalized)
    return value, grad_W, grad_b
