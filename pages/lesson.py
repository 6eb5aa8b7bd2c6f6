"""Lesson: the paper in twelve steps, each with its live figure (issues 12 and 25).

The steps are data (``explorer.teaching.lesson.LESSON_STEPS``); this page renders one
step at a time: its text, a prediction the class makes (choices first, the answer
revealed after), the one or two controls that matter, the figure and numbers computed
by the experiments' entry points with the step's own settings
(:mod:`explorer.ui.lesson_views`), the paper's numbers, Back/Next, a shareable link to
the step (``?step=<slug>``), a link to the full page with the same settings and a
handout of every step.  The lesson keeps its own settings (``lesson.<slug>.*``), so
what another page was left at never changes a step, and a step's controls keep their
values when the class comes back to it.  With ``?present=1`` each step is a slide
(:mod:`explorer.ui.slides`, issue 34): title, step counter, text, question, figure and
reveal, in type that scales with the screen and nothing below it; a presenter's keys
(``?`` lists them), "Why" and "All numbers" (with the links) as overlays, an overview,
a black-out, high contrast (``?contrast=high``, H) and an end slide.
"""

from __future__ import annotations

import dataclasses
import re

import streamlit as st

from explorer.presentation import with_present
from explorer.safe_text import escape_markdown
from explorer.teaching.lesson import LESSON_STEPS, STEP_PARAM, full_page_url, lesson_url, step_index
from explorer.ui import charts, classroom, guard, slides, state, tables, widgets
from explorer.ui.lesson_views import handout_bytes, settings_text, step_view

#: Session keys of the lesson (dotted, so they survive page switches and Back).
ENTERED_KEY = "lesson_entered"
REVEALED_KEY = "lesson.revealed"
BAD_STEP_KEY = "lesson_bad_step"


def control_key(lesson_step, key):
    """The lesson's own widget key of one control of one step."""
    return f"lesson.{lesson_step.slug}.{key.replace('.', '_')}"


def prediction_key(lesson_step):
    return f"lesson.{lesson_step.slug}.prediction"


def step_values(lesson_step):
    """The step's settings with its controls' current values (the lesson's own state)."""
    values = lesson_step.start_values()
    for control in lesson_step.controls:
        values[control.key] = st.session_state.get(control_key(lesson_step, control.key), values[control.key])
    return values


def _label(value):
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def revealed(lesson_step):
    return lesson_step.slug in st.session_state.get(REVEALED_KEY, ())


def _set_revealed(lesson_step, shown):
    current = set(st.session_state.get(REVEALED_KEY, ()))
    current = current | {lesson_step.slug} if shown else current - {lesson_step.slug}
    st.session_state[REVEALED_KEY] = sorted(current)


def _new_question(lesson_step):
    """A control changed: the figure shows something new, so ask again."""
    _set_revealed(lesson_step, False)
    st.session_state.pop(prediction_key(lesson_step), None)


def go_to(index):
    """Open step ``index`` (its own URL, so every step has a link); ``len(LESSON_STEPS)``
    is the end slide of presentation mode."""
    st.session_state.pop(BAD_STEP_KEY, None)
    at_end = index >= len(LESSON_STEPS)
    st.query_params[STEP_PARAM] = slides.END_SLUG if at_end else LESSON_STEPS[index].slug


def forward(index, present=False):
    """Next: first reveal the step's answer, then go on (a clicker's slide build); on a
    slide the last step's Next opens the end slide."""
    if index >= len(LESSON_STEPS):
        return
    lesson_step = LESSON_STEPS[index]
    if not revealed(lesson_step):
        _set_revealed(lesson_step, True)
    elif index + 1 < len(LESSON_STEPS) or present:
        go_to(index + 1)


def reset_step(lesson_step):
    """R on a slide: the step's controls back to their start values, the answer hidden."""
    start = lesson_step.start_values()
    for control in lesson_step.controls:
        st.session_state[control_key(lesson_step, control.key)] = start[control.key]
    _new_question(lesson_step)


def carry_out(action, index, present):
    """Do what a presenter's key asked (:func:`explorer.ui.slides.parse_action`)."""
    name, target = action
    last = len(LESSON_STEPS) - 1
    if name == "next":
        forward(index, present)
    elif name == "back" and index > 0:
        go_to(min(index - 1, last))
    elif name == "first":
        go_to(0)
    elif name == "last":
        go_to(last)
    elif name == "jump":
        go_to(target)
    elif name == "reset" and index <= last:
        reset_step(LESSON_STEPS[index])
    elif name == "contrast":
        slides.set_high_contrast(not slides.high_contrast())


def current_index(present=False):
    """The step named in the URL, else the one this session was at (the navigation drops
    the query string); an unknown name opens step 1 with a note that stays until the
    class moves on (the browser's second run no longer has the bad name).  On a slide,
    ``step=end`` is the end slide (index ``len(LESSON_STEPS)``; the last step otherwise)."""
    slug = st.query_params.get(STEP_PARAM) or st.session_state.get(ENTERED_KEY)
    if slug == slides.END_SLUG:
        index = len(LESSON_STEPS) if present else len(LESSON_STEPS) - 1
    else:
        index = step_index(slug) if slug else 0
        if slug and LESSON_STEPS[index].slug != slug:
            st.session_state[BAD_STEP_KEY] = str(slug)[:80]
    at_end = index == len(LESSON_STEPS)
    st.session_state[ENTERED_KEY] = slides.END_SLUG if at_end else LESSON_STEPS[index].slug
    st.query_params[STEP_PARAM] = st.session_state[ENTERED_KEY]
    return index


def draw_controls(lesson_step):
    """The step's controls in one row; they write to the lesson's own keys."""
    if not lesson_step.controls:
        return
    start = lesson_step.start_values()
    for column, control in zip(st.columns(len(lesson_step.controls)), lesson_step.controls, strict=True):
        options = list(control.try_values)
        key = control_key(lesson_step, control.key)
        if key not in st.session_state or st.session_state[key] not in options:
            st.session_state[key] = start[control.key]
        column.radio(
            control.label,
            options,
            key=key,
            horizontal=True,
            format_func=_label,
            on_change=_new_question,
            args=(lesson_step,),
            help=f"Values worth trying in this step; the full page (link below) "
            f"lets you set any value of “{control.label}”.",
        )


def draw_prediction(lesson_step, view):
    """The question with its choices; once answered (or Next pressed) the computed answer."""
    shown = revealed(lesson_step)

    def label(i):
        right = shown and i in view.correct
        return lesson_step.choices[i] + (" ✓" if right else "")

    short = sum(len(c) for c in lesson_step.choices) <= 60
    choice = st.radio(
        f"**Predict:** {lesson_step.question}",
        range(len(lesson_step.choices)),
        format_func=label,
        index=None,
        horizontal=short,
        key=prediction_key(lesson_step),
        on_change=_set_revealed,
        args=(lesson_step, True),
        help="Decide as a class first; the answer computed from this step's "
        "figure appears once a choice is made (or Next is pressed).",
    )
    if not shown:
        return
    verdict = (
        "Right (✓). "
        if choice in view.correct
        else "Not this time (✓ is right here). "
        if choice is not None
        else "✓ is right here. "
    ) + view.reveal
    (st.success if choice in view.correct else st.info)(verdict, icon=":material/lightbulb:")


def draw_why(lesson_step):
    """The mechanism behind the answer (the same for every setting of the step's controls)."""
    if revealed(lesson_step):
        with st.expander("Why", icon=":material/school:"):
            st.markdown(lesson_step.answer)


def draw_numbers(lesson_step, view, per_row=3):
    """The step's key numbers, large, once the answer is revealed (two a row when one is
    long, so none is cut)."""
    if not view.numbers or not revealed(lesson_step):
        return
    if any(len(value) > 8 for _, value in view.numbers):
        per_row = min(per_row, 2)
    for row in range(0, len(view.numbers), per_row):
        for column, (label, value) in zip(
            st.columns(per_row), view.numbers[row : row + per_row], strict=False
        ):
            column.metric(label, value)


def draw_figure(lesson_step, values, view, present, slide=None):
    """The figure (on a slide: the height that is left, type from ``slide``,
    :func:`explorer.ui.slides.chart_style`); Reveal is a build: before it the figure of
    the setting only (``view.fig_before``), after it the answering figure; outside
    slides, once revealed, its caption, the step's table and the notes on the paper (a
    slide has them behind A: :func:`draw_overlays`)."""
    shown = revealed(lesson_step)
    fig = view.fig if shown else view.fig_before
    if fig is not None:
        caption = view.caption if shown and not present else None
        charts.show_chart(
            fig,
            "lesson_chart",
            view.what if shown else f"{view.what} (setting)",
            caption,
            fit_margin=slides.CHART_MARGIN if present else 0,
            settings=settings_text(values),
            describe=not present,
            slide=slide if present else None,
        )
    elif view.caption and shown:
        st.info(view.caption, icon=":material/info:")
    if present or not shown:
        return
    draw_why(lesson_step)
    if view.table is None and not view.notes:
        return
    with st.expander("The numbers", expanded=True):
        for text in view.notes:
            st.markdown(text)
        if view.table is not None:  # 2-4 rows to read: markdown reads on a projector and
            # costs the browser less than a data grid (0.2-0.3 s less per Reveal)
            st.markdown(tables.markdown_table(view.table))


def draw_overlays(lesson_step, values, view):
    """On a revealed slide: "Why" (key W) and "All numbers" (key A: the paper's numbers,
    the caption, the notes, the table and the links to the full page and the step), kept
    out of sight until their key opens them over the slide."""
    if not revealed(lesson_step):
        return
    with st.container(key=slides.WHY_KEY):
        st.subheader("Why", anchor=False)
        st.markdown(lesson_step.answer)
    texts = [view.paper] if view.paper else []
    texts += [view.caption] if view.fig is not None and view.caption else []
    with st.container(key=slides.NUMBERS_KEY):
        st.subheader("All numbers of this step", anchor=False)
        for text in texts + list(view.notes):
            st.markdown(text)
        if view.table is not None:
            st.markdown(tables.markdown_table(view.table))
        draw_links(lesson_step, values, True)


def draw_navigation(index, present, places=None):
    """Back / Reveal-or-Next buttons (in ``places``, two containers, if given) and,
    outside slides, the step counter (a slide has its own, :func:`draw_slide_header`)."""
    lesson_step = LESSON_STEPS[index]
    back, where, ahead = st.columns([1, 3, 1]) if places is None else (places[0], None, places[1])
    back.button(
        "← Back",
        key="lesson_back",
        disabled=index == 0,
        on_click=go_to,
        args=(max(index - 1, 0),),
        width="stretch",
        help="The previous step (keys: ←, Page Up or P; on a slide ? lists every key).",
    )
    last = index == len(LESSON_STEPS) - 1
    ahead.button(
        "Reveal ↓" if not revealed(lesson_step) else "Next →",
        key="lesson_next",
        disabled=last and revealed(lesson_step) and not present,
        on_click=forward,
        args=(index, present),
        width="stretch",
        type="primary",
        help="Reveal the answer, then the next step (keys: →, Page Down, Space or N).",
    )
    if where is not None:
        where.progress((index + 1) / len(LESSON_STEPS), text=f"Step {index + 1} of {len(LESSON_STEPS)}")


def draw_links(lesson_step, values, present):
    full = full_page_url(dataclasses.replace(lesson_step, settings=values), present)
    st.markdown(
        f"[Open the full page with these settings]({with_present(full, present)}) · "
        f"[Link to this step]({lesson_url(lesson_step.slug, present)})"
    )


def draw_handout():
    """Prepare both handouts (all steps are computed, up to a minute the first time) and
    download them: the students' (questions, no answers) and the lecturer's (answers and
    speaker notes), for A4 or Letter, with links made absolute from this page's address."""
    from explorer.teaching.handout import PAPER_SIZES, app_base_url
    from explorer.teaching.lesson import LESSON_URL_PATH

    paper = st.radio(
        "Handout paper size",
        tuple(PAPER_SIZES),
        horizontal=True,
        key="lesson_handout_paper",
        help="The page size the handouts print on (margins and page numbers included).",
    )
    if st.button(
        "Prepare the handouts (HTML, print-ready)",
        key="lesson_handout",
        help="Every step computed once: a students' handout (text, setting, question and "
        "an answer box; no answers) and a lecturer's (with answers, numbers and speaker notes).",
    ):
        with guard.error_boundary("preparing the handouts", "Could not prepare the handouts.") as outcome:
            with widgets.progress_bar("Computing every step for the handouts…") as progress:
                handouts = handout_bytes(
                    [(s, step_values(s)) for s in LESSON_STEPS],
                    progress,
                    paper=paper,
                    base_url=app_base_url(st.context.url, LESSON_URL_PATH),
                )
                st.session_state["lesson_handout_html"] = {"paper": paper, **handouts}
        if outcome.failed:
            return
    data = st.session_state.get("lesson_handout_html")
    if not data or data.get("paper") != paper:
        return
    students, lecturer = st.columns(2)
    tables.download_file(
        "Download the students' handout",
        data["students"],
        f"flda_lesson_students_{paper.lower()}.html",
        "text/html",
        "lesson_handout_students",
        "Questions with answer boxes, no answers: open in a browser and print.",
        container=students,
    )
    tables.download_file(
        "Download the lecturer's handout",
        data["lecturer"],
        f"flda_lesson_lecturer_{paper.lower()}.html",
        "text/html",
        "lesson_handout_lecturer",
        "With the answers, the numbers and the speaker notes: open in a browser and print.",
        container=lecturer,
    )


def linked_equations(lesson_step, view):
    """The step's equations and every equation its captions link to (so no link points at
    an anchor that is not on the page)."""
    from explorer.teaching.equations import EQUATIONS

    text = " ".join([view.caption, *view.notes])
    anchors = set(re.findall(r"\(#([a-z0-9-]+)\)", text))
    return tuple(
        dict.fromkeys(list(lesson_step.equations) + [eq.key for eq in EQUATIONS if eq.anchor in anchors])
    )


def draw_step(index, present, slide=None):
    lesson_step = LESSON_STEPS[index]
    values = step_values(lesson_step)
    if present:  # the title row first: the counter is there while the step computes
        draw_slide_header(index)
    with guard.error_boundary("computing this step", "Could not compute this step.") as outcome:
        with st.spinner(
            "Computing this step (the digits and the learning curves take up to a "
            "minute the first time, cached afterwards)…"
        ):
            view = step_view(lesson_step, values, slide=present)
    if outcome.failed:
        return lesson_step, values, None
    if present:
        text_side, figure_side = st.columns([5, 7])
    else:
        st.header(lesson_step.title, anchor="step")
        text_side = figure_side = st.container()
    with text_side:
        with widgets.stable_slot():
            if st.session_state.get(BAD_STEP_KEY) and index == 0:
                st.warning(
                    f"There is no lesson step called “"
                    f"{escape_markdown(st.session_state[BAD_STEP_KEY])}”; showing step "
                    "1 instead. Use Back/Next to move through the lesson.",
                    icon=":material/link_off:",
                )
        st.markdown(lesson_step.text)
        if view.error:
            st.error(escape_markdown(view.error), icon=":material/error:")
        draw_prediction(lesson_step, view)
        if not present or view.fig is not None:
            draw_numbers(lesson_step, view)
        if view.paper and not present:
            st.markdown(view.paper)
    with figure_side:
        draw_controls(lesson_step)
        if present and view.fig is None:  # no figure: the numbers take its place
            draw_numbers(lesson_step, view, per_row=2)
            if revealed(lesson_step) and view.table is not None:
                st.markdown(tables.markdown_table(view.table))
        if not view.error:
            draw_figure(lesson_step, values, view, present, slide)
    if present:
        draw_overlays(lesson_step, values, view)
    return lesson_step, values, view


def step_counter(index):
    """The slide's counter, "3 / 12" (the end slide: "end / 12")."""
    n = len(LESSON_STEPS)
    return f"{index + 1} / {n}" if index < n else f"end / {n}"


def draw_slide_header(index):
    """A slide's top row: the step's title, the counter and Back / Reveal-or-Next."""
    with st.container(key=slides.HEADER_KEY):
        title, counter, back, ahead = st.columns([11, 1.4, 2, 2.6], vertical_alignment="center")
    at_end = index >= len(LESSON_STEPS)
    title.header("End of the lesson" if at_end else LESSON_STEPS[index].title, anchor="step")
    with counter.container(key=slides.COUNTER_KEY):
        st.markdown(step_counter(index))
    if not at_end:
        draw_navigation(index, True, (back, ahead))


def draw_end_slide():
    """The slide after the last step: the steps' titles, and how to go back to them."""
    draw_slide_header(len(LESSON_STEPS))
    st.markdown(f"The {len(LESSON_STEPS)} steps of this lesson:")
    half = (len(LESSON_STEPS) + 1) // 2
    for column, start in zip(st.columns(2), (0, half), strict=True):
        column.markdown(
            "\n".join(f"- {escape_markdown(s.title)}" for s in LESSON_STEPS[start : start + half])
        )
    st.markdown("Keys: ← the last step · Home the first · O the overview · ? every key.")


def keep_lesson_state():
    """Keep every step's control values and predictions while other steps are shown
    (Streamlit drops a widget's value after a run that did not draw it; ``app.py`` keeps
    dotted keys too, this keeps the lesson's own wherever the page runs)."""
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith("lesson.")]:
        st.session_state[key] = st.session_state[key]


def main():
    """Draw the page."""
    keep_lesson_state()
    present = state.presentation_mode()
    action, viewport = slides.lesson_keys([s.title for s in LESSON_STEPS], present)
    if action is not None:
        carry_out(action, current_index(present), present)
    index = current_index(present)
    if present:
        st.html(slides.slide_css(slides.high_contrast()))
    with st.container(key=slides.TITLE_KEY):  # on a slide: for screen readers only
        st.title(f"Lesson: feature-level domain adaptation in {len(LESSON_STEPS)} steps")
    if present:
        with st.container(key=slides.SLIDE_KEY):
            if index == len(LESSON_STEPS):
                draw_end_slide()
            else:
                draw_step(index, present, slides.chart_style(viewport, slides.high_contrast()))
        return
    with st.container(key=slides.SLIDE_KEY):
        lesson_step, values, view = draw_step(index, present)
        draw_navigation(index, present)
    draw_links(lesson_step, values, present)
    draw_handout()
    classroom.start_class_entry()
    if view is not None and linked_equations(lesson_step, view):
        charts.show_equations(linked_equations(lesson_step, view), title="Equations of this step")


guard.run_page(main)
