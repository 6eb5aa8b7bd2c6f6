"""AppTest runs of the "Real data" page (section 4.2.2, Tables 2-3)."""

import json

import pytest
import sklearn
from apptest_support import chart_specs, charts, open_page, shown
from text_numbers import numbers, sentence

from explorer.experiments import missing_data as md

PAGE = "pages/real_data.py"
TWO_SETS = {"sets": json.dumps(["hepatitis", "heart"])}


@pytest.fixture(scope="module")
def page_run():
    return open_page(PAGE, TWO_SETS)


def test_page_shows_both_tables_gain_figures_and_downloads(page_run):
    at = page_run
    assert not at.error
    here, paper, gain, params = [d.value for d in at.dataframe][:4]
    # Table 2, a markdown table (no data grid before the page's first chart): one row
    # per chosen data set, this page's counts beside the paper's
    (table2,) = [shown(m.value) for m in at.markdown if m.value.startswith("| data set")]
    rows = table2.splitlines()[2:]
    assert [r.split(" | ")[0] for r in rows] == ["| Hepatitis (hepat.)", "| Heart disease (heart)"]
    # heart's counts, "here / paper" in one cell (no line break inside), then its own
    cells = [cell.strip() for cell in rows[1].strip("| ").split(" | ")]
    assert cells[0] == "Heart disease (heart)"
    counts = [[13, 13], [920, 704], [2, 2], [621, 615], [13], [299], [2]]
    assert [numbers(cell) for cell in cells[1:]] == counts
    assert all("\u00a0/\u00a0" in cell for cell in cells[1:5])
    # FLDA's columns first, no empty SCL/GFK columns (issue 25: at 1920 px they pushed
    # FLDA-L and T-LR out of view); the paper's table keeps them, after FLDA's.
    first = ["S-LR", "FLDA-Q", "FLDA-L", "T-LR"]
    assert list(here.columns) == first + [
        c for c in md.CLASSIFIERS if c not in first and c not in ("SCL", "GFK")
    ]
    assert list(paper.columns)[:4] == first and "SCL" in paper.columns
    assert paper.loc["Heart disease (heart)", "FLDA-Q"] == "0.203"
    # the page's numbers are the experiment's numbers
    for name in ("S-LR", "FLDA-L", "KMM"):
        cell = md.fit_one("heart", name)
        assert here.loc["Heart disease (heart)", name] == f"{cell.error:.3f}"
    assert "S-LR − FLDA-L (here)" in gain.columns
    assert {"real_errors", "real_theta"} <= set(chart_specs(at))
    downloads = {b.label for b in at.get("download_button")}
    assert {"Download the table (CSV)", "Download θ̂ per feature (CSV)"} <= downloads
    for widget in [*at.selectbox, *at.radio, *at.multiselect, *at.checkbox, *at.slider]:
        assert widget.help, widget.label


def test_captions_state_the_computed_comparison(page_run):
    at = page_run
    captions = " ".join(c.value for c in at.caption)
    errors = {n: md.fit_one("heart", n).error for n in ("S-LR", "FLDA-Q", "FLDA-L")}
    hep = {n: md.fit_one("hepatitis", n).error for n in ("S-LR", "FLDA-L")}
    better = int(errors["FLDA-L"] < errors["S-LR"]) + int(hep["FLDA-L"] < hep["S-LR"])
    flda_l = captions.split("FLDA-L has a lower error than S-LR")[1]
    # here: better of 2 data sets; the paper: heart and hepatitis in Table 3
    assert numbers(flda_l)[:3] == [better, 2, 2] and "in the paper" in flda_l
    assert "'ca'" in captions  # heart's most often missing column
    assert "PROVENANCE.md" in captions and "CC BY 4.0" in captions


def test_mean_imputation_and_no_baselines():
    at = open_page(PAGE, {**TWO_SETS, "impute": "mean", "baselines": "false"})
    assert not at.error
    here = at.dataframe[0].value
    assert list(here.columns) == ["S-LR", "FLDA-Q", "FLDA-L", "T-LR", "S-SVM"]  # FLDA first
    assert here.loc["Heart disease (heart)", "FLDA-L"] == f"{md.fit_one('heart', 'FLDA-L', 'mean').error:.3f}"
    assert "source mean" in " ".join(c.value for c in at.caption)


def test_presentation_mode_hides_the_controls():
    at = open_page(PAGE, {**TWO_SETS, "present": "1", "baselines": "false"})
    assert not at.error and not at.radio and not at.multiselect
    assert {"real_errors", "real_theta"} <= set(chart_specs(at))


@pytest.mark.parametrize("routing", [True, False])
@pytest.mark.parametrize("target", ["real", "your_data", "digits"])
def test_pages_work_whatever_routing_state_skada_left(monkeypatch, routing, target):
    # importing skada in any thread switches routing on for it: simulate that for
    # every thread the pages run in, and the opposite
    monkeypatch.setitem(sklearn._config._global_config, "enable_metadata_routing", routing)
    if target == "real":
        at = open_page(PAGE, {"sets": json.dumps(["mammographic"])})
    elif target == "digits":
        at = open_page("pages/digits.py", {"l2_mode": "hand"})
    else:
        at = open_page("pages/your_data.py", {"sample": "breast_cancer"})
    assert not at.error, [e.value for e in at.error]
    assert charts(at)


# --- FLDA's two stages in order, Table 3 progressive and kept on disk -------------------

ONE_SET = {"sets": json.dumps(["hepatitis"]), "baselines": "false"}


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
    yield tmp_path / "missing_data"
    st.cache_data.clear()


def test_theta_chart_comes_before_table3(disk_cache):
    at = open_page(PAGE, ONE_SET)
    items = elements(at)
    theta = position(items, lambda n: getattr(n, "key", None) == "real_theta")
    table2 = position(items, lambda n: n.type == "subheader" and "Table 2" in n.value)
    table3 = position(items, lambda n: n.type == "subheader" and "Table 3" in n.value)
    errors = position(items, lambda n: getattr(n, "key", None) == "real_errors")
    assert table2 < theta < table3 < errors


def test_theta_section_needs_no_fit(disk_cache, monkeypatch):
    """With every fit failing, θ̂ and its download are still there (drawn before the fits),
    and Table 3 shows the error instead of numbers."""

    def broken(*args, **kwargs):
        raise RuntimeError("fits are broken in this test")

    monkeypatch.setattr(md, "fit_one", broken)
    at = open_page(PAGE, {**ONE_SET, "transfer": "two-sided"})
    assert "real_theta" in chart_specs(at) and "real_errors" not in chart_specs(at)
    assert "Download θ̂ per feature (CSV)" in {b.label for b in at.get("download_button")}
    assert "Download the parameters (CSV)" in {b.label for b in at.get("download_button")}
    assert len(at.error) == 1 and "Table 3" in shown(at.error[0].value)


def test_warm_disk_cache_serves_table3_after_a_restart_without_fitting(disk_cache, monkeypatch):
    import streamlit as st

    first = open_page(PAGE, ONE_SET)
    captions = " ".join(c.value for c in first.caption)
    assert "All 5 cells computed" in captions and "with this code" in captions
    assert "read from this server's disk cache" not in captions
    here = first.dataframe[0].value
    assert len(list(disk_cache.glob("*.json"))) == 5

    st.cache_data.clear()  # a restarted server: st.cache_data is gone, the files are not
    calls = []
    monkeypatch.setattr(md, "fit_one", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(md, "fit_arrays", lambda *a, **k: calls.append(a))
    second = open_page(PAGE, ONE_SET)
    assert calls == []
    captions = " ".join(c.value for c in second.caption)
    read = sentence(captions, "cells read from this server's disk cache")
    assert read.startswith("All") and numbers(read)[0] == 5
    assert "with this code" in captions and "computed" in captions and "UTC" in captions
    every_text = captions + " ".join(str(w.help) for w in second.get("selectbox"))
    assert str(disk_cache.parent) not in every_text  # never the server's folder
    assert second.dataframe[0].value.equals(here)


def test_a_half_table_is_never_presented_as_final(disk_cache, monkeypatch):
    """Fits stopping after the first data set (here: an error) leave the rows done so
    far, captioned as not complete, and no comparison with the paper."""
    original = md.fit_one

    def fails_on_heart(key, *args, **kwargs):
        if key == "heart":
            raise RuntimeError("stopped on heart")
        return original(key, *args, **kwargs)

    monkeypatch.setattr(md, "fit_one", fails_on_heart)
    at = open_page(PAGE, {**TWO_SETS, "baselines": "false"})
    captions = " ".join(c.value for c in at.caption)
    assert numbers(sentence(captions, "Not complete:", "data sets done"))[:2] == [1, 2]
    assert "lower error than S-LR" not in captions  # the final caption is not shown
    partial = at.dataframe[0].value
    assert list(partial.index) == ["Hepatitis (hepat.)"]
    assert "real_errors" not in chart_specs(at)
    assert at.error


def test_caption_does_not_claim_a_save_that_failed(disk_cache, monkeypatch):
    disk_cache.parent.rmdir()
    disk_cache.parent.write_text("a file where the cache folder should be")
    at = open_page(PAGE, ONE_SET)
    captions = " ".join(c.value for c in at.caption)
    assert "All 5 cells computed" in captions and "not all could be saved" in captions
    assert "real_errors" in chart_specs(at)


def test_caption_counts_cells_from_disk_and_computed(disk_cache):
    import streamlit as st

    md.stored_fit_one("hepatitis", "S-LR", store=md.cell_store(disk_cache))  # a warm-up
    at = open_page(PAGE, ONE_SET)
    captions = " ".join(c.value for c in at.caption)
    counts = sentence(captions, "cells read from this server's disk cache", "computed by this server")
    assert numbers(counts)[:3] == [1, 5, 4]  # 1 of 5 read, 4 computed
    st.cache_data.clear()
