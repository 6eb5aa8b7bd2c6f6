"""The paper's benchmarks: the authors' files of Tables 5, 7 and 8 (offline), and skada's
downloads of Tables 6 and 9 tested with a fake download."""

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp

from explorer.data import benchmarks as bm


class FakeSkada:
    """Stands in for skada's fetchers: a "download" writes a file into the cache."""

    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def __call__(self, benchmark, domain, data_home, download_if_missing):
        self.calls.append((benchmark.key, domain, download_if_missing))
        path = data_home / f"{benchmark.key}_{domain}.npz"
        if not path.exists():
            if not download_if_missing:
                raise OSError("Data not found and `download_if_missing` is False")
            (data_home / "partial").mkdir()
            if self.fail:
                raise ConnectionError("connection reset")
            rng = np.random.default_rng(len(domain))
            np.savez(path, X=rng.poisson(1.0, (30, 8)), y=rng.integers(0, 3, 30))
            (data_home / "partial").rmdir()
        with np.load(path) as data:
            return data["X"], data["y"]


def test_first_load_downloads_into_the_cache_and_the_second_needs_no_network(tmp_path):
    fake = FakeSkada()
    X_s, y_s, X_t, y_t = bm.pair_data("amazon", "B → K", root=tmp_path, fetch=fake, reachable=lambda: True)
    assert X_s.shape == (30, 8) and X_t.shape == (30, 8) and len(y_s) == len(y_t) == 30
    assert (tmp_path / "skada" / "amazon_books.npz").exists()
    raw = [np.load(tmp_path / "skada" / f"amazon_{d}.npz")["X"] for d in ("books", "kitchen")]
    largest = max(r.max() for r in raw)  # the pair divided by its largest value, as the files
    np.testing.assert_allclose(X_s * largest, raw[0])
    np.testing.assert_allclose(X_t * largest, raw[1])
    assert fake.calls == [
        ("amazon", "books", False),
        ("amazon", "books", True),
        ("amazon", "kitchen", False),
        ("amazon", "kitchen", True),
    ]

    def offline():
        raise AssertionError("no network check when cached")

    again = bm.pair_data("amazon", "B → K", root=tmp_path, fetch=fake, reachable=offline)
    np.testing.assert_array_equal(again[0], X_s)
    assert fake.calls[-2:] == [("amazon", "books", False), ("amazon", "kitchen", False)]


def test_offline_without_cache_raises_a_clear_message(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable, match="cannot be reached.*not in the cache"):
        bm.pair_data("office31_decaf", "A → W", root=tmp_path, fetch=FakeSkada(), reachable=lambda: False)


def test_failed_download_leaves_no_half_finished_files(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable, match="ConnectionError"):
        bm.pair_data(
            "office31_decaf", "D → W", root=tmp_path, fetch=FakeSkada(fail=True), reachable=lambda: True
        )
    assert list((tmp_path / "skada").iterdir()) == []


def test_pairs_and_the_papers_tables():
    assert bm.pairs("office31_decaf") == ["A → D", "A → W", "D → W", "D → A", "W → A", "W → D"]
    assert len(bm.pairs("office_caltech")) == 12 and len(bm.pairs("amazon")) == 12
    assert bm.pairs("imdb") == ["A → F", "A → W", "F → W", "F → A", "W → A", "W → F"]
    assert bm.pairs("spam") == ["S → M", "M → S"]
    assert bm.paper_rows("office_caltech").loc["C → D", "FLDA-Q"] == 0.510
    assert bm.paper_rows("office31_decaf").loc["W → D", "FLDA-Q"] == 0.024
    assert bm.paper_rows("imdb").loc["W → F", "FLDA-L"] == 0.159
    assert bm.paper_rows("spam").loc["M → S", "T-LR"] == 0.133
    assert bm.paper_rows("amazon").loc["K → E", "FLDA-L"] == 0.119
    assert [b.offline for b in bm.BENCHMARKS.values()] == [True, True, False, True, True, False]
    with pytest.raises(ValueError, match="Unknown pair"):
        bm.pair_data("amazon", "B → C", fetch=FakeSkada(), reachable=lambda: True)


def test_table3_is_a_table_whose_pairs_are_the_uci_data_sets():
    assert bm.pairs(bm.TABLE3) == list(bm.uci.UCI_SETS)
    assert bm.paper_rows(bm.TABLE3).index.name == "data set" == bm.BENCHMARKS[bm.TABLE3].pair_word
    assert (
        bm.pair_title(bm.TABLE3, "heart") == "Heart disease (heart)"
        and bm.pair_title("imdb", "A → F") == "A → F"
    )
    X_s, y_s, X_t, y_t = bm.pair_data(bm.TABLE3, "heart", impute="mean")
    problem = bm.uci.problem("heart", "mean")
    assert X_s is problem.X_source and y_t is problem.y_target and len(y_t) == 621
    assert np.isnan(bm.pair_data(bm.TABLE3, "heart", keep_gaps=True)[2]).any()
    with pytest.raises(ValueError, match="Unknown pair"):
        bm.pair_data(bm.TABLE3, "A → D")


# ---------------------------------------------------------------- the authors' files, offline

#: Rows per domain and features, as the paper's sections 4.2.4-4.2.6 state them.
SIZES = {
    "office_caltech": ({"A": 958, "D": 157, "W": 295, "C": 1123}, 800, 10),
    "imdb": ({"A": 3402, "F": 1249, "W": 3697}, 4180, 2),
    "spam": ({"S": 5338, "M": 4205}, 4272, 2),
}


@pytest.mark.parametrize("key", list(SIZES))
def test_the_authors_files_are_the_librarys_read_once_read_only_and_sparse_where_sparse(key):
    domains = bm.paper_domains(key)
    assert bm.paper_domains(key) is domains  # once per process
    rows, features, classes = SIZES[key]
    assert {k: X.shape for k, (X, _) in domains.items()} == {k: (n, features) for k, n in rows.items()}
    assert len(np.unique(np.concatenate([y for _, y in domains.values()]))) == classes
    assert max(abs(X).max() for X, _ in domains.values()) == 1.0  # counts over the file's largest
    for X, y in domains.values():
        assert sp.issparse(X) == (key != "office_caltech")
        with pytest.raises(ValueError, match="read-only"):
            (X.data if sp.issparse(X) else X)[0] = 1.0
        with pytest.raises(ValueError, match="read-only"):
            y[0] = 0
    X_s, y_s, X_t, y_t = bm.pair_data(key, bm.pairs(key)[0])
    source, target = bm.pairs(key)[0].split(" → ")
    assert X_s is domains[source][0] and y_t is domains[target][1]


def test_the_dense_pairs_are_views_and_need_no_network(monkeypatch):
    monkeypatch.setattr(bm, "openml_reachable", lambda *a: pytest.fail("no network for the files"))
    X_s, _, X_t, _ = bm.pair_data("office_caltech", "C → A")
    assert X_s.base is bm.paper_domains("office_caltech")["A"][0].base and X_t.shape == (958, 800)


def test_the_shipped_files_are_the_ones_provenance_names():
    text = (bm.PAPER_DIR / "PROVENANCE.md").read_text()
    for path in sorted(bm.PAPER_DIR.glob("*.mat")):
        assert f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}" in text
    assert "MIT" in (bm.PAPER_DIR / "LICENSE-data.txt").read_text()


def test_default_cache_follows_flda_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    assert bm.cache_dir() == tmp_path / "skada"


@pytest.mark.parametrize("key", [k for k, b in bm.BENCHMARKS.items() if not b.offline])
def test_skada_fetchers_are_called_with_the_cache_and_never_download_when_asked_not_to(key, tmp_path):
    benchmark = bm.BENCHMARKS[key]
    domain = next(iter(benchmark.domains.values()))
    with pytest.raises(OSError, match="download_if_missing"):
        bm._skada_fetch(benchmark, domain, tmp_path, False)


# ---------------------------------------------------------------- unreadable cache, no paths


def _mat_reader(content):
    """A fetcher whose cached copy is ``content`` written as a .mat file, read by scipy
    (as skada's fetchers do)."""
    from scipy.io import loadmat

    def fetch(benchmark, domain, data_home, download_if_missing):
        path = data_home / benchmark.key / f"{domain}.mat"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        data = loadmat(path)
        return data["X"], data["y"]

    return fetch


def _no_network():
    raise AssertionError("a cached copy that cannot be read is not downloaded again")


@pytest.mark.parametrize(
    "content", [b"", b"not a mat file at all" * 20, bytes(300)], ids=["empty", "text", "zeros"]
)
def test_an_unreadable_cached_file_is_unavailable_with_the_fix_and_no_path(tmp_path, content):
    with pytest.raises(bm.BenchmarkUnavailable) as info:
        bm.pair_data(
            "office31_decaf", "A → W", root=tmp_path, fetch=_mat_reader(content), reachable=_no_network
        )
    message = str(info.value)
    assert "Office, DeCAF8 features" in message and "amazon domain" in message
    assert "cannot be read" in message and "delete" in message and "again" in message
    assert str(tmp_path) not in message and "/skada/" not in message.replace("~/.cache/flda/", "")


@pytest.mark.parametrize(
    "X, y",
    [
        (np.zeros((5, 3, 2)), np.zeros(5)),
        (np.zeros((5, 3)), np.zeros(4)),
        (np.array([["a", "b"]]), np.zeros(1)),
        (np.zeros((0, 3)), np.zeros(0)),
    ],
    ids=["3-d", "4-labels", "text", "empty"],
)
def test_a_cached_copy_of_the_wrong_shape_is_unavailable(tmp_path, X, y):
    with pytest.raises(bm.BenchmarkUnavailable, match="cannot be read.*delete"):
        bm.pair_data("amazon", "B → K", root=tmp_path, fetch=lambda *a: (X, y), reachable=_no_network)


def test_messages_never_show_the_server_cache_path(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable) as offline:
        bm.pair_data("office31_decaf", "A → W", root=tmp_path, fetch=FakeSkada(), reachable=lambda: False)

    def leaky(benchmark, domain, data_home, download_if_missing):
        if not download_if_missing:
            raise OSError("not cached")
        raise PermissionError(13, "Permission denied", str(data_home / "office31" / "a.tar"))

    with pytest.raises(bm.BenchmarkUnavailable) as failed:
        bm.pair_data("office31_decaf", "A → W", root=tmp_path, fetch=leaky, reachable=lambda: True)
    assert "'a.tar'" in str(failed.value)
    for error in (offline, failed):
        assert str(tmp_path) not in str(error.value)


def test_digit_messages_never_show_the_server_cache_path(tmp_path):
    from explorer.data import digits as dg
    from explorer.errors import DigitDataUnavailable

    with pytest.raises(DigitDataUnavailable) as offline:
        dg.load_mnist_usps(cache_dir=tmp_path, fetch=None, reachable=lambda: False)

    def leaky(name, data_home):
        raise PermissionError(13, "Permission denied", str(tmp_path / "openml" / "x.arff"))

    with pytest.raises(DigitDataUnavailable) as failed:
        dg.load_mnist_usps(cache_dir=tmp_path, fetch=leaky, reachable=lambda: True)
    assert "'x.arff'" in str(failed.value)
    for error in (offline, failed):
        assert str(tmp_path) not in str(error.value)
