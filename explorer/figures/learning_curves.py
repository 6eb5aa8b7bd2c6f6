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
    subplot_axes,
    subplot_layout,
    unvalidated_figure,
)

#: Line style per validation domain (Figure 3's caption: dotted source, solid target).
DOMAIN_DASH = {"source": "dot", "target": "solid"}
#: Panel titles, in row order (source on top).
DOMAIN_TITLES = {d: f"Error on the {d} validation set" for d in ("source", "target")}
_FAMILY_ORDER = {"source": 0, "target": 1, "flda": 2}
LEGEND = "classifier (dotted: source validation, solid: target validation)  "
_N_AXIS_TITLE = {"text": "number of training samples n (log scale)"}


def log_ticks(n_min, n_max):
    """Log-axis 1-2-5 ticks covering ``[n_min, n_max]`` and short labels (``"2k"``)."""
    ticks = [m * 10**e for e in range(0, 8) for m in (1, 2, 5)]
    ticks = [t for t in ticks if n_min <= t <= n_max] or [n_min, n_max]
    labels = [f"{t // 1000:d}k" if t >= 1000 and t % 1000 == 0 else f"{t:,}" for t in ticks]
    return ticks, labels


def _log_n_axis(table):
    """A log axis of ``table``'s sample sizes n with :func:`log_ticks`."""
    tickvals, ticktext = log_ticks(int(table["n"].min()), int(table["n"].max()))
    return {"type": "log", "tickvals": tickvals, "ticktext": ticktext}


def _curve(classifier, rows, value, dash, band, **props):
    """A ``classifier``'s curve (``rows`` sorted by n, mean in column ``value``) under its
    translucent, legend-less mean ± SEM band (``band``: the band's extra properties; None:
    no band).  ``props`` are the line's (``name``, ``hovertemplate``, axes, ...)."""
    n, mean = rows["n"].to_numpy(), rows[value].to_numpy()
    sem, color = np.nan_to_num(rows["sem"].to_numpy()), classifier_color(classifier)
    axes = {k: props[k] for k in ("xaxis", "yaxis") if k in props}
    band_trace = dict(
        type="scatter",
        x=np.concatenate([n, n[::-1]]),
        y=np.concatenate([mean + sem, (mean - sem)[::-1]]),
        mode="lines",
        fill="toself",
        fillcolor=rgba(color, 0.2),
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        legendgroup=classifier,
        **axes,
        **(band or {}),
    )
    line = dict(
        type="scatter",
        x=n,
        y=mean,
        mode="lines+markers",
        legendgroup=classifier,
        line={"color": color, "dash": dash, "width": 2.5},
        marker={"symbol": "circle", "size": 6, "color": color},
        **props,
    )
    return ([] if band is None else [band_trace]) + [line]


def learning_curve_figure(table, show_sem=True, log_y=False, slide=False):
    """Figure 3: mean error against training-set size, with SEM bands.

    One row per validation domain (source on top, as in the paper), each with S-LS, T-LS
    and FLDA-Q, against ``n`` on a log scale.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`explorer.experiments.learning_curves.summarize_errors`.
    show_sem, log_y : bool
        Draw the +/- SEM bands; logarithmic error axis.
    slide : bool, default=False
        At most three ticks per error axis, so 20 px tick labels fit a slide's small panels.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if table.empty:
        raise ValueError("The learning-curve table is empty; nothing to plot.")
    layout = subplot_layout(
        2, 1, list(DOMAIN_TITLES.values()), shared_xaxes=True, vertical_spacing=0.12, horizontal_spacing=0.08
    )
    data, legend_seen = [], set()
    for row, domain in enumerate(DOMAIN_TITLES, start=1):
        curves = table[table["domain"] == domain].groupby("classifier", sort=False)
        # in family order: naive source, oracle, FLDA
        for name, rows in sorted(curves, key=lambda c: _FAMILY_ORDER[c[1]["family"].iloc[0]]):
            rows = rows.sort_values("n")
            data += _curve(
                name,
                rows,
                "mean_error",
                DOMAIN_DASH[domain],
                {"name": f"{name} +/- SEM"} if show_sem else None,
                name=name,
                showlegend=name not in legend_seen,
                customdata=np.column_stack([np.nan_to_num(rows["sem"]), rows["repeats"]]),
                hovertemplate=(
                    f"<b>{name}</b> on the {domain} validation set<br>n = %{{x}}<br>error = %{{y:.4f}} "
                    "+/- %{customdata[0]:.4f} (SEM, %{customdata[1]} repeats)<extra></extra>"
                ),
                **subplot_axes(row),
            )
            legend_seen.add(name)
        layout[f"xaxis{axis_suffix(row)}"].update(_log_n_axis(table))
        layout[f"yaxis{axis_suffix(row)}"].update(
            # short: two rows of a small slide leave ~100 px per panel ("classification
            # error" ran into the other row's title)
            title={"text": "error"},
            type="log" if log_y else "linear",
            rangemode="tozero" if not log_y else "normal",
            **({"nticks": 3} if slide else {}),
        )
    layout["xaxis2"]["title"] = _N_AXIS_TITLE
    for annotation in layout.get("annotations", []):
        annotation.setdefault("font", {})["size"] = 15
    layout.update(
        height=760,
        hovermode="closest",
        # below the plot (anchored to the figure's bottom by export.legend_below): above
        # it, a legend that wraps to a second line ran into the top panel's title
        legend=dict(orientation="h", yanchor="top", y=-0.14, xanchor="left", x=0.0, title={"text": LEGEND}),
        margin={"l": 70, "r": 20, "t": 50, "b": 60},
        font={"size": 14},
    )
    return unvalidated_figure(data, layout)


def gap_figure(gaps, height=420):
    """Target-domain error minus the target oracle's, with paired SEM bands.

    How quickly FLDA-Q closes the gap to the oracle T-LS and how large the naive source
    classifier's gap stays (Figure 3's bottom panel as differences).

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
    for name, rows in gaps.groupby("classifier", sort=False):
        rows = rows.sort_values("n")
        data += _curve(
            name,
            rows,
            "mean_gap",
            "solid",
            {},
            name=f"{name} − {rows['reference'].iloc[0]}",
            customdata=np.nan_to_num(rows["sem"].to_numpy()),
            hovertemplate=(
                f"<b>{name}</b><br>n = %{{x}}<br>gap = %{{y:.4f}} "
                "+/- %{customdata:.4f} (paired SEM)<extra></extra>"
            ),
        )
    zero = {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": 0.0, "y1": 0.0, "yref": "y"}
    layout = dict(
        template=default_template(),
        shapes=[{**zero, "line": {"color": "#777777", "width": 1}}],
        xaxis={**_log_n_axis(gaps), "title": _N_AXIS_TITLE},
        yaxis={"title": {"text": "target error minus oracle's"}, "zeroline": False},
        height=height,
        font={"size": 14},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0},
        margin={"l": 70, "r": 20, "t": 50, "b": 60},
    )
    return unvalidated_figure(data, layout)
