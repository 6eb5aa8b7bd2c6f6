"""What one session may hold on Streamlit's upload endpoint (issue 26).

Streamlit keeps every file ``PUT`` to ``/_stcore/upload_file/<session>/<file id>`` in
memory (``MemoryUploadedFileManager``) until the browser deletes it or the session ends
(``server.disconnectedSessionTTL`` after the tab left, 120 s), and accepts any number of
files under made-up file ids: 16 files of 45 MB held 720 MB.  The app's pages use at
most two uploaders at a time (Your data's source and target, Digits' domains A and B),
and a browser deletes a single-file uploader's old file before it uploads the new one,
so :func:`bound_uploads` gives each session a budget (:func:`session_budget`): the two
files a page shows plus a small slack.  A file that would go over it first makes room
by dropping the session's files no widget refers to any more (those of a page left
behind: Streamlit does not delete them when the uploader disappears), oldest first;
files a widget refers to, and files uploaded in the last :data:`FRESH_SECONDS` that no
run has read yet (an upload whose rerun is on its way), are never dropped.  Files no
widget refers to that a run has read, or that no run read within
:data:`FRESH_SECONDS`, are dropped from every session before an upload is checked
against the server's total, and on every run (:func:`expire_unused_uploads`; issue 36:
three tabs that sent two 40 MB files each and never used them locked every other
student out).  If that is not enough the request gets a clean ``413`` with a message (no traceback), and the
refused file's bytes are released at once.

A class shares one server: sixty sessions at their budget would hold 6.6 GB.  So the
server's process also has a total (:func:`server_total_bytes`): a quarter of the
machine's memory, shared out among the processes ``deploy/serve.sh`` starts
(``FLDA_UPLOADS_TOTAL_MB`` sets the machine's total instead).  An upload that would
take the process over it is refused with a ``413`` that says so.  The browser's uploader
shows only "Request failed with status code 413", so the uploaders' help says what that
means (:data:`REFUSED_HELP`) and the pages warn above them while the server's total has
no room for one more file (:func:`warn_when_server_is_full`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

__all__ = [
    "FRESH_SECONDS",
    "SESSION_FILES",
    "SLACK_BYTES",
    "WIDGET_FILES",
    "TOTAL_ENV",
    "PROCESSES_ENV",
    "REFUSED_HELP",
    "BoundedUploadedFileManager",
    "Held",
    "bound_uploads",
    "drop_session_uploads",
    "expire_unused_uploads",
    "files_to_drop",
    "room_note",
    "server_room",
    "server_total_bytes",
    "session_budget",
    "warn_when_server_is_full",
]

#: Files the app's widgets refer to at once: one page's two uploaders.
WIDGET_FILES = 2
#: Files one session may hold: the widgets' files plus two being replaced or uploaded.
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
#: Share of the machine's memory that uploads may hold when ``FLDA_UPLOADS_TOTAL_MB``
#: is not set.
MEMORY_SHARE = 0.25
#: The end of every uploader's help: what the uploader's "status code 413" means.
REFUSED_HELP = (
    "If the uploader says “status code 413”, the server refused the file: this "
    "tab, or the whole class together, holds as many uploads as the server "
    "allows. Remove files you no longer need (their ✕), or try again in a few "
    "minutes."
)


def session_budget(max_upload_mb):
    """The most one session may hold: ``(files, bytes)``.

    Parameters
    ----------
    max_upload_mb : int
        ``server.maxUploadSize`` (MB): the largest single file.

    Returns
    -------
    tuple of int
        :data:`SESSION_FILES`, and :data:`WIDGET_FILES` files of ``max_upload_mb``
        plus :data:`SLACK_BYTES`.

    Examples
    --------
    >>> session_budget(50)
    (4, 115343360)
    """
    return SESSION_FILES, WIDGET_FILES * int(max_upload_mb) * 2**20 + SLACK_BYTES


def _machine_memory_bytes():
    """The machine's physical memory (bytes), or ``None`` where it cannot be read."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _positive_int(text):
    try:
        value = int(str(text).strip())
    except ValueError:
        return None
    return value if value > 0 else None


def server_total_bytes(session_bytes, environ=None, memory_bytes=None):
    """What this process's sessions may hold on the upload endpoint in all (bytes).

    The machine's total is ``FLDA_UPLOADS_TOTAL_MB`` (MB) if set, else
    :data:`MEMORY_SHARE` of its physical memory; a process gets its share of it among
    the ``FLDA_SERVER_PROCESSES`` that ``deploy/serve.sh`` starts (default 1), and never
    less than one session's budget (``session_bytes``), so one student can always
    upload.  A setting that is not a positive whole number is ignored.

    Examples
    --------
    >>> server_total_bytes(100, {"FLDA_UPLOADS_TOTAL_MB": "3000", "FLDA_SERVER_PROCESSES": "2"})
    1572864000
    >>> server_total_bytes(100, {}, memory_bytes=8 * 2**30) == 2 * 2**30
    True
    """
    environ = os.environ if environ is None else environ
    total_mb = _positive_int(environ.get(TOTAL_ENV, ""))
    if total_mb is not None:
        total = total_mb * 2**20
    else:
        memory = _machine_memory_bytes() if memory_bytes is None else memory_bytes
        total = int(MEMORY_SHARE * memory) if memory else 4 * 2**30
    processes = _positive_int(environ.get(PROCESSES_ENV, "")) or 1
    return max(total // processes, int(session_bytes))


@dataclass(frozen=True)
class Held:
    """One held file as the budget sees it: its id, size, upload time and whether a
    run has read it."""

    file_id: str
    size: int
    added: float
    read: bool = False


def files_to_drop(held, referenced, new_size, budget, now):
    """Which held files to drop so that a new file of ``new_size`` bytes fits.

    Parameters
    ----------
    held : sequence of Held
        The session's files (not the one being replaced under the same id).
    referenced : set of str or None
        File ids the session's widgets refer to; ``None`` when unknown (then no
        file is dropped).
    new_size : int
        Bytes of the new file.
    budget : tuple of int
        ``(files, bytes)`` from :func:`session_budget`.
    now : float
        The current time (``time.monotonic``).

    Returns
    -------
    list of str or None
        File ids to drop, oldest first (empty when it fits), or ``None`` when it
        cannot fit without dropping a file in use: refuse the new file.  A file is
        in use while a widget refers to it, and while it is younger than
        :data:`FRESH_SECONDS` and no run has read it.

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
            continue  # a widget shows it (or it cannot be told): in use
        if not file.read and now - file.added < FRESH_SECONDS:
            continue  # just uploaded: the rerun that reads it is on its way
        dropped.append(file.file_id)
        count, total = count - 1, total - file.size
    if count > max_files or total > max_bytes:
        return None
    return dropped


def _referenced_file_ids(runtime, session_id):
    """File ids in the session's file-uploader widget values, or ``None`` if unknown."""
    try:
        info = runtime._session_mgr.get_session_info(session_id)
        states = info.session.session_state.get_widget_states()
    except Exception:  # a run changing the states meanwhile, or another Streamlit
        return None
    return {
        item.file_id
        for state in states
        if state.WhichOneof("value") == "file_uploader_state_value"
        for item in state.file_uploader_state_value.uploaded_file_info
    }


class BoundedUploadedFileManager(MemoryUploadedFileManager):
    """Streamlit's in-memory upload store with a per-session budget.

    Installed on the running server's own manager by :func:`bound_uploads` (its
    routes hold that object), so ``add_file`` is called by the upload endpoint for
    every ``PUT``.  ``_held`` (what the budget sees) is guarded by ``_budget_lock``,
    Streamlit's storage by its own ``_lock``.
    """

    def _bounded_init(self, runtime, budget, total_bytes):
        import threading

        self._runtime = runtime
        self.budget = budget
        self.total_bytes = total_bytes
        self._budget_lock = threading.RLock()
        self._held = {}  # session id -> {file id: Held}
        with self._lock:
            stored = {s: dict(files) for s, files in self.file_storage.items()}
        for session_id, files in stored.items():  # already uploaded: count as read
            self._held[session_id] = {
                i: Held(i, len(f.data), time.monotonic(), True) for i, f in files.items()
            }

    def add_file(self, session_id, file):
        """Store ``file`` if the session's budget allows it, after dropping files no
        widget uses (:func:`files_to_drop`); otherwise refuse the request with 413."""
        from starlette.exceptions import HTTPException

        referenced = _referenced_file_ids(self._runtime, session_id)
        self.expire_unused()
        with self._budget_lock:
            others = [h for i, h in self._held.get(session_id, {}).items() if i != file.file_id]
            drop = files_to_drop(others, referenced, len(file.data), self.budget, time.monotonic())
            if drop is None:
                max_files, max_bytes = self.budget
                raise HTTPException(
                    status_code=413,
                    detail=(
                        f"This session already holds the most uploads it may ({max_files} "
                        f"files, {max_bytes // 2**20} MB in all). Remove a file from an "
                        "uploader, or reload the page, then upload again."
                    ),
                )
            replaced = self._held.get(session_id, {}).get(file.file_id)
            freed = sum(h.size for h in others if h.file_id in drop) + (replaced.size if replaced else 0)
            if self.held_bytes() - freed + len(file.data) > self.total_bytes:
                raise HTTPException(
                    status_code=413,
                    detail=(
                        f"The server holds as many uploads as it may for everyone at once "
                        f"({self.total_bytes // 2**20} MB). Try again in a few minutes, when "
                        f"other sessions have ended, or use a smaller file; whoever runs the "
                        f"server can raise {TOTAL_ENV}."
                    ),
                )
            for file_id in drop:
                self.remove_file(session_id, file_id)
            super().add_file(session_id, file)
            self._held.setdefault(session_id, {})[file.file_id] = Held(
                file.file_id, len(file.data), time.monotonic()
            )

    def expire_unused(self, now=None):
        """Drop every session's files that no widget refers to and that a run has read
        (left behind: a page left, a ✕ whose ``DELETE`` never came) or that no run read
        within :data:`FRESH_SECONDS` of their upload (a tab that sent files and never
        ran with them); returns how many were dropped."""
        now = time.monotonic() if now is None else now
        with self._budget_lock:
            stale = {
                session_id: [h.file_id for h in held.values() if h.read or now - h.added >= FRESH_SECONDS]
                for session_id, held in self._held.items()
            }
        dropped = 0
        for session_id, file_ids in stale.items():
            if not file_ids:
                continue
            referenced = _referenced_file_ids(self._runtime, session_id)
            if referenced is None:
                continue  # cannot be told (a run changing the states): keep them
            for file_id in file_ids:
                if file_id not in referenced:
                    self.remove_file(session_id, file_id)
                    dropped += 1
        return dropped

    def held_bytes(self):
        """Bytes all sessions of this process hold on the upload endpoint."""
        with self._budget_lock:
            return sum(h.size for files in self._held.values() for h in files.values())

    def get_files(self, session_id, file_ids):
        """Streamlit's ``get_files``; the files returned count as read by a run."""
        found = super().get_files(session_id, file_ids)
        with self._budget_lock:
            held = self._held.get(session_id, {})
            for rec in found:
                entry = held.get(rec.file_id)
                if entry is not None and not entry.read:
                    held[rec.file_id] = Held(entry.file_id, entry.size, entry.added, True)
        return found

    def remove_file(self, session_id, file_id):
        """Streamlit's ``remove_file`` (the browser's ``DELETE``), and out of the budget."""
        with self._budget_lock:
            super().remove_file(session_id, file_id)
            held = self._held.get(session_id)
            if held is not None:
                held.pop(file_id, None)
                if not held:
                    self._held.pop(session_id, None)

    def remove_session_files(self, session_id):
        """Streamlit's ``remove_session_files`` (the session ended), and the budget's."""
        with self._budget_lock:
            super().remove_session_files(session_id)
            self._held.pop(session_id, None)


def bound_uploads(runtime=None, budget=None, total_bytes=None):
    """Give the running server's upload store a per-session budget and a total
    (server start).

    Parameters
    ----------
    runtime : streamlit.runtime.Runtime, optional
        The server's runtime (default: ``Runtime.instance()``).
    budget : tuple of int, optional
        ``(files, bytes)``; default :func:`session_budget` of ``server.maxUploadSize``.
    total_bytes : int, optional
        What all sessions may hold; default :func:`server_total_bytes`.

    Returns
    -------
    BoundedUploadedFileManager or None
        The bounded manager, or ``None`` when there is no runtime or its store is
        not Streamlit's in-memory one (then nothing is changed).
    """
    from streamlit import config
    from streamlit.runtime import Runtime

    if runtime is None:
        if not Runtime.exists():  # the lifespan run without a server (a test)
            return None
        runtime = Runtime.instance()
    manager = runtime.uploaded_file_mgr
    if type(manager) not in (MemoryUploadedFileManager, BoundedUploadedFileManager):
        return None
    if budget is None:
        budget = session_budget(config.get_option("server.maxUploadSize"))
    if total_bytes is None:
        total_bytes = server_total_bytes(budget[1])
    if type(manager) is MemoryUploadedFileManager:
        # The upload routes hold this very object: change its class in place.
        manager.__class__ = BoundedUploadedFileManager
        manager._bounded_init(runtime, budget, total_bytes)
    else:
        manager.budget, manager.total_bytes = budget, total_bytes
    return manager


def drop_session_uploads(session_id):
    """Drop every file a session holds on the upload endpoint (an idle session culled by
    :mod:`explorer.ui.memory`); nothing without a bounded store."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return
    manager = Runtime.instance().uploaded_file_mgr
    if isinstance(manager, BoundedUploadedFileManager):
        manager.remove_session_files(session_id)


def expire_unused_uploads():
    """:meth:`BoundedUploadedFileManager.expire_unused` on the running server's store."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return 0
    manager = Runtime.instance().uploaded_file_mgr
    return manager.expire_unused() if isinstance(manager, BoundedUploadedFileManager) else 0


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


def server_room():
    """``(held, total)`` bytes of this server process's bounded upload store, or ``None``
    without one (no server running, as in ``AppTest``)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    manager = Runtime.instance().uploaded_file_mgr
    if not isinstance(manager, BoundedUploadedFileManager):
        return None
    return manager.held_bytes(), manager.total_bytes


def warn_when_server_is_full(largest):
    """An ``st.warning`` above a page's uploaders while the server's total (all sessions'
    uploads) has no room for a file of ``largest`` bytes, the page's largest (or
    ``server.maxUploadSize`` if smaller; :func:`room_note`)."""
    import streamlit as st
    from streamlit import config

    room = server_room()
    largest = min(int(largest), int(config.get_option("server.maxUploadSize")) * 2**20)
    note = room_note(*room, largest) if room else None
    if note:
        st.warning(note, icon=":material/hourglass_top:")
