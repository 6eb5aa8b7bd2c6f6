"""AppTest runs of the "Transfer parameters" page (paper section 4.1.3, Table 1 / Figure 4)."""

import pytest
from apptest_support import chart_specs, open_page

PAGE = "pages/transfer.py"


def _open(query=None, small=True):
    query = dict(query or {})
    if small:  # a coarser curve keeps the tests quick; the page logic is the same
        query.setdefault("curve_range", "[-0.2, 0.3]")
    return open_page(PAGE, query)


_charts = chart_specs


def _names(chart):
    return [t.get("name") for t in chart["data"]]


@pytest.fixture(scope="module")
def default_run():
    return _open()


def test_defaults_show_figure_four_curve_and_table_one(default_run):
    at = default_run
    charts = _charts(at)
    boundaries = _names(charts["tp_boundaries"])
    for label in ("S-LS", "T-LS", "FLDA-Q, θ̂₁+0", "FLDA-Q, θ̂₁+0.3", "FLDA-L, θ̂₁+0.2", "S-LR"):
        assert label in boundaries
    assert not any("your θ" in n for n in boundaries)
    curve = charts["tp_curve"]
    (flda_q,) = [t for t in curve["data"] if t.get("name") == "FLDA-Q"]
    assert flda_q["x"] == pytest.approx([-0.2, -0.15, -0.1, -0.05, 0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3])
    assert "FLDA-Q, paper Table 1" in _names(curve)
    ours, paper = at.dataframe[0].value, at.dataframe[1].value
    assert list(ours.columns) == ["SL", "TL", "θ̂₁+0", "θ̂₁+0.1", "θ̂₁+0.2", "θ̂₁+0.3"]
    assert paper.loc["Quadratic loss", "θ̂₁+0.3"] == 0.150
    # The table's +0.1 column is the curve's point at +0.1.
    assert ours.loc["Quadratic loss", "θ̂₁+0.1"] == pytest.approx(flda_q["y"][flda_q["x"].index(0.1)])
    assert len(at.get("download_button")) == 2
    for widget in (
        *at.text_input,
        *at.number_input,
        *at.radio,
        *at.slider,
        *at.select_slider,
        *at.selectbox,
        *at.multiselect,
        *at.button,
    ):
        assert widget.help, widget.label


def _own_table(at):
    """The "Your θ" table (under Figure 4, above Table 1)."""
    tables = [d.value for d in at.dataframe if "theta" in d.value.columns]
    assert len(tables) == 1
    return tables[0]


def test_slider_adds_your_theta_line_and_table():
    at = _open()
    at.slider(key="tp.delta_1").set_value(0.25).run()
    assert not at.exception
    names = _names(_charts(at)["tp_boundaries"])
    assert any(n.startswith("FLDA-Q, your θ = (0.7") for n in names)
    own = _own_table(at)
    assert list(own["classifier"]) == ["FLDA-Q", "FLDA-L"]
    assert own["theta"].iloc[0].startswith("0.7")
    assert at.query_params["delta_1"] in ("0.25", ["0.25"])


def test_hand_mode_uses_true_theta_start_and_moves():
    at = _open()
    at.radio(key="tp.own_mode").set_value("hand").run()
    assert at.slider(key="tp.theta_1").value == 0.5
    at.slider(key="tp.theta_1").set_value(0.9).run()
    assert not at.exception
    assert _own_table(at)["theta"].iloc[0] == "0.9, 0"


def test_perturbation_choice_changes_table_and_lines():
    at = _open()
    at.multiselect(key="tp.perturbations").set_value([0.0, -0.2]).run()
    assert not at.exception
    assert list(at.dataframe[0].value.columns) == ["SL", "TL", "θ̂₁-0.2", "θ̂₁+0"]
    names = _names(_charts(at)["tp_boundaries"])
    assert "FLDA-L, θ̂₁-0.2" in names and "FLDA-L, θ̂₁+0.1" not in names


def test_infeasible_perturbations_warn_and_feature_two():
    at = _open()
    at.selectbox(key="tp.feature").set_value(2).run()
    assert not at.exception
    # θ̂₂ = 0: negative shifts are impossible and skipped with a warning.
    assert list(at.dataframe[0].value.columns) == ["SL", "TL", "θ̂₂+0", "θ̂₂+0.1", "θ̂₂+0.2", "θ̂₂+0.3"]
    at.multiselect(key="tp.perturbations").set_value([-0.1, 0.0]).run()
    assert any("-0.1 skipped" in w.value for w in at.warning)


def test_bad_input_and_many_features():
    at = _open()
    at.text_input(key="tp.class2").input("6, -1").run()
    assert not at.exception
    assert any("must be between 0 and 1000" in e.value for e in at.error)
    assert at.text_input(key="tp.class2").value == "6, -1"
    at.text_input(key="tp.class2").input("6, 6").run()
    at.number_input(key="tp.n_features").set_value(3).run()
    assert not at.exception
    charts = _charts(at)
    assert "tp_boundaries" not in charts and "tp_theta" in charts


def test_l2_and_distribution_change_the_results():
    at = _open()
    before = at.dataframe[0].value.to_numpy().tolist()
    at.select_slider(key="tp.l2").set_value(0.01).run()
    assert not at.exception and at.dataframe[0].value.to_numpy().tolist() != before
    at.radio(key="tp.distribution").set_value("bernoulli").run()
    assert not at.exception
    assert at.text_input(key="tp.class1").value == "0.7, 0.7"
    assert "FLDA-Q, paper Table 1" not in _names(_charts(at)["tp_curve"])


def test_presentation_mode_hides_controls():
    at = _open({"present": "1", "delta_1": "0.2"})
    assert not at.slider and not at.text_input
    assert any("your θ" in n for n in _names(_charts(at)["tp_boundaries"]))
