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

from explorer.names import classifier_family

#: Colour per classifier family.
FAMILY_COLORS = {
    "source": "#E69F00",  # orange: naive source classifier (S-LS / S-LR)
    "target": "#CC79A7",  # reddish purple: target oracle (T-LS / T-LR)
    "flda": "#009E73",  # bluish green: FLDA-Q / FLDA-L
}
#: Line style per family (decision boundaries, learning curves on the target).
FAMILY_DASH = {"source": "dash", "target": "dot", "flda": "solid"}
#: Colours of class markers in scatter plots (the paper's red and blue first): every one
#: at least :data:`MIN_CLASS_FAMILY_DIFFERENCE` (CIEDE2000) from every family colour and
#: :data:`MIN_GRAPHIC_CONTRAST` against both :data:`THEME_BACKGROUNDS`; classes 1 and 2 are
#: :data:`MIN_CLASS_LIGHTNESS_GAP` apart in greyscale, classes 3-10 picked greedily.
#: Mirrored in ``.streamlit/config.toml`` (``chartCategoricalColors``).
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
#: Marker shape per class: classes differ by shape as well as colour (greyscale, colour
#: blindness); a source domain's markers are the open variant (:func:`class_symbol`).
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

    Text in a :func:`label_color` then reads on light *and* dark themes (class 2's blue
    alone has only ~3.9:1 against Streamlit's dark background).
    """
    offsets = [(dx, dy) for dx in (-width, 0, width) for dy in (-width, 0, width) if (dx, dy) != (0, 0)]
    return ", ".join(f"{dx}px {dy}px 1px {LABEL_HALO}" for dx, dy in offsets)


# --- Figures redrawn on every change are built as plain plotly JSON (issue 13) ---------


def axis_suffix(index):
    """Plotly's axis-name suffix of the ``index``-th subplot (1-based, row by row): "" for
    the first, then "2", "3", ... (``xaxis2``, ``x2``)."""
    return "" if index == 1 else str(index)


def subplot_axes(index):
    """A trace's ``xaxis`` and ``yaxis`` of the ``index``-th subplot (``x2``, ``y2``)."""
    suffix = axis_suffix(index)
    return dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")


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

    Validating the ~1,500 properties of a figure with several panels takes 40-60 ms on
    every rerun; the tests validate these builders' figures instead.
    """
    import plotly.graph_objects as go

    return go.Figure(dict(data=data, layout=layout), _validate=False)
