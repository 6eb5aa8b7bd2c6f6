"""The explorer's chart element: a Plotly chart that is updated in place.

``st.plotly_chart`` mounts a new chart whenever a figure changes and waits for a 4.7 MB
plotly.js: 0.25-0.35 s per θ step (issue 13).  This component (:file:`assets/flda_chart.js`)
keeps one chart per key, redraws it with ``Plotly.react`` from a 1.2 MB bundle of the
scatter, bar and heatmap traces, and applies Streamlit's chart theme.  Called through
:func:`explorer.ui.charts.show_chart`; imports nothing of the project.
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
    """URL path of the plotly.js bundle (its name is versioned)."""
    return asset_url(PLOTLY_BUNDLE.name)


#: Headers of a file whose name changes with its content.
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}


@functools.cache
def _bundle_bytes(compressed):
    raw = PLOTLY_BUNDLE.read_bytes()
    return gzip.compress(raw, compresslevel=9, mtime=0) if compressed else raw


async def _serve_bundle(request):
    """The bundle, gzip-compressed when accepted (1.2 MB -> 0.4 MB), cacheable for a year."""
    from starlette.responses import Response

    compressed = "gzip" in request.headers.get("accept-encoding", "").lower()
    headers = {**IMMUTABLE, "Vary": "Accept-Encoding"}
    if compressed:
        headers["Content-Encoding"] = "gzip"
    return Response(_bundle_bytes(compressed), media_type="text/javascript", headers=headers)


def warm_up():
    """Load what a fresh server's first chart would wait for: plotly's lazily imported
    figure classes (0.2 s), its JSON encoder and the compressed bundle."""
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
    """``/_flda`` and, when ``server.baseUrlPath`` is set, the same under it."""
    return sorted({f"/{_ROUTE_DIR}", asset_url("").rstrip("/")})


def routes():
    """Starlette routes of the plotly.js bundle, under every :func:`route_prefixes`."""
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
    """What the browser receives for one chart: UTF-8 JSON with the figure (plotly's JSON,
    a string whose template colour placeholders the browser swaps in colour properties
    only), ``config``, height, text alternative, key, bundle URL and a ``revision`` digest
    by which the browser skips an unchanged payload.  ``report_drawn`` (not part of the
    revision) asks the element to report the draw; ``fit_margin`` (px) fits a slide.
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


def plotly_chart(fig, key, config=None, description=None, report_drawn=False, on_drawn=None, fit_margin=0):
    """Draw ``fig`` as the chart ``key`` (kept across reruns and redrawn in place).

    With ``report_drawn`` the browser sends ``drawn`` once it has drawn the figure, failed
    to, or waited 2 s; that reruns the page after calling ``on_drawn``.
    """
    _component()(
        key=key,
        data=chart_payload(fig, key, config, description, report_drawn, fit_margin),
        width="stretch",
        height="content",
        on_drawn_change=on_drawn or (lambda: None),
    )
