"""The numerics every FLDA path shares (issue 24), checked against independent computations.

* θ̂ = max(0, 1 − ζ̂/η̂) (section 3.3.1): :func:`flda_core.transfer.dropout_from_rates`,
  used by the in-memory estimator, the Dask counts and the batched learning curves;
* the centred FLDA-Q solve (Eq. (11) with the intercept eliminated):
  :func:`flda_core.solvers.solve_quadratic_moments` (one system or a stack) and
  :func:`flda_core.solvers.centred_cg`, used in memory, on Dask and batched;
* ``flda_core`` imports none of the dashboard's dependencies.
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from flda_core import FLDAClassifier, solvers, transfer
from flda_core.solvers import (
    centred_cg,
    quadratic_targets,
    solve_psd_min_norm,
    solve_quadratic_moments,
)
from flda_core.transfer import (
    dropout_from_rates,
    dropout_variance_factor,
    estimate_dropout,
    nonzero_rate,
)

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- θ̂


def _hand_matrices():
    """Columns: ordinary, absent in the source, never seen in the target,
    constant non-zero in both, all zero in both, more frequent in the target."""
    X_source = np.array(
        [
            [1.0, 0.0, 2.0, 5.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 5.0, 0.0, 1.0],
            [3.0, 0.0, 0.0, 5.0, 0.0, 0.0],
            [1.0, 0.0, 4.0, 5.0, 0.0, 0.0],
        ]
    )
    X_target = np.array(
        [[0.0, 1.0, 0.0, 7.0, 0.0, 2.0], [2.0, 1.0, 0.0, 7.0, 0.0, 2.0], [0.0, 0.0, 0.0, 7.0, 0.0, 0.0]]
    )
    # eta = [3/4, 0, 3/4, 1, 0, 1/4]; zeta = [1/3, 2/3, 0, 1, 0, 2/3]
    expected = np.array([1 - (1 / 3) / (3 / 4), 0.0, 1.0, 0.0, 0.0, 0.0])
    return X_source, X_target, expected


def test_theta_from_rates_on_hand_made_columns():
    X_source, X_target, expected = _hand_matrices()
    eta, zeta = nonzero_rate(X_source), nonzero_rate(X_target)
    np.testing.assert_allclose(eta, [3 / 4, 0, 3 / 4, 1, 0, 1 / 4])
    np.testing.assert_allclose(zeta, [1 / 3, 2 / 3, 0, 1, 0, 2 / 3])
    theta = dropout_from_rates(eta, zeta)
    np.testing.assert_allclose(theta, expected, rtol=1e-15)
    assert theta[2] == 1.0  # never seen in the target: exactly 1
    assert theta[1] == 0.0 and theta[4] == 0.0  # absent in the source / all zero: 0
    assert np.all((theta >= 0) & (theta <= 1))
    np.testing.assert_array_equal(estimate_dropout(X_source, X_target), theta)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_theta_on_sparse_input_equals_dense(fmt):
    X_source, X_target, expected = _hand_matrices()
    theta = estimate_dropout(sp.csr_matrix(X_source).asformat(fmt), sp.csr_matrix(X_target).asformat(fmt))
    np.testing.assert_array_equal(theta, estimate_dropout(X_source, X_target))
    np.testing.assert_allclose(theta, expected, rtol=1e-15)


def test_theta_zero_tol_counts_faint_values_as_zero():
    X_source = np.array([[0.5, 0.01], [0.5, 0.5]])
    X_target = np.array([[0.01, 0.5], [0.5, 0.01]])
    # zero_tol=0.05: eta = [1, 1/2], zeta = [1/2, 1/2]; without it all rates are 1
    np.testing.assert_allclose(estimate_dropout(X_source, X_target, zero_tol=0.05), [0.5, 0.0])
    np.testing.assert_allclose(estimate_dropout(X_source, X_target), [0.0, 0.0])


def test_theta_is_vectorised_over_leading_axes_and_takes_counts():
    rng = np.random.default_rng(0)
    counts_source = rng.integers(0, 6, size=(3, 4, 7)).astype(float)
    counts_target = rng.integers(0, 6, size=(3, 4, 7)).astype(float)
    batched = dropout_from_rates(counts_source, counts_target)
    assert batched.shape == (3, 4, 7)
    for r in range(3):
        for g in range(4):
            eta, zeta = counts_source[r, g], counts_target[r, g]
            expected = [0.0 if e == 0 else max(0.0, 1.0 - z / e) for e, z in zip(eta, zeta)]
            np.testing.assert_allclose(batched[r, g], expected, rtol=1e-15, atol=0)
            # counts over equally many samples give the rates' estimate
            np.testing.assert_allclose(
                dropout_from_rates(eta / 5, zeta / 5), batched[r, g], rtol=1e-15, atol=1e-16
            )


def test_theta_rejects_mismatched_or_negative_rates():
    with pytest.raises(ValueError, match="share one feature space"):
        dropout_from_rates([0.5, 0.5], [0.5])
    with pytest.raises(ValueError, match="non-negative"):
        dropout_from_rates([0.5, -0.1], [0.5, 0.5])


def test_dropout_variance_factor_edges_and_range():
    np.testing.assert_allclose(dropout_variance_factor([0.0, 0.5, 0.75]), [0.0, 1.0, 3.0])
    assert np.isinf(dropout_variance_factor([1.0])[0])
    with pytest.raises(ValueError):
        dropout_variance_factor([1.5])
    with pytest.raises(ValueError):
        dropout_variance_factor([-0.1])


def test_dask_theta_uses_the_shared_estimate():
    da = pytest.importorskip("dask.array")
    from flda_core import dask_support

    X_source, X_target, _ = _hand_matrices()
    theta = dask_support.estimate_dropout(
        da.from_array(X_source, chunks=(2, 6)), da.from_array(X_target, chunks=(2, 6))
    )
    np.testing.assert_array_equal(theta, estimate_dropout(X_source, X_target))


# ---------------------------------------------------------------------------- FLDA-Q solve


def _quadratic_problem(n=40, m=5, k=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.5, size=(n, m)).astype(float)
    T = np.where(rng.random((n, k)) < 0.5, -1.0, 1.0)
    theta = rng.uniform(0, 0.8, size=m)
    return X, T, dropout_variance_factor(theta)


def _moments(X, T, sample_weight=None):
    w = np.ones(len(X)) if sample_weight is None else sample_weight
    return (X.T @ (X * w[:, None]), X.T @ w, X.T @ (T * w[:, None]), w @ T, w.sum(), (X * X).T @ w)


def _augmented_normal_equations(X, T, variance, l2, sample_weight=None):
    """[W; b] from the explicit normal equations of the summed expected risk with
    an unpenalised bias column: (Z^T D Z + diag(variance + n l2, 0)) [W; b] = Z^T D T."""
    n = len(X)
    w = np.ones(n) if sample_weight is None else sample_weight
    Z = np.hstack([X, np.ones((n, 1))])
    A = Z.T @ (Z * w[:, None])
    A[np.diag_indices(X.shape[1])] += variance + w.sum() * l2
    solution = np.linalg.solve(A, Z.T @ (T * w[:, None]))
    return solution[:-1], solution[-1]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_moment_solve_equals_explicit_normal_equations(k, weighted):
    X, T, c = _quadratic_problem(k=k)
    sw = np.random.default_rng(1).uniform(0.2, 2.0, len(X)) if weighted else None
    gram, sum_x, xt_t, sum_t, n, squares = _moments(X, T, sw)
    W, b = solve_quadratic_moments(gram, sum_x, xt_t, sum_t, n, c * squares, 0.05)
    W_ref, b_ref = _augmented_normal_equations(X, T, c * squares, 0.05, sw)
    np.testing.assert_allclose(W, W_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, b_ref, rtol=1e-10, atol=1e-12)


def test_moment_solve_of_a_singular_system_is_the_minimum_norm_solution():
    X = np.array([[1.0, 2.0, 0.0], [3.0, 1.0, 0.0]])  # centred rank 1, m = 3
    T = np.array([[1.0], [-1.0]])
    gram, sum_x, xt_t, sum_t, n, _ = _moments(X, T)
    W, b = solve_quadratic_moments(gram, sum_x, xt_t, sum_t, n, np.zeros(3), 0.0)
    Xc, Tc = X - X.mean(axis=0), T - T.mean(axis=0)
    W_ref = np.linalg.lstsq(Xc.T @ Xc, Xc.T @ Tc, rcond=None)[0]
    np.testing.assert_allclose(W, W_ref, atol=1e-12)
    np.testing.assert_allclose(b, T.mean(axis=0) - X.mean(axis=0) @ W_ref, atol=1e-12)
    stack_W, _ = solve_quadratic_moments(
        gram[None], sum_x[None], xt_t[None], sum_t[None], np.array([n]), np.zeros((1, 3)), 0.0
    )
    np.testing.assert_allclose(stack_W[0], W_ref, atol=1e-12)


def test_stacked_solve_equals_one_system_at_a_time_and_active_equals_subsetting():
    rng = np.random.default_rng(3)
    cells = [_quadratic_problem(n=n, m=4, seed=s) for s, n in enumerate([6, 9, 30, 50])]
    moments = [_moments(X, T) for X, T, _ in cells]
    active = rng.random((4, 4)) < 0.75
    active[:, 0] = True
    variance = np.array([c * mom[5] for (_, _, c), mom in zip(cells, moments)])
    stacked = [np.array([mom[i] for mom in moments]) for i in range(5)]
    l2 = np.array([0.1, 0.0, 0.02, 0.3])
    W, b = solve_quadratic_moments(*stacked, variance, l2, active=active)
    for i, (gram, sum_x, xt_t, sum_t, n, _) in enumerate(moments):
        keep = active[i]
        W_one, b_one = solve_quadratic_moments(
            gram[np.ix_(keep, keep)], sum_x[keep], xt_t[keep], sum_t, n, variance[i, keep], l2[i]
        )
        np.testing.assert_allclose(W[i][keep], W_one, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(W[i][~keep], 0.0)
        np.testing.assert_allclose(b[i], b_one, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(solve_psd_min_norm(np.eye(2)[None] * 2, np.ones((1, 2))), [[0.5, 0.5]])


def test_batched_solve_equals_per_fit_flda_classifier():
    """The learning curves' use: one stacked solve over many training subsets
    (nested prefixes of one order, θ̂ per subset) equals one estimator fit each."""
    rng = np.random.default_rng(5)
    X_source = rng.poisson([[2.0, 2.0, 0.3]], size=(200, 3)).astype(float)
    y = rng.integers(0, 2, 200)
    X_source[y == 1] += rng.poisson(3.0, size=(np.sum(y == 1), 3))
    X_target = X_source * (rng.random(X_source.shape) > [0.5, 0.0, 0.9])
    sizes = np.array([4, 10, 37, 200])
    T = quadratic_targets(y, 2)
    ridge = 2.0
    cells = [
        (
            _moments(X_source[:n], T[:n]),
            np.count_nonzero(X_source[:n], axis=0),
            np.count_nonzero(X_target[:n], axis=0),
        )
        for n in sizes
    ]
    gram, sum_x, xt_t, sum_t, n, squares = (np.array([cell[0][i] for cell in cells]) for i in range(6))
    theta = dropout_from_rates(np.array([cell[1] for cell in cells]), np.array([cell[2] for cell in cells]))
    active = (np.array([cell[1] for cell in cells]) > 0) & (theta < 1)
    variance = np.zeros_like(squares)
    variance[active] = dropout_variance_factor(theta[active]) * squares[active]
    W, b = solve_quadratic_moments(gram, sum_x, xt_t, sum_t, n, variance, ridge / n, active=active)
    for g, size in enumerate(sizes):
        clf = FLDAClassifier(loss="quadratic", l2=ridge / size).fit(
            X_source[:size], y[:size], X_target=X_target[:size]
        )
        np.testing.assert_allclose(clf.theta_, theta[g], rtol=1e-15)
        np.testing.assert_allclose(W[g, :, 0], clf.coef_[0], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b[g, 0], clf.intercept_[0], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
def test_centred_cg_equals_the_direct_solve(weighted):
    X, T, c = _quadratic_problem(n=60, m=6, k=2, seed=7)
    sw = np.random.default_rng(2).uniform(0.5, 1.5, len(X)) if weighted else None
    gram, sum_x, xt_t, sum_t, n, squares = _moments(X, T, sw)
    penalty = c * squares + n * 0.01
    W_direct, b_direct = solve_quadratic_moments(gram, sum_x, xt_t, sum_t, n, c * squares, 0.01)
    mu = sum_x / n
    w = np.ones(len(X)) if sw is None else sw

    def product(v, mu_v):
        u = (X @ v - mu_v) * w
        return X.T @ u, u.sum()

    rhs = xt_t - np.outer(mu, sum_t)
    W, n_iter = centred_cg(product, mu, squares, n, penalty, rhs, 1e-13, None)
    assert n_iter >= 1
    np.testing.assert_allclose(W, W_direct, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(sum_t / n - mu @ W, b_direct, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("solver", ["cholesky", "cg"])
def test_dask_quadratic_fit_equals_the_shared_solve_on_the_same_data(solver):
    da = pytest.importorskip("dask.array")
    X, T, _ = _quadratic_problem(n=120, m=5, seed=11)
    y = (T[:, 0] > 0).astype(int)
    X_target = X * (np.random.default_rng(4).random(X.shape) > [0.6, 0.0, 0.3, 0.0, 0.1])
    clf = FLDAClassifier(loss="quadratic", l2=0.05, solver=solver, tol=1e-13).fit(
        da.from_array(X, chunks=(25, 5)),
        da.from_array(y, chunks=25),
        X_target=da.from_array(X_target, chunks=(40, 5)),
    )
    theta = estimate_dropout(X, X_target)
    np.testing.assert_array_equal(clf.theta_, theta)
    gram, sum_x, xt_t, sum_t, n, squares = _moments(X, quadratic_targets(y, 2))
    W, b = solve_quadratic_moments(
        gram, sum_x, xt_t, sum_t, n, dropout_variance_factor(theta) * squares, 0.05
    )
    np.testing.assert_allclose(clf.coef_[0], W[:, 0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, b, rtol=1e-9, atol=1e-12)
    memory = FLDAClassifier(loss="quadratic", l2=0.05, solver=solver, tol=1e-13).fit(X, y, X_target=X_target)
    np.testing.assert_allclose(clf.coef_, memory.coef_, rtol=1e-9, atol=1e-12)


def test_quadratic_targets_codes():
    np.testing.assert_array_equal(quadratic_targets(np.array([0, 1, 1]), 2), [[-1], [1], [1]])
    np.testing.assert_array_equal(quadratic_targets(np.array([2, 0]), 3), [[-1, -1, 1], [1, -1, -1]])


def test_one_definition_of_each_shared_piece():
    """The duplicates are gone: one ``_scale_rows``, θ̂ and the solve in one place."""
    from flda_core import dask_support, objectives

    assert solvers._scale_rows is objectives._scale_rows
    assert dask_support.dropout_from_rates is transfer.dropout_from_rates
    assert dask_support.solve_quadratic_moments is solvers.solve_quadratic_moments
    assert not hasattr(dask_support, "_solve_gram")


# ---------------------------------------------------------------------------- import hygiene

FORBIDDEN = ("streamlit", "plotly", "pandas", "dask", "skada", "explorer")

_IMPORT_PROBE = """
import sys

FORBIDDEN = set(sys.argv[1].split(","))
HIDE = sys.argv[2] == "hide"
attempts = []


class Probe:
    \"\"\"Records who asks for a forbidden module; with HIDE, acts as if it were
    not installed (an environment with only numpy, scipy and scikit-learn).\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in FORBIDDEN:
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
            frame = frame.f_back
        attempts.append((name, frame.f_code.co_filename if frame else "?"))
        if HIDE:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Probe())
import flda_core
from flda_core import FLDAClassifier, make_bernoulli_domains

pair = make_bernoulli_domains(n_source=200, n_target=200, random_state=0)
for loss in ("quadratic", "logistic"):
    clf = FLDAClassifier(loss=loss).fit(pair.X_source, pair.y_source, X_target=pair.X_target)
    assert clf.predict(pair.X_target).shape == (200,)
loaded = sorted({name.split(".")[0] for name in sys.modules} & FORBIDDEN)
by_flda_core = sorted({name for name, where in attempts if "flda_core" in where})
others = sorted({name.split(".")[0] + " <- " + where.split("site-packages/")[-1].split("/")[0]
                 for name, where in attempts if "flda_core" not in where})
print("LOADED:" + ",".join(loaded))
print("BY_FLDA_CORE:" + ",".join(by_flda_core))
print("OTHERS:" + ",".join(others))
"""


def _probe(mode):
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, ",".join(FORBIDDEN), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(":", 1) for line in result.stdout.strip().splitlines()[-3:])
    return {key: [v for v in value.split(",") if v] for key, value in lines.items()}


def test_flda_core_imports_no_dashboard_dependency():
    """A fresh interpreter: import flda_core, fit and predict with both losses.

    With the dashboard's dependencies hidden (as if only numpy, scipy and
    scikit-learn were installed) everything works and none of them is in
    ``sys.modules``.  With them installed, flda_core never asks for one;
    only pandas may load, and only because scikit-learn imports it whenever it
    is installed (``sklearn.utils.fixes``), which flda_core cannot prevent.
    """
    hidden = _probe("hide")
    assert hidden["LOADED"] == [], hidden
    assert hidden["BY_FLDA_CORE"] == [], hidden
    installed = _probe("installed")
    assert installed["BY_FLDA_CORE"] == [], installed
    assert set(installed["LOADED"]) <= {"pandas"}, installed
    # pandas is asked for by scikit-learn and by pandas itself (its submodules), no one else
    assert {entry for entry in installed["OTHERS"] if entry.startswith("pandas")} <= {
        "pandas <- sklearn",
        "pandas <- pandas",
    }, installed
    if installed["LOADED"]:
        assert any(entry == "pandas <- sklearn" for entry in installed["OTHERS"]), installed
