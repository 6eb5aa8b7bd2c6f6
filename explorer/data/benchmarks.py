"""The paper's image and text benchmarks that skada can download (section 4.2).

Offered when the network is there, never needed offline:

* Office with DeCAF8 features (Table 6): Amazon, DSLR and Webcam, 31 classes
  -- ``skada.datasets.fetch_office31_decaf``;
* Office-Caltech with SURF features (Table 5): the 10 Office-Caltech classes
  of Amazon, DSLR and Webcam -- ``skada.datasets.fetch_office31_surf``
  (skada has no Caltech domain, so the paper's pairs with C are left out);
* Amazon reviews (Table 9): Books, DVD, Electronics, Kitchen --
  ``skada.datasets.fetch_amazon_review`` (skada's pre-computed 400-dimensional
  features, not the paper's bag of words).

MNIST and USPS (Table 4) are on the "Handwritten digits" page
(:func:`explorer.data.digits.load_mnist_usps`).

Downloads go through skada's own fetchers (no HTTP code here) into
``<cache>/skada`` of :func:`explorer.data.digits.default_cache_dir`
(``$FLDA_CACHE_DIR`` or ``~/.cache/flda``); later loads read the cache and
need no network.  Without network and cache, :func:`load_pair` fails within
seconds with :class:`BenchmarkUnavailable`, and the paper's numbers
(:data:`PAPER_TABLES`) are still there to show.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn

from explorer.data.digits import default_cache_dir, openml_reachable
from explorer.data.files import without_paths

__all__ = [
    "HOST",
    "Benchmark",
    "BENCHMARKS",
    "PAPER_TABLES",
    "BenchmarkUnavailable",
    "cache_dir",
    "load_pair",
    "paper_rows",
    "pairs",
]

#: Where skada's fetchers download from (checked before a download).
HOST = "figshare.com"
_COLUMNS = ("S-SVM", "S-LR", "KMM", "SCL", "SA", "GFK", "TCA", "FLDA-Q", "FLDA-L", "T-LR")


def _rows(text):
    """``"A→D .599 .618 ..."`` lines -> ``{"A → D": {classifier: error}}``."""
    rows = {}
    for line in text.strip().splitlines():
        pair, *values = line.split()
        source, target = pair.split("→")
        rows[f"{source} → {target}"] = dict(zip(_COLUMNS, map(float, values)))
    return rows


#: The paper's Tables 5, 6 and 9 (target error), typed from the paper.
PAPER_TABLES = {
    "office_caltech_surf": _rows("""
        A→D .599 .618 .616 .621 .627 .624 .624 .599 .624 .303
        A→W .688 .675 .668 .686 .606 .631 .712 .648 .678 .181
        A→C .557 .553 .563 .555 .594 .614 .579 .565 .550 .427
        D→W .312 .312 .346 .317 .167 .153 .295 .322 .312 .181
        D→C .744 .712 .734 .712 .655 .706 .680 .712 .710 .427
        W→C .721 .698 .709 .705 .677 .697 .688 .675 .701 .427
        D→A .876 .719 .727 .724 .616 .680 .650 .700 .722 .258
        W→A .676 .695 .706 .707 .631 .665 .668 .671 .691 .258
        C→A .493 .523 .515 .496 .538 .592 .504 .490 .475 .258
        W→D .198 .191 .178 .198 .214 .121 .166 .191 .185 .303
        C→D .612 .616 .631 .583 .575 .599 .612 .510 .599 .303
        C→W .712 .725 .729 .724 .600 .603 .695 .654 .702 .181"""),
    "office31_decaf": _rows("""
        A→D .406 .388 .402 .422 .460 .424 .351 .428 .388 .104
        A→W .434 .468 .455 .474 .499 .477 .426 .491 .468 .064
        D→W .086 .079 .083 .074 .103 .073 .087 .088 .079 .064
        D→A .516 .496 .502 .497 .520 .569 .489 .589 .487 .216
        W→A .520 .496 .514 .506 .541 .584 .510 .645 .501 .216
        W→D .034 .030 .032 .034 .062 .052 .042 .024 .044 .104"""),
    "amazon": _rows("""
        B→D .180 .168 .166 .167 .414 .392 .413 .303 .166 .153
        B→E .217 .221 .222 .220 .372 .429 .369 .343 .210 .116
        B→K .188 .188 .189 .184 .371 .443 .338 .384 .185 .095
        D→E .201 .202 .205 .207 .403 .480 .385 .369 .196 .116
        D→K .182 .182 .185 .190 .330 .494 .360 .379 .185 .095
        E→K .108 .110 .106 .112 .311 .416 .261 .308 .104 .095
        D→B .192 .190 .191 .202 .351 .388 .420 .368 .186 .145
        E→B .257 .262 .253 .260 .372 .445 .481 .406 .261 .145
        K→B .261 .277 .268 .273 .414 .418 .426 .399 .271 .145
        E→D .245 .240 .238 .242 .398 .441 .427 .384 .238 .153
        K→D .230 .230 .230 .231 .383 .410 .400 .370 .228 .153
        K→E .123 .131 .126 .126 .290 .353 .296 .292 .119 .116"""),
}


@dataclass(frozen=True)
class Benchmark:
    """One downloadable benchmark.

    Attributes
    ----------
    key, title : str
    table : str
        The paper's table, e.g. ``"Table 6"``.
    fetcher : str
        Name of the function in ``skada.datasets``.
    domains : dict
        The paper's letter -> skada's domain name.
    kwargs : tuple of (str, str)
        Extra fetcher arguments (``categories`` preset by name).
    note : str
        How the data differ from the paper's.
    """

    key: str
    title: str
    table: str
    fetcher: str
    domains: dict
    kwargs: tuple = ()
    note: str = ""


BENCHMARKS = {
    "office31_decaf": Benchmark(
        "office31_decaf",
        "Office, DeCAF8 features (31 classes)",
        "Table 6",
        "fetch_office31_decaf",
        {"A": "amazon", "D": "dslr", "W": "webcam"},
        note="skada's copy of the DeCAF8 features the paper uses.",
    ),
    "office_caltech_surf": Benchmark(
        "office_caltech_surf",
        "Office-Caltech, SURF features (10 classes)",
        "Table 5",
        "fetch_office31_surf",
        {"A": "amazon", "D": "dslr", "W": "webcam"},
        kwargs=(("categories", "CALTECH256"),),
        note="skada has no Caltech (C) domain: the paper's pairs with C are not offered.",
    ),
    "amazon": Benchmark(
        "amazon",
        "Amazon reviews",
        "Table 9",
        "fetch_amazon_review",
        {"B": "books", "D": "dvd", "E": "elec", "K": "kitchen"},
        note="skada's pre-computed 400-dimensional review features, not the paper's "
        "bag of words: expect other numbers.",
    ),
}


class BenchmarkUnavailable(RuntimeError):
    """A benchmark could not be loaded (no network, server down, broken download, an
    unreadable cached file).  Its message names the data set and the fix, never the
    server's cache path."""


#: How to get rid of a cached copy that cannot be read (the cache's place without the
#: server's own path: the administrator knows where FLDA_CACHE_DIR points).
CACHE_FIX = (
    "Whoever runs this server should delete the benchmark's folder under 'skada' "
    "in the data cache (the folder FLDA_CACHE_DIR names, by default "
    "~/.cache/flda/skada); then 'Download (if needed) and run' downloads it again."
)


def _unreadable(benchmark, domain, error):
    return BenchmarkUnavailable(
        f"{benchmark.title}: the cached copy of the {domain} domain cannot be read "
        f"({type(error).__name__}: {without_paths(error)}). {CACHE_FIX}"
    )


def cache_dir(root=None):
    """Folder of skada's downloads: ``<default_cache_dir()>/skada``."""
    return Path(default_cache_dir() if root is None else root) / "skada"


def pairs(key):
    """Domain pairs offered for a benchmark, e.g. ``["A → D", "A → W", ...]``."""
    letters = list(BENCHMARKS[key].domains)
    return [f"{s} → {t}" for s in letters for t in letters if s != t]


def paper_rows(key):
    """The paper's table for a benchmark as a DataFrame (rows: pairs, columns: classifiers)."""
    frame = pd.DataFrame.from_dict(PAPER_TABLES[key], orient="index")
    frame.index.name = "source → target"
    return frame


def _skada_fetch(benchmark, domain, data_home, download_if_missing):
    with sklearn.config_context():  # restores the routing flag skada's import switches on
        from skada import datasets as sd

    kwargs = {}
    for name, value in benchmark.kwargs:
        kwargs[name] = getattr(sd.Office31CategoriesPreset, value)
    fetch = getattr(sd, benchmark.fetcher)
    return fetch(
        domain, data_home=str(data_home), download_if_missing=download_if_missing, return_X_y=True, **kwargs
    )


def _load_domain(benchmark, domain, home, fetch, reachable):
    """One domain's ``(X, y)``: from the cache, else downloaded.  Any failure to read a
    cached copy (``scipy.io.loadmat``'s "Unknown mat file type", a wrong shape, ...)
    is :class:`BenchmarkUnavailable` naming the fix."""
    try:
        return _checked(benchmark, domain, *fetch(benchmark, domain, home, False))
    except OSError:
        pass  # not in the cache yet
    except Exception as error:  # in the cache but not readable: never a traceback
        raise _unreadable(benchmark, domain, error) from error
    if not reachable():
        raise BenchmarkUnavailable(
            f"{HOST} (where skada downloads {benchmark.title} from) cannot be reached from "
            "this machine, and the data are not in the cache of this server."
        )
    home.mkdir(parents=True, exist_ok=True)
    before = set(home.iterdir())
    try:
        X, y = fetch(benchmark, domain, home, True)
    except Exception as error:  # network, HTTP, archive: all mean "not available now"
        for path in set(home.iterdir()) - before:  # a half-finished download is removed
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink()
        raise BenchmarkUnavailable(
            f"Downloading {benchmark.title} failed ({type(error).__name__}: "
            f"{without_paths(error)}). Try again later; if it keeps failing, "
            f"{CACHE_FIX[0].lower()}{CACHE_FIX[1:]}"
        ) from error
    try:
        return _checked(benchmark, domain, X, y)
    except Exception as error:
        raise _unreadable(benchmark, domain, error) from error


def _checked(benchmark, domain, X, y):
    """``(X, y)`` as a 2-D float array with one label per row, else ``ValueError``."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y) or len(X) == 0:
        raise ValueError(f"unexpected shape {X.shape} for {y.shape} labels")
    return X, y


def load_pair(key, pair, root=None, fetch=None, reachable=None):
    """Source and target data of one domain pair, downloaded once and cached.

    Parameters
    ----------
    key : str
        One of :data:`BENCHMARKS`.
    pair : str
        ``"A → D"`` etc. (see :func:`pairs`).
    root : path-like, optional
        Cache root (default :func:`~explorer.data.digits.default_cache_dir`).
    fetch : callable ``(benchmark, domain, data_home, download_if_missing) -> (X, y)``
        Loader (default: skada's fetcher); must raise ``OSError`` when the
        data are not cached and ``download_if_missing`` is False.  Tests pass a fake.
    reachable : callable ``() -> bool``
        Fast network check before a download (default: a 3-second TCP connect
        to :data:`HOST`).

    Returns
    -------
    X_source, y_source, X_target, y_target : ndarray

    Raises
    ------
    BenchmarkUnavailable
    """
    benchmark = BENCHMARKS[key]
    source, target = (p.strip() for p in pair.split("→"))
    if source not in benchmark.domains or target not in benchmark.domains or source == target:
        raise ValueError(f"Unknown pair {pair!r} for {benchmark.title}; choose from {pairs(key)}.")
    fetch = _skada_fetch if fetch is None else fetch
    reachable = (lambda: openml_reachable(HOST)) if reachable is None else reachable
    home = cache_dir(root)
    out = []
    for letter in (source, target):
        out += _load_domain(benchmark, benchmark.domains[letter], home, fetch, reachable)
    return tuple(out)
