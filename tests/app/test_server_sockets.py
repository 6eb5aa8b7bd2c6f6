"""The server's connections send small writes at once (``serving.send_small_writes_at_once``).

Streamlit binds its listening socket itself, and asyncio then leaves Nagle's algorithm on
for the connections it accepts: every HTTP response after a connection's first waited
about 40 ms for the browser's delayed ACK.  These tests serve connections the way the
server does (asyncio over a socket bound by Streamlit's own function) and read the
accepted socket's ``TCP_NODELAY``.
"""

import asyncio
import concurrent.futures
import contextlib
import os
import socket
import sys

import pytest

from explorer.ui import serving

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="lists /proc or /dev/fd")


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: the browser tests leave an event loop
    running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _open_descriptors():
    return len(os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"))


def _bind_like_streamlit():
    """A listening socket made by the function Streamlit's server uses."""
    from streamlit.web.server.starlette.starlette_server import _bind_socket

    return _bind_socket("127.0.0.1", 0, 8)


async def _accepted_nodelay(listener):
    """``TCP_NODELAY`` of the server side of one connection asyncio accepts on ``listener``."""
    seen = asyncio.get_running_loop().create_future()

    def accepted(reader, writer):
        sock = writer.get_extra_info("socket")
        seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=listener)
    async with server:
        _, writer = await asyncio.open_connection(*listener.getsockname()[:2])
        value = await asyncio.wait_for(seen, 10)
        writer.close()
    return value


def test_streamlit_bound_sockets_keep_nagle_without_the_fix():
    """The fact the fix is for: if a Streamlit upgrade binds its socket so that asyncio
    switches Nagle off itself, this fails and the workaround can go."""
    listener = _bind_like_streamlit()
    assert listener.proto == 0
    assert _run(_accepted_nodelay(listener)) == 0


def test_connections_accepted_after_the_fix_send_at_once():
    listener = _bind_like_streamlit()
    with contextlib.closing(listener):
        assert serving.send_small_writes_at_once() >= 1
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    listener = _bind_like_streamlit()  # a fresh one, for the accepted connection
    serving.send_small_writes_at_once()
    assert _run(_accepted_nodelay(listener)) != 0


def test_looking_leaves_no_descriptor_open():
    """Pipes and files are skipped, and every duplicate is closed: a duplicate left
    open would keep a pipe alive (a child process waiting for its end, forever)."""
    read_end, write_end = os.pipe()
    listener = _bind_like_streamlit()
    try:
        before = _open_descriptors()
        for _ in range(3):
            serving.send_small_writes_at_once()
            for sock in serving.listening_tcp_sockets():
                sock.close()
        assert _open_descriptors() == before
    finally:
        os.close(read_end), os.close(write_end), listener.close()


def test_only_listening_tcp_sockets_are_found():
    listener = _bind_like_streamlit()
    client = socket.create_connection(listener.getsockname()[:2])
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    found = serving.listening_tcp_sockets()
    try:
        names = {sock.getsockname() for sock in found}
        assert listener.getsockname() in names
        assert client.getsockname() not in names
        assert all(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) for sock in found)
        assert all(sock.type == socket.SOCK_STREAM for sock in found)
    finally:
        for sock in (*found, listener, client, udp):
            sock.close()


def test_the_server_start_applies_it(monkeypatch):
    calls = []
    monkeypatch.setattr(serving, "send_small_writes_at_once", lambda: calls.append(1) or 1)

    class Done:
        def join(self):
            pass

    monkeypatch.setattr(serving, "warm_up_imports", Done)
    monkeypatch.setattr(serving, "warm_up_stores", lambda: None)

    async def start():
        async with serving.server_lifespan(None):
            pass

    _run(start())
    assert calls == [1]
