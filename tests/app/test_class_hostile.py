"""Issue 42's acceptance: a class of 60 with one hostile device keeps its counts honest and
its seats for real students (through the routes, behind nginx: ``X-Real-IP``)."""

import asyncio

from explorer.ui import class_routes
from tests.app import class_asgi
from tests.app.class_asgi import Phone, app

class_db = class_asgi.class_db  # the fixture
HOSTILE = "10.66.0.1"


def _behind_nginx(asgi, address):
    return Phone(asgi, "127.0.0.1", [("x-real-ip", address)])


def test_a_class_of_60_with_one_hostile_device(class_db, monkeypatch):
    monkeypatch.setenv("FLDA_BEHIND_PROXY", "1")
    monkeypatch.setenv("FLDA_LECTURER_TOKEN", "lecturer's own token")
    monkeypatch.setenv("FLDA_CLASS_MAX_SEATS", "66")
    monkeypatch.setenv("FLDA_CLASS_DEVICES_PER_ADDRESS", "5")
    monkeypatch.setattr(class_routes, "HOLD_S", 0.5)

    async def scenario():
        asgi = app()
        hostile = _behind_nginx(asgi, HOSTILE)
        for _ in range(5):  # it cannot start classes (nor exhaust the lecturer's)
            assert (await hostile.post("start", {"token": "guess"})).status == 403
        lecturer = _behind_nginx(asgi, "10.0.0.1")
        links = (await lecturer.post("start", {"token": "lecturer's own token"})).json()
        code = links["code"]
        await lecturer.post("steer", {"code": code, "action": "layer", "value": ""})  # the join slide off
        others = [c for c in "ABCDEFGHJK" if c != code[0]]
        flood = [await hostile.post("join", {"code": others[i % 9] + code[1:]}) for i in range(100)]
        assert {a.json()["status"] for a in flood} <= {"unknown", "rate-limited"}
        real = [_behind_nginx(asgi, f"10.1.{i // 200}.{i % 200 + 1}") for i in range(60)]
        for phone in real[:30]:  # half the room joins during the flood
            assert (await phone.post("join", {"code": code})).json()["status"] == "ok"
        seats = 0
        for _ in range(40):  # one device with cleared cookies, again and again
            hostile.cookies.clear()
            seats += (await hostile.post("join", {"code": code})).status == 200
        for phone in real[30:]:
            assert (await phone.post("join", {"code": code})).json()["status"] == "ok"
        assert seats <= 5
        await lecturer.post("steer", {"code": code, "action": "advance"})
        for i, phone in enumerate(real):
            assert (await phone.post("vote", {"code": code, "choice": i % 3})).json()["status"] == "counted"
        statuses = []
        for choice in (0, 0, 0, 7, -1, "0", None, True, 0.5):  # floods and crafted values
            statuses.append((await hostile.post("vote", {"code": code, "choice": choice})).status)
        forged = _behind_nginx(asgi, HOSTILE)
        forged.cookies[class_routes.DEVICE_COOKIE] = "forged.cookie-value-xyz"
        assert (await forged.post("vote", {"code": code, "choice": 0})).status == 403
        polls = [await hostile.poll(code) for _ in range(class_routes.POLLS_PER_WINDOW + 10)]
        assert polls[-1].status in (403, 429)  # no seat, or too many polls from it
        counts = class_db.counts(code, 0)[1]
        extra = counts.get(0, 0) - 20  # the hostile device's one vote, if its last cookie holds a seat
        assert counts[1] == counts[2] == 20 and extra in (0, 1) and set(counts) <= {0, 1, 2}
        listed = class_db.seats(code, lecturer.cookies[f"flda_lecturer_{code}"])
        assert len(listed) == 60 + seats and sum(s["votes"] for s in listed) == 60 + extra
        for phone in real:  # every real phone still follows
            assert (await phone.poll(code)).json()["state"]["round_open"]

    asyncio.run(scenario())
