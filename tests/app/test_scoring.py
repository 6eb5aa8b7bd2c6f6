"""One classification error for every experiment (explorer.experiments.scoring).

On lattice data a boundary can pass exactly through a lattice point; its score
there is 0 up to rounding noise of either sign.  Every experiment must count
such a tie the same way (as the first class), so that two pages can no longer
score the same S-LS differently.
"""

import numpy as np
import pytest

from flda_core.classifier import FLDAClassifier
from flda_core.synthetic import DomainPair
from explorer.experiments import scoring
from explorer.experiments.learning_curves import LearningCurveData, quadratic_learning_errors
from explorer.experiments.synthetic import fit_linear
from explorer.experiments.your_data import target_error_table


def _lattice_pair():
    """Lattice data on which S-LS's boundary runs exactly through the point (1, 2).

    Least squares on this source gives a score of exactly 0 at (1, 2) in exact
    arithmetic, but +5.6e-17 in floating point: a strict ``score > 0`` would
    call the point class 1, the tie rule calls it class 0.
    """
    X_source = np.array([[2.0, 1.0], [1.0, 2.0], [2.0, 1.0], [1.0, 2.0]])
    y_source = np.array([1, 0, 1, 1])
    X_target = np.array([[1.0, 2.0]] * 4 + [[2.0, 1.0]] * 2)
    y_target = np.array([1, 1, 1, 0, 1, 1])
    return DomainPair(
        X_source, y_source, X_target, y_target, np.zeros(2), "bernoulli", np.array([[0.7, 0.7], [0.3, 0.3]])
    )


def test_tie_rule_counts_rounding_noise_as_the_first_class():
    X = np.array([[1.0, 1.0]] * 3 + [[3.0, 3.0]])
    y = np.array([1, 1, 0, 1])
    assert 0.1 + 0.2 - 0.3 > 0  # rounding noise says "class 1"
    assert scoring.binary_error([0.1, 0.2], -0.3, X, y) == pytest.approx(0.5)
    assert scoring.binary_error([0.1, 0.2], -0.29, X, y) == pytest.approx(0.25)
    assert scoring.lattice_error_rates(np.array([0.1, 0.2]), np.array(-0.3), X, y) == 0.5


def test_every_experiment_scores_the_same_s_ls_the_same_way():
    pair = _lattice_pair()
    fit = fit_linear(pair, "source", "quadratic")
    scores = pair.X_target @ fit.coef + fit.intercept
    on_boundary = np.all(pair.X_target == [1.0, 2.0], axis=1)
    assert np.all(np.abs(scores[on_boundary]) < 1e-12)  # the boundary hits a point
    strict = np.mean((scores > 0).astype(int) != pair.y_target)
    # Synthetic pages (fit_linear) and learning curves (batched) agree ...
    batched = scoring.lattice_error_rates(fit.coef, np.array(fit.intercept), pair.X_target, pair.y_target)
    assert fit.target_error == pytest.approx(float(batched))
    # ... and so do the natural-data experiments that score a fitted classifier.
    clf = FLDAClassifier(loss="quadratic").fit(pair.X_source, pair.y_source)
    assert scoring.error_rate(clf, pair.X_target, pair.y_target) == fit.target_error
    # The points on the boundary count as the first class (label 0), whatever the sign
    # of the rounding noise; a strict "> 0" would have scored this S-LS differently.
    expected = np.mean(np.where(on_boundary, 0, (scores > 0).astype(int)) != pair.y_target)
    assert fit.target_error == pytest.approx(expected)
    assert fit.target_error != pytest.approx(strict)


def test_learning_curves_and_your_data_use_the_same_rule():
    pair = _lattice_pair()
    data = LearningCurveData(
        pair.X_source,
        pair.y_source,
        pair.X_target,
        pair.y_target,
        pair.X_source,
        pair.y_source,
        pair.X_target,
        pair.y_target,
    )
    n = len(pair.y_source)
    errors = quadratic_learning_errors(data, [n], [0])  # the whole pool: S-LS of the pair
    assert errors[0, 1, 0, 0] == pytest.approx(fit_linear(pair, "source", "quadratic").target_error)

    class Prepared:  # what target_error_table reads
        has_target_labels = True
        target_labelled = np.ones(len(pair.y_target), dtype=bool)
        X_target, y_target = pair.X_target, pair.y_target

    clf = FLDAClassifier(loss="quadratic").fit(pair.X_source, pair.y_source)
    table = target_error_table(Prepared, {"S-LS": clf})
    assert table.loc[0, "error"] == pytest.approx(scoring.error_rate(clf, pair.X_target, pair.y_target))


@pytest.mark.parametrize("kind", ["poisson lattice", "binary lattice", "continuous"])
def test_lattice_error_rates_is_binary_error_for_every_classifier(kind):
    """Scored on the distinct (x, label) rows with their counts, exactly what scoring every
    row gives, ties included (integer weights hit lattice points exactly)."""
    rng = np.random.default_rng(3)
    n = 3_000
    X = {
        "poisson lattice": rng.poisson(3.0, (n, 2)).astype(float),
        "binary lattice": rng.integers(0, 2, (n, 3)).astype(float),
        "continuous": rng.normal(size=(n, 2)),
    }[kind]
    y = rng.integers(0, 2, n)
    coef = rng.integers(-2, 3, (4, 5, X.shape[1])).astype(float)
    intercept = rng.integers(-3, 4, (4, 5)).astype(float)
    coef[0, 0], intercept[0, 0] = 0.0, 0.0  # all scores exactly 0
    rates = scoring.lattice_error_rates(coef, intercept, X, y, chunk=7)
    assert rates.shape == (4, 5)
    for index in np.ndindex(4, 5):
        assert rates[index] == scoring.binary_error(coef[index], intercept[index], X, y)
    assert rates[0, 0] == np.mean(y == 1)  # ties are the first class
