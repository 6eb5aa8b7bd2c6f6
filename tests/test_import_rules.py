"""The layout's import rules (CONTRIBUTING.md, "Layout"), checked by parsing every import.

* The method (``flda_core/{transfer,transfer_models,objectives,solvers,classifier,dask_support}.py``)
  imports only itself: nothing from datasets, experiments, figures or the helpers.
* ``flda_core/names.py``, ``errors.py``, ``safe_text.py`` and ``url_state.py`` import
  nothing from ``flda_core``; ``error_report.py`` only ``errors``.
* ``datasets`` may use the method, ``names`` and ``errors``; never experiments or figures.
* ``figures`` may use ``names``, ``safe_text`` and each other; never the method,
  datasets or experiments.
* ``experiments`` may use the method, datasets, ``names``, ``errors``, ``equations`` and
  each other; never figures.
* ``equations.py`` (the paper's equations as text plus the scalars they define) and
  ``presentation.py`` (presentation mode as data) import nothing from ``flda_core``;
  ``lesson.py`` (the lesson's steps as data) may read the paper constants of datasets and
  experiments, ``names``, ``equations`` and ``presentation``, never figures or the method.
* Nothing in ``flda_core`` imports streamlit.
* Pages import ``flda_core`` and ``ui_common`` only (no other page, not ``app``, not
  ``ui_chart``: charts go through ``ui_common.show_chart``); ``ui_common`` imports
  ``flda_core`` and ``ui_chart``; ``ui_chart`` nothing of the project.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "flda_core"
METHOD = {"transfer", "transfer_models", "objectives", "solvers", "classifier", "dask_support"}
#: For each part of flda_core, the parts it may import.
ALLOWED = {
    "method": {"method"},
    "names": set(),
    "errors": set(),
    "safe_text": set(),
    "url_state": set(),
    "error_report": {"errors"},
    "datasets": {"method", "names", "errors", "datasets"},
    "figures": {"names", "safe_text", "figures"},
    "experiments": {"method", "names", "errors", "datasets", "experiments", "equations"},
    "equations": set(),
    "presentation": set(),
    "lesson": {"names", "datasets", "experiments", "equations", "presentation"},
    "package": {"method", "datasets", "names", "errors"},
}
PROJECT = {"flda_core", "ui_common", "ui_chart", "app", "pages", "tests", "benchmarks"}


def _part(module):
    """The part of flda_core a dotted module name belongs to."""
    parts = module.split(".")
    assert parts[0] == "flda_core", module
    if len(parts) == 1:
        return "package"
    if parts[1] in ("datasets", "experiments", "figures"):
        return parts[1]
    if parts[1] in METHOD:
        return "method"
    return parts[1]


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


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
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            names = [f"{target}.{alias.name}" for alias in node.names]
            # "from . import x" / "from flda_core import datasets": the names are modules
            found += names if node.module is None or target.count(".") == 0 else [target]
    return found


CORE_FILES = sorted(CORE.rglob("*.py"))


def _core_violations(path, text=None, module=None):
    module = module or _module_name(path)
    own = _part(module)
    problems = []
    for target in _imports(path, text, module):
        top = target.split(".")[0]
        if top == "streamlit" or top in PROJECT - {"flda_core"}:
            problems.append(f"{module} imports {target}")
        elif top == "flda_core":
            other = _part(target)
            if other != own and other not in ALLOWED[own]:
                problems.append(f"{module} ({own}) imports {target} ({other})")
    return problems


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_flda_core_imports_follow_the_layout(path):
    assert _core_violations(path) == []


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_import_flda_core_and_ui_common_only(path):
    for target in _imports(path):
        top = target.split(".")[0]
        if top in PROJECT:
            assert top in ("flda_core", "ui_common"), f"{path.name} imports {target}"


def test_ui_common_imports_flda_core_and_no_page():
    for target in _imports(ROOT / "ui_common.py"):
        top = target.split(".")[0]
        assert top not in PROJECT or top in ("flda_core", "ui_chart"), \
            f"ui_common imports {target}"


def test_ui_chart_imports_nothing_of_the_project():
    """The chart element (ui_chart.py) is plumbing: it knows no page, figure or method."""
    assert not [t for t in _imports(ROOT / "ui_chart.py") if t.split(".")[0] in PROJECT]


def test_the_checker_sees_forbidden_imports():
    """The rules are not vacuous: each kind of forbidden import is reported."""
    probe = CORE / "figures" / "probe.py"          # never written: parsed from text
    text = ("from ..experiments.synthetic import fit_linear\nimport streamlit\n"
            "from ..datasets import digits\nimport ui_common\n")
    assert len(_core_violations(probe, text, "flda_core.figures.probe")) == 4
    method = CORE / "transfer.py"
    assert _core_violations(method, "from .names import LOSSES\n", "flda_core.transfer")
    assert not _core_violations(method, "from .objectives import x\n", "flda_core.transfer")


#: Streamlit calls a page must make through ui_common (CONTRIBUTING.md, "Streamlit
#: conventions"): charts get the export button, presentation style and text alternative;
#: downloads are spreadsheet-safe and made on click.
THROUGH_UI_COMMON = {"plotly_chart": "ui_common.show_chart",
                     "download_button": "ui_common.download_csv"}


def _direct_streamlit_calls(text):
    return [(node.lineno, node.func.attr) for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in THROUGH_UI_COMMON]


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_draw_charts_and_downloads_through_ui_common(path):
    calls = _direct_streamlit_calls(path.read_text(encoding="utf-8"))
    assert not calls, [f"{path.name}:{line} calls {name}; use {THROUGH_UI_COMMON[name]}"
                       for line, name in calls]


def test_the_direct_call_checker_sees_both_calls():
    text = "st.plotly_chart(fig)\ncols[0].download_button('a', b'')\nst.dataframe(x)\n"
    assert [name for _, name in _direct_streamlit_calls(text)] == ["plotly_chart",
                                                                   "download_button"]
