"""Caption sentences of the Real data page (the paper's Tables 3 and 5-9), computed from the
numbers it shows (the rule of :mod:`explorer.teaching.captions`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.teaching.captions import verdict
from explorer.teaching.lesson import SE_MULTIPLE
from flda_core.transfer_models import TRANSFER_MODELS

IMPUTE_LABELS = {"zero": "zeros (the paper's choice)", "mean": "the source mean (mean imputation)"}
#: The note under the transfer-model choice (Table 3).
TRANSFER_NOTE = (
    "Imputation keeps the target's gaps as gaps (NaN) for FLDA and fills them in expectation with "
    "the source mean; the other classifiers still see the gaps filled as chosen above. Rate needs "
    "non-negative features: where a data set has negative values its FLDA cells stay empty and say why."
)


def transfer_notes(result, transfer):
    """One pair of Table 3 with a transfer model other than dropout: which one FLDA used
    (None for dropout), and one note per FLDA cell where it does not apply."""
    if transfer == "dropout":
        return None, []
    kept = (
        " FLDA sees the target's gaps as gaps (NaN) and fills them in expectation with "
        "the source mean; the other classifiers see the filled gaps."
        if transfer == "imputation"
        else ""
    )
    info = f"FLDA-Q and FLDA-L use the **{transfer}** transfer model: {TRANSFER_MODELS[transfer]}{kept}"
    warnings = [
        f"{bm.pair_title(result.key, result.pair)}, {name}: {cell.note} The cell is left empty; choose "
        "another transfer model to fill it."
        for name, cell in result.cells.items()
        if cell.note and name.startswith("FLDA")
    ]
    return info, warnings


def parameters_note(transfer_params, transfer, title):
    """The caption of a transfer model's parameter table, or why there is none."""
    if transfer_params is None:
        return (
            f"The {transfer} transfer model does not apply to {title}, so it has no "
            "parameters here and its FLDA cells stay empty."
        )
    return (
        "Per encoded feature, the parameters FLDA-Q and FLDA-L used (estimated from all source "
        "and target rows), beside the share of target rows missing the feature's column."
    )


def provenance_caption(cells):
    """Whether the cells were read from the disk cache or computed, and when."""
    cells = [c for c in cells if c.computed_at]
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


def _gaps(options):
    """Table 3's ", gaps filled with ..." (empty for the other tables)."""
    impute = options.get("gaps filled with")
    return f", gaps filled with {IMPUTE_LABELS[impute]}" if impute else ""


def pair_caption(result):
    """The caption of one pair's figure: what the bars and marks are, and the verdict."""
    table = bm.BENCHMARKS[result.key].table
    return (
        f"Circles: target error on {bm.pair_title(result.key, result.pair)} here (± one binomial standard "
        f"error, {result.n_target} target rows{_gaps(result.options)}); crosses: the paper's {table} "
        "row. " + verdict_text(result)
    )


def table_caption(result):
    """A whole table: how often FLDA beats S-LR here (and beyond the noise) and in the paper."""
    errors, paper, benchmark = result.errors, result.paper, bm.BENCHMARKS[result.key]
    n = pd.Series({bm.pair_title(result.key, p): r.n_target for p, r in result.pairs.items()})
    rows = "data sets" if result.key == bm.TABLE3 else "pairs"
    parts = []
    for flda in ("FLDA-Q", "FLDA-L"):
        if {"S-LR", flda} <= set(errors.columns):
            gap = errors["S-LR"] - errors[flda]
            beyond = int((gap > SE_MULTIPLE * pt.difference_se(errors["S-LR"], errors[flda], n)).sum())
            parts.append(
                f"{flda} has a lower error than S-LR on {int((gap > 0).sum())} of {len(errors)} {rows} "
                f"here ({beyond} beyond {SE_MULTIPLE:g} standard errors) and on "
                f"{int((paper[flda] < paper['S-LR']).sum())} of them in the paper"
            )
    options = next(iter(result.pairs.values())).options
    return (
        f"Each cell: target error here{_gaps(options)} / in the paper's {benchmark.table} (typed "
        "from the paper; — where it has none). " + "; ".join(parts) + "."
    )


def reproduction_caption(result):
    """How closely this run reproduces the table: mean and worst |here − paper| of FLDA."""
    table, reproduction = bm.BENCHMARKS[result.key].table, result.reproduction()
    return (
        f"Each mark one {bm.BENCHMARKS[result.key].pair_word} and classifier of {table}: on the diagonal "
        "this run equals the paper; dotted lines ± 0.03. "
        + " ".join(
            f"{c}: mean |here − paper| {row['mean |here − paper|']:.3f}, worst {row['worst pair']} "
            f"({row['here − paper there']:+.3f})."
            for c, row in reproduction.loc[
                [c for c in ("FLDA-Q", "FLDA-L") if c in reproduction.index]
            ].iterrows()
        )
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
        word = verdict(-gap, se, "lower than", "higher than", "too close to call against")
        text += f" {flda} is {word} S-LR (gap {gap:+.3f}, SE {se:.3f})."
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
