"""Uploads of a whole class stay within the server's total (explorer/ui/uploads.py), fairly,
and a student sees why a file is refused: Your data warns above its uploaders while the
total has no room for one more file, the uploader's "status code 413" is explained in its
help, and the page keeps working.

The server is started with ``FLDA_UPLOADS_TOTAL_MB=1``: the total is then one browser's
budget (110 MB, the floor), which another browser fills: 90 MB its uploaders show, and
made-up uploads no run reads, which count against it (issue 42).
"""

from __future__ import annotations

import asyncio
import random
import threading
import uuid

import pytest
from test_bench_class import bench_class
from test_upload_budget import _put

import e2e_harness as h

pytestmark = pytest.mark.e2e

MB = 2**20
WARNING = "for everyone at once"


async def _fill(url, folder, shown_mb, unread_mb):
    """Another browser shows files of ``shown_mb`` in its uploaders and sends made-up
    files of ``unread_mb`` no run reads; returns it (close it when done) and the statuses
    of the made-up uploads."""
    student = bench_class.Student(url, random.Random(0), bench_class.Stats(), timeout=180)
    await student.connect("your_data")
    for label, size in zip(("Source CSV", "Target CSV"), shown_mb, strict=True):
        path = folder / f"{label[:6]}.csv"
        path.write_bytes(b"1" * size * MB)
        await student.upload(label, path)
    statuses = [(await asyncio.to_thread(_put, student, uuid.uuid4().hex, n * MB))[0] for n in unread_mb]
    return student, statuses


def _upload(page, source, path, text):
    source.locator('input[type="file"]').set_input_files(str(path))
    source.get_by_text(text).first.wait_for()


def _warnings(page):
    return [
        t for t in page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts() if WARNING in t
    ]


def test_a_full_server_warns_above_the_uploaders_and_refuses_what_does_not_fit(
    chromium, e2e_tmp, monkeypatch
):
    monkeypatch.setenv("FLDA_UPLOADS_TOTAL_MB", "1")
    server = h.StreamlitServer(log_path=e2e_tmp / "upload_total.log")
    # The other session's event loop runs beside Playwright's, in its own thread.
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def run(coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(300)

    other = None
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{server.url}/your_data")
        assert not _warnings(page)  # nothing held yet
        source = h.widget(page, "stFileUploader", "Source CSV")
        source.locator('[data-testid="stTooltipIcon"]').first.hover()
        tip = page.locator('[data-testid="stTooltipContent"]').first
        tip.wait_for(state="visible")
        assert "status code 413" in tip.inner_text()
        other, statuses = run(_fill(server.url, e2e_tmp, (45, 45), (19,)))
        assert statuses == [204]  # 109 MB of the 110 MB
        # the page's next run (any control) says the server is full, and by how much
        h.act(
            page,
            tracker,
            page.locator('[data-testid="stButton"] button')
            .filter(has_text="Synthetic word counts (Poisson)")
            .first.click,
        )
        (warning,) = _warnings(page)
        assert "holds 109 MB of uploads, of the 110 MB" in warning, warning
        assert "a file over 1 MB will be refused" in warning, warning
        assert not h.error_texts(page)
        assert h.chart_texts(page)  # the sample pair still works
        # the other browser's unread upload counts against it: a small file takes its place
        small = e2e_tmp / "small.csv"
        small.write_text("a,b,label\n" + "1,2,0\n3,4,1\n" * 50, encoding="utf-8")
        _upload(page, source, small, "small.csv")
        assert not [t for t in h.error_texts(page) if "413" in t]
        # what the other browser's uploaders show stays: a 25 MB file is refused, and the
        # uploader says so
        path = e2e_tmp / "big.csv"
        path.write_text("a,b,label\n" + "1,2,0\n" * (25 * MB // 6), encoding="utf-8")
        _upload(page, source, path, "status code 413")
    finally:
        context.close()
        if other is not None:
            run(other.close())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
        server.stop()
