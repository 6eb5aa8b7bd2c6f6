"""The paper's real-data benchmarks (section 4.2): its tables as typed, and their data.

* Tables 5, 7 and 8 -- the authors' own files, shipped in ``sample_data/paper``
  (``PROVENANCE.md`` there: MIT licence, checksums), read offline once per process
  (:func:`load_set`): Office-Caltech with SURF features (dense, 2533 x 800), IMDB
  reviews by genre and SMS/e-mail spam (bag of words, kept ``scipy.sparse``).
* Tables 6 (Office, DeCAF8) and 9 (Amazon reviews) -- not in those files: downloaded on
  request with skada's fetchers into ``<cache>/skada`` of
  :func:`explorer.data.digits.default_cache_dir` (``$FLDA_CACHE_DIR``); without network
  and cache :func:`pair_data` fails within seconds with :class:`BenchmarkUnavailable`.
  skada's Amazon features are its own 400-dimensional ones, not the paper's.

MNIST and USPS (Table 4) are on the "Handwritten digits" page; Table 3 is
:mod:`explorer.experiments.missing_data`.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
import sklearn

from explorer.data.digits import default_cache_dir, openml_reachable
from explorer.data.files import without_paths
from explorer.registry import SAMPLE_DIR

__all__ = [
    "HOST",
    "PAPER_DIR",
    "COLUMNS",
    "Benchmark",
    "BENCHMARKS",
    "PAPER_TABLES",
    "BenchmarkUnavailable",
    "DomainSet",
    "typed_table",
    "cache_dir",
    "load_set",
    "pair_data",
    "pairs",
    "pair_letters",
    "paper_rows",
]

#: Where skada's fetchers download from (checked before a download).
HOST = "figshare.com"
#: The authors' files of Tables 5, 7 and 8.
PAPER_DIR = SAMPLE_DIR / "paper"
#: The columns of the paper's Tables 3 and 5-9, in its order.
COLUMNS = ("S-SVM", "S-LR", "KMM", "SCL", "SA", "GFK", "TCA", "FLDA-Q", "FLDA-L", "T-LR")


def typed_table(text, pair_rows=True):
    """Rows typed as in the paper (``"A→D .599 .618 ..."``, one value per :data:`COLUMNS`)
    -> ``{row: {classifier: error}}``; with ``pair_rows`` the row ``"A→D"`` is ``"A → D"``."""
    rows = {}
    for line in text.strip().splitlines():
        name, *values = line.split()
        rows[" → ".join(name.split("→")) if pair_rows else name] = dict(zip(COLUMNS, map(float, values)))
    return rows


#: The paper's Tables 5-9 (target error), typed from the paper.
PAPER_TABLES = {
    "office_caltech": typed_table("""
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
    "office31_decaf": typed_table("""
        A→D .406 .388 .402 .422 .460 .424 .351 .428 .388 .104
        A→W .434 .468 .455 .474 .499 .477 .426 .491 .468 .064
        D→W .086 .079 .083 .074 .103 .073 .087 .088 .079 .064
        D→A .516 .496 .502 .497 .520 .569 .489 .589 .487 .216
        W→A .520 .496 .514 .506 .541 .584 .510 .645 .501 .216
        W→D .034 .030 .032 .034 .062 .052 .042 .024 .044 .104"""),
    "imdb": typed_table("""
        A→F .145 .136 .133 .133 .184 .276 .230 .135 .136 .196
        A→W .158 .155 .155 .165 .163 .249 .266 .158 .154 .163
        F→W .256 .206 .208 .206 .182 .289 .355 .205 .202 .163
        F→A .201 .195 .193 .198 .193 .296 .363 .194 .194 .169
        W→A .168 .160 .159 .159 .167 .238 .222 .155 .157 .169
        W→F .340 .167 .163 .163 .232 .292 .203 .172 .159 .196"""),
    "spam": typed_table("""
        S→M .460 .522 .521 .524 .445 .491 .508 .511 .521 .073
        M→S .830 .804 .799 .804 .408 .696 .863 .636 .727 .133"""),
    "amazon": typed_table("""
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
    """One of the paper's benchmark tables.

    Attributes
    ----------
    key, title : str
    table : str
        The paper's table, e.g. ``"Table 5"``.
    domains : dict
        The paper's letter -> the domain's name (in the file, or skada's name).
    file : str
        The authors' file in :data:`PAPER_DIR` (offline), or ``""`` (downloaded).
    fetcher : str
        The function of ``skada.datasets`` that downloads it (when ``file`` is ``""``).
    kwargs : tuple of (str, str)
        Extra fetcher arguments.
    note : str
        How the data are read or differ from the paper's.
    """

    key: str
    title: str
    table: str
    domains: dict
    file: str = ""
    fetcher: str = ""
    kwargs: tuple = ()
    note: str = ""

    @property
    def offline(self):
        """True for the tables read from the shipped files."""
        return bool(self.file)


BENCHMARKS = {
    "office_caltech": Benchmark(
        "office_caltech",
        "Office-Caltech, SURF features (10 classes)",
        "Table 5",
        {"A": "amazon", "D": "dslr", "W": "webcam", "C": "caltech"},
        file="da_office_caltech.mat",
        note="The authors' file (sample_data/paper): 800 bag-of-visual-words counts, dense.",
    ),
    "office31_decaf": Benchmark(
        "office31_decaf",
        "Office, DeCAF8 features (31 classes)",
        "Table 6",
        {"A": "amazon", "D": "dslr", "W": "webcam"},
        fetcher="fetch_office31_decaf",
        note="Downloaded by skada (its copy of the DeCAF8 features the paper uses).",
    ),
    "imdb": Benchmark(
        "imdb",
        "IMDB reviews by genre",
        "Table 7",
        {"A": "Action", "F": "Family", "W": "War"},
        file="da_imdb.mat",
        note="The authors' file (sample_data/paper): 4180 word counts, kept sparse.",
    ),
    "spam": Benchmark(
        "spam",
        "Spam, SMS and e-mail",
        "Table 8",
        {"S": "sms", "M": "mail"},
        file="da_sm_spam.mat",
        note="The authors' file (sample_data/paper): 4272 word counts, kept sparse.",
    ),
    "amazon": Benchmark(
        "amazon",
        "Amazon reviews",
        "Table 9",
        {"B": "books", "D": "dvd", "E": "elec", "K": "kitchen"},
        fetcher="fetch_amazon_review",
        note="Downloaded by skada: its 400-dimensional review features, not the paper's "
        "bag of words, so expect other numbers.",
    ),
}


class BenchmarkUnavailable(RuntimeError):
    """A downloaded benchmark could not be loaded (no network, server down, broken
    download, an unreadable cached file).  Its message names the data set and the fix,
    never the server's cache path."""


@dataclass(frozen=True)
class DomainSet:
    """One of the authors' files, read once: every row, its label and its domain.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_rows, n_features), float64, read-only
    y : ndarray of int, read-only
    offsets : dict ``{letter: (first row, end row)}``
    """

    X: object
    y: np.ndarray
    offsets: dict


def _read_only(X):
    for array in (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,):
        array.flags.writeable = False
    return X


@functools.lru_cache(maxsize=len(BENCHMARKS))
def load_set(key, folder=None):
    """The authors' file of an offline benchmark, read once per process and read-only.

    ``D`` is oriented rows x features (the IMDB file stores it transposed); the bag of
    words (IMDB, spam) becomes a CSR matrix, Office-Caltech a dense array.
    """
    from scipy.io import loadmat

    benchmark = BENCHMARKS[key]
    if not benchmark.offline:
        raise ValueError(f"{benchmark.title} is not in the shipped files; use pair_data.")
    content = loadmat(Path(folder or PAPER_DIR) / benchmark.file)
    D = content["D"].T if key == "imdb" else content["D"]
    X = np.asarray(D, dtype=np.float64) if key == "office_caltech" else sp.csr_matrix(D, dtype=np.float64)
    bounds = content["domains"].ravel().astype(int)
    names = [str(np.ravel(n)[0]) for n in content["domain_names"].ravel()]
    offsets = {
        letter: (bounds[names.index(name)], bounds[names.index(name) + 1])
        for letter, name in benchmark.domains.items()
    }
    return DomainSet(_read_only(X), _read_only(content["y"].ravel().astype(np.int64)), offsets)


def pairs(key):
    """The domain pairs of a benchmark in its table's order, e.g. ``["A → D", ...]``."""
    return list(PAPER_TABLES[key])


def paper_rows(key):
    """The paper's table of a benchmark as a DataFrame (rows: pairs, columns: classifiers)."""
    frame = pd.DataFrame.from_dict(PAPER_TABLES[key], orient="index")
    frame.index.name = "source → target"
    return frame


def pair_letters(key, pair):
    """The source and target letters of ``pair`` (``"A → D"``), else ``ValueError``."""
    benchmark = BENCHMARKS[key]
    source, target = (p.strip() for p in str(pair).split("→")) if "→" in str(pair) else ("", "")
    if source not in benchmark.domains or target not in benchmark.domains or source == target:
        raise ValueError(f"Unknown pair {pair!r} for {benchmark.title}; choose from {pairs(key)}.")
    return source, target


def pair_data(key, pair, root=None, fetch=None, reachable=None):
    """Source and target rows of one domain pair: ``X_source, y_source, X_target, y_target``.

    Offline benchmarks are row ranges of :func:`load_set` (views of the dense
    Office-Caltech array, CSR copies of the sparse rows); the others are downloaded once
    with skada and cached (``root``: the cache root; ``fetch``: ``(benchmark, domain,
    data_home, download_if_missing) -> (X, y)``, raising ``OSError`` when not cached and
    not to download; ``reachable``: a fast network check; tests pass fakes).

    Raises
    ------
    BenchmarkUnavailable
        A downloaded benchmark that cannot be loaded now (the message says why).
    """
    benchmark = BENCHMARKS[key]
    letters = pair_letters(key, pair)
    if benchmark.offline:
        data = load_set(key)
        out = []
        for letter in letters:
            first, end = data.offsets[letter]
            out += [data.X[first:end], data.y[first:end]]
        return tuple(out)
    fetch = _skada_fetch if fetch is None else fetch
    reachable = (lambda: openml_reachable(HOST)) if reachable is None else reachable
    home, out = cache_dir(root), []
    for letter in letters:
        out += _load_domain(benchmark, benchmark.domains[letter], home, fetch, reachable)
    return tuple(out)


#: How to get rid of a cached copy that cannot be read (without the server's own path).
CACHE_FIX = (
    "Whoever runs this server should delete the benchmark's folder under 'skada' "
    "in the data cache (the folder FLDA_CACHE_DIR names, by default "
    "~/.cache/flda/skada); then 'Download and run' downloads it again."
)


def cache_dir(root=None):
    """Folder of skada's downloads: ``<default_cache_dir()>/skada``."""
    return Path(default_cache_dir() if root is None else root) / "skada"


def _skada_fetch(benchmark, domain, data_home, download_if_missing):
    with sklearn.config_context():  # restores the routing flag skada's import switches on
        from skada import datasets as sd

    kwargs = {name: getattr(sd.Office31CategoriesPreset, value) for name, value in benchmark.kwargs}
    fetch = getattr(sd, benchmark.fetcher)
    return fetch(
        domain, data_home=str(data_home), download_if_missing=download_if_missing, return_X_y=True, **kwargs
    )


def _unreadable(benchmark, domain, error):
    return BenchmarkUnavailable(
        f"{benchmark.title}: the cached copy of the {domain} domain cannot be read "
        f"({type(error).__name__}: {without_paths(error)}). {CACHE_FIX}"
    )


def _load_domain(benchmark, domain, home, fetch, reachable):
    """One domain's ``[X, y]``: from the cache, else downloaded; any failure to read a
    cached copy is :class:`BenchmarkUnavailable` naming the fix."""
    try:
        return _checked(*fetch(benchmark, domain, home, False))
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
        return _checked(X, y)
    except Exception as error:
        raise _unreadable(benchmark, domain, error) from error


def _checked(X, y):
    """``[X, y]`` as a 2-D float array with one label per row, else ``ValueError``."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y) or len(X) == 0:
        raise ValueError(f"unexpected shape {X.shape} for {y.shape} labels")
    return [X, y]
