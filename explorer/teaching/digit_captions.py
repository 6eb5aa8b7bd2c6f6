"""Captions of the Handwritten digits page, computed from the fits it shows (section
4.2.3: Figure 6, Table 4 and the transfer models compared in both directions).

Collection names and class labels of uploaded files are user text: escaped here.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from explorer.experiments.digits import DIRECTIONS, FIGURE6_PAIRS
from explorer.safe_text import escape_markdown as esc
from explorer.teaching.captions import asymmetry_sentence, l2_sentence, paper_table4_sentence


def weights_caption(data, direction, digit, naive, adapted, cross_validated):
    """What Figure 6 shows here (the naive and FLDA weights of ``digit``, and θ)."""
    source_name, flda_name = naive.method, adapted.method
    source, target = (esc(name) for name in data.names_of(direction))
    paper_row = data.paper_rows.get(direction)
    digit = esc(digit)  # labels of uploaded files are user text
    return (
        f"Training on {source} (source) for {target} (target). "
        "Top left: "
        f"weights of the naive {source_name} predictor of digit {digit}; top right: the "
        f"{flda_name} weights; below: the estimated "
        f"dropout θ per pixel (the paper puts it between the two). Red pushes towards digit "
        f"{digit}, blue away, white is 0; pixels "
        "with θ = 1 (never inked in the target) get weight exactly 0; pixels never inked in the "
        "source have θ = 0 (nothing to drop) and no weight either. Mirrors the paper's "
        "Figure 6"
        + (f" ({paper_row} there is the matching direction)" if paper_row else "")
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
        + transfer_note(adapted)
    )


def transfer_note(adapted):
    """For a transfer model other than dropout: what the θ map is, and its other parameters."""
    if adapted.transfer == "dropout":
        return ""
    params = adapted.transfer_params
    means = ", ".join(f"{name} {values.mean():.3f}" for name, values in params.items())
    return (
        f"\n\n**{adapted.method} uses the {adapted.transfer} transfer model.** The θ map "
        "shows its dropout part"
        + ("" if "theta" in params else " (it has none: 0 everywhere)")
        + f"; mean estimated parameters over the pixels: {means} (per pixel in the pixel-map "
        "download)."
    )


def asymmetry_text(data, results):
    """Caption of Table 4: the paper's asymmetry, and what the numbers here say."""
    parts, errors = [], {}
    # The paper's asymmetry is about U → M first (FLDA helps there, not for M → U).
    order = tuple(sorted(DIRECTIONS, key=lambda d: data.paper_rows.get(d) != "U → M"))
    for direction in DIRECTIONS:
        s_lr, flda = results[(direction, "S-LR")], results[(direction, "FLDA-L")]
        errors[direction] = (s_lr.error, flda.error, float(flda.theta.mean()), "S-LR", "FLDA-L")
        parts.append(
            f"{direction} ({' → '.join(esc(n) for n in data.names_of(direction))}): mean θ = "
            f"{flda.theta.mean():.2f}, S-LR {s_lr.error:.3f} → FLDA-L {flda.error:.3f}"
        )
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
        + (asymmetry_sentence(errors, order) if data.paper_rows else "Here: " + "; ".join(parts) + ".")
    )


def comparison_caption(data, frame, loss):
    """What the transfer-model comparison shows, from its numbers."""
    source, flda = FIGURE6_PAIRS[loss]
    models = [c for c in frame.columns if c.startswith(flda)]
    parts = []
    for (label, row), direction in zip(frame.iterrows(), DIRECTIONS):
        best = min(models, key=lambda c: (round(row[c], 12), models.index(c)))
        paper_row = data.paper_rows.get(direction)
        parts.append(
            f"{label}{f' (like the paper’s {paper_row})' if paper_row else ''}: "
            f"{source} {row[source]:.3f}, "
            + ", ".join(f"{c.split(' ', 1)[1]} {row[c]:.3f}" for c in models)
            + f"; best FLDA: {best.split(' ', 1)[1]} "
            f"({row[best] - row[source]:+.3f} vs {source})"
        )
    gains = {c.split(" ", 1)[1]: [frame[source].iloc[i] - frame[c].iloc[i] for i in range(2)] for c in models}
    spread = "; ".join(f"{t}: {g[0]:+.3f} vs {g[1]:+.3f}" for t, g in gains.items())
    return (
        "Target errors of FLDA with each transfer model in both directions (lower is "
        "better; T-LR the oracle). The paper's Table 4 has dropout only; the other models "
        "go beyond it. " + "; ".join(parts) + ". Gain over the source classifier "
        f"(A → B vs B → A) — {spread}: the asymmetry is gone for a model only if both "
        "gains are positive."
    )
