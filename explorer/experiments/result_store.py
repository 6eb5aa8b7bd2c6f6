"""A small on-disk store of computed results, as JSON files (never pickle), so that the
cells of the paper's tables and the fits of Table 4 survive a server restart (:func:`stored`).

One file per result, named by a hash of its key and of :func:`code_fingerprint` (code,
data and library versions), so an upgrade never serves numbers the current code would not
compute.  Results are frozen dataclasses, kept field by field (:func:`to_json`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime, UTC
from importlib import metadata
from pathlib import Path

import numpy as np

import flda_core
from explorer.data.digits import default_cache_dir
from explorer.data.files import read_regular_file, write_atomically
from explorer.registry import SAMPLE_DIR

#: The ``format`` field of every file: files of any other format are ignored.
FORMAT = "flda-result/1"
#: Files larger than this are not read (no result here is more than a few kB).
MAX_FILE_BYTES = 64 * 1024
#: At most this many results are kept per folder (the oldest go first).
MAX_FILES = 2000
#: The names :meth:`ResultStore.path` gives (40 hex digits): pruning touches no other file.
_OWN_NAME = re.compile(r"[0-9a-f]{40}\.json")
#: Lock files per folder (``.00.lock`` .. ``.ff.lock``), shared by the results whose names
#: begin with the same two hex digits.
_LOCK_NAME = ".{}.lock"
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
    """Every file a stored result may depend on: all of ``flda_core`` (the method), of
    ``explorer`` its top-level modules, the data readers and the experiments (not the
    figures, the teaching texts or the UI), and the shipped data of the paper's tables."""
    library, app = SOURCE_ROOTS
    files = set(library.rglob("*.py")) | set(app.glob("*.py"))
    for part in _RESULT_PARTS:
        files |= set((app / part).rglob("*.py"))
    return (
        sorted(files)
        + sorted((SAMPLE_DIR / "uci").glob("*.csv"))
        + sorted((SAMPLE_DIR / "paper").glob("*.mat"))
    )


@functools.lru_cache(maxsize=1)
def code_fingerprint():
    """:func:`fingerprint` of :func:`core_files` and :data:`PACKAGES`, once per process."""
    return fingerprint(core_files(), PACKAGES)


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


def _encode(value):
    if isinstance(value, np.ndarray):
        return encode_array(value)
    if isinstance(value, dict):
        return [[float(k), float(v)] for k, v in value.items()]
    if isinstance(value, tuple):
        return list(value)
    return None if isinstance(value, float) and math.isnan(value) else value


#: The JSON types of a dataclass field annotated ``str``, ``int``, ``float`` or ``bool``.
_SCALARS = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}


def _decode(kind, value):
    if kind == "np.ndarray":
        return decode_array(value)
    if kind == "dict" and isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 for p in value):
        return {_decode("float", k): _decode("float", v) for k, v in value}
    if kind == "tuple" and isinstance(value, list):
        return tuple(_decode("str", v) for v in value)
    if kind == "float" and value is None:
        return math.nan
    if type(value) in _SCALARS.get(kind, ()):
        return float(value) if kind == "float" else value
    raise ValueError(f"not a stored {kind}")


def to_json(result):
    """A dataclass as the store keeps it, field by field: arrays exactly
    (:func:`encode_array`), ``{number: number}`` dicts as pairs, tuples of strings as
    lists, NaN as null."""
    return {f.name: _encode(getattr(result, f.name)) for f in dataclasses.fields(result)}


def from_json(cls, value):
    """The ``cls`` dataclass :func:`to_json` wrote; ``ValueError`` for a missing, extra or
    mistyped field (fields annotated ``str``, ``int``, ``float``, ``bool``, ``np.ndarray``,
    ``dict`` or ``tuple``)."""
    fields = dataclasses.fields(cls)
    if not isinstance(value, dict) or set(value) != {f.name for f in fields}:
        raise ValueError(f"not a stored {cls.__name__}")
    return cls(**{f.name: _decode(f.type, value[f.name]) for f in fields})


@dataclass(frozen=True)
class Loaded:
    """What :meth:`ResultStore.load_or_compute` returns: the ``value`` (read or computed),
    when it was computed (``computed_at``, ``"YYYY-MM-DD HH:MM UTC"``), whether it was read
    from the store (``from_disk``) and whether it is in the store (``saved``)."""

    value: object
    computed_at: str
    from_disk: bool
    saved: bool


class ResultStore:
    """JSON results in ``directory``, one file per key, valid for one ``fingerprint``.

    * Writes are atomic; a folder that cannot be written only means nothing is kept.
    * Reads are validated: only a regular file of at most :data:`MAX_FILE_BYTES` is read
      (:func:`explorer.data.files.read_regular_file`); a file that is not JSON, of
      another format, key or fingerprint is ignored (the caller recomputes).
    * Beyond ``max_files`` results the oldest are removed, only the store's own files.

    Parameters
    ----------
    directory : path-like
        Created on the first :meth:`put`.
    fingerprint : str, optional
        See :func:`fingerprint` (default :func:`code_fingerprint`); files written under
        another one are never read.
    max_files : int
        Bound on the number of result files in ``directory``.
    """

    def __init__(self, directory, fingerprint=None, max_files=MAX_FILES):
        self.directory = Path(directory)
        self.fingerprint = code_fingerprint() if fingerprint is None else str(fingerprint)
        self.max_files = int(max_files)

    def path(self, key):
        """The file of ``key`` (a JSON-serialisable dict of str/int/float/bool)."""
        name = hashlib.sha256(
            _canonical({"key": key, "fingerprint": self.fingerprint}).encode("utf-8")
        ).hexdigest()[:40]
        return self.directory / f"{name}.json"

    @contextlib.contextmanager
    def process_lock(self, key):
        """Hold ``fcntl.flock`` on the lock file of ``key`` (one of 256 hidden files of the
        folder, shared by the keys whose file names begin alike): every other thread and
        process on this machine waits for it; a folder that cannot be written only means
        no lock.  The lock files are never removed (removing a held one would let the next
        process lock a new file beside the holder)."""
        handle = None
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            handle = os.open(
                self.directory / _LOCK_NAME.format(self.path(key).name[:2]), os.O_RDWR | os.O_CREAT, 0o644
            )
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if handle is not None:
                os.close(handle)  # releases the lock

    def load_or_compute(self, key, compute, to_json, from_json):
        """The result of ``key``: read from disk when stored, else ``compute()`` and write.

        Holds :meth:`process_lock` meanwhile, so another thread or process asking for the
        same ``key`` waits and reads this one's file instead of computing it again.

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
        with self.process_lock(key):
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
        if record is None or record.get("fingerprint") != self.fingerprint:
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
        text = json.dumps(record, sort_keys=True, allow_nan=False, indent=1).encode("utf-8")
        if not write_atomically(self.path(key), lambda out: out.write(text)):
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
            if _read_record(path) is not None:
                with contextlib.suppress(OSError):
                    os.unlink(path)


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


def stored(name, key, compute, cls, check=None, store=None, max_files=MAX_FILES):
    """``compute()``, a ``cls`` dataclass, kept in ``store`` (default: the folder ``name``
    of ``$FLDA_CACHE_DIR``, ``~/.cache/flda/<name>``, under :func:`code_fingerprint`): read
    when this code computed it before and ``check(result)`` holds, else computed and
    written (:meth:`ResultStore.load_or_compute`).

    Returns
    -------
    Loaded
    """
    store = ResultStore(default_cache_dir() / name, max_files=max_files) if store is None else store

    def read(value):
        result = from_json(cls, value)
        return result if check is None or check(result) else None

    return store.load_or_compute(key, compute, to_json, read)
