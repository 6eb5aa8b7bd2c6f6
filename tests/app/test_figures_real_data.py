"""Figures of the Real data page (a table against the paper, θ̂ per feature)."""

import pandas as pd
import pytest

from figure_samples import assert_passes_plotly_validation
from explorer.figures import real_data as fr
from explorer.figures.style import FAMILY_COLORS


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
