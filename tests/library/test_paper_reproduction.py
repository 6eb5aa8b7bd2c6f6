"""Reproduce the artificial-data experiments of section 4.1 (Figure 1, Table 1).

The 2-D Bernoulli experiment (section 4.1.1) has a subtlety the paper does not
mention.  The source classes are symmetric in the two features, so the naive
source classifier's boundary is (in expectation) the line x1 + x2 = 1, which
passes *exactly* through the lattice points (0, 1) and (1, 0).  Which side the
heavily populated target point (0, 1) lands on is decided by sampling noise,
and with it the S-LS target error jumps between 0.30 and 0.40 (the paper
reports 0.40).  What is stable, and tested here: the S-LS score at those
lattice points is ~0; its error is exactly the population error of its lattice
labelling (one of two values); FLDA moves the boundary decisively off the
lattice and equals the target oracle at 0.30.
"""

import numpy as np
import pytest

from flda_core.classifier import FLDAClassifier
from flda_core.synthetic import exact_target_error, make_bernoulli_domains, make_poisson_domains


def _fit_three(data, loss, **kwargs):
    source = FLDAClassifier(loss=loss, **kwargs).fit(data.X_source, data.y_source)
    flda = FLDAClassifier(loss=loss, **kwargs).fit(data.X_source, data.y_source, X_target=data.X_target)
    target = FLDAClassifier(loss=loss, **kwargs).fit(data.X_target, data.y_target)
    return source, flda, target


def _error(clf, data):
    return 1.0 - clf.score(data.X_target, data.y_target)


@pytest.fixture(scope="module", params=[0, 5])
def bernoulli(request):
    return make_bernoulli_domains(random_state=request.param)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_bernoulli_flda_equals_target_oracle_at_0_30(bernoulli, loss):
    source, flda, target = _fit_three(bernoulli, loss)
    assert _error(flda, bernoulli) == pytest.approx(0.30, abs=0.01)
    assert _error(target, bernoulli) == pytest.approx(0.30, abs=0.01)
    # Exactly the same decisions on every point of the target lattice.
    assert exact_target_error(flda.predict) == exact_target_error(target.predict)
    assert exact_target_error(flda.predict) == pytest.approx(0.30, abs=1e-12)


def test_bernoulli_naive_boundary_passes_through_lattice_points(bernoulli):
    source, flda, _ = _fit_three(bernoulli, "quadratic")
    on_lattice = np.abs(source.decision_function(np.array([[0.0, 1.0], [1.0, 0.0]])))
    off_lattice = np.abs(source.decision_function(np.array([[0.0, 0.0], [1.0, 1.0]])))
    assert np.all(on_lattice < 0.05 * off_lattice.min())
    # FLDA is decisive at the target lattice point (0, 1).
    assert abs(flda.decision_function(np.array([[0.0, 1.0]]))[0]) > 0.2


def test_bernoulli_naive_error_is_the_population_error_of_its_lattice_labelling(bernoulli):
    source, _, _ = _fit_three(bernoulli, "quadratic")
    population = exact_target_error(source.predict)
    assert population == pytest.approx(0.30, abs=1e-12) or population == pytest.approx(0.40, abs=1e-12)
    assert _error(source, bernoulli) == pytest.approx(population, abs=0.01)


def test_both_naive_outcomes_occur_across_seeds():
    """The flip is real: some seeds give the paper's 0.40, others 0.30."""
    outcomes = set()
    for seed in range(8):
        data = make_bernoulli_domains(n_source=20_000, n_target=10, random_state=seed)
        clf = FLDAClassifier(loss="quadratic").fit(data.X_source, data.y_source)
        outcomes.add(round(exact_target_error(clf.predict), 2))
    assert outcomes == {0.30, 0.40}


@pytest.fixture(scope="module")
def poisson():
    return make_poisson_domains(random_state=0)


@pytest.mark.parametrize(
    "loss, paper_source, paper_target",
    [
        ("quadratic", 0.245, 0.137),
        ("logistic", 0.264, 0.139),
    ],
)
def test_table_1_naive_and_oracle_errors_near_the_paper(poisson, loss, paper_source, paper_target):
    source, flda, target = _fit_three(poisson, loss)
    assert _error(source, poisson) == pytest.approx(paper_source, abs=0.01)
    assert _error(target, poisson) == pytest.approx(paper_target, abs=0.01)
    assert _error(flda, poisson) == pytest.approx(_error(target, poisson), abs=0.01)
    assert flda.theta_[0] == pytest.approx(0.5, abs=0.01) and flda.theta_[1] == 0.0


def test_table_1_quadratic_error_grows_with_the_perturbation(poisson):
    theta_hat = (
        FLDAClassifier(loss="quadratic")
        .fit(poisson.X_source, poisson.y_source, X_target=poisson.X_target)
        .theta_
    )
    errors = []
    for delta in (0.0, 0.1, 0.2, 0.3):
        theta = theta_hat + np.array([delta, 0.0])
        clf = FLDAClassifier(loss="quadratic", theta=theta).fit(poisson.X_source, poisson.y_source)
        errors.append(_error(clf, poisson))
    assert all(b >= a for a, b in zip(errors, errors[1:]))
    assert errors[-1] > errors[0] + 0.005
    # The paper: 0.138, 0.145, 0.149, 0.150 -- a few percent at most.
    assert errors[-1] - errors[0] < 0.03
