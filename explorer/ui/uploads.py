"""What the browsers may hold on Streamlit's upload endpoint (issues 26, 36 and 42).

Streamlit keeps every file ``PUT`` to ``/_stcore/upload_file/<session>/<file id>`` in
memory until the browser deletes it or the session ends, and accepts any number of files
under made-up file ids (16 files of 45 MB held 720 MB).  :func:`bound_uploads` bounds it:

* **a budget per browser** (:func:`session_budget`), shared by its tabs: a browser is the
  token of its XSRF cookie (:func:`client_key`), learned from the runs that show its
  files (until then a tab counts alone).  A file over it first drops the browser's files
  no uploader shows, oldest first (:func:`files_to_drop`);
* **a total per process** (:func:`server_total_bytes`), shared fairly: the unread files of
  browsers over their share go first (:func:`unread_over_share`);
* **expiry**: files no uploader shows that a run has read, or that no run read within
  :data:`FRESH_SECONDS`, are dropped on every run and before every upload.

Which files the uploaders show comes from the runs (:func:`widget_files`, noted by
:func:`explorer.ui.memory.note_run`).  A refused file gets a ``413`` with a message; the
uploader shows only "status code 413", so its help says what it means
(:data:`REFUSED_HELP`) and pages warn while the total is full
(:func:`warn_when_server_is_full`).

The one private interface: the server's ``MemoryUploadedFileManager`` gets its class
swapped for :class:`BoundedUploadedFileManager` (the upload routes hold that very object):
Streamlit's public API bounds one file (``server.maxUploadSize``) but neither the number
of files nor their total, and has no hook on the upload endpoint.  Pinned by
``tests/app/test_upload_budget.py::test_streamlit_still_has_what_the_budget_relies_on``.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace

from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

#: Files the app's widgets refer to at once: one page's two uploaders.
WIDGET_FILES = 2
#: Files one browser may hold: the widgets' files plus two being replaced or uploaded.
SESSION_FILES = 4
#: Bytes allowed over the widgets' files at their largest (``WIDGET_FILES`` times
#: ``server.maxUploadSize``): a small third file while a big one is being replaced.
SLACK_BYTES = 10 * 2**20
#: Seconds during which a file no run has read yet is protected (its rerun is on its way).
FRESH_SECONDS = 30.0
#: Environment variable: MB of uploads all of this machine's app processes may hold.
TOTAL_ENV = "FLDA_UPLOADS_TOTAL_MB"
#: Environment variable: how many app processes share the machine (``deploy/serve.sh``).
PROCESSES_ENV = "FLDA_SERVER_PROCESSES"
#: Share of the machine's memory a total may take when its variable is not set.
MEMORY_SHARE = 0.25
#: The end of every uploader's help: what the uploader's "status code 413" means.
REFUSED_HELP = (
    "If the uploader says “status code 413”, the server refused the file: this "
    "browser, or the whole class together, holds as many uploads as the server "
    "allows. Remove files you no longer need (their ✕), or try again in a few "
    "minutes."
)


def session_budget(max_upload_mb):
    """The most one browser may hold, ``(files, bytes)``: :data:`SESSION_FILES`, and
    :data:`WIDGET_FILES` files of ``max_upload_mb`` (``server.maxUploadSize``, MB) plus
    :data:`SLACK_BYTES`.

    Examples
    --------
    >>> session_budget(50)
    (4, 115343360)
    """
    return SESSION_FILES, WIDGET_FILES * int(max_upload_mb) * 2**20 + SLACK_BYTES


def positive_number(text):
    """``text`` as a positive number, or ``None``.

    >>> positive_number(" 12 "), positive_number("0"), positive_number("lots")
    (12.0, None, None)
    """
    try:
        value = float(str(text).strip())
    except ValueError:
        return None
    return value if value > 0 else None


def server_total_bytes(floor_bytes, environ=None, memory_bytes=None, variable=TOTAL_ENV):
    """What this process may hold in all (bytes): ``variable`` (MB) if set, else
    :data:`MEMORY_SHARE` of the machine's memory, shared among the
    ``FLDA_SERVER_PROCESSES`` that ``deploy/serve.sh`` starts (default 1), and never less
    than ``floor_bytes`` (one browser's budget: one student can always upload).  A
    setting that is not a positive number (processes: a whole number) is ignored.

    Examples
    --------
    >>> server_total_bytes(100, {"FLDA_UPLOADS_TOTAL_MB": "3000", "FLDA_SERVER_PROCESSES": "2"})
    1572864000
    >>> server_total_bytes(100, {}, memory_bytes=8 * 2**30) == 2 * 2**30
    True
    """
    environ = os.environ if environ is None else environ
    total_mb = positive_number(environ.get(variable, ""))
    if total_mb is not None:
        total = total_mb * 2**20
    else:
        if memory_bytes is None:
            try:
                memory_bytes = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            except (AttributeError, OSError, ValueError):
                memory_bytes = None
        total = MEMORY_SHARE * memory_bytes if memory_bytes else 4 * 2**30
    processes = str(environ.get(PROCESSES_ENV, "")).strip()
    processes = int(processes) if processes.isdigit() and int(processes) > 0 else 1
    return max(int(total) // processes, int(floor_bytes))


def client_key(cookies):
    """The browser a run comes from: the token of its XSRF cookie, one per browser and
    shared by its tabs, or ``""`` without one.  Streamlit masks the token anew on every
    page load (``2|mask|masked token|time``), so the token is unmasked here.

    >>> client_key({"_streamlit_xsrf": "2|01020304|0b0a0f0e|1700000000"})
    'browser:0a080c0a'
    """
    value = str(cookies.get("_streamlit_xsrf", "")).strip("\"'")
    parts = value.split("|")
    if len(parts) == 4 and parts[0] == "2":
        try:
            mask, masked = bytes.fromhex(parts[1]), bytes.fromhex(parts[2])
            value = bytes(b ^ mask[i % len(mask)] for i, b in enumerate(masked)).hex()
        except (ValueError, ZeroDivisionError):
            pass
    return f"browser:{value}" if value else ""


@dataclass(frozen=True)
class Held:
    """One held file as the budget sees it: its id, size, upload time, whether a run has
    read it, and the session that holds it."""

    file_id: str
    size: int
    added: float
    read: bool = False
    session: str = ""


def files_to_drop(held, referenced, new_size, budget, now):
    """Which of a browser's held files to drop so that a new file of ``new_size`` bytes fits.

    Parameters
    ----------
    held : sequence of Held
        The browser's files (not the one being replaced under the same id).
    referenced : set of str or None
        File ids an uploader shows; ``None`` when unknown (then no file is dropped).
    new_size : int
    budget : tuple of int
        ``(files, bytes)`` from :func:`session_budget`.
    now : float
        ``time.monotonic()``.

    Returns
    -------
    list of str or None
        File ids to drop, oldest first, or ``None`` (refuse the new file) when it cannot
        fit without dropping a file in use: shown, or unread and under
        :data:`FRESH_SECONDS` old.

    Examples
    --------
    >>> old = Held("a", 40, added=0.0, read=True)
    >>> files_to_drop([old], {"a"}, 80, (4, 100), now=100.0) is None
    True
    >>> files_to_drop([old], set(), 80, (4, 100), now=100.0)
    ['a']
    """
    max_files, max_bytes = budget
    if new_size > max_bytes:
        return None
    count, total = len(held) + 1, sum(f.size for f in held) + new_size
    dropped = []
    for file in sorted(held, key=lambda f: f.added):
        if count <= max_files and total <= max_bytes:
            break
        if referenced is None or file.file_id in referenced:
            continue  # an uploader shows it (or it cannot be told): in use
        if not file.read and now - file.added < FRESH_SECONDS:
            continue  # just uploaded: the rerun that reads it is on its way
        dropped.append(file.file_id)
        count, total = count - 1, total - file.size
    return None if count > max_files or total > max_bytes else dropped


def unread_over_share(held, client_of, requester, new_size, total_bytes, needed):
    """Unread files of browsers over their fair share to drop for ``needed`` bytes.

    The share is ``total_bytes`` over the browsers holding files and the requester; a
    requester over its share with the new file gets nothing (``None``), as when the
    unread files above the others' shares are not enough.

    Examples
    --------
    >>> hog = [Held(f"h{i}", 40, added=float(i), session="h") for i in range(3)]
    >>> [f.file_id for f in unread_over_share(hog, str, "me", 1, 120, 1)]
    ['h0']
    >>> unread_over_share(hog, str, "h", 1, 120, 1) is None
    True
    """
    usage = {}
    for file in held:
        usage[client_of(file.session)] = usage.get(client_of(file.session), 0) + file.size
    share = total_bytes / len(set(usage) | {requester})
    if usage.get(requester, 0) + new_size > share:
        return None
    taken = []
    for file in sorted((f for f in held if not f.read), key=lambda f: f.added):
        owner = client_of(file.session)
        if needed > 0 and owner != requester and usage[owner] > share:
            taken.append(file)
            usage[owner] -= file.size
            needed -= file.size
    return taken if needed <= 0 else None


class BoundedUploadedFileManager(MemoryUploadedFileManager):
    """Streamlit's in-memory upload store with a budget per browser and a fair total
    (installed by :func:`bound_uploads`; the upload endpoint calls ``add_file`` for every
    ``PUT``).  ``_held``, ``_shown`` and ``_clients`` are guarded by ``_budget_lock``."""

    def _bounded_init(self, budget, total_bytes):
        self.budget, self.total_bytes = budget, total_bytes
        self._budget_lock = threading.RLock()
        self._held = {}  # session id -> {file id: Held}
        self._shown = {}  # tab (explorer.ui.memory's token) -> file ids its uploaders show
        self._clients = {}  # session id -> browser (client_key), from the runs' notes

    def _files(self):
        return [h for files in self._held.values() for h in files.values()]

    def _client_of(self, session_id):
        return self._clients.get(session_id) or session_id

    def _referenced(self):
        return set().union(*self._shown.values())

    def add_file(self, session_id, file):
        """Store ``file`` if its browser's budget and the fair total allow it, after
        dropping what they allow (:func:`files_to_drop`, :func:`unread_over_share`);
        otherwise refuse the request with 413."""
        self.expire_unused()
        now, size = time.monotonic(), len(file.data)
        with self._budget_lock:
            client = self._client_of(session_id)
            others = [h for h in self._files() if (h.session, h.file_id) != (session_id, file.file_id)]
            mine = [h for h in others if self._client_of(h.session) == client]
            drop = files_to_drop(mine, self._referenced(), size, self.budget, now)
            if drop is None:
                max_files, max_bytes = self.budget
                raise _refused(
                    f"This browser already holds the most uploads it may ({max_files} files, "
                    f"{max_bytes // 2**20} MB in all, over all its tabs). Remove a file from an "
                    "uploader, or close a tab that holds one, then upload again."
                )
            dropped = [h for h in mine if h.file_id in drop]
            kept = [h for h in others if h not in dropped]
            needed = sum(h.size for h in kept) + size - self.total_bytes
            if needed > 0:
                taken = unread_over_share(kept, self._client_of, client, size, self.total_bytes, needed)
                if taken is None:
                    raise _refused(
                        f"The server holds as many uploads as it may for everyone at once "
                        f"({self.total_bytes // 2**20} MB). Try again in a few minutes, when "
                        "other sessions have ended, or use a smaller file; whoever runs the "
                        f"server can raise {TOTAL_ENV}."
                    )
                dropped += taken
            for held in dropped:
                self.remove_file(held.session, held.file_id)
            super().add_file(session_id, file)
            held = Held(file.file_id, size, now, session=session_id)
            self._held.setdefault(session_id, {})[file.file_id] = held

    def expire_unused(self, now=None):
        """Drop every file no uploader shows that a run has read (left behind: a page
        left, a ✕ whose ``DELETE`` never came) or that no run read within
        :data:`FRESH_SECONDS` of its upload; returns how many were dropped."""
        now = time.monotonic() if now is None else now
        with self._budget_lock:
            shown = self._referenced()
            stale = [
                h
                for h in self._files()
                if h.file_id not in shown and (h.read or now - h.added >= FRESH_SECONDS)
            ]
            for held in stale:
                self.remove_file(held.session, held.file_id)
        return len(stale)

    def note_shown(self, tab, file_ids, client):
        """A run of ``tab`` (in the browser ``client``) shows ``file_ids`` in its uploaders:
        they are in use, read, and their sessions belong to ``client``."""
        with self._budget_lock:
            self._shown[tab] = set(file_ids)
            for held in self._files():
                if held.file_id in self._shown[tab]:  # shown: read by that run
                    self._held[held.session][held.file_id] = replace(held, read=True)
                    self._clients[held.session] = client or self._client_of(held.session)

    def forget_tab(self, tab):
        """``tab`` is idle or gone: the files it showed go with it."""
        with self._budget_lock:
            gone = self._shown.pop(tab, set())
            for held in [h for h in self._files() if h.file_id in gone]:
                self.remove_file(held.session, held.file_id)

    def held_bytes(self):
        """Bytes all sessions of this process hold on the upload endpoint."""
        with self._budget_lock:
            return sum(h.size for h in self._files())

    def get_files(self, session_id, file_ids):
        """Streamlit's ``get_files``; the files returned count as read by a run."""
        found = super().get_files(session_id, file_ids)
        with self._budget_lock:
            held = self._held.get(session_id, {})
            for rec in found:
                if rec.file_id in held:
                    held[rec.file_id] = replace(held[rec.file_id], read=True)
        return found

    def remove_file(self, session_id, file_id):
        """Streamlit's ``remove_file`` (the browser's ``DELETE``), and out of the budget."""
        with self._budget_lock:
            super().remove_file(session_id, file_id)
            self._held.get(session_id, {}).pop(file_id, None)
            if not self._held.get(session_id, True):
                del self._held[session_id]

    def remove_session_files(self, session_id):
        """Streamlit's ``remove_session_files`` (the session ended), and the budget's."""
        with self._budget_lock:
            super().remove_session_files(session_id)
            self._held.pop(session_id, None)
            self._clients.pop(session_id, None)


def _refused(detail):
    from starlette.exceptions import HTTPException

    return HTTPException(status_code=413, detail=detail)


def bound_uploads(runtime=None, budget=None, total_bytes=None):
    """Give the running server's upload store a ``budget`` per browser (default
    :func:`session_budget` of ``server.maxUploadSize``) and a total (default
    :func:`server_total_bytes`) at server start; returns the bounded manager, or ``None``
    when there is no runtime or its store is not Streamlit's in-memory one."""
    from streamlit import config
    from streamlit.runtime import Runtime

    if runtime is None:
        if not Runtime.exists():  # the lifespan run without a server (a test)
            return None
        runtime = Runtime.instance()
    manager = runtime.uploaded_file_mgr
    if type(manager) not in (MemoryUploadedFileManager, BoundedUploadedFileManager):
        return None
    budget = budget or session_budget(config.get_option("server.maxUploadSize"))
    total_bytes = total_bytes or server_total_bytes(budget[1])
    if type(manager) is MemoryUploadedFileManager:
        # The upload routes hold this very object: change its class in place.
        manager.__class__ = BoundedUploadedFileManager
        manager._bounded_init(budget, total_bytes)
    manager.budget, manager.total_bytes = budget, total_bytes
    return manager


def manager():
    """The running server's :class:`BoundedUploadedFileManager`, or ``None`` (no server,
    as in ``AppTest``)."""
    from streamlit.runtime import Runtime

    found = Runtime.instance().uploaded_file_mgr if Runtime.exists() else None
    return found if isinstance(found, BoundedUploadedFileManager) else None


def widget_files():
    """``{key: file ids}`` of this run's file uploaders that hold files (their values are
    ``UploadedFile`` objects, whose ``file_id`` is public)."""
    import streamlit as st
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    found = {}
    for key in list(st.session_state.keys()):
        value = st.session_state.get(key)
        values = value if isinstance(value, list) else [value]
        ids = {v.file_id for v in values if isinstance(v, UploadedFile)}
        if ids:
            found[key] = ids
    return found


def room_note(held, total, largest):
    """The warning to show above the uploaders, or ``None`` while the server's total has
    room for a file of ``largest`` bytes (the page's largest allowed file).

    >>> room_note(100 * 2**20, 110 * 2**20, 50 * 2**20)[:60]
    'The server now holds 100 MB of uploads, of the 110 MB it all'
    >>> room_note(10, 110 * 2**20, 50 * 2**20) is None
    True
    """
    room = max(int(total) - int(held), 0)
    if room >= largest:
        return None
    return (
        f"The server now holds {_size(held)} of uploads, of the {_size(total)} it "
        f"allows for everyone at once: a file over {_size(room)} will be refused (the "
        "uploader then says “status code 413”). Try again in a few minutes, when other "
        "sessions have ended."
    )


def _size(n_bytes):
    return f"{n_bytes / 2**20:,.0f} MB" if n_bytes >= 2**20 else f"{n_bytes / 2**10:,.0f} KB"


def warn_when_server_is_full(largest):
    """An ``st.warning`` above a page's uploaders while the server's total (all sessions'
    uploads) has no room for a file of ``largest`` bytes, the page's largest (or
    ``server.maxUploadSize`` if smaller; :func:`room_note`)."""
    import streamlit as st
    from streamlit import config

    bounded = manager()
    largest = min(int(largest), int(config.get_option("server.maxUploadSize")) * 2**20)
    note = room_note(bounded.held_bytes(), bounded.total_bytes, largest) if bounded else None
    if note:
        st.warning(note, icon=":material/hourglass_top:")
