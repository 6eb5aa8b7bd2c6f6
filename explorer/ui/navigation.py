"""The app's navigation: the ``st.Page`` list, links that keep presentation mode and the
fix for Streamlit's legacy "pages directory" mode."""

from __future__ import annotations

from urllib.parse import parse_qsl

import streamlit as st

from explorer.presentation import with_present
from explorer.registry import PAGES
from explorer.ui.state import presentation_mode


def app_pages():
    """The ``st.Page`` of every page of :data:`explorer.registry.PAGES`, in order."""
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

    Streamlit 1.67 sets ``PagesManager.uses_pages_directory`` once per process: True if a
    ``pages/`` folder sits beside the main script, False once ``st.navigation`` runs; no
    config option.  ``tests/app/test_streamlit_assumptions.py`` checks both facts.
    """
    from streamlit.runtime.pages_manager import PagesManager

    return bool(PagesManager.uses_pages_directory)


def leave_pages_directory_mode():
    """Make the first request of a fresh server use ``app.py``'s navigation.

    In legacy mode a first request deep-linking to ``/synthetic`` runs that page *alone*
    (file names as titles, no shared seed), for every visitor until someone opens Home.
    The first call in a process checks the mode; if on, it declares the pages with
    ``st.navigation`` (ending the mode; the URL stays) and reruns.
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
