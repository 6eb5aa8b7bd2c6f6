"""The layout's import rules (CONTRIBUTING.md, "Import rules"), checked by parsing every import
of every Python file of the repository's packages, pages and entry point.

Two packages, one direction: ``explorer`` (the dashboard) uses ``flda_core`` (the
library), never the reverse.

* ``flda_core`` imports only itself (and numpy, scipy, scikit-learn; dask inside
  ``dask_support``): never ``explorer``, pages, ``app``, streamlit, plotly, pandas or skada.
* ``explorer``'s top-level modules (``names``, ``errors``, ``safe_text``, ``url_state``,
  ``error_report``, ``presentation``) import nothing of the project but ``explorer.errors``
  and each other's constants.
* ``explorer.data`` may use the library and the top-level modules; never experiments,
  figures, teaching or ui.
* ``explorer.figures`` may use the top-level modules and each other; never the library,
  data, experiments, teaching or ui.
* ``explorer.experiments`` may use the library, data, the top-level modules,
  ``explorer.teaching.equations`` and each other; never figures, the rest of teaching or ui.
* ``explorer.teaching`` may use the library, data, experiments and the top-level
  modules; never figures or ui.
* ``explorer.classroom`` (the class sessions' store and codes) may use the top-level
  modules and itself only (no streamlit: ``explorer.ui`` and the pages use it).
* ``explorer.registry`` (the page list) imports nothing of the project and no streamlit.
* Only ``explorer.ui``, ``pages/`` and ``app.py`` import streamlit; no part of
  ``explorer`` imports a page or ``app``; pages import no other page and not ``app``.
* The chart element (``explorer.ui.chart``) imports nothing of the project; pages draw
  charts through ``explorer.ui.charts`` and never import the element.
* No import cycle: the module-level imports of ``explorer`` (``explorer.ui`` included)
  form no loop (imports inside functions, made on first use, are not followed).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The project's own top-level names.
PROJECT = {"flda_core", "explorer", "app", "pages", "tests", "benchmarks"}
#: UI libraries and app-only dependencies the library never imports.
NOT_IN_LIBRARY = {"streamlit", "plotly", "pandas", "skada", "explorer", "app", "pages", "tests", "benchmarks"}
#: For each part of ``explorer``, the parts it may import ("library" is flda_core).
ALLOWED = {
    "base": {"base"},
    "data": {"library", "base", "data"},
    "figures": {"base", "figures"},
    "experiments": {"library", "base", "data", "experiments", "teaching.equations"},
    "teaching": {"library", "base", "data", "experiments", "teaching"},
    "classroom": {"base", "classroom"},
    "ui": {"library", "base", "data", "experiments", "figures", "teaching", "classroom", "ui"},
    "package": {"base"},
}
EXPLORER_PARTS = ("data", "figures", "experiments", "teaching", "classroom", "ui")


def _part(module):
    """The part of the project a dotted module name belongs to, or None if not ours."""
    parts = module.split(".")
    if parts[0] == "flda_core":
        return "library"
    if parts[0] != "explorer":
        return parts[0] if parts[0] in PROJECT else None
    if len(parts) == 1:
        return "package"
    if parts[1] in EXPLORER_PARTS:
        return parts[1]
    return "base"


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(name):
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def _imports(path, text=None, module=None):
    """Absolute dotted names of everything ``path`` imports (relative imports resolved)."""
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(text if text is not None else path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            # "from explorer.teaching import equations": the name is a module
            found += [
                f"{target}.{alias.name}" if _is_module(f"{target}.{alias.name}") else target
                for alias in node.names
            ]
    return found


LIBRARY_FILES = sorted((ROOT / "flda_core").rglob("*.py"))
EXPLORER_FILES = sorted((ROOT / "explorer").rglob("*.py"))


def _library_violations(path, text=None, module=None):
    module = module or _module_name(path)
    problems = []
    for target in _imports(path, text, module):
        top = target.split(".")[0]
        if top in NOT_IN_LIBRARY:
            problems.append(f"{module} imports {target}")
        elif top.startswith("dask") and not module.endswith("dask_support"):
            problems.append(f"{module} imports {target} (only dask_support may)")
    return problems


def _allowed(own, target):
    other = _part(target)
    if other is None or other == "package":  # not ours, or the namespace itself
        return True
    if own == "experiments" and other == "teaching":
        return target.startswith("explorer.teaching.equations")
    return other in ALLOWED[own]


#: Modules that import nothing of the project (and what they are).
SELF_CONTAINED = {"explorer.registry": "the page registry", "explorer.ui.chart": "the chart element"}


def _explorer_violations(path, text=None, module=None):
    module = module or _module_name(path)
    own = _part(module)
    problems = []
    for target in _imports(path, text, module):
        top = target.split(".")[0]
        if top == "streamlit" and own != "ui":
            problems.append(f"{module} ({own}) imports streamlit")
        elif module in SELF_CONTAINED and _part(target) is not None:
            problems.append(f"{module} ({SELF_CONTAINED[module]}) imports {target}")
        elif not _allowed(own, target):
            problems.append(f"{module} ({own}) imports {target} ({_part(target)})")
    return problems


def _module_level_imports(path, text=None, module=None):
    """Like :func:`_imports`, but only the imports that run when the module is imported
    (not those inside functions, which run on first use)."""
    tree = ast.parse(text if text is not None else path.read_text(), str(path))
    nodes, body = [], list(tree.body)
    while body:
        node = body.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            nodes.append(node)
        body.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return _imports(path, ast.unparse(ast.Module(body=nodes, type_ignores=[])), module)


def _import_graph(sources):
    """``{module: {explorer modules it imports at module level}}`` of ``{module: (path,
    text)}`` (``text`` None: read the file); packages' ``__init__`` are left out."""
    graph = {}
    for module, (path, text) in sources.items():
        targets = {
            target
            for target in _module_level_imports(path, text, module)
            if target in sources and target != module
        }
        graph[module] = targets
    return graph


def _find_cycle(graph):
    """One import cycle of ``graph`` as a list of modules (first == last), or None."""
    done, path = set(), []

    def visit(module):
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph.get(module, ())):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module)
        if cycle:
            return cycle
    return None


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_imports_only_itself_and_the_numerical_stack(path):
    assert _library_violations(path) == []


@pytest.mark.parametrize("path", EXPLORER_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_explorer_imports_follow_the_layout(path):
    assert _explorer_violations(path) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"], ids=lambda p: p.name
)
def test_pages_and_app_import_no_page_and_no_test(path):
    for target in _imports(path):
        assert _part(target) not in ("pages", "app", "tests", "benchmarks"), f"{path.name} imports {target}"


#: What pages may not import, and what they use instead.
NOT_IN_PAGES = {"explorer.ui.chart": "explorer.ui.charts (show_chart)"}


def _page_violations(path, text=None):
    return [
        f"{path.name} imports {target}; use {NOT_IN_PAGES[target]}"
        for target in _imports(path, text, f"pages.{path.stem}")
        if target in NOT_IN_PAGES
    ]


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_draw_charts_through_the_charts_helper_not_the_element(path):
    assert _page_violations(path) == []


def _explorer_sources():
    return {_module_name(path): (path, None) for path in EXPLORER_FILES if path.name != "__init__.py"}


def test_explorer_has_no_import_cycle():
    """Module-level imports only: an import inside a function runs on first use, after
    every module has loaded, so it cannot make a half-initialised module."""
    graph = _import_graph(_explorer_sources())
    assert {"explorer.ui.charts", "explorer.ui.chart", "explorer.registry"} <= set(graph)
    assert "explorer.ui.chart" in graph["explorer.ui.equations"]  # the graph sees edges
    assert _find_cycle(graph) is None, " -> ".join(_find_cycle(graph))


def test_the_cycle_check_sees_a_cycle_and_ignores_imports_in_functions():
    ui = ROOT / "explorer" / "ui"
    sources = {
        "explorer.ui.chart": (ui / "chart.py", "from explorer.ui import equations\n"),
        "explorer.ui.equations": (ui / "equations.py", "import json\nfrom explorer.ui import chart\n"),
        "explorer.ui.state": (ui / "state.py", "from explorer.ui.chart import x\n"),
    }
    assert _find_cycle(_import_graph(sources)) == [
        "explorer.ui.chart",
        "explorer.ui.equations",
        "explorer.ui.chart",
    ]
    sources["explorer.ui.chart"] = (ui / "chart.py", "def routes():\n    from explorer.ui import equations\n")
    assert _find_cycle(_import_graph(sources)) is None
    sources["explorer.ui.chart"] = (ui / "chart.py", "if True:\n    from . import state\n")
    sources["explorer.ui.state"] = (ui / "state.py", "from .chart import plotly_chart\n")
    assert _find_cycle(_import_graph(sources)) == [
        "explorer.ui.chart",
        "explorer.ui.state",
        "explorer.ui.chart",
    ]


def test_the_checker_sees_forbidden_imports():
    """The rules are not vacuous: each kind of forbidden import is reported."""
    probe = ROOT / "explorer" / "figures" / "probe.py"  # never written: parsed from text
    text = (
        "from ..experiments.synthetic import fit_linear\nimport streamlit\n"
        "from ..data import digits\nfrom flda_core import FLDAClassifier\n"
        "import pages.home\n"
    )
    assert len(_explorer_violations(probe, text, "explorer.figures.probe")) == 5
    experiment = ROOT / "explorer" / "experiments" / "probe.py"
    assert _explorer_violations(
        experiment, "from explorer.teaching import captions\n", "explorer.experiments.probe"
    )
    assert not _explorer_violations(
        experiment, "from explorer.teaching import equations\n", "explorer.experiments.probe"
    )
    registry = ROOT / "explorer" / "registry.py"
    assert _explorer_violations(registry, "import streamlit as st\n", "explorer.registry")
    assert _explorer_violations(registry, "from explorer.names import LOSSES\n", "explorer.registry")
    assert not _explorer_violations(registry, "from pathlib import Path\n", "explorer.registry")
    chart = ROOT / "explorer" / "ui" / "chart.py"
    for text in (
        "from explorer.ui import equations\n",
        "from . import state\n",
        "def f():\n    from explorer.figures.export import chart_config\n",
    ):
        assert _explorer_violations(chart, text, "explorer.ui.chart"), text
    assert not _explorer_violations(chart, "import streamlit as st\n", "explorer.ui.chart")
    page = ROOT / "pages" / "probe.py"
    assert _page_violations(page, "from explorer.ui import chart as ui_chart\n")
    assert _page_violations(page, "import explorer.ui.chart\n")
    assert not _page_violations(page, "from explorer.ui import charts\n")
    method = ROOT / "flda_core" / "transfer.py"
    for text in (
        "from explorer.names import LOSSES\n",
        "import pandas\n",
        "import streamlit\n",
        "import plotly.graph_objects\n",
        "import dask.array\n",
    ):
        assert _library_violations(method, text, "flda_core.transfer"), text
    assert not _library_violations(method, "from .objectives import x\n", "flda_core.transfer")


#: Streamlit calls a page must make through the UI helpers (CONTRIBUTING.md, "Streamlit
#: conventions"): charts get the export button, presentation style and text alternative;
#: downloads are spreadsheet-safe and made on click.
THROUGH_UI_HELPERS = {"plotly_chart": "charts.show_chart", "download_button": "tables.download_csv"}


def _direct_streamlit_calls(text):
    return [
        (node.lineno, node.func.attr)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in THROUGH_UI_HELPERS
    ]


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_draw_charts_and_downloads_through_the_ui_helpers(path):
    calls = _direct_streamlit_calls(path.read_text(encoding="utf-8"))
    assert not calls, [
        f"{path.name}:{line} calls {name}; use {THROUGH_UI_HELPERS[name]}" for line, name in calls
    ]


def test_the_direct_call_checker_sees_both_calls():
    text = "st.plotly_chart(fig)\ncols[0].download_button('a', b'')\nst.dataframe(x)\n"
    assert [name for _, name in _direct_streamlit_calls(text)] == ["plotly_chart", "download_button"]
