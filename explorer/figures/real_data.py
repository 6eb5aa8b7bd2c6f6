"""Plotly figures of the Real data page (the paper's Tables 3 and 5-9), built as plain
plotly JSON (:func:`~explorer.figures.style.unvalidated_figure`: validation took 20-90 ms
a run)."""

from __future__ import annotations

import numpy as np

from explorer.figures.style import FAMILY_COLORS, classifier_color, unvalidated_figure

#: Colour of the domain-adaptation baselines (Okabe-Ito blue).
BASELINE_COLOR = "#0072B2"
#: Colour of the observed missing rate in the θ̂ chart (Okabe-Ito vermilion).
MISSING_COLOR = "#D55E00"
_FONT = dict(size=13)


def color_of(name):
    """Bar colour of a classifier: its family's colour (S-SVM: S-LR's), blue for the baselines."""
    if name == "S-SVM":
        return FAMILY_COLORS["source"]
    try:
        return classifier_color(name)
    except KeyError:
        return BASELINE_COLOR


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
    frame = frame.sort_values(["_key", "_order"], ascending=[False, True]).head(int(top_n)).iloc[::-1]
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
