"""A class's routes (explorer/ui/class_routes.py): joining, the long poll and its one
watcher per class, votes, the lecturer's cookie and start, who may follow, limits, and
faults answered as JSON; the follow path killed under load and every phone recovering."""

import asyncio
import random

import pytest

from explorer.classroom import codes, store
from explorer.ui import class_routes
from tests.app import class_asgi
from tests.app.class_asgi import Phone, app

class_db = class_asgi.class_db  # the fixture

LOOPBACK = "127.0.0.1"


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(class_routes, "HOLD_S", 1.0)
    monkeypatch.setattr(class_routes, "CHECK_S", 0.05)
    monkeypatch.setattr(class_routes, "IDLE_S", 0.3)
    monkeypatch.setattr(class_routes, "COUNTS_EVERY_S", 0.1)


async def started(asgi):
    lecturer = Phone(asgi, LOOPBACK)
    answer = await lecturer.post("start", {})
    assert answer.status == 200, answer.body
    code = answer.json()["code"]
    assert (await lecturer.post("steer", {"code": code, "action": "advance"})).json()["state"]["layer"] == ""
    return lecturer, answer.json()  # past the class's opening join slide


async def joined(asgi, code, n, prefix="10.0"):
    phones = [Phone(asgi, f"{prefix}.{i // 250}.{i % 250 + 1}") for i in range(n)]
    for phone in phones:
        assert (await phone.post("join", {"code": code})).json()["status"] == "ok"
    return phones


def test_a_phone_follows_votes_and_sees_counts_only_when_shown(class_db, fast):
    async def scenario():
        asgi = app()
        lecturer, links = await started(asgi)
        code = links["code"]
        assert "key=" not in links["presenter"] and links["join"].endswith(f"/join?code={code}")
        (phone,) = await joined(asgi, code, 1)
        first = (await phone.poll(code)).json()
        assert first["state"]["step"] == 0 and first["content"]["choices"] and first["counts"] is None
        held = asyncio.create_task(phone.poll(code, first["token"]))
        await asyncio.sleep(0.2)
        assert not held.done()
        moved = (await lecturer.post("steer", {"code": code, "action": "advance"})).json()
        answer = (await held).json()
        assert (
            moved["state"]["round_open"]
            and answer["state"]["round_open"]
            and answer["token"] != first["token"]
        )
        voted = await phone.post("vote", {"code": code, "choice": 1})
        assert voted.json()["status"] == "counted" and voted.json()["mine"] == 1
        after = (await phone.poll(code, answer["token"])).json()
        assert after["mine"] == 1 and after["counts"] is None  # round open, bars hidden
        screen = Phone(asgi, "10.9.0.1")
        shown = (await screen.poll(code, screen=links["projector"].split("screen=")[1])).json()
        assert shown["counts"] == {"1": {"1": 1}}
        await lecturer.post("steer", {"code": code, "action": "bars", "value": True})
        assert (await phone.poll(code, after["token"])).json()["counts"] == {"1": {"1": 1}}
        for action in ("advance", "advance", "advance", "advance"):
            await lecturer.post("steer", {"code": code, "action": action})
        revealed = (await phone.poll(code)).json()
        while not revealed["state"]["revealed"]:  # an answer may be one refresh behind
            revealed = (await phone.poll(code, revealed["token"])).json()
        assert revealed["state"]["revealed"] and revealed["content"]["explore"].startswith("lesson?step=")

    asyncio.run(scenario())


def test_following_needs_a_seat_the_lecturer_or_the_screen(class_db, fast):
    """Issue 42: /_flda/class-wait answered anyone and started a watcher for any code."""

    async def scenario():
        asgi = app()
        lecturer, links = await started(asgi)
        code = links["code"]
        stranger = Phone(asgi, "10.5.0.1")
        for query in (code, "ABCDEF" if code != "ABCDEF" else "ABCDEG"):
            assert (await stranger.poll(query)).status == 403
        assert (await stranger.poll(code, screen="forged-screen-token-000")).status == 403
        stranger.cookies[class_routes.DEVICE_COOKIE] = "made.up"
        assert (await stranger.poll(code)).status == 403
        assert (await stranger.poll("<script>")).status == 400
        assert not class_routes._WATCHES  # no watcher for anyone who may not follow
        assert (await lecturer.poll(code)).status == 200  # her cookie
        assert code in class_routes._WATCHES

    asyncio.run(scenario())


def test_polls_are_rate_limited_per_client_and_watchers_capped(class_db, fast, monkeypatch):
    async def scenario():
        asgi = app()
        _, links = await started(asgi)
        code = links["code"]
        (phone,) = await joined(asgi, code, 1)
        statuses = [(await phone.poll(code)).status for _ in range(class_routes.POLLS_PER_WINDOW + 5)]
        assert statuses.count(429) >= 5 and statuses[0] == 200
        other = (await joined(asgi, code, 1, prefix="10.7"))[0]
        assert (await other.poll(code)).status == 200  # another device is not limited
        monkeypatch.setenv("FLDA_CLASS_MAX_WAITERS", "3")
        more = await joined(asgi, code, 4, prefix="10.8")
        tokens = [(await p.poll(code)).json()["token"] for p in more]
        held = [asyncio.create_task(p.poll(code, t)) for p, t in zip(more, tokens, strict=True)]
        answers = await asyncio.gather(*held)
        assert sorted(a.status for a in answers) == [200, 200, 200, 503]

    asyncio.run(scenario())


def test_one_content_per_class_state_for_thirty_students(class_db, fast, monkeypatch):
    """Issue 41: a state change ran a page per student; now one shared content per state."""
    built = []
    real = class_routes.student_content
    monkeypatch.setattr(class_routes, "student_content", lambda s: built.append(s.page_key()) or real(s))

    async def scenario():
        asgi = app()
        lecturer, links = await started(asgi)
        code = links["code"]
        phones = await joined(asgi, code, 30)
        tokens = [(await p.poll(code)).json()["token"] for p in phones]
        built.clear()
        held = [asyncio.create_task(p.poll(code, t)) for p, t in zip(phones, tokens, strict=True)]
        await asyncio.sleep(0.2)
        await lecturer.post("steer", {"code": code, "action": "goto", "value": 3})
        answers = [a.json() for a in await asyncio.gather(*held)]
        assert {a["state"]["step"] for a in answers} == {3} and len(built) == 1

    asyncio.run(scenario())


async def _follower(phone, code, final, stats, stop):
    """What class_client.js does: one poll at a time, a watchdog, backoff on failure."""
    token = ""
    while not stop.is_set():
        try:
            answer = await asyncio.wait_for(phone.poll(code, token), class_routes.HOLD_S + 1)
            if answer.status != 200:
                raise RuntimeError(answer.status)
            body = answer.json()
            token = body["token"]
            if body["state"]["step"] == final:
                stats["done"] += 1
                return
        except (TimeoutError, RuntimeError):
            stats["failures"] += 1
            await asyncio.sleep(random.uniform(0.05, 0.2))


def test_killing_the_watcher_under_load_every_phone_recovers(class_db, fast, monkeypatch):
    """Issue 40: under load both phones stopped following for minutes."""

    async def scenario():
        asgi = app()
        lecturer, links = await started(asgi)
        code = links["code"]
        phones = await joined(asgi, code, 40)
        stats, stop = {"done": 0, "failures": 0}, asyncio.Event()
        followers = [asyncio.create_task(_follower(p, code, 2, stats, stop)) for p in phones]
        while code not in class_routes._WATCHES or class_routes._WATCHES[code].waiters < 30:
            await asyncio.sleep(0.05)
        class_routes._WATCHES[code].task.cancel()  # the follow path dies under 30+ held polls
        await lecturer.post("steer", {"code": code, "action": "goto", "value": 1})
        real = store.ClassStore.state
        monkeypatch.setattr(store.ClassStore, "state", lambda *a: (_ for _ in ()).throw(store.StoreBusy("x")))
        await asyncio.sleep(0.5)  # the store fails for a while too
        monkeypatch.setattr(store.ClassStore, "state", real)
        await lecturer.post("steer", {"code": code, "action": "goto", "value": 2})
        try:
            await asyncio.wait_for(asyncio.gather(*followers), 30)
        finally:
            stop.set()
        assert stats["done"] == 40

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ({"code": "X", "choice": "1"}, ()),
        ({"choice": 1.5}, ()),
        ([1, 2], ()),
        (b"not json", ()),
        (b"{" * 5000, ()),
        (b'{"code": "ABCDEF", "choice": 1}', (("content-type", "application/x-www-form-urlencoded"),)),
        ({"code": "ABCDEF", "choice": 1}, (("origin", "http://evil.example"),)),
        ({"code": "ABCDEF", "choice": 1}, (("sec-fetch-site", "cross-site"),)),
        ({"code": {"$ne": 1}, "choice": [1]}, ()),
    ],
)
def test_crafted_requests_get_a_status_never_a_traceback(class_db, body, headers):
    async def scenario():
        phone = Phone(app(), "10.0.0.3")
        for name in ("vote", "join", "steer", "start"):
            answer = await phone.post(name, body, headers=headers)
            assert 400 <= answer.status < 500 and {"status", "message"} <= set(answer.json())
            assert b"Traceback" not in answer.body and b"sqlite" not in answer.body.lower()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "fault",
    [store.StoreBusy("The class store is busy: try again in a moment."), RuntimeError("/secret/path.py")],
)
def test_store_faults_answer_json(class_db, monkeypatch, fault):
    """Issue 42: a locked or broken store showed the exception, SQL and server paths."""

    def broken(*args, **kwargs):
        raise fault

    async def scenario():
        phone = Phone(app(), "10.0.0.4")
        monkeypatch.setattr(store.ClassStore, "join", broken)
        answer = await phone.post("join", {"code": "ABCDEF"})
        assert answer.status in (500, 503) and answer.json()["message"]
        assert b"/secret" not in answer.body and b"Traceback" not in answer.body

    asyncio.run(scenario())


def test_only_a_lecturer_starts_a_class(class_db, monkeypatch):
    """Issue 42: anyone could press "Start a class" until the server refused everyone."""

    async def scenario():
        asgi = app()
        assert (await Phone(asgi, "10.0.0.5").post("start", {})).status == 403
        monkeypatch.setenv("FLDA_BEHIND_PROXY", "1")
        proxied = Phone(asgi, LOOPBACK, [("x-real-ip", "10.0.0.6")])
        assert (await proxied.post("start", {})).status == 403  # nginx on loopback, client not
        monkeypatch.setenv("FLDA_LECTURER_TOKEN", "correct horse battery")
        assert (await Phone(asgi, LOOPBACK).post("start", {})).status == 403  # the token is needed
        assert (await proxied.post("start", {"token": "wrong"})).status == 403
        for _ in range(3):
            assert (await proxied.post("start", {"token": "correct horse battery"})).status == 200
        refused = await proxied.post("start", {"token": "correct horse battery"})
        assert refused.status == 403 and "end one" in refused.json()["message"]
        mine = (await proxied.request("GET", "/_flda/class/mine")).json()["classes"]
        assert len(mine) == 3 and all(c["presenter"].endswith("view=presenter") for c in mine)
        assert (await Phone(asgi, "10.0.0.7").request("GET", "/_flda/class/mine")).json()["classes"] == []

    asyncio.run(scenario())


def test_the_client_address_trusts_nginx_only_behind_it(monkeypatch):
    import types

    def request(peer, **headers):
        return types.SimpleNamespace(client=types.SimpleNamespace(host=peer), headers=headers)

    forwarded = {"x-forwarded-for": "6.6.6.6, 10.0.0.8"}
    assert class_routes.client_address(request(LOOPBACK, **forwarded)) == LOOPBACK
    monkeypatch.setenv("FLDA_BEHIND_PROXY", "1")
    assert class_routes.client_address(request(LOOPBACK, **forwarded)) == "10.0.0.8"  # nginx's, not 6.6.6.6
    assert class_routes.client_address(request(LOOPBACK, **{"x-real-ip": "10.0.0.9"})) == "10.0.0.9"
    assert class_routes.client_address(request("10.0.0.1", **{"x-real-ip": "127.0.0.1"})) == "10.0.0.1"


def test_the_lecturer_link_sets_her_cookie_and_drops_the_key(class_db):
    async def scenario():
        asgi = app()
        _, links = await started(asgi)
        code, link = links["code"], links["lecturer_link"]
        other = Phone(asgi, "10.0.0.9")
        answer = await other.request("GET", link)
        assert answer.status == 303 and "key" not in answer.headers["location"]
        assert answer.headers["location"].endswith(f"/lesson?class={code}&view=presenter")
        cookie = answer.headers["set-cookie"]
        assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
        assert (await other.post("steer", {"code": code, "action": "advance"})).status == 200
        forged = await Phone(asgi, "10.0.0.10").request("GET", link[:-3] + "abc")
        assert forged.status == 403

    asyncio.run(scenario())


def test_a_shared_link_joins_as_a_new_device_and_rotating_cookies_is_bounded(class_db, monkeypatch):
    """Issue 42: a shared link made ten classmates one voter; rotating ids voted 30 times."""
    monkeypatch.setenv("FLDA_CLASS_DEVICES_PER_ADDRESS", "5")

    async def scenario():
        asgi = app()
        lecturer, links = await started(asgi)
        code = links["code"]
        await lecturer.post("steer", {"code": code, "action": "advance"})
        friends = [Phone(asgi, f"10.1.0.{i}") for i in range(10)]  # the link carries only the code
        for i, friend in enumerate(friends):
            assert (await friend.request("GET", links["join"])).status == 200
            assert (await friend.post("join", {"code": code})).json()["status"] == "ok"
            assert (await friend.post("vote", {"code": code, "choice": i % 3})).json()["status"] == "counted"
        rotating = Phone(asgi, "10.2.0.1")
        counted = 0
        for _ in range(30):
            rotating.cookies.clear()
            join = await rotating.post("join", {"code": code})
            if join.status == 200:
                counted += (await rotating.post("vote", {"code": code, "choice": 0})).status == 200
        assert counted == 5  # as many as new devices from one address per minute
        counts = class_db.counts(code, 0)[1]
        assert (
            sum(counts.values()) == 15
            and len(class_db.seats(code, lecturer.cookies[f"flda_lecturer_{code}"])) == 15
        )

    asyncio.run(scenario())


def test_the_students_page_is_static_and_safe(class_db):
    async def scenario():
        phone = Phone(app(), "10.0.0.11")
        page = await phone.request("GET", "/join?code=<script>alert(1)</script>")
        assert page.status == 200 and b"<script>alert" not in page.body
        assert "default-src 'self'" in page.headers["content-security-policy"]
        for name in class_routes.PAGE_FILES:
            asset = await phone.request("GET", f"/_flda/{name}")
            assert asset.status == 200 and asset.headers["x-content-type-options"] == "nosniff"
        assert b"innerHTML" not in (await phone.request("GET", "/_flda/join.js")).body

    asyncio.run(scenario())


def test_lecturer_key_reads_the_cookie(monkeypatch):
    import streamlit as st

    code = codes.new_code()
    cookies = {f"flda_lecturer_{code}": "k" * 32}
    monkeypatch.setattr(type(st.context), "cookies", property(lambda self: cookies))
    assert class_routes.lecturer_key(code.lower()) == "k" * 32
    assert class_routes.lecturer_key("ABCDEZ") == ""


def test_a_room_behind_one_address_joins_and_follows(class_db, monkeypatch):
    """Issue 42: a limit keyed on the address a room shares locked the room out."""
    monkeypatch.setenv("FLDA_CLASS_DEVICES_PER_ADDRESS", "200")

    async def scenario():
        asgi = app()
        _, links = await started(asgi)
        room = [Phone(asgi, "10.3.0.1") for _ in range(120)]
        for phone in room:
            assert (await phone.post("join", {"code": links["code"]})).status == 200
        assert all([(await p.poll(links["code"])).status == 200 for p in room])

    asyncio.run(scenario())
