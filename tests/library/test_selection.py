"""FLDAClassifierCV against an independent computation: GridSearchCV over
FLDAClassifier(l2=...) with the transfer model estimated once and held fixed."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from flda_core import FLDAClassifier, FLDAClassifierCV, make_poisson_domains
from flda_core.selection import DEFAULT_L2S
from flda_core.transfer import estimate_dropout
from flda_core.transfer_models import make_transfer_model

L2S = (1e-5, 1e-3, 1e-1, 10.0)


@pytest.fixture(scope="module")
def data():
    return make_poisson_domains(n_source=400, n_target=300, random_state=5)


@pytest.mark.parametrize("loss", ["logistic", "quadratic"])
def test_scores_choice_and_refit_equal_a_grid_search_with_theta_fixed(data, loss):
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    clf = FLDAClassifierCV(loss=loss, l2s=L2S, cv=cv).fit(
        data.X_source, data.y_source, X_target=data.X_target
    )
    theta = estimate_dropout(data.X_source, data.X_target)  # from all rows of both domains
    np.testing.assert_array_equal(clf.theta_, theta)
    grid = GridSearchCV(FLDAClassifier(loss=loss, theta=theta), {"l2": list(L2S)}, cv=cv, refit=False)
    grid.fit(data.X_source, data.y_source)
    np.testing.assert_allclose(
        clf.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"], atol=1e-12
    )
    for k in range(3):
        np.testing.assert_array_equal(
            clf.cv_results_[f"split{k}_test_score"], grid.cv_results_[f"split{k}_test_score"]
        )
    np.testing.assert_array_equal(clf.cv_results_["l2"], L2S)
    # best mean score; a tie goes to the larger penalty
    mean = np.round(grid.cv_results_["mean_test_score"], 12)
    assert clf.l2_ == max(l2 for l2, m in zip(L2S, mean) if m == mean.max())
    refit = FLDAClassifier(loss=loss, theta=theta, l2=clf.l2_).fit(data.X_source, data.y_source)
    np.testing.assert_array_equal(clf.coef_, refit.coef_)
    np.testing.assert_array_equal(clf.predict(data.X_target), refit.predict(data.X_target))
    assert clf.score(data.X_target, data.y_target) == refit.score(data.X_target, data.y_target)


def test_ties_go_to_the_larger_penalty():
    # two well separated classes: every l2 classifies the folds perfectly
    X = np.repeat([[0.0, 1.0], [5.0, 0.0]], 30, axis=0) + np.tile([[0.0], [0.1]], (30, 1))
    y = np.repeat([0, 1], 30)
    clf = FLDAClassifierCV(loss="quadratic", l2s=(1e-3, 1e-1, 1e-2)).fit(X, y)
    np.testing.assert_array_equal(clf.cv_results_["mean_test_score"], [1.0, 1.0, 1.0])
    assert clf.l2_ == 1e-1
    assert clf.cv_results_["rank_test_score"].tolist() == [3, 1, 2]


def test_the_target_is_never_split_and_other_transfer_models_stay_fixed(data):
    clf = FLDAClassifierCV(transfer="rate", l2s=(1e-3, 1e-1)).fit(
        data.X_source, data.y_source, X_target=data.X_target
    )
    expected = make_transfer_model("rate").fit(data.X_source, data.X_target).params()
    np.testing.assert_array_equal(clf.rate_, expected["rate"])
    np.testing.assert_array_equal(clf.best_estimator_.transfer_params_["rate"], expected["rate"])


def test_sample_domain_equals_x_target(data):
    X = np.vstack([data.X_source, data.X_target])
    y = np.concatenate([data.y_source, -np.ones(len(data.y_target), int)])
    domain = np.concatenate([np.ones(len(data.y_source)), -np.ones(len(data.y_target))])
    stacked = FLDAClassifierCV(l2s=L2S).fit(X, y, sample_domain=domain)
    split = FLDAClassifierCV(l2s=L2S).fit(data.X_source, data.y_source, X_target=data.X_target)
    assert stacked.l2_ == split.l2_
    np.testing.assert_array_equal(stacked.coef_, split.coef_)


def test_warm_start_is_deprecated_and_changes_nothing(data):
    cold = FLDAClassifierCV(l2s=L2S).fit(data.X_source, data.y_source, X_target=data.X_target)
    with pytest.warns(FutureWarning, match="warm_start"):
        warm = FLDAClassifierCV(l2s=L2S, warm_start=True).fit(
            data.X_source, data.y_source, X_target=data.X_target
        )
    assert warm.l2_ == cold.l2_
    np.testing.assert_array_equal(warm.cv_results_["mean_test_score"], cold.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(warm.coef_, cold.coef_)


@pytest.mark.parametrize("loss", ["logistic", "quadratic"])
def test_parallel_search_gives_the_same_scores(data, loss):
    cv = StratifiedKFold(3, shuffle=True, random_state=2)
    fit = lambda n_jobs: FLDAClassifierCV(loss=loss, l2s=L2S, cv=cv, n_jobs=n_jobs).fit(
        data.X_source, data.y_source, X_target=data.X_target
    )
    serial, parallel = fit(None), fit(2)
    np.testing.assert_array_equal(
        serial.cv_results_["mean_test_score"], parallel.cv_results_["mean_test_score"]
    )
    assert serial.l2_ == parallel.l2_


def _scores(values):
    """A scorer whose mean validation score is ``values[k]`` for the k-th l2 of L2S."""
    return lambda est, X, y: values[L2S.index(est.l2)]


@pytest.mark.parametrize(
    "values, edge",
    [((0.1, 0.2, 0.3, 0.4), "largest"), ((0.4, 0.3, 0.2, 0.1), "smallest"), ((0.1, 0.4, 0.2, 0.1), None)],
)
def test_a_choice_at_the_edge_of_the_grid_warns(data, values, edge):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = FLDAClassifierCV(l2s=L2S, scoring=_scores(values), refit=False)
        clf.fit(data.X_source, data.y_source)
    messages = [str(w.message) for w in caught if "FLDAClassifierCV chose" in str(w.message)]
    assert clf.l2_ == L2S[int(np.argmax(values))]
    if edge is None:
        assert messages == []
    else:
        (message,) = messages
        assert f"the {edge} value of l2s" in message and "Extend l2s" in message


def test_a_flat_edge_does_not_warn(data):
    """Equal scores at the edge (ties go to the larger penalty) are no sign of a better
    penalty beyond the grid."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FLDAClassifierCV(l2s=L2S, scoring=_scores((0.1, 0.2, 0.4, 0.4)), refit=False).fit(
            data.X_source, data.y_source
        )


@pytest.mark.parametrize("loss", ["logistic", "quadratic"])
def test_the_default_grid_follows_the_scale_of_the_data(data, loss):
    """l2s="scaled": DEFAULT_L2S times the mean square feature, so rescaling X by c
    rescales the grid by c**2 and the model (w -> w / c) gives the same predictions."""
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    fits = {}
    for c in (1.0, 1e-3):
        X, Xt = data.X_source * c, data.X_target * c
        clf = FLDAClassifierCV(loss=loss, cv=cv, tol=1e-10).fit(X, data.y_source, X_target=Xt)
        scale = np.mean(X**2)
        np.testing.assert_allclose(clf.cv_results_["l2"], np.array(DEFAULT_L2S) * scale, rtol=1e-12)
        fits[c] = clf, clf.predict(Xt)
    (a, pa), (b, pb) = fits[1.0], fits[1e-3]
    np.testing.assert_allclose(b.l2_ / a.l2_, 1e-6, rtol=1e-9)
    np.testing.assert_allclose(b.cv_results_["mean_test_score"], a.cv_results_["mean_test_score"], atol=1e-12)
    np.testing.assert_array_equal(pa, pb)


def test_bad_parameters_are_clear_errors(data):
    for params, name in (
        ({"n_jobs": 1.5}, "n_jobs"),
        ({"refit": "yes"}, "refit"),
        ({"loss": "hinge"}, "loss"),
        ({"tol": 0.0}, "tol"),
        ({"l2s": "auto"}, "l2s"),
    ):
        with pytest.raises(ValueError, match=name):
            FLDAClassifierCV(**params).fit(data.X_source, data.y_source)


def test_refit_false_learns_only_the_choice(data):
    clf = FLDAClassifierCV(l2s=L2S, refit=False).fit(data.X_source, data.y_source, X_target=data.X_target)
    assert clf.l2_ in L2S and not hasattr(clf, "coef_")
    with pytest.raises(AttributeError, match="refit"):
        clf.predict(data.X_target)


def test_a_one_class_training_fold_predicts_that_class():
    X = np.arange(12, dtype=float).reshape(6, 2) + 1
    y = np.array([0, 0, 0, 0, 1, 1])
    folds = [(np.arange(4), np.arange(4, 6)), (np.arange(2, 6), np.arange(2))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = FLDAClassifierCV(loss="quadratic", l2s=(1e-2,), cv=folds).fit(X, y)
    # fold 0 trains on class 0 only and predicts it for two class-1 rows
    assert clf.cv_results_["split0_test_score"].tolist() == [0.0]


def test_scoring_and_bad_grids(data):
    errors = lambda est, X, y: -np.mean(est.predict(X) != y)
    a = FLDAClassifierCV(l2s=L2S, scoring=errors).fit(data.X_source, data.y_source)
    b = FLDAClassifierCV(l2s=L2S).fit(data.X_source, data.y_source)
    np.testing.assert_allclose(
        a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"] - 1, atol=1e-12
    )
    for bad in ((), (-1.0,), (np.nan,)):
        with pytest.raises(ValueError, match="l2s"):
            FLDAClassifierCV(l2s=bad).fit(data.X_source, data.y_source)
