"""The shared palette: names, families and readable label colours."""

import pytest

from explorer.names import CLASSIFIER_NAMES, classifier_name
from explorer.figures.style import (
    CLASS_COLORS,
    FAMILY_COLORS,
    LABEL_HALO,
    LABEL_MIN_CONTRAST,
    classifier_color,
    classifier_family,
    contrast_ratio,
    label_color,
    text_halo,
)


def test_every_paper_name_maps_back_to_its_family_and_colour():
    for (family, loss), name in CLASSIFIER_NAMES.items():
        assert classifier_name(family, loss) == name
        assert classifier_family(name) == family
        assert classifier_color(name) == FAMILY_COLORS[family]
    assert len(set(FAMILY_COLORS.values())) == 3


def test_contrast_ratio_matches_the_wcag_extremes():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)


@pytest.mark.parametrize("color", CLASS_COLORS)
def test_label_colours_reach_the_minimum_contrast_against_the_halo(color):
    shade = label_color(color)
    assert contrast_ratio(shade, LABEL_HALO) >= LABEL_MIN_CONTRAST
    if contrast_ratio(color, LABEL_HALO) >= LABEL_MIN_CONTRAST:
        assert shade == color.upper()  # already readable: unchanged


def test_text_halo_surrounds_the_glyph_on_all_sides():
    halo = text_halo(1)
    assert halo.count(LABEL_HALO) == 8 and "0px 0px" not in halo


# ----------------------------------------------------------------------------- accessibility
from coloraide import Color  # noqa: E402

from explorer.figures.style import (  # noqa: E402
    MIN_CLASS_FAMILY_DIFFERENCE,
    MIN_GRAPHIC_CONTRAST,
    THEME_BACKGROUNDS,
)


def color_difference(color_a, color_b):
    """CIEDE2000 difference of two colours, ``#rrggbb`` or CIELAB (D65) triples (ColorAide's;
    about 2 is a just-noticeable difference)."""
    color_a, color_b = (Color(c) if isinstance(c, str) else Color("lab-d65", c) for c in (color_a, color_b))
    return color_a.delta_e(color_b, method="2000")


@pytest.mark.parametrize(
    "lab1, lab2, expected",
    [
        # Test pairs 1, 7, 17 and 25 of Sharma, Wu & Dalal (2005), Table 1.
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ],
)
def test_the_colour_difference_is_ciede2000(lab1, lab2, expected):
    assert color_difference(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert color_difference(lab2, lab1) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("class_color", CLASS_COLORS)
@pytest.mark.parametrize("family", sorted(FAMILY_COLORS))
def test_class_colours_are_distinct_from_every_family_colour(class_color, family):
    assert color_difference(class_color, FAMILY_COLORS[family]) >= MIN_CLASS_FAMILY_DIFFERENCE


@pytest.mark.parametrize("family", sorted(FAMILY_COLORS))
def test_the_two_scatter_classes_stand_far_from_the_boundary_colours(family):
    # Figures 1, 2 and 4 draw class 1 and class 2 under the families' boundaries;
    # the old class-1 vermillion was only ~22 from the S-LS orange.
    for class_color in CLASS_COLORS[:2]:
        assert color_difference(class_color, FAMILY_COLORS[family]) >= 30


@pytest.mark.parametrize("class_color", CLASS_COLORS)
@pytest.mark.parametrize("theme", sorted(THEME_BACKGROUNDS))
def test_class_colours_are_visible_on_the_light_and_dark_theme(class_color, theme):
    assert contrast_ratio(class_color, THEME_BACKGROUNDS[theme]) >= MIN_GRAPHIC_CONTRAST


def test_class_colours_differ_from_each_other():
    for i, a in enumerate(CLASS_COLORS):
        for b in CLASS_COLORS[i + 1 :]:
            assert color_difference(a, b) >= 20, (a, b)


def test_streamlit_theme_uses_the_same_class_palette():
    import pathlib
    import tomllib

    config = tomllib.loads(
        (pathlib.Path(__file__).parents[2] / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    )
    assert [c.upper() for c in config["theme"]["chartCategoricalColors"]] == list(CLASS_COLORS)


@pytest.mark.parametrize(
    "rows, cols, titles, options",
    [
        (1, 2, ["A: mnist.npz", "B: usps <b>x</b>.npz"], dict(horizontal_spacing=0.06)),
        (2, 3, ["heart", "", "ozone", "hepatitis", "heart"], dict(vertical_spacing=0.24)),
        (2, 4, [], dict(row_titles=["A", "B"], horizontal_spacing=0.01)),
        (2, 2, ["w1", "w2", "theta"], dict(specs=[[{}, {}], [{"colspan": 2}, None]])),
    ],
)
def test_subplot_layout_is_make_subplots_layout_for_any_titles(rows, cols, titles, options):
    """The cached layout (computed once per shape with stand-in titles) equals plotly's
    own for these titles: empty titles, repeated ones, markup, row titles, spans."""
    import json

    from plotly.subplots import make_subplots
    from plotly.utils import PlotlyJSONEncoder

    from explorer.figures import style

    expected = json.loads(
        json.dumps(
            make_subplots(rows=rows, cols=cols, subplot_titles=titles, **options).to_plotly_json()["layout"],
            cls=PlotlyJSONEncoder,
        )
    )
    assert style.subplot_layout(rows, cols, titles, **options) == expected
    # other titles of the same shape: no new make_subplots call, the right texts
    misses = style._subplot_layout_json.cache_info().misses
    renamed = [f"{t} (2)" if t else "" for t in titles]
    layout = style.subplot_layout(rows, cols, renamed, **options)
    assert style._subplot_layout_json.cache_info().misses == misses
    texts = [a["text"] for a in layout.get("annotations", [])]
    assert texts == [t for t in renamed if t] + list(options.get("row_titles", []))
