"""Which digit collections the Handwritten digits page shows: the offline default, MNIST
and USPS from OpenML, or a pair of uploaded files (:mod:`explorer.data.digits`), with
their sidebar controls.

An uploaded pair is held by the tab in the process's data store (:mod:`explorer.ui.memory`:
once per pair of digests, counted against the tab's budget, released when an uploader
drops its file or the tab is idle or closed); the fragments get it by weak reference
(:func:`fragment_handle`).
"""

from __future__ import annotations

import hashlib
import weakref

import streamlit as st

from explorer.data import digits as dg
from explorer.errors import DigitDataUnavailable
from explorer.safe_text import escape_markdown as esc
from explorer.ui import guard, memory, uploads

SOURCES = ("offline", "openml", "upload")
SOURCE_LABELS = {
    "offline": "Offline: scikit-learn digits (default)",
    "openml": "MNIST vs USPS (OpenML download)",
    "upload": "Your own pair of files",
}
OPENML_KEY = "dig_openml_data"  # last MNIST/USPS successfully loaded (DigitDomains)
OPENML_ERROR_KEY = "dig_openml_error"  # why the last MNIST/USPS load failed
UPLOAD_KEY = "dig_upload_data"  # file ids and rescale of the pair held (UPLOAD_ROLE)
UPLOAD_ROLE = "dig.pair"  # the uploaded pair in the data store
UPLOAD_HELP = (
    "One image per row, flattened row by row (side x side values, e.g. 256 for 16 x 16). "
    "CSV: a header row, a column named 'label' (or y, target, class, digit) and one column "
    "per pixel. NPZ (numpy.savez): arrays X of shape (n, side*side) or (n, side, side) and "
    f"y. At most {dg.MAX_UPLOAD_SAMPLES:,} images and {dg.MAX_UPLOAD_BYTES // 2**20} MB per "
    "file; both files must have the same image size and the same classes. " + uploads.REFUSED_HELP
)


@st.cache_resource(show_spinner=False, max_entries=4)
def offline_data(seed):
    return dg.make_offline_domains(random_state=seed)


@st.cache_resource(show_spinner=False, max_entries=2)
def openml_data(n_mnist, n_usps, seed):
    return dg.load_mnist_usps(n_mnist=n_mnist, n_usps=n_usps, random_state=seed)


def hold_upload_pair(file_a, file_b, rescale):
    """The uploaded pair as a :class:`~explorer.data.digits.DigitDomains` (float32
    images), held by this tab; ``UPLOAD_KEY`` keeps the pair's file ids and ``rescale``,
    so a rerun finds it without hashing the bytes."""
    data, session = memory.store(), memory.current_session()
    ids = (file_a.file_id, file_b.file_id, bool(rescale))
    held = data.get(session, UPLOAD_ROLE)
    if held is not None and st.session_state.get(UPLOAD_KEY) == ids:
        return held
    raw_a, raw_b = file_a.getvalue(), file_b.getvalue()
    key = ("digits", hashlib.sha256(raw_a).hexdigest(), file_a.name, hashlib.sha256(raw_b).hexdigest())
    pair = data.hold(
        session,
        UPLOAD_ROLE,
        (*key, file_b.name, bool(rescale)),
        lambda: dg.make_uploaded_domains((file_a.name, raw_a), (file_b.name, raw_b), rescale=rescale),
        what="your digit pair",
    )
    st.session_state[UPLOAD_KEY] = ids
    return pair


def draw_data_controls():
    """Data source widgets (in the sidebar)."""
    st.radio(
        "Digit collections",
        SOURCES,
        format_func=SOURCE_LABELS.get,
        key="dig.source",
        help="Offline: real scikit-learn digits turned into a frame-filling (USPS-like) "
        "and a centred (MNIST-like) domain, always available. MNIST vs USPS: the "
        "paper's data, downloaded once from OpenML and cached on disk. Your own: "
        "two files of flattened square images with labels.",
    )
    source = st.session_state["dig.source"]
    if source == "openml":
        st.number_input(
            "MNIST images",
            min_value=1_000,
            max_value=70_000,
            step=1_000,
            key="dig.n_mnist",
            help="Class-balanced random subsample of the 70,000 MNIST digits (resized "
            "28 x 28 -> 16 x 16). The paper uses 14,000. More images: slower fits.",
        )
        st.number_input(
            "USPS images",
            min_value=1_000,
            max_value=dg.PAPER_N_USPS,
            step=500,
            key="dig.n_usps",
            help="Random subsample of the 9,298 USPS digits (16 x 16), balanced as far as "
            "the classes allow. The paper uses all 9,298.",
        )
        st.button(
            "Load MNIST and USPS",
            key="dig_load_openml",
            type="primary",
            width="stretch",
            help="Download from OpenML on first use (a few tens of MB, kept in the "
            "server's data cache; the server's environment variable "
            "FLDA_CACHE_DIR chooses its folder). Later loads need no network.",
        )
    elif source == "upload":
        uploads.warn_when_server_is_full(dg.MAX_UPLOAD_BYTES)
        for domain in "AB":
            st.file_uploader(
                f"Domain {domain} file (CSV or NPZ)",
                type=["csv", "npz"],
                key=f"dig_file_{domain.lower()}",
                help=UPLOAD_HELP,
            )
        st.checkbox(
            "Scale each file to [0, 1]",
            key="dig.rescale",
            help="Map each file's smallest value to 0 and largest to 1 (e.g. MNIST "
            "0..255 or USPS -1..1). Leave on unless 0 already means 'no ink' "
            "in both files: dropout is about zeros.",
        )


def _openml(seed):
    """MNIST and USPS when loaded (the button, or the server's cache has them), with what
    went wrong the last time; ``None`` until then."""
    if st.session_state.get("dig_load_openml") or dg.is_cached():
        with guard.error_boundary("loading MNIST and USPS"):
            try:
                with st.spinner("Loading MNIST and USPS (the first time downloads from OpenML)…"):
                    n_mnist, n_usps = (
                        int(st.session_state["dig.n_mnist"]),
                        int(st.session_state["dig.n_usps"]),
                    )
                    st.session_state[OPENML_KEY] = openml_data(n_mnist, n_usps, seed)
                st.session_state.pop(OPENML_ERROR_KEY, None)
            except DigitDataUnavailable as error:
                st.session_state[OPENML_ERROR_KEY] = str(error)
    if OPENML_ERROR_KEY in st.session_state:
        st.error(
            "**MNIST/USPS could not be loaded.** "
            f"{esc(st.session_state[OPENML_ERROR_KEY])}"
            "\n\n**How to fix it:** check the network connection and press *Load "
            "MNIST and USPS* again (sidebar), or keep working with the data shown "
            "below.",
            icon=":material/cloud_off:",
        )
    return st.session_state.get(OPENML_KEY)


def _uploaded():
    """The uploaded pair when both files are there and valid (else what was held, with a
    note); an uploader that dropped its file (✕) releases the pair."""
    file_a, file_b = st.session_state.get("dig_file_a"), st.session_state.get("dig_file_b")
    data, session = memory.store(), memory.current_session()
    if file_a is None or file_b is None:
        data.release(session, UPLOAD_ROLE)
        st.session_state.pop(UPLOAD_KEY, None)
        return None
    with guard.error_boundary("reading your digit files", "These files cannot be used.") as outcome:
        hold_upload_pair(file_a, file_b, st.session_state["dig.rescale"])
    if outcome.failed:
        st.info(
            "The previously loaded pair is still shown."
            if data.get(session, UPLOAD_ROLE) is not None
            else "The offline default is shown meanwhile.",
            icon=":material/info:",
        )
    return data.get(session, UPLOAD_ROLE)


def resolve_data(seed):
    """The collections to show: the chosen source if loaded, else the offline default
    (with a note).  Errors are shown with ``st.error``; what was loaded stays."""
    source = st.session_state["dig.source"]
    if source == "offline":
        return offline_data(seed)
    loaded = _openml(seed) if source == "openml" else _uploaded()
    if loaded is None:
        until = "MNIST and USPS are loaded" if source == "openml" else "two valid files are uploaded"
        st.info(f"Showing the offline default until {until} (sidebar).", icon=":material/info:")
    return loaded or offline_data(seed)


def fragment_handle(data):
    """What the fragments get: an uploaded pair by weak reference.  Streamlit keeps a
    fragment's arguments for as long as it keeps the session (a closed tab's until
    its lazily expiring store drops it), which kept every pair alive after the data
    store released it; the store owns the pair (:func:`hold_upload_pair`)."""
    return weakref.proxy(data) if data.kind == "upload" else data


def released(data):
    """True if ``data`` is an uploaded pair the data store has released since the
    page ran (then the fragment reruns the whole page, which reads the pair again)."""
    try:
        return not data.kind
    except ReferenceError:
        return True
