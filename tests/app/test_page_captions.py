"""Captions follow the settings on every page (issue 12): change a setting, the caption's
numbers and claims change with the figure, and every chart is slide-ready."""

import re

import pytest
from apptest_support import chart_specs, charts, open_page
from text_numbers import numbers, sentence


def _captions(at):
    return " ".join(c.value for c in at.caption)


def test_synthetic_caption_follows_the_users_theta():
    at = open_page("pages/synthetic.py", {"theta": "0.3, 0.1", "n_source": "3000", "n_target": "3000"})
    text = _captions(at)
    assert "θ₁ = 0.3" in text and "θ₂ = 0.1" in text and "1/(1 − 0.3) = 1.43" in text
    assert "θ₁ = 0.5" not in text  # no leftover sentence about the paper's θ
    at.text_input(key="syn.theta").set_value("0.6, 0").run()
    text = _captions(at)
    assert "θ₁ = 0.6" in text and "θ₁ = 0.3" not in text
    # the FLDA/oracle sentence quotes the errors of the table on screen
    errors = at.dataframe[0].value.set_index("classifier")["target error"]
    quoted = numbers(sentence(text, "target errors").split("target errors")[1])
    assert quoted[:2] == [round(errors["FLDA-Q"], 3), round(errors["T-LS"], 3)]


def test_synthetic_figure2_caption_names_both_paper_reports():
    at = open_page(
        "pages/synthetic.py",
        {
            "distribution": "poisson",
            "class1": "2, 2",
            "class2": "6, 6",
            "n_source": "3000",
            "n_target": "3000",
        },
    )
    text = _captions(at)
    assert "Figure 2 text and its Table 1" in text
    assert numbers(sentence(text, "This run uses"))[:2] == [3000, 3000]  # source, target


def test_transfer_curve_caption_states_the_curves_own_minimum():
    at = open_page(
        "pages/transfer.py", {"curve_range": "[-0.2, 0.3]", "n_source": "3000", "n_target": "3000"}
    )
    curve = chart_specs(at)["tp_curve"]
    (flda_q,) = [t for t in curve["data"] if t.get("name") == "FLDA-Q"]
    i = min(range(len(flda_q["y"])), key=lambda k: (flda_q["y"][k], abs(flda_q["x"][k])))
    text = _captions(at)
    lowest = numbers(sentence(text, "FLDA-Q is lowest"))
    assert lowest[:2] == [round(flda_q["x"][i], 2), round(flda_q["y"][i], 3)]
    assert "flat" not in text  # no claim the numbers can contradict
    assert "Weight share |w₁|/‖w‖ of feature 1" in text
    assert "differs by at most" in text and "Figure 2 text and its Table 1" in text
    at.multiselect(key="tp.perturbations").set_value([0.0, 0.1]).run()
    assert "0.1" in _captions(at) and not at.exception


def test_learning_curve_caption_follows_the_regularisation():
    at = open_page("pages/learning_curves.py", {"repeats": "10"})
    metric = {m.label: m.value for m in at.metric}["FLDA-Q ≈ T-LS from n"]
    text = _captions(at)
    stays = sentence(text, "FLDA-Q stays within", "of the oracle T-LS from n =")
    assert numbers(stays) == [0.01, int(metric)]
    assert "No l2 regularisation" in text
    at.toggle(key="lc.l2").set_value(True).run()
    metric = {m.label: m.value for m in at.metric}["FLDA-Q ≈ T-LS from n"]
    text = _captions(at)
    assert "λ = " in text and "No l2 regularisation" not in text
    assert (f"from n = {metric} on" in text) if metric != "not yet" else "FLDA-Q is still more than" in text


def test_digits_caption_names_the_l2_of_each_map():
    at = open_page("pages/digits.py", {"l2_mode": "hand", "l2": "0.01"})
    text = _captions(at)
    both = sentence(text, "Both maps use")
    assert numbers(both) == [0.01] and "by hand" in both
    assert re.search(r"Here FLDA helps (for A → B only|for B → A only|in both|in neither)", text)


@pytest.mark.parametrize("page", ["pages/synthetic.py", "pages/transfer.py"])
def test_every_chart_is_slide_ready(page):
    at = open_page(page, {"curve_range": "[0, 0.1]", "n_source": "2000", "n_target": "2000"})
    shown_charts = charts(at)
    assert shown_charts
    for chart in shown_charts:
        options = chart.config["toImageButtonOptions"]
        assert options["scale"] >= 2 and options["width"] == 1600 and options["format"] == "png"
        assert options["filename"].startswith("flda_") and options["filename"] != "flda_"
    assert "*Chart:* Scatter plot" in _captions(at)  # text alternative under the chart


def test_presentation_mode_survives_a_page_switch_and_styles_for_the_projector():
    at = open_page("pages/synthetic.py", {"present": "1", "n_source": "2000", "n_target": "2000"})
    spec = chart_specs(at)["syn_figure"]
    assert spec["layout"]["font"]["size"] >= 16
    at.switch_page("pages/transfer.py")
    at.query_params.pop("present", None)  # what Streamlit's navigation does
    at.run()
    assert not at.exception
    assert not at.text_input  # the sidebar controls stay hidden
    assert chart_specs(at)["tp_curve"]["layout"]["font"]["size"] >= 16
    # ?present=0 switches it off again (the URL is written back by app.py; see tests/e2e)
    at.query_params["present"] = "0"
    at.run()
    assert at.text_input


def test_notes_on_the_paper_are_computed_on_request():
    at = open_page("pages/synthetic.py", {"n_source": "2000", "n_target": "2000"})
    assert not any("Verdict" in m.value for m in at.markdown)
    at.button(key="notes_button_synthetic").click().run()
    notes = [m.value for m in at.markdown if "**Verdict:**" in m.value]
    assert len(notes) == 2 and "Bayes" in notes[0]
