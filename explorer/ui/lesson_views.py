"""What each lesson step shows, computed from the step's own settings (issue 25).

:func:`step_view` runs the step's experiment as its full page does (with the step's
settings and control values, never the full pages' session state) and returns a
:class:`View`.  The Lesson page draws a view; the handout prints every step's.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from explorer.data.digits import make_offline_domains
from explorer.data.domain_config import SHIFT_PRESETS, parse_domain_config
from explorer.data.numbers import parse_per_feature
from explorer.experiments import learning_curves as lc
from explorer.experiments import perturbation
from explorer.experiments.assumption import binomial_se, transfer_risk
from explorer.experiments.digits import FIGURE6_PAIRS, PAPER_TABLE4, run_digits, stored_fitter
from explorer.experiments.synthetic import PAPER_FIGURE1, PAPER_FIGURE2, fit_classifiers, theta_table
from explorer.experiments.synthetic import paired_se as fits_paired_se
from explorer.names import LOSS_TITLES, LOSSES, classifier_name
from explorer.teaching import captions
from explorer.teaching import paper_notes as pn
from explorer.teaching.captions import beyond_noise
from explorer.teaching.equations import equation_link
from explorer.teaching.lesson import LEARNING_CURVE_QUESTION_N, LESSON_STEPS, SE_MULTIPLE
from explorer.teaching.lesson import TARGET_LABELS, THETA_TOLERANCE
from explorer.ui import caches
from flda_core import estimate_dropout
from flda_core.transfer import nonzero_rate


@dataclass
class View:
    """What one step shows.

    ``fig_before`` is shown before Reveal (the setting only, nothing that answers the
    question); ``fig``, ``numbers`` (``(label, value)`` pairs drawn large), ``reveal``
    and ``table`` after it.  ``paper`` quotes the paper (marked as a quote); ``correct``
    the indices of the choices what is shown makes right; ``error`` a problem with the
    settings (then nothing else is shown).
    """

    fig: object = None
    fig_before: object = None
    what: str = ""
    caption: str = ""
    numbers: list = field(default_factory=list)
    paper: str = ""
    correct: frozenset = frozenset()
    reveal: str = ""
    table: object = None
    notes: list = field(default_factory=list)
    error: str = ""
    #: Named numbers of the step as shown, for its speaker notes.
    facts: dict = field(default_factory=dict)


def lower(gap, se):
    """Which of two errors is lower beyond the noise (``gap`` = first − second): 0 (the
    first), 1 (the second) or 2 (too close to call), the order of every step's choices."""
    return (0 if gap < 0 else 1) if beyond_noise(gap, se) else 2


def _which_of_two(first, second):
    """The choice "first only", "second only", "both" or "neither" (0-3) that holds."""
    return {(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[(first, second)]


def verdict(which, first, second):
    """The words of :func:`lower`'s answer."""
    return "too close to call" if which == 2 else f"{(first, second)[which]} is lower beyond the noise"


def paired_se(wrong_a, wrong_b):
    """Standard error of the difference of two error rates on the same test samples
    (``wrong_a``, ``wrong_b``: 0/1 per sample)."""
    d = np.asarray(wrong_a, dtype=np.float64) - np.asarray(wrong_b, dtype=np.float64)
    n = len(d)
    return float(np.std(d, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")


def lesson_domain_key(values, prefix):
    """The :func:`caches.cached_domains` key of a synthetic step's settings (or problems);
    with a shift preset (``"rate"``) ``<prefix>.theta`` holds its factor per feature."""
    seed = int(values["shared.seed"])
    sizes = [values[f"{prefix}.{name}"] for name in ("n_source", "n_target")]
    shift = values.get(f"{prefix}.shift", "dropout")
    if shift not in SHIFT_PRESETS:
        names = ("distribution", "n_features", "class1", "class2", "theta")
        return parse_domain_config(*(values[f"{prefix}.{name}"] for name in names), *sizes, seed)
    params = SHIFT_PRESETS[shift][1]
    try:
        factors = parse_per_feature(values[f"{prefix}.theta"], len(params[0]), "Rate factor", 0.0, 100.0)
    except ValueError as error:
        return None, [str(error)]
    params = tuple(tuple(float(v) for v in row) for row in params)
    return (shift, params, *map(int, sizes), tuple(float(v) for v in factors), seed), []


def synthetic_result(values):
    """A synthetic step's run, as its full page computes it: ``(data_key, pair, result,
    error)`` (``error`` a problem with the settings, then the rest is None)."""
    data_key, problems = lesson_domain_key(values, "syn")
    if problems:
        return None, None, None, " ".join(problems)
    pair = caches.cached_domains(*data_key)
    result = fit_classifiers(pair, l2=float(values.get("syn.l2", 0.0)), fit=caches.linear_fitter(data_key))
    return data_key, pair, result, ""


def _points(data_key, domain, title, show_source=False):
    """A step's setting: the lattice points of one domain, no boundary."""
    from explorer.figures.synthetic import decision_boundary_figure

    source = caches.cached_lattice_counts(data_key, "source") if show_source else None
    return decision_boundary_figure(
        caches.cached_lattice_counts(data_key, domain),
        [(title, [])],
        source_counts=source,
        points_domain=domain,
    )


def _on_synthetic_run(view):
    """A synthetic step's view drawn from its run (:func:`synthetic_result`), or the error."""

    def run(lesson_step, values, slide=False):
        data_key, pair, result, error = synthetic_result(values)
        return View(error=error) if error else view(values, data_key, pair, result)

    return run


@_on_synthetic_run
def _dropout_view(values, data_key, pair, result):
    paper = PAPER_FIGURE1
    theta1 = float(data_key[4][0])
    target = np.unique(np.round(pair.X_target[:, 0], 9))
    source = np.unique(np.round(pair.X_source[:, 0], 9))
    scaled = {0.0, round(1.0 / (1.0 - theta1), 9)} if theta1 < 1 else {0.0}
    taken = set(target.tolist())
    correct = {i for i, holds in enumerate((taken <= {0.0, 1.0}, taken <= scaled, len(target) > 2)) if holds}
    zero_t = float(np.mean(pair.X_target[:, 0] == 0))
    zero_s = float(np.mean(pair.X_source[:, 0] == 0))
    shown = ", ".join(f"{v:g}" for v in target)
    with_source = bool(values.get("syn.show_source"))
    reveal = (
        f"In this target feature 1 takes the values {shown} (source: "
        f"{', '.join(f'{v:g}' for v in source)}), with θ₁ = {theta1:g}: "
        f"{zero_t:.0%} of the target samples sit at x₁ = 0, {zero_s:.0%} of the "
        "source samples."
    )
    return View(
        fig=_points(
            data_key, "target", "Target and source domains" if with_source else "Target domain", with_source
        ),
        fig_before=_points(data_key, "source", "Source domain"),
        what=f"lesson figure 1 domains theta {theta1:g}",
        caption=(
            f"The target domain's lattice points (filled circles, area ∝ samples) of "
            f"{data_key[3]:,} samples with θ = {list(data_key[4])}"
            + (", the source's as open diamonds" if with_source else "")
            + ": the data of the paper's Figure 1 (section 4.1.1), dropped out as in "
            + equation_link("transfer_model")
            + "."
        ),
        numbers=[("values of x₁ in the target", shown), ("target samples at x₁ = 0", f"{zero_t:.0%}")],
        paper=f"*The paper ({paper.label}, section 4.1.1):* {paper.distribution.capitalize()} features, "
        f"class parameters {paper.params[0]} and {paper.params[1]}, θ = "
        f"{list(paper.theta)}, {paper.n_source:,} samples per domain.",
        correct=frozenset(correct),
        reveal=reveal,
        facts={"theta1": f"{theta1:g}"},
    )


def domain_labels(pair, values):
    """The target's labels of the assumption step: as generated (they follow the source),
    or, with ``syn.target_labels`` set to depend on the domain, swapped where x₂ > 0 (the
    assumption broken: :data:`explorer.teaching.lesson.TARGET_LABELS`)."""
    if values.get("syn.target_labels", TARGET_LABELS[0]) == TARGET_LABELS[0]:
        return pair.y_target
    return np.where(pair.X_target[:, 1] > 0, 1 - pair.y_target, pair.y_target)


@_on_synthetic_run
def _assumption_view(values, data_key, pair, result):
    """Equation (3) from source labels and θ̂ beside the error measured on the target."""
    from explorer.figures.lesson import Series, estimates_figure

    names = [classifier_name(f, "quadratic") for f in ("source", "flda")]
    fits = [result.classifiers[n] for n in names]
    risks = transfer_risk(
        fits, pair.X_source, pair.y_source, pair.X_target, domain_labels(pair, values), result.theta_hat
    )
    off = [r for r in risks if beyond_noise(r.measured - r.expected, r.gap_se)]
    predicted = Series(
        "Equation (3)", tuple(r.expected for r in risks), tuple(r.expected_se for r in risks), "diamond"
    )
    measured = Series(
        "measured on the target",
        tuple(r.measured for r in risks),
        tuple(r.measured_se for r in risks),
        "circle",
    )
    theta_hat = ", ".join(f"{t:.3f}" for t in result.theta_hat)
    labels = values.get("syn.target_labels", "")
    largest = max(abs(r.measured - r.expected) / r.gap_se for r in risks)
    return View(
        fig=estimates_figure(names, [predicted, measured], "target error (0-1 loss), ±1 SE"),
        fig_before=estimates_figure(names, [predicted], "target error (0-1 loss), ±1 SE"),
        what=f"lesson equation 3 estimate target labels {labels}",
        caption=(
            f"Diamonds: each classifier's expected 0-1 loss over the dropout transfer model "
            f"with θ̂ = [{theta_hat}] on {data_key[2]:,} labelled source samples (Equation (3), "
            f"every dropout pattern enumerated); circles: its error on {data_key[3]:,} "
            f"labelled target samples whose labels {labels}; bars ±1 standard error."
        ),
        # big numbers are what the full page shows too (the target errors); Equation (3)'s
        # estimates are in the labels, the reveal and the figure
        numbers=[(f"{r.name} on the target (Eq. (3) {r.expected:.3f})", f"{r.measured:.3f}") for r in risks],
        paper="*The paper (section 3.2):* the labels are conditionally independent of the "
        "target given the source, Y ⊥ Z | X, which is less stringent than covariate shift.",
        correct=frozenset({1 if off else 0}),
        reveal=(
            "Equation (3) → target: "
            + ", ".join(f"{r.name} {r.expected:.3f} → {r.measured:.3f}" for r in risks)
            + f"; largest gap {largest:.1f} standard errors (bootstrap over both samples, θ̂ "
            + "re-estimated in each)"
            + (
                f": {', '.join(r.name for r in off)} beyond {SE_MULTIPLE:g}."
                if off
                else f", within {SE_MULTIPLE:g}."
            )
            + f" Where the labels follow the source, each gap still lands beyond {SE_MULTIPLE:g} "
            f"standard errors in about {math.erfc(SE_MULTIPLE / math.sqrt(2)):.0%} of runs, by chance."
        ),
    )


@_on_synthetic_run
def _theta_view(values, data_key, pair, result):
    from explorer.figures.synthetic import theta_figure

    gap = np.abs(np.asarray(result.theta_hat) - np.asarray(result.theta_true))
    numbers = [
        (f"feature {d}: θ̂ (true θ {t:g})", f"{h:.3f}")
        for d, (t, h) in enumerate(zip(result.theta_true, result.theta_hat, strict=True), start=1)
    ]
    return View(
        fig=theta_figure(result.theta_true, result.theta_hat),
        fig_before=theta_figure(result.theta_true, None),
        what="lesson true and estimated dropout per feature",
        caption=(
            f"Open bars: the true θ; filled: the estimate θ̂ "
            f"({equation_link('theta_hat')}) from {data_key[3]:,} unlabelled target "
            "samples. " + captions.theta_recovery_sentence(result.theta_true, result.theta_hat)
        ),
        numbers=numbers,
        table=theta_table(result.theta_true, result.theta_hat, data_key[1], data_key[0]),
        paper="*The paper (section 3.3.1):* θ̂ = max{0, 1 − ζ̂/η̂} per feature, "
        "from unlabelled target data alone.",
        correct=frozenset({0 if gap.max() <= THETA_TOLERANCE else 1}),
        reveal=captions.theta_recovery_sentence(result.theta_true, result.theta_hat)
        + f" ({data_key[3]:,} target samples).",
        facts={
            "nonzero_source": f"{np.mean(pair.X_source[:, 0] != 0):.0%}",
            "nonzero_target": f"{np.mean(pair.X_target[:, 0] != 0):.0%}",
            "theta_hat": f"{result.theta_hat[0]:.3f}",
        },
    )


def _errors_view(values, data_key, pair, result, paper_columns, what):
    """Steps on Figures 1-2: the boundaries of the chosen loss and its three errors (with
    binomial standard errors) beside the paper's; before Reveal the target points only."""
    from explorer.figures.synthetic import boundary_lines, decision_boundary_figure

    loss = values.get("syn.loss", "both")
    loss = LOSSES[0] if loss == "both" else loss
    names = [classifier_name(f, loss) for f in ("source", "target", "flda")]
    ours = {n: result.classifiers[n].target_error for n in names}
    n_target = len(pair.y_target)
    ses = {n: binomial_se(ours[n], n_target) for n in names}
    table = pd.DataFrame(
        {
            "classifier": names,
            "this run": [ours[n] for n in names],
            "SE": [ses[n] for n in names],
            **{label: [errors.get(n, np.nan) for n in names] for label, errors in paper_columns.items()},
        }
    )
    view = View(
        fig=decision_boundary_figure(
            caches.cached_lattice_counts(data_key),
            [(LOSS_TITLES[loss], boundary_lines(result.for_loss(loss)))],
        ),
        fig_before=_points(data_key, "target", f"Target domain ({LOSS_TITLES[loss].lower()})"),
        what=f"lesson {what} decision boundaries seed {data_key[5]}",
        caption=captions.synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result, data_key[3]),
        numbers=[(f"{n} (±{ses[n]:.3f})", f"{ours[n]:.3f}") for n in names],
        table=table,
    )
    return view, names, ours, n_target


@_on_synthetic_run
def _oracle_view(values, data_key, pair, result):
    view, (naive, _, flda), ours, _ = _errors_view(
        values, data_key, pair, result, {"paper (Figure 1)": PAPER_FIGURE1.errors}, "figure 1"
    )
    gap = ours[flda] - ours[naive]
    se = fits_paired_se(result.classifiers[flda], result.classifiers[naive])
    correct = lower(-gap, se)
    paper_naive, paper_flda = PAPER_FIGURE1.errors[naive], PAPER_FIGURE1.errors[flda]
    paper_lower = naive if paper_naive < paper_flda else flda
    same = (correct == 0 and paper_lower == naive) or (correct == 1 and paper_lower == flda)
    view.correct = frozenset({correct})
    view.reveal = (
        f"With seed {int(values['shared.seed'])}: {naive} {ours[naive]:.3f}, "
        f"{flda} {ours[flda]:.3f}, difference {gap:+.3f} with paired standard error "
        f"{se:.3f}: {verdict(correct, naive, flda)} at this n. The paper's Figure 1 reports "
        f"{naive} {paper_naive:.3f} and "
        f"{flda} {paper_flda:.3f} ({paper_lower} lower); this run "
        + ("agrees." if same else "does not show that order beyond the noise.")
    )
    view.notes = [f"*The paper (Figure 1, section 4.1.1):* {PAPER_FIGURE1.summary}"]
    view.facts = {"paper_gap": f"{abs(paper_naive - paper_flda):.3f}"}
    return view


@_on_synthetic_run
def _counts_view(values, data_key, pair, result):
    table1 = perturbation.table1_unperturbed_errors()
    reports = {"Figure 2's text": PAPER_FIGURE2.errors, "Table 1": table1}
    columns = {"paper (Figure 2 text)": PAPER_FIGURE2.errors, "paper (Table 1)": table1}
    view, names, ours, n_target = _errors_view(values, data_key, pair, result, columns, "figure 2")
    flda = names[2]
    se = binomial_se(ours[flda], n_target)
    to_text = abs(ours[flda] - PAPER_FIGURE2.errors[flda])
    to_table = abs(ours[flda] - table1[flda])
    # both reports are fixed numbers: the run's own SE decides whether one is nearer
    view.correct = frozenset({lower(to_text - to_table, se)})

    def matches(name):
        return [
            label
            for label, errors in reports.items()
            if name in errors
            and not beyond_noise(ours[name] - errors[name], binomial_se(ours[name], n_target))
        ]

    within = {n: matches(n) for n in names}
    view.reveal = (
        f"This run's {flda} error {ours[flda]:.3f} (±{se:.3f}, {n_target:,} target samples) is "
        f"{to_text:.3f} from Figure 2's text ({PAPER_FIGURE2.errors[flda]:.3f}) and "
        f"{to_table:.3f} from Table 1 ({table1[flda]:.3f}). Within twice its standard error: "
        + "; ".join(f"{n} of {' and '.join(within[n]) if within[n] else 'neither report'}" for n in names)
        + "."
    )
    view.paper = (
        "*The paper reports this setting twice:* Figure 2's text "
        + ", ".join(f"{n} {e:.3f}" for n, e in PAPER_FIGURE2.errors.items())
        + "; Table 1 "
        + ", ".join(f"{n} {e:.3f}" for n, e in table1.items())
        + "."
    )
    view.facts = {"report_gap": f"{abs(PAPER_FIGURE2.errors[flda] - table1[flda]):.3f}"}
    return view


def perturbation_result(values):
    """The Transfer step's run, as the Transfer page computes it (same perturbations,
    curve range, ℓ2 and fit): ``(data_key, result, error)``."""
    data_key, problems = lesson_domain_key(values, "tp")
    if problems:
        return None, None, " ".join(problems)
    result = perturbation.run_perturbation(
        caches.cached_domains(*data_key),
        0,
        values["tp.perturbations"],
        tuple(values["tp.curve_range"]),
        float(values["tp.l2"]),
        fit=caches.linear_fitter(data_key),
    )
    return data_key, result, ""


def _transfer_view(lesson_step, values, slide=False):
    from explorer.figures.synthetic import perturbation_error_figure

    data_key, result, error = perturbation_result(values)
    if error:
        return View(error=error)
    delta = float(values["tp.delta_1"])
    l2 = float(values["tp.l2"])
    if not result.curve:
        return View(error="θ̂₁ plus every shift leaves [0, 1].")
    at, lowest = captions.perturbation_minimum(result.sweep, "quadratic")
    quadratic = {round(f.perturbation, 10): f for f in result.sweep if f.loss == "quadratic"}
    at_zero_fit = quadratic[0.0]
    at_zero = at_zero_fit.target_error
    se = fits_paired_se(at_zero_fit, quadratic[round(at, 10)])
    correct = 0 if abs(at) < 1e-12 else 3 if not beyond_noise(at_zero - lowest, se) else 1 if at < 0 else 2
    theta1 = float(result.theta_hat[0])
    name = classifier_name("flda", "quadratic")
    chosen = quadratic.get(round(delta, 10))
    paper_value = perturbation.PAPER_TABLE1.errors.get(f"{name}+{delta:g}")
    numbers = [
        (
            f"{name} at θ̂₁ {delta:+.2f}" + (f" (paper {paper_value:.3f})" if paper_value is not None else ""),
            f"{chosen.target_error:.3f}" if chosen else "outside [0, 1]",
        ),
        (f"{name} lowest at θ̂₁ {at:+.2f}", f"{lowest:.3f}"),
    ]
    frames = {"this run": result.table1(), "paper": perturbation.paper_table1_frame()}
    for label, frame in frames.items():
        frame.index = [f"{label}, {i}" for i in frame.index]
    naive = list(result.naive.classifiers.values())
    return View(
        fig=perturbation_error_figure(
            result.sweep, naive, 0, paper=perturbation.PAPER_TABLE1.errors, mark=delta
        ),
        fig_before=perturbation_error_figure(result.sweep, naive, 0, answer=False, mark=delta),
        what=f"lesson table 1 error against shift of theta l2 {l2:g}",
        caption=captions.perturbation_curve_caption(
            result.sweep, result.naive.classifiers, 0, theta1, result.chosen
        ),
        numbers=numbers,
        table=pd.concat(list(frames.values())),
        notes=[
            "*The paper's Table 1 (section 4.1.3):* "
            + ", ".join(f"{k} {v:.3f}" for k, v in perturbation.PAPER_TABLE1.errors.items())
            + "."
        ],
        correct=frozenset({correct}),
        reveal=(
            f"θ̂₁ = {theta1:.3f}: FLDA-Q is lowest at "
            f"θ̂₁ {at:+.2f} ({lowest:.3f}; at +0: {at_zero:.3f}; paired SE {se:.4f})"
            + {0: ": the estimate itself.", 3: ": too close to call at this n."}.get(
                correct, ": lower than at the estimate beyond the noise."
            )
        ),
    )


@st.cache_data(max_entries=8, show_spinner=False)
def learning_curves(ridge, seed):
    """Figure 3 as the Learning-curves page computes it with the step's settings."""
    return pn.figure3_curves(ridge, seed)


def _learning_view(lesson_step, values, slide=False):
    from explorer.figures.learning_curves import learning_curve_figure

    ridge = float(values["lc.ridge"]) if values["lc.l2"] else 0.0
    result = learning_curves(ridge, int(values["shared.seed"]))
    table = result.table
    target = table[table["domain"] == "target"]
    sizes = sorted(int(n) for n in target["n"].unique())
    asked = LEARNING_CURVE_QUESTION_N if LEARNING_CURVE_QUESTION_N in sizes else sizes[1]
    at = target[target["n"] == asked].set_index("classifier")
    mean, sem = at["mean_error"], at["sem"]
    gap = float(mean["FLDA-Q"] - mean["S-LS"])
    se = float(np.hypot(sem["FLDA-Q"], sem["S-LS"]))
    correct = lower(gap, se)
    n_adapt = lc.adaptation_sample_size(table, "FLDA-Q", "T-LS", "target", 0.01)
    numbers = [(f"{n} at n = {asked} (±SE {sem[n]:.3f})", f"{mean[n]:.3f}") for n in ("S-LS", "FLDA-Q")]
    numbers.append(
        (f"FLDA-Q ≈ T-LS from n (paper ≈ {pn.PAPER_ADAPTATION_N})", f"{n_adapt:,}" if n_adapt else "never")
    )
    regime = f"ℓ2 with λ = {ridge:g} for every classifier" if ridge else "no ℓ2"
    return View(
        fig=learning_curve_figure(table, slide=slide),
        fig_before=learning_curve_figure(table[table["n"] > asked], slide=slide),
        what=f"lesson figure 3 learning curves l2 {ridge:g}",
        caption=f"Mirrors the paper's Figure 3 (quadratic loss, 50 repeats, {regime}). "
        + captions.learning_curve_sentences(table, 0.01, 10_000),
        numbers=numbers,
        paper=(
            f'*The paper (section 4.1.2):* FLDA-Q needs "roughly '
            f"{pn.PAPER_ADAPTATION_N} labeled source samples and "
            f'{pn.PAPER_ADAPTATION_N} unlabeled target samples"; its small-sample '
            'advantage "disappears" with ℓ2-regularised classifiers.'
        ),
        correct=frozenset({correct}),
        reveal=(
            f"{regime.capitalize()}, n = {asked}: FLDA-Q − S-LS = {gap:+.3f} ± {se:.3f} (SE over "
            f"50 repeats): {verdict(correct, 'FLDA-Q', 'S-LS')}; T-LS {mean['T-LS']:.3f} ± {sem['T-LS']:.3f}."
        ),
    )


@st.cache_data(max_entries=4, show_spinner=False)
def digit_results(seed):
    """The Digits page's default fits (Table 4, l2 by cross-validation), both directions,
    from its disk store (filled by the server's start or the Digits page)."""
    data = make_offline_domains(random_state=seed)
    return data, run_digits(data, "A → B", "logistic", None, 0.0, seed, fit=stored_fitter(data, seed))


def _digit_gains(data, results, naive_name, flda_name):
    """Per direction: ``(naive error, FLDA error, mean θ̂, names)``, the paired SE of the
    difference on the target digits, and whether FLDA is lower beyond the noise."""

    def wrong(fit, X, y):
        return fit.classes[np.argmax(X @ fit.coef.T + fit.intercept, axis=1)] != y

    targets = {"A → B": (data.X_b, data.y_b), "B → A": (data.X_a, data.y_a)}
    errors, ses = {}, {}
    for d, (X, y) in targets.items():
        naive, flda = results[(d, naive_name)], results[(d, flda_name)]
        errors[d] = (naive.error, flda.error, float(flda.theta.mean()), naive_name, flda_name)
        ses[d] = paired_se(wrong(flda, X, y), wrong(naive, X, y))
    helped = [e[1] < e[0] and beyond_noise(e[1] - e[0], ses[d]) for d, e in errors.items()]
    return errors, ses, helped


def _digits_table(errors, naive_name, flda_name):

    rows = {f"here, {d}": {naive_name: e[0], flda_name: e[1]} for d, e in errors.items()}
    for d, row in PAPER_TABLE4.items():
        rows[f"paper, {d}"] = {n: row[n] for n in (naive_name, flda_name, "FLDA-Q")}
    return pd.DataFrame.from_dict(rows, orient="index")


def _digits_view(lesson_step, values, slide=False):
    from explorer.figures.digits import digit_weights_figure, nonzero_rate_figure

    seed = int(values["shared.seed"])
    data, results = digit_results(seed)
    direction = values["dig.direction"]
    naive_name, flda_name = FIGURE6_PAIRS["logistic"]
    naive, adapted = results[(direction, naive_name)], results[(direction, flda_name)]
    digit = next((c for c in data.classes if str(c) == str(values["dig.digit"])), data.classes[0])
    errors, ses, helped = _digit_gains(data, results, naive_name, flda_name)
    paper_helped = [row[flda_name] < row[naive_name] for row in PAPER_TABLE4.values()]
    correct = _which_of_two(*helped)
    rate_a, rate_b = nonzero_rate(data.X_a), nonzero_rate(data.X_b)
    fuller, emptier = (
        (data.name_a, data.name_b) if rate_a.mean() > rate_b.mean() else (data.name_b, data.name_a)
    )
    weights = (naive.weights(digit), adapted.theta, adapted.weights(digit), data.side, digit)
    return View(
        fig=digit_weights_figure(*weights, naive_name, flda_name, True, slide=slide),
        fig_before=nonzero_rate_figure(rate_a, rate_b, data.side, data.name_a, data.name_b),
        what=f"lesson figure 6 weights digit {digit} {direction} seed {seed}",
        caption=(
            f"Mirrors the paper's Figure 6 on offline stand-in data ({data.name_a} and {data.name_b}, "
            f"made from scikit-learn's digits; not MNIST/USPS): {naive_name} weights, "
            f"{flda_name} weights and θ per pixel for digit {digit}, {direction}. "
            + captions.asymmetry_sentence(errors)
        ),
        numbers=[
            (
                f"{d}: {naive_name} → {flda_name} (paired SE {ses[d]:.3f})",
                f"{errors[d][0]:.3f} → {errors[d][1]:.3f}",
            )
            for d in errors
        ],
        table=_digits_table(errors, naive_name, flda_name),
        notes=[
            "*The paper's Table 4:* " + captions.paper_table4_sentence(naive_name),
            "θ̂ > 0.05 on "
            + ", ".join(
                f"{np.mean(results[(d, flda_name)].theta > 0.05):.0%} of the pixels for {d}" for d in errors
            )
            + ".",
        ],
        correct=frozenset({correct}),
        reveal=(
            f"{fuller} fills the frame (pixels inked in {max(rate_a.mean(), rate_b.mean()):.0%} of "
            f"images on average; {emptier}: {min(rate_a.mean(), rate_b.mean()):.0%}). On the "
            f"offline stand-in digits (not MNIST/USPS) {flda_name} beats {naive_name} beyond "
            f"twice the paired SE {captions.directions_phrase(helped)}; Table 4 (MNIST/USPS): "
            f"{captions.directions_phrase(paper_helped)}."
        ),
    )


@st.cache_data(max_entries=4, show_spinner=False)
def paper_notes(seed=0):
    """The notes on the paper of the synthetic pages (Figure 2 rerun with ``seed``)."""
    return pn.figure1_bayes_note(), pn.figure2_table1_note(seed=seed)


def _notes_view(lesson_step, values, slide=False):
    bayes, figure2 = paper_notes(0)
    below = bayes.values["below"]
    table = pd.DataFrame(
        {
            "note": [bayes.title, figure2.title],
            "the rerun": [
                "agrees with the paper" if n.consistent else "contradicts the paper" for n in (bayes, figure2)
            ],
        }
    )
    return View(
        what="notes on the paper",
        notes=[bayes.markdown(), figure2.markdown()],
        numbers=[
            ("Bayes error of Figure 1's setting", f"{bayes.values['bayes_error']:.3f}"),
            ("S-LR error Figure 1 reports", f"{below['S-LR']:.3f}" if "S-LR" in below else "not below"),
        ],
        paper=f"*The paper,* {bayes.paper_claim}",
        table=table,
        correct=frozenset({0 if bayes.consistent else 1}),
        reveal=bayes.verdict + " " + figure2.verdict,
        facts={"rerun_seed": "0"},
    )


#: Classifiers of the natural-data step (the Real data page's FLDA columns first).
NATURAL_CLASSIFIERS = ("S-LR", "FLDA-Q", "FLDA-L", "T-LR")


@st.cache_data(max_entries=16, show_spinner=False)
def natural_cells(key, seed=0):
    """One data set's row of Table 3 as the Real data page computes it (its disk store,
    ``paper_tables.stored_cell``, zeros in the gaps), and the per-row mistakes of
    S-LR and FLDA-Q on the target (the same fits, for the paired standard error)."""
    from explorer.data import uci
    from explorer.experiments import missing_data as md
    from explorer.experiments import paper_tables as pt

    cells = {name: pt.stored_cell("uci", key, name, seed) for name in NATURAL_CLASSIFIERS}
    data = uci.problem(key, "zero")
    wrong = {}
    for name in ("S-LR", "FLDA-Q"):
        predicted, _ = md.fit_arrays(name, data.X_source, data.y_source, data.X_target, data.y_target, seed)
        wrong[name] = np.asarray(predicted) != np.asarray(data.y_target)
    return cells, wrong


def _natural_view(lesson_step, values, slide=False):
    from explorer.data import uci
    from explorer.data.benchmarks import PAPER_TABLES
    from explorer.figures.lesson import Series, estimates_figure

    key = str(values["real.pair"])
    if key not in uci.UCI_SETS:
        return View(error=f"Unknown data set {key!r}; choose one of {', '.join(uci.UCI_SETS)}.")
    cells, wrong = natural_cells(key, int(values.get("shared.seed", 0)))
    title = uci.UCI_SETS[key].title
    paper = PAPER_TABLES["uci"][key]
    n_target = cells["S-LR"].n_target
    errors = {n: cells[n].error for n in NATURAL_CLASSIFIERS}
    ses = {n: binomial_se(errors[n], n_target) for n in NATURAL_CLASSIFIERS}
    gap = errors["FLDA-Q"] - errors["S-LR"]
    se = paired_se(wrong["FLDA-Q"], wrong["S-LR"])
    correct = lower(gap, se)
    columns = {
        "here": tuple(errors.values()),
        "SE": tuple(ses.values()),
        "paper (Table 3)": tuple(paper.get(n, np.nan) for n in NATURAL_CLASSIFIERS),
    }
    paper_series = Series("the paper's Table 3", columns["paper (Table 3)"], None, "x")
    here = Series("this server (±1 SE)", columns["here"], columns["SE"], "circle")
    table = pd.DataFrame(
        {
            "classifier": list(NATURAL_CLASSIFIERS),
            **{k: list(v) for k, v in columns.items()},
            "chosen by CV on the source": [cells[n].params for n in NATURAL_CLASSIFIERS],
        }
    )
    return View(
        fig=estimates_figure(NATURAL_CLASSIFIERS, [paper_series, here], "target error", (0, 1)),
        fig_before=estimates_figure(NATURAL_CLASSIFIERS, [paper_series], "target error", (0, 1)),
        what=f"lesson table 3 {key}",
        caption=(
            f"{title}: target error of each classifier on the {n_target} target rows (the rows "
            "with gaps, filled with 0), computed as on the Real data page (circles, ±1 binomial "
            "standard error), beside the paper's Table 3 (crosses)."
        ),
        numbers=[
            (f"{n} (±{ses[n]:.3f}; paper {paper[n]:.3f})", f"{errors[n]:.3f}") for n in ("S-LR", "FLDA-Q")
        ],
        table=table,
        paper=f"*The paper's Table 3 (section 4.2.2), {title}:* "
        + ", ".join(f"{n} {paper[n]:.3f}" for n in NATURAL_CLASSIFIERS)
        + ".",
        correct=frozenset({correct}),
        reveal=(
            f"{title}, {n_target} target rows: FLDA-Q − S-LR = {gap:+.3f} ± {se:.3f} (paired "
            f"SE): {verdict(correct, 'FLDA-Q', 'S-LR')}. The paper's Table 3 gives no standard errors."
        ),
        facts=_natural_facts(title, n_target, gap, se, paper["FLDA-Q"] - paper["S-LR"]),
    )


def _natural_facts(title, n_target, gap, se, paper_gap):
    """The natural-data step's numbers for its notes: this run's gap and SE, the paper's
    gap, and the target rows that gap would need to stand beyond the rule's multiple of
    standard errors at this run's per-row noise (the SE shrinks as one over √n)."""
    needed = n_target * (SE_MULTIPLE * se / abs(paper_gap)) ** 2 if paper_gap else float("inf")
    return {
        "data_set": title,
        "n_target": f"{n_target:,}",
        "gap": f"{gap:+.3f}",
        "gap_se": f"{se:.3f}",
        "paper_gap": f"{paper_gap:+.3f}",
        "rows_needed": f"{int(np.ceil(needed)):,}" if np.isfinite(needed) else "no number of",
    }


def _rate_view(lesson_step, values, slide=False):
    """θ̂ of a feature whose count rate falls against one whose counts grow (no big numbers:
    the Synthetic page's preset has other factors; the θ̂ are in the reveal and table)."""
    from explorer.figures.lesson import Series, estimates_figure

    data_key, problems = lesson_domain_key(values, "syn")
    if problems:
        return View(error=" ".join(problems))
    pair = caches.cached_domains(*data_key)
    factors = data_key[4]
    zeros_s = np.mean(pair.X_source == 0, axis=0)
    zeros_t = np.mean(pair.X_target == 0, axis=0)
    theta_hat = estimate_dropout(pair.X_source, pair.X_target)
    seen = [bool(t > 0.05) for t in theta_hat]
    correct = _which_of_two(*seen[:2])
    categories = [f"feature {d} (rate × {f:g})" for d, f in enumerate(factors, start=1)]
    before = [
        Series("share of zero counts, source", tuple(zeros_s), None, "diamond-open"),
        Series("share of zero counts, target", tuple(zeros_t), None, "circle"),
    ]
    after = before + [Series("dropout estimate θ̂", tuple(theta_hat), None, "square")]
    rates = " and ".join("/".join(f"{v:g}" for v in row) for row in data_key[1])
    return View(
        fig=estimates_figure(categories, after, "share of zeros · θ̂", (0, 1)),
        fig_before=estimates_figure(categories, before, "share of zeros · θ̂", (0, 1)),
        what=f"lesson rate change theta {' '.join(f'{f:g}' for f in factors)}",
        caption=(
            f"Poisson counts (class rates {rates}), "
            f"{data_key[2]:,} source and {data_key[3]:,} target samples; in the target every "
            f"rate of a feature is multiplied by its factor (the library's rate-change domains). "
            "Diamonds and circles: how often the feature is 0; squares: the dropout estimate θ̂ "
            "(section 3.3.1)."
        ),
        table=pd.DataFrame(
            {
                "feature": categories,
                "zeros in the source": zeros_s,
                "zeros in the target": zeros_t,
                "θ̂": theta_hat,
            }
        ),
        paper='*The paper (section 3.3.1):* dropout "sets features to 0"; θ̂ compares how '
        "often each feature is non-zero in the two domains.",
        correct=frozenset({correct}),
        reveal=(
            "; ".join(
                f"{c}: zero in {zs:.0%} of the source and {zt:.0%} of the target, θ̂ = {t:.3f}"
                for c, zs, zt, t in zip(categories, zeros_s, zeros_t, theta_hat, strict=True)
            )
            + "."
        ),
    )


def _recap_view(lesson_step, values, slide=False):
    """Every other step's revealed answer at its starting settings, computed (on a slide
    in the numbers overlay, not on the slide itself: eleven rows do not fit it)."""
    from explorer.ui.tables import markdown_table

    def answer(other):
        correct = step_view(other, other.start_values()).correct
        return "; ".join(other.choices[i] for i in sorted(correct)) or "—"

    table = pd.DataFrame(
        {"step": other.title, "question": other.question, "computed answer": answer(other)}
        for other in LESSON_STEPS
        if other.slug != lesson_step.slug
    )
    return View(
        what="lesson recap",
        table=None if slide else table,
        notes=[markdown_table(table)] if slide else [],
        correct=frozenset({0}),
        reveal=lesson_step.answer,
        paper="*The paper (section 5):* FLDA models the shift feature by feature with a "
        "transfer model estimated from unlabelled target data.",
    )


#: The view of each step (by slug); ``slide=True`` lays a figure out for a slide (the digit
#: maps in one row, learning curves with fewer error ticks, the recap in the overlay).
VIEWS = {
    "domain-shift-as-dropout": _dropout_view,
    "the-assumption": _assumption_view,
    "estimating-theta": _theta_view,
    "naive-against-flda": _oracle_view,
    "counts": _counts_view,
    "a-wrong-theta": _transfer_view,
    "how-many-samples": _learning_view,
    "where-ink-vanishes": _digits_view,
    "natural-data": _natural_view,
    "where-the-paper-disagrees": _notes_view,
    "when-the-shift-is-not-dropout": _rate_view,
    "recap": _recap_view,
}


def settings_text(values):
    """The settings a step's figure was computed with, in one line, as on every page
    (:func:`explorer.figures.export.settings_line`)."""
    from explorer.figures.export import settings_line

    # each setting by its name after the first dot (reversed: the first key of a name wins)
    named = {k.split(".", 1)[-1]: v for k, v in reversed(values.items())}
    l2 = named.get("l2")
    if named.get("l2_mode") == "cv":
        l2 = "by cross-validation"
    elif isinstance(l2, bool):  # the learning curves' toggle: λ when on
        l2 = float(named.get("ridge")) if l2 else 0.0
    shift = named.get("delta_1")
    n_source, n_target = named.get("n_source"), named.get("n_target")
    rates = named.get("shift") == "rate"  # the rate-change step: "theta" holds the rate factors
    data = "offline stand-in digits" if named.get("source") == "offline" else None
    if values.get("real.pair") is not None:
        data = f"UCI {values['real.pair']}, gaps filled with 0"
    return settings_line(
        data=data if not rates else f"Poisson counts, target rate × {named.get('theta')}",
        theta=None if rates else named.get("theta"),
        shift=None if shift is None else f"θ̂₁ shift {float(shift):+g}",
        seed=int(values.get("shared.seed", 0)),
        n_source=n_source,
        n_target=n_target if n_source is not None else None,
        l2=l2,
        extra=(f"{named.get('direction')}, digit {named.get('digit')}",) if named.get("direction") else (),
        transfer="dropout",
    )


def handout_bytes(steps, progress=None, paper="A4", base_url=None):
    """Both handouts (:func:`explorer.teaching.handout.handout_html`) of ``steps``
    (``(step, values)`` pairs) as UTF-8 bytes by audience; every step is computed once
    for both, with the slide layouts."""
    from explorer.teaching.handout import AUDIENCES, handout_html
    from explorer.ui.chart import PLOTLY_BUNDLE

    pages = []
    for i, (lesson_step, values) in enumerate(steps):
        if progress is not None:
            progress(i / len(steps), f"Step {i + 1}: {lesson_step.title}")
        # the slide layouts: the digit maps in one row fit a printed page's width
        pages.append((lesson_step, values, step_view(lesson_step, values, slide=True)))
    plotly_js = PLOTLY_BUNDLE.read_text(encoding="utf-8")
    return {
        audience: handout_html(pages, plotly_js, audience, paper, base_url).encode("utf-8")
        for audience in AUDIENCES
    }


def step_view(lesson_step, values, slide=False):
    """The :class:`View` of ``lesson_step`` with ``values``; ``slide``: sized for presentation mode."""
    return VIEWS[lesson_step.slug](lesson_step, values, slide=slide)


def warm_up():
    """Compute every step's view at its starting values into the caches the Lesson page
    reads, so that no Reveal / Next waits (the server's start calls it); returns the slugs."""
    for lesson_step in LESSON_STEPS:
        step_view(lesson_step, lesson_step.start_values())
    return [lesson_step.slug for lesson_step in LESSON_STEPS]
