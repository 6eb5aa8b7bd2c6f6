"""Greyscale-safe figures (issue 34): printed without colour, the classes differ by
marker shape or fill pattern and by grey, and weight maps keep their sign."""

import numpy as np
import pandas as pd

from explorer.figures import digits as digit_figures
from explorer.figures.style import CLASS_COLORS, FAMILY_DASH, MIN_CLASS_LIGHTNESS_GAP
from explorer.figures.synthetic import decision_boundary_figure
from explorer.figures.tabular import prediction_mix_figure


def _counts(domain_shift=0.0):
    return pd.DataFrame(
        {
            "x1": [0.0, 1.0, 0.0, 1.0 + domain_shift],
            "x2": [0.0, 0.0, 1.0, 1.0],
            "class": [0, 0, 1, 1],
            "count": [5, 3, 4, 6],
        }
    )


def greyscale_lightness(color):
    """CIELAB lightness L* (D65; 0 black to 100 white) of ``#rrggbb``, from ColorAide: its
    grey when printed in greyscale."""
    from coloraide import Color

    return Color(color).convert("lab-d65")["lightness"]


def test_the_two_classes_are_two_different_greys():
    gap = abs(greyscale_lightness(CLASS_COLORS[0]) - greyscale_lightness(CLASS_COLORS[1]))
    assert gap >= MIN_CLASS_LIGHTNESS_GAP
    # the paper's red and blue the palette had before were one grey
    assert abs(greyscale_lightness("#CC3311") - greyscale_lightness("#0077BB")) < 5


def test_classifier_families_differ_by_dash_as_well_as_colour():
    assert len(set(FAMILY_DASH.values())) == len(FAMILY_DASH)


def test_scatter_classes_differ_by_marker_shape_in_both_domains():
    fig = decision_boundary_figure(_counts(), [("panel", [])], source_counts=_counts())
    symbols = {t.name: t.marker.symbol for t in fig.data if t.name.startswith("class")}
    assert symbols["class 1 (target)"] != symbols["class 2 (target)"]
    assert symbols["class 1 (source)"] != symbols["class 2 (source)"]
    # and the domains by fill: every source symbol is the open variant
    assert all(symbols[f"class {k} (source)"].endswith("-open") for k in (1, 2))
    assert not any(symbols[f"class {k} (target)"].endswith("-open") for k in (1, 2))


def test_class_bars_differ_by_fill_pattern():
    predictions = pd.DataFrame({"true_label": ["a", "b", "a"], "S-LR": ["a", "a", "b"]})
    fig = prediction_mix_figure(predictions, ["a", "b"], ["S-LR"])
    shapes = [t.marker.pattern.shape or "" for t in fig.data]
    assert len(set(shapes)) == len(shapes) == 2
    # the hatching is drawn over the class colour, not instead of it (plotly's default
    # "replace" with a white foreground left the hatched bars invisible)
    assert all(t.marker.pattern.fillmode == "overlay" for t in fig.data if t.marker.pattern.shape)
    assert [t.marker.color for t in fig.data] == list(CLASS_COLORS[:2])


def _lightness_of_scale(scale):
    import plotly.colors as pc

    colors = pc.convert_colors_to_same_type([c for _, c in scale], colortype="rgb")[0]
    lightness = []
    for color in colors:
        r, g, b = (int(float(v)) for v in color[4:-1].split(","))
        lightness.append(greyscale_lightness(f"#{r:02X}{g:02X}{b:02X}"))
    return lightness


def test_the_weight_scale_keeps_the_sign_in_greyscale():
    lightness = _lightness_of_scale(digit_figures._colorscale(digit_figures.WEIGHT_SCALE))
    # monotone: the most negative weight is the darkest grey, the most positive the lightest
    assert all(b > a for a, b in zip(lightness, lightness[1:]))
    assert lightness[-1] - lightness[0] > 60


def test_the_weight_maps_use_the_monotone_scale_centred_on_zero():
    side = 4
    rng = np.random.default_rng(0)
    fig = digit_figures.digit_weights_figure(
        rng.normal(size=side * side), rng.uniform(size=side * side), rng.normal(size=side * side), side, 0
    )
    axis = fig.layout.coloraxis
    assert axis.cmid == 0.0 and axis.cmin == -axis.cmax
    lightness = _lightness_of_scale(axis.colorscale)
    assert all(b > a for a, b in zip(lightness, lightness[1:]))
