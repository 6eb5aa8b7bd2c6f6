"""The shared palette: names, families and readable label colours."""

import pytest

from flda_core.figures.style import (CLASS_COLORS, CLASSIFIER_NAMES, FAMILY_COLORS, LABEL_HALO,
                             LABEL_MIN_CONTRAST, classifier_color, classifier_family,
                             classifier_name, contrast_ratio, label_color, text_halo)


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
        assert shade == color.upper()      # already readable: unchanged


def test_text_halo_surrounds_the_glyph_on_all_sides():
    halo = text_halo(1)
    assert halo.count(LABEL_HALO) == 8 and "0px 0px" not in halo
