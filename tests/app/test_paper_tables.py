"""The paper's Tables 5-9 pair by pair (explorer.experiments.paper_tables): the protocol
checked against scikit-learn's own search, the store, the verdict rule, and (slow) the
reproduction of Tables 5, 7 and 8 on the authors' files."""

from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.experiments.missing_data import CellResult
from text_numbers import numbers
from flda_core import FLDAClassifier, estimate_dropout

PAIR = ("spam", "S → M")  # sparse, binary and fast


def grid_search(X, y, n, seed, **fixed):
    """The protocol written with scikit-learn's GridSearchCV (an independent search)."""
    search = GridSearchCV(
        FLDAClassifier(tol=pt.TOL, max_iter=pt.MAX_ITER, **fixed),
        {"l2": [lam / n for lam in pt.LAMBDAS]},
        cv=StratifiedKFold(pt.N_FOLDS, shuffle=True, random_state=seed),
    )
    return search.fit(X, y)


@pytest.mark.parametrize(
    "name, loss", [("FLDA-Q", "quadratic"), ("FLDA-L", "logistic"), ("S-LR", "logistic")]
)
def test_a_cell_is_the_cross_validated_fit_scikit_learn_would_choose(name, loss):
    X_s, y_s, X_t, y_t = bm.pair_data(*PAIR)
    assert sp.issparse(X_s) and sp.issparse(X_t)  # sparse end to end
    cell = pt.fit_cell(*PAIR, name, random_state=3)
    theta = np.zeros(X_s.shape[1]) if name == "S-LR" else estimate_dropout(X_s, X_t)
    solver = {"solver": "cg"} if loss == "quadratic" else {}
    search = grid_search(X_s, y_s, len(y_s), 3, loss=loss, theta=theta, **solver)
    wrong = int(np.sum(search.predict(X_t) != y_t))
    assert abs(cell.n_wrong - wrong) <= 2 and cell.n_target == len(y_t)  # the same l2, up to tol
    assert f"λ={search.best_params_['l2'] * len(y_s):g}" in cell.params


def test_the_oracle_error_is_cross_validated_on_the_target():
    _, _, X_t, y_t = bm.pair_data(*PAIR)
    cell = pt.fit_cell(*PAIR, "T-LR")
    search = grid_search(X_t, y_t, len(y_t), 0, loss="logistic")
    chosen = FLDAClassifier(l2=search.best_params_["l2"], tol=pt.TOL, max_iter=pt.MAX_ITER)
    folds = StratifiedKFold(pt.N_FOLDS, shuffle=True, random_state=0)
    wrong = int(np.sum(cross_val_predict(chosen, X_t, y_t, cv=folds) != y_t))
    assert abs(cell.n_wrong - wrong) <= 2 and "CV on the target" in cell.params


def test_l2_grid_is_the_authors_lambda_over_the_source_rows():
    assert pt.l2_grid(1000) == tuple(lam / 1000 for lam in (1e5, 1e4, 1e3, 100, 10, 1))


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
    def fit(key, pair, name, seed):
        error = errors[pair][name]
        return CellResult(f"{key} {pair}", name, error, round(error * n), n, "λ=1", 0.1)

    return fit


def test_a_table_reports_its_reproduction_of_the_paper():
    paper = bm.paper_rows("spam")
    shift = {"S → M": 0.02, "M → S": -0.05}
    errors = {p: {c: paper.loc[p, c] + shift[p] for c in pt.FAST} for p in paper.index}
    seen = []
    result = pt.run_table("spam", pt.FAST, fit=fake_cells(errors), progress=lambda f, t: seen.append(f))
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


def test_stored_cells_are_read_back_not_refitted(tmp_path, monkeypatch):
    store = pt.cell_store(tmp_path)
    first = pt.stored_cell(*PAIR, "FLDA-Q", store=store)
    monkeypatch.setattr(pt, "fit_cell", lambda *a: pytest.fail("refitted"))
    again = pt.stored_cell(*PAIR, "FLDA-Q", store=store)
    assert again == first and again.from_disk and not first.from_disk


def test_the_page_url_opens_a_table_on_a_pair():
    url = pt.page_url("imdb", "A → F", present=True)
    path = urlsplit(url)
    assert path.path == "benchmarks"
    assert dict(parse_qsl(path.query)) == {"table": "imdb", "pair": "A → F", "present": "1"}
    with pytest.raises(ValueError, match="Unknown pair"):
        pt.page_url("imdb", "A → C")


#: Tables whose FLDA columns this run reproduces within 0.03 on average (the acceptance of
#: issue 44).  Table 8 does not: the paper's T-LR on SMS (0.133) is no better than "ham"
#: for every message (0.137), while source cross-validation here picks penalties that
#: learn (T-LR 0.04): the paper's spam runs used much stronger penalties than its protocol
#: gives on these files.
REPRODUCED = {"office_caltech": True, "imdb": True, "spam": False}


@pytest.mark.slow
@pytest.mark.parametrize(
    "key",
    [
        pytest.param(k, marks=[] if ok else pytest.mark.xfail(strict=True, reason="see REPRODUCED"))
        for k, ok in REPRODUCED.items()
    ],
)
def test_flda_reproduces_the_papers_table_offline(key, monkeypatch):
    """Offline (the network check fails the test), FLDA-Q and FLDA-L within a mean
    |here − paper| of 0.03 over the table's pairs.  Shares the app's disk store
    ($FLDA_CACHE_DIR/paper_tables): a warmed store makes it fast."""
    monkeypatch.setattr(bm, "openml_reachable", lambda *a: pytest.fail("the files need no network"))
    result = pt.run_table(key, ("FLDA-Q", "FLDA-L"))
    summary = result.reproduction()
    assert summary.loc["FLDA-Q", "mean |here − paper|"] <= 0.03
    assert summary.loc["FLDA-L", "mean |here − paper|"] <= 0.03
