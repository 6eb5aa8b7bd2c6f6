"""Every lesson step's claim at every value of its controls (issue 34): the revealed
verdict follows the uncertainty rule on numbers computed independently here, the step
computes what its full page's entry point computes with the same settings and seed, and
the figure shown before Reveal holds only the setting."""

import itertools
import string

import numpy as np
import pytest
from figure_samples import assert_passes_plotly_validation

from explorer.teaching.lesson import (
    LESSON_STEPS,
    SE_MULTIPLE,
    TARGET_LABELS,
    TOO_CLOSE,
    notes_fields,
    notes_text,
    step,
)
from explorer.ui import caches, lesson_views

#: Steps whose every combination of control values is computed here (the learning
#: curves and the digits have their own, slower tests below).
SLOW = ("how-many-samples", "where-ink-vanishes")


def _combos(lesson_step):
    """Every combination of the step's ``try_values`` as setting values."""
    combos = (
        itertools.product(*[c.try_values for c in lesson_step.controls]) if lesson_step.controls else [()]
    )
    for combo in combos:
        values = lesson_step.start_values()
        values.update({c.key: v for c, v in zip(lesson_step.controls, combo, strict=True)})
        yield values


def _cases(slow=False):
    return [
        pytest.param(s, values, id=f"{s.slug}-{i}")
        for s in LESSON_STEPS
        if (s.slug in SLOW) == slow
        for i, values in enumerate(_combos(s))
    ]


def _names(fig):
    return [t.get("name") for t in fig.to_plotly_json()["data"]]


def _layout_text(fig):
    """Every text a reader sees in a figure: titles, annotations, tick labels, trace
    names (not its data arrays)."""
    spec = fig.to_plotly_json()
    texts = [str(t.get("name")) for t in spec["data"]]

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in ("text", "ticktext"):
            texts.append(node)

    walk(spec["layout"])
    return " | ".join(texts)


def _beyond(gap, se):
    return abs(gap) > SE_MULTIPLE * se


def _paired_se(wrong_a, wrong_b):
    d = wrong_a.astype(float) - wrong_b.astype(float)
    return d.std(ddof=1) / np.sqrt(len(d))


def _wrong(fit, X, y):
    """Mistakes of a fitted linear rule, by numpy's sign (not the scoring module);
    lattice data put some samples exactly on a boundary, scored as class 0 everywhere."""
    score = X @ np.ravel(fit.coef) + fit.intercept
    tie = np.abs(score) <= 1e-9 * (np.abs(X) @ np.abs(np.ravel(fit.coef)) + abs(fit.intercept))
    return np.where(tie, 0, (score > 0).astype(int)) != y


@pytest.mark.parametrize("lesson_step, values", _cases())
def test_every_claim_follows_its_figure_and_the_uncertainty_rule(lesson_step, values):
    view = lesson_views.step_view(lesson_step, values)
    assert not view.error, view.error
    assert view.correct and view.correct <= set(range(len(lesson_step.choices)))
    # before Reveal: the setting only, nothing answering in its text or trace names
    assert (view.fig is None) == (view.fig_before is None) == (not lesson_step.chart_key)
    if view.fig is not None:
        before = _layout_text(view.fig_before)
        for _, number in view.numbers:
            assert number not in before, (number, lesson_step.slug)
        assert view.fig_before.to_plotly_json() != view.fig.to_plotly_json()  # Reveal adds a layer
        assert_passes_plotly_validation(view.fig_before)
        assert_passes_plotly_validation(view.fig)
    CHECKS.get(lesson_step.slug, lambda *a: None)(lesson_step, values, view)
    # the speaker notes name only numbers of the step as shown, at every control value
    fields = notes_fields(lesson_step, values, view.facts)
    for template in (lesson_step.notes.say, lesson_step.notes.ask):
        named = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        assert named <= set(fields), (lesson_step.slug, named - set(fields))
    assert all(notes_text(lesson_step, values, view.facts))


def _check_dropout(lesson_step, values, view):
    from flda_core.synthetic import make_domains

    theta = [float(t) for t in values["syn.theta"].split(",")]
    pair = make_domains(
        "bernoulli",
        [
            [float(v) for v in values["syn.class1"].split(",")],
            [float(v) for v in values["syn.class2"].split(",")],
        ],
        values["syn.n_source"],
        values["syn.n_target"],
        theta,
        values["shared.seed"],
    )
    seen = set(np.round(np.unique(pair.X_target[:, 0]), 9))
    expected = {0.0, round(1 / (1 - theta[0]), 9)} if theta[0] < 1 else {0.0}
    assert (1 in view.correct) == (seen <= expected)
    assert {"class 1 (target)", "class 2 (target)"}.isdisjoint(_names(view.fig_before))


def _check_assumption(lesson_step, values, view):
    """Equation (3) against a Monte-Carlo dropout of the source (50 draws)."""
    from explorer.experiments.assumption import transfer_risk
    from flda_core import apply_dropout

    data_key, _ = lesson_views.lesson_domain_key(values, "syn")
    pair = caches.cached_domains(*data_key)
    result = lesson_views.synthetic_result(values)[2]
    fits = [result.classifiers[n] for n in ("S-LS", "FLDA-Q")]
    y_target = pair.y_target
    if values["syn.target_labels"] != TARGET_LABELS[0]:  # labels that depend on the domain
        y_target = np.where(pair.X_target[:, 1] > 0, 1 - pair.y_target, pair.y_target)
    risks = transfer_risk(fits, pair.X_source, pair.y_source, pair.X_target, y_target, result.theta_hat)
    rng = np.random.default_rng(0)
    for fit, risk in zip(fits, risks, strict=True):
        draws = [
            _wrong(fit, apply_dropout(pair.X_source, result.theta_hat, rng), pair.y_source).mean()
            for _ in range(50)
        ]
        assert risk.expected == pytest.approx(np.mean(draws), abs=4 * risk.expected_se / np.sqrt(50) + 2e-3)
        assert risk.measured == pytest.approx(_wrong(fit, pair.X_target, y_target).mean(), abs=1e-12)
    off = any(_beyond(r.measured - r.expected, r.gap_se) for r in risks)
    assert view.correct == {1 if off else 0}
    assert "measured on the target" in _names(view.fig)
    assert "measured on the target" not in _names(view.fig_before)


def _check_theta(lesson_step, values, view):
    assert "estimated θ̂" not in _names(view.fig_before) and "estimated θ̂" in _names(view.fig)


def _check_oracle(lesson_step, values, view):
    from explorer.experiments.synthetic import fit_classifiers
    from explorer.names import classifier_name

    data_key, _ = lesson_views.lesson_domain_key(values, "syn")
    pair = caches.cached_domains(*data_key)
    loss = values["syn.loss"]
    result = fit_classifiers(pair, losses=(loss,))  # the Synthetic page's entry point, uncached fit
    naive, flda = (result.classifiers[classifier_name(f, loss)] for f in ("source", "flda"))
    wrong_n, wrong_f = _wrong(naive, pair.X_target, pair.y_target), _wrong(flda, pair.X_target, pair.y_target)
    assert wrong_n.mean() == pytest.approx(naive.target_error) and wrong_f.mean() == pytest.approx(
        flda.target_error
    )
    gap, se = wrong_f.mean() - wrong_n.mean(), _paired_se(wrong_f, wrong_n)
    expected = (1 if gap < 0 else 0) if _beyond(gap, se) else lesson_step.choices.index(TOO_CLOSE)
    assert view.correct == {expected}
    assert all(t.get("mode") != "lines" for t in view.fig_before.to_plotly_json()["data"])  # no boundary


def _check_counts(lesson_step, values, view):
    from explorer.experiments.perturbation import table1_unperturbed_errors
    from explorer.experiments.synthetic import PAPER_FIGURE2, fit_classifiers

    data_key, _ = lesson_views.lesson_domain_key(values, "syn")
    pair = caches.cached_domains(*data_key)
    loss = values["syn.loss"]
    flda = "FLDA-Q" if loss == "quadratic" else "FLDA-L"
    error = fit_classifiers(pair, losses=(loss,)).classifiers[flda].target_error
    se = np.sqrt(error * (1 - error) / len(pair.y_target))
    to_text = abs(error - PAPER_FIGURE2.errors[flda])
    to_table = abs(error - table1_unperturbed_errors()[flda])
    expected = 2 if not _beyond(to_text - to_table, se) else (0 if to_text < to_table else 1)
    assert view.correct == {expected}


def _check_transfer(lesson_step, values, view):
    from explorer.experiments.perturbation import run_perturbation

    data_key, _ = lesson_views.lesson_domain_key(values, "tp")
    pair = caches.cached_domains(*data_key)
    result = run_perturbation(
        pair, 0, values["tp.perturbations"], tuple(values["tp.curve_range"]), float(values["tp.l2"])
    )  # the Transfer page's entry point, its own fits
    fits = {round(f.perturbation, 10): f for f in result.sweep if f.loss == "quadratic"}
    best = min(fits, key=lambda d: (fits[d].target_error, abs(d)))
    zero = _wrong(fits[0.0], pair.X_target, pair.y_target)
    low = _wrong(fits[best], pair.X_target, pair.y_target)
    gap = zero.mean() - low.mean()
    if best == 0:
        expected = 0
    elif not _beyond(gap, _paired_se(zero, low)):
        expected = 3
    else:
        expected = 1 if best < 0 else 2
    assert view.correct == {expected}
    assert "FLDA-Q" not in _names(view.fig_before) and "FLDA-Q" in _names(view.fig)
    marks = [s["x0"] for s in view.fig_before.to_plotly_json()["layout"]["shapes"]]
    assert marks and all(x == pytest.approx(float(values["tp.delta_1"])) for x in marks)


def _check_natural(lesson_step, values, view):
    from explorer.data import uci
    from explorer.experiments import missing_data as md
    from explorer.experiments import paper_tables as pt
    from explorer.teaching.lesson import NATURAL_SETS

    key = values["real.pair"]
    assert key in NATURAL_SETS
    row = pt.run_pair("uci", key, lesson_views.NATURAL_CLASSIFIERS).errors  # the page's entry point
    numbers = dict(view.numbers)
    for name in ("S-LR", "FLDA-Q"):
        label = next(k for k in numbers if k.startswith(f"{name} ("))
        assert float(numbers[label]) == pytest.approx(row[name], abs=5e-4)
    table = view.table.set_index("classifier")["here"]
    assert table.to_dict() == pytest.approx(row[list(lesson_views.NATURAL_CLASSIFIERS)].to_dict())
    data = uci.problem(key, "zero")
    wrong = {
        n: md.fit_arrays(n, data.X_source, data.y_source, data.X_target, data.y_target, 0)[0] != data.y_target
        for n in ("S-LR", "FLDA-Q")
    }
    gap = row["FLDA-Q"] - row["S-LR"]
    expected = (0 if gap < 0 else 1) if _beyond(gap, _paired_se(wrong["FLDA-Q"], wrong["S-LR"])) else 2
    assert view.correct == {expected}
    assert _names(view.fig_before) == ["the paper's Table 3"]


def _check_notes(lesson_step, values, view):
    from explorer.teaching.paper_notes import figure1_bayes_note, figure2_table1_note

    bayes, figure2 = figure1_bayes_note(), figure2_table1_note(seed=0)  # the Synthetic page's notes
    assert view.correct == {0 if bayes.consistent else 1}
    assert view.reveal == bayes.verdict + " " + figure2.verdict


def _check_rate(lesson_step, values, view):
    from flda_core import estimate_dropout
    from flda_core.synthetic import RATE_PARAMS, make_rate_domains

    factors = [float(v) for v in values["syn.theta"].split(",")]
    pair = make_rate_domains(
        values["syn.n_source"],
        values["syn.n_target"],
        RATE_PARAMS,
        factors,
        random_state=values["shared.seed"],
    )
    theta = estimate_dropout(pair.X_source, pair.X_target)
    seen = tuple(bool(t > 0.05) for t in theta)
    assert view.correct == {{(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[seen]}
    for d, factor in enumerate(factors):  # a count whose rate rises is never seen by dropout
        if factor > 1:
            assert theta[d] == 0
    assert "dropout estimate θ̂" not in _names(view.fig_before)


def _check_recap(lesson_step, values, view):
    rows = view.table.to_dict("records")
    assert [r["step"] for r in rows] == [s.title for s in LESSON_STEPS if s.slug != "recap"]


CHECKS = {
    "domain-shift-as-dropout": _check_dropout,
    "the-assumption": _check_assumption,
    "estimating-theta": _check_theta,
    "naive-against-flda": _check_oracle,
    "counts": _check_counts,
    "a-wrong-theta": _check_transfer,
    "natural-data": _check_natural,
    "where-the-paper-disagrees": _check_notes,
    "when-the-shift-is-not-dropout": _check_rate,
    "recap": _check_recap,
}


def test_every_step_has_a_claim_check():
    assert set(CHECKS) | set(SLOW) == {s.slug for s in LESSON_STEPS}


@pytest.mark.slow
@pytest.mark.parametrize("lesson_step, values", _cases(slow=True))
def test_slow_steps_claims_follow_the_uncertainty_rule(lesson_step, values):
    view = lesson_views.step_view(lesson_step, values)
    assert not view.error and view.fig_before is not None
    assert_passes_plotly_validation(view.fig_before)
    if lesson_step.slug == "how-many-samples":
        from explorer.teaching.lesson import LEARNING_CURVE_QUESTION_N

        ridge = float(values["lc.ridge"]) if values["lc.l2"] else 0.0
        table = lesson_views.learning_curves(ridge, 0).table
        at = table[(table["domain"] == "target") & (table["n"] == LEARNING_CURVE_QUESTION_N)].set_index(
            "classifier"
        )
        gap = at.loc["FLDA-Q", "mean_error"] - at.loc["S-LS", "mean_error"]
        se = np.hypot(at.loc["FLDA-Q", "sem"], at.loc["S-LS", "sem"])
        assert view.correct == {(0 if gap < 0 else 1) if _beyond(gap, se) else 2}
        xs = np.concatenate([np.asarray(t.x, dtype=float) for t in view.fig_before.data])
        assert xs.min() > LEARNING_CURVE_QUESTION_N  # the sizes asked about come with Reveal
    else:
        assert view.fig_before.to_plotly_json()["data"][0]["type"] == "heatmap"  # Figure 5's maps
        assert "FLDA-L" not in _layout_text(view.fig_before)


@pytest.mark.slow
def test_the_learning_curve_step_asks_about_sizes_the_toggle_changes():
    """The issue: at n = 2 S-LS and T-LS do not depend on λ, so ℓ2 could not change the
    answer there; at n = 4 the step's ℓ2 toggle turns a win into too close to call."""
    lesson_step = step("how-many-samples")
    verdicts = {
        values["lc.l2"]: lesson_views.step_view(lesson_step, values).correct
        for values in _combos(lesson_step)
        if values["lc.ridge"] == 10.0
    }
    assert verdicts[False] != verdicts[True]


def _assumption_gaps(seeds, labels, n_source=1_000):
    """``(beyond, gaps, ses)`` of FLDA-Q's Equation (3) gap over ``seeds`` at the step's
    settings with ``labels`` and ``n_source`` source samples."""
    s = step("the-assumption")
    beyond, gaps, ses = 0, [], []
    for seed in seeds:
        values = {
            **s.start_values(),
            "shared.seed": seed,
            "syn.target_labels": labels,
            "syn.n_source": n_source,
        }
        view = lesson_views.step_view(s, values)
        beyond += 1 in view.correct
        from explorer.experiments.assumption import transfer_risk

        _, pair, result, _ = lesson_views.synthetic_result(values)
        risk = transfer_risk(
            [result.classifiers["FLDA-Q"]],
            pair.X_source,
            pair.y_source,
            pair.X_target,
            lesson_views.domain_labels(pair, values),
            result.theta_hat,
        )[0]
        gaps.append(risk.measured - risk.expected)
        ses.append(risk.gap_se)
    return beyond, np.array(gaps), np.array(ses)


@pytest.mark.slow
def test_equation_3_is_right_within_the_noise_as_often_as_the_rule_says():
    """Issue 40: on data that satisfy the assumption by construction, step 2 answered "off by
    more than the noise" at 4 of 20 seeds.  Now the gap's standard error is the spread of the
    gap over fresh data (checked here against 40 independent draws), a verdict beyond two
    standard errors comes about as rarely as chance says, and labels that depend on the
    domain are caught at every seed."""
    beyond, gaps, ses = _assumption_gaps(range(40), TARGET_LABELS[0])
    assert np.std(gaps, ddof=1) == pytest.approx(np.mean(ses), rel=0.3)
    assert beyond <= 5  # two classifiers, two-sided 2 SE: about 4 in 40 by chance
    broken, _, _ = _assumption_gaps(range(10), TARGET_LABELS[1])
    assert broken == 10
