"""Missing data at test time: the experiment behind Table 3 (section 4.2.2)."""

import json

import numpy as np
import pandas as pd
import pytest

from flda_core import FLDAClassifier
from explorer.data import uci
from explorer.experiments import missing_data as md
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
    model = FLDAClassifier(loss="quadratic", l2=l2, theta=theta).fit(problem.X_source, problem.y_source)
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
    result = md.run_missing_data(
        keys, names, impute="mean", random_state=7, fit=fake_fit, progress=lambda f, t: reports.append((f, t))
    )
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
    np.testing.assert_allclose(table.loc[gapped, "theta"], table.loc[gapped, "missing in target"], atol=0.03)


# --- FLDA's first stage without fits, and the disk store of the cells ----------------


@pytest.mark.parametrize("transfer", ["dropout", "imputation", "two-sided", "rate"])
def test_data_parameters_are_what_the_fits_use_and_the_run_reports(monkeypatch, transfer):
    """θ̂ (or another model's parameters) from the data alone equal the ones FLDA-L's
    fit on heart is given, and the ones the full run reports."""
    used = []
    original = md._flda

    def recording(loss, theta, transfer="dropout", params=None):
        used.append((theta, params))
        return original(loss, theta, transfer, params)

    monkeypatch.setattr(md, "_flda", recording)
    md._data_parameters.cache_clear()
    parameters = md.data_parameters("heart", "zero", transfer)
    cell = md.fit_one("heart", "FLDA-L", "zero", 0, transfer)
    run = md.run_missing_data(("heart",), ("FLDA-L",), transfer=transfer)
    pd.testing.assert_frame_equal(parameters.thetas, run.thetas["heart"])
    if transfer == "dropout":
        assert parameters.transfer_params is None and parameters.applicable
        theta, _ = used[0]
        np.testing.assert_array_equal(theta, parameters.thetas["theta"].to_numpy())
    elif parameters.applicable:
        pd.testing.assert_frame_equal(parameters.transfer_params, run.transfer_params["heart"])
        _, params = used[0]
        frame = md.transfer_table("heart", transfer)
        assert frame.equals(parameters.transfer_params) and params is not None
    else:  # rate needs non-negative features: no parameters, an empty cell that says why
        assert parameters.transfer_params is None and run.transfer_params["heart"] is None
        assert np.isnan(cell.error) and "not applicable" in cell.note


def test_data_parameters_fit_no_classifier_and_return_fresh_copies(monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("a classifier was fitted")

    monkeypatch.setattr(md, "fit_arrays", no_fit)
    monkeypatch.setattr(FLDAClassifier, "fit", no_fit)
    md._data_parameters.cache_clear()
    first = md.data_parameters("arrhythmia", "mean", "two-sided")
    assert len(first.thetas) == len(md.problem("arrhythmia", "mean").feature_names)
    first.thetas.loc[0, "theta"] = -1.0
    assert md.data_parameters("arrhythmia", "mean", "two-sided").thetas.loc[0, "theta"] >= 0


def counting(monkeypatch):
    calls = []
    original = md.fit_one

    def fit_one(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(md, "fit_one", fit_one)
    return calls


def test_stored_cells_round_trip_exactly_and_are_not_refitted(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    store = md.cell_store(tmp_path)
    fresh = [md.stored_fit_one("hepatitis", name, store=store) for name in ("S-LR", "SCL")]
    assert len(calls) == 2 and not any(c.from_disk for c in fresh)
    assert all(c.computed_at.endswith("UTC") for c in fresh)
    # a restarted server: a new store object on the same folder
    again = [md.stored_fit_one("hepatitis", name, store=md.cell_store(tmp_path)) for name in ("S-LR", "SCL")]
    assert len(calls) == 2 and all(c.from_disk for c in again)
    assert again[0] == fresh[0] and again[0].seconds == fresh[0].seconds  # exact
    assert again[0].computed_at == fresh[0].computed_at
    assert np.isnan(again[1].error) and again[1].note == fresh[1].note
    # every input of the cell is in its key
    md.stored_fit_one("hepatitis", "S-LR", "mean", store=store)
    md.stored_fit_one("hepatitis", "S-LR", random_state=1, store=store)
    md.stored_fit_one("hepatitis", "FLDA-L", transfer="two-sided", store=store)
    md.stored_fit_one("hepatitis", "FLDA-L", store=store)
    assert len(calls) == 6


def test_a_code_or_data_change_refits(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    md.stored_fit_one("hepatitis", "S-LR", store=md.cell_store(tmp_path))
    monkeypatch.setattr(md, "code_fingerprint", lambda: "another version of the code")
    cell = md.stored_fit_one("hepatitis", "S-LR", store=md.cell_store(tmp_path))
    assert len(calls) == 2 and not cell.from_disk


def test_the_fingerprint_covers_the_code_the_data_and_the_libraries(monkeypatch):
    files = set(md.fingerprint_files())
    library, app = md.result_store.SOURCE_ROOTS
    for path in (
        app / "experiments" / "missing_data.py",
        app / "experiments" / "baselines.py",
        library / "classifier.py",
        library / "transfer.py",
        library / "transfer_models.py",
        library / "solvers.py",
        app / "data" / "uci.py",
        *(uci.UCI_DIR / uci.UCI_SETS[k].file for k in uci.UCI_SETS),
    ):
        assert path.resolve() in files, path
    assert {"numpy", "scikit-learn", "skada"} <= set(md.PACKAGES)
    digest = md.code_fingerprint()
    monkeypatch.setattr(md.result_store.metadata, "version", lambda name: "0.0-upgraded")
    md.code_fingerprint.cache_clear()
    try:
        assert md.code_fingerprint() != digest
    finally:
        md.code_fingerprint.cache_clear()


def test_a_corrupt_cell_file_is_recomputed(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    store = md.cell_store(tmp_path)
    first = md.stored_fit_one("hepatitis", "S-LR", store=store)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    for broken in (
        "{truncated",
        json.dumps({**record, "value": {**record["value"], "error": "0.2"}}),
        json.dumps({**record, "value": {**record["value"], "n_wrong": -1}}),
    ):
        path.write_text(broken)
        cell = md.stored_fit_one("hepatitis", "S-LR", store=store)
        assert not cell.from_disk
        assert (cell.error, cell.params, cell.n_wrong) == (first.error, first.params, first.n_wrong)
    assert len(calls) == 4
    assert md.stored_fit_one("hepatitis", "S-LR", store=store).from_disk  # rewritten


def test_precompute_fills_the_store_for_the_page(tmp_path, monkeypatch):
    reports = []
    store = md.cell_store(tmp_path)
    result = md.precompute(
        ("hepatitis",),
        ("S-LR", "GFK", "FLDA-Q"),
        "zero",
        0,
        "dropout",
        progress=lambda f, t: reports.append(f),
        store=store,
    )
    assert reports[-1] == 1.0 and list(result.errors.columns) == ["S-LR", "GFK", "FLDA-Q"]
    calls = counting(monkeypatch)
    again = md.run_missing_data(
        ("hepatitis",), ("S-LR", "GFK", "FLDA-Q"), fit=lambda *a, **k: md.stored_fit_one(*a, **k, store=store)
    )
    assert calls == [] and all(c.from_disk for c in again.cells.values())
    pd.testing.assert_frame_equal(again.errors, result.errors)


def test_run_shows_each_data_set_when_done():
    seen = []

    def fake_fit(key, classifier, impute, seed):
        return md.CellResult(key, classifier, 0.5, 1, 2, "", 0.0)

    md.run_missing_data(
        ("heart", "ozone", "hepatitis"),
        ("S-LR", "FLDA-L"),
        fit=fake_fit,
        on_data_set=lambda partial: seen.append(list(partial.errors.index)),
    )
    assert seen == [
        ["Heart disease (heart)"],
        ["Heart disease (heart)", "Ozone (ozone)"],
        ["Heart disease (heart)", "Ozone (ozone)", "Hepatitis (hepat.)"],
    ]


def test_a_background_warm_up_and_a_page_never_fit_the_same_cell_twice(tmp_path, monkeypatch):
    import threading

    import time

    calls = counting(monkeypatch)
    counted = md.fit_one

    def slow_fit_one(*args, **kwargs):
        time.sleep(0.3)  # both threads are surely inside a fit at the same time
        return counted(*args, **kwargs)

    monkeypatch.setattr(md, "fit_one", slow_fit_one)
    store = md.cell_store(tmp_path)
    names = ("S-LR", "FLDA-Q", "FLDA-L")
    warm_up = threading.Thread(target=md.precompute, args=(("hepatitis",), names), kwargs={"store": store})
    warm_up.start()
    page = [md.stored_fit_one("hepatitis", name, store=store) for name in names]
    warm_up.join()
    assert sorted(args[1] for args in calls) == sorted(names)  # each fitted once
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert all(0 <= cell.error <= 1 for cell in page)


def test_an_unwritable_store_still_gives_the_cell_and_says_it_was_not_saved(tmp_path):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    cell = md.stored_fit_one("hepatitis", "S-LR", store=md.cell_store(blocker / "store"))
    fresh = md.fit_one("hepatitis", "S-LR")
    assert (cell.error, cell.params) == (fresh.error, fresh.params)
    assert not cell.saved and not cell.from_disk
    assert md.stored_fit_one("hepatitis", "S-LR", store=md.cell_store(tmp_path)).saved
