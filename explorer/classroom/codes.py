"""Join codes, lecturer keys, screen tokens and device cookies of a class (no streamlit).

A join code is :data:`CODE_LENGTH` characters from :data:`ALPHABET` (31 symbols without
the look-alikes 0/O, 1/I/L), drawn with :mod:`secrets`: 31⁶ ≈ 8.9 × 10⁸ codes, wrong
guesses rate-limited by the store.  The lecturer's key is a random URL-safe token kept only
as its SHA-256 hash and compared in constant time; the projector's read-only screen token
is derived from the key (:func:`screen_token`), so whoever holds the key can make the
projector's link and the store keeps only its hash too.  A device is one browser: a random
token signed with the store's secret (:func:`new_device`, :func:`device_ok`), so a device
cookie cannot be made up; the store keeps only its hash (:func:`token_hash`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

#: Unambiguous upper-case letters and digits (no 0, O, 1, I, L).
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_code(length=CODE_LENGTH):
    """A fresh join code (``secrets``)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normalize_code(text):
    """``text`` as a join code (upper case, spaces and dashes dropped), or ``""`` when it
    cannot be one (not a string, wrong length or a symbol outside :data:`ALPHABET`)."""
    if not isinstance(text, str):
        return ""
    code = re.sub(r"[\s-]", "", text[:40]).upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return ""
    return code


def new_key():
    """The lecturer's key: a random URL-safe token (32 characters)."""
    return secrets.token_urlsafe(24)


def valid_token(text):
    """Whether ``text`` looks like a key or token made here (16-64 URL-safe characters):
    anything else is refused before it reaches the store."""
    return isinstance(text, str) and _TOKEN.fullmatch(text) is not None


def token_hash(token, purpose="key"):
    """SHA-256 hex digest of a token for one ``purpose`` (what the store keeps)."""
    return hashlib.sha256(f"{purpose}:{token}".encode()).hexdigest()


def key_matches(key, stored_hash, purpose="key"):
    """Whether ``key`` is the token whose hash is ``stored_hash`` (constant time)."""
    if not stored_hash or not valid_token(key):
        return False
    return hmac.compare_digest(token_hash(key, purpose), stored_hash)


def screen_token(key):
    """The projector's read-only token of the class whose lecturer key is ``key``."""
    return base64.urlsafe_b64encode(hashlib.sha256(f"screen:{key}".encode()).digest()[:18]).decode()


def _signature(nonce, secret):
    return base64.urlsafe_b64encode(hmac.new(secret, nonce.encode(), "sha256").digest()[:12]).decode()


def new_device(secret):
    """A new device cookie: a random nonce and its HMAC under ``secret`` (bytes)."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_signature(nonce, secret)}"


def device_ok(token, secret):
    """Whether ``token`` is a device cookie signed with ``secret``."""
    nonce, _, signature = token.partition(".") if isinstance(token, str) else ("", "", "")
    return (
        valid_token(nonce) and len(token) < 80 and hmac.compare_digest(signature, _signature(nonce, secret))
    )
