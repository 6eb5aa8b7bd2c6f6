"""Caption sentences computed from the numbers on screen, never asserted.

Every function returns markdown whose claims follow from the results it is given.  A
caption names a winner only where the gap beats ``SE_MULTIPLE`` standard errors
(:func:`beyond_noise`).  Figures, tables and equations are named by the numbers a reader
of the paper sees (``docs/paper_numbering.md``), with links to the equations panel.

Sections: Synthetic domains, Transfer parameters, Learning curves, Handwritten digits.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import itertools

import numpy as np

from flda_core.synthetic import bernoulli_target_lattice, exact_target_error
from flda_core.transfer_models import TRANSFER_MODELS
from explorer.data.domain_config import SHIFT_PRESETS
from explorer.teaching.equations import dropout_variance_factor, equation_link
from explorer.teaching.lesson import SE_MULTIPLE
from explorer.names import LOSSES, classifier_name, subscript
from explorer.experiments import learning_curves as lc
from explorer.teaching.paper_notes import figure2_table1_note
from explorer.experiments.perturbation import PAPER_TABLE1
from explorer.experiments.synthetic import PAPER_FIGURE2, paired_se
from explorer.experiments.digits import PAPER_TABLE4

#: At most this many features are described one by one.
MAX_LISTED = 3
#: The Synthetic page's shift presets (issue 15): what they are called and what their data are.
SHIFT_LABELS = {"appearance": "Features appear in the target", "rate": "Count rates change"}
_SHIFT_TEXTS = {
    "appearance": "Four binary features; in the target every 0 of feature 1 becomes 1 with "
    "probability {phi}. No feature gets rarer, so dropout's θ̂ is (nearly) 0; the two-sided "
    "model estimates the appearance rate φ.",
    "rate": "Poisson counts (rates {rates}); in the target the rate of every feature is "
    "multiplied by {factor}. The rate model estimates that factor r.",
}


def beyond_noise(gap, se):
    """True when ``gap`` exceeds ``SE_MULTIPLE`` standard errors ``se``: the only case in
    which a caption names a winner (NaN or infinite ``se``: never)."""
    return abs(float(gap)) > SE_MULTIPLE * float(se)


def verdict(gap, se, lower, higher, tie):
    """``lower`` or ``higher`` where ``gap`` (a difference of errors, negative: the first is
    lower) beats the noise (:func:`beyond_noise`), ``tie`` otherwise."""
    return tie if not beyond_noise(gap, se) else lower if gap < 0 else higher


def independent_se(p, q, n):
    """Standard error of the difference of two error rates ``p`` and ``q``, each measured
    on ``n`` samples, taken as independent (a conservative bound of the paired one)."""
    return float(np.sqrt((p * (1 - p) + q * (1 - q)) / max(int(n), 1)))


# ----------------------------------------------------------------------------- Synthetic domains


def dropout_sentence(theta, distribution):
    """What the user's dropout θ (per feature, the one that made the target) does to the
    target's features (Figures 1-2); ``distribution`` "bernoulli" or "poisson"."""
    dropped = [(d, float(t)) for d, t in enumerate(theta, start=1) if float(t) > 0]
    if not dropped:
        return (
            "With θ = 0 for every feature nothing is dropped: the target has the "
            "source's distribution, so every classifier should score about the same "
            "on both."
        )
    parts = []
    for d, t in dropped[:MAX_LISTED]:
        if t >= 1:
            parts.append(f"θ{subscript(d)} = 1: feature {d} is always 0 in the target")
            continue
        scale = 1.0 / (1.0 - t)
        text = (
            f"θ{subscript(d)} = {t:g}: a non-zero value of feature {d} is set to 0 with "
            f"probability {t:g} and otherwise multiplied by 1/(1 − {t:g}) = {scale:.3g}"
        )
        if distribution == "bernoulli":
            text += f", so it takes only the values 0 and {scale:.3g}"
        elif abs(scale - round(scale)) < 1e-9 and round(scale) > 1:
            text += f", so it takes only multiples of {round(scale)}"
        parts.append(text)
    sentence = "Dropout in this target (" + equation_link("transfer_model") + "): " + "; ".join(parts) + "."
    if len(dropped) > MAX_LISTED:
        sentence += f" {len(dropped) - MAX_LISTED} more feature(s) have θ > 0."
    return sentence


def sls_population_boundary(probabilities, class_prior=None):
    """Least-squares boundary (``w``, ``b``) of S-LS on the whole Bernoulli source population
    (targets ∓1, unpenalised intercept): the limit of S-LS as the source grows."""
    points, probs = bernoulli_target_lattice(probabilities, np.zeros(np.shape(probabilities)[1]))
    if probs.shape[0] != 2:
        raise ValueError("The S-LS boundary is defined for two classes.")
    prior = np.full(2, 0.5) if class_prior is None else np.asarray(class_prior, dtype=float)
    A = np.hstack([points, np.ones((len(points), 1))])
    gram, rhs = np.zeros((A.shape[1], A.shape[1])), np.zeros(A.shape[1])
    for k, t in ((0, -1.0), (1, 1.0)):
        weighted = A * (prior[k] * probs[k])[:, None]
        gram += weighted.T @ A
        rhs += t * weighted.sum(axis=0)
    solution = np.linalg.lstsq(gram, rhs, rcond=None)[0]
    return solution[:-1], float(solution[-1])


def sls_lattice_sentence(probabilities, theta, s_ls_error, tol=1e-9):
    """Why S-LS's target error jumps with the seed (Figure 1): ``""`` unless the population
    S-LS boundary passes exactly through target lattice points; then the exact target
    errors for each way a finite sample can tip them."""
    if np.shape(probabilities)[0] != 2:
        return ""
    w, b = sls_population_boundary(probabilities)
    points, _ = bernoulli_target_lattice(probabilities, theta)
    # Target points are scaled by 1/(1 - θ): compare the score to the scale of the terms.
    scale = np.abs(points) @ np.abs(w) + abs(b) + 1.0
    on_line = np.flatnonzero(np.abs(points @ w + b) <= tol * scale)
    if len(on_line) == 0 or len(on_line) > 4:
        return ""
    errors = set()
    for sides in itertools.product((0, 1), repeat=len(on_line)):

        def predict(z, sides=sides):
            out = (np.asarray(z) @ w + b > 0).astype(int)
            for i, side in zip(on_line, sides):
                out[np.all(np.isclose(np.asarray(z), points[i]), axis=1)] = side
            return out

        errors.add(round(exact_target_error(predict, probabilities, theta), 3))
    errors = sorted(errors)
    # A lattice may list one point twice (a kept and a dropped value can coincide).
    named = list(dict.fromkeys("(" + ", ".join(f"{v:g}" for v in points[i]) + ")" for i in on_line))
    where = ("lattice point " if len(named) == 1 else "lattice points ") + ", ".join(named)
    if len(errors) == 1:
        return (
            f"In expectation the source least-squares boundary passes exactly through "
            f"the target's {where}, but the target error is {errors[0]:.3f} whichever "
            f"side they fall on (this run's target sample: {s_ls_error:.3f})."
        )
    return (
        f"**Why S-LS jumps with the seed.** In expectation the source least-squares "
        f"boundary passes exactly through the target's {where}. A finite sample tilts "
        f"it a hair to one side, and every target sample there falls on that side: the "
        f"exact target error is then one of {', '.join(f'{e:.3f}' for e in errors)} "
        f"(population values; this run's target sample: {s_ls_error:.3f}). Change the seed "
        "to see it flip."
    )


def figure2_reference_sentence(our_errors, n_source, n_target):
    """How this run compares with the paper's two reports of the Figure 2 setting."""
    note = figure2_table1_note(our_errors, n_target=n_target)
    return (
        f"This run uses {n_source:,} source and {n_target:,} target samples (the paper 100,000 each). "
        f"The paper's Figure 2 text and its Table 1 report errors up to "
        f"{note.values['paper_gap']:.3f} apart for the same setting, so both are shown. " + note.verdict
    )


def boundary_angle(fit_a, fit_b):
    """Angle in degrees between two linear decision boundaries (0 = parallel)."""
    a, b = np.asarray(fit_a.coef, dtype=float), np.asarray(fit_b.coef, dtype=float)
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    if norm == 0:
        return float("nan")
    return float(np.degrees(np.arccos(np.clip(abs(a @ b) / norm, 0.0, 1.0))))


def flda_oracle_sentence(result, n_target, tol_error=0.005, tol_angle=2.0):
    """Per loss: does FLDA's boundary lie on the oracle's (target errors within
    ``tol_error``, boundaries within ``tol_angle`` degrees; Figures 1-2), and does FLDA
    beat the source classifier beyond the noise (:func:`independent_se` over
    ``n_target`` target samples)?"""
    parts = []
    for loss in LOSSES:
        names = [classifier_name(f, loss) for f in ("source", "target", "flda")]
        if not all(n in result.classifiers for n in names):
            continue
        naive, oracle, flda = (result.classifiers[n] for n in names)
        angle = boundary_angle(flda, oracle)
        errors = f"target errors {flda.target_error:.3f} and {oracle.target_error:.3f}"
        if not np.isfinite(angle):  # all weights 0 (e.g. every feature dropped): no line
            text = (
                f"{flda.name} and {oracle.name} cannot be compared as lines here "
                f"(one has all weights 0, so no boundary; {errors})"
            )
        elif abs(flda.target_error - oracle.target_error) <= tol_error and angle <= tol_angle:
            text = f"{flda.name}'s boundary lies on {oracle.name}'s ({angle:.1f}° apart, {errors})"
        else:
            text = f"{flda.name} does not match {oracle.name} here ({angle:.1f}° apart, {errors})"
        p, q = flda.target_error, naive.target_error
        se = independent_se(p, q, n_target)
        word = verdict(p - q, se, "beats", "does worse than", "is too close to call against")
        text += f" and {word} {naive.name} ({q:.3f}; standard error of the difference {se:.3f})"
        parts.append(text)
    return ("; ".join(parts) + ".") if parts else ""


def theta_recovery_sentence(theta_true, theta_hat, tol=0.05):
    """How close the estimate θ̂ is to the θ that made the target (section 3.3.1)."""
    theta_true, theta_hat = np.asarray(theta_true, float), np.asarray(theta_hat, float)
    errors = np.abs(theta_hat - theta_true)
    worst = int(np.argmax(errors))
    text = (
        f"Here θ̂ is at most {errors[worst]:.3f} from the true θ (feature {worst + 1}: "
        f"θ̂ = {theta_hat[worst]:.3f}, θ = {theta_true[worst]:g})"
    )
    if errors[worst] <= tol:
        return text + ": the transfer model is recovered."
    return text + ": not recovered yet; more target samples shrink the error."


def theta_table_caption(theta_true, theta_hat):
    """Caption of the Synthetic page's table of true against estimated θ (section 3.3.1)."""
    return (
        f"FLDA's first stage (section 3.3.1, {equation_link('theta_hat')}): θ̂ = max(0, 1 − ζ/η) "
        "per feature, from how often feature d is non-zero in the target (ζ) and in the "
        "source (η). " + theta_recovery_sentence(theta_true, theta_hat)
    )


def shift_preset_text(shift, values=None):
    """What the data of a shift preset are, with the numbers of its generator (``values``:
    its shift parameter per feature, default the preset's own)."""
    _, params, true = SHIFT_PRESETS[shift]
    true = true if values is None else values
    return _SHIFT_TEXTS[shift].format(
        phi=f"{true[0]:g}",
        factor=" / ".join(f"{v:g}" for v in true),
        rates=" vs ".join("/".join(f"{v:g}" for v in row) for row in params),
    )


def paper_preset_help(paper, section, extra=""):
    """Help of a button that loads ``paper``'s exact setting (a
    :class:`~explorer.experiments.synthetic.PaperSetting` of ``section``; ``extra``: what
    else it loads), with what the paper reports there."""
    word = "Bernoulli" if paper.distribution == "bernoulli" else "Poisson rates"
    theta = ", ".join(f"{t:g}" for t in paper.theta)
    return (
        f"Load the exact setting of the paper's {paper.label.split(' (')[0]} (section {section}): "
        f"{word} {paper.params[0][0]:g}/{paper.params[1][0]:g}, θ = [{theta}], "
        f"{paper.n_source:,} samples per domain{extra}. {paper.summary}"
    )


def synthetic_error_caption(paper, data_key, result):
    """How to read the Synthetic page's error table, honest about what the paper reports
    (``paper``: the matching :class:`~explorer.experiments.synthetic.PaperSetting` or None)."""
    text = (
        "Target error = fraction of misclassified target samples (the oracle's is "
        "its training error, as in the paper); source error for contrast. "
    )
    if paper is None:
        return text + "The paper reports no numbers for this configuration."
    if paper is PAPER_FIGURE2:
        ours = {name: fit.target_error for name, fit in result.classifiers.items()}
        return text + figure2_reference_sentence(ours, data_key[2], data_key[3])
    return text + (
        f"The paper's numbers are for {paper.n_source:,} samples per domain; this "
        f"run uses {data_key[2]:,} source and {data_key[3]:,} target samples."
    )


def transfer_parameters_caption(result, shifted):
    """Caption of the table of a transfer model's estimated parameters (``shifted``: the
    data are a shift preset, not dropout)."""
    note = ""
    if result.transfer == "imputation":
        note = (
            f" Imputation needs missing values: this target has none, so θ̂ (largest "
            f"{result.transfer_params['theta'].max():.3f}) leaves FLDA equal to the source "
            "classifier."
        )
    elif result.transfer == "dropout" and shifted:
        note = (
            f" Dropout can only model features that get rarer: here its largest θ̂ is "
            f"{result.transfer_params['theta'].max():.3f}."
        )
    return (
        "FLDA's first stage with the chosen transfer model: every parameter is estimated per "
        "feature from the unlabelled target and the source. The model: "
        + TRANSFER_MODELS[result.transfer]
        + " 'true' columns show the values that made the target, where the model shares them."
        + note
    )


def _closest_phrase(flda, oracle, n_target):
    """Which FLDA variant (rows of ``flda``) is closest to the oracle's error, named only
    where it is closer than every other variant beyond the noise."""
    errors = dict(zip(flda["transfer"], flda["target error"]))
    distance = {t: round(abs(e - oracle), 12) for t, e in errors.items()}
    best = min(distance, key=distance.get)  # the first listed wins a tie
    rivals = [
        t
        for t in errors
        if t != best
        and not beyond_noise(distance[t] - distance[best], independent_se(errors[best], errors[t], n_target))
    ]
    if not rivals:
        return f"closest to the oracle: **{best}** ({errors[best] - oracle:+.3f})"
    return (
        f"closest to the oracle: too close to call between {', '.join([best, *rivals[:-1]])} and {rivals[-1]}"
    )


def shift_comparison_caption(shift, errors, n_target):
    """What the target errors of every transfer model on a shift preset show
    (``errors``: :func:`~explorer.experiments.synthetic.transfer_errors`, measured on
    ``n_target`` target samples)."""
    parts = []
    for loss in [loss for loss in LOSSES if loss in set(errors["loss"])]:
        rows = errors[errors["loss"] == loss]
        flda = rows[rows["transfer"] != ""]
        source, oracle = (float(rows["target error"].iloc[i]) for i in (0, -1))
        listed = ", ".join(f"{t} {e:.3f}" for t, e in zip(flda["transfer"], flda["target error"]))
        parts.append(
            f"{loss} loss: source {rows['classifier'].iloc[0]} {source:.3f}, oracle "
            f"{rows['classifier'].iloc[-1]} {oracle:.3f}; FLDA with {listed} — "
            + _closest_phrase(flda, oracle, n_target)
        )
    return (
        f"Target errors of FLDA with each transfer model on the *{SHIFT_LABELS[shift]}* "
        "data (this run; the paper has no such experiment, it goes beyond its dropout "
        f"model); winners only beyond {SE_MULTIPLE:g} standard errors of {n_target:,} "
        "target samples. " + "; ".join(parts) + "."
    )


def boundary_tilt_sentence(sweep, feature=0):
    """Per loss, whether the weight share ``|w_d| / ||w||`` of the perturbed feature falls
    as θ̂_d grows over the perturbations drawn (Figure 4)."""
    parts = []
    for loss in LOSSES:
        fits = sorted(
            (f for f in sweep if f.loss == loss and f.perturbation is not None), key=lambda f: f.perturbation
        )
        if len(fits) < 2:
            continue
        shares = [abs(f.coef[feature]) / max(np.linalg.norm(f.coef), 1e-300) for f in fits]
        falling = all(b <= a + 1e-9 for a, b in zip(shares, shares[1:]))
        parts.append(
            f"{fits[0].name} {shares[0]:.2f} at {fits[0].perturbation:+.2f} → "
            f"{shares[-1]:.2f} at {fits[-1].perturbation:+.2f}"
            + (", falling at every step" if falling else ", not falling monotonically")
        )
    if not parts:
        return ""
    d = feature + 1
    return (
        f"Weight share |w{subscript(d)}|/‖w‖ of feature {d} (0 = the boundary ignores it): "
        + "; ".join(parts)
        + "."
    )


def synthetic_figure_caption(distribution, params, theta, result, n_target):
    """Caption of the Synthetic-domains scatter plot (Figure 1 or 2; ``distribution``
    "bernoulli", "poisson" or a shift preset; ``params`` the class parameters, shape
    (2, n_features); ``theta`` the true dropout per feature)."""
    if distribution in SHIFT_PRESETS:
        return (
            f"Target domain of the *{SHIFT_LABELS[distribution]}* preset: marker area ∝ number "
            "of samples, one colour per class; lines are the decision boundaries (orange dashed "
            "= source classifier, purple dotted = oracle, green solid = FLDA with the "
            f"{result.transfer} transfer model). Look for the green line moving from the orange "
            "one towards the purple one."
        )
    figure = "Figure 1" if distribution == "bernoulli" else "Figure 2"
    text = (
        f"**Mirrors the paper's {figure}** (section 4.1.1). Each marker is one point of the "
        "target domain's lattice, one colour per class; its area is proportional to the "
        "number of samples there (hover for the count). Lines are decision boundaries: "
        "orange dashed = trained on the source (S-LS/S-LR), purple dotted = trained on "
        "labelled target data (T-LS/T-LR, the oracle), green solid = FLDA "
        f"({equation_link('closed_form')}, {equation_link('taylor_term')}). "
        + flda_oracle_sentence(result, n_target)
        + " "
        + dropout_sentence(theta, distribution)
    )
    if distribution == "bernoulli" and "S-LS" in result.classifiers:
        jump = sls_lattice_sentence(params, theta, result.classifiers["S-LS"].target_error)
        if jump:
            text += "\n\n" + jump
    return text


# ----------------------------------------------------------------------------- Transfer parameters


def perturbation_minimum(sweep, loss):
    """``(perturbation, target error)`` of the lowest point of one loss's error curve."""
    fits = [f for f in sweep if f.loss == loss and f.perturbation is not None]
    if not fits:
        raise ValueError(f"No {loss} fits in the sweep.")
    best = min(fits, key=lambda f: (f.target_error, abs(f.perturbation)))
    return float(best.perturbation), float(best.target_error)


def perturbation_curve_sentences(sweep, naive, feature=0):
    """Table 1 as a curve: where each FLDA error curve (``sweep``, section 4.1.3) is lowest,
    and whether that beats the estimate +0 and the oracle (in ``naive``, the S-* and T-*
    fits by name) beyond the noise of paired standard errors."""
    sentences = []
    for loss in LOSSES:
        fits = {round(f.perturbation, 10): f for f in sweep if f.loss == loss}
        if not fits:
            continue
        oracle = naive.get(classifier_name("target", loss))
        at, lowest = perturbation_minimum(sweep, loss)
        best, zero = fits[round(at, 10)], fits.get(0.0)
        text = f"{best.name} is lowest at θ̂{subscript(feature + 1)} {at:+.2f} ({lowest:.3f})"
        if zero is None:
            text += ", +0 is not on the curve"
        elif abs(at) < 1e-12:
            text += ", i.e. at the estimate itself"
        else:
            se = paired_se(zero, best)
            text += (
                f", **below its value at the estimate +0 ({zero.target_error:.3f}; paired standard "
                f"error {se:.4f})**: the estimated θ̂ is not the error-minimising one here"
                if beyond_noise(zero.target_error - lowest, se)
                else f", level with its +0 value ({zero.target_error:.3f}) within the noise (paired "
                f"standard error {se:.4f})"
            )
        if oracle is not None:
            se = paired_se(best, oracle)
            text += (
                f"; that is even below the oracle {oracle.name} ({oracle.target_error:.3f}; paired "
                f"standard error {se:.4f}), which minimises the loss, not the error"
                if lowest < oracle.target_error and beyond_noise(oracle.target_error - lowest, se)
                else f"; the oracle {oracle.name} has {oracle.target_error:.3f}"
            )
        sentences.append(text + ".")
    return " ".join(sentences)


def dropout_factor_sentence(theta_hat_value, perturbations, feature=0):
    """The variance factor θ/(1 − θ) (the per-feature ridge strength) at the estimate and
    at each perturbation."""
    values = []
    for delta in sorted({0.0, *(float(p) for p in perturbations)}):
        factor = float(dropout_variance_factor(min(1.0, max(0.0, theta_hat_value + delta))))
        values.append(
            f"{factor:.2f} at {delta:+.2f}" if np.isfinite(factor) else f"infinite at {delta:+.2f} (θ = 1)"
        )
    d = subscript(feature + 1)
    return (
        f"FLDA's penalty on the weight of feature {feature + 1} grows with θ{d}/(1 − θ{d}) · "
        f"Σᵢ xᵢ{d}² ({equation_link('per_feature_ridge')}); with θ̂{d} = {theta_hat_value:.3f} "
        "the factor θ/(1 − θ) is " + ", ".join(values) + "."
    )


def table1_errors(naive, sweep):
    """This run's errors under the keys of ``PAPER_TABLE1.errors`` (``"FLDA-Q+0.1"``, ...)."""
    errors = {name: fit.target_error for name, fit in naive.items()}
    errors.update({f"{f.name}{f.perturbation:+g}": f.target_error for f in sweep})
    return errors


def table1_agreement_sentence(our_errors, feature=0, paper_errors=None):
    """How far this run's Table 1 is from the paper's (largest difference, computed)."""
    paper_errors = PAPER_TABLE1.errors if paper_errors is None else paper_errors
    if feature != 0:
        return (
            "The paper perturbs feature 1; this run perturbs feature "
            f"{feature + 1}, so only its S-* and T-* columns are comparable."
        )
    diffs = {k: abs(our_errors[k] - paper_errors[k]) for k in paper_errors if k in our_errors}
    if not diffs:
        return "This run has none of the paper's Table 1 columns."
    worst = max(diffs, key=diffs.get)
    missing = len(paper_errors) - len(diffs)
    return (
        f"Compared with the paper's Table 1 on {len(diffs)} of its {len(paper_errors)} "
        f"entries, this run differs by at most {diffs[worst]:.3f} (at {worst}: "
        f"{our_errors[worst]:.3f} here, {paper_errors[worst]:.3f} in the paper), median "
        f"{float(np.median(list(diffs.values()))):.3f}."
        + (
            f" {missing} entries are not in this run (choose their perturbations in the sidebar)."
            if missing
            else ""
        )
    )


def perturbation_curve_caption(sweep, naive, feature, theta_hat_value, perturbations):
    """Caption of the Transfer-parameters error curve (Table 1 as a curve); ``perturbations``
    are the ones drawn as boundaries (for the variance factors quoted)."""
    return (
        f"**Table 1 as a curve** (section 4.1.3). Green: FLDA's target error when the "
        f"estimated dropout θ̂{subscript(feature + 1)} is shifted by the amount on the x-axis; "
        "orange dashed: the naive source classifier; purple dotted: the oracle trained on "
        "labelled target data; open circles: the paper's Table 1 (for its setting). "
        + perturbation_curve_sentences(sweep, naive, feature)
        + " "
        + dropout_factor_sentence(theta_hat_value, perturbations, feature)
        + " "
        + boundary_tilt_sentence(sweep, feature)
    ).strip()


def table1_run_caption(data_key, result):
    """Caption of this run's Table 1 (numbers from the run)."""
    return (
        f"Target errors with {data_key[2]:,} source and {data_key[3]:,} target samples "
        f"(seed {data_key[5]}): SL/TL are the naive source/target classifiers, "
        f"θ̂{result.feature + 1}+d is FLDA with that perturbation. θ̂ = "
        f"({', '.join(f'{t:.3f}' for t in result.theta_hat)})."
    )


def paper_table1_caption(result, data_key, matches):
    """Caption of the published Table 1: how far this run is from it and from the paper's
    Figure 2 text when the run's data model is the paper's (``matches``)."""
    head = (
        f"The paper's Table 1 (Poisson rates 2/6, θ = [0.5, 0], {PAPER_TABLE1.n_source:,} samples per domain)"
    )
    if not matches:
        return head + "; this run's data model differs, so its numbers are not comparable."
    naive = result.naive.classifiers
    text = head + ". " + table1_agreement_sentence(table1_errors(naive, result.chosen_fits()), result.feature)
    if result.sweep and {"S-LS", "T-LS", "S-LR", "T-LR"} <= set(naive):
        ours = {name: fit.target_error for name, fit in naive.items()}
        ours.update({f.name: f.target_error for f in result.chosen_fits() if abs(f.perturbation) < 1e-12})
        text += " " + figure2_reference_sentence(ours, data_key[2], data_key[3])
    return text


def figure4_caption(result, own_drawn):
    """Caption of Figure 4: the boundaries at the chosen perturbations (``own_drawn``: the
    line of "your θ" is drawn)."""
    d = result.feature + 1
    return (
        "**Mirrors the paper's Figure 4.** Target data (marker area ∝ number of samples "
        "at each lattice point, hover for counts) with the boundaries of the naive source "
        "classifier (orange dashed), the target oracle (purple dotted) and FLDA at "
        f"θ̂{d} plus each chosen perturbation (green; fainter = larger perturbation, labelled "
        "at the line's end). Look how +0 lies on the oracle and how larger perturbations "
        f"tilt the boundary towards ignoring feature {d}. The dash-dot line is FLDA with your "
        "θ (“your θ” controls)."
        + ("" if own_drawn else " Change your θ to add it.")
        + " "
        + boundary_tilt_sentence(result.chosen_fits(), result.feature)
    )


# ----------------------------------------------------------------------------- Learning curves


def learning_curve_sentences(table, tolerance, n_pool):
    """What Figure 3's curves (``table``:
    :func:`~explorer.experiments.learning_curves.summarize_errors`) show; lower only beyond
    the noise of the two standard errors combined as independent (conservative)."""
    naive, oracle, flda = (classifier_name(f, lc.LOSS) for f in ("source", "target", "flda"))
    n_adapt = lc.adaptation_sample_size(table, flda, oracle, "target", tolerance)
    largest = int(table["n"].max())
    if n_adapt is None:
        sentences = [f"{flda} is still more than {tolerance:g} from the oracle {oracle} at n = {largest:,}."]
    else:
        sentences = [f"{flda} stays within {tolerance:g} of the oracle {oracle} from n = {n_adapt:,} on."]
    wide = table.pivot(index="n", columns=["domain", "classifier"], values=["mean_error", "sem"])
    mean, sem = wide["mean_error"], wide["sem"]
    first, first_sem = mean["target"].iloc[0], sem["target"].iloc[0]  # at the smallest n
    gaps = {n: (first[flda] - first[n], np.hypot(first_sem[flda], first_sem[n])) for n in (naive, oracle)}
    numbers = (
        f"At the smallest n = {int(mean.index[0]):,}, {flda} ({first[flda]:.3f}) is %s both "
        f"{naive} ({first[naive]:.3f}) and {oracle} ({first[oracle]:.3f})"
    )
    if all(gap < 0 and beyond_noise(gap, se) for gap, se in gaps.values()):
        sentences.append(
            numbers
            % "below"
            + f" by more than {SE_MULTIPLE:g} standard errors of each difference: the dropout "
            f"variance acts as a per-feature regulariser ({equation_link('per_feature_ridge')})."
        )
    else:
        ses = " and ".join(f"{se:.3f}" for _, se in gaps.values())
        sentences.append(
            numbers % "not below" + f" beyond the noise (standard errors of the differences {ses})."
        )
    source, source_sem = mean["source"], sem["source"]
    lower = [
        source[naive] - source[n] < -SE_MULTIPLE * np.hypot(source_sem[naive], source_sem[n])
        for n in (oracle, flda)
    ]
    sentences.append(
        f"On the source set {naive} is lower than both others beyond the noise at "
        f"{int((lower[0] & lower[1]).sum())} of {len(mean)} sizes."
    )
    if largest < n_pool:
        sentences.append(
            f"The largest n ({largest:,}) is below the pool size "
            f"({n_pool:,}), so its repeats differ and the SEM there is not 0."
        )
    else:
        sentences.append(f"At n = {largest:,} every repeat uses the whole pool, so the SEM is 0 there.")
    return " ".join(sentences)


def learning_curve_caption(config, repeats, table, tolerance, present=False):
    """Caption of Figure 3 on the Learning curves page (``repeats``: how many were drawn)."""
    if config.ridge:
        ridge = (
            f"All classifiers are l2-regularised with λ = {config.ridge:g}: the paper remarks "
            "that FLDA-Q's small-sample advantage then disappears — compare the smallest sizes "
            "with and without it. "
        )
    elif present:
        ridge = "No l2 regularisation. "
    else:
        ridge = (
            "No l2 regularisation: switch it on under *Classifiers* to test the paper's remark "
            "that with l2-regularised classifiers FLDA-Q's small-sample advantage disappears. "
        )
    return (
        "Mirrors the paper's **Figure 3**: mean classification error against the number of "
        "training samples (log axis), on the source validation set (top, dotted) and the "
        "target validation set (bottom, solid); bands are ± one standard error over "
        f"{repeats} repeats. Look at the bottom panel: does FLDA (green) join the oracle (purple) while the "
        "naive source classifier (orange) stays high? Here: "
        + learning_curve_sentences(table, tolerance, config.n_pool)
        + " "
        + ridge
        + "At n = 2 (one sample per class) every least-squares classifier, with or without "
        "ridge, is the perpendicular bisector of its two samples; only FLDA's per-feature "
        "dropout penalty can change it."
    )


def learning_curve_table_caption(head, tolerance, present=False):
    """Caption of the numbers behind Figure 3 (``head``:
    :func:`~explorer.experiments.learning_curves.headline`)."""
    meets = (
        f"{head.flda} stays within {tolerance:g} of {head.oracle} from n = {head.adapted_from:,} on"
        if head.adapted_from is not None
        else f"{head.flda} is still more than {tolerance:g} from {head.oracle} at the largest n"
    )
    return (
        "The numbers behind **Figure 3**: mean error ± one standard error over repeats, per "
        "training-set size n (rows) and classifier; *(target)* columns are the bottom panel, "
        "*(source)* columns the top one. Read down the *FLDA-Q (target)* and *T-LS (target)* "
        "columns to find where FLDA meets the oracle trained on labelled target data, and "
        "compare both with *S-LS (target)*, the naive source classifier. Here: "
        + meets
        + ("." if present else " (tolerance under *Display*).")
    )


def gap_caption(gaps, small_n):
    """Caption of the adaptation gap to the oracle (``gaps``:
    :func:`~explorer.experiments.learning_curves.oracle_gaps` tables)."""
    small = "; ".join(f"{name}: {gap:+.3f}" for name, (gap, _) in lc.small_sample_gaps(gaps, small_n).items())
    return (
        "Target error minus the target oracle's (T-LS), averaged over repeats with the "
        "paired standard error (every repeat shares its target subset between the oracle and "
        "FLDA). This re-plots the bottom panel of Figure 3 so that the adaptation gap is "
        "readable: FLDA's curve should reach 0, S-LS's stays far above. Below 0 means better "
        f"than the oracle. Mean gap over n ≤ {small_n}"
        + (f" ({small})" if small else "")
        + " — compare it with l2 switched on and off."
    )


def learning_curve_method(config):
    """How the learning-curve experiment is run, with this setting's numbers (markdown)."""
    return f"""
* **Data** (seed {config.seed} from the sidebar): four independent sets of
  {config.n_pool:,} samples — source train/validation from the class-conditionals,
  target train/validation from fresh draws passed through dropout with
  θ = ({config.theta[0]:g}, {config.theta[1]:g}). Classes are balanced.
* **Subsets**: every repeat shuffles each training pool once and size *n* uses the first
  *n* samples (nested subsets). The earliest sample of each class is moved to the front,
  so every subset contains both classes; T-LS and FLDA share the target subset.
* **FLDA-Q** estimates θ from its *n* source and *n* target samples
  (θ_d = max(0, 1 − ζ_d/η_d)); a feature absent from the target subset gets weight 0.
* **Closed form, batched**: all S-LS, T-LS and FLDA-Q fits of all repeats are solved at
  once; they equal `FLDAClassifier(loss="quadratic", l2=λ/n)` to machine precision.
  Singular systems (tiny *n*, no ridge) get the minimum-norm solution.
* **Errors**: a validation sample counts as class 2 when its score is strictly positive.
  Count data sit on a lattice, and at small *n* a boundary often passes exactly through
  lattice points; scores within 10⁻⁹ (relative) of zero are treated as exactly zero so
  that rounding noise cannot move whole lattice points across the boundary (the same
  rule on every page).
* Sample sizes used: {", ".join(f"{n:,}" for n in config.sizes)}.
"""


# ----------------------------------------------------------------------------- Handwritten digits


def l2_sentence(naive_name, naive_l2, flda_name, flda_l2, cross_validated):
    """The l2 each weight map of Figure 6 was fitted with, named per map."""
    how = "chosen by cross-validation on the source" if cross_validated else "set by hand"
    if np.isclose(naive_l2, flda_l2, rtol=1e-12, atol=0):
        return f"Both maps use l2 = {naive_l2:g} ({how})."
    return f"{naive_name} uses l2 = {naive_l2:g} and {flda_name} l2 = {flda_l2:g} ({how})."


def asymmetry_sentence(errors, directions=("A → B", "B → A")):
    """Whether FLDA improves on the naive classifier in each direction (Table 4); ``errors``
    maps direction -> (naive error, FLDA error, mean θ, naive name, FLDA name)."""
    parts, helped = [], []
    for direction in directions:
        naive, flda, mean_theta, naive_name, flda_name = errors[direction]
        helped.append(flda < naive - 5e-4)
        parts.append(
            f"{direction}: {naive_name} {naive:.3f} → {flda_name} {flda:.3f} "
            f"(mean θ = {mean_theta:.2f}, " + ("better" if helped[-1] else "no better") + ")"
        )
    summary = {
        (True, False): ", the asymmetry the paper's text describes.",
        (False, True): ", the asymmetry the paper's text describes, reversed.",
        (True, True): ": no asymmetry.",
    }.get(tuple(helped), ".")
    return f"Here FLDA helps {directions_phrase(helped, directions)}{summary} " + "; ".join(parts) + "."


def directions_phrase(helped, directions=("A → B", "B → A")):
    """ "in both directions", "for A → B only", ... from one flag per direction."""
    if all(helped):
        return "in both directions"
    if not any(helped):
        return "in neither direction"
    return "for " + " and ".join(d for d, h in zip(directions, helped, strict=True) if h) + " only"


def paper_table4_sentence(naive_name="S-LR", flda_names=("FLDA-L", "FLDA-Q")):
    """What the paper's own Table 4 (MNIST/USPS) says, direction by direction, per FLDA
    variant: the numbers quoted, the verdict computed from them."""
    parts = []
    for flda_name in flda_names:
        steps, helped = [], []
        for direction, row in PAPER_TABLE4.items():
            helped.append(row[flda_name] < row[naive_name])
            steps.append(f"{direction} {row[naive_name]:.3f} → {row[flda_name]:.3f}")
        where = directions_phrase(helped, tuple(PAPER_TABLE4))
        parts.append(f"{flda_name} improves on {naive_name} {where} ({'; '.join(steps)})")
    return "In the paper's Table 4 (MNIST/USPS), " + "; ".join(parts) + "."
