"""Figures of the "Real data" page (Table 3 comparison, θ̂ per feature)."""

import numpy as np
import pandas as pd
import pytest

from figure_samples import assert_passes_plotly_validation
from explorer.figures import real_data as fr
from explorer.figures.style import FAMILY_COLORS


def test_error_figure_one_panel_per_data_set_with_paper_marks():
    errors = pd.DataFrame(
        {"S-LR": [0.4, 0.1], "KMM": [0.3, np.nan], "FLDA-L": [0.2, 0.1]}, index=["heart", "ozone"]
    )
    paper = pd.DataFrame(
        {"S-LR": [0.338, 0.124], "KMM": [0.39, 0.126], "FLDA-L": [0.203, 0.079]}, index=["heart", "ozone"]
    )
    fig = fr.error_comparison_figure(errors, paper, columns=2)
    bars = [t for t in fig.data if t.type == "bar"]
    marks = [t for t in fig.data if t.type == "scatter"]
    assert len(bars) == 2 and len(marks) == 2
    assert list(bars[0].y) == [0.4, 0.3, 0.2]
    assert np.isnan(bars[1].y[1])  # not run: no bar
    assert list(bars[0].marker.color) == [FAMILY_COLORS["source"], fr.BASELINE_COLOR, FAMILY_COLORS["flda"]]
    assert list(marks[1].y) == [0.124, 0.126, 0.079]
    assert [a.text for a in fig.layout.annotations] == ["heart", "ozone"]


def test_colours_by_family():
    assert fr.color_of("S-SVM") == fr.color_of("S-LR") == FAMILY_COLORS["source"]
    assert fr.color_of("T-LR") == FAMILY_COLORS["target"]
    assert fr.color_of("TCA") == fr.color_of("OT") == fr.BASELINE_COLOR


def test_theta_figure_shows_the_top_features_largest_on_top():
    thetas = pd.DataFrame(
        {
            "feature": list("abcde"),
            "theta": [0.1, 0.9, 0.0, 0.5, 0.2],
            "missing in target": [0.0, 0.95, 0.7, 0.5, 0.1],
        }
    )
    fig = fr.theta_figure(thetas, top_n=3)
    bar, marks = fig.data
    assert list(bar.y) == ["d", "c", "b"]  # plotly draws the last row on top
    assert list(bar.x) == [0.5, 0.0, 0.9]
    assert list(marks.x) == [0.5, 0.7, 0.95]


@pytest.mark.parametrize("n_sets, columns", [(2, 2), (5, 3), (6, 3)])
def test_error_figure_passes_plotly_validation_unchanged(n_sets, columns):
    """Plain plotly JSON (no make_subplots, no validation per run): what validation
    accepts and leaves as it is, for full and partly empty grids of panels."""
    rng = np.random.default_rng(n_sets)
    names = [f"set {i}" for i in range(n_sets)]
    classifiers = ["S-LR", "KMM", "FLDA-Q", "FLDA-L", "T-LR"]
    errors = pd.DataFrame(rng.random((n_sets, 5)), index=names, columns=classifiers)
    errors.iloc[0, 1] = np.nan
    paper = errors.iloc[:-1, :-1] * 0.9
    fig = fr.error_comparison_figure(errors, paper, columns=columns)
    assert_passes_plotly_validation(fig)
    assert [a.text for a in fig.layout.annotations] == names
    assert [fig.layout[f"yaxis{'' if k == 1 else k}"].title.text for k in range(1, n_sets + 1)] == [
        "target error" if k % columns == 0 else None for k in range(n_sets)
    ]


@pytest.mark.parametrize("title", [None, "heart disease"])
def test_theta_figure_passes_plotly_validation_unchanged(title):
    thetas = pd.DataFrame(
        {
            "feature": list("abcde"),
            "theta": [0.1, 0.9, 0.0, 0.5, 0.2],
            "missing in target": [0.0, 0.95, 0.7, 0.5, 0.1],
        }
    )
    fig = fr.theta_figure(thetas, top_n=4, title=title)
    assert_passes_plotly_validation(fig)
    assert fig.layout.title.text == title


def test_error_bars_and_the_tables_name():
    errors = pd.DataFrame({"S-LR": [0.4], "FLDA-Q": [0.3]}, index=["A → D"])
    fig = fr.error_comparison_figure(errors, errors * 0.9, 1, errors * 0.1, "Table 5")
    bar, marks = fig.data
    np.testing.assert_allclose(bar.error_y.array, [0.04, 0.03])
    assert marks.name == "paper, Table 5"
    assert_passes_plotly_validation(fig)


def test_reproduction_figure_puts_this_run_against_the_paper():
    errors = pd.DataFrame({"FLDA-Q": [0.4, 0.2], "KMM": [0.5, 0.1]}, index=["S → M", "M → S"])
    paper = pd.DataFrame({"FLDA-Q": [0.41, 0.25], "KMM": [0.5, 0.2]}, index=errors.index)
    fig = fr.reproduction_figure(errors, paper, "Table 8")
    lines, marks = fig.data[:3], fig.data[3:]
    assert [list(t.y) for t in lines] == [[0, 1], [-0.03, 0.97], [0.03, 1.03]]
    assert [m.name for m in marks] == ["FLDA-Q", "KMM"]
    assert list(marks[0].x) == [0.41, 0.25] and list(marks[0].y) == [0.4, 0.2]
    assert len({m.marker.symbol for m in marks}) == 2  # readable in greyscale
    assert_passes_plotly_validation(fig)
