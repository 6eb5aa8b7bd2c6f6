"""AppTest of the "Your data" page: uploads, samples, bad files, state across pages.

streamlit 1.67's AppTest drives ``st.file_uploader`` directly
(``at.file_uploader[i].set_value((name, bytes, mime))``), so good and bad files
go through exactly the code path a browser upload takes.
"""

import json
import os

import pytest
from apptest_support import charts
from apptest_support import shown as unescape
from streamlit.testing.v1 import AppTest

from explorer.data import tabular as tab
from explorer.names import TABLE_CLASSIFIERS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "your_data.py")
APP = os.path.join(ROOT, "app.py")
TIMEOUT = 120

SOURCE = b"a,b,c,label\n" + b"".join(
    f"{i % 3},{(i * 7) % 4},{i % 2 * 3},{'x' if i % 2 else 'y'}\n".encode() for i in range(30)
)
TARGET = b"a,b,c,label\n" + b"".join(
    f"{0 if i % 2 else i % 3},{(i * 5) % 4},{i % 2 * 2},{'x' if i % 2 else 'y'}\n".encode() for i in range(20)
)


def page():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def upload(at, slot, name, raw):
    index = 0 if slot == "source" else 1
    at.file_uploader[index].set_value((name, raw, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    return at


def errors(at):
    return [unescape(e.value) for e in at.error]


def loaded_name(at, slot):
    return at.session_state["data.files"][slot]["name"]


def test_empty_page_asks_for_data():
    at = page()
    assert not at.error
    assert any("Load a source and a target" in i.value for i in at.info)
    assert len(at.file_uploader) == 2
    assert all(u.help for u in at.file_uploader)
    assert len(at.button) == len(tab.SAMPLE_SETS)


def test_sample_set_gives_error_table_figures_and_downloads():
    at = page()
    at.button(key="data_sample_breast_cancer").click().run()
    assert not at.exception and not errors(at)
    table = at.dataframe[0].value
    assert list(table["classifier"]) == list(TABLE_CLASSIFIERS)
    assert (
        table.set_index("classifier").loc["FLDA-L", "error"]
        < table.set_index("classifier").loc["S-LR", "error"]
    )
    assert any("set to 0" in i.value and "4.2.2" in i.value for i in at.info)
    shown_charts = charts(at)
    assert len(shown_charts) >= 4
    assert len(at.caption) >= len(shown_charts)
    assert {b.label for b in at.get("download_button")} >= {
        "Download predictions (CSV)",
        "Download θ̂ per feature (CSV)",
        "Download errors (CSV)",
    }
    for widget in [*at.selectbox, *at.radio, *at.multiselect, *at.checkbox, *at.slider, *at.select_slider]:
        assert widget.help, widget.label


def test_unlabelled_target_shows_predictions_only():
    at = page()
    at.button(key="data_sample_poisson_unlabelled").click().run()
    assert not at.exception and not errors(at)
    assert any("no labels" in i.value for i in at.info)
    predictions = at.dataframe[0].value
    assert "true_label" not in predictions.columns
    assert {"FLDA-Q", "FLDA-L"} <= set(predictions.columns)


def test_good_uploads_are_used():
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    upload(at, "target", "theirs.csv", TARGET)
    assert not errors(at)
    assert loaded_name(at, "source") == "mine.csv" and loaded_name(at, "target") == "theirs.csv"
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)
    assert at.selectbox(key="data.label").value == "label"


BAD_FILES = [
    ("empty.csv", b"", "is empty"),
    ("header.csv", b"a,b,c,label\n", "no data rows"),
    ("dupes.csv", b"a,a,c,label\n1,2,3,x\n", "duplicate column names"),
    ("book.csv", b"PK\x03\x04\x14\x00\x06\x00", "ZIP archive"),
    ("ragged.csv", b"a,b,c,label\n1,2,3,x\n1,2,3,4,5\n", "Line 3"),
    ("quote.csv", b'a,b,c,label\n"1,2,3,x\n', "quote"),
]


@pytest.mark.parametrize("name, raw, fragment", BAD_FILES)
def test_bad_upload_shows_error_and_keeps_previous_file(name, raw, fragment):
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    upload(at, "target", "theirs.csv", TARGET)
    upload(at, "target", name, raw)
    shown = errors(at)
    assert len(shown) == 1
    assert fragment in shown[0] and f"{name} was not loaded" in shown[0]
    assert "Fix:" in shown[0] and "previously loaded **theirs.csv**" in shown[0]
    assert loaded_name(at, "target") == "theirs.csv"
    # Results of the kept data are still shown.
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)
    # A later rerun (another widget changed) keeps showing the problem.
    at.select_slider(key="data.l2").set_value(1e-2).run()
    assert any(fragment in e for e in errors(at))


def test_latin1_semicolon_upload_is_accepted_with_a_note():
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    latin = TARGET.decode().replace(",", ";").replace("a;", "größe_a;").encode("latin-1")
    upload(at, "target", "latin.csv", latin)
    assert not errors(at)
    assert loaded_name(at, "target") == "latin.csv"
    assert any("Latin-1" in unescape(w.value) for w in at.warning)
    assert any("semicolon-separated" in unescape(c.value) for c in at.caption)


@pytest.mark.parametrize(
    "target, fragment",
    [
        (b"p,q\n1,2\n", "no feature column names in common"),
        (b"a,b,c\n1,two,3\n", "not numeric"),
        (b"a,b,c\n1,inf,3\n", "infinite"),
    ],
)
def test_incompatible_files_give_error_and_keep_both_files(target, fragment):
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    upload(at, "target", "theirs.csv", target)
    shown = errors(at)
    assert len(shown) == 1 and fragment in shown[0] and "Fix:" in shown[0]
    assert loaded_name(at, "source") == "mine.csv"
    assert loaded_name(at, "target") == "theirs.csv"


def test_label_with_one_class_is_reported_and_another_label_can_be_chosen():
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    upload(at, "target", "theirs.csv", TARGET)
    at.selectbox(key="data.label").set_value("c").run()  # c takes 2 values: fine ...
    assert any("'label' in mine.csv are not numeric" in e for e in errors(at))
    at.multiselect(key="data.exclude").set_value(["label"]).run()  # ... once text is ignored
    assert not errors(at)
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)
    at.selectbox(key="data.label").set_value("label").run()
    one_class = b"a,b,label\n1,2,x\n3,4,x\n"
    upload(at, "source", "one.csv", one_class)
    assert loaded_name(at, "source") == "one.csv"  # the file is valid as a table ...
    shown = errors(at)  # ... but not as a source for a classifier
    assert len(shown) == 1 and "only one class" in shown[0]


def test_match_by_position_fixes_renamed_target_columns():
    at = page()
    upload(at, "source", "mine.csv", SOURCE)
    upload(at, "target", "renamed.csv", TARGET.replace(b"a,b,c,label", b"A,B,C,y"))
    assert any("no feature column names in common" in e for e in errors(at))
    at.radio(key="data.match").set_value("position").run()
    assert not errors(at)
    assert any("different names" in i.value for i in at.info)


def test_data_and_choices_survive_switching_pages():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/your_data.py").run()
    at.button(key="data_sample_breast_cancer").click().run()
    at.select_slider(key="data.l2").set_value(1e-2).run()
    at.checkbox(key="data.scale").uncheck().run()
    at.multiselect(key="data.exclude").set_value(["mean area"]).run()
    assert not at.exception
    at.switch_page("pages/home.py").run()
    assert not at.exception
    at.switch_page("pages/your_data.py").run()
    assert not at.exception and not errors(at)
    assert at.select_slider(key="data.l2").value == 1e-2
    assert at.checkbox(key="data.scale").value is False
    assert at.multiselect(key="data.exclude").value == ["mean area"]
    assert at.selectbox(key="data.label").value == "diagnosis"
    assert at.session_state["data.files"]["target"]["name"] == "breast_cancer_target.csv"
    assert any("**29** features" in m.value for m in at.markdown)
    # Dropping incomplete rows leaves no target here: a clear error, data kept.
    at.radio(key="data.missing").set_value("drop").run()
    assert any("treat as zeros" in e for e in errors(at))
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/your_data.py").run()
    assert at.radio(key="data.missing").value == "drop"
    assert at.session_state["data.files"]["source"]["name"] == "breast_cancer_source.csv"


def test_sample_in_url_is_loaded():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["sample"] = "poisson"
    at.run()
    assert not at.exception and not errors(at)
    assert at.session_state["data.files"]["source"]["name"] == "poisson_source.csv"
    assert list(at.dataframe[0].value["classifier"]) == list(TABLE_CLASSIFIERS)


def test_presentation_mode_hides_controls_but_shows_results():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["sample"] = "breast_cancer"
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert len(at.file_uploader) == 0 and len(at.selectbox) == 0
    assert len(charts(at)) >= 4


def test_presentation_mode_without_data_shows_the_loaders():
    """Issue 36: ``your_data?present=1`` asked for files but showed no uploader."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert len(at.file_uploader) == 2 and at.button(key="data_sample_breast_cancer")
    at.button(key="data_sample_breast_cancer").click().run()  # data loaded: presenting
    assert len(at.file_uploader) == 0 and len(charts(at)) >= 4
    assert at.session_state["shared.present"] is True


def _column_config(table):
    """The table's ``column_config`` by column (without the hidden index's entry)."""
    return {name: config for name, config in json.loads(table.proto.columns).items() if name != "_index"}


def test_results_have_streamlit_headings_and_untitled_figures():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["sample"] = "poisson"
    at.run()
    assert not at.exception and not errors(at)
    headings = [h.value for h in at.subheader]
    assert headings[2:] == [
        "3 · Error on the target",
        "4 · Which features go missing in the target",
        "5 · How FLDA re-weights the features",
        "6 · Target predictions",
    ]
    assert not [m.value for m in at.markdown if m.value.startswith("**Target predictions")]
    for chart in charts(at):
        # no heading in the figure (the subheader is it): its title holds only the
        # settings line an exported image carries (explorer.figures.export.with_settings)
        title = chart.figure["layout"].get("title", {}).get("text", "")
        assert "<br>" not in title and title.startswith("<span style='font-size:"), title
        assert "poisson_source.csv → poisson_target.csv" in title, title


def test_error_table_columns_are_short_with_help_and_fit_half_the_page():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["sample"] = "breast_cancer"
    at.run()
    table = at.dataframe[0]
    config = _column_config(table)
    assert set(config) == set(table.value.columns)  # every column shown, none renamed away
    assert config["n_target"]["label"] == "labelled rows"
    assert config["error"]["type_config"]["format"] == "%.3f"
    assert all(c["help"] for c in config.values())
    # Half of the main column at a 1280 px window is about 400 px.
    assert sum(c["width"] for c in config.values()) <= 400


def test_predictions_table_hides_probabilities_in_an_expander_not_in_the_download():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["sample"] = "poisson"
    at.run()
    main, probabilities = at.dataframe[1], at.dataframe[2]
    # Both tables get the whole frame (the CSV download has every column) ...
    assert {"FLDA-L P(ham)", "FLDA-L P(spam)"} <= set(main.value.columns)
    # ... the main one shows the predicted labels only, the expander the probabilities.
    assert list(main.proto.column_order) == ["row", "true_label", *TABLE_CLASSIFIERS]
    assert list(probabilities.proto.column_order) == ["row", "FLDA-L", "FLDA-L P(ham)", "FLDA-L P(spam)"]
    assert [e.label for e in at.expander] == ["FLDA-L's class probabilities per row"]
    config = _column_config(main)
    assert config["FLDA-L P(spam)"]["label"] == "P(spam)"
    assert config["FLDA-L P(spam)"]["type_config"]["format"] == "%.3f"
    assert all(len(c["label"]) <= 10 and c["help"] for c in config.values())


def _counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls per first-argument
    file name (``parse_csv(raw, name)``) or in all (other functions)."""
    calls = {}
    real = getattr(module, name)

    def counted(*args, **kwargs):
        key = args[1] if name == "parse_csv" else name
        calls[key] = calls.get(key, 0) + 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_trivial_reruns_parse_nothing_again_and_new_bytes_under_the_same_name_do(monkeypatch):
    """Issue 26: a large pair cost 2-3 s per trivial rerun (hashing the bytes, copies,
    the result tables rebuilt); the files are parsed, prepared and scored once, and a
    file with the same name but other bytes is parsed again (no stale result)."""
    import uuid

    from explorer.data import csv as csvio
    from explorer.experiments import your_data as yd

    parses = _counting(monkeypatch, csvio, "parse_csv")
    prepares = _counting(monkeypatch, tab, "prepare_domains")
    scores = _counting(monkeypatch, yd, "predictions_frame")
    tag = uuid.uuid4().int % 10**9  # bytes no other test has cached
    source = SOURCE.replace(b"\n0,", f"\n{tag},".encode(), 1)
    target = TARGET.replace(b"\n0,", f"\n{tag},".encode(), 1)
    at = upload(upload(page(), "source", "mine_source.csv", source), "target", "mine_target.csv", target)
    assert any("**30** source rows" in m.value for m in at.markdown)
    slider = next(s for s in at.slider if s.label.startswith("Features shown"))
    for value in (6, 7, 8):  # display options only
        at.slider(key=slider.key).set_value(value).run()
        assert not at.exception and not at.error
    at.checkbox(key="data.scale").uncheck().run()  # a real change: prepared again
    assert parses == {"mine_source.csv": 1, "mine_target.csv": 1}
    assert prepares == {"prepare_domains": 2}
    assert scores == {"predictions_frame": 2}
    # back: prepared once more, since a tab holds one prepared set (issue 36's budget)
    at.checkbox(key="data.scale").check().run()
    assert prepares == {"prepare_domains": 3} and parses["mine_source.csv"] == 1
    # the same name with other bytes (10 more rows) is read again and used
    more = source + b"".join(f"{i % 3},1,0,{'x' if i % 2 else 'y'}\n".encode() for i in range(10))
    upload(at, "source", "mine_source.csv", more)
    assert parses["mine_source.csv"] == 2
    assert any("**40** source rows" in m.value for m in at.markdown), [m.value for m in at.markdown]
