"""Missing data at test time: Table 3's protocol (section 4.2.2), through the cells of
the one framework (explorer.experiments.paper_tables) and from the data alone."""

import numpy as np
import pandas as pd
import pytest

from flda_core import FLDAClassifier
from explorer.data import benchmarks as bm
from explorer.data import uci
from explorer.experiments import missing_data as md
from explorer.experiments import paper_tables as pt
from flda_core.transfer import estimate_dropout


def cell(key, name, impute="zero", seed=0, transfer="dropout"):
    return pt.fit_cell(bm.TABLE3, key, name, seed, impute, transfer)


def test_the_typed_table3_and_its_columns():
    paper = bm.paper_rows(bm.TABLE3)
    assert paper.loc["Heart disease (heart)", "S-LR"] == 0.338
    assert paper.loc["Heart disease (heart)", "FLDA-Q"] == 0.203
    assert paper.loc["Hepatitis (hepat.)", "FLDA-L"] == 0.200
    assert paper.loc["Arrhythmia (arrhy.)", "SA"] == 0.414
    assert list(paper.columns) == list(bm.COLUMNS) and paper.notna().all().all()
    assert pt.classifiers(bm.TABLE3) == (
        "S-LR",
        "FLDA-Q",
        "FLDA-L",
        "T-LR",
        "S-SVM",
        "KMM",
        "SA",
        "TCA",
        "CORAL",
        "OT",
    )
    assert pt.classifiers(bm.TABLE3, baselines=False) == ("S-LR", "FLDA-Q", "FLDA-L", "T-LR", "S-SVM")
    assert "SCL" not in md.AVAILABLE and "CORAL" in md.AVAILABLE
    with pytest.raises(ValueError, match="Unknown classifier"):
        cell("hepatitis", "GFK")


def test_flda_cell_matches_a_direct_fit_with_the_chosen_l2():
    result = cell("heart", "FLDA-Q")
    problem = uci.problem("heart")
    l2 = float(result.params.split("=")[1])
    assert l2 in md.FLDA_L2_GRID
    theta = estimate_dropout(problem.X_source, problem.X_target)
    model = FLDAClassifier(loss="quadratic", l2=l2, theta=theta).fit(problem.X_source, problem.y_source)
    wrong = int(np.sum(model.predict(problem.X_target) != problem.y_target))
    assert result.n_wrong == wrong and result.n_target == 621
    assert result.error == pytest.approx(wrong / 621)


def test_flda_beats_the_source_classifier_on_heart():
    # the paper's central claim of Table 3 (0.338 -> 0.203 there)
    s_lr = cell("heart", "S-LR")
    for name in ("FLDA-Q", "FLDA-L"):
        assert cell("heart", name).error < s_lr.error - 0.1


def test_oracle_and_baseline_cells_on_hepatitis():
    for name in ("T-LR", "S-SVM", "KMM"):
        result = cell("hepatitis", name)
        assert 0 <= result.error <= 1 and result.n_target == 75
        assert result.n_wrong == round(result.error * 75)
        assert result.params
    assert "on the target" in cell("hepatitis", "T-LR").params


def test_the_oracle_predicts_every_row_from_folds_that_did_not_see_it():
    problem = uci.problem("hepatitis")
    X, y = problem.X_target, problem.y_target
    search = md._l2_cv("logistic", y, 0)
    predicted, l2 = md.oracle_predictions(search, X, y)
    assert l2 in md.FLDA_L2_GRID
    for train, test in search.cv:
        model = FLDAClassifier(l2=l2, tol=md.TOL, max_iter=md.MAX_ITER).fit(X[train], y[train])
        np.testing.assert_array_equal(predicted[test], model.predict(X[test]))


def test_theta_table_marks_the_features_that_go_missing():
    table = md.theta_table("ozone")
    problem = uci.make_missing_problem("ozone")
    assert list(table["feature"]) == list(problem.feature_names)
    assert table["theta"].between(0, 1).all()
    gapped = table["missing in target"] > 0.3
    assert gapped.sum() >= 10
    # wind speeds missing in ~43 % of the target rows: theta-hat recovers that rate
    np.testing.assert_allclose(table.loc[gapped, "theta"], table.loc[gapped, "missing in target"], atol=0.03)


@pytest.mark.parametrize("transfer", ["dropout", "imputation", "two-sided", "rate"])
def test_data_parameters_are_what_the_fits_use(monkeypatch, transfer):
    """θ̂ (or another model's parameters) from the data alone equal the ones FLDA-L's
    fit on heart is given; where the model does not apply the cell says why."""
    used = []
    original = md._l2_cv

    def recording(loss, y, random_state, theta=None, transfer="dropout", params=None):
        used.append((theta, params))
        return original(loss, y, random_state, theta, transfer, params)

    monkeypatch.setattr(md, "_l2_cv", recording)
    md._data_parameters.cache_clear()
    thetas, params = md.data_parameters("heart", "zero", transfer)
    result = cell("heart", "FLDA-L", transfer=transfer)
    pd.testing.assert_frame_equal(thetas, md.theta_table("heart"))
    if transfer == "dropout":
        assert params is None
        np.testing.assert_array_equal(used[0][0], thetas["theta"].to_numpy())
    elif params is not None:
        assert params.equals(md.transfer_table("heart", transfer)) and used[0][1] is not None
    else:  # rate needs non-negative features: no parameters, an empty cell that says why
        assert transfer == "rate" and np.isnan(result.error) and "not applicable" in result.note


def test_data_parameters_fit_no_classifier_and_return_fresh_copies(monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("a classifier was fitted")

    monkeypatch.setattr(md, "fit_arrays", no_fit)
    monkeypatch.setattr(FLDAClassifier, "fit", no_fit)
    md._data_parameters.cache_clear()
    thetas, _ = md.data_parameters("arrhythmia", "mean", "two-sided")
    assert len(thetas) == len(uci.problem("arrhythmia", "mean").feature_names)
    thetas.loc[0, "theta"] = -1.0
    assert md.data_parameters("arrhythmia", "mean", "two-sided")[0].loc[0, "theta"] >= 0


def test_imputation_sees_gaps_and_only_flda_cells_change():
    assert np.isnan(uci.problem("heart", "zero", True).X_target).any()
    assert not np.isnan(uci.problem("heart", "zero").X_target).any()
    names = ("S-LR", "FLDA-L")
    base = pt.run_pair(bm.TABLE3, "hepatitis", names, fit=pt.fit_cell)
    imputed = pt.run_pair(bm.TABLE3, "hepatitis", names, fit=pt.fit_cell, transfer="imputation")
    assert imputed.errors["S-LR"] == base.errors["S-LR"]
    table = md.transfer_table("hepatitis", "imputation")
    assert {"estimated theta", "estimated mu", "missing in target"} <= set(table.columns)
    # θ̂ of the imputation model is the rate of gaps (source rows have none)
    np.testing.assert_allclose(table["estimated theta"], table["missing in target"], atol=1e-12)
    long = pt.TableResult(bm.TABLE3, {"hepatitis": imputed}).long_table()
    assert long["transfer model"].eq("imputation").all() and long["gaps filled with"].eq("zero").all()
    assert md.transfer_table("heart", "rate") is None  # heart has negative (scaled) values
