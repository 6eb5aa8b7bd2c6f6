"""Matching by position must never read a feature as the labels (issue 26).

A target whose label column comes first, matched by position against a source whose
label comes last, used to pair the target's labels with feature 1 and a feature with
the label (target errors 0.93-0.95) behind only an info note.
"""

import numpy as np
import pytest

from explorer.data.csv import parse_csv
from explorer.data.tabular import prepare_domains
from explorer.errors import DataValidationError
from explorer.experiments import your_data as yd

SOURCE = "f1,f2,label\n" + "".join(f"{i % 5},{(i * 3) % 7},{'x' if i % 5 >= 2 else 'y'}\n" for i in range(40))


def table(text, name):
    return parse_csv(text.encode("utf-8"), name)


def label_first(text):
    """The same rows with the label column moved to the front (and renamed columns)."""
    header, *rows = text.strip().split("\n")
    return "\n".join(",".join([r.split(",")[-1], *r.split(",")[:-1]]) for r in [header, *rows]) + "\n"


def test_same_names_in_another_order_are_matched_by_name():
    target = label_first(SOURCE)
    assert target.startswith("label,f1,f2\n")
    p = prepare_domains(
        table(SOURCE, "src.csv"), table(target, "tgt.csv"), "label", match="position", scale=False
    )
    assert p.feature_names == ("f1", "f2")
    np.testing.assert_array_equal(p.X_target, p.X_source)
    assert list(p.y_target) == list(p.y_source)
    assert p.report.match == "name" and p.report.renamed == ()
    assert any("matched by name" in w for w in p.report.warnings)
    table_of_errors = yd.target_error_table(p, yd.fit_models(p))
    assert table_of_errors["error"].max() < 0.5, table_of_errors


def test_same_names_without_the_label_in_another_order_are_matched_by_name():
    target = "f2,f1\n3,1\n0,4\n"
    p = prepare_domains(
        table(SOURCE, "src.csv"), table(target, "tgt.csv"), "label", match="position", scale=False
    )
    np.testing.assert_array_equal(p.X_target, [[1, 3], [4, 0]])
    assert p.y_target is None


def refusal(target, label="label"):
    with pytest.raises(DataValidationError) as info:
        prepare_domains(
            table(SOURCE, "src.csv"), table(target, "tgt.csv"), label, match="position", scale=False
        )
    assert info.value.message and info.value.hint
    assert "match features by name" in info.value.hint
    return info.value.message


def test_positional_match_with_the_label_elsewhere_is_refused():
    message = refusal("label,p,q\nx,1,2\ny,3,4\n")
    assert "'label' at position 1" in message and "position 3" in message
    assert "'q' would be read as the labels" in message


def test_positional_match_reading_a_named_feature_as_labels_is_refused():
    message = refusal("p,label,f2\n1,x,2\n3,y,4\n")  # the label's slot holds feature f2
    assert "'label' at position 2" in message


def test_positional_match_without_target_labels_but_with_a_label_column_is_refused():
    message = refusal("label,p\nx,1\ny,3\n")
    assert "would be read as a feature" in message


def test_positional_match_of_renamed_columns_still_works():
    p = prepare_domains(
        table(SOURCE, "src.csv"),
        table("p,q,lab\n1,2,x\n3,4,y\n", "tgt.csv"),
        "label",
        match="position",
        scale=False,
    )
    assert p.report.renamed == (("f1", "p"), ("f2", "q"))
    assert list(p.y_target) == ["x", "y"]
    headerless = "0,1,2\n1,2,x\n"  # numbers as column names: no header, nothing to compare
    p = prepare_domains(
        table(SOURCE, "src.csv"), table(headerless, "tgt.csv"), "label", match="position", scale=False
    )
    np.testing.assert_array_equal(p.X_target, [[1, 2]])
