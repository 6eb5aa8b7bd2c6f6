"""Hostile input through the pages (AppTest): what a student on a shared server sees.

The readers, escaping helpers and URL validation are tested on their own in
``test_hostile_input.py``; here the same hostile files, links and failures go
through the pages, so the error boundary of ``explorer.ui.guard`` (one place that turns
any exception into a problem and a fix, or a friendly message with an incident
code), the escaping of user text and the spreadsheet-safe downloads are
checked where a user meets them.
"""

import csv
import io
import logging
import re
import warnings

import numpy as np
import pytest
from apptest_support import chart_specs, charts, open_page, shown
import streamlit as st
from sklearn.exceptions import ConvergenceWarning
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from test_hostile_input import _digits

from explorer.data import csv as csvio
from explorer.data import tabular as tab
from explorer.error_report import LOGGER_NAME
from explorer.experiments import digits as ed
from explorer.experiments import your_data as yd
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import FORMULA_PREFIXES

YOUR_DATA, DIGITS = "pages/your_data.py", "pages/digits.py"
IMAGE = "![x](http://e.vil/a.png)"


def _rows(n, seed, label_of):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        a, b = rng.integers(0, 4, size=2)
        lines.append(f"{a + 2 * (i % 2)},{b},{label_of(i)}")
    return "\n".join(lines) + "\n"


def _hostile_csv(n, seed):
    """Features named like formulas, a label column named like a markdown image, labels
    1 and 1.5 (not integer classes)."""
    header = f'=1+2,@SUM(A1),"{IMAGE}"\n'
    return (header + _rows(n, seed, lambda i: "1.5" if i % 2 else "1")).encode()


def _plain_csv(n, seed):
    return ("a,b,label\n" + _rows(n, seed, lambda i: "y" if i % 2 else "x")).encode()


def _upload(at, key, name, raw, mime="text/csv"):
    at.file_uploader(key=key).set_value((name, raw, mime))
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def _texts(at):
    """Every markdown body on the page (as sent to the browser, before rendering)."""
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "subheader", "title", "expander")
    return [str(getattr(e, "value", None) or getattr(e, "label", "")) for kind in kinds for e in at.get(kind)]


@pytest.fixture()
def downloads(monkeypatch):
    """``{file name: bytes}`` of every download button drawn: a spy on the media store
    and on deferred downloads (made on click: the spy calls them, as a click would)."""
    seen = {}
    original = MemoryMediaFileStorage.load_and_get_id
    original_deferred = MediaFileManager.add_deferred

    def spy(self, path_or_data, mimetype, kind, filename=None):
        data = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        seen[filename] = bytes(data)
        return original(self, path_or_data, mimetype, kind, filename)

    def spy_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        data = data_callable()
        seen[file_name] = data.encode() if isinstance(data, str) else bytes(data)
        return original_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_deferred)
    return seen


def _assert_no_formula_cells(data):
    for row in csv.reader(io.StringIO(data.decode("utf-8"))):
        for cell in row:
            if cell.startswith(FORMULA_PREFIXES):
                float(cell)  # only a plain number such as -1.5 may start with "-" or "+"


# ----------------------------------------------------------------------------- Your data


def test_hostile_csv_is_shown_inertly_labels_are_classes_and_downloads_are_safe(downloads):
    at = open_page(YOUR_DATA)
    _upload(at, "data_source_upload", f"{IMAGE}.csv", _hostile_csv(60, 1))
    _upload(at, "data_target_upload", "target.csv", _hostile_csv(40, 2))
    at.selectbox(key="data.label").set_value(IMAGE).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    texts = _texts(at)
    # No image, link or formatting is formed from the file or column names ...
    assert not [t for t in texts if "![" in t or "](http" in t]
    # ... yet they are shown, exactly as typed, once the escapes are read.
    assert any(f"{IMAGE}.csv" in shown(t) for t in texts)
    assert any(f"label **{IMAGE}** (2 classes: 1, 1.5)" in shown(m.value) for m in at.markdown)
    # 1 and 1.5 are two class names (with a note), and every classifier was fitted.
    assert any("used as class names" in shown(w.value) for w in at.warning)
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)
    # Downloads: the formula-like feature names are neutralised, still readable.
    theta = downloads["flda_theta.csv"].decode("utf-8")
    assert "'=1+2" in theta and "'@SUM(A1)" in theta
    for name in ("flda_theta.csv", "flda_errors.csv", "flda_predictions.csv"):
        _assert_no_formula_cells(downloads[name])


def test_fit_that_fails_unexpectedly_shows_an_incident_keeps_files_and_clears_progress(monkeypatch, caplog):
    at = open_page(YOUR_DATA)
    _upload(at, "data_source_upload", "mine.csv", _plain_csv(50, 3))
    _upload(at, "data_target_upload", "theirs.csv", _plain_csv(30, 4))
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)

    def broken(*args, **kwargs):
        raise RuntimeError("solver exploded in /srv/secret/flda/site-packages/x.py")

    monkeypatch.setattr(yd, "fit_model", broken)
    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        at.select_slider(key="data.l2").set_value(1e-5).run()  # not cached: fits again
    assert not at.exception
    messages = [e.value for e in at.error]
    assert len(messages) == 1
    assert "Incident" in shown(messages[0]) or "incident" in shown(messages[0])
    assert "/srv/secret" not in messages[0] and "Traceback" not in messages[0]
    assert "exploded" not in messages[0]
    # The details (and the incident code shown) are in the server log.
    incident = re.search(r"\b[0-9a-f]{8}\b", shown(messages[0])).group()
    assert any(incident in r.getMessage() and r.exc_info for r in caplog.records)
    # Everything loaded is kept and still described; no progress bar is left behind.
    assert {f["name"] for f in at.session_state["data.files"].values()} == {"mine.csv", "theirs.csv"}
    assert any("mine.csv" in shown(c.value) for c in at.caption)
    assert any(shown(m.value).startswith("Using **") for m in at.markdown)
    assert not at.get("progress")
    # Once the fault is gone the same files give results again.
    monkeypatch.undo()
    at.select_slider(key="data.l2").set_value(1e-4).run()
    assert not at.error and list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)


def test_abnormal_solver_stops_are_recorded_and_named(monkeypatch):
    prepared = tab.prepare_domains(
        csvio.parse_csv(_plain_csv(40, 5), "s.csv"), csvio.parse_csv(_plain_csv(30, 6), "t.csv"), "label"
    )

    class Stopping(yd.FLDAClassifier):
        def fit(self, X, y, **kwargs):
            super().fit(X, y, **kwargs)
            if "X_target" in kwargs and self.loss == "logistic":  # FLDA-L
                warnings.warn(
                    "L-BFGS stopped abnormally after 3 iterations (status 2: ABNORMAL)",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            return self

    monkeypatch.setattr(yd, "FLDAClassifier", Stopping)
    models = yd.fit_models(prepared, l2=1e-3)
    notes = yd.convergence_notes(models)
    assert any(n.startswith("FLDA-L: L-BFGS stopped abnormally") for n in notes), notes
    assert not any(n.startswith("S-LR") for n in notes)


def test_digit_fits_record_abnormal_stops(monkeypatch):
    X, y = _digits(40, 16)
    original = ed.make_classifier

    class Stopping:
        def __init__(self, model):
            self.model = model

        def fit(self, *args):
            warnings.warn("L-BFGS stopped before its first iteration", ConvergenceWarning, stacklevel=2)
            self.model.fit(*args)
            return self.model

    monkeypatch.setattr(ed, "make_classifier", lambda *a, **k: Stopping(original(*a, **k)))
    result = ed.fit_method(X, y, X, y, "FLDA-L", l2=1e-3)
    assert result.warnings == ("L-BFGS stopped before its first iteration",)
    notes = ed.convergence_notes({("A → B", "FLDA-L"): result})
    assert notes == ["FLDA-L (A → B): L-BFGS stopped before its first iteration"]


# ----------------------------------------------------------------------------- Digits


def test_digit_fit_failure_keeps_the_data_figures(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))  # an empty disk store of fits
    at = open_page(DIGITS, {"l2_mode": "hand", "l2": "0.001"})

    def broken(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(ed, "fit_method", broken)
    st.cache_data.clear()  # other tests may have fitted l2 = 0.01 in this process
    at.select_slider(key="dig.l2").set_value(1e-2).run()  # not cached: fits again
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "ran out of memory" in errors[0] and "Incident" in errors[0]
    assert "dig_rates" in chart_specs(at) and not at.get("progress")


# ----------------------------------------------------------------------------- shared links


def _notes(at):
    """The parameters named by the page's notes on ignored or corrected link values."""
    return [
        re.search(r"value of '([^']+)'", shown(i.value)).group(1)
        for i in at.info
        if re.search(r"(Ignored|Corrected) the link's value", shown(i.value))
    ]


@pytest.mark.parametrize(
    "query, names",
    [
        ({"curve_range": "[NaN, 0.5]", "perturbations": "[0.1, Infinity]"}, ["curve_range", "perturbations"]),
        ({"delta_1": "NaN", "theta_1": "Infinity"}, ["delta_1", "theta_1"]),
        (
            {"delta_2": "-1e999", "theta_2": "1.5", "curve_range": "[-3, 0.5]"},
            ["delta_2", "theta_2", "curve_range"],
        ),
    ],
)
def test_transfer_link_with_non_finite_or_out_of_range_values(query, names):
    at = open_page("pages/transfer.py", query)
    notes = _notes(at)
    assert sorted(notes) == sorted(names), notes
    assert "tp_curve" in chart_specs(at)  # the page works with the defaults
    # Not finite: ignored (the default); out of range: moved to the bound.
    assert at.session_state["tp.curve_range"] == (
        (-1.0, 0.5) if "curve_range" in query and "-3" in query["curve_range"] else (-0.5, 0.5)
    )
    assert all(np.isfinite(at.session_state[f"tp.delta_{d}"]) for d in (1, 2))


@pytest.mark.parametrize(
    "query, names",
    [
        ({"n_min": "NaN", "n_max": "Infinity"}, ["n_min", "n_max"]),
        ({"n_max": "1e999", "poisson_c1_f1": "NaN"}, ["n_max", "poisson_c1_f1"]),
        ({"n_min": "1", "n_max": "99999999"}, ["n_min", "n_max"]),
    ],
)
def test_learning_curve_link_with_non_finite_or_out_of_range_range(query, names):
    at = open_page("pages/learning_curves.py", query)
    notes = _notes(at)
    assert sorted(notes) == sorted(names), notes
    if query.get("n_max") == "99999999":  # moved to the bound, not ignored ...
        assert (at.session_state["lc.n_min"], at.session_state["lc.n_max"]) == (2, 50_000)
        # ... beyond the 10,000 samples per data set: the page's own error says so
        assert [shown(e.value).count("50,000") for e in at.error] == [1]
        return
    assert not at.error and at.session_state["lc.n_max"] == 10_000
    assert len(charts(at)) >= 1


BIDI = "\u202e"  # right-to-left override: the rest of its line would show reversed


def test_bidi_controls_in_file_column_and_label_names_never_reach_the_page(downloads):
    """Issue 36: U+202A-U+202E, U+2066-U+2069, U+200E/F and U+061C in a file name, a
    column name or a label are removed from every text, chart and download."""
    from explorer.safe_text import BIDI_CONTROLS

    def bidi_csv(n, seed):
        rows = _rows(n, seed, lambda i: f"ab{BIDI}c" if i % 2 else "x\u2066y\u2069")
        return (f"fe{BIDI}at,b\u200f,lab{BIDI}el\n" + rows).encode()

    at = open_page(YOUR_DATA)
    _upload(at, "data_source_upload", f"evil{BIDI}vsc.csv", bidi_csv(60, 1))
    _upload(at, "data_target_upload", "t\u061carget.csv", bidi_csv(40, 2))
    assert not at.exception and not at.error, [e.value for e in at.error]
    texts = _texts(at)
    assert any("evilvsc.csv" in shown(t) for t in texts)
    assert at.session_state["data.label"] == "label"
    seen = [*texts, *(c.spec for c in charts(at)), *(c.description for c in charts(at))]
    seen += [d.value.to_csv() for d in at.dataframe]
    seen += [data.decode("utf-8") for data in downloads.values()]
    assert not [t for t in seen if any(ch in t for ch in BIDI_CONTROLS)]


def test_every_escape_removes_bidi_controls():
    from explorer.safe_text import BIDI_CONTROLS, escape_markdown, escape_plotly, plain_from_plotly, safe_csv

    text = "a" + BIDI_CONTROLS + "b"
    assert len(BIDI_CONTROLS) == 12
    for escaped in (escape_markdown(text), escape_plotly(text), plain_from_plotly(text)):
        assert not any(ch in escaped for ch in BIDI_CONTROLS)
    frame = __import__("pandas").DataFrame({text: [text, "=" + text]})
    assert safe_csv(frame).splitlines() == ["ab", "ab", "'=ab"]
