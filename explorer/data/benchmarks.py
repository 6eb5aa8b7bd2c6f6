"""The paper's real-data tables (section 4.2): its numbers as typed, and their data.

Every table is a list of *pairs*, each a source and a target (:func:`pairs`,
:func:`pair_data`):

* Table 3 (``"uci"``) -- the six UCI data sets of :mod:`explorer.data.uci`: complete rows
  the source, rows with gaps the target.
* Tables 5, 7 and 8 -- the authors' own files in ``sample_data/paper`` (``PROVENANCE.md``
  there), read offline by :func:`flda_core.load_paper_domains` (:func:`paper_domains`):
  Office-Caltech SURF (dense), IMDB and spam (bag of words, kept ``scipy.sparse``), every
  count divided by the file's largest.
* Tables 6 (Office, DeCAF8) and 9 (Amazon) -- downloaded on request with skada's fetchers
  into ``<cache>/skada`` (:func:`explorer.data.digits.default_cache_dir`); without network
  and cache :func:`pair_data` fails within seconds with :class:`BenchmarkUnavailable`.
  skada's Amazon features are its own 400-dimensional ones, not the paper's.  Rows are
  divided by their largest absolute value, as the files are.

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

from explorer.data import uci
from explorer.data.digits import default_cache_dir, openml_reachable
from explorer.data.files import without_paths
from explorer.registry import SAMPLE_DIR
from flda_core import load_paper_domains
from flda_core.paper_data import PAPER_FILES

#: The key of Table 3 (the UCI data sets with missing values).
TABLE3 = "uci"
#: Where skada's fetchers download from (checked before a download).
HOST = "figshare.com"
#: The authors' files of Tables 5, 7 and 8.
PAPER_DIR = SAMPLE_DIR / "paper"
#: The columns of the paper's Tables 3 and 5-9, in its order.
COLUMNS = ("S-SVM", "S-LR", "KMM", "SCL", "SA", "GFK", "TCA", "FLDA-Q", "FLDA-L", "T-LR")


def typed_table(text):
    """Rows typed as in the paper (``"A→D .599 .618 ..."``, one value per :data:`COLUMNS`)
    -> ``{row: {classifier: error}}``; the row ``"A→D"`` is ``"A → D"``, a data set keeps its name."""
    rows = [line.split() for line in text.strip().splitlines()]
    return {" → ".join(name.split("→")): dict(zip(COLUMNS, map(float, values))) for name, *values in rows}


#: The paper's Tables 3 and 5-9 (target error), typed from the paper.
PAPER_TABLES = {
    TABLE3: typed_table("""
        hepatitis .213 .493 .347 .480 .253 .227 .213 .227 .200 .150
        ozone .060 .124 .126 .136 .047 .093 .140 .047 .079 .069
        heart .409 .338 .390 .319 .596 .362 .391 .203 .203 .177
        mammographic .331 .462 .446 .462 .323 .423 .323 .462 .431 .194
        automobile .848 .935 .913 .935 .587 .565 .848 .848 .848 .371
        arrhythmia .930 .854 .620 .818 .414 .651 .930 .456 .889 .353"""),
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
        The paper's letter -> the domain's name (in the file, or skada's name); for
        Table 3 the data set -> its title.
    fetcher : str
        The function of ``skada.datasets`` that downloads it (Tables 6 and 9).
    note : str
        How the data are read or differ from the paper's.
    """

    key: str
    title: str
    table: str
    domains: dict
    fetcher: str = ""
    note: str = ""

    @property
    def offline(self):
        """True for the tables read from the shipped files."""
        return not self.fetcher

    @property
    def pair_word(self):
        """What the table's rows are: data sets (Table 3) or domain pairs."""
        return "data set" if self.key == TABLE3 else "source → target"


BENCHMARKS = {
    TABLE3: Benchmark(
        TABLE3,
        "UCI data with missing values",
        "Table 3",
        {key: spec.title for key, spec in uci.UCI_SETS.items()},
        note="Files: sample_data/uci/ (UCI Machine Learning Repository, CC BY 4.0; see PROVENANCE.md "
        "there): a data set's complete rows are the source, its rows with a gap the target.",
    ),
    "office_caltech": Benchmark(
        "office_caltech",
        "Office-Caltech, SURF features (10 classes)",
        "Table 5",
        {"A": "amazon", "D": "dslr", "W": "webcam", "C": "caltech"},
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
        note="The authors' file (sample_data/paper): 4180 word counts, kept sparse.",
    ),
    "spam": Benchmark(
        "spam",
        "Spam, SMS and e-mail",
        "Table 8",
        {"S": "sms", "M": "mail"},
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


def _read_only(X):
    for array in (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,):
        array.flags.writeable = False
    return X


@functools.lru_cache(maxsize=len(PAPER_FILES))
def paper_domains(key):
    """The authors' file of Table 5, 7 or 8 as :func:`flda_core.load_paper_domains` reads it
    (``{letter: (X, y)}``, counts divided by the file's largest, IMDB and spam sparse), once
    per process and read-only (the rows are shared by every session)."""
    domains = load_paper_domains(PAPER_DIR / PAPER_FILES[BENCHMARKS[key].table])
    return {letter: (_read_only(X), _read_only(y)) for letter, (X, y) in domains.items()}


def pairs(key):
    """The domain pairs of a benchmark in its table's order, e.g. ``["A → D", ...]``."""
    return list(PAPER_TABLES[key])


def paper_rows(key):
    """The paper's table as a DataFrame (rows: pairs by :func:`pair_title`, columns: classifiers)."""
    frame = pd.DataFrame.from_dict(PAPER_TABLES[key], orient="index")
    frame.index = pd.Index([pair_title(key, p) for p in frame.index], name=BENCHMARKS[key].pair_word)
    return frame


def check_pair(key, pair):
    """``ValueError`` unless ``pair`` is one of ``key``'s table (``"A → D"``, ``"heart"``)."""
    if pair not in PAPER_TABLES[key]:
        raise ValueError(f"Unknown pair {pair!r} of {BENCHMARKS[key].title}; choose from {pairs(key)}.")


def pair_title(key, pair):
    """A pair as the page names it: Table 3's data set by its title, else ``"A → D"``."""
    return BENCHMARKS[key].domains.get(pair, pair)


def pair_data(key, pair, root=None, fetch=None, reachable=None, impute="zero", keep_gaps=False):
    """Source and target rows of one pair: ``X_source, y_source, X_target, y_target``.

    Table 3's data sets are :func:`explorer.data.uci.problem` (``impute``, ``keep_gaps``:
    its gaps' filling); the authors' files are domains of :func:`paper_domains` (views of
    the dense Office-Caltech array, CSR rows of the sparse ones); the others are
    downloaded once with skada and cached (``root``: the cache root; ``fetch``:
    ``(benchmark, domain, data_home, download_if_missing) -> (X, y)``, raising ``OSError``
    when not cached and not to download; ``reachable``: a fast network check; tests pass
    fakes), then divided by the pair's largest absolute value.

    Raises
    ------
    BenchmarkUnavailable
        A downloaded benchmark that cannot be loaded now (the message says why).
    """
    benchmark = BENCHMARKS[key]
    check_pair(key, pair)
    if key == TABLE3:
        data = uci.problem(pair, impute, keep_gaps)
        return data.X_source, data.y_source, data.X_target, data.y_target
    letters = pair.split(" → ")
    if benchmark.offline:
        return tuple(part for letter in letters for part in paper_domains(key)[letter])
    fetch = _skada_fetch if fetch is None else fetch
    reachable = (lambda: openml_reachable(HOST)) if reachable is None else reachable
    home = cache_dir(root)
    domains = [benchmark.domains[letter] for letter in letters]
    (X_s, y_s), (X_t, y_t) = (_load_domain(benchmark, d, home, fetch, reachable) for d in domains)
    largest = max(np.abs(X_s).max(), np.abs(X_t).max())
    scale = largest if largest > 0 else 1.0
    return X_s / scale, y_s, X_t / scale, y_t


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

    fetch = getattr(sd, benchmark.fetcher)
    return fetch(domain, data_home=str(data_home), download_if_missing=download_if_missing, return_X_y=True)


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
