"""One look for every figure: colours and names of classifier families and classes.

Every page and every figure builder takes its colours and names from here, so
that S-LS/S-LR (naive source), T-LS/T-LR (target oracle) and FLDA-Q/FLDA-L
look the same everywhere (Okabe-Ito colour-blind-safe palette, readable on
light and dark backgrounds).
"""

from __future__ import annotations

__all__ = [
    "FAMILY_COLORS", "FAMILY_DASH", "CLASS_COLORS", "CLASSIFIER_NAMES",
    "classifier_name", "classifier_family", "classifier_color", "classifier_dash",
]

#: Colour per classifier family.
FAMILY_COLORS = {
    "source": "#E69F00",   # orange: naive source classifier (S-LS / S-LR)
    "target": "#CC79A7",   # reddish purple: target oracle (T-LS / T-LR)
    "flda": "#009E73",     # bluish green: FLDA-Q / FLDA-L
}
#: Line style per family (decision boundaries, learning curves on the target).
FAMILY_DASH = {"source": "dash", "target": "dot", "flda": "solid"}
#: Colours of class markers in scatter plots (the paper's red and blue dots).
CLASS_COLORS = ("#D55E00", "#0072B2", "#56B4E9", "#F0E442", "#999999",
                "#882255", "#44AA99", "#117733", "#332288", "#AA4499")

#: The paper's names, by (family, loss).
CLASSIFIER_NAMES = {
    ("source", "quadratic"): "S-LS",
    ("target", "quadratic"): "T-LS",
    ("flda", "quadratic"): "FLDA-Q",
    ("source", "logistic"): "S-LR",
    ("target", "logistic"): "T-LR",
    ("flda", "logistic"): "FLDA-L",
}
_FAMILY_OF = {name: family for (family, _), name in CLASSIFIER_NAMES.items()}


def classifier_name(family, loss):
    """Paper name, e.g. ``classifier_name("flda", "quadratic") == "FLDA-Q"``."""
    return CLASSIFIER_NAMES[(family, loss)]


def classifier_family(name):
    """Family of a paper name: ``"source"``, ``"target"`` or ``"flda"``."""
    return _FAMILY_OF[name]


def classifier_color(name):
    """Colour of a classifier given its paper name (``"S-LS"``, ``"FLDA-L"``, ...)."""
    return FAMILY_COLORS[classifier_family(name)]


def classifier_dash(name):
    """Plotly dash style of a classifier given its paper name."""
    return FAMILY_DASH[classifier_family(name)]
