"""What sessions cost a real server's memory (issue 36), by Streamlit's own protocol.

Two scenarios against ``streamlit run app.py`` on a free loopback port, each on a
fresh server (``bench_class.Student`` speaks the websocket protocol and uploads
through ``/_stcore/upload_file`` as the browser does):

* ``csv``: ``--sessions`` tabs (default 5) each open Your data, upload a source and
  a target CSV of about ``--csv-mb`` MB (35), wait for the results, remove both
  files (the uploader's ✕: ``DELETE`` and a rerun without them) and stay open;
* ``lockout``: three tabs each ``PUT`` two 40 MB files that no run ever reads; a
  fourth tab then uploads a 1.2 kB CSV, at once and after ``FRESH_SECONDS``.

Reported (one JSON object per scenario, the last line all of them): the server's
RSS (MB, ``/proc``) after start and after each tab, and the HTTP status of the
small upload.  ``--tree DIR`` runs another checkout's ``app.py`` (e.g. the code
before this change, unpacked with ``git archive``), for before/after numbers.
Only 127.0.0.1 is contacted.

Run: ``python3 benchmarks/bench_session_memory.py [--scenario csv|lockout|all]
[--sessions N] [--tree DIR]``.

Results
-------
2026-11-27, 2-core reference machine (load average not recorded), ``FLDA_UPLOADS_TOTAL_MB=120``:

* ``csv``: RSS 256 MB after start, then 311, 376, 412, 449 and 485 MB after each of 5 tabs
  (+46 MB a tab; 8 tabs: 590 MB); the data store holds 0 bytes after the ✕.  About 35 MB a
  tab that stays after the ✕ is not data the app holds (the store is empty).
* ``digits``: +66 MB a tab while its pair is held (float32); with a 30 s idle cull
  (``FLDA_IDLE_MINUTES=0.5``) 256 -> 388, 389, 426, 403 MB, and 335 MB once all were idle.
* ``lockout`` (``FLDA_UPLOADS_TOTAL_MB=240``): the small CSV gets 413 at once and is
  accepted 30 s later (the unread files expired); RSS 259 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import urllib.error
import urllib.parse
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_class import Stats, Student  # noqa: E402
from e2e_harness import StreamlitServer, proc_rss  # noqa: E402

MB = 2**20


def csv_file(path, megabytes, seed):
    """A labelled CSV of about ``megabytes`` MB: 50 numeric features and a label."""
    rng = np.random.default_rng(seed)
    n_rows = int(megabytes * MB / (50 * 8 + 2))
    X = rng.random((n_rows, 50)) * (rng.random((n_rows, 50)) < 0.7)
    labels = np.where(X[:, :5].sum(axis=1) > 1.2, "x", "y")
    with open(path, "w") as out:
        out.write(",".join(f"f{j}" for j in range(50)) + ",label\n")
        for row, label in zip(X, labels, strict=True):
            out.write(",".join(f"{v:.5f}" for v in row) + f",{label}\n")
    return path


def rss_mb(pid):
    return round(proc_rss(pid) / MB, 1)


async def remove_file(student, label):
    """The uploader's ✕ as the browser does it: ``DELETE`` the file, then a rerun whose
    uploader state holds no file."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    widget = student.find(label)
    for info in student.states[widget.proto.id].file_uploader_state_value.uploaded_file_info:
        url = info.file_urls.delete_url
        url = url if url.startswith("/") else urllib.parse.urlsplit(url).path
        headers = {"X-Xsrftoken": student.cookies.get("_streamlit_xsrf", "")}
        await student.http("DELETE", url, None, headers)
    state = WidgetState(id=widget.proto.id)
    state.file_uploader_state_value.SetInParent()
    await student.rerun(page_script_hash=student.pages.get(student.page, ""), changed=[state])


async def csv_scenario(server, sessions, megabytes, folder):
    files = [csv_file(folder / f"big_{k}.csv", megabytes, k) for k in range(2)]
    stats, tabs, rss = Stats(), [], [rss_mb(server.process.pid)]
    for k in range(sessions):
        student = Student(server.url, random.Random(k), stats, timeout=600)
        await student.connect("your_data")
        for label, path in zip(("Source CSV", "Target CSV"), files, strict=True):
            await student.upload(label, path)
        for label in ("Source CSV", "Target CSV"):
            await remove_file(student, label)
        tabs.append(student)
        rss.append(rss_mb(server.process.pid))
    for student in tabs:
        await student.close()
    return {"scenario": "csv", "file_mb": round(files[0].stat().st_size / MB, 1), "rss_mb": rss}, stats


async def put_unused(student, path, label="Source CSV"):
    """``PUT`` a file to the uploader ``label``'s endpoint as the browser does, without
    the rerun that would read it; returns the HTTP status."""

    async def no_rerun(*args, **kwargs):
        return None

    student.rerun = no_rerun  # this student's upload stops after its PUT
    try:
        await student.upload(label, path)
    except urllib.error.HTTPError as error:
        return error.code
    finally:
        del student.rerun
    return 200


async def lockout_scenario(server, folder):
    from explorer.ui.uploads import FRESH_SECONDS

    big = folder / "forty.csv"
    big.write_bytes(b"a,label\n" + b"1,x\n" * (40 * MB // 4 - 2))
    small = folder / "small.csv"
    small.write_bytes(b"a,b,label\n" + b"1,2,x\n3,4,y\n" * 100)
    stats, tabs, statuses = Stats(), [], []
    for k in range(3):
        student = Student(server.url, random.Random(k), stats, timeout=600)
        await student.connect("your_data")
        statuses += [await put_unused(student, big), await put_unused(student, big)]
        tabs.append(student)
    late = Student(server.url, random.Random(9), stats, timeout=600)
    await late.connect("your_data")
    at_once = await put_unused(late, small)
    await asyncio.sleep(FRESH_SECONDS + 1)
    later = await put_unused(late, small)
    for student in [*tabs, late]:
        await student.close()
    return {
        "scenario": "lockout",
        "big_puts": statuses,
        "small_status_at_once": at_once,
        "small_status_after_fresh_seconds": later,
        "rss_mb": rss_mb(server.process.pid),
    }, stats


def run(scenario, args, folder):
    env = {"FLDA_UPLOADS_TOTAL_MB": "240" if scenario == "lockout" else "120", "FLDA_IDLE_MINUTES": "20"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    tree = Path(args.tree).resolve() if args.tree else ROOT
    try:
        server = StreamlitServer(script=tree / "app.py", cwd=tree, log_path=folder / f"{scenario}.log")
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    try:
        time.sleep(2)
        if scenario == "csv":
            coro = csv_scenario(server, args.sessions or 5, args.csv_mb, folder)
        else:
            coro = lockout_scenario(server, folder)
        report, stats = asyncio.run(coro)
        report["errors"] = stats.errors[:5]
        return report
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("csv", "lockout", "all"), default="all")
    parser.add_argument("--sessions", type=int, default=0)
    parser.add_argument("--csv-mb", type=float, default=35.0)
    parser.add_argument("--tree", default="", help="another checkout whose app.py to serve")
    args = parser.parse_args()
    scenarios = ("csv", "lockout") if args.scenario == "all" else (args.scenario,)
    reports = []
    with tempfile.TemporaryDirectory(prefix="flda-memory-") as tmp:
        for scenario in scenarios:
            reports.append(run(scenario, args, Path(tmp)))
            print(json.dumps(reports[-1]), flush=True)
    print(json.dumps(reports))


if __name__ == "__main__":
    main()
