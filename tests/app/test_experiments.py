"""Tests of explorer.experiments.synthetic and .perturbation (section 4.1: Figures 1-2, Table 1)."""

import numpy as np
import pytest

from flda_core.classifier import FLDAClassifier
from explorer.data.numbers import format_values, parse_per_feature
from explorer.experiments.perturbation import (
    PAPER_TABLE1,
    feasible_perturbations,
    paper_table1_frame,
    perturbation_sweep,
    sweep_frame,
    table1_frame,
    table1_unperturbed_errors,
)
from explorer.experiments.synthetic import (
    PAPER_FIGURE1,
    PAPER_FIGURE2,
    classifier_errors,
    fit_classifiers,
    fit_linear,
    matching_paper_setting,
    theta_table,
)
from flda_core.synthetic import make_domains


@pytest.fixture(scope="module")
def poisson_pair():
    return make_domains("poisson", PAPER_FIGURE2.params, 20_000, 20_000, (0.5, 0.0), random_state=1)


@pytest.fixture(scope="module")
def poisson_result(poisson_pair):
    return fit_classifiers(poisson_pair)


def test_parse_per_feature_repeats_last_value():
    assert parse_per_feature("0.7, 0.3", 4, "p", 0, 1) == (0.7, 0.3, 0.3, 0.3)
    assert parse_per_feature(" 2;6  1e-1 ", 3, "rate", 0) == (2.0, 6.0, 0.1)
    assert parse_per_feature(format_values((0.5, 0.0)), 2, "theta") == (0.5, 0.0)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "no values"),
        ("0.7, abc", "'abc' is not a number"),
        ("0.1, 0.2, 0.3", "3 values given but there are only 2 features"),
        ("0.5, 1.5", "value 2 (1.5) must be between 0 and 1"),
        ("nan", "is not a number"),
        ("1e400x", "is not a number"),
    ],
)
def test_parse_per_feature_explains_bad_input(text, fragment):
    with pytest.raises(ValueError, match="theta: .*") as info:
        parse_per_feature(text, 2, "theta", 0, 1)
    assert fragment in str(info.value)


def test_fit_classifiers_reproduces_adaptation(poisson_result):
    errors = {name: f.target_error for name, f in poisson_result.classifiers.items()}
    assert list(errors) == ["S-LS", "T-LS", "FLDA-Q", "S-LR", "T-LR", "FLDA-L"]
    # FLDA matches the oracle, the naive source classifier is clearly worse (Figure 2).
    assert abs(errors["FLDA-Q"] - errors["T-LS"]) < 0.01
    assert abs(errors["FLDA-L"] - errors["T-LR"]) < 0.01
    assert errors["S-LS"] > errors["FLDA-Q"] + 0.05
    assert errors["S-LR"] > errors["FLDA-L"] + 0.05
    np.testing.assert_allclose(poisson_result.theta_hat, [0.5, 0.0], atol=0.02)
    np.testing.assert_array_equal(poisson_result.theta_true, [0.5, 0.0])
    assert [f.name for f in poisson_result.for_loss("logistic")] == ["S-LR", "T-LR", "FLDA-L"]


def test_fit_linear_agrees_with_classifier_predictions(poisson_pair):
    """Errors and weights equal an independent FLDAClassifier fit + predict."""
    fit = fit_linear(poisson_pair, "flda", "logistic")
    clf = FLDAClassifier(loss="logistic").fit(
        poisson_pair.X_source, poisson_pair.y_source, X_target=poisson_pair.X_target
    )
    np.testing.assert_allclose(fit.coef, clf.coef_[0])
    assert fit.target_error == np.mean(clf.predict(poisson_pair.X_target) != poisson_pair.y_target)
    assert fit.source_error == np.mean(clf.predict(poisson_pair.X_source) != poisson_pair.y_source)
    oracle = fit_linear(poisson_pair, "target", "quadratic")
    assert oracle.name == "T-LS" and np.all(oracle.theta == 0)


def test_fit_linear_rejects_bad_family_and_multiclass(poisson_pair):
    with pytest.raises(ValueError, match="family"):
        fit_linear(poisson_pair, "oracle", "quadratic")
    three = make_domains("poisson", ((1, 1), (3, 3), (6, 6)), 300, 300, (0.5, 0), 0)
    with pytest.raises(ValueError, match="two classes"):
        fit_linear(three, "source", "quadratic")


def test_classifier_errors_with_references(poisson_result):
    table = classifier_errors(
        poisson_result, {"paper, Figure 2": PAPER_FIGURE2.errors, "partial": {"S-LS": 0.5}}
    )
    assert list(table["classifier"]) == ["S-LS", "T-LS", "FLDA-Q", "S-LR", "T-LR", "FLDA-L"]
    assert table.loc[table.classifier == "FLDA-L", "paper, Figure 2"].item() == 0.084
    assert table["partial"].isna().sum() == 5
    assert table.loc[0, "target error"] == poisson_result.classifiers["S-LS"].target_error
    # On a phone the table scrolls sideways: the errors come first, descriptions last.
    assert list(table.columns) == [
        "classifier",
        "target error",
        "source error",
        "paper, Figure 2",
        "partial",
        "loss",
        "trained on",
    ]


def test_theta_table_columns():
    table = theta_table((0.5, 0.0), (0.49, 0.01), ((2, 2), (6, 6)), "poisson")
    assert list(table.columns) == [
        "feature",
        "class 1 rate",
        "class 2 rate",
        "true theta",
        "estimated theta",
        "estimate - true",
    ]
    np.testing.assert_allclose(table["estimate - true"], [-0.01, 0.01])


def test_paper_constants_match_the_paper_text():
    assert PAPER_FIGURE1.errors["S-LS"] == 0.400 and PAPER_FIGURE1.errors["S-LR"] == 0.248
    assert PAPER_FIGURE2.errors["T-LR"] == 0.084
    table = paper_table1_frame()
    np.testing.assert_allclose(
        table.loc["Quadratic loss"].to_numpy(), [0.245, 0.137, 0.138, 0.145, 0.149, 0.150]
    )
    np.testing.assert_allclose(
        table.loc["Logistic loss"].to_numpy(), [0.264, 0.139, 0.139, 0.140, 0.142, 0.146]
    )
    assert table1_unperturbed_errors()["FLDA-Q"] == PAPER_TABLE1.errors["FLDA-Q+0"]


def test_matching_paper_setting():
    assert matching_paper_setting("bernoulli", ((0.7, 0.7), (0.3, 0.3)), (0.5, 0)) is PAPER_FIGURE1
    assert matching_paper_setting("poisson", ((2, 2), (6, 6)), (0.5, 0.0), 100_000, 100_000) is PAPER_FIGURE2
    assert matching_paper_setting("poisson", ((2, 2), (6, 6)), (0.5, 0.0), 10_000) is None
    assert matching_paper_setting("poisson", ((2, 2), (6, 7)), (0.5, 0.0)) is None
    assert matching_paper_setting("poisson", ((2, 2, 2), (6, 6, 6)), (0.5, 0, 0)) is None


def test_feasible_perturbations():
    assert feasible_perturbations(0.5, [-0.6, -0.5, 0, 0.3, 0.5, 0.51]) == [-0.5, 0, 0.3, 0.5]


def test_perturbation_sweep_shrinks_feature_one(poisson_pair, poisson_result):
    fits = perturbation_sweep(poisson_pair, [0.0, 0.1, 0.3], losses=("quadratic",))
    assert [f.perturbation for f in fits] == [0.0, 0.1, 0.3]
    base = poisson_result.theta_hat
    for f in fits:
        np.testing.assert_allclose(f.theta, [base[0] + f.perturbation, base[1]])
    # Zero perturbation is exactly FLDA-Q with the estimated theta.
    np.testing.assert_allclose(fits[0].coef, poisson_result.classifiers["FLDA-Q"].coef)
    # A larger assumed dropout shrinks the weight of feature 1 (Figure 4).
    weights = [abs(f.coef[0]) for f in fits]
    assert weights[0] > weights[1] > weights[2]
    frame = sweep_frame(fits)
    assert list(frame["perturbation"]) == [0.0, 0.1, 0.3]
    assert "theta of feature 1" in frame.columns


def test_perturbation_sweep_validates(poisson_pair):
    with pytest.raises(ValueError, match="leaves \\[0, 1\\]"):
        perturbation_sweep(poisson_pair, [0.6], theta_base=(0.5, 0.0))
    with pytest.raises(ValueError, match="feature must be"):
        perturbation_sweep(poisson_pair, [0.0], feature=2)
    fits = perturbation_sweep(poisson_pair, [0.5], feature=1, losses=("logistic",), theta_base=(0.5, 0.0))
    np.testing.assert_allclose(fits[0].theta, [0.5, 0.5])


def test_table1_frame_layout(poisson_pair, poisson_result):
    fits = perturbation_sweep(poisson_pair, [0.2, 0.0], theta_base=poisson_result.theta_hat)
    table = table1_frame(poisson_result, fits)
    assert list(table.index) == ["Quadratic loss", "Logistic loss"]
    assert list(table.columns) == ["SL", "TL", "θ̂₁+0", "θ̂₁+0.2"]
    assert table.loc["Logistic loss", "SL"] == poisson_result.classifiers["S-LR"].target_error
    assert table.loc["Quadratic loss", "θ̂₁+0"] == pytest.approx(
        poisson_result.classifiers["FLDA-Q"].target_error
    )


def test_progress_callback_reaches_one(poisson_pair):
    seen = []
    fit_classifiers(poisson_pair, losses=("quadratic",), progress=lambda f, m: seen.append(f))
    assert seen[0] == 0 and seen[-1] == 1.0 and len(seen) == 4


def test_parse_domain_config_returns_a_make_domains_key_or_named_problems():
    from explorer.data.numbers import truncate_per_feature
    from explorer.data.domain_config import parse_domain_config

    key, problems = parse_domain_config("poisson", 2, "2, 2", "6", "0.5, 0", 100, 200, 3)
    assert problems == []
    assert key == ("poisson", ((2.0, 2.0), (6.0, 6.0)), 100, 200, (0.5, 0.0), 3)
    key, problems = parse_domain_config("bernoulli", 2, "0.7, x", "1.5, 0.3", "0.5, 0", 10, 10, 0)
    assert key is None and len(problems) == 2
    assert "Class 1 success probabilities" in problems[0] and "'x'" in problems[0]
    assert "Class 2 success probabilities" in problems[1]
    assert truncate_per_feature("1, 2, 3", 2) == "1, 2"
    assert truncate_per_feature("1, 2", 3) == "1, 2"
    # the same separators as the parser, so shrinking the feature count never
    # leaves a list the parser rejects
    assert truncate_per_feature("0.7 0.7 0.3", 2) == "0.7, 0.7"
    assert truncate_per_feature("0.7; 0.7; 0.3", 2) == "0.7, 0.7"
