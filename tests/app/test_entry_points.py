"""Each experiment's one entry point: it takes the page's ``fit=`` and reports
``progress(fraction, text)``, and gives what the underlying functions give."""

import numpy as np
import pytest

from explorer.data import digits as dg
from flda_core.synthetic import make_domains
from explorer.experiments import digits as ed
from explorer.experiments.learning_curves import (
    learning_curve_config,
    quadratic_learning_errors,
    per_repeat_frame,
    run_learning_curves,
    headline,
)
from explorer.experiments.perturbation import (
    curve_grid,
    own_theta_fits,
    own_theta_frame,
    perturbation_sweep,
    run_perturbation,
)
from explorer.experiments.progress import scaled
from explorer.experiments.synthetic import fit_classifiers, fit_linear
from explorer.names import TABLE_CLASSIFIERS


def _recorder():
    calls = []
    return calls, lambda fraction, text: calls.append((fraction, text))


def _assert_progress(calls):
    fractions = [f for f, _ in calls]
    assert fractions[0] == 0 and fractions[-1] == 1.0 and calls[-1][1] == "Done"
    assert all(0 <= a <= b <= 1 for a, b in zip(fractions, fractions[1:]))


@pytest.fixture(scope="module")
def pair():
    return make_domains("poisson", ((2.0, 2.0), (6.0, 6.0)), 3_000, 3_000, (0.5, 0.0), random_state=2)


def test_progress_of_a_sub_task_maps_into_its_share():
    calls, progress = _recorder()
    sub = scaled(progress, 0.5, 1.0)
    sub(0.0, "a")
    sub(0.5, "b")
    sub(1.0, "Done")  # the sub-task's end is not the whole's
    assert calls == [(0.5, "a"), (0.75, "b")]
    assert scaled(None, 0, 1) is None


def test_run_perturbation_is_the_sweep_plus_the_naive_classifiers(pair):
    fitted = []

    def fit(family, loss, l2, theta=None, perturbation=None):
        fitted.append((family, loss))
        return fit_linear(pair, family, loss, l2=l2, theta=theta, perturbation=perturbation)

    calls, progress = _recorder()
    result = run_perturbation(pair, 0, [0.3, 0.0, 0.9], curve_range=(-0.1, 0.1), fit=fit, progress=progress)
    _assert_progress(calls)
    theta_hat = fit_linear(pair, "flda", "quadratic").theta
    assert np.array_equal(result.theta_hat, theta_hat)
    assert result.chosen == [0.0, 0.3] and result.skipped == [0.9]  # 0.5 + 0.9 > 1
    assert result.curve == [-0.1, -0.05, 0.0, 0.05, 0.1, 0.3]
    assert list(result.naive.classifiers) == ["S-LS", "T-LS", "S-LR", "T-LR"]
    assert ("flda", "logistic") in fitted and len(fitted) == 4 + 2 * 6  # θ̂ needs no fit of its own
    sweep = perturbation_sweep(pair, result.curve, 0, theta_base=theta_hat)
    assert [f.target_error for f in result.sweep] == [f.target_error for f in sweep]
    assert list(result.table1().columns) == ["SL", "TL", "θ̂₁+0", "θ̂₁+0.3"]
    assert curve_grid(-0.1, 0.1) == [-0.1, -0.05, 0.0, 0.05, 0.1]


def test_a_first_chart_run_fits_only_the_chosen_perturbations_and_the_same_ones(pair):
    """Figure 4 (a tab's first chart on Transfer parameters) needs FLDA only at the chosen
    perturbations: ``chosen_only`` fits those, identical to the full run's, and still
    lists the whole feasible curve; the full run then needs only the rest."""
    fitted = []

    def fit(family, loss, l2, theta=None, perturbation=None):
        fitted.append((family, loss, perturbation))
        return fit_linear(pair, family, loss, l2=l2, theta=theta, perturbation=perturbation)

    calls, progress = _recorder()
    first = run_perturbation(
        pair, 0, [0.3, 0.0, 0.9], curve_range=(-0.1, 0.1), fit=fit, progress=progress, chosen_only=True
    )
    _assert_progress(calls)
    full = run_perturbation(pair, 0, [0.3, 0.0, 0.9], curve_range=(-0.1, 0.1))
    assert first.curve == full.curve and first.chosen == full.chosen == [0.0, 0.3]
    assert [(f.loss, f.perturbation) for f in first.sweep] == [
        (loss, d) for loss in ("quadratic", "logistic") for d in (0.0, 0.3)
    ]
    assert [(f.name, f.target_error, f.perturbation) for f in first.chosen_fits()] == [
        (f.name, f.target_error, f.perturbation) for f in full.chosen_fits()
    ]
    assert first.naive.classifiers.keys() == full.naive.classifiers.keys()
    assert len([f for f in fitted if f[2] is not None]) == 4  # 2 losses x 2 chosen
    assert first.table1().equals(full.table1())


def test_own_theta_fits_only_when_it_differs_from_the_estimate(pair):
    theta_hat = fit_linear(pair, "flda", "quadratic").theta
    assert own_theta_fits(theta_hat, theta_hat, pair=pair) == {}
    own = own_theta_fits([0.2, 0.0], theta_hat, pair=pair)
    assert set(own) == {"quadratic", "logistic"}
    assert np.allclose(own["quadratic"].theta, [0.2, 0.0])
    frame = own_theta_frame(own)
    assert list(frame["classifier"]) == ["FLDA-Q", "FLDA-L"] and list(frame["theta"]) == ["0.2, 0"] * 2


def test_fit_classifiers_uses_the_given_fit(pair):
    seen = []

    def fit(family, loss, l2, theta=None, perturbation=None):
        seen.append((family, loss, l2))
        return fit_linear(pair, family, loss, l2=l2)

    result = fit_classifiers(pair, l2=1e-3, fit=fit)
    assert len(seen) == 6 and all(l2 == 1e-3 for _, _, l2 in seen)
    assert np.array_equal(result.theta_hat, result.classifiers["FLDA-Q"].theta)


def test_learning_curve_config_validates_sizes_and_notes_pointless_settings():
    config, notes = learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 1000, 0, ("log", 2, 1000, 5))
    assert config.sizes[0] == 2 and config.sizes[-1] == 1000 and notes == []
    with pytest.raises(ValueError, match="Largest n"):
        learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 100, 0, ("log", 2, 1000, 5))
    with pytest.raises(ValueError, match="Sample sizes: 'x' is not a number"):
        learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 100, 0, ("custom", "2, x"))
    _, notes = learning_curve_config("poisson", [[2, 2], [2, 2]], [1, 1], 100, 0, ("custom", "2, 50"))
    assert len(notes) == 2


def test_run_learning_curves_equals_learning_curves_with_its_fit():
    config, _ = learning_curve_config(
        "bernoulli", [[0.7, 0.7], [0.3, 0.3]], [0.5, 0], 300, 4, ("custom", "3, 20, 300")
    )
    quadratic = run_learning_curves(config, 3)
    direct = quadratic_learning_errors(config.data(), config.sizes, range(3), seed=4)
    assert np.array_equal(quadratic.errors, direct)
    asked = []

    def fit(config, repeats):
        asked.append(repeats)
        return direct

    assert np.array_equal(run_learning_curves(config, 3, fit=fit).errors, direct)
    assert asked == [(0, 1, 2)]  # every repeat in one batched call
    raw = per_repeat_frame(quadratic)
    assert len(raw) == 3 * 2 * 3 * 3 and set(raw["classifier"]) == {"S-LS", "T-LS", "FLDA-Q"}
    head = headline(quadratic.table, 0.01)
    assert (head.flda, head.oracle, head.naive, head.largest_n) == ("FLDA-Q", "T-LS", "S-LS", 300)


def test_run_digits_fits_the_figure_6_pair_first_and_every_cell_once():
    domains = dg.make_offline_domains(random_state=0)
    seen = []

    def fit(direction, method, l2, zero_tol):
        seen.append((direction, method, zero_tol))
        X_s, y_s, X_t, y_t = dg.direction_data(domains, direction)
        keep_s, keep_t = slice(0, 300), slice(0, 300)
        return ed.fit_method(
            X_s[keep_s], y_s[keep_s], X_t[keep_t], y_t[keep_t], method, l2=l2, zero_tol=zero_tol
        )

    calls, progress = _recorder()
    results = ed.run_digits(domains, "B → A", "quadratic", l2=1e-2, zero_tol=0.1, fit=fit, progress=progress)
    _assert_progress(calls)
    assert seen[:2] == [("B → A", "S-LS", 0.0), ("B → A", "FLDA-Q", 0.1)]
    assert len(seen) == len(set(seen)) == 2 * len(TABLE_CLASSIFIERS)
    pixels = ed.pixel_frame(
        domains, (np.zeros(256), np.ones(256)), results, "B → A", "quadratic", domains.classes[0]
    )
    assert len(pixels) == 256 and pixels.filter(like="weight").shape[1] == 2
    l2 = ed.l2_frame(results)
    assert list(l2["method"][: len(TABLE_CLASSIFIERS)]) == list(TABLE_CLASSIFIERS)
