"""Plotly figures of the handwritten-digits page (section 4.2.3, Figures 5-6, Table 4).

Every image is a ``side x side`` heatmap with square pixels and row 0 at the
top (as the digit is written).  Weight maps use a diverging colour scale
centred on zero with one range shared by the naive and the adapted
classifier, so that a pixel's colour means the same weight in both panels.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go

from explorer.safe_text import escape_plotly
from explorer.figures.style import (
    axis_suffix,
    classifier_color,
    subplot_axes,
    subplot_layout,
    unvalidated_figure,
)

#: Sequential scale for probabilities in [0, 1] (non-zero rates, theta).
PROBABILITY_SCALE = "Viridis"
#: Scale for weights, centred on 0: its lightness rises monotonically, so a weight map
#: keeps its sign printed in greyscale (red-white-blue loses it).
WEIGHT_SCALE = "Cividis"
#: Ink: white paper, black ink.
INK_SCALE = "Greys"
#: The paper's Table 4 values in the error chart: mid-grey dashes (readable on the
#: light and the dark theme) with a dark outline (separates them from the bars).
PAPER_MARK_COLOR = "#999999"
PAPER_MARK_OUTLINE = "#333333"

_FONT = dict(size=14)


def as_image(values, side):
    """Reshape a flattened (row-major) image to ``(side, side)``, checking the size."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size != side * side:
        raise ValueError(f"Expected {side * side} pixel values for {side} x {side}, got {values.size}.")
    return values.reshape(side, side)


def symmetric_range(*arrays):
    """``max |value|`` over all arrays (1.0 if all are zero): a colour range centred on 0."""
    m = max((float(np.max(np.abs(a))) for a in arrays if np.size(a)), default=0.0)
    return m if m > 0 else 1.0


def _heatmap(image, k, coloraxis, name, value_label, fmt=".3f"):
    """The heat map of ``image`` in the ``k``-th subplot (``name`` is escaped for plotly)."""
    side = image.shape[0]
    name = escape_plotly(name)
    return dict(
        type="heatmap",
        z=image,
        x=np.arange(side),
        y=np.arange(side),
        coloraxis=coloraxis,
        name=name,
        hovertemplate=(
            f"<b>{name}</b><br>row %{{y}}, column %{{x}}<br>{value_label} = %{{z:{fmt}}}<extra></extra>"
        ),
        **subplot_axes(k),
    )


@functools.lru_cache(maxsize=8)
def _colorscale(name):
    """A named plotly colour scale exactly as plotly's validator expands it (cached)."""
    return [list(step) for step in go.layout.Coloraxis(colorscale=name).colorscale]


def _square_axes(layout, n_axes, side):
    """``layout`` (of ``subplot_layout``) with square pixels, row 0 at the top and no tick
    clutter in its first ``n_axes`` subplots."""
    bare = dict(
        showticklabels=False, showgrid=False, zeroline=False, ticks="", showline=False, constrain="domain"
    )
    for k in range(1, n_axes + 1):
        suffix = axis_suffix(k)
        layout.setdefault(f"xaxis{suffix}", {}).update(bare, range=[-0.5, side - 0.5])
        layout.setdefault(f"yaxis{suffix}", {}).update(
            bare, scaleanchor=f"x{suffix}", scaleratio=1, range=[side - 0.5, -0.5]
        )
    return layout


def nonzero_rate_figure(rate_a, rate_b, side, name_a, name_b, zero_tol=0.0):
    """Per-pixel probability of a non-zero value in each domain (Figure 5).

    Parameters
    ----------
    rate_a, rate_b : array-like of shape (side**2,)
        :func:`flda_core.transfer.nonzero_rate` of each domain.
    side : int
    name_a, name_b : str
    zero_tol : float
        The threshold used (shown in the title): ``|x| <= zero_tol`` is zero.

    Returns
    -------
    plotly.graph_objects.Figure
        Two square panels on one colour scale from 0 to 1.
    """
    layout = subplot_layout(
        1, 2, (f"A: {escape_plotly(name_a)}", f"B: {escape_plotly(name_b)}"), horizontal_spacing=0.06
    )
    data = [
        _heatmap(as_image(rate, side), k, "coloraxis", name, "P(pixel non-zero)", ".2f")
        for k, (rate, name) in enumerate(((rate_a, name_a), (rate_b, name_b)), start=1)
    ]
    _square_axes(layout, 2, side)
    threshold = "x ≠ 0" if zero_tol == 0 else f"|x| > {zero_tol:g}"
    layout.update(
        coloraxis=dict(
            colorscale=_colorscale(PROBABILITY_SCALE),
            cmin=0.0,
            cmax=1.0,
            colorbar=dict(title=dict(text=f"P({threshold})", side="right"), thickness=16),
        ),
        height=430,
        margin=dict(l=10, r=10, t=50, b=10),
        font=_FONT,
    )
    return unvalidated_figure(data, layout)


#: Pixel geometry of :func:`digit_weights_figure`: the weight maps' row, the gap holding
#: their colour bar and the θ map's title at projector size (120 px was too little), the
#: θ map's row.
_WEIGHT_ROW, _ROW_GAP, _THETA_ROW = 400, 150, 330
_WEIGHTS_MARGIN = dict(l=10, r=10, t=50, b=70)
#: A slide's Figure 6 (:func:`digit_weights_figure` with ``slide=True``): the three maps
#: in one row, both colour bars below them, in the bottom margin (pixels, so a slide
#: that caps the chart's height shrinks the maps, never the room for the text).
SLIDE_WEIGHTS_HEIGHT = 560
_SLIDE_MARGIN = dict(l=10, r=10, t=60, b=120)
_SLIDE_SPACING = 0.05


def _colorbar(title, **place):
    """A thin horizontal colour bar titled ``title`` above it, placed by ``place``."""
    return dict(
        title=dict(text=title, side="top"),
        orientation="h",
        xanchor="center",
        yanchor="top",
        thickness=12,
        **place,
    )


def _weights_layout(titles, side, m, slide):
    """Figure 6's layout: a slide's one row of three maps with both colour bars below, or
    the page's weight maps side by side above the θ map (see ``_WEIGHT_ROW``)."""
    if slide:
        layout = subplot_layout(1, 3, titles, horizontal_spacing=_SLIDE_SPACING)
        third = (1 - 2 * _SLIDE_SPACING) / 3
        bars = (
            dict(x=third + _SLIDE_SPACING / 2, y=-0.03, len=2 * third),
            dict(x=1 - third / 2, y=-0.03, len=third),
        )
        height, margin = SLIDE_WEIGHTS_HEIGHT, _SLIDE_MARGIN
    else:
        plot_height = _WEIGHT_ROW + _ROW_GAP + _THETA_ROW
        layout = subplot_layout(
            2,
            2,
            titles,
            specs=[[{}, {}], [{"colspan": 2}, None]],
            row_heights=[_WEIGHT_ROW, _THETA_ROW],
            vertical_spacing=_ROW_GAP / plot_height,
            horizontal_spacing=0.04,
        )
        below_weights = (_THETA_ROW + _ROW_GAP - 8) / plot_height
        bars = (dict(x=0.5, y=below_weights, len=0.5), dict(x=0.5, y=-0.02, len=0.3))
        height, margin = round(plot_height + _WEIGHTS_MARGIN["t"] + _WEIGHTS_MARGIN["b"]), _WEIGHTS_MARGIN
    _square_axes(layout, 3, side).update(
        coloraxis=dict(
            colorscale=_colorscale(WEIGHT_SCALE),
            cmin=-m,
            cmax=m,
            cmid=0.0,
            colorbar=_colorbar("weight", **bars[0]),
        ),
        coloraxis2=dict(
            colorscale=_colorscale(PROBABILITY_SCALE), cmin=0.0, cmax=1.0, colorbar=_colorbar("θ", **bars[1])
        ),
        height=height,
        margin=margin,
        font=_FONT,
    )
    return layout


def digit_weights_figure(
    w_source,
    theta,
    w_flda,
    side,
    digit,
    source_name="S-LR",
    flda_name="FLDA-L",
    shared_range=True,
    slide=False,
):
    """Naive weights, dropout ``theta`` and adapted weights for one digit (Figure 6).

    The naive and the adapted weight maps sit side by side, large enough to read pixel by
    pixel on a laptop, above the dropout map θ that explains the difference; with
    ``slide=True`` the three maps share one row (as in the paper).

    Parameters
    ----------
    w_source, w_flda : array-like of shape (side**2,)
        Weights of the predictor of ``digit`` of the naive source classifier
        and of FLDA.
    theta : array-like of shape (side**2,)
        Estimated dropout probabilities.
    side : int
    digit : label
    source_name, flda_name : str
        Paper names, e.g. ``"S-LR"`` and ``"FLDA-L"``.
    shared_range : bool, default=True
        One colour range for both weight panels (centred on 0); otherwise
        each panel is scaled to its own largest weight (the colour bar then
        shows the FLDA range and the naive panel is labelled as rescaled).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces in the paper's order (naive weights on ``x``, theta on ``x3``,
        adapted weights on ``x2``).
    """
    w_source, w_flda = as_image(w_source, side), as_image(w_flda, side)
    digit = escape_plotly(digit)
    m_src, m = symmetric_range(w_source), symmetric_range(w_flda)
    left_title = f"{source_name} weights, digit {digit}"
    if shared_range:
        m = max(m_src, m)
    else:  # the naive map rescaled to FLDA's range
        w_source, left_title = w_source * (m / m_src), f"{left_title} (×{m / m_src:.2g})"
    titles = (left_title, f"{flda_name} weights, digit {digit}", "dropout θ (transfer model)")
    # Traces in the paper's order: naive weights (x), θ (x3), adapted weights (x2).
    data = [
        _heatmap(w_source, 1, "coloraxis", source_name, "weight"),
        _heatmap(as_image(theta, side), 3, "coloraxis2", "θ", "θ", ".2f"),
        _heatmap(w_flda, 2, "coloraxis", flda_name, "weight"),
    ]
    return unvalidated_figure(data, _weights_layout(titles, side, m, slide))


def sample_images_figure(X_a, y_a, X_b, y_b, side, name_a, name_b, max_classes=10):
    """The first image of each class in each domain: what the two collections look like.

    Plain plotly JSON (:func:`~explorer.figures.style.unvalidated_figure`): ``make_subplots``
    took 0.15-0.18 s for its 20 panels.

    Returns
    -------
    plotly.graph_objects.Figure
        Two rows (A, B), one column per class (at most ``max_classes``), ink
        on a common scale from 0 to the largest value shown.
    """
    y_a, y_b = np.asarray(y_a), np.asarray(y_b)
    classes = list(np.unique(np.concatenate([y_a, y_b])))[:max_classes]
    n = len(classes)
    layout = subplot_layout(2, n, (), horizontal_spacing=0.01, vertical_spacing=0.08, row_titles=["A", "B"])
    _square_axes(layout, 2 * n, side)
    data, images = [], []
    for row, (X, y, name) in enumerate(((X_a, y_a, name_a), (X_b, y_b, name_b))):
        for col, label in enumerate(classes):
            members = np.flatnonzero(y == label)
            img = as_image(X[members[0]], side) if len(members) else np.zeros((side, side))
            images.append(img)
            data.append(_heatmap(img, row * n + col + 1, "coloraxis", f"{name}, class {label}", "ink", ".2f"))
            if row == 1:
                layout[f"xaxis{axis_suffix(n + col + 1)}"]["title"] = dict(
                    text=escape_plotly(label), standoff=2
                )
    top = max(float(np.max(images)), 1e-12)
    layout.update(
        coloraxis=dict(colorscale=_colorscale(INK_SCALE), cmin=0.0, cmax=top, showscale=False),
        height=260,
        margin=dict(l=10, r=30, t=10, b=10),
        font=_FONT,
    )
    return unvalidated_figure(data, layout)


def table4_figure(table, paper):
    """Target error per classifier and direction, with the paper's Table 4 as markers.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`explorer.experiments.digits.table4_frame` (rows: directions, columns: methods).
    paper : pandas.DataFrame
        :func:`explorer.experiments.digits.paper_table`, same row order as ``table``.

    Returns
    -------
    plotly.graph_objects.Figure
        Bars coloured by classifier family (hatched for the quadratic loss);
        the paper's values as grey, dark-outlined dashes across the matching bars.
    """
    directions = [str(i).split(":")[0] for i in table.index]
    traces = [
        go.Bar(
            x=directions,
            y=table[method].to_numpy(),
            name=method,
            marker=dict(
                color=classifier_color(method),
                pattern=dict(
                    shape="/" if method in ("S-LS", "FLDA-Q") else "",
                    fgcolor="white",
                    solidity=0.3,
                    fillmode="overlay",
                ),
                line=dict(color="#333333", width=0.5),
            ),
            # values at the foot of the bars, clear of the paper's dashes near their tops
            text=[f"{v:.1%}" for v in table[method]],
            textposition="auto",  # as the axis
            insidetextanchor="start",
            textangle=0,
            insidetextfont=dict(shadow="auto"),  # readable across the hatching
            hovertemplate=f"<b>{method}</b> %{{x}}<br>error %{{y:.3f}}<extra></extra>",
        )
        for method in table.columns
    ]
    traces += _paper_marks(table, paper)
    return go.Figure(
        traces,
        dict(
            xaxis2=dict(overlaying="x", range=[-0.5, len(directions) - 0.5], visible=False),
            barmode="group",
            bargap=0.2,
            bargroupgap=0.0,
            yaxis=dict(title="error rate on the target", range=[0, 1.05], tickformat=".0%"),
            legend=dict(orientation="h", y=-0.15, x=0.5, xanchor="center"),
            height=420,
            margin=dict(l=10, r=10, t=20, b=10),
            font=_FONT,
        ),
    )


def _paper_marks(table, paper):
    """Grey dashes at the paper's Table 4 values across the matching bars (axis ``x2``),
    each over a longer dark one, to stand out on light and dark pages and on a bar."""
    width = 0.8 / len(table.columns)
    x_marks, y_marks, texts = [], [], []
    for d, (_, row) in enumerate(paper.iterrows()):
        for k, method in enumerate(table.columns):
            value = row.get(method, np.nan)
            if np.isfinite(value):
                x_marks.append(d - 0.4 + width * (k + 0.5))
                y_marks.append(value)
                texts.append(f"{row.name}: {method} {value:.3f}")
    marks = dict(x=x_marks, y=y_marks, mode="markers", xaxis="x2", legendgroup="paper")
    outline, fill = (
        dict(symbol="line-ew", size=size, color=c, line=dict(color=c, width=w))
        for size, c, w in ((30, PAPER_MARK_OUTLINE, 6), (26, PAPER_MARK_COLOR, 3))
    )
    return [
        go.Scatter(
            **marks, name="paper, Table 4 (outline)", showlegend=False, hoverinfo="skip", marker=outline
        ),
        go.Scatter(
            **marks, name="paper, Table 4", marker=fill, text=texts, hovertemplate="%{text}<extra></extra>"
        ),
    ]
