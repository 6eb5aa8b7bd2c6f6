"""Expected losses under dropout: closed forms vs Monte Carlo, gradients vs finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import log_expit, logsumexp

from flda_core.classifier import FLDAClassifier
from flda_core.objectives import (
    dropout_variances,
    expected_quadratic_loss,
    logistic_binary_objective,
    logistic_multinomial_objective,
)
from flda_core.transfer import apply_dropout, dropout_variance_factor


def _problem(n=40, m=6, n_classes=3, seed=0, theta_scale=0.6):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(n, m)).astype(float) * rng.choice([-1.0, 1.0], size=m)
    X[:, 0] = 0.0  # an all-zero column
    theta = rng.uniform(0, theta_scale, m)
    theta[1] = 0.0
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    return X, y, theta, rng


def _monte_carlo(loss_of_Z, X, theta, draws, rng, batch=2_000):
    """Average loss_of_Z(Z) over `draws` independent dropout corruptions of X."""
    total = 0.0
    for start in range(0, draws, batch):
        k = min(batch, draws - start)
        Z = apply_dropout(np.broadcast_to(X, (k,) + X.shape).reshape(-1, X.shape[1]), theta, rng)
        total += loss_of_Z(Z.reshape(k, *X.shape)) * k
    return total / draws


def test_expected_quadratic_loss_matches_monte_carlo_over_100k_draws():
    X, y, theta, rng = _problem(n=12, m=5)
    t = np.where(y == 1, 1.0, -1.0)
    w, b = rng.normal(size=5), 0.3
    c = dropout_variance_factor(theta)
    closed = expected_quadratic_loss(w, b, X, t, c)
    mc = _monte_carlo(lambda Z: np.mean(np.mean((t - Z @ w - b) ** 2, axis=1)), X, theta, 100_000, rng)
    assert abs(mc - closed) / closed < 0.01


def test_expected_quadratic_loss_sparse_equals_dense():
    X, y, theta, rng = _problem()
    t = np.where(y == 1, 1.0, -1.0)
    w, c = rng.normal(size=X.shape[1]), dropout_variance_factor(theta)
    assert expected_quadratic_loss(w, 0.1, sp.csr_matrix(X), t, c) == pytest.approx(
        expected_quadratic_loss(w, 0.1, X, t, c), rel=1e-12
    )


def test_flda_q_weights_minimise_the_monte_carlo_risk():
    """The closed form minimises the expected loss: any perturbation of (w, b) raises
    the Monte Carlo risk estimated with common random numbers."""
    X, y, theta, rng = _problem(n=30, m=4, n_classes=2, seed=3)
    X[:, 0] = rng.poisson(1.0, size=30)
    clf = FLDAClassifier(loss="quadratic", theta=theta).fit(X, y)
    w, b = clf.coef_[0], clf.intercept_[0]
    t = np.where(y == clf.classes_[1], 1.0, -1.0)
    Z = apply_dropout(np.tile(X, (100_000 // 30 + 1, 1)), theta, rng)
    T = np.tile(t, 100_000 // 30 + 1)

    def mc_risk(w_, b_):
        return np.mean((T - Z @ w_ - b_) ** 2)

    base = mc_risk(w, b)
    assert base == pytest.approx(
        expected_quadratic_loss(w, b, X, t, dropout_variance_factor(theta)), rel=0.01
    )
    for _ in range(20):
        dw = rng.normal(scale=0.05, size=w.shape)
        assert mc_risk(w + dw, b + rng.normal(scale=0.05)) > base


def _numeric_gradient(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def _relative_error(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("with_theta", [False, True])
@pytest.mark.parametrize("l2", [0.0, 0.1])
def test_binary_gradient_matches_central_differences(sparse, with_theta, l2):
    X, y, theta, rng = _problem(n_classes=2)
    theta = theta if with_theta else np.zeros_like(theta)
    c = dropout_variance_factor(theta)
    Xs = sp.csr_matrix(X) if sparse else X
    Q = dropout_variances(Xs, c)
    y01 = (y == 1).astype(float)
    params = rng.normal(scale=0.5, size=X.shape[1] + 1)

    def f(p):
        return logistic_binary_objective(p[:-1], p[-1], Xs, Q, y01, l2)[0]

    _, gw, gb = logistic_binary_objective(params[:-1], params[-1], Xs, Q, y01, l2)
    assert _relative_error(np.append(gw, gb), _numeric_gradient(f, params)) < 1e-6


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("with_theta", [False, True])
@pytest.mark.parametrize("l2", [0.0, 0.1])
def test_multinomial_gradient_matches_central_differences(sparse, with_theta, l2):
    X, y, theta, rng = _problem(n_classes=4)
    theta = theta if with_theta else np.zeros_like(theta)
    c = dropout_variance_factor(theta)
    Xs = sp.csr_matrix(X) if sparse else X
    Q = dropout_variances(Xs, c)
    K, m = 4, X.shape[1]
    Y = np.eye(K)[y]
    params = rng.normal(scale=0.5, size=m * K + K)

    def split(p):
        return p[: m * K].reshape(m, K), p[m * K :]

    def f(p):
        return logistic_multinomial_objective(*split(p), Xs, Q, Y, l2)[0]

    _, gW, gb = logistic_multinomial_objective(*split(params), Xs, Q, Y, l2)
    assert _relative_error(np.concatenate([gW.ravel(), gb]), _numeric_gradient(f, params)) < 1e-6


def test_sparse_multinomial_blocks_agree_with_dense(monkeypatch):
    """The row-blocked sparse path gives the dense answer even with tiny blocks."""
    import flda_core.objectives as objectives

    monkeypatch.setattr(objectives, "_BLOCK_ENTRIES", 7)
    X, y, theta, rng = _problem(n=50, n_classes=3)
    c = dropout_variance_factor(theta)
    W, b, Y = rng.normal(size=(X.shape[1], 3)), rng.normal(size=3), np.eye(3)[y]
    dense = logistic_multinomial_objective(W, b, X, dropout_variances(X, c), Y, 0.0)
    Xs = sp.csr_matrix(X)
    sparse = logistic_multinomial_objective(W, b, Xs, dropout_variances(Xs, c), Y, 0.0)
    assert sparse[0] == pytest.approx(dense[0], rel=1e-12)
    np.testing.assert_allclose(sparse[1], dense[1], rtol=1e-10, atol=1e-14)


def test_binary_model_is_multinomial_with_first_class_fixed_at_zero():
    X, y, theta, rng = _problem(n_classes=2)
    c = dropout_variance_factor(theta)
    Q = dropout_variances(X, c)
    w, b = rng.normal(size=X.shape[1]), 0.4
    binary = logistic_binary_objective(w, b, X, Q, (y == 1).astype(float), 0.0)
    W = np.column_stack([np.zeros_like(w), w])
    multi = logistic_multinomial_objective(W, np.array([0.0, b]), X, Q, np.eye(2)[y], 0.0)
    assert binary[0] == pytest.approx(multi[0], rel=1e-12)
    np.testing.assert_allclose(binary[1], multi[1][:, 1], rtol=1e-10)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_taylor_expected_log_loss_is_close_to_monte_carlo_for_small_theta(n_classes):
    """When dropout perturbs the scores little (small theta, moderate weights) the
    second-order term captures the expected log-loss: the Taylor value is much
    closer to the Monte Carlo expectation than the plain (theta = 0) log-loss.
    (Its accuracy is governed by the size of a single dropped term x_d w_d, not by
    theta alone: a dropped feature moves the score by x_d w_d.)"""
    X, y, _, rng = _problem(n=20, m=5, n_classes=n_classes, seed=5)
    theta = np.full(5, 0.05)
    c = dropout_variance_factor(theta)
    Q = dropout_variances(X, c)
    if n_classes == 2:
        w, b = rng.normal(scale=0.15, size=5), 0.2
        y01 = (y == 1).astype(float)
        taylor = logistic_binary_objective(w, b, X, Q, y01, 0.0)[0]
        plain = logistic_binary_objective(w, b, X, 0 * Q, y01, 0.0)[0]

        def loss_of_Z(Z):
            a = Z @ w + b
            return -np.mean(y01 * log_expit(a) + (1 - y01) * log_expit(-a))
    else:
        W, b = rng.normal(scale=0.15, size=(5, n_classes)), rng.normal(size=n_classes)
        Y = np.eye(n_classes)[y]
        taylor = logistic_multinomial_objective(W, b, X, Q, Y, 0.0)[0]
        plain = logistic_multinomial_objective(W, b, X, 0 * Q, Y, 0.0)[0]

        def loss_of_Z(Z):
            A = Z @ W + b
            return np.mean(logsumexp(A, axis=-1) - np.sum(A * Y, axis=-1))

    mc = _monte_carlo(loss_of_Z, X, theta, 100_000, rng)
    assert abs(taylor - mc) < 0.1 * abs(plain - mc)
    assert abs(taylor - mc) / mc < 0.001


def test_diagonal_only_hessian_of_appendix_c_is_a_worse_approximation():
    """Dropping the cross-class covariances -p_j p_k (as Appendix C prints it)
    moves the approximation away from the Monte Carlo expectation."""
    X, y, _, rng = _problem(n=20, m=5, n_classes=3, seed=8)
    theta = np.full(5, 0.05)
    c = dropout_variance_factor(theta)
    Q = dropout_variances(X, c)
    W, b, Y = rng.normal(scale=1.0, size=(5, 3)), rng.normal(size=3), np.eye(3)[y]
    full = logistic_multinomial_objective(W, b, X, Q, Y, 0.0)[0]
    A = X @ W + b
    P = np.exp(A - logsumexp(A, axis=1, keepdims=True))
    plain = np.mean(logsumexp(A, axis=1) - np.sum(A * Y, axis=1))
    diag_only = plain + 0.5 * np.mean(np.sum(P * (1 - P) * (Q @ (W * W)), axis=1))

    def loss_of_Z(Z):
        A_ = Z @ W + b
        return np.mean(logsumexp(A_, axis=-1) - np.sum(A_ * Y, axis=-1))

    mc = _monte_carlo(loss_of_Z, X, theta, 100_000, rng)
    assert abs(full - mc) < abs(diag_only - mc)


@pytest.mark.parametrize("sparse", [False, True])
def test_binary_variance_term_restricted_to_dropped_features_is_exact(sparse):
    """Two classes: the theta > 0 columns alone give the same value and gradient,
    and that gradient still matches finite differences."""
    X, y, theta, rng = _problem(n=50, m=7, n_classes=2, seed=11)
    theta[[1, 3]] = 0.0
    c = dropout_variance_factor(theta)
    Xs = sp.csr_matrix(X) if sparse else X
    y01 = (y == 1).astype(float)
    w, b = rng.normal(size=7), -0.3
    full = logistic_binary_objective(w, b, Xs, dropout_variances(Xs, c), y01, 0.05)
    penalized = np.flatnonzero(c > 0)
    Q = dropout_variances(Xs[:, penalized], c[penalized])
    part = logistic_binary_objective(w, b, Xs, Q, y01, 0.05, penalized)
    assert part[0] == pytest.approx(full[0], rel=1e-13)
    np.testing.assert_allclose(part[1], full[1], rtol=1e-12)
    assert part[2] == pytest.approx(full[2], rel=1e-12)
    numeric = _numeric_gradient(
        lambda p: logistic_binary_objective(p[:-1], p[-1], Xs, Q, y01, 0.05, penalized)[0], np.append(w, b)
    )
    assert _relative_error(np.append(part[1], part[2]), numeric) < 1e-6


@pytest.mark.parametrize("sparse", [False, True])
def test_variance_term_restricted_to_dropped_features_is_exact(sparse):
    """Computing the variance term on the theta > 0 columns only changes nothing."""
    X, y, theta, rng = _problem(n=60, m=9, n_classes=3, seed=12)
    theta[[2, 5, 6]] = 0.0
    c = dropout_variance_factor(theta)
    Xs = sp.csr_matrix(X) if sparse else X
    W, b, Y = rng.normal(size=(9, 3)), rng.normal(size=3), np.eye(3)[y]
    full = logistic_multinomial_objective(W, b, Xs, dropout_variances(Xs, c), Y, 0.01)
    penalized = np.flatnonzero(c > 0)
    Xp = Xs[:, penalized]
    part = logistic_multinomial_objective(W, b, Xs, dropout_variances(Xp, c[penalized]), Y, 0.01, penalized)
    assert part[0] == pytest.approx(full[0], rel=1e-13)
    np.testing.assert_allclose(part[1], full[1], rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(part[2], full[2], rtol=1e-11, atol=1e-15)
    none = logistic_multinomial_objective(
        W, b, Xs, dropout_variances(Xs[:, []], c[[]]), Y, 0.01, np.array([], dtype=int)
    )
    plain = logistic_multinomial_objective(W, b, Xs, 0 * dropout_variances(Xs, c), Y, 0.01)
    assert none[0] == pytest.approx(plain[0], rel=1e-13)
    np.testing.assert_allclose(none[1], plain[1], rtol=1e-11, atol=1e-15)


def test_dense_row_blocks_do_not_change_the_multinomial_objective(monkeypatch):
    """The blocked dense evaluation equals the sparse (unblocked) one for any block size."""
    import flda_core.objectives as objectives

    X, y, theta, rng = _problem(n=70, m=8, n_classes=4, seed=13)
    c = dropout_variance_factor(theta)
    W, b, Y = rng.normal(size=(8, 4)), rng.normal(size=4), np.eye(4)[y]
    Xs = sp.csr_matrix(X)
    reference = logistic_multinomial_objective(W, b, Xs, dropout_variances(Xs, c), Y, 0.02)
    for rows in (1, 7, 64, 1000):
        monkeypatch.setattr(objectives, "_DENSE_BLOCK_ROWS", rows)
        dense = logistic_multinomial_objective(W, b, X, dropout_variances(X, c), Y, 0.02)
        assert dense[0] == pytest.approx(reference[0], rel=1e-12)
        np.testing.assert_allclose(dense[1], reference[1], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(dense[2], reference[2], rtol=1e-10, atol=1e-14)
