"""The class's votes as bars (issue 35): one bar per choice and round, the computed
answer marked once revealed.  Plain plotly JSON (:func:`style.unvalidated_figure`):
the projector redraws it every time a vote comes in."""

from __future__ import annotations

from explorer.figures.style import CLASS_COLORS, FAMILY_COLORS, unvalidated_figure

__all__ = ["choice_letter", "vote_figure", "ROUND_COLORS"]

#: Round 1 and round 2 (after discussion).
ROUND_COLORS = {1: CLASS_COLORS[1], 2: CLASS_COLORS[0]}


def choice_letter(index):
    """A, B, C, ... for choice ``index`` (0-based)."""
    return chr(ord("A") + index)


def vote_figure(n_choices, counts, correct=(), revealed=False, height=320):
    """Votes per choice (rows A, B, ...) for each round held.

    Parameters
    ----------
    n_choices : int
        The step's number of choices.
    counts : dict
        ``{round: {choice: votes}}`` (:meth:`explorer.classroom.store.ClassStore.counts`).
    correct : iterable of int
        Choices the step's computation makes right (the lesson view's ``correct``),
        marked with ✓ on the axis once ``revealed``.
    """
    letters = [choice_letter(i) + (" ✓" if revealed and i in set(correct) else "") for i in range(n_choices)]
    data = []
    for round_ in sorted(counts) or [1]:
        values = [int(counts.get(round_, {}).get(i, 0)) for i in range(n_choices)]
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "x": values,
                "y": letters,
                "name": f"round {round_}" + (" (after discussion)" if round_ == 2 else ""),
                "marker": {"color": ROUND_COLORS.get(round_, FAMILY_COLORS["flda"])},
                "text": [str(v) for v in values],
                "textposition": "outside",
                "cliponaxis": False,
                "hovertemplate": f"round {round_}, choice %{{y}}: %{{x}} votes<extra></extra>",
            }
        )
    top = max([1] + [v for trace in data for v in trace["x"]])
    layout = {
        "height": height,
        "barmode": "group",
        "bargap": 0.25,
        "xaxis": {"title": {"text": "votes"}, "range": [0, top * 1.2 + 0.5]},
        "yaxis": {"autorange": "reversed", "title": {"text": "choice"}},
        "legend": {"orientation": "h", "y": -0.3},
        "margin": {"l": 70, "r": 20, "t": 20, "b": 70},
    }
    return unvalidated_figure(data, layout)
