"""The lecturer's console (issue 40): the results' export and the plan as tables, the join
link from an address students can reach."""

import pandas as pd
import pytest

from explorer.teaching.lesson import LESSON_STEPS, lecture_plan
from explorer.ui.class_routes import PUBLIC_URL_ENV, public_origin
from explorer.ui.presenter import plan_frame, results_frame


def _rows():
    # step 4 (index 3: three choices, "FLDA" right): round 1 then round 2
    return [
        {
            "step": 3,
            "round": 1,
            "correct": [1],
            "counts": {0: 6, 1: 3, 2: 1},
            "opened": 100.0,
            "closed": 160.0,
        },
        {
            "step": 3,
            "round": 2,
            "correct": [1],
            "counts": {0: 2, 1: 7, 2: 1},
            "opened": 300.0,
            "closed": 350.0,
        },
        {"step": 0, "round": 1, "correct": [], "counts": {}, "opened": 10.0, "closed": None},
    ]


def test_the_export_holds_correct_choices_integer_counts_and_the_normalized_change():
    frame = results_frame(_rows())
    assert frame["votes"].dtype == "int64"
    step4 = frame[frame["step"] == 4]
    assert len(step4) == 2 * len(LESSON_STEPS[3].choices)
    r1, r2 = step4[step4["round"] == 1], step4[step4["round"] == 2]
    assert list(r1["votes"]) == [6, 3, 1] and list(r2["votes"]) == [2, 7, 1]
    assert list(r1["correct"]) == [False, True, False]
    assert r1["round % correct"].iloc[0] == pytest.approx(30.0)
    assert r2["round % correct"].iloc[0] == pytest.approx(70.0)
    # Hake's normalized change (p2 - p1) / (1 - p1) on round 2's rows only
    assert r2["normalized change"].iloc[0] == pytest.approx((0.7 - 0.3) / (1 - 0.3), abs=1e-3)
    assert r1["normalized change"].isna().all()
    assert r1["share of round"].sum() == pytest.approx(1.0)
    assert r1["opened"].iloc[0].endswith("UTC") and r2["closed"].iloc[0].startswith("1970-01-01 00:05:50")
    # a round nobody voted in: zero votes, no share correct, no time closed
    step1 = frame[frame["step"] == 1]
    assert (step1["votes"] == 0).all() and step1["round % correct"].isna().all()
    assert (step1["closed"] == "").all()


def test_an_empty_class_exports_an_empty_table():
    assert isinstance(results_frame([]), pd.DataFrame) and results_frame([]).empty


def test_the_plan_marks_the_current_step_and_the_optional_ones():
    frame = plan_frame(2, current=4)
    assert len(frame) == len(LESSON_STEPS) and list(frame[""]).index("▶") == 4
    optional = [i for i, start, _ in lecture_plan(2) if start is None]
    assert all(frame["starts at"].iloc[i] == "if time" for i in optional)


@pytest.mark.parametrize(
    "url, env, expected, warns",
    [
        ("http://192.168.1.20:8501/lesson", {}, "http://192.168.1.20:8501", False),
        ("https://class.example/lesson", {}, "https://class.example", False),
        (
            "http://localhost:8501/lesson",
            {PUBLIC_URL_ENV: "https://flda.example/"},
            "https://flda.example",
            False,
        ),
        ("http://127.0.0.1:8501/lesson", {PUBLIC_URL_ENV: "http://10.0.0.5"}, "http://10.0.0.5", False),
    ],
)
def test_the_join_link_uses_the_public_address(url, env, expected, warns):
    origin, warning = public_origin(url, env)
    assert origin == expected and (warning is not None) == warns


@pytest.mark.parametrize(
    "url", ["http://localhost:8501/lesson", "http://127.0.0.1:8501/x", "http://[::1]:8501/"]
)
def test_a_loopback_address_is_never_the_join_link(url, monkeypatch):
    from explorer.ui import class_routes

    monkeypatch.setattr(class_routes, "lan_address", lambda: "192.168.7.9")
    origin, warning = public_origin(url, {})
    assert origin == "http://192.168.7.9:8501" and "192.168.7.9" in warning
    monkeypatch.setattr(class_routes, "lan_address", lambda: None)
    origin, warning = public_origin(url, {})
    assert PUBLIC_URL_ENV in warning  # students could not reach it: the presenter is told the fix


def _class(tmp_path, monkeypatch):
    """A class in a store of its own: ``(store, code, key)``, past its opening join slide."""
    from explorer.classroom import store as class_store

    monkeypatch.setenv("FLDA_CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.db'}")
    db = class_store.default_store()
    code, key = db.create_class([len(s.choices) for s in LESSON_STEPS], "lecturer", layer="join")
    return db, code, key


def test_the_projector_draws_the_lessons_slide_of_the_class_with_the_lecturers_values(tmp_path, monkeypatch):
    from apptest_support import open_page

    db, code, key = _class(tmp_path, monkeypatch)
    for action, value in (("advance", None), ("goto", 2), ("values", {"syn.n_target": 10_000})):
        db.steer(code, key, action, value)
    at = open_page("pages/lesson.py", {"class": code, "view": "projector", "present": "1"})
    assert at.header[0].value == LESSON_STEPS[2].title
    chosen = {r.label: r.value for r in at.radio}
    assert chosen["target samples"] == 10_000  # the lecturer's value, not the step's first
    assert all(r.disabled for r in at.radio)  # only the lecturer changes them (no key here)
    assert not [b for b in at.button if not b.disabled]  # a projector without the key steers nothing


def test_a_presenter_link_without_the_lecturers_key_steers_nothing(tmp_path, monkeypatch):
    from apptest_support import open_page

    db, code, _ = _class(tmp_path, monkeypatch)
    at = open_page("pages/lesson.py", {"class": code, "view": "presenter", "key": "forged"})
    assert at.error and "lecturer's key" in at.error[0].value
    assert db.state(code).version == 0


def test_the_presenter_steers_the_class_and_keeps_the_results(tmp_path, monkeypatch):
    from apptest_support import open_page

    from explorer.ui import class_routes

    db, code, key = _class(tmp_path, monkeypatch)
    monkeypatch.setattr(class_routes, "lecturer_key", lambda c: key if c == code else "")
    at = open_page("pages/lesson.py", {"class": code, "view": "presenter"})
    assert db.state(code).correct  # the computed answer is the class's, for the export
    at.button(key="lesson_next").click().run()  # the join slide goes
    at.button(key="lesson_next").click().run()  # round 1 opens
    state = db.state(code)
    assert (state.layer, state.round, state.round_open) == ("", 1, True)
    at.button(key="lesson_back").click().run()
    assert db.state(code).round == 0
    at.button(key="class_end").click().run()
    at.button(key="class_end_yes").click().run()
    assert not db.state(code).live and not at.exception
    assert any("ended" in i.value for i in at.info)


def test_a_rehearsal_is_the_presenter_without_students():
    from apptest_support import open_page

    at = open_page("pages/lesson.py", {"view": "presenter"})
    assert any("Rehearsal" in m.value for m in at.markdown)
    at.button(key="lesson_next").click().run()  # reveals, as a lesson does
    assert not at.exception and any("✓" in o for r in at.radio for o in r.options)
