"""Hostile input: files, labels, numbers and text a careless or malicious user may send.

Every file is generated here.  Each test checks what a user (or every other
user of a shared server) relies on: a malformed upload ends in a
:class:`DataValidationError` naming the problem and a fix, memory stays
bounded, text is rendered inertly and the estimator never fails silently.
"""

import codecs
import re
import io
import math
import tracemalloc
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from explorer.data import digits as dg
from explorer.errors import DataValidationError


def _digits(n=20, pixels=16, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 16, size=(n, pixels)).astype(np.float64), np.arange(n) % 2


def _bomb(shape, dtype="<f8"):
    """A compressed NPZ whose image member is all zeros of ``shape`` (it inflates a lot)."""
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("X.npy", "w", force_zip64=True) as member:
            npy_header = io.BytesIO()
            np.lib.format.write_array_header_1_0(npy_header, header)
            member.write(npy_header.getvalue())
            chunk = bytes(1 << 20)
            remaining = math.prod(shape) * np.dtype(dtype).itemsize
            while remaining > 0:
                member.write(chunk[: min(len(chunk), remaining)])
                remaining -= len(chunk)
        labels = io.BytesIO()
        np.save(labels, np.arange(shape[0]) % 2)
        archive.writestr("y.npy", labels.getvalue())
    return buffer.getvalue()


# --------------------------------------------------------------------------- digit images


def test_rescale_to_unit_does_not_overflow_near_the_float_limit():
    top = np.finfo(np.float64).max
    X = np.array([-top, 0.0, top / 2, top])
    np.testing.assert_allclose(dg.rescale_to_unit(X), [0.0, 0.5, 0.75, 1.0])


# --------------------------------------------------------------------------- CSV files

from explorer.data import csv as csvmod  # noqa: E402
from explorer.data import tabular as tab  # noqa: E402
from explorer.experiments import your_data as yd  # noqa: E402

LABELLED = "a,b,label\n1,0,x\n2,1,x\n0,3,y\n1,4,y\n"


def _prepare(source, target=None, label="label", **kwargs):
    source = csvmod.parse_csv(source, "source.csv")
    target = csvmod.parse_csv(target if target is not None else LABELLED, "target.csv")
    return tab.prepare_domains(source, target, label, **kwargs)


def test_utf32_file_is_decoded_not_read_as_utf16_with_nul_names():
    for encoding in ("utf-32", "utf-32-be"):
        raw = (codecs.BOM_UTF32_BE if encoding.endswith("be") else b"") + LABELLED.encode(encoding)
        table = csvmod.parse_csv(raw, "wide.csv")
        assert table.columns == ("a", "b", "label")
        assert table.encoding == "UTF-32"
        assert table.frame["label"].tolist() == ["x", "x", "y", "y"]


@pytest.mark.parametrize("encoding, wide", [("utf-32-le", "UTF-32"), ("utf-16-le", "UTF-16")])
def test_wide_text_without_byte_order_mark_gets_an_encoding_message(encoding, wide):
    with pytest.raises(DataValidationError, match=f"looks like {wide} text") as info:
        csvmod.parse_csv(LABELLED.encode(encoding), "nobom.csv")
    assert "UTF-8" in info.value.hint


@pytest.mark.parametrize("line, delimiter", [("sep=,", ","), ("sep=;", ";"), ('"sep=|"', "|")])
def test_excel_separator_line_is_skipped_and_obeyed(line, delimiter):
    body = LABELLED.replace(",", delimiter)
    table = csvmod.parse_csv(f"{line}\r\n{body}".encode(), "excel.csv")
    assert table.columns == ("a", "b", "label") and table.delimiter == delimiter
    assert table.n_rows == 4
    assert any("Excel" in w for w in table.warnings)


def test_excel_separator_line_naming_an_unknown_delimiter_is_refused():
    with pytest.raises(DataValidationError, match="asks for the delimiter ':'"):
        csvmod.parse_csv(b"sep=:\na:b\n1:2\n", "colon.csv")


def test_quoted_line_break_in_a_column_name_is_named():
    with pytest.raises(DataValidationError, match="contains a line break") as info:
        csvmod.parse_csv(b'a,"la\nbel"\n1,x\n2,y\n', "broken.csv")
    assert "'la\\nbel'" in info.value.message and info.value.hint
    # A quoted line break inside a *data* cell is valid CSV and still read.
    table = csvmod.parse_csv(b'a,label\n1,"x\ny"\n2,z\n', "cell.csv")
    assert table.frame["label"].tolist() == ["x\ny", "z"]


def test_headerless_count_file_is_explained():
    counts = b"1,0,2\n2,1,1\n3,0,0\n4,1,1\n0,2,1\n"
    with pytest.raises(DataValidationError, match="no header row") as info:
        _prepare(counts, counts, label="2")
    assert "naming the columns" in info.value.hint
    with pytest.raises(DataValidationError, match="no header row") as info:
        csvmod.parse_csv(b"1,0,0\n2,1,1\n", "dup.csv")  # repeated numbers as names
    assert "naming the columns" in info.value.hint
    with pytest.raises(DataValidationError, match="too few") as info:
        _prepare(b"a,label\n1,0\n2,1\n3,0\n", LABELLED)  # has a header: no such note
    assert "header" not in str(info.value)


_WIDE = {
    "commas-first-line": (b"," * 40_000_000 + b"\n1\n", "40,000,001 columns"),
    "semicolons-after-sep-line": (b"sep=;\n" + b";" * 20_000_000 + b"\n1\n", "columns"),
    "tabs-utf16": (("\t" * 10_000_000 + "\n1\n").encode("utf-16"), "columns"),
    "commas-in-a-data-line": (b"a,b\n1,2\n" + b"," * 5_000_000 + b"\n", "Line 3"),
    "commas-in-later-lines": (b"a,b\n" + b"1," * 3_000 + b"\n" + (b"," * 4_000 + b"\n") * 4_000, "values"),
    "line-breaks": (b"a,b\n" + b"\n" * 40_000_000, "line breaks"),
    "old-mac-rows": (b"a\r" + b"1\r" * 20_000_000, "line breaks"),
}


@pytest.mark.parametrize("case", list(_WIDE))
def test_wide_or_long_csv_is_refused_from_its_bytes_in_bounded_memory(case):
    raw, fragment = _WIDE[case]
    tracemalloc.start()
    try:
        with pytest.raises(DataValidationError) as info:
            csvmod.parse_csv(raw, "wide.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fragment in str(info.value) and "limit" in str(info.value) and info.value.hint
    assert peak <= 3 * len(raw), f"{peak / 2**20:.0f} MB to refuse {len(raw) / 2**20:.0f} MB"


def test_csv_shape_limits_are_documented_constants():
    assert csvmod.MAX_COLUMNS == 5_000 and csvmod.MAX_CELLS == 10_000_000
    assert csvmod.MAX_LINE_BREAKS == 2 * csvmod.MAX_ROWS
    # at the limits a table is still read: 5,000 columns, and quoted delimiters in a cell
    header = ",".join(f"f{i}" for i in range(csvmod.MAX_COLUMNS)).encode()
    assert csvmod.parse_csv(header + b"\n" + b"1," * 4_999 + b"1\n", "w.csv").frame.shape == (1, 5_000)
    table = csvmod.parse_csv(b'a,label\n1,"x, y; z"\n2,w\n', "q.csv")
    assert list(table.frame["label"]) == ["x, y; z", "w"]


# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    "source, target, classes, unseen",
    [
        ("a,label\n1,1\n2,1\n3,1.5\n4,1.5\n", "a,label\n1,1\n2,1.5\n", ["1", "1.5"], None),
        ("a,label\n1,1\n2,1\n3,0\n4,0\n", "a,label\n1,0.5\n2,1\n", ["0", "1"], "'0.5'"),
        ("a,label\n1,1\n2,1\n3,0\n4,0\n", "a,label\n1,x\n2,1\n", ["0", "1"], "'x'"),
    ],
)
def test_non_integer_or_mixed_labels_become_class_names_with_a_note(source, target, classes, unseen):
    prepared = _prepare(source.encode(), target.encode())
    assert [str(c) for c in prepared.classes] == classes
    assert prepared.y_source.dtype == object
    notes = " ".join(prepared.report.warnings)
    assert "used as class names" in notes
    if unseen:
        assert unseen in notes
    models = yd.fit_models(prepared, names=("S-LR", "FLDA-L"))
    predicted = models["FLDA-L"].predict(prepared.X_target)
    assert set(map(str, predicted)) <= set(classes)
    assert len(yd.target_error_table(prepared, models)) == 2


def test_integer_and_float_spellings_of_one_label_are_one_class():
    prepared = _prepare(b"a,label\n1,1\n2,1\n3,2.5\n4,2.5\n", b"a,label\n1,1.0\n2,2.5\n")
    assert not any("never occur" in w for w in prepared.report.warnings)
    assert prepared.target_labelled.all()


def test_classifier_refuses_mixed_string_and_number_labels_clearly():
    from flda_core import FLDAClassifier

    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match="mix") as info:
        FLDAClassifier().fit(X, np.array([1, "a", 1, "a"], dtype=object))
    assert "astype(str)" in str(info.value)


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("magnitude", [1e-300, 1e-6, 1.0, 1e160, 1e300, 5e307])
def test_feature_scaling_does_not_overflow_or_zero_a_column(magnitude):
    source = pd.DataFrame(
        {
            "a": np.array([1.0, 0.0, 3.0, 2.0]) * magnitude,
            "b": [1.0, 2.0, 0.0, 1.0],
            "label": ["x", "x", "y", "y"],
        }
    )
    raw = source.to_csv(index=False).encode()
    prepared = _prepare(raw, raw)
    expected = np.array([1.0, 0.0, 3.0, 2.0]) / np.sqrt(14 / 4)
    np.testing.assert_allclose(prepared.X_source[:, 0], expected, rtol=1e-12)
    assert np.isfinite(prepared.X_source).all()


def test_root_mean_square_is_bitwise_unchanged_for_ordinary_columns():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4)) * [1e-3, 1.0, 10.0, 1e5]
    np.testing.assert_array_equal(tab.root_mean_square(X), np.sqrt(np.mean(X**2, axis=0)))


def test_unscaled_huge_values_are_refused_and_unrepresentable_ones_named():
    raw = b"a,label\n1e200,x\n2,x\n3,y\n4,y\n"
    with pytest.raises(DataValidationError, match="overflow") as info:
        _prepare(raw, raw, scale=False)
    assert "scaling" in info.value.hint
    with pytest.raises(DataValidationError, match="too large"):
        _prepare(b"a,label\n1e400,x\n2,x\n3,y\n4,y\n")


def test_fit_cost_bound_refuses_oversized_uploads_and_warns_before_long_fits(monkeypatch):
    assert tab.fit_cost(1000, 20, 2) == 20_000 and tab.fit_cost(1000, 20, 5) == 100_000
    assert tab.fit_cost_note(10, 2, 2) is None
    note = tab.fit_cost_note(100_000, 50, 2, n_fits=5)
    assert "100,000 rows x 50 features" in note and "5 fits" in note
    with pytest.raises(DataValidationError, match="limit is") as info:
        tab.check_fit_cost(1_000_000, 100, 10, "big.csv")
    assert "subsample" in info.value.hint
    monkeypatch.setattr(tab, "MAX_FIT_COST", 5)
    with pytest.raises(DataValidationError, match="too slow for a shared server"):
        _prepare(LABELLED.encode())


def _noisy_problem(n=300, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    scores = X @ [1.5, -1.0, 0.5] + rng.normal(scale=1.0, size=n)
    y = np.digitize(scores, np.quantile(scores, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("magnitude", [1e-6, 1e50])
def test_badly_scaled_data_give_the_same_classifier_mapped_back_exactly(magnitude, classes):
    from flda_core import FLDAClassifier

    X, y = _noisy_problem(classes=classes)
    theta = np.array([0.3, 0.0, 0.6])
    reference = FLDAClassifier(theta=theta, tol=1e-10).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        scaled = FLDAClassifier(theta=theta, tol=1e-10).fit(X * magnitude, y)
    assert scaled.n_iter_ > 0
    np.testing.assert_allclose(scaled.coef_ * magnitude, reference.coef_, rtol=1e-5)
    np.testing.assert_allclose(scaled.intercept_, reference.intercept_, rtol=1e-5, atol=1e-8)
    np.testing.assert_array_equal(scaled.predict(X * magnitude), reference.predict(X))


def test_abnormal_lbfgs_stop_warns(monkeypatch):
    from flda_core import FLDAClassifier
    from flda_core import solvers

    real = solvers.minimize

    def failing(*args, **kwargs):
        result = real(*args, **kwargs)
        result.status, result.success = 2, False
        result.message = "ABNORMAL_TERMINATION_IN_LNSRCH"
        return result

    monkeypatch.setattr(solvers, "minimize", failing)
    X, y = _noisy_problem()
    with pytest.warns(ConvergenceWarning, match="stopped abnormally"):
        FLDAClassifier().fit(X, y)


def test_lbfgs_stopping_before_its_first_step_warns():
    from flda_core import FLDAClassifier

    X, y = _noisy_problem()
    with pytest.warns(ConvergenceWarning, match="before its first iteration"):
        model = FLDAClassifier(tol=1e3).fit(X, y)
    assert model.n_iter_ == 0 and not model.coef_.any()


def test_unsquarable_feature_values_are_refused_by_the_classifier():
    from flda_core import FLDAClassifier

    X, y = _noisy_problem()
    X[0, 1] = 1e200
    with pytest.raises(ValueError, match="overflows 64-bit floats"):
        FLDAClassifier(loss="quadratic").fit(X, y)


# --------------------------------------------------------------------------- rendering

from explorer import safe_text  # noqa: E402
from explorer.figures import digits as digit_figures  # noqa: E402
from explorer.figures import tabular as data_figures  # noqa: E402

HOSTILE_NAME = '<a href="http://e.vil/x">click</a> %{x} & <img src=x onerror=alert(1)>'


def _strings(value):
    """Every string inside a figure's dict (labels, names, templates, customdata)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for item in value:
            yield from _strings(item)


def _assert_inert(fig):
    texts = list(_strings(fig.to_dict()))
    assert texts
    for text in texts:
        assert "<a" not in text and "<img" not in text, text
        assert "%{x} &" not in text, text  # the user's template text never reaches plotly raw
    return " ".join(texts)


ZWSP = "\u200b"
#: The literal-autolink patterns of GFM as Streamlit's markdown applies them to text
#: whose escapes are resolved (mdast-util-gfm-autolink-literal; ``\w`` is ASCII in JS).
_GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
_GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)


def _resolved(escaped):
    """What markdown shows for ``escaped``: its backslash escapes resolved."""
    return re.sub(r"\\(.)", r"\1", escaped)


def _linkified(text):
    return _GFM_URL.search(text) or _GFM_EMAIL.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "https://e.vil/x.csv",
        "see http://e.vil",
        "HTTPS://E.VIL",
        "www.e.vil",
        "WWW.e.vil",
        "me@e.vil",
        "mailto:me@e.vil",
        "xmpp:me@e.vil",
        "a(https://e.vil)b",
        "custom_sizes=https://e.vil/?q=1&r=2",
        "x" * 3 + "www.www.e.vil",
    ],
)
def test_markdown_escaping_breaks_bare_links_and_reads_the_same(text):
    assert _linkified(text)  # (the pattern finds it unescaped)
    escaped = safe_text.escape_markdown(text)
    shown = _resolved(escaped)
    assert not _linkified(shown), shown
    assert shown.replace(ZWSP, "") == text


def test_plotly_text_taken_back_for_plain_text_places_has_no_entities():
    for hostile in (HOSTILE_NAME, "<img src=x onerror=alert(1)>", "a &amp; b", "%{x}"):
        assert safe_text.plain_from_plotly(safe_text.escape_plotly(hostile)) == hostile.strip()
    assert safe_text.plain_from_plotly("<b>Target</b><br>error") == "Target  error"


def test_chart_text_alternative_shows_user_names_as_typed_not_as_entities():
    from explorer.figures.export import alt_text
    import plotly.graph_objects as go

    name = "<img src=x>.csv & https://e.vil"
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name=safe_text.escape_plotly(name)))
    fig.update_layout(xaxis_title=safe_text.escape_plotly(name), yaxis_title="error")
    text = alt_text(fig)
    assert "&lt;" not in text and "&amp;" not in text and "<img src=x>" in text
    caption = safe_text.escape_markdown(text)  # as ui_common.show_chart writes it
    assert "&lt;" not in _resolved(caption) and not _linkified(_resolved(caption))


def test_markdown_escaping_leaves_nothing_to_interpret():
    for hostile in (
        "![x](http://e.vil/p.png)",
        "[link](javascript:alert(1))",
        "$x^2$",
        "**bold** _it_ # head",
        "<b>html</b> &amp;",
        ":red[alert]",
        "a|b|c",
        "line\n# heading\n- item",
        "`code`",
    ):
        escaped = safe_text.escape_markdown(hostile)
        assert "\n" not in escaped
        # Every punctuation character is escaped, so none can start a construct.
        unescaped = re.sub(r"\\[!-/:-@\[-`{-~]", "", escaped)
        assert not re.search(r"[!-/:-@\[-`{-~]", unescaped), escaped
        # Removing the escapes (and the zero-width spaces that break autolinks) gives
        # back the text (with line breaks as spaces).
        assert _resolved(escaped).replace(ZWSP, "") == hostile.replace("\n", " ")


@given(st.text(max_size=40))
@settings(max_examples=200, deadline=None, derandomize=True)
def test_markdown_escaping_round_trips_any_text(text):
    escaped = safe_text.escape_markdown(text)
    plain = re.sub(r"[\r\n\t]", " ", text.replace("\r\n", " "))  # CRLF is one break
    plain = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "", plain)
    assert _resolved(escaped).replace(ZWSP, "") == plain.replace(ZWSP, "")
    assert not _linkified(_resolved(escaped))
    assert "\n" not in escaped and "$" not in escaped.replace("\\$", "")


def test_plotly_escaping_round_trips_through_entities():
    escaped = safe_text.escape_plotly(HOSTILE_NAME)
    assert "<" not in escaped and ">" not in escaped and "%{" not in escaped
    decoded = (
        escaped.replace("&#123;", "{")
        .replace("&#125;", "}")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
    )
    assert decoded == HOSTILE_NAME


def test_data_page_figures_escape_feature_class_and_file_names():
    thetas = pd.DataFrame(
        {
            "feature": [HOSTILE_NAME, "plain"],
            "theta": [0.5, 0.1],
            "source_nonzero": [0.8, 0.5],
            "target_nonzero": [0.4, 0.45],
            "S-LR weight": [0.3, -0.2],
            "FLDA-L weight": [0.1, -0.3],
        }
    )
    for fig in (
        data_figures.feature_theta_figure(thetas),
        data_figures.nonzero_proportion_figure(thetas, source_name=HOSTILE_NAME, target_name="t.csv"),
        data_figures.feature_weights_figure(thetas),
    ):
        assert "&lt;a href" in _assert_inert(fig)
    predictions = pd.DataFrame(
        {"true_label": [HOSTILE_NAME, "b"], "S-LR": ["b", "b"], "FLDA-L": [HOSTILE_NAME, "b"]}
    )
    _assert_inert(data_figures.prediction_mix_figure(predictions, [HOSTILE_NAME, "b"]))


def test_digit_figures_escape_file_names_and_labels():
    side = 4
    rate = np.linspace(0, 1, side * side)
    _assert_inert(digit_figures.nonzero_rate_figure(rate, rate, side, HOSTILE_NAME, "b.npz"))
    _assert_inert(digit_figures.digit_weights_figure(rate, rate, rate, side, HOSTILE_NAME))
    X = np.tile(rate, (2, 1))
    y = np.array([HOSTILE_NAME, "b"])
    _assert_inert(digit_figures.sample_images_figure(X, y, X, y, side, HOSTILE_NAME, "b.npz"))


def test_csv_download_neutralises_formulas_but_keeps_values_readable():
    frame = pd.DataFrame(
        {
            "name": [
                '=HYPERLINK("http://e.vil","x")',
                "+1+2",
                "-2+3+cmd|' /C calc'!A0",
                "@SUM(A1)",
                "\tTAB",
                "\rCR",
                "-1.5",
                "plain",
                None,
            ],
            "value": [-1.0, 2.0, -3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            "count": [-1, 2, 3, 4, 5, 6, 7, 8, 9],
        }
    )
    frame["=cmd"] = "x"
    text = safe_text.safe_csv(frame)
    read = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert read.columns.tolist() == ["name", "value", "count", "'=cmd"]
    assert read["name"].tolist() == [
        '\'=HYPERLINK("http://e.vil","x")',
        "'+1+2",
        "'-2+3+cmd|' /C calc'!A0",
        "'@SUM(A1)",
        "'\tTAB",
        "'\rCR",
        "-1.5",
        "plain",
        "",
    ]
    np.testing.assert_array_equal(read["value"], frame["value"])  # numbers untouched
    np.testing.assert_array_equal(read["count"], frame["count"])
    for cell in read["name"]:
        assert not str(cell).startswith(safe_text.FORMULA_PREFIXES) or cell == "-1.5"
    assert frame["name"][0].startswith("=")  # the caller's frame is not modified


# --------------------------------------------------------------------------- shared links

from explorer import url_state  # noqa: E402


@pytest.mark.parametrize(
    "raw", ["NaN", "Infinity", "-Infinity", "1e999", "[NaN, 0.5]", "[0.1, Infinity]", "[-1e400, 0]"]
)
def test_non_finite_url_values_are_ignored_with_a_note_naming_the_parameter(raw):
    default = (-0.5, 0.5) if raw.startswith("[") else 0.0
    outcome = url_state.validate_url_value("curve_range", raw, default, lo=-1.0, hi=1.0)
    assert not outcome.accepted and outcome.value == default
    assert "'curve_range'" in outcome.note and "finite" in outcome.note


@pytest.mark.parametrize(
    "raw, default, kwargs, problem",
    [
        ("2.5", 3, dict(lo=1, hi=10), "not a whole number"),
        ('"x"', 0.0, {}, "not a number"),
        ("true", 1.0, {}, "not a number"),
        ("[0.1]", (0.0, 0.5), dict(lo=-1, hi=1), "not a list of 2 numbers"),
        ("NaN", 1e-3, dict(options=(0.0, 1e-3)), "not a finite number"),
        ("0.5", 1e-3, dict(options=(0.0, 1e-3)), "not one of the options"),
        ("x" * 501, "text", {}, "longer than 500"),
    ],
)
def test_invalid_url_values_are_ignored_with_the_reason(raw, default, kwargs, problem):
    outcome = url_state.validate_url_value("p", raw, default, **kwargs)
    assert outcome.value == default and problem in outcome.note


@pytest.mark.parametrize(
    "raw, default, kwargs, value, problem",
    [
        ("1.5", 0.0, dict(lo=0.0, hi=1.0), 1.0, "1.5 is outside [0, 1]; 1 is used"),
        ("-3", 5, dict(lo=1, hi=10), 1, "-3 is outside [1, 10]; 1 is used"),
        (
            "[-3, 0.5]",
            (-0.5, 0.5),
            dict(lo=-1.0, hi=1.0),
            (-1.0, 0.5),
            "-3 is outside [-1, 1]; [-1, 0.5] is used",
        ),
        (
            "[0.5, -0.5]",
            (-0.5, 0.5),
            dict(lo=-1.0, hi=1.0, ordered=True),
            (-0.5, 0.5),
            "[0.5, -0.5] is in decreasing order; [-0.5, 0.5] is used",
        ),
        ("[0.5, -0.5]", (-0.5, 0.5), dict(lo=-1.0, hi=1.0), (0.5, -0.5), None),  # not a range
    ],
)
def test_out_of_range_or_reversed_url_values_are_corrected_with_a_note(raw, default, kwargs, value, problem):
    outcome = url_state.validate_url_value("p", raw, default, **kwargs)
    assert outcome.accepted and outcome.value == value and type(outcome.value) is type(default)
    if problem is None:
        assert outcome.note is None
    else:
        assert outcome.note.startswith("Corrected the link's value of 'p': ") and problem in outcome.note


def test_valid_url_values_are_coerced_to_the_setting_type():
    assert url_state.validate_url_value("n", "20.0", 10, lo=2, hi=40).value == 20
    assert url_state.validate_url_value("r", "[-0.2, 0.3]", (-0.5, 0.5), lo=-1, hi=1).value == (-0.2, 0.3)
    assert (
        url_state.validate_url_value("d", "poisson", "bernoulli", options=("poisson", "bernoulli")).value
        == "poisson"
    )
    assert url_state.validate_url_value("x", None, 0.1) == url_state.UrlValue(0.1, False)


@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=12), st.integers().map(str)
    )
)
@settings(max_examples=300, deadline=None, derandomize=True)
def test_every_accepted_url_number_is_finite_and_in_bounds(raw):
    outcome = url_state.validate_url_value("delta", raw, 0.0, lo=-1.0, hi=1.0)
    assert isinstance(outcome.value, float)
    assert math.isfinite(outcome.value) and -1.0 <= outcome.value <= 1.0
    assert outcome.accepted or outcome.note is None or "'delta'" in outcome.note


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 5000 + "]" * 5000,
        "{" * 3000,
        "[" * 900 + "1" + "]" * 900,
        '["' + "]" * 20 + '", ' + "[" * 6 + "1" + "]" * 6 + "]",
        "[" * 400 + "]" * 400 + " " * 5000,
    ],
    ids=["5000-deep", "unclosed", "900-deep", "brackets-in-string", "long"],
)
@pytest.mark.parametrize("default", [0, 0.5, (0.0, 1.0), "text"])
def test_deep_or_long_url_values_are_ignored_before_parsing(raw, default):
    outcome = (
        url_state.validate_url_value("seed", raw, default, lo=0, hi=2**31 - 1)
        if isinstance(default, int)
        else url_state.validate_url_value("seed", raw, default)
    )
    assert not outcome.accepted and outcome.value == default
    assert outcome.note.startswith("Ignored the link's value of 'seed': it is ")
    assert len(outcome.note) < 120


def test_url_value_nesting_is_refused_without_reaching_json(monkeypatch):
    monkeypatch.setattr(url_state.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(ValueError, match="more than 4 brackets"):
        url_state.decode_url_value("[" * 50 + "]" * 50)


@pytest.mark.parametrize(
    "raw, default, kwargs, shown, value",
    [
        ("1e308", 0, dict(lo=0, hi=2**31 - 1), "1e+308 is outside [0, 2147483647]", 2**31 - 1),
        ("1" + "0" * 400, 0, dict(lo=0, hi=2**31 - 1), "1.00e+400 is outside [0, 2147483647]", 2**31 - 1),
        ("-" + "9" * 1200, 0.0, {}, "-9.99e+1199 is too large for a 64-bit float", 0.0),
        ("[1, " + "7" * 30 + "]", (0, 1), dict(lo=0, hi=5), "7.77e+29 is outside [0, 5]", (1, 5)),
    ],
    ids=["1e308", "400-digits", "1200-digits", "in-a-list"],
)
def test_huge_url_numbers_are_shown_compactly(raw, default, kwargs, shown, value):
    """Out of range: moved to the bound; too large for a float: ignored (the default)."""
    outcome = url_state.validate_url_value("n", raw, default, **kwargs)
    assert outcome.value == value and shown in outcome.note and len(outcome.note) < 120


@pytest.mark.parametrize(
    "text", ["1e308", "2, 1e308", "1e400", "1" * 400], ids=["1e308", "in-a-list", "1e400", "400-digits"]
)
def test_huge_sample_sizes_are_refused_compactly(text):
    from explorer.experiments.learning_curves import learning_curve_config

    with pytest.raises(ValueError, match="outside 2 .. 1000") as info:
        learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 1000, 0, ("custom", text))
    assert len(str(info.value)) < 140


# --------------------------------------------------------------------------- error boundary

from explorer import error_report  # noqa: E402


def test_known_errors_keep_their_problem_and_fix():
    described = error_report.describe_error(DataValidationError("a.csv is empty.", "Upload."))
    assert described == error_report.UserError("a.csv is empty.", "Upload.", True)
    unavailable = error_report.describe_error(dg.DigitDataUnavailable("OpenML down."))
    assert unavailable.expected and "offline" in unavailable.hint


def test_unexpected_errors_hide_details_from_the_user_and_log_them(caplog):
    try:
        raise KeyError("/srv/app/flda_core/secret.py: column 'x'")
    except KeyError as error:
        with caplog.at_level("ERROR", logger=error_report.LOGGER_NAME):
            described = error_report.describe_error(error, "reading your files")
    shown = described.message + described.hint
    assert not described.expected and "/srv" not in shown and "KeyError" not in shown
    assert "reading your files" in described.message and described.incident in shown
    record = caplog.records[-1]
    assert described.incident in record.getMessage()
    assert "/srv/app/flda_core/secret.py" in caplog.text and "Traceback" in caplog.text
    assert "memory" in error_report.describe_error(MemoryError()).message


# --------------------------------------------------------------------------- properties

_LABELS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.5, 1.0, -2.25, 1e300]),
    st.sampled_from(["a", "b", "1", " 2 ", "=1+1"]),
)


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    source=st.lists(_LABELS, min_size=2, max_size=10),
    target=st.lists(st.one_of(st.none(), _LABELS), min_size=1, max_size=6),
)
def test_any_label_mix_is_refused_clearly_or_fitted(source, target):
    def csv(labels):
        rows = [f"{k % 3},{(k * 7) % 5},{'' if v is None else v}" for k, v in enumerate(labels)]
        return ("a,b,label\n" + "\n".join(rows) + "\n").encode()

    try:
        prepared = _prepare(csv(source), csv(target))
    except DataValidationError as error:
        assert error.hint
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        models = yd.fit_models(prepared, names=("S-LR", "FLDA-L", "T-LR"))
    yd.target_error_table(prepared, models)
    yd.predictions_frame(prepared, models)
