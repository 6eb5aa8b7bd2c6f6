"""The Lesson's slides (issue 34): the presenter's key map, the type scale, the figure's
sizes for the window's height and high contrast in the figures."""

import re

import pytest
from figure_samples import boundary_and_curve_figures

from explorer.figures import export
from explorer.safe_text import plain_from_plotly
from explorer.ui import slides

#: Issue 34's floors, in % of the viewport's height.
FLOORS = {"body": 3.0, "number": 5.0, "chart": 2.2, "settings": 1.8}
#: The keys of docs' class-session design, each with what it must do.
EXPECTED = {
    "ArrowRight": "next",
    " ": "next",
    "PageDown": "next",
    "N": "next",
    "ArrowLeft": "back",
    "PageUp": "back",
    "P": "back",
    "Home": "first",
    "End": "last",
    "O": "overview",
    "Escape": "overview",
    "B": "black",
    ".": "black",
    "W": "why",
    "A": "numbers",
    "R": "reset",
    "H": "contrast",
    "?": "help",
}


def test_every_key_of_the_design_does_its_action_in_either_case():
    for key, action in EXPECTED.items():
        assert slides.KEY_MAP[key] == action, key
        if len(key) == 1 and key.isalpha():
            assert slides.KEY_MAP[key.lower()] == action, key
    # digits are the jump's, never another action's
    assert not any(k.isdigit() for k in slides.KEY_MAP)
    assert set(slides.SERVER_ACTIONS) <= set(slides.KEY_MAP.values()) | {"jump"}


def test_outside_slides_only_arrows_paging_and_space_move_between_steps():
    assert {slides.KEY_MAP[k] for k in slides.PAGE_KEYS} == {"next", "back"}
    assert not any(len(k) == 1 and k.isalpha() for k in slides.PAGE_KEYS)


def test_the_list_of_keys_names_every_action_once():
    rows = slides.key_list(in_class=True)
    assert [what for _, what in rows] == list(slides.ACTION_TEXT.values())
    # outside a class, the class's keys are not listed
    alone = [what for _, what in slides.key_list()]
    assert alone == [t for a, t in slides.ACTION_TEXT.items() if a not in slides.CLASS_ACTIONS]
    keys = dict(zip(slides.ACTION_TEXT, (k for k, _ in rows), strict=True))
    assert keys["next"].split(" / ") == ["→", "Space", "Page Down", "N"]
    assert keys["black"].split(" / ") == ["B", "."]
    assert keys["overview"].split(" / ") == ["O", "Esc"]
    assert keys["join"] == "J" and keys["bars"] == "V"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("next", ("next", None)),
        ("contrast", ("contrast", None)),
        ("jump:1", ("jump", 0)),
        ("jump:12", ("jump", 11)),
        ("jump:13", None),
        ("jump:0", None),
        ("jump:-1", None),
        ("jump:x", None),
        ("jump", None),
        ("next:2", None),
        ("overview", None),  # the browser's alone
        ("eval", None),
        (None, None),
        (3, None),
    ],
)
def test_the_keyboard_elements_value_is_checked(value, expected):
    assert slides.parse_action(value, 12) == expected


@pytest.mark.parametrize("height", [480, 720, 768, 1080, 1440, 2160])
def test_type_meets_the_floors_at_every_screen_height(height):
    for kind, floor in FLOORS.items():
        assert slides.TYPE_SCALE[kind] >= floor
        assert slides.type_px(kind, height) >= floor * height / 100
    style = slides.chart_style(height)
    assert style["font"] >= FLOORS["chart"] * height / 100
    assert style["settings_font"] >= FLOORS["settings"] * height / 100
    assert style["font"] < slides.type_px("body", height)  # a chart's text below the body's
    assert slides.chart_style(None) == slides.chart_style(slides.DEFAULT_VIEWPORT)


def test_the_stylesheet_sizes_slide_text_from_the_viewport():
    css = slides.slide_css(False)
    for kind in ("body", "number", "title"):
        assert f"font-size: {slides.TYPE_SCALE[kind]}vh !important" in css
    assert "#000000" not in css
    contrast = slides.slide_css(True)
    assert contrast.startswith(css[: -len("</style>")]) and "#000000" in contrast


def _luminance(hex_color):
    channels = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a, b):
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_high_contrast_colours_are_at_least_seven_to_one():
    css = slides.HIGH_CONTRAST_CSS
    pairs = [("#ffffff", "#000000"), ("#ffff00", "#000000")]  # text, links
    assert "color: #ffffff" in css and "color: #ffff00" in css and "background: #000000" in css
    # the primary button: black on white
    assert re.search(r'button\[kind="primary"\] \{ background: #ffffff', css)
    for text, back in pairs + [(export.HIGH_CONTRAST_INK, export.HIGH_CONTRAST_BACKGROUND)]:
        assert _contrast(text, back) >= 7


def test_a_slides_figure_takes_its_sizes_and_contrast():
    boundaries, _ = boundary_and_curve_figures()
    style = slides.chart_style(1080, contrast=True)
    settings_font = style.pop("settings_font")
    fig = export.presentation_style(boundaries, **style)
    layout = fig.layout
    axes = [
        getattr(layout, a) for a in dir(layout) if a.startswith(("xaxis", "yaxis")) and getattr(layout, a)
    ]
    assert axes and all(a.tickfont.size == style["font"] for a in axes)
    assert all(a.tickfont.color == export.HIGH_CONTRAST_INK for a in axes)
    assert layout.legend.font.size == style["font"] >= 0.022 * 1080
    assert layout.paper_bgcolor == layout.plot_bgcolor == export.HIGH_CONTRAST_BACKGROUND
    for annotation in layout.annotations:
        assert annotation.font.color == export.HIGH_CONTRAST_INK
    # the settings line at the slide's size, in the figure and in what the chart element reads
    export.with_settings(fig, "seed 3 · n = 10", size=settings_font)
    assert f"font-size:{settings_font}px" in fig.layout.title.text
    assert fig.layout.meta["settings"]["size"] == settings_font >= 0.018 * 1080
    assert plain_from_plotly(fig.layout.title.text).endswith("seed 3 · n = 10")
    # without the slide's sizes the projector style is unchanged
    plain = export.presentation_style(boundaries)
    assert plain.layout.xaxis.tickfont.size == export.PRESENTATION_FONT
    assert plain.layout.paper_bgcolor is None
