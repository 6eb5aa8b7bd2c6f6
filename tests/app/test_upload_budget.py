"""What one session may hold on Streamlit's upload endpoint (explorer/ui/uploads.py, issue 26).

Streamlit accepted any number of files under ``server.maxUploadSize`` under made-up
file ids (16 x 45 MB held 720 MB until the session's TTL).  The budget's rule is tested
on its own and on Streamlit's real in-memory store (with the session's widget values
given), and against a running ``streamlit run app.py``: made-up uploads get a clean 413,
the server's memory stays bounded, and the page's own uploads keep working.
"""

import asyncio
import concurrent.futures
import contextlib
import random
import time
import urllib.error
import uuid

import pytest
from e2e_harness import StreamlitServer, proc_rss
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


class _Runtime:
    """What ``bound_uploads`` reads of a runtime: its upload manager."""

    def __init__(self, manager):
        self.uploaded_file_mgr = manager


def _rec(file_id, size):
    return UploadedFileRec(file_id=file_id, name=f"{file_id}.csv", type="text/csv", data=b"x" * size)


def _store(budget=(4, 100), total_bytes=None):
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    assert uploads.bound_uploads(_Runtime(manager), budget=budget, total_bytes=total_bytes) is manager
    return manager


def _ids(manager, session, file_ids):
    return [f.file_id for f in manager.get_files(session, file_ids)]


def test_streamlits_store_refuses_with_413_and_drops_files_left_behind():
    from starlette.exceptions import HTTPException

    manager = _store()
    assert isinstance(manager, MemoryUploadedFileManager)
    manager.add_file("s", _rec("before", 5))
    manager.add_file("s", _rec("a", 40))
    manager.note_shown("tab", {"before", "a"}, "")  # a run shows both
    with pytest.raises(HTTPException) as refused:  # 5 + 40 + 60 > 100, all in use
        manager.add_file("s", _rec("b", 60))
    assert refused.value.status_code == 413 and "4 files, 0 MB" in refused.value.detail
    assert _ids(manager, "s", ["before", "a", "b"]) == ["before", "a"]
    # "a" read by a run, then its page left behind: it goes to make room
    manager.note_shown("tab", {"before"}, "")
    manager.add_file("s", _rec("b", 60))
    assert _ids(manager, "s", ["before", "a", "b"]) == ["before", "b"]
    assert manager.held_bytes() == 65
    # the browser's DELETE and the session's end free the budget too
    manager.remove_file("s", "b")
    manager.add_file("s", _rec("c", 90))
    manager.remove_session_files("s")
    assert manager._held == {} and manager.held_bytes() == 0
    # installing twice changes only the budget
    assert uploads.bound_uploads(_Runtime(manager), budget=(2, 10)) is manager
    assert manager.budget == (2, 10)


def test_replacing_a_file_under_its_own_id_counts_it_once():
    manager = _store(budget=(1, 100))
    manager.add_file("s", _rec("a", 60))
    manager.add_file("s", _rec("a", 70))
    assert manager.held_bytes() == 70


def test_the_servers_total_is_a_share_of_memory_per_process_and_never_below_a_session():
    total = uploads.server_total_bytes
    assert total(100, {}, memory_bytes=8 * 2**30) == 2 * 2**30  # a quarter
    assert total(100, {"FLDA_SERVER_PROCESSES": "4"}, memory_bytes=8 * 2**30) == 2**29
    assert total(100, {"FLDA_UPLOADS_TOTAL_MB": "300", "FLDA_SERVER_PROCESSES": "3"}) == 100 * MB
    # never less than what one browser may hold, so one student can always upload
    assert total(500 * MB, {"FLDA_UPLOADS_TOTAL_MB": "300"}) == 500 * MB
    # a setting that is not a positive number (processes: whole) is ignored
    for bad in ("0", "-5", "lots", ""):
        assert (
            total(100, {"FLDA_UPLOADS_TOTAL_MB": bad, "FLDA_SERVER_PROCESSES": bad}, memory_bytes=4 * 2**30)
            == 2**30
        )
    assert total(100, {"FLDA_SERVER_PROCESSES": "1.5"}, memory_bytes=4 * 2**30) == 2**30


def test_uploads_of_all_sessions_together_stay_within_the_servers_total():
    from starlette.exceptions import HTTPException

    manager = _store(total_bytes=150)
    manager.add_file("s", _rec("a", 90))
    manager.add_file("t", _rec("b", 50))
    manager.note_shown("tab-s", {"a"}, "browser:s")  # both shown by their pages
    manager.note_shown("tab-t", {"b"}, "browser:t")
    with pytest.raises(HTTPException) as refused:  # 90 + 50 + 20 > 150
        manager.add_file("t", _rec("c", 20))
    assert refused.value.status_code == 413
    assert "for everyone at once (0 MB)" in refused.value.detail
    assert "FLDA_UPLOADS_TOTAL_MB" in refused.value.detail
    assert _ids(manager, "t", ["b", "c"]) == ["b"]
    assert manager.held_bytes() == 140
    manager.add_file("t", _rec("b", 60))  # replacing a file counts it once: 150
    # a file its own browser's budget drops (no uploader shows it) makes room too
    manager.note_shown("tab-s", set(), "browser:s")
    manager.add_file("s", _rec("d", 80))
    assert manager.held_bytes() == 140
    # a session's end frees its share for the others
    with pytest.raises(HTTPException):  # 140 + 40 > 150
        manager.add_file("t", _rec("c", 40))
    manager.remove_session_files("s")
    manager.add_file("t", _rec("c", 40))
    assert manager.held_bytes() == 100
    assert uploads.bound_uploads(_Runtime(manager), budget=(4, 100), total_bytes=10).total_bytes == 10


def test_two_tabs_of_one_browser_share_one_budget_so_a_classmate_still_fits():
    """Issue 42: two active tabs of one client filled the total (each tab had a budget of
    its own), so a classmate's 40 kB pair was refused."""
    from starlette.exceptions import HTTPException

    manager = _store(budget=(4, 100 * MB), total_bytes=200 * MB)
    manager.add_file("tab1", _rec("a", 45 * MB))
    manager.add_file("tab1", _rec("b", 45 * MB))
    manager.note_shown("token1", {"a", "b"}, "browser:x")
    manager.add_file("tab2", _rec("c", 45 * MB))  # a new tab: alone until a run shows its file
    manager.note_shown("token2", {"c"}, "browser:x")
    with pytest.raises(HTTPException) as refused:  # the browser holds 135 MB, over its 100
        manager.add_file("tab2", _rec("d", 45 * MB))
    assert "This browser" in refused.value.detail and "all its tabs" in refused.value.detail
    for file_id in ("pair-source", "pair-target"):
        manager.add_file("classmate", _rec(file_id, 40_000))
    assert _ids(manager, "classmate", ["pair-source", "pair-target"]) == ["pair-source", "pair-target"]


def test_resending_unread_files_as_they_expire_does_not_keep_the_class_out(monkeypatch):
    """Issue 42: a client re-sending files no run reads, each as the last expires, kept the
    total full: 7 of 15 small uploads got in.  Its unread files count against it: over
    its share they go first, whatever their age."""
    clock = [100.0]
    monkeypatch.setattr(uploads.time, "monotonic", lambda: clock[0])
    manager = _store(budget=(4, 100 * MB), total_bytes=200 * MB)
    accepted = 0
    for attempt in range(15):
        for k in range(4):  # the hog tops itself up to the total with fresh, unread files
            with contextlib.suppress(Exception):
                manager.add_file(f"hog{k % 2}", _rec(f"hog-{attempt}-{k}", 50 * MB))
        try:
            manager.add_file(f"student{attempt}", _rec(f"small-{attempt}", 1200))
            accepted += 1
        except Exception:
            pass
        manager.get_files(f"student{attempt}", [f"small-{attempt}"])  # read by its run
        clock[0] += uploads.FRESH_SECONDS / 3
    assert accepted == 15


def test_a_fresh_tabs_small_upload_fits_while_other_tabs_hold_unread_uploads(monkeypatch):
    """Issue 42 (left from issue 36): three tabs sent two 40 MB files each and never used
    them; another student's 1.2 kB CSV got 413 at once, and only FRESH_SECONDS later got in."""
    monkeypatch.setattr(uploads.time, "monotonic", lambda: 100.0)
    manager = _store(budget=(4, 100 * MB), total_bytes=240 * MB)
    for tab in ("t1", "t2", "t3"):
        manager.add_file(tab, _rec(f"{tab}-a", 40 * MB))
        manager.add_file(tab, _rec(f"{tab}-b", 40 * MB))
    manager.add_file("student", _rec("small", 1200))  # at once
    assert _ids(manager, "student", ["small"]) == ["small"]
    assert manager.held_bytes() == 200 * MB + 1200


def test_the_browser_is_the_token_of_its_xsrf_cookie_whatever_its_mask():
    """Streamlit masks the XSRF token anew on every page load: two tabs of one browser
    carry different cookie texts for one token (format pinned against Streamlit's own)."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    token = bytes(range(16))
    first, second = generate_xsrf_token_string(token, 1700000000), generate_xsrf_token_string(token)
    assert first != second
    key = uploads.client_key({"_streamlit_xsrf": first})
    assert key == uploads.client_key({"_streamlit_xsrf": second}) == "browser:" + token.hex()
    assert uploads.client_key({"_streamlit_xsrf": generate_xsrf_token_string()}) != key
    assert uploads.client_key({}) == ""


def test_streamlit_still_has_what_the_budget_relies_on():
    """An upgrade that moves these fails here rather than silently unbounding uploads."""
    import inspect

    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.uploaded_file_manager import UploadedFile
    from streamlit.web.server.starlette import starlette_routes

    routes = inspect.getsource(starlette_routes.create_upload_routes)
    assert "upload_mgr.add_file(" in routes and "HTTPException" in routes
    assert isinstance(Runtime.__dict__["uploaded_file_mgr"], property)
    for method in ("add_file", "get_files", "remove_file", "remove_session_files"):
        assert method in vars(MemoryUploadedFileManager), method
    assert "file_id" in inspect.signature(UploadedFile.__init__).parameters or hasattr(
        UploadedFile(UploadedFileRec("f", "n", "t", b""), None), "file_id"
    )


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
    assert all("all its tabs" in text for _, text in answers[2:])
    assert fifth[0] == 413 and "4 files" in fifth[1]
    assert "Traceback" not in log, log[-3000:]
    # Held: two files of 45 MB; without the budget 14 of them (630 MB) stayed.
    assert peak_rss - start_rss < 250 * MB, (start_rss // MB, peak_rss // MB)
    assert not stats.errors, stats.errors
    assert any(label.startswith("Label column") for label in shown), shown


def test_uploads_no_run_ever_read_expire_so_other_tabs_are_not_locked_out(monkeypatch):
    """Issue 36: three tabs sent two 40 MB files each and never used them; another
    student's 1.2 kB CSV got 413.  Files no run read within FRESH_SECONDS and no uploader
    shows are dropped before the server's total is checked."""
    clock = [100.0]
    monkeypatch.setattr(uploads.time, "monotonic", lambda: clock[0])
    manager = _store(budget=(4, 100 * MB), total_bytes=240 * MB)
    for tab in ("t1", "t2", "t3"):
        manager.add_file(tab, _rec(f"{tab}-a", 40 * MB))
        manager.add_file(tab, _rec(f"{tab}-b", 40 * MB))
    manager.note_shown("t3-token", {"t3-a"}, "")  # an uploader shows this one: it stays
    clock[0] += uploads.FRESH_SECONDS
    manager.add_file("student", _rec("small", 1200))
    assert manager.held_bytes() == 40 * MB + 1200
    assert _ids(manager, "t3", ["t3-a", "t3-b"]) == ["t3-a"]
