"""What one session may hold on Streamlit's upload endpoint (explorer/ui/uploads.py, issue 26).

Streamlit accepted any number of files under ``server.maxUploadSize`` under made-up
file ids (16 x 45 MB held 720 MB until the session's TTL).  The budget's rule is tested
on its own and on Streamlit's real in-memory store (with the session's widget values
given), and against a running ``streamlit run app.py``: made-up uploads get a clean 413,
the server's memory stays bounded, and the page's own uploads keep working.
"""

import asyncio
import concurrent.futures
import random
import time
import urllib.error
import uuid

import pytest
from e2e_harness import StreamlitServer, proc_rss
from streamlit.proto.Common_pb2 import UploadedFileInfo
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from test_bench_class import bench_class

from explorer.ui import uploads

MB = 2**20


# ------------------------------------------------------------------ the rule alone


def test_budget_is_the_widgets_files_at_their_largest_plus_a_small_slack():
    files, size = uploads.session_budget(50)
    assert files == uploads.WIDGET_FILES + 2
    assert size == uploads.WIDGET_FILES * 50 * MB + uploads.SLACK_BYTES
    assert uploads.SLACK_BYTES < 50 * MB  # not room for a third file at the limit


def test_files_no_widget_uses_go_oldest_first_and_files_in_use_never():
    budget, now = (4, 100), 1000.0
    old_left = uploads.Held("left", 30, added=1.0, read=True)
    older_left = uploads.Held("older", 30, added=0.0, read=True)
    shown = uploads.Held("shown", 30, added=2.0, read=True)
    held = [shown, old_left, older_left]
    assert uploads.files_to_drop(held, {"shown"}, 10, budget, now) == []
    assert uploads.files_to_drop(held, {"shown"}, 40, budget, now) == ["older"]
    assert uploads.files_to_drop(held, {"shown"}, 70, budget, now) == ["older", "left"]
    assert uploads.files_to_drop(held, {"shown"}, 71, budget, now) is None
    assert uploads.files_to_drop(held, {"shown", "older", "left"}, 40, budget, now) is None
    # too many files, whatever their size
    small = [uploads.Held(f"f{i}", 1, added=float(i), read=True) for i in range(4)]
    assert uploads.files_to_drop(small, {"f1", "f2", "f3"}, 1, budget, now) == ["f0"]
    assert uploads.files_to_drop(small, {"f0", "f1", "f2", "f3"}, 1, budget, now) is None
    # the session's widget values unknown: nothing is dropped
    assert uploads.files_to_drop(held, None, 40, budget, now) is None
    # larger than the whole budget
    assert uploads.files_to_drop([], set(), 101, budget, now) is None


def test_a_fresh_upload_no_run_has_read_yet_is_kept_until_it_is_stale():
    fresh = uploads.Held("fresh", 60, added=100.0)
    budget = (4, 100)
    assert uploads.files_to_drop([fresh], set(), 60, budget, now=101.0) is None
    later = 100.0 + uploads.FRESH_SECONDS + 1
    assert uploads.files_to_drop([fresh], set(), 60, budget, now=later) == ["fresh"]
    read = uploads.Held("fresh", 60, added=100.0, read=True)  # read, then left behind
    assert uploads.files_to_drop([read], set(), 60, budget, now=101.0) == ["fresh"]


# ------------------------------------------------------- Streamlit's store, bounded


class _Session:
    """What ``_referenced_file_ids`` reads of a session: its widget values."""

    def __init__(self):
        self.file_ids = []
        self.session = self
        self.session_state = self

    def get_widget_states(self):
        state = WidgetState(id="uploader")
        for file_id in self.file_ids:
            state.file_uploader_state_value.uploaded_file_info.append(
                UploadedFileInfo(file_id=file_id, name="x.csv", size=1)
            )
        return [state, WidgetState(id="slider", double_value=1.0)]


class _Runtime:
    def __init__(self, manager):
        self.uploaded_file_mgr = manager
        self.sessions = {"s": _Session()}
        self._session_mgr = self

    def get_session_info(self, session_id):
        return self.sessions[session_id]


def _rec(file_id, size):
    return UploadedFileRec(file_id=file_id, name=f"{file_id}.csv", type="text/csv", data=b"x" * size)


def test_streamlits_store_refuses_with_413_and_drops_files_left_behind():
    from starlette.exceptions import HTTPException

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    runtime = _Runtime(manager)
    manager.add_file("s", _rec("before", 5))  # uploaded before the bound was installed
    assert uploads.bound_uploads(runtime, budget=(4, 100)) is manager
    assert isinstance(manager, MemoryUploadedFileManager)
    widgets = runtime.sessions["s"]
    widgets.file_ids = ["before"]
    manager.add_file("s", _rec("a", 40))
    with pytest.raises(HTTPException) as refused:  # 5 + 40 + 60 > 100, all in use
        manager.add_file("s", _rec("b", 60))
    assert refused.value.status_code == 413 and "reload the page" in refused.value.detail
    assert [f.file_id for f in manager.get_files("s", ["before", "a", "b"])] == ["before", "a"]
    # "a" read by a run, then its page left behind: it goes to make room
    widgets.file_ids = ["before"]
    manager.add_file("s", _rec("b", 60))
    assert [f.file_id for f in manager.get_files("s", ["before", "a", "b"])] == ["before", "b"]
    assert manager._total_bytes == 65 and manager._file_count == 2
    # the browser's DELETE and the session's end free the budget too
    manager.remove_file("s", "b")
    manager.add_file("s", _rec("c", 90))
    manager.remove_session_files("s")
    assert manager._held == {} and manager._total_bytes == 0
    # installing twice changes only the budget
    assert uploads.bound_uploads(runtime, budget=(2, 10)) is manager
    assert manager.budget == (2, 10)


def test_replacing_a_file_under_its_own_id_counts_it_once():
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    runtime = _Runtime(manager)
    uploads.bound_uploads(runtime, budget=(1, 100))
    manager.add_file("s", _rec("a", 60))
    manager.add_file("s", _rec("a", 70))
    assert manager._total_bytes == 70


def test_the_servers_total_is_a_share_of_memory_per_process_and_never_below_a_session():
    total = uploads.server_total_bytes
    assert total(100, {}, memory_bytes=8 * 2**30) == 2 * 2**30  # a quarter
    assert total(100, {"FLDA_SERVER_PROCESSES": "4"}, memory_bytes=8 * 2**30) == 2**29
    assert total(100, {"FLDA_UPLOADS_TOTAL_MB": "300", "FLDA_SERVER_PROCESSES": "3"}) == 100 * MB
    # never less than what one session may hold, so one student can always upload
    assert total(500 * MB, {"FLDA_UPLOADS_TOTAL_MB": "300"}) == 500 * MB
    # a setting that is not a positive whole number is ignored
    for bad in ("0", "-5", "lots", "1.5", ""):
        assert (
            total(100, {"FLDA_UPLOADS_TOTAL_MB": bad, "FLDA_SERVER_PROCESSES": bad}, memory_bytes=4 * 2**30)
            == 2**30
        )


def test_uploads_of_all_sessions_together_stay_within_the_servers_total():
    from starlette.exceptions import HTTPException

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    runtime = _Runtime(manager)
    runtime.sessions["t"] = _Session()
    uploads.bound_uploads(runtime, budget=(4, 100), total_bytes=150)
    manager.add_file("s", _rec("a", 90))
    manager.add_file("t", _rec("b", 50))
    with pytest.raises(HTTPException) as refused:  # 90 + 50 + 20 > 150
        manager.add_file("t", _rec("c", 20))
    assert refused.value.status_code == 413
    assert "for everyone at once (0 MB)" in refused.value.detail
    assert "FLDA_UPLOADS_TOTAL_MB" in refused.value.detail
    assert [f.file_id for f in manager.get_files("t", ["b", "c"])] == ["b"]
    assert manager.held_bytes() == 140
    manager.add_file("t", _rec("b", 60))  # replacing a file counts it once: 150
    # a file the session's own budget drops (no widget shows it) makes room too
    runtime.sessions["s"].file_ids = []
    manager.get_files("s", ["a"])  # read by a run, then left behind
    manager.add_file("s", _rec("d", 80))
    assert manager.held_bytes() == 140
    # a session's end frees its share for the others
    with pytest.raises(HTTPException):  # 140 + 40 > 150
        manager.add_file("t", _rec("c", 40))
    manager.remove_session_files("s")
    manager.add_file("t", _rec("c", 40))
    assert manager.held_bytes() == 100
    assert uploads.bound_uploads(runtime, budget=(4, 100), total_bytes=10).total_bytes == 10


def test_streamlit_still_has_what_the_budget_relies_on():
    """An upgrade that moves these fails here rather than silently unbounding uploads."""
    import inspect

    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.session_manager import SessionManager
    from streamlit.runtime.state.session_state import SessionState
    from streamlit.web.server.starlette import starlette_routes

    routes = inspect.getsource(starlette_routes.create_upload_routes)
    assert "upload_mgr.add_file(" in routes and "HTTPException" in routes
    assert "self._session_mgr" in inspect.getsource(Runtime.__init__)
    assert hasattr(SessionManager, "get_session_info")
    assert isinstance(AppSession.session_state, property)
    assert hasattr(SessionState, "get_widget_states")


# ----------------------------------------------------------------- a real server


def _put(student, file_id, size):
    """PUT ``size`` bytes under ``file_id`` as the browser does; returns the status."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="made-up.csv"\r\nContent-Type: text/csv\r\n\r\n'
        ).encode()
        + b"1" * size
        + f"\r\n--{boundary}--\r\n".encode()
    )
    try:
        status, _, _ = student._http(
            "PUT",
            f"/_stcore/upload_file/{student.session_id}/{file_id}",
            body,
            {
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "X-Xsrftoken": student.cookies.get("_streamlit_xsrf", ""),
            },
        )
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    return status, ""


async def _attack(url, pid):
    stats = bench_class.Stats()
    student = bench_class.Student(url, random.Random(0), stats, timeout=180)
    try:
        await student.connect("your_data")
        start_rss = proc_rss(pid)
        # Two files of 45 MB under made-up ids fit the budget (110 MB); the rest do not.
        answers = [await asyncio.to_thread(_put, student, uuid.uuid4().hex, 45 * MB) for _ in range(14)]
        peak_rss = proc_rss(pid)
        # The page's own uploaders still work: the pair is read and fitted.
        await student.upload("Source CSV", bench_class.UPLOAD_FILES[0])
        await student.upload("Target CSV", bench_class.UPLOAD_FILES[1])
        await student.change("Regularisation l2")
        # Now four files are held: a fifth, however small, is refused.
        fifth = await asyncio.to_thread(_put, student, uuid.uuid4().hex, 10)
        shown = list(student.widgets)
    finally:
        await student.close()
    return answers, fifth, start_rss, peak_rss, stats, shown


@pytest.mark.slow
def test_a_session_cannot_hold_more_than_its_budget_on_a_real_server(tmp_path):
    server = StreamlitServer(log_path=tmp_path / "server.log")
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # no event loop in this one
            answers, fifth, start_rss, peak_rss, stats, shown = pool.submit(
                asyncio.run, asyncio.wait_for(_attack(server.url, server.process.pid), 600)
            ).result()
        time.sleep(0.5)
        log = (tmp_path / "server.log").read_text()
    finally:
        server.stop()
    statuses = [status for status, _ in answers]
    assert statuses == [204, 204] + [413] * 12, answers
    assert all("reload the page" in text for _, text in answers[2:])
    assert fifth[0] == 413 and "4 files" in fifth[1]
    assert "Traceback" not in log, log[-3000:]
    # Held: two files of 45 MB; without the budget 14 of them (630 MB) stayed.
    assert peak_rss - start_rss < 250 * MB, (start_rss // MB, peak_rss // MB)
    assert not stats.errors, stats.errors
    assert any(label.startswith("Label column") for label in shown), shown


def test_uploads_no_run_ever_read_expire_so_other_tabs_are_not_locked_out(monkeypatch):
    """Issue 36: three tabs sent two 40 MB files each and never used them; another
    student's 1.2 kB CSV got 413.  Files no run read within FRESH_SECONDS and no widget
    shows are dropped before the server's total is checked."""
    clock = [100.0]
    monkeypatch.setattr(uploads.time, "monotonic", lambda: clock[0])
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    runtime = _Runtime(manager)
    for tab in ("t1", "t2", "t3", "student"):
        runtime.sessions[tab] = _Session()
    uploads.bound_uploads(runtime, budget=(4, 100 * MB), total_bytes=240 * MB)
    for tab in ("t1", "t2", "t3"):
        manager.add_file(tab, _rec(f"{tab}-a", 40 * MB))
        manager.add_file(tab, _rec(f"{tab}-b", 40 * MB))
    runtime.sessions["t3"].file_ids = ["t3-a"]  # a widget shows this one: it stays
    clock[0] += uploads.FRESH_SECONDS
    manager.add_file("student", _rec("small", 1200))
    assert manager.held_bytes() == 40 * MB + 1200
    assert [f.file_id for f in manager.get_files("t3", ["t3-a", "t3-b"])] == ["t3-a"]
