"""AppTest runs of the Real data page: the paper's Tables 3 (with Table 2) and 5-9, pair by
pair and whole, with one set of controls."""

import pandas as pd
import pytest
import sklearn
from apptest_support import chart_specs, charts, open_page, shown
from text_numbers import numbers, sentence

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.teaching.lesson import SE_MULTIPLE

PAGE = "pages/real_data.py"
HEPATITIS = {"table": "uci", "pair": "hepatitis"}
SPAM = {"table": "spam", "pair": "S → M"}


@pytest.fixture(scope="module")
def heart_run():
    return open_page(PAGE, {"pair": "heart"})


def test_table3_shows_table2_theta_and_the_pair_beside_the_paper(heart_run):
    at = heart_run
    assert not at.error
    assert at.session_state["real.table"] == "uci"  # Table 3 is the page's default table
    # Table 2, a markdown table (no data grid before the page's first chart): the six data
    # sets, this page's counts beside the paper's
    (table2,) = [shown(m.value) for m in at.markdown if m.value.startswith("| data set")]
    rows = table2.splitlines()[2:]
    assert len(rows) == 6 and rows[2].startswith("| Heart disease (heart) |")
    cells = [cell.strip() for cell in rows[2].strip("| ").split(" | ")]
    assert [numbers(cell) for cell in cells[1:]] == [
        [13, 13],
        [920, 704],
        [2, 2],
        [621, 615],
        [13],
        [299],
        [2],
    ]
    assert all("\u00a0/\u00a0" in cell for cell in cells[1:5])
    # the pair: this run's error, its SE, the paper's and the difference, FLDA's columns first
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["S-LR", "FLDA-Q", "FLDA-L", "T-LR", "S-SVM"]
    for name in frame.columns:
        cell = pt.fit_cell("uci", "heart", name)
        assert frame.loc["here", name] == f"{cell.error:.3f}"
        assert frame.loc["paper, Table 3", name] == f"{bm.PAPER_TABLES['uci']['heart'][name]:.3f}"
    assert {"real_errors", "real_theta"} <= set(chart_specs(at))
    downloads = {b.label for b in at.get("download_button")}
    assert {"Download θ̂ per feature (CSV)", "Download this pair (CSV)"} <= downloads
    for widget in [*at.selectbox, *at.radio, *at.checkbox, *at.slider, *at.button]:
        assert widget.help, widget.label


def test_captions_state_the_computed_comparison(heart_run):
    captions = " ".join(shown(c.value) for c in heart_run.caption)
    errors = pd.Series({n: pt.fit_cell("uci", "heart", n).error for n in pt.classifiers("uci", False)})
    verdict = pt.verdict(errors, 621, SE_MULTIPLE)
    lowest = sentence(captions, "lowest error here")
    assert verdict["best"] in lowest and numbers(lowest)[0] == round(errors[verdict["best"]], 3)
    assert ("no winner beyond the noise" in lowest) == (not verdict["beyond"])
    flda_q = sentence(captions, "FLDA-Q is", "S-LR (gap")
    assert numbers(flda_q)[0] == pytest.approx(errors["S-LR"] - errors["FLDA-Q"], abs=6e-4)
    assert "621 target rows" in captions and "gaps filled with zeros" in captions
    assert "'ca'" in captions  # heart's most often missing column (the θ̂ chart)
    assert "PROVENANCE.md" in captions and "CC BY 4.0" in captions


def test_mean_imputation_and_the_baselines():
    at = open_page(PAGE, {**HEPATITIS, "impute": "mean", "baselines": "true"})
    assert not at.error
    frame = at.dataframe[0].value
    assert list(frame.columns) == list(pt.classifiers("uci"))  # FLDA first, then S-SVM and skada's five
    cell = pt.fit_cell("uci", "hepatitis", "FLDA-L", impute="mean")
    assert frame.loc["here", "FLDA-L"] == f"{cell.error:.3f}"
    assert "source mean" in " ".join(c.value for c in at.caption)


def test_the_table3_options_say_where_they_do_not_apply():
    at = open_page(PAGE, SPAM)
    assert not at.radio and not [s for s in at.selectbox if s.key == "real.transfer"]
    assert any("Table 3 only" in c.value for c in at.sidebar.caption)


@pytest.fixture(scope="module")
def spam_run():
    return open_page(PAGE, SPAM)


def test_a_pair_of_table8_shows_this_run_beside_the_papers_row(spam_run):
    at = spam_run
    assert not at.error
    frame = at.dataframe[0].value
    assert list(frame.columns) == list(pt.FAST)
    for name in pt.FAST:
        assert frame.loc["here", name] == f"{pt.stored_cell('spam', 'S → M', name).error:.3f}"
        assert frame.loc["paper, Table 8", name] == f"{bm.PAPER_TABLES['spam']['S → M'][name]:.3f}"
    assert "real_errors" in chart_specs(at) and "real_theta" not in chart_specs(at)
    assert "4205 target rows" in " ".join(c.value for c in at.caption)
    assert at.query_params["table"] == "spam" and at.query_params["pair"] == "S → M"


def test_the_whole_table_on_request_reports_how_close_this_run_is(spam_run):
    at = spam_run
    at.button(key="real_whole_run").click().run()
    assert not at.exception and "real_table" in chart_specs(at)
    result = pt.run_table("spam", pt.FAST)
    summary = result.reproduction()
    shown_summary = next(d.value for d in at.dataframe if "mean |here − paper|" in d.value.columns)
    row = shown_summary.set_index("classifier").loc["FLDA-L"]
    assert row["mean |here − paper|"] == f"{summary.loc['FLDA-L', 'mean |here − paper|']:.3f}"
    assert row["worst pair"] == summary.loc["FLDA-L", "worst pair"]
    both = next(d.value for d in at.dataframe if "M → S" in d.value.index)
    here, paper = result.errors.loc["M → S", "FLDA-Q"], bm.PAPER_TABLES["spam"]["M → S"]["FLDA-Q"]
    assert both.loc["M → S", "FLDA-Q"] == f"{here:.3f} / {paper:.3f}"  # this run beside the paper
    assert "Download Table 8 (CSV)" in {b.label for b in at.get("download_button")}


def test_an_online_table_offline_says_so_and_shows_the_papers_table(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bm, "openml_reachable", lambda host: False)
    at = open_page(PAGE, {"table": "amazon", "pair": "B → K"})
    assert not chart_specs(at)  # nothing downloaded, nothing fitted
    at.button(key="real_fetch").click().run()
    assert not at.exception
    (warning,) = at.warning
    assert "Not available right now" in warning.value and "figshare.com" in shown(warning.value)
    assert at.dataframe[-1].value.loc["K → E", "FLDA-L"] == "0.119"


def test_links_to_an_unknown_pair_and_the_older_pages_links():
    at = open_page(PAGE, {"table": "imdb", "pair": "S → M", "baselines": "false"})
    assert any("not a pair" in shown(i.value) for i in at.info)
    assert at.session_state["real.pair"] == "A → F"
    old = open_page(PAGE, {"sets": '["hepatitis", "ozone"]', "theta_set": "ozone", "impute": "mean"})
    assert not old.error and old.session_state["real.table"] == "uci"
    assert old.session_state["real.pair"] == "ozone" and old.query_params["pair"] == "ozone"
    assert "theta_set" not in old.query_params


def test_presentation_mode_shows_the_linked_pair_without_controls():
    at = open_page(PAGE, {**SPAM, "present": "1"})
    assert not at.selectbox and not at.checkbox and not at.radio and "real_errors" in chart_specs(at)
    assert at.session_state["real.pair"] == SPAM["pair"]


@pytest.mark.parametrize("routing", [True, False])
@pytest.mark.parametrize("target", ["real", "your_data", "digits"])
def test_pages_work_whatever_routing_state_skada_left(monkeypatch, routing, target):
    # importing skada in any thread switches routing on for it: simulate that for
    # every thread the pages run in, and the opposite
    monkeypatch.setitem(sklearn._config._global_config, "enable_metadata_routing", routing)
    if target == "real":
        at = open_page(PAGE, {"pair": "mammographic", "baselines": "true"})
    elif target == "digits":
        at = open_page("pages/digits.py", {"l2_mode": "hand"})
    else:
        at = open_page("pages/your_data.py", {"sample": "breast_cancer"})
    assert not at.error, [e.value for e in at.error]
    assert charts(at)


# --- FLDA's two stages in order, cells kept on disk, a table filling in -------------------


def elements(at):
    """The page's elements in the order a reader sees them (depth first)."""

    def walk(node):
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for index in sorted(children):
                yield from walk(children[index])
        else:
            yield node

    return list(walk(at.main))


def position(items, predicate):
    return next(i for i, node in enumerate(items) if predicate(node))


@pytest.fixture
def disk_cache(monkeypatch, tmp_path):
    """An empty disk cache and an empty st.cache_data (a fresh server on a new machine)."""
    import streamlit as st

    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    st.cache_data.clear()
    yield tmp_path / "paper_tables"
    st.cache_data.clear()


def test_theta_chart_comes_before_the_fits(disk_cache):
    items = elements(open_page(PAGE, HEPATITIS))
    table2 = position(items, lambda n: n.type == "subheader" and "Table 2" in n.value)
    theta = position(items, lambda n: getattr(n, "key", None) == "real_theta")
    errors = position(items, lambda n: getattr(n, "key", None) == "real_errors")
    assert table2 < theta < errors


def test_theta_section_needs_no_fit(disk_cache, monkeypatch):
    """With every fit failing, θ̂ and its download are still there (drawn before the fits),
    and the pair shows the error instead of numbers."""

    def broken(*args, **kwargs):
        raise RuntimeError("fits are broken in this test")

    monkeypatch.setattr(pt, "fit_cell", broken)
    at = open_page(PAGE, {**HEPATITIS, "transfer": "two-sided"})
    assert "real_theta" in chart_specs(at) and "real_errors" not in chart_specs(at)
    downloads = {b.label for b in at.get("download_button")}
    assert {"Download θ̂ per feature (CSV)", "Download the parameters (CSV)"} <= downloads
    assert len(at.error) == 1 and "Hepatitis" in shown(at.error[0].value)


def test_warm_disk_cache_serves_the_pair_after_a_restart_without_fitting(disk_cache, monkeypatch):
    import streamlit as st

    first = open_page(PAGE, HEPATITIS)
    captions = " ".join(c.value for c in first.caption)
    assert "All 5 cells computed" in captions and "with this code" in captions
    assert "read from this server's disk cache" not in captions
    frame = first.dataframe[0].value
    assert len(list(disk_cache.glob("*.json"))) == 5

    st.cache_data.clear()  # a restarted server: st.cache_data is gone, the files are not
    calls = []
    monkeypatch.setattr(pt, "fit_cell", lambda *a, **k: calls.append(a))
    second = open_page(PAGE, HEPATITIS)
    assert calls == []
    captions = " ".join(c.value for c in second.caption)
    read = sentence(captions, "cells read from this server's disk cache")
    assert read.startswith("All") and numbers(read)[0] == 5
    assert "with this code" in captions and "computed" in captions and "UTC" in captions
    every_text = captions + " ".join(str(w.help) for w in second.get("selectbox"))
    assert str(disk_cache.parent) not in every_text  # never the server's folder
    assert second.dataframe[0].value.equals(frame)


def test_a_half_table_is_never_presented_as_final(disk_cache, monkeypatch):
    """Fits stopping after the first pair (here: an error) leave the rows done so far,
    captioned as not complete, and no comparison with the paper."""
    original = pt.fit_cell

    def fails_on_m_to_s(key, pair, *args, **kwargs):
        if pair == "M → S":
            raise RuntimeError("stopped on M → S")
        return original(key, pair, *args, **kwargs)

    monkeypatch.setattr(pt, "fit_cell", fails_on_m_to_s)
    at = open_page(PAGE, SPAM)
    at.button(key="real_whole_run").click().run()
    captions = " ".join(c.value for c in at.caption)
    assert numbers(sentence(captions, "Not complete:", "done"))[:2] == [1, 2]
    assert "lower error than S-LR" not in captions  # the final caption is not shown
    assert list(at.dataframe[-1].value.index) == ["S → M"]
    assert "real_table" not in chart_specs(at) and at.error


def test_caption_does_not_claim_a_save_that_failed(disk_cache):
    disk_cache.parent.rmdir()
    disk_cache.parent.write_text("a file where the cache folder should be")
    at = open_page(PAGE, HEPATITIS)
    captions = " ".join(c.value for c in at.caption)
    assert "All 5 cells computed" in captions and "not all could be saved" in captions
    assert "real_errors" in chart_specs(at)


def test_caption_counts_cells_from_disk_and_computed(disk_cache):
    pt.stored_cell("uci", "hepatitis", "S-LR", store=pt.result_store.ResultStore(disk_cache))  # a warm-up
    at = open_page(PAGE, HEPATITIS)
    captions = " ".join(c.value for c in at.caption)
    counts = sentence(captions, "cells read from this server's disk cache", "computed by this server")
    assert numbers(counts)[:3] == [1, 5, 4]  # 1 of 5 read, 4 computed


def test_the_whole_table3_counts_flda_against_s_lr_here_and_in_the_paper(disk_cache):
    at = open_page(PAGE, HEPATITIS)
    at.button(key="real_whole_run").click().run()
    assert not at.exception and "real_table" in chart_specs(at)
    result = pt.run_table("uci", pt.classifiers("uci", False))
    flda_l = " ".join(c.value for c in at.caption).split("FLDA-L has a lower error than S-LR")[1]
    here = int((result.errors["FLDA-L"] < result.errors["S-LR"]).sum())
    there = sum(row["FLDA-L"] < row["S-LR"] for row in bm.PAPER_TABLES["uci"].values())
    assert numbers(flda_l)[:5:4] == [here, there] and numbers(flda_l)[1] == 6 and "in the paper" in flda_l
