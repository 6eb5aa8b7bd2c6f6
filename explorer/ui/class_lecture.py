"""A class session on the Lesson page (issues 40-42): the lecture read from the class
store (:class:`ClassLecture`, answering what :class:`explorer.ui.lecture.SoloLecture`
answers; with the lecturer's key it steers the class through the stages of
:mod:`explorer.classroom.stages`, by buttons and by keys), the projector
(``/lesson?class=CODE&view=projector``: the Lesson's own slide with the class's live layer
:func:`class_layer` and the join overlay on top) and the class's layers.
"""

from __future__ import annotations

import io

import streamlit as st

from explorer.classroom import stages
from explorer.classroom.store import default_store as store
from explorer.teaching.lesson import LESSON_STEPS, with_chosen
from explorer.ui import guard, lesson_slide, slides
from explorer.ui.class_routes import base_path, public_join_url

CLASS_PARAM, VIEW_PARAM, SCREEN_PARAM = "class", "view", "screen"
#: Key of the join overlay's container (shown by J and at a class's start).
JOIN_KEY = "lesson_join"
#: The peer-instruction hint for a round's share correct (Mazur's bands): below 30 %
#: explain again, up to 70 % let neighbours discuss and vote again, above move on.
PI_HINTS = [
    [0.3, "below 30 % correct: explain the idea again, then vote"],
    [0.7, "30-70 % correct: neighbours discuss, then vote again"],
    [1.01, "above 70 % correct: move on"],
]
#: Each stage as the presenter names it, and as the button that moves to it says it.
STAGE_NAMES = {
    "idle": ("slide", ""),
    "open1": ("round 1 open", "Open round 1"),
    "closed1": ("round 1 closed", "Close round 1"),
    "open2": ("round 2 open", "Open round 2"),
    "closed2": ("round 2 closed", "Close round 2"),
    "revealed": ("revealed", "Reveal"),
}


class ClassLecture:
    """A class session as a lecture (see the module docstring); ``view``: "projector" or
    "presenter"."""

    predicts = False
    back_label = "← Undo"

    def __init__(self, code, view):
        from explorer.ui.class_routes import lecturer_key

        self.code, self.present = code, view == "projector"
        self.state = store().state(code)
        self.key = lecturer_key(code)
        self.can_steer = bool(self.key) and self.state is not None and store().is_lecturer(code, self.key)
        self.steering = self.can_steer and self.state.live  # the lecturer may steer it now
        self.live_controls = self.steering and view == "presenter"
        self.index = min(self.state.step, len(LESSON_STEPS) - 1) if self.state else 0

    # ------------------------------------------------------------------ reading
    def values(self, lesson_step):
        """The (current) step's settings with the lecturer's control values (a value the
        control does not offer is ignored)."""
        return with_chosen(lesson_step, self.state.values)

    def revealed(self, lesson_step):
        return self.state.revealed

    def stages(self):
        """The stages of the current step, and the one it is in."""
        asks = bool(LESSON_STEPS[self.index].choices)
        return stages.stages(asks, self.state.rounds), stages.stage(self.state)

    # ------------------------------------------------------------------ acting
    @guard.callback("steering the class")
    def steer(self, action, value=None):
        """One lecturer action on the store (``NotAllowed`` and faults: shown by the next run)."""
        self.state = store().steer(self.code, self.key, action, value)

    def control_changed(self, lesson_step, key, widget_key):
        """The presenter moved a control: the projector and every student follow."""
        self.steer("values", {**self.state.values, key: st.session_state[widget_key]})

    def act(self, action, target=None):
        """A presenter's button, or H (the other keys steer the class in the browser)."""
        if action == "contrast":
            slides.set_high_contrast(not slides.high_contrast())
        elif action in ("next", "back") and self.steering:
            self.steer("advance" if action == "next" else "undo")

    def forward_label(self):
        mine, now = self.stages()
        if now == "revealed":
            return "Next step →"
        return STAGE_NAMES[mine[mine.index(now) + 1]][1] + " →"

    def can_go_back(self):
        return self.steering and (self.index > 0 or self.stages()[1] != "idle")

    def can_go_forward(self):
        return self.steering and not (self.index >= len(LESSON_STEPS) - 1 and self.stages()[1] == "revealed")

    def key_steering(self):
        """What the keys element needs to steer this class itself (None without the key)."""
        if not self.steering:
            return None
        steering = {"base": base_path(), "code": self.code, "steps": len(LESSON_STEPS)}
        return steering | {"bars": self.state.bars, "layer": self.state.layer}

    def sync_correct(self, view):
        """Keep the class's correct choices those the lecturer's view computes (the
        students' answer after Reveal and the results' "correct" column)."""
        if self.steering and view is not None:
            correct = tuple(sorted(view.correct))
            if correct != tuple(self.state.correct):
                self.steer("correct", list(correct))


def class_layer(lecture, role, clock=None):
    """Draw the class's live layer (``assets/class_layer.js``) for ``role``, "projector"
    or "presenter"; the page reruns when the lecturer changed the class."""
    data = {
        "base": base_path(),
        "code": lecture.code,
        "screen": st.query_params.get(SCREEN_PARAM, ""),
        "role": role,
        "version": lecture.state.version,
        "letters": [lesson_slide.choice_letter(i) for i in range(len(LESSON_STEPS[lecture.index].choices))],
        "correct": list(lecture.state.correct),
        "join": public_join_url(lecture.code).split("://", 1)[-1].split("?", 1)[0],
        "clock": clock,
        "hints": PI_HINTS,
    }
    height = 0 if role == "projector" else "content"
    slides.component("class_layer")(
        key=f"class_layer_{role}", data=data, height=height, on_changed_change=lambda: None
    )


def draw_join_overlay(code):
    """The join overlay (J, and the class's opening): the join link's QR code, the link
    and the code, large; out of sight until the class shows it."""
    import segno

    url, svg = public_join_url(code), io.BytesIO()  # drawn here: no network, no image service
    # error correction M, dark on white, a quiet zone of 4 modules, as scanners expect
    segno.make(url, error="m", micro=False).save(
        svg, kind="svg", scale=10, dark="#000000", light="#ffffff", border=4, xmldecl=False
    )
    with st.container(key=JOIN_KEY):
        st.subheader(f"Join the class: code {code}", anchor=False)
        st.image(svg.getvalue().decode("utf-8"), width=360)
        st.markdown(f"Open **{url.split('://', 1)[-1]}** on your phone or laptop, or scan the code.")


def start_class_entry():
    """ "Start a class": the lecturer's door (``/join?lecturer``, :mod:`explorer.ui.class_routes`:
    a lecturer's act, ``FLDA_LECTURER_TOKEN`` or this server's own machine; the classes
    this browser started) and the presenter without a class, to rehearse."""
    with st.expander("Start a class (votes from every student's device)", icon=":material/groups:"):
        st.markdown(
            "A class session: the projector shows this lesson's slides and the class's votes, "
            "students join with a code on their phones or laptops, and your presenter view "
            "(notes, answer, clocks, rounds, the step's controls) steers both.\n\n"
            "[Start a class or open one you started](join?lecturer) · "
            "[Rehearse: the presenter view without students](lesson?view=presenter)"
        )


def draw_projector(lecture):
    """The room's screen: the Lesson's slide of the class's step with the lecturer's values,
    the class's layer, the join overlay."""
    contrast = slides.high_contrast()
    st.html(slides.slide_css(contrast, in_class=True))
    action, viewport = slides.lesson_keys(
        [s.title for s in LESSON_STEPS], True, True, lecture.state.layer, lecture.key_steering()
    )
    if action is not None:  # H (the other keys steer the class from the browser)
        lecture.act(*action)
    with st.container(key=slides.TITLE_KEY):
        st.title(f"Class {lecture.code}: the lesson in {len(LESSON_STEPS)} steps")
    with st.container(key=slides.SLIDE_KEY):
        lesson_slide.draw_step(lecture, True, slides.chart_style(viewport, contrast))
    with st.container(key=slides.CLASS_LAYER_KEY):  # out of the slide's flow: overlays only
        draw_join_overlay(lecture.code)
        class_layer(lecture, "projector")


def show_class(code, view):
    """The projector or the presenter of class ``code`` (a note when it cannot be followed)."""
    from explorer.ui.presenter import draw_presenter

    lecture = ClassLecture(code, view)
    if lecture.state is None:
        st.warning(
            f"There is no class {code} on this server. Start one below, or check the link.",
            icon=":material/help:",
        )
        start_class_entry()
    elif view == "presenter" and not lecture.can_steer:
        st.error(
            "This browser does not hold the lecturer's key of this class: open the presenter link "
            "you got when you started it (it sets the key in this browser).",
            icon=":material/lock:",
        )
    elif view == "presenter":
        draw_presenter(lecture)
    elif not lecture.state.live:
        st.info(f"Class {code} has ended. Thank you!", icon=":material/event_busy:")
    else:
        draw_projector(lecture)
