"""The equations panel: render-safe LaTeX, and formulas that agree with the code."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from explorer.teaching.equations import EQUATIONS, dropout_variance_factor, equation, equation_link
from flda_core.objectives import dropout_variances, expected_quadratic_loss, logistic_binary_objective


def dropout_ridge_strength(X, theta):
    """Per-feature ridge strengths ``λ_d = θ_d/(1 − θ_d) Σ_i x_id²`` of the panel's per-feature
    ridge; features zero in every source sample get ``λ_d = 0`` whatever θ_d."""
    squares = (
        np.asarray(sp.csr_matrix(X).multiply(sp.csr_matrix(X)).sum(axis=0)).ravel()
        if sp.issparse(X)
        else (np.asarray(X, dtype=float) ** 2).sum(axis=0)
    )
    factor = dropout_variance_factor(theta)
    return np.where(squares > 0, factor * np.where(squares > 0, squares, 1.0), 0.0)


def taylor_variance_term(w, b, x, theta):
    """The panel's FLDA-L variance term ``½ p(1 − p) wᵀ V[z | x] w`` for one sample (Equation
    (13)), standard logistic model ``p = σ(wᵀx + b)``."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    p = expit(float(w @ x) + b)
    variance = dropout_variance_factor(theta) * x**2
    return 0.5 * p * (1 - p) * float(np.sum(variance * w**2))


# Macros used here that KaTeX supports (https://katex.org/docs/supported.html).
KATEX_MACROS = {
    "begin",
    "end",
    "text",
    "dfrac",
    "frac",
    "tfrac",
    "hat",
    "max",
    "left",
    "right",
    "qquad",
    "quad",
    "sum",
    "mathbf",
    "mathbb",
    "mid",
    "neq",
    "in",
    "top",
    "operatorname",
    "circ",
    "approx",
    "sigma",
    "theta",
    "zeta",
    "eta",
    "lambda",
    "cdot",
    "infty",
    "log",
    "exp",
    "partial",
    "le",
    "ge",
}
KATEX_ENVIRONMENTS = {"cases", "aligned", "matrix", "pmatrix", "bmatrix"}


def _balanced_braces(text):
    depth = 0
    for token in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize("eq", EQUATIONS, ids=lambda e: e.key)
def test_every_entry_is_complete_and_renders_in_katex(eq):
    assert eq.key and eq.title and eq.latex and eq.explanation and eq.reference
    assert eq.explanation.endswith(")") or eq.explanation.endswith(".")
    assert re.fullmatch(r"eq-[a-z0-9-]+", eq.anchor)
    assert _balanced_braces(eq.latex)
    assert eq.latex.count(r"\left") == eq.latex.count(r"\right")
    assert re.findall(r"\\begin\{(\w+)\}", eq.latex) == re.findall(r"\\end\{(\w+)\}", eq.latex)
    assert set(re.findall(r"\\begin\{(\w+)\}", eq.latex)) <= KATEX_ENVIRONMENTS
    macros = set(re.findall(r"\\([A-Za-z]+)", eq.latex))
    assert "label" not in macros and "mathds" not in macros and "nonumber" not in macros
    assert macros <= KATEX_MACROS, macros - KATEX_MACROS
    assert "$" not in eq.latex


def test_references_use_the_numbers_a_reader_sees_never_latex_labels():
    labels = ("tr1", "tr4", "z_model", "qd_loss", "flda-quad", "log_loss", "logrisk", "dropout}")
    for eq in EQUATIONS:
        assert not any(label in eq.reference + eq.explanation for label in labels)
    numbers = {eq.key: eq.reference for eq in EQUATIONS}
    assert numbers["transfer_model"].startswith("Equation (8)")
    assert numbers["quadratic_loss"].startswith("Equation (10)")
    assert numbers["closed_form"].startswith("Equation (11)")
    assert numbers["taylor_term"].startswith("Equation (13)")
    assert "3.3.1" in numbers["theta_hat"]
    assert len({eq.key for eq in EQUATIONS}) == len({eq.anchor for eq in EQUATIONS}) == len(EQUATIONS)


def test_equation_link_points_at_the_anchor():
    assert equation_link("closed_form") == "[Equation (11)](#eq-11-flda-q-closed-form)"
    assert equation_link("theta_hat", "/lesson").endswith("(/lesson#eq-theta-hat)")
    with pytest.raises(KeyError, match="valid keys"):
        equation("nope")


def _problem(rng, n=40, m=4):
    X = rng.poisson(2.0, size=(n, m)).astype(float)
    X[:, 3] = 0.0  # a feature absent from the source
    t = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, t, rng.normal(size=m), 0.3, np.array([0.5, 0.0, 0.9, 0.7])


def test_variance_term_of_equation_10_is_a_ridge_with_the_per_feature_strengths():
    X, t, w, b, theta = _problem(np.random.default_rng(0))
    c = dropout_variance_factor(theta)
    n = len(t)
    variance_term = n * expected_quadratic_loss(w, b, X, t, c) - np.sum((t - X @ w - b) ** 2)
    lam = dropout_ridge_strength(X, theta)
    assert variance_term == pytest.approx(np.sum(lam * w**2), rel=1e-12)
    assert lam[3] == 0.0 and lam[1] == 0.0  # absent feature, θ = 0
    assert lam[0] == pytest.approx(1.0 * np.sum(X[:, 0] ** 2))  # θ = 0.5: factor 1
    np.testing.assert_allclose(dropout_ridge_strength(sp.csr_matrix(X), theta), lam)


def test_per_feature_ridge_matches_monte_carlo_over_the_transfer_model():
    rng = np.random.default_rng(1)
    X, t, w, b, theta = _problem(rng, n=10)
    draws = 200_000
    keep = rng.random((draws,) + X.shape) >= theta  # equation (8): keep with prob 1 - θ
    Z = np.where(keep, X / (1 - theta), 0.0)
    monte_carlo = np.mean(np.sum((t - Z @ w - b) ** 2, axis=1))
    exact = np.sum((t - X @ w - b) ** 2) + np.sum(dropout_ridge_strength(X, theta) * w**2)
    assert monte_carlo == pytest.approx(exact, rel=5e-3)


def test_dropout_factor_edges():
    np.testing.assert_allclose(dropout_variance_factor([0.0, 0.5, 0.6, 0.8]), [0, 1, 1.5, 4])
    assert np.isinf(dropout_variance_factor(1.0))
    lam = dropout_ridge_strength(np.array([[1.0, 0.0], [2.0, 0.0]]), [1.0, 1.0])
    assert np.isinf(lam[0]) and lam[1] == 0.0  # θ = 1 but never non-zero: nothing to drop
    with pytest.raises(ValueError):
        dropout_variance_factor([1.2])


def test_taylor_term_is_the_variance_part_of_the_flda_l_objective():
    rng = np.random.default_rng(2)
    X, t, w, b, theta = _problem(rng)
    theta = np.minimum(theta, 0.9)
    c = dropout_variance_factor(theta)
    y01 = (t > 0).astype(float)
    with_dropout, _, _ = logistic_binary_objective(w, b, X, dropout_variances(X, c), y01, 0.0)
    without, _, _ = logistic_binary_objective(w, b, X, dropout_variances(X, 0 * c), y01, 0.0)
    terms = [taylor_variance_term(w, b, x, theta) for x in X]
    assert with_dropout - without == pytest.approx(np.mean(terms), rel=1e-10)


def test_taylor_term_approximates_the_expected_log_partition_for_small_dropout():
    rng = np.random.default_rng(3)
    x, w, b, theta = np.array([1.0, 2.0, 1.0]), np.array([0.4, -0.3, 0.2]), 0.1, np.full(3, 0.02)
    draws = 2_000_000
    z = np.where(rng.random((draws, 3)) >= theta, x / (1 - theta), 0.0)
    softplus = lambda a: np.logaddexp(0.0, a)
    monte_carlo = np.mean(softplus(z @ w + b)) - softplus(x @ w + b)
    assert monte_carlo == pytest.approx(taylor_variance_term(w, b, x, theta), rel=0.05)


def test_the_papers_plus_minus_one_form_needs_a_factor_two():
    # A(a) = log(e^a + e^-a): A''(a) = 4 σ(2a) σ(-2a), so ½ A'' = 2 σ(2a) σ(-2a), not σσ.
    A = lambda a: np.logaddexp(a, -a)
    for a in (-1.3, 0.0, 0.4, 2.0):
        h = 1e-4
        second = (A(a + h) - 2 * A(a) + A(a - h)) / h**2
        assert 0.5 * second == pytest.approx(2 * expit(2 * a) * expit(-2 * a), rel=1e-5)
    assert "factor 2" in equation("taylor_term").explanation


def test_dropout_factor_is_the_library_s():
    """One definition of θ/(1 − θ): the captions' numbers are the estimator's."""
    from flda_core.transfer import dropout_variance_factor as library_factor

    assert dropout_variance_factor is library_factor
