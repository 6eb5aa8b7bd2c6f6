"""One memory budget (explorer/ui/memory.py, issue 36).

The findings: Your data kept every accepted file's bytes in session state, also after
its ✕ (five sessions loading and removing 2 x 35 MB CSVs: RSS 484 -> 899 MB); three
tabs whose uploads no run ever read locked every other student out with 413.
"""

import gc

import numpy as np
import pandas as pd
import pytest
from apptest_support import open_page

from explorer.errors import DataValidationError
from explorer.ui import memory

MB = 2**20
YOUR_DATA = "pages/your_data.py"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture()
def fresh_store(monkeypatch):
    """A process store of its own (budget, total and clock chosen by the test)."""

    def make(session_mb=400, total_mb=4000, idle_seconds=1200.0):
        clock = Clock()
        data = memory.DataStore(session_mb * MB, total_mb * MB, idle_seconds, clock=clock)
        monkeypatch.setattr(memory, "_STORE", data)
        return data, clock

    return make


def _session_objects(at):
    return [at.session_state[k] for k in at.session_state]


def _large_values(value, limit, seen=None):
    """Bytes and arrays of at least ``limit`` bytes anywhere inside ``value``."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, (bytes, bytearray)) and len(value) >= limit:
        return [value]
    if isinstance(value, np.ndarray) and value.nbytes >= limit:
        return [value]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _large_values(v, limit, seen)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _large_values(v, limit, seen)]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return [x for v in vars(value).values() for x in _large_values(v, limit, seen)]
    return []


def _csv(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 6))
    rows = "".join(",".join(map(str, r)) + f",{'x' if i % 2 else 'y'}\n" for i, r in enumerate(X))
    return ("a,b,c,d,e,f,label\n" + rows).encode()


# ------------------------------------------------------------------ the store alone


def test_sizes_are_measured_deeply_and_shared_objects_once():
    frame = pd.DataFrame({"x": np.zeros(1000), "s": ["word"] * 1000})
    assert memory.nbytes_of(frame) == frame.memory_usage(deep=True).sum()
    array = np.zeros((100, 10))
    # the view and the repeated array count once; the keys are text (3 bytes)
    assert memory.nbytes_of({"a": array, "b": array[:5], "c": (array, b"1234")}) == 8000 + 4 + 3


def test_identical_inputs_are_held_once_and_leave_with_their_last_holder():
    data = memory.DataStore(100 * MB, 1000 * MB, 60.0, clock=Clock())
    made = []

    def make():
        made.append(1)
        return np.zeros(MB // 8)  # 1 MB

    first = data.hold("s1", "file", "digest-1", make)
    second = data.hold("s2", "file", "digest-1", make)
    assert first is second and made == [1]
    assert data.held_bytes() == MB
    assert data.session_bytes_held("s1") == data.session_bytes_held("s2") == MB
    data.release("s1", "file")
    assert data.held_bytes() == MB and data.get("s1", "file") is None
    data.hold("s2", "file", "digest-2", lambda: np.zeros(2 * MB // 8))  # replaces its own
    assert data.held_bytes() == 2 * MB and data.get("s2", "file").nbytes == 2 * MB
    data.end_session("s2")
    assert data.held_bytes() == 0


def test_a_session_over_its_budget_or_the_server_over_its_total_is_refused_clearly():
    clock = Clock()
    data = memory.DataStore(3 * MB, 5 * MB, 1200.0, clock=clock)
    data.hold("s1", "a", "k1", lambda: np.zeros(2 * MB // 8))
    with pytest.raises(memory.OverBudget) as refused:
        data.hold("s1", "b", "k2", lambda: np.zeros(2 * MB // 8))
    assert isinstance(refused.value, DataValidationError) and memory.SESSION_ENV in refused.value.hint
    data.hold("s1", "a", "k2", lambda: np.zeros(3 * MB // 8))  # replacing: 3 MB, fits
    data.hold("s2", "a", "k3", lambda: np.zeros(2 * MB // 8))  # 5 MB in all
    with pytest.raises(memory.OverBudget) as refused:  # both working, 2.5 MB each: the share
        data.hold("s2", "b", "k4", lambda: np.zeros(MB // 8))
    assert memory.TOTAL_ENV in refused.value.hint
    # s1 idle for a minute: its data go first, least recently seen first, s2 keeps its own
    clock.now += memory.PRESSURE_IDLE_SECONDS
    data.touch("s2")
    data.hold("s3", "a", "k4", lambda: np.zeros(MB // 8))
    assert data.get("s1", "a") is None and data.get("s2", "a") is not None


def test_two_working_tabs_of_one_browser_cannot_keep_a_classmate_out():
    """Issue 42: two active tabs of one client filled the total, and a classmate's 40 kB
    pair was refused until they had been idle for a minute.  Over its share, the browser
    gives way at once (least recently seen tab first); within its share it keeps its data."""
    clock = Clock()
    data = memory.DataStore(400 * MB, 100 * MB, 1200.0, clock=clock)
    for tab in ("tab1", "tab2"):
        data.touch(tab, "browser:x")
        data.hold(tab, "file", f"{tab}-table", lambda: np.zeros(50 * MB // 8))
        clock.now += 1
    data.touch("classmate", "browser:y")
    pair = data.hold("classmate", "file", "pair", lambda: np.zeros(40_000 // 8))
    assert pair.nbytes == 40_000 and data.get("classmate", "file") is pair
    assert data.get("tab1", "file") is None and data.get("tab2", "file") is not None
    # the browser now holds its share (half the total): the classmate takes no more
    with pytest.raises(memory.OverBudget):
        data.hold("classmate", "more", "big", lambda: np.zeros(51 * MB // 8))
    assert data.get("tab2", "file") is not None
    # a browser over its share takes nothing from another's working tab
    with pytest.raises(memory.OverBudget):
        data.hold("tab1", "file", "tab1-again", lambda: np.zeros(50 * MB // 8))


def test_idle_sessions_are_culled_and_their_uploads_dropped():
    clock = Clock()
    data = memory.DataStore(10 * MB, 100 * MB, 600.0, clock=clock)
    released = []
    data.on_release = released.append
    data.hold("s1", "a", "k1", lambda: np.zeros(1000))
    data.hold("s2", "a", "k2", lambda: np.zeros(1000))
    clock.now += 599
    data.touch("s2")
    assert data.cull() == [] and data.held_bytes() == 16000
    clock.now += 1
    assert data.cull() == ["s1"] and released == ["s1"]
    assert data.get("s1", "a") is None and data.get("s2", "a") is not None


def test_a_session_whose_state_is_dropped_releases_everything():
    """The token in session state: when Streamlit drops the state (tab closed, then
    ``server.disconnectedSessionTTL``), its data leave the store."""
    data = memory.DataStore(10 * MB, 100 * MB, 600.0, clock=Clock())
    state = {"token": memory._Token(data)}
    data.hold(state["token"].id, "a", "k1", lambda: np.zeros(1000))
    assert data.held_bytes() == 8000
    state.clear()
    gc.collect()
    assert data.held_bytes() == 0 and data.sessions() == []


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setattr(memory, "_STORE", None)
    env = {memory.SESSION_ENV: "64", memory.TOTAL_ENV: "1000", "FLDA_SERVER_PROCESSES": "2"}
    data = memory.make_store({**env, memory.IDLE_ENV: "5"})
    assert (data.session_bytes, data.total_bytes, data.idle_seconds) == (64 * MB, 500 * MB, 300.0)
    data = memory.make_store({memory.SESSION_ENV: "lots", memory.IDLE_ENV: "-1"})
    assert data.session_bytes == memory.DEFAULT_SESSION_MB * MB
    assert data.idle_seconds == 60 * memory.DEFAULT_IDLE_MINUTES


# ------------------------------------------------------------------ the pages


def test_your_data_holds_no_file_bytes_in_session_state_and_its_x_frees_the_tables(fresh_store):
    data, _ = fresh_store()
    source, target = _csv(400, 1), _csv(300, 2)
    at = open_page(YOUR_DATA)
    at.file_uploader(key="data_source_upload").set_value(("s.csv", source, "text/csv")).run()
    at.file_uploader(key="data_target_upload").set_value(("t.csv", target, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    session = at.session_state[memory._SESSION_KEY].id
    held = data.session_bytes_held(session)
    assert held > len(source) + len(target)  # the two tables, the prepared arrays, the results
    assert held == data.held_bytes()
    # session state holds names and digests, not the files (the old code kept the bytes)
    assert not _large_values(_session_objects(at), min(len(source), len(target)))
    # ✕ on both uploaders: the tables, arrays and results leave memory
    at.file_uploader(key="data_source_upload").set_value(None).run()
    at.file_uploader(key="data_target_upload").set_value(None).run()
    assert not at.exception
    assert data.session_bytes_held(session) == 0 and data.held_bytes() == 0
    assert "source" not in at.session_state["data.files"]


def test_x_lets_the_uploaded_bytes_go_at_once(fresh_store):
    """Issue 42: about 35 MB per tab stayed after ✕ on Your data: Streamlit keeps an
    uploader's previous value (the file's bytes) until the tab's next run, so the
    emptied uploader is reset before the page draws it."""
    import weakref

    fresh_store()
    at = open_page(YOUR_DATA)
    at.file_uploader(key="data_source_upload").set_value(("s.csv", _csv(400, 1), "text/csv")).run()
    uploaded = weakref.ref(at.session_state["data_source_upload"])
    at.file_uploader(key="data_source_upload").set_value(None).run()
    assert not at.exception
    gc.collect()
    assert uploaded() is None


def test_two_tabs_loading_the_same_file_share_one_table(fresh_store):
    data, _ = fresh_store()
    first, second = open_page(YOUR_DATA), open_page(YOUR_DATA)
    for at in (first, second):
        at.button(key="data_sample_breast_cancer").click().run()
        assert not at.exception and not at.error
    one = data.session_bytes_held(first.session_state[memory._SESSION_KEY].id)
    assert one > 0 and data.held_bytes() == one  # held once, charged to both


def test_an_idle_tab_loses_its_data_and_gets_them_back_from_its_uploader_or_sample(fresh_store):
    data, clock = fresh_store(idle_seconds=600.0)
    at = open_page(YOUR_DATA)
    at.button(key="data_sample_breast_cancer").click().run()
    errors = at.dataframe[0].value.copy()
    other = open_page(YOUR_DATA)
    other.file_uploader(key="data_source_upload").set_value(("s.csv", _csv(200, 3), "text/csv")).run()
    other.file_uploader(key="data_target_upload").set_value(("t.csv", _csv(100, 4), "text/csv")).run()
    clock.now += 601
    memory.store().cull()
    assert data.held_bytes() == 0
    for tab in (at, other):  # the next run reads the files again: same results
        tab.run()
        assert not tab.exception and not tab.error, [e.value for e in tab.error]
    pd.testing.assert_frame_equal(at.dataframe[0].value, errors)
    assert data.session_bytes_held(other.session_state[memory._SESSION_KEY].id) > 0


def test_a_file_over_the_tabs_budget_is_refused_with_its_fix_and_the_old_file_stays(fresh_store):
    fresh_store(session_mb=1)
    at = open_page(YOUR_DATA)
    at.file_uploader(key="data_source_upload").set_value(("small.csv", _csv(100, 1), "text/csv")).run()
    at.file_uploader(key="data_source_upload").set_value(("big.csv", _csv(40_000, 2), "text/csv")).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "big.csv was not loaded" in errors[0].replace("\\", "")
    assert memory.SESSION_ENV in errors[0].replace("\\", "")
    assert at.session_state["data.files"]["source"]["name"] == "small.csv"
