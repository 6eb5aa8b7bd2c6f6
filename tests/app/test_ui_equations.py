"""The equations panel's formulas, typeset ahead of time (``ui_equations``)."""

import re
import xml.etree.ElementTree as ET

import pytest
from apptest_support import open_page
from test_ui_chart import _get

from explorer.ui import chart as ui_chart
from explorer.ui import equations as ui_equations
from explorer.teaching.equations import EQUATIONS

SVG = "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("eq", EQUATIONS, ids=lambda e: e.key)
def test_every_formula_is_typeset_from_its_current_latex(eq):
    # An edited formula fails here until `python3 -m ui_equations NODE_MODULES` is run
    # again (assets/README.md); the page meanwhile shows it with st.latex.
    entry = ui_equations.typeset_index()[eq.key]
    assert entry["latex"] == eq.latex
    root = ET.fromstring(ui_equations.svg_bytes(entry["file"]))
    assert root.tag == SVG
    assert root.get("width") == f"{entry['width']:g}ex"
    assert root.get("height") == f"{entry['height']:g}ex"
    # drawn in currentColor, with nothing fetched from elsewhere
    assert 'fill="currentColor"' in ET.tostring(root, encoding="unicode").replace("ns0:", "")
    assert not re.search(rb"(href|src)=\"(https?:|//)", ui_equations.svg_bytes(entry["file"]))


def test_the_folder_holds_only_the_typeset_formulas():
    files = {p.name for p in ui_equations.EQUATION_DIR.glob("*.svg")}
    assert files == {entry["file"] for entry in ui_equations.typeset_index().values()}
    assert set(ui_equations.typeset_index()) == {eq.key for eq in EQUATIONS}


def test_html_shows_the_file_in_the_text_colour_with_the_latex_as_its_name():
    eq = EQUATIONS[0]
    html = ui_equations.equation_html(eq)
    entry = ui_equations.typeset_index()[eq.key]
    assert f"url('{ui_chart.asset_url('equations/' + entry['file'])}')" in html
    assert "background-color: currentColor" in html and "print-color-adjust: exact" in html
    assert 'role="img"' in html and 'aria-label="p(z_d \\mid x_d' in html
    assert "<" not in re.search(r'aria-label="([^"]*)"', html).group(1)


def test_a_formula_typeset_from_other_latex_is_left_to_st_latex():
    from dataclasses import replace

    edited = replace(EQUATIONS[0], latex=EQUATIONS[0].latex + r" \quad")
    assert ui_equations.equation_html(edited) is None
    assert ui_equations.equation_html(replace(EQUATIONS[0], key="new")) is None


def test_route_serves_each_formula_as_cacheable_svg():
    entry = ui_equations.typeset_index()[EQUATIONS[0].key]
    status, headers, body = _get(ui_chart.asset_url(f"equations/{entry['file']}"))
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    assert "immutable" in headers["cache-control"]
    assert body == (ui_equations.EQUATION_DIR / entry["file"]).read_bytes()


def test_the_equations_panel_of_a_page_shows_the_typeset_formulas():
    at = open_page("pages/synthetic.py", {"n_source": "2000", "n_target": "2000"})
    shown = [element.proto.body for element in at.get("html") if "flda-equation" in element.proto.body]
    assert len(shown) == len(EQUATIONS)
    assert not at.get("latex")
    anchors = [h.proto.anchor for h in at.subheader]
    assert [eq.anchor for eq in EQUATIONS] == [a for a in anchors if a.startswith("eq-")]


def test_formulas_are_found_under_the_base_url_path(monkeypatch):
    # Behind a proxy (server.baseUrlPath) the mask's URL carries the path, and a route
    # answers there.
    from streamlit import config

    monkeypatch.setattr(
        config, "get_option", lambda name: "course/flda" if name == "server.baseUrlPath" else None
    )
    eq = EQUATIONS[1]
    entry = ui_equations.typeset_index()[eq.key]
    url = f"/course/flda/_flda/equations/{entry['file']}"
    assert f"url('{url}')" in ui_equations.equation_html(eq)
    status, headers, body = _get(url)
    assert status == 200 and body.startswith(b"<svg")


def test_requests_for_made_up_names_are_not_kept():
    # A server's memory must not grow with the names strangers ask for.
    before = ui_equations._read_svg.cache_info().currsize
    for i in range(50):
        assert ui_equations.svg_bytes(f"made-up-{i}.svg") is None
    assert ui_equations._read_svg.cache_info().currsize == before
