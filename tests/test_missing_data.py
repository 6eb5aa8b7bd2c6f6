"""Missing data at test time: the experiment behind Table 3 (section 4.2.2)."""

import numpy as np
import pandas as pd
import pytest

from flda_core import FLDAClassifier
from flda_core.datasets import uci
from flda_core.experiments import missing_data as md
from flda_core.transfer import estimate_dropout


def test_paper_table_is_the_typed_table3():
    paper = md.paper_table()
    assert list(paper.columns) == list(md.CLASSIFIERS)
    assert paper.loc["Heart disease (heart)", "S-LR"] == 0.338
    assert paper.loc["Heart disease (heart)", "FLDA-Q"] == 0.203
    assert paper.loc["Hepatitis (hepat.)", "FLDA-L"] == 0.200
    assert paper.loc["Arrhythmia (arrhy.)", "SA"] == 0.414
    assert paper[["CORAL", "OT"]].isna().all().all()  # not in the paper
    assert paper.drop(columns=["CORAL", "OT"]).notna().all().all()


def test_unavailable_classifiers_give_an_empty_cell_with_a_note():
    cell = md.fit_one("hepatitis", "GFK")
    assert np.isnan(cell.error) and "skada" in cell.note
    with pytest.raises(ValueError, match="Unknown classifier"):
        md.fit_one("hepatitis", "LDA")


def test_flda_cell_matches_a_direct_fit_with_the_chosen_l2():
    cell = md.fit_one("heart", "FLDA-Q")
    problem = md.problem("heart")
    l2 = float(cell.params.split("=")[1])
    assert l2 in md.FLDA_L2_GRID
    theta = estimate_dropout(problem.X_source, problem.X_target)
    model = FLDAClassifier(loss="quadratic", l2=l2, theta=theta).fit(
        problem.X_source, problem.y_source)
    wrong = int(np.sum(model.predict(problem.X_target) != problem.y_target))
    assert cell.n_wrong == wrong and cell.n_target == 621
    assert cell.error == pytest.approx(wrong / 621)


def test_flda_beats_the_source_classifier_on_heart():
    # the paper's central claim of Table 3 (0.338 -> 0.203 there)
    s_lr = md.fit_one("heart", "S-LR")
    for name in ("FLDA-Q", "FLDA-L"):
        assert md.fit_one("heart", name).error < s_lr.error - 0.1


def test_oracle_and_baseline_cells_on_hepatitis():
    for name in ("T-LR", "S-SVM", "KMM"):
        cell = md.fit_one("hepatitis", name)
        assert 0 <= cell.error <= 1 and cell.n_target == 75
        assert cell.n_wrong == round(cell.error * 75)
        assert cell.params
    assert "on the target" in md.fit_one("hepatitis", "T-LR").params


def test_run_calls_fit_once_per_cell_and_reports_progress():
    calls, reports = [], []

    def fake_fit(key, classifier, impute, seed):
        calls.append((key, classifier, impute, seed))
        error = 0.5 if classifier == "S-LR" else 0.25
        return md.CellResult(key, classifier, error, 1, 4, "l2=0.1", 0.01)

    keys, names = ("heart", "ozone"), ("S-LR", "FLDA-Q", "FLDA-L")
    result = md.run_missing_data(keys, names, impute="mean", random_state=7, fit=fake_fit,
                                 progress=lambda f, t: reports.append((f, t)))
    assert calls == [(k, c, "mean", 7) for k in keys for c in names]
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[0] == 0 and fractions[-1] == 1
    assert list(result.errors.index) == ["Heart disease (heart)", "Ozone (ozone)"]
    assert list(result.errors.columns) == list(names)
    gain = result.gain
    assert np.allclose(gain["S-LR − FLDA-Q (here)"], 0.25)
    heart = "Heart disease (heart)"
    assert gain.loc[heart, "S-LR − FLDA-L (paper)"] == pytest.approx(0.338 - 0.203)
    long = result.long_table()
    assert len(long) == 6 and set(long["imputation"]) == {"mean"}
    assert long.loc[long["classifier"] == "FLDA-Q", "paper (Table 3)"].tolist() == [0.203, 0.047]
    assert set(result.thetas) == set(keys)


def test_theta_table_marks_the_features_that_go_missing():
    table = md.theta_table("ozone")
    problem = uci.make_missing_problem("ozone")
    assert list(table["feature"]) == list(problem.feature_names)
    assert table["theta"].between(0, 1).all()
    gapped = table["missing in target"] > 0.3
    assert gapped.sum() >= 10
    # wind speeds missing in ~43 % of the target rows: theta-hat recovers that rate
    np.testing.assert_allclose(table.loc[gapped, "theta"], table.loc[gapped, "missing in target"],
                               atol=0.03)
