"""The lecturer's console (issue 40): ``/lesson?class=CODE&view=presenter``, and without a
class ``/lesson?view=presenter``, a rehearsal with no students.  Beside the step as the
projector shows it (its controls live), what is for the lecturer's eyes (:func:`_right_side`):
the stage and the key that moves it on, the answer before Reveal, votes, notes, clocks
against the plan (:func:`explorer.teaching.lesson.lecture_plan`), settings, seats, End.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from explorer.safe_text import escape_markdown
from explorer.teaching.lesson import LESSON_STEPS, lecture_plan, notes_text, step_minutes
from explorer.ui import guard, lesson_slide, slides, tables
from explorer.ui.class_lecture import STAGE_NAMES, ClassLecture, class_layer, store
from explorer.ui.class_routes import class_links, public_join_url, public_origin

END_KEY = "class_end_confirm"


def _stamp(seconds):
    return "" if seconds is None else datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def results_frame(rows):
    """The class's results as a table: one row per step, round and choice, with the
    correct choices, the votes (integers), the share of the round, the round's share
    correct and, on round 2's rows, the normalized change from round 1 to round 2,
    (p₂ − p₁)/(1 − p₁) of the share correct p (Hake's gain); times in UTC.

    ``rows``: :meth:`explorer.classroom.store.ClassStore.results`."""
    shares = {}
    for row in rows:
        total = sum(row["counts"].values())
        right = sum(n for c, n in row["counts"].items() if int(c) in row["correct"])
        shares[(row["step"], row["round"])] = right / total if total and row["correct"] else None
    out = []
    for row in [r for r in rows if r["step"] < len(LESSON_STEPS)]:
        step, total = LESSON_STEPS[row["step"]], sum(row["counts"].values())
        p1, p2 = shares.get((row["step"], 1)), shares[(row["step"], row["round"])]
        gain = (p2 - p1) / (1 - p1) if row["round"] == 2 and None not in (p1, p2) and p1 < 1 else None
        for choice, text in enumerate(step.choices):
            votes = int(row["counts"].get(choice, row["counts"].get(str(choice), 0)))
            out.append(
                {
                    "step": row["step"] + 1,
                    "title": step.title,
                    "round": row["round"],
                    "choice": lesson_slide.choice_letter(choice),
                    "choice text": text,
                    "correct": choice in row["correct"],
                    "votes": votes,
                    "share of round": votes / total if total else 0.0,
                    "round % correct": None if p2 is None else round(100 * p2, 1),
                    "normalized change": None if gain is None else round(gain, 3),
                    "opened": _stamp(row["opened"]),
                    "closed": _stamp(row["closed"]),
                }
            )
    frame = pd.DataFrame(out)
    return frame.astype({"votes": "int64"}) if len(frame) else frame


def plan_frame(rounds, current):
    """The plan as a table: each step's planned start and minutes, core or optional."""
    return pd.DataFrame(
        {
            "": "▶" if index == current else "",
            "step": LESSON_STEPS[index].title,
            "starts at": f"{start:g} min" if start is not None else "if time",
            "minutes": f"{minutes:g}",
        }
        for index, start, minutes in lecture_plan(rounds)
    )


@guard.callback("changing the class")
def _steer(lecture, action, key=None):
    """A presenter's widget changed a setting of the class (``key``: the widget's value)."""
    lecture.steer(action, None if key is None else st.session_state[key])
    if action == "end":
        st.session_state.pop(END_KEY, None)


def _settings(lecture):
    """The class's settings; each widget shows the class's value (another presenter tab
    may have changed it) and writes it back on change."""
    state = lecture.state
    with st.expander("Rounds and counts"):
        st.session_state["class_rounds"] = state.rounds
        st.radio(
            "Rounds per question",
            (1, 2),
            key="class_rounds",
            horizontal=True,
            on_change=_steer,
            args=(lecture, "rounds", "class_rounds"),
            help="Two rounds: vote, discuss with neighbours, vote again (peer instruction). "
            "One: vote, reveal.",
        )
        for action, label, text in (
            ("live_counts", "Show counts while a round is open", "Off: the room sees only how many voted."),
            ("early_round1", "Show round 1's bars when it closes", "Off: hidden until round 2 closes."),
        ):
            st.session_state[f"class_{action}"] = bool(getattr(state, action))
            args = (lecture, action, f"class_{action}")
            st.toggle(label, key=f"class_{action}", on_change=_steer, args=args, help=text)


@guard.callback("removing a seat")
def _remove_seat(lecture, seat):
    store().remove_seat(lecture.code, lecture.key, seat)


def _seats(lecture):
    seats = store().seats(lecture.code, lecture.key)
    with st.expander(f"Seats ({len(seats)})"):
        st.caption("One seat per device. Remove one that is not a student (its votes leave the counts).")
        for seat in seats[:200]:
            cells = st.columns([3, 2, 1])
            cells[0].markdown(f"`{escape_markdown(seat['seat'])}` joined {_stamp(seat['joined'])[11:19]}")
            cells[1].markdown(f"{seat['votes']} votes")
            cells[2].button(
                "Remove",
                key=f"class_seat_{seat['seat']}",
                on_click=_remove_seat,
                args=(lecture, seat["seat"]),
                help="Remove this seat and its votes.",
            )


def _links(lecture):
    links, warning = class_links(lecture.code, lecture.key), public_origin()[1]
    if warning:
        st.warning(escape_markdown(warning), icon=":material/wifi_off:")
    join = public_join_url(lecture.code).split("://", 1)[-1]
    st.markdown(
        f"[Open the projector view]({links['projector']}&present=1) (on the room's screen) · "
        f"[this presenter on another device]({links['lecturer_link']}) "
        "(keep it private: it steers the class) · "
        f"students join at **{escape_markdown(join)}** (code **{lecture.code}**)"
    )


def _results_and_end(lecture):
    tables.download_csv(
        "Download the results (CSV)",
        lambda: results_frame(store().results(lecture.code, lecture.key)),
        f"class_{lecture.code}_results.csv",
        "class_results",
        "Per step, round and choice: votes, the correct choices, % correct, the normalized "
        "change from round 1 to round 2, when each round opened and closed.",
    )
    if not lecture.state.live:
        st.info("This class has ended: its results stay here for 24 hours.", icon=":material/event_busy:")
    elif not st.session_state.get(END_KEY):
        st.button(
            "End the class…",
            key="class_end",
            on_click=lambda: st.session_state.update({END_KEY: True}),
            help="Closes voting and joining; asks once more before it does.",
        )
    else:
        st.warning("End the class? Students can no longer vote; the results stay downloadable for 24 hours.")
        yes, no = st.columns(2)
        yes.button("Yes, end it", key="class_end_yes", type="primary", on_click=_steer, args=(lecture, "end"))
        no.button("Keep it running", key="class_end_no", on_click=lambda: st.session_state.pop(END_KEY, None))


def _right_side(lecture, lesson_step, values, view):
    """Beside the slide: the class's votes and clocks, the answer, the notes, the next
    step, the plan, and in a class its settings, seats, links, results and End."""
    in_class = isinstance(lecture, ClassLecture)
    if in_class:
        lecture.sync_correct(view)
        start, minutes = next((s, m) for i, s, m in lecture_plan(lecture.state.rounds) if i == lecture.index)
        clock = {"now": store().clock(), "stepStarted": lecture.state.step_started}
        clock |= {"started": lecture.state.started, "stepPlan": minutes, "planStart": start}
        class_layer(lecture, "presenter", clock)
    if view is not None and lesson_step.choices:  # for the lecturer's eyes, before Reveal too
        with st.container(border=True):
            right = ", ".join(lesson_slide.choice_label(lesson_step, i) for i in sorted(view.correct)) or "–"
            st.markdown(f"**Answer (not on the projector until Reveal):** {right}")
            st.caption(view.reveal)
            if view.paper:
                st.caption(view.paper)
    say, ask = notes_text(lesson_step, values, getattr(view, "facts", None))
    st.markdown(
        f"**Say** ({step_minutes(lesson_step):g} min with two rounds"
        f"{'' if lesson_step.core else '; optional step'}): "
        f"{escape_markdown(say)}\n\n**Ask:** {escape_markdown(ask)}"
    )
    if lecture.index + 1 < len(LESSON_STEPS):
        upcoming = LESSON_STEPS[lecture.index + 1]
        st.markdown(f"**Next:** {upcoming.title}  \n*{upcoming.question}*")
    else:
        st.markdown("**Next:** the end of the lesson.")
    with st.expander("The plan"):
        st.markdown(tables.markdown_table(plan_frame(lecture.state.rounds if in_class else 2, lecture.index)))
        st.caption("Jump: type the step's number and Enter (or O for the overview).")
    if in_class:
        _settings(lecture)
        _seats(lecture)
        _links(lecture)
        _results_and_end(lecture)


def draw_presenter(lecture):
    """The console (see the module docstring) for a :class:`ClassLecture`, or a
    :class:`~explorer.ui.lecture.SoloLecture` in a rehearsal."""
    in_class = isinstance(lecture, ClassLecture)
    st.html(slides.layer_css())
    steering = lecture.key_steering() if in_class else None
    action, _ = slides.lesson_keys([s.title for s in LESSON_STEPS], True, in_class, "", steering)
    if action is not None:
        lecture.act(*action)
    title = f"Class {lecture.code}" if in_class else "Rehearsal"
    st.markdown(f"### {title} · step {lecture.index + 1} / {len(LESSON_STEPS)}")
    if in_class:
        mine, now = lecture.stages()
        st.markdown(" → ".join(f"**{STAGE_NAMES[s][0]}**" if s == now else STAGE_NAMES[s][0] for s in mine))
    else:
        st.markdown("rehearsal: no students")
    left, right = st.columns([3, 2])
    with right:
        lesson_slide.draw_navigation(lecture, st.columns(2))
    with left:
        lesson_step, values, view = lesson_slide.draw_step(lecture, present=False)
    with right:
        _right_side(lecture, lesson_step, values, view)
