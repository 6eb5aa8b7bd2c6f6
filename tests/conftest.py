"""Shared by every test folder: the repository root and the three test folders
(``library``: flda_core alone, never streamlit; ``app``: the dashboard, with
AppTest; ``e2e``: a real Chromium) are importable, so a test can reuse another
folder's helpers by module name."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
for folder in (TESTS.parent, TESTS / "library", TESTS / "app", TESTS / "e2e"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


# --------------------------------------------------------------------------------------
# AppTest plays the browser's part in "first chart first" (explorer.ui.charts.show_chart)
# --------------------------------------------------------------------------------------
# A browser tab's first run stops after its first chart; the chart element reports the
# draw (its callback sets CHART_DRAWN_KEY) and that report's run sends the whole page.
# AppTest runs the same page code but has no browser: after a run that stopped at its
# first chart, this wrapper reports the draw the same way and runs again.  A test of the
# stop itself sets ``at.reports_chart_draws = False``.  Installed only when the session
# has dashboard tests, so that the library's tests never import streamlit.

import pytest  # noqa: E402


def _run_like_a_browser(run):
    """``AppTest._run`` (every run: ``at.run()``, ``widget.run()``, ``switch_page``), then
    the browser's report of the first chart: the report's rerun carries the widgets'
    current states, as the browser's does."""

    def run_like_a_browser(self, widget_state=None, timeout=None):
        from explorer.ui.state import CHART_DRAWN_KEY, REST_OWED_KEY

        result = run(self, widget_state, timeout)
        owed = REST_OWED_KEY in self.session_state and self.session_state[REST_OWED_KEY]
        if owed and getattr(self, "reports_chart_draws", True) and not self.exception:
            self.session_state[CHART_DRAWN_KEY] = True  # what the chart's report sets
            result = run(self, self._tree.get_widget_states(), timeout)
        return result

    return run_like_a_browser


@pytest.fixture(autouse=True, scope="session")
def apptest_reports_chart_draws(request):
    app_tests = TESTS / "app"
    if not any(Path(item.path).is_relative_to(app_tests) for item in request.session.items):
        yield
        return
    from streamlit.testing.v1 import AppTest

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AppTest, "_run", _run_like_a_browser(AppTest._run))
        yield
