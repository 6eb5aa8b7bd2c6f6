"""warm_start=True: same solution as a cold fit (to solver tolerance), fewer iterations."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from flda_core.classifier import FLDAClassifier
from explorer.data import digits as dg
from flda_core.synthetic import make_poisson_domains
from explorer.experiments import digits as ed
from explorer.experiments.perturbation import perturbation_sweep
from explorer.experiments.synthetic import fit_linear


def _data(n=400, m=12, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rates = rng.uniform(0.5, 3.0, size=(n_classes, m))
    X = rng.poisson(rates[y]).astype(float)
    theta = rng.uniform(0.0, 0.9, m)
    theta[0] = 0.0
    theta[1] = 1.0  # a feature that is never seen in the target
    return X, y, theta


def _warm_then(params, first, X, y, X_target=None):
    """Fit with ``first`` parameters, then refit the same warm estimator with ``params``."""
    clf = FLDAClassifier(warm_start=True, **{**params, **first}).fit(X, y, X_target=X_target)
    return clf.set_params(**params).fit(X, y, X_target=X_target)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("transfer", ["dropout", "two-sided"])
def test_warm_started_logistic_fit_equals_cold_fit(n_classes, transfer):
    X, y, theta = _data(n_classes=n_classes)
    if transfer == "dropout":
        params, target = {"theta": theta}, None
    else:  # the general path: the warm start must undo the intercept shift
        params = {"transfer": "two-sided"}
        rng = np.random.default_rng(1)  # dropout plus zeros that turn into 2s
        target = np.where(X == 0, 2.0 * (rng.random(X.shape) < 0.3), X * (rng.random(X.shape) > theta))
    params.update(loss="logistic", l2=1e-2, tol=1e-10, max_iter=5000)
    cold = FLDAClassifier(**params).fit(X, y, X_target=target)
    warm = _warm_then(params, {"l2": 3e-2}, X, y, target)
    # L-BFGS also stops on a relative objective change of 64 eps, so both
    # fits are within ~1e-6 of the optimum, not within tol.
    np.testing.assert_allclose(warm.coef_, cold.coef_, atol=2e-5)
    np.testing.assert_allclose(warm.intercept_, cold.intercept_, atol=2e-5)
    if transfer == "dropout":  # theta = 1 keeps its exact zero weight
        assert np.all(warm.coef_[:, 1] == 0)
    # Refitting at the same parameters starts at the optimum: the starting point
    # is mapped exactly (scaled coordinates, intercept shift of the general path).
    # ... and that is a normal convergence, not a ConvergenceWarning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        again = warm.fit(X, y, X_target=target)
    assert again.n_iter_ <= 1
    np.testing.assert_allclose(again.coef_, cold.coef_, atol=2e-5)


@pytest.mark.parametrize("n_classes", [2, 10])
def test_warm_start_needs_fewer_iterations_at_a_neighbouring_l2(n_classes):
    if n_classes == 2:
        X, y, theta = _data()
    else:
        data = dg.make_offline_domains(random_state=0)
        X, y, X_t, _ = dg.direction_data(data, "A → B")
        theta = FLDAClassifier().fit(X, y, X_target=X_t).theta_
    params = {"theta": theta, "l2": 1e-3, "tol": 1e-6}
    cold = FLDAClassifier(**params).fit(X, y)
    warm = _warm_then(params, {"l2": 2e-3}, X, y)
    assert warm.n_iter_ < 0.8 * cold.n_iter_
    assert np.mean(warm.predict(X) == cold.predict(X)) > 0.99


def test_warm_start_false_or_other_shapes_start_cold():
    X, y, theta = _data(n_classes=3)
    fresh = FLDAClassifier(theta=theta, l2=1e-2).fit(X, y)
    # warm_start=False: a previous fit changes nothing, bit for bit.
    again = FLDAClassifier(theta=theta, l2=1e-1).fit(X, y)
    again.set_params(l2=1e-2).fit(X, y)
    np.testing.assert_array_equal(again.coef_, fresh.coef_)
    assert again.n_iter_ == fresh.n_iter_
    # warm_start=True after a fit of another shape (2 classes, fewer features): cold.
    warm = FLDAClassifier(warm_start=True, l2=1e-2).fit(X[y < 2, :5], y[y < 2])
    warm.set_params(theta=theta).fit(X, y)
    np.testing.assert_array_equal(warm.coef_, fresh.coef_)
    assert warm.n_iter_ == fresh.n_iter_


def test_quadratic_direct_solver_ignores_warm_start_and_cg_uses_it():
    X, y, theta = _data(n=300, m=40, n_classes=3, seed=2)
    for solver in ("cholesky", "cg"):
        params = {"loss": "quadratic", "theta": theta, "l2": 1e-3, "solver": solver, "tol": 1e-12}
        cold = FLDAClassifier(**params).fit(sp.csr_matrix(X), y)
        warm = _warm_then(params, {"l2": 1.2e-3}, sp.csr_matrix(X), y)
        np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-8, atol=1e-10)
        if solver == "cholesky":
            assert warm.n_iter_ == cold.n_iter_ == 1
        else:
            assert warm.n_iter_ < cold.n_iter_


def test_perturbation_sweep_warm_starts_give_the_cold_fits():
    pair = make_poisson_domains(n_source=3000, n_target=3000, random_state=0)
    fits = perturbation_sweep(pair, [0.0, 0.1, 0.2], losses=("logistic", "quadratic"))
    for fit in fits:
        cold = fit_linear(pair, "flda", fit.loss, theta=fit.theta, perturbation=fit.perturbation)
        np.testing.assert_allclose(fit.coef, cold.coef, rtol=1e-3, atol=1e-4)
        assert fit.target_error == pytest.approx(cold.target_error, abs=1e-3)


def test_cross_validation_on_digits_matches_cold_fits_per_grid_point():
    data = dg.make_offline_domains(random_state=0)
    X, y, X_t, _ = dg.direction_data(data, "B → A")
    X, y = X[::3], y[::3]
    theta = FLDAClassifier().fit(X, y, X_target=X_t).theta_
    grid = (1e-4, 1e-3, 1e-2)
    _, errors = ed.cross_validate_l2(X, y, "FLDA-L", theta, grid=grid, tol=1e-7)
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y)
    cold = np.zeros(len(grid))
    for train, test in folds:
        for k, l2 in enumerate(grid):
            model = ed.make_classifier("FLDA-L", l2, theta, tol=1e-7, max_iter=5000)
            cold[k] += np.mean(model.fit(X[train], y[train]).predict(X[test]) != y[test]) / 3
    np.testing.assert_allclose([errors[l2] for l2 in grid], cold, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_refit_from_a_converged_start_stops_at_once_without_a_warning(n_classes):
    """A warm start that is already converged (gradient below tol) is a normal,
    zero-iteration stop: the weights stay as they are and nothing is "wrong"."""
    X, y, theta = _data(n_classes=n_classes)
    clf = FLDAClassifier(theta=theta, l2=1e-2, tol=1e-6, warm_start=True).fit(X, y)
    coef = clf.coef_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    assert clf.n_iter_ == 0
    np.testing.assert_array_equal(clf.coef_, coef)
