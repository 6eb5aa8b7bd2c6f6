"""Caption sentences of the Real data (Tables 2-3) and Paper benchmarks (Tables 5-9) pages,
computed from the numbers they show (the rule of :mod:`explorer.teaching.captions`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import numpy as np

from explorer.data import uci
from explorer.experiments import paper_tables as pt
from explorer.teaching.lesson import SE_MULTIPLE
from flda_core.transfer_models import TRANSFER_MODELS

__all__ = [
    "IMPUTE_LABELS",
    "TRANSFER_NOTE",
    "provenance_caption",
    "table3_caption",
    "theta_caption",
    "transfer_notes",
    "parameters_note",
    "verdict_text",
    "oracle_note",
]

IMPUTE_LABELS = {"zero": "zeros (the paper's choice)", "mean": "the source mean (mean imputation)"}
#: The Real data page's note under its transfer-model choice.
TRANSFER_NOTE = (
    "Imputation keeps the target's gaps as gaps (NaN) for FLDA and fills them in expectation with "
    "the source mean; the other classifiers still see the gaps filled as chosen above. Rate needs "
    "non-negative features: where a data set has negative values its FLDA cells stay empty and say why."
)


def transfer_notes(result):
    """Table 3 with a transfer model other than dropout: which one FLDA used (None for
    dropout), and one note per FLDA cell where it does not apply."""
    if result.transfer == "dropout":
        return None, []
    kept = (
        " FLDA sees the target's gaps as gaps (NaN) and fills them in expectation with "
        "the source mean; the other classifiers see the filled gaps."
        if result.transfer == "imputation"
        else ""
    )
    model = TRANSFER_MODELS[result.transfer]
    info = f"FLDA-Q and FLDA-L use the **{result.transfer}** transfer model: {model}{kept}"
    warnings = [
        f"{uci.UCI_SETS[key].title}, {name}: {cell.note} The cell is left empty; choose another "
        "transfer model to fill it."
        for (key, name), cell in result.cells.items()
        if cell.note and name.startswith("FLDA")
    ]
    return info, warnings


def parameters_note(parameters, title):
    """The caption of a transfer model's parameter table, or why there is none."""
    if parameters.transfer_params is None:
        return (
            f"The {parameters.transfer} transfer model does not apply to {title}, so it has no "
            "parameters here and its FLDA cells in Table 3 below stay empty."
        )
    return (
        "Per encoded feature, the parameters FLDA-Q and FLDA-L used (estimated from all source "
        "and target rows), beside the share of target rows missing the feature's column."
    )


def provenance_caption(result):
    """Whether Table 3's cells were read from the disk cache or computed, and when."""
    cells = [c for c in result.cells.values() if c.computed_at]
    if not cells:
        return ""
    stored = [c for c in cells if c.from_disk]
    fresh = len(cells) - len(stored)
    when = sorted({c.computed_at for c in cells})
    span = when[0] if len(when) == 1 else f"{when[0]} to {when[-1]}"
    same = "with this code, these data and these library versions"
    if not fresh:
        return f"All {len(cells)} cells read from this server's disk cache: computed {span} {same}."
    if not stored:
        kept = (
            "saved to this server's disk cache: a server restart reads them back"
            if all(c.saved for c in cells)
            else "not all could be saved to this server's disk cache: a server restart computes those again"
        )
        return f"All {len(cells)} cells computed {span} with this code and {kept}."
    return (
        f"{len(stored)} of {len(cells)} cells read from this server's disk cache, {fresh} computed by "
        f"this server; all computed {span} {same}."
    )


def table3_caption(result):
    """How often FLDA beats S-LR here and in the paper's Table 3, and the lowest per row."""
    errors, paper = result.errors, result.paper
    parts = []
    for flda in ("FLDA-Q", "FLDA-L"):
        if {"S-LR", flda} <= set(errors.columns):
            here = int((errors[flda] < errors["S-LR"]).sum())
            there = int((paper[flda] < paper["S-LR"]).sum())
            parts.append(
                f"{flda} has a lower error than S-LR on {here} of {len(errors)} data "
                f"sets here and on {there} of them in the paper"
            )
    best = errors.drop(columns=["T-LR"], errors="ignore").dropna(axis=1, how="all")
    winners = [
        f"{name.split(' (')[0]}: {', '.join(best.columns[best.loc[name] == best.loc[name].min()])}"
        for name in best.index
    ]
    text = "; ".join(parts) + ". " if parts else ""
    return (
        f"Target error (rows with gaps) of every classifier trained on the complete rows, "
        f"gaps filled with {IMPUTE_LABELS[result.impute]}; the paper's Table 3 beside it "
        f"(typed from the paper; CORAL and OT are not in it, SCL and GFK are not "
        f"available here). {text}Lowest error here without the oracle T-LR — " + "; ".join(winners) + "."
    )


def theta_caption(thetas, title):
    """θ̂ per feature against the share of target rows missing it (one UCI data set)."""
    top = thetas.sort_values(["missing in target", "theta"], ascending=False).iloc[0]
    gapped = thetas[thetas["missing in target"] > 0]
    gap = (gapped["theta"] - gapped["missing in target"]).abs().mean() if len(gapped) else 0.0
    return (
        f"{title}: FLDA's θ̂ per feature (green bars, section 3.3.1) beside the share of "
        f"target rows in which the feature's column is empty (diamonds). "
        f"{len(gapped)} of {len(thetas)} encoded features have gaps in the target; the "
        f"most often missing is '{top['feature']}' ({top['missing in target']:.1%} of the "
        f"target rows, θ̂ = {top['theta']:.3f}). Over the features with gaps, θ̂ differs "
        f"from the missing share by {gap:.3f} on average: θ̂ also counts entries that are "
        f"0 without being missing, and a feature non-zero more often in the target than "
        f"in the source gets θ̂ = 0."
    )


def verdict_text(result):
    """One pair of Tables 5-9: the lowest error (a winner only beyond ``SE_MULTIPLE``
    standard errors of the difference), FLDA-Q and FLDA-L against S-LR, and the paper's
    lowest (the paper gives no standard errors)."""
    errors, n = result.errors, result.n_target
    best = pt.verdict(errors, n, SE_MULTIPLE)
    lead = f"lowest error here: {best['best']} ({errors[best['best']]:.3f})"
    if best["beyond"]:
        text = (
            f"The {lead}, below the next, {best['runner_up']}, by {best['gap']:.3f}: more than "
            f"{SE_MULTIPLE:g} standard errors of the difference ({best['se']:.3f})."
        )
    else:
        text = (
            f"The {lead}, but {best['runner_up']} is within {SE_MULTIPLE:g} standard errors of "
            f"the difference (gap {best['gap']:.3f}, SE {best['se']:.3f}): no winner beyond the noise."
        )
    for flda in ("FLDA-Q", "FLDA-L"):
        gap = errors["S-LR"] - errors[flda]
        se = pt.difference_se(errors["S-LR"], errors[flda], n)
        word = "lower than" if gap > SE_MULTIPLE * se else "higher than" if -gap > SE_MULTIPLE * se else None
        text += f" {flda} is {word or 'too close to call against'} S-LR (gap {gap:+.3f}, SE {se:.3f})."
    paper = result.paper.drop("T-LR", errors="ignore").dropna()
    return text + f" In the paper's row {paper.idxmin()} is lowest of these ({paper.min():.3f}; no SE given)."


def oracle_note(result, summary):
    """When the paper's T-LR error is that of always predicting the target's most
    frequent class (within 0.01), say so: the paper's oracle learned nothing there."""
    majority = summary["error of always predicting the target's most frequent class"]
    paper = result.paper.get("T-LR", np.nan)
    if not abs(paper - majority) <= 0.01:
        return ""
    here = result.errors.get("T-LR", np.nan)
    return (
        f" The paper's T-LR error ({paper:.3f}) is within 0.01 of always predicting the target's "
        f"most frequent class ({majority:.3f}): there the paper's oracle did no better than one class "
        f"for every row; this run's T-LR: {here:.3f}."
    )
