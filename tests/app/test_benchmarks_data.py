"""The paper's downloadable benchmarks (Tables 5, 6, 9): fetchers tested with a fake download."""

import numpy as np
import pytest

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
    X_s, y_s, X_t, y_t = bm.load_pair("amazon", "B → K", root=tmp_path, fetch=fake, reachable=lambda: True)
    assert X_s.shape == (30, 8) and X_t.shape == (30, 8) and len(y_s) == len(y_t) == 30
    assert (tmp_path / "skada" / "amazon_books.npz").exists()
    assert fake.calls == [
        ("amazon", "books", False),
        ("amazon", "books", True),
        ("amazon", "kitchen", False),
        ("amazon", "kitchen", True),
    ]

    def offline():
        raise AssertionError("no network check when cached")

    again = bm.load_pair("amazon", "B → K", root=tmp_path, fetch=fake, reachable=offline)
    np.testing.assert_array_equal(again[0], X_s)
    assert fake.calls[-2:] == [("amazon", "books", False), ("amazon", "kitchen", False)]


def test_offline_without_cache_raises_a_clear_message(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable, match="cannot be reached.*not in the cache"):
        bm.load_pair("office31_decaf", "A → W", root=tmp_path, fetch=FakeSkada(), reachable=lambda: False)


def test_failed_download_leaves_no_half_finished_files(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable, match="ConnectionError"):
        bm.load_pair(
            "office_caltech_surf", "D → W", root=tmp_path, fetch=FakeSkada(fail=True), reachable=lambda: True
        )
    assert list((tmp_path / "skada").iterdir()) == []


def test_pairs_and_the_papers_tables():
    assert bm.pairs("office31_decaf") == ["A → D", "A → W", "D → A", "D → W", "W → A", "W → D"]
    assert set(bm.pairs("office31_decaf")) == set(bm.PAPER_TABLES["office31_decaf"])
    assert set(bm.pairs("amazon")) == set(bm.PAPER_TABLES["amazon"])
    # skada has no Caltech: the offered SURF pairs are the paper's rows without C
    surf = bm.paper_rows("office_caltech_surf")
    assert set(bm.pairs("office_caltech_surf")) == {p for p in surf.index if "C" not in p}
    assert surf.loc["C → D", "FLDA-Q"] == 0.510
    assert bm.paper_rows("office31_decaf").loc["W → D", "FLDA-Q"] == 0.024
    assert bm.paper_rows("amazon").loc["K → E", "FLDA-L"] == 0.119
    with pytest.raises(ValueError, match="Unknown pair"):
        bm.load_pair("amazon", "B → C", fetch=FakeSkada(), reachable=lambda: True)


def test_default_cache_follows_flda_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    assert bm.cache_dir() == tmp_path / "skada"


@pytest.mark.parametrize("key", list(bm.BENCHMARKS))
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
        bm.load_pair(
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
        bm.load_pair("amazon", "B → K", root=tmp_path, fetch=lambda *a: (X, y), reachable=_no_network)


def test_messages_never_show_the_server_cache_path(tmp_path):
    with pytest.raises(bm.BenchmarkUnavailable) as offline:
        bm.load_pair("office31_decaf", "A → W", root=tmp_path, fetch=FakeSkada(), reachable=lambda: False)

    def leaky(benchmark, domain, data_home, download_if_missing):
        if not download_if_missing:
            raise OSError("not cached")
        raise PermissionError(13, "Permission denied", str(data_home / "office31" / "a.tar"))

    with pytest.raises(bm.BenchmarkUnavailable) as failed:
        bm.load_pair("office31_decaf", "A → W", root=tmp_path, fetch=leaky, reachable=lambda: True)
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
