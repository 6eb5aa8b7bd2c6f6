"""Captions of the Handwritten digits page, computed from the fits it shows (section
4.2.3: Figure 6 and Table 4).  Collection names are escaped for markdown here.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from explorer.experiments.digits import DIRECTIONS
from explorer.safe_text import escape_markdown as esc
from explorer.teaching.captions import asymmetry_sentence, l2_sentence, paper_table4_sentence


def weights_caption(data, direction, digit, naive, adapted, cross_validated):
    """What Figure 6 shows here (the naive and FLDA weights of ``digit``, and θ)."""
    source_name, flda_name = naive.method, adapted.method
    source, target = (esc(name) for name in data.names_of(direction))
    paper_row = data.paper_rows[direction]
    digit = esc(digit)
    return (
        f"Training on {source} (source) for {target} (target). "
        "Top left: "
        f"weights of the naive {source_name} predictor of digit {digit}; top right: the "
        f"{flda_name} weights; below: the estimated "
        f"dropout θ per pixel (the paper puts it between the two). Red pushes towards digit "
        f"{digit}, blue away, white is 0; pixels "
        "with θ = 1 (never inked in the target) get weight exactly 0; pixels never inked in the "
        "source have θ = 0 (nothing to drop) and no weight either. Mirrors the paper's "
        f"Figure 6 ({paper_row} there is the matching direction)"
        + (
            ": FLDA's weights fade where θ is large and concentrate where the target has ink."
            if adapted.theta.mean() >= 0.05
            else f". Here θ is (nearly) 0 everywhere (mean {adapted.theta.mean():.3f}): the target "
            "inks hardly any pixel less often than the source, so FLDA's weights are close to "
            "the naive ones — dropout cannot model pixels that appear more often in the "
            "target (the paper's M → U case)."
        )
        + " "
        + l2_sentence(source_name, naive.l2, flda_name, adapted.l2, cross_validated)
    )


def asymmetry_text(data, results):
    """Caption of Table 4: the paper's asymmetry, and what the numbers here say."""
    errors = {}
    # The paper's asymmetry is about U → M first (FLDA helps there, not for M → U).
    order = tuple(sorted(DIRECTIONS, key=lambda d: data.paper_rows[d] != "U → M"))
    for direction in DIRECTIONS:
        s_lr, flda = results[(direction, "S-LR")], results[(direction, "FLDA-L")]
        errors[direction] = (s_lr.error, flda.error, float(flda.theta.mean()), "S-LR", "FLDA-L")
    return (
        "Error rates on the target domain (lower is better); T-LR is the oracle trained on "
        "labelled target images (3-fold cross-validated error). Mirrors the paper's Table 4. "
        "The paper's *text* describes an **asymmetry**: FLDA helps for U → M, where pixels "
        "inked in the source (USPS fills the frame) are rarely inked in the target (MNIST is "
        "centred), because dropout can *remove* such pixels; it does not help for M → U, "
        "because dropout cannot model pixels that appear *more often* in the target — θ is "
        "then (nearly) 0 and FLDA reduces to the naive classifier. "
        + paper_table4_sentence()
        + " "
        + asymmetry_sentence(errors, order)
    )
