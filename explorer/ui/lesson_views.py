"""What each lesson step shows, computed from the step's own settings (issue 25).

:func:`step_view` runs the step's experiment through the same entry point and the same
arguments as its full page (the settings of ``explorer.teaching.lesson.LESSON_STEPS``
with the step's control values, never the full pages' session state) and returns a
:class:`View`: the figure, its caption, the step's key numbers beside the paper's,
the paper's numbers quoted, and which prediction choices are right on what is shown
(with the sentence that reveals it).  The Lesson page draws a view; the handout
(:mod:`explorer.teaching.handout`) prints the views of every step.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from explorer.ui import caches

__all__ = [
    "View",
    "step_view",
    "settings_text",
    "handout_bytes",
    "lesson_domain_key",
    "TIE",
    "VIEWS",
    "warm_up",
]

#: Two errors closer than this are "the same" (half the last digit shown).
TIE = 5e-4


@dataclass
class View:
    """What one step shows (see the module docstring).

    ``numbers`` are ``(label, value)`` pairs drawn large; ``paper`` quotes the paper
    (markdown, marked as a quote); ``correct`` the indices of the step's choices that
    what is shown makes right; ``reveal`` the computed sentence shown after the
    prediction; ``table`` an optional small DataFrame; ``error`` a problem with the
    settings (then nothing else is shown).  ``fig_before`` is the figure shown before
    Reveal: the step's setting only, nothing that answers its question (``fig`` is
    the revealed figure; ``numbers``, ``reveal`` and ``table`` are for after Reveal).
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


def _fmt(value):
    return f"{value:.3f}"


def _shown(value):
    """``value`` as the step shows it (3 decimals): claims compare what the class reads."""
    return round(float(_fmt(value)), 3)


def lesson_domain_key(values, prefix):
    """The :func:`caches.cached_domains` key of a synthetic step's settings (or problems)."""
    from explorer.data.domain_config import parse_domain_config

    return parse_domain_config(
        values[f"{prefix}.distribution"],
        values[f"{prefix}.n_features"],
        values[f"{prefix}.class1"],
        values[f"{prefix}.class2"],
        values[f"{prefix}.theta"],
        values[f"{prefix}.n_source"],
        values[f"{prefix}.n_target"],
        int(values["shared.seed"]),
    )


def _synthetic_result(values):
    from explorer.experiments.synthetic import fit_classifiers

    data_key, problems = lesson_domain_key(values, "syn")
    if problems:
        return None, None, None, " ".join(problems)
    pair = caches.cached_domains(*data_key)
    result = fit_classifiers(pair, l2=float(values.get("syn.l2", 0.0)), fit=caches.linear_fitter(data_key))
    return data_key, pair, result, ""


def _boundaries(data_key, result, losses, show_source, what):
    from explorer.figures.synthetic import boundary_lines, decision_boundary_figure
    from explorer.names import LOSS_TITLES

    source = caches.cached_lattice_counts(data_key, "source") if show_source else None
    return decision_boundary_figure(
        caches.cached_lattice_counts(data_key),
        [(LOSS_TITLES[loss], boundary_lines(result.for_loss(loss))) for loss in losses],
        source_counts=source,
    )


def _losses(values):
    from explorer.names import LOSSES

    choice = values.get("syn.loss", "both")
    return LOSSES if choice == "both" else (choice,)


def _paper_setting(paper):
    return (
        f"*The paper ({paper.label}, section 4.1.1):* {paper.distribution.capitalize()} features, "
        f"class parameters {paper.params[0]} and {paper.params[1]}, θ = "
        f"{list(paper.theta)}, {paper.n_source:,} samples per domain."
    )


def _dropout_view(lesson_step, values):
    from explorer.experiments.synthetic import PAPER_FIGURE1
    from explorer.teaching.captions import synthetic_figure_caption

    data_key, pair, result, error = _synthetic_result(values)
    if error:
        return View(error=error)
    theta1 = float(data_key[4][0])
    target = np.unique(np.round(pair.X_target[:, 0], 9))
    source = np.unique(np.round(pair.X_source[:, 0], 9))
    scaled = {0.0, 1.0 / (1.0 - theta1)} if theta1 < 1 else {0.0}
    correct = set()
    if set(target.tolist()) <= {0.0, 1.0}:
        correct.add(0)
    if set(target.tolist()) <= scaled:
        correct.add(1)
    if len(target) > 2:
        correct.add(2)
    zero_t = float(np.mean(pair.X_target[:, 0] == 0))
    zero_s = float(np.mean(pair.X_source[:, 0] == 0))
    shown = ", ".join(f"{v:g}" for v in target)
    reveal = (
        f"In this target feature 1 takes the values {shown} (source: "
        f"{', '.join(f'{v:g}' for v in source)}), with θ₁ = {theta1:g}: "
        f"{zero_t:.0%} of the target samples sit at x₁ = 0, {zero_s:.0%} of the "
        "source samples."
    )
    return View(
        fig=_boundaries(data_key, result, _losses(values), values.get("syn.show_source"), "figure 1"),
        what=f"lesson figure 1 theta {theta1:g}",
        caption=synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result),
        numbers=[("values of x₁ in the target", shown), ("target samples at x₁ = 0", f"{zero_t:.0%}")],
        paper=_paper_setting(PAPER_FIGURE1),
        correct=frozenset(correct),
        reveal=reveal,
    )


def _theta_view(lesson_step, values):
    from explorer.experiments.synthetic import theta_table
    from explorer.teaching.equations import equation_link
    from explorer.figures.synthetic import theta_figure
    from explorer.teaching.captions import theta_recovery_sentence

    data_key, pair, result, error = _synthetic_result(values)
    if error:
        return View(error=error)
    gap = np.abs(np.asarray(result.theta_hat) - np.asarray(result.theta_true))
    numbers = [
        (f"feature {d}: θ̂ (true θ {t:g})", _fmt(h))
        for d, (t, h) in enumerate(zip(result.theta_true, result.theta_hat, strict=True), start=1)
    ]
    return View(
        fig=theta_figure(result.theta_true, result.theta_hat),
        what="lesson true and estimated dropout per feature",
        caption=(
            f"Open bars: the true θ; filled: the estimate θ̂ "
            f"({equation_link('theta_hat')}) from {data_key[3]:,} unlabelled target "
            "samples. " + theta_recovery_sentence(result.theta_true, result.theta_hat)
        ),
        numbers=numbers,
        table=theta_table(result.theta_true, result.theta_hat, data_key[1], data_key[0]),
        paper="*The paper (section 3.3.1):* θ̂ = max{0, 1 − ζ̂/η̂} per feature, "
        "from unlabelled target data alone.",
        correct=frozenset({0 if gap.max() <= 0.05 else 1}),
        reveal=theta_recovery_sentence(result.theta_true, result.theta_hat)
        + f" ({data_key[3]:,} target samples).",
    )


def _errors_view(lesson_step, values, paper_columns, what):
    """Steps 3-4: the boundaries of the chosen loss and its three errors beside the paper's."""
    import pandas as pd

    from explorer.names import classifier_name
    from explorer.teaching.captions import synthetic_figure_caption

    data_key, pair, result, error = _synthetic_result(values)
    if error:
        return View(error=error)
    loss = _losses(values)[0]
    names = [classifier_name(f, loss) for f in ("source", "target", "flda")]
    ours = {n: result.classifiers[n].target_error for n in names}
    table = pd.DataFrame(
        {
            "classifier": names,
            "this run": [ours[n] for n in names],
            **{label: [errors.get(n, np.nan) for n in names] for label, errors in paper_columns.items()},
        }
    )
    first = next(iter(paper_columns))
    numbers = [(f"{n} (paper {paper_columns[first][n]:.3f})", _fmt(ours[n])) for n in names]
    return (
        View(
            fig=_boundaries(data_key, result, (loss,), False, what),
            what=f"lesson {what} decision boundaries seed {data_key[5]}",
            caption=synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result),
            numbers=numbers,
            table=table,
        ),
        names,
        ours,
    )


def _oracle_view(lesson_step, values):
    from explorer.experiments.synthetic import PAPER_FIGURE1

    view = _errors_view(lesson_step, values, {"paper (Figure 1)": PAPER_FIGURE1.errors}, "figure 1")
    if isinstance(view, View):
        return view
    view, (naive, _, flda), ours = view
    gap = _shown(ours[flda]) - _shown(ours[naive])  # as the class reads them
    correct = 2 if gap == 0 else (1 if gap < 0 else 0)
    verdict = {0: f"{naive} is lower", 1: f"{flda} is lower", 2: "they are level"}[correct]
    view.correct = frozenset({correct})
    view.reveal = (
        f"With seed {int(values['shared.seed'])}: {naive} {ours[naive]:.3f}, "
        f"{flda} {ours[flda]:.3f}: {verdict}. The paper's Figure 1 reports "
        f"{naive} {PAPER_FIGURE1.errors[naive]:.3f} and {flda} "
        f"{PAPER_FIGURE1.errors[flda]:.3f}"
        + (
            ", the picture shown here."
            if correct == 1
            else ": this seed does not show the paper's picture; try another."
        )
    )
    view.paper = f"*The paper (Figure 1, section 4.1.1):* {PAPER_FIGURE1.summary}"
    return view


def _counts_view(lesson_step, values):
    from explorer.experiments.perturbation import table1_unperturbed_errors
    from explorer.experiments.synthetic import PAPER_FIGURE2

    table1 = table1_unperturbed_errors()
    view = _errors_view(
        lesson_step,
        values,
        {"paper (Figure 2 text)": PAPER_FIGURE2.errors, "paper (Table 1)": table1},
        "figure 2",
    )
    if isinstance(view, View):
        return view
    view, (_, _, flda), ours = view
    to_text = abs(ours[flda] - PAPER_FIGURE2.errors[flda])
    to_table = abs(ours[flda] - table1[flda])
    correct = {0} if to_text < to_table - TIE else {1} if to_table < to_text - TIE else {0, 1}
    view.correct = frozenset(correct)
    view.reveal = (
        f"This run's {flda} error {ours[flda]:.3f} is {to_text:.3f} from Figure 2's "
        f"text ({PAPER_FIGURE2.errors[flda]:.3f}) and {to_table:.3f} from Table 1 "
        f"({table1[flda]:.3f}), with {pair_size(values)} samples per domain."
    )
    view.paper = (
        "*The paper reports this setting twice:* Figure 2's text "
        + ", ".join(f"{n} {e:.3f}" for n, e in PAPER_FIGURE2.errors.items())
        + "; Table 1 "
        + ", ".join(f"{n} {e:.3f}" for n, e in table1.items())
        + "."
    )
    return view


def pair_size(values):
    return f"{int(values['syn.n_source']):,}"


def _transfer_view(lesson_step, values):
    """Step 5: the Transfer page's run (same perturbations, curve range, l2 and fit)."""
    from explorer.experiments.perturbation import PAPER_TABLE1, paper_table1_frame, run_perturbation
    from explorer.figures.synthetic import perturbation_error_figure
    from explorer.names import classifier_name
    from explorer.teaching.captions import perturbation_curve_caption, perturbation_minimum

    data_key, problems = lesson_domain_key(values, "tp")
    if problems:
        return View(error=" ".join(problems))
    delta = float(values["tp.delta_1"])
    l2 = float(values["tp.l2"])
    result = run_perturbation(
        caches.cached_domains(*data_key),
        0,
        values["tp.perturbations"],
        tuple(values["tp.curve_range"]),
        l2,
        fit=caches.linear_fitter(data_key),
    )
    if not result.curve:
        return View(error="θ̂₁ plus every shift leaves [0, 1].")
    at, lowest = perturbation_minimum(result.sweep, "quadratic")
    at_zero = next(
        f.target_error for f in result.sweep if f.loss == "quadratic" and abs(f.perturbation) < 1e-12
    )
    correct = set()
    if abs(at) < 1e-12 or at_zero - lowest <= TIE:
        correct.add(0)
    if at < 0 and at_zero - lowest > TIE:
        correct.add(1)
    if at > 0 and at_zero - lowest > TIE:
        correct.add(2)
    theta1 = float(result.theta_hat[0])
    numbers = []
    for loss in ("quadratic",):
        name = classifier_name("flda", loss)
        fits = {round(f.perturbation, 10): f for f in result.sweep if f.loss == loss}
        chosen = fits.get(round(delta, 10))
        paper_value = PAPER_TABLE1.errors.get(f"{name}+{delta:g}")
        numbers.append(
            (
                f"{name} at θ̂₁ {delta:+.2f}"
                + (f" (paper {paper_value:.3f})" if paper_value is not None else ""),
                _fmt(chosen.target_error) if chosen else "outside [0, 1]",
            )
        )
        where, error = perturbation_minimum(result.sweep, loss)
        numbers.append((f"{name} lowest at θ̂₁ {where:+.2f}", _fmt(error)))
    table = result.table1()
    paper = paper_table1_frame()
    table.index = [f"this run, {i}" for i in table.index]
    paper.index = [f"paper, {i}" for i in paper.index]
    import pandas as pd

    return View(
        fig=perturbation_error_figure(
            result.sweep, list(result.naive.classifiers.values()), 0, paper=PAPER_TABLE1.errors
        ),
        what=f"lesson table 1 error against shift of theta l2 {l2:g}",
        caption=perturbation_curve_caption(result.sweep, result.naive.classifiers, 0, theta1, result.chosen),
        numbers=numbers,
        table=pd.concat([table, paper]),
        paper="*The paper's Table 1 (section 4.1.3):* "
        + ", ".join(f"{k} {v:.3f}" for k, v in PAPER_TABLE1.errors.items())
        + ".",
        correct=frozenset(correct),
        reveal=(
            f"On the same sweep as the Transfer page (θ̂₁ = {theta1:.3f}, shifts "
            f"{result.curve[0]:+.2f} to {result.curve[-1]:+.2f}), FLDA-Q is lowest at "
            f"θ̂₁ {at:+.2f} ({lowest:.3f}; at +0: {at_zero:.3f})."
        ),
    )


@st.cache_data(max_entries=8, show_spinner=False)
def learning_curves(ridge, seed):
    """Figure 3 as the Learning-curves page computes it with the step's settings."""
    from explorer.experiments.learning_curves import learning_curve_config, run_learning_curves
    from flda_core.synthetic import PAPER_POISSON_PARAMS, PAPER_THETA

    config, _ = learning_curve_config(
        "poisson", PAPER_POISSON_PARAMS, PAPER_THETA, 10_000, seed, ("log", 2, 10_000, 15), ridge
    )
    return run_learning_curves(config, 50, "quadratic")


def _learning_view(lesson_step, values, slide=False):
    from explorer.experiments import learning_curves as lc
    from explorer.figures.learning_curves import learning_curve_figure
    from explorer.teaching.captions import learning_curve_sentences
    from explorer.teaching.paper_notes import PAPER_ADAPTATION_N

    ridge = float(values["lc.ridge"]) if values["lc.l2"] else 0.0
    result = learning_curves(ridge, int(values["shared.seed"]))
    table = result.table
    target = table[table["domain"] == "target"]
    smallest = int(target["n"].min())
    first = target[target["n"] == smallest].set_index("classifier")["mean_error"]
    order = ("S-LS", "T-LS", "FLDA-Q")
    best = min(first[n] for n in order)
    correct = frozenset(i for i, n in enumerate(order) if first[n] <= best + TIE)
    n_adapt = lc.adaptation_sample_size(table, "FLDA-Q", "T-LS", "target", 0.01)
    numbers = [(f"{n} at n = {smallest}", _fmt(first[n])) for n in order[1:]]
    numbers.append(
        (f"FLDA-Q ≈ T-LS from n (paper ≈ {PAPER_ADAPTATION_N})", f"{n_adapt:,}" if n_adapt else "never")
    )
    regime = f"ℓ2 with λ = {ridge:g} for every classifier" if ridge else "no ℓ2"
    lowest = ", ".join(order[i] for i in sorted(correct))
    return View(
        fig=learning_curve_figure(table, slide=slide),
        what=f"lesson figure 3 learning curves l2 {ridge:g}",
        caption=(
            "Mirrors the paper's Figure 3 (quadratic loss, 50 repeats, "
            + regime
            + "). "
            + learning_curve_sentences(table, 0.01, 10_000)
        ),
        numbers=numbers,
        paper=(
            f'*The paper (section 4.1.2):* FLDA-Q needs "roughly '
            f"{PAPER_ADAPTATION_N} labeled source samples and "
            f'{PAPER_ADAPTATION_N} unlabeled target samples"; its small-sample '
            'advantage "disappears" with ℓ2-regularised classifiers.'
        ),
        correct=correct,
        reveal=(
            f"With {regime}: at n = {smallest}, "
            + ", ".join(f"{n} {first[n]:.3f}" for n in order)
            + f"; lowest: {lowest}."
        ),
    )


@st.cache_data(max_entries=4, show_spinner=False)
def digit_results(seed):
    """The Digits page's default fits (Table 4, l2 by cross-validation), both directions,
    from its disk store (filled by the server's start or the Digits page)."""
    from explorer.data.digits import make_offline_domains
    from explorer.experiments.digits import run_digits, stored_fitter

    data = make_offline_domains(random_state=seed)
    return data, run_digits(data, "A → B", "logistic", None, 0.0, seed, fit=stored_fitter(data, seed))


def _digits_view(lesson_step, values, slide=False):
    import pandas as pd

    from explorer.experiments.digits import FIGURE6_PAIRS, PAPER_TABLE4
    from explorer.figures.digits import digit_weights_figure
    from explorer.teaching.captions import asymmetry_sentence, directions_phrase, paper_table4_sentence

    seed = int(values["shared.seed"])
    data, results = digit_results(seed)
    direction = values["dig.direction"]
    naive_name, flda_name = FIGURE6_PAIRS["logistic"]
    naive, adapted = results[(direction, naive_name)], results[(direction, flda_name)]
    labels = [str(c) for c in data.classes]
    wanted = str(values["dig.digit"])
    digit = data.classes[labels.index(wanted)] if wanted in labels else data.classes[0]
    errors = {
        d: (
            results[(d, naive_name)].error,
            results[(d, flda_name)].error,
            float(results[(d, flda_name)].theta.mean()),
            naive_name,
            flda_name,
        )
        for d in ("A → B", "B → A")
    }
    helped = [errors[d][1] < errors[d][0] - TIE for d in ("A → B", "B → A")]
    paper_helped = [row[flda_name] < row[naive_name] for row in PAPER_TABLE4.values()]
    correct = {(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[tuple(helped)]
    which = (
        f"offline stand-in data ({data.name_a} and {data.name_b}, made from scikit-learn's "
        "digits; not MNIST/USPS)"
    )
    rows = {f"here, {d}": {naive_name: errors[d][0], flda_name: errors[d][1]} for d in ("A → B", "B → A")}
    rows.update(
        {
            f"paper, {d}": {naive_name: row[naive_name], flda_name: row[flda_name], "FLDA-Q": row["FLDA-Q"]}
            for d, row in PAPER_TABLE4.items()
        }
    )
    numbers = [
        (f"{d}: {naive_name} → {flda_name}", f"{errors[d][0]:.3f} → {errors[d][1]:.3f}")
        for d in ("A → B", "B → A")
    ]
    return View(
        fig=digit_weights_figure(
            naive.weights(digit),
            adapted.theta,
            adapted.weights(digit),
            data.side,
            digit,
            naive_name,
            flda_name,
            True,
            slide=slide,
        ),
        what=f"lesson figure 6 weights digit {digit} {direction} seed {seed}",
        caption=(
            f"Mirrors the paper's Figure 6 on {which}: {naive_name} weights, "
            f"{flda_name} weights and θ per pixel for digit {digit}, {direction}. "
            + asymmetry_sentence(errors)
        ),
        numbers=numbers,
        table=pd.DataFrame.from_dict(rows, orient="index"),
        paper="*The paper's Table 4:* " + paper_table4_sentence(naive_name),
        correct=frozenset({correct}),
        reveal=(
            f"On the offline stand-in digits (not MNIST/USPS) {flda_name} beats "
            f"{naive_name} {directions_phrase(helped)}; in the paper's Table 4 "
            "(MNIST/USPS) "
            f"it does {directions_phrase(paper_helped)}."
        ),
    )


@st.cache_data(max_entries=4, show_spinner=False)
def paper_notes(seed):
    """The notes on the paper of the synthetic pages, the Figure 2 rerun with ``seed``."""
    from explorer.teaching.paper_notes import figure1_bayes_note, figure2_table1_note

    return figure1_bayes_note(), figure2_table1_note(seed=seed)


def _notes_view(lesson_step, values):
    import pandas as pd

    bayes, figure2 = paper_notes(int(values["shared.seed"]))
    below = bayes.values["below"]
    table = pd.DataFrame(
        {
            "note": [bayes.title, figure2.title],
            "consistent with the paper": ["yes" if n.consistent else "no" for n in (bayes, figure2)],
        }
    )
    return View(
        what="notes on the paper",
        notes=[bayes.markdown(), figure2.markdown()],
        numbers=[
            ("Bayes error of Figure 1's setting", _fmt(bayes.values["bayes_error"])),
            (
                "S-LR error Figure 1 reports",
                _fmt(below.get("S-LR", np.nan)) if "S-LR" in below else "not below",
            ),
        ],
        paper=bayes.paper_claim,
        table=table,
        correct=frozenset({0 if bayes.consistent else 1}),
        reveal=bayes.verdict + " " + figure2.verdict,
    )


def _own_data_view(lesson_step, values):
    return View(
        caption="This step uses your own files: open the full page below, load a "
        "sample pair or upload a source and a target CSV.",
        correct=frozenset({1}),
        reveal=(
            "θ̂ of a feature is max{0, 1 − ζ̂/η̂}, from its non-zero rates "
            "only: values that change but stay non-zero leave θ̂ at 0."
        ),
        paper='*The paper (section 3.3.1):* dropout "sets features to 0"; θ̂ is '
        "estimated from how often each feature is non-zero.",
    )


#: The view of each step (by slug).
VIEWS = {
    "domain-shift-as-dropout": _dropout_view,
    "estimating-theta": _theta_view,
    "flda-q-on-the-oracle": _oracle_view,
    "counts": _counts_view,
    "a-wrong-theta": _transfer_view,
    "how-many-samples": _learning_view,
    "where-ink-vanishes": _digits_view,
    "where-the-paper-disagrees": _notes_view,
    "your-own-data": _own_data_view,
}


def settings_text(values):
    """The settings a step's figure was computed with, in one line
    (:func:`explorer.figures.export.settings_line`, as on every page), for the figure
    itself (:func:`explorer.ui.charts.show_chart`)."""
    from explorer.figures.export import settings_line

    def get(name):
        return next((v for k, v in values.items() if k.split(".", 1)[-1] == name), None)

    l2 = get("l2")
    if get("l2_mode") == "cv":
        l2 = "by cross-validation"
    elif isinstance(l2, bool):  # the learning curves' toggle: λ when on
        l2 = float(get("ridge")) if l2 else 0.0
    shift = get("delta_1")
    n_source, n_target = get("n_source"), get("n_target")
    return settings_line(
        data="offline stand-in digits" if get("source") == "offline" else None,
        theta=get("theta"),
        shift=None if shift is None else f"θ̂₁ shift {float(shift):+g}",
        seed=int(values.get("shared.seed", 0)),
        n_source=n_source,
        n_target=n_target if n_source is not None else None,
        l2=l2,
        extra=(f"{get('direction')}, digit {get('digit')}",) if get("direction") else (),
        transfer="dropout",
    )


def handout_bytes(steps, progress=None, paper="A4", base_url=None):
    """Both handouts (:func:`explorer.teaching.handout.handout_html`) of ``steps``
    (``(step, values)`` pairs) as UTF-8 bytes, ``{"students": ..., "lecturer": ...}``;
    every step is computed once for both, with the slide layouts (:data:`SLIDE_VIEWS`).
    ``paper``: "A4" or "Letter"; ``base_url``:
    the app's root URL the links are made absolute with.  The figures are drawn by the
    plotly.js bundle the charts use, inlined."""
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


#: Steps whose figure has a slide layout (``slide=True``): the digit maps in one row,
#: learning curves with fewer error ticks.
SLIDE_VIEWS = {"where-ink-vanishes": _digits_view, "how-many-samples": _learning_view}


def step_view(lesson_step, values, slide=False):
    """The :class:`View` of ``lesson_step`` with the setting ``values`` (its settings
    with the step's control values); ``slide``: sized for presentation mode."""
    if lesson_step.slug in SLIDE_VIEWS:  # a figure laid out for a slide's height
        return SLIDE_VIEWS[lesson_step.slug](lesson_step, values, slide=slide)
    return VIEWS[lesson_step.slug](lesson_step, values)


def warm_up():
    """Compute every step's view at its starting values, once per server process.

    The server's start does this before it opens (``explorer.ui.serving.warm_up_lesson``),
    so that a lecturer's Reveal / Next / Back never waits for a step's first computation:
    each step's experiment lands in the same caches the Lesson page reads
    (``explorer.ui.caches`` and the ``st.cache_data`` functions above); the figures
    themselves are drawn per run.  Returns the steps' slugs.
    """
    from explorer.teaching.lesson import LESSON_STEPS

    for lesson_step in LESSON_STEPS:
        step_view(lesson_step, lesson_step.start_values())
    return [lesson_step.slug for lesson_step in LESSON_STEPS]
