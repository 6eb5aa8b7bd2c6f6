"""A class's own HTTP routes: the students' path runs no Streamlit script (issues 41, 42).

Served by ``app.py``'s ``st.App`` (:func:`routes`, through
:func:`explorer.ui.serving.routes`), at the root and under ``server.baseUrlPath``:

* ``GET /join[?code=C]`` — the students' page (:file:`assets/join.html`, ``join.js``,
  ``join.css``), a static document that follows the class with the shared client
  :file:`assets/class_client.js` (its API is at the top of that file).
* ``POST /_flda/class/join {code}`` — takes a seat; the browser's device cookie
  (HttpOnly, signed, :data:`DEVICE_COOKIE`) is minted here when it has none.
* ``GET /_flda/class/state?code=C&seen=T[&screen=S]`` — a long poll held at most
  :data:`HOLD_S`, answered as soon as the viewer's token differs from ``seen``; only for a
  device with a seat, the lecturer (her cookie) or a screen (the projector's token).
  Body ``{token, state, content, mine, counts}``: ``content`` (:func:`student_content`)
  is built once per class state and process and shared by every viewer; ``counts`` go to
  screens and the lecturer, to students only while the projector shows the bars.
* ``POST /_flda/class/vote {code, choice}`` and, for the lecturer's keys,
  ``POST /_flda/class/steer {code, action, value}`` (her cookie).
* ``GET /_flda/class/lecturer?code=C&key=K`` — sets the lecturer's cookie for C and
  redirects to ``/lesson?class=C&view=presenter`` (the URL never keeps the key).
* ``POST /_flda/class/start {token}`` — a lecturer starts a class: with
  ``FLDA_LECTURER_TOKEN`` set, the sender must give it; without, only a browser on the
  server's own loopback may.  ``GET /_flda/class/mine`` lists the sender's classes.

One watcher task per class per process reads the class's row every :data:`CHECK_S` for
all its waiters (a change made in this process wakes them at once, through
:func:`explorer.classroom.store.on_change`).  Per client (device cookie, else address) at
most :data:`POLLS_PER_WINDOW` requests per :data:`WINDOW_S` and :data:`WAITS_PER_CLIENT`
held polls; per process at most ``FLDA_CLASS_MAX_WAITERS`` (3000) held polls (the client's
address: :func:`client_address`).  Every fault answers JSON with a ``status`` and a
``message`` for people, never a traceback.  Students join at :func:`public_origin`, never
the lecturer's loopback.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import hmac
import ipaddress
import json
import logging
import os
import socket
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import streamlit as st

from explorer.classroom import codes
from explorer.classroom import store as class_store
from explorer.ui import chart

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PAGE_FILES = {"join.js": "text/javascript", "class_client.js": "text/javascript", "join.css": "text/css"}
DEVICE_COOKIE = "flda_device"
PUBLIC_URL_ENV = "FLDA_PUBLIC_URL"
HOLD_S, CHECK_S, IDLE_S = 20.0, 0.2, 10.0  # poll hold, row reads, a watch without waiters ends
DISCONNECT_CHECK_S = 5.0  # how often a held poll looks whether its client left
COUNTS_EVERY_S, TOUCH_EVERY_S, STORE_TIMEOUT_S = 1.0, 30.0, 5.0
WINDOW_S, POLLS_PER_WINDOW, WAITS_PER_CLIENT, MAX_WATCHES, ROOM = 10.0, 40, 4, 400, 25
COOKIE_AGE_S = 2 * 24 * 3600
NOTES = {  # what a join or a vote that did not count tells the student
    "unknown": "There is no class with this code: check the code on the projector and type it again.",
    "ended": "This class has ended. Ask your lecturer for the new code.",
    "full": "This class is full. Ask your lecturer.",
    "rate-limited": "Too many wrong codes from this device: wait a minute, then type the code shown.",
    "bad-device": "This browser's class cookie is not valid: reload the page.",
    "closed": "Voting is closed for this round.",
    "not-joined": "Join the class first (the code is on the projector).",
    "bad-choice": "That is not one of the choices.",
}
_log = logging.getLogger("flda.classroom")
_WATCHES, _HITS, _WAITS, _AUTH = {}, {}, collections.Counter(), {}
#: The HTTP status of each answer of a join or a vote (400 for the others).
HTTP_STATUS = {"ok": 200, "counted": 200, "changed": 200, "not-joined": 403, "unknown": 404, "full": 409}
HTTP_STATUS |= {"closed": 409, "ended": 410, "rate-limited": 429}


def lecturer_cookie(code):
    """The name of the cookie holding the lecturer's key of class ``code``."""
    return f"flda_lecturer_{code}"


def lecturer_key(code):
    """The lecturer's key of class ``code`` this browser holds (a Streamlit page's run:
    ``st.context.cookies``), or ``""``."""
    return st.context.cookies.get(lecturer_cookie(codes.normalize_code(code)), "")


def base_path():
    """``server.baseUrlPath`` as a path prefix ("" at the root)."""
    return chart.asset_url("").removesuffix("/_flda/")


def client_address(request):
    """The client's address: the peer, or nginx's when the peer is loopback and
    ``FLDA_BEHIND_PROXY=1`` (``X-Real-IP``, else the last ``X-Forwarded-For``)."""
    peer = request.client.host if request.client else ""
    if os.environ.get("FLDA_BEHIND_PROXY") == "1" and is_loopback(peer):
        forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
        return (request.headers.get("x-real-ip", "").strip() or forwarded or peer)[:64]
    return peer


def is_loopback(host):
    """Whether ``host`` (an address or a name) is this machine's loopback."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    # a dual-stack socket shows IPv4 peers as ::ffff:a.b.c.d (not loopback before Python 3.13)
    return ip.is_loopback or bool(getattr(ip, "ipv4_mapped", None) and ip.ipv4_mapped.is_loopback)


def lan_address():
    """This machine's address on its local network, or None (only loopback)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 9))  # UDP: chooses a route, sends nothing
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback(address) else address


def public_origin(url=None, env=None):
    """``(origin, warning)``: ``scheme://host[:port]`` students can open (``FLDA_PUBLIC_URL``,
    else the browser's address, else for a loopback one this machine's network address),
    and a sentence for the presenter when they may not reach it (None otherwise)."""
    configured = (os.environ if env is None else env).get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    if configured:
        return configured, None
    parts = urllib.parse.urlsplit(url if url is not None else (st.context.url or ""))
    scheme = parts.scheme if parts.scheme in ("http", "https") else "http"
    host, port = parts.hostname or "", f":{parts.port}" if parts.port else ""
    if host and not is_loopback(host):
        return f"{scheme}://{parts.netloc}", None
    lan = lan_address()
    if lan is None:
        return f"{scheme}://{parts.netloc or 'localhost'}", (
            f"You opened the app as {host or 'localhost'} and this machine has no address on a "
            f"network: students cannot reach the join link. Set {PUBLIC_URL_ENV} to the address "
            "students can open and restart the server."
        )
    return f"{scheme}://{lan}{port}", (
        f"You opened the app as {host or 'localhost'}; the join link uses this machine's network "
        f"address {lan}{port}. If students cannot open it (another network, a firewall), set "
        f"{PUBLIC_URL_ENV} to an address they can reach."
    )


def public_join_url(code):
    """The students' join link of class ``code``, from :func:`public_origin`."""
    return f"{public_origin()[0]}/join?code={code}"


#: The store's writes, run one at a time per process in their own thread: a burst of votes
#: waits in one queue instead of filling every worker thread with writers that wait on the
#: database's lock, so the reads that tell the screens about each vote never queue behind them.
WRITES = frozenset({"create_class", "join", "new_device", "steer", "touch", "vote"})
_POOLS = {True: ThreadPoolExecutor(1, "class-write"), False: ThreadPoolExecutor(4, "class-read")}


async def _call(method, *args):
    """The store's ``method`` in a worker thread, waited for at most :data:`STORE_TIMEOUT_S`."""
    try:
        run = functools.partial(getattr(class_store.default_store(), method), *args)
        call = asyncio.get_running_loop().run_in_executor(_POOLS[method in WRITES], run)
        return await asyncio.wait_for(call, STORE_TIMEOUT_S)
    except TimeoutError:
        raise class_store.StoreBusy("The class store did not answer in time: try again.") from None


def _json(data, status=200, cookies=()):
    from starlette.responses import JSONResponse

    response = JSONResponse(data, status, headers={"Cache-Control": "no-store"})
    for name, value in cookies:
        _set_cookie(response, name, value)
    return response


def _set_cookie(response, name, value):
    response.set_cookie(name, value, COOKIE_AGE_S, path=base_path() or "/", httponly=True, samesite="lax")


class _TooMany(Exception):
    """A request answered 429 with a ``Retry-After`` (by :func:`_guarded`)."""

    def __init__(self, retry_after=2, status="rate-limited", message="Too many requests: wait a moment."):
        super().__init__(message)
        self.retry_after, self.status = retry_after, status


def _guarded(handler):
    """Answer every fault as JSON ``{status, message}``: never a traceback."""

    @functools.wraps(handler)
    async def run(request):
        try:
            return await handler(request)
        except _TooMany as error:
            response = _json({"status": error.status, "message": str(error)}, 429)
            response.headers["Retry-After"] = str(error.retry_after)
            return response
        except class_store.ClassStoreError as error:
            busy = isinstance(error, class_store.StoreBusy)
            return _json({"status": "busy" if busy else "unavailable", "message": str(error)}, 503)
        except class_store.NotAllowed as error:
            return _json({"status": "not-allowed", "message": str(error)}, 403)
        except ValueError:  # a request no page of ours sends, or a value out of range
            return _json({"status": "bad-request", "message": "This request is not one the page sends."}, 400)
        except Exception:
            _log.exception("class route %s", request.url.path)
            return _json({"status": "error", "message": "Something went wrong: try again."}, 500)

    return run


async def _body(request, limited=True):
    """The JSON object a page of this site sent (no other site's form: ``ValueError``),
    counted against the sender's rate limit unless not ``limited``."""
    origin = urllib.parse.urlsplit(request.headers.get("origin", "")).netloc
    if request.headers.get("sec-fetch-site") == "cross-site" or (
        origin and origin != request.headers.get("host")
    ):
        raise ValueError("cross-site request")
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise ValueError("not JSON")
    raw = await request.body()
    body = json.loads(raw[:4097]) if len(raw) <= 4096 else None
    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    if limited and _limited(_client(request)):
        raise _TooMany()
    return body


def _client(request):
    """Who the rate limits count: the (well-formed) device cookie, else the address (a
    whole room may share one: it gets :data:`ROOM` times a device's share)."""
    device = request.cookies.get(DEVICE_COOKIE, "")
    return f"device:{device[:80]}" if "." in device else f"address:{client_address(request)}"


def _limited(client, share=1):
    """Count one request of ``client``; True when it sent more than ``share`` times
    :data:`POLLS_PER_WINDOW` (:data:`ROOM` times for an address) within the window."""
    now = time.monotonic()
    if len(_HITS) > 20_000:
        _HITS.clear()
    hits = _HITS.setdefault(client, collections.deque())
    while hits and hits[0] < now - WINDOW_S:
        hits.popleft()
    hits.append(now)
    return len(hits) > POLLS_PER_WINDOW * (share if client.startswith("device:") else ROOM)


async def _device(request):
    """The request's signed device cookie, or a new one (second value: whether new)."""
    device = request.cookies.get(DEVICE_COOKIE, "")
    if codes.device_ok(device, await _call("secret")):
        return device, False
    device = await _call("new_device", client_address(request))
    if device is None:
        raise _TooMany(10, "busy", "Many devices are joining from your network: you join in a few seconds.")
    return device, True


def _answer_status(status, cookies=(), **more):
    """A join's or a vote's answer: its status, what it tells the student, ``more``."""
    answer = {"status": status, "message": NOTES.get(status, ""), **more}
    return _json(answer, HTTP_STATUS.get(status, 400), cookies)


# ------------------------------------------------------------------ join, vote, steer
@_guarded
async def _join(request):
    body = await _body(request)
    device, new = await _device(request)
    status = await _call("join", body.get("code"), device, client_address(request))
    code = codes.normalize_code(body.get("code")) if status == "ok" else ""
    return _answer_status(status, [(DEVICE_COOKIE, device)] if new else (), code=code)


@_guarded
async def _vote(request):
    body = await _body(request)
    code, choice = codes.normalize_code(body.get("code")), body.get("choice")
    status = await _call("vote", code, request.cookies.get(DEVICE_COOKIE, ""), choice)
    return _answer_status(status, mine=choice if status in ("counted", "changed") else None)


@_guarded
async def _steer(request):
    body = await _body(request, limited=False)
    code = codes.normalize_code(body.get("code"))
    key = request.cookies.get(lecturer_cookie(code), "")
    state = await _call("steer", code, key, body.get("action"), body.get("value"))
    return _json({"status": "ok", "state": dataclasses.asdict(state)})


@_guarded
async def _lecturer(request):
    from starlette.responses import PlainTextResponse, RedirectResponse

    code, key = codes.normalize_code(request.query_params.get("code")), request.query_params.get("key", "")
    if not await _call("is_lecturer", code, key):
        return PlainTextResponse("This link does not hold the lecturer's key of a class on this server.", 403)
    response = RedirectResponse(f"{base_path()}/lesson?class={code}&view=presenter", 303)
    _set_cookie(response, lecturer_cookie(code), key)
    response.headers["Cache-Control"] = "no-store"
    return response


@_guarded
async def _start(request):
    from explorer.teaching.lesson import LESSON_STEPS

    body, wanted = await _body(request), os.environ.get("FLDA_LECTURER_TOKEN", "")
    if wanted:  # the lecturer token, else only a browser on this machine
        token = body.get("token")
        allowed = isinstance(token, str) and hmac.compare_digest(token.encode(), wanted.encode())
    else:
        allowed = is_loopback(client_address(request))
    if not allowed:
        need = "the lecturer token" if wanted else "this server's own machine"
        raise class_store.NotAllowed(f"Only a lecturer may start a class: use {need}.")
    device, new = await _device(request)
    choices = [len(s.choices) for s in LESSON_STEPS]
    code, key = await _call("create_class", choices, device, "join")  # opens on its join slide
    links = class_links(code, key)
    cookies = [(lecturer_cookie(code), key)] + ([(DEVICE_COOKIE, device)] if new else [])
    return _json({"status": "ok", "code": code, **links}, 200, cookies)


def class_links(code, key=None):
    """The class's presenter, projector and join links; with the lecturer's ``key`` the
    projector's holds its screen token, and ``lecturer_link`` sets the key in a browser."""
    lesson, base = f"{base_path()}/lesson?class={code}", base_path()
    links = {"presenter": f"{lesson}&view=presenter", "projector": f"{lesson}&view=projector"}
    links["join"] = f"{base}/join?code={code}"
    if key:
        links["projector"] += f"&screen={codes.screen_token(key)}"
        links["lecturer_link"] = f"{base}/_flda/class/lecturer?code={code}&key={key}"
    return links


@_guarded
async def _mine(request):
    device = request.cookies.get(DEVICE_COOKIE, "")
    if not codes.device_ok(device, await _call("secret")):
        return _json({"status": "ok", "classes": []})
    found = [{**dataclasses.asdict(s), **class_links(s.code)} for s in await _call("my_classes", device)]
    return _json({"status": "ok", "classes": found})


# ------------------------------------------------------------------------ following
def student_content(state):
    """What every student sees of the class's current step (``state``: a ``ClassState``):
    ``{step, slug, title, text, question, choices, figure}`` with the lecturer's setting;
    after Reveal also ``correct``, the ``answer`` and ``explore`` (a URL relative to the app:
    the step with the lecturer's values on the student's device)."""
    from explorer.teaching.lesson import LESSON_STEPS, explore_url, with_chosen
    from explorer.ui.lesson_views import settings_text, step_view

    if not 0 <= state.step < len(LESSON_STEPS):
        return {"step": state.step, "title": "", "choices": []}
    step = LESSON_STEPS[state.step]
    values = with_chosen(step, state.values)
    out = {"step": state.step, "slug": step.slug, "title": step.title, "figure": step.figure}
    out |= {"text": f"{step.text} Setting: {settings_text(values)}."}
    out |= {"question": step.question, "choices": list(step.choices)}
    if state.revealed:
        answer = f"{step_view(step, values).reveal} Why: {step.answer}"
        out |= {"correct": list(state.correct), "answer": answer, "explore": explore_url(step, values)}
    return out


class _Watch:
    """One class followed in this process: its state, seats, ballots of the current step,
    the shared part of every answer, and who waits."""

    def __init__(self, code):
        self.code, self.loop, self.task = code, asyncio.get_running_loop(), None
        self.state, self.seated, self.ballots, self.counts = None, set(), {}, {}
        self.content, self.content_key, self.shared = None, None, None  # shared: None until read
        self.epoch, self.epoch_at, self.dirty = 0, 0.0, False
        self.ready, self.changed, self.poke = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self.waiters, self.last_wait, self.seen, self.touched = 0, time.monotonic(), set(), time.monotonic()

    def wake(self):
        self.changed, old = asyncio.Event(), self.changed
        old.set()


def _poke(code):
    """Wake the watcher of ``code`` now (any thread: the store's change listener)."""
    watch = _WATCHES.get(code)
    if watch is not None:
        watch.loop.call_soon_threadsafe(watch.poke.set)


class_store.on_change(_poke)


async def _refresh(watch):
    """Read the class's row (and on a change of tally or step its roster); wake the
    waiters when what they see changed."""
    state, old = await _call("state", watch.code), watch.state
    if state is None or old is None or state.tally != old.tally or state.step != old.step:
        roster = await _call("roster", watch.code, state.step) if state else (set(), [])
        watch.seated, watch.ballots, watch.counts = roster[0], {}, {}
        for round_, device, choice in roster[1]:
            watch.ballots.setdefault(device, {})[round_] = choice
            counts = watch.counts.setdefault(round_, {})
            counts[choice] = counts.get(choice, 0) + 1
        watch.dirty = True
    if state != old or watch.shared is None:
        if state is not None and (watch.code, state.page_key()) != watch.content_key:
            watch.content_key = (watch.code, state.page_key())
            watch.content = await asyncio.to_thread(student_content, state)
        shared = {"state": dataclasses.asdict(state), "content": watch.content} if state else {"state": None}
        watch.state, watch.shared = state, json.dumps(shared)
        watch.wake()
    now = time.monotonic()
    if watch.dirty and now - watch.epoch_at >= COUNTS_EVERY_S:  # students' counts: once a second
        watch.epoch, watch.epoch_at, watch.dirty = watch.epoch + 1, now, False
        watch.wake()
    if watch.seen and now - watch.touched > TOUCH_EVERY_S:
        seen, watch.seen, watch.touched = watch.seen, set(), now
        await _call("touch", watch.code, seen)


async def _watch(watch):
    try:
        while watch.waiters or time.monotonic() - watch.last_wait < IDLE_S:
            try:
                await _refresh(watch)
            except class_store.ClassStoreError:
                pass  # the store is busy: the waiters keep what they have
            watch.ready.set()
            try:
                await asyncio.wait_for(watch.poke.wait(), CHECK_S)
            except TimeoutError:
                pass
            watch.poke.clear()
    finally:
        if _WATCHES.get(watch.code) is watch:
            del _WATCHES[watch.code]
        watch.changed.set()


async def _viewer(request, code):
    """``("lecturer"|"screen", None)`` or ``("student", device hash)``, or None (a key or a
    screen token found good is trusted for a minute)."""
    key, screen = request.cookies.get(lecturer_cookie(code), ""), request.query_params.get("screen", "")
    for kind, purpose, token in (("lecturer", "key", key), ("screen", "screen", screen)):
        known = (code, purpose, codes.token_hash(token, purpose))
        if not token or _AUTH.get(known, 0) < time.monotonic():
            if not token or not await _call("is_lecturer", code, token, purpose):
                continue
            if len(_AUTH) > 10_000:
                _AUTH.clear()
            _AUTH[known] = time.monotonic() + 60
        return kind, None
    device = request.cookies.get(DEVICE_COOKIE, "")
    if not codes.device_ok(device, await _call("secret")):
        return None
    mine, watch = codes.token_hash(device, "device"), _WATCHES.get(code)
    if watch and mine in watch.seated or await _call("has_seat", code, device):
        return "student", mine
    return None


def _token(watch, kind, device):
    state = watch.state
    if state is None:
        return "none"
    if kind != "student":
        return f"{state.version}.{state.tally}"
    mine = watch.ballots.get(device, {}).get(state.round, "")
    return f"{state.version}.{watch.epoch if state.bars else 0}.{mine}"


@_guarded
async def _state(request):
    from starlette.responses import Response

    code, client = codes.normalize_code(request.query_params.get("code")), _client(request)
    seen = request.query_params.get("seen", "")[:64]
    if not code:
        return _json({"status": "bad-request", "message": "No class code."}, 400)
    if _limited(client, ROOM):
        raise _TooMany()
    viewer = await _viewer(request, code)
    if viewer is None:
        return _json({"status": "not-joined", "message": "Join the class first."}, 403)
    # a student's device: its own polls and waits bounded; screens follow every vote, and one
    # lecturer's browser holds several (presenter and projector)
    if viewer[0] == "student" and (
        len(_HITS[client]) > POLLS_PER_WINDOW or _WAITS[client] >= WAITS_PER_CLIENT
    ):
        raise _TooMany()
    watch = _WATCHES.get(code)
    if watch is None or watch.task is None or watch.task.done():  # started, and read once
        if len(_WATCHES) >= MAX_WATCHES:
            raise class_store.StoreBusy("This server follows too many classes now: try again.")
        watch = _WATCHES[code] = _Watch(code)
        watch.task = asyncio.create_task(_watch(watch))
    await asyncio.wait_for(watch.ready.wait(), STORE_TIMEOUT_S)
    if watch.shared is None:
        raise class_store.StoreBusy("The class store is busy: try again in a moment.")
    if sum(w.waiters for w in _WATCHES.values()) >= int(os.environ.get("FLDA_CLASS_MAX_WAITERS", 3000)):
        return _json({"status": "busy", "message": "The server is full: try again."}, 503)
    if viewer[1]:
        watch.seen.add(viewer[1])
    deadline = time.monotonic() + HOLD_S
    watch.waiters, _WAITS[client] = watch.waiters + 1, _WAITS[client] + 1
    try:
        while _token(watch, *viewer) == seen and not watch.task.done():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:  # a poll its client gave up (a reload, a rerun) frees its place within DISCONNECT_CHECK_S
                await asyncio.wait_for(watch.changed.wait(), min(left, DISCONNECT_CHECK_S))
            except TimeoutError:
                if await request.is_disconnected():
                    break
    finally:
        watch.waiters, watch.last_wait = watch.waiters - 1, time.monotonic()
        _WAITS[client] -= 1
        if not _WAITS[client]:
            del _WAITS[client]
    state, (kind, device) = watch.state, viewer
    mine = watch.ballots.get(device, {}).get(state.round) if state and device else None
    counts = watch.counts if state and (kind != "student" or state.bars) else None
    joined = len(watch.seated) if kind != "student" else None
    head = {"token": _token(watch, kind, device), "mine": mine, "counts": counts, "joined": joined}
    body = json.dumps(head)[:-1] + "," + watch.shared[1:]  # the shared part serialised once
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})


# ----------------------------------------------------------------------- the page
@functools.cache
def _page_file(name):
    return (ASSETS / name).read_text(encoding="utf-8")


async def _file(request):
    """The students' page (``/join``) or one of its files."""
    from starlette.responses import Response

    name = request.url.path.rsplit("/", 1)[-1]
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if name in PAGE_FILES:
        return Response(_page_file(name), media_type=PAGE_FILES[name], headers=headers)
    headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"
    )
    return Response(_page_file("join.html").replace("{{base}}", base_path()), 200, headers, "text/html")


def routes():
    """The routes of the module docstring, at the root and under ``server.baseUrlPath``."""
    from starlette.routing import Route

    out = []
    for prefix in chart.route_prefixes():
        out.append(Route(f"{prefix.removesuffix('/_flda')}/join", _file, methods=["GET"]))
        out += [Route(f"{prefix}/{name}", _file, methods=["GET"]) for name in PAGE_FILES]
        for name, handler in (("join", _join), ("vote", _vote), ("steer", _steer), ("start", _start)):
            out.append(Route(f"{prefix}/class/{name}", handler, methods=["POST"]))
        for name, handler in (("state", _state), ("lecturer", _lecturer), ("mine", _mine)):
            out.append(Route(f"{prefix}/class/{name}", handler, methods=["GET"]))
    return out
