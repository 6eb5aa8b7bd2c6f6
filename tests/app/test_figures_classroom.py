"""The class's vote bars (explorer/figures/classroom.py) and the join QR code."""

import re

from explorer.classroom.qr import qr_svg
from explorer.figures.classroom import choice_letter, vote_figure
from tests.app.figure_samples import assert_passes_plotly_validation


def test_vote_bars_per_round_and_choice():
    fig = vote_figure(3, {1: {0: 2, 2: 5}, 2: {1: 3, 2: 4}}, correct={2}, revealed=True)
    assert_passes_plotly_validation(fig)
    rounds = {trace.name.split()[1]: list(trace.x) for trace in fig.data}
    assert rounds == {"1": [2, 0, 5], "2": [0, 3, 4]}
    assert list(fig.data[0].y) == ["A", "B", "C ✓"]
    assert fig.layout.xaxis.range[1] > 5  # the longest bar and its label fit


def test_the_answer_is_not_marked_before_reveal():
    fig = vote_figure(2, {1: {0: 1}}, correct={0}, revealed=False)
    assert list(fig.data[0].y) == ["A", "B"] and [choice_letter(i) for i in range(3)] == ["A", "B", "C"]


def test_no_votes_yet_is_an_empty_round_1():
    fig = vote_figure(2, {})
    assert len(fig.data) == 1 and list(fig.data[0].x) == [0, 0]


def test_the_qr_code_is_a_local_svg_of_the_url():
    import segno

    url = "http://127.0.0.1:8600/classroom?code=K7PQ2M"
    svg = qr_svg(url)
    assert svg.startswith("<svg") and "http" not in svg.split(">", 1)[1]  # no external link
    size = int(re.search(r'width="(\d+)"', svg).group(1))
    modules = len(segno.make(url, error="m", micro=False).matrix) + 2 * 4
    assert size == modules * 6  # the symbol plus its quiet zone, 6 px a module
