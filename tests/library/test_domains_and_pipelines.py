"""skada's stacked-domain convention without skada, pipelines, CV slicing, BLAS threads.

``sample_domain`` (positive: source rows, negative: target rows with masked
labels) must give exactly the fit of ``X_target``; centred data (no zeros, so no
visible dropout) must warn; what the docstring says about scikit-learn's slicing
of ``X_target`` in cross-validation is checked against fits on the folds.
"""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from flda_core import FLDAClassifier, FLDAClassifierCV, blas_threads, make_poisson_domains
from flda_core.transfer import estimate_dropout
from flda_core.transfer_models import TRANSFER_MODELS, make_transfer_model


def _stacked(data, mask=-1, order_seed=0):
    """skada's layout: source and target rows interleaved, target labels masked."""
    X = np.vstack([data.X_source, data.X_target])
    y = np.concatenate([data.y_source, np.full(len(data.y_target), mask)])
    domain = np.concatenate([np.ones(len(data.y_source), int), -np.ones(len(data.y_target), int)])
    order = np.random.default_rng(order_seed).permutation(len(y))
    return X[order], y[order], domain[order]


@pytest.fixture(scope="module")
def data():
    return make_poisson_domains(n_source=600, n_target=500, random_state=3)


@pytest.mark.parametrize("loss", ["logistic", "quadratic"])
@pytest.mark.parametrize("transfer", ["dropout", "two-sided"])
def test_sample_domain_fit_equals_x_target_fit(data, loss, transfer):
    X, y, domain = _stacked(data)
    # source rows in the stacked order, so both fits see the same rows in the same order
    Xs, ys = X[domain > 0], y[domain > 0]
    reference = FLDAClassifier(loss=loss, transfer=transfer).fit(Xs, ys, X_target=X[domain < 0])
    stacked = FLDAClassifier(loss=loss, transfer=transfer).fit(X, y, sample_domain=domain)
    np.testing.assert_array_equal(stacked.coef_, reference.coef_)
    np.testing.assert_array_equal(stacked.intercept_, reference.intercept_)
    for name, value in reference.transfer_params_.items():
        np.testing.assert_array_equal(stacked.transfer_params_[name], value)
    assert stacked.classes_.tolist() == [0, 1]  # the mask -1 is never a class


def test_sample_domain_pools_several_domains_and_weights_source_rows(data):
    X, y, domain = _stacked(data)
    several = np.where(domain > 0, 1 + (np.arange(len(y)) % 3), -1 - (np.arange(len(y)) % 2))
    weights = 1.0 + (np.arange(len(y)) % 4)
    stacked = FLDAClassifier().fit(X, y, sample_domain=several, sample_weight=weights)
    source = several >= 0
    reference = FLDAClassifier().fit(X[source], y[source], X_target=X[~source], sample_weight=weights[source])
    np.testing.assert_array_equal(stacked.coef_, reference.coef_)
    np.testing.assert_array_equal(stacked.theta_, reference.theta_)


def test_nan_masked_target_labels_are_never_read(data):
    X, y, domain = _stacked(data)
    y = y.astype(float)
    y[domain < 0] = np.nan
    stacked = FLDAClassifier(loss="quadratic").fit(X, y, sample_domain=domain)
    np.testing.assert_array_equal(stacked.theta_, estimate_dropout(X[domain > 0], X[domain < 0]))


def test_sample_domain_without_target_rows_warns_and_is_the_source_classifier(data):
    with pytest.warns(UserWarning, match="sample_domain"):
        stacked = FLDAClassifier().fit(
            data.X_source, data.y_source, sample_domain=np.ones(len(data.y_source))
        )
    np.testing.assert_array_equal(stacked.theta_, [0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the plain fit without target data stays silent
        plain = FLDAClassifier().fit(data.X_source, data.y_source)
        # and a given theta needs no target rows
        FLDAClassifier(theta=[0.5, 0.0]).fit(
            data.X_source, data.y_source, sample_domain=np.ones(len(data.y_source))
        )
    np.testing.assert_array_equal(stacked.coef_, plain.coef_)


def test_sample_domain_errors(data):
    X, y, domain = _stacked(data)
    with pytest.raises(ValueError, match="X_target"):
        FLDAClassifier().fit(X, y, sample_domain=domain, X_target=data.X_target)
    with pytest.raises(ValueError, match="source"):
        FLDAClassifier().fit(X, y, sample_domain=-np.ones(len(y)))
    with pytest.raises(ValueError, match="sample_domain"):
        FLDAClassifier().fit(X, y, sample_domain=domain[:-1])


def test_score_with_sample_domain_leaves_out_masked_target_rows(data):
    X, y, domain = _stacked(data)
    clf = FLDAClassifier().fit(X, y, sample_domain=domain)
    source = domain > 0
    assert clf.score(X, y, sample_domain=domain) == clf.score(X[source], y[source])
    # with real target labels every row counts
    y_true = np.concatenate([data.y_source, data.y_target])[np.random.default_rng(0).permutation(len(y))]
    assert clf.score(X, y_true, sample_domain=domain) == clf.score(X, y_true)
    # the prediction methods accept sample_domain and ignore it
    np.testing.assert_array_equal(clf.predict(X, sample_domain=domain), clf.predict(X))
    np.testing.assert_array_equal(clf.predict_proba(X, sample_domain=domain), clf.predict_proba(X))


def test_centred_data_warn_that_dropout_is_invisible(data):
    # z-scoring both domains removes every zero: theta_ = 0, no adaptation
    scaler = StandardScaler().fit(np.vstack([data.X_source, data.X_target]))
    Xs, Xt = scaler.transform(data.X_source), scaler.transform(data.X_target)
    assert np.all(Xs != 0)
    with pytest.warns(UserWarning, match="MaxAbsScaler"):
        clf = FLDAClassifier(loss="quadratic").fit(Xs, data.y_source, X_target=Xt)
    np.testing.assert_array_equal(clf.theta_, [0.0, 0.0])
    # zero-preserving scaling keeps the dropout visible, and stays silent
    scaler = MaxAbsScaler().fit(np.vstack([data.X_source, data.X_target]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = FLDAClassifier(loss="quadratic").fit(
            scaler.transform(data.X_source), data.y_source, X_target=scaler.transform(data.X_target)
        )
    np.testing.assert_allclose(kept.theta_, estimate_dropout(data.X_source, data.X_target))


@pytest.mark.parametrize(
    "estimator", [FLDAClassifier(transfer="rate"), FLDAClassifierCV(transfer="rate", l2s=(1e-2,))]
)
def test_x_target_that_skips_a_pipelines_transformers_is_refused(data, estimator):
    """make_pipeline hands X_target to FLDA untransformed: refused, naming the fixes."""
    scale = np.array([10.0, 0.1])
    pipe = make_pipeline(MaxAbsScaler(), estimator)
    step = pipe.steps[-1][0]
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(
            ValueError, match=r'MaxAbsScaler.*transform_input=\["X_target"\].*make_da_pipeline'
        ):
            pipe.fit(data.X_source * scale, data.y_source, **{f"{step}__X_target": data.X_target * scale})
        with pytest.raises(ValueError, match="transform_input"):  # also inside a grid search
            GridSearchCV(pipe, {f"{step}__zero_tol": [0.0]}, cv=2).fit(
                data.X_source * scale, data.y_source, **{f"{step}__X_target": data.X_target * scale}
            )
        # no transformer before FLDA, or theta given (X_target unused): nothing to refuse
        make_pipeline("passthrough", FLDAClassifier()).fit(
            data.X_source, data.y_source, fldaclassifier__X_target=data.X_target
        )
        make_pipeline(MaxAbsScaler(), FLDAClassifier(theta=0.5)).fit(
            data.X_source, data.y_source, fldaclassifier__X_target=data.X_target
        )
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="transform_input"):
            pipe.fit(data.X_source * scale, data.y_source, X_target=data.X_target * scale)


def test_transform_input_passes_x_target_through_the_transformers(data):
    """scikit-learn's route: the target is transformed by the transformers fitted on X."""
    scale = np.array([10.0, 0.1])
    Xs, Xt = data.X_source * scale, data.X_target * scale
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(MaxAbsScaler(), FLDAClassifier(transfer="rate"), transform_input=["X_target"])
        pipe.fit(Xs, data.y_source, X_target=Xt)
    scaler = MaxAbsScaler().fit(Xs)
    expected = make_transfer_model("rate").fit(scaler.transform(Xs), scaler.transform(Xt)).params()["rate"]
    np.testing.assert_allclose(pipe[-1].rate_, expected)
    np.testing.assert_allclose(pipe[-1].rate_, make_transfer_model("rate").fit(Xs, Xt).params()["rate"])


def test_cross_validation_slices_x_target_only_at_the_length_of_x(data):
    """The slicing rule stated in FLDAClassifier's docstring, checked on the folds."""
    Xs, ys = data.X_source, data.y_source
    folds = list(KFold(3, shuffle=True, random_state=0).split(Xs))
    for Xt, cut in ((data.X_target, False), (np.vstack([data.X_target, data.X_target])[:600], True)):
        assert (len(Xt) == len(Xs)) == cut
        result = cross_validate(
            FLDAClassifier(loss="quadratic"), Xs, ys, cv=folds, params={"X_target": Xt}, return_estimator=True
        )
        for (train, _), fitted in zip(folds, result["estimator"]):
            target = Xt[train] if cut else Xt
            np.testing.assert_array_equal(fitted.theta_, estimate_dropout(Xs[train], target))


def test_tags_and_missing_values_follow_the_transfer_model():
    for name in TRANSFER_MODELS:
        allows = make_transfer_model(name).allows_nan
        assert FLDAClassifier(transfer=name).__sklearn_tags__().input_tags.allow_nan == allows


def test_blas_threads_context(data, monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from flda_core import solvers

    seen = []
    real = solvers.minimize

    def recording(*args, **kwargs):
        seen.append([i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"])
        return real(*args, **kwargs)

    monkeypatch.setattr(solvers, "minimize", recording)
    fit = lambda: FLDAClassifier().fit(data.X_source, data.y_source, X_target=data.X_target)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        outside = [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
        fit()
        with blas_threads(None):
            fit()
        with blas_threads(2):
            fit()
        fit()
    assert seen[0] == [1] * len(outside)  # the default: one thread
    assert seen[1] == outside  # None: BLAS as configured
    assert seen[2] == [min(2, n) for n in outside]
    assert seen[3] == [1] * len(outside)  # the context ended
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError):
            with blas_threads(bad):
                pass


def test_fits_in_several_threads_at_once_give_blas_back():
    """Overlapping FLDA-L fits share one process-wide BLAS limit; the last to end
    restores BLAS (each restoring on its own left the process on one thread)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import threading

    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(3000, 40)).astype(float)
    y = (X[:, :5].sum(axis=1) > 5).astype(int)
    X_target = X * (rng.random(X.shape) > 0.3)

    def blas():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]

    before = blas()
    try:
        for _ in range(5):
            start = threading.Barrier(3)

            def fit(start=start):
                start.wait()
                FLDAClassifier(l2=1e-4).fit(X, y, X_target=X_target)

            threads = [threading.Thread(target=fit) for _ in range(3)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert blas() == before
    finally:  # a failure must not leave the rest of the session on one thread
        threadpoolctl.threadpool_limits(limits=max(before), user_api="blas")
