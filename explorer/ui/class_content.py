"""What every student of a class sees in one class state (no streamlit): built once per
class state and server process by :mod:`explorer.ui.class_routes` and shared by all.

The lead's Lesson side extends it (figures, computed answers); the signature stays.
"""

from __future__ import annotations

__all__ = ["student_content"]


def student_content(state):
    """``{step, slug, title, text, question, choices, figure}`` of the class's current
    step (``state``: a :class:`explorer.classroom.store.ClassState`), and after Reveal
    also ``correct`` (the choices the lecturer's view computed), ``answer`` (the step's
    explanation) and ``explore`` (this step on the student's own device, with the
    lecturer's control values; a URL relative to the app)."""
    from explorer.teaching.lesson import LESSON_STEPS, lesson_url, settings_query

    if not 0 <= state.step < len(LESSON_STEPS):
        return {"step": state.step, "title": "", "choices": []}
    step = LESSON_STEPS[state.step]
    out = {"step": state.step, "slug": step.slug, "title": step.title, "text": step.text}
    out |= {"question": step.question, "choices": list(step.choices), "figure": step.figure}
    if state.revealed:
        values = f"&{settings_query(state.values)}" if state.values else ""
        out |= {
            "correct": list(state.correct),
            "answer": step.answer,
            "explore": lesson_url(step.slug) + values,
        }
    return out
