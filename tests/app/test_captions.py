"""Caption sentences follow the numbers they describe."""

import dataclasses
import numpy as np
import pandas as pd
import pytest

from flda_core.synthetic import make_domains
from explorer.teaching import captions as cap
from explorer.experiments.learning_curves import learning_curve_config, run_learning_curves
from explorer.experiments.perturbation import PAPER_TABLE1, perturbation_sweep, table1_unperturbed_errors
from explorer.experiments.synthetic import PAPER_FIGURE1, FittedLinear, fit_linear
from explorer.names import LOSSES
from text_numbers import numbers, sentence


def _fit(name, family, loss, error, perturbation=None):
    return FittedLinear(
        name=name,
        family=family,
        loss=loss,
        coef=np.zeros(2),
        intercept=0.0,
        theta=np.zeros(2),
        target_error=error,
        source_error=0.0,
        perturbation=perturbation,
    )


# ----------------------------------------------------------------------------- synthetic


def test_dropout_sentence_uses_the_users_theta_not_figure_2s():
    text = cap.dropout_sentence((0.3, 0.1), "bernoulli")
    assert "θ₁ = 0.3" in text and "θ₂ = 0.1" in text and "1.43" in text
    assert "0.5" not in text and "even" not in text
    assert "multiples of 2" in cap.dropout_sentence((0.5, 0.0), "poisson")
    assert "θ₂" not in cap.dropout_sentence((0.5, 0.0), "poisson")
    assert "nothing is dropped" in cap.dropout_sentence((0.0, 0.0), "poisson")
    assert "always 0" in cap.dropout_sentence((1.0,), "poisson")
    assert "2 more feature(s)" in cap.dropout_sentence([0.1] * 5, "poisson")


def test_sls_population_boundary_is_the_limit_of_the_fitted_s_ls():
    w, b = cap.sls_population_boundary(PAPER_FIGURE1.params)
    pair = make_domains("bernoulli", PAPER_FIGURE1.params, 200_000, 10, PAPER_FIGURE1.theta, random_state=0)
    fit = fit_linear(pair, "source", "quadratic")
    np.testing.assert_allclose(fit.coef, w, atol=0.01)
    assert fit.intercept == pytest.approx(b, abs=0.01)
    np.testing.assert_allclose(-b / w, [1.0, 1.0], atol=1e-12)  # x1 + x2 = 1


def test_sls_lattice_sentence_only_when_the_boundary_hits_lattice_points():
    text = cap.sls_lattice_sentence(PAPER_FIGURE1.params, PAPER_FIGURE1.theta, 0.312)
    assert "(0, 1)" in text and "0.300, 0.400" in text and "0.312" in text
    # Asymmetric classes or another θ: the boundary misses the lattice, no such claim.
    assert cap.sls_lattice_sentence(((0.8, 0.7), (0.3, 0.3)), (0.5, 0.0), 0.3) == ""
    assert cap.sls_lattice_sentence(PAPER_FIGURE1.params, (0.3, 0.1), 0.3) == ""


def test_figure2_reference_sentence_follows_the_run():
    table = table1_unperturbed_errors()
    text = cap.figure2_reference_sentence(table, 10_000, 10_000)
    assert numbers(sentence(text, "This run uses"))[:3] == [10_000, 10_000, 100_000]  # here; the paper
    assert "reproduces Table 1" in text
    from explorer.experiments.synthetic import PAPER_FIGURE2

    verdict = sentence(
        cap.figure2_reference_sentence(PAPER_FIGURE2.errors, 100_000, 100_000), "reproduces the Figure 2"
    )
    assert numbers(verdict) == [2, 0.0, 1, 0.094]  # within 0.000 of Figure 2, 0.094 from Table 1


# ----------------------------------------------------------------------------- transfer


N_SCORED = 1000


def _scored(name, family, loss, wrong, perturbation=None):
    """A fit that got the target samples in ``wrong`` (indices of 1,000) wrong."""
    mistakes = np.zeros(N_SCORED, bool)
    mistakes[list(wrong)] = True
    fit = _fit(name, family, loss, mistakes.mean(), perturbation)
    return dataclasses.replace(fit, n_target=N_SCORED, target_wrong=np.packbits(mistakes))


def _paired_se(a, b):
    """The paired standard error, computed here from the mistakes themselves."""
    d = np.unpackbits(a.target_wrong, count=N_SCORED).astype(float) - np.unpackbits(
        b.target_wrong, count=N_SCORED
    )
    return d.std(ddof=1) / np.sqrt(N_SCORED)


def test_curve_sentence_names_a_lower_shift_only_beyond_the_noise():
    naive = {
        "T-LS": _scored("T-LS", "target", "quadratic", range(137)),
        "T-LR": _scored("T-LR", "target", "logistic", range(138)),
    }
    sweep = [
        _scored("FLDA-Q", "flda", "quadratic", range(k), d) for d, k in ((-0.1, 150), (0.0, 136), (0.1, 140))
    ]
    # FLDA-L +0.1 gets 8 fewer samples wrong than at +0 and no new ones: paired SE 0.0028
    sweep += [
        _scored("FLDA-L", "flda", "logistic", range(k), d) for d, k in ((-0.1, 150), (0.0, 138), (0.1, 130))
    ]
    text = cap.perturbation_curve_sentences(sweep, naive)
    flda_q = sentence(text, "FLDA-Q is lowest")
    assert numbers(flda_q) == [0.0, 0.136, 0.137] and "at the estimate itself" in flda_q
    assert "below the oracle" not in flda_q  # 0.001 below T-LS, paired SE 0.001: within the noise
    flda_l = sentence(text, "FLDA-L is lowest")
    se = _paired_se(sweep[4], sweep[5])
    assert 2 * se < 0.008  # beyond the noise
    assert numbers(flda_l)[:4] == [0.1, 0.13, 0.0, 0.138] and numbers(flda_l)[4] == pytest.approx(
        se, abs=5e-5
    )
    assert "**below its value at the estimate" in flda_l and "below the oracle T-LR" in flda_l
    assert cap.perturbation_minimum(sweep, "logistic") == (0.1, 0.130)
    # the same errors, but +0.1 is wrong on 30 samples +0 gets right: paired SE 0.008
    sweep[5] = _scored("FLDA-L", "flda", "logistic", [*range(100), *range(500, 530)], 0.1)
    flda_l = sentence(cap.perturbation_curve_sentences(sweep, naive), "FLDA-L is lowest")
    assert 2 * _paired_se(sweep[4], sweep[5]) > 0.008
    assert "level with its +0 value" in flda_l and "within the noise" in flda_l and "**" not in flda_l


def test_curve_sentence_on_real_fits_matches_the_minimum():
    pair = make_domains("poisson", PAPER_TABLE1.params, 5_000, 5_000, PAPER_TABLE1.theta, random_state=1)
    sweep = perturbation_sweep(pair, [-0.1, 0.0, 0.1, 0.2], losses=("quadratic",))
    naive = {"T-LS": fit_linear(pair, "target", "quadratic")}
    at, err = cap.perturbation_minimum(sweep, "quadratic")
    assert err == min(f.target_error for f in sweep)
    said = sentence(cap.perturbation_curve_sentences(sweep, naive), "FLDA-Q is lowest")
    assert numbers(said)[:2] == [round(at, 2), round(err, 3)]


def test_dropout_factor_sentence_follows_theta_hat_and_the_perturbations():
    text = cap.dropout_factor_sentence(0.5, [0.1, 0.3])
    # θ̂₁ = 0.500, then the factor θ/(1 − θ) at each perturbation: 1.00 at +0.00, ...
    assert numbers(text.split("θ̂₁ = ")[1]) == [0.5, 1, 1.0, 0.0, 1.5, 0.1, 4.0, 0.3]
    text = cap.dropout_factor_sentence(0.2, [0.1, 0.8], feature=1)
    factors = text.split("θ̂₂ = ")[1]  # θ̂₂, then the factor at each perturbation; θ = 1 is infinite
    assert numbers(factors) == [0.2, 1, 0.25, 0.0, 0.43, 0.1, 0.8, 1]
    assert "infinite at +0.80" in factors


def test_table1_agreement_is_the_computed_largest_difference():
    ours = dict(PAPER_TABLE1.errors)
    ours["FLDA-L+0.1"] += 0.010
    ours["S-LS"] += 0.001
    text = cap.table1_agreement_sentence(ours)
    # Table 1, on 12 of 12 entries, at most 0.010 (at FLDA-L+0.1: 0.150 here, 0.140 in the paper), median
    assert numbers(text) == [1, 12, 12, 0.01, 0.1, 0.15, 0.14, 0.0]
    assert "at most" in text and "(at FLDA-L+0.1" in text
    del ours["FLDA-Q+0.3"]
    missing = sentence(cap.table1_agreement_sentence(ours), "not in this run")
    assert numbers(missing) == [1]
    assert "perturbs feature 2" in cap.table1_agreement_sentence(ours, feature=1)


def test_table1_errors_uses_the_papers_keys():
    naive = {"S-LS": _fit("S-LS", "source", "quadratic", 0.2)}
    sweep = [_fit("FLDA-Q", "flda", "quadratic", 0.1, 0.1), _fit("FLDA-Q", "flda", "quadratic", 0.3, -0.05)]
    assert cap.table1_errors(naive, sweep) == {"S-LS": 0.2, "FLDA-Q+0.1": 0.1, "FLDA-Q-0.05": 0.3}


# ----------------------------------------------------------------------------- learning curves


def _lc_table(flda_target, naive_source_best=True, sizes=(2, 10, 100), sem=0.001):
    rows = []
    curves = {
        "S-LS": ([0.30, 0.28, 0.27], [0.10, 0.09, 0.08] if naive_source_best else [0.5, 0.5, 0.5]),
        "T-LS": ([0.34, 0.20, 0.15], [0.20, 0.19, 0.18]),
        "FLDA-Q": (flda_target, [0.20, 0.19, 0.18]),
    }
    for name, (target, source) in curves.items():
        for domain, errors in (("target", target), ("source", source)):
            rows += [
                {
                    "classifier": name,
                    "loss": "quadratic",
                    "domain": domain,
                    "n": n,
                    "mean_error": e,
                    "sem": sem,
                }
                for n, e in zip(sizes, errors)
            ]
    return pd.DataFrame(rows)


def test_learning_curve_sentences_follow_the_table():
    text = cap.learning_curve_sentences(_lc_table([0.25, 0.20, 0.15]), 0.01, 100)
    assert numbers(sentence(text, "within", "from n =")) == [0.01, 10]
    smallest = sentence(text, "At the smallest n")
    assert numbers(smallest) == [2, 0.25, 0.3, 0.34, 2]  # FLDA-Q, S-LS and T-LS; 2 standard errors
    assert "is below both S-LS" in smallest
    assert numbers(sentence(text, "On the source set", "lower than both others")) == [3, 3]
    # the same means with standard errors of 0.05 (0.071 for each difference): too close to call
    noisy = cap.learning_curve_sentences(_lc_table([0.25, 0.20, 0.15], sem=0.05), 0.01, 100)
    smallest = sentence(noisy, "At the smallest n")
    assert "is not below both" in smallest and numbers(smallest)[-2:] == [0.071, 0.071]
    assert numbers(sentence(noisy, "On the source set", "lower than both others")) == [0, 3]
    assert numbers(sentence(text, "SEM is 0")) == [100, 0]
    text = cap.learning_curve_sentences(_lc_table([0.35, 0.30, 0.20], False), 0.01, 1000)
    assert numbers(sentence(text, "is still more than")) == [0.01, 100]  # tolerance, largest n
    assert "is not below both" in text
    assert numbers(sentence(text, "On the source set", "lower than both others")) == [0, 3]
    assert numbers(sentence(text, "SEM there is not 0")) == [100, 1000, 0]


def test_learning_curve_sentences_on_a_real_run():
    config, _ = learning_curve_config("poisson", [[2, 2], [6, 6]], [0.5, 0], 500, 0, ("log", 2, 500, 6))
    result = run_learning_curves(config, 10)
    text = cap.learning_curve_sentences(result.table, 0.01, 500)
    assert "FLDA-Q" in text and "SEM is 0 there" in text


# ----------------------------------------------------------------------------- digits


def test_l2_sentence_names_the_l2_of_each_map():
    # The one snapshot of this caption template.
    assert cap.l2_sentence("S-LR", 1e-3, "FLDA-L", 1e-4, True) == (
        "S-LR uses l2 = 0.001 and FLDA-L l2 = 0.0001 (chosen by cross-validation on the source)."
    )
    same = cap.l2_sentence("S-LS", 1e-3, "FLDA-Q", 1e-3, False)
    assert same.startswith("Both maps") and numbers(same) == [0.001] and "by hand" in same


def test_asymmetry_sentence_follows_the_errors():
    errors = {"A → B": (0.30, 0.20, 0.4, "S-LR", "FLDA-L"), "B → A": (0.25, 0.25, 0.01, "S-LR", "FLDA-L")}
    assert cap.asymmetry_sentence(errors).startswith("Here FLDA helps for A → B only")
    errors["B → A"] = (0.25, 0.20, 0.01, "S-LR", "FLDA-L")
    assert cap.asymmetry_sentence(errors).startswith("Here FLDA helps in both directions")
    errors["A → B"] = (0.20, 0.25, 0.4, "S-LR", "FLDA-L")
    assert "reversed" in cap.asymmetry_sentence(errors)


# ----------------------------------------------------------------------------- boundaries and θ


def _line(name, family, loss, coef, error, perturbation=None):
    return FittedLinear(
        name=name,
        family=family,
        loss=loss,
        coef=np.asarray(coef, float),
        intercept=0.0,
        theta=np.zeros(2),
        target_error=error,
        source_error=0.0,
        perturbation=perturbation,
    )


def test_flda_oracle_sentence_follows_angle_and_errors():
    from explorer.experiments.synthetic import ExperimentResult

    fits = {
        "S-LS": _line("S-LS", "source", "quadratic", [1, 1], 0.40),
        "T-LS": _line("T-LS", "target", "quadratic", [1, 2], 0.30),
        "FLDA-Q": _line("FLDA-Q", "flda", "quadratic", [1, 2.01], 0.301),
    }
    result = ExperimentResult(np.zeros(2), np.zeros(2), fits)
    text = cap.flda_oracle_sentence(result, 10_000)
    se = np.sqrt((0.301 * 0.699 + 0.4 * 0.6) / 10_000)  # 0.0067: the gap 0.099 is far beyond
    assert text.startswith("FLDA-Q's boundary lies on T-LS's") and " beats S-LS (0.400;" in text
    assert f"{se:.3f})" in text
    # the same gap on 100 target samples (standard error 0.067): too close to call
    assert "too close to call against S-LS" in cap.flda_oracle_sentence(result, 100)
    fits["FLDA-Q"] = _line("FLDA-Q", "flda", "quadratic", [1, 1.05], 0.398)
    text = cap.flda_oracle_sentence(ExperimentResult(np.zeros(2), np.zeros(2), fits), 10_000)
    assert text.startswith("FLDA-Q does not match T-LS") and "too close to call against S-LS" in text
    fits["FLDA-Q"] = _line("FLDA-Q", "flda", "quadratic", [1, 1.05], 0.45)
    text = cap.flda_oracle_sentence(ExperimentResult(np.zeros(2), np.zeros(2), fits), 10_000)
    assert "does worse than S-LS" in text
    assert cap.boundary_angle(fits["S-LS"], _line("x", "flda", "quadratic", [-1, -1], 0)) == pytest.approx(
        0.0, abs=1e-3
    )
    assert cap.boundary_angle(
        _line("a", "flda", "quadratic", [1, 0], 0), _line("b", "flda", "quadratic", [0, 1], 0)
    ) == pytest.approx(90)


def test_theta_recovery_sentence_follows_the_estimate():
    assert "recovered." in cap.theta_recovery_sentence([0.5, 0.0], [0.49, 0.01])
    text = cap.theta_recovery_sentence([0.5, 0.0], [0.3, 0.0])
    # the largest gap, then feature 1's estimate and truth
    assert numbers(text) == [0.2, 1, 0.3, 0.5] and "not recovered yet" in text


def test_boundary_tilt_sentence_follows_the_weights():
    sweep = [
        _line("FLDA-Q", "flda", "quadratic", [w, 1], 0.1, d) for d, w in ((0.0, 1.0), (0.1, 0.5), (0.2, 0.1))
    ]
    text = cap.boundary_tilt_sentence(sweep)
    tilt = text.split(": ", 1)[1]  # after the weight share's definition
    assert numbers(tilt) == [0.71, 0.0, 0.1, 0.2] and tilt.startswith("FLDA-Q")
    assert "falling at every step" in tilt
    sweep[1] = _line("FLDA-Q", "flda", "quadratic", [3, 1], 0.1, 0.1)
    assert "not falling monotonically" in cap.boundary_tilt_sentence(sweep)
    assert cap.boundary_tilt_sentence(sweep[:1]) == ""


# ----------------------------------------------------------------------------- whole captions


def test_synthetic_caption_follows_the_settings():
    from explorer.experiments.synthetic import fit_classifiers

    pair = make_domains("bernoulli", PAPER_FIGURE1.params, 3_000, 3_000, PAPER_FIGURE1.theta, random_state=0)
    result = fit_classifiers(pair)
    text = cap.synthetic_figure_caption("bernoulli", PAPER_FIGURE1.params, (0.5, 0.0), result, 3_000)
    assert "Figure 1" in text and "θ₁ = 0.5" in text and "Why S-LS jumps" in text
    assert f"{result.classifiers['FLDA-Q'].target_error:.3f}" in text
    pair = make_domains("bernoulli", PAPER_FIGURE1.params, 3_000, 3_000, (0.3, 0.1), random_state=0)
    text = cap.synthetic_figure_caption(
        "bernoulli", PAPER_FIGURE1.params, (0.3, 0.1), fit_classifiers(pair), 3_000
    )
    assert "θ₁ = 0.3" in text and "θ₂ = 0.1" in text
    assert "θ₁ = 0.5" not in text and "Why S-LS jumps" not in text
    assert "z_model" not in text and "`" not in text


def test_curve_caption_is_computed_from_the_sweep():
    pair = make_domains("poisson", PAPER_TABLE1.params, 3_000, 3_000, PAPER_TABLE1.theta, random_state=2)
    sweep = perturbation_sweep(pair, [0.0, 0.1, 0.2])
    naive = {
        n: fit_linear(pair, f, loss, 0.0)
        for n, f, loss in (("T-LS", "target", "quadratic"), ("T-LR", "target", "logistic"))
    }
    theta1 = float(sweep[0].theta[0])
    text = cap.perturbation_curve_caption(sweep, naive, 0, theta1, [0.1, 0.2])
    for loss in LOSSES:
        at, err = cap.perturbation_minimum(sweep, loss)
        assert f"lowest at θ̂₁ {at:+.2f} ({err:.3f})" in text
    assert f"θ̂₁ = {theta1:.3f}" in text
    assert "flat there" not in text and "z_model" not in text
