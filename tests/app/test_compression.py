"""fit_linear on the distinct rows of lattice data, weighted by their counts.

The synthetic domains of section 4.1 (Figures 1-4, Table 1) have a handful to
a few hundred distinct rows among 100,000; the compressed fit must give the
classifier of the full fit (to the solver tolerance) and the very same errors.
"""

import numpy as np
import pytest

from flda_core.classifier import FLDAClassifier
from flda_core.synthetic import DomainPair, make_appearance_domains, make_domains, make_rate_domains
from explorer.experiments.perturbation import perturbation_sweep
from explorer.experiments.synthetic import (
    MAX_DISTINCT_SHARE,
    PAPER_FIGURE1,
    PAPER_FIGURE2,
    distinct_rows,
    fit_linear,
)
from explorer.names import FAMILIES, LOSSES


class _Recorder(FLDAClassifier):
    """An FLDAClassifier that remembers how many rows (and which weights) each fit saw."""

    seen = None

    def fit(self, X, y, X_target=None, sample_weight=None):
        type(self).seen = (len(y), sample_weight, None if X_target is None else len(X_target))
        return super().fit(X, y, X_target=X_target, sample_weight=sample_weight)


def _pair(setting, n=None, seed=0):
    n = setting.n_source if n is None else n
    return make_domains(setting.distribution, setting.params, n, n, setting.theta, random_state=seed)


def _assert_same(compressed, full):
    np.testing.assert_allclose(compressed.coef, full.coef, rtol=0, atol=1e-7)
    assert compressed.intercept == pytest.approx(full.intercept, abs=1e-7)
    assert compressed.target_error == full.target_error
    assert compressed.source_error == full.source_error
    np.testing.assert_allclose(compressed.theta, full.theta, rtol=0, atol=1e-12)
    if full.transfer_params is not None:
        for key, value in full.transfer_params.items():
            np.testing.assert_allclose(compressed.transfer_params[key], value, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ distinct_rows


@pytest.mark.parametrize("setting", [PAPER_FIGURE1, PAPER_FIGURE2])
def test_distinct_rows_are_numpys_unique_rows_with_counts(setting):
    pair = _pair(setting, n=20_000)
    for X, y in ((pair.X_source, pair.y_source), (pair.X_target, pair.y_target)):
        Xd, yd, counts = distinct_rows(X, y)
        stacked = np.column_stack([Xd, yd])
        order = np.lexsort(stacked.T[::-1])
        rows, expected = np.unique(np.column_stack([X, y]), axis=0, return_counts=True)
        np.testing.assert_array_equal(stacked[order], rows)
        np.testing.assert_array_equal(counts[order], expected)
        assert counts.sum() == len(y)


def test_distinct_rows_of_awkward_values():
    """Negative integers, a huge integer range, fractions, NaN and string labels."""
    X = np.array(
        [
            [-3.0, 1e12, 0.5, np.nan],
            [-3.0, 1e12, 0.5, np.nan],
            [2.0, 0.0, 0.5, 1.0],
            [-3.0, 0.0, 0.25, np.nan],
            [2.0, 0.0, 0.5, 1.0],
            [2.0, 0.0, 0.5, 1.0],
        ]
    )
    y = np.array(["a", "a", "b", "a", "b", "a"])
    Xd, yd, counts = distinct_rows(X, y)
    found = {(tuple(np.nan_to_num(row, nan=-99.0)), label): int(c) for row, label, c in zip(Xd, yd, counts)}
    assert found == {
        ((-3.0, 1e12, 0.5, -99.0), "a"): 2,
        ((2.0, 0.0, 0.5, 1.0), "b"): 2,
        ((-3.0, 0.0, 0.25, -99.0), "a"): 1,
        ((2.0, 0.0, 0.5, 1.0), "a"): 1,
    }


def test_distinct_rows_give_up_on_continuous_data():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(5_000, 2)), np.arange(5_000) % 2
    assert distinct_rows(X, y, MAX_DISTINCT_SHARE["logistic"]) is None
    Xd, yd, counts = distinct_rows(X, y)  # max_share=1: every row its own group
    assert len(counts) == 5_000 and np.all(counts == 1)


# --------------------------------------------------------------------- fit_linear


@pytest.mark.parametrize("setting", [PAPER_FIGURE1, PAPER_FIGURE2])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("loss", LOSSES)
def test_compressed_fit_is_the_full_fit_on_the_paper_settings(setting, family, loss):
    pair = _pair(setting)  # 100,000 samples per domain
    full = fit_linear(pair, family, loss, compress=False)
    compressed = fit_linear(pair, family, loss, estimator=_Recorder())
    n_rows, weights, n_target = _Recorder.seen
    assert weights is not None and n_rows < 400 and weights.sum() == setting.n_source
    assert n_target == (setting.n_target if family == "flda" else None)  # the full target
    _assert_same(compressed, full)


@pytest.mark.parametrize("loss", LOSSES)
def test_compressed_fit_with_a_fixed_theta(loss):
    pair = _pair(PAPER_FIGURE2, n=30_000, seed=1)
    for theta in ([0.3, 0.1], [0.9, 0.0]):
        _assert_same(
            fit_linear(pair, "flda", loss, theta=theta),
            fit_linear(pair, "flda", loss, theta=theta, compress=False),
        )


def test_compressed_perturbation_sweep_is_the_full_sweep():
    pair = _pair(PAPER_FIGURE2, n=30_000, seed=2)

    def full(family, loss, l2, theta=None, perturbation=None):
        return fit_linear(pair, family, loss, l2=l2, theta=theta, perturbation=perturbation, compress=False)

    deltas = [-0.2, 0.0, 0.1, 0.3]
    for compressed, reference in zip(
        perturbation_sweep(pair, deltas),  # warm, compressed
        perturbation_sweep(pair, deltas, fit=full),
    ):
        assert compressed.perturbation == reference.perturbation
        # warm-started L-BFGS stops within its tolerance of the cold fit's optimum
        np.testing.assert_allclose(compressed.coef, reference.coef, atol=1e-5)
        assert compressed.target_error == reference.target_error
        assert compressed.source_error == reference.source_error


@pytest.mark.parametrize(
    "transfer, make",
    [
        ("dropout", lambda: _pair(PAPER_FIGURE1, n=20_000, seed=3)),
        ("imputation", lambda: _pair(PAPER_FIGURE2, n=20_000, seed=4)),
        ("two-sided", lambda: make_appearance_domains(20_000, 20_000, random_state=5)),
        ("rate", lambda: make_rate_domains(20_000, 20_000, random_state=6)),
    ],
)
@pytest.mark.parametrize("loss", LOSSES)
def test_compressed_fit_with_every_transfer_model(transfer, make, loss):
    pair = make()
    compressed = fit_linear(pair, "flda", loss, transfer=transfer, estimator=_Recorder())
    assert _Recorder.seen[1] is not None and _Recorder.seen[2] == len(pair.y_target)
    _assert_same(compressed, fit_linear(pair, "flda", loss, transfer=transfer, compress=False))


def test_warm_started_estimator_keeps_working_compressed():
    pair = _pair(PAPER_FIGURE2, n=20_000, seed=7)
    warm = FLDAClassifier(warm_start=True)
    for theta in ([0.5, 0.0], [0.6, 0.0], [0.4, 0.1]):
        compressed = fit_linear(pair, "flda", "logistic", theta=theta, estimator=warm)
        full = fit_linear(pair, "flda", "logistic", theta=theta, compress=False)
        np.testing.assert_allclose(compressed.coef, full.coef, atol=1e-5)
        assert compressed.target_error == full.target_error


def _continuous_pair(n, seed=8):
    rng = np.random.default_rng(seed)
    y_s, y_t = np.arange(n) % 2, np.arange(n) % 2
    X_s = rng.normal(size=(n, 2)) + y_s[:, None]
    X_t = (rng.normal(size=(n, 2)) + y_t[:, None]) * (rng.random((n, 2)) > [0.5, 0.0])
    return DomainPair(
        X_s, y_s, X_t, y_t, np.array([0.5, 0.0]), "continuous", np.array([[0.0, 0.0], [1.0, 1.0]])
    )


@pytest.mark.parametrize("loss", LOSSES)
def test_data_that_are_not_a_lattice_are_fitted_whole(loss):
    """50 Bernoulli features (almost every row distinct) and continuous features:
    the automatic rule does not compress, and forced compression still agrees."""
    rng = np.random.default_rng(9)
    params = rng.uniform(0.2, 0.8, size=(2, 50))
    bernoulli = make_domains("bernoulli", params, 3_000, 3_000, np.full(50, 0.2), random_state=9)
    for pair in (bernoulli, _continuous_pair(3_000)):
        automatic = fit_linear(pair, "flda", loss, l2=1e-3, estimator=_Recorder())
        assert _Recorder.seen[1] is None and _Recorder.seen[0] == len(pair.y_source)
        full = fit_linear(pair, "flda", loss, l2=1e-3, compress=False)
        np.testing.assert_array_equal(automatic.coef, full.coef)
        _assert_same(fit_linear(pair, "flda", loss, l2=1e-3, compress=True), full)
