"""The address students join at (issues 40 and 42): never the lecturer's loopback.

A lecturer who opened the app as ``localhost`` would send every phone to its own
``localhost``.  :func:`public_origin` gives ``FLDA_PUBLIC_URL`` when the server's operator
set it (behind a proxy, a name students can reach), else the address the browser used,
unless that is a loopback address: then this machine's address on its local network
(the interface a packet to another network would leave by; nothing is sent), with a
warning for the presenter when even that cannot be found.
"""

from __future__ import annotations

import os
import socket
import urllib.parse

import streamlit as st

from explorer.ui.class_routes import is_loopback

__all__ = ["public_origin", "public_join_url", "lan_address", "PUBLIC_URL_ENV"]

PUBLIC_URL_ENV = "FLDA_PUBLIC_URL"


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
    """``(origin, warning)``: ``scheme://host[:port]`` students can open, and a sentence
    for the presenter when they may not reach it (None otherwise)."""
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
