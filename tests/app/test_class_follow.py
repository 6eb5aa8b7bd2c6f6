"""The students' long-polling follower (explorer/ui/class_follow.py): the route answers
at once when the class moved on, on the change while it waits, and after HOLD_S; one
process reads a class's row for all its waiting students together."""

import asyncio
import json
import types

from explorer.ui import class_follow


def _request(code, seen):
    return types.SimpleNamespace(query_params={"code": code, "seen": seen})


def _answer(response):
    return json.loads(response.body)["token"]


def test_the_route_answers_changes_and_times_out(monkeypatch):
    monkeypatch.setattr(class_follow, "HOLD_S", 1.5)
    monkeypatch.setattr(class_follow, "CHECK_S", 0.05)
    monkeypatch.setattr(class_follow, "IDLE_S", 0.2)
    reads = []
    current = {"token": "0-0-0-1-0-0"}

    def read(code):
        reads.append(code)
        return current["token"]

    monkeypatch.setattr(class_follow, "_read_token", read)

    async def scenario():
        loop = asyncio.get_running_loop()
        # seen an older token: answered at once
        assert _answer(await class_follow._wait(_request("ABCDEF", "old"))) == "0-0-0-1-0-0"
        # ten students wait; the lecturer moves on after 0.3 s: all answered with it
        waiting = [
            asyncio.create_task(class_follow._wait(_request("abcdef", "0-0-0-1-0-0"))) for _ in range(10)
        ]
        await asyncio.sleep(0.3)
        reads_while_waiting = len(reads)
        current["token"] = "1-0-0-1-0-0"
        start = loop.time()
        answers = [_answer(r) for r in await asyncio.gather(*waiting)]
        assert answers == ["1-0-0-1-0-0"] * 10
        assert loop.time() - start < 1.0  # on the change, not at the timeout
        # one reader for the ten waiters: about one read per CHECK_S, not ten
        assert reads_while_waiting <= 0.3 / 0.05 + 3
        # nothing changes: answered after HOLD_S with the same token
        start = loop.time()
        assert _answer(await class_follow._wait(_request("ABCDEF", "1-0-0-1-0-0"))) == "1-0-0-1-0-0"
        assert loop.time() - start >= 1.4
        bad = await class_follow._wait(_request("no", "x"))
        assert bad.status_code == 400
        await asyncio.sleep(0.5)  # the watch ends once nobody waits
        assert "ABCDEF" not in class_follow._WATCHES

    asyncio.run(scenario())


def test_token_is_what_a_student_page_is_drawn_from():
    from explorer.classroom.store import ClassState

    state = ClassState("ABCDEF", 9, 2, 1, True, False, False, False, 0.0, 1.0, 7)
    assert class_follow.token(state) == "2-1-1-0-0-0"
    assert class_follow.token(None) == "none"
    votes_in = ClassState("ABCDEF", 9, 2, 1, True, False, False, False, 0.0, 1.0, 8)
    assert class_follow.token(votes_in) == class_follow.token(state)  # the version is not in it
