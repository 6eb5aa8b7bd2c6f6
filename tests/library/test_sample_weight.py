"""``FLDAClassifier.fit(..., sample_weight=...)``: weights of the labelled source samples.

The weighted objective is the weighted *mean* expected loss, so integer
weights must give exactly the fit on repeated rows, a zero weight exactly the
fit without the row, and a common factor nothing at all -- for both losses,
binary and multiclass, dense and sparse, and every transfer model (whose
source statistics are weighted too).
"""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.model_selection import GridSearchCV

from flda_core import transfer_models as tm
from flda_core.classifier import FLDAClassifier
from flda_core.objectives import (
    dropout_variances,
    expected_quadratic_loss,
    logistic_binary_objective,
    logistic_multinomial_objective,
)
from flda_core.transfer import dropout_variance_factor, estimate_dropout, nonzero_rate
from test_objectives import _numeric_gradient, _relative_error

TRANSFERS = tuple(tm.TRANSFER_MODELS)
LOSSES = ("quadratic", "logistic")


def _domains(transfer, n_classes, seed=0, n=60, n_target=80, m=5):
    """Counts with a dropped feature, a feature that appears in the target, a
    column present only in rows that get weight 0 (see :func:`_weights`), and
    missing cells for the imputation model."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.5, size=(n, m)).astype(float)
    Xt = rng.poisson(1.5, size=(n_target, m)).astype(float)
    Xt[:, 0] *= rng.random(n_target) < 0.5  # feature 1 drops out
    Xt[:, 3] = np.where(rng.random(n_target) < 0.8, 2.0, Xt[:, 3])
    X[:, 3] *= rng.random(n) < 0.4  # feature 4 appears
    X[:, 4] = 0.0
    X[:3, 4] = [1.0, 2.0, 1.0]  # only in rows 0-2
    if transfer == "imputation":
        X[rng.random(X.shape) < 0.1] = np.nan
        Xt[rng.random(Xt.shape) < 0.3] = np.nan
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    return X, y, Xt


def _weights(y, seed=1, low=0):
    """Integer weights in low..3, rows 0-2 at 0 (when low = 0), every class positive."""
    rng = np.random.default_rng(seed)
    w = rng.integers(low, 4, size=len(y))
    if low == 0:
        w[:3] = 0
    for k in np.unique(y):
        if w[y == k].sum() == 0:
            w[np.flatnonzero(y == k)[-1]] = 1
    return w


def _as(sparse, *arrays):
    return tuple(sp.csr_matrix(A) if sparse else A for A in arrays)


def _weighted_and_repeated(transfer, n_classes, seed, sparse=False):
    """``(X, X_target, X repeated by the weights, y, weights, repeated row indices)``."""
    X, y, Xt = _domains(transfer, n_classes, seed=seed)
    w = _weights(y, seed=seed + 1)
    rows = np.repeat(np.arange(len(y)), w)
    return (*_as(sparse, X, Xt, X[rows]), y, w, rows)


def _tight(loss, transfer, **extra):
    return FLDAClassifier(loss=loss, transfer=transfer, tol=1e-10, max_iter=10_000, **extra)


def _assert_same_fit(a, b, loss):
    atol = 1e-8 if loss == "quadratic" else 1e-7  # logistic: the solver tolerance
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=atol)
    assert a.transfer_params_.keys() == b.transfer_params_.keys()
    for key in a.transfer_params_:
        np.testing.assert_allclose(a.transfer_params_[key], b.transfer_params_[key], rtol=1e-12, atol=1e-14)


CASES = pytest.mark.parametrize("transfer", TRANSFERS)
LOSS = pytest.mark.parametrize("loss", LOSSES)
SPARSE = pytest.mark.parametrize("sparse", [False, True])
CLASSES = pytest.mark.parametrize("n_classes", [2, 3])


def every_case(test):
    """Every transfer model x loss x dense/sparse x binary/multiclass."""
    for mark in (CLASSES, SPARSE, LOSS, CASES):
        test = mark(test)
    return test


@every_case
def test_integer_weights_equal_repeated_rows(transfer, loss, sparse, n_classes):
    Xs, Xts, Xr, y, w, rows = _weighted_and_repeated(transfer, n_classes, 0, sparse)
    weighted = _tight(loss, transfer, l2=1e-3).fit(Xs, y, X_target=Xts, sample_weight=w)
    repeated = _tight(loss, transfer, l2=1e-3).fit(Xr, y[rows], X_target=Xts)
    _assert_same_fit(weighted, repeated, loss)
    # the column seen only in rows of weight 0 is absent from the weighted source
    assert np.all(weighted.coef_[:, 4] == 0.0)


@every_case
def test_zero_weight_removes_the_row(transfer, loss, sparse, n_classes):
    X, y, Xt = _domains(transfer, n_classes, seed=2)
    w = _weights(y, seed=3)
    keep = w > 0
    w01 = keep.astype(float)
    Xs, Xts, Xk = _as(sparse, X, Xt, X[keep])
    weighted = _tight(loss, transfer).fit(Xs, y, X_target=Xts, sample_weight=w01)
    removed = _tight(loss, transfer).fit(Xk, y[keep], X_target=Xts)
    _assert_same_fit(weighted, removed, loss)


@every_case
def test_scaling_all_weights_changes_nothing(transfer, loss, sparse, n_classes):
    X, y, Xt = _domains(transfer, n_classes, seed=4)
    w = _weights(y, seed=5, low=1) * np.random.default_rng(6).uniform(0.5, 2.0, len(y))
    Xs, Xts = _as(sparse, X, Xt)
    one = _tight(loss, transfer, l2=1e-2).fit(Xs, y, X_target=Xts, sample_weight=w)
    scaled = _tight(loss, transfer, l2=1e-2).fit(Xs, y, X_target=Xts, sample_weight=37.5 * w)
    _assert_same_fit(one, scaled, loss)


@LOSS
@CLASSES
def test_weights_change_the_fit_and_ones_do_not(loss, n_classes):
    X, y, Xt = _domains("dropout", n_classes, seed=7)
    plain = _tight(loss, "dropout", l2=1e-3).fit(X, y, X_target=Xt)
    ones = _tight(loss, "dropout", l2=1e-3).fit(X, y, X_target=Xt, sample_weight=np.ones(len(y)))
    _assert_same_fit(ones, plain, loss)
    weighted = _tight(loss, "dropout", l2=1e-3).fit(X, y, X_target=Xt, sample_weight=_weights(y, low=1))
    assert np.abs(weighted.coef_ - plain.coef_).max() > 1e-3


@pytest.mark.parametrize("solver", ["cholesky", "woodbury", "cg"])
@SPARSE
@CLASSES
def test_every_quadratic_solver_takes_weights(solver, sparse, n_classes):
    Xs, Xts, Xr, y, w, rows = _weighted_and_repeated("dropout", n_classes, 8, sparse)
    kw = dict(loss="quadratic", l2=0.05, solver=solver, tol=1e-13, max_iter=10_000)
    weighted = FLDAClassifier(**kw).fit(Xs, y, X_target=Xts, sample_weight=w)
    repeated = FLDAClassifier(**kw).fit(Xr, y[rows], X_target=Xts)
    assert weighted.solver_ == repeated.solver_ == solver
    _assert_same_fit(weighted, repeated, "quadratic")


@CASES
@LOSS
def test_without_target_weights_are_repeated_rows_and_nothing_shifts(transfer, loss):
    X, _, Xr, y, w, rows = _weighted_and_repeated(transfer, 2, 10)
    weighted = _tight(loss, transfer).fit(X, y, sample_weight=w)
    repeated = _tight(loss, transfer).fit(Xr, y[rows])
    _assert_same_fit(weighted, repeated, loss)
    for key in ("theta", "phi"):
        if key in weighted.transfer_params_:
            np.testing.assert_array_equal(weighted.transfer_params_[key], 0.0)


# ------------------------------------------------------------- objectives and gradients


def _weighted_problem(sparse, n_classes, seed=12):
    X, y, _ = _domains("dropout", n_classes, seed=seed)
    theta = np.array([0.4, 0.0, 0.2, 0.7, 0.1])
    c = dropout_variance_factor(theta)
    w = _weights(y, seed=seed + 1)
    Xs = sp.csr_matrix(X) if sparse else X
    return X, Xs, y, c, w


@SPARSE
def test_weighted_quadratic_loss_is_the_loss_on_repeated_rows(sparse):
    X, Xs, y, c, w = _weighted_problem(sparse, 2)
    rows = np.repeat(np.arange(len(y)), w)
    t = np.where(y == 1, 1.0, -1.0)
    coef = np.random.default_rng(0).normal(size=X.shape[1])
    weighted = expected_quadratic_loss(coef, 0.2, Xs, t, c, sample_weight=w)
    repeated = expected_quadratic_loss(coef, 0.2, X[rows], t[rows], c)
    assert weighted == pytest.approx(repeated, rel=1e-12)
    assert weighted != pytest.approx(expected_quadratic_loss(coef, 0.2, X, t, c), rel=1e-3)


@SPARSE
@pytest.mark.parametrize("penalized", [None, np.array([0, 2, 3])])
@pytest.mark.parametrize("l2", [0.0, 0.1])
def test_weighted_binary_objective_value_and_gradient(sparse, penalized, l2):
    X, Xs, y, c, w = _weighted_problem(sparse, 2)
    cols = slice(None) if penalized is None else penalized
    Q = dropout_variances(Xs[:, cols], c[cols])
    y01 = (y == 1).astype(float)
    params = np.random.default_rng(1).normal(scale=0.5, size=X.shape[1] + 1)

    def f(p):
        return logistic_binary_objective(p[:-1], p[-1], Xs, Q, y01, l2, penalized, w)[0]

    value, gw, gb = logistic_binary_objective(params[:-1], params[-1], Xs, Q, y01, l2, penalized, w)
    assert _relative_error(np.append(gw, gb), _numeric_gradient(f, params)) < 1e-6
    rows = np.repeat(np.arange(len(y)), w)
    Qr = dropout_variances(X[rows][:, cols], c[cols])
    repeated = logistic_binary_objective(params[:-1], params[-1], X[rows], Qr, y01[rows], l2, penalized)
    assert value == pytest.approx(repeated[0], rel=1e-12)
    np.testing.assert_allclose(gw, repeated[1], rtol=1e-10, atol=1e-13)


@SPARSE
@pytest.mark.parametrize("penalized", [None, np.array([0, 2, 3])])
@pytest.mark.parametrize("l2", [0.0, 0.1])
def test_weighted_multinomial_objective_value_and_gradient(sparse, penalized, l2):
    K = 3
    X, Xs, y, c, w = _weighted_problem(sparse, K)
    cols = slice(None) if penalized is None else penalized
    Q = dropout_variances(Xs[:, cols], c[cols])
    Y = np.eye(K)[y]
    m = X.shape[1]
    params = np.random.default_rng(2).normal(scale=0.5, size=m * K + K)

    def split(p):
        return p[: m * K].reshape(m, K), p[m * K :]

    def f(p):
        return logistic_multinomial_objective(*split(p), Xs, Q, Y, l2, penalized, w)[0]

    value, gW, gb = logistic_multinomial_objective(*split(params), Xs, Q, Y, l2, penalized, w)
    assert _relative_error(np.concatenate([gW.ravel(), gb]), _numeric_gradient(f, params)) < 1e-6
    rows = np.repeat(np.arange(len(y)), w)
    Qr = dropout_variances(X[rows][:, cols], c[cols])
    repeated = logistic_multinomial_objective(*split(params), X[rows], Qr, Y[rows], l2, penalized)
    assert value == pytest.approx(repeated[0], rel=1e-12)
    np.testing.assert_allclose(gW, repeated[1], rtol=1e-10, atol=1e-13)


def test_weighted_dense_multinomial_blocks_agree(monkeypatch):
    """The dense objective is evaluated in row blocks; weights must follow their rows."""
    import flda_core.objectives as objectives

    X, _, y, c, w = _weighted_problem(False, 3)
    Q, Y = dropout_variances(X, c), np.eye(3)[y]
    W, b = np.random.default_rng(3).normal(size=(X.shape[1], 3)), np.array([0.1, -0.2, 0.0])
    whole = logistic_multinomial_objective(W, b, X, Q, Y, 0.0, None, w)
    monkeypatch.setattr(objectives, "_DENSE_BLOCK_ROWS", 7)
    blocked = logistic_multinomial_objective(W, b, X, Q, Y, 0.0, None, w)
    assert blocked[0] == pytest.approx(whole[0], rel=1e-12)
    np.testing.assert_allclose(blocked[1], whole[1], rtol=1e-10)


# --------------------------------------------------------- transfer-parameter estimates


@CASES
@SPARSE
def test_weighted_transfer_estimates_equal_estimates_on_repeated_rows(transfer, sparse):
    Xs, Xts, Xr, y, w, rows = _weighted_and_repeated(transfer, 2, 14, sparse)
    weighted = tm.make_transfer_model(transfer).fit(Xs, Xts, sample_weight=w).params()
    repeated = tm.make_transfer_model(transfer).fit(Xr, Xts).params()
    unweighted = tm.make_transfer_model(transfer).fit(Xs, Xts).params()
    for key in repeated:
        np.testing.assert_allclose(weighted[key], repeated[key], rtol=1e-12, atol=1e-15)
    assert any(not np.allclose(weighted[k], unweighted[k]) for k in repeated)


def test_weighted_rates_and_dropout_by_hand():
    X = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0], [3.0, 4.0]])
    Xt = np.array([[0.0, 1.0], [0.0, 5.0]])
    w = np.array([1.0, 2.0, 3.0, 0.0])
    # eta = weighted share of non-zero rows: feature 1 in row 1 (weight 2) of 6
    np.testing.assert_allclose(nonzero_rate(X, sample_weight=w), [2 / 6, 1 / 6])
    np.testing.assert_allclose(nonzero_rate(sp.csc_matrix(X), sample_weight=w), [2 / 6, 1 / 6])
    # zeta = [0, 1]: feature 1 never in the target -> theta 1; feature 2 more common -> 0
    np.testing.assert_allclose(estimate_dropout(X, Xt, sample_weight=w), [1.0, 0.0])
    rate = tm.RateTransfer().fit(X, Xt, sample_weight=w).rate
    np.testing.assert_allclose(rate, [0.0, 3.0 / (1 / 6)])
    Xn = np.array([[np.nan, 1.0], [2.0, np.nan], [4.0, 0.0]])
    imputation = tm.ImputationTransfer().fit(Xn, Xn, sample_weight=[1.0, 1.0, 2.0])
    np.testing.assert_allclose(imputation.mu, [(2 + 8) / 3, 1 / 3])


# ----------------------------------------------------------------------- bad weights


@pytest.mark.parametrize(
    "weights, message",
    [
        (-np.ones(60), "Negative values"),
        # scikit-learn >= 1.7 refuses all-zero weights itself; before, FLDA does (per class)
        (np.zeros(60), "at least one non-zero|total weight of 0"),
        (np.ones(59), "sample_weight.shape"),
        (np.full(60, np.nan), "NaN"),
        (np.full(60, np.inf), "infinity"),
    ],
)
def test_bad_weights_are_clear_errors(weights, message):
    X, y, Xt = _domains("dropout", 2)
    with pytest.raises(ValueError, match=message):
        FLDAClassifier().fit(X, y, X_target=Xt, sample_weight=weights)


def test_a_class_without_weight_is_a_clear_error():
    X, y, Xt = _domains("dropout", 3)
    w = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"class\(es\) 2 a total weight of 0"):
        FLDAClassifier().fit(X, y, X_target=Xt, sample_weight=w)


def test_dask_input_refuses_weights():
    da = pytest.importorskip("dask.array")
    X, y, Xt = _domains("dropout", 2)
    with pytest.raises(ValueError, match="not supported with dask"):
        FLDAClassifier(loss="quadratic").fit(
            da.from_array(X, chunks=20), y, X_target=Xt, sample_weight=np.ones(len(y))
        )


def test_partial_fit_refuses_weights():
    X, y, Xt = _domains("dropout", 2)
    with pytest.raises(ValueError, match="partial_fit does not support sample_weight"):
        FLDAClassifier(loss="quadratic").partial_fit(X, y, classes=[0, 1], sample_weight=np.ones(len(y)))


# ------------------------------------------------------------------ metadata routing


def test_sample_weight_is_requested_by_default_and_routes():
    X, y, Xt = _domains("dropout", 2, n=90)
    w = _weights(y, low=1)
    direct = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt, sample_weight=w)
    plain = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt)
    assert np.abs(direct.coef_ - plain.coef_).max() > 1e-3
    with sklearn.config_context(enable_metadata_routing=True):
        request = FLDAClassifier().get_metadata_routing()
        assert request.fit.requests == {"X_target": True, "sample_weight": True, "sample_domain": True}
        # score's sample_weight is requested too (skada's ImportanceWeightedScorer
        # needs it); here the validation scores stay unweighted
        assert request.score.requests == {"sample_weight": True, "sample_domain": True}
        routed = FLDAClassifier(loss="quadratic").set_score_request(sample_weight=False)
        search = GridSearchCV(routed, {"l2": [0.0]}, cv=3)
        search.fit(X, y, X_target=Xt, sample_weight=w)
        np.testing.assert_allclose(search.best_estimator_.coef_, direct.coef_, atol=1e-12)
        opted_out = (
            FLDAClassifier(loss="quadratic")
            .set_fit_request(sample_weight=False)
            .set_score_request(sample_weight=False)
        )
        with pytest.raises(TypeError, match="sample_weight"):  # nobody takes them now
            GridSearchCV(opted_out, {"l2": [0.0]}, cv=3).fit(X, y, X_target=Xt, sample_weight=w)
