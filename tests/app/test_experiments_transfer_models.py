"""Comparison tables of transfer models (issue 15): protocol and numbers as stated
(``benchmarks/bench_transfer_models.py`` prints them; its docstring keeps the latest)."""

import sys
from pathlib import Path

import numpy as np
import pytest

from flda_core.classifier import FLDAClassifier
from flda_core.synthetic import make_appearance_domains
from explorer.experiments.transfer_models import transfer_parameter_table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_transfer_models import compare_missing_data, compare_transfer_models, missing_data_split


def _table_with_gaps(n=160, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(loc=3.0 + y[:, None] * np.array([1.0, 0.5, 0.0]), size=(n, 3))
    gaps = rng.random(X.shape) < np.array([0.3, 0.1, 0.0])
    gaps[: n // 4] = False  # a quarter of the rows certainly complete
    X[gaps] = np.nan
    return X, y


def test_missing_data_split_puts_complete_rows_in_the_source_and_scales_on_them():
    X, y = _table_with_gaps()
    Xs, ys, Xt, yt = missing_data_split(X, y)
    assert not np.isnan(Xs).any() and np.isnan(Xt).any(axis=1).all()
    assert len(ys) + len(yt) == len(y)
    np.testing.assert_allclose(Xs.min(axis=0), 0.0)
    np.testing.assert_allclose(Xs.max(axis=0), 1.0)
    with pytest.raises(ValueError, match="some rows with gaps"):
        missing_data_split(np.ones((5, 2)), np.arange(5) % 2)


def test_compare_missing_data_reports_every_method_with_the_stated_protocol():
    X, y = _table_with_gaps()
    table = compare_missing_data(X, y, losses=("logistic",), n_folds=3, grid=(1e-3, 1e-1))
    assert table["method"].tolist() == [
        "S-LR zeros",
        "S-LR mean",
        "FLDA-L dropout (zeros)",
        "FLDA-L two-sided (zeros)",
        "FLDA-L imputation (NaN gaps)",
        "T-LR mean (3-fold CV)",
    ]
    assert table["target_error"].between(0, 1).all()
    # The mean-imputation row is the source classifier scored on mean-filled targets.
    Xs, ys, Xt, yt = missing_data_split(X, y)
    l2 = table.loc[1, "l2"]
    plain = FLDAClassifier(l2=l2, tol=1e-4, max_iter=500).fit(Xs, ys)
    means = np.where(np.isnan(Xt), Xs.mean(axis=0), Xt)
    assert table.loc[1, "target_error"] == pytest.approx(np.mean(plain.predict(means) != yt))
    # FLDA with imputation predicts on the NaN rows as if filled with the source mean.
    l2 = table.loc[4, "l2"]
    flda = FLDAClassifier(l2=l2, tol=1e-4, max_iter=500, transfer="imputation").fit(Xs, ys, X_target=Xt)
    assert table.loc[4, "target_error"] == pytest.approx(np.mean(flda.predict(Xt) != yt))


def test_compare_transfer_models_with_fixed_l2_matches_direct_fits():
    data = make_appearance_domains(n_source=1000, n_target=1000, random_state=1)
    table = compare_transfer_models(
        data.X_source,
        data.y_source,
        data.X_target,
        data.y_target,
        ("dropout", "two-sided"),
        ("logistic", "quadratic"),
        l2=0.0,
        setting="preset",
    )
    assert set(table["setting"]) == {"preset"}
    assert table["method"].tolist() == [
        "S-LR",
        "FLDA-L dropout",
        "FLDA-L two-sided",
        "T-LR",
        "S-LS",
        "FLDA-Q dropout",
        "FLDA-Q two-sided",
        "T-LS",
    ]
    direct = FLDAClassifier(loss="quadratic", transfer="two-sided").fit(
        data.X_source, data.y_source, X_target=data.X_target
    )
    error = np.mean(direct.predict(data.X_target) != data.y_target)
    assert table.set_index("method").loc["FLDA-Q two-sided", "target_error"] == pytest.approx(error)


def test_transfer_parameter_table_has_a_row_per_feature_and_parameter():
    from flda_core.transfer_models import DropoutTransfer

    rng = np.random.default_rng(0)
    X = rng.poisson(3.0, size=(200, 5)).astype(float)
    y = np.arange(200) % 2
    Xt = DropoutTransfer(theta=[0.5, 0, 0, 0, 0]).sample(X, 0)
    clf = FLDAClassifier(loss="quadratic").fit(X, y, X_target=Xt)
    table = transfer_parameter_table(clf, feature_names=list("abcde"))
    assert list(table.columns) == ["transfer", "feature", "parameter", "value"]
    assert len(table) == 5 and table.loc[0, "value"] == pytest.approx(clf.theta_[0])
    assert list(table.feature) == list("abcde")
    with pytest.raises(ValueError, match="3 feature names for 5 features"):
        transfer_parameter_table(clf, feature_names=list("abc"))
