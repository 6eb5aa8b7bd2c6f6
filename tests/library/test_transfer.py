"""Dropout transfer model: estimation of theta (section 3.3.1) and sampling (eq. dropout)."""

import numpy as np
import pytest
import scipy.sparse as sp

from flda_core.transfer import (
    apply_dropout,
    check_theta,
    dropout_variance_factor,
    estimate_dropout,
    nonzero_rate,
)


def test_theta_recovered_within_0_01_at_100k_samples():
    rng = np.random.default_rng(0)
    n, theta_true = 100_000, np.array([0.5, 0.0, 0.25, 0.9, 0.05])
    X_source = rng.poisson(3.0, size=(n, 5)).astype(float)
    X_target = apply_dropout(rng.poisson(3.0, size=(n, 5)).astype(float), theta_true, rng)
    theta = estimate_dropout(X_source, X_target)
    np.testing.assert_allclose(theta, theta_true, atol=0.01)


def test_formula_is_max_zero_one_minus_ratio():
    X_source = np.array([[1, 1, 0, 2], [1, 0, 0, 0], [0, 1, 0, 3], [1, 1, 0, 0]], float)
    X_target = np.array([[1, 0, 5, 0], [0, 0, 0, 0], [0, 1, 1, 1], [1, 1, 0, 0]], float)
    # eta = [3/4, 3/4, 0, 2/4]; zeta = [2/4, 2/4, 2/4, 1/4]
    np.testing.assert_allclose(estimate_dropout(X_source, X_target), [1 / 3, 1 / 3, 0.0, 0.5])


def test_edge_cases_all_zero_column_feature_only_in_target_and_never_in_target():
    X_source = np.array([[0, 1, 1], [0, 1, 2], [0, 0, 1]], float)
    X_target = np.array([[3, 0, 1], [1, 0, 1], [0, 0, 1]], float)
    theta = estimate_dropout(X_source, X_target)
    assert theta[0] == 0.0  # absent in source (only in target): dropout cannot add it
    assert theta[1] == 1.0  # present in source, never in target: exactly 1
    assert theta[2] == 0.0  # more frequent in target than in source: clipped at 0
    assert np.all(np.isfinite(theta))


def test_both_domains_all_zero_gives_zero_theta():
    Z = np.zeros((4, 3))
    np.testing.assert_array_equal(estimate_dropout(Z, Z), np.zeros(3))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_matches_dense(fmt):
    rng = np.random.default_rng(1)
    X_source = rng.poisson(0.3, size=(200, 30)).astype(float)
    X_target = apply_dropout(rng.poisson(0.3, size=(150, 30)).astype(float), rng.uniform(0, 1, 30), rng)
    X_source[:, 3] = 0.0
    dense = estimate_dropout(X_source, X_target)
    sparse = estimate_dropout(sp.csr_matrix(X_source).asformat(fmt), sp.csr_matrix(X_target))
    np.testing.assert_allclose(sparse, dense)


def test_explicit_zeros_in_sparse_storage_do_not_count():
    X = sp.csr_matrix((np.array([0.0, 2.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    np.testing.assert_array_equal(nonzero_rate(X), [0.0, 1.0])


def test_zero_tol_treats_faint_values_as_zero():
    X = np.array([[0.01, 1.0], [0.5, 0.02]])
    np.testing.assert_array_equal(nonzero_rate(X, zero_tol=0.05), [0.5, 0.5])
    np.testing.assert_array_equal(nonzero_rate(X), [1.0, 1.0])


def test_mismatched_feature_counts_raise_clear_error():
    with pytest.raises(ValueError, match="share one feature space"):
        estimate_dropout(np.ones((3, 2)), np.ones((3, 3)))


def test_apply_dropout_is_unbiased_with_the_model_variance():
    rng = np.random.default_rng(2)
    theta = np.array([0.0, 0.3, 0.8, 1.0])
    x = np.array([2.0, -1.5, 3.0, 4.0])
    Z = apply_dropout(np.tile(x, (400_000, 1)), theta, rng)
    np.testing.assert_allclose(Z.mean(axis=0)[:3], x[:3], rtol=0.01)
    assert np.all(Z[:, 3] == 0)
    var = theta[:3] / (1 - theta[:3]) * x[:3] ** 2
    np.testing.assert_allclose(Z.var(axis=0)[:3], var, rtol=0.02, atol=1e-12)


def test_variance_factor_is_infinite_only_at_theta_one():
    factor = dropout_variance_factor([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(factor, [0.0, 1.0, np.inf])


@pytest.mark.parametrize("bad", [[0.5], [0.1, -0.1], [0.2, 1.5], [np.nan, 0.1]])
def test_check_theta_rejects_bad_vectors(bad):
    with pytest.raises(ValueError):
        check_theta(bad, 2)
