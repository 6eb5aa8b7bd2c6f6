"""One look for every figure: colours and names of classifier families and classes.

Every page and every figure builder takes its colours and names from here, so
that S-LS/S-LR (naive source), T-LS/T-LR (target oracle) and FLDA-Q/FLDA-L
look the same everywhere (Okabe-Ito colour-blind-safe palette, readable on
light and dark backgrounds).  The names themselves are defined in
:mod:`flda_core.names` (re-exported here for the figure builders).
"""

from __future__ import annotations

import colorsys

from ..names import CLASSIFIER_NAMES, classifier_family, classifier_name

__all__ = [
    "FAMILY_COLORS", "FAMILY_DASH", "CLASS_COLORS", "CLASSIFIER_NAMES", "LABEL_HALO",
    "LABEL_MIN_CONTRAST", "classifier_name", "classifier_family", "classifier_color",
    "classifier_dash", "contrast_ratio", "label_color", "text_halo",
]

#: Colour per classifier family.
FAMILY_COLORS = {
    "source": "#E69F00",   # orange: naive source classifier (S-LS / S-LR)
    "target": "#CC79A7",   # reddish purple: target oracle (T-LS / T-LR)
    "flda": "#009E73",     # bluish green: FLDA-Q / FLDA-L
}
#: Line style per family (decision boundaries, learning curves on the target).
FAMILY_DASH = {"source": "dash", "target": "dot", "flda": "solid"}
#: Colours of class markers in scatter plots (the paper's red and blue dots).
CLASS_COLORS = ("#D55E00", "#0072B2", "#56B4E9", "#F0E442", "#999999",
                "#882255", "#44AA99", "#117733", "#332288", "#AA4499")


def classifier_color(name):
    """Colour of a classifier given its paper name (``"S-LS"``, ``"FLDA-L"``, ...)."""
    return FAMILY_COLORS[classifier_family(name)]


def classifier_dash(name):
    """Plotly dash style of a classifier given its paper name."""
    return FAMILY_DASH[classifier_family(name)]


# ----------------------------------------------------------------------------- text on any theme

#: Halo drawn round text in a data colour (see :func:`text_halo`).
LABEL_HALO = "#FFFFFF"
#: Contrast of data-coloured text with :data:`LABEL_HALO` (WCAG AA for normal text).
LABEL_MIN_CONTRAST = 4.5


def _relative_luminance(color):
    """WCAG relative luminance of ``#rrggbb``."""
    color = color.lstrip("#")
    channels = [int(color[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(color_a, color_b):
    """WCAG contrast ratio (1 to 21) of two ``#rrggbb`` colours."""
    hi, lo = sorted((_relative_luminance(color_a), _relative_luminance(color_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def label_color(color, min_contrast=LABEL_MIN_CONTRAST):
    """``color`` for text: the same hue and saturation, darkened just enough to reach
    ``min_contrast`` against white (:data:`LABEL_HALO`); unchanged if it already does.

    Markers keep the class colour itself; only the text next to them may be a
    shade darker (class 1's vermilion, the light classes of :data:`CLASS_COLORS`).
    """
    r, g, b = (int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
    hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    shade = color.upper()
    while contrast_ratio(shade, LABEL_HALO) < min_contrast and lightness > 0:
        lightness = max(0.0, lightness - 0.005)
        shade = "#" + "".join(f"{round(c * 255):02X}"
                              for c in colorsys.hls_to_rgb(hue, lightness, saturation))
    return shade


def text_halo(width=1):
    """CSS ``text-shadow`` drawing a thin white halo round text (Plotly's ``textfont.shadow``).

    Text in a :func:`label_color` then reads on light *and* dark themes: on a
    light background the halo disappears and the text has at least
    :data:`LABEL_MIN_CONTRAST` against it; on a dark one every glyph gets a
    white edge with that contrast (class 2's blue alone has only ~3.4:1
    against Streamlit's dark background).
    """
    offsets = [(dx, dy) for dx in (-width, 0, width) for dy in (-width, 0, width)
               if (dx, dy) != (0, 0)]
    return ", ".join(f"{dx}px {dy}px 1px {LABEL_HALO}" for dx, dy in offsets)
