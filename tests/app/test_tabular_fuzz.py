"""Property-based tests: no malformed CSV makes the validator crash.

Hypothesis throws generated files at :func:`explorer.data.tabular.parse_csv` and
:func:`explorer.data.tabular.prepare_domains` (over 500 per test): random headers
(duplicates, blanks, unicode), cells (numbers, text, inf, missing tokens,
quotes, stray delimiters), delimiters, encodings, line ends, truncation and
raw byte noise.  Every file must give either a valid dataset or a
:class:`DataValidationError` with a message and a hint -- never any other
exception.
"""

import codecs

import pytest

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.data import tabular as tab
from explorer.errors import DataValidationError
from explorer.experiments import your_data as yd
from explorer.data.csv import parse_csv
from explorer.data.tabular import prepare_domains

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

names = st.one_of(
    st.sampled_from(["a", "b", "c", "label", "x 1", "größe", "", " ", "label", "1", "NA", '"q"', "a,b", "é"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6),
)
cells = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "",
            "NA",
            "?",
            "nan",
            "inf",
            "-Infinity",
            "1e400",
            "x",
            "spam",
            "ham",
            "1,5",
            '"2"',
            '"',
            "'",
            "  3 ",
            "0",
            "0",
            "1",
            "TRUE",
            "#N/A",
            "\t",
            ";",
            ",",
            "|",
        ]
    ),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5),
)
delimiters = st.sampled_from([",", ";", "\t", "|", " "])
line_ends = st.sampled_from(["\n", "\r\n", "\r"])
encodings = st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16", "cp1252"])


@st.composite
def csv_bytes(draw):
    """A CSV-like file: mostly well-formed structure with malformed details."""
    delimiter = draw(delimiters)
    header = draw(st.lists(names, min_size=0, max_size=6))
    n_columns = max(1, len(header))
    rows = draw(
        st.lists(
            st.lists(cells, min_size=max(0, n_columns - 1), max_size=n_columns + 1), min_size=0, max_size=8
        )
    )
    line_end = draw(line_ends)
    lines = [delimiter.join(header)] + [delimiter.join(row) for row in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "")
    text = line_end.join(lines) + draw(st.sampled_from(["", line_end, line_end * 2]))
    try:
        raw = text.encode(draw(encodings))
    except UnicodeEncodeError:
        raw = text.encode("utf-8")
    mutation = draw(st.sampled_from(["none", "none", "truncate", "noise", "prefix"]))
    if mutation == "truncate" and raw:
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif mutation == "noise":
        raw = raw + draw(st.binary(max_size=12))
    elif mutation == "prefix":
        raw = (
            draw(st.sampled_from([codecs.BOM_UTF8, codecs.BOM_UTF16_LE, b"PK\x03\x04", b"\xff", b"\x00"]))
            + raw
        )
    return raw


def check_error(error):
    assert isinstance(error, DataValidationError)
    assert error.message.strip() and error.hint.strip()


def parse_or_error(raw, name):
    try:
        return parse_csv(raw, name)
    except DataValidationError as error:
        check_error(error)
        return None


def check_table(table):
    assert len(table.columns) == len(set(table.columns)) >= 1
    assert table.n_rows >= 1
    for column in table.columns:
        numeric = pd.api.types.is_numeric_dtype(table.frame[column])
        assert not numeric or table.frame[column].dtype == np.float64


@FUZZ
@given(raw=csv_bytes())
def test_parse_gives_a_table_or_a_clear_error(raw):
    table = parse_or_error(raw, "fuzz.csv")
    if table is not None:
        check_table(table)


@FUZZ
@given(raw=st.binary(max_size=200))
def test_random_bytes_give_a_table_or_a_clear_error(raw):
    table = parse_or_error(raw, "noise.csv")
    if table is not None:
        check_table(table)


@FUZZ
@given(source_raw=csv_bytes(), target_raw=csv_bytes(), data=st.data())
def test_prepare_gives_arrays_or_a_clear_error(source_raw, target_raw, data):
    source = parse_or_error(source_raw, "source.csv")
    target = parse_or_error(target_raw, "target.csv")
    if source is None or target is None:
        return
    label = data.draw(st.sampled_from(source.columns))
    match = data.draw(st.sampled_from(tab.MATCH_OPTIONS))
    missing = data.draw(st.sampled_from(tab.MISSING_OPTIONS))
    try:
        prepared = prepare_domains(source, target, label, match=match, missing=missing)
    except DataValidationError as error:
        check_error(error)
        return
    assert np.all(np.isfinite(prepared.X_source)) and np.all(np.isfinite(prepared.X_target))
    assert prepared.X_source.shape[1] == prepared.X_target.shape[1] >= 1
    assert len(prepared.y_source) == prepared.X_source.shape[0]
    assert len(prepared.classes) >= 2
    models = yd.fit_models(prepared, l2=1e-2)
    assert len(yd.predictions_frame(prepared, models)) == prepared.X_target.shape[0]
    assert len(yd.theta_frame(prepared, models)) == len(prepared.feature_names)


@st.composite
def valid_pairs(draw):
    """Well-formed numeric files with labels, to exercise the fits on odd but valid data."""
    n_features = draw(st.integers(1, 5))
    header = [f"f{j}" for j in range(n_features)] + ["label"]
    classes = draw(st.sampled_from([("a", "b"), ("0", "1"), ("x", "y", "z")]))
    n_rows = draw(st.integers(2 * len(classes), 14))
    values = st.one_of(
        st.sampled_from(["0", "0", "1", "2", "", "-1", "0.5", "1e6", "1e-9"]), st.integers(0, 9).map(str)
    )
    source = [header] + [
        [draw(values) for _ in range(n_features)] + [classes[i % len(classes)]] for i in range(n_rows)
    ]
    target = [header[:-1]] + [
        [draw(values) for _ in range(n_features)] for _ in range(draw(st.integers(1, 6)))
    ]
    return ("\n".join(",".join(r) for r in source).encode(), "\n".join(",".join(r) for r in target).encode())


@settings(FUZZ, max_examples=200)
@given(pair=valid_pairs(), missing=st.sampled_from(tab.MISSING_OPTIONS))
def test_valid_numeric_files_are_prepared_and_fitted(pair, missing):
    source, target = parse_or_error(pair[0], "s.csv"), parse_or_error(pair[1], "t.csv")
    if source is None or target is None:  # e.g. one feature, all cells empty: blank lines
        return
    try:
        prepared = prepare_domains(source, target, "label", missing=missing)
    except DataValidationError as error:  # e.g. every target row incomplete
        check_error(error)
        assert missing == "drop"
        return
    models = yd.fit_models(prepared, l2=1e-3)
    for model in models.values():
        assert np.all(np.isfinite(model.coef_))
