"""AppTest runs of the "Paper benchmarks" page (Tables 5-9, sections 4.2.4-4.2.7)."""

import pytest
from apptest_support import chart_specs, open_page, shown
from text_numbers import numbers, sentence

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.teaching.lesson import SE_MULTIPLE

PAGE = "pages/benchmarks.py"
SPAM = {"table": "spam", "pair": "S → M", "baselines": "false"}


@pytest.fixture(scope="module")
def spam_run():
    return open_page(PAGE, SPAM)


def test_a_pair_shows_this_run_beside_the_papers_row(spam_run):
    at = spam_run
    assert not at.error
    frame = at.dataframe[0].value
    assert list(frame.columns) == list(pt.FAST)  # FLDA's columns first
    cells = {name: pt.stored_cell("spam", "S → M", name) for name in pt.FAST}
    for name, cell in cells.items():
        assert frame.loc["here", name] == f"{cell.error:.3f}"
        assert frame.loc["paper, Table 8", name] == f"{bm.PAPER_TABLES['spam']['S → M'][name]:.3f}"
    assert "bench_pair" in chart_specs(at)
    assert {"Download this pair (CSV)"} <= {b.label for b in at.get("download_button")}
    for widget in [*at.selectbox, *at.checkbox, *at.button]:
        assert widget.help, widget.label
    assert at.query_params["table"] == "spam" and at.query_params["pair"] == "S → M"


def test_the_caption_names_a_winner_only_beyond_the_noise(spam_run):
    errors = {name: pt.stored_cell("spam", "S → M", name).error for name in pt.FAST}
    verdict = pt.verdict(__import__("pandas").Series(errors), 4205, SE_MULTIPLE)
    caption = shown(next(c.value for c in spam_run.caption if "Bars: target error" in c.value))
    lowest = sentence(caption, "lowest error here")
    assert verdict["best"] in lowest and numbers(lowest)[0] == round(errors[verdict["best"]], 3)
    assert ("no winner beyond the noise" in lowest) == (not verdict["beyond"])
    flda_q = sentence(caption, "FLDA-Q is", "S-LR (gap")
    assert numbers(flda_q)[0] == pytest.approx(errors["S-LR"] - errors["FLDA-Q"], abs=6e-4)
    assert "4205 target rows" in caption


def test_the_whole_table_on_request_reports_how_close_this_run_is(spam_run):
    at = spam_run
    at.button(key="bench_whole_run").click().run()
    assert not at.exception and "bench_table" in chart_specs(at)
    result = pt.run_table("spam", pt.FAST)
    summary = result.reproduction()
    shown_summary = next(d.value for d in at.dataframe if "mean |here − paper|" in d.value.columns)
    row = shown_summary.set_index("classifier").loc["FLDA-L"]
    assert row["mean |here − paper|"] == f"{summary.loc['FLDA-L', 'mean |here − paper|']:.3f}"
    assert row["worst pair"] == summary.loc["FLDA-L", "worst pair"]
    assert "Download Table 8 (CSV)" in {b.label for b in at.get("download_button")}


def test_an_online_table_offline_says_so_and_shows_the_papers_table(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bm, "openml_reachable", lambda host: False)
    at = open_page(PAGE, {"table": "amazon", "pair": "B → K"})
    assert not chart_specs(at)  # nothing downloaded, nothing fitted
    at.button(key="bench_fetch").click().run()
    assert not at.exception
    (warning,) = at.warning
    assert "Not available right now" in warning.value and "figshare.com" in shown(warning.value)
    assert at.dataframe[-1].value.loc["K → E", "FLDA-L"] == "0.119"


def test_a_link_to_an_unknown_pair_opens_the_tables_first_pair():
    at = open_page(PAGE, {"table": "imdb", "pair": "S → M", "baselines": "false"})
    assert any("not a pair" in shown(i.value) for i in at.info)
    assert at.session_state["bench.pair"] == "A → F"


def test_presentation_mode_keeps_the_table_and_the_pair_in_one_row():
    at = open_page(PAGE, {**SPAM, "present": "1"})
    assert {s.key for s in at.selectbox} == {"present_ctl_bench_table", "present_ctl_bench_pair"}
    assert not at.checkbox and "bench_pair" in chart_specs(at)
