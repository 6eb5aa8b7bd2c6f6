"""Where a lecture stands: the step shown, its control values and whether it is revealed.

:class:`SoloLecture` is one browser's own lesson (the step in the URL, the rest in the
session under ``lesson.<slug>.*``); :class:`ClassLecture` (:mod:`explorer.ui.class_lecture`)
a class session steered by the lecturer.  Both answer :attr:`index`, :meth:`values` and
:meth:`revealed`, and carry out a presenter's keys (:meth:`act`).
"""

from __future__ import annotations

import streamlit as st

from explorer.teaching.lesson import LESSON_STEPS, STEP_PARAM, step_index, step_values_from_query, value_param
from explorer.ui import slides

#: Session keys of the lesson (dotted, so they survive page switches and Back).
ENTERED_KEY = "lesson_entered"
REVEALED_KEY = "lesson.revealed"
BAD_STEP_KEY = "lesson_bad_step"


def control_key(lesson_step, key):
    """The lesson's own widget key of one control of one step."""
    return f"lesson.{lesson_step.slug}.{key.replace('.', '_')}"


def prediction_key(lesson_step):
    return f"lesson.{lesson_step.slug}.prediction"


class SoloLecture:
    """One browser's lesson (see the module docstring); ``present``: slide mode, where
    Next on the last step opens the end slide (index ``len(LESSON_STEPS)``)."""

    can_steer = live_controls = True
    #: The prediction is clicked here (a class votes on its devices instead).
    predicts = True
    back_label = "← Back"

    def __init__(self, present=False):
        self.present = present
        # every step's control values and predictions are kept while other steps are shown
        # (Streamlit drops a widget's value after a run that did not draw it)
        for key in [k for k in st.session_state if isinstance(k, str) and k.startswith("lesson.")]:
            st.session_state[key] = st.session_state[key]
        self.index = self._current_index()
        self._take_values_from_url()

    # ------------------------------------------------------------------ reading
    def _current_index(self):
        """The step named in the URL, else the one this session was at; an unknown name
        opens step 1 with a note that stays until the class moves on."""
        slug = st.query_params.get(STEP_PARAM) or st.session_state.get(ENTERED_KEY)
        n = len(LESSON_STEPS)
        if slug == slides.END_SLUG:
            index = n if self.present else n - 1
        else:
            index = step_index(slug) if slug else 0
            if slug and LESSON_STEPS[index].slug != slug:
                st.session_state[BAD_STEP_KEY] = str(slug)[:80]
        st.session_state[ENTERED_KEY] = slides.END_SLUG if index == n else LESSON_STEPS[index].slug
        st.query_params[STEP_PARAM] = st.session_state[ENTERED_KEY]
        return index

    def _take_values_from_url(self):
        """Control values in the URL (a class's "explore on your device" link, a shared
        step) set this step's controls once; values a control does not offer are ignored."""
        if self.index >= len(LESSON_STEPS):
            return
        lesson_step = LESSON_STEPS[self.index]
        for key, value in step_values_from_query(lesson_step, st.query_params).items():
            st.session_state[control_key(lesson_step, key)] = value
            st.query_params.pop(value_param(key), None)

    def values(self, lesson_step):
        """The step's settings with its controls' current values."""
        values = lesson_step.start_values()
        for control in lesson_step.controls:
            key = control_key(lesson_step, control.key)
            values[control.key] = st.session_state.get(key, values[control.key])
        return values

    def revealed(self, lesson_step):
        return lesson_step.slug in st.session_state.get(REVEALED_KEY, ())

    # ------------------------------------------------------------------ acting
    def set_revealed(self, lesson_step, shown=True):
        current = set(st.session_state.get(REVEALED_KEY, ()))
        current = current | {lesson_step.slug} if shown else current - {lesson_step.slug}
        st.session_state[REVEALED_KEY] = sorted(current)

    def new_question(self, lesson_step):
        """A control changed: the figure shows something new, so ask again."""
        self.set_revealed(lesson_step, False)
        st.session_state.pop(prediction_key(lesson_step), None)

    def go_to(self, index):
        """Open step ``index`` (its own URL, so every step has a link)."""
        st.session_state.pop(BAD_STEP_KEY, None)
        at_end = index >= len(LESSON_STEPS)
        st.query_params[STEP_PARAM] = slides.END_SLUG if at_end else LESSON_STEPS[index].slug

    def forward(self):
        """Next: first reveal the step's answer, then go on (a clicker's slide build)."""
        if self.index >= len(LESSON_STEPS):
            return
        lesson_step = LESSON_STEPS[self.index]
        if not self.revealed(lesson_step):
            self.set_revealed(lesson_step)
        elif self.index + 1 < len(LESSON_STEPS) or self.present:
            self.go_to(self.index + 1)

    def reset(self, lesson_step):
        """The step's controls back to their start values, the answer hidden."""
        start = lesson_step.start_values()
        for control in lesson_step.controls:
            st.session_state[control_key(lesson_step, control.key)] = start[control.key]
        self.new_question(lesson_step)

    def control_changed(self, lesson_step, key, widget_key):
        """A control changed (its widget already holds the value): ask again."""
        self.new_question(lesson_step)

    def forward_label(self):
        lesson_step = LESSON_STEPS[min(self.index, len(LESSON_STEPS) - 1)]
        return "Next →" if self.revealed(lesson_step) else "Reveal ↓"

    def can_go_back(self):
        return self.index > 0

    def can_go_forward(self):
        last = self.index >= len(LESSON_STEPS) - 1
        return not (last and self.revealed(LESSON_STEPS[-1]) and not self.present)

    def act(self, action, target=None):
        """Do what a presenter's key or button asked (:func:`explorer.ui.slides.parse_action`)."""
        last = len(LESSON_STEPS) - 1
        if action == "next":
            self.forward()
        elif action in ("first", "last", "jump") or (action == "back" and self.index > 0):
            self.go_to({"back": min(self.index - 1, last), "first": 0, "last": last}.get(action, target))
        elif action == "reset" and self.index <= last:
            self.reset(LESSON_STEPS[self.index])
        elif action == "contrast":
            slides.set_high_contrast(not slides.high_contrast())
        else:
            return
        self.index = self._current_index()
