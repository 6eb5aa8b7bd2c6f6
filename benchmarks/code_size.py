"""The dashboard's size, as issue 43 counts it: ``python3 benchmarks/code_size.py``.

Prints the lines of ``explorer/``, ``pages/`` and ``assets/`` (Python, JavaScript and
CSS files), every page's lines and the length of its ``main()``, the functions longer
than 60 and 80 lines outside the tests, and the words of ``docs/``.  ``--json`` prints
the same as one JSON object.  The targets (issue 43): explorer + pages + assets at least
15 % below 27.0k lines, every page at most 300 lines with ``main()`` at most 60, no
function over 80 lines outside the tests, ``docs/`` at most 12k words.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COUNTED = ("explorer", "pages", "assets")
SUFFIXES = (".py", ".js", ".mjs", ".css")
#: The lines of explorer/ + pages/ + assets/ when issue 43 was filed.
BASELINE_LINES = 27_000


def _lines(path):
    return len(path.read_text(encoding="utf-8", errors="replace").splitlines())


def tree_lines(root=ROOT):
    """``{folder: lines}`` of the counted folders."""
    return {
        name: sum(_lines(p) for p in sorted((root / name).rglob("*")) if p.suffix in SUFFIXES and p.is_file())
        for name in COUNTED
    }


def long_functions(root=ROOT, over=60):
    """``[(path:line, name, lines)]`` of the functions longer than ``over`` lines outside
    ``tests/`` (every Python file of the project, benchmarks included)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("tests", ".git") or "site-packages" in rel.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > over:
                    found.append((f"{rel}:{node.lineno}", node.name, n))
    return sorted(found, key=lambda row: -row[2])


def pages(root=ROOT):
    """``{page: (lines, lines of main() or None)}``."""
    out = {}
    for path in sorted((root / "pages").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        main = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"), None)
        out[path.name] = (_lines(path), None if main is None else main.end_lineno - main.lineno + 1)
    return out


def docs_words(root=ROOT):
    """``{file: words}`` of ``docs/*.md``."""
    files = sorted((root / "docs").glob("*.md"))
    return {p.name: len(re.findall(r"\S+", p.read_text(encoding="utf-8"))) for p in files}


def report(root=ROOT):
    lines = tree_lines(root)
    total = sum(lines.values())
    words = docs_words(root)
    return {
        "lines": lines,
        "total_lines": total,
        "baseline_lines": BASELINE_LINES,
        "change": round(total / BASELINE_LINES - 1, 4),
        "pages": pages(root),
        "functions_over_60": long_functions(root, 60),
        "functions_over_80": long_functions(root, 80),
        "docs_words": words,
        "docs_total_words": sum(words.values()),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    data = report()
    if args.json:
        print(json.dumps(data))
        return
    for name, n in data["lines"].items():
        print(f"{name + '/':10} {n:6d} lines")
    print(f"{'total':10} {data['total_lines']:6d} lines ({data['change']:+.1%} against {BASELINE_LINES})")
    print("\npage                 lines  main()")
    for name, (n, main_n) in data["pages"].items():
        print(f"{name:20} {n:5d}  {main_n if main_n is not None else '-':>5}")
    over_60, over_80 = len(data["functions_over_60"]), len(data["functions_over_80"])
    print(f"\nfunctions over 60 lines: {over_60}, over 80: {over_80}")
    for where, name, n in data["functions_over_80"]:
        print(f"  {n:4d}  {name}  {where}")
    print(f"\ndocs/: {data['docs_total_words']} words")
    for name, n in data["docs_words"].items():
        print(f"  {n:6d}  {name}")


if __name__ == "__main__":
    main()
