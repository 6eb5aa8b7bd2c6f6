"""The on-disk JSON store of computed results (explorer.experiments.result_store)."""

import base64
import json
import os

import numpy as np
import pytest

from explorer.experiments import result_store as rs

KEY = {"data set": "heart", "classifier": "FLDA-L", "seed": 0}
VALUE = {
    "error": 0.1 + 0.2,
    "third": 1 / 3,
    "tiny": 5e-324,
    "n": 621,
    "text": "l2=0.01 θ̂",
    "none": None,
    "flag": True,
    "list": [1.5, 2],
}


def json_files(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".json"))


def test_round_trip_is_exact_and_keys_are_separate(tmp_path):
    store = rs.ResultStore(tmp_path, "fp1")
    assert store.get(KEY) is None
    assert store.put(KEY, VALUE, computed_at="2026-11-26 05:40 UTC")
    record = store.get(KEY)
    assert record == {"value": VALUE, "computed_at": "2026-11-26 05:40 UTC"}
    assert record["value"]["error"] == 0.1 + 0.2 and record["value"]["third"] == 1 / 3
    assert store.get({**KEY, "seed": 1}) is None  # another cell
    # a new store object on the same folder (a restarted server) reads it back
    assert rs.ResultStore(tmp_path, "fp1").get(KEY)["value"] == VALUE
    # plain JSON on disk, one file per result
    (name,) = json_files(tmp_path)
    assert json.loads((tmp_path / name).read_text())["value"] == VALUE


def test_a_changed_fingerprint_misses(tmp_path):
    rs.ResultStore(tmp_path, "old code").put(KEY, VALUE)
    assert rs.ResultStore(tmp_path, "new code").get(KEY) is None
    # even a file renamed into the new name is refused: its fingerprint field says old
    old, new = rs.ResultStore(tmp_path, "old code"), rs.ResultStore(tmp_path, "new code")
    os.replace(old.path(KEY), new.path(KEY))
    assert new.get(KEY) is None


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b'"text"',
        b"null",
        json.dumps({"format": "something-else/1"}).encode(),
    ],
)
def test_corrupt_or_foreign_files_are_ignored(tmp_path, content):
    store = rs.ResultStore(tmp_path, "fp")
    store.directory.mkdir(exist_ok=True)
    store.path(KEY).write_bytes(content)
    assert store.get(KEY) is None
    assert store.put(KEY, VALUE)  # and overwritten by the recomputed value
    assert store.get(KEY)["value"] == VALUE


def test_a_file_for_another_key_or_with_broken_fields_is_ignored(tmp_path):
    store = rs.ResultStore(tmp_path, "fp")
    store.put({**KEY, "seed": 5}, VALUE)
    os.replace(store.path({**KEY, "seed": 5}), store.path(KEY))
    assert store.get(KEY) is None
    record = {"format": rs.FORMAT, "key": KEY, "fingerprint": "fp", "computed_at": 3, "value": VALUE}
    store.path(KEY).write_text(json.dumps(record))
    assert store.get(KEY) is None
    store.path(KEY).write_text(json.dumps({**record, "computed_at": "x", "value": [1]}))
    assert store.get(KEY) is None


def test_oversized_files_are_not_read(tmp_path):
    store = rs.ResultStore(tmp_path, "fp")
    assert store.put(KEY, {"blob": "x" * (rs.MAX_FILE_BYTES + 10)})
    assert store.get(KEY) is None


def test_write_is_atomic_a_failed_replace_keeps_the_old_file(tmp_path, monkeypatch):
    store = rs.ResultStore(tmp_path, "fp")
    store.put(KEY, {"v": 1})
    before = store.path(KEY).read_bytes()

    def broken_replace(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(rs.os, "replace", broken_replace)
    assert store.put(KEY, {"v": 2}) is False
    assert store.path(KEY).read_bytes() == before  # the target was never written in place
    assert store.get(KEY)["value"] == {"v": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == [store.path(KEY).name]  # no temp left


def test_unwritable_folder_means_nothing_is_kept(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    store = rs.ResultStore(blocker / "store", "fp")
    assert store.put(KEY, VALUE) is False
    assert store.get(KEY) is None


def test_nan_is_refused_so_files_stay_strict_json(tmp_path):
    with pytest.raises(ValueError):
        rs.ResultStore(tmp_path, "fp").put(KEY, {"error": float("nan")})


def test_the_folder_is_bounded_oldest_go_first(tmp_path):
    store = rs.ResultStore(tmp_path, "fp", max_files=3)
    for seed in range(5):
        store.put({**KEY, "seed": seed}, {"seed": seed})
        os.utime(store.path({**KEY, "seed": seed}), (1000 + seed, 1000 + seed))
    store.prune()
    assert len(json_files(tmp_path)) == 3
    assert [store.get({**KEY, "seed": s}) is not None for s in range(5)] == [False, False, True, True, True]


def _held_elsewhere(path):
    """Whether another open file description holds the lock of the file at ``path``."""
    import fcntl

    handle = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(handle)


def test_lock_files_are_bounded_and_held_while_computing(tmp_path):
    """One lock file per two leading hex digits of a result's file name (at most 256 per
    folder), never removed with a result: removing a held one would let the next process
    lock a new file beside the holder (deploy/serve.sh's processes computing the same
    result twice at once)."""
    store = rs.ResultStore(tmp_path, "fp", max_files=1)
    keys = [{**KEY, "seed": seed} for seed in range(40)]
    for seed, key in enumerate(keys):
        lock = tmp_path / f".{store.path(key).name[:2]}.lock"
        with store.process_lock(key):
            assert _held_elsewhere(lock)
            store.put(key, {"seed": seed})
        assert not _held_elsewhere(lock)
    locks = [p for p in tmp_path.iterdir() if p.name.endswith(".lock")]
    assert len(locks) == len({store.path(key).name[:2] for key in keys}) and len(json_files(tmp_path)) == 1


def test_fingerprint_follows_file_contents_names_and_versions(tmp_path, monkeypatch):
    code, data = tmp_path / "code.py", tmp_path / "data.csv"
    code.write_text("x = 1\n")
    data.write_text("a,b\n1,2\n")
    first = rs.fingerprint([code, data], ["numpy"])
    assert first == rs.fingerprint([data, code], ["numpy"])  # order-free
    code.write_text("x = 2\n")
    assert rs.fingerprint([code, data], ["numpy"]) != first
    code.write_text("x = 1\n")
    assert rs.fingerprint([code, data], ["numpy"]) == first
    monkeypatch.setattr(rs.metadata, "version", lambda name: "999.0")
    assert rs.fingerprint([code, data], ["numpy"]) != first


@pytest.mark.parametrize(
    "array",
    [
        np.arange(12, dtype=np.float64).reshape(3, 4) / 7,
        np.array([5e-324, -0.0, 1e308]),
        np.arange(10, dtype=np.int64),
        np.array([True, False]),
        np.zeros((0, 3), np.float32),
        np.array([1.5, 2.5], dtype=">f8"),
    ],
)
def test_arrays_round_trip_bit_for_bit(array):
    back = rs.decode_array(json.loads(json.dumps(rs.encode_array(array))))
    assert back.shape == array.shape and back.dtype == array.dtype.newbyteorder("=")
    assert back.tobytes() == array.astype(back.dtype).tobytes()
    assert back.flags.writeable


@pytest.mark.parametrize(
    "value",
    [
        [1, 2],
        {"dtype": "<f8", "shape": [2]},
        {"dtype": "<f8", "shape": [3], "data": base64.b64encode(b"\0" * 16).decode()},
        {"dtype": "|O", "shape": [1], "data": base64.b64encode(b"\0" * 8).decode()},
        {"dtype": "<f8", "shape": [-1], "data": ""},
        {"dtype": "<f8", "shape": [1], "data": "@@"},
        {"dtype": "no such type", "shape": [1], "data": ""},
    ],
)
def test_malformed_arrays_are_refused(value):
    with pytest.raises(ValueError):
        rs.decode_array(value)


def test_strings_are_not_encoded():
    with pytest.raises(TypeError):
        rs.encode_array(np.array(["a", "b"]))


def test_load_or_compute_reads_back_and_recomputes_what_it_cannot_read(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"n": len(calls)}

    def from_json(value):
        return value if value.get("n", 0) > 0 else None

    store = rs.ResultStore(tmp_path, "fp")
    first = store.load_or_compute(KEY, compute, dict, from_json)
    assert first.value == {"n": 1} and first.saved and not first.from_disk
    again = rs.ResultStore(tmp_path, "fp").load_or_compute(KEY, compute, dict, from_json)
    assert again.value == {"n": 1} and again.from_disk and again.computed_at == first.computed_at
    store.put(KEY, {"n": -1})  # readable JSON its reader refuses: computed again, rewritten
    assert store.load_or_compute(KEY, compute, dict, from_json).value == {"n": 2}
    assert store.get(KEY)["value"] == {"n": 2} and len(calls) == 2
    # a result that cannot be stored is still returned
    nan = store.load_or_compute({**KEY, "seed": 9}, lambda: {"n": float("nan")}, dict, from_json)
    assert np.isnan(nan.value["n"]) and not nan.saved


def test_load_or_compute_computes_once_when_two_threads_ask_at_once(tmp_path):
    import threading
    import time

    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.2)
        return {"n": 1}

    results = []
    threads = [
        threading.Thread(
            target=lambda: results.append(
                rs.ResultStore(tmp_path, "fp").load_or_compute(KEY, compute, dict, dict)
            )
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and sorted(r.from_disk for r in results) == [False, True]


_CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from explorer.experiments import result_store as rs

folder, log, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
key = {"data set": "heart", "classifier": "FLDA-L", "seed": 0}

def compute():
    with open(log, "a") as out:
        out.write(name + "\\n")
    # Hold the lock until the other process has asked for the same result.
    for _ in range(600):
        if (folder.parent / "other-asked").exists():
            break
        time.sleep(0.01)
    time.sleep(0.3)
    return {"n": 1, "by": name}

(folder.parent / ("asked-" + name)).touch()
if name == "second":
    (folder.parent / "other-asked").touch()
loaded = rs.ResultStore(folder, "fp").load_or_compute(key, compute, dict, dict)
print(json.dumps({"from_disk": loaded.from_disk, "value": loaded.value}))
"""


def test_load_or_compute_computes_once_when_two_processes_ask_at_once(tmp_path):
    """Two processes (as deploy/serve.sh runs) asking for the same result: one computes
    it, the other waits on the lock file and reads it."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    folder, log = tmp_path / "store", tmp_path / "computed.log"
    run = [sys.executable, "-c", _CHILD, str(folder), str(log)]
    first = subprocess.Popen([*run, "first", str(root)], stdout=subprocess.PIPE, text=True)
    for _ in range(3000):  # until the first one computes (bounded: 30 s)
        if log.exists() or first.poll() is not None:
            break
        time.sleep(0.01)
    second = subprocess.Popen([*run, "second", str(root)], stdout=subprocess.PIPE, text=True)
    outputs = [json.loads(p.communicate(timeout=120)[0]) for p in (first, second)]
    assert log.read_text().split() == ["first"]
    assert [o["from_disk"] for o in outputs] == [False, True]
    assert outputs[0]["value"] == outputs[1]["value"] == {"n": 1, "by": "first"}
    assert json_files(folder) and any(p.name.endswith(".lock") for p in folder.iterdir())
