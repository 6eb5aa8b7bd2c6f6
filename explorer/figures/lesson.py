"""Figures of the lesson steps that no full page draws as such: :func:`estimates_figure`,
plain plotly JSON (:func:`explorer.figures.style.unvalidated_figure`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.figures.style import classifier_color, unvalidated_figure
from explorer.names import CLASSIFIER_NAMES

#: Colour of categories that are not classifiers (features): a grey that reads on
#: both themes, distinct from the classifier families' colours.
NEUTRAL_COLOR = "#7F7F7F"


@dataclass(frozen=True)
class Series:
    """One series of :func:`estimates_figure`.

    Attributes
    ----------
    name : str
        Legend entry.
    values : sequence of float
        One value per category (``None`` or NaN: no marker).
    errors : sequence of float, optional
        One standard error per value (drawn as ±1 SE bars).
    symbol : str
        Plotly marker symbol; the series differ by shape, not only colour.
    """

    name: str
    values: tuple
    errors: tuple | None = None
    symbol: str = "circle"


def _color(category):
    return classifier_color(category) if category in CLASSIFIER_NAMES.values() else NEUTRAL_COLOR


def estimates_figure(categories, series, y_title, y_range=None):
    """Markers per category, one marker shape per series, with ±1 SE bars.

    Parameters
    ----------
    categories : sequence of str
        The x-axis categories (classifier names take their family's colour).
    series : sequence of Series
    y_title : str
    y_range : pair of float, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    categories = [str(c) for c in categories]
    colors = [_color(c) for c in categories]
    offsets = [0.0] if len(series) <= 1 else [(i / (len(series) - 1) - 0.5) * 0.3 for i in range(len(series))]
    data = []
    for offset, s in zip(offsets, series, strict=True):
        values = [None if v is None or v != v else float(v) for v in s.values]
        trace = dict(
            type="scatter",
            x=[i + offset for i in range(len(categories))],
            y=values,
            mode="markers",
            name=s.name,
            marker=dict(
                symbol=s.symbol,
                size=16,
                color=colors,
                line=dict(color=colors, width=2.5),
            ),
            customdata=categories,
            hovertemplate=f"%{{customdata}}: {s.name} %{{y:.3f}}<extra></extra>",
        )
        if s.errors is not None:
            trace["error_y"] = dict(
                type="data", array=[0.0 if e is None else float(e) for e in s.errors], thickness=2, width=6
            )
        data.append(trace)
    layout = dict(
        height=420,
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(len(categories))),
            ticktext=categories,
            range=[-0.6, len(categories) - 0.4],
        ),
        yaxis=dict(
            title=dict(text=y_title), rangemode="tozero", **({"range": list(y_range)} if y_range else {})
        ),
        margin=dict(l=70, r=20, t=50, b=100),
        legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, font=dict(size=13)),
        showlegend=True,
        hoverlabel=dict(namelength=-1),
    )
    return unvalidated_figure(data, layout)
