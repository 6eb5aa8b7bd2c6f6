"""Hostile input: files, labels, numbers and text a careless or malicious user may send.

Every file is generated here.  Each test checks what a user (or every other
user of a shared server) relies on: a malformed upload ends in a
:class:`DataValidationError` naming the problem and a fix, memory stays
bounded, text is rendered inertly and the estimator never fails silently.
"""

import codecs
import io
import math
import struct
import tracemalloc
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from flda_core.datasets import digits as dg
from flda_core.datasets import npz
from flda_core.datasets.tabular import DataValidationError


def _npz(compress=False, **arrays):
    buffer = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def _digits(n=20, pixels=16, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 16, size=(n, pixels)).astype(np.float64), np.arange(n) % 2


def _refused(raw, name, *fragments):
    with pytest.raises(DataValidationError) as info:
        dg.read_digit_file(raw, name)
    error = info.value
    assert error.hint, "every refusal carries a fix"
    assert name in error.message
    for fragment in fragments:
        assert fragment in str(error), str(error)
    return error


def _bomb(shape, dtype="<f8"):
    """A compressed NPZ whose image member is all zeros of ``shape`` (it inflates a lot)."""
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("X.npy", "w", force_zip64=True) as member:
            npy_header = io.BytesIO()
            np.lib.format.write_array_header_1_0(npy_header, header)
            member.write(npy_header.getvalue())
            chunk = bytes(1 << 20)
            remaining = math.prod(shape) * np.dtype(dtype).itemsize
            while remaining > 0:
                member.write(chunk[:min(len(chunk), remaining)])
                remaining -= len(chunk)
        labels = io.BytesIO()
        np.save(labels, np.arange(shape[0]) % 2)
        archive.writestr("y.npy", labels.getvalue())
    return buffer.getvalue()


# --------------------------------------------------------------------------- digits files

def test_zip_bomb_is_refused_from_its_header_without_inflating_it():
    # 31,000 images of 16 x 16 float64: 63 MB once inflated, ~60 kB on the wire.
    raw = _bomb((31_000, 256))
    assert len(raw) < 1_000_000
    tracemalloc.start()
    try:
        with pytest.raises(DataValidationError, match="31,000 images; the limit") as info:
            dg.read_digit_file(raw, "bomb.npz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.hint
    assert peak < 5 * 2**20, f"read {peak / 2**20:.0f} MB before refusing"


def test_archive_inflating_beyond_the_memory_limit_is_refused_unread(monkeypatch):
    # Within the image-count and image-size limits, but beyond the byte budget.
    monkeypatch.setattr(dg, "MAX_UPLOAD_ARRAY_BYTES", 2 * 2**20)
    raw = _bomb((2_000, 256))  # 4 MB of float64
    tracemalloc.start()
    try:
        _refused(raw, "big.npz", "MB of memory once read", "limit is 2 MB")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * 2**20


def test_archive_with_thousands_of_members_is_refused_before_listing_them():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for k in range(npz.MAX_MEMBERS + 1):
            archive.writestr(f"m{k}.npy", b"")
    _refused(buffer.getvalue(), "many.npz", "lists 65 arrays")


def test_plain_npy_is_refused_clearly_whatever_its_name():
    X, _ = _digits()
    buffer = io.BytesIO()
    np.save(buffer, X)
    for name in ("digits.npz", "digits.npy", "digits.csv"):
        _refused(buffer.getvalue(), name, "single NumPy array", "numpy.savez")


@pytest.mark.parametrize("arrays, fragments", [
    (dict(X=np.zeros((0, 16)), y=np.zeros(0, dtype=int)), ("holds no images",)),
    (dict(X=np.ones((4, 16)), y=np.array(3)), ("single value", "one label per image")),
    (dict(X=np.ones((4, 16)), y=np.zeros(4, dtype=[("a", "i8"), ("b", "f8")])),
     ("structured", "'a', 'b'")),
    (dict(X=np.ones((4, 16), dtype=complex), y=np.arange(4) % 2), ("complex",)),
    (dict(X=np.ones((4, 16), dtype="datetime64[s]"), y=np.arange(4) % 2),
     ("datetime64", "not numbers")),
    (dict(X=np.ones((4, 16)), y=np.array(["x" * 300, "y"] * 2)), ("text of up to",)),
    (dict(X=np.ones((4, 2, 2, 4)), y=np.arange(4) % 2), ("shape (4, 2, 2, 4)",)),
])
def test_malformed_npz_arrays_are_refused_with_a_fix(arrays, fragments):
    _refused(_npz(**arrays), "bad.npz", *fragments)


def test_zip_member_that_is_not_an_array_is_named():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("X.npy", b"these are not pixels")
        archive.writestr("y.npy", b"nor labels")
    _refused(buffer.getvalue(), "fake.npz", "array 'X'", "not a NumPy array")


def test_truncated_member_is_refused():
    X, y = _digits()
    raw = _npz(X=X, y=y)
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as source, zipfile.ZipFile(buffer, "w") as target:
        target.writestr("X.npy", source.read("X.npy")[:-100])
        target.writestr("y.npy", source.read("y.npy"))
    _refused(buffer.getvalue(), "cut.npz", "truncated")


def test_pixels_near_the_float_limit_are_refused():
    X, y = _digits()
    X[3, 7] = 1.7e308
    _refused(_npz(X=X, y=y), "huge.npz", "1.7e+308", "0-255")


def test_csv_whose_header_starts_with_pk_is_read_as_csv():
    X, y = _digits()
    frame = pd.DataFrame(X, columns=["PK"] + [f"p{i}" for i in range(1, 16)])
    frame.insert(1, "label", y)
    Xr, yr, side = dg.read_digit_file(frame.to_csv(index=False).encode(), "pk.csv")
    assert side == 4
    np.testing.assert_array_equal(yr, y)
    np.testing.assert_allclose(Xr[:, 0], X[:, 0])


def test_valid_npz_still_reads_compressed_and_uncompressed():
    X, y = _digits()
    for compress in (False, True):
        Xr, yr, side = dg.read_digit_file(_npz(compress, images=X.reshape(20, 4, 4), y=y),
                                          "ok.npz")
        np.testing.assert_allclose(Xr, X)
        np.testing.assert_array_equal(yr, y)
        assert side == 4


def test_rescale_to_unit_does_not_overflow_near_the_float_limit():
    top = np.finfo(np.float64).max
    X = np.array([-top, 0.0, top / 2, top])
    np.testing.assert_allclose(dg.rescale_to_unit(X), [0.0, 0.5, 0.75, 1.0])


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(min_size=0, max_size=400), cut=st.integers(0, 2000),
       flip=st.integers(0, 2000))
def test_no_corrupted_npz_escapes_as_another_exception(data, cut, flip):
    X, y = _digits(8)
    raw = bytearray(_npz(X=X, y=y))
    if flip < len(raw):
        raw[flip] ^= 0xFF
    raw = bytes(raw[:len(raw) - cut]) + data
    try:
        dg.read_digit_file(raw, "fuzz.npz")
    except DataValidationError as error:
        assert error.hint
