"""Plotly figures of the paper's artificial-data experiments (section 4.1): decision
boundaries (Figures 1, 2 and 4), error against the perturbation of θ̂ (Table 1 as a
curve) and true versus estimated dropout.

Bernoulli and Poisson data lie on a lattice, so scatter plots show one marker per
(lattice point, class) whose *area* is proportional to the number of samples there
(:func:`marker_sizes`); hovering shows the exact count.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from explorer.names import LOSS_TITLES, subscript
from explorer.figures.style import (
    CLASS_COLORS,
    class_symbol,
    FAMILY_COLORS,
    classifier_color,
    classifier_dash,
    label_color,
    rgba,
    axis_suffix,
    subplot_axes,
    subplot_layout,
    text_halo,
    unvalidated_figure,
)

#: Largest and smallest marker diameters (pixels) of lattice scatter plots.
MAX_MARKER_SIZE = 34.0
MIN_MARKER_SIZE = 4.0
#: With at most this many target lattice points, counts are printed beside markers.
MAX_LABELLED_POINTS = 16
# Boundaries mostly run from top left to bottom right: counts sit across them.
_COUNT_POSITIONS = ("top right", "bottom left")
#: Margin (in feature units) around a labelled lattice, so counts fit inside the axes and
#: stay off the panel titles and tick labels on a 1280 x 720 slide (0.55 let them touch).
LABELLED_MIN_PAD = 0.7
#: Fill opacity of target-domain discs; their outline stays opaque so that two
#: classes sharing a lattice point both remain visible, on light and dark themes.
TARGET_FILL_ALPHA = 0.45


@dataclass(frozen=True)
class BoundaryLine:
    """A linear decision boundary ``coef[0] * x1 + coef[1] * x2 + intercept = 0`` to draw.

    ``label`` is the legend entry; ``hover`` extra text (e.g. the error).
    """

    label: str
    coef: tuple
    intercept: float
    color: str
    dash: str = "solid"
    opacity: float = 1.0
    width: float = 3.0
    hover: str = ""
    annotation: str = ""


def marker_sizes(counts, max_count, max_size=MAX_MARKER_SIZE, min_size=MIN_MARKER_SIZE):
    """Marker diameters whose *area* is proportional to ``counts``.

    ``max_count`` gets ``max_size``; every point at least ``min_size`` (single samples).
    """
    counts = np.asarray(counts, dtype=float)
    if max_count <= 0:
        return np.full(counts.shape, min_size)
    return np.maximum(min_size, max_size * np.sqrt(counts / max_count))


def plot_ranges(*frames, min_pad=0.35):
    """Axis ranges ``((x_lo, x_hi), (y_lo, y_hi))`` covering every point of ``frames``
    (outputs of :func:`explorer.experiments.synthetic.lattice_counts`) with a margin of 6 %
    of the span, at least ``min_pad``, so no marker is cut."""
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return (-0.5, 1.5), (-0.5, 1.5)
    ranges = []
    for column in ("x1", "x2"):
        values = np.concatenate([f[column].to_numpy() for f in frames])
        lo, hi = float(values.min()), float(values.max())
        pad = max(min_pad, 0.06 * (hi - lo))
        ranges.append((lo - pad, hi + pad))
    return tuple(ranges)


def boundary_segment(coef, intercept, x_range, y_range):
    """The part of the line ``w1 x1 + w2 x2 + b = 0`` inside the rectangle ``x_range`` x
    ``y_range`` (vertical and horizontal lines included).

    Returns
    -------
    (xs, ys) : pair of ndarray of shape (2,), or None
        End points of the visible segment; ``None`` when both weights are 0
        (no boundary: the classifier predicts one class everywhere) or the
        line misses the rectangle.
    """
    w1, w2 = (float(c) for c in coef)
    b = float(intercept)
    if w1 == 0.0 and w2 == 0.0:
        return None
    (x0, x1), (y0, y1) = x_range, y_range
    points = []
    tol = 1e-9 * max(1.0, abs(x1 - x0), abs(y1 - y0))
    if w2 != 0.0:
        for x in (x0, x1):
            y = -(b + w1 * x) / w2
            if y0 - tol <= y <= y1 + tol:
                points.append((x, min(max(y, y0), y1)))
    if w1 != 0.0:
        for y in (y0, y1):
            x = -(b + w2 * y) / w1
            if x0 - tol <= x <= x1 + tol:
                points.append((min(max(x, x0), x1), y))
    if not points:
        return None
    points = np.unique(np.round(np.array(points), 12), axis=0)
    if len(points) < 2:
        return None  # the line only touches a corner
    # The two points farthest apart span the visible segment.
    dist = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    i, j = np.unravel_index(np.argmax(dist), dist.shape)
    segment = points[[i, j]]
    return segment[:, 0], segment[:, 1]


def boundary_equation(coef, intercept, digits=3):
    """Readable equation, e.g. ``"0.166·x₁ + 0.168·x₂ − 1.335 = 0"``."""
    w1, w2 = coef
    return (
        f"{w1:.{digits}g}·x₁ {'+' if w2 >= 0 else '−'} {abs(w2):.{digits}g}·x₂ "
        f"{'+' if intercept >= 0 else '−'} {abs(intercept):.{digits}g} = 0"
    )


def _line(fit, color, dash="solid", label=None, hover=None, **style):
    """The :class:`BoundaryLine` of a fit's first two weights (hover: its errors and θ)."""
    return BoundaryLine(
        label=label or fit.name,
        coef=(float(fit.coef[0]), float(fit.coef[1])),
        intercept=fit.intercept,
        color=color,
        dash=dash,
        hover=hover
        or (
            f"target error {fit.target_error:.3f}, source error {fit.source_error:.3f}"
            f"<br>θ used: {', '.join(f'{t:.3f}' for t in fit.theta[:2])}"
        ),
        **style,
    )


def boundary_lines(fits):
    """:class:`BoundaryLine` per fitted classifier (colour and dash by family).

    ``fits``: :class:`~explorer.experiments.synthetic.FittedLinear` on the two plotted features.
    """
    return [_line(f, classifier_color(f.name), classifier_dash(f.name)) for f in fits]


def perturbed_boundary_lines(naive_fits, sweep_fits, feature=0):
    """Boundary lines of Figure 4: the naive S-*/T-* classifiers and FLDA at each
    perturbation of theta (from :func:`~explorer.experiments.synthetic.perturbation_sweep`).

    FLDA lines share the FLDA colour; the unperturbed fit is opaque and
    larger perturbations fade, and each line end carries its perturbation.
    """
    ordered = sorted(sweep_fits, key=lambda f: abs(f.perturbation))
    n = max(1, len(ordered) - 1)
    return boundary_lines(naive_fits) + [
        _line(
            f,
            FAMILY_COLORS["flda"],
            label=f"{f.name}, θ̂{subscript(feature + 1)}{f.perturbation:+g}",
            opacity=1.0 - 0.5 * rank / n,  # the faintest stays visible on dark themes
            width=3.0 if f.perturbation == 0 else 2.2,
            annotation=f"{f.perturbation:+g}",
        )
        for rank, f in enumerate(ordered)
    ]


def own_theta_line(fit, theta):
    """Boundary of FLDA fitted with a θ the user chose (dash-dot, FLDA colour; Figure 4)."""
    label = f"{fit.name}, your θ = ({', '.join(f'{t:.2f}' for t in theta)})"
    return _line(
        fit, FAMILY_COLORS["flda"], "dashdot", label, f"target error {fit.target_error:.3f}", width=3.5
    )


def _scatter_traces(counts, max_count, domain, col, show_legend, label_counts):
    """One marker trace per class (plain plotly JSON, see :func:`unvalidated_figure`)."""
    traces, target = [], domain == "target"
    for k in sorted(counts["class"].unique()):
        part, label = counts[counts["class"] == k], f"class {k + 1}"
        color = CLASS_COLORS[int(k) % len(CLASS_COLORS)]
        text = [f"{c:,}" for c in part["count"]] if label_counts and target else None
        traces.append(
            dict(
                type="scatter",
                x=part["x1"].to_numpy(),
                y=part["x2"].to_numpy(),
                mode="markers+text" if text else "markers",
                textposition=_COUNT_POSITIONS[int(k) % 2],
                # Counts in (a shade of) the class colour, bold, with a thin white halo:
                # legible on light and dark themes and next to grid and boundary lines
                # (class 2's blue alone has only ~3.4:1 on the dark background).
                textfont=dict(color=label_color(color), size=13, weight="bold", shadow=text_halo()),
                cliponaxis=False,
                name=f"{label} ({domain})",
                legendgroup=f"{domain}-{k}",
                showlegend=show_legend,
                marker=dict(
                    size=marker_sizes(part["count"], max_count),
                    color=rgba(color, TARGET_FILL_ALPHA) if target else color,
                    # the class by shape as well as colour (greyscale prints); the source open
                    symbol=class_symbol(k, open_marker=not target),
                    line=dict(color=color, width=2.0),
                ),
                customdata=part["count"].to_numpy(),
                hovertemplate=(
                    f"{label}, {domain} domain<br>x₁ = %{{x:.3g}}, "
                    "x₂ = %{y:.3g}<br>%{customdata:,} samples<extra></extra>"
                ),
                **subplot_axes(col),
                **({"text": text} if text else {}),
            )
        )
    return traces


def _boundary_trace(line, x_range, y_range, col, rank):
    """The boundary's line trace and, if it is labelled, its annotation (or None)."""
    segment = boundary_segment(line.coef, line.intercept, x_range, y_range)
    label, axes = line.label, subplot_axes(col)
    if segment is None:
        why = "no boundary: all weights are 0" if not any(line.coef) else "boundary outside the plotted area"
        xs, ys, label = [None], [None], f"{line.label} ({why})"
    else:
        xs, ys = segment
    trace = dict(
        type="scatter",
        x=xs,
        y=ys,
        mode="lines",
        name=label,
        legendgroup=line.label,
        legendrank=rank,
        opacity=line.opacity,
        line=dict(color=line.color, dash=line.dash, width=line.width),
        hovertemplate=(
            f"<b>{line.label}</b><br>{boundary_equation(line.coef, line.intercept)}<br>{line.hover}"
            "<extra></extra>"
        ),
        **axes,
    )
    if not line.annotation or segment is None:
        return trace, None
    end = int(np.argmax(xs))
    return trace, dict(
        x=xs[end],
        y=ys[end],
        text=line.annotation,
        showarrow=False,
        xanchor="right",
        yanchor="bottom",
        opacity=line.opacity,
        font=dict(color=line.color, size=13),
        xref=axes["xaxis"],
        yref=axes["yaxis"],
    )


def _lattice_ticks(axis_range):
    """One tick per whole number on short axes (binary or small count features):
    ticks such as 0.2 or -0.2 would suggest values the data never take."""
    lo, hi = axis_range
    return dict(tick0=0, dtick=1) if hi - lo <= 8 else {}


def _panels_figure(data, layout, height, legend_y):
    """The side-by-side panels of ``data`` with the section's margins and a legend below."""
    layout.update(
        height=height,
        margin=dict(l=60, r=20, t=50, b=20),
        legend=dict(orientation="h", yanchor="top", y=legend_y, x=0, font=dict(size=13)),
        hoverlabel=dict(namelength=-1),
    )
    return unvalidated_figure(data, layout)


def decision_boundary_figure(target_counts, panels, source_counts=None, height=560, points_domain="target"):
    """Target-domain scatter with decision boundaries: the paper's Figures 1, 2 and 4.

    Parameters
    ----------
    target_counts : DataFrame
        ``experiments.synthetic.lattice_counts`` of the target domain (filled markers).
    panels : sequence of (str, sequence of BoundaryLine)
        One subplot per entry, side by side, e.g. ``[("Quadratic loss",
        lines_q), ("Logistic loss", lines_l)]`` as in the paper.
    source_counts : DataFrame, optional
        ``experiments.synthetic.lattice_counts`` of the source domain (open markers).
    height : int
    points_domain : {"target", "source"}
        The domain ``target_counts`` come from: ``"source"`` draws them as the source
        (e.g. a lesson step's setting before the target is revealed).

    Returns
    -------
    plotly.graph_objects.Figure
        Marker areas are proportional to counts, on one scale for all markers.
        With few lattice points (Bernoulli data) the target counts are also
        printed beside the markers (class 1 above right, class 2 below left).
    """
    if not panels:
        raise ValueError("decision_boundary_figure needs at least one panel.")
    label_counts = len(target_counts[["x1", "x2"]].drop_duplicates()) <= MAX_LABELLED_POINTS
    x_range, y_range = plot_ranges(
        target_counts, source_counts, min_pad=LABELLED_MIN_PAD if label_counts else 0.35
    )
    max_count = max(int(f["count"].max()) for f in (target_counts, source_counts) if f is not None and len(f))
    layout = subplot_layout(
        1, len(panels), [t for t, _ in panels], shared_yaxes=True, horizontal_spacing=0.05
    )
    data, annotations = [], layout.setdefault("annotations", [])
    for col, (_, lines) in enumerate(panels, start=1):
        data += _scatter_traces(
            target_counts, max_count, points_domain, col, col == 1, label_counts and points_domain == "target"
        )
        if source_counts is not None:
            data += _scatter_traces(source_counts, max_count, "source", col, col == 1, False)
        # Solid lines first, so that dotted/dashed ones stay visible on top of them
        # (T-LS dotted over FLDA-Q solid, as in the paper); legend keeps list order.
        order = sorted(range(len(lines)), key=lambda i: lines[i].dash != "solid")
        for i in order:
            trace, annotation = _boundary_trace(lines[i], x_range, y_range, col, rank=100 * col + i)
            data.append(trace)
            annotations += [annotation] if annotation else []
        layout[f"xaxis{axis_suffix(col)}"].update(
            range=list(x_range), title=dict(text="feature 1 (x₁)"), zeroline=False, **_lattice_ticks(x_range)
        )
        layout[f"yaxis{axis_suffix(col)}"].update(
            range=list(y_range), zeroline=False, **_lattice_ticks(y_range)
        )
    layout["yaxis"]["title"] = dict(text="feature 2 (x₂)")
    return _panels_figure(data, layout, height, -0.14)


def _sweep_curve(fits, feature, axes):
    """FLDA's target error against the perturbation of θ̂ (one loss)."""
    name, sub = fits[0].name, subscript(feature + 1)
    return dict(
        type="scatter",
        x=[f.perturbation for f in fits],
        y=[f.target_error for f in fits],
        mode="lines+markers",
        name=name,
        legendgroup=name,
        line=dict(color=classifier_color(name), width=3),
        customdata=[float(f.theta[feature]) for f in fits],
        hovertemplate=(
            f"{name}<br>θ̂{sub} %{{x:+.2f}} (θ{sub} = %{{customdata:.3f}})"
            "<br>target error %{y:.4f}<extra></extra>"
        ),
        **axes,
    )


def _paper_markers(paper, name, axes):
    """The paper's Table 1 values of ``name`` (keys such as ``"FLDA-Q+0.1"``) as open markers."""
    points = [(float(k.rsplit("+", 1)[1]), v) for k, v in paper.items() if k.startswith(name + "+")]
    if not points:
        return []
    return [
        dict(
            type="scatter",
            x=[p[0] for p in points],
            y=[p[1] for p in points],
            mode="markers",
            name=f"{name}, paper Table 1",
            legendgroup=f"paper-{name}",
            marker=dict(symbol="circle-open", size=13, color=classifier_color(name), line=dict(width=2.5)),
            hovertemplate="paper: θ̂₁%{x:+.1f}, target error %{y:.3f}<extra></extra>",
            **axes,
        )
    ]


def _mark_shift(layout, mark, n_panels):
    """A vertical line at the shift ``mark`` in every panel, labelled in the first."""
    layout["shapes"] = [
        dict(
            type="line",
            xref=f"x{axis_suffix(col)}",
            yref=f"y{axis_suffix(col)} domain",
            x0=float(mark),
            x1=float(mark),
            y0=0,
            y1=1,
            line=dict(color="#888888", dash="dashdot", width=2),
        )
        for col in range(1, n_panels + 1)
    ]
    layout["annotations"] = list(layout.get("annotations", [])) + [
        dict(
            x=float(mark),
            y=0.5,
            xref="x",
            yref="y domain",
            text=f"chosen shift {float(mark):+.2f}",
            showarrow=False,
            xanchor="left",
            yanchor="middle",
            xshift=4,
            font=dict(size=13),
        )
    ]


def perturbation_error_figure(sweep_fits, naive_fits, feature=0, paper=None, answer=True, mark=None):
    """Target error of FLDA against the perturbation of theta: Table 1 as a curve.

    Parameters
    ----------
    sweep_fits : sequence of FittedLinear
        Output of :func:`~explorer.experiments.perturbation.perturbation_sweep`.
    naive_fits : sequence of FittedLinear
        S-* and T-* classifiers, drawn as horizontal reference lines.
    feature : int
        Zero-based index of the perturbed feature (axis title).
    paper : mapping, optional
        Paper values to mark, e.g. ``PAPER_TABLE1.errors`` (keys such as
        ``"FLDA-Q+0.1"``, ``"S-LS"``), drawn as open markers.
    answer : bool, default=True
        Draw FLDA's error curve and the paper's markers; False leaves the axes, the
        naive reference lines and ``mark`` only (a lesson step before Reveal).
    mark : float, optional
        A shift to mark with a vertical line (the shift a lesson step chose).

    Returns
    -------
    plotly.graph_objects.Figure
        One panel per loss present in ``sweep_fits``.
    """
    losses = [loss for loss in ("quadratic", "logistic") if any(f.loss == loss for f in sweep_fits)]
    if not losses:
        raise ValueError("perturbation_error_figure needs at least one sweep fit.")
    layout = subplot_layout(
        1, len(losses), [LOSS_TITLES[loss] for loss in losses], shared_yaxes=True, horizontal_spacing=0.06
    )
    deltas = [f.perturbation for f in sweep_fits]
    x_span, sub = [min(deltas), max(deltas)], subscript(feature + 1)
    data = []
    for col, loss in enumerate(losses, start=1):
        axes = subplot_axes(col)
        fits = sorted((f for f in sweep_fits if f.loss == loss), key=lambda f: f.perturbation)
        data += [_sweep_curve(fits, feature, axes)] if answer else []
        data += [
            dict(
                type="scatter",
                x=list(x_span),
                y=[naive.target_error] * 2,
                mode="lines",
                name=naive.name,
                legendgroup=naive.name,
                line=dict(color=classifier_color(naive.name), dash=classifier_dash(naive.name), width=2.5),
                hovertemplate=(
                    f"{naive.name} (no adaptation)<br>target error {naive.target_error:.4f}<extra></extra>"
                ),
                **axes,
            )
            for naive in naive_fits
            if naive.loss == loss
        ]
        data += _paper_markers(paper, fits[0].name, axes) if paper and answer else []
        pad = 0.03 * (x_span[1] - x_span[0] or 1.0)
        layout[f"xaxis{axis_suffix(col)}"].update(
            title=dict(text=f"perturbation added to θ̂{sub}"),
            zeroline=True,
            **({} if answer else {"range": [x_span[0] - pad, x_span[1] + pad]}),  # no curve to span it
        )
    layout["yaxis"]["title"] = dict(text="target error")
    if mark is not None:
        _mark_shift(layout, mark, len(losses))
    return _panels_figure(data, layout, 430, -0.2)


def theta_figure(theta_true, theta_hat, theta_used=None, height=360):
    """True dropout (open bars) beside the estimate θ̂ (filled bars) per feature.

    ``theta_used`` (optional) adds the theta FLDA was actually given, e.g.
    after a perturbation (section 4.1.3), as diamonds.  ``theta_hat=None`` draws the
    true θ only (a lesson step's setting, before the estimate is revealed).
    """
    theta_true = np.asarray(theta_true, dtype=float)
    features = np.arange(1, len(theta_true) + 1)
    color = FAMILY_COLORS["flda"]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=features,
            y=theta_true,
            name="true θ",
            marker=dict(color="rgba(0,0,0,0)", line=dict(color=color, width=2)),
            hovertemplate="feature %{x}: true θ = %{y:.3f}<extra></extra>",
        )
    )
    if theta_hat is not None:
        fig.add_trace(
            go.Bar(
                x=features,
                y=np.asarray(theta_hat, dtype=float),
                name="estimated θ̂",
                marker_color=color,
                hovertemplate="feature %{x}: θ̂ = %{y:.3f}<extra></extra>",
            )
        )
    if theta_used is not None:
        fig.add_trace(
            go.Scatter(
                x=features,
                y=np.asarray(theta_used, dtype=float),
                mode="markers",
                name="θ given to FLDA",
                marker=dict(symbol="diamond", size=11, color=FAMILY_COLORS["target"]),
                hovertemplate="feature %{x}: θ used = %{y:.3f}<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        height=height,
        bargap=0.25,
        xaxis=dict(title="feature", tickmode="linear" if len(features) <= 25 else "auto", dtick=1),
        yaxis=dict(title="dropout probability θ", range=[0, 1.02]),
        margin=dict(l=60, r=20, t=30, b=20),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
    )
    return fig
