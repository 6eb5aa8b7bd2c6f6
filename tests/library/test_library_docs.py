"""docs/library.md (the wheel's README): every ```python block runs, and it stands alone.

Blocks that import skada or dask are skipped where those are not installed.  Blocks run
from the folder holding ``docs/`` (the checkout, or the copy ``.ci/library-floors``
makes), where the example of the paper's Table 8 finds ``sample_data/paper/``.
"""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "library.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", TEXT, flags=re.MULTILINE | re.DOTALL)
OPTIONAL = ("skada", "dask")


def test_the_examples_are_found():
    # quick start (2), the signature, dask, FLDAClassifierCV, Table 8, skada's pipeline and
    # grid search, scikit-learn's transform_input, BLAS
    assert len(BLOCKS) == 10
    assert sum("make_da_pipeline" in b for b in BLOCKS) == 2
    assert any("SourceTargetShuffleSplit" in b and "ImportanceWeightedScorer" in b for b in BLOCKS)
    assert not any("PredictionEntropyScorer" in b for b in BLOCKS)  # it always picks the weakest l2
    assert sum("FLDAClassifierCV(" in b for b in BLOCKS) == 2
    assert any("load_paper_domains" in b and "paper_l2s" in b for b in BLOCKS)
    assert any('transform_input=["X_target"]' in b for b in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index, monkeypatch):
    monkeypatch.chdir(ROOT)
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
