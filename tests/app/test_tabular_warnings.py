"""Your data warns about id-like columns and tiny targets (issue 12)."""

import numpy as np

from explorer.data.csv import parse_csv
from explorer.data.tabular import TINY_TARGET_ROWS, id_like_columns, prepare_domains, size_notes


def _csv(rows, name, with_id=True):
    rng = np.random.default_rng(len(rows) + len(name))
    lines = ["row_id,a,b,label" if with_id else "a,b,label"]
    for i, y in enumerate(rows):
        a, b = rng.poisson(2 + 3 * y), rng.poisson(5 - 3 * y)
        lines.append((f"{1000 + i}," if with_id else "") + f"{a},{b},{'xy'[y]}")
    return parse_csv("\n".join(lines).encode(), name)


def test_id_like_columns_are_whole_unique_or_monotone():
    rng = np.random.default_rng(0)
    n = 40
    X = np.column_stack(
        [
            np.arange(n),  # row number: monotone
            rng.permutation(n) + 100,  # shuffled ids: whole numbers, all different
            np.sort(rng.normal(size=n)),  # timestamps as floats: monotone
            rng.poisson(3, n),  # counts: repeated values
            rng.normal(size=n),  # continuous measurement: unique, not whole
        ]
    ).astype(float)
    names = ["row", "id", "time", "count", "measure"]
    assert id_like_columns(X, names) == ["row", "id", "time"]
    assert id_like_columns(X[:5], names) == []  # too few rows to tell
    assert id_like_columns(np.zeros((50, 2)), ["z1", "z2"]) == []  # constant columns


def test_prepare_domains_warns_about_an_id_column_and_names_it():
    labels = [0, 1] * 30
    prepared = prepare_domains(_csv(labels, "src.csv"), _csv(labels, "tgt.csv"), "label")
    warnings = " ".join(prepared.report.warnings)
    assert "row_id" in warnings and "row identifier" in warnings
    clean = prepare_domains(
        _csv(labels, "src.csv", with_id=False), _csv(labels, "tgt.csv", with_id=False), "label"
    )
    assert not any("row identifier" in w for w in clean.report.warnings)


def test_tiny_target_warns_with_the_computed_resolution():
    assert size_notes(TINY_TARGET_ROWS, TINY_TARGET_ROWS, "t.csv") == []
    notes = size_notes(8, 8, "t.csv")
    assert len(notes) == 2
    assert f"{0.5 / np.sqrt(8):.2f}" in notes[0] and "1/8 = 0.125" in notes[1]
    assert len(size_notes(8, 0, "t.csv")) == 1  # no labels: no error resolution
    prepared = prepare_domains(
        _csv([0, 1] * 30, "src.csv", with_id=False), _csv([0, 1] * 5, "tgt.csv", with_id=False), "label"
    )
    assert any("only 10 rows" in w for w in prepared.report.warnings)
