"""Tests of the figure builders of section 4.1 (Figures 1, 2 and 4; Table 1 as a curve)."""

import numpy as np
import pandas as pd
import pytest

from figure_samples import assert_passes_plotly_validation
from explorer.experiments.perturbation import PAPER_TABLE1, perturbation_sweep
from explorer.experiments.synthetic import fit_classifiers, lattice_counts
from explorer.figures.synthetic import (
    MAX_MARKER_SIZE,
    MIN_MARKER_SIZE,
    BoundaryLine,
    boundary_lines,
    boundary_segment,
    decision_boundary_figure,
    marker_sizes,
    perturbation_error_figure,
    perturbed_boundary_lines,
    plot_ranges,
    theta_figure,
)
from explorer.names import LOSS_TITLES
from flda_core.synthetic import make_domains


@pytest.fixture(scope="module")
def bernoulli():
    pair = make_domains("bernoulli", ((0.7, 0.7), (0.3, 0.3)), 4000, 4000, (0.5, 0.0), 3)
    return pair, fit_classifiers(pair)


def _line(label, coef, intercept):
    return BoundaryLine(label=label, coef=coef, intercept=intercept, color="#000000")


def test_lattice_counts_match_manual_counts(bernoulli):
    pair, _ = bernoulli
    counts = lattice_counts(pair.X_target, pair.y_target)
    assert set(counts["x1"]) <= {0.0, 2.0} and set(counts["x2"]) <= {0.0, 1.0}
    for k in (0, 1):
        assert counts.loc[counts["class"] == k, "count"].sum() == np.sum(pair.y_target == k)
    row = counts[(counts.x1 == 2) & (counts.x2 == 1) & (counts["class"] == 0)]
    manual = np.sum((pair.X_target[:, 0] == 2) & (pair.X_target[:, 1] == 1) & (pair.y_target == 0))
    assert row["count"].item() == manual


@pytest.mark.parametrize("kind", ["bernoulli", "poisson", "continuous", "other features"])
def test_lattice_counts_equal_a_row_wise_count(kind):
    """The fast per-column coding counts exactly what a row-wise np.unique counts."""
    rng = np.random.default_rng(3)
    n = 5000
    y = rng.integers(0, 3, n)
    if kind == "bernoulli":
        X = (rng.random((n, 2)) < 0.4).astype(float)
    elif kind == "poisson":
        X = rng.poisson([2.0, 6.0], (n, 2)).astype(float) - 3.0  # negative values too
    elif kind == "continuous":
        X = rng.normal(size=(n, 2)).round(1)
    else:
        X = rng.poisson(1.0, (n, 5)).astype(float)
    features = (3, 1) if kind == "other features" else (0, 1)
    counts = lattice_counts(X, y, features=features)
    rows = np.column_stack([X[:, features[0]], X[:, features[1]], y])
    unique, expected = np.unique(rows, axis=0, return_counts=True)
    reference = pd.DataFrame(
        {"x1": unique[:, 0], "x2": unique[:, 1], "class": unique[:, 2].astype(int), "count": expected}
    )
    reference = reference.sort_values(["class", "x1", "x2"], ignore_index=True)
    pd.testing.assert_frame_equal(counts, reference, check_dtype=False)
    assert counts["count"].sum() == n


def test_marker_area_is_proportional_to_count():
    sizes = marker_sizes([100, 25, 4, 0], 100)
    assert sizes[0] == MAX_MARKER_SIZE
    np.testing.assert_allclose((sizes[:3] / MAX_MARKER_SIZE) ** 2, [1, 0.25, 0.04])
    assert sizes[3] == MIN_MARKER_SIZE


def test_boundary_segment_diagonal_through_lattice_points():
    xs, ys = boundary_segment((1.0, 1.0), -1.0, (0, 2), (0, 2))
    assert sorted(zip(xs, ys)) == [(0.0, 1.0), (1.0, 0.0)]


def test_boundary_segment_vertical_horizontal_and_degenerate():
    xs, ys = boundary_segment((2.0, 0.0), -1.0, (-1, 3), (-2, 5))
    np.testing.assert_allclose(xs, [0.5, 0.5])
    assert sorted(ys) == [-2, 5]
    xs, ys = boundary_segment((0.0, -4.0), 2.0, (-1, 3), (-2, 5))
    np.testing.assert_allclose(ys, [0.5, 0.5])
    assert sorted(xs) == [-1, 3]
    assert boundary_segment((0.0, 0.0), 1.0, (0, 1), (0, 1)) is None
    assert boundary_segment((1.0, 1.0), -10.0, (0, 1), (0, 1)) is None


def test_boundary_segment_points_lie_on_line_and_in_box():
    rng = np.random.default_rng(0)
    for _ in range(200):
        w, b = rng.normal(size=2), rng.normal()
        seg = boundary_segment(w, b, (-1, 2), (-1, 2))
        if seg is None:
            continue
        xs, ys = seg
        np.testing.assert_allclose(w[0] * xs + w[1] * ys + b, 0, atol=1e-9)
        assert np.all((xs >= -1) & (xs <= 2) & (ys >= -1) & (ys <= 2))


def _traces(fig, name):
    return [t for t in fig.data if t.name == name]


def test_decision_boundary_figure_has_paper_traces_and_true_boundaries(bernoulli):
    pair, result = bernoulli
    counts = lattice_counts(pair.X_target, pair.y_target)
    panels = [(f"{loss} loss", boundary_lines(result.for_loss(loss))) for loss in ("quadratic", "logistic")]
    fig = decision_boundary_figure(counts, panels)
    names = {t.name for t in fig.data}
    assert {
        "S-LS",
        "T-LS",
        "FLDA-Q",
        "S-LR",
        "T-LR",
        "FLDA-L",
        "class 1 (target)",
        "class 2 (target)",
    } <= names
    for name, fit in result.classifiers.items():
        (trace,) = _traces(fig, name)
        x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
        # The drawn end points lie on the classifier's own decision boundary.
        np.testing.assert_allclose(fit.coef[0] * x + fit.coef[1] * y + fit.intercept, 0, atol=1e-8)
        assert trace.xaxis == ("x" if fit.loss == "quadratic" else "x2")
    # Marker counts are carried for hovering and sum to the target size.
    total = sum(np.sum(t.customdata) for t in fig.data if t.name.endswith("(target)"))
    assert total == 2 * len(pair.y_target)  # both panels
    assert [a.text for a in fig.layout.annotations][:2] == ["quadratic loss", "logistic loss"]
    assert all(t.mode == "markers+text" for t in fig.data if t.name.endswith("(target)"))


def test_decision_boundary_figure_source_points_and_missing_boundaries(bernoulli):
    pair, _ = bernoulli
    target = lattice_counts(pair.X_target, pair.y_target)
    source = lattice_counts(pair.X_source, pair.y_source)
    fig = decision_boundary_figure(
        target,
        [("panel", [_line("flat", (0.0, 0.0), 1.0), _line("far", (1.0, 1.0), -99.0)])],
        source_counts=source,
    )
    # the source drawn open, the classes by shape as well as colour (greyscale prints)
    symbols = {
        (k, d): _traces(fig, f"class {k} ({d})")[0].marker.symbol
        for k in (1, 2)
        for d in ("source", "target")
    }
    assert symbols[1, "source"] == symbols[1, "target"] + "-open"
    assert symbols[2, "source"] == symbols[2, "target"] + "-open"
    assert symbols[1, "target"] != symbols[2, "target"]
    assert _traces(fig, "flat (no boundary: all weights are 0)")
    assert _traces(fig, "far (boundary outside the plotted area)")
    with pytest.raises(ValueError):
        decision_boundary_figure(target, [])


def test_plot_ranges_cover_points():
    frame = pd.DataFrame({"x1": [0, 10], "x2": [0, 4], "class": [0, 1], "count": [1, 1]})
    (x0, x1), (y0, y1) = plot_ranges(frame)
    assert x0 < 0 and x1 > 10 and y0 < 0 and y1 > 4


def test_perturbed_lines_and_error_curve():
    pair = make_domains("poisson", ((2, 2), (6, 6)), 3000, 3000, (0.5, 0.0), 0)
    result = fit_classifiers(pair)
    sweep = perturbation_sweep(pair, [0.0, 0.1, 0.3], theta_base=result.theta_hat)
    naive = [f for f in result.classifiers.values() if f.family != "flda"]
    lines = perturbed_boundary_lines(
        [f for f in naive if f.loss == "quadratic"], [f for f in sweep if f.loss == "quadratic"]
    )
    labels = [line.label for line in lines]
    assert labels == ["S-LS", "T-LS", "FLDA-Q, θ̂₁+0", "FLDA-Q, θ̂₁+0.1", "FLDA-Q, θ̂₁+0.3"]
    opacities = [line.opacity for line in lines[2:]]
    assert opacities[0] == 1.0 and opacities[0] > opacities[1] > opacities[2]

    fig = perturbation_error_figure(sweep, naive, paper=PAPER_TABLE1.errors)
    (curve,) = _traces(fig, "FLDA-Q")
    assert list(curve.x) == [0.0, 0.1, 0.3]
    np.testing.assert_allclose(curve.y, [f.target_error for f in sweep[:3]])
    (paper,) = _traces(fig, "FLDA-L, paper Table 1")
    np.testing.assert_allclose(paper.y, [0.139, 0.140, 0.142, 0.146])
    (s_lr,) = _traces(fig, "S-LR")
    assert set(s_lr.y) == {result.classifiers["S-LR"].target_error}
    with pytest.raises(ValueError):
        perturbation_error_figure([], naive)


@pytest.mark.parametrize("losses", [("quadratic",), ("quadratic", "logistic")])
@pytest.mark.parametrize("feature", [0, 1])
def test_unvalidated_error_curve_passes_plotly_validation_unchanged(losses, feature):
    """perturbation_error_figure skips plotly's validation (make_subplots and validated
    traces took 50 ms of every Transfer rerun): every property must pass the validators
    unchanged, the panels must share the y axis and each trace sit in its loss's panel."""
    pair = make_domains("poisson", ((2, 2), (6, 6)), 2000, 2000, (0.5, 0.2), 0)
    result = fit_classifiers(pair)
    sweep = [
        f
        for f in perturbation_sweep(pair, [-0.1, 0.0, 0.2], theta_base=result.theta_hat, feature=feature)
        if f.loss in losses
    ]
    naive = [f for f in result.classifiers.values() if f.family != "flda"]
    fig = perturbation_error_figure(sweep, naive, feature=feature, paper=PAPER_TABLE1.errors)
    assert_passes_plotly_validation(fig)
    assert [a.text for a in fig.layout.annotations] == [LOSS_TITLES[loss] for loss in losses]
    for trace in fig.data:
        panel = "x" if trace.name.endswith(("LS", "-Q", "Q, paper Table 1")) else "x2"
        assert trace.xaxis == panel
    if len(losses) == 2:
        assert fig.layout.yaxis2.matches == "y"
    sub = "₁₂"[feature]
    assert fig.layout.xaxis.title.text == f"perturbation added to θ̂{sub}"
    assert fig.layout.yaxis.title.text == "target error"


def test_theta_figure_values():
    fig = theta_figure((0.5, 0.0, 0.2), (0.48, 0.0, 0.22), theta_used=(0.6, 0.0, 0.22))
    assert [t.name for t in fig.data] == ["true θ", "estimated θ̂", "θ given to FLDA"]
    np.testing.assert_allclose(fig.data[1].y, [0.48, 0.0, 0.22])
    np.testing.assert_allclose(fig.data[2].y, [0.6, 0.0, 0.22])


def test_perturbed_flda_lines_are_thinner_than_the_unperturbed_one():
    from explorer.experiments.synthetic import FittedLinear
    from explorer.figures.synthetic import perturbed_boundary_lines

    fits = [
        FittedLinear(
            name="FLDA-Q",
            family="flda",
            loss="quadratic",
            coef=(1.0, 1.0),
            intercept=-1.0,
            theta=(0.5, 0.0),
            target_error=0.1,
            source_error=0.1,
            perturbation=d,
        )
        for d in (0.0, 0.1, 0.2)
    ]
    lines = perturbed_boundary_lines([], fits, feature=0)
    widths = {line.annotation: line.width for line in lines}
    assert widths == {"+0": 3.0, "+0.1": 2.2, "+0.2": 2.2}


@pytest.mark.parametrize("with_source", [False, True])
@pytest.mark.parametrize("n_panels", [1, 2])
def test_unvalidated_boundary_figure_passes_plotly_validation_unchanged(bernoulli, with_source, n_panels):
    """decision_boundary_figure skips plotly's per-property validation (it redraws on
    every change of θ); here every property goes through the validators, which must
    accept all of them and change none (no typo, no silently coerced value)."""
    pair, result = bernoulli
    counts = lattice_counts(pair.X_target, pair.y_target)
    source = lattice_counts(pair.X_source, pair.y_source) if with_source else None
    lines = boundary_lines(result.for_loss("quadratic"))
    lines[0] = BoundaryLine(
        label="labelled", coef=lines[0].coef, intercept=lines[0].intercept, color="#000000", annotation="+0.1"
    )
    lines.append(_line("outside", (1.0, 1.0), -100.0))  # no segment: a legend-only trace
    panels = [(f"panel {i}", lines) for i in range(n_panels)]
    fig = decision_boundary_figure(counts, panels, source_counts=source, height=600)
    assert_passes_plotly_validation(fig)
    assert len(fig.layout.annotations) == n_panels * 2  # a title and a label per panel
    assert fig.data[-1].xaxis == ("x2" if n_panels == 2 else "x")
