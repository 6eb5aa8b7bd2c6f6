"""Claims under noise (issue 40 item 10, on the Synthetic, Transfer parameters and Learning
curves pages): every caption that names a winner names it only where the gap beats
``SE_MULTIPLE`` standard errors, computed here independently, at every value the Lesson's
controls offer for these pages (the Lesson and the handout quote the same captions); and
every Lesson step's "full page" link opens its page without an error (issue 42)."""

import itertools
import re
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from apptest_support import open_page

from explorer.data.domain_config import make_any_domains
from explorer.experiments.learning_curves import learning_curve_config, run_learning_curves
from explorer.experiments.perturbation import run_perturbation
from explorer.experiments.synthetic import fit_classifiers, transfer_errors
from explorer.teaching import captions
from explorer.teaching.lesson import LESSON_STEPS, SE_MULTIPLE, full_page_url
from explorer.ui import lesson_views
from flda_core.synthetic import PAPER_POISSON_PARAMS, PAPER_THETA
from text_numbers import sentence

MY_PAGES = ("pages/synthetic.py", "pages/transfer.py", "pages/learning_curves.py")


def _combos(page):
    """Every Lesson step of ``page`` at every combination of its controls' values."""
    for step in (s for s in LESSON_STEPS if s.page == page):
        for combo in itertools.product(*[c.try_values for c in step.controls]):
            values = step.start_values()
            values.update({c.key: v for c, v in zip(step.controls, combo, strict=True)})
            yield pytest.param(values, id=f"{step.slug}-{'-'.join(map(str, combo))}")


def _beyond(gap, se):
    return abs(gap) > SE_MULTIPLE * se


def _wrong(fit, X, y):
    """Mistakes of a fitted linear rule by numpy's sign (lattice points on the boundary,
    within 1e-9 of the scores' scale, count as class 0)."""
    score = X @ np.ravel(fit.coef) + fit.intercept
    tie = np.abs(score) <= 1e-9 * (np.abs(X) @ np.abs(np.ravel(fit.coef)) + abs(fit.intercept))
    return (np.where(tie, 0, (score > 0).astype(int)) != y).astype(float)


def _paired_se(a, b, pair):
    d = _wrong(a, pair.X_target, pair.y_target) - _wrong(b, pair.X_target, pair.y_target)
    return d.std(ddof=1) / np.sqrt(len(d))


# ----------------------------------------------------------------------------- Synthetic domains


@pytest.mark.parametrize("values", list(_combos("pages/synthetic.py")))
def test_synthetic_captions_name_a_winner_only_beyond_the_noise(values):
    data_key, problems = lesson_views.lesson_domain_key(values, "syn")
    assert not problems
    pair = make_any_domains(*data_key[:5], random_state=data_key[5])
    result = fit_classifiers(pair, l2=float(values.get("syn.l2", 0.0)))
    text = captions.synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result, data_key[3])
    for flda, naive in (
        (("FLDA-Q", "S-LS"), ("FLDA-L", "S-LR")) if data_key[0] in ("bernoulli", "poisson") else ()
    ):
        p, q = result.classifiers[flda].target_error, result.classifiers[naive].target_error
        se = np.sqrt((p * (1 - p) + q * (1 - q)) / len(pair.y_target))
        assert (f"beats {naive}" in text) == (p < q and _beyond(p - q, se))
        assert (f"does worse than {naive}" in text) == (p > q and _beyond(p - q, se))
    if data_key[0] in ("appearance", "rate"):
        _check_shift_comparison(data_key, pair)


def _check_shift_comparison(data_key, pair):
    errors = transfer_errors(pair, ("dropout", "two-sided", "rate"))
    text = captions.shift_comparison_caption(data_key[0], errors, len(pair.y_target))
    for loss, part in zip(("quadratic", "logistic"), text.split(" loss: ")[1:], strict=True):
        rows = errors[errors["loss"] == loss]
        oracle = rows["target error"].iloc[-1]
        flda = dict(zip(rows["transfer"][1:-1], rows["target error"][1:-1], strict=True))
        named = re.search(r"closest to the oracle: \*\*([a-z-]+)\*\*", part)
        if named:
            best = named.group(1)
            for other, error in flda.items():
                if other != best:
                    p, q = flda[best], error
                    se = np.sqrt((p * (1 - p) + q * (1 - q)) / len(pair.y_target))
                    assert _beyond(abs(q - oracle) - abs(p - oracle), se), (best, other)
        else:
            assert "too close to call" in part


def test_the_rate_preset_names_the_rate_model_where_it_is_far_closer():
    pair = make_any_domains("rate", ((2.0, 2.0), (6.0, 6.0)), 10_000, 10_000, (2.5, 1.0), random_state=0)
    _check_shift_comparison(("rate",), pair)
    errors = transfer_errors(pair, ("dropout", "two-sided", "rate"), losses=("quadratic",))
    assert "closest to the oracle: **rate**" in captions.shift_comparison_caption("rate", errors, 10_000)


# ----------------------------------------------------------------------------- Transfer parameters


@pytest.mark.parametrize("values", list(_combos("pages/transfer.py")))
def test_transfer_curve_caption_names_a_lower_shift_only_beyond_the_noise(values):
    data_key, _ = lesson_views.lesson_domain_key(values, "tp")
    pair = make_any_domains(*data_key[:5], random_state=data_key[5])
    result = run_perturbation(
        pair, 0, values["tp.perturbations"], tuple(values["tp.curve_range"]), float(values["tp.l2"])
    )
    naive = result.naive.classifiers
    text = captions.perturbation_curve_caption(
        result.sweep, naive, 0, float(result.theta_hat[0]), result.chosen
    )
    for loss, oracle in (("quadratic", "T-LS"), ("logistic", "T-LR")):
        fits = {round(f.perturbation, 10): f for f in result.sweep if f.loss == loss}
        best = min(fits, key=lambda d: (fits[d].target_error, abs(d)))
        said = sentence(text, f"{fits[best].name} is lowest")
        gap = fits[0.0].target_error - fits[best].target_error
        below = best != 0 and _beyond(gap, _paired_se(fits[0.0], fits[best], pair))
        assert ("**below its value at the estimate" in said) == below
        gap = naive[oracle].target_error - fits[best].target_error
        assert ("even below the oracle" in said) == (
            gap > 0 and _beyond(gap, _paired_se(fits[best], naive[oracle], pair))
        )


# ----------------------------------------------------------------------------- Learning curves


def _table(ridge):
    config, _ = learning_curve_config(
        "poisson", PAPER_POISSON_PARAMS, PAPER_THETA, 10_000, 0, ("log", 2, 10_000, 15), ridge
    )
    return run_learning_curves(config, 50).table


def _learning_cases():
    """The Lesson's ℓ2 settings (off; λ = 10, 100) and every other λ the page offers."""
    from explorer.ui.learning_curve_controls import RIDGE_VALUES

    offered = {0.0, *RIDGE_VALUES}
    lesson = {
        float(v["lc.ridge"]) if v["lc.l2"] else 0.0
        for v in (p.values[0] for p in _combos("pages/learning_curves.py"))
    }
    assert lesson <= offered
    return sorted(offered)


@pytest.mark.slow
@pytest.mark.parametrize("ridge", _learning_cases())
def test_learning_curve_caption_names_a_winner_only_beyond_the_noise(ridge):
    table = _table(ridge)
    text = captions.learning_curve_sentences(table, 0.01, 10_000)
    target = table[table["domain"] == "target"]
    at = target[target["n"] == target["n"].min()].set_index("classifier")
    beyond = [
        at.loc["FLDA-Q", "mean_error"] < at.loc[other, "mean_error"]
        and _beyond(
            at.loc["FLDA-Q", "mean_error"] - at.loc[other, "mean_error"],
            np.hypot(at.loc["FLDA-Q", "sem"], at.loc[other, "sem"]),
        )
        for other in ("S-LS", "T-LS")
    ]
    assert ("is below both" in sentence(text, "At the smallest n")) == all(beyond)
    source = table[table["domain"] == "source"].pivot(index="n", columns="classifier")
    lower = np.ones(len(source), bool)
    for other in ("T-LS", "FLDA-Q"):
        gap = source["mean_error", "S-LS"] - source["mean_error", other]
        lower &= (gap < 0) & (gap.abs() > SE_MULTIPLE * np.hypot(source["sem", "S-LS"], source["sem", other]))
    said = sentence(text, "On the source set")
    assert f"at {int(lower.sum())} of {len(source)} sizes" in said
    if ridge == 0.0:  # the issue: 0.004 apart at n = 2 with a standard error of 0.025
        assert "is not below both" in text


@pytest.mark.slow
def test_the_l2_note_names_an_advantage_only_beyond_the_noise():
    from explorer.teaching.paper_notes import l2_remark_note

    note = l2_remark_note()
    advantage, se = note.values["without"]
    if "no advantage to disappear" not in note.verdict:
        assert advantage > SE_MULTIPLE * se
    if "stays better" in note.verdict:
        assert all(a > SE_MULTIPLE * s for a, s in note.values["with"].values())


# ----------------------------------------------------------------------------- full pages


@pytest.mark.parametrize("step", [s for s in LESSON_STEPS if s.page in MY_PAGES], ids=lambda s: s.slug)
def test_every_full_page_link_of_a_lesson_step_opens_without_an_error(step):
    query = dict(parse_qsl(urlsplit(full_page_url(step)).query))
    at = open_page(step.page, query)
    assert not at.error, [e.value for e in at.error]
    assert not [i.value for i in at.info if "Ignored the link" in i.value]
    for key, value in step.start_values().items():
        if key in ("syn.shift", "syn.theta", "syn.n_target", "tp.delta_1", "tp.l2", "lc.l2", "lc.ridge"):
            assert at.session_state[key] == value, key
