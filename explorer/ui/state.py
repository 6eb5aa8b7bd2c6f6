"""Session and URL state shared by every page: settings mirrored in the URL, the seed,
presentation mode.

Conventions every page follows
------------------------------
* Widget keys that survive switching pages contain a dot and start with the page's
  prefix (``"syn.n_source"``; :func:`keep_widget_state`).  Keys of file uploaders and
  buttons must *not* contain a dot (Streamlit forbids setting their state).
* A page's settings are mirrored in the URL: :func:`restore_from_url` before drawing
  widgets, :func:`write_to_url` after.
* ``?present=1`` switches on presentation mode: pages hide their controls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from explorer.presentation import PRESENT_PARAM
from explorer.safe_text import escape_markdown
from explorer.url_state import encode_url_value, validate_url_value

SEED_KEY = "shared.seed"
#: Session flag of presentation mode (it outlives the query string; see presentation_mode).
PRESENT_KEY = "shared.present"
#: Session flag: the browser has drawn a chart of this session (it said so;
#: :func:`explorer.ui.charts.show_chart`).
CHART_DRAWN_KEY = "_flda_chart_drawn"
#: Session flag: a run stopped after its first chart and owes the rest of its page.
REST_OWED_KEY = "_flda_rest_owed"
#: Session notes about values of the link that were ignored: setting key -> note.
LINK_NOTES_KEY = "_flda_link_notes"


def start_run():
    """What every run does first (``app.py``): forget the notes about the link's values
    once shown on a whole page (a run owing the rest of its page keeps them)."""
    if not st.session_state.get(REST_OWED_KEY, False):
        st.session_state.pop(LINK_NOTES_KEY, None)


@dataclass(frozen=True)
class Setting:
    """A widget value that lives in ``st.session_state[key]`` and in the URL.

    ``options`` or ``lo``/``hi`` bound what a URL may set, ``ordered`` marks a two-valued
    range (:func:`explorer.url_state.validate_url_value`).  ``check(value)`` returns why a
    link's well-typed value is unusable, or None; it may read the settings listed before.
    """

    key: str
    default: Any
    options: Sequence[Any] | None = None
    lo: float | None = None
    hi: float | None = None
    ordered: bool = False
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)

    @property
    def url_name(self):
        return self.key.split(".", 1)[-1] if "." in self.key else self.key


def get_seed():
    """The random seed chosen in the sidebar (shared by every page)."""
    return int(st.session_state.get(SEED_KEY, 0))


def presentation_mode():
    """True in presentation mode (``?present=1``; ``?present=0`` ends it), remembered in
    the session because navigation drops the query string."""
    raw = st.query_params.get(PRESENT_PARAM)
    if raw is not None:
        st.session_state[PRESENT_KEY] = str(raw).lower() in ("1", "true", "yes")
    return bool(st.session_state.get(PRESENT_KEY, False))


def keep_presentation_in_url():
    """Put ``?present=1`` back into the URL after a page switch (``app.py``, every run)."""
    if presentation_mode() and st.query_params.get(PRESENT_PARAM) != "1":
        st.query_params[PRESENT_PARAM] = "1"


def keep_widget_state():
    """Re-assign every dotted key, so Streamlit keeps the widget state of pages not shown."""
    for key in list(st.session_state.keys()):
        if isinstance(key, str) and "." in key:
            st.session_state[key] = st.session_state[key]


def restore_from_url(settings):
    """Initialise missing session values from the URL, else from the defaults.

    Session values win over the URL.  An invalid URL value is ignored, one out of range
    moved to the nearest bound, a reversed range put in order, each with an ``st.info``
    that stays until shown on a whole page (:func:`start_run`).
    """
    notes = st.session_state.setdefault(LINK_NOTES_KEY, {})
    for setting in settings:
        if setting.key in st.session_state:
            continue
        outcome = validate_url_value(
            setting.url_name,
            st.query_params.get(setting.url_name),
            setting.default,
            setting.options,
            setting.lo,
            setting.hi,
            setting.ordered,
        )
        value, note = outcome.value, outcome.note
        if outcome.accepted and setting.check is not None:
            problem = setting.check(value)
            if problem:
                value = setting.default
                note = f"Ignored the link's value of {setting.url_name!r}: {problem}"
        st.session_state[setting.key] = value
        if note:
            notes[setting.key] = note
    for setting in settings:
        if setting.key in notes:
            st.info(escape_markdown(notes[setting.key]), icon=":material/link_off:")


def write_to_url(settings):
    """Mirror the current values of ``settings`` into the URL query string.

    All in one update: each query-string message costs the browser a history entry and a
    re-render (0.1-0.3 s for a first visit's ten).
    """
    changed = {}
    for setting in settings:
        if setting.key not in st.session_state:
            continue
        encoded = encode_url_value(st.session_state[setting.key])
        if st.query_params.get(setting.url_name) != encoded:
            changed[setting.url_name] = encoded
    if changed:
        st.query_params.update(changed)


def apply_values(values):
    """Set several session values at once (use as an ``on_click`` callback for presets)."""
    for key, value in values.items():
        st.session_state[key] = value
