"""What a maintainer of flda_core relies on: documented public names, short functions,
public scikit-learn API only.  Reads the installed package (also outside the checkout)."""

import ast
import inspect
import re
from pathlib import Path

import pytest

import flda_core

SOURCES = sorted(Path(flda_core.__file__).resolve().parent.glob("*.py"))
PUBLIC = [name for name in flda_core.__all__ if callable(getattr(flda_core, name))]


def _sections(obj):
    """The numpydoc section titles of ``obj``'s docstring."""
    return set(re.findall(r"^(\w[\w ]*)\n-{3,}$", inspect.getdoc(obj) or "", flags=re.MULTILINE))


def _own_methods(cls):
    """Public methods a class of flda_core defines (not scikit-learn's get_params & co.)."""
    ours = {c.__name__ for c in cls.__mro__ if "flda_core" in c.__module__}
    for name, member in inspect.getmembers(cls, predicate=callable):
        if not name.startswith("_") and getattr(member, "__qualname__", "").split(".")[0] in ours:
            yield name, member


def test_every_public_name_is_documented():
    assert len(PUBLIC) == len(flda_core.__all__) - 2  # all but __version__ and TRANSFER_MODELS
    missing = []
    for name in PUBLIC:
        obj = getattr(flda_core, name)
        wanted = {"Parameters"} if inspect.isclass(obj) else {"Parameters", "Returns|Yields"}
        if inspect.isclass(obj):
            for method_name, method in _own_methods(obj):
                have = _sections(method)
                if "Parameters" not in have or not have & {"Returns", "Yields"}:
                    missing.append(f"{name}.{method_name}")
        have = _sections(obj)
        for section in wanted:
            if not have & set(section.split("|")):
                missing.append(f"{name}: {section}")
    assert missing == []


def test_the_classes_document_their_public_methods():
    names = {name for name, _ in _own_methods(flda_core.FLDAClassifier)}
    assert {"fit", "predict", "predict_proba", "decision_function", "score", "partial_fit"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_function_is_longer_than_80_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    long = [
        f"{f.name} ({f.end_lineno - f.lineno + 1} lines)"
        for f in functions
        if f.end_lineno - f.lineno + 1 > 80
    ]
    assert long == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_only_public_scikit_learn_names_are_imported(path):
    private = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
            parts = node.module.split(".") + [alias.name for alias in node.names]
            private += [f"{node.module}: {p}" for p in parts if p.startswith("_")]
    assert private == []
