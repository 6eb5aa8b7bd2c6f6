"""Tests of the learning-curve experiment (section 4.1.2, Figure 3) and its figures."""

import statistics

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flda_core.classifier import FLDAClassifier
from figure_samples import assert_passes_plotly_validation
from explorer.figures.learning_curves import gap_figure, learning_curve_figure, log_ticks
from explorer.experiments.learning_curves import (
    DOMAINS,
    FAMILIES,
    TABLE_COLUMNS,
    LearningCurveResult,
    adaptation_sample_size,
    learning_curve_config,
    make_learning_curve_data,
    mean_sem_table,
    oracle_gaps,
    prefix_sums,
    quadratic_fits,
    quadratic_learning_errors,
    run_learning_curves,
    sample_size_grid,
    stratified_order,
    summarize_errors,
    training_orders,
)
from flda_core.solvers import solve_psd_min_norm
from flda_core.transfer import dropout_from_rates, estimate_dropout
from explorer.experiments.scoring import lattice_error_rates


@pytest.fixture(scope="module")
def paper_data():
    return make_learning_curve_data(seed=3)


@pytest.fixture(scope="module")
def small_bernoulli():
    return make_learning_curve_data(
        "bernoulli", [[0.7, 0.7], [0.3, 0.3]], [0.5, 0.0], n_train=400, n_validation=500, seed=1
    )


# ------------------------------------------------------------------ data and grids
def test_data_sets_have_paper_sizes_and_are_independent(paper_data):
    d = paper_data
    for X, y in [
        (d.X_source_train, d.y_source_train),
        (d.X_source_val, d.y_source_val),
        (d.X_target_train, d.y_target_train),
        (d.X_target_val, d.y_target_val),
    ]:
        assert X.shape == (10_000, 2) and y.shape == (10_000,)
        assert set(np.unique(y)) == {0, 1}
    assert not np.array_equal(d.X_source_train, d.X_source_val)
    # target feature 1 is dropped about half of the time relative to the source
    theta_hat = estimate_dropout(d.X_source_val, d.X_target_val)
    assert abs(theta_hat[0] - 0.5) < 0.03 and theta_hat[1] < 0.01


def test_data_are_reproducible_and_seed_dependent():
    a = make_learning_curve_data(n_train=50, n_validation=50, seed=7)
    b = make_learning_curve_data(n_train=50, n_validation=50, seed=7)
    c = make_learning_curve_data(n_train=50, n_validation=50, seed=8)
    assert np.array_equal(a.X_target_val, b.X_target_val)
    assert not np.array_equal(a.X_target_val, c.X_target_val)


def test_data_refuse_more_than_two_classes():
    with pytest.raises(ValueError, match="exactly 2 classes"):
        make_learning_curve_data(params=[[1, 1], [2, 2], [3, 3]])


def test_default_grid_is_paper_like():
    sizes = sample_size_grid()
    assert sizes[0] == 2 and sizes[-1] == 10_000 and len(sizes) == 15
    assert np.all(np.diff(sizes) > 0)
    ratios = sizes[1:] / sizes[:-1]
    assert np.all(ratios > 1.4) and np.all(ratios < 2.2)


def _sizes(sizes, n_pool=1000):
    config, _ = learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], n_pool, 0, sizes)
    return list(config.sizes)


@pytest.mark.parametrize(
    "args, message", [((1, 100, 5), ">= 2"), ((50, 10, 5), "above"), ((2, 5000, 5), "exceeds")]
)
def test_grid_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        _sizes(("log", *args))


def test_typed_sample_sizes_are_sorted_and_deduplicated():
    assert _sizes(("custom", " 100, 2;5 5\n20 ")) == [2, 5, 20, 100]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("2, x", "'x' is not a number"),
        ("2.5", "whole number"),
        ("1, 10", "outside"),
        ("2, 5000", "outside"),
        ("nan", "whole"),
    ],
)
def test_typed_sample_sizes_name_the_problem(text, message):
    with pytest.raises(ValueError, match=f"Sample sizes: .*{message}"):
        _sizes(("custom", text))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=3, max_size=40), st.integers(0, 2**31))
def test_stratified_order_puts_every_class_in_every_prefix(labels, seed):
    y = np.array(labels)
    k = len(np.unique(y))
    order = stratified_order(y, np.random.default_rng(seed))
    assert sorted(order) == list(range(len(y)))
    assert len(np.unique(y[order[:k]])) == k


def test_stratified_order_keeps_prefixes_that_already_had_both_classes():
    y = np.array([0, 1] * 50)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    perm = rng_a.permutation(len(y))
    order = stratified_order(y, rng_b)
    both = next(n for n in range(2, len(y)) if len(np.unique(y[perm[:n]])) == 2)
    for n in range(both, len(y), 7):
        assert set(order[:n]) == set(perm[:n])


@pytest.mark.parametrize("labels", [[0, 1] * 20, [2, 0, 1, 1, 0, 2, 2, 2], [3] * 5 + [1]])
def test_stratified_order_with_given_classes_is_the_same_order(labels):
    y = np.array(labels)
    given = stratified_order(y, np.random.default_rng(3), np.unique(y))
    assert np.array_equal(given, stratified_order(y, np.random.default_rng(3)))


def test_repeat_orders_do_not_depend_on_batching(small_bernoulli):
    s_all, t_all = training_orders(small_bernoulli, [0, 1, 2, 3], seed=4)
    s_one, t_one = training_orders(small_bernoulli, [2], seed=4)
    assert np.array_equal(s_all[2], s_one[0]) and np.array_equal(t_all[2], t_one[0])
    assert not np.array_equal(s_all[0], s_all[1])


# ------------------------------------------------------------------ batched closed form
def test_prefix_sums_match_direct_sums(small_bernoulli):
    d = small_bernoulli
    t = np.where(d.y_source_train == 1, 1.0, -1.0)
    orders, _ = training_orders(d, [0, 1], seed=0)
    sizes = np.array([2, 3, 17, 400])
    sums = prefix_sums(d.X_source_train, t, orders, sizes)
    for r in range(2):
        for g, n in enumerate(sizes):
            X, tt = d.X_source_train[orders[r, :n]], t[orders[r, :n]]
            np.testing.assert_allclose(sums["xx"][r, g], X.T @ X)
            np.testing.assert_allclose(sums["x"][r, g], X.sum(0))
            np.testing.assert_allclose(sums["xt"][r, g], X.T @ tt)
            np.testing.assert_allclose(sums["t"][r, g], tt.sum())
            np.testing.assert_array_equal(sums["nonzero"][r, g], np.count_nonzero(X, 0))


def test_prefix_sums_of_real_valued_and_sparse_features_match_direct_sums():
    """The Gram-matrix blocks are the sums for any values, not only counts: real values,
    negative values, a feature that is never non-zero and one that always is."""
    rng = np.random.default_rng(8)
    X = np.column_stack(
        [rng.normal(size=300), np.zeros(300), rng.uniform(1, 2, 300), rng.poisson(0.2, 300) * -1.5]
    )
    t = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    orders = np.array([rng.permutation(300) for _ in range(3)])
    sizes = np.array([2, 9, 10, 300])
    sums = prefix_sums(X, t, orders, sizes)
    for r in range(3):
        for g, n in enumerate(sizes):
            Xs, ts = X[orders[r, :n]], t[orders[r, :n]]
            np.testing.assert_allclose(sums["xx"][r, g], Xs.T @ Xs, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(sums["x"][r, g], Xs.sum(0), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(sums["xt"][r, g], Xs.T @ ts, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(sums["t"][r, g], ts.sum(), atol=1e-12)
            np.testing.assert_array_equal(sums["nonzero"][r, g], np.count_nonzero(Xs, 0))


def test_prefix_dropout_estimate_matches_estimate_dropout(small_bernoulli):
    d = small_bernoulli
    so, to = training_orders(d, [0, 1, 2], seed=2)
    sizes = np.array([2, 4, 9, 40, 400])
    ones = np.ones(d.n_train)
    theta = dropout_from_rates(  # the prefixes share n: rates are counts
        prefix_sums(d.X_source_train, ones, so, sizes)["nonzero"],
        prefix_sums(d.X_target_train, ones, to, sizes)["nonzero"],
    )
    for r in range(3):
        for g, n in enumerate(sizes):
            expected = estimate_dropout(d.X_source_train[so[r, :n]], d.X_target_train[to[r, :n]])
            np.testing.assert_allclose(theta[r, g], expected, atol=1e-15)


def test_min_norm_solver_matches_pinv_and_solve():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(6, 3, 3))
    regular = B @ B.transpose(0, 2, 1) + 0.1 * np.eye(3)
    v = rng.normal(size=(6, 3, 1))
    singular = v @ v.transpose(0, 2, 1)  # rank one
    rhs = rng.normal(size=(6, 3))
    np.testing.assert_allclose(
        solve_psd_min_norm(regular, rhs), np.linalg.solve(regular, rhs[..., None])[..., 0], rtol=1e-10
    )
    np.testing.assert_allclose(
        solve_psd_min_norm(singular, rhs),
        np.einsum("bij,bj->bi", np.linalg.pinv(singular), rhs),
        rtol=1e-8,
        atol=1e-12,
    )


def _direct_fit(data, orders_s, orders_t, family, r, n, ridge):
    Xs, ys = data.X_source_train[orders_s[r, :n]], data.y_source_train[orders_s[r, :n]]
    Xt, yt = data.X_target_train[orders_t[r, :n]], data.y_target_train[orders_t[r, :n]]
    X, y, unlabelled = {"source": (Xs, ys, None), "target": (Xt, yt, None), "flda": (Xs, ys, Xt)}[family]
    return FLDAClassifier(loss="quadratic", l2=ridge / n).fit(X, y, X_target=unlabelled)


@pytest.mark.parametrize("which", ["paper", "bernoulli"])
@pytest.mark.parametrize("ridge", [0.0, 5.0])
def test_batched_fits_equal_flda_classifier(which, ridge, paper_data, small_bernoulli):
    data = paper_data if which == "paper" else small_bernoulli
    sizes = np.array([2, 3, 5, 12, 60, data.n_train])
    repeats = [0, 1, 2, 3]
    so, to = training_orders(data, repeats, seed=11)
    ts = np.where(data.y_source_train == 1, 1.0, -1.0)
    tt = np.where(data.y_target_train == 1, 1.0, -1.0)
    src, tgt = (
        prefix_sums(data.X_source_train, ts, so, sizes),
        prefix_sums(data.X_target_train, tt, to, sizes),
    )
    theta = dropout_from_rates(src["nonzero"], tgt["nonzero"])
    fits = {
        "source": quadratic_fits(src, sizes, ridge),
        "target": quadratic_fits(tgt, sizes, ridge),
        "flda": quadratic_fits(src, sizes, ridge, theta=theta),
    }
    saw_zero_weight = False
    for family, (coef, intercept) in fits.items():
        for r in repeats:
            for g, n in enumerate(sizes):
                clf = _direct_fit(data, so, to, family, r, n, ridge)
                np.testing.assert_allclose(coef[r, g], clf.coef_[0], atol=1e-8, rtol=1e-8)
                np.testing.assert_allclose(intercept[r, g], clf.intercept_[0], atol=1e-8)
                saw_zero_weight |= family == "flda" and np.any(clf.coef_[0] == 0)
    if which == "bernoulli":
        # tiny target subsets without a non-zero feature 1 give theta = 1 -> weight 0
        assert saw_zero_weight


def test_error_rates_equal_predict(small_bernoulli):
    d = small_bernoulli
    rng = np.random.default_rng(0)
    coef, intercept = rng.normal(size=(4, 5, 2)), rng.normal(size=(4, 5))
    coef[0, 0] = 0.0
    intercept[0, 0] = 0.0  # score exactly 0 -> class 0
    errors = lattice_error_rates(coef, intercept, d.X_target_val, d.y_target_val, chunk=3)
    assert errors.shape == (4, 5)
    for i in range(4):
        for j in range(5):
            clf = FLDAClassifier(loss="quadratic").fit(d.X_source_train, d.y_source_train)
            clf.coef_, clf.intercept_ = coef[i, j][None, :], np.array([intercept[i, j]])
            assert errors[i, j] == np.mean(clf.predict(d.X_target_val) != d.y_target_val)


def test_scores_on_the_boundary_are_ties_not_rounding_noise():
    # 0.1 + 0.2 - 0.3 is 5.6e-17 in floating point but exactly 0: class 0, as predict's rule
    X = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [3.0, 3.0]])
    y = np.array([1, 1, 0, 1])
    assert 0.1 + 0.2 - 0.3 > 0
    assert lattice_error_rates(np.array([0.1, 0.2]), np.array(-0.3), X, y) == pytest.approx(0.5)
    assert lattice_error_rates(np.array([0.1, 0.2]), np.array(-0.29), X, y) == pytest.approx(0.25)


def test_quadratic_errors_equal_errors_of_classifier_fits(small_bernoulli):
    d = small_bernoulli
    sizes, repeats = np.array([2, 7, 100]), [0, 1]
    errors = quadratic_learning_errors(d, sizes, repeats, ridge=1.0, seed=9)
    assert errors.shape == (len(FAMILIES), len(DOMAINS), 2, 3)
    so, to = training_orders(d, repeats, seed=9)
    for f, family in enumerate(FAMILIES):
        for r in repeats:
            for g, n in enumerate(sizes):
                clf = _direct_fit(d, so, to, family, r, n, 1.0)
                for k, domain in enumerate(DOMAINS):
                    X, y = d.validation(domain)
                    assert errors[f, k, r, g] == pytest.approx(np.mean(clf.predict(X) != y))


def test_errors_do_not_depend_on_how_repeats_are_batched(small_bernoulli):
    sizes = np.array([2, 10, 50])
    together = quadratic_learning_errors(small_bernoulli, sizes, range(4), seed=2)
    split = np.concatenate(
        [quadratic_learning_errors(small_bernoulli, sizes, [r], seed=2) for r in range(4)], axis=2
    )
    np.testing.assert_array_equal(together, split)


def test_repeat_blocks_give_the_same_errors(small_bernoulli, monkeypatch):
    import explorer.experiments.learning_curves as lc

    sizes = np.array([2, 10, 50])
    whole = quadratic_learning_errors(small_bernoulli, sizes, range(5), seed=6)
    monkeypatch.setattr(lc, "REPEAT_BLOCK", 2)
    np.testing.assert_array_equal(
        lc.quadratic_learning_errors(small_bernoulli, sizes, range(5), seed=6), whole
    )


def test_sizes_outside_the_pool_are_rejected(small_bernoulli):
    with pytest.raises(ValueError, match="2 .. 400"):
        quadratic_learning_errors(small_bernoulli, [2, 401], [0])
    with pytest.raises(ValueError, match="strictly increasing"):
        quadratic_learning_errors(small_bernoulli, [10, 5], [0])


# ------------------------------------------------------------------ summaries
def test_summary_table_shape_and_sem_against_direct_computation():
    rng = np.random.default_rng(1)
    errors = rng.uniform(0, 0.5, size=(3, 2, 7, 4))
    sizes = np.array([2, 5, 10, 100])
    table = summarize_errors(errors, sizes)
    assert list(table.columns) == TABLE_COLUMNS and len(table) == 3 * 2 * 4
    assert set(table["classifier"]) == {"S-LS", "T-LS", "FLDA-Q"}
    row = table[(table["classifier"] == "FLDA-Q") & (table["domain"] == "target") & (table["n"] == 10)].iloc[
        0
    ]
    values = list(errors[2, 1, :, 2])
    assert row["mean_error"] == pytest.approx(statistics.fmean(values))
    assert row["sem"] == pytest.approx(statistics.stdev(values) / 7**0.5)
    assert row["repeats"] == 7
    assert summarize_errors(errors[:, :, :1], sizes)["sem"].isna().all()


def test_mean_sem_table_one_row_per_n_target_columns_first():
    rng = np.random.default_rng(4)
    errors = rng.uniform(0, 0.5, size=(3, 2, 5, 3))
    sizes = np.array([2, 20, 200])
    quad = summarize_errors(errors, sizes)
    wide = mean_sem_table(quad.sample(frac=1.0, random_state=0))  # row order irrelevant
    assert list(wide.columns) == [
        "n",
        "S-LS (target)",
        "T-LS (target)",
        "FLDA-Q (target)",
        "S-LS (source)",
        "T-LS (source)",
        "FLDA-Q (source)",
    ]
    assert wide["n"].tolist() == [2, 20, 200]
    # FLDA-Q on the target at n = 20, computed directly from the repeats
    values = list(errors[2, 1, :, 1])
    expected = f"{statistics.fmean(values):.3f} ± {statistics.stdev(values) / 5**0.5:.3f}"
    assert wide.loc[1, "FLDA-Q (target)"] == expected
    values = list(errors[0, 0, :, 0])  # S-LS on the source, n = 2
    assert wide.loc[0, "S-LS (source)"].startswith(f"{statistics.fmean(values):.3f} ± ")
    assert mean_sem_table(quad, decimals=2).loc[1, "FLDA-Q (target)"] == (
        f"{statistics.fmean(errors[2, 1, :, 1]):.2f} ± {statistics.stdev(errors[2, 1, :, 1]) / 5**0.5:.2f}"
    )


def test_mean_sem_table_single_repeat_and_empty():
    rng = np.random.default_rng(5)
    errors = rng.uniform(0, 0.5, size=(3, 2, 1, 2))
    table = summarize_errors(errors, np.array([2, 30]))
    wide = mean_sem_table(table)
    assert wide.loc[0, "FLDA-Q (source)"] == f"{errors[2, 0, 0, 0]:.3f}"  # SEM undefined
    with pytest.raises(ValueError, match="empty"):
        mean_sem_table(table.iloc[:0])


def test_oracle_gaps_are_paired_differences():
    rng = np.random.default_rng(2)
    errors = rng.uniform(0, 0.5, size=(3, 2, 6, 3))
    gaps = oracle_gaps(errors, np.array([2, 20, 200]))
    row = gaps[(gaps["classifier"] == "FLDA-Q") & (gaps["n"] == 20)].iloc[0]
    diff = list(errors[2, 1, :, 1] - errors[1, 1, :, 1])
    assert row["reference"] == "T-LS"
    assert row["mean_gap"] == pytest.approx(statistics.fmean(diff))
    assert row["sem"] == pytest.approx(statistics.stdev(diff) / 6**0.5)


def test_adaptation_sample_size():
    table = pd.DataFrame(
        {
            "classifier": ["FLDA-Q"] * 4 + ["T-LS"] * 4,
            "domain": "target",
            "n": [2, 10, 100, 1000] * 2,
            "mean_error": [0.30, 0.20, 0.205, 0.100, 0.35, 0.205, 0.2, 0.105],
        }
    )
    assert adaptation_sample_size(table, "FLDA-Q", "T-LS", tolerance=0.01) == 10
    assert adaptation_sample_size(table, "FLDA-Q", "T-LS", tolerance=0.001) is None
    assert adaptation_sample_size(table, "FLDA-Q", "T-LS", tolerance=0.1) == 2
    with pytest.raises(ValueError, match="no 'target' curve"):
        adaptation_sample_size(table, "FLDA-L", "T-LR")


def test_paper_setting_flda_joins_the_oracle_and_beats_the_source_classifier(paper_data):
    """Figure 3: on the target, FLDA-Q and T-LS converge; S-LS stays clearly worse."""
    sizes = sample_size_grid()
    result = LearningCurveResult(quadratic_learning_errors(paper_data, sizes, range(50), seed=0), sizes)
    assert result.errors.shape == (3, 2, 50, len(sizes))
    table = result.table
    target = table[table["domain"] == "target"].pivot(index="n", columns="classifier", values="mean_error")
    source = table[table["domain"] == "source"].pivot(index="n", columns="classifier", values="mean_error")
    large = target.index >= 1000
    assert np.all(np.abs(target.loc[large, "FLDA-Q"] - target.loc[large, "T-LS"]) < 0.01)
    assert np.all(target.loc[large, "S-LS"] - target.loc[large, "T-LS"] > 0.05)
    assert np.all(source.loc[large, "S-LS"] < source.loc[large, "FLDA-Q"])
    n_adapt = adaptation_sample_size(table, "FLDA-Q", "T-LS", tolerance=0.01)
    assert n_adapt is not None and n_adapt <= 100  # paper: "roughly 20"


def test_run_learning_curves_validates_arguments():
    config, _ = learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 100, 0, ("custom", "2, 5"))
    with pytest.raises(ValueError, match="n_repeats"):
        run_learning_curves(config, 0)


# ------------------------------------------------------------------ figures
def _tables():
    rng = np.random.default_rng(3)
    sizes = np.array([2, 10, 100, 10_000])
    errors = rng.uniform(0.1, 0.4, size=(3, 2, 5, 4))
    return summarize_errors(errors, sizes), oracle_gaps(errors, sizes)


def test_learning_curve_figure_panels_styles_and_bands():
    quad, _ = _tables()
    fig = learning_curve_figure(quad)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(lines) == 6 and len(bands) == 6
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    dashes = {(t.name, t.yaxis): t.line.dash for t in lines}
    assert dashes[("FLDA-Q", "y")] == "dot" and dashes[("FLDA-Q", "y2")] == "solid"
    assert sum(t.showlegend for t in lines) == 3  # one legend entry each
    flda_target = next(t for t in lines if t.name == "FLDA-Q" and t.yaxis == "y2")
    expected = quad[(quad["classifier"] == "FLDA-Q") & (quad["domain"] == "target")]
    np.testing.assert_allclose(flda_target.y, expected.sort_values("n")["mean_error"])
    assert len(learning_curve_figure(quad, show_sem=False).data) == 6
    assert [a.text for a in fig.layout.annotations] == [
        "Error on the source validation set",
        "Error on the target validation set",
    ]


def test_learning_curve_figure_keeps_its_texts_apart_on_a_small_slide():
    """Issue 25: on a 1280 x 720 slide each panel is ~70 px tall.  The error axes are
    titled "error" (the panel titles say which; "classification error", ~190 px at 22 px,
    ran into the other row's title), the legend sits below the plot (above it, a legend
    wrapped to two lines covered the top panel's title) and a slide's figure has at most
    three error ticks."""
    from explorer.figures.export import legend_below, presentation_style

    quad, _ = _tables()
    fig = learning_curve_figure(quad)
    assert fig.layout.yaxis.title.text == fig.layout.yaxis2.title.text == "error"
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0
    assert legend_below(fig).layout.legend.yref == "container"  # room made at the bottom
    assert fig.layout.yaxis.nticks is None  # the full page: plotly's
    slide = presentation_style(learning_curve_figure(quad, slide=True))
    assert slide.layout.yaxis.nticks == slide.layout.yaxis2.nticks == 3
    assert slide.layout.legend.yref == "container" and slide.layout.legend.y == 0


def test_learning_curve_band_is_mean_plus_minus_sem():
    quad, _ = _tables()
    fig = learning_curve_figure(quad)
    band = next(t for t in fig.data if t.name == "S-LS +/- SEM")
    curve = quad[(quad["classifier"] == "S-LS") & (quad["domain"] == "source")].sort_values("n")
    upper = curve["mean_error"] + curve["sem"]
    np.testing.assert_allclose(band.y[:4], upper)


def test_gap_figure_and_empty_inputs():
    table, gaps = _tables()
    fig = gap_figure(gaps)
    names = [t.name for t in fig.data if t.mode == "lines+markers"]
    assert names == ["S-LS − T-LS", "FLDA-Q − T-LS"]
    with pytest.raises(ValueError, match="empty"):
        gap_figure(gaps.iloc[:0])
    with pytest.raises(ValueError, match="empty"):
        learning_curve_figure(table.iloc[:0])


def test_figures_leave_the_template_to_the_app_theme():
    """No hard-coded template (e.g. plotly_white): Streamlit's light/dark theme applies."""
    table, gaps = _tables()
    default = go.Figure().layout.template
    assert learning_curve_figure(table).layout.template == default
    assert gap_figure(gaps).layout.template == default


def test_log_ticks():
    ticks, labels = log_ticks(2, 10_000)
    assert ticks[0] == 2 and ticks[-1] == 10_000 and labels[-1] == "10k"
    assert "1k" in labels and "500" in labels
    assert log_ticks(3, 4) == ([3, 4], ["3", "4"])


@pytest.mark.parametrize("options", [{}, {"show_sem": False}, {"log_y": True}])
def test_learning_curve_and_gap_figures_pass_plotly_validation_unchanged(options):
    """Both figures redraw on every l2 toggle, so they skip plotly's per-property
    validation; every property must still be one plotly accepts as it is."""
    table, gaps = _tables()
    fig = learning_curve_figure(table, **options)
    assert_passes_plotly_validation(fig)
    assert len(fig.layout.annotations) == 2  # one title per panel
    assert all(a.font.size == 15 for a in fig.layout.annotations)
    assert_passes_plotly_validation(gap_figure(gaps))
