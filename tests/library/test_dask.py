"""FLDA on dask arrays equals the in-memory estimator (issue 16).

Every fit runs on a ``distributed.LocalCluster`` started once for this module
(two worker threads in-process) and compares against ``FLDAClassifier`` on
the same data held in memory: coefficients and intercepts to 1e-8 relative,
θ̂ exactly.
"""

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'dask[array]')")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")
import dask  # noqa: E402

from flda_core import FLDAClassifier  # noqa: E402
from flda_core import dask_support  # noqa: E402
from flda_core.transfer import apply_dropout, estimate_dropout  # noqa: E402

RTOL = 1e-8


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def make_data(n_classes, sparse, n=600, m=24, seed=0):
    """Real-valued counts with class-dependent rates; the target drops features
    at random rates, never shows feature 0 (θ̂ = 1), and feature 1 never
    occurs in the source (weight 0, θ̂ = 0)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n)
    rates = rng.gamma(1.0, 0.3, size=(n_classes, m))
    X = rng.poisson(rates[y]) * rng.lognormal(0.0, 0.5, size=(n, m))
    X[:, 1] = 0.0
    theta = rng.uniform(0.0, 0.8, m)
    theta[0] = 1.0
    X_target = apply_dropout(
        rng.poisson(rates[rng.integers(n_classes, size=n)]) * rng.lognormal(0.0, 0.5, size=(n, m)), theta, rng
    )
    X_target[:, 1] = rng.poisson(1.0, n)
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    if sparse:
        return sp.csr_matrix(X), labels, sp.csr_matrix(X_target)
    return X, labels, X_target


def to_dask(X, rows, cols=-1):
    if sp.issparse(X):
        return da.from_array(X, chunks=(rows, cols), asarray=False)
    return da.from_array(X, chunks=(rows, cols))


def assert_same_model(fitted, reference):
    np.testing.assert_array_equal(fitted.classes_, reference.classes_)
    np.testing.assert_array_equal(fitted.theta_, reference.theta_)
    scale = np.max(np.abs(reference.coef_))
    np.testing.assert_allclose(fitted.coef_, reference.coef_, rtol=0, atol=RTOL * scale)
    np.testing.assert_allclose(fitted.intercept_, reference.intercept_, rtol=RTOL, atol=RTOL * scale)
    assert fitted.solver_ == reference.solver_
    assert fitted.n_features_in_ == reference.n_features_in_


# FLDA-Q on every combination; FLDA-L (one distributed round trip per L-BFGS
# evaluation) on each chunking twice.
CASES = [
    ("quadratic", n_classes, sparse, chunks)
    for n_classes in (2, 4)
    for sparse in (False, True)
    for chunks in ((97, -1), (250, 10))
] + [
    ("logistic", 2, False, (97, -1)),
    ("logistic", 2, True, (250, 10)),
    ("logistic", 4, False, (250, 10)),
    ("logistic", 4, True, (97, -1)),
]
#: FLDA-L: L-BFGS amplifies the rounding differences of block sums along its
#: path, so the two fits agree to the accuracy with which the optimum is
#: determined; a tight tolerance and a well-conditioned ridge make that < 1e-8.
LOGISTIC = dict(l2=1e-2, tol=1e-10, max_iter=2000)


@pytest.mark.parametrize("loss, n_classes, sparse, chunks", CASES)
def test_fit_on_dask_equals_in_memory_fit(client, loss, n_classes, sparse, chunks):
    X, y, X_target = make_data(n_classes, sparse)
    params = dict(loss=loss, **LOGISTIC)
    reference = FLDAClassifier(**params).fit(X, y, X_target=X_target)
    fitted = FLDAClassifier(**params).fit(to_dask(X, *chunks), y, X_target=to_dask(X_target, 130))
    assert reference.theta_[0] == 1.0 and reference.coef_[:, :2].max() == 0.0
    assert_same_model(fitted, reference)
    assert np.all(fitted.coef_[:, :2] == 0.0)  # θ = 1 and never-in-source features


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_quadratic_conjugate_gradients_on_dask(client, n_classes, sparse):
    X, y, X_target = make_data(n_classes, sparse, seed=1)
    params = dict(loss="quadratic", solver="cg", tol=1e-12, max_iter=500)
    reference = FLDAClassifier(**params).fit(X, y, X_target=X_target)
    fitted = FLDAClassifier(**params).fit(to_dask(X, 111), y, X_target=to_dask(X_target, 200))
    assert fitted.n_iter_ == reference.n_iter_ > 1
    assert_same_model(fitted, reference)


def test_auto_picks_conjugate_gradients_beyond_gram_size(client, monkeypatch):
    X, y, X_target = make_data(2, True, seed=2)
    monkeypatch.setattr("flda_core.solvers.MAX_PRIMAL_FEATURES", 10)
    reference = FLDAClassifier(loss="quadratic", tol=1e-12).fit(X, y, X_target=X_target)
    fitted = FLDAClassifier(loss="quadratic", tol=1e-12).fit(
        to_dask(X, 150), y, X_target=to_dask(X_target, 150)
    )
    assert reference.solver_ == "cg"
    assert_same_model(fitted, reference)


def test_woodbury_gathers_few_rows_and_refuses_many(client):
    X, y, X_target = make_data(3, False, n=200, seed=3)
    params = dict(loss="quadratic", solver="woodbury", l2=1e-2)
    reference = FLDAClassifier(**params).fit(X, y, X_target=X_target)
    assert_same_model(FLDAClassifier(**params).fit(to_dask(X, 64), y, X_target=X_target), reference)
    X_sparse = sp.csr_matrix(X)
    assert_same_model(FLDAClassifier(**params).fit(to_dask(X_sparse, 64), y, X_target=X_target), reference)
    big = da.zeros((3000, 4), chunks=(1000, 4))
    with pytest.raises(ValueError, match="n x n"):
        FLDAClassifier(**params).fit(big, np.arange(3000) % 2)


def test_dask_labels_theta_parameter_and_in_memory_source(client):
    X, y, X_target = make_data(2, False, seed=4)
    theta = np.linspace(0.0, 0.6, X.shape[1])
    theta[0] = 1.0
    params = dict(loss="logistic", theta=theta, **LOGISTIC)
    reference = FLDAClassifier(**params).fit(X, y)
    fitted = FLDAClassifier(**params).fit(to_dask(X, 77), da.from_array(y, chunks=50))
    assert_same_model(fitted, reference)
    # Only the target on dask: θ̂ from block counts, the rest in memory.
    reference = FLDAClassifier(loss="quadratic").fit(X, y, X_target=X_target)
    assert_same_model(FLDAClassifier(loss="quadratic").fit(X, y, X_target=to_dask(X_target, 64)), reference)


def test_estimate_dropout_on_dask_is_exact(client):
    X, _, X_target = make_data(2, True, seed=5)
    expected = estimate_dropout(X, X_target, zero_tol=0.5)
    got = dask_support.estimate_dropout(to_dask(X, 123), to_dask(X_target, 99), zero_tol=0.5)
    np.testing.assert_array_equal(got, expected)
    n, counts = dask_support.nonzero_counts(to_dask(X, 50))
    assert n == X.shape[0]
    np.testing.assert_array_equal(counts, np.diff(X.tocsc().indptr))


def test_any_active_scheduler(client):
    X, y, X_target = make_data(2, False, seed=6)
    reference = FLDAClassifier(loss="logistic", **LOGISTIC).fit(X, y, X_target=X_target)
    with dask.config.set(scheduler="sync"):
        fitted = FLDAClassifier(loss="logistic", **LOGISTIC).fit(
            to_dask(X, 100), y, X_target=to_dask(X_target, 100)
        )
    assert_same_model(fitted, reference)


def test_invalid_dask_inputs(client):
    X, y, _ = make_data(2, False, seed=7)
    with pytest.raises(ValueError, match="at least 2 classes"):
        FLDAClassifier().fit(to_dask(X, 100), np.zeros(len(y)))
    with pytest.raises(ValueError, match="rows but y has"):
        FLDAClassifier().fit(to_dask(X, 100), y[:-1])
    unknown = to_dask(X, 100)
    unknown = unknown[unknown[:, 2] > 0]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        FLDAClassifier().fit(unknown, y[:10])
    with pytest.raises(ValueError, match="share one feature space"):
        FLDAClassifier().fit(to_dask(X, 100), y, X_target=to_dask(X[:, :-1], 100))


def _never_computed():
    raise AssertionError("a prediction computed its input eagerly")


@pytest.mark.parametrize("loss, n_classes", [("logistic", 2), ("logistic", 3), ("quadratic", 4)])
def test_predictions_on_dask_are_lazy_and_equal(client, loss, n_classes):
    X, y, X_target = make_data(n_classes, True, seed=8)
    clf = FLDAClassifier(loss=loss).fit(X, y, X_target=X_target)
    poisoned = da.from_delayed(dask.delayed(_never_computed)(), shape=X.shape, dtype=np.float64)
    methods = ["predict", "decision_function"] + (["predict_proba"] if loss == "logistic" else [])
    X_dask = to_dask(X, 150, 8)
    for method in methods:
        lazy = getattr(clf, method)(poisoned)  # builds a graph, computes nothing
        assert isinstance(lazy, da.Array)
        result = getattr(clf, method)(X_dask)
        assert isinstance(result, da.Array)
        expected = getattr(clf, method)(X)
        assert result.shape == expected.shape
        computed = result.compute()
        if method == "predict":
            np.testing.assert_array_equal(computed, expected)
        else:
            np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="expecting"):
        clf.predict(to_dask(X[:, :-1], 100))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_partial_fit_over_batches_equals_fit(n_classes, sparse):
    X, y, X_target = make_data(n_classes, sparse, seed=9)
    reference = FLDAClassifier(loss="quadratic", l2=1e-3).fit(X, y, X_target=X_target)
    clf = FLDAClassifier(loss="quadratic", l2=1e-3)
    classes = np.unique(y)
    source_cuts, target_cuts = [0, 50, 51, 300, 600], [0, 400, 600]
    for k in range(len(source_cuts) - 1):
        rows = slice(source_cuts[k], source_cuts[k + 1])
        target = None
        if k < len(target_cuts) - 1:
            target = X_target[target_cuts[k] : target_cuts[k + 1]]
        clf.partial_fit(X[rows], y[rows], classes=classes if k == 0 else None, X_target=target)
    assert_same_model(clf, reference)
    # A further target-only batch changes θ̂ exactly as refitting would.
    extra = X_target[:100]
    clf.partial_fit(None, None, X_target=extra)
    stacked = sp.vstack([X_target, extra]) if sparse else np.vstack([X_target, extra])
    assert_same_model(clf, FLDAClassifier(loss="quadratic", l2=1e-3).fit(X, y, X_target=stacked))


def test_partial_fit_loop_over_files_and_dask_batches(client, tmp_path):
    X, y, X_target = make_data(3, True, seed=10)
    for k, lo in enumerate(range(0, 600, 200)):
        sp.save_npz(tmp_path / f"source_{k}.npz", X[lo : lo + 200])
        np.save(tmp_path / f"labels_{k}.npy", y[lo : lo + 200])
    clf = FLDAClassifier(loss="quadratic")
    for k in range(3):
        clf.partial_fit(
            sp.load_npz(tmp_path / f"source_{k}.npz"),
            np.load(tmp_path / f"labels_{k}.npy"),
            classes=np.unique(y),
            X_target=X_target if k == 2 else None,
        )
    reference = FLDAClassifier(loss="quadratic").fit(X, y, X_target=X_target)
    assert_same_model(clf, reference)
    # The same stream as dask batches, fed as dask_ml.wrappers.Incremental does:
    # fixed keyword arguments, so the whole target comes with every block.
    X_dask, X_target_dask = to_dask(X, 100), to_dask(X_target, 150)
    streamed = FLDAClassifier(loss="quadratic")
    for k in range(X_dask.numblocks[0]):
        streamed.partial_fit(
            X_dask.blocks[k], y[100 * k : 100 * (k + 1)], classes=np.unique(y), X_target=X_target_dask
        )
    assert_same_model(streamed, reference)


def test_partial_fit_contract():
    X, y, _ = make_data(2, False, n=100, seed=11)
    assert not hasattr(FLDAClassifier(loss="logistic"), "partial_fit")
    with pytest.raises(ValueError, match="classes must be passed"):
        FLDAClassifier(loss="quadratic").partial_fit(X, y)
    clf = FLDAClassifier(loss="quadratic").partial_fit(X[:50], y[:50], classes=["ant", "bee"])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X[:5], np.array(["ant", "cat", "ant", "ant", "bee"]))
    with pytest.raises(ValueError, match="differs from the classes"):
        clf.partial_fit(X[:5], y[:5], classes=["ant", "cat"])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:5, :-1], y[:5])
    # fit() discards the stream; partial_fit then starts again with fit's classes.
    clf.fit(X, y)
    clf.partial_fit(X[:60], y[:60])
    assert_same_model(clf, FLDAClassifier(loss="quadratic").fit(X[:60], y[:60]))


@pytest.mark.parametrize("transfer", ["imputation", "two-sided", "rate"])
def test_other_transfer_models_are_refused_on_dask_and_in_partial_fit(client, transfer):
    """Dask fits and partial_fit implement the dropout model only: any other
    transfer model gets a clear error instead of a silently dropout-only fit."""
    X, y, X_t = make_data(2, sparse=False)
    clf = FLDAClassifier(loss="quadratic", transfer=transfer)
    with pytest.raises(ValueError, match="dropout transfer model only"):
        clf.fit(to_dask(X, 200), y, X_target=to_dask(X_t, 200))
    assert not hasattr(clf, "partial_fit")  # streaming FLDA-Q is dropout-only
    with pytest.raises(ValueError, match="dropout transfer model only"):
        dask_support.partial_fit_quadratic(clf, X, y, np.unique(y), X_t)
