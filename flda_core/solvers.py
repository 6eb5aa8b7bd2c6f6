"""Solvers for the two FLDA risks (paper section 3.4).

``solve_quadratic`` minimises the exact expected quadratic risk (Eq. (11),
Algorithm 1) with one of three interchangeable methods, checked
against each other in the tests:

* ``"cholesky"``: the primal normal equations, an ``m x m`` system (small m);
* ``"woodbury"``: the dual (push-through / Woodbury) form, an ``n x n``
  system, for many features and few samples;
* ``"cg"``: preconditioned conjugate gradients on the primal system using only
  products with ``X`` -- memory ``O(nnz + m)``, for large sparse problems.

``solve_logistic`` minimises the Taylor-approximated expected logistic risk
(Eq. (12) with Eq. (13); Algorithm 2) with L-BFGS on the
exact gradient, in coordinates rescaled by ``sqrt(1 + theta / (4 (1 - theta)))``
so that features with ``theta`` close to 1 (a huge dropout variance) do not
make the problem ill-conditioned for the optimiser, and columns far from unit
scale (non-zero values with a root mean square outside ``WELL_SCALED_RMS``, e.g. x ~ 1e-6 or 1e50)
are brought to unit scale in the optimiser's coordinates.  Both are changes of
variables ``w = v * scale``: the objective and its minimiser are unchanged and
the weights are mapped back exactly.  Every stop other than a normal
convergence (iteration cap, abnormal line-search end, or no iteration at all)
raises a ``ConvergenceWarning``.


References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from numbers import Integral

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import ThreadpoolController

from flda_core.objectives import (
    _scale_rows,
    dropout_variances,
    logistic_binary_objective,
    logistic_multinomial_objective,
)

__all__ = [
    "solve_quadratic",
    "solve_quadratic_moments",
    "solve_psd_min_norm",
    "centred_cg",
    "quadratic_targets",
    "solve_logistic",
    "minimize_logistic",
    "blas_threads",
    "preconditioned_cg",
    "QUADRATIC_SOLVERS",
]

QUADRATIC_SOLVERS = ("auto", "cholesky", "woodbury", "cg")
#: Largest number of features for which "auto" forms the m x m Gram matrix.
MAX_PRIMAL_FEATURES = 2_000
#: Largest number of samples for which "auto" forms the n x n dual matrix.
MAX_DUAL_SAMPLES = 2_000


def _column_sum_squares(X, sample_weight=None):
    """``sum_i w_i x_id**2`` per column (``w = 1`` without weights)."""
    if sample_weight is not None:
        squares = X.multiply(X) if sp.issparse(X) else X * X
        return np.asarray(squares.T @ sample_weight).ravel()
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=0)).ravel()
    return np.einsum("ij,ij->j", X, X)


def choose_quadratic_solver(n_samples, n_features, penalty, sparse=False):
    """The solver ``"auto"`` picks: never a dense matrix larger than 2,000 squared.

    Up to :data:`MAX_PRIMAL_FEATURES` features the primal normal equations; beyond,
    conjugate gradients for sparse ``X`` (products with ``X`` only: on the paper's
    IMDB folds, 1,848 x 4,180 at 2.8 % non-zero, 0.01-0.05 s per fit against
    0.25-0.35 s for the dual form, whose ``n x n`` matrix a sparse product fills
    densely), the dual (Woodbury) form for dense ``X`` with at most
    :data:`MAX_DUAL_SAMPLES` rows, else conjugate gradients.
    """
    if n_features <= MAX_PRIMAL_FEATURES:
        return "cholesky"
    if not sparse and n_samples <= MAX_DUAL_SAMPLES and np.all(penalty > 0):
        return "woodbury"
    return "cg"


#: Relative cutoff of the minimum-norm solve for a singular Gram matrix: singular
#: values below it are rounding noise (measured at 1e-16..1e-14 of the largest for a
#: rank-deficient Gram matrix, against 1e-1 for its smallest genuine one).  LAPACK's
#: default (machine epsilon) keeps part of that noise, so the "minimum-norm" solution
#: then depends on the summation order, e.g. weighted Gram versus repeated rows.
SINGULAR_CUTOFF = 1e-10


def _solve_psd(G, rhs):
    """Solve ``G x = rhs`` for symmetric PSD ``G``; minimum-norm if singular."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", la.LinAlgWarning)
        try:
            return la.solve(G, rhs, assume_a="pos")
        except (la.LinAlgError, la.LinAlgWarning):
            pass
    return la.lstsq(G, rhs, cond=SINGULAR_CUTOFF)[0]


#: Relative eigenvalue below which a matrix of a *stack* counts as singular in
#: :func:`solve_psd_min_norm` (the batched counterpart of :data:`SINGULAR_CUTOFF`).
MIN_NORM_RTOL = 1e-12


def solve_psd_min_norm(A, rhs, rtol=MIN_NORM_RTOL):
    """Minimum-norm solutions of a stack of symmetric PSD systems ``A x = rhs``.

    One stacked eigen-decomposition: eigenvalues below ``rtol *`` the largest
    of their matrix are treated as 0 (the pseudo-inverse, what
    :func:`_solve_psd` falls back to for one singular system); for regular
    ``A`` it is the usual solution.  Thousands of tiny systems are solved in
    one LAPACK call instead of one Python call each.

    Parameters
    ----------
    A : ndarray of shape (..., m, m)
    rhs : ndarray of shape (..., m) or (..., m, k)

    Returns
    -------
    x : ndarray shaped like ``rhs``
    """
    vector = rhs.ndim == A.ndim - 1
    rhs = rhs[..., None] if vector else rhs
    eigval, eigvec = np.linalg.eigh(A)
    top = np.max(np.abs(eigval), axis=-1, keepdims=True)
    keep = eigval > rtol * top
    inv = np.where(keep, 1.0 / np.where(keep, eigval, 1.0), 0.0)
    coeffs = np.einsum("...mj,...mk->...jk", eigvec, rhs) * inv[..., None]
    x = np.einsum("...mj,...jk->...mk", eigvec, coeffs)
    return x[..., 0] if vector else x


def quadratic_targets(y_index, n_classes):
    """``{-1, +1}`` regression targets of FLDA-Q: one column for two classes
    (class index 1 is ``+1``), one-vs-rest columns otherwise."""
    if n_classes == 2:
        return np.where(y_index == 1, 1.0, -1.0)[:, None]
    T = -np.ones((len(y_index), n_classes))
    T[np.arange(len(y_index)), y_index] = 1.0
    return T


def _centre(sum_x, xt_t, sum_t, n):
    """``mu``, ``mean(T)`` and the centred right-hand side ``X^T T - mu sum(T)^T``
    from sums over the samples (leading axes broadcast)."""
    n = np.asarray(n, dtype=np.float64)[..., None]
    mu, t_mean = sum_x / n, sum_t / n
    return mu, t_mean, xt_t - mu[..., :, None] * (n * t_mean)[..., None, :]


def solve_quadratic_moments(gram, sum_x, xt_t, sum_t, n, variance, l2, active=None):
    """FLDA-Q weights and intercept from sums over the samples (Eq. (11), Algorithm 1).

    The direct solve of :func:`solve_quadratic`, shared by the in-memory
    estimator, the block-wise sums of :mod:`flda_core.dask_support` and batched
    callers (many training subsets at once).  With the intercept unpenalised
    and eliminated, ``mu = sum_x / n`` and ``mean(T) = sum_t / n``, it solves
    the centred system::

        (gram - n mu mu^T + diag(variance + n l2)) W = xt_t - mu sum_t^T
        b = mean(T) - mu^T W

    ``variance_d`` is the summed dropout variance ``c_d sum_i x_id**2``
    (``c = theta / (1 - theta)``, section 3.3.1), or ``sum_i Var[z_id | x_i]``
    of a general transfer model.  Every argument may carry leading (batch)
    axes; a single system is solved by Cholesky (minimum-norm least squares if
    singular, :func:`_solve_psd`), a stack by :func:`solve_psd_min_norm`.

    Parameters
    ----------
    gram : ndarray of shape (..., m, m)
        ``sum_i w_i x_i x_i^T`` (uncentred; ``w = 1`` without weights).
    sum_x : ndarray of shape (..., m)
        ``sum_i w_i x_i``.
    xt_t : ndarray of shape (..., m, k)
        ``sum_i w_i x_i t_i^T``.
    sum_t : ndarray of shape (..., k)
        ``sum_i w_i t_i``.
    n : float or ndarray of shape (...)
        Number of samples (sum of the weights).
    variance : ndarray of shape (..., m)
        Dropout variance summed over the samples, per feature.
    l2 : float or ndarray of shape (...)
        Ridge on the mean loss (the penalty on the summed loss is ``n l2``).
    active : ndarray of bool of shape (..., m), optional
        Features to fit; the others get weight exactly 0 (their rows and
        columns become the identity, so the rest is the reduced system).

    Returns
    -------
    W : ndarray of shape (..., m, k)
    b : ndarray of shape (..., k)
    """
    mu, t_mean, rhs = _centre(sum_x, xt_t, sum_t, n)
    nn = np.asarray(n, dtype=np.float64)[..., None]
    A = gram - nn[..., None] * (mu[..., :, None] * mu[..., None, :])
    diag = np.arange(A.shape[-1])
    A[..., diag, diag] += variance + nn * np.asarray(l2, dtype=np.float64)[..., None]
    if active is not None:
        A = np.where(active[..., :, None] & active[..., None, :], A, 0.0)
        A[..., diag, diag] = np.where(active, A[..., diag, diag], 1.0)
        rhs = np.where(active[..., None], rhs, 0.0)
    W = _solve_psd(A, rhs) if A.ndim == 2 else solve_psd_min_norm(A, rhs)
    if active is not None:
        # Exactly 0, whatever the LAPACK build: an eigen-decomposition of the block
        # system may mix the blocks at rounding level (3e-16 with numpy 1.23's).
        W = np.where(active[..., None], W, 0.0)
    if A.ndim == 2:
        return W, t_mean - mu @ W
    return W, t_mean - np.einsum("...m,...mk->...k", mu, W)


def centred_cg(product, mu, sum_x2, n, penalty, rhs, tol, max_iter, init=None):
    """Conjugate gradients on the centred FLDA-Q system from products with ``X`` only.

    Solves ``(Xc^T D Xc + diag(penalty)) W = rhs`` (``Xc = X - 1 mu^T``,
    ``D`` the sample weights) with :func:`preconditioned_cg`, shared by
    :func:`solve_quadratic` (in memory) and :mod:`flda_core.dask_support`
    (one map-reduce per product).  ``product(v, mu_v)`` returns
    ``(X^T D u, sum(D u))`` with ``u = X v - mu_v``; ``sum_x2`` is
    ``sum_i w_i x_id**2`` and ``n`` the weight sum (for the Jacobi diagonal).
    Returns ``W`` and the iteration count.
    """

    def matvec(v):
        v = np.ravel(v)
        Xtu, sum_u = product(v, mu @ v)
        return np.asarray(Xtu).ravel() - mu * sum_u + penalty * v

    return preconditioned_cg(matvec, sum_x2 - n * mu**2 + penalty, rhs, tol, max_iter, init)


def solve_quadratic(
    X, T, c, l2, solver="auto", tol=1e-10, max_iter=None, variance_sums=None, init=None, sample_weight=None
):
    """Minimise ``1/n sum_i E||t_i - W^T z_i - b||^2 + l2 ||W||^2`` exactly.

    With ``sample_weight`` the mean is the weighted mean
    ``sum_i w_i (...) / sum_i w_i``: ``n`` becomes ``N = sum_i w_i``, ``mu``
    and ``mean(T)`` the weighted means, ``Xc^T Xc`` the weighted Gram
    ``Xc^T diag(w) Xc`` and ``s_d = sum_i w_i x_id^2`` -- still one closed-form
    solve.

    With the intercept unpenalised and never dropped out, eliminating ``b``
    gives ``b = mean(T) - mu^T W`` and the centred system
    ``(Xc^T Xc + diag(c * s + n * l2)) W = Xc^T T`` with ``Xc = X - 1 mu^T``
    and ``s_d = sum_i x_id^2`` (the *uncentred* second moment: dropout acts
    on raw values).  This is Eq. (11) with the bias row split off.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Only features with finite ``c`` and at least one non-zero value.
    T : ndarray of shape (n_samples, n_outputs)
        Targets, one column per one-vs-rest problem (all share one factorisation).
    c : ndarray of shape (n_features,)
        Finite dropout variance factors ``theta / (1 - theta)``.
    l2 : float
    solver : {"auto", "cholesky", "woodbury", "cg"}
    tol : float
        Relative residual for ``"cg"``.
    max_iter : int or None
        Iteration cap for ``"cg"`` (default ``10 * n_features``).
    variance_sums : ndarray of shape (n_features,), optional
        General transfer model (:mod:`flda_core.transfer_models`): ``X`` holds
        the conditional means ``E[z_i | x_i]`` (up to a constant row, which
        only moves the intercept) and ``variance_sums[d] = sum_i Var[z_id | x_i]``
        replaces ``c * s`` in the penalty; ``c`` is then ignored.
    init : ndarray of shape (n_features, n_outputs), optional
        Starting weights for ``"cg"`` (warm start); the direct solvers, exact
        in one factorisation, ignore it.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative weights with a positive sum; ``variance_sums`` must then
        be weighted sums too.

    Returns
    -------
    W : ndarray of shape (n_features, n_outputs)
    b : ndarray of shape (n_outputs,)
    solver : str
        The solver actually used.
    n_iter : int
        1 for the direct solvers (one factorisation); the largest number of
        conjugate-gradient iterations over the outputs for ``"cg"``.
    """
    n_rows, m = X.shape
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    n, sum_x, sum_t, xt_t = _weighted_sums(X, T, sw)
    squares = _column_sum_squares(X, sw) if variance_sums is None or solver == "cg" else None
    variance = c * squares if variance_sums is None else np.asarray(variance_sums, dtype=np.float64)
    penalty = variance + n * l2
    if solver == "auto":
        solver = choose_quadratic_solver(n_rows, m, penalty, sp.issparse(X))
        if solver == "cg" and squares is None:
            squares = _column_sum_squares(X, sw)
    if solver == "cholesky":
        G = X.T @ X if sw is None else X.T @ _scale_rows(X, sw)
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        W, b = solve_quadratic_moments(G, sum_x, xt_t, sum_t, n, variance, l2)
        return W, b, solver, 1
    if solver not in ("woodbury", "cg"):
        raise ValueError(f"solver must be one of {QUADRATIC_SOLVERS}, got {solver!r}.")
    mu, t_mean, rhs = _centre(sum_x, xt_t, sum_t, n)
    if solver == "woodbury":
        W, n_iter = _woodbury(X, T - t_mean, mu, _woodbury_inverse_penalty(penalty), sw), 1
    else:
        W, n_iter = _centred_cg_in_memory(X, sw, mu, squares, n, penalty, rhs, tol, max_iter, init)
    return W, t_mean - mu @ W, solver, n_iter


def _weighted_sums(X, T, sw=None):
    """``n`` (the weight sum), ``Σ w x``, ``Σ w t`` and ``Xᵀ diag(w) T`` (``w = 1`` without weights)."""
    n = X.shape[0] if sw is None else float(np.sum(sw))
    sum_x = np.asarray(X.sum(axis=0) if sw is None else X.T @ sw).ravel()
    sum_t = T.sum(axis=0) if sw is None else sw @ T
    xt_t = np.asarray(X.T @ (T if sw is None else T * sw[:, None]))
    return n, sum_x, sum_t, xt_t


def _woodbury_inverse_penalty(penalty):
    """``1 / penalty`` for the dual form, which needs every feature penalised."""
    if not np.all(penalty > 0):
        raise ValueError(
            "The 'woodbury' solver needs l2 > 0 or theta > 0 for every feature; use 'cholesky' or 'cg'."
        )
    return 1.0 / penalty


def _centred_cg_in_memory(X, sw, mu, squares, n, penalty, rhs, tol, max_iter, init):
    """:func:`centred_cg` with products by the in-memory ``X`` (weighted rows with ``sw``)."""

    def product(v, mu_v):
        u = X @ v - mu_v  # Xc v
        if sw is not None:
            u = u * sw  # diag(w) Xc v
        return X.T @ u, u.sum()

    return centred_cg(product, mu, squares, n, penalty, rhs, tol, max_iter, init)


def _woodbury(X, Tc, mu, d_inv, sample_weight=None):
    """``(D + Xc^T Xc)^-1 Xc^T T = D^-1 Xc^T (I + Xc D^-1 Xc^T)^-1 T`` (push-through).

    With weights ``w`` the same with ``Xc`` and ``T`` replaced by
    ``diag(sqrt(w)) Xc`` and ``diag(sqrt(w)) Tc``.
    """
    n = X.shape[0]
    XD = X.multiply(d_inv).tocsr() if sp.issparse(X) else X * d_inv
    K = XD @ X.T
    K = K.toarray() if sp.issparse(K) else np.asarray(K)
    a = np.asarray(X @ (d_inv * mu)).ravel()
    K -= a[:, None]
    K -= a[None, :]
    K += float(mu @ (d_inv * mu))
    if sample_weight is not None:
        root = np.sqrt(sample_weight)
        K *= np.outer(root, root)
        Tc = Tc * root[:, None]
    K[np.diag_indices(n)] += 1.0
    alpha = la.solve(K, Tc, assume_a="pos")
    if sample_weight is not None:
        alpha = alpha * root[:, None]
    return d_inv[:, None] * (np.asarray(X.T @ alpha) - np.outer(mu, alpha.sum(axis=0)))


def preconditioned_cg(matvec, diagonal, rhs, tol, max_iter, init=None):
    """Jacobi-preconditioned conjugate gradients for ``A W = rhs``, column by column.

    ``matvec(v)`` returns ``A v`` for symmetric PSD ``A`` with diagonal
    ``diagonal``; only these products are needed, so ``A`` may live anywhere
    (in memory here, as block-wise sums in :mod:`flda_core.dask_support`).
    ``init`` (shaped like ``rhs``) is the starting point (warm start).
    Returns ``W`` and the largest iteration count over the columns.
    """
    m = rhs.shape[0]
    operator = LinearOperator((m, m), matvec=matvec, dtype=np.float64)
    diagonal = np.where(diagonal > 0, diagonal, 1.0)
    preconditioner = LinearOperator((m, m), matvec=lambda v: np.ravel(v) / diagonal, dtype=np.float64)
    max_iter = 10 * m if max_iter is None else max_iter
    W = np.zeros_like(rhs) if init is None else np.array(init, dtype=np.float64).reshape(rhs.shape)
    n_iter = 0
    for k in range(rhs.shape[1]):
        count = [0]

        def _count(_, count=count):
            count[0] += 1

        W[:, k], info = cg(
            operator,
            rhs[:, k],
            x0=W[:, k],
            rtol=tol,
            atol=0.0,
            maxiter=max_iter,
            M=preconditioner,
            callback=_count,
        )
        n_iter = max(n_iter, count[0], 1)
        if info > 0:
            warnings.warn(
                f"Conjugate gradients did not reach rtol={tol} in {max_iter} iterations; increase max_iter.",
                ConvergenceWarning,
                stacklevel=4,
            )
    return W, n_iter


def _dropout_scale(c):
    """Variable scaling ``1 / sqrt(1 + c_d / 4)`` that undoes the dropout stiffening.

    The Taylor term adds ``c_d x_id**2 p_i (1 - p_i)`` to the curvature along
    ``w_d`` (``c_d = theta_d / (1 - theta_d)``, ``p (1 - p) <= 1/4``), which is
    enormous when ``theta_d`` is close to 1 and makes L-BFGS crawl (measured: a
    dense 10-class problem with features at theta = 0.99-0.999 needs 964
    iterations unscaled, 66 scaled).  Features with ``theta_d = 0`` keep scale
    1, so the gradient tolerance keeps its usual meaning for them.  The factor
    1/4 was the best compromise over the benchmark problems in
    ``benchmarks/bench_core.py`` (``1 + c_d`` over-corrects when the data term
    dominates).
    """
    return 1.0 / np.sqrt(1.0 + c / 4.0)


#: Columns whose non-zero values have a root mean square outside this band are brought
#: to unit curvature in the optimiser's coordinates (values ~ 1e-6 without ridge would
#: otherwise meet the gradient tolerance before the first step; values ~ 1e50 would
#: break the first line search).
WELL_SCALED_RMS = (1e-3, 1e3)


def _nonzero_rms(X):
    """Root mean square of each column's non-zero values (0 for an all-zero column)."""
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        counts = np.diff(X.indptr)
        squares = np.asarray(X.multiply(X).sum(axis=0)).ravel()
    else:
        counts = np.count_nonzero(X, axis=0)
        squares = np.einsum("ij,ij->j", X, X)
    return np.sqrt(np.divide(squares, counts, out=np.zeros(X.shape[1]), where=counts > 0))


def _column_scale(X, l2, sample_weight=None):
    """``1 / sqrt(mean(x**2) + 2 l2)`` for badly scaled columns (see :data:`WELL_SCALED_RMS`), else 1.

    ``mean(x_d**2) + 2 l2`` is, up to the logistic factor ``p (1 - p)``, the
    curvature of the objective along ``w_d``.  Used as a change of variables
    ``w = v * scale`` only: the objective, and so the minimiser, are
    unchanged; only the coordinates L-BFGS works in are better conditioned.
    A column counts as badly scaled by the size of its *non-zero* values, not by
    its mean square: a rare word of a bag-of-words (values near 1, non-zero in
    0.1 % of the rows) has a tiny mean square but ordinary values, and rescaling
    such columns made L-BFGS take 7 to 20 times more iterations on the paper's
    IMDB and spam data (``benchmarks/bench_paper_tables.py``).  Ordinary columns,
    rare or not, keep scale 1, i.e. no change at all.
    """
    n = X.shape[0] if sample_weight is None else float(np.sum(sample_weight))
    largest = (
        np.asarray(abs(X).max(axis=0).todense()).ravel()
        if sp.issparse(X)
        else np.max(np.abs(X), axis=0, initial=0.0)
    )
    safe = np.where(largest > 0, largest, 1.0)
    # computed on x / max|x|: no overflow or underflow for any finite x (weighted mean
    # with weights, so that weights act as repeated rows).
    unit = X.multiply(1.0 / safe).tocsr() if sp.issparse(X) else X / safe
    rms = safe * np.sqrt(_column_sum_squares(unit, sample_weight) / max(n, 1))
    # sqrt(rms**2 + 2 l2) without overflow: scaled by the larger of the two terms.
    ridge = np.sqrt(2.0 * l2)
    top = np.maximum(rms, ridge)
    safe_top = np.where(top > 0, top, 1.0)
    curvature = safe_top * np.sqrt((rms / safe_top) ** 2 + (ridge / safe_top) ** 2)
    values = safe * _nonzero_rms(unit)
    low, high = WELL_SCALED_RMS
    bad = (largest > 0) & ((values < low) | (values > high))
    return np.where(bad, 1.0 / np.where(curvature > 0, curvature, 1.0), 1.0)


def _report_stop(result, tol, max_iter, m):
    """ConvergenceWarning for every stop that is not a normal convergence."""
    if result.status == 1:
        warnings.warn(
            f"L-BFGS did not converge in {max_iter} iterations ({result.message}); increase max_iter or l2.",
            ConvergenceWarning,
            stacklevel=4,
        )
    elif not result.success:
        warnings.warn(
            f"L-BFGS stopped abnormally after {result.nit} iterations "
            f"(status {result.status}: {result.message}); the weights may be far "
            "from optimal. Scale the features or increase l2.",
            ConvergenceWarning,
            stacklevel=4,
        )
    elif result.nit == 0 and m > 0:
        warnings.warn(
            "L-BFGS stopped before its first iteration: the gradient at the start "
            f"was already below tol={tol}, so the weights are all zero. Scale the "
            "features or lower tol.",
            ConvergenceWarning,
            stacklevel=4,
        )


def _general_variance(X, variance, sample_weight=None):
    """Scaling, variance columns and their block for a general transfer model.

    The scaling uses the dropout-equivalent factor
    ``c_d = sum_i Var[z_id] / sum_i E[z_id]**2`` (exactly ``theta / (1 - theta)``
    for dropout); it is only a change of variables for L-BFGS.
    """
    if sp.issparse(variance):
        variance = sp.csr_matrix(variance)
        penalized = np.flatnonzero(np.diff(sp.csc_matrix(variance).indptr) > 0)
        V = variance[:, penalized].tocsr()
    else:
        variance = np.asarray(variance, dtype=np.float64)
        penalized = np.flatnonzero(np.any(variance != 0, axis=0))
        V = np.ascontiguousarray(variance[:, penalized])
    sums = (
        np.asarray(variance.sum(axis=0)).ravel()
        if sample_weight is None
        else np.asarray(variance.T @ sample_weight).ravel()
    )
    squares = _column_sum_squares(X, sample_weight)
    c = np.divide(sums, squares, out=np.zeros_like(sums), where=squares > 0)
    return _dropout_scale(np.maximum(c, 0.0)), penalized, V


def solve_logistic(
    X, y_index, n_classes, c, l2, tol=1e-6, max_iter=1000, variance=None, init=None, sample_weight=None
):
    """Minimise the Taylor-approximated expected logistic risk with L-BFGS.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Only features with finite ``c`` and at least one non-zero value.
    y_index : ndarray of shape (n_samples,)
        Class indices ``0 .. n_classes - 1``.
    n_classes : int
        2 uses one weight vector (standard logistic); more uses softmax.
    c : ndarray of shape (n_features,)
    l2 : float
    tol : float
        L-BFGS stops when the largest absolute component of the gradient of the
        objective (a mean over samples plus ``l2 ||W||**2``) is at most ``tol``
        (scipy's ``gtol``; ``ftol = 64 eps``, ``maxls = 50``: the settings of
        scikit-learn's ``LogisticRegression(solver="lbfgs", tol=tol)``).  The
        gradient is taken in the rescaled coordinates ``v_d = w_d / s_d`` (see
        ``_dropout_scale``), so for a feature with dropout the test is on
        ``s_d dJ/dw_d``, looser than scikit-learn's by ``1 / s_d``
        (1.1 at ``theta = 0.5``, 1.8 at 0.9, 5 at 0.99); for ``theta = 0`` it
        is the same test.
    max_iter : int
    variance : {ndarray, sparse matrix} of shape (n_samples, n_features), optional
        General transfer model (:mod:`flda_core.transfer_models`): ``X`` holds
        the conditional means ``E[z_i | x_i]`` and ``variance`` the per-entry
        ``Var[z_id | x_i]`` (same sparse/dense type as ``X``); ``c`` is then
        ignored.  The Taylor expansion is around ``W^T E[z_i | x_i] + b``.
    init : tuple (W0, b0) or None
        Starting point (warm start), shapes as returned; ``None`` starts from
        ``W = 0`` and the log class priors as intercept.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative weights, every class with a positive total: the objective
        becomes the weighted mean, and the class priors of the start and the
        column scales use the same weights, so integer weights follow the
        optimisation path of repeated rows.

    Returns
    -------
    W : ndarray of shape (n_features, 1) for two classes, else (n_features, n_classes)
    b : ndarray of shape (1,) or (n_classes,)
    n_iter : int
    """
    n, m = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.bincount(y_index, weights=sw, minlength=n_classes)
    prior = counts / counts.sum()
    if variance is None:
        scale = _dropout_scale(c) * _column_scale(X, l2, sw)
        # The variance term only involves features that are dropped out at all.
        penalized = np.flatnonzero(c > 0)
        X_penalized = X[:, penalized] if sp.issparse(X) else np.ascontiguousarray(X[:, penalized])
        Q = dropout_variances(X_penalized, c[penalized])
    else:
        scale, penalized, Q = _general_variance(X, variance, sw)
        scale = scale * _column_scale(X, l2, sw)
    if len(penalized) == m:
        penalized = None
    if n_classes == 2:
        y01 = (y_index == 1).astype(np.float64)

        def objective(w, b):
            return logistic_binary_objective(w, b, X, Q, y01, l2, penalized, sw)
    else:
        Y = np.zeros((n, n_classes))
        Y[np.arange(n), y_index] = 1.0

        def objective(W, b):
            return logistic_multinomial_objective(W, b, X, Q, Y, l2, penalized, sw)

    return minimize_logistic(objective, m, n_classes, prior, scale, tol, max_iter, init)


_BLAS = []
#: BLAS threads of the L-BFGS fits in the current context (``None``: untouched).
_LBFGS_BLAS_THREADS = contextvars.ContextVar("flda_lbfgs_blas_threads", default=1)


@contextlib.contextmanager
def blas_threads(limit):
    """How many BLAS threads FLDA-L's L-BFGS fits use, inside a ``with`` block.

    By default every logistic fit (in memory or on dask blocks) runs with one
    BLAS thread: its objective works on small row blocks and L-BFGS's own
    updates are vector operations, where BLAS threads cost more in
    synchronisation than they gain (on 2 cores, a dense 10-class evaluation
    took 13 ms with one thread and 30 ms with two).  Within
    ``with blas_threads(limit):`` the fits of the current thread (and of
    ``asyncio`` tasks started in it) use ``limit`` threads instead, or leave
    BLAS as configured (``threadpoolctl``, ``OMP_NUM_THREADS``) when
    ``limit`` is ``None``.  The setting is a :mod:`contextvars` variable:
    threads started elsewhere (joblib workers, dask workers) keep the default.
    The quadratic loss is never limited.

    BLAS has one thread pool per process: while logistic fits run at once in
    several Python threads, the process runs with the smallest limit among them,
    and when the last of them ends BLAS is back as it was before the first.

    Parameters
    ----------
    limit : int >= 1 or None
        BLAS threads of the logistic fits inside the block; ``None`` leaves BLAS
        as configured.

    Yields
    ------
    None

    Examples
    --------
    >>> from flda_core import FLDAClassifier, blas_threads, make_poisson_domains
    >>> data = make_poisson_domains(n_source=500, n_target=500, random_state=0)
    >>> with blas_threads(None):  # BLAS as the process has it
    ...     clf = FLDAClassifier().fit(data.X_source, data.y_source, X_target=data.X_target)
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, Integral) or limit < 1):
        raise ValueError(f"blas_threads needs a whole number >= 1 or None; got {limit!r}.")
    token = _LBFGS_BLAS_THREADS.set(None if limit is None else int(limit))
    try:
        yield
    finally:
        _LBFGS_BLAS_THREADS.reset(token)


#: The limits of the L-BFGS fits running now, in any thread (a multiset), and the
#: limiter that holds the smallest of them; BLAS has one thread pool per process.
_ACTIVE_LIMITS = []
_LIMITER = {"limit": None, "limiter": None}
_LIMITS_LOCK = threading.Lock()


def _controller():
    """One :class:`ThreadpoolController`, made on first use: ``threadpool_limits``
    scans the loaded libraries on every call (4 ms, as much as a whole fit on
    compressed lattice data)."""
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    return _BLAS[0]


def _release_blas_control():
    """Let the current thread change OpenBLAS's thread count (lock held).

    threadpoolctl >= 3.8 lets only the first Python thread that set OpenBLAS's
    process-wide pool change it until that thread lets go; any other thread's change
    is silently dropped.  Here the limit is set by the first fit to start and restored
    by the last to end, often another thread, and ``_LIMITS_LOCK`` already serialises
    every change, so control is released before and after each one.
    """
    for lib in _controller().lib_controllers:
        clear = getattr(type(lib), "clear_controlling_thread", None)
        if clear is not None:
            clear(force=True)


def _apply_smallest_limit():
    """BLAS at the smallest active limit, or as it was before the first (lock held)."""
    wanted = min(_ACTIVE_LIMITS) if _ACTIVE_LIMITS else None
    if wanted == _LIMITER["limit"]:
        return
    _release_blas_control()
    if _LIMITER["limiter"] is not None:
        _LIMITER["limiter"].restore_original_limits()
    _LIMITER["limiter"] = None if wanted is None else _controller().limit(limits=wanted, user_api="blas")
    _LIMITER["limit"] = wanted
    _release_blas_control()


@contextlib.contextmanager
def _lbfgs_blas_limit():
    """The BLAS limit of :func:`blas_threads` while one L-BFGS fit runs.

    BLAS's thread pool belongs to the process, so fits running at once in several
    Python threads share one limit: the first to start sets it (the smallest
    requested while several run), the last to end restores what BLAS had before
    the first.  Each fit entering and restoring on its own, as a plain
    ``threadpool_limits`` block does, left the whole process on one thread
    whenever two fits overlapped (the second saved the first's limit as the
    "original" and restored it last).
    """
    limit = _LBFGS_BLAS_THREADS.get()
    if limit is None:
        yield
        return
    with _LIMITS_LOCK:
        _ACTIVE_LIMITS.append(limit)
        _apply_smallest_limit()
    try:
        yield
    finally:
        with _LIMITS_LOCK:
            _ACTIVE_LIMITS.remove(limit)
            _apply_smallest_limit()


def minimize_logistic(objective, n_features, n_classes, prior, scale, tol, max_iter, init=None):
    """L-BFGS on a logistic FLDA objective, in rescaled coordinates ``w = v * scale``.

    ``objective(W, b)`` returns ``(value, grad_W, grad_b)`` with ``W`` of shape
    ``(n_features,)`` and scalar ``b`` for two classes, ``(n_features,
    n_classes)`` and ``(n_classes,)`` otherwise; it may evaluate in memory
    (:func:`solve_logistic`) or as one map-reduce over row blocks
    (:mod:`flda_core.dask_support`).  ``prior`` (class frequencies) sets the
    starting intercept; ``scale`` (per feature, e.g. :func:`_dropout_scale`)
    only changes the coordinates L-BFGS works in, never the minimiser;
    ``init`` is a warm start as in :func:`solve_logistic`.  Returns ``W``,
    ``b`` and the iteration count as :func:`solve_logistic`.
    """
    m = n_features
    if n_classes == 2:

        def fun(params):
            w = params[:m] * scale
            value, grad_w, grad_b = objective(w, params[m])
            return value, np.append(grad_w * scale, grad_b)

        b0 = np.log(prior[1] / prior[0])
        x0 = np.append(np.zeros(m), b0)
        n_out = 1
    else:

        def fun(params):
            W = params[: m * n_classes].reshape(m, n_classes) * scale[:, None]
            value, grad_W, grad_b = objective(W, params[m * n_classes :])
            return value, np.concatenate([(grad_W * scale[:, None]).ravel(), grad_b])

        log_prior = np.log(prior)
        x0 = np.concatenate([np.zeros(m * n_classes), log_prior - log_prior.mean()])
        n_out = n_classes
    if init is not None:
        x0 = np.concatenate(
            [
                (np.asarray(init[0], dtype=np.float64).reshape(m, n_out) / scale[:, None]).ravel(),
                np.ravel(init[1]),
            ]
        )
    # One BLAS thread unless the caller chose otherwise (see blas_threads).
    with _lbfgs_blas_limit():
        result = minimize(
            fun,
            x0,
            method="L-BFGS-B",
            jac=True,
            options={"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps},
        )
    _report_stop(result, tol, max_iter, m if init is None else 0)
    W = result.x[: m * n_out].reshape(m, n_out) * scale[:, None]
    return W, result.x[m * n_out :], int(result.nit)
