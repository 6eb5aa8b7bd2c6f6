"""Lesson: the paper in twelve steps, each with its live figure (issues 12, 25, 34 and 40).

The steps are data (``explorer.teaching.lesson.LESSON_STEPS``); one renderer
(:mod:`explorer.ui.lesson_slide`) draws a step from a lecture (:mod:`explorer.ui.lecture`):
its text, a prediction the class makes, the one or two controls that matter, the figure
and numbers computed by the experiments' entry points with the step's own settings, the
paper's numbers, Back/Next, a link to the step and to its full page, and the handouts.
With ``?present=1`` each step is a slide (:mod:`explorer.ui.slides`); a class's projector
and presenter are views of this page (:mod:`explorer.ui.class_lecture`,
:mod:`explorer.ui.presenter`).
"""

from __future__ import annotations

import streamlit as st

from explorer.classroom.codes import normalize_code
from explorer.teaching.lesson import LESSON_STEPS
from explorer.ui import charts, class_lecture, guard, lesson_slide, slides, state, tables, widgets
from explorer.ui.lecture import SoloLecture
from explorer.ui.lesson_views import handout_bytes


def draw_handout(lecture):
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
                    [(s, lecture.values(s)) for s in LESSON_STEPS],
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
    for column, audience, who, what in zip(
        st.columns(2),
        ("students", "lecturer"),
        ("students'", "lecturer's"),
        (
            "Questions with answer boxes, no answers: open in a browser and print.",
            "With the answers, the numbers and the speaker notes: open in a browser and print.",
        ),
        strict=True,
    ):
        tables.download_file(
            f"Download the {who} handout",
            data[audience],
            f"flda_lesson_{audience}_{paper.lower()}.html",
            "text/html",
            f"lesson_handout_{audience}",
            what,
            container=column,
        )


def main():
    """Draw the page: a class's projector or presenter (``?class=CODE&view=…``), a
    rehearsal (``?view=presenter``), or the lesson (on slides with ``?present=1``)."""
    view = st.query_params.get(class_lecture.VIEW_PARAM, "")
    code = normalize_code(st.query_params.get(class_lecture.CLASS_PARAM, ""))
    if code and view in ("projector", "presenter"):
        class_lecture.show_class(code, view)
        return
    if view == "presenter":
        from explorer.ui.presenter import draw_presenter

        draw_presenter(SoloLecture())
        return
    present = state.presentation_mode()
    lecture = SoloLecture(present)
    action, viewport = slides.lesson_keys([s.title for s in LESSON_STEPS], present)
    if action is not None:
        lecture.act(*action)
    if present:
        st.html(slides.slide_css(slides.high_contrast()))
    with st.container(key=slides.TITLE_KEY):  # on a slide: for screen readers only
        st.title(f"Lesson: feature-level domain adaptation in {len(LESSON_STEPS)} steps")
    with st.container(key=slides.SLIDE_KEY):
        if lecture.index == len(LESSON_STEPS):
            lesson_slide.draw_end_slide(lecture)
            return
        style = slides.chart_style(viewport, slides.high_contrast()) if present else None
        lesson_step, values, view = lesson_slide.draw_step(lecture, present, style)
        if present:
            return
        lesson_slide.draw_navigation(lecture)
    lesson_slide.draw_links(lesson_step, values, present)
    draw_handout(lecture)
    class_lecture.start_class_entry()
    equations = lesson_slide.linked_equations(lesson_step, view) if view is not None else ()
    if equations:
        charts.show_equations(equations, title="Equations of this step")


guard.run_page(main)
