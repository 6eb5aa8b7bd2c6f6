"""The look configured in ``.streamlit/config.toml`` (no browser needed)."""

import tomllib

import e2e_harness as h
from explorer.figures import style

CONFIG = tomllib.loads((h.ROOT / ".streamlit" / "config.toml").read_text())
#: Streamlit's default app backgrounds (``streamlit config show``).
BACKGROUNDS = {"light": "#ffffff", "dark": "#171614"}


def _css(hex_color):
    r, g, b = (int(hex_color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({r}, {g}, {b})"


def test_viewer_toolbar_hides_developer_chrome():
    assert CONFIG["client"]["toolbarMode"] == "viewer"


def test_default_chart_colours_are_the_classes_palette():
    colors = CONFIG["theme"]["chartCategoricalColors"]
    assert [c.upper() for c in colors] == [c.upper() for c in style.CLASS_COLORS]


def test_accent_colour_visible_in_both_themes_and_not_a_family_colour():
    for scheme, background in BACKGROUNDS.items():
        accent = CONFIG["theme"][scheme]["primaryColor"]
        # WCAG 1.4.11: user-interface components need 3:1 against their background
        assert h.contrast(_css(accent), _css(background)) >= 3, (scheme, accent)
        assert accent.upper() not in {c.upper() for c in style.FAMILY_COLORS.values()}
        assert accent.upper() not in {c.upper() for c in style.CLASS_COLORS}
