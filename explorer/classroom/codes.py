"""Join codes, lecturer keys and student ids of a class session (no streamlit).

A join code is :data:`CODE_LENGTH` characters from :data:`ALPHABET` (31 symbols
without the look-alikes 0/O, 1/I/L), drawn with :mod:`secrets`: 31⁶ ≈ 8.9 × 10⁸
codes, and wrong guesses are rate-limited by the store.  The lecturer's key is a
random URL-safe token kept only as its SHA-256 hash and compared with
:func:`hmac.compare_digest`; a student id is a random token per browser, stored only
hashed, so the database never holds an id another browser could use.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

__all__ = [
    "ALPHABET",
    "CODE_LENGTH",
    "new_code",
    "normalize_code",
    "new_key",
    "key_hash",
    "key_matches",
    "new_student_id",
    "valid_token",
    "student_hash",
]

#: Unambiguous upper-case letters and digits (no 0, O, 1, I, L).
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_code(length=CODE_LENGTH):
    """A fresh join code (``secrets``)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def normalize_code(text):
    """``text`` as a join code (upper case, spaces and dashes dropped), or ``""`` when it
    cannot be one (wrong length or a symbol outside :data:`ALPHABET`)."""
    code = re.sub(r"[\s-]", "", str(text or "")[:40]).upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return ""
    return code


def new_key():
    """The lecturer's key: a random URL-safe token (32 characters)."""
    return secrets.token_urlsafe(24)


def key_hash(key):
    """SHA-256 hex digest of a key (what the store keeps)."""
    return hashlib.sha256(str(key).encode("utf-8")).hexdigest()


def key_matches(key, stored_hash):
    """Whether ``key`` is the key whose hash is ``stored_hash`` (constant time)."""
    if not key or not stored_hash or not valid_token(key):
        return False
    return hmac.compare_digest(key_hash(key), stored_hash)


def new_student_id():
    """A random id for one browser (never shown to anyone)."""
    return secrets.token_urlsafe(18)


def valid_token(text):
    """Whether ``text`` looks like a key or a student id made here (16-64 URL-safe
    characters): anything else is refused before it reaches the store."""
    return isinstance(text, str) and _TOKEN.fullmatch(text) is not None


def student_hash(student_id):
    """What the store keeps of a student id (its SHA-256, 64 hex characters)."""
    return hashlib.sha256(("student:" + student_id).encode("utf-8")).hexdigest()
