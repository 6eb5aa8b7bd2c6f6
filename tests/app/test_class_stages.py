"""The stage machine a clicker drives (explorer/classroom/stages.py): every stage of every
step, both round settings, steps with and without a question, every bars default; advance
then undo (and undo then advance) returns to the same state."""

import itertools

import pytest

from explorer.classroom import stages

START = {"step": 0, "round": 0, "round_open": False, "revealed": False, "bars": False, "values": {}}


def walk(questions, rounds, live_counts, early_round1):
    """Every state advance reaches from step 0's idle stage, in order."""
    state = {**START, "n_steps": len(questions), "rounds": rounds}
    state |= {"live_counts": live_counts, "early_round1": early_round1, "values": {"syn.theta": "0.8"}}
    seen = [state]
    while change := stages.advance(state, questions):
        state = {**state, **change}
        seen.append(state)
    return seen


SETTINGS = list(
    itertools.product([(True, False, True), (False, True), (True,)], (1, 2), (False, True), (False, True))
)


@pytest.mark.parametrize(("questions", "rounds", "live_counts", "early_round1"), SETTINGS)
def test_advance_walks_every_stage_of_every_step(questions, rounds, live_counts, early_round1):
    seen = walk(list(questions), rounds, live_counts, early_round1)
    for step, asks in enumerate(questions):
        names = [stages.stage(s) for s in seen if s["step"] == step]
        assert tuple(names) == stages.stages(asks, rounds)
        bars = {stages.stage(s): s["bars"] for s in seen if s["step"] == step}
        expected = {"idle": False, "open1": live_counts, "closed1": early_round1, "open2": live_counts}
        expected |= {"closed2": True, "revealed": asks}
        assert bars == {name: expected[name] for name in names}
    assert len(seen) == sum(len(stages.stages(a, rounds)) for a in questions)
    assert stages.advance(seen[-1], list(questions)) == {}  # the last step's revealed stage


@pytest.mark.parametrize(("questions", "rounds", "live_counts", "early_round1"), SETTINGS)
def test_undo_reverses_exactly_one_stage(questions, rounds, live_counts, early_round1):
    seen = walk(list(questions), rounds, live_counts, early_round1)
    for before, after in itertools.pairwise(seen):
        back = {**after, **stages.undo(after, list(questions))}
        moved = after["step"] != before["step"]
        assert back == ({**before, "values": {}} if moved else before)
        assert {**back, **stages.advance(back, list(questions))} == {**after, "values": after["values"]}
    assert stages.undo(seen[0], list(questions)) == {}  # step 0's idle stage


def test_a_step_changes_clear_the_lecturer_values():
    state = walk([True, True], 2, False, False)[5]
    assert stages.stage(state) == "revealed"
    change = stages.advance(state, True)
    assert change["values"] == {} and change["step"] == 1 and not change["bars"]


def test_changing_rounds_mid_step_keeps_walking():
    state = {**START, "n_steps": 2, "rounds": 2, "live_counts": False, "early_round1": False}
    state |= {"round": 2, "round_open": True}
    state["rounds"] = 1  # round 2 is open, then the lecturer switches to one round
    assert stages.stage({**state, **stages.advance(state, True)}) == "revealed"
    revealed_after_one = {**state, "round": 1, "round_open": False, "revealed": True}
    assert stages.stage({**revealed_after_one, **stages.undo(revealed_after_one, True)}) == "closed1"


def test_stage_reads_a_class_state_object_too():
    from explorer.classroom.store import ClassState

    fields = dict(code="ABCDEF", n_steps=3, step=1, round=2, round_open=True, revealed=False, ended=False)
    fields |= dict(rounds=2, live_counts=False, early_round1=False, bars=False, values={}, correct=())
    fields |= dict(n_choices=3, step_started=0.0, started=0.0, expires=1.0, version=4, tally=0, live=True)
    state = ClassState(**fields)
    assert stages.stage(state) == "open2"
    assert stages.advance(state, [True] * 3) == {
        "round": 2,
        "round_open": False,
        "revealed": False,
        "bars": True,
    }
