"""The transfer model passes through every experiment entry point (issue 15).

Each page's experiment takes ``transfer=`` (default "dropout"); dropout results
must stay exactly what they were, other models must reach FLDA, and the
synthetic shift presets must be reachable through the pages' one data key.
No Streamlit here.
"""

from pathlib import Path

import numpy as np
import pytest

from flda_core import FLDAClassifier
from explorer.data.domain_config import SHIFT_PRESETS, make_any_domains
from flda_core.synthetic import (
    APPEARANCE_PARAMS,
    APPEARANCE_PHI,
    RATE_FACTOR,
    RATE_PARAMS,
    make_appearance_domains,
    make_domains,
    make_rate_domains,
)
from explorer.experiments import your_data as yd
from explorer.experiments.synthetic import fit_classifiers, fit_linear, transfer_errors
from explorer.teaching.captions import shift_comparison_caption
from explorer.experiments.transfer_models import transfer_parameter_frame
from explorer.data import csv as csvmod
from explorer.data import tabular as tab

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


def _same_fit(a, b):
    assert a.name == b.name and a.target_error == b.target_error
    np.testing.assert_array_equal(a.coef, b.coef)
    assert a.intercept == b.intercept
    np.testing.assert_array_equal(a.theta, b.theta)


# ------------------------------------------------------------------ data plumbing


def test_any_domains_dispatches_to_each_generator_with_the_same_draws():
    dropout = make_any_domains("poisson", RATE_PARAMS, 300, 200, (0.5, 0.0), 3)
    np.testing.assert_array_equal(
        dropout.X_target, make_domains("poisson", RATE_PARAMS, 300, 200, (0.5, 0.0), 3).X_target
    )
    appear = make_any_domains("appearance", APPEARANCE_PARAMS, 300, 200, APPEARANCE_PHI, 3)
    np.testing.assert_array_equal(appear.X_target, make_appearance_domains(300, 200, random_state=3).X_target)
    rate = make_any_domains("rate", RATE_PARAMS, 300, 200, RATE_FACTOR, 3)
    np.testing.assert_array_equal(rate.X_target, make_rate_domains(300, 200, random_state=3).X_target)
    # the shifted pairs answer what the synthetic experiments ask of a pair
    assert appear.n_features == 4 and list(appear.classes) == [0, 1]
    np.testing.assert_array_equal(appear.theta_true, np.zeros(4))
    assert set(SHIFT_PRESETS) == {"appearance", "rate"}


# ------------------------------------------------------------------ synthetic


@pytest.fixture(scope="module")
def appearance():
    return make_appearance_domains(4000, 4000, random_state=0)


def test_fit_classifiers_dropout_is_unchanged_and_a_dropout_only_fit_still_works():
    pair = make_domains("bernoulli", ((0.7, 0.7), (0.3, 0.3)), 2000, 2000, (0.5, 0.0), 1)
    default = fit_classifiers(pair)
    explicit = fit_classifiers(pair, transfer="dropout")
    for name in default.classifiers:
        _same_fit(default.classifiers[name], explicit.classifiers[name])
    # a page's fit= that predates transfer models is called exactly as before
    calls = []

    def old_fit(family, loss, l2, theta=None, perturbation=None):
        calls.append((family, loss))
        return fit_linear(pair, family, loss, l2=l2, theta=theta, perturbation=perturbation)

    legacy = fit_classifiers(pair, fit=old_fit)
    _same_fit(legacy.classifiers["FLDA-L"], default.classifiers["FLDA-L"])
    assert len(calls) == 6
    np.testing.assert_allclose(default.transfer_params["theta"], default.theta_hat)


def test_fit_classifiers_passes_transfer_to_flda_only(appearance):
    seen = []

    def fit(family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
        seen.append((family, transfer))
        return fit_linear(appearance, family, loss, l2=l2, transfer=transfer)

    result = fit_classifiers(appearance, fit=fit, transfer="two-sided")
    assert {t for f, t in seen if f == "flda"} == {"two-sided"}
    assert {t for f, t in seen if f != "flda"} == {"dropout"}
    assert result.transfer == "two-sided"
    assert set(result.transfer_params) == {"theta", "phi", "value"}
    # feature 1 appears with probability 0.6 in the target: the estimate finds it
    assert abs(result.transfer_params["phi"][0] - APPEARANCE_PHI[0]) < 0.05


def test_rate_fit_has_no_theta_but_reports_its_rate():
    pair = make_rate_domains(3000, 3000, random_state=0)
    fitted = fit_linear(pair, "flda", "logistic", transfer="rate")
    np.testing.assert_array_equal(fitted.theta, np.zeros(2))
    np.testing.assert_allclose(fitted.transfer_params["rate"], RATE_FACTOR, atol=0.1)


def test_appearance_preset_dropout_cannot_help_two_sided_can(appearance):
    errors = transfer_errors(appearance, ("dropout", "two-sided"), losses=("logistic",))
    by = errors.set_index(["classifier", "transfer"])["target error"]
    assert by[("FLDA-L", "dropout")] == by[("S-LR", "")]  # θ̂ = 0: the source classifier
    assert by[("FLDA-L", "two-sided")] < by[("S-LR", "")]
    caption = shift_comparison_caption("appearance", errors, len(appearance.y_target))
    gap = by[("FLDA-L", "two-sided")] - by[("T-LR", "")]
    assert f"closest to the oracle: **two-sided** ({gap:+.3f})" in caption  # dropout is far off
    assert list(errors["classifier"]) == ["S-LR", "FLDA-L", "FLDA-L", "T-LR"]
    assert list(errors.columns) == ["classifier", "target error", "transfer", "loss"]


def test_transfer_parameter_frame_compares_estimates_with_the_truth(appearance):
    clf = FLDAClassifier(transfer="two-sided").fit(
        appearance.X_source, appearance.y_source, X_target=appearance.X_target
    )
    frame = transfer_parameter_frame(
        "two-sided", clf.transfer_params_, appearance.true_params, feature_names=["a", "b", "c", "d"]
    )
    assert list(frame["feature"]) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(frame["estimated phi"], clf.phi_)
    np.testing.assert_allclose(frame["estimate - true phi"], clf.phi_ - np.asarray(APPEARANCE_PHI))
    rate = transfer_parameter_frame("rate", {"rate": np.array([2.0, 0.5])})
    assert list(rate.columns) == ["feature", "estimated rate"]


# ------------------------------------------------------------------ your data, real data


def test_your_data_fit_models_passes_transfer_and_keeps_dropout():
    names_bytes = tab.read_sample("breast_cancer", SAMPLE_DIR)
    source = csvmod.parse_csv(names_bytes[1], names_bytes[0])
    target = csvmod.parse_csv(names_bytes[3], names_bytes[2])
    prepared = tab.prepare_domains(source, target, tab.SAMPLE_SETS["breast_cancer"].label)
    default = yd.fit_models(prepared, names=("S-LR", "FLDA-L"))
    seen = []

    def fit(name, l2, transfer="dropout"):
        seen.append((name, transfer))
        return yd.fit_model(prepared, name, l2, transfer)

    rate = yd.fit_models(prepared, names=("S-LR", "FLDA-L"), fit=fit, transfer="rate")
    assert seen == [("S-LR", "dropout"), ("FLDA-L", "rate")]
    assert rate["FLDA-L"].transfer == "rate" and hasattr(rate["FLDA-L"], "rate_")
    np.testing.assert_array_equal(rate["S-LR"].coef_, default["S-LR"].coef_)
    again = yd.fit_models(prepared, names=("FLDA-L",), transfer="dropout")
    np.testing.assert_array_equal(again["FLDA-L"].coef_, default["FLDA-L"].coef_)
