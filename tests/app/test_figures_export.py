"""Slide-ready figures: export config, projector style and text alternatives."""

import numpy as np
import pytest

from figure_samples import boundary_and_curve_figures
from explorer.experiments.learning_curves import learning_curve_config, run_learning_curves
from explorer.figures import digits as fig_digits
from explorer.figures.export import (
    EXPORT_SCALE,
    PRESENTATION_FONT,
    PRESENTATION_LINE_WIDTH,
    PRESENTATION_TEXT_COLOR,
    alt_text,
    chart_config,
    export_filename,
    legend_key,
    presentation_style,
)
from explorer.figures.learning_curves import gap_figure, learning_curve_figure
from explorer.names import CLASSIFIER_NAMES
from explorer.figures.synthetic import theta_figure


@pytest.fixture(scope="module")
def figures():
    boundaries, curve = boundary_and_curve_figures()
    config, _ = learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 300, 0, ("log", 2, 300, 5))
    lc = run_learning_curves(config, 5)
    rng = np.random.default_rng(0)
    return {
        "boundaries": boundaries,
        "curve": curve,
        "theta": theta_figure(np.array([0.5, 0.0]), np.array([0.49, 0.01])),
        "learning": learning_curve_figure(lc.table),
        "gaps": gap_figure(lc.gaps),
        "rates": fig_digits.nonzero_rate_figure(rng.random(16), rng.random(16), 4, "A", "B"),
        "weights": fig_digits.digit_weights_figure(
            rng.normal(size=16), rng.random(16), rng.normal(size=16), 4, 3
        ),
    }


def test_chart_config_saves_a_large_sharp_image_under_a_descriptive_name():
    config = chart_config("Figure 4: decision boundaries")
    options = config["toImageButtonOptions"]
    assert options["format"] == "png" and options["scale"] >= 2
    assert options["width"] * options["scale"] >= 3000  # a full-HD slide at 2x
    assert options["filename"] == "flda_figure_4_decision_boundaries"
    assert options["scale"] == EXPORT_SCALE >= 2


def test_export_filename_is_safe():
    assert export_filename("../../etc/passwd") == "flda_etc_passwd"
    assert export_filename("FLDA learning curves") == "flda_learning_curves"
    with pytest.raises(ValueError):
        export_filename("θ ∈ …")


def test_legend_key_groups_by_family():
    assert legend_key("FLDA-Q") == legend_key("FLDA-L, θ̂₁ +0.1") == "flda"
    assert legend_key("S-LR") == "source" and legend_key("T-LS") == "target"
    assert legend_key("FLDA-Q, paper Table 1") == "paper"
    assert legend_key("class 1 (target)") == "class 1 (target)"


@pytest.mark.parametrize("name", ["boundaries", "curve", "theta", "learning", "gaps", "rates", "weights"])
def test_presentation_style_has_projector_text_and_one_legend_entry_per_family(figures, name):
    original = figures[name]
    before = original.to_json()
    fig = presentation_style(original)
    assert original.to_json() == before  # the input is not changed
    layout = fig.layout
    assert layout.font.size >= 16 and layout.legend.font.size >= 16
    for axis in [
        getattr(layout, a)
        for a in dir(layout)
        if a.startswith(("xaxis", "yaxis")) and getattr(layout, a) is not None
    ]:
        assert axis.tickfont.size >= 16 and axis.title.font.size >= 16
    for annotation in layout.annotations:
        assert annotation.font.size >= 16
    for name in [a for a in dir(layout) if a.startswith("coloraxis")]:
        if getattr(layout, name) is not None:
            assert getattr(layout, name).colorbar.tickfont.size >= 16
    # Colours stay with the theme: the text is the theme's strong text colour (a placeholder
    # of plotly's "streamlit" template that the chart element replaces), darker than the
    # theme's grey ticks for the back of a room (issue 25).
    assert layout.font.color == PRESENTATION_TEXT_COLOR
    for axis in (layout.xaxis, layout.yaxis):
        assert axis.tickfont.color == PRESENTATION_TEXT_COLOR and axis.tickfont.size >= 20
    visible = [t for t in fig.data if t.showlegend is not False and t.name]
    keys = [legend_key(t.name) for t in visible]
    assert len(keys) == len(set(keys))  # every entry once
    for trace in fig.data:
        if trace.type == "scatter" and "lines" in (trace.mode or "lines") and trace.line.width != 0:
            assert trace.line.width >= PRESENTATION_LINE_WIDTH
    assert PRESENTATION_FONT >= 16


def test_presentation_legend_names_the_family_members(figures):
    fig = presentation_style(figures["boundaries"])
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert "S-LS / S-LR (naive source)" in names
    assert "FLDA-Q / FLDA-L (FLDA)" in names
    assert sum("T-LS" in n for n in names) == 1
    # Before: every classifier of both panels had its own entry.
    assert (
        sum(
            t.showlegend is not False and t.name in CLASSIFIER_NAMES.values()
            for t in figures["boundaries"].data
        )
        == 6
    )


@pytest.mark.parametrize("name", ["boundaries", "curve", "theta", "learning", "gaps", "rates", "weights"])
def test_alt_text_is_one_sentence_about_the_figure(figures, name):
    text = alt_text(figures[name])
    assert text.endswith(".") and ". " not in text[:-1] and "<" not in text
    assert len(text) < 600
    for trace in figures[name].data:
        if trace.name in CLASSIFIER_NAMES.values() and trace.showlegend is not False:
            assert trace.name in text


def test_alt_text_names_axes_and_panels(figures):
    text = alt_text(figures["boundaries"])
    assert text.startswith("Scatter plot with lines of feature 2 (x₂) against feature 1 (x₁)")
    assert "2 panels (quadratic loss; logistic loss)" in text
    assert "class 1 (target)" in text
