"""CSV reading, validation and preparation of user data (explorer.data.tabular)."""

import codecs

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from explorer.data import csv as csvio
from explorer.data import tabular as tab
from explorer.errors import DataValidationError
from explorer.experiments import your_data as yd
from explorer.names import TABLE_CLASSIFIERS
from explorer.registry import SAMPLE_DIR
from explorer.data.csv import parse_csv
from explorer.data.tabular import prepare_domains
from text_numbers import numbers


def table(text, name="file.csv"):
    return parse_csv(text.encode("utf-8") if isinstance(text, str) else text, name)


def numeric_columns(t):
    """The columns parsed as numbers (float64, NaN for missing cells)."""
    return tuple(c for c in t.columns if t.frame[c].dtype == np.float64)


GOOD = "a,b,c,label\n1,0,2,x\n0,3,0,y\n2,1,0,x\n0,0,4,y\n5,0,1,x\n0,2,2,y\n"


def error_of(raw, name="bad.csv"):
    with pytest.raises(DataValidationError) as info:
        parse_csv(raw, name)
    assert info.value.message and info.value.hint
    return info.value


# ----------------------------------------------------------------------------- parsing


def test_good_file_is_parsed_with_numeric_features_and_string_labels():
    t = table(GOOD)
    assert t.columns == ("a", "b", "c", "label")
    assert numeric_columns(t) == ("a", "b", "c")
    assert t.n_rows == 6
    np.testing.assert_array_equal(t.frame["a"].to_numpy(), [1, 0, 2, 0, 5, 0])
    assert list(t.frame["label"]) == ["x", "y", "x", "y", "x", "y"]
    assert t.encoding == "UTF-8" and t.delimiter == "," and t.warnings == ()


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (b"", "is empty"),
        (b"   \n\n \r\n", "is empty"),
        (b"a,b,label\n", "no data rows"),
        (b"a,b,label\n\n\n", "no data rows"),
        (b"a,a,label\n1,2,x\n", "duplicate column names: 'a'"),
        (b"a,b\n1,2,3\n", "first data row"),
        (b"a,b\n1,2\n3,4,5\n", "Line 3"),
        (b'a,b\n"1,2\n3,4\n', "quote"),
        (b"PK\x03\x04rest-of-zip", "ZIP archive"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1", "Excel"),
        (b"a,b\n1,\x002\n", "binary data"),
        (b"a,,c\n1,2,3\n", "no name"),
    ],
)
def test_bad_files_give_specific_messages(raw, fragment):
    error = error_of(raw)
    assert fragment in str(error)
    assert "bad.csv" in error.message or "Line" in error.message


def test_utf8_bom_and_latin1_and_utf16_are_decoded():
    bom = table(codecs.BOM_UTF8 + "größe,label\n1,x\n2,y\n".encode())
    assert bom.columns == ("größe", "label") and bom.encoding == "UTF-8 with BOM"
    latin = table("größe,label\n1,x\n2,y\n".encode("latin-1"))
    assert latin.columns == ("größe", "label") and latin.encoding == "Latin-1"
    assert any("Latin-1" in w for w in latin.warnings)
    utf16 = table("größe,label\n1,x\n2,y\n".encode("utf-16"))
    assert utf16.columns == ("größe", "label") and utf16.encoding == "UTF-16"


@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_other_delimiters_are_detected(delimiter):
    t = table(GOOD.replace(",", delimiter))
    assert t.delimiter == delimiter
    assert t.columns == ("a", "b", "c", "label")
    assert numeric_columns(t) == ("a", "b", "c")


def test_decimal_commas_in_semicolon_files_are_read_and_reported():
    t = table("a;b;label\n1,5;2;x\n-0,25;3;y\n")
    np.testing.assert_allclose(t.frame["a"], [1.5, -0.25])
    assert any("decimal commas" in w for w in t.warnings)


def test_quoted_fields_with_delimiters_and_crlf_line_ends():
    t = table('name,a,label\r\n"Smith, J",1,x\r\n"Doe, A",2,y\r\n')
    assert list(t.frame["name"]) == ["Smith, J", "Doe, A"]
    assert numeric_columns(t) == ("a",)


def test_missing_tokens_become_nan():
    t = table("a,b,label\nNA,1,x\n2,?,y\n,n/a,x\n3, NaN ,y\nnull,4,x\n")
    assert numeric_columns(t) == ("a", "b")
    assert int(t.frame[["a", "b"]].isna().sum().sum()) == 6


def test_trailing_delimiter_column_is_dropped_with_warning():
    t = table("a,b,label,\n1,2,x,\n3,4,y,\n")
    assert t.columns == ("a", "b", "label")
    assert any("no name and no values" in w for w in t.warnings)


def test_numeric_header_warns_that_first_row_may_be_data():
    t = table("1,2,3\n4,5,6\n")
    assert any("may be data" in w for w in t.warnings)


def test_size_row_and_column_limits(monkeypatch):
    monkeypatch.setattr(csvio, "MAX_FILE_BYTES", 100)
    assert "limit is" in str(error_of(b"a,b\n" + b"1,2\n" * 40))
    monkeypatch.setattr(csvio, "MAX_FILE_BYTES", 10**9)
    monkeypatch.setattr(csvio, "MAX_ROWS", 3)
    assert "4 data rows" in str(error_of(b"a,b\n" + b"1,2\n" * 4))
    monkeypatch.setattr(csvio, "MAX_COLUMNS", 3)
    assert "4 columns" in str(error_of(b"a,b,c,d\n1,2,3,4\n"))
    monkeypatch.setattr(csvio, "MAX_CELLS", 5)
    assert "values; the limit" in str(error_of(b"a,b\n1,2\n3,4\n5,6\n"))


def test_documented_limits():
    assert csvio.MAX_FILE_BYTES == 50 * 2**20
    assert csvio.MAX_ROWS == 200_000 and csvio.MAX_COLUMNS == 5_000


def test_guess_label_column():
    assert csvio.guess_label_column(table("a,Class,b\n1,x,2\n")) == "Class"
    assert csvio.guess_label_column(table("a,b,c\n1,2,3\n")) == "c"


# ----------------------------------------------------------------------------- preparation


def prep_error(source, target, label="label", **kwargs):
    with pytest.raises(DataValidationError) as info:
        prepare_domains(table(source, "src.csv"), table(target, "tgt.csv"), label, **kwargs)
    assert info.value.message and info.value.hint
    return str(info.value)


def test_prepare_by_name_reports_columns_in_one_file_only():
    source = table("a,b,c,label\n1,0,2,x\n0,3,0,y\n2,1,0,x\n0,0,4,y\n", "src.csv")
    target = table("c,a,d\n1,0,7\n0,2,8\n", "tgt.csv")
    p = prepare_domains(source, target, "label", scale=False)
    assert p.feature_names == ("a", "c")
    np.testing.assert_array_equal(p.X_target, [[0, 1], [2, 0]])  # reordered to source order
    assert p.report.only_in_source == ("b",) and p.report.only_in_target == ("d",)
    assert any("only in src.csv" in w and "only in tgt.csv" in w for w in p.report.warnings)
    assert p.y_target is None and not p.has_target_labels


def test_prepare_by_position_pairs_columns_whatever_their_names():
    source = table("a,b,label\n1,0,x\n0,3,y\n2,1,x\n0,1,y\n", "src.csv")
    with_label = table("p,q,lab\n5,6,x\n7,8,y\n", "tgt.csv")
    p = prepare_domains(source, with_label, "label", match="position", scale=False)
    np.testing.assert_array_equal(p.X_target, [[5, 6], [7, 8]])
    assert p.report.renamed == (("a", "p"), ("b", "q"))
    assert list(p.y_target) == ["x", "y"]
    no_label = table("p,q\n5,6\n", "tgt.csv")
    p = prepare_domains(source, no_label, "label", match="position", scale=False)
    np.testing.assert_array_equal(p.X_target, [[5, 6]])
    assert p.y_target is None
    label_first = table("label,a,b\nx,1,0\ny,0,3\nx,2,1\ny,0,1\n", "src.csv")
    p = prepare_domains(label_first, no_label, "label", match="position", scale=False)
    np.testing.assert_array_equal(p.X_target, [[5, 6]])
    assert "same 3 columns" in prep_error("a,b,label\n1,0,x\n0,3,y\n", "p\n5\n", match="position")


def test_missing_values_as_zeros_or_dropped_rows_with_counts():
    source = "a,b,label\n1,,x\n0,3,y\n2,1,x\n0,1,y\n4,2,x\n"
    target = "a,b,label\n,,x\n1,2,y\n3,,x\n"
    p = prepare_domains(table(source, "s"), table(target, "t"), "label", scale=False)
    r = p.report
    assert (r.missing_cells_source, r.incomplete_rows_source) == (1, 1)
    assert (r.missing_cells_target, r.incomplete_rows_target) == (3, 2)
    np.testing.assert_array_equal(p.X_target, [[0, 0], [1, 2], [3, 0]])
    assert "set to 0" in r.missing_summary() and "4.2.2" in r.missing_summary()
    # per domain: missing cells, then incomplete rows of all rows
    source_part = r.missing_summary().split("source: ")[1].split(";")[0]
    target_part = r.missing_summary().split("target: ")[1].split(";")[0]
    assert numbers(source_part)[:3] == [1, 1, 5] and "missing value in" in source_part
    assert numbers(target_part)[:3] == [3, 2, 3] and "missing values in" in target_part
    d = prepare_domains(table(source, "s"), table(target, "t"), "label", missing="drop", scale=False)
    assert (d.report.dropped_rows_source, d.report.dropped_rows_target) == (1, 2)
    np.testing.assert_array_equal(d.X_target, [[1, 2]])
    np.testing.assert_array_equal(d.target_rows, [2])
    assert list(d.y_target) == ["y"]
    assert "dropped" in d.report.missing_summary()


def test_dropping_all_target_rows_suggests_zeros():
    message = prep_error("a,label\n1,x\n2,y\n3,x\n4,y\n", "a,label\n,x\n", missing="drop")
    assert "treat as zeros" in message


@pytest.mark.parametrize(
    "source, target, fragment",
    [
        ("a,b,label\n1,red,x\n2,blue,y\n", "a,b\n1,2\n", "'b' in src.csv are not numeric"),
        ("a,b,label\n1,2,x\n2,3,y\n", "a,b\n1,two\n", "in tgt.csv are not numeric"),
        ("a,b,label\n1,inf,x\n2,3,y\n", "a,b\n1,2\n", "infinite"),
        ("a,b,label\n1,2,x\n2,3,y\n", "a,b\n1,-Infinity\n", "infinite"),
        ("a,b,label\n1,2,x\n2,3,x\n", "a,b\n1,2\n", "only one class"),
        ("a,b,label\n1,2,x\n2,3,\n3,4,y\n", "a,b\n1,2\n", "missing label"),
        ("a,b,label\n1,2,x\n2,3,y\n3,4,x\n", "a,b\n1,2\n", "at least 2 source samples"),
        ("a,b,label\n1,2,x\n2,3,y\n", "c,d\n1,2\n", "no feature column names in common"),
        ("label\nx\ny\n", "label\nx\n", "no feature columns"),
    ],
)
def test_preparation_errors_name_the_problem(source, target, fragment):
    assert fragment in prep_error(source, target)


def test_continuous_label_is_rejected():
    rows = "\n".join(f"{i},{i * 0.37:.2f}" for i in range(60))
    assert "looks like a measurement" in prep_error("a,label\n" + rows + "\n", "a\n1\n")


def test_unknown_label_column():
    assert "not in src.csv" in prep_error(GOOD, GOOD, label="nope")


def test_negative_values_are_allowed_with_a_warning():
    p = prepare_domains(
        table("a,b,label\n-1,0,x\n1,2,y\n0,1,x\n2,0,y\n", "s"), table("a,b\n1,2\n", "t"), "label"
    )
    assert any("negative values" in w and "'a'" in w for w in p.report.warnings)


def test_features_absent_in_source_or_target_are_reported():
    p = prepare_domains(
        table("a,b,c,label\n1,0,1,x\n2,0,3,y\n1,0,0,x\n0,0,1,y\n", "s"),
        table("a,b,c\n0,1,2\n0,0,1\n", "t"),
        "label",
    )
    text = " ".join(p.report.warnings)
    assert "zero (or missing) in every source row ('b')" in text
    assert "never occur" in text and "('a')" in text


def test_numeric_labels_become_integers_and_match_target_labels():
    p = prepare_domains(
        table("a,label\n1,0\n2,1\n3,0\n0,1\n", "s"), table("a,label\n1,1\n2,\n", "t"), "label"
    )
    assert list(p.classes) == [0, 1]
    assert list(p.y_target) == [1, None]
    np.testing.assert_array_equal(p.target_labelled, [True, False])
    (unlabelled,) = [w for w in p.report.warnings if "target rows have no label" in w]
    assert numbers(unlabelled.split("target rows have no label")[0]) == [1]


def test_mixed_label_kinds_are_compared_as_text():
    p = prepare_domains(
        table("a,label\n1,0\n2,1\n3,0\n0,1\n", "s"), table("a,label\n1,1\n2,spam\n", "t"), "label"
    )
    assert list(p.classes) == ["0", "1"]
    assert list(p.y_target) == ["1", "spam"]
    assert any("never occur in s" in w for w in p.report.warnings)


def test_excluded_columns_are_left_out():
    p = prepare_domains(
        table("id,a,name,label\n1,1,ann,x\n2,0,bob,y\n3,2,cy,x\n4,1,di,y\n"),
        table("id,a,name\n9,1,zed\n"),
        "label",
        exclude=("id", "name"),
    )
    assert p.feature_names == ("a",) and p.report.excluded == ("id", "name")


def test_scaling_divides_by_source_rms_and_keeps_zeros_and_theta():
    source = table("a,b,label\n3,0,x\n4,10,y\n0,0,x\n0,20,y\n", "s")
    target = table("a,b\n3,0\n0,5\n", "t")
    raw = prepare_domains(source, target, "label", scale=False)
    scaled = prepare_domains(source, target, "label", scale=True)
    rms = np.sqrt(np.mean(raw.X_source**2, axis=0))
    np.testing.assert_allclose(scaled.scale, rms)
    np.testing.assert_allclose(scaled.X_source * rms, raw.X_source)
    assert np.array_equal(scaled.X_target == 0, raw.X_target == 0)
    np.testing.assert_allclose(yd.theta_frame(scaled)["theta"], yd.theta_frame(raw)["theta"])


# ----------------------------------------------------------------------------- models


def sample_prepared(key="breast_cancer", **kwargs):
    source_name, source_raw, target_name, target_raw = tab.read_sample(key, SAMPLE_DIR)
    return prepare_domains(
        parse_csv(source_raw, source_name),
        parse_csv(target_raw, target_name),
        tab.SAMPLE_SETS[key].label,
        **kwargs,
    )


def test_theta_frame_matches_direct_counts_and_classifier():
    p = sample_prepared("poisson")
    models = yd.fit_models(p, l2=1e-3, names=("FLDA-L",))
    thetas = yd.theta_frame(p, models).set_index("feature")
    for j, name in enumerate(p.feature_names):
        eta = np.mean(p.X_source[:, j] != 0)
        zeta = np.mean(p.X_target[:, j] != 0)
        assert thetas.loc[name, "source_nonzero"] == pytest.approx(eta)
        assert thetas.loc[name, "theta"] == pytest.approx(max(0.0, 1 - zeta / eta))
        assert thetas.loc[name, "theta"] == pytest.approx(models["FLDA-L"].theta_[j])
    assert list(yd.theta_frame(p)["theta"]) == sorted(thetas["theta"], reverse=True)


def test_source_logistic_regression_agrees_with_scikit_learn():
    p = sample_prepared("breast_cancer")
    l2 = 1e-2
    models = yd.fit_models(p, l2=l2, names=("S-LR",))
    reference = LogisticRegression(C=1 / (2 * l2 * len(p.y_source)), tol=1e-10, max_iter=10_000).fit(
        p.X_source, list(p.y_source)
    )
    np.testing.assert_allclose(models["S-LR"].coef_, reference.coef_, rtol=1e-3, atol=1e-4)
    agreement = np.mean(models["S-LR"].predict(p.X_target) == reference.predict(p.X_target))
    assert agreement == 1.0


def test_error_table_counts_mistakes_independently():
    p = sample_prepared("breast_cancer")
    models = yd.fit_models(p, l2=1e-3)
    assert list(models) == list(TABLE_CLASSIFIERS)
    errors = yd.target_error_table(p, models)
    # Errors first (a phone shows the left columns of a table that scrolls sideways).
    assert list(errors.columns) == ["classifier", "error", "errors", "family", "n_target"]
    errors = errors.set_index("classifier")
    truth = np.array([str(v) for v in p.y_target])
    for name, model in models.items():
        wrong = int(np.sum(np.array([str(v) for v in model.predict(p.X_target)]) != truth))
        assert errors.loc[name, "errors"] == wrong
        assert errors.loc[name, "error"] == pytest.approx(wrong / len(truth))
    assert errors.loc["T-LR", "family"] == "target" and errors.loc["FLDA-Q", "family"] == "flda"
    # The sample shows something real: FLDA-L beats the naive S-LR under missing data.
    assert errors.loc["FLDA-L", "error"] < errors.loc["S-LR", "error"]
    # The oracle is trained on exactly the target rows: it is the best of all.
    assert errors.loc["T-LR", "error"] == errors["error"].min()


def test_unlabelled_target_gives_predictions_only():
    p = sample_prepared("poisson_unlabelled")
    models = yd.fit_models(p, l2=1e-3)
    assert "T-LR" not in models
    assert yd.target_error_table(p, models).empty
    predictions = yd.predictions_frame(p, models)
    assert "true_label" not in predictions.columns
    assert len(predictions) == 400 and list(predictions["row"][:3]) == [1, 2, 3]
    assert set(predictions["FLDA-Q"]) <= {"ham", "spam"}
    np.testing.assert_allclose(predictions["FLDA-L P(ham)"] + predictions["FLDA-L P(spam)"], 1)
    assert yd.probability_columns(predictions) == [("FLDA-L P(ham)", "ham"), ("FLDA-L P(spam)", "spam")]
    without_flda_l = yd.predictions_frame(p, {n: m for n, m in models.items() if n != "FLDA-L"})
    assert yd.probability_columns(without_flda_l) == []


def test_probability_columns_keep_odd_class_names():
    frame = pd.DataFrame(
        {"row": [1], "FLDA-L": ["a (b)"], "FLDA-L P(a (b))": [0.4], "FLDA-L P()": [0.6], "FLDA-Q": ["x"]}
    )
    assert yd.probability_columns(frame) == [("FLDA-L P(a (b))", "a (b)"), ("FLDA-L P()", "")]


def test_fit_models_progress_and_unknown_names():
    p = sample_prepared("poisson")
    calls = []
    yd.fit_models(p, names=("S-LS", "FLDA-Q"), progress=lambda fraction, text: calls.append((fraction, text)))
    assert calls == [(0.0, "Fitting S-LS (1 of 2)…"), (0.5, "Fitting FLDA-Q (2 of 2)…"), (1.0, "Done")]
    with pytest.raises(ValueError):
        yd.fit_models(p, names=("SVM",))


# ----------------------------------------------------------------------------- sample data


def test_sample_files_are_reproduced_exactly_by_the_script(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_samples", SAMPLE_DIR / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.main(tmp_path)
    assert len(written) == 5
    for path in written:
        committed = SAMPLE_DIR / path.name
        assert path.read_bytes() == committed.read_bytes(), path.name
        assert committed.stat().st_size < 200_000
    readme = (SAMPLE_DIR / "README.md").read_text()
    for path in written:
        assert path.name in readme


def test_samples_are_valid_and_show_their_story():
    for key in tab.SAMPLE_SETS:
        p = sample_prepared(key)
        assert p.report.warnings == ()
    cancer = sample_prepared("breast_cancer")
    assert cancer.report.missing_cells_source == 0
    assert cancer.report.missing_cells_target > 0
    poisson = sample_prepared("poisson")
    thetas = yd.theta_frame(poisson).set_index("feature")["theta"]
    assert thetas["free"] > 0.6 and thetas["meeting"] < 0.15


def test_convergence_notes_name_stalled_logistic_fits():
    p = sample_prepared("breast_cancer", scale=False)
    models = yd.fit_models(p, l2=1e-6, names=("S-LS", "S-LR"))
    assert models["S-LR"].n_iter_ == models["S-LR"].max_iter  # raw units: ill-conditioned
    notes = yd.convergence_notes(models)
    assert len(notes) == 1 and notes[0].startswith("S-LR stopped") and "S-LS" not in notes[0]
    scaled = sample_prepared("breast_cancer")
    assert yd.convergence_notes(yd.fit_models(scaled, l2=1e-3, names=("S-LR",))) == []


def test_one_class_message_names_the_class_plainly():
    source = csvio.parse_csv(b"a,b,label\n1,2,x\n3,4,x\n5,6,x\n", "s.csv")
    target = csvio.parse_csv(b"a,b\n1,0\n0,4\n", "t.csv")
    with pytest.raises(DataValidationError) as info:
        tab.prepare_domains(source, target, label="label")
    assert "only one class ('x')" in info.value.message
    assert "np." not in info.value.message


def test_column_names_composed_in_one_file_and_decomposed_in_the_other_match():
    """Issue 36: "café" written composed (NFC) in the source and decomposed (NFD, as
    macOS tools often write it) in the target is one feature, not two "only in" names."""
    import unicodedata

    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    rows = "".join(f"{i % 3},{(i * 5) % 4},{i % 2}\n" for i in range(40))
    source = parse_csv(f"{nfc},b,label\n{rows}".encode(), "source.csv")
    target = parse_csv(f"{nfd},b,label\n{rows}".encode(), "target.csv")
    prepared = prepare_domains(source, target, "label")
    assert prepared.feature_names == (nfc, "b")
    assert prepared.X_target.shape == (40, 2)
    assert not any("only in" in note for note in prepared.report.warnings)


def test_two_names_that_differ_only_in_their_unicode_form_are_refused_clearly():
    import unicodedata

    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    error = error_of(f"{nfc},{nfd},label\n1,2,x\n3,4,y\n".encode())
    assert repr(nfc) in error.message and repr(nfd) in error.message
