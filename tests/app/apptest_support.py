"""Shared AppTest helpers: open a page through ``app.py`` and read its charts."""

import json
import os
import re
from dataclasses import dataclass

from streamlit.testing.v1 import AppTest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")


def open_page(page, query=None, timeout=300, reports_chart_draws=True):
    """Run ``app.py`` (with ``query`` in the URL), switch to ``page``, assert no exception.

    ``reports_chart_draws=False``: nobody reports the first chart's draw (see
    ``tests/conftest.py``), so the page is as the server sends it before the browser
    has drawn its first chart."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.reports_chart_draws = reports_chart_draws
    at.query_params.update(dict(query or {}))
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(text):
    """Markdown as a reader sees it: the backslash escapes of
    :func:`explorer.safe_text.escape_markdown` removed (user text is escaped on screen),
    and its zero-width spaces, which keep a URL from becoming a link, are invisible."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text).replace("\u200b", "")


@dataclass(frozen=True)
class Chart:
    """One chart of a page as the browser receives it (:func:`ui_chart.chart_payload`)."""

    key: str
    spec: str  # the figure: plotly's JSON text
    config: dict  # plotly.js config (camera button)
    description: str  # text alternative (the chart's accessible name)

    @property
    def figure(self):
        return json.loads(self.spec)


def charts(at):
    """The page's charts (:func:`explorer.ui.charts.show_chart`), in page order."""
    from explorer.ui import chart as ui_chart

    found = []
    for element in at.get("bidi_component"):
        payload = (
            json.loads(element.proto.bytes) if element.proto.component_name == ui_chart.COMPONENT_NAME else {}
        )
        if payload:
            chart = Chart(payload["key"], payload["figure"], payload["config"], payload["description"])
            # Every chart a test sees must be drawable by the plotly.js bundle we ship.
            types = {trace.get("type", "scatter") for trace in chart.figure["data"]}
            assert types <= ui_chart.BUNDLE_TRACE_TYPES, (chart.key, types)
            found.append(chart)
    return found


def chart_specs(at):
    """Plotly figure specs of the page, by chart key."""
    return {c.key: c.figure for c in charts(at)}
