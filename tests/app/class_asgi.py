"""Browsers on a class's routes without a network: each :class:`Phone` keeps its cookies
and its address and sends requests straight to the ASGI app (``serving.routes()``)."""

import asyncio
import json
import urllib.parse
from dataclasses import dataclass
from http.cookies import SimpleCookie

import pytest

from explorer.classroom import store
from explorer.ui import class_routes


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def app():
    from starlette.applications import Starlette

    from explorer.ui import serving

    return Starlette(routes=serving.routes())


class Phone:
    """One browser: ``address`` is the peer's (``peer`` and ``headers`` model nginx)."""

    def __init__(self, asgi, address="10.0.0.1", headers=()):
        self.asgi, self.address, self.headers, self.cookies = asgi, address, list(headers), {}

    async def request(self, method, path, body=None, headers=()):
        path, _, query = path.partition("?")
        raw = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        sent = [("host", "test"), *self.headers, *headers]
        if body is not None and not any(k == "content-type" for k, _ in headers):
            sent.append(("content-type", "application/json"))
        if self.cookies:
            sent.append(("cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items())))
        scope = {
            "type": "http",
            "method": method,
            "path": urllib.parse.unquote(path),
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "headers": [(k.encode(), v.encode()) for k, v in sent],
            "http_version": "1.1",
            "scheme": "http",
            "server": ("test", 80),
            "client": (self.address, 50000),
            "root_path": "",
        }
        messages, first = [], [True]

        async def receive():
            if first[0]:
                first[0] = False
                return {"type": "http.request", "body": raw, "more_body": False}
            await asyncio.Event().wait()  # the browser stays connected

        async def send(message):
            messages.append(message)

        await self.asgi(scope, receive, send)
        start = next(m for m in messages if m["type"] == "http.response.start")
        headers = {}
        for key, value in start["headers"]:
            key, value = key.decode().lower(), value.decode()
            if key == "set-cookie":
                for name, morsel in SimpleCookie(value).items():
                    self.cookies[name] = morsel.value
            headers[key] = value
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        return Answer(start["status"], headers, body)

    async def post(self, name, body, **kw):
        return await self.request("POST", f"/_flda/class/{name}", body, **kw)

    async def poll(self, code, seen="", screen=""):
        query = urllib.parse.urlencode({"code": code, "seen": seen, **({"screen": screen} if screen else {})})
        return await self.request("GET", f"/_flda/class/state?{query}")


@pytest.fixture
def class_db(tmp_path, monkeypatch):
    """A fresh store for the routes, and the routes' per-process state emptied."""
    monkeypatch.setenv("FLDA_CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.db'}")
    monkeypatch.delenv("FLDA_LECTURER_TOKEN", raising=False)
    monkeypatch.delenv("FLDA_BEHIND_PROXY", raising=False)
    for cache in (class_routes._WATCHES, class_routes._HITS, class_routes._WAITS, class_routes._AUTH):
        cache.clear()
    yield store.default_store()
    class_routes._WATCHES.clear()
