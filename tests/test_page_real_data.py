"""AppTest runs of the "Real data" page (section 4.2.2, Tables 2-3)."""

import json

import pytest
import sklearn
from apptest_support import chart_specs, open_page, shown

from flda_core.experiments import missing_data as md

PAGE = "pages/real_data.py"
TWO_SETS = {"sets": json.dumps(["hepatitis", "heart"])}


@pytest.fixture(scope="module")
def page_run():
    return open_page(PAGE, TWO_SETS)


def test_page_shows_both_tables_gain_figures_and_downloads(page_run):
    at = page_run
    assert not at.error
    table2, here, paper, gain, params = [d.value for d in at.dataframe][:5]
    assert list(table2["data set"]) == ["Hepatitis (hepat.)", "Heart disease (heart)"]
    assert list(here.columns) == list(md.CLASSIFIERS)
    assert list(here["SCL"]) == ["n/a", "n/a"] and list(here["GFK"]) == ["n/a", "n/a"]
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
    assert f"FLDA-L has a lower error than S-LR on {better} of 2 data sets here" in captions
    assert "on 2 of them in the paper" in captions  # heart and hepatitis in Table 3
    assert "'ca'" in captions  # heart's most often missing column
    assert "PROVENANCE.md" in captions and "CC BY 4.0" in captions


def test_mean_imputation_and_no_baselines():
    at = open_page(PAGE, {**TWO_SETS, "impute": "mean", "baselines": "false"})
    assert not at.error
    here = at.dataframe[1].value
    assert list(here.columns) == ["S-SVM", "S-LR", "FLDA-Q", "FLDA-L", "T-LR"]
    assert here.loc["Heart disease (heart)", "FLDA-L"] == \
        f"{md.fit_one('heart', 'FLDA-L', 'mean').error:.3f}"
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
    assert at.get("plotly_chart")


def test_benchmark_offline_shows_a_message_and_the_papers_table(monkeypatch, tmp_path):
    from flda_core.datasets import benchmarks as bm

    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bm, "openml_reachable", lambda host: False)
    at = open_page(PAGE, {"sets": json.dumps(["hepatitis"]), "baselines": "false"})
    at.button(key="real_bench_run").click().run()
    assert not at.exception
    assert any("not available right now" in w.value and "figshare.com" in shown(w.value)
               for w in at.warning)
    paper = at.dataframe[-1].value
    assert paper.loc["W → D", "FLDA-Q"] == "0.024"  # Table 6 (DeCAF8) is the default


def test_benchmark_with_a_fake_download_runs_the_classifiers(monkeypatch, tmp_path):
    from test_benchmarks_data import FakeSkada

    from flda_core.datasets import benchmarks as bm

    fake = FakeSkada()
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bm, "openml_reachable", lambda host: True)
    monkeypatch.setattr(bm, "_skada_fetch", fake)
    at = open_page(PAGE, {"sets": json.dumps(["hepatitis"]), "baselines": "false",
                          "bench": "amazon"})
    at.selectbox(key="real_bench_pair").set_value("E → K").run()
    at.button(key="real_bench_run").click().run()
    assert not at.exception and not at.warning
    assert ("amazon", "elec", True) in fake.calls and ("amazon", "kitchen", True) in fake.calls
    here = at.dataframe[-2].value
    assert list(here.index) == ["here", "paper (Table 9)"]
    assert here.loc["paper (Table 9)", "FLDA-L"] == "0.104"
    X_s, y_s, X_t, y_t = bm.load_pair("amazon", "E → K", root=tmp_path, fetch=fake,
                                      reachable=lambda: True)
    predicted, _ = md.fit_arrays("FLDA-L", X_s, y_s, X_t, y_t)
    assert here.loc["here", "FLDA-L"] == f"{(predicted != y_t).mean():.3f}"
