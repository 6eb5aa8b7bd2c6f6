"""Handwritten digit domains for the paper's section 4.2.3 (Figures 5-6, Table 4).

Three sources of two digit collections ("domain A" and "domain B") on one
16 x 16 pixel grid, all returned as a :class:`DigitDomains`:

1. :func:`make_offline_domains` -- always available, no network.  The 1,797
   real handwritten digits bundled with scikit-learn (8 x 8 images, ink 0-16)
   are split in two disjoint, class-stratified halves.  Half A is enlarged to
   fill the whole 16 x 16 frame (like USPS digits); half B is enlarged to
   12 x 12 and centred in the 16 x 16 frame with a 2-pixel empty border (like
   MNIST digits, which sit in a 20 x 20 box inside 28 x 28).  Both use the
   same linear interpolation, so the only difference between the domains is
   *where the ink is*: exactly the shift the paper observes between USPS and
   MNIST (Figure 5) and the one the dropout transfer model captures.
2. :func:`load_mnist_usps` -- MNIST (OpenML ``mnist_784``) and USPS (OpenML
   ``usps``) resized to 16 x 16 as in the paper, class-balanced subsamples of
   selectable size (the paper uses 14,000 MNIST and 9,298 USPS images),
   cached on disk after the first download; without network it fails within
   seconds with :class:`DigitDataUnavailable`.
3. :func:`make_uploaded_domains` -- two user files (CSV or NPZ) of flattened
   square images with labels; every problem raises
   :class:`~explorer.errors.DataValidationError` with a hint.

:func:`direction_data` gives the arrays of one direction (source -> target).
The experiment on them (Table 4, Figures 5-6) is
:mod:`explorer.experiments.digits`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from explorer.errors import DataValidationError, DigitDataUnavailable
from explorer.data.cost import check_fit_cost
from explorer.data.csv import parse_csv
from explorer.data.files import is_regular_file, read_regular_file, without_paths
from explorer.data.npz import ArraySpec, looks_like_npy, looks_like_zip, pick, read_npz

__all__ = [
    "SIDE",
    "OFFLINE_INNER_SIDE",
    "PAPER_N_MNIST",
    "PAPER_N_USPS",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_SAMPLES",
    "MAX_UPLOAD_ARRAY_BYTES",
    "MAX_PIXEL_MAGNITUDE",
    "LABEL_NAMES",
    "DigitDomains",
    "DigitDataUnavailable",
    "resample_matrix",
    "resize_images",
    "place_centred",
    "rescale_to_unit",
    "stratified_halves",
    "balanced_subsample",
    "fingerprint",
    "make_offline_domains",
    "default_cache_dir",
    "is_cached",
    "openml_reachable",
    "prepare_mnist",
    "prepare_usps",
    "load_mnist_usps",
    "read_digit_file",
    "make_uploaded_domains",
    "direction_data",
]

#: Side length of the common pixel grid (the paper resizes both sets to 16 x 16).
SIDE = 16
#: Side of the centred box the offline "MNIST-like" digits are drawn in.
OFFLINE_INNER_SIDE = 12
#: Sample sizes of section 4.2.3.
PAPER_N_MNIST = 14_000
PAPER_N_USPS = 9_298
#: Largest uploaded file accepted (bytes).
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
#: Most images per uploaded file.
MAX_UPLOAD_SAMPLES = 30_000
#: Most memory the arrays of one NPZ upload may take once read as float64 (bytes);
#: checked from the array headers before decompressing (a zip bomb is refused unread).
MAX_UPLOAD_ARRAY_BYTES = 200 * 1024 * 1024
#: Largest pixel magnitude accepted: FLDA squares pixel values (the dropout
#: variance, eq. 10), which overflows float64 beyond about 1e154.
MAX_PIXEL_MAGNITUDE = 1e150
#: Smallest and largest side length of uploaded images.
MIN_UPLOAD_SIDE, MAX_UPLOAD_SIDE = 4, 64
#: Column / array names accepted as labels in uploaded files (case-insensitive).
LABEL_NAMES = ("label", "labels", "y", "target", "class", "digit")
#: Column / array names accepted as images in NPZ files.
IMAGE_NAMES = ("X", "x", "images", "data", "pixels")

_OPENML_HOST = "api.openml.org"


@dataclass(frozen=True)
class DigitDomains:
    """Two labelled collections of square digit images on one pixel grid.

    Attributes
    ----------
    X_a, X_b : ndarray of shape (n_a, side**2), (n_b, side**2)
        Flattened images (row-major, row 0 at the top), ink values >= 0.
    y_a, y_b : ndarray
        Labels.  A domain's labels are used for training when it is the
        source and only for measuring the error when it is the target.
    side : int
    name_a, name_b : str
        Short names shown on the page ("USPS", "MNIST-like", file names, ...).
    kind : {"offline", "openml", "upload"}
    description : str
        One paragraph saying where the images come from and what was done.
    paper_rows : dict
        Maps ``"A → B"`` and ``"B → A"`` to the matching row of the paper's
        Table 4 (``"U → M"`` / ``"M → U"``), empty for uploaded data.
    key : str
        Content fingerprint, used as the cache key of every fit.
    """

    X_a: np.ndarray = field(repr=False)
    y_a: np.ndarray = field(repr=False)
    X_b: np.ndarray = field(repr=False)
    y_b: np.ndarray = field(repr=False)
    side: int
    name_a: str
    name_b: str
    kind: str
    description: str
    paper_rows: dict
    key: str

    @property
    def classes(self):
        """Sorted labels occurring in either domain."""
        return np.unique(np.concatenate([self.y_a, self.y_b]))

    def name(self, domain):
        """Name of domain ``"A"`` or ``"B"``."""
        return self.name_a if domain == "A" else self.name_b

    def names_of(self, direction):
        """``(source name, target name)`` of ``"A → B"`` or ``"B → A"``."""
        return (self.name_a, self.name_b) if direction == "A → B" else (self.name_b, self.name_a)


# --------------------------------------------------------------------------
# Image transforms
# --------------------------------------------------------------------------


def resample_matrix(n_in, n_out):
    """Matrix ``R`` (n_out x n_in) that resizes a 1-D pixel row: ``row_out = R @ row_in``.

    Shrinking (``n_out < n_in``) averages the input pixels each output pixel
    covers, weighted by overlap (area resampling, no aliasing: 28 -> 16 for
    MNIST).  Enlarging uses linear interpolation between pixel centres, with
    the outermost pixels clamped.  Every row sums to 1, so a constant image
    stays constant and ink values stay in their range; an all-zero
    neighbourhood stays exactly zero (no spurious faint background).

    Parameters
    ----------
    n_in, n_out : int

    Returns
    -------
    R : ndarray of shape (n_out, n_in)

    Examples
    --------
    >>> resample_matrix(4, 2)
    array([[0.5, 0.5, 0. , 0. ],
           [0. , 0. , 0.5, 0.5]])
    >>> resample_matrix(2, 4) @ [0.0, 1.0]
    array([0.  , 0.25, 0.75, 1.  ])
    """
    n_in, n_out = int(n_in), int(n_out)
    if n_in < 1 or n_out < 1:
        raise ValueError(f"Sizes must be positive, got {n_in} -> {n_out}.")
    R = np.zeros((n_out, n_in))
    if n_out <= n_in:
        edges = np.arange(n_out + 1) * (n_in / n_out)
        for i in range(n_out):
            lo, hi = edges[i], edges[i + 1]
            for j in range(int(np.floor(lo)), min(n_in, int(np.ceil(hi)))):
                R[i, j] = min(hi, j + 1) - max(lo, j)
        return R / R.sum(axis=1, keepdims=True)
    centres = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    lo = np.floor(centres).astype(int)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = centres - lo
    rows = np.arange(n_out)
    np.add.at(R, (rows, lo), 1.0 - frac)
    np.add.at(R, (rows, hi), frac)
    return R


def resize_images(images, side):
    """Resize square images to ``side x side`` (separable :func:`resample_matrix`).

    Parameters
    ----------
    images : array-like of shape (n, h, h)
    side : int

    Returns
    -------
    ndarray of shape (n, side, side)
    """
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 3 or images.shape[1] != images.shape[2]:
        raise ValueError(f"Expected square images of shape (n, h, h), got {images.shape}.")
    R = resample_matrix(images.shape[1], side)
    return np.einsum("ij,njk,lk->nil", R, images, R, optimize=True)


def place_centred(images, inner, side):
    """Resize square images to ``inner x inner`` and centre them in an empty ``side`` frame.

    Parameters
    ----------
    images : array-like of shape (n, h, h)
    inner : int
        Size of the box the digit is drawn in; ``side - inner`` must be even.
    side : int

    Returns
    -------
    ndarray of shape (n, side, side), zero outside the centred box.
    """
    if not 1 <= inner <= side or (side - inner) % 2:
        raise ValueError(f"inner={inner} must be in [1, {side}] with side - inner even.")
    small = resize_images(images, inner)
    out = np.zeros((small.shape[0], side, side))
    border = (side - inner) // 2
    out[:, border : border + inner, border : border + inner] = small
    return out


def rescale_to_unit(X, lo=None, hi=None):
    """Map values linearly so that ``lo -> 0`` and ``hi -> 1``, clipping outside.

    Used to bring every collection to ink in [0, 1] with a zero background
    (MNIST stores 0..255, USPS -1..1 with background -1).

    Parameters
    ----------
    X : array-like
    lo, hi : float, optional
        Default: the minimum and maximum of ``X``.

    Returns
    -------
    ndarray of float64, same shape, values in [0, 1]
    """
    X = np.asarray(X, dtype=np.float64)
    lo = float(np.min(X)) if lo is None else float(lo)
    hi = float(np.max(X)) if hi is None else float(hi)
    if not hi > lo:
        return np.zeros_like(X)
    if np.isfinite(hi - lo):
        return np.clip((X - lo) / (hi - lo), 0.0, 1.0)
    # hi - lo overflows (values near +-1.8e308): halve everything first, exactly.
    return np.clip((X / 2 - lo / 2) / (hi / 2 - lo / 2), 0.0, 1.0)


def stratified_halves(y, random_state=0):
    """Split sample indices into two disjoint halves with the same class proportions.

    Every class is shuffled (seeded) and its first ``ceil(n_c / 2)`` samples
    go to half A, the rest to half B, so no sample is in both halves.

    Returns
    -------
    idx_a, idx_b : sorted ndarrays of int
    """
    y = np.asarray(y)
    rng = np.random.default_rng(random_state)
    idx_a, idx_b = [], []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        half = (len(members) + 1) // 2
        idx_a.append(members[:half])
        idx_b.append(members[half:])
    return np.sort(np.concatenate(idx_a)), np.sort(np.concatenate(idx_b))


def balanced_subsample(y, n, random_state=0):
    """Indices of a class-balanced random subsample of size ``min(n, len(y))``.

    Each class gets ``n // K`` samples (the remainder goes to the classes
    with the most spare samples); a class with too few samples gives all it
    has and the others make up the difference.  The paper uses balanced
    classes (section 4.2.3).
    """
    y = np.asarray(y)
    n = min(int(n), len(y))
    rng = np.random.default_rng(random_state)
    labels, counts = np.unique(y, return_counts=True)
    quota = np.zeros(len(labels), dtype=int)
    remaining = n
    while remaining > 0:
        open_classes = np.flatnonzero(quota < counts)
        share = max(1, remaining // len(open_classes))
        order = open_classes[np.argsort(-(counts - quota)[open_classes], kind="stable")]
        for c in order:
            take = min(share, counts[c] - quota[c], remaining)
            quota[c] += take
            remaining -= take
            if remaining == 0:
                break
    chosen = [
        rng.choice(np.flatnonzero(y == label), size=q, replace=False)
        for label, q in zip(labels, quota)
        if q > 0
    ]
    return np.sort(np.concatenate(chosen))


def fingerprint(*arrays):
    """Short SHA-1 of the contents, shapes and dtypes of arrays (a cache key)."""
    digest = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        digest.update(str((a.shape, a.dtype.str)).encode())
        digest.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
    return digest.hexdigest()[:16]


def compact_images(X):
    """``X`` as float32 (half of float64's memory) when every value stays finite, else
    float64: uploaded collections are kept compact (issue 36: a 0.7 MB NPZ pair of
    30,000 binary images was 117 MB of float64); fits convert to float64 where they
    need it (:func:`explorer.experiments.digits.fit_direction`)."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if np.isfinite(X32).all():
        return X32
    return np.ascontiguousarray(X, dtype=np.float64)


def _domains(X_a, y_a, X_b, y_b, side, name_a, name_b, kind, description, paper_rows, compact=False):
    convert = compact_images if compact else (lambda X: np.ascontiguousarray(X, dtype=np.float64))
    X_a, X_b = convert(X_a), convert(X_b)
    return DigitDomains(
        X_a=X_a,
        y_a=np.asarray(y_a),
        X_b=X_b,
        y_b=np.asarray(y_b),
        side=side,
        name_a=name_a,
        name_b=name_b,
        kind=kind,
        description=description,
        paper_rows=dict(paper_rows),
        key=fingerprint(X_a, np.asarray(y_a), X_b, np.asarray(y_b)),
    )


# --------------------------------------------------------------------------
# Source 1: offline default
# --------------------------------------------------------------------------


def make_offline_domains(random_state=0, side=SIDE, inner=OFFLINE_INNER_SIDE):
    """USPS-like and MNIST-like domains from scikit-learn's bundled digits (no network).

    ``load_digits`` holds 1,797 real handwritten digits, 8 x 8 pixels with
    ink 0..16, each digit normalised to fill its frame.  Ink is scaled to
    [0, 1]; the images are split into two disjoint class-stratified halves
    (:func:`stratified_halves`, seeded by ``random_state``).  Domain A
    ("USPS-like") enlarges its half to the full ``side x side`` frame; domain
    B ("MNIST-like") enlarges its half to ``inner x inner`` and centres it in
    an empty ``side x side`` frame (:func:`place_centred`), as MNIST digits
    occupy the centre while USPS digits fill the image (section 4.2.3,
    Figure 5).  A -> B therefore mirrors the paper's U -> M and B -> A its
    M -> U.

    Parameters
    ----------
    random_state : int
        Seed of the split; the transforms themselves are deterministic.
    side, inner : int

    Returns
    -------
    DigitDomains

    Examples
    --------
    >>> data = make_offline_domains(random_state=0)
    >>> data.X_a.shape, data.X_b.shape
    ((901, 256), (896, 256))
    >>> bool((data.X_b.reshape(-1, 16, 16)[:, :2, :] == 0).all())  # empty border in B
    True
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images / 16.0
    idx_a, idx_b = stratified_halves(digits.target, random_state)
    X_a = resize_images(images[idx_a], side).reshape(len(idx_a), -1)
    X_b = place_centred(images[idx_b], inner, side).reshape(len(idx_b), -1)
    border = (side - inner) // 2
    description = (
        f"Real handwritten digits bundled with scikit-learn ({len(digits.target):,} images of "
        f"8 x 8 pixels), split at random (seed {random_state}) into two disjoint halves with "
        f"the same class proportions. Domain A ({len(idx_a):,} images) is enlarged by linear "
        f"interpolation to fill the whole {side} x {side} frame, like USPS digits. Domain B "
        f"({len(idx_b):,} images) is enlarged the same way to {inner} x {inner} and centred "
        f"with an empty {border}-pixel border, like MNIST digits. The writers, the ink and "
        "the interpolation are the same in both domains; only where the ink falls differs "
        "- the shift the paper observes between USPS and MNIST (Figure 5), built here so "
        "the page works without a network."
    )
    return _domains(
        X_a,
        digits.target[idx_a],
        X_b,
        digits.target[idx_b],
        side,
        "USPS-like (fills frame)",
        "MNIST-like (centred)",
        "offline",
        description,
        {"A → B": "U → M", "B → A": "M → U"},
    )


# --------------------------------------------------------------------------
# Source 2: MNIST and USPS from OpenML
# --------------------------------------------------------------------------


def default_cache_dir():
    """Where downloads are cached: ``$FLDA_CACHE_DIR`` or ``~/.cache/flda``."""
    return Path(os.environ.get("FLDA_CACHE_DIR") or Path.home() / ".cache" / "flda")


def openml_reachable(host=_OPENML_HOST, port=443, timeout=3.0):
    """True if a TCP connection to OpenML opens within ``timeout`` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def prepare_mnist(X):
    """MNIST rows (28 x 28, ink 0..255) -> 16 x 16 rows with ink in [0, 1] (area resampling)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 784:
        raise DigitDataUnavailable(f"MNIST should have 784 pixels per image, got {X.shape}.")
    images = rescale_to_unit(X, 0.0, 255.0).reshape(-1, 28, 28)
    return resize_images(images, SIDE).reshape(len(X), -1)


def prepare_usps(X):
    """USPS rows (16 x 16, any linear ink scale, e.g. -1..1) -> ink in [0, 1], background 0."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != SIDE * SIDE:
        raise DigitDataUnavailable(f"USPS should have 256 pixels per image, got {X.shape}.")
    return rescale_to_unit(X)


#: Most images a cached collection may hold (MNIST has 70,000, USPS 9,298).
MAX_CACHED_IMAGES = 100_000
#: Most bytes a cached collection may take once read and converted to float64
#: (checked from the NPZ headers before decompressing, as for uploads); also the
#: largest cache file read.
MAX_CACHED_ARRAY_BYTES = MAX_CACHED_IMAGES * (SIDE * SIDE + 1) * 8


def _cache_path(cache_dir, name):
    return Path(cache_dir) / f"{name}_16x16.npz"


def _read_cached(path):
    """``(X, y)`` of a prepared collection in the cache, or None when it is not there or
    cannot be trusted: not a regular file (a FIFO, a device, a symlink), larger than
    :data:`MAX_CACHED_ARRAY_BYTES`, not an NPZ of 16 x 16 images and as many labels
    (read header-first by :func:`~explorer.data.npz.read_npz`, like an upload)."""
    images = ArraySpec("image", ("X",), "iuf", (2,), MAX_CACHED_IMAGES, SIDE * SIDE)
    labels = ArraySpec("label", ("y",), "iuUS", (1,), MAX_CACHED_IMAGES)
    try:
        raw = read_regular_file(path, MAX_CACHED_ARRAY_BYTES)
        X, y = read_npz(raw, path.name, (images, labels), MAX_CACHED_ARRAY_BYTES)
    except (OSError, DataValidationError):
        return None
    if X.shape[1] != SIDE * SIDE or len(y) != len(X):
        return None
    return X.astype(np.float64), y


def _write_cached(path, X, y):
    """Write a prepared collection atomically; False (and no temporary file left) when the
    folder cannot be written, e.g. on a full disk: the caller still has the data."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            np.savez_compressed(out, X=X, y=y)
        os.replace(temporary, path)
        return True
    except OSError:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        return False


def _fetch_prepared(name, prepare, cache_dir, fetch):
    """Load one prepared collection from the disk cache, else download and cache it.

    A cache entry that cannot be trusted (:func:`_read_cached`) counts as not cached: it
    is downloaded again and replaced.  A download that cannot be cached (read-only
    folder, full disk) is still returned.
    """
    path = _cache_path(cache_dir, name)
    if os.path.lexists(path):
        stored = _read_cached(path)
        if stored is not None:
            return stored
        try:
            path.unlink()  # a broken cache entry is simply re-downloaded
        except OSError:
            pass  # (a folder in its place): the download is then not cached
    try:
        X, y = fetch(name, data_home=str(Path(cache_dir) / "openml"))
    except DigitDataUnavailable:
        raise
    except Exception as error:  # network, HTTP, parse: all mean "not available now"
        raise DigitDataUnavailable(
            f"Downloading '{name}' from OpenML failed ({type(error).__name__}: {without_paths(error)})."
        ) from error
    X = prepare(X)
    y = np.asarray(y).astype(str)
    try:
        y = y.astype(float).astype(np.int64)
    except ValueError:
        pass
    if len(y) != len(X):
        raise DigitDataUnavailable(f"'{name}' from OpenML has {len(X)} images but {len(y)} labels.")
    X = X.astype(np.float32)
    _write_cached(path, X, y)
    return X.astype(np.float64), y


def _fetch_openml(name, data_home):
    from sklearn.datasets import fetch_openml

    versions = {"mnist_784": 1, "usps": 2}
    bunch = fetch_openml(
        name,
        version=versions.get(name, "active"),
        data_home=data_home,
        as_frame=False,
        parser="auto",
        n_retries=1,
        delay=0.5,
    )
    return bunch.data, bunch.target


def is_cached(cache_dir=None):
    """True if prepared MNIST and USPS are in ``cache_dir`` (no network needed to load them)."""
    cache_dir = default_cache_dir() if cache_dir is None else cache_dir
    return all(is_regular_file(_cache_path(cache_dir, name)) for name in ("mnist_784", "usps"))


def load_mnist_usps(
    n_mnist=PAPER_N_MNIST, n_usps=PAPER_N_USPS, random_state=0, cache_dir=None, fetch=None, reachable=None
):
    """MNIST and USPS on a 16 x 16 grid, as in section 4.2.3.

    MNIST (OpenML ``mnist_784``, 70,000 images 28 x 28) is area-resampled to
    16 x 16; USPS (OpenML ``usps``, 9,298 images 16 x 16) is kept.  Both are
    scaled to ink in [0, 1] with a zero background and a class-balanced
    random subsample (:func:`balanced_subsample`) of the requested size is
    drawn.  Domain A is USPS and domain B MNIST, so A -> B is the paper's
    U -> M.  The prepared full collections are cached in ``cache_dir`` as
    ``.npz`` files (read with ``allow_pickle=False``); later calls need no
    network.

    Parameters
    ----------
    n_mnist, n_usps : int
    random_state : int
        Seed of the subsamples.
    cache_dir : path-like, optional
        Default :func:`default_cache_dir`.
    fetch : callable ``(name, data_home) -> (X, y)``, optional
        Downloader (default ``sklearn.datasets.fetch_openml``); tests pass a fake.
    reachable : callable ``() -> bool``, optional
        Fast network check run before any download (default
        :func:`openml_reachable`, a 3-second TCP connect).

    Raises
    ------
    DigitDataUnavailable
        Not cached and OpenML cannot be reached, or the download is broken.
    """
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    fetch = _fetch_openml if fetch is None else fetch
    reachable = openml_reachable if reachable is None else reachable
    if not is_cached(cache_dir) and not reachable():
        raise DigitDataUnavailable(
            f"OpenML ({_OPENML_HOST}) cannot be reached from this machine, and MNIST/USPS "
            "are not in the cache of this server."
        )
    X_m, y_m = _fetch_prepared("mnist_784", prepare_mnist, cache_dir, fetch)
    X_u, y_u = _fetch_prepared("usps", prepare_usps, cache_dir, fetch)
    if y_u.dtype.kind in "iu" and y_u.min() == 1 and y_u.max() == 10:
        y_u = y_u - 1  # some USPS copies code digit d as d + 1
    pick_m = balanced_subsample(y_m, n_mnist, random_state)
    pick_u = balanced_subsample(y_u, n_usps, random_state + 1)
    description = (
        f"USPS ({len(pick_u):,} of {len(y_u):,} images, 16 x 16) and MNIST ({len(pick_m):,} of "
        f"{len(y_m):,} images, resized from 28 x 28 to 16 x 16 by area averaging) from "
        f"OpenML, class-balanced random subsamples (seed {random_state}), ink scaled to "
        "[0, 1]. The paper uses 9,298 USPS and 14,000 MNIST images (section 4.2.3)."
    )
    return _domains(
        X_u[pick_u],
        y_u[pick_u],
        X_m[pick_m],
        y_m[pick_m],
        SIDE,
        "USPS",
        "MNIST",
        "openml",
        description,
        {"A → B": "U → M", "B → A": "M → U"},
    )


# --------------------------------------------------------------------------
# Source 3: uploaded files
# --------------------------------------------------------------------------


def _side_of(n_pixels, name):
    side = int(round(np.sqrt(n_pixels)))
    if side * side != n_pixels:
        lower, upper = int(np.floor(np.sqrt(n_pixels))), int(np.ceil(np.sqrt(n_pixels)))
        raise DataValidationError(
            f"{name} has {n_pixels} pixel values per image, which is not a square number "
            f"({lower}² = {lower**2}, {upper}² = {upper**2}).",
            "Each row must hold one flattened square image (e.g. 256 values for 16 x 16) "
            "plus the label; remove extra columns such as an index.",
        )
    if not MIN_UPLOAD_SIDE <= side <= MAX_UPLOAD_SIDE:
        raise DataValidationError(
            f"{name} has images of {side} x {side} pixels.",
            f"Use images between {MIN_UPLOAD_SIDE} x {MIN_UPLOAD_SIDE} and "
            f"{MAX_UPLOAD_SIDE} x {MAX_UPLOAD_SIDE} pixels (resize them first).",
        )
    return side


def _clean_labels(labels, name):
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise DataValidationError(
            f"The labels in {name} have shape {labels.shape}.",
            "Store one label per image (a 1-D array or one column).",
        )
    if labels.dtype.kind == "f":
        if not np.all(np.isfinite(labels)):
            raise DataValidationError(f"{name} has missing or infinite labels.", "Give every image a label.")
        if np.all(labels == np.round(labels)):
            return labels.astype(np.int64)
        example = labels[labels != np.round(labels)][0]
        raise DataValidationError(
            f"{name} has non-integer numeric labels such as {example}.",
            "Labels must be classes (integers or names), not measurements.",
        )
    if labels.dtype.kind in "iub":
        return labels.astype(np.int64)
    labels = pd.Series(labels, dtype=object)
    if labels.isna().any() or (labels.astype(str).str.strip() == "").any():
        raise DataValidationError(f"{name} has images without a label.", "Give every image a label.")
    return labels.astype(str).str.strip().to_numpy()


def _read_npz(raw, name):
    """Images and labels of an NPZ upload; shapes and dtypes checked from the
    headers before anything is decompressed (:func:`~explorer.data.npz.read_npz`)."""
    images_spec = ArraySpec("image", IMAGE_NAMES, "iufb", (2, 3), MAX_UPLOAD_SAMPLES, MAX_UPLOAD_SIDE**2)
    labels_spec = ArraySpec("label", LABEL_NAMES, "iufbUS", (1,), MAX_UPLOAD_SAMPLES)
    images, labels = read_npz(raw, name, (images_spec, labels_spec), MAX_UPLOAD_ARRAY_BYTES)
    if images.ndim == 3:
        if images.shape[1] != images.shape[2]:
            raise DataValidationError(
                f"The images in {name} are {images.shape[1]} x {images.shape[2]}, not square.",
                "Pad or crop them to a square first.",
            )
        images = images.reshape(len(images), -1)
    return images.astype(np.float64), labels


def _read_csv(raw, name):
    table = parse_csv(raw, name)
    frame = table.frame
    label_col = pick(frame.columns, LABEL_NAMES)
    if label_col is None:
        raise DataValidationError(
            f"{name} has no label column (looked for {', '.join(LABEL_NAMES)}).",
            "Name the column holding the digit 'label'; every other column is a pixel.",
        )
    pixels = frame.drop(columns=[label_col])
    non_numeric = [c for c in pixels.columns if pixels[c].dtype.kind not in "iuf"]
    if non_numeric:
        column = non_numeric[0]
        bad = pixels[column][pd.to_numeric(pixels[column], errors="coerce").isna() & pixels[column].notna()]
        example = f" (e.g. {bad.iloc[0]!r})" if len(bad) else ""
        raise DataValidationError(
            f"Column '{column}' of {name} is not numeric{example}.",
            "Every column except the label must hold pixel values.",
        )
    return pixels.to_numpy(dtype=np.float64), frame[label_col].to_numpy()


def read_digit_file(raw, name):
    """Read and validate one uploaded file of flattened square images with labels.

    Formats
    -------
    * CSV: a header row, a label column named one of :data:`LABEL_NAMES`
      (case-insensitive), every other column a pixel (row-major).
    * NPZ (``numpy.savez``): an image array named one of ``X, images, data,
      pixels`` of shape ``(n, side**2)`` or ``(n, side, side)`` and a label
      array named one of :data:`LABEL_NAMES`.  The array headers are checked
      first (:func:`~explorer.data.npz.read_npz`): object, structured and
      complex arrays, scalar or empty arrays and arrays beyond the limits
      below (:data:`MAX_UPLOAD_ARRAY_BYTES` once read) are refused before
      anything is decompressed; data are read with ``allow_pickle=False``.
    * A plain ``.npy`` (one array) is refused: it cannot hold images and labels.

    Checks: at most :data:`MAX_UPLOAD_BYTES` bytes and
    :data:`MAX_UPLOAD_SAMPLES` images; the number of pixels is a square
    between 4 x 4 and 64 x 64; pixel values are finite numbers; every image
    has a label; at least two classes; ``|pixel| <= MAX_PIXEL_MAGNITUDE``.
    A file is read as NPZ when its name ends in ``.npz``/``.npy`` or its bytes
    start like a ZIP archive or a ``.npy`` (a CSV whose header merely begins
    with "PK" is still a CSV).

    Returns
    -------
    X : ndarray of shape (n, side**2), float64
    y : ndarray of shape (n,), int64 or str
    side : int

    Raises
    ------
    DataValidationError
        With a message naming the file and the problem and a hint to fix it.
    """
    raw = bytes(raw)
    if len(raw) == 0:
        raise DataValidationError(f"{name} is empty.", "Upload a file with images.")
    if len(raw) > MAX_UPLOAD_BYTES:
        raise DataValidationError(
            f"{name} is {len(raw) / 2**20:.1f} MB; the limit is {MAX_UPLOAD_BYTES / 2**20:.0f} MB.",
            f"Use at most {MAX_UPLOAD_SAMPLES:,} images (NPZ is smaller than CSV).",
        )
    if name.lower().endswith((".npz", ".npy")) or looks_like_zip(raw) or looks_like_npy(raw):
        X, labels = _read_npz(raw, name)
    else:
        X, labels = _read_csv(raw, name)
    if len(X) > MAX_UPLOAD_SAMPLES:
        raise DataValidationError(
            f"{name} has {len(X):,} images; the limit is {MAX_UPLOAD_SAMPLES:,}.",
            "Upload a random subsample.",
        )
    if len(labels) != len(X):
        raise DataValidationError(
            f"{name} has {len(X)} images but {len(labels)} labels.", "Give exactly one label per image."
        )
    side = _side_of(X.shape[1], name)
    finite = np.isfinite(X)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise DataValidationError(
            f"{name} has a missing or infinite pixel value (image {row + 1}, pixel {col + 1}).",
            "Fill missing pixels with 0 (no ink).",
        )
    largest = float(np.max(np.abs(X))) if X.size else 0.0
    if largest > MAX_PIXEL_MAGNITUDE:
        raise DataValidationError(
            f"{name} has pixel values as large as {largest:.3g}; values beyond "
            f"{MAX_PIXEL_MAGNITUDE:.0e} cannot be squared in 64-bit floating point, which "
            "FLDA's dropout variance needs.",
            "Store ink on an ordinary scale, e.g. 0-255 or 0-1.",
        )
    y = _clean_labels(labels, name)
    if len(np.unique(y)) < 2:
        raise DataValidationError(
            f"{name} has only one class ('{y[0]}').", "Each domain needs images of at least two classes."
        )
    return X, y, side


def make_uploaded_domains(file_a, file_b, rescale=True):
    """Two uploaded files as a :class:`DigitDomains`.

    Parameters
    ----------
    file_a, file_b : tuple ``(name, raw_bytes)``
    rescale : bool, default=True
        Scale each file's values linearly to [0, 1] (its minimum becomes 0,
        i.e. the background must be the darkest, smallest value).  Turn off
        if zeros already mean "no ink".

    The images are kept as float32 (:func:`compact_images`).

    Raises
    ------
    DataValidationError
        A file is invalid, the image sizes differ, the label sets differ, or every
        pixel of a file has one value (blank images).
    """
    (name_a, raw_a), (name_b, raw_b) = file_a, file_b
    X_a, y_a, side_a = read_digit_file(raw_a, name_a)
    X_b, y_b, side_b = read_digit_file(raw_b, name_b)
    if side_a != side_b:
        raise DataValidationError(
            f"{name_a} has {side_a} x {side_a} images but {name_b} has {side_b} x {side_b}.",
            "Resize both collections to the same size (the paper uses 16 x 16).",
        )
    if y_a.dtype.kind != y_b.dtype.kind:
        y_a, y_b = y_a.astype(str), y_b.astype(str)
    only_a = sorted(set(y_a.tolist()) - set(y_b.tolist()))
    only_b = sorted(set(y_b.tolist()) - set(y_a.tolist()))
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"labels {only_a} occur only in {name_a}")
        if only_b:
            parts.append(f"labels {only_b} occur only in {name_b}")
        raise DataValidationError(
            "The two files must hold the same classes, but " + " and ".join(parts) + ".",
            "Remove those images or relabel them; a classifier cannot predict a class it never saw.",
        )
    for X, name in ((X_a, name_a), (X_b, name_b)):  # either file can be the source
        check_fit_cost(X.shape[0], X.shape[1], len(set(y_a.tolist())), name)
        _check_not_blank(X, name, rescale)
    if rescale:
        X_a, X_b = rescale_to_unit(X_a), rescale_to_unit(X_b)
    description = (
        f"Your files: {name_a} ({len(y_a):,} images) as domain A and {name_b} ({len(y_b):,} "
        f"images) as domain B, {side_a} x {side_a} pixels"
        + (", each file's values scaled linearly to [0, 1]." if rescale else ", values used as uploaded.")
    )
    return _domains(X_a, y_a, X_b, y_b, side_a, name_a, name_b, "upload", description, {}, compact=True)


def _check_not_blank(X, name, rescale):
    """Refuse a file whose pixels all have one value: every image is then the same
    uniform square (blank once scaled to [0, 1]), with nothing to learn or compare."""
    if X.size == 0:
        return
    lo, hi = float(np.min(X)), float(np.max(X))
    if lo == hi:
        scaled = (
            " so after scaling to [0, 1] every image is blank" if rescale else " so every image is the same"
        )
        raise DataValidationError(
            f"Every pixel of every image in {name} has the value {lo:g},{scaled}: there is "
            "nothing to learn or to compare.",
            "Check that the file holds the images themselves (ink on a background), e.g. "
            "that its pixel columns are not all one value.",
        )


def direction_data(domains, direction):
    """``(X_source, y_source, X_target, y_target)`` for ``"A → B"`` or ``"B → A"``."""
    if direction == "A → B":
        return domains.X_a, domains.y_a, domains.X_b, domains.y_b
    if direction == "B → A":
        return domains.X_b, domains.y_b, domains.X_a, domains.y_a
    raise ValueError(f"direction must be 'A → B' or 'B → A', got {direction!r}.")
