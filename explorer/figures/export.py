"""Figures for slides and projectors: export settings (:func:`chart_config`), the
settings line of a saved image (:func:`with_settings`), projector typography
(:func:`presentation_style`) and text alternatives (:func:`alt_text`)."""

from __future__ import annotations

import copy
import re

import plotly.graph_objects as go

from explorer.figures.style import classifier_family
from explorer.names import CLASSIFIER_NAMES
from explorer.safe_text import plain_from_plotly

#: Size (CSS pixels) at which the camera button lays a figure out: a 16:9 slide.
EXPORT_WIDTH = 1600
EXPORT_HEIGHT = 900
#: Every dimension of the saved image is multiplied by this (3200 x 1800 PNG).
EXPORT_SCALE = 2
#: Projector typography (pixels): tick labels, legend and body text; titles.
PRESENTATION_FONT = 20
PRESENTATION_TITLE_FONT = 22
#: Text colour of the projector style's ticks, legend and titles: the placeholder of the
#: theme's strong text colour in plotly's "streamlit" template, which the chart element
#: replaces (#262730 in the light theme, #fafafa in the dark one).  The theme's own tick
#: colour is a grey (#808495, 3.8:1 on white), too faint from the back of a room.
PRESENTATION_TEXT_COLOR = "#000037"
#: Font size (px) of the settings line of an exported figure (:func:`with_settings`).
SETTINGS_FONT = 14
#: Smallest line width (pixels) of line traces in presentation mode.
PRESENTATION_LINE_WIDTH = 4.0
_LINE_SCALE = 1.6

_FAMILY_WORDS = {"source": "naive source", "target": "target oracle", "flda": "FLDA"}
_NAME_ALTERNATIVES = "|".join(re.escape(n) for n in sorted(CLASSIFIER_NAMES.values(), key=len, reverse=True))
_NAME_PATTERN = re.compile(rf"^({_NAME_ALTERNATIVES})(?![\w-])")


def export_filename(stem):
    """A safe, descriptive file name stem: ``"flda_"`` + lower-case words joined by ``_``.

    >>> export_filename("Figure 1: Bernoulli, θ = 0.5")
    'flda_figure_1_bernoulli_0_5'
    """
    words = re.findall(r"[a-z0-9]+", str(stem).lower())
    if not words:
        raise ValueError("The file name needs at least one letter or digit.")
    name = "_".join(words)
    return (name if name.startswith("flda") else "flda_" + name)[:100]


def chart_config(filename_stem):
    """``config=`` of the chart element: a camera button that saves a PNG of the figure laid
    out at :data:`EXPORT_WIDTH` x :data:`EXPORT_HEIGHT` (a 16:9 slide, so a horizontal
    legend is not cut) times :data:`EXPORT_SCALE`, named by :func:`export_filename` of
    ``filename_stem`` (e.g. ``"figure 4 decision boundaries"``)."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {
            "format": "png",
            "filename": export_filename(filename_stem),
            "width": EXPORT_WIDTH,
            "height": EXPORT_HEIGHT,
            "scale": EXPORT_SCALE,
        },
    }


def legend_key(name):
    """Legend group of a trace name: the classifier family, ``"paper"``, or the name itself."""
    name = name or ""
    if "paper" in name.lower():
        return "paper"
    match = _NAME_PATTERN.match(name)
    return classifier_family(match.group(1)) if match else name


def _family_label(family, names):
    present = [n for n in CLASSIFIER_NAMES.values() if classifier_family(n) == family and n in names]
    return f"{' / '.join(present)} ({_FAMILY_WORDS[family]})"


def legend_below(fig):
    """``fig`` (changed in place and returned) with a horizontal legend below the plot
    anchored to the bottom of the whole figure (``yref="container"``), so that at any size
    plotly makes room for it below the axis titles."""
    legend = fig.layout.legend
    if legend is not None and legend.orientation == "h" and (legend.y or 0) < 0:
        fig.update_layout(
            legend=dict(yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
            margin=dict(autoexpand=True),
        )
    return fig


#: Longest user text (a file or column name) a settings line keeps, in characters.
SETTINGS_TEXT_MAX = 32


def _short(text, limit=SETTINGS_TEXT_MAX):
    """User text for a settings line: one line, at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value):
    return f"{value:,}" if isinstance(value, int) else f"{float(value):g}"


def settings_line(
    *,
    data=None,
    theta=None,
    shift=None,
    seed=None,
    n_source=None,
    n_target=None,
    l2=None,
    transfer=None,
    extra=(),
):
    """The settings a figure was computed with, as one line (every page's figures and the
    lesson's: :func:`explorer.ui.charts.show_chart` writes it into the figure with
    :func:`with_settings`, so a saved PNG says what it shows).

    What does not apply is left out.  User text (in ``data`` and ``extra``) is shortened
    to one line of at most :data:`SETTINGS_TEXT_MAX` characters (twice that for ``data``).

    Parameters
    ----------
    data : str, optional
        What the data are ("Poisson", "offline stand-in digits", "source.csv → target.csv").
    theta : float, sequence of float or str, optional
        The true dropout θ per feature (a string as typed, "0.5, 0").
    shift : str, optional
        A perturbation of θ̂, e.g. ``"θ̂₁ +0.20"``.
    seed : int, optional
    n_source, n_target : int, optional
        Samples per domain.
    l2 : float or str, optional
        The ℓ2 strength (0: none) or how it was chosen ("by cross-validation").
    transfer : str, optional
        FLDA's transfer model ("dropout", "two-sided", ...).
    extra : sequence of str
        Further settings, already worded (``"ε = 0.1"``, ``"digit 3"``).

    Returns
    -------
    str

    Examples
    --------
    >>> settings_line(data="Poisson", theta=(0.5, 0), seed=3, n_source=10_000,
    ...               n_target=10_000, l2=0.0, transfer="dropout")
    'Poisson · θ = 0.5, 0 · seed 3 · n = 10,000 source, 10,000 target · no ℓ2 · transfer model: dropout'
    """
    parts = [_short(data, 2 * SETTINGS_TEXT_MAX)] if data else []  # may name two files
    if isinstance(theta, str):  # as typed ("0.5, 0")
        parts.append(f"θ = {_short(theta)}")
    elif theta is not None:
        values = [theta] if isinstance(theta, (int, float)) else list(theta)
        parts.append("θ = " + ", ".join(f"{float(t):g}" for t in values))
    if shift:
        parts.append(str(shift))
    if seed is not None:
        parts.append(f"seed {int(seed)}")
    if n_source is not None and n_target is not None:
        parts.append(f"n = {int(n_source):,} source, {int(n_target):,} target")
    elif n_source is not None:
        parts.append(f"n = {int(n_source):,}")
    if l2 is not None:
        parts.append(
            f"ℓ2 {l2}" if isinstance(l2, str) else "no ℓ2" if float(l2) == 0 else f"ℓ2 = {_number(l2)}"
        )
    parts += [_short(e) for e in extra if e]
    if transfer:
        parts.append(f"transfer model: {transfer}")
    return " · ".join(parts)


def domain_settings_line(data_key, **settings):
    """:func:`settings_line` of synthetic domains: ``data_key`` is the pages' key of
    ``explorer.ui.caches.cached_domains`` (distribution or shift preset, class
    parameters, n source, n target, θ, seed); ``settings`` the rest (``l2``, ``transfer``,
    ``shift``, ``extra``).

    >>> domain_settings_line(("poisson", ((2, 2), (6, 6)), 500, 400, (0.5, 0.0), 7), l2=0.1)
    'Poisson · θ = 0.5, 0 · seed 7 · n = 500 source, 400 target · ℓ2 = 0.1'
    """
    kind, _, n_source, n_target, theta, seed = data_key[:6]
    dropout = kind in ("bernoulli", "poisson")
    return settings_line(
        data=kind.capitalize() if dropout else f"{kind} shift",
        theta=theta if dropout else None,
        seed=seed,
        n_source=n_source,
        n_target=n_target,
        **settings,
    )


def with_settings(fig, text, size=SETTINGS_FONT):
    """``fig`` (changed in place and returned) with ``text`` (the settings it was computed
    with: θ, seed, n, l2, transfer model) as a line at its top right, so a saved image
    says what it shows (below an existing title).

    The line's text and font size (px) are also in ``fig.layout.meta["settings"]``: the
    chart element (:file:`assets/flda_chart.js`) breaks the line at its " · " where the
    chart is narrower, and adds a line's height to the top margin for each break.
    """
    if not text:
        return fig
    from explorer.safe_text import escape_plotly

    escaped = escape_plotly(text)
    size = int(size)
    # a line larger than the pages' (a slide's) starts lower: plotly places the title by
    # the title's own font, so a larger line's ascent would rise above the figure's top
    extra = max(0, size - SETTINGS_FONT)
    line = f"<span style='font-size:{size}px'>{escaped}</span>"
    # Read from the layout's JSON and set single properties: plotly's update_layout
    # took 3-4 ms a figure on every rerun (path parsing, validators), this 0.5 ms.
    layout = fig.layout.to_plotly_json()
    title = (layout.get("title") or {}).get("text")
    if title:
        fig.layout.title["text"] = f"{title}<br>{line}"
    else:
        for key, value in dict(
            text=line,
            x=1,
            xanchor="right",
            xref="container",
            y=1,
            yanchor="top",
            yref="container",
            pad=dict(t=4 + extra, r=8),
        ).items():
            fig.layout.title[key] = value
    top = (layout.get("margin") or {}).get("t") or 50
    fig.layout.margin["t"] = max(top, 50) + size + 8 + extra
    meta = layout.get("meta")
    if meta is None or isinstance(meta, dict):
        fig.layout.meta = {**(meta or {}), "settings": {"text": escaped, "size": size}}
    return fig


def _paper_label(names):
    """One legend entry for the paper's markers of several classifiers:
    "FLDA-Q, paper Table 1" and "FLDA-L, paper Table 1" -> "paper Table 1 (FLDA-Q / FLDA-L)"."""
    names = list(dict.fromkeys(names))
    if len(names) == 1:
        return names[0]
    heads, tails = zip(*[n.split(", ", 1) if ", " in n else ("", n) for n in names], strict=True)
    if len(set(tails)) == 1 and all(heads):
        return f"{tails[0]} ({' / '.join(heads)})"
    return "the paper's values (" + "; ".join(names) + ")"


#: High contrast (a dark room): white text and axes on black, grid lines a mid grey.
HIGH_CONTRAST_INK = "#ffffff"
HIGH_CONTRAST_BACKGROUND = "#000000"
HIGH_CONTRAST_GRID = "#6b6b6b"


def _one_legend_entry_per_family(fig):
    """``fig``'s legend with each classifier family once ("S-LS / S-LR (naive source)",
    toggling the whole family), the paper's markers once and every other entry once."""
    present = {m.group(1) for m in (_NAME_PATTERN.match(t.name or "") for t in fig.data) if m}
    paper_names = [
        t.name for t in fig.data if t.name and t.showlegend is not False and legend_key(t.name) == "paper"
    ]
    shown = set()
    for trace in fig.data:
        key = legend_key(trace.name)
        if key in _FAMILY_WORDS:
            trace.legendgroup = key
        if trace.showlegend is False or not trace.name:
            continue
        if key in shown:
            trace.showlegend = False
        else:
            shown.add(key)
            if key in _FAMILY_WORDS:
                trace.name = _family_label(key, present)
            elif key == "paper":  # one entry for every paper marker: name them all
                trace.name = _paper_label(paper_names)


def presentation_style(fig, font=PRESENTATION_FONT, title_font=PRESENTATION_TITLE_FONT, high_contrast=False):
    """A copy of ``fig`` styled for a projector.

    Every text is at least ``font`` px (axis titles ``title_font``), line traces at least
    :data:`PRESENTATION_LINE_WIDTH` px wide, and the legend lists each classifier family
    once (e.g. "S-LS / S-LR (naive source)", toggling the whole family).  Colours are left
    to the theme; with ``high_contrast`` every text is white on black (21:1).
    """
    font, title_font = int(font), int(title_font)
    ink = HIGH_CONTRAST_INK if high_contrast else PRESENTATION_TEXT_COLOR
    fig = go.Figure(copy.deepcopy(fig.to_dict()))
    _one_legend_entry_per_family(fig)
    for trace in fig.data:
        line = getattr(trace, "line", None) if "line" in trace else None
        mode = getattr(trace, "mode", None) or ""
        if line is not None and line.width != 0 and (trace.type != "scatter" or "lines" in mode or not mode):
            line.width = max(PRESENTATION_LINE_WIDTH, _LINE_SCALE * (line.width or 2.0))
        if "textfont" in trace and getattr(trace, "text", None) is not None:
            trace.textfont.size = max(font, trace.textfont.size or 0)
            if high_contrast and trace.type != "heatmap":
                trace.textfont.color = ink
    fig.update_layout(
        font_size=font,
        font_color=ink,
        legend=dict(font=dict(size=font, color=ink), title_font=dict(size=font, color=ink)),
        margin=dict(autoexpand=True),
    )
    if high_contrast:
        black = HIGH_CONTRAST_BACKGROUND
        fig.update_layout(paper_bgcolor=black, plot_bgcolor=black, legend_bgcolor=black, title_font_color=ink)
    legend_below(fig)
    contrast = dict(gridcolor=HIGH_CONTRAST_GRID, linecolor=ink, zerolinecolor=ink, tickcolor=ink)
    for update in (fig.update_xaxes, fig.update_yaxes):
        update(
            tickfont_size=font,
            tickfont_color=ink,
            title_font_size=title_font,
            title_font_color=ink,
            **(contrast if high_contrast else {}),
        )
    for annotation in fig.layout.annotations or ():
        annotation.font.size = max(font, annotation.font.size or 0)
        if annotation.font.color is None or high_contrast:
            annotation.font.color = ink
    colorbars = [
        getattr(fig.layout, name).colorbar
        for name in dir(fig.layout)
        if name.startswith("coloraxis") and getattr(fig.layout, name) is not None
    ]
    colorbars += [t.colorbar for t in fig.data if "colorbar" in t and t.colorbar is not None]
    for colorbar in colorbars:
        colorbar.tickfont.update(size=font, color=ink)
        colorbar.title.font.update(size=font, color=ink)
    return fig


def _axis_title(axis):
    """The plain text of an axis's title (the axis as layout JSON), or None."""
    text = ((axis or {}).get("title") or {}).get("text")
    if text is None:
        return None
    return plain_from_plotly(text) or None


def alt_text(fig):
    """One sentence describing what ``fig`` shows (for screen readers and slides).

    Plain text (no tags, entities decoded) for the chart's aria-label, built from the kind
    of chart, the axes, the panels and the legend entries, classifier names first.  The
    layout is read as JSON (plotly's property objects cost 5 ms a figure).
    """
    layout = fig.layout.to_plotly_json()
    kinds = []
    for trace in fig.data:
        kind = {"heatmap": "heat map", "bar": "bar chart"}.get(trace.type)
        if kind is None and trace.type == "scatter":
            mode = trace.mode or "lines"
            kind = "line chart" if "lines" in mode else "scatter plot"
        kinds.append(kind or f"{trace.type} chart")
    if "scatter plot" in kinds and "line chart" in kinds:
        kind = "scatter plot with lines"
    else:
        kind = max(dict.fromkeys(kinds), key=kinds.count) if kinds else "empty chart"
    x, y = _axis_title(layout.get("xaxis")), _axis_title(layout.get("yaxis"))
    text = kind[0].upper() + kind[1:]
    if x and y:
        text += f" of {y} against {x}"
    elif y or x:
        text += f" of {y or x}"
    titles = [
        plain_from_plotly(a["text"])
        for a in layout.get("annotations") or ()
        if a.get("text") and a.get("xref") == "paper" and a.get("yref") == "paper"
    ]
    if titles:
        text += f" in {len(titles)} panels ({'; '.join(titles[:4])})"
    scales = []
    for name in sorted(key for key in layout if key.startswith("coloraxis")):
        scale_title = ((layout[name].get("colorbar") or {}).get("title") or {}).get("text")
        if scale_title:
            scales.append(plain_from_plotly(scale_title))
    if scales:
        text += f", coloured by {' / '.join(dict.fromkeys(scales))}"
    entries = list(
        dict.fromkeys(plain_from_plotly(t.name) for t in fig.data if t.name and t.showlegend is not False)
    )
    classifiers = [
        n
        for n in CLASSIFIER_NAMES.values()
        if any(_NAME_PATTERN.match(e) and _NAME_PATTERN.match(e).group(1) == n for e in entries)
    ]
    others = [e for e in entries if not _NAME_PATTERN.match(e)]
    shown = classifiers + others
    if shown:
        listed = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
        text += f", showing {listed}"
    text = re.sub(r"\s+", " ", text).replace(". ", ", ")
    return text.rstrip(".") + "."
