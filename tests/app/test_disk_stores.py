"""Hostile disk caches: the result store and the digits cache never trust their files.

A cache entry replaced by a FIFO, a device (``/dev/zero``) or a symlink must
neither block a reader nor grow its memory; a crafted or wrong-shape cached
``.npz`` counts as not cached; pruning deletes only the store's own files; a
full disk loses nothing that was downloaded and leaves no temporary file.
"""

import errno
import json
import os
import tempfile
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.data import digits as dg
from explorer.data import files
from explorer.experiments import result_store as rs
from test_digits import _fake_fetch
from test_hostile_input import _bomb

KEY = {"data set": "heart", "seed": 0}
VALUE = {"error": 0.25}


def _within(seconds, function, *args, **kwargs):
    """``function(*args, **kwargs)`` run in a daemon thread; fails if it takes longer."""
    outcome = {}

    def run():
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # reported in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"{function.__name__} still running after {seconds} s (blocked)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def fifo_at():
    """Make a FIFO at a path; afterwards a writer opens and closes it, which releases a
    reader the code under test left blocked (so the test process can end)."""
    made = []

    def make(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    for path in made:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass


needs_dev_zero = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


# --------------------------------------------------------------------------- the reader


@needs_fifo
def test_reader_refuses_a_fifo_without_waiting_for_a_writer(tmp_path, fifo_at):
    with pytest.raises(files.UnsafeFile, match="not a regular file"):
        _within(1.0, files.read_regular_file, fifo_at(tmp_path / "x.json"), 100)


@needs_dev_zero
def test_reader_refuses_devices_symlinks_folders_and_large_files(tmp_path):
    (tmp_path / "zero").symlink_to("/dev/zero")
    with pytest.raises(OSError):  # ELOOP: a symlink is not followed
        _within(1.0, files.read_regular_file, tmp_path / "zero", 100)
    with pytest.raises(files.UnsafeFile):
        _within(1.0, files.read_regular_file, "/dev/zero", 100)
    with pytest.raises(files.UnsafeFile):
        files.read_regular_file(tmp_path, 100)
    (tmp_path / "big").write_bytes(bytes(101))
    with pytest.raises(files.UnsafeFile, match="larger than 100 bytes"):
        files.read_regular_file(tmp_path / "big", 100)
    assert files.read_regular_file(tmp_path / "big", 101) == bytes(101)
    assert not files.is_regular_file(tmp_path / "zero") and files.is_regular_file(tmp_path / "big")


# --------------------------------------------------------------------------- the result store


@needs_fifo
def test_a_fifo_in_place_of_a_store_entry_is_not_stored_within_a_second(tmp_path, fifo_at):
    store = rs.ResultStore(tmp_path, "fp")
    fifo_at(store.path(KEY))
    assert _within(1.0, store.get, KEY) is None
    loaded = _within(2.0, store.load_or_compute, KEY, lambda: VALUE, dict, dict)
    assert loaded.value == VALUE and not loaded.from_disk
    assert store.get(KEY)["value"] == VALUE  # the FIFO was replaced by the result


@needs_dev_zero
def test_dev_zero_behind_a_store_entry_is_refused_without_reading_it(tmp_path):
    store = rs.ResultStore(tmp_path, "fp")
    tmp_path.mkdir(exist_ok=True)
    store.path(KEY).symlink_to("/dev/zero")
    tracemalloc.start()
    try:
        assert _within(1.0, store.get, KEY) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < rs.MAX_FILE_BYTES * 4


def test_pruning_deletes_only_the_store_s_own_files(tmp_path):
    store = rs.ResultStore(tmp_path, "fp", max_files=2)
    foreign = {
        "notes.json": json.dumps({"mine": True}),
        # named like a store file, but not a record of the store's format
        "0" * 40 + ".json": json.dumps({"format": "someone-else/1"}),
    }
    for name, text in foreign.items():
        (tmp_path / name).write_text(text)
        os.utime(tmp_path / name, (0, 0))  # the oldest files in the folder
    for seed in range(5):
        assert store.put({**KEY, "seed": seed}, VALUE)
    for name, text in foreign.items():
        assert (tmp_path / name).read_text() == text
    own = [p for p in tmp_path.iterdir() if p.name not in foreign]
    assert len(own) == 2  # the store still keeps its own bound


def test_a_full_disk_keeps_nothing_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    store = rs.ResultStore(tmp_path, "fp")
    real_fdopen = os.fdopen

    def full_disk(handle, *args, **kwargs):
        out = real_fdopen(handle, *args, **kwargs)
        out.write = lambda text: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space"))
        return out

    monkeypatch.setattr(rs.os, "fdopen", full_disk)
    loaded = store.load_or_compute(KEY, lambda: VALUE, dict, dict)
    assert loaded.value == VALUE and not loaded.saved
    # Only the empty cross-process lock file stays (other processes may hold it; pruning
    # removes it with its result): no result and no temporary file.
    left = list(tmp_path.iterdir())
    assert [p.suffix for p in left] in ([], [".lock"])
    assert all(p.stat().st_size == 0 for p in left)


# --------------------------------------------------------------------------- the digits cache


def _load(cache_dir, calls, reachable=True):
    return dg.load_mnist_usps(
        n_mnist=100, n_usps=50, cache_dir=cache_dir, fetch=_fake_fetch(calls), reachable=lambda: reachable
    )


@needs_fifo
def test_a_fifo_in_the_digits_cache_is_downloaded_again_without_blocking(tmp_path, fifo_at):
    _load(tmp_path, [])
    (tmp_path / "usps_16x16.npz").unlink()
    fifo_at(tmp_path / "usps_16x16.npz")
    assert not dg.is_cached(tmp_path)
    calls = []
    data = _within(5.0, _load, tmp_path, calls)
    assert calls == ["usps"] and data.X_a.shape == (50, 256)
    assert dg.is_cached(tmp_path)


@needs_dev_zero
def test_dev_zero_behind_the_digits_cache_is_not_cached(tmp_path):
    _load(tmp_path, [])
    (tmp_path / "mnist_784_16x16.npz").unlink()
    (tmp_path / "mnist_784_16x16.npz").symlink_to("/dev/zero")
    assert not dg.is_cached(tmp_path)
    calls = []
    _within(5.0, _load, tmp_path, calls)
    assert calls == ["mnist_784"]


def test_a_crafted_cached_npz_is_refused_from_its_header_without_inflating_it(tmp_path):
    _load(tmp_path, [])
    # 200,000 images of 16 x 16 float32: 205 MB once inflated, ~200 kB on disk.
    (tmp_path / "mnist_784_16x16.npz").write_bytes(_bomb((200_000, 256), "<f4"))
    calls = []
    tracemalloc.start()
    try:
        _load(tmp_path, calls)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == ["mnist_784"]  # treated as not cached: downloaded again
    assert peak < 40 * 2**20


@pytest.mark.parametrize(
    "X, y",
    [
        (np.zeros((40, 100), np.float32), np.arange(40) % 10),  # not 16 x 16 images
        (np.zeros((40, 256), np.float32), np.arange(30) % 10),  # fewer labels than images
        (np.zeros((40, 16, 16), np.float32), np.arange(40) % 10),  # not flattened
    ],
    ids=["100-pixels", "30-labels", "3-d"],
)
def test_a_wrong_shape_cached_array_counts_as_not_cached(tmp_path, X, y):
    _load(tmp_path, [])
    np.savez_compressed(tmp_path / "usps_16x16.npz", X=X, y=y)
    calls = []
    data = _load(tmp_path, calls)
    assert calls == ["usps"] and data.X_a.shape == (50, 256)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400), cut=st.integers(0, 3000), flip=st.integers(0, 3000))
def test_a_corrupted_cached_npz_is_read_whole_or_downloaded_again(data, cut, flip):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        _load(folder, [])
        path = folder / "usps_16x16.npz"
        raw = bytearray(path.read_bytes())
        if flip < len(raw):
            raw[flip] ^= 0xFF
        path.write_bytes(bytes(raw[: len(raw) - cut]) + data)
        calls = []
        loaded = _load(folder, calls)  # never an exception: a broken entry is not cached
        assert calls in ([], ["usps"]) and loaded.X_a.shape == (50, 256)


def test_a_full_disk_still_returns_the_download_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    def full_disk(out, **arrays):
        if isinstance(out, (str, os.PathLike)):
            out = open(out, "wb")  # noqa: SIM115 (left open, as a crashed writer would)
        out.write(b"PK\x03\x04 partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dg.np, "savez_compressed", full_disk)
    calls = []
    data = _load(tmp_path, calls)
    assert calls == ["mnist_784", "usps"] and data.X_b.shape == (100, 256)
    assert list(tmp_path.iterdir()) == []
    assert not dg.is_cached(tmp_path)
