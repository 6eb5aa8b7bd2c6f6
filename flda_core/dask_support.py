"""FLDA on data that does not fit in memory: block-wise reductions on Dask.

Every statistic FLDA needs is a sum over samples (rows), so a ``dask.array``
with row blocks is reduced block by block and only the sums (vectors of
length ``n_features``, or an ``m x m`` Gram matrix) ever reach the caller:

* θ̂ (section 3.3.1): per-feature non-zero *counts* in source and target,
  summed over blocks, give the rates η̂ and ζ̂ and θ̂_d = max(0, 1 − ζ̂_d / η̂_d);
* FLDA-Q (eq. (10), closed form eq. (11), Algorithm 1): the moments
  ``n``, ``Σx``, ``Σx²`` (the per-feature dropout variance ``c_d Σ_i x_id²``),
  ``XᵀT``, ``ΣT`` and, when the number of active features allows
  (:data:`flda_core.solvers.MAX_PRIMAL_FEATURES`), the Gram matrix ``XᵀX``;
  otherwise conjugate gradients whose every product with the centred,
  penalised system is one map-reduce over the blocks;
* FLDA-L (eq. (12) with the Taylor approximation eq. (13), Algorithm 2,
  Appendix C): L-BFGS whose objective and gradient are one map-reduce per
  evaluation, each block evaluated by the in-memory functions of
  :mod:`flda_core.objectives`.

The same numerics as the in-memory estimator are used -- θ̂ from
:func:`flda_core.transfer.dropout_from_rates`, the FLDA-Q solves from
:func:`flda_core.solvers.solve_quadratic_moments` and
:func:`flda_core.solvers.centred_cg`, L-BFGS from
:func:`flda_core.solvers.minimize_logistic` -- so a fit on a dask array equals
the in-memory fit on the same data up to the rounding of the block sums.

Reductions run on whatever Dask scheduler is active (the threaded default,
``dask.config.set(scheduler="processes")`` or a ``distributed.Client``).
Blocks may be dense ``numpy`` arrays or ``scipy.sparse`` matrices (blocks
with a ``tocsr()`` method, such as ``sparse.COO`` of the optional ``sparse``
package, are converted to CSR).  Dask is imported lazily: in-memory use of
:mod:`flda_core` never needs it, and :func:`partial_fit_quadratic` works on
plain arrays without Dask.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from flda_core.objectives import dropout_variances, logistic_binary_objective, logistic_multinomial_objective
from flda_core.solvers import (
    MAX_DUAL_SAMPLES,
    _centre,
    _column_sum_squares,
    _dropout_scale,
    centred_cg,
    choose_quadratic_solver,
    minimize_logistic,
    quadratic_targets,
    solve_quadratic,
    solve_quadratic_moments,
)
from flda_core.transfer import check_theta, dropout_from_rates, dropout_variance_factor

__all__ = [
    "is_dask_collection",
    "nonzero_counts",
    "estimate_dropout",
    "fit",
    "partial_fit_quadratic",
    "predict_lazy",
]

#: Blocks combined per task in the tree reductions (bounds the memory of one
#: reduction task to this many partial sums, e.g. Gram matrices).
SPLIT_EVERY = 8


def is_dask_collection(*objects):
    """True if any argument is a Dask collection (never imports Dask itself)."""
    if "dask" not in sys.modules:
        return False
    from dask import is_dask_collection as _is_dask

    return any(_is_dask(obj) for obj in objects)


# --------------------------------------------------------------------------
# Blocks and reductions
# --------------------------------------------------------------------------


def _as_block(block):
    """One row block as float64 ``ndarray`` or CSR matrix (``sparse.COO`` -> CSR)."""
    if not sp.issparse(block) and hasattr(block, "tocsr"):
        block = block.tocsr()
    block = check_array(block, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=0)
    return block.tocsr() if sp.issparse(block) else block


def _select(X, columns):
    """``X[:, columns]`` as CSR / C-ordered dense; ``columns=None`` keeps all."""
    if columns is None:
        return X
    return X[:, columns].tocsr() if sp.issparse(X) else np.ascontiguousarray(X[:, columns])


def _row_blocks(X, name):
    """The row blocks of ``X``: delayed objects for a dask array, ``[X]`` in memory."""
    if not is_dask_collection(X):
        return [X]
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional; got {X.ndim} dimensions.")
    if any(np.isnan(size) for size in X.shape):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() "
            "first (e.g. after boolean indexing or from_delayed without shapes)."
        )
    if X.numblocks[1] > 1:  # one block must hold whole rows
        X = X.rechunk({1: -1})
    return list(X.to_delayed()[:, 0])


def _label_blocks(y_index, X):
    """Class indices cut like the row blocks of ``X``."""
    if not is_dask_collection(X):
        return [y_index]
    if is_dask_collection(y_index):
        import dask

        # Labels are small next to X: keep them (on the cluster, if there is
        # one) instead of recomputing their rechunked graph on every pass.
        return list(dask.persist(*y_index.rechunk((X.chunks[0],)).to_delayed()))
    bounds = np.cumsum((0,) + X.chunks[0])
    return [y_index[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def _add(*parts):
    """Sum of partial results: dicts of arrays/numbers, or tuples of them."""
    first = parts[0]
    if isinstance(first, dict):
        return {key: sum(part[key] for part in parts[1:]) + first[key] for key in first}
    return tuple(sum(part[i] for part in parts[1:]) + first[i] for i in range(len(first)))


def _map_reduce(func, X_blocks, *per_block, args=()):
    """``sum_b func(X_b, *per_block_b, *args)``, lazily when the blocks are delayed.

    In memory (one block, not delayed) the result is computed at once.
    Otherwise a delayed tree reduction (``SPLIT_EVERY`` partial sums per task)
    is returned: pass it to ``dask.compute``.
    """
    if len(X_blocks) == 1 and not is_dask_collection(X_blocks[0]):
        return func(X_blocks[0], *(values[0] for values in per_block), *args)
    import dask

    task = dask.delayed(func, pure=True)
    shared = [dask.delayed(arg, traverse=False) if isinstance(arg, np.ndarray) else arg for arg in args]
    parts = [task(block, *(values[b] for values in per_block), *shared) for b, block in enumerate(X_blocks)]
    add = dask.delayed(_add, pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
    return parts[0]


def _compute(*results):
    """Compute delayed results together on the active scheduler (in-memory pass through)."""
    if not is_dask_collection(*results):
        return results
    import dask

    return dask.compute(*results)


# --------------------------------------------------------------------------
# Per-block statistics (pure functions of one block; run on the workers)
# --------------------------------------------------------------------------


def _count_block(block, zero_tol):
    """Rows, and per-feature counts of ``|x| > 0`` and ``|x| > zero_tol``."""
    X = _as_block(block)
    out = {"n": X.shape[0]}
    for key, tol in (("nnz", 0.0), ("nnz_tol", zero_tol)):
        if sp.issparse(X):
            out[key] = np.bincount(X.indices[np.abs(X.data) > tol], minlength=X.shape[1]).astype(np.int64)
        else:
            out[key] = np.count_nonzero(np.abs(X) > tol, axis=0).astype(np.int64)
    return out


def _moment_block(block, y_index, n_classes, zero_tol, columns, gram):
    """Counts, class counts and the FLDA-Q moments of one block.

    ``columns`` restricts the moments (not the counts) to those features;
    ``gram`` adds ``X_bᵀ X_b`` (dense, ``len(columns)`` squared).
    """
    X = _as_block(block)
    out = _count_block(X, zero_tol)
    y_index = np.asarray(y_index, dtype=np.intp)
    out["class_counts"] = np.bincount(y_index, minlength=n_classes)
    T = quadratic_targets(y_index, n_classes)
    Xa = _select(X, columns)
    out["sum_t"] = T.sum(axis=0)
    out["sum_x"] = np.asarray(Xa.sum(axis=0)).ravel()
    out["sum_x2"] = _column_sum_squares(Xa)
    out["xt_t"] = np.asarray(Xa.T @ T)
    if gram:
        G = Xa.T @ Xa
        out["gram"] = G.toarray() if sp.issparse(G) else np.asarray(G)
    return out


def _gram_block(block, columns):
    Xa = _select(_as_block(block), columns)
    G = Xa.T @ Xa
    return (G.toarray() if sp.issparse(G) else np.asarray(G),)


def _centred_product_block(block, v, mu_v):
    """``(X_bᵀ u_b, Σ u_b)`` with ``u_b = X_b v − μ·v`` (one CG product, one block).

    ``v`` is zero outside the active features, so no column selection is
    needed on every product: the inactive columns add exact zeros.
    """
    X = _as_block(block)
    u = np.asarray(X @ v).ravel() - mu_v
    return np.asarray(X.T @ u).ravel(), u.sum()


def _logistic_block(block, y_index, n_classes, c, W, b):
    """Block sum (not mean) of the FLDA-L objective and gradient, ``l2 = 0``.

    ``W`` and ``c`` span all features, zero outside the active ones and ``c``
    zero where ``θ = 0``: the dropout variances ``Q`` keep the sparsity of the
    block and the zero entries add exact zeros, so no column selection is
    repeated on every evaluation.
    """
    X = _as_block(block)
    n_b = X.shape[0]
    if n_b == 0:
        return 0.0, np.zeros_like(W), np.zeros_like(b)
    y_index = np.asarray(y_index, dtype=np.intp)
    Q = dropout_variances(X, c)
    if sp.issparse(Q):
        Q.eliminate_zeros()  # keep only the entries of dropped-out features (θ > 0)
    if n_classes == 2:
        value, grad_W, grad_b = logistic_binary_objective(W, b, X, Q, (y_index == 1).astype(np.float64), 0.0)
    else:
        Y = np.zeros((n_b, n_classes))
        Y[np.arange(n_b), y_index] = 1.0
        value, grad_W, grad_b = logistic_multinomial_objective(W, b, X, Q, Y, 0.0)
    return n_b * value, n_b * grad_W, n_b * np.asarray(grad_b, dtype=np.float64)


# --------------------------------------------------------------------------
# θ̂ from streamed counts
# --------------------------------------------------------------------------


def _theta_from_counts(n_source, nnz_source, n_target, nnz_target):
    """θ̂ from summed counts: the rates η̂, ζ̂ through
    :func:`flda_core.transfer.dropout_from_rates` (same edge cases)."""
    if n_source == 0 or n_target == 0:
        raise ValueError("Cannot estimate non-zero rates from zero samples.")
    return dropout_from_rates(nnz_source / n_source, nnz_target / n_target)


def nonzero_counts(X, zero_tol=0.0):
    """Rows and per-feature counts of ``|x| > zero_tol``, block by block.

    Parameters
    ----------
    X : dask array, ndarray or sparse matrix of shape (n_samples, n_features)
    zero_tol : float, default=0.0

    Returns
    -------
    n_samples : int
    counts : ndarray of int64, shape (n_features,)
    """
    (stats,) = _compute(_map_reduce(_count_block, _row_blocks(X, "X"), args=(zero_tol,)))
    return int(stats["n"]), stats["nnz_tol"]


def estimate_dropout(X_source, X_target, zero_tol=0.0):
    """:func:`flda_core.transfer.estimate_dropout` for dask arrays (one pass each).

    Both domains are reduced in one ``dask.compute``; the result equals the
    in-memory estimate exactly (integer counts).
    """
    source, target = _compute(
        _map_reduce(_count_block, _row_blocks(X_source, "X_source"), args=(zero_tol,)),
        _map_reduce(_count_block, _row_blocks(X_target, "X_target"), args=(zero_tol,)),
    )
    if source["nnz"].shape != target["nnz"].shape:
        raise ValueError(
            f"Source has {source['nnz'].shape[0]} features but target has "
            f"{target['nnz'].shape[0]}; both domains must share one feature space."
        )
    return _theta_from_counts(source["n"], source["nnz_tol"], target["n"], target["nnz_tol"])


# --------------------------------------------------------------------------
# fit on dask arrays
# --------------------------------------------------------------------------


def _searchsorted_block(block, sorted_values):
    return np.searchsorted(sorted_values, block)


def _take_block(block, values):
    return values[block]


def _class_indices(y, n_rows):
    """``classes`` and per-row class indices (a dask array if ``y`` is one)."""
    if is_dask_collection(y):
        y = y.ravel() if y.ndim == 2 and y.shape[1] == 1 else y
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional; got shape {y.shape}.")
        import dask.array as da

        classes = np.unique(da.unique(y).compute())
        y_index = y.map_blocks(_searchsorted_block, classes, dtype=np.intp)
    else:
        y = np.asarray(y)
        y = y.ravel() if y.ndim == 2 and y.shape[1] == 1 else y
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional; got shape {y.shape}.")
        classes, y_index = np.unique(y, return_inverse=True)
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels.")
    return classes, y_index


def _check_dropout_only(estimator, what):
    """Dask fits and ``partial_fit`` know the paper's dropout model only."""
    if estimator.transfer != "dropout" or estimator.transfer_params is not None:
        raise ValueError(
            f"{what} supports the dropout transfer model only, got "
            f"transfer={estimator.transfer!r}. Fit in memory (numpy or scipy.sparse "
            "input) for the other transfer models."
        )


def fit(estimator, X, y, X_target=None):
    """:meth:`FLDAClassifier.fit` on dask arrays (``X`` and/or ``X_target``).

    Pass 1 reduces the counts for θ̂ and the first FLDA-Q moments over all
    features; FLDA-Q then either reduces the Gram matrix of the active
    features (pass 2, the ``"cholesky"`` route) or runs conjugate gradients
    with one map-reduce per product (``"cg"``); FLDA-L runs L-BFGS with one
    map-reduce per objective evaluation.  ``solver="auto"`` chooses as the
    in-memory estimator does; ``"woodbury"`` (an ``n x n`` system) is only
    for at most :data:`~flda_core.solvers.MAX_DUAL_SAMPLES` rows, which are
    then gathered into memory.

    Returns
    -------
    estimator : FLDAClassifier, fitted
    """
    _check_dropout_only(estimator, "A fit on dask arrays")
    if not is_dask_collection(X):
        X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)
    n_rows, n_features = X.shape
    X_blocks = _row_blocks(X, "X")
    classes, y_index = _class_indices(y, n_rows)
    n_classes = len(classes)
    if n_classes < 2:
        raise ValueError(
            "FLDAClassifier needs samples of at least 2 classes in the source "
            f"data; got only one class: '{classes[0]}'."
        )
    y_blocks = _label_blocks(y_index, X)
    source, theta = _first_pass(estimator, X_blocks, y_blocks, n_classes, n_features, X_target)
    active = (theta < 1.0) & (source["nnz"] > 0)
    c = dropout_variance_factor(theta[active])
    if estimator.loss == "quadratic":
        W, b, estimator.solver_, n_iter = _fit_quadratic(
            estimator, X_blocks, y_blocks, n_classes, source, active, c
        )
    else:
        W, b, n_iter = _fit_logistic(
            X_blocks,
            y_blocks,
            source["n"],
            n_classes,
            active,
            c,
            source["class_counts"] / source["n"],
            estimator,
        )
        estimator.solver_ = "lbfgs"
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_  # from an earlier in-memory fit on a DataFrame
    return _store(estimator, classes, theta, active, W, b, n_iter)


def _first_pass(estimator, X_blocks, y_blocks, n_classes, n_features, X_target):
    """Pass 1: the source counts and first FLDA-Q moments, the target counts, and θ̂
    (or the given ``theta``, or 0 without a target)."""
    needs_target = estimator.theta is None and X_target is not None
    source_lazy = _map_reduce(
        _moment_block, X_blocks, y_blocks, args=(n_classes, estimator.zero_tol, None, False)
    )
    target_lazy = (
        _map_reduce(_count_block, _row_blocks(X_target, "X_target"), args=(estimator.zero_tol,))
        if needs_target
        else None
    )
    source, target = _compute(source_lazy, target_lazy)
    if estimator.theta is not None:
        return source, check_theta(estimator.theta, n_features)
    if target is None:
        return source, np.zeros(n_features)
    if target["nnz"].shape[0] != n_features:
        raise ValueError(
            f"X_target has {target['nnz'].shape[0]} features but X has {n_features}; "
            "source and target must share one feature space."
        )
    return source, _theta_from_counts(source["n"], source["nnz_tol"], target["n"], target["nnz_tol"])


def _fit_quadratic(estimator, X_blocks, y_blocks, n_classes, source, active, c):
    """FLDA-Q from the block sums: the Gram matrix (pass 2), conjugate gradients with
    one map-reduce per product, or (few rows) the in-memory dual form."""
    n = source["n"]
    columns = None if np.all(active) else np.flatnonzero(active)
    sum_x, sum_x2 = source["sum_x"][active], source["sum_x2"][active]
    xt_t, sum_t = source["xt_t"][active], source["sum_t"]
    penalty = c * sum_x2 + n * estimator.l2
    solver = estimator.solver
    if solver == "auto":
        solver = choose_quadratic_solver(n, len(c), penalty)
    if solver == "cholesky":
        ((G,),) = _compute(_map_reduce(_gram_block, X_blocks, args=(columns,)))
        W, b = solve_quadratic_moments(G, sum_x, xt_t, sum_t, n, c * sum_x2, estimator.l2)
        return W, b, solver, 1
    if solver == "cg":
        mu, t_mean, rhs = _centre(sum_x, xt_t, sum_t, n)
        v_full = np.zeros(len(active))

        def product(v, mu_v):
            v_full[active] = v
            ((Xtu, sum_u),) = _compute(
                _map_reduce(_centred_product_block, X_blocks, args=(v_full, float(mu_v)))
            )
            return Xtu[active], sum_u

        W, n_iter = centred_cg(product, mu, sum_x2, n, penalty, rhs, estimator.tol, estimator.max_iter)
        return W, t_mean - mu @ W, solver, n_iter
    if n > MAX_DUAL_SAMPLES:  # woodbury: an n x n system, so the (few) rows fit in memory
        raise ValueError(
            f"solver='woodbury' forms an n x n matrix; with {n} rows use "
            "'cholesky', 'cg' or 'auto' on dask arrays."
        )
    blocks = [_as_block(block) for block in _compute(*X_blocks)]
    X_active = _select(
        sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.vstack(blocks), columns
    )
    T = quadratic_targets(np.concatenate(_compute(*y_blocks)), n_classes)
    return solve_quadratic(X_active, T, c, estimator.l2, "woodbury")


def _store(estimator, classes, theta, active, W, b, n_iter):
    n_out = 1 if len(classes) == 2 else len(classes)
    estimator.classes_ = classes
    estimator.n_features_in_ = len(theta)
    estimator.theta_ = theta
    estimator.n_iter_ = n_iter
    estimator.coef_ = np.zeros((n_out, len(theta)))
    estimator.coef_[:, active] = W.T
    estimator.intercept_ = np.asarray(b, dtype=np.float64).reshape(n_out)
    return estimator


def _fit_logistic(X_blocks, y_blocks, n, n_classes, active, c, prior, estimator):
    """FLDA-L: L-BFGS whose every objective/gradient is one map-reduce."""
    l2 = estimator.l2
    c_full = np.zeros(len(active))
    c_full[active] = c

    def objective(W, b):
        W_full = np.zeros((len(active),) + W.shape[1:])
        W_full[active] = W
        total = _map_reduce(
            _logistic_block,
            X_blocks,
            y_blocks,
            args=(n_classes, c_full, W_full, np.asarray(b, dtype=np.float64)),
        )
        ((value, grad_W, grad_b),) = _compute(total)
        grad_b = grad_b / n
        return (
            value / n + l2 * float(np.vdot(W, W)),
            grad_W[active] / n + 2.0 * l2 * W,
            float(grad_b) if n_classes == 2 else grad_b,
        )

    return minimize_logistic(
        objective, len(c), n_classes, prior, _dropout_scale(c), estimator.tol, estimator.max_iter
    )


# --------------------------------------------------------------------------
# partial_fit: FLDA-Q from streamed sufficient statistics
# --------------------------------------------------------------------------

_PARTIAL = "_flda_partial_moments"


def partial_fit_quadratic(estimator, X, y, classes=None, X_target=None):
    """Add one batch to FLDA-Q's sufficient statistics and re-solve.

    See :meth:`FLDAClassifier.partial_fit`.  The statistics kept are the
    source row count, per-feature non-zero counts (``|x| > 0`` and
    ``|x| > zero_tol``), ``Σx``, ``Σx²``, the ``m x m`` Gram matrix ``XᵀX``,
    ``XᵀT`` and ``ΣT`` over all features, and the target row count and
    non-zero counts: memory ``O(m²)`` whatever the number of batches.

    The call pattern is scikit-learn's (``classes=`` on the first call), so
    wrappers that feed blocks to ``partial_fit`` with fixed keyword arguments
    (``dask_ml.wrappers.Incremental``) work; passing the *same* ``X_target``
    with every block leaves θ̂ unchanged (counts and rows both scale by the
    number of blocks, and their ratio is exact).
    """
    _check_dropout_only(estimator, "partial_fit")
    state, first = _stream_state(estimator, classes)
    if X is not None:
        batch = _batch_moments(estimator, X, y, state["classes"], first)
    elif first:
        raise ValueError("The first call to partial_fit needs source data X and y.")
    else:
        batch = None
    target = None
    if X_target is not None:
        target = _map_reduce(_count_block, _row_blocks(X_target, "X_target"), args=(estimator.zero_tol,))
    batch, target = _compute(batch, target)
    n_features = estimator.n_features_in_
    if target is not None and target["nnz"].shape[0] != n_features:
        raise ValueError(
            f"X_target has {target['nnz'].shape[0]} features but X has "
            f"{n_features}; source and target must share one feature space."
        )
    state["source"] = _accumulate(state["source"], batch)
    state["target"] = _accumulate(state["target"], target)
    _solve_stream(estimator, state, n_features)
    state["coef"] = estimator.coef_
    setattr(estimator, _PARTIAL, state)
    return estimator


def _stream_state(estimator, classes):
    """The statistics of the current stream and whether this call starts one (the first
    call, and the first after a full ``fit``, which keeps no statistics)."""
    state = getattr(estimator, _PARTIAL, None)
    first = state is None or state["coef"] is not getattr(estimator, "coef_", None)
    if first:
        if classes is None and hasattr(estimator, "classes_"):
            # After fit() a new stream starts with the classes of that fit, as
            # scikit-learn's partial_fit conventions expect.
            classes = estimator.classes_
        if classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit "
                "(all labels the stream will contain)."
            )
        classes = np.unique(np.asarray(classes))
        if len(classes) < 2:
            raise ValueError(f"FLDAClassifier needs at least 2 classes; got only one class: '{classes[0]}'.")
        return {"classes": classes, "source": None, "target": None}, True
    if classes is not None and not np.array_equal(np.unique(classes), state["classes"]):
        raise ValueError(
            f"classes={np.unique(classes).tolist()} differs from the classes "
            f"of the first call, {state['classes'].tolist()}."
        )
    return state, False


def _batch_moments(estimator, X, y, classes, first):
    """One source batch's counts and moments (lazy for dask), its labels indexed into
    ``classes``; the first batch sets ``n_features_in_``."""
    if y is None:
        raise ValueError("y is required with X in partial_fit.")
    if is_dask_collection(X):
        n_features = X.shape[1]
        if not first and n_features != estimator.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but FLDAClassifier is expecting "
                f"{estimator.n_features_in_} features as input."
            )
        estimator.n_features_in_ = n_features
        y_values = y
    else:
        X, y_values = validate_data(
            estimator, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, reset=first
        )
    batch_classes, y_index = _class_indices(y_values, X.shape[0])
    unknown = np.setdiff1d(batch_classes, classes)
    if unknown.size:
        raise ValueError(
            f"y contains labels {unknown.tolist()} not in classes={classes.tolist()} given on the first call."
        )
    remap = np.searchsorted(classes, batch_classes)  # re-index into the declared classes
    y_index = (
        y_index.map_blocks(_take_block, remap, dtype=np.intp)
        if is_dask_collection(y_index)
        else remap[y_index]
    )
    return _map_reduce(
        _moment_block,
        _row_blocks(X, "X"),
        _label_blocks(y_index, X),
        args=(len(classes), estimator.zero_tol, None, True),
    )


def _accumulate(total, part):
    """``total + part`` of two statistics dicts, either of which may be ``None``."""
    if total is None:
        return part
    return total if part is None else _add(total, part)


def _solve_stream(estimator, state, n_features):
    """θ̂ from all target rows seen, then Eq. (11) on all source statistics."""
    source = state["source"]
    if estimator.theta is not None:
        theta = check_theta(estimator.theta, n_features)
    elif state["target"] is None:
        theta = np.zeros(n_features)
    else:
        target = state["target"]
        theta = _theta_from_counts(source["n"], source["nnz_tol"], target["n"], target["nnz_tol"])
    active = (theta < 1.0) & (source["nnz"] > 0)
    c = dropout_variance_factor(theta[active])
    W, b = solve_quadratic_moments(
        source["gram"][np.ix_(active, active)],
        source["sum_x"][active],
        source["xt_t"][active],
        source["sum_t"],
        source["n"],
        c * source["sum_x2"][active],
        estimator.l2,
    )
    estimator.solver_ = "cholesky"
    _store(estimator, state["classes"], theta, active, W, b, 1)


# --------------------------------------------------------------------------
# Lazy predictions
# --------------------------------------------------------------------------


def _predict_block(block, estimator, method):
    if not sp.issparse(block) and hasattr(block, "tocsr"):
        block = block.tocsr()
    return getattr(estimator, method)(block)


def predict_lazy(estimator, X, method):
    """``estimator.<method>(X)`` on a dask array, as a lazy dask array.

    Each row block is passed to the in-memory method, so the values are
    exactly those of the in-memory estimator.  ``method`` is one of
    ``"decision_function"``, ``"predict"``, ``"predict_proba"``.
    """
    check_is_fitted(estimator)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimensions.")
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but FLDAClassifier is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    n_classes = len(estimator.classes_)
    one_column = method == "predict" or (method == "decision_function" and n_classes == 2)
    dtype = estimator.classes_.dtype if method == "predict" else np.float64
    if one_column:
        return X.map_blocks(
            _predict_block, estimator, method, dtype=dtype, drop_axis=1, meta=np.empty((0,), dtype=dtype)
        )
    return X.map_blocks(
        _predict_block,
        estimator,
        method,
        dtype=dtype,
        chunks=(X.chunks[0], (n_classes,)),
        meta=np.empty((0, 0), dtype=dtype),
    )
