"""Which digit collections the Handwritten digits page shows (offline, or MNIST and USPS
from OpenML), with their sidebar controls."""

from __future__ import annotations

import streamlit as st

from explorer.data import digits as dg
from explorer.errors import DigitDataUnavailable
from explorer.safe_text import escape_markdown as esc
from explorer.ui import guard, navigation

SOURCES = ("offline", "openml")
SOURCE_LABELS = {
    "offline": "Offline: scikit-learn digits (default)",
    "openml": "MNIST vs USPS (OpenML download)",
}
OPENML_KEY = "dig_openml_data"  # last MNIST/USPS successfully loaded (DigitDomains)
OPENML_ERROR_KEY = "dig_openml_error"  # why the last MNIST/USPS load failed


@st.cache_resource(show_spinner=False, max_entries=4)
def offline_data(seed):
    return dg.make_offline_domains(random_state=seed)


@st.cache_resource(show_spinner=False, max_entries=2)
def openml_data(n_mnist, n_usps, seed):
    return dg.load_mnist_usps(n_mnist=n_mnist, n_usps=n_usps, random_state=seed)


def draw_data_controls():
    """Data source widgets (in the sidebar)."""
    st.radio(
        "Digit collections",
        SOURCES,
        format_func=SOURCE_LABELS.get,
        key="dig.source",
        help="Offline: real scikit-learn digits turned into a frame-filling (USPS-like) "
        "and a centred (MNIST-like) domain, always available. MNIST vs USPS: the "
        "paper's data, downloaded once from OpenML and cached on disk.",
    )
    if st.session_state["dig.source"] == "openml":
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
    st.caption("A digit CSV of your own (a label column and one column per pixel) runs on Your data.")
    navigation.page_link("pages/your_data.py", label="Open Your data", icon=":material/upload_file:")


def _openml(seed):
    """MNIST and USPS when loaded (the button, or the server's cache has them), with what
    went wrong the last time; ``None`` until then."""
    if st.session_state.get("dig_load_openml") or dg.is_cached():
        with guard.error_boundary("loading MNIST and USPS"):
            try:
                with st.spinner("Loading MNIST and USPS (the first time downloads from OpenML)…"):
                    sizes = int(st.session_state["dig.n_mnist"]), int(st.session_state["dig.n_usps"])
                    st.session_state[OPENML_KEY] = openml_data(*sizes, seed)
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


def resolve_data(seed):
    """The collections to show: the chosen source if loaded, else the offline default
    (with a note).  Errors are shown with ``st.error``; what was loaded stays."""
    if st.session_state["dig.source"] == "offline":
        return offline_data(seed)
    loaded = _openml(seed)
    if loaded is None:
        st.info(
            "Showing the offline default until MNIST and USPS are loaded (sidebar).", icon=":material/info:"
        )
    return loaded or offline_data(seed)
