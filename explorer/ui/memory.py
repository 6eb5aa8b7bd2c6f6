"""What every session holds in memory, counted against one budget (issue 36).

A session's state holds only names and digests; the data live once per process in a
:class:`DataStore`, keyed by the digest of the input bytes and options:

* **a budget per session** (:data:`SESSION_ENV`): an entry that would take a tab over it
  is refused (:class:`OverBudget`, shown as an error box with its fix);
* **a total per process** (:data:`TOTAL_ENV`), with the upload endpoint's bytes, shared
  fairly among browsers: idle sessions' entries go first, then those of browsers over
  their share, else the new entry is refused;
* **released**: one entry per *role* (a new file releases the old one), on the
  uploader's ✕, when the session state is dropped (:func:`weakref.finalize`), and after
  :data:`IDLE_ENV` idle minutes.  An entry no session holds is dropped at once.

An uploader emptied by its ✕ is reset: Streamlit keeps a widget's previous value until
the next run, 35 MB per tab on Your data.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field

from explorer.errors import DataValidationError

#: Environment variable: MB of data one session (browser tab) may hold.
SESSION_ENV = "FLDA_SESSION_BUDGET_MB"
#: Environment variable: MB all sessions of this machine's app processes may hold (data
#: and uploads), shared among ``FLDA_SERVER_PROCESSES``.
TOTAL_ENV = "FLDA_MEMORY_TOTAL_MB"
#: Environment variable: minutes without a run after which a session's data are released.
IDLE_ENV = "FLDA_IDLE_MINUTES"
#: Default session budget (MB): two 50 MB CSVs parsed, prepared and their results.
DEFAULT_SESSION_MB = 400
#: Default idle time (minutes) after which a session's data are released.
DEFAULT_IDLE_MINUTES = 20
#: Seconds without a run after which a session's data may be taken for another's.
PRESSURE_IDLE_SECONDS = 60.0
_SESSION_KEY = "_flda.memory_session"


def nbytes_of(value, _seen=None):
    """Bytes ``value`` holds, through arrays, frames, containers and objects, each counted once.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros(1000)
    >>> nbytes_of((a, a, b"xyz"))
    8003
    """
    import numpy as np
    import pandas as pd

    seen = set() if _seen is None else _seen
    if id(value) in seen or value is None or isinstance(value, (bool, int, float, complex)):
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        base = value.base if isinstance(value.base, np.ndarray) else None
        if base is not None:
            return nbytes_of(base, seen)
        if value.dtype == object:
            return value.nbytes + sum(nbytes_of(v, seen) for v in value.ravel().tolist())
        return int(value.nbytes)
    if isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
        usage = value.memory_usage(deep=True, index=True)
        return int(usage.sum() if hasattr(usage, "sum") else usage)
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        return len(value)
    if isinstance(value, dict):
        return sum(nbytes_of(k, seen) + nbytes_of(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(nbytes_of(v, seen) for v in value)
    if dataclasses.is_dataclass(value):
        return sum(nbytes_of(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if hasattr(value, "__dict__"):
        return nbytes_of(vars(value), seen)
    return 0


#: Dropping an entry this large calls :func:`release_free_memory`.
TRIM_BYTES = 4 * 2**20


def release_free_memory():
    """Collect garbage and ``malloc_trim``: else a released table's blocks stay in the RSS."""
    import gc

    gc.collect()  # a table in a reference cycle is freed only by the collector
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class OverBudget(DataValidationError):
    """Data that would take a session or the server over its memory budget."""


def _mb(n_bytes):
    return f"{n_bytes / 2**20:,.0f} MB"


@dataclass
class _Entry:
    value: object
    nbytes: int
    holders: set = field(default_factory=set)
    last_used: float = 0.0


@dataclass
class _Session:
    last_seen: float
    roles: dict = field(default_factory=dict)  # role -> entry key
    client: str = ""  # the browser (explorer.ui.uploads.client_key), or "" (the tab alone)


class DataStore:
    """Process-wide store of the data sessions hold (see the module's docstring).

    Parameters
    ----------
    session_bytes : int
        The most one session may hold.
    total_bytes : int
        The most all sessions of this process may hold, with the upload endpoint's
        bytes (``other_bytes``).
    idle_seconds : float
        Seconds without a run after which :meth:`cull` releases a session's data.
    other_bytes : callable, optional
        Bytes held elsewhere that count against the total (the upload endpoint's).
    clock : callable, optional
        ``time.monotonic`` (tests pass their own).
    """

    def __init__(self, session_bytes, total_bytes, idle_seconds, other_bytes=None, clock=time.monotonic):
        self.session_bytes = int(session_bytes)
        self.total_bytes = int(total_bytes)
        self.idle_seconds = float(idle_seconds)
        self._other_bytes = other_bytes or (lambda: 0)
        self._clock = clock
        self._lock = threading.RLock()
        self._entries = {}  # key -> _Entry
        self._sessions = {}  # session id -> _Session
        self.on_release = None  # called with a session culled or ended (its upload files)

    # ------------------------------------------------------------ reading
    def held_bytes(self):
        """Bytes of all distinct entries held."""
        with self._lock:
            return sum(e.nbytes for e in self._entries.values())

    def _bytes_of(self, sessions):
        keys = {k for s in sessions if s in self._sessions for k in self._sessions[s].roles.values()}
        return sum(self._entries[k].nbytes for k in keys if k in self._entries)

    def session_bytes_held(self, session):
        """Bytes a session holds (each entry in full)."""
        with self._lock:
            return self._bytes_of([session])

    def sessions(self):
        """Ids of the sessions known."""
        with self._lock:
            return list(self._sessions)

    def client_of(self, session):
        """The browser ``session`` runs in (:meth:`touch`), or the session itself."""
        record = self._sessions.get(session)
        return (record.client if record else "") or session

    def get(self, session, role):
        """The value ``session`` holds as ``role``, or ``None`` (never held, released,
        or taken for another browser)."""
        with self._lock:
            record = self._sessions.get(session)
            entry = self._entries.get(record.roles.get(role)) if record else None
            if entry is None:
                return None
            entry.last_used = self._clock()
            return entry.value

    # ------------------------------------------------------------ holding
    def touch(self, session, client=""):
        """Note a run of ``session`` (it is not idle), in the browser ``client``."""
        with self._lock:
            record = self._sessions.setdefault(session, _Session(self._clock()))
            record.last_seen = self._clock()
            record.client = client or record.client

    def hold(self, session, role, key, make, what="these data"):
        """The value of ``key`` (made by ``make()`` unless held already), held by
        ``session`` as ``role`` in place of what it held as ``role`` before.

        Raises
        ------
        OverBudget
            Over the session's budget, or the process's total even after :meth:`_make_room`.
        """
        self.touch(session)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._assign(session, role, key, entry)
                return entry.value
        value = make()  # outside the lock: parsing and preparing take seconds
        size = nbytes_of(value)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:  # another session made it meanwhile
                self._assign(session, role, key, entry)
                return entry.value
            record = self._sessions[session]
            others = {k for r, k in record.roles.items() if r != role}
            charged = sum(self._entries[k].nbytes for k in others if k in self._entries) + size
            if charged > self.session_bytes:
                raise OverBudget(
                    f"Holding {what} ({_mb(size)}) would take this tab to {_mb(charged)}, over "
                    f"the {_mb(self.session_bytes)} one tab may hold on this server.",
                    "Use smaller files (fewer rows or columns), or remove the files you no "
                    f"longer need; whoever runs the server can raise {SESSION_ENV}.",
                )
            freed = self._freed_by_replacing(session, role)
            needed = self.held_bytes() - freed + int(self._other_bytes()) + size - self.total_bytes
            if needed > 0 and self._make_room(needed, session, size - freed) < needed:
                raise OverBudget(
                    f"The server holds as much data as it may for everyone at once "
                    f"({_mb(self.total_bytes)}), so {what} ({_mb(size)}) cannot be held now.",
                    "Try again in a few minutes, when other sessions have finished, or use a "
                    f"smaller file; whoever runs the server can raise {TOTAL_ENV}.",
                )
            entry = _Entry(value, size)
            self._entries[key] = entry
            self._assign(session, role, key, entry)
            return value

    def _freed_by_replacing(self, session, role):
        key = self._sessions[session].roles.get(role)
        entry = self._entries.get(key) if key is not None else None
        return entry.nbytes if entry is not None and entry.holders == {session} else 0

    def _assign(self, session, role, key, entry):
        record = self._sessions.setdefault(session, _Session(self._clock()))
        old = record.roles.get(role)
        record.roles[role] = key
        entry.holders.add(session)
        entry.last_used = self._clock()
        if old is not None and old != key:
            self._drop_holder(session, old)

    def _drop_holder(self, session, key):
        record = self._sessions.get(session)
        if record is not None and key in record.roles.values():
            return  # still held under another role
        entry = self._entries.get(key)
        if entry is None:
            return
        entry.holders.discard(session)
        if not entry.holders:
            entry = self._entries.pop(key)
            if entry.nbytes >= TRIM_BYTES:
                del entry
                release_free_memory()

    def release(self, session, role):
        """``session`` no longer holds ``role`` (its uploader dropped the file)."""
        with self._lock:
            record = self._sessions.get(session)
            key = record.roles.pop(role, None) if record else None
            if key is not None:
                self._drop_holder(session, key)

    def _release_all(self, session):
        record = self._sessions[session]
        keys, record.roles = set(record.roles.values()), {}
        for key in keys:
            self._drop_holder(session, key)

    def end_session(self, session):
        """Release everything ``session`` holds and forget it (its state was dropped)."""
        with self._lock:
            if session in self._sessions:
                self._release_all(session)
                del self._sessions[session]
        if self.on_release is not None:
            self.on_release(session)

    def _make_room(self, needed, session, growth):
        """Release other sessions' data until ``needed`` bytes are free; returns the bytes
        freed.  Idle sessions go first, then browsers over their share, least recently
        seen first; ``session``'s browser (growing by ``growth``) takes from working tabs
        only while within its share."""
        now, client = self._clock(), self.client_of(session)
        clients = {self.client_of(s) for s, r in self._sessions.items() if r.roles} | {client}
        share = self.total_bytes / len(clients)

        def over_share(other):
            mine = [s for s in self._sessions if self.client_of(s) == other]
            return self._bytes_of(mine) + (growth if other == client else 0) > share

        candidates = sorted(
            (now - r.last_seen < PRESSURE_IDLE_SECONDS, r.last_seen, s)
            for s, r in self._sessions.items()
            if s != session and r.roles
        )
        freed = 0
        for working, _, other in candidates:
            if freed >= needed:
                break
            owner = self.client_of(other)
            if working and (owner == client or over_share(client) or not over_share(owner)):
                continue
            before = self.held_bytes()
            self._release_all(other)
            freed += before - self.held_bytes()
        return freed

    def cull(self):
        """Release the data of every session idle for ``idle_seconds``; returns the
        sessions culled (their uploaders' files go too: ``on_release``)."""
        now = self._clock()
        with self._lock:
            culled = [s for s, r in self._sessions.items() if now - r.last_seen >= self.idle_seconds]
            for session in culled:
                self._release_all(session)
        for session in culled if self.on_release is not None else ():
            self.on_release(session)
        return culled


def make_store(environ=None):
    """A :class:`DataStore` configured from the environment (see the module docstring)."""
    from explorer.ui import uploads

    environ = os.environ if environ is None else environ
    session_bytes = int((uploads.positive_number(environ.get(SESSION_ENV, "")) or DEFAULT_SESSION_MB) * 2**20)
    idle_seconds = 60.0 * (uploads.positive_number(environ.get(IDLE_ENV, "")) or DEFAULT_IDLE_MINUTES)
    total_bytes = uploads.server_total_bytes(session_bytes, environ, variable=TOTAL_ENV)

    def upload_bytes():
        bounded = uploads.manager()
        return bounded.held_bytes() if bounded else 0

    def forget_tab(session):
        bounded = uploads.manager()
        if bounded:
            bounded.forget_tab(session)

    data = DataStore(session_bytes, total_bytes, idle_seconds, upload_bytes)
    data.on_release = forget_tab
    return data


_STORE = None
_STORE_LOCK = threading.Lock()


def store():
    """This process's :class:`DataStore` (made on first use)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = make_store()
        return _STORE


class _Token:
    """In a session's state: when Streamlit drops it, the session's data go.  ``files``:
    what its uploaders showed on the last run."""

    def __init__(self, data):
        self.id = uuid.uuid4().hex
        self.files = {}
        weakref.finalize(self, data.end_session, self.id)


def _token():
    import streamlit as st

    token = st.session_state.get(_SESSION_KEY)
    if not isinstance(token, _Token):
        token = st.session_state[_SESSION_KEY] = _Token(store())
    return token


def current_session():
    """The id of the running session in :func:`store` (a token in its session state)."""
    return _token().id


def note_run():
    """Every page's run: note the tab active and its uploaders' files, release idle tabs'
    data, reset uploaders emptied by their ✕; never fails a page."""
    import streamlit as st

    from explorer.ui import uploads

    try:
        data, token = store(), _token()
        data.touch(token.id, uploads.client_key(st.context.cookies))
        data.cull()
        files = uploads.widget_files()
        for key in [k for k in token.files if k not in files and k in st.session_state]:
            del st.session_state[key]  # its ✕: Streamlit kept the file's previous value
        token.files = files
        bounded = uploads.manager()
        if bounded:
            bounded.note_shown(token.id, set().union(*files.values()), data.client_of(token.id))
            bounded.expire_unused()
    except Exception:  # the budget's bookkeeping must not break a page
        import logging

        logging.getLogger("flda").exception("memory budget: noting a run failed")
