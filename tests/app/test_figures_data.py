"""Figure builders of the "Your data" page (no Streamlit)."""

import numpy as np
import pandas as pd
import pytest

from figure_samples import assert_passes_plotly_validation
from explorer.figures import tabular as figs
from explorer.figures.style import CLASS_COLORS, FAMILY_COLORS, classifier_color


def thetas(n=8):
    rng = np.random.default_rng(0)
    eta = rng.uniform(0.2, 1.0, n)
    zeta = eta * rng.uniform(0.0, 1.5, n)
    zeta = np.minimum(zeta, 1.0)
    theta = np.maximum(0, 1 - zeta / eta)
    frame = pd.DataFrame(
        {
            "feature": [f"feature_{j}" for j in range(n)],
            "theta": theta,
            "source_nonzero": eta,
            "target_nonzero": zeta,
            "difference": zeta - eta,
            "S-LR weight": rng.normal(size=n),
            "FLDA-L weight": rng.normal(size=n),
        }
    )
    return frame.sort_values("theta", ascending=False).reset_index(drop=True)


def test_theta_figure_shows_the_top_features_sorted_largest_on_top():
    frame = thetas(12)
    fig = figs.feature_theta_figure(frame, top_n=5)
    bar = fig.data[0]
    assert len(bar.x) == 5
    np.testing.assert_allclose(bar.x[::-1], np.sort(frame["theta"])[::-1][:5])
    assert list(bar.y[::-1]) == list(frame["feature"][:5])
    assert bar.marker.color == FAMILY_COLORS["flda"]


def test_theta_figure_with_fewer_features_than_top_n_shows_all():
    fig = figs.feature_theta_figure(thetas(3), top_n=20)
    assert len(fig.data[0].x) == 3


def test_long_feature_names_are_shortened_but_kept_in_hover():
    frame = thetas(2)
    frame.loc[0, "feature"] = "a" * 60
    fig = figs.feature_theta_figure(frame)
    assert all(len(label) <= 28 for label in fig.data[0].y)
    assert "a" * 60 in list(fig.data[0].customdata[:, 0])


def test_top_changed_features_picks_largest_absolute_differences():
    frame = thetas(10)
    top = figs.top_changed_features(frame, 4)
    expected = frame.assign(d=(frame.target_nonzero - frame.source_nonzero).abs()).sort_values(
        "d", ascending=False
    )["feature"][:4]
    assert list(top["feature"]) == list(expected)


def test_nonzero_proportion_figure_has_source_and_target_bars_in_domain_colours():
    frame = thetas(10)
    fig = figs.nonzero_proportion_figure(frame, top_n=6, source_name="s.csv", target_name="t.csv")
    assert [trace.name for trace in fig.data] == ["source (s.csv)", "target (t.csv)"]
    assert fig.data[0].marker.color == FAMILY_COLORS["source"]
    assert fig.data[1].marker.color == FAMILY_COLORS["target"]
    top = figs.top_changed_features(frame, 6)
    # Horizontal bars, the largest difference on top (reversed category axis).
    assert all(trace.orientation == "h" for trace in fig.data)
    assert fig.layout.yaxis.autorange == "reversed"
    assert list(fig.data[0].y) == list(top["feature"])
    indexed = top.set_index("feature")
    for label, s, t in zip(fig.data[0].customdata, fig.data[0].x, fig.data[1].x):
        assert s == pytest.approx(indexed.loc[label, "source_nonzero"])
        assert t == pytest.approx(indexed.loc[label, "target_nonzero"])
    assert fig.layout.barmode == "group"


def test_shortened_feature_names_stay_distinct():
    """Two long names with the same beginning must not merge into one bar."""
    frame = thetas(3)
    frame["feature"] = ["x" * 40 + "_a", "x" * 40 + "_b", "short"]
    for fig in (
        figs.feature_theta_figure(frame),
        figs.nonzero_proportion_figure(frame),
        figs.feature_weights_figure(frame),
    ):
        labels = list(fig.data[0].y)
        assert len(set(labels)) == 3 and all(len(label) <= 28 for label in labels)
        assert "short" in labels


def all_figures():
    frame = thetas(8)
    errors = pd.DataFrame(
        {
            "classifier": ["S-LR", "FLDA-L"],
            "family": ["source", "flda"],
            "error": [0.3, 0.2],
            "errors": [3, 2],
            "n_target": [10, 10],
        }
    )
    predictions = pd.DataFrame({"row": [1, 2], "FLDA-Q": ["a", "b"], "FLDA-L": ["b", "b"]})
    return {
        "theta": figs.feature_theta_figure(frame),
        "nonzero": figs.nonzero_proportion_figure(frame),
        "error": figs.target_error_figure(errors),
        "weights": figs.feature_weights_figure(frame),
        "mix": figs.prediction_mix_figure(predictions, ["a", "b"]),
    }


@pytest.mark.parametrize("name", ["theta", "nonzero", "error", "weights", "mix"])
def test_figures_have_no_title_of_their_own(name):
    """The page's section heading names the chart; a title inside would repeat it."""
    fig = all_figures()[name]
    assert fig.layout.title.text is None
    # The single-series charts need no legend; the others keep theirs above the plot.
    assert fig.layout.showlegend is (name not in ("theta", "error"))


def test_error_figure_uses_the_classifier_colours():
    errors = pd.DataFrame(
        {
            "classifier": ["S-LS", "S-LR", "FLDA-Q", "FLDA-L", "T-LR"],
            "family": ["source", "source", "flda", "flda", "target"],
            "error": [0.3, 0.29, 0.2, 0.21, 0.07],
            "errors": [3, 3, 2, 2, 1],
            "n_target": [10] * 5,
        }
    )
    fig = figs.target_error_figure(errors)
    bar = fig.data[0]
    assert list(bar.x) == list(errors["classifier"])
    assert list(bar.marker.color) == [classifier_color(n) for n in errors["classifier"]]
    assert list(bar.text) == ["0.300", "0.290", "0.200", "0.210", "0.070"]
    assert fig.layout.yaxis.range[1] >= 0.3


def test_prediction_mix_figure_shares_sum_to_one_per_bar():
    predictions = pd.DataFrame(
        {
            "row": [1, 2, 3, 4],
            "true_label": ["a", "b", "b", None],
            "S-LR": ["a", "a", "a", "a"],
            "FLDA-Q": ["a", "b", "b", "b"],
            "FLDA-L": ["b", "b", "a", "b"],
        }
    )
    fig = figs.prediction_mix_figure(predictions, ["a", "b"])
    assert [trace.name for trace in fig.data] == ["a", "b"]
    assert list(fig.data[0].x) == ["true labels", "S-LR", "FLDA-Q", "FLDA-L"]
    total = np.array(fig.data[0].y) + np.array(fig.data[1].y)
    np.testing.assert_allclose(total, 1.0)
    # The true-label bar ignores the unlabelled row: 1 of 3 is "a".
    assert fig.data[0].y[0] == pytest.approx(1 / 3)
    assert list(fig.data[1].customdata) == [2, 0, 3, 3]
    assert fig.data[0].marker.color == CLASS_COLORS[0]


def test_prediction_mix_without_labels_has_no_truth_bar():
    predictions = pd.DataFrame({"row": [1, 2], "FLDA-Q": [0, 1], "FLDA-L": [1, 1]})
    fig = figs.prediction_mix_figure(predictions, [0, 1])
    assert list(fig.data[0].x) == ["FLDA-Q", "FLDA-L"]
    assert list(fig.data[1].y) == [0.5, 1.0]


def test_weights_figure_compares_source_and_flda_weights():
    frame = thetas(6)
    fig = figs.feature_weights_figure(frame, top_n=3)
    assert [trace.name for trace in fig.data] == ["S-LR", "FLDA-L"]
    np.testing.assert_allclose(fig.data[1].x[::-1], frame["FLDA-L weight"][:3])
    assert fig.data[0].marker.color == classifier_color("S-LR")
    with pytest.raises(ValueError, match="binary"):
        figs.feature_weights_figure(frame.drop(columns=["FLDA-L weight"]))


def _errors():
    return pd.DataFrame(
        {
            "classifier": ["S-LR", "FLDA-L", "KMM"],
            "error": [0.3, 0.2, 0.25],
            "errors": [30, 20, 25],
            "n_target": [100, 100, 100],
            "family": ["source", "flda", "baseline"],
        }
    )


def _predictions():
    return pd.DataFrame(
        {
            "true_label": ["a", "b", "b"],
            "S-LR": ["a", "a", "a"],
            "FLDA-Q": ["b", "b", "a"],
            "FLDA-L": ["a", "b", "b"],
        }
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda: figs.feature_theta_figure(thetas(12), top_n=5),
        lambda: figs.nonzero_proportion_figure(thetas(12), top_n=6, source_name="s <b>.csv"),
        lambda: figs.target_error_figure(_errors()),
        lambda: figs.prediction_mix_figure(_predictions(), ["a", "b"]),
        lambda: figs.feature_weights_figure(thetas(9), top_n=4),
    ],
    ids=["theta", "nonzero", "errors", "predictions", "weights"],
)
def test_figures_pass_plotly_validation_unchanged(build):
    """The builders skip plotly's validation (plain JSON, 70-180 ms a rerun saved): what
    they make must be what validation accepts and leaves as it is."""
    assert_passes_plotly_validation(build())
