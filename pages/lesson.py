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
(:mod:`explorer.ui.slides`): projector type, no scrolling, clicker keys.
"""

from __future__ import annotations

import dataclasses
import re

import streamlit as st

from explorer.presentation import with_present
from explorer.safe_text import escape_markdown
from explorer.teaching.lesson import LESSON_STEPS, STEP_PARAM, full_page_url, lesson_url, step_index
from explorer.ui import charts, guard, slides, state, tables, widgets
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
    """Open step ``index`` (its own URL, so every step has a link)."""
    st.session_state.pop(BAD_STEP_KEY, None)
    st.query_params[STEP_PARAM] = LESSON_STEPS[index].slug


def forward(index):
    """Next: first reveal the step's answer, then go on (a clicker's slide build)."""
    lesson_step = LESSON_STEPS[index]
    if not revealed(lesson_step):
        _set_revealed(lesson_step, True)
    elif index + 1 < len(LESSON_STEPS):
        go_to(index + 1)


def current_index():
    """The step named in the URL, else the one this session was at (the navigation drops
    the query string); an unknown name opens step 1 with a note that stays until the
    class moves on (the browser's second run no longer has the bad name)."""
    slug = st.query_params.get(STEP_PARAM) or st.session_state.get(ENTERED_KEY)
    index = step_index(slug) if slug else 0
    if slug and LESSON_STEPS[index].slug != slug:
        st.session_state[BAD_STEP_KEY] = str(slug)[:80]
    st.session_state[ENTERED_KEY] = LESSON_STEPS[index].slug
    st.query_params[STEP_PARAM] = LESSON_STEPS[index].slug
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


def draw_figure(lesson_step, values, view, present):
    """The figure (sized to the slide in presentation mode), its caption once revealed,
    the step's table and the notes on the paper."""
    shown = revealed(lesson_step)
    fig = view.fig if shown else view.fig_before  # Reveal is a build: the setting first
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
        )
    elif view.caption and shown:
        st.info(view.caption, icon=":material/info:")
    if not shown:
        return
    if present:
        why, more = st.columns([1, 2])
        with why:
            draw_why(lesson_step)
    else:
        more = st.container()
        draw_why(lesson_step)
    texts = (
        ([view.paper] if present and view.paper else [])
        + ([view.caption] if present and view.fig is not None else [])
        + list(view.notes)
    )
    table = None if present and view.fig is None else view.table  # beside it already
    if table is None and not texts:
        return
    with more.expander("All numbers of this step" if present else "The numbers", expanded=not present):
        for text in texts:
            st.markdown(text)
        if table is not None:  # 2-4 rows to read: markdown reads on a projector and
            # costs the browser less than a data grid (0.2-0.3 s less per Reveal)
            st.markdown(tables.markdown_table(table))


def draw_navigation(index, present):
    """Back / Reveal-or-Next buttons (and, outside slides, the step counter)."""
    lesson_step = LESSON_STEPS[index]
    back, where, ahead = st.columns([1, 3, 1]) if not present else st.columns([1, 0.01, 1])
    back.button(
        "← Back",
        key="lesson_back",
        disabled=index == 0,
        on_click=go_to,
        args=(max(index - 1, 0),),
        width="stretch",
        help="The previous step (keys: ← or Page Up).",
    )
    last = index == len(LESSON_STEPS) - 1
    ahead.button(
        "Reveal ↓" if not revealed(lesson_step) else "Next →",
        key="lesson_next",
        disabled=last and revealed(lesson_step),
        on_click=forward,
        args=(index,),
        width="stretch",
        type="primary",
        help="Reveal the answer, then the next step (keys: →, Page Down or Space).",
    )
    if not present:
        where.progress((index + 1) / len(LESSON_STEPS), text=f"Step {index + 1} of {len(LESSON_STEPS)}")


def draw_links(lesson_step, values, present):
    full = full_page_url(dataclasses.replace(lesson_step, settings=values), present)
    st.markdown(
        f"[Open the full page with these settings]({with_present(full, present)}) · "
        f"[Link to this step]({lesson_url(lesson_step.slug, present)})"
    )


def draw_handout():
    """Prepare (all steps are computed, up to a minute the first time) and download."""
    if st.button(
        "Prepare the handout (HTML, print-ready)",
        key="lesson_handout",
        help="Every step's text, figure, settings, numbers and the paper's numbers "
        "in one page to print or annotate.",
    ):
        with guard.error_boundary("preparing the handout", "Could not prepare the handout.") as outcome:
            with widgets.progress_bar("Computing every step for the handout…") as progress:
                st.session_state["lesson_handout_html"] = handout_bytes(
                    [(s, step_values(s)) for s in LESSON_STEPS], progress
                )
        if outcome.failed:
            return
    data = st.session_state.get("lesson_handout_html")
    if data:
        tables.download_file(
            "Download the handout",
            data,
            "flda_lesson_handout.html",
            "text/html",
            "lesson_handout_download",
            "Open it in a browser to read or print (figures included).",
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


def draw_step(index, present):
    lesson_step = LESSON_STEPS[index]
    values = step_values(lesson_step)
    with guard.error_boundary("computing this step", "Could not compute this step.") as outcome:
        with st.spinner(
            "Computing this step (the digits and the learning curves take up to a "
            "minute the first time, cached afterwards)…"
        ):
            view = step_view(lesson_step, values, slide=present)
    if outcome.failed:
        return lesson_step, values, None
    if present:
        title, back_next = st.columns([7, 2], vertical_alignment="center")
        title.header(lesson_step.title, anchor="step")
        with back_next:
            draw_navigation(index, present)
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
            draw_figure(lesson_step, values, view, present)
    return lesson_step, values, view


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
    if present:
        st.html(slides.SLIDE_CSS)
    with st.container(key=slides.TITLE_KEY):  # on a slide: for screen readers only
        st.title(f"Lesson: feature-level domain adaptation in {len(LESSON_STEPS)} steps")
    nav = slides.lesson_keys()
    index = current_index()
    if nav == "next":
        forward(index)
    elif nav == "back" and index > 0:
        go_to(index - 1)
    index = current_index()
    with st.container(key=slides.SLIDE_KEY):
        lesson_step, values, view = draw_step(index, present)
        if not present:
            draw_navigation(index, present)
    draw_links(lesson_step, values, present)
    draw_handout()
    if view is not None and linked_equations(lesson_step, view):
        charts.show_equations(linked_equations(lesson_step, view), title="Equations of this step")


guard.run_page(main)
