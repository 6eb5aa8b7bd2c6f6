"""The files a tab of "Your data" has loaded, and what it holds of them (issue 36).

Session state (keys with the page prefix survive switching pages):

* ``data.files`` -- ``{"source": {"name", "digest", "origin"}, "target": {...}}``: names
  and digests only.  The parsed tables, prepared arrays and result tables are held in the
  process's data store (:mod:`explorer.ui.memory`: once per digest, counted against the
  tab's budget and the server's total, released with the file or an idle tab).  Every
  way of loading a file goes through :func:`accept_file`, which replaces the file only
  when :func:`explorer.data.csv.parse_csv` accepts the bytes; ``origin`` says how to read
  a released file again (``("upload", file id)``, ``("sample", key)``, ``("uci", key)``).
* ``data.rejected`` -- the last rejected file per slot with its message.
* ``data.sample`` -- the sample pair loaded (``?sample=...``), ``""`` after an upload.
* ``data.choices`` -- a copy of the option widgets' values (:func:`kept`,
  :func:`set_choice`), put back by :func:`restore_choices`, so the choices survive pages
  that do not draw these widgets.

Keys carry each file's digest (computed once, on acceptance), not its bytes: with a 45 MB
pair, hashing the bytes for every cached call and unpickling the cached tables cost 1.6 s
a run, and recomputing the result tables 1.5 s.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np
import streamlit as st

from explorer import registry
from explorer.data import csv as csvio
from explorer.data import tabular as tab
from explorer.data import uci
from explorer.error_report import describe_error
from explorer.experiments import your_data as yd
from explorer.safe_text import escape_markdown as esc
from explorer.ui import memory

SLOTS = ("source", "target")
FILES_KEY, REJECTED_KEY, SAMPLE_KEY = "data.files", "data.rejected", "data.sample"
CHOICES_KEY = "data.choices"
SEEN_KEY, RELEASED_KEY = "data.seen_uploads", "data.released"
ROLES = {"source": "data.source", "target": "data.target"}
PREPARED_ROLE, RESULTS_ROLE = "data.prepared", "data.results"


def set_choice(key, value):
    """Set an option widget's value and remember it (see ``data.choices``)."""
    st.session_state[key] = value
    st.session_state.setdefault(CHOICES_KEY, {})[key] = value


def _remember(key):
    if key in st.session_state:
        st.session_state.setdefault(CHOICES_KEY, {})[key] = st.session_state[key]


def kept(key):
    """An option widget's ``key`` and the ``on_change`` that remembers its value."""
    return dict(key=key, on_change=_remember, args=(key,))


def restore_choices():
    """Put back the remembered options (see ``data.choices``)."""
    for key, value in st.session_state.get(CHOICES_KEY, {}).items():
        if st.session_state.get(key) != value:
            st.session_state[key] = value


def _hold(role, key, make, what):
    return memory.store().hold(memory.current_session(), role, key, make, what=what)


def hold_table(slot, digest, name, raw):
    """:func:`explorer.data.csv.parse_csv` of ``raw``, held by this tab as its ``slot``
    file (once per ``digest`` and name in the process; shared: never modify it)."""
    parse = functools.partial(csvio.parse_csv, raw, name)
    return _hold(ROLES[slot], ("csv", digest, name), parse, f"the table of {name}")


def table(slot):
    """The parsed table of the loaded ``slot`` file (:func:`hold_table`)."""
    return memory.store().get(memory.current_session(), ROLES[slot])


def prepare_held(key, source_table, target_table):
    """:func:`explorer.data.tabular.prepare_domains` of the tables and options in ``key``
    (the page's ``read_inputs``), held by this tab (once per key in the process); its
    arrays are read-only (shared)."""
    (_, _, target_digest, _, label, match, missing, exclude, scale) = key

    def prepare():
        source, target = source_table, target_table
        if target_digest is None:  # one file with gaps: complete rows vs rows with a gap
            source, target = uci.split_by_missing(source, label, exclude)
        prepared = tab.prepare_domains(
            source, target, label, match=match, missing=missing, exclude=exclude, scale=scale
        )
        for value in vars(prepared).values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        return prepared

    return _hold(PREPARED_ROLE, ("prepared", *key), prepare, "the prepared arrays")


def result_tables_held(key, l2, transfer, prepared, models):
    """θ̂ per feature, the error table and the predictions of ``models`` (fitted with
    ``key``, ``l2`` and ``transfer``), held by this tab (once per process; shared)."""
    return _hold(
        RESULTS_ROLE,
        ("results", key, l2, transfer, tuple(models)),
        lambda: (
            yd.theta_frame(prepared, models),
            yd.target_error_table(prepared, models),
            yd.predictions_frame(prepared, models),
        ),
        "the result tables",
    )


def accept_file(slot, name, raw, origin=None):
    """Validate ``raw`` and hold its table as the ``slot`` file; keep the old file if
    invalid (or over the memory budget).  The single entry point for uploads and shipped
    files (``origin``: how to read the file again).  Returns True when accepted."""
    rejected = st.session_state.setdefault(REJECTED_KEY, {})
    digest = hashlib.blake2b(raw, digest_size=16).hexdigest()
    previous = st.session_state.get(FILES_KEY, {}).get(slot)
    try:
        hold_table(slot, digest, name, raw)
    except Exception as error:  # shown under the uploader: problem and fix, never a traceback
        report = describe_error(error, "reading an uploaded file")
        rejected[slot] = {"name": name, "message": report.message, "hint": report.hint}
        if previous is not None and previous["digest"] != digest:  # hold it again if it went
            restore_file(slot, previous)
        return False
    st.session_state.setdefault(FILES_KEY, {})[slot] = {"name": name, "digest": digest, "origin": origin}
    rejected.pop(slot, None)
    return True


def forget_file(slot):
    """The ``slot`` file is gone (its uploader dropped it): release what this tab holds
    of it and of the results made with it."""
    st.session_state.get(FILES_KEY, {}).pop(slot, None)
    for role in (ROLES[slot], PREPARED_ROLE, RESULTS_ROLE):
        memory.store().release(memory.current_session(), role)


def take_upload(slot, uploaded):
    """Process a new upload once (uploads stay in the widget across reruns); a file the
    uploader dropped (its ✕) leaves memory; a file whose table was released (the tab
    was idle) is read again from the uploader."""
    seen = st.session_state.setdefault(SEEN_KEY, {})
    current = st.session_state.get(FILES_KEY, {}).get(slot)
    ours = current is not None and current.get("origin") == ("upload", seen.get(slot))
    if uploaded is None:
        dropped = seen.pop(slot, None)
        st.session_state.get(REJECTED_KEY, {}).pop(slot, None)
        if dropped is not None and ours:
            if table(slot) is None:
                st.session_state[RELEASED_KEY] = current["name"]  # culled with its upload
            forget_file(slot)
    elif seen.get(slot) != uploaded.file_id or (ours and table(slot) is None):
        new = seen.get(slot) != uploaded.file_id
        seen[slot] = uploaded.file_id
        accepted = accept_file(slot, uploaded.name, uploaded.getvalue(), ("upload", uploaded.file_id))
        if accepted and new:
            st.session_state[SAMPLE_KEY] = ""


def shipped_file(origin, slot):
    """``(name, bytes)`` of a file the repository ships: ``origin`` is ``("sample", key)``
    (a pair of :data:`explorer.data.tabular.SAMPLE_SETS`) or ``("uci", key)``."""
    kind, key = origin
    if kind == "sample":
        source_name, source_raw, target_name, target_raw = tab.read_sample(key, registry.SAMPLE_DIR)
        return (source_name, source_raw) if slot == "source" else (target_name, target_raw)
    name = uci.UCI_SETS[key].file
    return name, (uci.UCI_DIR / name).read_bytes()


def load_shipped(kind, key):
    """Button callback: load a sample pair (``kind`` "sample") or a UCI file with gaps
    ("uci", the source of one file), with its label column."""
    spec = tab.SAMPLE_SETS[key] if kind == "sample" else uci.UCI_SETS[key]
    slots = SLOTS if kind == "sample" else SLOTS[:1]
    if all(accept_file(slot, *shipped_file((kind, key), slot), (kind, key)) for slot in slots):
        st.session_state[SAMPLE_KEY] = key if kind == "sample" else ""
        set_choice("data.label", spec.label)
        set_choice("data.exclude", list(getattr(spec, "exclude", ())))


def restore_file(slot, current):
    """Hold the table of a shipped file again; True if done."""
    origin = tuple(current.get("origin") or ())
    known = {"sample": tab.SAMPLE_SETS, "uci": uci.UCI_SETS}
    if len(origin) != 2 or origin[1] not in known.get(origin[0], ()):
        return False
    hold_table(slot, current["digest"], *shipped_file(origin, slot))
    return True


def loaded(slot):
    """The accepted ``slot`` file, ``{"name", "digest", "origin"}``, or None; one whose
    table was released is read again if shipped (uploads: :func:`take_upload`), else
    forgotten with a note."""
    current = st.session_state.get(FILES_KEY, {}).get(slot)
    if current is None or table(slot) is not None:
        return current
    try:
        restored = restore_file(slot, current)
    except Exception:  # over the budget now: the file is gone, with the note
        restored = False
    if restored:
        return current
    forget_file(slot)
    st.session_state[RELEASED_KEY] = current["name"]
    return None


def show_released_note():
    """Say once that a file was released (the tab was idle, or the server needed room)."""
    name = st.session_state.pop(RELEASED_KEY, None)
    if name is not None:
        idle = memory.store().idle_seconds / 60
        st.info(
            f"**{esc(name)}** was released from the server's memory: this tab had been "
            f"idle (no action for {idle:,.0f} minutes, or over a minute while the server "
            "needed the room, or it held more than its share while others needed it). "
            "Load it again to continue.",
            icon=":material/history:",
        )
