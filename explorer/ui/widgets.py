"""Controls several pages share: the keyboard focus style, the transfer-model choice,
the progress bar of long work and the slot for notes that come and go."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from explorer.ui.state import Setting

#: Keyboard focus ring (WCAG 2.4.7 / 2.4.11): Streamlit 1.67 draws none on many widgets and
#: a 2.4:1 one on buttons.  #1E7BD6 has at least 3:1 contrast on the light and dark
#: backgrounds (CSS cannot see the theme) and is no family or class colour.
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


# --- The transfer model FLDA uses (issue 15), one control on every page that fits FLDA.

#: ``tuple(TRANSFER_MODELS)``, spelled out so this import does not load scikit-learn
#: (``tests/app/test_lazy_imports.py`` checks they are equal).
TRANSFER_OPTIONS = ("dropout", "imputation", "two-sided", "rate")


def transfer_setting(prefix, options=TRANSFER_OPTIONS):
    """The URL-mirrored setting ``"<prefix>.transfer"`` (``?transfer=two-sided``)."""
    return Setting(f"{prefix}.transfer", "dropout", options=tuple(options))


def transfer_control(prefix, options=TRANSFER_OPTIONS, note="", container=None):
    """The "Transfer model" select box, explaining every model; returns the chosen name."""
    from flda_core.transfer_models import TRANSFER_MODELS

    lines = "\n".join(f"- **{name}**: {TRANSFER_MODELS[name]}" for name in options)
    help_text = (
        "How FLDA models the change from source to target; its parameters are "
        "estimated from the unlabelled target data (dropout is the paper's model, "
        "section 3.3.1; the others go beyond the paper).\n\n" + lines + (f"\n\n{note}" if note else "")
    )
    return (container or st).selectbox(
        "Transfer model", tuple(options), key=f"{prefix}.transfer", help=help_text
    )


def stable_slot():
    """A container for elements a page shows only sometimes (a note, a warning).

    Elements are identified by place: a note that comes and goes would make the browser
    rebuild every element after it (0.3-0.5 s).
    """
    return st.container()


@contextmanager
def progress_bar(text):
    """A progress bar for a ``with`` block; yields a ``progress(fraction, text)`` throttled
    to ten updates a second.  The bar disappears afterwards."""
    from explorer.experiments.progress import throttled

    bar = st.progress(0.0, text=text)
    try:
        yield throttled(lambda fraction, message: bar.progress(min(1.0, max(0.0, fraction)), text=message))
    finally:
        bar.empty()
