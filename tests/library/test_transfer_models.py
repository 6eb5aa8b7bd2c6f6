"""Transfer models beyond dropout (issue 15): every formula against Monte Carlo over the
model, gradients against finite differences, estimators against known parameters."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.utils.estimator_checks import parametrize_with_checks

from flda_core.classifier import FLDAClassifier
from flda_core.solvers import quadratic_targets
from flda_core.objectives import (
    expected_quadratic_loss,
    logistic_binary_objective,
    logistic_multinomial_objective,
)
from test_objectives import _numeric_gradient as _finite_difference  # central differences

from flda_core.transfer_models import (
    TRANSFER_MODELS,
    DropoutTransfer,
    ImputationTransfer,
    RateTransfer,
    TwoSidedTransfer,
    make_transfer_model,
)

M = 5


def _counts(n=8, m=M, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.2, size=(n, m)).astype(float)
    X[0] = 0.0  # a row of zeros
    X[:, 1] = 0.0  # an all-zero column
    return X


def _models():
    """One model of each kind with non-trivial parameters (5 features)."""
    return {
        "dropout": DropoutTransfer(theta=[0.3, 0.5, 0.0, 0.8, 0.1]),
        "imputation": ImputationTransfer(theta=[0.3, 0.5, 0.0, 0.9, 0.2], mu=[1.5, -0.5, 2.0, 0.7, 0.0]),
        "two-sided": TwoSidedTransfer(
            theta=[0.4, 0.0, 0.0, 0.2, 0.0], phi=[0.0, 0.3, 0.6, 0.0, 0.1], value=[0.0, 2.0, 1.5, 0.0, 3.0]
        ),
        "rate-down": RateTransfer(rate=[0.5, 1.0, 0.2, 0.9, 1.0]),
        "rate-up": RateTransfer(rate=[2.0, 1.0, 3.5, 1.2, 1.0]),
    }


def _draws(model, X, n_draws, seed):
    rng = np.random.default_rng(seed)
    big = np.broadcast_to(X, (n_draws,) + X.shape).reshape(-1, X.shape[1])
    return model.sample(big, rng).reshape(n_draws, *X.shape)


def test_every_model_has_a_one_line_explanation_and_a_class():
    assert set(TRANSFER_MODELS) == {"dropout", "imputation", "two-sided", "rate"}
    for name, text in TRANSFER_MODELS.items():
        assert "\n" not in text and len(text) > 20
        assert make_transfer_model(name).name == name


@pytest.mark.parametrize("key", list(_models()))
def test_mean_and_variance_match_monte_carlo(key):
    model, X = _models()[key], _counts()
    Z = _draws(model, X, 40_000, seed=1)
    n_draws = Z.shape[0]
    mean, var = model.mean(X), model.variance(X)
    mc_mean, mc_var = Z.mean(axis=0), Z.var(axis=0)
    # Standard errors of the Monte Carlo mean and variance.
    se_mean = np.sqrt(var / n_draws) + 1e-12
    fourth = ((Z - mean) ** 4).mean(axis=0)
    se_var = np.sqrt(np.maximum(fourth - var**2, 0) / n_draws) + 1e-12
    assert np.all(np.abs(mc_mean - mean) <= 5 * se_mean + 1e-9)
    # (+ a second-order term: a fair two-point variable has fourth moment = variance**2)
    assert np.all(np.abs(mc_var - var) <= 5 * se_var + 2e-3 * var + 1e-9)
    assert np.all(var >= -1e-12)


@pytest.mark.parametrize("key", list(_models()))
def test_sparse_parts_equal_dense_and_keep_zeros(key):
    model, X = _models()[key], _counts()
    Xs = sp.csr_matrix(X)
    for parts in ("mean_parts", "variance_parts"):
        dense_part, dense_row = getattr(model, parts)(X)
        sparse_part, sparse_row = getattr(model, parts)(Xs)
        assert sp.issparse(sparse_part)
        np.testing.assert_allclose(sparse_part.toarray(), dense_part, atol=1e-12)
        np.testing.assert_allclose(sparse_row, dense_row)
        assert np.all(dense_part[X == 0] == 0)  # the sparse part keeps zeros
    np.testing.assert_allclose(model.variance_column_sums(Xs), model.variance(X).sum(axis=0))


@pytest.mark.parametrize("key", list(_models()))
def test_expected_quadratic_loss_matches_monte_carlo(key):
    model, X = _models()[key], _counts(n=10)
    rng = np.random.default_rng(2)
    t = rng.choice([-1.0, 1.0], size=10)
    w, b = rng.normal(size=M), 0.2
    closed = expected_quadratic_loss(w, b, model.mean(X), t, None, variance=model.variance(X))
    Z = _draws(model, X, 60_000, seed=3)
    losses = np.mean((t - Z @ w - b) ** 2, axis=1)
    assert abs(losses.mean() - closed) <= 5 * losses.std() / np.sqrt(len(losses))


def _taylor_loss_mc(model, X, y, W, b, n_draws, seed):
    """Monte Carlo of the second-order expansion of A around a_i = W^T E[z_i] + b, and of
    the exact expected loss; both per-sample means."""
    Z = _draws(model, X, n_draws, seed)
    A0 = model.mean(X) @ W + b
    P = np.exp(A0 - logsumexp(A0, axis=1, keepdims=True))
    S = Z @ W + b  # (draws, n, K)
    D = S - A0
    quad = np.einsum("rik,ik,rik->ri", D, P, D) - np.einsum("ik,rik->ri", P, D) ** 2
    taylor = logsumexp(A0, axis=1) + np.einsum("ik,rik->ri", P, D) + 0.5 * quad
    rows = np.arange(len(y))
    taylor = taylor - S[:, rows, y]
    exact = logsumexp(S, axis=2) - S[:, rows, y]
    return taylor.mean(axis=1), exact.mean(axis=1)


@pytest.mark.parametrize("key", list(_models()))
def test_taylor_logistic_loss_matches_monte_carlo_of_the_expansion(key):
    """The closed form equals the Monte Carlo mean of the second-order expansion (exactly
    what it approximates), and is close to the exact expected loss for small weights."""
    model, X = _models()[key], _counts(n=9)
    rng = np.random.default_rng(4)
    y = np.arange(9) % 3
    W, b = 0.3 * rng.normal(size=(M, 3)), rng.normal(size=3)
    Y = np.eye(3)[y]
    value, _, _ = logistic_multinomial_objective(W, b, model.mean(X), model.variance(X), Y, 0.0)
    taylor, exact = _taylor_loss_mc(model, X, y, W, b, 40_000, seed=5)
    assert abs(taylor.mean() - value) <= 5 * taylor.std() / np.sqrt(len(taylor)) + 1e-9
    assert abs(exact.mean() - value) / value < 0.05


def test_binary_taylor_loss_equals_multinomial_with_zero_first_class():
    model, X = _models()["two-sided"], _counts(n=12)
    rng = np.random.default_rng(6)
    y = np.arange(12) % 2
    w, b = rng.normal(size=M), 0.4
    E, V = model.mean(X), model.variance(X)
    binary, _, _ = logistic_binary_objective(w, b, E, V, y.astype(float), 0.0)
    W = np.column_stack([np.zeros(M), w])
    multi, _, _ = logistic_multinomial_objective(W, np.array([0.0, b]), E, V, np.eye(2)[y], 0.0)
    assert binary == pytest.approx(multi, rel=1e-12)


@pytest.mark.parametrize("key", ["imputation", "two-sided", "rate-up"])
@pytest.mark.parametrize("sparse", [False, True])
def test_gradients_with_general_moments_match_finite_differences(key, sparse):
    model, X = _models()[key], _counts(n=15)
    E, V = model.mean(X), model.variance(X)
    if sparse:
        E, V = sp.csr_matrix(E), sp.csr_matrix(V)
    rng = np.random.default_rng(7)
    y = np.arange(15) % 3
    Y = np.eye(3)[y]
    W, b = rng.normal(size=(M, 3)), rng.normal(size=3)
    _, gW, gb = logistic_multinomial_objective(W, b, E, V, Y, 0.01)
    np.testing.assert_allclose(
        gW, _finite_difference(lambda w: logistic_multinomial_objective(w, b, E, V, Y, 0.01)[0], W), atol=1e-6
    )
    np.testing.assert_allclose(
        gb, _finite_difference(lambda c: logistic_multinomial_objective(W, c, E, V, Y, 0.01)[0], b), atol=1e-6
    )
    y01 = (y == 1).astype(float)
    w = W[:, 0]
    _, gw, gb1 = logistic_binary_objective(w, 0.3, E, V, y01, 0.01)
    np.testing.assert_allclose(
        gw, _finite_difference(lambda v: logistic_binary_objective(v, 0.3, E, V, y01, 0.01)[0], w), atol=1e-6
    )
    assert gb1 == pytest.approx(
        _finite_difference(lambda c: logistic_binary_objective(w, c[0], E, V, y01, 0.01)[0], np.array([0.3]))[
            0
        ],
        abs=1e-6,
    )


def _fit_problem(n=120, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rates = 1.0 + 2.0 * rng.random((n_classes, M))
    X = rng.poisson(rates[y]).astype(float)
    return X, y


@pytest.mark.parametrize("key", ["imputation", "two-sided", "rate-up", "dropout"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fitted_weights_minimise_the_expected_risk(key, n_classes):
    """Stationarity of the *full* objective (mean matrix E[Z|X] with its constant row):
    checks the intercept re-parametrisation b = b' - a.W of the solvers."""
    model = _models()[key]
    X, y = _fit_problem(n_classes=n_classes)
    params = model.params()
    name = model.name
    E, V = model.mean(X), model.variance(X)
    l2 = 0.01
    # Quadratic: gradient of the exact expected loss + penalty vanishes.
    clf = FLDAClassifier(loss="quadratic", l2=l2, transfer=name, transfer_params=params).fit(X, y)
    T = quadratic_targets(y, n_classes)
    W, b = clf.coef_.T, clf.intercept_
    risk = lambda v: (
        expected_quadratic_loss(v.reshape(W.shape), b, E, T, None, variance=V) + l2 * np.sum(v**2)
    )
    assert np.abs(_finite_difference(risk, W.ravel(), 1e-5)).max() < 1e-6
    risk_b = lambda c: expected_quadratic_loss(W, c, E, T, None, variance=V)
    assert np.abs(_finite_difference(risk_b, b, 1e-5)).max() < 1e-6
    # Logistic: the gradient of the Taylor objective at the fit is ~ 0.
    clf = FLDAClassifier(loss="logistic", l2=l2, tol=1e-10, transfer=name, transfer_params=params).fit(X, y)
    if n_classes == 2:
        _, gw, gb = logistic_binary_objective(clf.coef_[0], clf.intercept_[0], E, V, y.astype(float), l2)
    else:
        _, gw, gb = logistic_multinomial_objective(
            clf.coef_.T, clf.intercept_, E, V, np.eye(n_classes)[y], l2
        )
    assert np.abs(gw).max() < 1e-6 and np.abs(gb).max() < 1e-6


@pytest.mark.parametrize(
    "name,zero",
    [
        ("dropout", {"theta": np.zeros(M)}),
        ("imputation", {"theta": np.zeros(M), "mu": np.arange(M, dtype=float)}),
        ("two-sided", {"theta": np.zeros(M), "phi": np.zeros(M), "value": np.ones(M)}),
        ("rate", {"rate": np.ones(M)}),
    ],
)
@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_each_model_with_zero_parameters_is_the_plain_classifier(name, zero, loss):
    X, y = _fit_problem(n_classes=3)
    plain = FLDAClassifier(loss=loss, l2=0.01, tol=1e-10).fit(X, y)
    model = FLDAClassifier(loss=loss, l2=0.01, tol=1e-10, transfer=name, transfer_params=zero).fit(X, y)
    np.testing.assert_allclose(model.coef_, plain.coef_, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, plain.intercept_, atol=1e-6)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_general_path_with_dropout_equals_the_original_dropout_path(loss):
    X, y = _fit_problem(n_classes=3)
    theta = np.array([0.3, 0.0, 0.6, 1.0, 0.1])
    original = FLDAClassifier(loss=loss, l2=0.01, theta=theta, tol=1e-10).fit(X, y)
    general = FLDAClassifier(
        loss=loss, l2=0.01, tol=1e-10, transfer="dropout", transfer_params={"theta": theta}
    ).fit(X, y)
    np.testing.assert_allclose(general.coef_, original.coef_, atol=1e-6)
    np.testing.assert_allclose(general.intercept_, original.intercept_, atol=1e-6)
    assert np.all(general.coef_[:, 3] == 0)


def test_dropout_default_keeps_theta_attribute_and_reports_params():
    X, y = _fit_problem()
    Xt = DropoutTransfer(theta=[0.5, 0, 0, 0, 0]).sample(X, 0)
    clf = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt)
    assert clf.transfer_params_["theta"] is clf.theta_ or np.array_equal(
        clf.transfer_params_["theta"], clf.theta_
    )
    assert set(clf.transfer_model_.params()) == {"theta"}


# ----------------------------------------------------------------- estimators


def test_imputation_estimator_recovers_missing_rate_and_mean():
    rng = np.random.default_rng(8)
    Xs = rng.normal(loc=[1.0, -2.0, 0.0, 3.0], size=(40_000, 4))
    Xs[rng.random(Xs.shape) < [0.0, 0.1, 0.0, 0.2]] = np.nan  # gaps in the source too
    Xt = rng.normal(loc=[1.0, -2.0, 0.0, 3.0], size=(40_000, 4))
    theta = np.array([0.3, 0.0, 0.6, 0.5])
    observed_in_source = 1 - np.array([0.0, 0.1, 0.0, 0.2])
    Xt[rng.random(Xt.shape) < 1 - observed_in_source * (1 - theta)] = np.nan
    model = ImputationTransfer().fit(Xs, Xt)
    np.testing.assert_allclose(model.theta, theta, atol=0.015)
    np.testing.assert_allclose(model.mu, [1.0, -2.0, 0.0, 3.0], atol=0.03)


def test_two_sided_estimator_recovers_theta_phi_and_value():
    rng = np.random.default_rng(9)
    Xs = (rng.random((50_000, 4)) < [0.6, 0.3, 0.5, 0.0]) * 2.0
    truth = TwoSidedTransfer(
        theta=[0.5, 0.0, 0.0, 0.0], phi=[0.0, 0.4, 0.0, 0.25], value=[0.0, 2.0, 0.0, 2.0]
    )
    Xt = truth.sample((rng.random((50_000, 4)) < [0.6, 0.3, 0.5, 0.0]) * 2.0, rng)
    model = TwoSidedTransfer().fit(Xs, Xt)
    np.testing.assert_allclose(model.theta, truth.theta, atol=0.02)
    np.testing.assert_allclose(model.phi, truth.phi, atol=0.02)
    np.testing.assert_allclose(model.value[[1, 3]], 2.0)
    assert model.phi[2] == 0 and model.theta[2] == pytest.approx(0, abs=0.02)


def test_rate_estimator_recovers_rate_up_and_down():
    rng = np.random.default_rng(10)
    lam = np.array([3.0, 1.0, 0.5, 2.0])
    truth = RateTransfer(rate=[0.4, 2.5, 1.0, 3.0])
    Xt = truth.sample(rng.poisson(lam, size=(50_000, 4)).astype(float), rng)
    model = RateTransfer().fit(rng.poisson(lam, size=(50_000, 4)).astype(float), Xt)
    np.testing.assert_allclose(model.rate, truth.rate, rtol=0.03)


def test_rate_model_rejects_negative_counts():
    X = np.array([[1.0, -1.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="non-negative"):
        RateTransfer().fit(X, X)


def test_dropout_model_estimate_is_the_papers():
    from flda_core.transfer import estimate_dropout

    rng = np.random.default_rng(11)
    Xs, Xt = rng.poisson(1.0, (300, 5)), rng.poisson(0.5, (300, 5))
    np.testing.assert_array_equal(DropoutTransfer().fit(Xs, Xt).theta, estimate_dropout(Xs, Xt))


# ----------------------------------------------------------------- classifier


@pytest.mark.parametrize("transfer", ["imputation", "two-sided", "rate", "dropout"])
@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_sparse_input_gives_the_dense_fit(transfer, loss, n_classes):
    X, y = _fit_problem(n_classes=n_classes, seed=3)
    rng = np.random.default_rng(12)
    Xt = X * (rng.random(X.shape) < 0.7) + (X == 0) * (rng.random(X.shape) < 0.3)
    kwargs = dict(loss=loss, l2=0.01, tol=1e-10, transfer=transfer)
    dense = FLDAClassifier(**kwargs).fit(X, y, X_target=Xt)
    sparse = FLDAClassifier(**kwargs).fit(sp.csr_matrix(X), y, X_target=sp.csr_matrix(Xt))
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, atol=1e-6)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(Xt)), dense.predict(Xt))


def test_logistic_refuses_to_densify_a_huge_sparse_problem(monkeypatch):
    from flda_core import classifier

    monkeypatch.setattr(classifier, "MAX_DENSE_ENTRIES", 10)
    X, y = _fit_problem()
    Xt = np.where((X == 0) & (np.arange(len(X))[:, None] % 2 == 0), 1.0, X)  # 0 < phi < 1
    with pytest.raises(ValueError, match="loss='quadratic'"):
        FLDAClassifier(transfer="two-sided").fit(sp.csr_matrix(X), y, X_target=Xt)
    # The quadratic loss never densifies.
    FLDAClassifier(transfer="two-sided", loss="quadratic").fit(sp.csr_matrix(X), y, X_target=Xt)


def test_imputation_keeps_gaps_as_gaps_and_fills_them_with_the_source_mean():
    X, y = _fit_problem(n=200)
    rng = np.random.default_rng(13)
    Xt = X.copy()
    Xt[rng.random(X.shape) < [0.5, 0.0, 0.2, 0.0, 0.0]] = np.nan
    clf = FLDAClassifier(loss="logistic", l2=0.01, transfer="imputation").fit(X, y, X_target=Xt)
    assert clf.theta_[1] == 0 and 0.4 < clf.theta_[0] < 0.6
    np.testing.assert_allclose(clf.mu_, X.mean(axis=0))
    filled = np.where(np.isnan(Xt), clf.mu_, Xt)
    np.testing.assert_array_equal(clf.predict(Xt), clf.predict(filled))
    # Other models still reject NaN with scikit-learn's message.
    with pytest.raises(ValueError, match="NaN"):
        FLDAClassifier(transfer="two-sided").fit(X, y, X_target=Xt)


def test_theta_with_another_model_is_an_error_and_bad_params_are_named():
    X, y = _fit_problem()
    with pytest.raises(ValueError, match="transfer_params"):
        FLDAClassifier(transfer="rate", theta=0.5).fit(X, y)
    with pytest.raises(ValueError, match="missing"):
        FLDAClassifier(transfer="two-sided", transfer_params={"theta": np.zeros(M)}).fit(X, y)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FLDAClassifier(
            transfer="two-sided",
            transfer_params={"theta": np.zeros(M), "phi": np.full(M, 2.0), "value": np.ones(M)},
        ).fit(X, y)


def test_two_sided_adapts_where_dropout_cannot():
    """A feature that appears more often in the target: dropout estimates theta = 0 and is
    the source classifier; two-sided estimates phi and changes the decision."""
    from flda_core.synthetic import make_appearance_domains

    data = make_appearance_domains(n_source=4000, n_target=4000, random_state=0)
    dropout = FLDAClassifier(transfer="dropout").fit(data.X_source, data.y_source, X_target=data.X_target)
    two = FLDAClassifier(transfer="two-sided").fit(data.X_source, data.y_source, X_target=data.X_target)
    assert np.all(dropout.theta_ == 0)
    np.testing.assert_allclose(two.phi_, data.true_params["phi"], atol=0.05)
    error = lambda clf: np.mean(clf.predict(data.X_target) != data.y_target)
    assert error(two) < error(dropout)


def test_rate_preset_recovers_the_rate_factor():
    from flda_core.synthetic import make_rate_domains

    data = make_rate_domains(n_source=4000, n_target=4000, random_state=0)
    clf = FLDAClassifier(transfer="rate").fit(data.X_source, data.y_source, X_target=data.X_target)
    np.testing.assert_allclose(clf.rate_, data.true_params["rate"], rtol=0.1)


@parametrize_with_checks(
    [
        FLDAClassifier(transfer=t, loss=loss)
        for t in ("imputation", "two-sided", "rate")
        for loss in ("logistic", "quadratic")
    ],
    expected_failed_checks=lambda est: {},
)
def test_sklearn_compatible_with_every_transfer_model(estimator, check):
    check(estimator)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_edge_features_get_weight_zero(loss):
    """Always missing in the target (imputation theta = 1), never in the source but
    appearing in the target (two-sided), absent from the target (rate 0)."""
    X, y = _fit_problem(n=200, n_classes=3)
    X[:, 4] = 0.0  # never non-zero in the source
    Xt = X.copy()
    Xt[:, 4] = 1.0
    Xt_gaps = X.copy()
    Xt_gaps[:, 0] = np.nan  # always missing in the target
    Xt_rate = X.copy()
    Xt_rate[:, 2] = 0.0  # gone from the target
    for transfer, target, column in (("two-sided", Xt, 4), ("imputation", Xt_gaps, 0), ("rate", Xt_rate, 2)):
        clf = FLDAClassifier(loss=loss, l2=0.01, transfer=transfer).fit(X, y, X_target=target)
        assert np.all(clf.coef_[:, column] == 0), transfer
        assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    assert FLDAClassifier(transfer="imputation").fit(X, y, X_target=Xt_gaps).theta_[0] == 1.0


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_imputation_with_gaps_in_sparse_input_gives_the_dense_fit(loss):
    X, y = _fit_problem(n=200)
    rng = np.random.default_rng(14)
    Xs, Xt = X.copy(), X.copy()
    Xs[rng.random(X.shape) < 0.05] = np.nan
    Xt[rng.random(X.shape) < 0.3] = np.nan
    kwargs = dict(loss=loss, l2=1e-3, tol=1e-10, transfer="imputation")
    dense = FLDAClassifier(**kwargs).fit(Xs, y, X_target=Xt)
    sparse = FLDAClassifier(**kwargs).fit(sp.csr_matrix(Xs), y, X_target=sp.csr_matrix(Xt))
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, atol=1e-8)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(Xt)), dense.predict(Xt))
    # 1 - theta = (1 - 0.3) / (1 - 0.05): gaps already in the source are not counted twice.
    np.testing.assert_allclose(dense.theta_, 1 - 0.7 / 0.95, atol=0.08)
