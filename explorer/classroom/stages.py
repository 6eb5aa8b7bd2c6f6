"""The stages one "advance" key walks a class through (pure functions, no database).

Each step of a class goes ::

    idle ─▶ open1 ─▶ closed1 ─▶ open2 ─▶ closed2 ─▶ revealed ─▶ next step, idle

(``open1``: round 1 open, and so on).  With ``rounds == 1`` closed1 is followed by
revealed; a step without a question goes idle ─▶ revealed.  "undo" reverses exactly one
stage (idle of step k ─▶ revealed of step k-1; votes stay stored).  The projector's vote
bars follow the peer-instruction defaults on every transition: hidden while a round is
open unless ``live_counts``, hidden after round 1 unless ``early_round1``, shown after
round 2 and at revealed (when the step has a question); undo restores the bars of the
stage it returns to.  At the last step's revealed stage advance changes nothing, as undo
does at step 0's idle.

A state is a mapping or an object with ``step, n_steps, round, round_open, revealed,
rounds, live_counts, early_round1`` (the store's row or its ``ClassState``);
``has_question`` is a bool for every step or a sequence of per-step truth values.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Every stage, in the order advance walks them.
ORDER = ("idle", "open1", "closed1", "open2", "closed2", "revealed")
#: The columns of the idle stage (a step's start).
IDLE = {"round": 0, "round_open": False, "revealed": False, "bars": False}


def _get(state, name):
    return state[name] if isinstance(state, Mapping) else getattr(state, name)


def _asks(has_question, step):
    return bool(has_question if isinstance(has_question, bool) else has_question[step])


def stage(state):
    """The name of the stage ``state`` is in (one of :data:`ORDER`)."""
    if _get(state, "revealed"):
        return "revealed"
    if not _get(state, "round"):
        return "idle"
    return f"{'open' if _get(state, 'round_open') else 'closed'}{_get(state, 'round')}"


def stages(has_question, rounds):
    """The stages of a step (a bool ``has_question``; ``rounds`` 1 or 2), in order."""
    if not has_question:
        return ("idle", "revealed")
    return ("idle", "open1", "closed1") + (("open2", "closed2") if rounds == 2 else ()) + ("revealed",)


def _columns(name, state, asks, round_=None):
    """The columns of stage ``name`` (``round_``: the round a revealed stage keeps)."""
    if name == "revealed":
        return {"round": round_, "round_open": False, "revealed": True, "bars": asks}
    if name == "idle":
        return dict(IDLE)
    opened, number = name.startswith("open"), int(name[-1])
    bars = _get(state, "live_counts") if opened else number == 2 or _get(state, "early_round1")
    return {"round": number, "round_open": opened, "revealed": False, "bars": bool(bars)}


def advance(state, has_question):
    """The column changes of one advance ({} at the last step's revealed stage)."""
    step, now = _get(state, "step"), stage(state)
    if now == "revealed":
        if step + 1 >= _get(state, "n_steps"):
            return {}
        return {"step": step + 1, "values": {}, **_columns("idle", state, False)}
    asks = _asks(has_question, step)
    mine = stages(asks, _get(state, "rounds"))
    after = next(s for s in ORDER[ORDER.index(now) + 1 :] if s in mine)
    return _columns(after, state, asks, _get(state, "round"))


def undo(state, has_question):
    """The column changes of one undo ({} at step 0's idle stage)."""
    step, now = _get(state, "step"), stage(state)
    if now == "idle":
        if step == 0:
            return {}
        asks = _asks(has_question, step - 1)
        last = _get(state, "rounds") if asks else 0
        return {"step": step - 1, "values": {}, **_columns("revealed", state, asks, last)}
    asks = _asks(has_question, step)
    if now == "revealed":
        return _columns(f"closed{_get(state, 'round')}" if _get(state, "round") else "idle", state, asks)
    mine = stages(asks, _get(state, "rounds"))
    before = next(s for s in reversed(ORDER[: ORDER.index(now)]) if s in mine)
    return _columns(before, state, asks)
