"""The app's navigation: the ``st.Page`` list of ``app.py``'s ``st.navigation``, read from
the page registry (:mod:`explorer.registry`); links between pages that keep presentation
mode (:func:`page_link`); and the fix for Streamlit's legacy "pages directory" mode
(:func:`leave_pages_directory_mode`)."""

from __future__ import annotations

from urllib.parse import parse_qsl

import streamlit as st

from explorer.presentation import with_present
from explorer.registry import PAGES
from explorer.ui.state import presentation_mode


def app_pages():
    """The ``st.Page`` list of ``app.py``'s ``st.navigation``: every page of
    :data:`explorer.registry.PAGES`, in its order (Home, the default, first)."""
    return [
        st.Page(
            entry.script,
            title=entry.title,
            icon=entry.icon,
            url_path=None if entry.default else entry.url_path,
            default=entry.default,
        )
        for entry in PAGES
    ]


def page_link(page, label, icon=None, query="", help=None):
    """``st.page_link`` that keeps presentation mode (and an optional query string)."""
    url = with_present("?" + query, presentation_mode()).lstrip("?")
    st.page_link(page, label=label, icon=icon, help=help, query_params=dict(parse_qsl(url)) or None)


def in_pages_directory_mode():
    """Whether this process still treats the app as a legacy "pages/ directory" app.

    Streamlit 1.67 (``streamlit/runtime/pages_manager.py``) sets the class
    attribute ``PagesManager.uses_pages_directory`` once per process, when the
    first session starts: True if a ``pages/`` folder sits next to the main
    script; ``st.navigation`` sets it to False (``commands/navigation.py``).
    There is no config option for it.  ``tests/app/test_streamlit_assumptions.py``
    checks both facts, so a Streamlit upgrade that changes them fails in CI.
    """
    from streamlit.runtime.pages_manager import PagesManager

    return bool(PagesManager.uses_pages_directory)


def leave_pages_directory_mode():
    """Make the first request of a fresh server use ``app.py``'s navigation.

    While the app counts as a legacy pages-directory app (see
    :func:`in_pages_directory_mode`), a first request that deep-links to a
    page (``/synthetic``) runs ``pages/synthetic.py`` *alone* under
    Streamlit's automatic navigation (file names as titles, no
    ``set_page_config``, no shared seed) - and keeps doing so for every
    visitor until someone opens the home page.  Every page's run starts in
    :func:`explorer.ui.guard.run_page`, which calls this (Home calls it itself); the
    first call inside a script run of the process looks at the mode.  If it is on, declare the
    app's real pages with the public ``st.navigation`` (which is what ends the legacy
    mode; the deep-linked page is among them, so the URL stays) and rerun, so the same
    URL is served by ``app.py``.  Only the read of the mode touches Streamlit
    internals.  (A more radical fix is to rename ``pages/``; ``st.navigation`` does
    not need that name.)
    """
    if _pages_mode_checked["done"] or not (st.runtime.exists() and _script_running()):
        return
    _pages_mode_checked["done"] = True  # the mode is per process: look once
    if in_pages_directory_mode():
        st.navigation(app_pages(), position="hidden")
        st.rerun()


_pages_mode_checked = {"done": False}


def _script_running():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None
