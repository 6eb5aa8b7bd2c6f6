"""The one renderer of a lesson step: the Lesson page, its slides and a class's projector.

:func:`draw_step` draws a step from a *lecture* (:mod:`explorer.ui.lecture`) and its
:mod:`explorer.ui.lesson_views` view.  With ``present`` each step is a slide
(:mod:`explorer.ui.slides`): text and question beside the figure, nothing below it;
"Why" and "All numbers" are overlays (keys W and A).
"""

from __future__ import annotations

import re

import streamlit as st

from explorer.presentation import with_present
from explorer.safe_text import escape_markdown
from explorer.teaching.equations import EQUATIONS
from explorer.teaching.handout import value_text
from explorer.teaching.lesson import LESSON_STEPS, full_page_url, lesson_url
from explorer.ui import charts, guard, slides, tables, widgets
from explorer.ui.lecture import BAD_STEP_KEY, control_key, prediction_key
from explorer.ui.lesson_views import settings_text, step_view


def choice_letter(index):
    """A, B, C, … for choice ``index`` (0-based): what a class votes with."""
    return chr(ord("A") + index)


def choice_label(lesson_step, index, mark=False):
    """``"B · the choice"`` (with ✓ when ``mark``)."""
    return f"{choice_letter(index)} · {lesson_step.choices[index]}" + (" ✓" if mark else "")


def draw_controls(lecture, lesson_step, values, disabled=False):
    """The step's controls in one row, writing to the lesson's own keys (in a class
    ``lecture.control_changed`` steers it); shown but ``disabled`` where only the
    lecturer may change them."""
    if not lesson_step.controls:
        return
    for column, control in zip(st.columns(len(lesson_step.controls)), lesson_step.controls, strict=True):
        options = list(control.try_values)
        key = control_key(lesson_step, control.key)
        if disabled or st.session_state.get(key) not in options:
            st.session_state[key] = values[control.key]
        column.radio(
            control.label,
            options,
            key=key,
            horizontal=True,
            format_func=value_text,
            disabled=disabled,
            on_change=lecture.control_changed,
            args=(lesson_step, control.key, key),
            help=f"Values worth trying in this step; the full page (link below) "
            f"lets you set any value of “{control.label}”.",
        )


def draw_prediction(lecture, lesson_step, view, revealed):
    """The question with its lettered choices; once revealed the computed answer (✓).
    In a class the choices are read, not clicked (the class votes on its devices)."""
    choice = st.radio(
        f"**Predict:** {lesson_step.question}",
        range(len(lesson_step.choices)),
        format_func=lambda i: choice_label(lesson_step, i, revealed and i in view.correct),
        index=None,
        horizontal=sum(len(c) for c in lesson_step.choices) <= 60,
        key=prediction_key(lesson_step),
        disabled=not lecture.predicts,
        on_change=lecture.set_revealed if lecture.predicts else None,
        args=(lesson_step, True) if lecture.predicts else None,
        help="Decide as a class first; the answer computed from this step's "
        "figure appears once a choice is made (or Next is pressed).",
    )
    if revealed:  # in a class the computed answer alone (the class votes on its devices)
        right = lecture.predicts and choice in view.correct
        said = {None: "✓ is right here. ", False: "Not this time (✓ is right here). ", True: "Right (✓). "}
        verdict = said[None if choice is None else bool(right)] if lecture.predicts else ""
        (st.success if right else st.info)(verdict + view.reveal, icon=":material/lightbulb:")


def draw_numbers(view, per_row=3):
    """The step's key numbers, large (two a row when one is long, so none is cut)."""
    if not view.numbers:
        return
    if any(len(value) > 8 for _, value in view.numbers):
        per_row = min(per_row, 2)
    for row in range(0, len(view.numbers), per_row):
        for column, (label, value) in zip(
            st.columns(per_row), view.numbers[row : row + per_row], strict=False
        ):
            column.metric(label, value)


def draw_figure(lesson_step, values, view, revealed, present, slide=None):
    """The figure; Reveal is a build: before it the figure of the setting only
    (``view.fig_before``), after it the answering figure.  Outside slides, once revealed,
    its caption, "Why", the step's table and the notes on the paper follow (a slide has
    them behind W and A: :func:`draw_why_and_numbers`)."""
    fig = view.fig if revealed else view.fig_before
    if fig is not None:
        charts.show_chart(
            fig,
            "lesson_chart",
            view.what if revealed else f"{view.what} (setting)",
            view.caption if revealed and not present else None,
            fit_margin=slides.CHART_MARGIN if present else 0,
            settings=settings_text(values),
            describe=not present,
            slide=slide if present else None,
        )
    elif view.caption and revealed:
        st.info(view.caption, icon=":material/info:")
    if not present and revealed:
        draw_why_and_numbers(lesson_step, values, view, present)


def draw_why_and_numbers(lesson_step, values, view, present):
    """Once revealed: "Why" and the step's numbers (the notes, the table), in expanders;
    on a slide overlays out of sight until W or A opens them, the numbers' with the
    paper's, the caption and the links ("All numbers")."""
    with st.container(key=slides.WHY_KEY) if present else st.expander("Why", icon=":material/school:"):
        if present:
            st.subheader("Why", anchor=False)
        st.markdown(lesson_step.answer)
    texts = [view.paper] if view.paper and present else []
    texts += [view.caption] if view.fig is not None and view.caption and present else []
    if not (present or view.notes or view.table is not None):
        return
    with st.container(key=slides.NUMBERS_KEY) if present else st.expander("The numbers", expanded=True):
        if present:
            st.subheader("All numbers of this step", anchor=False)
        for text in texts + list(view.notes):
            st.markdown(text)
        if view.table is not None:  # 2-4 rows: markdown reads on a projector and costs less
            st.markdown(tables.markdown_table(view.table))
        if present:
            draw_links(lesson_step, values, True)


def draw_navigation(lecture, places=None):
    """Back / forward buttons (in ``places``, two containers, on a slide's top row) and,
    outside slides, the step counter."""
    index = lecture.index
    back, where, ahead = st.columns([1, 3, 1]) if places is None else (places[0], None, places[1])
    back.button(
        lecture.back_label,
        key="lesson_back",
        disabled=not lecture.can_go_back(),
        on_click=lecture.act,
        args=("back",),
        width="stretch",
        help="One stage back (keys: ←, Page Up or P; on a slide ? lists every key).",
    )
    ahead.button(
        lecture.forward_label(),
        key="lesson_next",
        disabled=not lecture.can_go_forward(),
        on_click=lecture.act,
        args=("next",),
        width="stretch",
        type="primary",
        help="Reveal the answer, then the next step (keys: →, Page Down, Space or N).",
    )
    if where is not None:
        where.progress((index + 1) / len(LESSON_STEPS), text=f"Step {index + 1} of {len(LESSON_STEPS)}")


def draw_links(lesson_step, values, present):
    full = full_page_url(lesson_step, present, values)
    st.markdown(
        f"[Open the full page with these settings]({with_present(full, present)}) · "
        f"[Link to this step]({lesson_url(lesson_step.slug, present)})"
    )


def linked_equations(lesson_step, view):
    """The step's equations and every equation its captions link to (so no link points at
    an anchor that is not on the page)."""
    text = " ".join([view.caption, *view.notes])
    anchors = set(re.findall(r"\(#([a-z0-9-]+)\)", text))
    return tuple(
        dict.fromkeys(list(lesson_step.equations) + [eq.key for eq in EQUATIONS if eq.anchor in anchors])
    )


def draw_slide_header(lecture):
    """A slide's top row: the step's title, the counter and the two buttons."""
    with st.container(key=slides.HEADER_KEY):
        title, counter, back, ahead = st.columns([11, 1.4, 2, 2.6], vertical_alignment="center")
    at_end, n = lecture.index >= len(LESSON_STEPS), len(LESSON_STEPS)
    title.header("End of the lesson" if at_end else LESSON_STEPS[lecture.index].title, anchor="step")
    with counter.container(key=slides.COUNTER_KEY):  # "3 / 12", on the end slide "end / 12"
        st.markdown(f"end / {n}" if at_end else f"{lecture.index + 1} / {n}")
    if not at_end:
        draw_navigation(lecture, (back, ahead))


def draw_end_slide(lecture):
    """The slide after the last step: the steps' titles, and how to go back to them."""
    draw_slide_header(lecture)
    st.markdown(f"The {len(LESSON_STEPS)} steps of this lesson:")
    half = (len(LESSON_STEPS) + 1) // 2
    for column, start in zip(st.columns(2), (0, half), strict=True):
        column.markdown(
            "\n".join(f"- {escape_markdown(s.title)}" for s in LESSON_STEPS[start : start + half])
        )
    st.markdown("Keys: ← the last step · Home the first · O the overview · ? every key.")


def draw_step(lecture, present, slide=None):
    """Draw the lecture's current step; returns ``(lesson_step, values, view)`` (view None
    after an error).  ``slide``: the figure's type for the screen
    (:func:`explorer.ui.slides.chart_style`)."""
    lesson_step = LESSON_STEPS[lecture.index]
    values = lecture.values(lesson_step)
    revealed = lecture.revealed(lesson_step)
    if present:  # the title row first: the counter is there while the step computes
        draw_slide_header(lecture)
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
            if st.session_state.get(BAD_STEP_KEY) and lecture.index == 0:
                st.warning(
                    f"There is no lesson step called “{escape_markdown(st.session_state[BAD_STEP_KEY])}”; "
                    "showing step 1 instead. Use Back/Next to move through the lesson.",
                    icon=":material/link_off:",
                )
        st.markdown(lesson_step.text)
        if view.error:
            st.error(escape_markdown(view.error), icon=":material/error:")
        draw_prediction(lecture, lesson_step, view, revealed)
        if revealed and (not present or view.fig is not None):
            draw_numbers(view)
        # on a slide the paper's reports stand beside the question until Reveal (the reveal
        # sets this run against them, and the numbers take their room)
        if view.paper and (not present or (lesson_step.paper_on_slide and not revealed)):
            st.markdown(view.paper)
    with figure_side:
        draw_controls(lecture, lesson_step, values, disabled=not lecture.live_controls)
        if present and view.fig is None and revealed:  # no figure: the numbers take its place
            draw_numbers(view, per_row=2)
            if view.table is not None:
                st.markdown(tables.markdown_table(view.table))
        if not view.error:
            draw_figure(lesson_step, values, view, revealed, present, slide)
    if present and revealed:
        draw_why_and_numbers(lesson_step, values, view, present)
    return lesson_step, values, view
