"""Digit domains, loaders and per-direction fits (section 4.2.3)."""

import numpy as np
import pytest

from explorer.data import digits as dg
from explorer.experiments import digits as ed
from explorer.names import TABLE_CLASSIFIERS
from explorer.errors import DigitDataUnavailable
from flda_core.transfer import estimate_dropout, nonzero_rate


# ---------------------------------------------------------------- transforms


@pytest.mark.parametrize("n_in, n_out", [(28, 16), (8, 16), (8, 12), (16, 16), (5, 3), (3, 7)])
def test_resample_matrix_rows_are_weights_summing_to_one(n_in, n_out):
    R = dg.resample_matrix(n_in, n_out)
    assert R.shape == (n_out, n_in)
    assert np.all(R >= 0)
    np.testing.assert_allclose(R.sum(axis=1), 1.0)


def test_resample_same_size_is_identity():
    np.testing.assert_allclose(dg.resample_matrix(16, 16), np.eye(16))


def test_area_downsampling_matches_block_means_when_divisible():
    rng = np.random.default_rng(0)
    images = rng.random((3, 16, 16))
    expected = images.reshape(3, 8, 2, 8, 2).mean(axis=(2, 4))
    np.testing.assert_allclose(dg.resize_images(images, 8), expected)


def test_area_downsampling_preserves_total_ink_per_area():
    rng = np.random.default_rng(1)
    images = rng.random((4, 28, 28))
    small = dg.resize_images(images, 16)
    np.testing.assert_allclose(small.mean(axis=(1, 2)), images.mean(axis=(1, 2)))


def test_linear_upsampling_interpolates_between_pixel_centres():
    R = dg.resample_matrix(2, 4)
    # output centres at 0.25, 0.75, 1.25, 1.75 (input units) -> -0.25, 0.25, 0.75, 1.25
    np.testing.assert_allclose(R @ np.array([0.0, 1.0]), [0.0, 0.25, 0.75, 1.0])


def test_resize_keeps_range_and_empty_pixels_exactly_zero():
    images = np.zeros((1, 8, 8))
    images[0, 3:5, 3:5] = 1.0
    out = dg.resize_images(images, 16)
    assert out.min() >= 0 and out.max() <= 1
    assert np.all(out[0, :4, :] == 0) and np.all(out[0, :, :4] == 0)
    assert out[0, 8, 8] > 0


def test_place_centred_leaves_an_empty_border():
    images = np.ones((2, 8, 8))
    out = dg.place_centred(images, 12, 16)
    assert out.shape == (2, 16, 16)
    assert np.all(out[:, :2, :] == 0) and np.all(out[:, -2:, :] == 0)
    assert np.all(out[:, :, :2] == 0) and np.all(out[:, :, -2:] == 0)
    np.testing.assert_allclose(out[:, 2:14, 2:14], 1.0)
    with pytest.raises(ValueError, match="even"):
        dg.place_centred(images, 11, 16)


def test_rescale_to_unit_maps_background_to_zero():
    usps_like = np.array([[-1.0, 0.0, 1.0], [-1.0, -1.0, 0.5]])
    out = dg.rescale_to_unit(usps_like)
    np.testing.assert_allclose(out, [[0.0, 0.5, 1.0], [0.0, 0.0, 0.75]])
    np.testing.assert_allclose(dg.rescale_to_unit([0, 255, 300], 0, 255), [0, 1, 1])
    np.testing.assert_allclose(dg.rescale_to_unit(np.full(3, 7.0)), 0.0)


def test_stratified_halves_are_disjoint_complete_and_balanced():
    y = np.repeat(np.arange(10), [30, 31, 29, 30, 30, 30, 30, 30, 30, 31])
    a, b = dg.stratified_halves(y, random_state=3)
    assert len(np.intersect1d(a, b)) == 0
    np.testing.assert_array_equal(np.sort(np.concatenate([a, b])), np.arange(len(y)))
    counts_a, counts_b = np.bincount(y[a]), np.bincount(y[b])
    assert np.all(np.abs(counts_a - counts_b) <= 1)
    a2, b2 = dg.stratified_halves(y, random_state=3)
    np.testing.assert_array_equal(a, a2)
    assert not np.array_equal(a, dg.stratified_halves(y, random_state=4)[0])


def test_balanced_subsample_is_balanced_and_fills_up_small_classes():
    y = np.repeat(np.arange(4), [100, 100, 100, 10])
    pick = dg.balanced_subsample(y, 200, random_state=0)
    assert len(pick) == 200 == len(np.unique(pick))
    counts = np.bincount(y[pick])
    assert counts[3] == 10 and np.all(np.abs(counts[:3] - 63) <= 1)
    pick = dg.balanced_subsample(y, 40, random_state=0)
    np.testing.assert_array_equal(np.bincount(y[pick]), [10, 10, 10, 10])
    assert len(dg.balanced_subsample(y, 10_000)) == len(y)


def test_augment_shifts_moves_ink_by_at_most_one_pixel():
    image = np.zeros((1, 16 * 16))
    image[0, 8 * 16 + 8] = 1.0
    import importlib.util  # the benchmark's data (benchmarks/bench_digits.py)
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_digits.py"
    spec = importlib.util.spec_from_file_location("bench_digits", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    X, y = bench.augment_shifts(image, np.array([5]), 200, 16, random_state=0)
    assert X.shape == (200, 256) and np.all(y == 5)
    positions = {divmod(int(np.argmax(row)), 16) for row in X}
    assert positions <= {(r, c) for r in (7, 8, 9) for c in (7, 8, 9)}
    assert len(positions) > 1
    np.testing.assert_allclose(X.sum(axis=1), 1.0)


def test_fingerprint_changes_with_content():
    a = np.arange(6.0)
    assert dg.fingerprint(a) == dg.fingerprint(a.copy())
    b = a.copy()
    b[0] = 0.5
    assert dg.fingerprint(a) != dg.fingerprint(b)
    assert dg.fingerprint(a) != dg.fingerprint(a.reshape(2, 3))


# ---------------------------------------------------------------- offline default


@pytest.fixture(scope="module")
def offline():
    return dg.make_offline_domains(random_state=0)


def test_offline_domains_shapes_range_and_disjoint_split(offline):
    assert offline.side == 16
    assert offline.X_a.shape[1] == offline.X_b.shape[1] == 256
    assert len(offline.y_a) + len(offline.y_b) == 1797
    for X in (offline.X_a, offline.X_b):
        assert X.min() >= 0.0 and X.max() <= 1.0
    # No image in both domains: same source indices never reused.
    from sklearn.datasets import load_digits

    target = load_digits().target
    a, b = dg.stratified_halves(target, 0)
    np.testing.assert_array_equal(offline.y_a, target[a])
    np.testing.assert_array_equal(offline.y_b, target[b])
    assert len(np.intersect1d(a, b)) == 0
    np.testing.assert_array_equal(np.unique(offline.y_a), np.arange(10))


def test_offline_domains_are_deterministic(offline):
    again = dg.make_offline_domains(random_state=0)
    assert again.key == offline.key
    np.testing.assert_array_equal(again.X_a, offline.X_a)
    assert dg.make_offline_domains(random_state=1).key != offline.key


def test_offline_domains_reproduce_the_usps_mnist_shift(offline):
    """Figure 5: B never inks its border, A often does; so theta(A -> B) is 1 there."""
    images_b = offline.X_b.reshape(-1, 16, 16)
    assert np.all(images_b[:, :2, :] == 0) and np.all(images_b[:, :, -2:] == 0)
    rate_a = nonzero_rate(offline.X_a).reshape(16, 16)
    assert rate_a[2:14, 1].max() > 0.3  # A inks near the left edge
    theta_ab = estimate_dropout(offline.X_a, offline.X_b).reshape(16, 16)
    border = np.ones((16, 16), bool)
    border[2:14, 2:14] = False
    inked_border = border & (rate_a > 0)
    assert np.all(theta_ab[inked_border] == 1.0)
    theta_ba = estimate_dropout(offline.X_b, offline.X_a)
    assert theta_ba.mean() < 0.05 < 0.4 < theta_ab.mean()


def test_direction_data(offline):
    X_s, y_s, X_t, y_t = dg.direction_data(offline, "B → A")
    assert X_s is offline.X_b and y_t is offline.y_a
    with pytest.raises(ValueError, match="direction"):
        dg.direction_data(offline, "A -> B")


# ---------------------------------------------------------------- OpenML loader


def _fake_fetch(calls):
    rng = np.random.default_rng(0)

    def fetch(name, data_home):
        calls.append(name)
        if name == "mnist_784":
            X = np.zeros((300, 784))
            X[:, 300:500] = rng.integers(0, 256, size=(300, 200))
            return X, np.repeat(np.arange(10), 30).astype(str)
        X = rng.uniform(-1, 1, size=(250, 256))
        X[:, :20] = -1.0
        return X, np.repeat(np.arange(1, 11), 25).astype(str)

    return fetch


def test_openml_fails_fast_with_clear_message_without_network(tmp_path):
    def must_not_download(name, data_home):
        raise AssertionError("no download may start when OpenML is unreachable")

    with pytest.raises(DigitDataUnavailable, match="cannot be reached"):
        dg.load_mnist_usps(cache_dir=tmp_path, fetch=must_not_download, reachable=lambda: False)


def test_openml_download_errors_become_digit_data_unavailable(tmp_path):
    def broken(name, data_home):
        raise OSError("Connection reset by peer")

    with pytest.raises(DigitDataUnavailable, match="Connection reset"):
        dg.load_mnist_usps(cache_dir=tmp_path, fetch=broken, reachable=lambda: True)
    assert not list(tmp_path.glob("*.npz"))


def test_openml_loader_prepares_caches_and_reloads_offline(tmp_path):
    calls = []
    data = dg.load_mnist_usps(
        n_mnist=100, n_usps=50, cache_dir=tmp_path, fetch=_fake_fetch(calls), reachable=lambda: True
    )
    assert calls == ["mnist_784", "usps"]
    assert (data.name_a, data.name_b) == ("USPS", "MNIST")
    assert data.X_a.shape == (50, 256) and data.X_b.shape == (100, 256)
    assert data.X_a.min() >= 0 and data.X_a.max() <= 1 and data.X_b.max() <= 1
    np.testing.assert_array_equal(np.bincount(data.y_b), np.full(10, 10))
    np.testing.assert_array_equal(np.unique(data.y_a), np.arange(10))  # 1..10 -> 0..9
    assert np.all(data.X_a[:, :20] == 0)  # USPS background -1 -> 0
    assert data.paper_rows == {"A → B": "U → M", "B → A": "M → U"}
    assert dg.is_cached(tmp_path)
    again = dg.load_mnist_usps(
        n_mnist=100, n_usps=50, cache_dir=tmp_path, fetch=_fake_fetch(calls), reachable=lambda: False
    )
    assert calls == ["mnist_784", "usps"]  # no second download, no network needed
    assert again.key == data.key


def test_prepare_mnist_resizes_to_16_by_16():
    X = np.zeros((2, 784))
    X[0] = 255.0
    out = dg.prepare_mnist(X)
    assert out.shape == (2, 256)
    np.testing.assert_allclose(out[0], 1.0)
    np.testing.assert_allclose(out[1], 0.0)
    with pytest.raises(DigitDataUnavailable, match="784"):
        dg.prepare_mnist(np.zeros((2, 100)))


def test_openml_reachable_is_false_for_an_unresolvable_host():
    assert dg.openml_reachable(host="openml.invalid", timeout=0.5) is False


# ---------------------------------------------------------------- fits


@pytest.fixture(scope="module")
def small(offline):
    """A quarter of the offline data, digits 0-4: fast fits."""
    keep_a = np.flatnonzero(offline.y_a < 5)[::2]
    keep_b = np.flatnonzero(offline.y_b < 5)[::2]
    return (offline.X_a[keep_a], offline.y_a[keep_a], offline.X_b[keep_b], offline.y_b[keep_b])


def test_fit_method_source_and_flda(small):
    X_s, y_s, X_t, y_t = small
    naive = ed.fit_method(X_s, y_s, X_t, y_t, "S-LR", l2=1e-3)
    flda = ed.fit_method(X_s, y_s, X_t, y_t, "FLDA-L", l2=1e-3)
    assert naive.coef.shape == flda.coef.shape == (5, 256)
    np.testing.assert_array_equal(naive.theta, 0.0)
    np.testing.assert_allclose(flda.theta, estimate_dropout(X_s, X_t))
    assert np.all(flda.coef[:, flda.theta == 1.0] == 0.0)
    manual = np.mean(naive.classes[np.argmax(X_t @ naive.coef.T + naive.intercept, axis=1)] != y_t)
    assert naive.error == pytest.approx(manual)
    assert flda.error < naive.error  # U -> M-like: dropout helps (section 4.2.3)
    np.testing.assert_array_equal(flda.weights(3), flda.coef[3])
    with pytest.raises(KeyError):
        flda.weights(7)


def test_fit_method_zero_tol_changes_theta(small):
    X_s, y_s, X_t, y_t = small
    strict = ed.fit_method(X_s, y_s, X_t, y_t, "FLDA-Q", l2=1e-3)
    loose = ed.fit_method(X_s, y_s, X_t, y_t, "FLDA-Q", l2=1e-3, zero_tol=0.3)
    np.testing.assert_allclose(loose.theta, estimate_dropout(X_s, X_t, zero_tol=0.3))
    assert not np.allclose(strict.theta, loose.theta)


def test_oracle_error_is_cross_validated_not_training_error(small):
    X_s, y_s, X_t, y_t = small
    oracle = ed.fit_method(X_s, y_s, X_t, y_t, "T-LR", l2=1e-5)
    from flda_core.classifier import FLDAClassifier

    train_error = np.mean(FLDAClassifier(l2=1e-5, tol=1e-4).fit(X_t, y_t).predict(X_t) != y_t)
    assert oracle.error > train_error


def test_cross_validate_l2_picks_the_grid_minimum(small):
    X_s, y_s, _, _ = small
    best, errors = ed.cross_validate_l2(X_s, y_s, "S-LS", grid=(1e-4, 1e-1, 1e3))
    assert set(errors) == {1e-4, 1e-1, 1e3}
    assert errors[best] == min(errors.values())
    assert errors[1e3] > errors[1e-4]  # a huge penalty predicts one class


def test_fit_method_with_cv_reports_its_choice(small):
    X_s, y_s, X_t, y_t = small
    result = ed.fit_method(X_s, y_s, X_t, y_t, "FLDA-Q", l2=None)
    assert result.l2 in ed.L2_GRID and set(result.cv_errors) == set(ed.L2_GRID)


def test_binary_problem_gives_one_weight_row_per_class(small):
    X_s, y_s, X_t, y_t = small
    s, t = y_s < 2, y_t < 2
    result = ed.fit_method(X_s[s], y_s[s], X_t[t], y_t[t], "FLDA-L", l2=1e-3)
    assert result.coef.shape == (2, 256)
    np.testing.assert_allclose(result.weights(0), -result.weights(1))


def test_error_and_paper_tables(offline):
    results = {
        (d, m): ed.MethodResult(
            m, 0.1 * k, 1e-3, {}, np.zeros((10, 256)), np.zeros(10), np.arange(10), np.zeros(256)
        )
        for k, (d, m) in enumerate((d, m) for d in ("A → B", "B → A") for m in TABLE_CLASSIFIERS)
    }
    table = ed.table4_frame(results, offline)
    assert list(table.columns) == list(TABLE_CLASSIFIERS)
    assert table.shape == (2, 5) and table.index[0].startswith("A → B")
    assert table.iloc[1, 0] == pytest.approx(0.5)
    paper = ed.paper_table(offline)
    assert paper.index[0] == "paper U → M (like A → B here)"
    assert paper.loc[paper.index[0], "FLDA-Q"] == 0.640 and np.isnan(paper.iloc[0, 0])
    both = ed.comparison_table(table, paper)
    assert list(both["from"]) == ["here", "here", "paper, Table 4", "paper, Table 4"]


def test_cross_validation_refuses_a_class_with_one_image(small):
    X_s, y_s, X_t, y_t = small
    keep = np.concatenate([np.flatnonzero(y_s != 4), np.flatnonzero(y_s == 4)[:1]])
    with pytest.raises(ValueError, match="at least 2 images of every class"):
        ed.fit_method(X_s[keep], y_s[keep], X_t, y_t, "S-LS", l2=None)
