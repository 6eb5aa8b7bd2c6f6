"""Controls several pages share: the keyboard focus style, the transfer-model choice,
the progress bar of long work and the slot for notes that come and go."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from explorer.ui.state import Setting

#: Keyboard focus ring (WCAG 2.4.7 / 2.4.11). Streamlit 1.67 draws no focus indicator on
#: sidebar page links, radios, checkboxes, text/number inputs and selectboxes, and only a
#: half-transparent ring (about 2.4:1 on white) on buttons. One colour serves both themes
#: (and a theme picked in the Settings menu, which CSS cannot see): #1E7BD6 has at least
#: 3:1 contrast against the light (#ffffff, sidebar #f0f2f6) and the dark (#171614,
#: sidebar #262730) backgrounds and is neither a classifier-family nor a class colour.
FOCUS_COLOR = "#1E7BD6"
FOCUS_CSS = f"""<style>
a:focus-visible, button:focus-visible, [role="slider"]:focus-visible,
[data-testid="stSidebarNavLink"]:focus-visible, summary:focus-visible,
label:has(> input[type="radio"]:focus-visible),
label:has(> input[type="checkbox"]:focus-visible),
[data-testid="stRadio"] label:has(input:focus-visible),
[data-testid="stCheckbox"] label:has(input:focus-visible),
[data-testid="stNumberInputContainer"]:has(input:focus-visible),
[data-testid="stTextInputRootElement"]:has(input:focus-visible),
[data-testid="stTextAreaRootElement"]:has(textarea:focus-visible),
[data-testid="stSelectbox"] div:has(> input:focus-visible),
[data-testid="stMultiSelect"] div:has(> input:focus-visible),
div:has(> div > input[type="range"]:focus-visible) {{
  outline: 3px solid {FOCUS_COLOR} !important;
  outline-offset: 2px !important;
}}
</style>"""


def show_focus_style():
    """Inject :data:`FOCUS_CSS` (a constant, never user data); ``app.py`` calls it once per run."""
    st.html(FOCUS_CSS)


# --- The transfer model FLDA uses (issue 15), one control on every page that fits FLDA.

#: Every transfer model of :mod:`flda_core.transfer_models`, dropout (the paper's) first
#: (``tests/app/test_lazy_imports.py`` checks it equals ``tuple(TRANSFER_MODELS)``; spelled out
#: so that importing this module does not load scikit-learn: the server's warm-up does,
#: ``explorer.ui.serving.warm_up_imports``).
TRANSFER_OPTIONS = ("dropout", "imputation", "two-sided", "rate")


def transfer_setting(prefix, options=TRANSFER_OPTIONS):
    """The URL-mirrored setting ``"<prefix>.transfer"`` (``?transfer=two-sided``)."""
    return Setting(f"{prefix}.transfer", "dropout", options=tuple(options))


def transfer_help(options=TRANSFER_OPTIONS, note=""):
    """Help text listing the one-line explanation of every model in ``options``."""
    from flda_core.transfer_models import TRANSFER_MODELS

    lines = "\n".join(f"- **{name}**: {TRANSFER_MODELS[name]}" for name in options)
    return (
        "How FLDA models the change from source to target; its parameters are "
        "estimated from the unlabelled target data (dropout is the paper's model, "
        "section 3.3.1; the others go beyond the paper).\n\n" + lines + (f"\n\n{note}" if note else "")
    )


def transfer_control(prefix, options=TRANSFER_OPTIONS, note="", container=None):
    """The "Transfer model" select box; returns the chosen model name."""
    return (container or st).selectbox(
        "Transfer model", tuple(options), key=f"{prefix}.transfer", help=transfer_help(options, note)
    )


def stable_slot():
    """A container for elements a page shows only sometimes (a note, a warning).

    Streamlit identifies elements by their place in the page: a note that comes and
    goes shifts every element after it, and the browser rebuilds those (data grids
    and charts: 0.3-0.5 s on the first θ change away from a paper preset).  Inside
    this container the note changes nothing after it.
    """
    return st.container()


@contextmanager
def progress_bar(text):
    """A progress bar for the duration of a ``with`` block; yields the callable
    ``progress(fraction, text)`` every ``flda_core`` experiment accepts
    (:mod:`explorer.experiments.progress`), passing on at most ten updates a second
    (:func:`~explorer.experiments.progress.throttled`).  The bar disappears afterwards."""
    from explorer.experiments.progress import throttled

    bar = st.progress(0.0, text=text)
    try:
        yield throttled(lambda fraction, message: bar.progress(min(1.0, max(0.0, fraction)), text=message))
    finally:
        bar.empty()
