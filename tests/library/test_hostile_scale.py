"""Extreme scales never give a silently degenerate FLDAClassifier (issue 26).

Values scaled by 1e-200 used to give FLDA-Q/FLDA-L a zero model predicting one
class, an imputation mean of 1e300 NaN weights, and sample weights all 1e308 or all
1e-320 a zero model, although rescaling all weights should change nothing.  Weights
are now normalised exactly; what cannot be rescaled exactly is refused with a
ValueError naming the problem and the fix.
"""

import warnings

import numpy as np
import pytest

from flda_core import FLDAClassifier, make_bernoulli_domains

LOSSES = ("quadratic", "logistic")


@pytest.fixture(scope="module")
def data():
    d = make_bernoulli_domains(n_source=300, n_target=300, random_state=0)
    return (np.asarray(d.X_source, dtype=float), d.y_source, np.asarray(d.X_target, dtype=float))


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("scale", [1e308, 1e-320, 2.0**-1000, 3.0])
def test_rescaling_all_weights_changes_nothing(data, loss, scale):
    X, y, Xt = data
    reference = FLDAClassifier(loss=loss).fit(X, y, X_target=Xt, sample_weight=np.ones(len(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no ConvergenceWarning
        scaled = FLDAClassifier(loss=loss).fit(X, y, X_target=Xt, sample_weight=np.full(len(y), scale))
    np.testing.assert_allclose(scaled.coef_, reference.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(scaled.intercept_, reference.intercept_, rtol=1e-6, atol=1e-9)
    assert set(scaled.predict(Xt)) == {0, 1}


@pytest.mark.parametrize("loss", LOSSES)
def test_power_of_two_weight_scaling_is_bit_identical(data, loss):
    X, y, Xt = data
    w = np.random.default_rng(1).uniform(0.5, 3.0, len(y))
    a = FLDAClassifier(loss=loss).fit(X, y, X_target=Xt, sample_weight=w)
    b = FLDAClassifier(loss=loss).fit(X, y, X_target=Xt, sample_weight=w * 2.0**900)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


def test_weights_spanning_more_than_the_float_range_are_refused(data):
    X, y, Xt = data
    w = np.ones(len(y))
    w[0], w[1] = 1e300, 1e-300
    with pytest.raises(ValueError, match="orders of magnitude.*weight 0"):
        FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt, sample_weight=w)


@pytest.mark.parametrize("loss", LOSSES)
def test_features_whose_squares_underflow_are_refused(data, loss):
    X, y, Xt = data
    with pytest.raises(ValueError, match="underflow.*Rescale the features"):
        FLDAClassifier(loss=loss).fit(X * 1e-200, y, X_target=Xt * 1e-200)


def test_small_but_squarable_features_still_fit(data):
    X, y, Xt = data
    model = FLDAClassifier(loss="quadratic").fit(X * 1e-100, y, X_target=Xt * 1e-100)
    assert set(model.predict(Xt * 1e-100)) == {0, 1}


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize(
    "transfer, params",
    [
        ("imputation", {"theta": 0.0, "mu": 1e300}),
        ("imputation", {"theta": 0.3, "mu": 1e200}),
        ("two-sided", {"theta": 0.0, "phi": 0.5, "value": 1e300}),
        ("rate", {"rate": 1e300}),
    ],
)
def test_transfer_params_that_overflow_are_refused(data, loss, transfer, params):
    X, y, _ = data
    n = X.shape[1]
    full = {k: np.full(n, v) for k, v in params.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="transfer_params"):
            FLDAClassifier(loss=loss, transfer=transfer, transfer_params=full).fit(X, y)
