"""Streamlit plumbing shared by every page: seed, URL state, presentation mode.

This module is the only place (besides ``app.py`` and ``pages/``) that imports
streamlit; ``flda_core`` never does.

Conventions every page follows
------------------------------
* Widget keys that should survive switching pages contain a dot and start with
  the page's prefix, e.g. ``"syn.n_source"``.  ``app.py`` calls
  :func:`keep_widget_state` on every run so Streamlit does not drop them when
  their page is not shown.  Keys of file uploaders and buttons must *not*
  contain a dot (Streamlit forbids setting their state).
* A page's settings are mirrored in the URL query string so a configuration
  can be shared: call :func:`restore_from_url` with the page's
  :class:`Setting` list before drawing widgets and :func:`write_to_url` after.
* ``?present=1`` in the URL switches on presentation mode: pages hide their
  controls and show clean figures for a lecture.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from numbers import Real
from typing import Any, Sequence

import streamlit as st

SEED_KEY = "shared.seed"
PRESENT_PARAM = "present"

__all__ = ["Setting", "SEED_KEY", "get_seed", "presentation_mode", "keep_widget_state",
           "restore_from_url", "write_to_url", "apply_values", "cached_domains"]


@dataclass(frozen=True)
class Setting:
    """A widget value that lives in ``st.session_state[key]`` and in the URL.

    ``options`` (for selects/radios) or ``lo``/``hi`` (for numbers and sliders)
    bound what a URL may set; anything else in the URL is ignored, never raised.
    """

    key: str
    default: Any
    options: Sequence[Any] | None = None
    lo: float | None = None
    hi: float | None = None

    @property
    def url_name(self):
        return self.key.split(".", 1)[-1] if "." in self.key else self.key

    def accepts(self, value):
        """Whether ``value`` (decoded from JSON) is a valid value of this setting."""
        if self.options is not None:
            values = value if isinstance(self.default, (list, tuple)) else [value]
            return isinstance(values, (list, tuple)) and all(v in self.options for v in values)
        if isinstance(self.default, bool):
            return isinstance(value, bool)
        if isinstance(self.default, Real):
            values = [value]
        elif isinstance(self.default, (list, tuple)):
            if not isinstance(value, list) or len(value) != len(self.default):
                return False
            values = value
        elif isinstance(self.default, str):
            return isinstance(value, str)
        else:
            return False
        for v in values:
            if isinstance(v, bool) or not isinstance(v, Real):
                return False
            if isinstance(self.default, int) and not isinstance(self.default, bool) \
                    and not float(v).is_integer():
                return False
            if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
                return False
        return True

    def coerce(self, value):
        if isinstance(self.default, tuple):
            return tuple(value)
        if isinstance(self.default, int) and not isinstance(self.default, bool):
            return int(value)
        if isinstance(self.default, float):
            return float(value)
        return value


def get_seed():
    """The random seed chosen in the sidebar (shared by every page)."""
    return int(st.session_state.get(SEED_KEY, 0))


def presentation_mode():
    """True when the URL carries ``?present=1``: pages hide their controls."""
    return str(st.query_params.get(PRESENT_PARAM, "")).lower() in ("1", "true", "yes")


def keep_widget_state():
    """Stop Streamlit from deleting widget state of pages that are not shown.

    Streamlit removes a widget's value at the end of a run in which the widget
    was not drawn; re-assigning it marks it as user state.  Applies to every
    key containing a dot (see the module conventions).
    """
    for key in list(st.session_state.keys()):
        if isinstance(key, str) and "." in key:
            st.session_state[key] = st.session_state[key]


def restore_from_url(settings):
    """Initialise missing session values from the URL, else from the defaults.

    Values already in the session (the user moved a widget) win over the URL.
    """
    for setting in settings:
        if setting.key in st.session_state:
            continue
        raw = st.query_params.get(setting.url_name)
        value = setting.default
        if raw is not None:
            try:
                decoded = json.loads(raw)
            except (TypeError, ValueError):
                decoded = raw  # plain strings need no quotes in a URL
            if setting.accepts(decoded):
                value = setting.coerce(decoded)
        st.session_state[setting.key] = value


def write_to_url(settings):
    """Mirror the current values of ``settings`` into the URL query string."""
    for setting in settings:
        if setting.key not in st.session_state:
            continue
        value = st.session_state[setting.key]
        encoded = value if isinstance(value, str) else json.dumps(
            list(value) if isinstance(value, tuple) else value)
        if st.query_params.get(setting.url_name) != encoded:
            st.query_params[setting.url_name] = encoded


@st.cache_data(max_entries=4, show_spinner=False)
def cached_domains(distribution, params, n_source, n_target, theta, seed):
    """Cached :func:`flda_core.synthetic.make_domains` (arguments are plain tuples).

    Shared by the synthetic-data pages, so switching between them reuses the data.
    """
    from flda_core.synthetic import make_domains
    return make_domains(distribution, params, n_source, n_target, theta, random_state=seed)


def apply_values(values):
    """Set several session values at once (use as an ``on_click`` callback for presets)."""
    for key, value in values.items():
        st.session_state[key] = value


def _leave_pages_directory_mode():
    """Make the first request of a fresh server use ``app.py``'s navigation.

    Streamlit decides once per process whether the app is a legacy "pages/
    directory" app: true as soon as a ``pages/`` folder sits next to the main
    script, until some script run calls ``st.navigation``.  So when the very
    first request of a fresh server deep-links to a page (``/synthetic``),
    Streamlit runs ``pages/synthetic.py`` *alone* under its automatic navigation
    (file names as titles, no ``set_page_config``, no shared seed) - and keeps
    doing so for every visitor until someone opens the home page.  Every page
    imports this module, and a module is imported once per process: if that
    first import happens in such a run, switch the mode off and rerun, so the
    same URL is served by ``app.py`` and ``st.navigation``.  (A more radical
    fix is to rename ``pages/``; ``st.navigation`` does not need that name.)
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner_utils.script_run_context import (
            get_script_run_ctx)
    except ImportError:  # another Streamlit layout: nothing to correct
        return
    if getattr(PagesManager, "uses_pages_directory", None) \
            and get_script_run_ctx(suppress_warning=True) is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_pages_directory_mode()
