"""Plotly figures of the "Real data" (Tables 2-3) and "Paper benchmarks" (Tables 5-9) pages.

* :func:`error_comparison_figure` -- one panel per data set or domain pair, one bar per
  classifier (target error here, optionally with its standard error) with the paper's
  value as a mark;
* :func:`reproduction_figure` -- every cell of a table, this run against the paper;
* :func:`theta_figure` -- FLDA's θ̂ per feature of one data set beside the
  fraction of target rows in which the feature is actually missing.

Both are built as plain plotly JSON (:func:`~explorer.figures.style.unvalidated_figure`):
plotly's ``make_subplots`` and validation took 85-90 ms of each run that drew the six
panels, 20-50 ms for the θ̂ chart; the tests run them through that validation once.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.figures.digits import PAPER_MARK_COLOR, PAPER_MARK_OUTLINE
from explorer.figures.style import (
    FAMILY_COLORS,
    axis_suffix,
    classifier_color,
    subplot_layout,
    unvalidated_figure,
)

__all__ = [
    "BASELINE_COLOR",
    "MISSING_COLOR",
    "color_of",
    "error_comparison_figure",
    "reproduction_figure",
    "theta_figure",
]

#: Colour of the domain-adaptation baselines (Okabe-Ito blue).
BASELINE_COLOR = "#0072B2"
#: Colour of the observed missing rate in the θ̂ chart (Okabe-Ito vermilion).
MISSING_COLOR = "#D55E00"
_FONT = dict(size=13)


def color_of(name):
    """Bar colour of a classifier: its family's colour, blue for the baselines.

    S-SVM is a naive source classifier like S-LR and shares its colour.
    """
    if name == "S-SVM":
        return FAMILY_COLORS["source"]
    try:
        return classifier_color(name)
    except KeyError:
        return BASELINE_COLOR


def error_comparison_figure(errors, paper=None, columns=3, se=None, table="Table 3"):
    """Target error per classifier, one panel per data set, the paper's values marked.

    Parameters
    ----------
    errors : DataFrame
        Data sets (index) x classifiers (columns), errors in [0, 1]; NaN cells
        (classifiers not run) get no bar.
    paper : DataFrame, optional
        The paper's table in the same layout; drawn as grey marks.
    columns : int
        Panels per row.
    se : DataFrame, optional
        Standard errors in the layout of ``errors``: error bars of ± one SE.
    table : str
        The paper's table, named in the legend and the hover text.
    """
    names = list(errors.index)
    rows = max(1, math.ceil(len(names) / columns))
    layout = subplot_layout(
        rows, columns, names, shared_yaxes=False, vertical_spacing=0.24, horizontal_spacing=0.05
    )
    classifiers = list(errors.columns)
    colors = [color_of(c) for c in classifiers]
    data = []
    for i, name in enumerate(names):
        suffix = axis_suffix(i // columns + 1, i % columns + 1, columns)
        axes = dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")
        values = errors.loc[name]
        bars = {}
        if se is not None:  # thin and short: the paper's wide mark stays readable beside it
            spread = se.loc[name].to_numpy(dtype=float)
            bars = {"error_y": dict(type="data", array=spread, color="#555555", thickness=1.2, width=3)}
        data.append(
            dict(
                type="bar",
                x=classifiers,
                y=values.to_numpy(dtype=float),
                **bars,
                marker=dict(color=colors),
                name="here",
                legendgroup="here",
                showlegend=i == 0,
                hovertemplate="%{x}: error %{y:.3f} (here)<extra>" + name + "</extra>",
                **axes,
            )
        )
        if paper is not None and name in paper.index:
            marks = paper.loc[name].reindex(classifiers).to_numpy(dtype=float)
            data.append(_paper_marks(classifiers, marks, name, table, i == 0, axes))
        yaxis = layout[f"yaxis{suffix}"]
        yaxis.update(range=[0, 1], tickformat=".1f")
        if i % columns == 0:
            yaxis["title"] = dict(text="target error")
        # upright names: 13 classifiers in a third of the page, slanted (-60°) they ran into
        # each other and into the next row's panel titles
        layout[f"xaxis{suffix}"]["tickangle"] = -90
    layout.update(
        height=380 * rows + 60,
        margin=dict(l=50, r=10, t=60, b=10),
        font=_FONT,
        bargap=0.25,
        legend=dict(orientation="h", yanchor="bottom", y=1.06, x=0),
    )
    return unvalidated_figure(data, layout)


def _paper_marks(classifiers, marks, name, table, legend, axes):
    """The paper's values of one panel: wide grey dashes over the bars."""
    return dict(
        type="scatter",
        x=classifiers,
        y=marks,
        mode="markers",
        name=f"paper, {table}",
        legendgroup="paper",
        showlegend=legend,
        marker=dict(
            symbol="line-ew", size=18, color=PAPER_MARK_COLOR, line=dict(width=4, color=PAPER_MARK_OUTLINE)
        ),
        hovertemplate=f"%{{x}}: error %{{y:.3f}} (paper, {table})<extra>{name}</extra>",
        **axes,
    )


#: Marker shapes of :func:`reproduction_figure`, one per classifier (greyscale-readable).
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down")


def reproduction_figure(errors, paper, table):
    """This run's error (y) against the paper's (x), one marker per (pair, classifier).

    On the diagonal this run reproduces the paper; the dotted lines are ± 0.03 from it.

    Parameters
    ----------
    errors, paper : DataFrame
        Pairs (index) x classifiers (columns); classifiers the paper lacks are left out.
    table : str
        The paper's table (axis title).
    """
    data = [
        dict(
            type="scatter",
            x=[0, 1],
            y=[0 + d, 1 + d],
            mode="lines",
            showlegend=False,
            hoverinfo="skip",
            line=dict(color="#888888", width=1, dash="solid" if d == 0 else "dot"),
        )
        for d in (0.0, -0.03, 0.03)
    ]
    for k, name in enumerate(c for c in errors.columns if c in paper.columns):
        data.append(
            dict(
                type="scatter",
                x=paper[name].to_numpy(dtype=float),
                y=errors[name].to_numpy(dtype=float),
                text=list(errors.index),
                mode="markers",
                name=name,
                marker=dict(
                    color=color_of(name),
                    symbol=_SYMBOLS[k % len(_SYMBOLS)],
                    size=10,
                    line=dict(width=1, color="#333333"),
                ),
                hovertemplate=name + ", %{text}: here %{y:.3f}, paper %{x:.3f}<extra></extra>",
            )
        )
    layout = dict(
        xaxis=dict(range=[0, 1], title=dict(text=f"target error in the paper's {table}"), constrain="domain"),
        yaxis=dict(range=[0, 1], title=dict(text="target error here"), scaleanchor="x", constrain="domain"),
        height=520,
        font=_FONT,
        margin=dict(l=60, r=10, t=30, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
    )
    return unvalidated_figure(data, layout)


def theta_figure(thetas, top_n=25, title=None):
    """θ̂ per feature beside the fraction of target rows where it is missing.

    Parameters
    ----------
    thetas : DataFrame
        Columns ``feature``, ``theta`` and ``missing in target`` (see
        :func:`explorer.experiments.missing_data.theta_table`).
    top_n : int
        Features shown: those with the largest θ̂ or missing rate (ties in
        file order), largest on top.
    """
    frame = thetas.assign(_order=np.arange(len(thetas)))
    frame = frame.assign(_key=np.maximum(frame["theta"], frame["missing in target"]))
    frame = frame.sort_values(["_key", "_order"], ascending=[False, True]).head(int(top_n))
    frame = frame.iloc[::-1]
    features = frame["feature"].to_numpy()
    data = [
        dict(
            type="bar",
            y=features,
            x=frame["theta"].to_numpy(),
            orientation="h",
            name="θ̂ (FLDA's estimate)",
            marker=dict(color=FAMILY_COLORS["flda"]),
            hovertemplate="%{y}: θ̂ = %{x:.3f}<extra></extra>",
        ),
        dict(
            type="scatter",
            y=features,
            x=frame["missing in target"].to_numpy(),
            mode="markers",
            name="share of target rows missing it",
            marker=dict(symbol="diamond", size=9, color=MISSING_COLOR, line=dict(width=1, color="#333333")),
            hovertemplate="%{y}: missing in %{x:.1%} of the target rows<extra></extra>",
        ),
    ]
    layout = dict(
        xaxis=dict(range=[0, 1.02], title=dict(text="probability")),
        height=max(260, 22 * len(frame) + 120),
        font=_FONT,
        margin=dict(l=10, r=10, t=50 if title else 30, b=40),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
    )
    if title is not None:
        layout["title"] = dict(text=title)
    return unvalidated_figure(data, layout)
