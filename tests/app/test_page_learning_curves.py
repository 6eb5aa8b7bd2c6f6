"""AppTest of the learning-curves page (section 4.1.2, Figure 3)."""

import pytest
import apptest_support
from explorer.ui import tables
from text_numbers import numbers, sentence

PAGE = "pages/learning_curves.py"
TIMEOUT = 120


def open_page(query=None):
    return apptest_support.open_page(PAGE, query, timeout=TIMEOUT)


def widget(at, kind, key):
    return getattr(at, kind)(key=key)


def metric_values(at):
    return {m.label: m.value for m in at.metric}


def test_defaults_show_figure_3_metrics_and_downloads():
    at = open_page()
    assert at.title[0].value == "Learning curves"
    assert len(apptest_support.charts(at)) == 2
    assert not at.error
    values = metric_values(at)
    adapted = int(values["FLDA-Q ≈ T-LS from n"].replace(",", ""))
    assert 2 <= adapted <= 100  # paper: roughly 20
    assert float(values["FLDA-Q target error"]) < 0.2
    labels = [str(b.proto.label) for b in at.get("download_button")]
    assert any("curves" in label for label in labels)
    assert any("every error" in label for label in labels)
    assert any("Figure 3" in c.value for c in at.caption)
    # the numbers behind Figure 3: one row per n, mean ± SEM per classifier and domain
    assert len(at.dataframe) == 1
    wide = at.dataframe[0].value
    assert list(wide.columns[:4]) == ["n", "S-LS (target)", "T-LS (target)", "FLDA-Q (target)"]
    assert wide["n"].tolist()[0] == 2 and wide["n"].tolist()[-1] == 10_000
    assert " ± " in wide.loc[0, "FLDA-Q (target)"]
    metric = {m.label: m.value for m in at.metric}["FLDA-Q ≈ T-LS from n"]
    (table_caption,) = [c.value for c in at.caption if "of T-LS from n =" in c.value]
    assert numbers(sentence(table_caption, "FLDA-Q stays within", "of T-LS from n =")) == [0.01, int(metric)]
    # every control has help text
    for kind in ("number_input", "slider", "radio", "selectbox", "toggle", "select_slider"):
        for w in getattr(at, kind):
            if str(getattr(w, "key", "") or "").startswith("lc."):
                assert w.help, w.key


def test_changing_controls_recomputes_without_errors():
    at = open_page()
    before = metric_values(at)["FLDA-Q target error"]
    widget(at, "slider", "lc.theta_f1").set_value(0.8).run()
    widget(at, "slider", "lc.repeats").set_value(10).run()
    assert not at.exception and not at.error
    assert metric_values(at)["FLDA-Q target error"] != before
    widget(at, "toggle", "lc.l2").set_value(True).run()
    widget(at, "select_slider", "lc.ridge").set_value(100.0).run()
    assert not at.exception and not at.error
    assert any("λ = 100" in c.value for c in at.caption)
    widget(at, "selectbox", "lc.distribution").set_value("bernoulli").run()
    assert not at.exception and not at.error
    assert widget(at, "number_input", "lc.bernoulli_c1_f1").value == pytest.approx(0.7)
    widget(at, "toggle", "lc.log_y").set_value(True).run()
    widget(at, "toggle", "lc.show_sem").set_value(False).run()
    assert not at.exception and len(apptest_support.charts(at)) == 2
    assert len(at.dataframe) == 1


def test_bad_sample_sizes_give_a_clear_error_and_keep_settings():
    at = open_page()
    widget(at, "radio", "lc.grid_mode").set_value("custom").run()
    widget(at, "text_input", "lc.custom_sizes").input("2, 10, lots").run()
    assert not at.exception
    assert at.error and "'lots' is not a number" in apptest_support.shown(at.error[0].value)
    assert widget(at, "text_input", "lc.custom_sizes").value == "2, 10, lots"
    widget(at, "text_input", "lc.custom_sizes").input("2, 10, 100").run()
    assert not at.error and len(apptest_support.charts(at)) == 2
    widget(at, "radio", "lc.grid_mode").set_value("log").run()
    widget(at, "number_input", "lc.n_pool").set_value(1000).run()
    assert at.error and "exceeds the samples per data set" in at.error[0].value


def test_settings_are_read_from_the_url():
    at = open_page({"theta_f1": "0.3", "repeats": "7", "grid_mode": "nonsense"})
    assert widget(at, "slider", "lc.theta_f1").value == pytest.approx(0.3)
    assert widget(at, "slider", "lc.repeats").value == 7
    assert widget(at, "radio", "lc.grid_mode").value == "log"  # invalid URL value ignored


def test_presentation_mode_hides_the_controls():
    at = open_page({"present": "1"})
    assert not [w for w in at.slider if str(w.key).startswith("lc.")]
    assert len(apptest_support.charts(at)) == 2


def test_downloads_are_made_on_click_and_hold_the_table(monkeypatch):
    """The CSVs are built when clicked (not on every rerun) and a click does not rerun
    the page; what a click produces is the table."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    made, registered = [], {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        registered[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    monkeypatch.setattr(tables, "csv_bytes", lambda *a, **k: made.append(1) or b"")
    at = open_page()
    buttons = {str(b.proto.label): b.proto for b in at.get("download_button")}
    assert {"Download curves (CSV)", "Download every error (CSV)"} <= set(buttons)
    for proto in buttons.values():
        assert proto.deferred_file_id and not proto.url and proto.ignore_rerun
    assert not made  # nothing was converted while the page ran
    monkeypatch.undo()
    header, *rows = registered["flda_learning_curves_per_repeat.csv"]().decode().splitlines()
    assert "error" in header and len(rows) > 100
