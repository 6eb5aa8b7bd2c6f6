"""A class in the room (issue 35): the presenter, projector and student views of one
class session, drawn from the store (:mod:`explorer.classroom.store`).

One page (``pages/classroom.py``) shows one view, chosen by the URL:

* ``classroom?view=presenter&code=CODE&key=KEY`` — the lecturer's laptop: current and
  next step, speaker notes, a timer against the step's minutes, the votes per choice
  and round, how many joined and solved the exercise, and the controls (open/close a
  round, counts live or hidden, reveal, next, back, end) and the results as CSV.  Every
  control checks the key against the store's hash: nothing in a session or a widget
  makes a browser the lecturer.
* ``classroom?view=projector&code=CODE`` — the room's screen: the slide (the step's
  figure before Reveal, ``View.fig_before``; the revealed figure ``View.fig`` after),
  the class's bars for both rounds and, after Reveal, the computed answer beside them;
  the join code, its QR code and the join URL.
* ``classroom?code=CODE`` — a student: the step's question and choices, one vote per
  open round, the figure; after Reveal the step's controls and its exercise
  (:mod:`explorer.ui.class_exercises`).  The browser's random id is kept in the URL
  (``sid``), never shown and stored only hashed.

The projector and the presenter's counters *follow* the class with an
``st.fragment(run_every=FOLLOW_EVERY_S)`` that reads one row of the store (cached for
:data:`STATE_TTL_S` per process) and redraws the live counts; the whole page reruns
only when what it is drawn from changes
(:meth:`~explorer.classroom.store.ClassState.page_key`: step, round, reveal).  The
students, who need no live counts, follow with one long-polling request each
(:mod:`explorer.ui.class_follow`): an idle room costs no page runs.

A page that is not in a class never opens the store (:func:`store` is called only with
a code or by "Start a class").
"""

from __future__ import annotations

import threading
import time
import urllib.parse

import streamlit as st

from explorer.classroom import codes
from explorer.registry import url_path
from explorer.safe_text import escape_markdown
from explorer.ui import charts, guard, tables

__all__ = [
    "FOLLOW_EVERY_S",
    "CLASS_URL_PATH",
    "store",
    "class_state",
    "start_class_entry",
    "presenter_view",
    "projector_view",
    "student_view",
    "join_form",
    "show",
]

CLASS_URL_PATH = url_path("pages/classroom.py")
#: How often a follower asks the store (seconds).
FOLLOW_EVERY_S = 1.0
#: Room (px) the projector leaves above its figure (title, question).
SLIDE_MARGIN = 170
#: A class's state is shared by the followers of one process for this long (seconds).
STATE_TTL_S = 0.4
CODE_PARAM, KEY_PARAM, VIEW_PARAM, STUDENT_PARAM = "code", "key", "view", "sid"
#: Session keys (dotted: they survive page switches).
STARTED_KEY = "class.started"  # (code, key) of a class this browser started
JOINED_KEY = "class.joined"
PROBLEM_KEY = "class.problem"

_STATES = {}
_STATES_LOCK = threading.Lock()


def store():
    """The server's class store (opened on first use)."""
    from explorer.classroom.store import default_store

    return default_store()


def class_state(code, fresh=False):
    """The class's :class:`~explorer.classroom.store.ClassState` (None: no such class);
    shared by the process's followers for :data:`STATE_TTL_S` unless ``fresh``."""
    now = time.monotonic()
    with _STATES_LOCK:
        cached = _STATES.get(code)
        if not fresh and cached and now - cached[0] < STATE_TTL_S:
            return cached[1]
    state = store().state(code)
    with _STATES_LOCK:
        if len(_STATES) > 1000:
            _STATES.clear()
        _STATES[code] = (now, state)
    return state


def _steps():
    from explorer.teaching.lesson import LESSON_STEPS

    return LESSON_STEPS


def _origin():
    """``scheme://host`` the browser used (so the join URL works from the room)."""
    parts = urllib.parse.urlsplit(st.context.url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return ""


def links(code, key=None):
    """``(join, projector, presenter)`` URLs of a class (presenter only with the key)."""
    base = f"{_origin()}/{CLASS_URL_PATH}"
    join = f"{base}?{CODE_PARAM}={code}"
    projector = f"{base}?{VIEW_PARAM}=projector&{CODE_PARAM}={code}&present=1"
    presenter = f"{base}?{VIEW_PARAM}=presenter&{CODE_PARAM}={code}&{KEY_PARAM}={key}" if key else None
    return join, projector, presenter


# ------------------------------------------------------------------ starting a class
def start_class_entry():
    """ "Start a class": the lecturer's door of the class routes (``/join?lecturer``:
    :mod:`explorer.ui.class_routes`), which checks the lecturer token or loopback."""
    with st.expander("Start a class (votes from every student's device)", icon=":material/groups:"):
        st.link_button(
            "Start a class",
            f"{_origin()}/join?lecturer",
            help="Makes a join code and opens your presenter view (valid for 24 hours).",
        )


# ------------------------------------------------------------------------- following
def follow(code, drawn, body=None):
    """Every :data:`FOLLOW_EVERY_S` s: read the class's state; rerun the whole page when
    its :meth:`page_key` differs from ``drawn``, else redraw ``body(state)`` only."""

    @st.fragment(run_every=FOLLOW_EVERY_S)
    def follower():
        state = class_state(code)
        if state is None or state.page_key() != drawn:
            st.rerun(scope="app")
        if body is not None:
            body(state)

    follower()


def _view(lesson_step, values=None, slide=False):
    """The lesson view of a step (``values``: the step's start values), or None after an
    error shown by the boundary."""
    from explorer.ui.lesson_views import step_view

    with guard.error_boundary("computing this step", "Could not compute this step.") as outcome:
        with st.spinner("Computing this step…"):
            view = step_view(lesson_step, values or lesson_step.start_values(), slide=slide)
    return None if outcome.failed else view


def _slide_figure(lesson_step, view, revealed, key, values=None, slide=False):
    """The step's figure: ``fig_before`` before Reveal, ``fig`` after (nothing before
    Reveal when the step has no figure that leaves its question open)."""
    from explorer.ui.lesson_views import settings_text

    fig = view.fig if revealed else view.fig_before
    if fig is None:
        if not revealed and view.fig is not None:
            st.caption("The figure comes with the answer, after the vote.")
        return
    caption = view.caption if revealed and not slide else None
    charts.show_chart(
        fig,
        key,
        view.what + (" before reveal" if not revealed else ""),
        caption,
        settings=settings_text(values or lesson_step.start_values()),
        describe=not slide,
    )


def _choices_text(lesson_step, correct=(), revealed=False):
    from explorer.figures.classroom import choice_letter

    return "\n".join(
        f"- **{choice_letter(i)}** {choice}" + (" ✓" if revealed and i in correct else "")
        for i, choice in enumerate(lesson_step.choices)
    )


def _round_text(state):
    if state.round == 0:
        return "No vote yet."
    held = "open" if state.round_open else "closed"
    return f"Round {state.round}{' (after discussion)' if state.round == 2 else ''} {held}."


def _bars(state, lesson_step, view, key, hide_open=True):
    """The class's votes of the current step (both rounds) as bars; while a round is open
    and the lecturer hides counts, only how many voted."""
    from explorer.figures.classroom import vote_figure

    counts = store().counts(state.code, state.step)
    voted = {r: sum(c.values()) for r, c in counts.items()}
    if hide_open and state.round_open and not state.counts_visible:
        shown = {r: c for r, c in counts.items() if r != state.round}
        st.markdown(
            f"**{voted.get(state.round, 0)}** votes in round {state.round} (counts shown when it closes)"
        )
    else:
        shown = counts
    if not shown:
        st.caption(_round_text(state))
        return
    correct = view.correct if view is not None else ()
    charts.show_chart(
        vote_figure(len(lesson_step.choices), shown, correct, state.revealed),
        key,
        f"class votes step {state.step + 1}",
        "The class's votes per choice, round 1 (before discussion) and round 2 (after)"
        + ("; ✓ marks the answer computed from this step's figure." if state.revealed else "."),
        describe=False,
    )


# -------------------------------------------------------------------------- projector
def projector_view(code):
    """The room's screen (see the module docstring)."""
    from explorer.classroom.qr import qr_svg

    state = class_state(code, fresh=True)
    if not _usable(state):
        return
    steps = _steps()
    lesson_step = steps[state.step]
    view = _view(lesson_step, slide=True)
    join, _, _ = links(code)
    slide_side, vote_side = st.columns([3, 2])
    with slide_side:
        st.header(lesson_step.title, anchor=False)
        st.markdown(f"**Predict:** {lesson_step.question}")
        if view is not None and not view.error:
            _slide_figure(lesson_step, view, state.revealed, "class_slide", slide=True)
    with vote_side:
        qr, code_text = st.columns([1, 2], vertical_alignment="center")
        qr.image(qr_svg(join, scale=4), width=120)
        code_text.markdown(f"### Join: {code}\n{join}")
        st.markdown(_choices_text(lesson_step, view.correct if view else (), state.revealed))
        if state.revealed and view is not None and view.reveal:
            st.success(view.reveal, icon=":material/lightbulb:")

        def live(current):
            _bars(current, lesson_step, view, "class_bars")

        follow(code, state.page_key(), live)


# -------------------------------------------------------------------------- presenter
def _act(code, key, action, value=None):
    from explorer.classroom.store import NotAllowed

    try:
        store().steer(code, key, action, value)
    except (NotAllowed, ValueError) as error:
        st.session_state[PROBLEM_KEY] = str(error)


def _timer(state, notes):
    elapsed = max(0, int(store().clock() - state.step_started))
    text = f"{elapsed // 60}:{elapsed % 60:02d}"
    if notes is None:
        return f":material/timer: {text} on this step"
    budget = int(round(notes.minutes * 60))
    over = " — over time" if elapsed > budget else ""
    return f":material/timer: {text} of {budget // 60}:{budget % 60:02d}{over}"


def _results_frame(code, key):
    import pandas as pd

    from explorer.figures.classroom import choice_letter

    steps = _steps()
    rows = []
    for row in store().results(code, key):
        lesson_step = steps[row["step"]] if row["step"] < len(steps) else None
        choice = row.get("choice")
        rows.append(
            {
                "step": row["step"] + 1,
                "title": lesson_step.title if lesson_step else "",
                "round": row.get("round"),
                "choice": choice_letter(choice) if choice is not None else None,
                "choice text": lesson_step.choices[choice]
                if lesson_step and choice is not None and choice < len(lesson_step.choices)
                else None,
                "votes": row.get("votes"),
                "solved exercise": row.get("solved"),
            }
        )
    return pd.DataFrame(
        rows, columns=["step", "title", "round", "choice", "choice text", "votes", "solved exercise"]
    )


def presenter_view(code, key):
    """The lecturer's laptop (see the module docstring)."""
    from explorer.ui.class_exercises import exercise

    state = class_state(code, fresh=True)
    if state is None:
        _usable(state)
        return
    if not store().is_lecturer(code, key):
        st.error(
            "This link does not hold the lecturer's key of this class, so it cannot steer it. "
            "Open the presenter link you got when you started the class; students join "
            f"at {CLASS_URL_PATH}?{CODE_PARAM}={code}.",
            icon=":material/lock:",
        )
        return
    if not _usable(state):
        return
    steps = _steps()
    lesson_step = steps[state.step]
    upcoming = steps[state.step + 1].title if state.step + 1 < len(steps) else "(last step)"
    st.header(f"Presenter · class {code}", anchor=False)
    st.markdown(f"**Now:** {lesson_step.title}  \n**Next:** {upcoming}")
    problem = st.session_state.pop(PROBLEM_KEY, None)
    if problem:
        st.error(escape_markdown(problem), icon=":material/error:")
    controls = st.columns(4)
    round_open, next_round = state.round_open, (1 if state.round == 0 else 2)
    controls[0].button(
        "Close round" if round_open else f"Open round {next_round}",
        key="class_round",
        on_click=_act,
        args=(code, key, "close") if round_open else (code, key, "open", next_round),
        disabled=not round_open and state.round >= 2,
        width="stretch",
        help="Round 1: the class votes; close it, let neighbours discuss, then open round 2.",
    )
    controls[1].button(
        "Reveal",
        key="class_reveal",
        on_click=_act,
        args=(code, key, "reveal"),
        disabled=state.revealed,
        width="stretch",
        type="primary",
        help="Show the computed answer beside the class's votes (closes an open round).",
    )
    controls[2].button(
        "← Back",
        key="class_back",
        on_click=_act,
        args=(code, key, "back"),
        disabled=state.step == 0,
        width="stretch",
        help="The previous step (its votes are kept).",
    )
    controls[3].button(
        "Next →",
        key="class_next",
        on_click=_act,
        args=(code, key, "next"),
        disabled=state.step + 1 >= len(steps),
        width="stretch",
        help="The next step, on the projector and every student's device.",
    )
    st.toggle(
        "Show counts while a round is open",
        value=state.counts_visible,
        key=f"class_counts_{state.version}",
        on_change=lambda: _act(code, key, "counts", not state.counts_visible),
        help="Off: the projector shows only how many voted until you close the round "
        "(the class is not swayed by the running count).",
    )
    notes = lesson_step.notes
    with st.container(border=True):
        if notes is None:
            st.caption("No speaker notes for this step.")
        else:
            st.markdown(f"**Say:** {notes.say}\n\n**Ask:** {notes.ask}")
    has_exercise = exercise(lesson_step.slug) is not None
    view = None

    def live(current):
        joined, solved = store().tally(code)
        counts = store().counts(code, current.step)
        cells = [_timer(current, notes), f"{joined} joined", _round_text(current)]
        if current.round:
            cells.append(f"{sum(counts.get(current.round, {}).values())} votes in round {current.round}")
        if has_exercise:
            cells.append(f"{solved.get(current.step, 0)} solved the exercise")
        st.markdown(" · ".join(cells))
        if counts:
            from explorer.figures.classroom import choice_letter

            st.markdown(
                tables.markdown_table(
                    _counts_frame(counts, [choice_letter(i) for i in range(len(lesson_step.choices))])
                )
            )

    follow(code, state.page_key(), live)
    st.markdown(f"**Predict:** {lesson_step.question}\n\n" + _choices_text(lesson_step))
    join, projector, _ = links(code)
    st.markdown(f"[Projector view]({projector}) · students join at {join} (code **{code}**)")
    tables.download_csv(
        "Download every step's results (CSV)",
        lambda: _results_frame(code, key),
        f"class_{code}_results.csv",
        "class_results",
        "Votes per step, round and choice, and solved exercises per step.",
    )
    st.button(
        "End the class",
        key="class_end",
        on_click=_act,
        args=(code, key, "end"),
        help="Closes voting and joining; the results stay downloadable for 24 hours.",
    )
    del view


def _counts_frame(counts, letters):
    import pandas as pd

    return pd.DataFrame(
        {f"round {r}": [counts[r].get(i, 0) for i in range(len(letters))] for r in sorted(counts)},
        index=letters,
    ).rename_axis("choice")


# ---------------------------------------------------------------------------- student
def _usable(state):
    """Show why a class cannot be followed (unknown, expired, ended); True if it can."""
    if state is None:
        st.warning(
            "There is no class with this code. Check the code on the projector and type it "
            "again (6 letters and digits).",
            icon=":material/help:",
        )
        return False
    if not store().is_live(state):
        st.info(
            "This class has ended (classes last 24 hours). Ask your lecturer for the new code.",
            icon=":material/event_busy:",
        )
        return False
    return True


def _client_names(sid):
    from explorer.classroom.store import WRONG_CODES_PER_ADDRESS, WRONG_CODES_PER_MINUTE

    names = {f"browser:{sid}": WRONG_CODES_PER_MINUTE}
    if st.context.ip_address:
        names[f"ip:{st.context.ip_address}"] = WRONG_CODES_PER_ADDRESS
    return names


def student_id():
    """This browser's random id, kept in the URL (``sid``) so a reload keeps the vote."""
    sid = st.query_params.get(STUDENT_PARAM, "")
    if not codes.valid_token(sid):
        sid = codes.new_student_id()
        st.query_params[STUDENT_PARAM] = sid
    return sid


_JOIN_NOTES = {
    "unknown": "There is no class with this code. Check the code on the projector and type it again.",
    "expired": "This class has ended (classes last 24 hours). Ask your lecturer for the new code.",
    "full": "This class is full. Ask your lecturer.",
    "rate-limited": "Too many wrong codes from this device: wait a minute, then type the code "
    "shown on the projector.",
    "bad-id": "This browser's id is not valid; reload the page.",
}


def join_form(note=None):
    """The code box (an unknown, expired or rate-limited code gets its note)."""
    st.title("Join a class", anchor=False)
    if note:
        st.warning(_JOIN_NOTES.get(note, note), icon=":material/info:")
    with st.form("class_join", border=False):
        text = st.text_input(
            "Join code",
            max_chars=12,
            placeholder="e.g. K7PQ2M",
            help="The 6 letters and digits on the projector (capitals or not).",
        )
        if st.form_submit_button("Join", type="primary"):
            code = codes.normalize_code(text)
            st.query_params[CODE_PARAM] = code or str(text)[:12]
            st.session_state.pop(JOINED_KEY, None)
            st.rerun()


def _vote(code, sid, key, n_choices):
    choice = st.session_state.get(key)
    if choice is None:
        return
    result = store().vote(code, sid, int(choice), n_choices)
    if result not in ("counted", "changed"):
        st.session_state[PROBLEM_KEY] = {
            "closed": "Voting is closed for this round.",
            "not-joined": "Join the class first.",
        }.get(result, "That vote was not counted.")


def student_view(code, sid):
    """A student's phone or laptop (see the module docstring)."""
    from explorer.figures.classroom import choice_letter

    if st.session_state.get(JOINED_KEY) != (code, sid):
        status = store().join(code, sid, _client_names(sid))
        if status != "ok":
            st.query_params.pop(CODE_PARAM, None)
            join_form(status)
            return
        st.session_state[JOINED_KEY] = (code, sid)
    state = class_state(code, fresh=True)
    if not _usable(state):
        return
    lesson_step = _steps()[state.step]
    st.subheader(lesson_step.title, anchor=False)
    problem = st.session_state.pop(PROBLEM_KEY, None)
    if problem:
        st.warning(problem, icon=":material/info:")
    view = _view(lesson_step)
    n = len(lesson_step.choices)
    key = f"class.vote.{state.step}.{state.round}"
    mine = store().my_vote(code, sid, state.step, state.round) if state.round else None
    if mine is not None and key not in st.session_state:
        st.session_state[key] = mine
    st.radio(
        f"**Predict:** {lesson_step.question}",
        range(n),
        format_func=lambda i: (
            f"{choice_letter(i)} · {lesson_step.choices[i]}"
            + (" ✓" if state.revealed and view is not None and i in view.correct else "")
        ),
        index=None,
        key=key,
        disabled=not state.round_open,
        on_change=_vote,
        args=(code, sid, key, n),
        help="One vote per round; you may change it while the round is open.",
    )
    if state.round_open:
        st.caption(
            f"Round {state.round} is open: "
            + (f"your vote {choice_letter(mine)} is counted." if mine is not None else "pick one.")
        )
    else:
        st.caption(_round_text(state) + (f" Your vote: {choice_letter(mine)}." if mine is not None else ""))
    if state.revealed and view is not None and view.reveal:
        st.success(view.reveal, icon=":material/lightbulb:")
    if view is not None and not view.error and not state.revealed:
        _slide_figure(lesson_step, view, False, "class_student_slide")
    if state.revealed:
        _explore(code, sid, state, lesson_step)
    from explorer.ui.class_follow import follow_class, token

    follow_class(code, token(state))


def _control_key(lesson_step, key):
    return f"class.{lesson_step.slug}.{key.replace('.', '_')}"


def _explore(code, sid, state, lesson_step):
    """After Reveal: the step's own controls, its figure for them and the exercise."""
    from explorer.ui.class_exercises import exercise
    from explorer.ui.lesson_views import step_view

    values = lesson_step.start_values()
    for control in lesson_step.controls:
        key = _control_key(lesson_step, control.key)
        options = list(control.try_values)
        if st.session_state.get(key) not in options:
            st.session_state[key] = values[control.key]
        values[control.key] = st.radio(
            control.label,
            options,
            key=key,
            horizontal=True,
            format_func=lambda v: ("on" if v else "off") if isinstance(v, bool) else f"{v}",
            help="Change it and watch the figure: it is computed as on the full page.",
        )
    with guard.error_boundary("computing this step", "Could not compute this step.") as outcome:
        view = step_view(lesson_step, values)
    if outcome.failed:
        return
    if view.error:
        st.error(escape_markdown(view.error), icon=":material/error:")
    else:
        _slide_figure(lesson_step, view, True, "class_student_figure", values)
    task = exercise(lesson_step.slug)
    if task is None:
        return
    with st.container(border=True):
        st.markdown(f"**Exercise:** {task.task}")
        solved_key = f"class.solved.{state.step}"
        if st.session_state.get(solved_key):
            st.success(st.session_state[solved_key], icon=":material/check_circle:")
            return
        with st.form(f"class_exercise_{state.step}", border=False):
            if task.kind == "option":
                answer = st.selectbox(task.label, task.options, help="Pick one, then Check.")
            else:
                answer = st.number_input(
                    task.label, value=None, step=task.step, format=task.fmt, help="Type a number, then Check."
                )
            checked = st.form_submit_button("Check")
        if checked and answer is not None:
            with guard.error_boundary("checking the answer", "Could not check the answer.") as outcome:
                solved, note = task.check(answer, values)
            if outcome.failed:
                return
            if solved:
                store().solve(code, sid, state.step)
                st.session_state[solved_key] = note
                st.success(note, icon=":material/check_circle:")
            else:
                st.info(note, icon=":material/search:")


# ------------------------------------------------------------------------ the page
def show():
    """Draw the view the URL asks for (the page's whole body)."""
    view = st.query_params.get(VIEW_PARAM, "")
    raw = st.query_params.get(CODE_PARAM, "")
    code = codes.normalize_code(raw)
    if view == "presenter":
        key = st.query_params.get(KEY_PARAM, "")
        if not code:
            st.error("A presenter link names its class: start one from the Lesson page.")
            start_class_entry()
            return
        presenter_view(code, key)
    elif view == "projector":
        if not code:
            st.error("A projector link names its class (`?view=projector&code=…`).")
            return
        projector_view(code)
    elif not raw:
        join_form()
        start_class_entry()
    elif not code:
        sid = student_id()
        # a malformed code counts as a wrong one (rate limit) without a database row
        status = store().join("", sid, _client_names(sid))
        st.query_params.pop(CODE_PARAM, None)
        join_form(status)
    else:
        student_view(code, student_id())
