"""What every student of a class sees in one class state: built once per class state and
server process by :mod:`explorer.ui.class_routes` (in a worker thread) and shared by all.

The step as the lecturer shows it: its text and the setting it is computed with (the
lecturer's control values, :func:`explorer.ui.lesson_views.settings_text`), the question
and choices; after Reveal the answer the lecturer's view computed (the sentence the
projector shows, ``View.reveal``), the mechanism behind it and a link that opens the step
on the student's own device with the lecturer's values (:func:`explorer.teaching.lesson.explore_url`).
"""

from __future__ import annotations


def student_content(state):
    """``{step, slug, title, text, question, choices, figure}`` of the class's current step
    (``state``: a :class:`explorer.classroom.store.ClassState`), and after Reveal also
    ``correct``, ``answer`` and ``explore`` (a URL relative to the app)."""
    from explorer.teaching.lesson import LESSON_STEPS, explore_url, with_chosen
    from explorer.ui.lesson_views import settings_text, step_view

    if not 0 <= state.step < len(LESSON_STEPS):
        return {"step": state.step, "title": "", "choices": []}
    step = LESSON_STEPS[state.step]
    values = with_chosen(step, state.values)
    out = {"step": state.step, "slug": step.slug, "title": step.title, "figure": step.figure}
    out |= {"text": f"{step.text} Setting: {settings_text(values)}."}
    out |= {"question": step.question, "choices": list(step.choices)}
    if state.revealed:
        reveal = step_view(step, values).reveal
        out |= {
            "correct": list(state.correct),
            "answer": f"{reveal} Why: {step.answer}",
            "explore": explore_url(step, values),
        }
    return out
