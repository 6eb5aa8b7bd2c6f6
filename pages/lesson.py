"""Lesson: the paper in eight steps, each with its live figure (issue 12).

The steps are data (``explorer.teaching.lesson.LESSON_STEPS``); this page renders one
step at a time: its text, the one or two controls that matter, the figure built
by the experiments' entry points and the figure builders the full pages use, a
question with a revealable answer, Back/Next, a shareable link to the step
(``?step=<slug>``) and a link to the full page with the same settings.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from explorer.ui import caches, charts, domain_controls, guard, state, tables
from explorer.data.digits import make_offline_domains
from flda_core.synthetic import PAPER_POISSON_PARAMS, PAPER_THETA
from explorer.teaching.equations import equation_link
from explorer.teaching.captions import (asymmetry_sentence, learning_curve_sentences,
                                            perturbation_curve_sentences,
                                            synthetic_figure_caption, theta_recovery_sentence)
from explorer.experiments.digits import FIGURE6_PAIRS, run_digits, stored_fitter
from explorer.experiments.learning_curves import learning_curve_config, run_learning_curves
from explorer.experiments.perturbation import run_perturbation
from explorer.experiments.synthetic import fit_classifiers, theta_table
from explorer.figures.digits import digit_weights_figure
from explorer.figures.learning_curves import learning_curve_figure
from explorer.figures.synthetic import (boundary_lines, decision_boundary_figure,
                                         perturbed_boundary_lines, theta_figure)
from explorer.teaching.lesson import LESSON_STEPS, STEP_PARAM, full_page_url, lesson_url, step_index
from explorer.names import LOSS_TITLES, LOSSES, classifier_name
from explorer.presentation import with_present
from explorer.safe_text import escape_markdown

#: Session keys of the lesson (no dot: nothing to keep across pages but the step).
ENTERED_KEY = "lesson_entered"
#: Sample sizes of the lesson's learning curves (the page's default grid).
LC_SIZES = ("log", 2, 10_000, 15)


def _widget_key(key):
    return "lesson_ctl_" + key.replace(".", "_")


def _label(value):
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def enter_step(index):
    """Load the step's settings (the pages' widget keys) when the student arrives at it."""
    lesson_step = LESSON_STEPS[index]
    # The seed widget (app.py's sidebar) is already drawn: keep the viewer's seed; the
    # step's links carry whatever seed is in use.
    state.apply_values({k: v for k, v in lesson_step.settings.items()
                            if k != state.SEED_KEY})
    for control in lesson_step.controls:
        st.session_state[_widget_key(control.key)] = st.session_state.get(
            control.key, control.try_values[0])
    st.session_state[ENTERED_KEY] = lesson_step.slug


def go_to(index):
    """Back/Next: the step lives in the URL, so every step has its own link."""
    st.query_params[STEP_PARAM] = LESSON_STEPS[index].slug


def current_index():
    """The step named in the URL, else the one this session was at (coming back through
    the navigation, which drops the query string); an unknown name opens step 1 with a note."""
    slug = st.query_params.get(STEP_PARAM) or st.session_state.get(ENTERED_KEY)
    index = step_index(slug) if slug else 0
    notes = st.session_state.setdefault(state.LINK_NOTES_KEY, {})  # kept for the whole page
    if slug and LESSON_STEPS[index].slug != slug:
        notes[STEP_PARAM] = (f"There is no lesson step called “{escape_markdown(slug)}”; "
                             "showing step 1 instead. Use Back/Next to move through the lesson.")
    if STEP_PARAM in notes:
        st.warning(notes[STEP_PARAM], icon=":material/link_off:")
    if st.session_state.get(ENTERED_KEY) != LESSON_STEPS[index].slug:
        enter_step(index)
    st.query_params[STEP_PARAM] = LESSON_STEPS[index].slug
    return index


def _copy_control(key):
    st.session_state[key] = st.session_state[_widget_key(key)]


def draw_controls(lesson_step):
    """The step's one or two controls, in one row, writing to the full page's keys."""
    columns = st.columns(len(lesson_step.controls))
    for column, control in zip(columns, lesson_step.controls):
        options = list(control.try_values)
        current = st.session_state.get(control.key, options[0])
        if current not in options:
            options.append(current)
        wkey = _widget_key(control.key)
        if st.session_state.get(wkey) not in options:
            st.session_state[wkey] = current
        column.radio(control.label, options, key=wkey, horizontal=True, format_func=_label,
                     on_change=_copy_control, args=(control.key,),
                     help=f"Values worth trying in this step; the full page (link below) "
                          f"lets you type any value of “{control.label}”.")


# ------------------------------------------------------------------ figures, per page

def _synthetic(lesson_step):
    data_key, problems = domain_controls.read_domain_config("syn")
    if guard.show_problems(problems, where="with the controls above"):
        return
    pair = caches.cached_domains(*data_key)
    result = fit_classifiers(pair, l2=float(st.session_state.get("syn.l2", 0.0)),
                             fit=caches.linear_fitter(data_key))
    if lesson_step.slug == "estimating-theta":
        thetas = theta_table(result.theta_true, result.theta_hat, data_key[1], data_key[0])
        st.dataframe(thetas, hide_index=True, width="stretch",
                     column_config=tables.number_columns(thetas))
        charts.show_chart(
            theta_figure(result.theta_true, result.theta_hat), "lesson_chart",
            "true and estimated dropout per feature",
            f"Open bars: the true θ; filled: the estimate θ̂ "
            f"({equation_link('theta_hat', label='the estimate θ̂')}) from "
            f"{data_key[3]:,} unlabelled target samples. "
            + theta_recovery_sentence(result.theta_true, result.theta_hat))
        return
    choice = st.session_state.get("syn.loss", "both")
    losses = LOSSES if choice == "both" else (choice,)
    source = caches.cached_lattice_counts(data_key, "source") \
        if st.session_state.get("syn.show_source") else None
    fig = decision_boundary_figure(
        caches.cached_lattice_counts(data_key),
        [(LOSS_TITLES[loss], boundary_lines(result.for_loss(loss))) for loss in losses],
        source_counts=source)
    charts.show_chart(fig, "lesson_chart", f"lesson {lesson_step.figure} decision boundaries",
                         synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result))


def _transfer(lesson_step):
    data_key, problems = domain_controls.read_domain_config("tp")
    if guard.show_problems(problems, where="with the controls above"):
        return
    delta = float(st.session_state.get("tp.delta_1", 0.0))
    result = run_perturbation(caches.cached_domains(*data_key), 0, sorted({0.0, delta}),
                              (0.0, 0.0), float(st.session_state.get("tp.l2", 0.0)),
                              fit=caches.linear_fitter(data_key))
    if not result.curve:
        st.error("θ̂₁ plus this shift leaves [0, 1]; choose a smaller shift.")
        return
    if result.skipped:
        st.warning(f"θ̂₁ {delta:+g} leaves [0, 1]: only the estimate itself is shown.")
    panels = []
    for loss in LOSSES:
        naive = [result.naive.classifiers[classifier_name(f, loss)] for f in ("source", "target")]
        panels.append((LOSS_TITLES[loss],
                       perturbed_boundary_lines(naive, result.chosen_fits(loss), 0)))
    counts = caches.cached_lattice_counts(data_key)
    charts.show_chart(
        decision_boundary_figure(counts, panels, height=560), "lesson_chart",
        "lesson figure 4 decision boundaries with a perturbed theta",
        f"Mirrors the paper's Figure 4: FLDA at the estimate θ̂₁ = "
        f"{result.theta_hat[0]:.3f} and at θ̂₁ {delta:+g} (fainter), with the naive source "
        "classifier (orange dashed) and the target oracle (purple dotted). "
        + perturbation_curve_sentences(result.sweep, result.naive.classifiers, 0) + " "
        + f"The penalty is {equation_link('per_feature_ridge')}.")


@st.cache_data(max_entries=16, show_spinner=False)
def _learning_curves(ridge, seed):
    config, _ = learning_curve_config(
        "poisson", PAPER_POISSON_PARAMS, PAPER_THETA, 10_000, seed, LC_SIZES, ridge)
    return run_learning_curves(config, 50, "quadratic")


def _learning(lesson_step):
    ridge = float(st.session_state.get("lc.ridge", 10.0)) if st.session_state.get("lc.l2") \
        else 0.0
    with st.spinner("Computing the learning curves (50 repeats)…"):
        result = _learning_curves(ridge, state.get_seed())
    charts.show_chart(
        learning_curve_figure(result.table), "lesson_chart", "lesson figure 3 learning curves",
        "Mirrors the paper's Figure 3 (quadratic loss, 50 repeats, "
        + (f"ℓ2 with λ = {ridge:g}" if ridge else "no ℓ2") + "). "
        + learning_curve_sentences(result.table, 0.01, 10_000))


@st.cache_data(max_entries=4, show_spinner=False)
def _digits(seed, direction):
    """The Digits page's default fits (Table 4, l2 by cross-validation), from its disk
    store: filled by the server's start (``explorer.ui.serving.warm_up_stores``) or by the Digits
    page, else fitted here and kept there."""
    data = make_offline_domains(random_state=seed)
    return data, run_digits(data, direction, "logistic", None, 0.0, seed,
                            fit=stored_fitter(data, seed))


def _digits_step(lesson_step):
    direction = st.session_state.get("dig.direction", "A → B")
    with st.spinner("Fitting the digit classifiers in both directions with cross-validated "
                    "ℓ2: about half a minute the first time, cached afterwards…"):
        data, results = _digits(state.get_seed(), direction)
    naive_name, flda_name = FIGURE6_PAIRS["logistic"]
    naive, adapted = results[(direction, naive_name)], results[(direction, flda_name)]
    labels = [str(c) for c in data.classes]
    wanted = str(st.session_state.get("dig.digit", labels[0]))
    digit = data.classes[labels.index(wanted)] if wanted in labels else data.classes[0]
    errors = {d: (results[(d, naive_name)].error, results[(d, flda_name)].error,
                  float(results[(d, flda_name)].theta.mean()), naive_name, flda_name)
              for d in ("A → B", "B → A")}
    charts.show_chart(
        digit_weights_figure(naive.weights(digit), adapted.theta, adapted.weights(digit),
                             data.side, digit, naive_name, flda_name, True),
        "lesson_chart", f"lesson figure 6 weights for digit {digit} {direction}",
        f"Mirrors the paper's Figure 6 ({data.name_a} and {data.name_b}, offline stand-ins for "
        f"USPS and MNIST): {naive_name} weights, {flda_name} weights and θ per pixel for "
        f"digit {digit}, {direction}. " + asymmetry_sentence(errors))


RENDERERS = {"pages/synthetic.py": _synthetic, "pages/transfer.py": _transfer,
             "pages/learning_curves.py": _learning, "pages/digits.py": _digits_step}


def draw_navigation(index):
    """Back/Next buttons and the two links of the step."""
    lesson_step = LESSON_STEPS[index]
    present = state.presentation_mode()
    back, where, forward = st.columns([1, 3, 1])
    back.button("← Back", key="lesson_back", disabled=index == 0, on_click=go_to,
                args=(max(index - 1, 0),), width="stretch",
                help="The previous step of the lesson.")
    forward.button("Next →", key="lesson_next", disabled=index == len(LESSON_STEPS) - 1,
                   on_click=go_to, args=(min(index + 1, len(LESSON_STEPS) - 1),),
                   width="stretch", type="primary", help="The next step of the lesson.")
    where.progress((index + 1) / len(LESSON_STEPS),
                   text=f"Step {index + 1} of {len(LESSON_STEPS)}")
    current = {key: st.session_state.get(key, value)
               for key, value in lesson_step.settings.items()}
    full = full_page_url(dataclasses.replace(lesson_step, settings=current), present)
    st.markdown(f"[Open the full page with these settings]({with_present(full, present)}) · "
                f"[Link to this step]({lesson_url(lesson_step.slug, present)})")


def main():
    """Draw the page."""
    st.title("Lesson: feature-level domain adaptation in eight steps")
    index = current_index()
    lesson_step = LESSON_STEPS[index]
    st.header(lesson_step.title, anchor="step")
    st.markdown(lesson_step.text)
    draw_controls(lesson_step)
    renderer = RENDERERS.get(lesson_step.page)
    if renderer is not None:
        renderer(lesson_step)
    else:
        st.info("This step uses your own files: open the full page below, load a sample pair "
                "or upload a source and a target CSV.", icon=":material/upload_file:")
    st.markdown(f"**Question.** {lesson_step.question}")
    with st.expander("Show the answer", icon=":material/lightbulb:"):
        st.markdown(lesson_step.answer)
    draw_navigation(index)
    if lesson_step.equations:
        charts.show_equations(lesson_step.equations, title="Equations of this step")


main()
