"""The Streamlit behaviour ``explorer.ui.navigation`` relies on to keep the ``pages/`` name.

``navigation.leave_pages_directory_mode`` reads ``PagesManager.uses_pages_directory``
(Streamlit internals) and ends the legacy pages-directory mode with the public
``st.navigation``.  If a Streamlit upgrade changes either fact these tests fail
here, not silently in a deep link (the browser test
``tests/e2e/test_pages_e2e.py::test_first_request_deep_link_uses_app_navigation``
checks the whole effect).
"""

from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from explorer.ui import navigation

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def restore_mode():
    saved = PagesManager.uses_pages_directory
    yield
    PagesManager.uses_pages_directory = saved


def test_a_pages_folder_next_to_the_main_script_means_legacy_mode(restore_mode, tmp_path):
    PagesManager.uses_pages_directory = None
    PagesManager(str(ROOT / "app.py"))
    assert PagesManager.uses_pages_directory is True
    assert navigation.in_pages_directory_mode()
    # decided once per process: a later session does not look again
    (tmp_path / "main.py").write_text("")
    PagesManager(str(tmp_path / "main.py"))
    assert PagesManager.uses_pages_directory is True


def test_st_navigation_ends_legacy_mode(restore_mode):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()  # AppTest starts every run in legacy mode
    assert not at.exception
    assert PagesManager.uses_pages_directory is False
    assert not navigation.in_pages_directory_mode()


def test_a_mode_decided_before_the_first_session_is_kept(restore_mode):
    """The server's start (``explorer.ui.serving.server_lifespan``) sets the flag to False
    before any session, as st.navigation would: a session's PagesManager must not decide
    again."""
    PagesManager.uses_pages_directory = False
    PagesManager(str(ROOT / "app.py"))  # a pages/ folder sits next to it
    assert PagesManager.uses_pages_directory is False
    assert not navigation.in_pages_directory_mode()
