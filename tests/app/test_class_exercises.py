"""The class session's exercises (explorer.ui.class_exercises): each belongs to a lesson
step, accepts the answer the step's own computation gives and refuses the others."""

import numpy as np
import pytest

from explorer.teaching.lesson import LESSON_STEPS
from explorer.ui import class_exercises, lesson_views

STEPS = {lesson_step.slug: lesson_step for lesson_step in LESSON_STEPS}


def _values(slug):
    return STEPS[slug].start_values()


def _s_ls_error(values, seed):
    changes = {"shared.seed": seed, "syn.loss": "quadratic"}
    result = lesson_views.synthetic_result({**values, **changes})[2]
    return f"{result.classifiers['S-LS'].target_error:.3f}"


def test_every_exercise_belongs_to_a_lesson_step():
    assert set(class_exercises.EXERCISES) <= set(STEPS)
    assert class_exercises.exercise("no-such-step") is None


def test_largest_target_value_is_one_over_one_minus_theta():
    check = class_exercises.EXERCISES["domain-shift-as-dropout"].check
    assert check(1 / (1 - 0.8), _values("domain-shift-as-dropout"))[0]
    assert not check(1.0, _values("domain-shift-as-dropout"))[0]


@pytest.mark.parametrize("slug", ["estimating-theta", "naive-against-flda"])
def test_option_exercises_accept_exactly_the_options_the_computation_gives(slug):
    ex = class_exercises.EXERCISES[slug]
    values = _values(slug)
    solved = [option for option in ex.options if ex.check(option, values)[0]]
    if slug == "naive-against-flda":  # recomputed here: S-LS's error reads 0.400
        expected = [seed for seed in ex.options if _s_ls_error(values, seed) == "0.400"]
        assert solved == expected and expected
    else:  # the fewest target samples: one option, and there θ̂ is within 0.05
        assert len(solved) == 1
        result = lesson_views.synthetic_result({**values, "syn.n_target": solved[0], "syn.theta": "0.5, 0"})[
            2
        ]
        assert np.abs(np.asarray(result.theta_hat) - np.asarray(result.theta_true)).max() <= 0.05


def test_best_shift_is_the_lowest_point_of_the_steps_curve():
    ex = class_exercises.EXERCISES["a-wrong-theta"]
    values = _values("a-wrong-theta")
    _, result, error = lesson_views.perturbation_result(values)
    assert not error
    curve = {round(f.perturbation, 2): f.target_error for f in result.sweep if f.loss == "quadratic"}
    lowest = min(curve.values())
    best = [at for at, err in curve.items() if err - lowest <= lesson_views.TIE]
    worst = max(curve, key=curve.get)
    assert all(ex.check(at, values)[0] for at in best)
    assert not ex.check(worst, values)[0]
