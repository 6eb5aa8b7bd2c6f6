"""skada baselines (section 4.2.1) and FLDAClassifier under scikit-learn's metadata routing."""

import os
import subprocess
import sys

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler

from flda_core import FLDAClassifier, make_bernoulli_domains
from explorer.experiments import baselines as bl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shifted_problem(labels=("no", "yes"), n=120, seed=0):
    """Two Gaussian classes; the target has a second feature that is often 0 (dropped)."""
    rng = np.random.default_rng(seed)
    y_s, y_t = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X_s = rng.normal(size=(n, 3)) + 2.5 * y_s[:, None]
    X_t = rng.normal(size=(n, 3)) + 2.5 * y_t[:, None]
    X_t[rng.random(n) < 0.5, 1] = 0.0
    labels = np.asarray(labels)
    return X_s, labels[y_s], X_t, labels[y_t]


@pytest.mark.parametrize("name", bl.BASELINES)
def test_each_baseline_predicts_the_target_in_the_source_label_values(name):
    X_s, y_s, X_t, y_t = shifted_problem()
    predicted, pipeline = bl.fit_baseline(name, X_s, y_s, X_t)
    assert predicted.shape == (len(X_t),)
    assert set(predicted) <= {"no", "yes"}
    assert np.mean(predicted != y_t) < 0.25  # well separated classes: far from chance
    chosen = pipeline[-1].base_estimator_.best_params_
    assert chosen["C"] in bl.C_GRID


@pytest.mark.parametrize("name", ["KMM", "SA"])
def test_baselines_accept_negative_and_many_class_labels(name):
    # automobile's symboling runs from -2 to 3; skada itself reserves -1 for "no label"
    rng = np.random.default_rng(1)
    y_s = rng.choice([-2, -1, 0, 3], 160)
    centres = {-2: 0.0, -1: 3.0, 0: 6.0, 3: 9.0}
    X_s = np.array([[centres[v], -centres[v]] for v in y_s]) + rng.normal(size=(160, 2))
    predicted, _ = bl.fit_baseline(name, X_s, y_s, X_s[:40] * 1.0)
    assert set(predicted) <= {-2, -1, 0, 3}
    assert np.mean(predicted != y_s[:40]) < 0.2


def test_not_available_baselines_are_refused_not_imitated():
    for name in bl.NOT_AVAILABLE:
        with pytest.raises(ValueError, match="not available"):
            bl.make_baseline(name)
    with pytest.raises(ValueError, match="Unknown baseline"):
        bl.make_baseline("XYZ")


def test_source_cv_picks_the_candidate_with_the_lowest_fold_error():
    X_s, y_s, _, _ = shifted_problem(n=200)
    model = bl.SourceCV(LogisticRegression(), {"C": [1e-6, 1.0]}).fit(X_s, y_s)
    accuracy = dict(zip(model.cv_results_["param_C"], model.cv_results_["mean_test_score"]))
    assert accuracy[1.0] > accuracy[1e-6]  # C = 1e-6 predicts one class only
    assert model.best_params_ == {"C": 1.0}
    assert model.estimator_.C == 1.0 and model.score(X_s, y_s) > 0.9


def test_a_tie_goes_to_the_earlier_candidate_and_a_one_class_fold_counts_alike():
    X_s, y_s, _, _ = shifted_problem(n=200)
    tied = bl.SourceCV(LogisticRegression(), {"C": [1e3, 1e4]}).fit(X_s, y_s)
    assert tied.cv_results_["mean_test_score"][0] == tied.cv_results_["mean_test_score"][1]
    assert tied.best_params_ == {"C": 1e3}
    X, y = np.arange(20.0)[:, None], np.r_[np.zeros(19, int), 1]  # class 1: one row
    model = bl.SourceCV(LogisticRegression(), {"C": [1e-6, 1.0]}).fit(X, y)
    scores = np.array([model.cv_results_[f"split{k}_test_score"] for k in range(3)])
    assert [row.tolist() for row in scores if not row.any()] == [[0.0, 0.0]]  # its training rows: class 0
    assert model.classes_.tolist() == [0, 1]


def test_source_cv_weights_the_fits_not_the_scores_and_scales_gamma():
    X = np.vstack([np.zeros((20, 2)), np.ones((20, 2))])
    y = np.repeat([0, 1], 20)
    model = bl.svm_cv().fit(X, y, sample_weight=np.ones(40))
    scale = 1.0 / (2 * X.var())
    assert {round(g / scale, 6) for g in model.cv_results_["param_gamma"]} == set(bl.GAMMA_FACTORS)
    # zero weight on class 1 rows: the classifier cannot learn it ...
    weights = np.r_[np.ones(20), 1e-9 * np.ones(20)]
    weighted = bl.logistic_cv().fit(X, y, sample_weight=weights)
    assert np.all(weighted.predict(X) == 0)
    # ... and every validation fold counts class 1's rows in full: about half of them wrong
    assert np.allclose(weighted.cv_results_["mean_test_score"], 0.5, atol=0.1)


FIRST_SKADA_USE = {
    "baseline": (
        "from tests.app.test_baselines import shifted_problem\n"
        "from explorer.experiments.baselines import fit_baseline\n"
        "X_s, y_s, X_t, _ = shifted_problem(n=40)\n"
        "fit_baseline('CORAL', X_s, y_s, X_t)\n"
    ),
    "fetcher": (
        "import tempfile\n"
        "from explorer.data import benchmarks as bm\n"
        "try:\n"
        "    bm._skada_fetch(bm.BENCHMARKS['amazon'], 'books', tempfile.mkdtemp(), False)\n"
        "except OSError:\n"
        "    pass\n"
    ),
}


@pytest.mark.parametrize("use", list(FIRST_SKADA_USE))
def test_first_use_of_skada_leaves_metadata_routing_as_it_was(use):
    # skada switches routing on when imported; the lazy imports must not leak it
    code = (
        "import sys, sklearn\n"
        + FIRST_SKADA_USE[use]
        + "print('skada' in sys.modules, sklearn.get_config()['enable_metadata_routing'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "True False"


# ----------------------------------------------------------------------------- routing


@pytest.mark.parametrize("routing", [False, True])
def test_flda_in_meta_estimators_with_routing_on_and_off(routing):
    data = make_bernoulli_domains(n_source=300, n_target=200, random_state=0)
    X, y, Xt = data.X_source, data.y_source, data.X_target
    expected = FLDAClassifier().fit(X, y, X_target=Xt).theta_
    assert expected[0] > 0.3  # feature 0 is dropped in the target
    with sklearn.config_context(enable_metadata_routing=routing):
        search = GridSearchCV(FLDAClassifier(), {"l2": [1e-3, 1e-1]}, cv=3)
        search.fit(X, y, X_target=Xt)
        np.testing.assert_allclose(search.best_estimator_.theta_, expected)

        def theta_0(estimator, X_test, y_test):  # "score" = the fitted theta of feature 0
            return estimator.theta_[0]

        thetas = cross_val_score(FLDAClassifier(), X, y, params={"X_target": Xt}, cv=3, scoring=theta_0)
        assert np.all(thetas > 0.3)  # X_target reached every fold's fit
        np.testing.assert_array_equal(cross_val_score(FLDAClassifier(), X, y, cv=3, scoring=theta_0), 0.0)
        # a pipeline must pass X_target through its transformers: scikit-learn's
        # transform_input (routing on); without it FLDA refuses the untransformed target
        if routing:
            pipe = make_pipeline(MaxAbsScaler(), FLDAClassifier(), transform_input=["X_target"])
            pipe.fit(X, y, X_target=Xt)
            np.testing.assert_allclose(pipe[-1].theta_, expected)
        else:
            with pytest.raises(ValueError, match="transform_input"):
                make_pipeline(MaxAbsScaler(), FLDAClassifier()).fit(X, y, fldaclassifier__X_target=Xt)


def test_flda_requests_x_target_by_default():
    with sklearn.config_context(enable_metadata_routing=True):
        request = FLDAClassifier().get_metadata_routing()
        assert request.fit.requests["X_target"] is True


def test_cv_folds_stratify_when_they_can_and_cover_every_row_once():
    y = np.repeat([0, 1], [9, 6])
    folds = list(bl.cv_folds(y, 3, 0))
    assert [np.bincount(y[test]).tolist() for _, test in folds] == [[3, 2]] * 3
    rare = np.array([0] * 10 + [1] * 10 + [2])  # a class with one row (arrhythmia's source)
    folds = list(bl.cv_folds(rare, 3, 0))
    assert sorted(np.concatenate([test for _, test in folds]).tolist()) == list(range(21))


def test_weights_of_a_skada_reweighting_adapter_reach_flda():
    """skada's pipelines pass an adapter's importance weights as sample_weight."""
    from test_sample_weight import _domains

    X, y, Xt = _domains("dropout", 2, n=120)
    with sklearn.config_context(enable_metadata_routing=True):
        import skada

        pipe = skada.make_da_pipeline(skada.DensityReweightAdapter(), FLDAClassifier(loss="quadratic"))
        X_all, y_all, domains = bl.domain_arrays(X, y, Xt)
        pipe.fit(X_all, y_all, sample_domain=domains)
        fitted = pipe[-1].base_estimator_
        weights = pipe[0].base_estimator_.compute_weights(X_all, sample_domain=domains)[domains > 0]
    assert np.ptp(weights) > 0  # really reweighted
    # FLDA also receives the target rows (it requests sample_domain): weighted source, θ̂ from Xt
    expected = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt, sample_weight=weights)
    assert fitted.theta_.max() > 0
    np.testing.assert_allclose(fitted.coef_, expected.coef_, atol=1e-10)


def test_sparse_input_and_chunked_predictions_give_the_dense_answer(monkeypatch):
    """A bag of words stays sparse until the baseline needs it dense; predicting every target
    row a chunk at a time gives the one-shot answer."""
    import scipy.sparse as sp

    X_s, y_s, X_t, _ = shifted_problem(n=150)
    X_s, X_t = np.abs(X_s), np.abs(X_t)
    dense, _ = bl.fit_baseline("SA", X_s, y_s, X_t[:100], X_predict=X_t)
    monkeypatch.setattr(bl, "PREDICT_CHUNK", 7)
    sparse, _ = bl.fit_baseline(
        "SA", sp.csr_matrix(X_s), y_s, sp.csr_matrix(X_t[:100]), X_predict=sp.csr_matrix(X_t)
    )
    assert len(sparse) == 150
    np.testing.assert_array_equal(sparse, dense)


def test_kmm_weights_are_skadas_for_the_source_rows():
    X_s, _, X_t, _ = shifted_problem(n=80)
    weights = bl.kmm_weights(X_s, X_t)
    assert weights.shape == (80,) and weights.min() >= 0
    assert weights.mean() == pytest.approx(1.0, abs=0.2)  # KMM's constraint keeps the mean near 1
