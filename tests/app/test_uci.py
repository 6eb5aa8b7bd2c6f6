"""The shipped UCI data sets, the paper's source/target split and the encoding (section 4.2.2)."""

import numpy as np
import pandas as pd
import pytest

from explorer.data import uci
from explorer.data.csv import CsvTable, parse_csv
from explorer.errors import DataValidationError
from flda_core.transfer import estimate_dropout


def provenance_rows():
    """``{file: (rows, rows with a gap, label)}`` from the table in PROVENANCE.md."""
    text = (uci.UCI_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].endswith(".csv"):
            rows[cells[0]] = (int(cells[2]), int(cells[3]), cells[4].split(" ")[0])
    return rows


def test_provenance_lists_every_shipped_file_and_attribution():
    rows = provenance_rows()
    assert set(rows) == {spec.file for spec in uci.UCI_SETS.values()}
    text = (uci.UCI_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in text and "UCI" in text


@pytest.mark.parametrize("key", list(uci.UCI_SETS))
def test_counts_match_provenance(key):
    spec = uci.UCI_SETS[key]
    n_rows, n_gap, label = provenance_rows()[spec.file]
    frame = uci.load_uci(key)
    assert len(frame) == n_rows == spec.n_rows
    assert label == spec.label and spec.label in frame.columns
    # PROVENANCE counts rows with any empty cell; the split ignores non-features
    # (mammographic's bi_rads, the paper's 130 rows)
    assert int(frame.isna().any(axis=1).sum()) == n_gap
    source, target = uci.split_by_missing(frame, spec.label, tuple(spec.exclude))
    assert len(target) == spec.n_gap_rows
    assert len(source) + len(target) == n_rows


def test_mammographic_split_without_bi_rads_has_the_papers_130_target_rows():
    problem = uci.make_missing_problem("mammographic")
    assert len(problem.y_target) == 130 == problem.paper["missing"]
    assert "bi_rads" not in problem.feature_names
    assert any("bi_rads" in note for note in problem.notes)


@pytest.mark.parametrize("key", list(uci.UCI_SETS))
def test_problem_source_is_complete_and_target_rows_all_have_a_gap(key):
    spec = uci.UCI_SETS[key]
    frame = uci.load_uci(key)
    features = uci.feature_columns(frame, spec.label, tuple(spec.exclude))
    problem = uci.make_missing_problem(key)
    assert np.all(np.isfinite(problem.X_source)) and np.all(np.isfinite(problem.X_target))
    assert len(problem.y_source) == int(frame[features].notna().all(axis=1).sum())
    # every target row has a missing column, and its encoded cells are exact zeros
    gaps = frame.loc[frame[features].isna().any(axis=1), features].isna().to_numpy()
    origin = [features.index(c) for c in problem.feature_origin]
    assert np.all(problem.X_target[gaps[:, origin]] == 0.0)
    assert gaps.any(axis=1).all()
    for excluded in spec.exclude:
        assert excluded not in problem.feature_origin


def test_split_by_missing_on_a_small_frame():
    frame = pd.DataFrame(
        {
            "id": ["a", None, "c", "d", "e"],
            "x1": [1.0, 2.0, np.nan, 4.0, 5.0],
            "x2": [1.0, 2.0, 3.0, np.nan, 5.0],
            "y": ["p", "q", "p", "q", None],
        }
    )
    source, target = uci.split_by_missing(frame, "y", exclude=("id",))
    assert list(source.index) == [0, 1]  # the missing id does not count
    assert list(target.index) == [2, 3]  # row 4 has no label: in neither
    with pytest.raises(DataValidationError, match="no row with a missing"):
        uci.split_by_missing(frame.iloc[:2], "y", exclude=("id",))
    with pytest.raises(DataValidationError, match="no complete row"):
        uci.split_by_missing(frame.iloc[2:4], "y", exclude=("id",))
    with pytest.raises(DataValidationError, match="no column named"):
        uci.split_by_missing(frame, "label")


def test_split_by_missing_of_an_uploaded_csv_returns_two_tables():
    raw = b"a,b,label\n1,2,x\n,3,y\n4,5,y\n6,,x\n"
    table = parse_csv(raw, "one.csv")
    source, target = uci.split_by_missing(table, "label")
    assert isinstance(source, CsvTable) and isinstance(target, CsvTable)
    assert source.n_rows == 2 and target.n_rows == 2
    assert "complete rows" in source.name and "gaps" in target.name
    assert target.frame["a"].isna().sum() == 1 and target.frame["b"].isna().sum() == 1


def test_one_hot_encoding_uses_the_source_categories():
    source = pd.DataFrame({"colour": ["red", "blue", "red"], "size": [1.0, 2.0, 3.0]})
    target = pd.DataFrame({"colour": [None, "green", "blue"], "size": [np.nan, 2.0, 4.0]})
    X_s, X_t, names, origin = uci.encode_features(source, target, ["colour", "size"])
    assert names == ["colour=blue", "colour=red", "size"]
    assert origin == ["colour", "colour", "size"]
    # every column is divided by its source root mean square (0/1 columns too)
    rms = np.sqrt([1 / 3, 2 / 3, np.mean([1.0, 4.0, 9.0])])
    np.testing.assert_allclose(X_s * rms, [[0, 1, 1], [1, 0, 2], [0, 1, 3]])
    # a missing colour and an unseen colour are all-zero groups; a missing size is 0
    np.testing.assert_allclose(X_t * rms, [[0, 0, 0], [0, 0, 2], [1, 0, 4]])


def test_mean_imputation_puts_the_source_mean_into_the_gaps():
    source = pd.DataFrame({"a": [1.0, 3.0, 5.0], "b": [2.0, 2.0, 8.0]})
    target = pd.DataFrame({"a": [np.nan, 5.0], "b": [4.0, np.nan]})
    X_s, X_t, _, _ = uci.encode_features(source, target, ["a", "b"], impute="mean")
    np.testing.assert_allclose(X_s.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_s.std(axis=0), 1.0)
    # back in file units, the gaps hold the source means 3 and 4
    mean, std = np.array([3.0, 4.0]), source.std(ddof=0).to_numpy()
    np.testing.assert_allclose(X_t * std + mean, [[3.0, 4.0], [5.0, 4.0]])
    assert X_t[0, 0] == 0.0 and X_t[1, 1] == 0.0


def test_encoding_keeps_constant_and_all_missing_columns_finite():
    source = pd.DataFrame({"zero": [0.0, 0.0], "const": [5.0, 5.0]})
    target = pd.DataFrame({"zero": [np.nan, 0.0], "const": [np.nan, np.nan]})
    for impute in uci.IMPUTE_OPTIONS:
        X_s, X_t, _, _ = uci.encode_features(source, target, ["zero", "const"], impute)
        assert np.all(np.isfinite(X_s)) and np.all(np.isfinite(X_t))


def test_automobile_categorical_columns_are_one_hot():
    problem = uci.make_missing_problem("automobile")
    frame = uci.load_uci("automobile")
    makes = sorted(frame.loc[frame.drop(columns="symboling").notna().all(axis=1), "make"].unique())
    assert [n for n in problem.feature_names if n.startswith("make=")] == [f"make={m}" for m in makes]
    block = problem.X_source[:, [n.startswith("make=") for n in problem.feature_names]]
    assert np.all(np.count_nonzero(block, axis=1) == 1)  # exactly one make per car
    assert len(set(problem.feature_origin)) == 25
    assert any("one-hot" in note for note in problem.notes)


def test_theta_follows_the_missing_rate_of_heart():
    problem = uci.make_missing_problem("heart")
    theta = estimate_dropout(problem.X_source, problem.X_target)
    ca = problem.feature_names.index("ca")
    # 'ca' is empty in most target rows: dropout explains it
    assert problem.missing_rate[ca] > 0.9
    assert theta[ca] > 0.9
    assert np.argmax(problem.missing_rate) == np.argmax(theta)


def test_table2_lists_here_and_paper():
    table = uci.table2(uci.make_missing_problem(k) for k in uci.UCI_SETS)
    assert list(table["samples (paper)"]) == [155, 2534, 704, 961, 205, 452]
    assert list(table["missing (here)"]) == [uci.UCI_SETS[k].n_gap_rows for k in uci.UCI_SETS]
    assert list(table["features (here)"])[:4] == [19, 72, 13, 4]


def test_unknown_key_and_impute_are_rejected():
    with pytest.raises(KeyError):
        uci.load_uci("iris")
    with pytest.raises(ValueError, match="impute"):
        uci.encode_features(pd.DataFrame({"a": [1.0]}), pd.DataFrame({"a": [1.0]}), ["a"], impute="median")
