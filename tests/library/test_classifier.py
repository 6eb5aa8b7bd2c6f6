"""FLDAClassifier: solvers against each other and against independent formulas, edges, labels."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression

from flda_core.classifier import FLDAClassifier
from flda_core.objectives import dropout_variances, logistic_binary_objective, logistic_multinomial_objective
from flda_core.transfer import apply_dropout, dropout_variance_factor


def _data(n=120, m=8, n_classes=2, seed=0, density=None):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    rates = rng.uniform(0.5, 3.0, size=(n_classes, m))
    X = rng.poisson(rates[y]).astype(float)
    if density is not None:
        X *= rng.random(X.shape) < density
    return X, y, rng


def _algorithm_1(X, t, theta, l2):
    """Eq. (11) / Algorithm 1 written literally with the bias appended as a
    feature that is never dropped out (theta = 0) and never penalised."""
    n = X.shape[0]
    Xa = np.column_stack([X, np.ones(n)])
    theta_a = np.append(theta, 0.0)
    G = Xa.T @ Xa
    V = np.diag(theta_a / (1 - theta_a) * np.diag(G))
    R = n * l2 * np.diag(np.append(np.ones(X.shape[1]), 0.0))
    return np.linalg.solve(G + V + R, Xa.T @ t)


@pytest.mark.parametrize("l2", [0.0, 0.01])
def test_quadratic_equals_algorithm_1_written_literally(l2):
    X, y, rng = _data()
    theta = rng.uniform(0, 0.8, X.shape[1])
    clf = FLDAClassifier(loss="quadratic", theta=theta, l2=l2).fit(X, y)
    expected = _algorithm_1(X, np.where(y == 1, 1.0, -1.0), theta, l2)
    np.testing.assert_allclose(clf.coef_[0], expected[:-1], rtol=1e-9, atol=1e-12)
    assert clf.intercept_[0] == pytest.approx(expected[-1], rel=1e-9)


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_quadratic_solvers_agree(n_classes, sparse):
    X, y, rng = _data(n=60, m=90, n_classes=n_classes, density=0.3)
    theta = rng.uniform(0, 0.9, X.shape[1])
    X = sp.csr_matrix(X) if sparse else X
    fits = {
        solver: FLDAClassifier(
            loss="quadratic", theta=theta, l2=1e-3, solver=solver, tol=1e-12, max_iter=5000
        ).fit(X, y)
        for solver in ("cholesky", "woodbury", "cg")
    }
    for solver in ("woodbury", "cg"):
        np.testing.assert_allclose(fits[solver].coef_, fits["cholesky"].coef_, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(fits[solver].intercept_, fits["cholesky"].intercept_, rtol=1e-6, atol=1e-9)


def test_auto_solver_avoids_dense_feature_by_feature_matrices_when_wide():
    X, y, rng = _data(n=300, m=2_500, density=0.01)
    clf = FLDAClassifier(loss="quadratic", l2=1e-3).fit(X, y)
    assert clf.solver_ == "woodbury"  # dense and few rows: the n x n dual form
    clf = FLDAClassifier(loss="quadratic", l2=1e-3).fit(sp.csr_matrix(X), y)
    assert clf.solver_ == "cg"  # sparse: products with X only, never an n x n matrix
    X, y, rng = _data(n=2_500, m=2_500, density=0.01)
    clf = FLDAClassifier(loss="quadratic", l2=1e-3, tol=1e-8).fit(sp.csr_matrix(X), y)
    assert clf.solver_ == "cg"
    ref = FLDAClassifier(loss="quadratic", l2=1e-3, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-4, atol=1e-7)


def test_multiclass_quadratic_is_one_vs_rest_with_shared_factorisation():
    X, y, rng = _data(n_classes=3)
    theta = rng.uniform(0, 0.5, X.shape[1])
    multi = FLDAClassifier(loss="quadratic", theta=theta).fit(X, y)
    for k in range(3):
        binary = FLDAClassifier(loss="quadratic", theta=theta).fit(X, (y == k).astype(int))
        np.testing.assert_allclose(multi.coef_[k], binary.coef_[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_without_dropout_equals_sklearn_logistic_regression(n_classes):
    X, y, _ = _data(n=300, m=6, n_classes=n_classes)
    l2 = 0.01
    ours = FLDAClassifier(loss="logistic", l2=l2, tol=1e-10).fit(X, y)
    ref = LogisticRegression(C=1 / (2 * l2 * len(y)), tol=1e-10, max_iter=10_000).fit(X, y)
    ref_coef, ref_intercept = ref.coef_, ref.intercept_
    if n_classes > 2:  # sklearn's multinomial is centred across classes; so is ours
        np.testing.assert_allclose(ours.coef_.sum(axis=0), 0, atol=1e-6)
    np.testing.assert_allclose(ours.coef_, ref_coef, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref_intercept, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_logistic_solution_matches_an_independent_optimiser(n_classes, sparse):
    """L-BFGS in rescaled coordinates (our solver) and plain BFGS on the raw
    objective reach the same minimiser, even with a feature at theta = 0.999."""
    X, y, rng = _data(n=200, m=10, n_classes=n_classes)
    theta = rng.uniform(0, 0.95, X.shape[1])
    theta[0] = 0.999
    clf = FLDAClassifier(loss="logistic", theta=theta, l2=1e-3, tol=1e-9).fit(
        sp.csr_matrix(X) if sparse else X, y
    )
    c = dropout_variance_factor(theta)
    Q = dropout_variances(X, c)
    m = X.shape[1]
    if n_classes == 2:

        def f(p):
            value, gw, gb = logistic_binary_objective(p[:m], p[m], X, Q, (y == 1).astype(float), 1e-3)
            return value, np.append(gw, gb)

        ours = np.append(clf.coef_[0], clf.intercept_[0])
    else:

        def f(p):
            W = p[: m * n_classes].reshape(m, n_classes)
            value, gW, gb = logistic_multinomial_objective(
                W, p[m * n_classes :], X, Q, np.eye(n_classes)[y], 1e-3
            )
            return value, np.append(gW.ravel(), gb)

        ours = np.append(clf.coef_.T.ravel(), clf.intercept_)
    reference = minimize(
        f, np.zeros_like(ours), jac=True, method="BFGS", options={"gtol": 1e-11, "maxiter": 20_000}
    ).x
    np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)
    assert f(ours)[0] <= f(reference)[0] + 1e-12


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_sparse_and_dense_fits_agree(loss, n_classes):
    X, y, rng = _data(n=150, m=12, n_classes=n_classes, density=0.5)
    X_target = apply_dropout(X, rng.uniform(0, 0.8, X.shape[1]), rng)
    dense = FLDAClassifier(loss=loss, l2=1e-3, tol=1e-10).fit(X, y, X_target=X_target)
    sparse = FLDAClassifier(loss=loss, l2=1e-3, tol=1e-10).fit(
        sp.csr_matrix(X), y, X_target=sp.csc_matrix(X_target)
    )
    np.testing.assert_allclose(sparse.theta_, dense.theta_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_theta_one_gives_exactly_zero_weight_and_no_nan(loss, sparse):
    X, y, _ = _data(n_classes=3)
    theta = np.zeros(X.shape[1])
    theta[[1, 4]] = 1.0
    clf = FLDAClassifier(loss=loss, theta=theta).fit(sp.csr_matrix(X) if sparse else X, y)
    assert np.all(clf.coef_[:, [1, 4]] == 0.0)
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    # ... and it is the same model as simply deleting those features
    keep = [0, 2, 3, 5, 6, 7]
    reduced = FLDAClassifier(loss=loss).fit(X[:, keep], y)
    np.testing.assert_allclose(clf.coef_[:, keep], reduced.coef_, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_theta_near_one_shrinks_weight_towards_zero_continuously(loss):
    X, y, _ = _data()
    weights = []
    for t in (0.0, 0.9, 0.99, 0.9999, 1.0):
        theta = np.zeros(X.shape[1])
        theta[2] = t
        clf = FLDAClassifier(loss=loss, theta=theta, tol=1e-8).fit(X, y)
        weights.append(abs(clf.coef_[0, 2]))
    assert weights[0] > weights[1] > weights[2] > weights[3] > weights[4] == 0.0
    assert weights[3] < 1e-3 * weights[0]


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_all_zero_and_constant_columns_are_handled(loss):
    X, y, _ = _data()
    X[:, 0] = 0.0
    X[:, 1] = 3.0
    theta = np.full(X.shape[1], 0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = FLDAClassifier(loss=loss, theta=theta).fit(X, y)
    assert clf.coef_[0, 0] == 0.0
    assert np.all(np.isfinite(clf.coef_))
    plain = FLDAClassifier(loss=loss).fit(X, y)  # theta = 0: singular Gram, min-norm answer
    assert np.all(np.isfinite(plain.coef_)) and plain.coef_[0, 0] == 0.0


@pytest.mark.parametrize("labels", [("neg", "pos"), (-1, 1), (1, 2), (3, 10)])
@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_any_label_values(labels, loss):
    X, y, _ = _data(seed=3)
    y_named = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[y]
    clf = FLDAClassifier(loss=loss).fit(X, y_named)
    assert list(clf.classes_) == sorted(labels)
    assert set(clf.predict(X)) <= set(labels)
    assert clf.score(X, y_named) > 0.7
    positive = clf.decision_function(X) > 0
    np.testing.assert_array_equal(clf.predict(X) == clf.classes_[1], positive)


def test_string_multiclass_labels_and_probabilities():
    X, y, _ = _data(n_classes=3, seed=4)
    names = np.array(["ant", "bee", "cat"])[y]
    clf = FLDAClassifier().fit(X, names)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_explicit_theta_overrides_target_estimate_and_default_is_source_classifier():
    X, y, rng = _data()
    X_target = apply_dropout(X, np.full(X.shape[1], 0.5), rng)
    theta = np.full(X.shape[1], 0.1)
    clf = FLDAClassifier(loss="quadratic", theta=theta).fit(X, y, X_target=X_target)
    np.testing.assert_array_equal(clf.theta_, theta)
    adapted = FLDAClassifier(loss="quadratic").fit(X, y, X_target=X_target)
    assert np.all(adapted.theta_ > 0.3)
    source = FLDAClassifier(loss="quadratic").fit(X, y)
    np.testing.assert_array_equal(source.theta_, 0.0)


def test_one_class_raises_a_clear_error():
    X, _, _ = _data()
    with pytest.raises(ValueError, match="at least 2 classes"):
        FLDAClassifier().fit(X, np.zeros(len(X)))


def test_target_with_other_feature_count_raises_a_clear_error():
    X, y, _ = _data()
    with pytest.raises(ValueError, match="share one feature space"):
        FLDAClassifier().fit(X, y, X_target=X[:, :3])


def test_predict_proba_is_only_offered_for_the_logistic_loss():
    assert not hasattr(FLDAClassifier(loss="quadratic"), "predict_proba")
    assert hasattr(FLDAClassifier(loss="logistic"), "predict_proba")


@pytest.mark.parametrize(
    "params, name",
    [
        ({"loss": "hinge"}, "loss"),
        ({"l2": -1.0}, "l2"),
        ({"l2": "big"}, "l2"),
        ({"theta": 1.5}, "theta"),
        ({"zero_tol": -0.1}, "zero_tol"),
        ({"solver": "lsqr"}, "solver"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"transfer": "shift"}, "transfer"),
        ({"transfer_params": [1.0]}, "transfer_params"),
        ({"warm_start": "yes"}, "warm_start"),
    ],
)
def test_bad_parameters_are_clear_errors(params, name):
    X, y, _ = _data()
    with pytest.raises(ValueError, match=rf"The '{name}' parameter of FLDAClassifier must be"):
        FLDAClassifier(**params).fit(X, y)
