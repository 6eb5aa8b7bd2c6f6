"""docs/library.md (the wheel's README): every ```python block runs, and it stands alone.

Blocks that import skada or dask are skipped where those are not installed.
"""

import importlib.util
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", TEXT, flags=re.MULTILINE | re.DOTALL)
OPTIONAL = ("skada", "dask")


def test_the_examples_are_found():
    # quick start (2), the signature, dask, FLDAClassifierCV, skada's pipeline and grid search, BLAS
    assert len(BLOCKS) == 8
    assert sum("make_da_pipeline" in b for b in BLOCKS) == 2
    assert any("SourceTargetShuffleSplit" in b and "PredictionEntropyScorer" in b for b in BLOCKS)
    assert any("FLDAClassifierCV(" in b for b in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index):
    block = BLOCKS[index]
    for name in OPTIONAL:
        imported = re.search(rf"^\s*(import|from) {name}\b", block, flags=re.MULTILINE)
        if imported and importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed")
    exec(compile(block, f"docs/library.md block {index}", "exec"), {"__name__": "__doc_example__"})


def test_the_readme_stands_alone():
    """No relative link: the wheel carries this file without the repository around it."""
    for target in re.findall(r"\]\(([^)]+)\)", TEXT):
        assert target.startswith(("https://", "http://", "#")), target
    anchors = {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.*)$", TEXT, flags=re.MULTILINE)
    }
    for target in re.findall(r"\]\(#([^)]+)\)", TEXT):
        assert target in anchors, target
