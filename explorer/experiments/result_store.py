"""A small on-disk store of computed results, as JSON files (never pickle).

Used by :mod:`explorer.experiments.missing_data` and
:mod:`explorer.experiments.digits` so that the cells of the paper's Table 3
and the fits of Table 4 survive a server restart.  One file per result, named by a
hash of its key and of a *fingerprint* of everything that produced it (the
source files, the data files, the versions of the numerical libraries): a
change of code, data or library gives other file names, so an upgrade never
serves numbers the current code would not compute.

* Writes are atomic: a temporary file in the same folder, then ``os.replace``.
* Reads are validated: only a regular file is read, opened once and read up to
  :data:`MAX_FILE_BYTES` (:func:`explorer.data.files.read_regular_file`: a FIFO,
  a device such as ``/dev/zero`` or a symlink neither blocks nor grows memory); a
  file that is too large, not JSON, of another format, key or fingerprint is
  ignored (the caller recomputes), never an exception.
* The folder is bounded: beyond ``max_files`` results the oldest are removed, and
  only the store's own files (named as :meth:`ResultStore.path` names them, holding
  :data:`FORMAT`): another program's ``*.json`` in the folder is never deleted.
* A folder that cannot be written (read-only, full disk) only means nothing is
  kept: :meth:`ResultStore.put` returns False.
* :meth:`ResultStore.load_or_compute` reads a result or computes and writes it,
  one thread of one process at a time per file (a thread lock, then ``fcntl.flock``
  on a lock file next to the result): a background warm-up and a page, or the
  several Streamlit processes of ``deploy/serve.sh``, never compute the same
  result twice at once.  Pruning removes a lock file with its result only while no
  process holds it, and a process that locked a file removed meanwhile locks the one
  now at that path.
* Arrays are kept exactly, as the base64 text of their bytes
  (:func:`encode_array`, :func:`decode_array`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import json
import os
import re
import sys
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, UTC
from importlib import metadata
from pathlib import Path

import numpy as np

import flda_core
from explorer.data.files import read_regular_file

__all__ = [
    "FORMAT",
    "MAX_FILE_BYTES",
    "MAX_FILES",
    "PACKAGES",
    "ResultStore",
    "Loaded",
    "fingerprint",
    "core_files",
    "source_name",
    "SOURCE_ROOTS",
    "utc_now",
    "encode_array",
    "decode_array",
]

#: The ``format`` field of every file: files of any other format are ignored.
FORMAT = "flda-result/1"
#: Files larger than this are not read (no result here is more than a few kB).
MAX_FILE_BYTES = 64 * 1024
#: At most this many results are kept per folder (the oldest go first).
MAX_FILES = 2000
#: The names :meth:`ResultStore.path` gives (40 hex digits): pruning touches no other file.
_OWN_NAME = re.compile(r"[0-9a-f]{40}\.json")
#: The libraries whose versions enter the fingerprints of the experiments' stores.
PACKAGES = ("numpy", "scipy", "scikit-learn", "skada", "pandas", "threadpoolctl")
#: The folders of the two packages whose code a stored result may depend on: the
#: library ``flda_core`` (wherever it is installed) and this package, ``explorer``.
SOURCE_ROOTS = (Path(flda_core.__file__).resolve().parent, Path(__file__).resolve().parents[1])
#: The parts of ``explorer`` a result may depend on (the figures, captions and
#: Streamlit code may change without invalidating a stored number).
_RESULT_PARTS = ("data", "experiments")


def utc_now():
    """The current time as ``"YYYY-MM-DD HH:MM UTC"``."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def fingerprint(files, packages=()):
    """A hex digest of the contents of ``files`` and the versions of ``packages``.

    Parameters
    ----------
    files : iterable of path-like
        Every file whose content determines the result (source code, data).
        Their names (:func:`source_name`) enter the digest too.
    packages : iterable of str
        Distribution names (``"scikit-learn"``); a missing one counts as ``"absent"``.
    """
    digest = hashlib.sha256()
    for path in sorted(Path(f) for f in files):
        name = source_name(path)
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for package in sorted(packages):
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{package}=={version}\0".encode())
    digest.update(f"python {sys.version_info[0]}.{sys.version_info[1]}".encode())
    return digest.hexdigest()


def core_files():
    """Every source file a stored result may depend on: all of ``flda_core`` (the
    method), and of ``explorer`` its top-level modules, the data readers and the
    experiments and baselines (not the figures, the teaching texts or the UI)."""
    library, app = SOURCE_ROOTS
    files = set(library.rglob("*.py")) | set(app.glob("*.py"))
    for part in _RESULT_PARTS:
        files |= set((app / part).rglob("*.py"))
    return sorted(files)


def source_name(path):
    """``path`` as ``package/…/file.py`` when it lies in one of :data:`SOURCE_ROOTS`,
    else its file name (a data file)."""
    path = Path(path).resolve()
    for root in SOURCE_ROOTS:
        if path.is_relative_to(root):
            return f"{root.name}/{path.relative_to(root).as_posix()}"
    return path.name


#: Array element types :func:`encode_array` keeps (booleans, integers, floats).
_ARRAY_KINDS = "biuf"


def encode_array(array):
    """A JSON-ready dict holding ``array`` exactly (dtype, shape, base64 of its bytes).

    Raises ``TypeError`` for arrays of other element types (strings, objects).
    """
    array = np.asarray(array)
    if array.dtype.kind not in _ARRAY_KINDS:
        raise TypeError(f"Arrays of dtype {array.dtype} are not stored.")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return {
        "dtype": little.dtype.str,
        "shape": list(array.shape),
        "data": base64.b64encode(np.ascontiguousarray(little).tobytes()).decode("ascii"),
    }


def decode_array(value):
    """The array :func:`encode_array` wrote; ``ValueError`` for anything malformed."""
    if not isinstance(value, dict) or set(value) != {"dtype", "shape", "data"}:
        raise ValueError("not an encoded array")
    shape, data = value["shape"], value["data"]
    if not (
        isinstance(shape, list)
        and all(type(n) is int and n >= 0 for n in shape)
        and isinstance(data, str)
        and isinstance(value["dtype"], str)
    ):
        raise ValueError("not an encoded array")
    try:
        dtype = np.dtype(value["dtype"])
        raw = base64.b64decode(data.encode("ascii"), validate=True)
    except (TypeError, binascii.Error, UnicodeEncodeError) as error:
        raise ValueError("not an encoded array") from error
    if dtype.kind not in _ARRAY_KINDS or len(raw) != dtype.itemsize * int(np.prod(shape)):
        raise ValueError("not an encoded array")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


@dataclass(frozen=True)
class Loaded:
    """What :meth:`ResultStore.load_or_compute` returns.

    Attributes
    ----------
    value
        The result (read from disk or computed).
    computed_at : str
        When it was computed (``"YYYY-MM-DD HH:MM UTC"``).
    from_disk : bool
        True when it was read from the store.
    saved : bool
        True when it is in the store (read from it, or written to it).
    """

    value: object
    computed_at: str
    from_disk: bool
    saved: bool


_LOCKS_GUARD = threading.Lock()
_LOCKS = {}


class ResultStore:
    """JSON results in ``directory``, one file per key, valid for one ``fingerprint``.

    Parameters
    ----------
    directory : path-like
        Created on the first :meth:`put`.
    fingerprint : str
        See :func:`fingerprint`; files written under another one are never read.
    max_files : int
        Bound on the number of result files in ``directory``.
    """

    def __init__(self, directory, fingerprint, max_files=MAX_FILES):
        self.directory = Path(directory)
        self.fingerprint = str(fingerprint)
        self.max_files = int(max_files)

    def path(self, key):
        """The file of ``key`` (a JSON-serialisable dict of str/int/float/bool)."""
        name = hashlib.sha256(
            _canonical({"key": key, "fingerprint": self.fingerprint}).encode("utf-8")
        ).hexdigest()[:40]
        return self.directory / f"{name}.json"

    def lock(self, key):
        """The lock of ``key``'s file, one per file path in the process (shared by every
        store object on the same folder)."""
        with _LOCKS_GUARD:
            return _LOCKS.setdefault(str(self.path(key)), threading.Lock())

    def lock_path(self, key):
        """The lock file of ``key``'s result (hidden, next to it; removed with it by
        :meth:`prune` when no process holds it)."""
        path = self.path(key)
        return path.with_name(f".{path.stem}.lock")

    @contextlib.contextmanager
    def process_lock(self, key):
        """Hold ``fcntl.flock`` on :meth:`lock_path` (every process on this machine
        waits for it); a folder that cannot be written only means no lock.

        :meth:`prune` may remove a lock file (never one that is held) while this waits
        on it: the lock taken is then on a file no other process opens, so it is
        checked to still be the file at :meth:`lock_path` and taken again if not.
        """
        path = self.lock_path(key)
        handle = None
        try:
            for _ in range(_LOCK_ATTEMPTS):
                try:
                    self.directory.mkdir(parents=True, exist_ok=True)
                    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                except OSError:
                    handle = None
                    break
                fcntl.flock(handle, fcntl.LOCK_EX)
                if _same_file(handle, path):
                    break
                os.close(handle)  # removed meanwhile: lock the file there now
                handle = None
            yield
        finally:
            if handle is not None:
                os.close(handle)  # releases the lock

    def load_or_compute(self, key, compute, to_json, from_json):
        """The result of ``key``: read from disk when stored, else ``compute()`` and write.

        Holds :meth:`lock` and :meth:`process_lock` meanwhile, so another thread or
        process asking for the same ``key`` waits and reads this one's file instead of
        computing it again.

        Parameters
        ----------
        key : dict
            As :meth:`get`.
        compute : callable() -> result
        to_json : callable(result) -> dict
            The stored form (JSON-serialisable, no NaN).  Raising ``TypeError`` or
            ``ValueError`` means "do not store this one".
        from_json : callable(dict) -> result or None
            Rebuilds the result from the stored form; None, ``TypeError``,
            ``ValueError`` or ``KeyError`` mean a malformed file: the result is
            computed again and the file rewritten.

        Returns
        -------
        Loaded
        """
        with self.lock(key), self.process_lock(key):
            record = self.get(key)
            if record is not None:
                try:
                    value = from_json(record["value"])
                except (TypeError, ValueError, KeyError):
                    value = None
                if value is not None:
                    return Loaded(value, record["computed_at"], from_disk=True, saved=True)
            value = compute()
            computed_at = utc_now()
            try:
                saved = self.put(key, to_json(value), computed_at)
            except (TypeError, ValueError):  # not storable (e.g. NaN, strings)
                saved = False
            return Loaded(value, computed_at, from_disk=False, saved=saved)

    def get(self, key):
        """``{"value": ..., "computed_at": ...}`` stored for ``key``, or None when there
        is none or the file is unreadable, corrupt, foreign or from another fingerprint."""
        record = _read_record(self.path(key))
        if record is None:
            return None
        if record.get("fingerprint") != self.fingerprint:
            return None
        try:
            same_key = _canonical(record.get("key")) == _canonical(key)
        except (TypeError, ValueError):
            return None
        if (
            not same_key
            or not isinstance(record.get("value"), dict)
            or not isinstance(record.get("computed_at"), str)
        ):
            return None
        return {"value": record["value"], "computed_at": record["computed_at"]}

    def put(self, key, value, computed_at=None):
        """Store ``value`` (a JSON-serialisable dict, no NaN) for ``key``, atomically.

        Returns True when the file was written, False when the folder cannot be written.
        """
        record = {
            "format": FORMAT,
            "key": key,
            "fingerprint": self.fingerprint,
            "computed_at": computed_at or utc_now(),
            "value": value,
        }
        text = json.dumps(record, sort_keys=True, allow_nan=False, indent=1)
        target = self.path(key)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return False
        self.prune()
        return True

    def prune(self):
        """Remove the oldest result files beyond ``max_files``.

        Only the store's own files count and go: regular files named as :meth:`path`
        names them, and of those only one that holds a record of :data:`FORMAT` is
        deleted (another program's file in the folder is left alone).
        """
        try:
            files = [
                (entry.stat(follow_symlinks=False).st_mtime, entry.path)
                for entry in os.scandir(self.directory)
                if _OWN_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
            ]
        except OSError:
            return
        for _, path in sorted(files)[: max(0, len(files) - self.max_files)]:
            if _read_record(path) is None:
                continue
            path = Path(path)
            with contextlib.suppress(OSError):
                os.unlink(path)
            _unlink_unless_held(path.with_name(f".{path.stem}.lock"))


#: Times :meth:`ResultStore.process_lock` takes a lock file that :meth:`ResultStore.prune`
#: removed meanwhile (each retry needs another prune of the same file: practically one).
_LOCK_ATTEMPTS = 10


def _same_file(handle, path):
    """Whether the open ``handle`` is still the file at ``path``."""
    try:
        opened, current = os.fstat(handle), os.stat(path)
    except OSError:
        return False
    return (opened.st_dev, opened.st_ino) == (current.st_dev, current.st_ino)


def _unlink_unless_held(path):
    """Remove the lock file ``path`` unless a process holds its lock (then it stays:
    removing it would let the next process lock a new file beside the holder)."""
    try:
        handle = os.open(path, os.O_RDWR)
    except OSError:
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # OSError: held, it stays
        if _same_file(handle, path):
            os.unlink(path)
    except OSError:
        pass
    finally:
        os.close(handle)


def _read_record(path):
    """The JSON record of a store file when it is a regular file of at most
    :data:`MAX_FILE_BYTES` holding a dict of :data:`FORMAT`, else None."""
    try:
        record = json.loads(read_regular_file(path, MAX_FILE_BYTES).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    return record
