"""The paper's real-data tables pair by pair (explorer.experiments.paper_tables): Tables
5-9's cells checked against the library's reproduction protocol and scikit-learn's own
search, the one disk store of every table's cells, the verdict rule, and (slow) the
reproduction of Tables 5, 7 and 8 on the authors' files."""

import json
import threading
import time
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.data import uci
from explorer.experiments.paper_tables import CellResult
from text_numbers import numbers
from flda_core import FLDAClassifier, FLDAClassifierCV, load_paper_domains, paper_l2s

PAIR = ("spam", "S → M")  # sparse, binary and fast


LIBRARY_TOLS = [("FLDA-Q", "quadratic", 1e-6), ("FLDA-L", "logistic", 1e-4), ("S-LR", "logistic", 1e-4)]


@pytest.mark.parametrize("name, loss, tol", LIBRARY_TOLS)
def test_a_cell_is_the_libraries_reproduction_of_the_paper(name, loss, tol):
    """The same pair as tests/library/test_paper_tables.py computes it: the library's loader,
    its penalties, two stratified source folds (seed 0), its tolerances (S-LR: no target)."""
    domains = load_paper_domains(bm.PAPER_DIR / "da_sm_spam.mat")
    (X_s, y_s), (X_t, y_t) = domains["S"], domains["M"]
    search = FLDAClassifierCV(
        loss=loss, l2s=paper_l2s(X_s.shape[0]), cv=StratifiedKFold(2, shuffle=True, random_state=0), tol=tol
    )
    search.fit(X_s, y_s, X_target=None if name == "S-LR" else X_t)
    cell = pt.fit_cell(*PAIR, name)
    assert sp.issparse(bm.pair_data(*PAIR)[0])  # sparse end to end
    assert (cell.n_wrong, cell.n_target) == (int(np.sum(search.predict(X_t) != y_t)), len(y_t))
    assert f"λ={search.l2_ * len(y_s):g}" in cell.params


def test_the_oracle_error_is_cross_validated_on_the_target():
    _, _, X_t, y_t = bm.pair_data(*PAIR)
    cell = pt.fit_cell(*PAIR, "T-LR")
    folds = StratifiedKFold(2, shuffle=True, random_state=0)
    search = GridSearchCV(FLDAClassifier(tol=1e-4), {"l2": list(paper_l2s(len(y_t)))}, cv=folds).fit(X_t, y_t)
    chosen = FLDAClassifier(l2=search.best_params_["l2"], tol=1e-4)
    wrong = int(np.sum(cross_val_predict(chosen, X_t, y_t, cv=folds) != y_t))
    assert abs(cell.n_wrong - wrong) <= 2 and "CV on the target" in cell.params


def test_a_baseline_sample_is_bounded_stratified_and_dense():
    X_s, y_s, _, _ = bm.pair_data(*PAIR)
    X, keep = pt._sample(X_s, y_s, 0)
    assert isinstance(X, np.ndarray) and X.shape == (pt.BASELINE_MAX_ROWS, X_s.shape[1])
    share = np.mean(y_s == 2)
    assert abs(np.mean(y_s[keep] == 2) - share) < 0.002
    np.testing.assert_array_equal(X, X_s[keep].toarray())


def test_kmm_cell_runs_on_the_bounded_sample_and_predicts_every_target_row():
    cell = pt.fit_cell("office_caltech", "D → W", "KMM")
    assert cell.n_target == 295 and 0 <= cell.error <= 1
    assert "fitted on 157 of 157 source and 295 of 295 target rows" in cell.params


def fake_cells(errors, n=400):
    def fit(key, pair, name, seed, **options):
        error = errors[pair][name]
        return CellResult(f"{key} {pair}", name, error, round(error * n), n, "λ=1", 0.1)

    return fit


def test_a_table_reports_its_reproduction_of_the_paper():
    paper = bm.paper_rows("spam")
    shift = {"S → M": 0.02, "M → S": -0.05}
    errors = {p: {c: paper.loc[p, c] + shift[p] for c in pt.FAST} for p in paper.index}
    seen, partial = [], []
    result = pt.run_table(
        "spam",
        pt.FAST,
        fit=fake_cells(errors),
        progress=lambda f, t: seen.append(f),
        on_pair=lambda done: partial.append(list(done.errors.index)),
    )
    assert partial == [["S → M"], ["S → M", "M → S"]]  # the table filling in
    summary = result.reproduction()
    assert summary.loc["FLDA-Q", "mean |here − paper|"] == pytest.approx(0.035)
    assert summary.loc["FLDA-L", "worst pair"] == "M → S"
    assert summary.loc["FLDA-L", "here − paper there"] == pytest.approx(-0.05)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == 2 * len(pt.FAST) + 1
    table = result.long_table()
    assert len(table) == 2 * len(pt.FAST) and set(table["table"]) == {"Table 8"}
    frame = result.pairs["M → S"].frame()
    assert frame.loc["here − paper", "FLDA-Q"] == pytest.approx(-0.05)
    assert frame.loc["SE (binomial)", "T-LR"] == pytest.approx(np.sqrt(0.083 * 0.917 / 400))


def test_a_winner_only_beyond_the_noise():
    errors = pd.Series({"S-LR": 0.30, "FLDA-Q": 0.25, "FLDA-L": 0.27, "T-LR": 0.1})
    close = pt.verdict(errors, 400, 2.0)
    assert close["best"] == "FLDA-Q" and close["runner_up"] == "FLDA-L" and not close["beyond"]
    assert close["se"] == pytest.approx(np.sqrt((0.25 * 0.75 + 0.27 * 0.73) / 400))
    assert pt.verdict(errors, 40_000, 2.0)["beyond"]  # the same gap on 100 times the rows


def test_the_note_on_an_oracle_that_learned_nothing_is_computed():
    from explorer.teaching.real_data import oracle_note

    errors = {"M → S": dict.fromkeys(pt.FAST, 0.3), "S → M": dict.fromkeys(pt.FAST, 0.3)}
    for pair, said in (("M → S", True), ("S → M", False)):
        result = pt.run_pair("spam", pair, pt.FAST, fit=fake_cells(errors))
        summary = pt.pair_summary("spam", pair)
        note = oracle_note(result, summary)
        assert bool(note) == said  # the paper's T-LR: 0.133 on SMS (majority 0.137), 0.073 on mail
        if said:
            majority = summary["error of always predicting the target's most frequent class"]
            assert numbers(note)[:3] == [0.133, 0.01, round(majority, 3)]


def test_pair_summary_counts_what_theta_says():
    X_s, _, X_t, y_t = bm.pair_data(*PAIR)
    summary = pt.pair_summary(*PAIR)
    in_source = np.asarray((X_s != 0).sum(axis=0)).ravel() > 0
    in_target = np.asarray((X_t != 0).sum(axis=0)).ravel() > 0
    assert summary["θ̂ = 1 (in the source, never in the target)"] == np.sum(in_source & ~in_target)
    parts = [k for k in summary.index if k.startswith(("never", "θ̂ =", "0 <"))]
    assert summary[parts].sum() == summary["features"] == X_s.shape[1]
    assert summary["error of always predicting the target's most frequent class"] == pytest.approx(
        1 - np.mean(y_t == 2)
    )


def test_the_page_url_opens_a_table_on_a_pair():
    url = pt.page_url("imdb", "A → F", present=True)
    path = urlsplit(url)
    assert path.path == "real_data"
    assert dict(parse_qsl(path.query)) == {"table": "imdb", "pair": "A → F", "present": "1"}
    assert dict(parse_qsl(urlsplit(pt.page_url("uci", "heart")).query)) == {"table": "uci", "pair": "heart"}
    for key, pair in (("imdb", "A → C"), ("uci", "A → F"), ("spam", "heart")):
        with pytest.raises(ValueError, match="Unknown pair"):
            pt.page_url(key, pair)


def test_table3_options_reach_flda_cells_only_and_the_download():
    seen = []

    def fit(key, pair, name, seed, impute="zero", transfer="dropout"):
        seen.append((name, impute, transfer))
        return CellResult(f"{key} {pair}", name, 0.0, 0, 1, "", 0.0)

    result = pt.run_pair(
        "uci", "heart", ("S-LR", "FLDA-Q", "T-LR"), fit=fit, impute="mean", transfer="two-sided"
    )
    assert seen == [("S-LR", "mean", "dropout"), ("FLDA-Q", "mean", "two-sided"), ("T-LR", "mean", "dropout")]
    assert result.options == {"gaps filled with": "mean", "transfer model": "two-sided"}
    seen.clear()
    assert pt.run_pair("spam", "S → M", ("S-LR",), fit=fake_cells({"S → M": {"S-LR": 0.5}})).options == {}


# --- the one disk store of every table's cells ------------------------------------------


def counting(monkeypatch):
    calls = []
    original = pt.fit_cell

    def fit_cell(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(pt, "fit_cell", fit_cell)
    return calls


def test_stored_cells_round_trip_exactly_and_are_not_refitted(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    first = pt.stored_cell(*PAIR, "FLDA-Q", store=pt.result_store.ResultStore(tmp_path))
    fresh = [
        pt.stored_cell("uci", "hepatitis", name, store=pt.result_store.ResultStore(tmp_path))
        for name in ("S-LR", "FLDA-L")
    ]
    assert len(calls) == 3 and not any(c.from_disk for c in [first, *fresh])
    assert all(c.computed_at.endswith("UTC") for c in fresh)
    # a restarted server: a new store object on the same folder
    again = [
        pt.stored_cell("uci", "hepatitis", name, store=pt.result_store.ResultStore(tmp_path))
        for name in ("S-LR", "FLDA-L")
    ]
    assert len(calls) == 3 and all(c.from_disk for c in again)
    assert again == fresh and [c.seconds for c in again] == [c.seconds for c in fresh]  # exact
    assert [c.computed_at for c in again] == [c.computed_at for c in fresh]
    assert pt.stored_cell(*PAIR, "FLDA-Q", store=pt.result_store.ResultStore(tmp_path)).from_disk
    # every input of the cell is in its key
    store = pt.result_store.ResultStore(tmp_path)
    pt.stored_cell("uci", "hepatitis", "S-LR", impute="mean", store=store)
    pt.stored_cell("uci", "hepatitis", "S-LR", random_state=1, store=store)
    pt.stored_cell("uci", "hepatitis", "FLDA-L", transfer="two-sided", store=store)
    assert len(calls) == 6


def test_an_empty_cell_round_trips_with_its_note(tmp_path):
    first = pt.stored_cell(
        "uci", "heart", "FLDA-L", transfer="rate", store=pt.result_store.ResultStore(tmp_path)
    )
    again = pt.stored_cell(
        "uci", "heart", "FLDA-L", transfer="rate", store=pt.result_store.ResultStore(tmp_path)
    )
    assert (
        np.isnan(again.error)
        and again.from_disk
        and again.note == first.note
        and "not applicable" in first.note
    )


def test_a_code_or_data_change_refits(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    pt.stored_cell("uci", "hepatitis", "S-LR", store=pt.result_store.ResultStore(tmp_path))
    monkeypatch.setattr(pt.result_store, "code_fingerprint", lambda: "another version of the code")
    cell = pt.stored_cell("uci", "hepatitis", "S-LR", store=pt.result_store.ResultStore(tmp_path))
    assert len(calls) == 2 and not cell.from_disk


def test_the_fingerprint_covers_the_code_the_data_and_the_libraries(monkeypatch):
    files = set(pt.result_store.core_files())
    library, app = pt.result_store.SOURCE_ROOTS
    for path in (
        app / "experiments" / "paper_tables.py",
        app / "experiments" / "missing_data.py",
        app / "experiments" / "baselines.py",
        app / "data" / "uci.py",
        app / "data" / "benchmarks.py",
        library / "classifier.py",
        library / "selection.py",
        library / "transfer_models.py",
        *(uci.UCI_DIR / uci.UCI_SETS[k].file for k in uci.UCI_SETS),
        *bm.PAPER_DIR.glob("*.mat"),
    ):
        assert path.resolve() in files, path
    assert {"numpy", "scikit-learn", "skada"} <= set(pt.result_store.PACKAGES)
    digest = pt.result_store.code_fingerprint()
    monkeypatch.setattr(pt.result_store.metadata, "version", lambda name: "0.0-upgraded")
    pt.result_store.code_fingerprint.cache_clear()
    try:
        assert pt.result_store.code_fingerprint() != digest
    finally:
        pt.result_store.code_fingerprint.cache_clear()


def test_a_corrupt_cell_file_is_recomputed(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    store = pt.result_store.ResultStore(tmp_path)
    first = pt.stored_cell("uci", "hepatitis", "S-LR", store=store)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    for broken in (
        "{truncated",
        json.dumps({**record, "value": {**record["value"], "error": "0.2"}}),
        json.dumps({**record, "value": {**record["value"], "n_wrong": -1}}),
        json.dumps({**record, "value": {**record["value"], "seconds": True}}),
        json.dumps({**record, "value": {**record["value"], "classifier": "FLDA-Q"}}),
    ):
        path.write_text(broken)
        cell = pt.stored_cell("uci", "hepatitis", "S-LR", store=store)
        assert not cell.from_disk
        assert (cell.error, cell.params, cell.n_wrong) == (first.error, first.params, first.n_wrong)
    assert len(calls) == 6
    assert pt.stored_cell("uci", "hepatitis", "S-LR", store=store).from_disk  # rewritten


def test_precompute_fills_the_store_for_the_page(tmp_path, monkeypatch):
    reports = []
    store = pt.result_store.ResultStore(tmp_path)
    monkeypatch.setattr(bm, "pairs", lambda key: ["hepatitis"] if key == "uci" else ["S → M"])
    result = pt.precompute(("uci", "spam"), progress=lambda f, t: reports.append(f), store=store)
    assert reports[-1] == 1.0
    assert list(result["uci"].errors.columns) == list(pt.classifiers("uci"))  # Table 3 with its baselines
    assert list(result["spam"].errors.columns) == list(pt.FAST)  # minutes with them: not at start
    calls = counting(monkeypatch)
    again = pt.run_pair(
        "uci", "hepatitis", pt.classifiers("uci"), fit=lambda *a, **k: pt.stored_cell(*a, **k, store=store)
    )
    assert calls == [] and all(c.from_disk for c in again.cells.values())
    pd.testing.assert_series_equal(again.errors, result["uci"].pairs["hepatitis"].errors)


def test_a_background_warm_up_and_a_page_never_fit_the_same_cell_twice(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    counted = pt.fit_cell

    def slow_fit_cell(*args, **kwargs):
        time.sleep(0.3)  # both threads are surely inside a fit at the same time
        return counted(*args, **kwargs)

    monkeypatch.setattr(pt, "fit_cell", slow_fit_cell)
    monkeypatch.setattr(bm, "pairs", lambda key: ["hepatitis"])
    store = pt.result_store.ResultStore(tmp_path)
    names = ("S-LR", "FLDA-Q", "FLDA-L")
    monkeypatch.setattr(pt, "classifiers", lambda key, baselines=True: names)
    warm_up = threading.Thread(target=pt.precompute, args=(("uci",),), kwargs={"store": store})
    warm_up.start()
    page = [pt.stored_cell("uci", "hepatitis", name, store=store) for name in names]
    warm_up.join()
    assert sorted(args[2] for args in calls) == sorted(names)  # each fitted once
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert all(0 <= cell.error <= 1 for cell in page)


def test_an_unwritable_store_still_gives_the_cell_and_says_it_was_not_saved(tmp_path):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    cell = pt.stored_cell("uci", "hepatitis", "S-LR", store=pt.result_store.ResultStore(blocker / "store"))
    fresh = pt.fit_cell("uci", "hepatitis", "S-LR")
    assert (cell.error, cell.params) == (fresh.error, fresh.params)
    assert not cell.saved and not cell.from_disk
    assert pt.stored_cell("uci", "hepatitis", "S-LR", store=pt.result_store.ResultStore(tmp_path)).saved


@pytest.mark.slow
@pytest.mark.parametrize("key", ["office_caltech", "imdb", "spam"])
def test_flda_reproduces_the_papers_table_offline(key, monkeypatch):
    """Offline (the network check fails the test), FLDA-Q and FLDA-L within a mean
    |here − paper| of 0.03 over the table's pairs (the acceptance of issue 44; the run
    prints the worst pair).  Shares the app's disk store ($FLDA_CACHE_DIR/paper_tables):
    a warmed store makes it fast."""
    monkeypatch.setattr(bm, "openml_reachable", lambda *a: pytest.fail("the files need no network"))
    summary = pt.run_table(key, ("FLDA-Q", "FLDA-L")).reproduction()
    print(f"{bm.BENCHMARKS[key].table}:\n{summary.to_string()}")
    assert summary.loc["FLDA-Q", "mean |here − paper|"] <= 0.03
    assert summary.loc["FLDA-L", "mean |here − paper|"] <= 0.03
