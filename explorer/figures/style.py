"""One look for every figure: colours and names of classifier families and classes.

Every page and every figure builder takes its colours and names from here, so
that S-LS/S-LR (naive source), T-LS/T-LR (target oracle) and FLDA-Q/FLDA-L
look the same everywhere (Okabe-Ito colour-blind-safe palette, readable on
light and dark backgrounds).  The names themselves are defined in
:mod:`explorer.names` (re-exported here for the figure builders).
"""

from __future__ import annotations

import colorsys
import functools
import json
import math

from explorer.names import CLASSIFIER_NAMES, classifier_family, classifier_name

__all__ = [
    "FAMILY_COLORS",
    "FAMILY_DASH",
    "CLASS_COLORS",
    "CLASS_SYMBOLS",
    "CLASS_PATTERNS",
    "MIN_CLASS_LIGHTNESS_GAP",
    "class_symbol",
    "class_pattern",
    "greyscale_lightness",
    "CLASSIFIER_NAMES",
    "LABEL_HALO",
    "LABEL_MIN_CONTRAST",
    "classifier_name",
    "classifier_family",
    "classifier_color",
    "classifier_dash",
    "rgba",
    "contrast_ratio",
    "label_color",
    "text_halo",
    "THEME_BACKGROUNDS",
    "MIN_GRAPHIC_CONTRAST",
    "MIN_CLASS_FAMILY_DIFFERENCE",
    "srgb_to_lab",
    "color_difference",
]

#: Colour per classifier family.
FAMILY_COLORS = {
    "source": "#E69F00",  # orange: naive source classifier (S-LS / S-LR)
    "target": "#CC79A7",  # reddish purple: target oracle (T-LS / T-LR)
    "flda": "#009E73",  # bluish green: FLDA-Q / FLDA-L
}
#: Line style per family (decision boundaries, learning curves on the target).
FAMILY_DASH = {"source": "dash", "target": "dot", "flda": "solid"}
#: Colours of class markers in scatter plots (the paper's red and blue dots first).
#: Chosen so that every class colour differs from every family colour by a
#: CIEDE2000 colour difference of at least :data:`MIN_CLASS_FAMILY_DIFFERENCE`
#: (class 1's red and class 2's blue, drawn under the decision boundaries, by
#: more than 30) and has at least :data:`MIN_GRAPHIC_CONTRAST` against both
#: theme backgrounds (:data:`THEME_BACKGROUNDS`); classes 3-10 were picked
#: greedily for the largest distance to the colours before them.  Class 1 is the
#: darkest red and class 2 the lightest blue those contrasts allow, so that printed
#: in greyscale they are two greys :data:`MIN_CLASS_LIGHTNESS_GAP` apart in CIELAB
#: lightness (the paper's red and blue, #CC3311 and #0077BB, were one grey).  Mirrored
#: in ``.streamlit/config.toml`` (``chartCategoricalColors``).
CLASS_COLORS = (
    "#C21A0A",
    "#1697F3",
    "#6F9E00",
    "#D300EB",
    "#7B6024",
    "#136C63",
    "#BA215E",
    "#9188DD",
    "#0E9FAF",
    "#C38474",
)
#: Marker shape per class (scatter plots): classes differ by shape as well as colour,
#: so that they stay apart in greyscale and for readers who do not see the colours.
#: A source domain's markers are the open variant (:func:`class_symbol`).
CLASS_SYMBOLS = (
    "circle",
    "diamond",
    "square",
    "triangle-up",
    "cross",
    "x",
    "star",
    "hexagon",
    "pentagon",
    "triangle-down",
)
#: Fill pattern per class (stacked bars): class 1 solid, the others hatched.
CLASS_PATTERNS = ("", "/", ".", "x", "\\", "-", "|", "+", "", "/")
#: Smallest CIELAB lightness gap between classes 1 and 2 (printed in greyscale).
MIN_CLASS_LIGHTNESS_GAP = 15.0
#: Background colours of Streamlit's light and dark themes (``.streamlit/config.toml``
#: sets only the accent colour, so these are Streamlit's defaults).
THEME_BACKGROUNDS = {"light": "#FFFFFF", "dark": "#0E1117"}
#: WCAG 2.1 (1.4.11) minimum contrast of graphical objects against their background.
MIN_GRAPHIC_CONTRAST = 3.0
#: Smallest CIEDE2000 difference between a class colour and a family colour.
MIN_CLASS_FAMILY_DIFFERENCE = 20.0


def class_symbol(k, open_marker=False):
    """Plotly marker symbol of class ``k`` (0-based); ``open_marker``: the outline only."""
    symbol = CLASS_SYMBOLS[int(k) % len(CLASS_SYMBOLS)]
    return f"{symbol}-open" if open_marker else symbol


def class_pattern(k):
    """Plotly bar fill pattern (``marker.pattern.shape``) of class ``k`` (0-based)."""
    return CLASS_PATTERNS[int(k) % len(CLASS_PATTERNS)]


def greyscale_lightness(color):
    """CIELAB lightness L* (0 black to 100 white) of ``#rrggbb``: its grey when printed
    in greyscale."""
    return srgb_to_lab(color)[0]


def rgba(color, alpha):
    """``"#RRGGBB"`` -> ``"rgba(r, g, b, alpha)"``: a translucent fill of ``color``."""
    r, g, b = (int(color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


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
    channels = [int(color[i : i + 2], 16) / 255 for i in (0, 2, 4)]
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
    shade darker (the lighter classes of :data:`CLASS_COLORS`).
    """
    r, g, b = (int(color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    shade = color.upper()
    while contrast_ratio(shade, LABEL_HALO) < min_contrast and lightness > 0:
        lightness = max(0.0, lightness - 0.005)
        shade = "#" + "".join(
            f"{round(c * 255):02X}" for c in colorsys.hls_to_rgb(hue, lightness, saturation)
        )
    return shade


def text_halo(width=1):
    """CSS ``text-shadow`` drawing a thin white halo round text (Plotly's ``textfont.shadow``).

    Text in a :func:`label_color` then reads on light *and* dark themes: on a
    light background the halo disappears and the text has at least
    :data:`LABEL_MIN_CONTRAST` against it; on a dark one every glyph gets a
    white edge with that contrast (class 2's blue alone has only ~3.9:1
    against Streamlit's dark background).
    """
    offsets = [(dx, dy) for dx in (-width, 0, width) for dy in (-width, 0, width) if (dx, dy) != (0, 0)]
    return ", ".join(f"{dx}px {dy}px 1px {LABEL_HALO}" for dx, dy in offsets)


# ----------------------------------------------------------------------------- colour difference


def srgb_to_lab(color):
    """CIELAB ``(L*, a*, b*)`` of an sRGB ``#rrggbb`` colour (D65 white point)."""
    color = color.lstrip("#")
    linear = [
        v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        for v in (int(color[i : i + 2], 16) / 255 for i in (0, 2, 4))
    ]
    r, g, b = linear
    xyz = (
        0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
        0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
        0.0193339 * r + 0.1191920 * g + 0.9503041 * b,
    )
    white = (0.95047, 1.0, 1.08883)
    delta = 6 / 29

    def f(t):
        return t ** (1 / 3) if t > delta**3 else t / (3 * delta**2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip(xyz, white))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _ciede2000(lab1, lab2):
    """CIEDE2000 colour difference of two CIELAB triples (Sharma, Wu & Dalal 2005)."""
    (L1, a1, b1), (L2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    d_big_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    dl, dc, dhh = (L2 - L1) / s_l, (c2p - c1p) / s_c, d_big_h / s_h
    return math.sqrt(dl**2 + dc**2 + dhh**2 + r_t * dc * dhh)


def color_difference(color_a, color_b):
    """CIEDE2000 difference of two colours, ``#rrggbb`` strings or CIELAB triples.

    About 2 is a just-noticeable difference; categorical colours that must be
    told apart at a glance should differ by well over 10.

    References
    ----------
    Sharma, G., Wu, W. and Dalal, E. N. (2005). The CIEDE2000 color-difference
    formula: implementation notes, supplementary test data, and mathematical
    observations. Color Research & Application 30(1), 21-30.
    """
    lab_a = srgb_to_lab(color_a) if isinstance(color_a, str) else color_a
    lab_b = srgb_to_lab(color_b) if isinstance(color_b, str) else color_b
    return _ciede2000(lab_a, lab_b)


# --- Figures redrawn on every change are built as plain plotly JSON (issue 13) ---------


def axis_suffix(row, col, cols):
    """Plotly's axis-name suffix of subplot (row, col) in a grid of ``cols`` columns
    ("" for the first subplot, then "2", "3", ...: ``xaxis2``, ``x2``)."""
    index = (row - 1) * cols + col
    return "" if index == 1 else str(index)


@functools.lru_cache(maxsize=64)
def _subplot_layout_json(rows, cols, titles, options_json):
    from plotly.subplots import make_subplots
    from plotly.utils import PlotlyJSONEncoder

    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(titles), **json.loads(options_json))
    return json.dumps(fig.to_plotly_json()["layout"], cls=PlotlyJSONEncoder)


def subplot_layout(rows, cols, titles, **options):
    """``make_subplots``' layout (axis domains, shared axes, title annotations) as a
    fresh dict.  ``make_subplots`` takes 20-60 ms, so plotly computes the layout once
    per shape and options, with stand-ins for the titles (their text changes no
    position; an empty title has no annotation), and the JSON text is cached: a figure
    with other titles (another data set's name, a user's file) costs no more."""
    titles = [str(title) for title in titles]
    stand_ins = tuple(f"\ue000{k}" if title else "" for k, title in enumerate(titles))
    layout = json.loads(_subplot_layout_json(rows, cols, stand_ins, json.dumps(options, sort_keys=True)))
    text_of = {stand_in: title for stand_in, title in zip(stand_ins, titles, strict=True) if stand_in}
    for annotation in layout.get("annotations", ()):
        annotation["text"] = text_of.get(annotation.get("text"), annotation.get("text"))
    return layout


@functools.lru_cache(maxsize=1)
def _default_template_json():
    import plotly.graph_objects as go

    return go.Figure().to_json()


def default_template():
    """The template plotly gives a new ``go.Figure()`` (the current default), as a dict."""
    return json.loads(_default_template_json())["layout"]["template"]


def unvalidated_figure(data, layout):
    """A ``go.Figure`` from plain plotly JSON, without plotly's per-property validation.

    Validating the ~1,500 properties of a figure with several panels takes
    40-60 ms, on every rerun that redraws it; the builders that use this are
    validated once in the tests instead (each builds ``go.Figure(fig.to_dict())``
    with validation and checks that nothing changes).
    """
    import plotly.graph_objects as go

    return go.Figure(dict(data=data, layout=layout), _validate=False)
