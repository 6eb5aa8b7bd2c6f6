"""Shared AppTest helpers: open a page through ``app.py`` and read its charts."""

import json
import os
import re

from streamlit.testing.v1 import AppTest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP = os.path.join(ROOT, "app.py")


def open_page(page, query=None, timeout=300):
    """Run ``app.py`` (with ``query`` in the URL), switch to ``page``, assert no exception."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update(dict(query or {}))
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(text):
    """Markdown as a reader sees it: the backslash escapes of
    :func:`flda_core.safe_text.escape_markdown` removed (user text is escaped on screen)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def chart_specs(at):
    """Plotly figure specs of the page, by element key."""
    return {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
