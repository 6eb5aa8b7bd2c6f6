"""The chart element (ui_chart.py): its payload, the plotly.js bundle and the route
serving it.  What it draws in a browser is checked by tests/e2e/test_chart_e2e.py."""

import asyncio
import concurrent.futures
import gzip
import hashlib
import json
import re

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs_version
from streamlit.testing.v1 import AppTest

from explorer.ui import chart as ui_chart
from explorer.ui import charts as ui_charts
from explorer.ui import serving
from apptest_support import charts, open_page


def _payload(raw):
    return json.loads(raw.decode("utf-8"))


def _figure(y=(1, 2, 3), height=None):
    fig = go.Figure(go.Scatter(x=[0, 1, 2], y=list(y), name="S-LS"))
    if height:
        fig.update_layout(height=height)
    return fig


# ---------------------------------------------------------------------- the bundle


def test_bundle_is_the_built_file_named_in_the_assets_readme():
    readme = (ui_chart.ASSETS / "README.md").read_text()
    digest = hashlib.sha256(ui_chart.PLOTLY_BUNDLE.read_bytes()).hexdigest()
    assert f"sha256 of the bundle: `{digest}`" in readme
    assert ui_chart.PLOTLY_BUNDLE.name in readme
    assert (ui_chart.ASSETS / "LICENSE-plotly.js.txt").read_text().startswith("MIT License")


def test_bundle_version_is_in_its_name_and_matches_the_plotly_package():
    head = ui_chart.PLOTLY_BUNDLE.read_bytes()[:200].decode("ascii", "replace")
    found = re.search(r"plotly\.js v(\d+\.\d+\.\d+), partial bundle of the traces ([a-z, ]+) ", head)
    version, traces = found.group(1), found.group(2).split(", ")
    # A new bundle gets a new (cacheable) URL: its version and traces are in its name.
    assert ui_chart.PLOTLY_BUNDLE.name == f"plotly-{'-'.join(traces)}-{version}.min.js"
    assert set(traces) == ui_chart.BUNDLE_TRACE_TYPES
    # Attribution: every npm package bundled, with its version and licence.
    listed = ui_chart.PLOTLY_BUNDLE.with_name(
        ui_chart.PLOTLY_BUNDLE.name.replace(".min.js", ".packages.txt")
    ).read_text()
    packages = [line.split() for line in listed.splitlines() if not line.startswith("#")]
    assert ["plotly.js@" + version, "MIT"] in packages
    assert all(len(entry) == 2 and "@" in entry[0][1:] for entry in packages), packages
    # plotly (Python) writes figures for its own plotly.js: same major version.
    assert version.split(".")[0] == get_plotlyjs_version().split(".")[0], (
        f"the shipped plotly.js is {version}, the plotly package writes for "
        f"{get_plotlyjs_version()}: update assets/ (see assets/README.md)"
    )


# ---------------------------------------------------------------------- the payload


def test_payload_carries_plotly_json_config_height_text_and_key():
    fig = _figure()
    raw = ui_chart.chart_payload(fig, "k1", {"displaylogo": False}, "A scatter plot.")
    payload = _payload(raw)
    assert json.loads(payload["figure"]) == json.loads(fig.to_json())
    assert payload["config"] == {"displaylogo": False}
    assert payload["height"] == ui_chart.DEFAULT_HEIGHT == 450
    assert payload["description"] == "A scatter plot."
    assert payload["key"] == "k1"
    assert payload["plotly"] == ui_chart.bundle_url()
    assert _payload(ui_chart.chart_payload(_figure(height=620), "k1"))["height"] == 620


def test_revision_follows_every_part_of_the_payload():
    def revision(*args, **kwargs):
        return _payload(ui_chart.chart_payload(*args, **kwargs))["revision"]

    base = revision(_figure(), "k", {"a": 1}, "text")
    assert revision(_figure(), "k", {"a": 1}, "text") == base  # same payload: no redraw
    assert revision(_figure(y=(1, 2, 4)), "k", {"a": 1}, "text") != base
    assert revision(_figure(), "k", {"a": 2}, "text") != base  # e.g. PNG -> SVG export
    assert revision(_figure(), "k", {"a": 1}, "other") != base
    assert revision(_figure(height=500), "k", {"a": 1}, "text") != base


def test_the_report_flag_is_sent_but_is_not_part_of_the_revision():
    """The first chart of a tab asks the browser to report its draw; the next run sends
    the same figure without that flag, and the chart must not be drawn again."""
    asked = _payload(ui_chart.chart_payload(_figure(), "k", {"a": 1}, "t", report_drawn=True))
    plain = _payload(ui_chart.chart_payload(_figure(), "k", {"a": 1}, "t"))
    assert asked["report"] is True and "report" not in plain
    assert asked["revision"] == plain["revision"]
    assert {k: v for k, v in asked.items() if k != "report"} == plain


def test_user_text_in_a_figure_stays_data():
    """Names from an uploaded file reach the browser as JSON strings, never as code."""
    name = '</script><img src=x onerror=alert(1)>"\\'
    fig = go.Figure(go.Bar(x=[name], y=[1], name=name))
    payload = _payload(ui_chart.chart_payload(fig, "k", None, name))
    assert json.loads(payload["figure"])["data"][0]["name"] == name
    assert payload["description"] == name


def test_bundle_url_follows_the_base_url_path(monkeypatch):
    from streamlit import config

    assert ui_chart.bundle_url() == f"/_flda/{ui_chart.PLOTLY_BUNDLE.name}"
    monkeypatch.setattr(
        config, "get_option", lambda name: "/course/flda/" if name == "server.baseUrlPath" else None
    )
    assert ui_chart.bundle_url() == f"/course/flda/_flda/{ui_chart.PLOTLY_BUNDLE.name}"
    paths = {r.path for r in serving.routes()}
    assert {
        f"/_flda/{ui_chart.PLOTLY_BUNDLE.name}",
        f"/course/flda/_flda/{ui_chart.PLOTLY_BUNDLE.name}",
        "/_flda/equations/{name}",
        "/course/flda/_flda/equations/{name}",
        "/join",  # a class's routes (explorer/ui/class_routes.py)
        "/course/flda/join",
        "/_flda/class/state",
        "/course/flda/_flda/class/state",
    } <= paths
    assert all(p.startswith(("/_flda/", "/course/flda/")) or p == "/join" for p in paths)


# ---------------------------------------------------------------------- the route


def _get(path, headers=()):
    """One GET through the routes (a minimal ASGI client: no HTTP library needed)."""
    from starlette.applications import Starlette

    app = Starlette(routes=serving.routes())
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in headers],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("test", 80),
        "client": ("test", 1),
        "root_path": "",
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    # In a thread of its own: the browser tests leave an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


def test_route_serves_the_bundle_compressed_when_the_browser_accepts_gzip():
    raw = ui_chart.PLOTLY_BUNDLE.read_bytes()
    status, headers, body = _get(ui_chart.bundle_url(), [("accept-encoding", "gzip, br")])
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == raw and len(body) < len(raw) / 2
    assert headers["content-type"].startswith("text/javascript")
    assert "immutable" in headers["cache-control"] and headers["vary"] == "Accept-Encoding"
    status, headers, body = _get(ui_chart.bundle_url())
    assert status == 200 and "content-encoding" not in headers and body == raw


def test_route_serves_nothing_else():
    assert _get("/_flda/../app.py")[0] == 404
    assert _get("/_flda/plotly.min.js")[0] == 404
    assert _get("/_flda/equations/index.json")[0] == 404
    assert _get("/_flda/equations/typeset.mjs")[0] == 404
    assert _get("/_flda/equations/..%2F..%2Fapp.py")[0] == 404


# ---------------------------------------------------------------------- pages


@pytest.mark.parametrize(
    "page, query",
    [
        ("pages/synthetic.py", {"n_source": "2000", "n_target": "2000"}),
        ("pages/transfer.py", {"n_source": "2000", "n_target": "2000"}),
        ("pages/lesson.py", {}),
        ("pages/your_data.py", {"sample": "poisson"}),
    ],
)
def test_every_chart_of_a_page_is_drawable_by_the_shipped_bundle(page, query):
    shown = charts(open_page(page, query))
    assert shown
    for chart in shown:
        types = {trace.get("type", "scatter") for trace in chart.figure["data"]}
        assert types <= ui_chart.BUNDLE_TRACE_TYPES, (chart.key, types)
        assert chart.description  # every chart has a text alternative
    assert len({c.key for c in shown}) == len(shown)


# ---------------------------------------------------------------------- first chart first


def _first_run_without_the_report(page, query=None):
    """``open_page`` with nobody reporting the draw: the run as the server sends it
    before the browser has drawn the first chart."""
    return open_page(page, query, reports_chart_draws=False)


def test_a_tabs_first_run_ends_with_its_first_chart():
    """A tab's first run stops after its first chart and its caption, asking the browser
    to report the draw; the browser's report (here: its callback's session flag) brings
    the whole page, and later runs never stop early."""
    at = _first_run_without_the_report("pages/synthetic.py", {"seed": "3"})
    shown = charts(at)
    assert [c.key for c in shown] == ["syn_figure"]
    payload = json.loads(at.get("bidi_component")[0].proto.bytes)
    assert payload["report"] is True
    assert not at.dataframe and not at.get("download_button")
    assert "Figure 1" in at.caption[-1].value  # the chart's caption ends the run
    assert "*Chart:*" in at.caption[-1].value
    assert at.session_state[ui_charts.REST_OWED_KEY] is True

    at.session_state[ui_charts.CHART_DRAWN_KEY] = True  # what the report's callback sets
    at.run()
    assert not at.exception
    assert len(at.dataframe) >= 2 and len(at.get("download_button")) == 2
    assert "report" not in json.loads(at.get("bidi_component")[0].proto.bytes)
    assert ui_charts.REST_OWED_KEY not in at.session_state
    assert any(h.value == "Equations" for h in at.header)


def test_the_tests_harness_reports_the_draw_like_a_browser():
    """The same page code runs under ``AppTest``: ``open_page`` reports the first chart's
    draw as the browser does (``tests/conftest.py``), so the test sees the whole page."""
    at = open_page("pages/synthetic.py", {"seed": "3"})
    assert at.session_state[ui_charts.CHART_DRAWN_KEY] is True
    assert ui_charts.REST_OWED_KEY not in at.session_state
    assert "report" not in json.loads(at.get("bidi_component")[0].proto.bytes)
    assert len(at.dataframe) >= 2


def _sidebar_labels(at):
    """Labels of the sidebar's widgets and headings, in order."""
    labels = []
    for node in at.sidebar:
        stack = [node]
        while stack:
            element = stack.pop(0)
            label = getattr(element, "label", None) or getattr(element, "value", None)
            if isinstance(label, str):
                labels.append((type(element).__name__, label))
            children = getattr(element, "children", None)
            if isinstance(children, dict):
                stack[:0] = list(children.values())
    return labels


@pytest.mark.parametrize("page", ["pages/transfer.py", "pages/learning_curves.py", "pages/digits.py"])
def test_the_sidebar_controls_follow_the_first_chart_and_are_the_usual_ones(page):
    """A tab's first run sends no sidebar control of the page (the browser would render
    them all before the chart); the report's run draws them, the same controls in the
    same order as a tab that has drawn a chart before."""
    at = _first_run_without_the_report(page)
    assert len(charts(at)) == 1 and _sidebar_labels(at) == []
    at.session_state[ui_charts.CHART_DRAWN_KEY] = True
    at.run()
    assert not at.exception
    complete = _sidebar_labels(at)
    assert len(complete) >= 5
    at.run()  # a later run of the same tab: nothing put off, nothing drawn twice
    assert not at.exception and _sidebar_labels(at) == complete


def _deferring_page(fail):
    """A page with one sidebar control, then (``fail``) an error or a first chart."""
    import plotly.graph_objects as go
    import streamlit as st

    from explorer.ui import charts, guard

    def main():
        charts.sidebar_controls(lambda: st.sidebar.number_input("Put off", key="t.put_off"))
        if fail:
            raise RuntimeError("the data could not be read")
        charts.show_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "t_chart", "a line")

    guard.run_page(main)


def test_a_run_that_fails_before_its_chart_still_draws_the_controls_put_off():
    """The user needs the controls to fix what failed: an error before the first chart
    still gets the page's sidebar controls, under the error message."""
    at = AppTest.from_function(_deferring_page, kwargs={"fail": True}, default_timeout=60)
    at.reports_chart_draws = False
    at.run()
    assert [w.label for w in at.sidebar.number_input] == ["Put off"]
    assert "Something went wrong while drawing this page" in at.error[0].value
    assert ui_charts.CHART_DRAWN_KEY not in at.session_state


def test_controls_put_off_by_a_run_that_stopped_at_its_chart_are_not_drawn_twice():
    at = AppTest.from_function(_deferring_page, kwargs={"fail": False}, default_timeout=60)
    at.reports_chart_draws = False
    at.run()
    assert not at.sidebar.number_input and len(charts(at)) == 1
    at.session_state[ui_charts.CHART_DRAWN_KEY] = True
    at.run()
    assert not at.exception
    assert [w.label for w in at.sidebar.number_input] == ["Put off"]
