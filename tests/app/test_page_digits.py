"""AppTest runs of the "Handwritten digits" page (section 4.2.3, Figures 5-6, Table 4)."""

import base64

import numpy as np
import pytest
from apptest_support import chart_specs, open_page, shown

from explorer.data import digits as dg
from explorer.experiments import digits as ed

PAGE = "pages/digits.py"


def _open(query=None):
    return open_page(PAGE, query, timeout=600)


_charts = chart_specs


def _z(chart, index):
    """A heatmap's values; plotly serialises numpy arrays as base64 typed arrays."""
    z = chart["data"][index]["z"]
    if isinstance(z, dict):
        values = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        return values.reshape([int(n) for n in str(z["shape"]).split(",")]).astype(float)
    return np.array(z, dtype=float)


@pytest.fixture(scope="module", autouse=True)
def empty_disk_store(tmp_path_factory):
    """The fits are kept on disk (``$FLDA_CACHE_DIR/digits``): this module starts from an
    empty store, so that the tests counting fits see them, whatever ran before."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("flda_cache")
        patch.setenv("FLDA_CACHE_DIR", str(folder))
        yield folder / "digits"


@pytest.fixture()
def count_fits(monkeypatch):
    calls = []
    original = ed.fit_method

    def counting(*args, **kwargs):
        calls.append(args[4] if len(args) > 4 else kwargs.get("method"))
        return original(*args, **kwargs)

    monkeypatch.setattr(ed, "fit_method", counting)
    return calls


@pytest.fixture(scope="module")
def hand_run():
    """Default data, l2 set by hand (quick); the cross-validated default is tested below."""
    return _open({"l2_mode": "hand", "l2": "0.001"})


def test_default_page_shows_figures_table_and_downloads(hand_run):
    at = hand_run
    assert not at.error
    charts = _charts(at)
    assert {"dig_samples", "dig_rates", "dig_weights", "dig_errors"} <= set(charts)
    rates = charts["dig_rates"]
    assert len(rates["data"]) == 2
    border_b = _z(rates, 1)[:, :2]
    assert np.all(border_b == 0)  # MNIST-like domain never inks its border
    weights = charts["dig_weights"]
    theta = _z(weights, 1)
    assert theta.shape == (16, 16) and theta.max() == 1.0
    # pixels with theta = 1 get FLDA weight exactly 0
    assert np.all(_z(weights, 2)[theta == 1.0] == 0)
    table = at.dataframe[0].value
    assert list(table["from"]) == ["here", "here", "paper, Table 4", "paper, Table 4"]
    assert float(table["T-LR"].iloc[0]) < 0.2 and float(table["T-LR"].iloc[1]) < 0.2
    assert table["S-LS"].iloc[2] == "—"  # not in the paper's Table 4
    assert {b.label for b in at.get("download_button")} >= {
        "Download error rates (CSV)",
        "Download pixel maps (CSV)",
        "Download l2 choices (CSV)",
    }
    captions = " ".join(c.value for c in at.caption)
    assert "Figure 5" in captions and "Figure 6" in captions and "Table 4" in captions
    assert "asymmetry" in captions
    # the paper's markers are grey (black ones vanish on the dark theme)
    assert "Grey dashes" in captions and "Black dashes" not in captions
    assert "Top left" in captions and "top right" in captions
    # no uploads here: a digit CSV of one's own runs on Your data, one link away
    assert [link.proto.page for link in at.get("page_link")] == ["your_data"]
    assert len(at.radio(key="dig.source").options) == 2  # offline digits, MNIST/USPS


def test_every_control_has_help(hand_run):
    at = hand_run
    for kind in ("radio", "selectbox", "slider", "checkbox", "select_slider", "number_input"):
        for widget in at.get(kind):
            assert widget.help, f"{kind} {widget.label!r} has no help text"


def test_switching_digit_does_not_refit(hand_run, count_fits):
    at = hand_run
    before = _z(_charts(at)["dig_weights"], 2)
    at.selectbox(key="dig.digit").set_value("3").run()
    assert not at.exception
    assert count_fits == []
    after = _charts(at)["dig_weights"]
    assert not np.allclose(before, _z(after, 2))
    assert "digit 3" in after["layout"]["annotations"][0]["text"]
    assert at.query_params["digit"] in ("3", ["3"])


def test_switching_direction_shows_the_other_theta(hand_run):
    at = hand_run
    theta_ab = _z(_charts(at)["dig_weights"], 1)
    at.radio(key="dig.direction").set_value("B → A").run()
    assert not at.exception
    theta_ba = _z(_charts(at)["dig_weights"], 1)
    # M -> U-like: dropout cannot add ink, theta is (nearly) zero everywhere.
    assert theta_ba.mean() < 0.05 < 0.4 < theta_ab.mean()
    assert any("Training on MNIST-like" in shown(c.value) for c in at.caption)


def test_quadratic_loss_shows_s_ls_and_flda_q(hand_run):
    at = hand_run
    at.radio(key="dig.loss").set_value("quadratic").run()
    titles = [a["text"] for a in _charts(at)["dig_weights"]["layout"]["annotations"]]
    assert titles[0].startswith("S-LS") and titles[1].startswith("FLDA-Q")


def _theta_map(at):
    return _z(_charts(at)["dig_weights"], 1)


def test_zero_threshold_updates_rates_at_once_and_refits_only_flda_on_request(hand_run, count_fits):
    at = hand_run
    before, theta_before = _z(_charts(at)["dig_rates"], 0), _theta_map(at)
    at.slider(key="dig.zero_tol").set_value(0.2).run()
    assert not at.exception
    after = _z(_charts(at)["dig_rates"], 0)
    assert np.all(after <= before) and after.sum() < before.sum()
    # the maps follow the slider; the classifiers wait for the button and say so
    assert count_fits == []
    assert np.array_equal(_theta_map(at), theta_before)
    assert any("still use ε = 0" in i.value for i in at.info)
    at.button(key="dig_refit").click().run()
    assert not at.exception
    assert sorted(count_fits) == ["FLDA-L", "FLDA-L", "FLDA-Q", "FLDA-Q"]
    assert not np.array_equal(_theta_map(at), theta_before)
    assert not any("still use ε" in i.value for i in at.info)
    assert at.query_params["zero_tol"] in ("0.2", ["0.2"])


def test_a_restarted_server_shows_the_same_page_without_fitting(hand_run, empty_disk_store, count_fits):
    import streamlit as st

    st.cache_data.clear()  # a fresh server: fits come from the disk store or are fitted
    before = _open({"l2_mode": "hand", "l2": "0.001"})
    assert len(list(empty_disk_store.glob("*.json"))) >= 10  # every fit of the page is kept
    count_fits.clear()
    st.cache_data.clear()  # what a restart forgets; the disk store stays
    after = _open({"l2_mode": "hand", "l2": "0.001"})
    assert count_fits == []
    assert _charts(after)["dig_weights"] == _charts(before)["dig_weights"]
    assert _charts(after)["dig_errors"] == _charts(before)["dig_errors"]
    assert after.dataframe[0].value.equals(before.dataframe[0].value)


@pytest.mark.slow
def test_cross_validated_default():
    at = _open()
    assert not at.error
    l2_table = at.dataframe[1].value
    assert len(l2_table) == 10
    assert set(l2_table["l2"]) <= set(ed.L2_GRID)
    assert l2_table.filter(like="CV error").notna().all().all()


def test_openml_failure_keeps_default_and_says_why(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(dg, "openml_reachable", lambda *a, **k: False)
    at = _open({"source": "openml", "l2_mode": "hand"})
    assert not at.error  # nothing requested yet
    assert str(tmp_path) not in at.button(key="dig_load_openml").help  # no server folder
    assert any("offline default" in i.value for i in at.info)
    at.button(key="dig_load_openml").click().run()
    assert not at.exception
    assert len(at.error) == 1 and "cannot be reached" in at.error[0].value
    assert "How to fix it" in at.error[0].value
    assert "dig_weights" in _charts(at)  # the default data is still shown
    at.selectbox(key="dig.digit").set_value("5").run()
    assert len(at.error) == 1  # the reason stays visible until a load succeeds


def test_digit_and_direction_from_the_url():
    at = _open({"digit": "7", "direction": "B → A", "l2_mode": "hand"})
    assert at.selectbox(key="dig.digit").value == "7"
    titles = [a["text"] for a in _charts(at)["dig_weights"]["layout"]["annotations"]]
    assert "digit 7" in titles[0]
    assert any("(nearly) 0 everywhere" in c.value for c in at.caption)


def test_presentation_mode_hides_controls(hand_run):
    at = _open({"present": "1", "l2_mode": "hand"})
    assert not at.error
    assert {"dig_rates", "dig_weights", "dig_errors"} <= set(_charts(at))
    keys = {w.key for w in at.sidebar.radio} | {w.key for w in at.sidebar.slider}
    assert not any(str(k).startswith("dig.") for k in keys)
