"""Notes on the paper: computed numbers, and verdicts that follow them."""

import numpy as np
import pandas as pd
import pytest

from flda_core.synthetic import bernoulli_target_lattice
from explorer.teaching import paper_notes as pn
from explorer.experiments.perturbation import table1_unperturbed_errors
from explorer.experiments.synthetic import PAPER_FIGURE1
from text_numbers import numbers, sentence


def test_bayes_error_of_figure_1_is_the_sum_of_the_smaller_joint_probabilities():
    points, probs = bernoulli_target_lattice(PAPER_FIGURE1.params, PAPER_FIGURE1.theta)
    expected = float(np.sum(0.5 * probs.min(axis=0)))
    assert pn.bayes_target_error(PAPER_FIGURE1.params, PAPER_FIGURE1.theta) == pytest.approx(
        expected, abs=1e-12
    )
    assert expected == pytest.approx(0.30, abs=1e-12)  # hand computation: 0.5 * 0.6


def test_bayes_error_without_shift_and_with_uninformative_features():
    # Identical classes: nothing to learn, Bayes error 1/2.
    assert pn.bayes_target_error(((0.5, 0.5), (0.5, 0.5)), (0.0, 0.0)) == pytest.approx(0.5)
    # θ = 1 on the informative feature: it is always 0 in the target.
    assert pn.bayes_target_error(((0.9, 0.5), (0.1, 0.5)), (1.0, 0.0)) == pytest.approx(0.5)
    # θ = 1 on an uninformative feature: its lattice points coincide and must be pooled.
    assert pn.bayes_target_error(((0.9, 0.6), (0.2, 0.4)), (0.0, 1.0)) == pytest.approx(0.5 * (0.1 + 0.2))


def test_figure1_note_flags_the_reported_error_below_the_bayes_error():
    note = pn.figure1_bayes_note()
    assert note.values["bayes_error"] == pytest.approx(0.30)
    assert set(note.values["below"]) == {"S-LR"}
    below = sentence(note.verdict, "is below the best possible error")
    assert below.startswith("S-LR's") and numbers(below) == [0.248, 0.3]  # reported, Bayes
    assert not note.consistent
    assert "0.248" in note.paper_claim and "section 4.1.1" in note.paper_claim


def test_figure1_verdict_follows_the_computed_number(monkeypatch):
    monkeypatch.setattr(pn, "bayes_target_error", lambda *args, **kwargs: 0.2)
    note = pn.figure1_bayes_note()
    assert note.consistent and "at or above the best possible error" in note.verdict
    assert numbers(note.verdict) == [0.2]
    # And a Bayes error above every report names all of them.
    note = pn.figure1_bayes_note(bayes_error=0.5)
    assert set(note.values["below"]) == set(PAPER_FIGURE1.errors)


def test_figure2_note_says_which_version_a_run_reproduces():
    table = table1_unperturbed_errors()
    note = pn.figure2_table1_note({k: v + 0.001 for k, v in table.items()})
    assert note.values["closer"] == "Table 1" and "reproduces Table 1" in note.verdict
    assert note.values["paper_gap"] == pytest.approx(0.094)
    text = pn.PAPER_FIGURE2.errors
    note = pn.figure2_table1_note(dict(text))
    assert "reproduces the Figure 2 text" in note.verdict and "not Table 1" in note.verdict
    note = pn.figure2_table1_note(dict.fromkeys(text, 0.5))
    assert note.verdict.startswith("Neither matches")


def _curve_table(flda, oracle, sizes=(2, 4, 7, 12, 23, 42)):
    rows = []
    for name, errors in (("FLDA-Q", flda), ("T-LS", oracle)):
        rows += [
            {"classifier": name, "domain": "target", "n": n, "mean_error": e} for n, e in zip(sizes, errors)
        ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "flda, expected_n, phrase",
    [
        ([0.3, 0.2, 0.15, 0.15, 0.15, 0.15], 7, "earlier than"),
        ([0.3, 0.3, 0.3, 0.3, 0.15, 0.15], 23, "consistent with"),
        ([0.3, 0.3, 0.3, 0.3, 0.3, 0.15], 42, "more than"),
        ([0.3, 0.3, 0.3, 0.3, 0.3, 0.3], None, "has not adapted"),
    ],
)
def test_figure3_verdict_follows_the_adaptation_sample_size(flda, expected_n, phrase):
    note = pn.figure3_adaptation_note(_curve_table(flda, [0.15] * 6))
    assert note.values["n"] == expected_n and phrase in note.verdict
    assert note.consistent == (phrase == "consistent with")


def test_figure3_note_on_the_papers_setting_computes_n():
    note = pn.figure3_adaptation_note()
    assert note.values["n"] is not None and f"n = {note.values['n']:,}" in note.computed
    assert "roughly 20" in note.paper_claim


def test_l2_verdict_follows_the_advantages_and_their_noise():
    assert pn.l2_remark_note((0.03, 0.001), {10.0: (0.002, 0.001)}).consistent
    note = pn.l2_remark_note((0.03, 0.001), {1.0: (0.04, 0.001), 10.0: (0.05, 0.001)})
    assert not note.consistent and "does not reproduce" in note.verdict
    note = pn.l2_remark_note((0.03, 0.001), {10.0: (-0.05, 0.001)})
    assert "reverses" in note.verdict and "λ = 10" in note.verdict
    note = pn.l2_remark_note((0.001, 0.001), {10.0: (0.0, 0.001)})
    assert "no advantage to disappear" in note.verdict
    # an advantage of 0.03 with a standard error of 0.02 is within the noise: no advantage
    assert "no advantage to disappear" in pn.l2_remark_note((0.03, 0.02), {10.0: (0.0, 0.001)}).verdict
    # a remaining 0.04 with a standard error of 0.025 is within the noise: it disappeared
    assert pn.l2_remark_note((0.03, 0.001), {10.0: (0.04, 0.025)}).consistent


def test_small_sample_advantage_averages_the_flda_gap_over_small_n():
    gaps = pd.DataFrame(
        {
            "classifier": ["FLDA-Q"] * 3 + ["S-LS"],
            "n": [2, 12, 100, 2],
            "mean_gap": [-0.04, -0.02, 0.5, 0.3],
            "sem": [0.02, 0.01, 0.0, 0.0],
        }
    )
    assert pn.small_sample_advantage(gaps, 12) == pytest.approx((0.03, 0.015))
    with pytest.raises(ValueError):
        pn.small_sample_advantage(gaps, 1)


def test_notes_render_as_markdown_with_every_part():
    note = pn.figure1_bayes_note()
    text = note.markdown()
    for part in (note.title, note.paper_claim, note.computed, note.verdict):
        assert part in text
    assert set(pn.NOTES_BY_PAGE) == {"synthetic", "transfer", "learning_curves"}


@pytest.mark.slow
def test_l2_note_on_the_papers_setting_reports_what_it_computed():
    note = pn.l2_remark_note()
    assert set(note.values["with"]) == {1.0, 10.0, 100.0}
    advantage, se = note.values["without"]
    assert f"{advantage:+.3f} ± {se:.3f} without l2" in note.computed
    for ridge, (advantage, se) in note.values["with"].items():
        assert f"{advantage:+.3f} ± {se:.3f} with λ = {ridge:g}" in note.computed
    # The verdict is the one the numbers call for.
    again = pn.l2_remark_note(note.values["without"], note.values["with"])
    assert again.verdict == note.verdict
