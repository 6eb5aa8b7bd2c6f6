"""Figure builders of the digits page (Figures 5-6, Table 4), without Streamlit."""

import numpy as np
import pandas as pd
import pytest

from figure_samples import assert_passes_plotly_validation
from explorer.data import digits as dg
from explorer.experiments import digits as ed
from explorer.names import TABLE_CLASSIFIERS
from explorer.figures import digits as fd
from explorer.figures.style import classifier_color


def _image(side, seed=0, signed=False):
    rng = np.random.default_rng(seed)
    values = rng.random(side * side)
    return values - 0.5 if signed else values


def test_as_image_is_row_major_and_checks_size():
    img = fd.as_image(np.arange(16), 4)
    assert img[0, 3] == 3 and img[1, 0] == 4
    with pytest.raises(ValueError, match="16 pixel values"):
        fd.as_image(np.arange(15), 4)


def test_symmetric_range():
    assert fd.symmetric_range(np.array([-3.0, 1.0]), np.array([2.0])) == 3.0
    assert fd.symmetric_range(np.zeros(4)) == 1.0


def _assert_square_pixels_row0_on_top(fig, n_axes, side):
    layout = fig.layout
    for k in range(1, n_axes + 1):
        suffix = "" if k == 1 else str(k)
        yaxis = layout[f"yaxis{suffix}"]
        assert yaxis.scaleanchor == f"x{suffix}" and yaxis.scaleratio == 1
        assert tuple(yaxis.range) == (side - 0.5, -0.5)  # reversed: row 0 at the top


def test_nonzero_rate_figure_two_panels_on_one_probability_scale():
    side = 8
    rate_a, rate_b = _image(side, 1), _image(side, 2)
    fig = fd.nonzero_rate_figure(rate_a, rate_b, side, "USPS", "MNIST", zero_tol=0.05)
    assert len(fig.data) == 2
    assert all(trace.coloraxis == "coloraxis" for trace in fig.data)
    np.testing.assert_allclose(fig.data[0].z, rate_a.reshape(side, side))
    np.testing.assert_allclose(fig.data[1].z, rate_b.reshape(side, side))
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0.0, 1.0)
    assert "0.05" in fig.layout.coloraxis.colorbar.title.text
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["A: USPS", "B: MNIST"]
    _assert_square_pixels_row0_on_top(fig, 2, side)


def test_weights_figure_shared_diverging_range_centred_on_zero():
    side = 6
    w_src, w_flda = _image(side, 1, signed=True) * 4, _image(side, 2, signed=True)
    theta = _image(side, 3)
    fig = fd.digit_weights_figure(w_src, theta, w_flda, side, digit=0)
    src, th, flda = fig.data
    assert src.coloraxis == flda.coloraxis == "coloraxis" and th.coloraxis == "coloraxis2"
    m = max(np.abs(w_src).max(), np.abs(w_flda).max())
    axis = fig.layout.coloraxis
    assert axis.cmin == pytest.approx(-m) and axis.cmax == pytest.approx(m)
    assert axis.cmid == 0.0
    assert (fig.layout.coloraxis2.cmin, fig.layout.coloraxis2.cmax) == (0.0, 1.0)
    np.testing.assert_allclose(src.z, w_src.reshape(side, side))
    np.testing.assert_allclose(th.z, theta.reshape(side, side))
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0].startswith("S-LR weights, digit 0") and titles[1].startswith("FLDA-L")
    assert titles[2].startswith("dropout θ")
    _assert_square_pixels_row0_on_top(fig, 3, side)


def _panel_px(fig, axis_suffix, width):
    """Side (px) of a square-pixel heatmap panel in a chart ``width`` px wide.

    Plotly shrinks the longer of the two axis domains until pixels are square
    (``constrain="domain"``), so the panel is the smaller of the two.
    """
    layout = fig.layout
    m = layout.margin
    x = layout[f"xaxis{axis_suffix}"].domain
    y = layout[f"yaxis{axis_suffix}"].domain
    return min((x[1] - x[0]) * (width - m.l - m.r), (y[1] - y[0]) * (layout.height - m.t - m.b))


def test_weights_figure_maps_are_large_on_a_laptop_window():
    """Two weight maps side by side above theta: each at least 350 px wide in the
    ~800 px wide main column of a 1280 px window (it was ~200 px with three in a row)."""
    side = 16
    fig = fd.digit_weights_figure(
        _image(side, 1, True), _image(side, 2), _image(side, 3, True), side, digit=3
    )
    src, th, flda = fig.data
    assert (src.xaxis, flda.xaxis, th.xaxis) == ("x", "x2", "x3")
    assert fig.layout.yaxis.domain == fig.layout.yaxis2.domain  # same row
    assert fig.layout.yaxis3.domain[1] < fig.layout.yaxis.domain[0]  # theta below
    for suffix in ("", "2"):
        assert _panel_px(fig, suffix, 800) >= 350
    assert _panel_px(fig, "3", 800) >= 300
    # the weight colour bar sits between the rows, the theta one below theta
    weight_bar, theta_bar = fig.layout.coloraxis.colorbar, fig.layout.coloraxis2.colorbar
    assert fig.layout.yaxis3.domain[1] < weight_bar.y < fig.layout.yaxis.domain[0]
    assert theta_bar.y <= 0


def test_weights_figure_separate_ranges_rescale_the_naive_panel():
    side = 4
    w_src = np.zeros(16)
    w_src[0] = 10.0
    w_flda = np.zeros(16)
    w_flda[1] = -2.0
    fig = fd.digit_weights_figure(
        w_src, np.zeros(16), w_flda, side, digit=7, source_name="S-LS", flda_name="FLDA-Q", shared_range=False
    )
    assert fig.layout.coloraxis.cmax == pytest.approx(2.0)
    assert fig.data[0].z[0][0] == pytest.approx(2.0)  # rescaled by 2 / 10
    assert "(×0.2)" in fig.layout.annotations[0].text


def test_sample_images_figure_one_image_per_class_and_domain():
    side = 4
    X_a = np.arange(3 * 16, dtype=float).reshape(3, 16)
    y_a = np.array([2, 0, 1])
    X_b = np.ones((3, 16))
    y_b = np.array([0, 1, 2])
    fig = fd.sample_images_figure(X_a, y_a, X_b, y_b, side, "A", "B")
    assert len(fig.data) == 6
    np.testing.assert_allclose(fig.data[0].z, X_a[1].reshape(4, 4))  # first class-0 image
    assert fig.layout.coloraxis.cmax == pytest.approx(X_a.max())


def test_error_figure_bars_in_style_colours_with_paper_markers():
    table = pd.DataFrame({m: [0.1, 0.2] for m in TABLE_CLASSIFIERS}, index=["A → B: x → y", "B → A: y → x"])
    fig = fd.table4_figure(table, ed.paper_table(dg.make_offline_domains()))
    bars = [t for t in fig.data if t.type == "bar"]
    assert [b.name for b in bars] == list(TABLE_CLASSIFIERS)
    for bar in bars:
        assert bar.marker.color == classifier_color(bar.name)
        assert list(bar.x) == ["A → B", "B → A"]
    markers = [t for t in fig.data if t.type == "scatter"]
    shown = [t for t in markers if t.showlegend is not False]
    assert [t.name for t in shown] == ["paper, Table 4"]
    # 4 paper values per direction (S-LS is not in Table 4); A -> B is U -> M.
    assert len(shown[0].y) == 8
    assert shown[0].y[0] == pytest.approx(0.770)
    assert fig.layout.yaxis.range[1] > 1.0


def test_paper_markers_readable_on_light_and_dark_pages():
    """Not black (invisible on the dark theme): grey dashes over a dark outline."""
    table = pd.DataFrame({m: [0.1, 0.2] for m in TABLE_CLASSIFIERS}, index=["A → B: x → y", "B → A: y → x"])
    fig = fd.table4_figure(table, ed.paper_table(dg.make_offline_domains()))
    outline, mark = [t for t in fig.data if t.type == "scatter"]
    assert mark.marker.line.color == fd.PAPER_MARK_COLOR == "#999999"

    def luminance(hex_color):
        c = np.array([int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)])
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])

    def contrast(a, b):
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    # Streamlit's light and dark backgrounds: the grey dash shows on both
    assert contrast(mark.marker.line.color, "#FFFFFF") >= 2.5
    assert contrast(mark.marker.line.color, "#0E1117") >= 4.5
    # the outline is drawn first (underneath), longer and thicker, and darker
    assert fig.data.index(outline) < fig.data.index(mark)
    assert outline.marker.size > mark.marker.size
    assert outline.marker.line.width > mark.marker.line.width
    assert luminance(outline.marker.line.color) < luminance(mark.marker.line.color)
    np.testing.assert_array_equal(outline.y, mark.y)
    assert outline.hoverinfo == "skip" and outline.legendgroup == mark.legendgroup


@pytest.mark.parametrize("side", [8, 16])
@pytest.mark.parametrize("shared_range", [True, False])
def test_redrawn_digit_figures_pass_plotly_validation_unchanged(side, shared_range):
    """Figure 6 and the non-zero maps redraw on every digit and ε step, so they skip
    plotly's per-property validation; here every property goes through it unchanged,
    label text from an upload included."""
    rng = np.random.default_rng(side)
    weights = fd.digit_weights_figure(
        rng.normal(size=side * side),
        rng.random(side * side),
        rng.normal(size=side * side),
        side,
        "<b>7</b>",
        shared_range=shared_range,
    )
    assert_passes_plotly_validation(weights)
    assert [t.xaxis for t in weights.data] == ["x", "x3", "x2"]  # the paper's order
    rates = fd.nonzero_rate_figure(
        rng.random(side * side),
        rng.random(side * side),
        side,
        "<i>A</i>",
        "B",
        zero_tol=0.1 if shared_range else 0.0,
    )
    assert_passes_plotly_validation(rates)
    assert rates.layout.yaxis2.scaleanchor == "x2"  # square pixels in both panels


def test_slide_weights_figure_puts_the_three_maps_in_one_row_above_their_colour_bars():
    """A lesson slide (issue 25): the maps share one row (naive, adapted, θ) and both colour
    bars sit below the plot area, in the bottom margin (pixels, which a slide that caps
    the chart's height does not shrink), each under the maps it colours."""
    side = 16
    fig = fd.digit_weights_figure(
        _image(side, 1, True), _image(side, 2), _image(side, 3, True), side, digit=3, slide=True
    )
    assert_passes_plotly_validation(fig)
    src, th, flda = fig.data
    assert (src.xaxis, flda.xaxis, th.xaxis) == ("x", "x2", "x3")  # the paper's trace order
    layout = fig.layout
    assert layout.yaxis.domain == layout.yaxis2.domain == layout.yaxis3.domain  # one row
    assert (
        layout.xaxis.domain[1] < layout.xaxis2.domain[0] < layout.xaxis2.domain[1] < layout.xaxis3.domain[0]
    )
    weight_bar, theta_bar = layout.coloraxis.colorbar, layout.coloraxis2.colorbar
    for bar in (weight_bar, theta_bar):
        assert bar.orientation == "h" and bar.y < 0 and bar.yanchor == "top"
    # the weight bar under the two weight maps, the θ bar under θ: none overlaps the other
    weight_span = (weight_bar.x - weight_bar.len / 2, weight_bar.x + weight_bar.len / 2)
    theta_span = (theta_bar.x - theta_bar.len / 2, theta_bar.x + theta_bar.len / 2)
    assert weight_span[0] >= layout.xaxis.domain[0] - 1e-9
    assert weight_span[1] <= layout.xaxis2.domain[1] + 1e-9 <= theta_span[0] + 1e-9
    assert theta_span[1] <= layout.xaxis3.domain[1] + 1e-9
    assert layout.margin.b >= 100  # title, bar and tick labels at 20 px
    titles = [a.text for a in layout.annotations]
    assert titles == ["S-LR weights, digit 3", "FLDA-L weights, digit 3", "dropout θ (transfer model)"]


def _sample_images_reference(X_a, y_a, X_b, y_b, side, name_a, name_b, max_classes=10):
    """The sample-images figure as plotly's own ``make_subplots`` and axis updates build
    it (the builder makes the same JSON without them)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    classes = list(np.unique(np.concatenate([y_a, y_b])))[:max_classes]
    n = len(classes)
    fig = make_subplots(rows=2, cols=n, horizontal_spacing=0.01, vertical_spacing=0.08, row_titles=["A", "B"])
    images = []
    for row, (X, y, name) in enumerate(((X_a, y_a, name_a), (X_b, y_b, name_b)), start=1):
        for col, label in enumerate(classes, start=1):
            members = np.flatnonzero(y == label)
            img = X[members[0]].reshape(side, side) if len(members) else np.zeros((side, side))
            images.append(img)
            fig.add_trace(
                go.Heatmap(
                    z=img,
                    x=np.arange(side),
                    y=np.arange(side),
                    coloraxis="coloraxis",
                    name=f"{name}, class {label}",
                    hovertemplate=f"<b>{name}, class {label}</b><br>row %{{y}}, column %{{x}}<br>"
                    "ink = %{z:.2f}<extra></extra>",
                ),
                row=row,
                col=col,
            )
    for k in range(1, 2 * n + 1):
        suffix = "" if k == 1 else str(k)
        fig.update_layout(
            {
                f"xaxis{suffix}": dict(
                    showticklabels=False,
                    showgrid=False,
                    zeroline=False,
                    ticks="",
                    showline=False,
                    constrain="domain",
                    range=[-0.5, side - 0.5],
                ),
                f"yaxis{suffix}": dict(
                    showticklabels=False,
                    showgrid=False,
                    zeroline=False,
                    ticks="",
                    showline=False,
                    scaleanchor=f"x{suffix}",
                    scaleratio=1,
                    constrain="domain",
                    range=[side - 0.5, -0.5],
                ),
            }
        )
    fig.update_layout(
        coloraxis=dict(colorscale="Greys", cmin=0.0, cmax=max(np.max(images), 1e-12), showscale=False),
        height=260,
        margin=dict(l=10, r=30, t=10, b=10),
        font=dict(size=14),
    )
    for col, label in enumerate(classes, start=1):
        fig.update_xaxes(title=dict(text=str(label), standoff=2), row=2, col=col)
    return fig


@pytest.mark.parametrize("n_classes, missing_in_b", [(10, None), (3, 1), (12, None)])
def test_sample_images_figure_is_plotly_make_subplots_figure(n_classes, missing_in_b):
    """The plain-JSON builder draws exactly what make_subplots and plotly's validated
    updates draw (panels, square pixels, row titles, class titles, common ink scale),
    including a class absent from one domain (a blank panel) and more than 10 classes."""
    import json

    import plotly.io as pio

    rng = np.random.default_rng(3)
    side = 5
    y_a = np.repeat(np.arange(n_classes), 2)
    y_b = y_a[y_a != missing_in_b] if missing_in_b is not None else y_a.copy()
    X_a = rng.random((len(y_a), side * side))
    X_b = rng.random((len(y_b), side * side)) * 3
    fig = fd.sample_images_figure(X_a, y_a, X_b, y_b, side, "A", "B")
    reference = _sample_images_reference(X_a, y_a, X_b, y_b, side, "A", "B")
    assert json.loads(pio.to_json(fig, validate=False)) == json.loads(pio.to_json(reference, validate=False))
    assert_passes_plotly_validation(fig)
