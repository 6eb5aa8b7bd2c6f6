"""FLDA inside skada: make_da_pipeline adapts, skada's scorers and splitters select l2.

Skipped where skada is not installed (the library does not depend on it).
"""

import warnings

import numpy as np
import pytest

skada = pytest.importorskip("skada")

from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from flda_core import FLDAClassifier, FLDAClassifierCV, make_poisson_domains  # noqa: E402
from flda_core.transfer import estimate_dropout  # noqa: E402


@pytest.fixture(scope="module")
def stacked():
    data = make_poisson_domains(n_source=3000, n_target=3000, random_state=0)
    X = np.vstack([data.X_source, data.X_target])
    y = np.concatenate([data.y_source, -np.ones(len(data.y_target), int)])  # target labels masked
    domain = np.concatenate([np.ones(len(data.y_source), int), -np.ones(len(data.y_target), int)])
    return data, X, y, domain


def _error(model, data):
    return float(np.mean(model.predict(data.X_target) != data.y_target))


@pytest.mark.parametrize("loss", ["logistic", "quadratic"])
def test_make_da_pipeline_adapts(stacked, loss):
    data, X, y, domain = stacked
    pipe = skada.make_da_pipeline(FLDAClassifier(loss=loss)).fit(X, y, sample_domain=domain)
    flda = pipe[-1].base_estimator_
    np.testing.assert_allclose(flda.theta_, data.theta_true, atol=0.05)
    adapted = FLDAClassifier(loss=loss).fit(data.X_source, data.y_source, X_target=data.X_target)
    naive = FLDAClassifier(loss=loss).fit(data.X_source, data.y_source)
    np.testing.assert_array_equal(flda.coef_, adapted.coef_)
    assert _error(pipe, data) == _error(adapted, data) < _error(naive, data)


def test_transformers_see_the_target_rows(stacked):
    data, X, y, domain = stacked
    pipe = skada.make_da_pipeline(StandardScaler(with_mean=False), FLDAClassifier())
    pipe.fit(X, y, sample_domain=domain)
    scaler = pipe[0].base_estimator_
    assert scaler.n_samples_seen_ == len(X)  # source and target rows
    np.testing.assert_allclose(scaler.scale_, X.std(axis=0))
    np.testing.assert_array_equal(
        pipe[-1].base_estimator_.theta_, estimate_dropout(data.X_source, data.X_target)
    )


def test_centring_in_a_da_pipeline_warns(stacked):
    _, X, y, domain = stacked
    with pytest.warns(UserWarning, match="StandardScaler"):
        skada.make_da_pipeline(StandardScaler(), FLDAClassifier()).fit(X, y, sample_domain=domain)


def test_no_target_rows_warn(stacked):
    data, *_ = stacked
    with pytest.warns(UserWarning, match="sample_domain"):
        skada.make_da_pipeline(FLDAClassifier()).fit(
            data.X_source, data.y_source, sample_domain=np.ones(len(data.y_source), int)
        )


def test_grid_search_with_entropy_scorer_and_source_target_split(stacked):
    from skada.metrics import PredictionEntropyScorer
    from skada.model_selection import SourceTargetShuffleSplit

    data, X, y, domain = stacked
    l2s = [1e-4, 1e-2, 1.0]
    cv = SourceTargetShuffleSplit(n_splits=2, random_state=0)
    search = GridSearchCV(
        skada.make_da_pipeline(FLDAClassifier()),
        {"fldaclassifier__l2": l2s},
        scoring=PredictionEntropyScorer(),
        cv=cv,
    ).fit(X, y, sample_domain=domain)
    # independently: fit each l2 on the training rows, minus the mean entropy of
    # its predicted probabilities on the test fold's target rows
    splits = list(cv.split(X, y, domain))
    for k, l2 in enumerate(l2s):
        for s, (train, test) in enumerate(splits):
            model = FLDAClassifier(l2=l2).fit(X[train], y[train], sample_domain=domain[train])
            p = model.predict_proba(X[test][domain[test] < 0])
            expected = float(np.mean(p * np.log(p)))
            assert search.cv_results_[f"split{s}_test_score"][k] == pytest.approx(expected, rel=1e-9)
    assert (
        search.best_params_["fldaclassifier__l2"]
        == l2s[int(np.argmax(search.cv_results_["mean_test_score"]))]
    )
    assert search.best_estimator_[-1].base_estimator_.theta_[0] > 0.4  # adapted refit


def test_importance_weighted_scorer_reaches_flda(stacked):
    from skada.metrics import ImportanceWeightedScorer
    from skada.model_selection import SourceTargetShuffleSplit

    _, X, y, domain = stacked
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # skada's density estimates may warn
        search = GridSearchCV(
            skada.make_da_pipeline(FLDAClassifier()),
            {"fldaclassifier__l2": [1e-4, 1.0]},
            scoring=ImportanceWeightedScorer(),
            cv=SourceTargetShuffleSplit(n_splits=2, random_state=0),
        ).fit(X, y, sample_domain=domain)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_flda_classifier_cv_in_a_da_pipeline(stacked):
    data, X, y, domain = stacked
    pipe = skada.make_da_pipeline(FLDAClassifierCV(l2s=(1e-4, 1e-2))).fit(X, y, sample_domain=domain)
    direct = FLDAClassifierCV(l2s=(1e-4, 1e-2)).fit(data.X_source, data.y_source, X_target=data.X_target)
    assert pipe[-1].base_estimator_.l2_ == direct.l2_
    np.testing.assert_array_equal(pipe[-1].base_estimator_.coef_, direct.coef_)
