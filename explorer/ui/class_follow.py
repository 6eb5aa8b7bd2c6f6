"""How a student's device follows the class without rerunning its page (issue 35).

A tiny component (``st.components.v2``, :file:`assets/class_follow.js`) holds one
long-polling request to this server's route ``/_flda/class-wait?code=CODE&seen=TOKEN``
(:func:`routes`, added to ``app.py``'s ``st.App`` through
:func:`explorer.ui.serving.routes`).  The route answers as soon as the class's token
(:func:`token`: its step, round and reveal) differs from ``seen``, else after
:data:`HOLD_S`; the component then reruns the page once.  Each server process reads a
class's row once per :data:`CHECK_S` for all its waiting students together (one asyncio
task per class with waiters), so a room of idle students costs a few queries a second,
not a page run per student per second.
"""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path

import streamlit as st

from explorer.classroom import codes
from explorer.ui import chart

__all__ = ["HOLD_S", "CHECK_S", "WAIT_NAME", "COMPONENT_NAME", "token", "routes", "follow_class"]

ASSETS = Path(__file__).resolve().parents[2] / "assets"
COMPONENT_NAME = "flda_class_follow"
WAIT_NAME = "class-wait"
#: A request is answered after this long at the latest (seconds; nginx in
#: ``deploy/nginx.conf.template`` keeps proxied requests open far longer).
HOLD_S = 50.0
#: How often a process reads the row of a class that has waiting students (seconds).
CHECK_S = 0.4
#: A class nobody waited on for this long is no longer watched (seconds).
IDLE_S = 10.0


def token(state):
    """What a student's page is drawn from, as text ("none": no such class)."""
    if state is None:
        return "none"
    return "-".join(str(int(v)) for v in state.page_key())


class _Watch:
    """One class watched by this process: its latest token and who waits for a change."""

    def __init__(self):
        self.token = None
        self.changed = asyncio.Event()
        self.last_wait = time.monotonic()
        self.waiters = 0
        self.task = None


_WATCHES = {}


def _read_token(code):
    from explorer.classroom.store import default_store

    return token(default_store().state(code))


async def _watch(code, watch):
    try:
        while watch.waiters or time.monotonic() - watch.last_wait < IDLE_S:
            new = await asyncio.to_thread(_read_token, code)
            if new != watch.token:
                watch.token, old = new, watch.changed
                watch.changed = asyncio.Event()
                old.set()
            await asyncio.sleep(CHECK_S)
    finally:
        if _WATCHES.get(code) is watch:
            del _WATCHES[code]
        watch.changed.set()


async def _wait(request):
    from starlette.responses import JSONResponse

    code = codes.normalize_code(request.query_params.get("code", ""))
    seen = request.query_params.get("seen", "")[:64]
    if not code:
        return JSONResponse({"token": "none"}, status_code=400)
    watch = _WATCHES.get(code)
    if watch is None or watch.task is None or watch.task.done():
        watch = _WATCHES[code] = _Watch()
        watch.token = await asyncio.to_thread(_read_token, code)
        watch.task = asyncio.create_task(_watch(code, watch))
    deadline = time.monotonic() + HOLD_S
    watch.waiters += 1
    try:
        while watch.token == seen and not watch.task.done():
            watch.last_wait = time.monotonic()
            left = deadline - watch.last_wait
            if left <= 0:
                break
            try:
                await asyncio.wait_for(watch.changed.wait(), left)
            except TimeoutError:
                break
    finally:
        watch.waiters -= 1
        watch.last_wait = time.monotonic()
    return JSONResponse({"token": watch.token}, headers={"Cache-Control": "no-store"})


def routes():
    """The long-polling route, at the root and under ``server.baseUrlPath``."""
    from starlette.routing import Route

    return [Route(f"{prefix}/{WAIT_NAME}", _wait, methods=["GET"]) for prefix in chart.route_prefixes()]


@functools.cache
def _component():
    return st.components.v2.component(
        COMPONENT_NAME, js=(ASSETS / "class_follow.js").read_text(encoding="utf-8"), isolate_styles=False
    )


def _ignore():
    pass


def follow_class(code, drawn_token, key="class_follow"):
    """Draw the follower (no visible element): the page reruns once the class's token
    is no longer ``drawn_token``."""
    _component()(
        key=key,
        data={"url": chart.asset_url(WAIT_NAME), "code": code, "token": drawn_token},
        height=0,
        on_changed_change=_ignore,
    )
