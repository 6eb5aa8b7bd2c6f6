"""The Class page (issue 35): the presenter steers, students and the projector follow,
and nothing a student sends (query parameters, forged session state, widget values)
steers the class, votes twice in a round or shows another student's id."""

import pytest
from sqlalchemy import update

from explorer.classroom import codes, store as store_module
from explorer.classroom.store import ClassStore
from explorer.teaching.lesson import LESSON_STEPS
from tests.app.apptest_support import open_page

pytestmark = pytest.mark.xfail(reason="old class views, replaced in class40", run=False)

PAGE = "pages/classroom.py"


@pytest.fixture
def db(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'class.db'}"
    monkeypatch.setenv("FLDA_CLASS_DB_URL", url)
    return store_module.default_store()


@pytest.fixture
def started(db):
    return db.create_class(len(LESSON_STEPS))


def presenter(code, key):
    return open_page(PAGE, {"view": "presenter", "code": code, "key": key})


def student(code):
    return open_page(PAGE, {"code": code})


def texts(at):
    return " ".join(
        str(e.value)
        for kind in ("markdown", "caption", "warning", "info", "error", "success")
        for e in getattr(at, kind)
    )


def test_the_presenter_opens_rounds_reveals_and_moves_on(db, started):
    code, key = started
    at = presenter(code, key)
    assert [b.key for b in at.button] == [
        "class_round",
        "class_reveal",
        "class_back",
        "class_next",
        "class_end",
    ]
    at.button(key="class_round").click().run()
    assert db.state(code).round == 1 and db.state(code).round_open
    at.button(key="class_round").click().run()  # close round 1
    at.button(key="class_round").click().run()  # open round 2
    state = db.state(code)
    assert (state.round, state.round_open) == (2, True)
    at.button(key="class_reveal").click().run()
    assert db.state(code).revealed and not db.state(code).round_open
    at.button(key="class_next").click().run()
    assert db.state(code).step == 1
    assert LESSON_STEPS[1].title in texts(at) and LESSON_STEPS[2].title in texts(at)
    at.button(key="class_back").click().run()
    assert db.state(code).step == 0
    frame = __import__("explorer.ui.classroom", fromlist=["x"])._results_frame(code, key)
    assert list(frame.columns)[:4] == ["step", "title", "round", "choice"]


def test_a_student_votes_once_per_round_and_changes_count_once(db, started):
    code, key = started
    a = student(code)
    assert a.radio[0].disabled  # no round open
    db.steer(code, key, "open", 1)
    a.run()
    assert not a.radio[0].disabled
    a.radio[0].set_value(0).run()
    a.radio[0].set_value(2).run()  # a change of mind
    b = student(code)
    b.radio[0].set_value(2).run()
    assert db.counts(code, 0) == {1: {2: 2}}
    db.steer(code, key, "close")
    a.run()
    forged = a.radio[0]  # a client that ignores "disabled" sends a vote for a closed round
    forged.proto.disabled = False
    forged.set_value(1).run()
    assert db.counts(code, 0) == {1: {2: 2}}
    db.steer(code, key, "open", 2)
    a.run()
    a.radio[0].set_value(1).run()
    assert db.counts(code, 0) == {1: {2: 2}, 2: {1: 1}}


def test_forged_presenter_links_and_session_state_steer_nothing(db, started):
    code, key = started
    for forged in ("", "x" * 32, codes.new_key(), key[:-1]):
        at = presenter(code, forged)
        assert not [b for b in at.button if b.key in ("class_round", "class_reveal", "class_next")]
        assert at.error  # a clear note, not a traceback
    other_code, other_key = db.create_class(len(LESSON_STEPS))
    at = presenter(code, other_key)  # another class's key
    assert not [b for b in at.button if b.key == "class_next"]
    # a student's session that claims to have started the class
    at = student(code)
    at.session_state["class.started"] = (code, "forged-key-forged-key-1234")
    at.session_state["class.joined"] = (code, "forged-student-id-1234")
    at.query_params["view"] = "presenter"
    at.run()
    assert not [b for b in at.button if b.key == "class_next"]
    state = db.state(code)
    assert (state.step, state.round, state.revealed, state.version) == (0, 0, False, 0)


def test_forged_vote_state_for_a_round_not_open_counts_nothing(db, started):
    code, key = started
    at = student(code)
    at.session_state["class.vote.0.1"] = 1  # a value for round 1 before it opens
    at.run()
    db.steer(code, key, "open", 1)
    at.run()
    assert db.counts(code, 0) == {}
    # the session's joined flag for another id does not make an unjoined id a voter
    sid = at.query_params["sid"]
    assert db.vote(code, codes.new_student_id(), 0, 3) == "not-joined"
    assert db.vote(code, sid, 0, 3) == "counted"


def test_no_student_sees_another_students_id(db, started):
    code, key = started
    a, b = student(code), student(code)
    sid_a, sid_b = a.query_params["sid"], b.query_params["sid"]
    assert sid_a != sid_b and codes.valid_token(sid_a)
    db.steer(code, key, "open", 1)
    for at in (a, b):
        at.run()
        at.radio[0].set_value(0).run()
    projector = open_page(PAGE, {"view": "projector", "code": code})
    pres = presenter(code, key)
    for at, other in ((a, sid_b), (b, sid_a), (projector, sid_a), (pres, sid_a)):
        shown = texts(at) + repr(dict(at.query_params))
        assert other not in shown and codes.student_hash(other) not in shown
    assert key not in texts(projector) + texts(a) + repr(dict(a.query_params))


def test_unknown_malformed_and_expired_codes_get_a_note(db, started):
    code, key = started
    letters = [c for c in codes.ALPHABET if c != code[0]]
    at = student(letters[0] + code[1:])
    assert at.warning and "no class" in at.warning[0].value
    assert [t.label for t in at.text_input] == ["Join code"]
    at = student("<b>x</b>")
    assert at.warning and "<b>" not in texts(at)
    db.steer(code, key, "open", 1)
    with db.engine.begin() as conn:
        conn.execute(update(store_module.classes).values(expires=0.0))
    at = student(code)
    assert at.warning and "ended" in at.warning[0].value
    assert not at.radio
    at = presenter(code, key)
    assert not [b for b in at.button if b.key == "class_next"]


def test_wrong_codes_are_rate_limited_on_the_page(db, started, monkeypatch):
    code, _ = started
    monkeypatch.setattr(store_module, "WRONG_CODES_PER_MINUTE", 2)
    at = student("AAAAAA" if code != "AAAAAA" else "BBBBBB")
    sid = at.query_params["sid"]
    for _ in range(2):
        at.query_params["code"] = "AAAAAA" if code != "AAAAAA" else "BBBBBB"
        at.run()
    at.query_params["code"] = code
    at.query_params["sid"] = sid
    at.run()
    assert at.warning and "wait a minute" in at.warning[0].value
    assert not at.radio


def test_the_projector_shows_code_bars_and_the_computed_answer(db, started):
    code, key = started
    s = student(code)
    db.steer(code, key, "open", 1)
    s.run()
    s.radio[0].set_value(1).run()
    db.steer(code, key, "reveal")
    at = open_page(PAGE, {"view": "projector", "code": code})
    shown = texts(at)
    assert code in shown and f"code={code}" in shown
    assert at.success  # the computed answer, after Reveal
    assert "✓" in shown
    assert not at.button and not at.radio  # the projector changes nothing


def test_the_lesson_starts_a_class(db):
    at = open_page("pages/lesson.py")
    at.button(key="class_start").click().run()
    code, key = at.session_state["class.started"]
    assert db.is_lecturer(code, key)
    shown = texts(at)
    assert f"code={code}&key={key}" in shown and code in shown


def test_the_store_clock_is_the_expiry_clock(tmp_path):
    clock = [0.0]
    db = ClassStore(f"sqlite:///{tmp_path / 'c.db'}", clock=lambda: clock[0])
    code, _ = db.create_class(3)
    clock[0] = store_module.LIFETIME_S + 1
    assert not db.is_live(db.state(code))
