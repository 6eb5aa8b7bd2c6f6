"""The equations panel's formulas, typeset once as SVG and drawn in the text colour.

``st.latex``'s KaTeX cost a first visit 0.4 s of browser CPU before the first chart
(issue 13).  So the formulas are typeset ahead of time with MathJax (``python3 -m
explorer.ui.equations NODE_MODULES``) into :file:`assets/equations/` (one SVG each, plus
``index.json``), served by :func:`routes` and drawn as a mask in the text colour.  A
formula whose LaTeX changed falls back to ``st.latex``.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path

from explorer.ui import chart as ui_chart

EQUATION_DIR = Path(__file__).resolve().parents[2] / "assets" / "equations"
INDEX = EQUATION_DIR / "index.json"
_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)ex"[^>]*?\sheight="([\d.]+)ex"')
#: Display formulas a little larger than the text around them, as KaTeX's are (1.21em).
SCALE = 1.21


@functools.cache
def typeset_index():
    """``{key: {"latex", "file", "width", "height"}}`` of the typeset formulas (widths
    and heights in ex), or ``{}`` when none were made."""
    try:
        return json.loads(INDEX.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def svg_bytes(name):
    """The SVG file ``name`` of a typeset formula, or None for any name not in
    :func:`typeset_index` (so made-up names cannot grow the cache)."""
    if name not in {entry["file"] for entry in typeset_index().values()}:
        return None
    return _read_svg(name)


@functools.cache
def _read_svg(name):
    return (EQUATION_DIR / name).read_bytes()


async def _serve_equation(request):
    """A typeset formula (its name carries a digest: cacheable for a year), else 404."""
    from starlette.responses import Response

    svg = svg_bytes(request.path_params["name"])
    if svg is None:
        return Response(status_code=404)
    return Response(svg, media_type="image/svg+xml", headers=ui_chart.IMMUTABLE)


def routes():
    """Starlette routes of the typeset formulas, under :func:`ui_chart.route_prefixes`."""
    from starlette.routing import Route

    return [
        Route(f"{prefix}/equations/{{name}}", _serve_equation, methods=["GET"])
        for prefix in ui_chart.route_prefixes()
    ]


def equation_html(eq):
    """HTML that draws the typeset formula of ``eq`` (an :class:`explorer.teaching.equations.Equation`),
    centred, in the text colour, with its LaTeX as the accessible name; None when it
    was not typeset from ``eq.latex`` (the caller then uses ``st.latex``)."""
    entry = typeset_index().get(eq.key)
    if entry is None or entry["latex"] != eq.latex:
        return None
    url = ui_chart.asset_url(f"equations/{entry['file']}")
    width, height = entry["width"], entry["height"]
    mask = f"url('{url}') center / contain no-repeat"
    style = (
        f"display: inline-block; width: {width * SCALE:.3f}ex; max-width: 100%; "
        f"aspect-ratio: {width} / {height}; background-color: currentColor; "
        f"-webkit-mask: {mask}; mask: {mask}; "
        "-webkit-print-color-adjust: exact; print-color-adjust: exact;"
    )
    return (
        f'<div class="flda-equation" style="text-align: center; margin: 0.25rem 0 0.75rem;">'
        f'<span role="img" aria-label="{html.escape(eq.latex, quote=True)}" '
        f'style="{style}"></span></div>'
    )


def typeset(node_modules, equations=None):
    """Typeset ``equations`` (default: every one of :data:`explorer.teaching.equations.EQUATIONS`)
    with MathJax from ``node_modules`` (npm ``mathjax-full@3``) into :data:`EQUATION_DIR`,
    replacing the files of the formulas typeset before."""
    from explorer.teaching.equations import EQUATIONS

    equations = EQUATIONS if equations is None else equations
    request = json.dumps([{"key": eq.key, "latex": eq.latex} for eq in equations])
    result = subprocess.run(
        ["node", str(EQUATION_DIR / "typeset.mjs"), str(node_modules)],
        input=request,
        capture_output=True,
        text=True,
        check=True,
    )
    svgs = json.loads(result.stdout)
    for old in EQUATION_DIR.glob("*.svg"):
        old.unlink()
    index = {}
    for eq in equations:
        svg = svgs[eq.key]
        size = _SIZE.search(svg)
        if size is None:
            raise ValueError(f"MathJax gave no size in ex for {eq.key!r}")
        digest = hashlib.blake2b(svg.encode("utf-8"), digest_size=6).hexdigest()
        name = f"{eq.key}.{digest}.svg"
        (EQUATION_DIR / name).write_text(svg + "\n", encoding="utf-8")
        index[eq.key] = {
            "latex": eq.latex,
            "file": name,
            "width": float(size.group(1)),
            "height": float(size.group(2)),
        }
    INDEX.write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    typeset_index.cache_clear()
    _read_svg.cache_clear()
    return index


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(
            "usage: python3 -m explorer.ui.equations NODE_MODULES  "
            "(a folder with the npm package mathjax-full@3, see assets/README.md)"
        )
    for key, entry in typeset(sys.argv[1]).items():
        print(f"{key:<20} {entry['file']}  {entry['width']:.1f} x {entry['height']:.1f} ex")
