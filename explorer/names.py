"""The paper's classifier names, families and losses: defined once, used everywhere.

Three families for each of two losses (sections 3.4 and 4): source (S-LS, S-LR), the
target oracle (T-LS, T-LR) and FLDA (FLDA-Q, Algorithm 1; FLDA-L, Algorithm 2).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

#: The two losses of the paper, in the order the paper reports them.
LOSSES = ("quadratic", "logistic")
#: How tables and figure titles name a loss ("Quadratic loss", "Logistic loss").
LOSS_TITLES = {"quadratic": "Quadratic loss", "logistic": "Logistic loss"}
#: Classifier families: trained on source, on labelled target (oracle), adapted.
FAMILIES = ("source", "target", "flda")

#: The paper's names, by (family, loss).
CLASSIFIER_NAMES = {
    ("source", "quadratic"): "S-LS",
    ("target", "quadratic"): "T-LS",
    ("flda", "quadratic"): "FLDA-Q",
    ("source", "logistic"): "S-LR",
    ("target", "logistic"): "T-LR",
    ("flda", "logistic"): "FLDA-L",
}
_FAMILY_LOSS = {name: key for key, name in CLASSIFIER_NAMES.items()}

#: The classifiers of the paper's natural-data tables (section 4.2, e.g. Tables 3
#: and 4), in their column order: the oracle T-LR last.
TABLE_CLASSIFIERS = ("S-LS", "S-LR", "FLDA-Q", "FLDA-L", "T-LR")


def classifier_name(family, loss):
    """Paper name, e.g. ``classifier_name("flda", "quadratic") == "FLDA-Q"``."""
    return CLASSIFIER_NAMES[(family, loss)]


def classifier_family(name):
    """Family of a paper name: ``"source"``, ``"target"`` or ``"flda"``."""
    return _FAMILY_LOSS[name][0]


def classifier_loss(name):
    """Loss of a paper name: ``"quadratic"`` (S-LS, T-LS, FLDA-Q) or ``"logistic"``."""
    return _FAMILY_LOSS[name][1]


def subscript(number):
    """``number`` in subscript digits, e.g. ``subscript(12) == "₁₂"`` (θ̂₁, feature 1)."""
    return str(number).translate(_SUBSCRIPTS)


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
