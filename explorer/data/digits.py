"""Handwritten digit domains for the paper's section 4.2.3 (Figures 5-6, Table 4).

Two collections ("domain A" and "domain B") on one 16 x 16 pixel grid, as a
:class:`DigitDomains`: :func:`make_offline_domains` (scikit-learn's bundled digits, no
network: USPS-like and MNIST-like halves that differ only in *where the ink is*, the
shift the paper observes in Figure 5) or :func:`load_mnist_usps` (MNIST and USPS from
OpenML, cached on disk; without network it fails within seconds with
:class:`DigitDataUnavailable`).  The experiment on them is
:mod:`explorer.experiments.digits`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.errors import DigitDataUnavailable
from explorer.data.files import is_regular_file, read_regular_file, without_paths, write_atomically

#: Side length of the common pixel grid (the paper resizes both sets to 16 x 16).
SIDE = 16
#: Side of the centred box the offline "MNIST-like" digits are drawn in.
OFFLINE_INNER_SIDE = 12
#: Sample sizes of section 4.2.3.
PAPER_N_MNIST = 14_000
PAPER_N_USPS = 9_298

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
        Short names shown on the page ("USPS", "MNIST-like (centred)", ...).
    kind : {"offline", "openml"}
    description : str
        One paragraph saying where the images come from and what was done.
    paper_rows : dict
        Maps ``"A → B"`` and ``"B → A"`` to the matching row of the paper's
        Table 4 (``"U → M"`` / ``"M → U"``).
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

    def names_of(self, direction):
        """``(source name, target name)`` of ``"A → B"`` or ``"B → A"``."""
        return (self.name_a, self.name_b) if direction == "A → B" else (self.name_b, self.name_a)


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
    members = [rng.permutation(np.flatnonzero(y == label)) for label in np.unique(y)]
    halves = [np.split(m, [(len(m) + 1) // 2]) for m in members]
    return tuple(np.sort(np.concatenate(half)) for half in zip(*halves))


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


def _domains(X_a, y_a, X_b, y_b, side, name_a, name_b, kind, description):
    X_a, X_b = np.ascontiguousarray(X_a, dtype=np.float64), np.ascontiguousarray(X_b, dtype=np.float64)
    y_a, y_b = np.asarray(y_a), np.asarray(y_b)
    key = fingerprint(X_a, y_a, X_b, y_b)
    paper_rows = {"A → B": "U → M", "B → A": "M → U"}
    return DigitDomains(X_a, y_a, X_b, y_b, side, name_a, name_b, kind, description, paper_rows, key)


def make_offline_domains(random_state=0, side=SIDE, inner=OFFLINE_INNER_SIDE):
    """USPS-like and MNIST-like domains from scikit-learn's bundled digits (no network).

    ``load_digits``' 1,797 digits (8 x 8, ink 0..16 scaled to [0, 1]) are split into two
    disjoint class-stratified halves (:func:`stratified_halves`).  Domain A ("USPS-like")
    enlarges its half to the full ``side x side`` frame; domain B ("MNIST-like") to
    ``inner x inner``, centred in an empty frame (:func:`place_centred`), as MNIST digits
    occupy the centre while USPS digits fill the image (Figure 5): A -> B mirrors the
    paper's U -> M.

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
    names = ("USPS-like (fills frame)", "MNIST-like (centred)")
    return _domains(
        X_a, digits.target[idx_a], X_b, digits.target[idx_b], side, *names, "offline", description
    )


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
#: Most bytes the arrays of a cached collection may inflate to (float32 images, labels of
#: up to 16 bytes), checked in the archive's directory before anything is inflated
#: (:mod:`zipfile` inflates no member beyond its listed size); also the largest file read.
MAX_CACHED_BYTES = MAX_CACHED_IMAGES * (SIDE * SIDE * 4 + 16)


def _cache_path(cache_dir, name):
    return Path(cache_dir) / f"{name}_16x16.npz"


def _read_cached(path):
    """``(X, y)`` of a prepared collection in the cache, or None when it is not there or
    cannot be trusted: not a regular file (a FIFO, a device, a symlink), over
    :data:`MAX_CACHED_BYTES` on disk or inflated, not an NPZ of at most
    :data:`MAX_CACHED_IMAGES` 16 x 16 images and as many labels (read with
    ``allow_pickle=False``)."""
    try:
        archive = np.load(io.BytesIO(read_regular_file(path, MAX_CACHED_BYTES)), allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            return None
        with archive:
            if sum(member.file_size for member in archive.zip.infolist()) > MAX_CACHED_BYTES:
                return None
            X, y = archive["X"], archive["y"]
    except Exception:  # whatever a broken or crafted archive raises: not cached
        return None
    images = X.ndim == 2 and X.shape[1] == SIDE * SIDE and len(X) <= MAX_CACHED_IMAGES
    if not images or X.dtype.kind not in "iuf" or y.dtype.kind not in "iuUS" or y.shape != (len(X),):
        return None
    return X.astype(np.float64), y


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
        with contextlib.suppress(OSError):  # (a folder in its place): the download is then not cached
            path.unlink()  # a broken cache entry is simply re-downloaded
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
    with contextlib.suppress(ValueError):  # numeric labels as integers
        y = y.astype(float).astype(np.int64)
    if len(y) != len(X):
        raise DigitDataUnavailable(f"'{name}' from OpenML has {len(X)} images but {len(y)} labels.")
    X = X.astype(np.float32)
    write_atomically(path, lambda out: np.savez_compressed(out, X=X, y=y))
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

    MNIST (OpenML ``mnist_784``, 28 x 28) is area-resampled to 16 x 16; USPS (OpenML
    ``usps``, 16 x 16) is kept; both get ink in [0, 1] on a zero background, then a
    class-balanced subsample (:func:`balanced_subsample`).  Domain A is USPS, so A -> B is
    the paper's U -> M.  The prepared collections are cached in ``cache_dir``
    (:func:`_read_cached`); later calls need no network.

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
        X_u[pick_u], y_u[pick_u], X_m[pick_m], y_m[pick_m], SIDE, "USPS", "MNIST", "openml", description
    )


def direction_data(domains, direction):
    """``(X_source, y_source, X_target, y_target)`` for ``"A → B"`` or ``"B → A"``."""
    if direction == "A → B":
        return domains.X_a, domains.y_a, domains.X_b, domains.y_b
    if direction == "B → A":
        return domains.X_b, domains.y_b, domains.X_a, domains.y_a
    raise ValueError(f"direction must be 'A → B' or 'B → A', got {direction!r}.")
