"""Read uploaded NumPy ``.npz`` archives without trusting them.

``numpy.load`` decompresses a member completely before anyone can look at its
shape, so a 2 MB archive whose member inflates to gigabytes exhausts the
server's memory before a size check runs.  :func:`read_npz` instead opens
each wanted member as a stream, reads only its ``.npy`` header
(:func:`numpy.lib.format.read_magic`, ``read_array_header_1_0`` /
``read_array_header_2_0``) and refuses dtypes and shapes beyond the caller's
limits *before* a single data byte is decompressed.  The data are then read
with ``allow_pickle=False``; since the header fixes how many bytes are read,
memory is bounded by the checked shape whatever the archive claims.

A plain ``.npy`` file (one array, the ``\\x93NUMPY`` magic) is refused with a
clear message: it cannot hold images *and* labels, and guessing which column
is the label would silently train on the wrong thing.

Every problem raises :class:`~explorer.data.tabular.DataValidationError`
with a message naming the file (and member) and a hint on how to fix it.
"""

from __future__ import annotations

import io
import math
import zipfile
import zlib
from dataclasses import dataclass

from numpy.lib import format as npy_format

from explorer.errors import DataValidationError

__all__ = [
    "NPY_MAGIC",
    "ZIP_MAGIC",
    "MAX_MEMBERS",
    "MAX_LABEL_CHARS",
    "ArraySpec",
    "looks_like_npy",
    "looks_like_zip",
    "pick",
    "read_npz",
]

#: First bytes of a ``.npy`` file.
NPY_MAGIC = npy_format.MAGIC_PREFIX
#: First bytes of a ZIP archive (an ``.npz`` is one); an empty archive starts with
#: its end-of-central-directory record.
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: Most members an uploaded archive may list (``numpy.savez`` of images and
#: labels writes two); checked from the end record before the directory is parsed.
MAX_MEMBERS = 64
#: Longest label text accepted (characters).
MAX_LABEL_CHARS = 256
#: Largest ``.npy`` header read (numpy's own default).
_MAX_HEADER = 10_000
_SAVE_HINT = "Save it with numpy.savez(file, X=images, y=labels)."


@dataclass(frozen=True)
class ArraySpec:
    """What one array of an archive must look like.

    Attributes
    ----------
    role : str
        Word used in messages, e.g. ``"image"`` or ``"label"``.
    names : tuple of str
        Member names accepted (case-insensitive, without ``.npy``); the first
        present is used.
    kinds : str
        Accepted ``dtype.kind`` letters (``"iufb"`` numbers, ``"US"`` text).
    ndims : tuple of int
        Accepted numbers of dimensions.
    max_rows : int
        Most entries along the first axis (images / labels).
    max_row_size : int
        Most values per entry (product of the other axes).
    """

    role: str
    names: tuple
    kinds: str
    ndims: tuple
    max_rows: int
    max_row_size: int = 1


def looks_like_npy(raw):
    """True if ``raw`` starts like a single ``.npy`` array."""
    return bytes(raw[: len(NPY_MAGIC)]) == NPY_MAGIC


def looks_like_zip(raw):
    """True if ``raw`` starts like a ZIP archive (``.npz``, ``.xlsx``, ...)."""
    return bytes(raw[:4]) in ZIP_MAGIC


def _member_count(raw):
    """Entries announced by the ZIP end record, or None if there is none."""
    tail = raw[-(22 + 65_535) :]
    position = tail.rfind(b"PK\x05\x06")
    if position < 0 or position + 22 > len(tail):
        return None
    return int.from_bytes(tail[position + 10 : position + 12], "little")


def _members(archive):
    """``{key: ZipInfo}`` with ``numpy.load``'s keys (member name without ``.npy``)."""
    members = {}
    for info in archive.infolist():
        key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        members[key] = info
    return members


def pick(names, wanted):
    """The first of ``wanted`` among ``names``, compared case-insensitively without
    surrounding spaces (as named in ``names``), or ``None``."""
    lookup = {str(name).strip().lower(): name for name in names}
    return next((lookup[w.lower()] for w in wanted if w.lower() in lookup), None)


def _read_header(archive, info, where):
    """``(shape, fortran_order, dtype)`` of one member, reading only its header."""
    with archive.open(info) as stream:
        try:
            version = npy_format.read_magic(stream)
        except ValueError:
            raise DataValidationError(
                f"{where} is not a NumPy array (it does not start with the .npy header).", _SAVE_HINT
            ) from None
        readers = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}
        if version not in readers:
            raise DataValidationError(
                f"{where} uses .npy format version {version[0]}.{version[1]}, which is not read here.",
                "Save plain numeric arrays with numpy.savez.",
            )
        try:
            return readers[version](stream, max_header_size=_MAX_HEADER)
        except (ValueError, TypeError, SyntaxError) as error:
            raise DataValidationError(f"{where} has a broken .npy header ({error}).", _SAVE_HINT) from None


def _check_header(spec, shape, dtype, where):
    """Refuse a dtype or shape before anything is decompressed; returns float64 bytes."""
    if dtype.hasobject:
        raise DataValidationError(
            f"{where} stores Python objects, which are not read for safety.",
            "Save plain numeric arrays (numpy.savez with numbers/strings, no objects).",
        )
    if dtype.names is not None or dtype.subdtype is not None:
        raise DataValidationError(
            f"{where} is a structured (record) array with fields {list(dtype.names or [])}, "
            f"not plain {spec.role}s.",
            f"Store the {spec.role}s as a plain array, e.g. y=labels['digit'] before saving.",
        )
    if dtype.kind == "c":
        raise DataValidationError(
            f"{where} holds complex numbers ({dtype}).",
            f"Store real {spec.role} values (e.g. numpy.abs or .real).",
        )
    if dtype.kind not in spec.kinds:
        wanted = "numbers" if set(spec.kinds) <= set("iufb") else "numbers or text"
        raise DataValidationError(
            f"The {spec.role}s in {where} are of type {dtype}, not {wanted}.",
            f"Store {spec.role}s as {wanted}.",
        )
    if dtype.kind in "US" and dtype.itemsize // (4 if dtype.kind == "U" else 1) > MAX_LABEL_CHARS:
        raise DataValidationError(
            f"The {spec.role}s in {where} are text of up to {dtype.itemsize:,} bytes.",
            f"Use short class names (at most {MAX_LABEL_CHARS} characters).",
        )
    if len(shape) == 0:
        raise DataValidationError(
            f"{where} holds a single value (a 0-d array), not one {spec.role} per image.",
            f"Store one {spec.role} per image: an array of shape (n_images,).",
        )
    if len(shape) not in spec.ndims:
        expected = " or ".join(f"{d}-D" for d in spec.ndims)
        raise DataValidationError(
            f"The {spec.role} array in {where} has shape {shape}; a {expected} array is expected.",
            "Use shape (n_images,) for labels and (n_images, side * side) or "
            "(n_images, side, side) for images.",
        )
    if shape[0] == 0:
        raise DataValidationError(
            f"{where} holds no {spec.role}s (shape {shape}).", "Upload a file with images in it."
        )
    if shape[0] > spec.max_rows:
        raise DataValidationError(
            f"{where} holds {shape[0]:,} {spec.role}s; the limit is {spec.max_rows:,}.",
            "Upload a random subsample.",
        )
    row_size = math.prod(shape[1:])
    if row_size > spec.max_row_size:
        raise DataValidationError(
            f"Each entry of {where} has {row_size:,} values (shape {shape}); the limit is "
            f"{spec.max_row_size:,}.",
            "Resize the images (the paper uses 16 x 16) before uploading.",
        )
    return math.prod(shape) * max(8, dtype.itemsize)


def read_npz(raw, name, specs, max_bytes):
    """Read the arrays ``specs`` asks for from the bytes of an ``.npz`` file.

    Parameters
    ----------
    raw : bytes
    name : str
        File name, used in every message.
    specs : sequence of ArraySpec
    max_bytes : int
        Most bytes all requested arrays may take once read *and* converted to
        float64 (text labels: their own size); checked from the headers,
        before decompressing.

    Returns
    -------
    list of ndarray
        One array per spec, in order, exactly as stored (no conversion).

    Raises
    ------
    DataValidationError
        Not a ZIP archive, a single ``.npy``, too many members, a wanted array
        missing, not an array, objects, structured or complex dtypes, a
        0-d/empty/oversized array, a truncated or corrupt member.
    """
    raw = bytes(raw)
    if looks_like_npy(raw):
        raise DataValidationError(
            f"{name} is a single NumPy array (a .npy file), which cannot hold both the "
            "images and their labels.",
            "Save images and labels together: numpy.savez('digits.npz', X=images, y=labels).",
        )
    count = _member_count(raw) if looks_like_zip(raw) else None
    if count is None:
        raise DataValidationError(f"{name} is not a readable NPZ file (it is not a ZIP archive).", _SAVE_HINT)
    if count > MAX_MEMBERS:
        raise DataValidationError(
            f"{name} lists {count:,} arrays; the limit is {MAX_MEMBERS}.",
            "Save only the images and the labels.",
        )
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return _read_members(archive, name, specs, max_bytes)
    except DataValidationError:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as error:
        # Corrupt or truncated data, unknown compression, encrypted members.
        raise DataValidationError(f"{name} is not a readable NPZ file ({error}).", _SAVE_HINT) from None


def _read_members(archive, name, specs, max_bytes):
    members = _members(archive)
    keys = [pick(members, spec.names) for spec in specs]
    if any(key is None for key in keys):
        wanted = " and ".join(
            f"{'an' if s.role[:1] in 'aeiou' else 'a'} {s.role} array ({', '.join(s.names)})" for s in specs
        )
        raise DataValidationError(
            f"{name} holds the arrays {sorted(members)}; {wanted} are needed.", _SAVE_HINT
        )
    headers, total = [], 0
    for spec, key in zip(specs, keys):
        where = f"array '{key}' of {name}"
        shape, fortran, dtype = _read_header(archive, members[key], where)
        total += _check_header(spec, shape, dtype, where)
        headers.append((shape, dtype, where))
    if total > max_bytes:
        raise DataValidationError(
            f"{name} would take {total / 2**20:,.0f} MB of memory once read; the limit is "
            f"{max_bytes / 2**20:,.0f} MB.",
            "Upload fewer or smaller images.",
        )
    arrays = []
    for key, (_, _, where) in zip(keys, headers):
        with archive.open(members[key]) as stream:
            try:
                array = npy_format.read_array(stream, allow_pickle=False, max_header_size=_MAX_HEADER)
            except ValueError as error:
                raise DataValidationError(f"{where} is truncated or corrupt ({error}).", _SAVE_HINT) from None
        arrays.append(array)
    return arrays
