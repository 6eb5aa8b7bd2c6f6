"""Exercises on the students' own devices (issue 35): a task on the step's own
controls whose answer is checked with the same computation the step's figure uses
(:func:`explorer.ui.lesson_views.synthetic_result` and ``perturbation_result``: the
experiments' entry points with the lesson step's settings, through the same caches).

Each :class:`Exercise` says what to find, the kind of answer (a number or one of a few
options) and a ``check(answer, values)`` returning ``(solved, note)``; a wrong answer's
note says what to look at, never the answer.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


__all__ = ["Exercise", "EXERCISES", "exercise"]


@dataclass(frozen=True)
class Exercise:
    """One step's exercise (see the module docstring).

    ``kind`` is ``"number"`` (``step`` and ``fmt`` for the input) or ``"option"``
    (``options``); ``check(answer, values)`` gets the step's settings with the
    student's control values.
    """

    task: str
    label: str
    kind: str
    check: object
    options: tuple = ()
    step: float = 0.01
    fmt: str = "%.2f"
    help: str = field(default="")


def _synthetic(values, **changes):
    """The step's synthetic run (domains and fits, cached) with ``changes`` applied."""
    from explorer.ui.lesson_views import synthetic_result

    data_key, pair, result, error = synthetic_result({**values, **changes})
    if error:
        raise ValueError(error)
    return pair, result


def _largest_value(answer, values):
    """domain-shift-as-dropout: the largest value of feature 1 in the target with θ₁ = 0.8 is 1/(1 − 0.8)."""
    pair, _ = _synthetic(values, **{"syn.theta": "0.8, 0"})
    largest = float(np.max(pair.X_target[:, 0]))
    if abs(float(answer) - largest) <= 0.005:
        return True, f"Right: kept values are scaled to {largest:g}."
    return False, "Not yet: set θ to 0.8, 0 and read the largest x₁ of a target point."


def _samples_for_theta(answer, values):
    """estimating-theta: the fewest target samples (of the step's choices) that put θ̂ within 0.05."""
    fewest = None
    for n in sorted(EXERCISES["estimating-theta"].options):
        _, result = _synthetic(values, **{"syn.n_target": n, "syn.theta": "0.5, 0"})
        if np.abs(np.asarray(result.theta_hat) - np.asarray(result.theta_true)).max() <= 0.05:
            fewest = n
            break
    if fewest is not None and int(answer) == fewest:
        return True, f"Right: from {fewest:,} target samples θ̂ is within 0.05 of θ on both features."
    return False, "Not yet: try each number of target samples with θ = 0.5, 0 and compare θ̂ with θ."


def _seed_for_s_ls(answer, values):
    """naive-against-flda: a seed of the step's choices at which S-LS's target error reads 0.400."""
    seed = int(answer)
    _, result = _synthetic(values, **{"shared.seed": seed, "syn.loss": "quadratic"})
    error = result.classifiers["S-LS"].target_error
    if f"{error:.3f}" == "0.400":
        return True, f"Right: with seed {seed} S-LS's target error is {error:.3f}, as in Figure 1."
    return False, "Not this seed: try the others and read S-LS's error."


def _best_shift(answer, values):
    """a-wrong-theta: the shift of θ̂₁ at which FLDA-Q's target error is lowest (the sweep the
    step's figure draws, at the student's ℓ2)."""
    from explorer.teaching.captions import perturbation_minimum
    from explorer.ui.lesson_views import TIE, perturbation_result

    _, result, error = perturbation_result(values)
    if error:
        raise ValueError(error)
    at, lowest = perturbation_minimum(result.sweep, "quadratic")
    fits = {round(f.perturbation, 2): f.target_error for f in result.sweep if f.loss == "quadratic"}
    mine = fits.get(round(float(answer), 2))
    if mine is not None and mine - lowest <= TIE:
        return True, f"Right: FLDA-Q's error there is {mine:.3f}, the lowest on the curve."
    return False, "Not yet: read where the FLDA-Q curve is lowest (ℓ2 as set above)."


def _adaptation_n(answer, values):
    """how-many-samples: from which n FLDA-Q stays within 0.01 of T-LS (Figure 3's curves)."""
    from explorer.experiments.learning_curves import adaptation_sample_size
    from explorer.ui.lesson_views import learning_curves

    ridge = float(values["lc.ridge"]) if values["lc.l2"] else 0.0
    table = learning_curves(ridge, int(values["shared.seed"])).table
    n = adaptation_sample_size(table, "FLDA-Q", "T-LS", "target", 0.01)
    if n is not None and int(answer) == int(n):
        return True, f"Right: from n = {n:,} FLDA-Q stays within 0.01 of T-LS."
    return False, "Not yet: find the first n after which the two curves stay within 0.01."


#: The exercise of each step that has one (by slug).
EXERCISES = {
    "domain-shift-as-dropout": Exercise(
        task="With θ = 0.8, 0: what is the largest value feature 1 takes in the target?",
        label="largest x₁ in the target",
        kind="number",
        check=_largest_value,
        step=0.01,
    ),
    "estimating-theta": Exercise(
        task="With θ = 0.5, 0: how many target samples does θ̂ need to come within 0.05 "
        "of θ on every feature? (the fewest of the choices)",
        label="target samples",
        kind="option",
        check=_samples_for_theta,
        options=(100, 1_000, 10_000),
    ),
    "naive-against-flda": Exercise(
        task="Which seed gives S-LS a target error of 0.400 (the paper's Figure 1)?",
        label="seed",
        kind="option",
        check=_seed_for_s_ls,
        options=(0, 1, 2),
    ),
    "a-wrong-theta": Exercise(
        task="At which shift of θ̂₁ is FLDA-Q's target error lowest?",
        label="shift of θ̂₁",
        kind="number",
        check=_best_shift,
        step=0.05,
    ),
    "how-many-samples": Exercise(
        task="From which n does FLDA-Q stay within 0.01 of the oracle T-LS on the target?",
        label="n",
        kind="number",
        check=_adaptation_n,
        step=1.0,
        fmt="%.0f",
    ),
}


def exercise(slug):
    """The step's :class:`Exercise`, or None."""
    return EXERCISES.get(slug)
