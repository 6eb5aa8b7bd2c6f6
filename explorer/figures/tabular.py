"""Plotly figures of the "Your data" page.

Each builder takes a data frame of :mod:`explorer.experiments.your_data` and returns a
``plotly.graph_objects.Figure`` in the project's style, built as plain plotly JSON
(:func:`~explorer.figures.style.unvalidated_figure`: plotly's validation of the five
figures took 70-180 ms of every rerun; the tests validate each builder's output once).
No titles: the page's section headings name the charts.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np

from explorer.safe_text import escape_plotly
from explorer.figures.style import (
    CLASS_COLORS,
    FAMILY_COLORS,
    class_pattern,
    classifier_color,
    unvalidated_figure,
)
from explorer.figures.real_data import color_of

#: Features shown by default in the per-feature bar charts.
DEFAULT_TOP_FEATURES = 20


def _figure(data, height, legend=True, xaxis=None, yaxis=None, legend_order=None, **layout):
    """The page's figure of ``data`` (trace dicts), the legend in a row of its own above the
    plot so it never covers bars (Plotly grows the top margin if entries wrap)."""
    layout.update(
        xaxis=xaxis or {},
        yaxis=yaxis or {},
        height=height,
        font=dict(size=14),
        margin=dict(l=10, r=10, t=40 if legend else 10, b=10),
        showlegend=legend,
    )
    layout["legend"] = dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0.0)
    if legend_order:
        layout["legend"]["traceorder"] = legend_order
    return unvalidated_figure(data, layout)


def _per_feature_height(n_features):
    """Height of the per-feature charts, shared so that side-by-side charts line up."""
    return max(380, 90 + 26 * n_features)


def _short(name, width=28):
    """``name`` cut to ``width`` characters and escaped for plotly (names come from files)."""
    name = str(name)
    return escape_plotly(name if len(name) <= width else name[: width - 1] + "\u2026")


def _short_labels(names, width=28):
    """Shortened names for a category axis, kept distinct (equal labels would merge
    two features into one bar): a repeated label gets a counter, e.g. ``… (2)``."""
    labels, seen = [], {}
    for name in names:
        label = _short(name, width)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            suffix = f" ({seen[label]})"
            label = _short(name, width - len(suffix)) + suffix
        labels.append(label)
    return labels


def _most_dropped(thetas, top_n):
    """The ``top_n`` features with the largest θ̂, the largest last (on top of a horizontal
    bar chart), and their labels."""
    shown = thetas.sort_values("theta", ascending=False, kind="stable").head(max(1, int(top_n))).iloc[::-1]
    return shown, _short_labels(shown["feature"])


def feature_theta_figure(thetas, top_n=DEFAULT_TOP_FEATURES):
    """Horizontal bars of θ̂ = max(0, 1 - zeta/eta) (section 3.3.1) of the ``top_n``
    features of ``thetas`` (:func:`explorer.experiments.your_data.theta_frame`) with the
    largest θ̂, on top: those FLDA expects to be missing most often in the target."""
    shown, labels = _most_dropped(thetas, top_n)
    bar = dict(
        type="bar",
        x=shown["theta"].to_numpy(),
        y=labels,
        orientation="h",
        marker=dict(color=FAMILY_COLORS["flda"]),
        name="\u03b8\u0302",
        text=[f"{t:.2f}" for t in shown["theta"]],
        textposition="outside",
        customdata=np.column_stack(
            [list(map(escape_plotly, shown["feature"])), shown["source_nonzero"], shown["target_nonzero"]]
        ),
        hovertemplate=(
            "<b>%{customdata[0]}</b><br>\u03b8\u0302 = %{x:.3f}<br>"
            "non-zero in source: %{customdata[1]:.1%}<br>"
            "non-zero in target: %{customdata[2]:.1%}<extra></extra>"
        ),
    )
    return _figure(
        [bar],
        _per_feature_height(len(shown)),
        legend=False,
        xaxis=dict(
            title=dict(text="\u03b8\u0302 = max(0, 1 \u2212 target / source non-zero rate)"),
            range=[0, 1.12],
            tickformat=".1f",
        ),
        yaxis=dict(type="category", automargin=True),
    )


def top_changed_features(thetas, top_n=DEFAULT_TOP_FEATURES):
    """The ``top_n`` features whose non-zero proportion differs most between domains.

    Sorted by decreasing ``|target_nonzero - source_nonzero|``, ties by name.
    """
    frame = thetas.assign(abs_difference=(thetas["target_nonzero"] - thetas["source_nonzero"]).abs())
    order = np.lexsort((frame["feature"].to_numpy(dtype=str), -frame["abs_difference"].to_numpy()))
    return frame.iloc[order].head(max(1, int(top_n))).reset_index(drop=True)


def nonzero_proportion_figure(thetas, top_n=DEFAULT_TOP_FEATURES, source_name="source", target_name="target"):
    """Proportion of non-zero values in source and target of the features whose
    proportions differ most (:func:`top_changed_features`), as in the paper's
    word-proportion figures for IMDB, spam and Amazon (section 4.2).  A feature rarer in
    the target gets ``theta > 0``; one more frequent cannot be dropout (``theta = 0``)."""
    shown = top_changed_features(thetas, top_n)
    labels = _short_labels(shown["feature"])
    data = [
        dict(
            type="bar",
            y=labels,
            x=shown[column].to_numpy(),
            orientation="h",
            name=_short(name, 48),
            marker=dict(color=FAMILY_COLORS[family]),
            customdata=list(map(escape_plotly, shown["feature"])),
            hovertemplate="<b>%{customdata}</b><br>"
            + name.split(" ")[0]
            + ": %{x:.1%} of rows non-zero<extra></extra>",
        )
        for column, name, family in (
            ("source_nonzero", f"source ({source_name})", "source"),
            ("target_nonzero", f"target ({target_name})", "target"),
        )
    ]
    # Horizontal bars: long feature names stay readable however many are shown.
    # Reversed category axis: the largest difference on top, source above target.
    return _figure(
        data,
        _per_feature_height(len(shown)),
        barmode="group",
        bargap=0.25,
        xaxis=dict(title=dict(text="proportion of rows non-zero"), range=[0, 1.05], tickformat=".0%"),
        yaxis=dict(type="category", autorange="reversed", automargin=True),
    )


def target_error_figure(errors):
    """Bars of the target error per classifier of ``errors``
    (:func:`explorer.experiments.your_data.target_error_table`; a row of the paper's tables)."""
    bar = dict(
        type="bar",
        x=errors["classifier"].to_numpy(),
        y=errors["error"].to_numpy(),
        marker=dict(color=[color_of(n) for n in errors["classifier"]]),  # baselines: blue
        text=[f"{e:.3f}" for e in errors["error"]],
        textposition="outside",
        customdata=np.column_stack([errors["errors"], errors["n_target"]]),
        hovertemplate=(
            "<b>%{x}</b><br>error %{y:.3f}<br>%{customdata[0]} of %{customdata[1]} wrong<extra></extra>"
        ),
    )
    top = float(errors["error"].max()) if len(errors) else 1.0
    return _figure(
        [bar],
        320,
        legend=False,
        xaxis=dict(type="category"),
        yaxis=dict(
            title=dict(text="error on labelled target rows"),
            range=[0, min(1.0, top * 1.25 + 0.02)],
            tickformat=".2f",
        ),
    )


def prediction_mix_figure(predictions, classes, names=("S-LR", "FLDA-Q", "FLDA-L")):
    """Stacked bars: the share of target rows assigned to each class, per classifier, and
    of the labelled rows' ``true_label`` if any (a classifier that predicts too many of
    one class stands out)."""
    titled = (("true labels", "true_label"), *((n, n) for n in names))
    columns = [(title, column) for title, column in titled if column in predictions.columns]
    values = {column: predictions[column].dropna().map(str) for _, column in columns}
    data = []
    for k, cls in enumerate(str(c) for c in classes):
        counts = [int((values[column] == cls).sum()) for _, column in columns]
        shares = [n / max(1, len(values[c])) for n, (_, c) in zip(counts, columns, strict=True)]
        data.append(
            dict(
                type="bar",
                x=[title for title, _ in columns],
                y=shares,
                name=_short(cls, 30),
                # hatched as well as coloured: the classes stay apart in greyscale
                marker=dict(
                    color=CLASS_COLORS[k % len(CLASS_COLORS)],
                    # white hatching over the class colour ("replace", the default,
                    # drew the hatching alone on a transparent bar)
                    pattern=dict(
                        shape=class_pattern(k), fillmode="overlay", fgcolor="#FFFFFF", fgopacity=0.9
                    ),
                ),
                customdata=counts,
                hovertemplate=(
                    f"class {_short(cls, 30)}<br>%{{y:.1%}} (%{{customdata}} rows)<extra></extra>"
                ),
            )
        )
    return _figure(
        data,
        340,
        barmode="stack",
        bargap=0.35,
        legend_order="normal",
        xaxis=dict(type="category"),
        yaxis=dict(title=dict(text="share of target rows"), range=[0, 1], tickformat=".0%"),
    )


def feature_weights_figure(thetas, top_n=DEFAULT_TOP_FEATURES, source_model="S-LR", flda_model="FLDA-L"):
    """Weights of the source classifier and of FLDA for the most dropped features.

    FLDA shrinks the weights of features often missing in the target (large theta) and
    leans on the others, as Figure 6 shows for digit pixels.  Needs the ``"<model>
    weight"`` columns of :func:`explorer.experiments.your_data.theta_frame` (binary tasks).
    """
    columns = [f"{source_model} weight", f"{flda_model} weight"]
    missing = [c for c in columns if c not in thetas.columns]
    if missing:
        raise ValueError(f"thetas has no column(s) {missing}; weights exist for binary tasks only.")
    shown, labels = _most_dropped(thetas, top_n)
    data = [
        dict(
            type="bar",
            y=labels,
            x=shown[column].to_numpy(),
            orientation="h",
            name=model,
            marker=dict(color=classifier_color(model)),
            customdata=np.column_stack([list(map(escape_plotly, shown["feature"])), shown["theta"]]),
            hovertemplate=(
                f"<b>%{{customdata[0]}}</b><br>{model} weight %{{x:.3f}}"
                "<br>\u03b8\u0302 = %{customdata[1]:.2f}<extra></extra>"
            ),
        )
        for model, column in zip((source_model, flda_model), columns, strict=True)
    ]
    return _figure(
        data,
        max(300, 100 + 34 * len(shown)),
        barmode="group",
        bargap=0.2,
        xaxis=dict(
            title=dict(text="weight (scaled features; positive favours the second class)"),
            zeroline=True,
            zerolinewidth=2,
        ),
        yaxis=dict(type="category", automargin=True),
    )
