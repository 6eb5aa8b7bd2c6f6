"""Plotly figures of the learning-curve experiment (paper section 4.1.2, Figure 3).

The builders take the long table of :func:`explorer.experiments.learning_curves.summarize_errors`
(columns ``classifier, family, loss, domain, n, mean_error, sem, repeats``) and
never import streamlit.  Colours and names come from :mod:`explorer.figures.style`;
as in the paper's caption, curves on the *source* validation set are dotted
and curves on the *target* validation set are solid.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np

from explorer.figures.style import (
    axis_suffix,
    classifier_color,
    default_template,
    rgba,
    subplot_layout,
    unvalidated_figure,
)

__all__ = ["DOMAIN_DASH", "DOMAIN_TITLES", "log_ticks", "learning_curve_figure", "gap_figure"]

#: Line style per validation domain (Figure 3's caption: dotted source, solid target).
DOMAIN_DASH = {"source": "dot", "target": "solid"}
DOMAIN_TITLES = {
    "source": "Error on the source validation set",
    "target": "Error on the target validation set",
}
#: Row order of the panels.
_DOMAIN_ORDER = ("source", "target")


def log_ticks(n_min, n_max):
    """Log-axis 1-2-5 ticks covering ``[n_min, n_max]`` and short labels (``"2k"``)."""
    ticks = [m * 10**e for e in range(0, 8) for m in (1, 2, 5)]
    ticks = [t for t in ticks if n_min <= t <= n_max] or [n_min, n_max]
    labels = [f"{t // 1000:d}k" if t >= 1000 and t % 1000 == 0 else f"{t:,}" for t in ticks]
    return ticks, labels


_FAMILY_ORDER = {"source": 0, "target": 1, "flda": 2}


def _curves(table):
    """``{domain: [(classifier, rows sorted by n), ...]}``, classifiers in family order
    (naive source, oracle, FLDA): one grouping instead of a mask per curve."""
    curves = {}
    for (domain, name), rows in table.groupby(["domain", "classifier"], sort=False):
        curves.setdefault(domain, []).append(
            (_FAMILY_ORDER[rows["family"].iloc[0]], name, rows.sort_values("n"))
        )
    return {
        key: [(name, rows) for _, name, rows in sorted(parts, key=lambda p: p[0])]
        for key, parts in curves.items()
    }


def learning_curve_figure(table, show_sem=True, log_y=False, height=None, slide=False):
    """Figure 3: mean error against training-set size, with SEM bands.

    One row per validation domain (source on top, target below, as in the
    paper), each with S-LS, T-LS and FLDA-Q.  The x-axis is the number of
    training samples on a log scale (for FLDA: ``n`` labelled source plus
    ``n`` unlabelled target samples).  Bands are mean +/- one standard error
    of the mean over repeats.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`explorer.experiments.learning_curves.summarize_errors`.
    show_sem : bool, default=True
        Draw the +/- SEM bands.
    log_y : bool, default=False
        Logarithmic error axis.
    height : int or None
        Figure height in pixels (default: 360 per row plus room for the legend).
    slide : bool, default=False
        A lesson slide, short of height: at most three ticks per error axis, so that
        projector-sized (20 px) tick labels do not touch in panels ~70 px tall.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if table.empty:
        raise ValueError("The learning-curve table is empty; nothing to plot.")
    titles = [DOMAIN_TITLES[d] for d in _DOMAIN_ORDER]
    layout = subplot_layout(2, 1, titles, shared_xaxes=True, vertical_spacing=0.12, horizontal_spacing=0.08)
    data, legend_seen, curves = [], set(), _curves(table)
    for row, domain in enumerate(_DOMAIN_ORDER, start=1):
        for name, curve in curves.get(domain, []):
            data += _curve_traces(name, curve, domain, show_sem, name not in legend_seen, _axes(row))
            legend_seen.add(name)
    _style_axes(layout, log_ticks(int(table["n"].min()), int(table["n"].max())), log_y, slide)
    for annotation in layout.get("annotations", []):
        annotation.setdefault("font", {})["size"] = 15
    layout.update(
        height=height or 760,
        hovermode="closest",
        # below the plot (anchored to the figure's bottom by export.legend_below): above
        # it, a legend that wraps to a second line ran into the top panel's title
        legend={
            "orientation": "h",
            "yanchor": "top",
            "y": -0.14,
            "xanchor": "left",
            "x": 0.0,
            "title": {"text": "classifier (dotted: source validation, solid: target validation)  "},
        },
        margin={"l": 70, "r": 20, "t": 50, "b": 60},
        font={"size": 14},
    )
    return unvalidated_figure(data, layout)


def gap_figure(gaps, height=420):
    """Target-domain error minus the target oracle's, with paired SEM bands.

    Shows how quickly FLDA-Q closes the gap to the classifier trained on
    labelled target data (T-LS) and how large the naive source
    classifier's gap stays (section 4.1.2, Figure 3 bottom panel, re-plotted
    as differences).  Below 0 means better than the oracle.

    Parameters
    ----------
    gaps : pandas.DataFrame
        Output of :func:`explorer.experiments.learning_curves.oracle_gaps`
        (columns ``classifier, reference, n, mean_gap, sem``).
    height : int

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if gaps.empty:
        raise ValueError("The gap table is empty; nothing to plot.")
    data = []
    for name, curve in gaps.groupby("classifier", sort=False):
        curve = curve.sort_values("n")
        n = curve["n"].to_numpy()
        mean = curve["mean_gap"].to_numpy()
        sem = np.nan_to_num(curve["sem"].to_numpy())
        color = classifier_color(name)
        data.append(_sem_band(n, mean, sem, color, name))
        data.append(
            dict(
                type="scatter",
                x=n,
                y=mean,
                mode="lines+markers",
                name=f"{name} − {curve['reference'].iloc[0]}",
                legendgroup=name,
                line={"color": color, "width": 2.5, "dash": "solid"},
                marker={"symbol": "circle", "size": 6, "color": color},
                customdata=sem,
                hovertemplate=(
                    f"<b>{name}</b><br>n = %{{x}}<br>gap = %{{y:.4f}} "
                    "+/- %{customdata:.4f} (paired SEM)<extra></extra>"
                ),
            )
        )
    tickvals, ticktext = log_ticks(int(gaps["n"].min()), int(gaps["n"].max()))
    layout = dict(
        template=default_template(),
        shapes=[
            {
                "type": "line",
                "x0": 0,
                "x1": 1,
                "xref": "x domain",
                "y0": 0.0,
                "y1": 0.0,
                "yref": "y",
                "line": {"color": "#777777", "width": 1},
            }
        ],
        xaxis={
            "type": "log",
            "title": {"text": "number of training samples n (log scale)"},
            "tickvals": tickvals,
            "ticktext": ticktext,
        },
        yaxis={"title": {"text": "target error minus oracle's"}, "zeroline": False},
        height=height,
        font={"size": 14},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0},
        margin={"l": 70, "r": 20, "t": 50, "b": 60},
    )
    return unvalidated_figure(data, layout)


def _style_axes(layout, ticks, log_y, slide):
    """Log n-axes with ``ticks`` (values, labels) on both rows; error axes titled "error"
    (the panel titles say which), log or from zero; at most three ticks on a slide."""
    for row in (1, 2):
        suffix = axis_suffix(row, 1, 1)
        layout[f"xaxis{suffix}"].update(type="log", tickvals=ticks[0], ticktext=ticks[1])
        if row == 2:
            layout[f"xaxis{suffix}"]["title"] = {"text": "number of training samples n (log scale)"}
        layout[f"yaxis{suffix}"].update(
            # short: two rows of a small slide leave ~100 px per panel ("classification
            # error" ran into the other row's title)
            title={"text": "error"},
            type="log" if log_y else "linear",
            rangemode="tozero" if not log_y else "normal",
            **({"nticks": 3} if slide else {}),
        )


def _curve_traces(name, curve, domain, show_sem, in_legend, axes):
    """One learning curve (rows of one classifier and domain, sorted by n): its SEM band
    (if ``show_sem``) and its line."""
    n, mean = curve["n"].to_numpy(), curve["mean_error"].to_numpy()
    sem = np.nan_to_num(curve["sem"].to_numpy())
    color = classifier_color(name)
    band = [_sem_band(n, mean, sem, color, name, name=f"{name} +/- SEM", **axes)] if show_sem else []
    return band + [
        dict(
            type="scatter",
            x=n,
            y=mean,
            mode="lines+markers",
            name=name,
            legendgroup=name,
            showlegend=in_legend,
            line={"color": color, "dash": DOMAIN_DASH[domain], "width": 2.5},
            marker={"symbol": "circle", "size": 6, "color": color},
            customdata=np.column_stack([sem, curve["repeats"].to_numpy()]),
            hovertemplate=(
                f"<b>{name}</b> on the {domain} validation set<br>n = %{{x}}<br>error = %{{y:.4f}} "
                "+/- %{customdata[0]:.4f} (SEM, %{customdata[1]} repeats)<extra></extra>"
            ),
            **axes,
        )
    ]


def _axes(row):
    suffix = axis_suffix(row, 1, 1)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _sem_band(n, mean, sem, color, group, name=None, **axes):
    """The translucent mean +/- SEM band of one curve (legend-less)."""
    band = dict(
        type="scatter",
        x=np.concatenate([n, n[::-1]]),
        y=np.concatenate([mean + sem, (mean - sem)[::-1]]),
        mode="lines",
        fill="toself",
        fillcolor=rgba(color, 0.2),
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        legendgroup=group,
        **axes,
    )
    if name is not None:
        band["name"] = name
    return band
