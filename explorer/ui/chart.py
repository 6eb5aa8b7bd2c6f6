"""The explorer's chart element: a Plotly chart that is updated in place.

Streamlit's ``st.plotly_chart`` mounts a new chart whenever a figure changes,
Plotly draws it twice, and the first chart of a page waits for Streamlit's
4.7 MB plotly.js.  Dragging θ on Synthetic domains cost 0.25-0.35 s in the
browser per step that way (issue 13).  This element is a Streamlit component
(``st.components.v2``, :file:`assets/flda_chart.js`) that keeps one chart per
key and redraws it with ``Plotly.react``; it loads a 1.2 MB plotly.js bundle of
the three trace types the figures use (scatter, bar, heatmap; built by
:file:`assets/plotly_bundle.mjs`), which the server ships from :file:`assets/`
once per browser, and it gives the figures Streamlit's chart theme (light and
dark).

Pages never call this module: :func:`explorer.ui.charts.show_chart` does.  The
server's route for the bundle is added by ``app.py`` (:func:`routes`, through
:func:`explorer.ui.serving.routes`).  This module imports nothing of the project
(``tests/app/test_import_rules.py``): the equations panel's files reach the server
through :mod:`explorer.ui.equations`, which uses :func:`asset_url` from here.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
from pathlib import Path

import streamlit as st

ASSETS = Path(__file__).resolve().parents[2] / "assets"
#: plotly.js 4.1.1's core with the bar and heatmap traces, built from its npm package by
#: :file:`assets/plotly_bundle.mjs` (:file:`assets/README.md` says why and how to rebuild).
PLOTLY_BUNDLE = ASSETS / "plotly-scatter-bar-heatmap-4.1.1.min.js"
#: The trace types that bundle can draw (its name and first comment); the tests check
#: every figure against them, and the browser's plotly.js.
BUNDLE_TRACE_TYPES = frozenset({"bar", "heatmap", "scatter"})
COMPONENT_NAME = "flda_chart"
#: Height of a figure that sets none (plotly.js's default, as in ``st.plotly_chart``).
DEFAULT_HEIGHT = 450
_ROUTE_DIR = "_flda"
_CSS = """
.flda-chart { width: 100%; }
.flda-chart-plot { width: 100%; }
.flda-chart-problem { color: var(--st-red-text-color, #bd4043); margin: 0 0 0.5rem; }
@media print { .flda-chart .modebar-container { display: none; } }
"""


def _base_path():
    """``server.baseUrlPath`` without slashes ("" when the app is served at the root)."""
    from streamlit import config

    return (config.get_option("server.baseUrlPath") or "").strip("/")


def asset_url(name):
    """URL path of ``name`` among the files this app serves itself (:func:`routes`)."""
    base = _base_path()
    return f"{'/' + base if base else ''}/{_ROUTE_DIR}/{name}"


def bundle_url():
    """URL path of the plotly.js bundle on this server (the file name carries its
    version, so browsers may keep it for good)."""
    return asset_url(PLOTLY_BUNDLE.name)


#: Headers of a file whose name changes with its content.
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}


@functools.cache
def _bundle_bytes(compressed):
    raw = PLOTLY_BUNDLE.read_bytes()
    return gzip.compress(raw, compresslevel=9, mtime=0) if compressed else raw


async def _serve_bundle(request):
    """The bundle, gzip-compressed when the browser accepts it (1.2 MB -> 0.4 MB),
    compressed once per server; cacheable for a year because the name is versioned."""
    from starlette.responses import Response

    compressed = "gzip" in request.headers.get("accept-encoding", "").lower()
    headers = {**IMMUTABLE, "Vary": "Accept-Encoding"}
    if compressed:
        headers["Content-Encoding"] = "gzip"
    return Response(_bundle_bytes(compressed), media_type="text/javascript", headers=headers)


def warm_up():
    """Load what the first chart of a fresh server would wait for: plotly's figure
    classes for the layout and every trace type the bundle draws (0.2 s, imported
    lazily by plotly on first use), the path from a figure to its payload (plotly's
    JSON encoder imports its data utilities and Pillow on first use), and the
    compressed bundle."""
    import importlib
    import pkgutil

    import numpy as np
    import plotly.graph_objects as go

    for name in ("layout", *sorted(BUNDLE_TRACE_TYPES)):
        package = importlib.import_module(f"plotly.graph_objs.{name}")
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    chart_payload(go.Figure(go.Scatter(x=np.arange(2.0), y=np.arange(2.0))), "warm-up")
    _bundle_bytes(True)


def route_prefixes():
    """Where the files this app serves itself live: ``/_flda`` and, when
    ``server.baseUrlPath`` is set, the same under it (:func:`asset_url` is the latter)."""
    return sorted({f"/{_ROUTE_DIR}", asset_url("").rstrip("/")})


def routes():
    """Starlette routes of the plotly.js bundle (``st.App(routes=...)``; ``app.py``'s come
    from :func:`explorer.ui.serving.routes`, which adds the typeset equations), at the
    root and, when ``server.baseUrlPath`` is set, under it."""
    from starlette.routing import Route

    return [
        Route(f"{prefix}/{PLOTLY_BUNDLE.name}", _serve_bundle, methods=["GET"]) for prefix in route_prefixes()
    ]


@functools.cache
def _component():
    return st.components.v2.component(
        COMPONENT_NAME, js=(ASSETS / "flda_chart.js").read_text(), css=_CSS, isolate_styles=False
    )


def _height(fig):
    height = fig.layout.height
    return int(height) if height else DEFAULT_HEIGHT


def chart_payload(fig, key, config=None, description=None, report_drawn=False, fit_margin=0):
    """What the browser receives for one chart: UTF-8 JSON bytes with the figure
    (plotly's own JSON, typed arrays base64-encoded as in ``st.plotly_chart``), the
    plotly.js ``config``, the height in px, a text alternative, the chart's key, the
    bundle URL and a ``revision`` (a digest of all that) by which the browser skips
    redrawing a chart whose payload did not change.  With ``report_drawn`` it also
    says ``"report": true``: the element then tells the server once it has drawn the
    chart (:func:`plotly_chart`).  That flag is not part of the revision, so the same
    figure sent with and then without it is not drawn again.  ``fit_margin`` (px, a
    slide) makes the chart take the window's height below its top, less that margin.

    The figure travels as a JSON string: the browser parses it and swaps the theme's
    colours for the placeholders of plotly's "streamlit" template (``#000001`` to
    ``#000040``) in its colour properties only, so trace data and names that read
    like a placeholder are shown as they are.
    """
    import plotly.io as pio

    fields = {
        "figure": pio.to_json(fig, validate=False),
        "config": config or {},
        "height": _height(fig),
        "description": description or "",
        "key": key,
        "plotly": bundle_url(),
    }
    if fit_margin:
        fields["fit_margin"] = int(fit_margin)
    text = json.dumps(fields)
    revision = hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()
    report = ', "report": true' if report_drawn else ""
    return (text[:-1] + f', "revision": "{revision}"{report}}}').encode("utf-8")


def _ignore():
    pass


def plotly_chart(fig, key, config=None, description=None, report_drawn=False, on_drawn=None, fit_margin=0):
    """Draw ``fig`` as the chart ``key`` (kept across reruns and redrawn in place).

    With ``report_drawn`` the browser sends the trigger ``drawn`` once it has drawn
    this figure, failed to, or waited 2 s for plotly.js (``REPORT_AFTER_MS`` in
    ``flda_chart.js``); that reruns the page (or the fragment the chart is in), and
    ``on_drawn`` is called first, as Streamlit calls a widget's ``on_change``.
    """
    _component()(
        key=key,
        data=chart_payload(fig, key, config, description, report_drawn, fit_margin),
        width="stretch",
        height="content",
        on_drawn_change=on_drawn or _ignore,
    )
