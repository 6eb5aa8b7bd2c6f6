"""The guided lesson: twelve steps through the paper, as data.

Each :class:`LessonStep` says what to read, which page and figure to show, the one or
two controls that matter, a question with the choices the class predicts from (the
Lesson page computes which are right), and the settings that open the full page in the
same state (:func:`full_page_url`).  Nothing here imports streamlit.

Settings use the pages' widget keys (``"syn.theta"``, ``"shared.seed"``) and are written
to a URL as the pages mirror them: the part of the key after the first dot is the name.

Answers explain the mechanism; they never assert a number or an outcome this tool
computes (the Lesson page computes those from what the step shows, for the
step's current control values).  Numbers quoted from the paper say so.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from explorer.data.numbers import format_values
from explorer.experiments.perturbation import PAPER_PERTURBATIONS, PAPER_TABLE1
from explorer.experiments.synthetic import PAPER_FIGURE1, PAPER_FIGURE2
from explorer.registry import PAGES, url_path
from explorer.url_state import encode_url_value, validate_url_value

#: URL path of the Lesson page and the query parameter naming the step.
LESSON_URL_PATH = url_path("pages/lesson.py")
STEP_PARAM = "step"
#: URL path of each page file but Home (:mod:`explorer.registry`).
PAGE_URL_PATHS = {entry.script: entry.url_path for entry in PAGES if not entry.default}
#: Samples per domain in the lesson's synthetic steps (instant; the paper uses 100,000).
LESSON_SAMPLES = 10_000
#: Seed of the Figure 1 steps: with 10,000 samples per domain seed 0 puts S-LS's boundary
#: on the other side of the target's tie lattice point (S-LS 0.298, no gain for FLDA);
#: seed 1 shows the paper's picture (S-LS 0.400, FLDA-Q 0.303; paper 0.400 and 0.300).
#: Step 3 lets the class flip to seed 0 to see when it does not hold.
FIGURE1_SEED = 1


@dataclass(frozen=True)
class Control:
    """A control the step draws next to its figure.

    Attributes
    ----------
    key : str
        The page's widget key (``"syn.theta"``).
    label : str
        What the student changes, in words.
    try_values : tuple
        Values worth trying, the first being the step's starting value.
    """

    key: str
    label: str
    try_values: tuple
    #: False for a control only the lesson has (its full page has no such setting, and
    #: the full-page link leaves it out).
    page_setting: bool = True


@dataclass(frozen=True)
class SpeakerNotes:
    """What the lecturer says and asks at a step, and the minutes of talk it takes; every
    number in ``say`` and ``ask`` is a ``{field}`` filled from the step as shown
    (:func:`notes_text`), never typed in.

    Attributes
    ----------
    say : str
        What to tell the class (for the presenter's view and the lecturer's handout
        only: never on the projected slide).
    ask : str
        What to ask the class while it discusses, before the reveal.
    talk : float
        Minutes of explaining (before the vote and after Reveal); the rounds of votes
        come on top (:func:`step_minutes`).
    """

    say: str
    ask: str
    talk: float


@dataclass(frozen=True)
class LessonStep:
    """One step of the lesson (see the module docstring)."""

    slug: str
    title: str
    text: str
    figure: str
    controls: tuple
    question: str
    answer: str
    #: The step's full page and the key of its chart there.
    page: str = "pages/synthetic.py"
    chart_key: str = "syn_figure"
    settings: Mapping[str, Any] = field(default_factory=dict)
    equations: tuple = ()
    choices: tuple = ()
    notes: SpeakerNotes | None = None
    #: Whether a slide shows the paper's numbers (``View.paper``) beside the question.
    paper_on_slide: bool = False
    #: A core step of the 90-minute plan (False: optional, "if time").
    core: bool = True

    def start_values(self):
        """The step's settings with each of its controls at its starting value (the first
        of its ``try_values`` unless the settings give one)."""
        values = dict(self.settings)
        for control in self.controls:
            values.setdefault(control.key, control.try_values[0])
        return values


def _domain(prefix, paper, n_samples=LESSON_SAMPLES, seed=0, **extra):
    """Settings of a synthetic page loading ``paper``'s data model."""
    values = {
        f"{prefix}.distribution": paper.distribution,
        f"{prefix}.n_features": 2,
        f"{prefix}.class1": format_values(paper.params[0]),
        f"{prefix}.class2": format_values(paper.params[1]),
        f"{prefix}.theta": format_values(paper.theta),
        f"{prefix}.n_source": n_samples,
        f"{prefix}.n_target": n_samples,
        "shared.seed": seed,
    }
    values.update(extra)
    return values


def _synthetic(loss, paper=PAPER_FIGURE1, seed=FIGURE1_SEED, show_source=False):
    """Settings of a Synthetic-page step on ``paper``'s data (by default Figure 1's with seed
    :data:`FIGURE1_SEED`), without ℓ2."""
    return _domain(
        "syn", paper, seed=seed, **{"syn.loss": loss, "syn.l2": 0.0, "syn.show_source": show_source}
    )


#: Standard errors a gap must exceed before a step names a winner (its "uncertainty
#: rule"): a difference within ``SE_MULTIPLE`` standard errors is "too close to call".
SE_MULTIPLE = 2.0
#: The data set of the natural-data step (the paper's Table 3, section 4.2.2).
NATURAL_SETS = ("heart", "hepatitis", "ozone")
#: Rate factors of the rate-change step: feature 1's count rate falls, feature 2's rises.
RATE_FACTORS = ("0.5, 2.5", "0.25, 2.5", "1, 2.5")
#: The training-set size the learning-curve step asks about (the grid's second size).
LEARNING_CURVE_QUESTION_N = 4
#: The target labels of the assumption step: as the assumption says (they follow the
#: source), or depending on the domain (in the target, samples with x₂ > 0 swap their
#: class, as the paper's 'small' is good for electronics and bad for cars).
TARGET_LABELS = ("follow the source", "depend on the domain")
#: How close θ̂ must come to θ in the estimating-θ step.
THETA_TOLERANCE = 0.05
#: Say "too close to call" the same way in every step's choices.
TOO_CLOSE = "Too close to call at this n"


LESSON_STEPS = (
    LessonStep(
        slug="domain-shift-as-dropout",
        title="1 · Domain shift as dropout",
        text=(
            "The target is the source with features switched off: a value of feature d "
            "becomes 0 with probability θ of feature d (Equation (8)). With θ = [0.5, 0] "
            "half of feature 1 vanishes in the target. The figure shows the source."
        ),
        figure="Figure 1",
        controls=(
            Control("syn.theta", "true dropout θ per feature", ("0.5, 0", "0.8, 0", "0, 0")),
            Control("syn.show_source", "also show the source points", (True, False)),
        ),
        question="Which values does feature 1 take in the target?",
        choices=(
            "Only 0 and 1, as in the source",
            "0 and 1/(1 − θ₁): dropped values are 0, kept ones scaled up",
            "Any value between 0 and 1",
        ),
        answer=(
            "Dropout sets a value to 0 with probability θ₁ and otherwise divides it by "
            "1 − θ₁, so a 1 becomes 1/(1 − θ₁). The scaling keeps the expected value of "
            "every feature equal to the source value: E[z | x] = x."
        ),
        settings=_synthetic("both", show_source=True),
        equations=("transfer_model", "moments"),
        notes=SpeakerNotes(
            say="Domain adaptation: train on a labelled source, test on a target without "
            "labels. FLDA models the shift between them feature by feature; the simplest "
            "model is dropout, where a feature goes missing with a probability θ of its own. "
            "Show the binary source lattice first, then Reveal the target.",
            ask="If a share θ₁ = {theta1} of feature 1's values vanish, what must happen to the "
            "rest so that the feature's mean stays the same? Why would we want the mean kept?",
            talk=5,
        ),
    ),
    LessonStep(
        slug="the-assumption",
        title="2 · The assumption: labels follow the source",
        text=(
            "FLDA assumes the labels are conditionally independent of the target given "
            "the source (section 3.2), less strict than covariate shift. The target risk "
            "becomes an expected loss over the transfer model on the source (Equations "
            "(1)-(3)), shown here from source labels only."
        ),
        figure="Equations (1)-(3)",
        controls=(
            Control("syn.target_labels", "target labels", TARGET_LABELS, page_setting=False),
            Control("syn.n_source", "source samples", (10_000, 1_000)),
        ),
        question="Without target labels, does Equation (3) get each target error right?",
        choices=("Yes, within the noise", "No, off by more than the noise"),
        answer=(
            "Under the assumption the target risk is the source risk under the transfer "
            "model: sum over labels and integrate over the source, and p(y | z, x) becomes "
            "p(y | x). With θ estimated from unlabelled target data the expectation needs "
            "only labelled source samples; where labels did depend on the target (the "
            "paper's 'small' cars and 'small' electronics) the estimate would miss."
        ),
        settings={**_synthetic("quadratic"), "syn.target_labels": TARGET_LABELS[0]},
        equations=("transfer_model",),
        notes=SpeakerNotes(
            say="Write p(y, z, x) = p(y | z, x) p(z | x) p(x) on the board. The assumption "
            "drops z from the first factor; covariate shift instead asks p(y | x) = p(y | z), "
            "which gives no transfer model to work with. Equation (3) then averages the "
            "loss over the transfer model for each labelled source sample. After Reveal, "
            "switch the target labels to '{broken_labels}': Equation (3) still reads the "
            "source, the target does not follow.",
            ask="Name a shift where the assumption fails (the paper: 'small' is good for "
            "electronics, bad for cars). Would FLDA notice from unlabelled data?",
            talk=6,
        ),
    ),
    LessonStep(
        slug="estimating-theta",
        title="3 · Estimating θ without target labels",
        text=(
            "FLDA never sees a target label. It estimates θ̂ of each feature by comparing "
            "how often that feature is non-zero in the target and in the source "
            "(section 3.3.1). The figure shows the true θ; the estimate is the question."
        ),
        figure="θ table (section 3.3.1)",
        controls=(
            Control("syn.n_target", "target samples", (100, 1_000, 10_000)),
            Control("syn.theta", "true dropout θ per feature", ("0.5, 0", "0.2, 0.6")),
        ),
        question="How close will the estimate θ̂ come to the true θ with these target samples?",
        choices=(
            f"Within {THETA_TOLERANCE:g} on every feature",
            f"More than {THETA_TOLERANCE:g} off on some feature",
        ),
        answer=(
            "θ̂ = max{0, 1 − ζ̂/η̂} per feature, with ζ̂ and η̂ the non-zero rates of "
            "the target and the source: a ratio of two sample means, so its noise "
            "shrinks like one over the square root of the number of samples."
        ),
        settings={**_synthetic("both"), "syn.n_target": 100},
        equations=("theta_hat",),
        notes=SpeakerNotes(
            say="θ̂ compares non-zero rates: here feature 1 is non-zero in {nonzero_source} of "
            "the source and {nonzero_target} of the target, so θ̂₁ = {theta_hat}. No target "
            "label is used. Try {first_n_target} target samples first, then {last_n_target}.",
            ask="How many unlabelled target samples would you need for θ̂ to be within "
            "{tolerance}? What does a ratio of two sample means do with few samples?",
            talk=4,
        ),
    ),
    LessonStep(
        slug="naive-against-flda",
        title="4 · The naive classifier against FLDA (Figure 1)",
        text=(
            "S-LS is least squares on the labelled source, T-LS on the labelled target "
            "(the oracle we cannot have). FLDA-Q is least squares on the source with the "
            "estimated dropout variance added (Equation (11)). The boundaries come with "
            "the answer."
        ),
        figure="Figure 1",
        controls=(
            Control("shared.seed", "random seed", (FIGURE1_SEED, 0, 2)),
            Control("syn.loss", "loss", ("quadratic", "logistic")),
        ),
        question="Which classifier will have the lower target error?",
        choices=("The naive source classifier", "FLDA", TOO_CLOSE),
        answer=(
            "The naive boundary runs (in expectation) exactly through a target lattice "
            "point holding thousands of samples, so a tiny tilt moves all of them to one "
            "side or the other: the seed decides whether it costs anything. FLDA's "
            "boundary is pulled towards the target's by the dropout variance."
        ),
        settings=_synthetic("quadratic"),
        equations=("quadratic_loss", "closed_form"),
        notes=SpeakerNotes(
            say="Three boundaries: naive, oracle, FLDA. The winner is named only when the "
            "gap is more than {se_multiple} its paired standard error on this target sample. "
            "Flip the seed ({try_seed}) and watch on which side of the big lattice point the "
            "naive boundary falls, and what that does to the paper's gap.",
            ask="Why can a tiny change of the boundary's tilt change the error by {paper_gap} "
            "(the paper's gap) on binary data? Would that happen on continuous features?",
            talk=5,
        ),
    ),
    LessonStep(
        slug="counts",
        title="5 · Counts (Figure 2)",
        text=(
            "The same experiment with Poisson counts (rates 2 and 6). Dropout zeroes some "
            "counts and doubles the rest. The paper reports this setting twice, in "
            "Figure 2's text and in Table 1, with different errors (listed below)."
        ),
        figure="Figure 2",
        controls=(
            Control("syn.loss", "loss", ("quadratic", "logistic")),
            Control("shared.seed", "random seed", (0, 1, 2)),
        ),
        question="Which of the paper's two reports will this run's FLDA error be closer to?",
        choices=("Figure 2's text", "Table 1", TOO_CLOSE),
        answer=(
            "Reproduce the setting and compare: two reports of one setting that differ "
            "by far more than the sampling noise cannot both be right."
        ),
        settings=_synthetic("quadratic", PAPER_FIGURE2, seed=0),
        equations=("per_feature_ridge",),
        paper_on_slide=True,
        core=False,
        notes=SpeakerNotes(
            say="Counts instead of bits: dropout now also rescales every kept count. Read "
            "the paper's two reports on the slide aloud before revealing; the run's standard "
            "error (binomial, on the target sample) says how far off a report may be by chance.",
            ask="If two numbers in one paper describe the same setting and differ by "
            "{report_gap}, what would you check first: the code, the seed or the text?",
            talk=4,
        ),
    ),
    LessonStep(
        slug="a-wrong-theta",
        title="6 · A wrong θ (Table 1 as a curve)",
        text=(
            "What if θ̂ is off? Shift the estimate of feature 1 (the dashed line marks the "
            "chosen shift) and read FLDA's target error. A larger θ₁ raises the penalty "
            "θ₁/(1 − θ₁) · Σᵢ xᵢ₁² on feature 1."
        ),
        page="pages/transfer.py",
        figure="Table 1 and Figure 4",
        chart_key="tp_curve",
        controls=(
            Control("tp.delta_1", "shift added to θ̂₁", (0.2, 0.0, 0.4, -0.3)),
            Control("tp.l2", "ℓ2 penalty", (0.0, 1.0)),
        ),
        question="Where is FLDA-Q's target error lowest?",
        choices=("At θ̂₁ itself", "At a smaller θ₁", "At a larger θ₁", TOO_CLOSE),
        answer=(
            "θ̂ minimises nothing about the error: it is the dropout rate that makes the "
            "source look like the target on average. The error curve is measured on the "
            "labelled target, which FLDA never sees."
        ),
        settings=_domain(
            "tp",
            PAPER_TABLE1,
            **{
                "tp.l2": 0.0,
                "tp.feature": 1,
                "tp.perturbations": list(PAPER_PERTURBATIONS),
                "tp.curve_range": [-0.5, 0.5],
                "tp.own_mode": "perturb",
                "tp.delta_1": 0.2,
            },
        ),
        equations=("per_feature_ridge",),
        notes=SpeakerNotes(
            say="Table 1 of the paper as a curve: FLDA-Q refitted with θ̂₁ shifted. The "
            "minimum is named only where it beats the error at θ̂ by more than {se_multiple} "
            "the paired standard error. Switch ℓ2 to {last_l2} and compare the curve's "
            "depth with the dropout penalty alone.",
            ask="The estimate is unbiased for θ. Why need the best θ for the error not be the true θ?",
            talk=5,
        ),
    ),
    LessonStep(
        slug="how-many-samples",
        title="7 · How many samples? (Figure 3)",
        text=(
            "Learning curves: every classifier gets n labelled samples, FLDA also n "
            "unlabelled target samples. The paper reads 'roughly 20' off Figure 3 and "
            "remarks that FLDA-Q's small-sample advantage disappears with ℓ2. Sizes below "
            "n = 7 come with the answer."
        ),
        page="pages/learning_curves.py",
        figure="Figure 3",
        chart_key="lc_curves",
        controls=(
            Control("lc.l2", "ℓ2 regularisation", (False, True)),
            Control("lc.ridge", "λ (ridge strength, with ℓ2 on)", (10.0, 100.0)),
        ),
        question=f"At n = {LEARNING_CURVE_QUESTION_N}, which of FLDA-Q and S-LS has the lower target error?",
        choices=("FLDA-Q", "S-LS", TOO_CLOSE),
        answer=(
            "With very few samples a least-squares fit overfits; FLDA-Q's dropout "
            "variance acts as a per-feature ridge penalty that is strongest on the "
            "features that vanish in the target."
        ),
        settings={
            "lc.distribution": "poisson",
            "lc.repeats": 50,
            "lc.l2": False,
            "lc.ridge": 10.0,
            "lc.n_pool": 10_000,
            "lc.grid_mode": "log",
            "shared.seed": 0,
        },
        equations=("per_feature_ridge",),
        notes=SpeakerNotes(
            say="Each point is a mean over {repeats} repeats with its standard error band. A "
            "winner at the asked n is named only where its mean beats the other by more "
            "than {se_multiple} the standard error of the difference; otherwise it is too "
            "close to call. Turn ℓ2 on, try λ = {try_ridge}, and compare with the paper's remark.",
            ask="Why could a ridge penalty on every classifier remove FLDA-Q's advantage? "
            "What does FLDA-Q's dropout variance already do?",
            talk=5,
        ),
    ),
    LessonStep(
        slug="where-ink-vanishes",
        title="8 · Where ink vanishes (Figures 5 and 6)",
        text=(
            "Two digit collections ink different pixels: how often, per pixel, in A and in B "
            "(as the paper's Figure 5). Where the source inks a pixel often and the target "
            "rarely, θ is large and FLDA's weights fade there (Figure 6, after the answer)."
        ),
        page="pages/digits.py",
        figure="Figures 5 and 6",
        chart_key="dig_weights",
        controls=(
            Control("dig.direction", "direction (source → target)", ("A → B", "B → A")),
            Control("dig.digit", "digit", ("0", "3", "8")),
        ),
        question="In which directions will FLDA-L beat the naive S-LR on these data?",
        choices=("A → B only", "B → A only", "Both", "Neither"),
        answer=(
            "Dropout can only remove ink: FLDA acts on the pixels the target inks less often "
            "than the source, and where the target inks more, θ̂ is clipped to 0. A direction "
            "gains only if the pixels that lose ink carry the class. MNIST and USPS each leave "
            "empty pixels the other inks, so θ̂ > 0 on some pixels both ways, consistent with "
            "Table 4's FLDA-L row (below S-LR in both directions)."
        ),
        settings={
            "dig.source": "offline",
            "dig.direction": "A → B",
            "dig.digit": "0",
            "dig.loss": "logistic",
            "dig.l2_mode": "cv",
            "shared.seed": 0,
        },
        equations=("theta_hat", "taylor_term"),
        core=False,
        notes=SpeakerNotes(
            say="Offline stand-in digits, made from scikit-learn's digits, not MNIST/USPS. "
            "Read off Figure 5 which collection fills the frame; the direction from the "
            "fuller to the emptier one is where dropout can explain the shift. A win needs "
            "a gap beyond {se_multiple} the paired standard error on the target set.",
            ask="Going from the centred digits to the frame-filling ones, new pixels get "
            "ink. Can a dropout model describe ink appearing?",
            talk=4,
        ),
    ),
    LessonStep(
        slug="natural-data",
        title="9 · Natural data: missing values (Table 3)",
        text=(
            "Real data sets with gaps (section 4.2.2): the source is the complete rows, the "
            "target the rows with missing values filled with 0: dropout in practice. The "
            "figure shows the paper's Table 3 errors; this server's run is the question."
        ),
        page="pages/real_data.py",
        figure="Table 3",
        chart_key="real_errors",
        controls=(Control("real.pair", "data set", NATURAL_SETS),),
        question="Which has the lower target error on this data set: FLDA-Q or the naive S-LR?",
        choices=("FLDA-Q", "S-LR", TOO_CLOSE),
        answer=(
            "A gap filled with 0 is a dropped-out feature, so θ̂ per feature is about the "
            "share of target rows missing it, and FLDA down-weights exactly those features. "
            "With a few hundred target rows a test error carries a standard error of "
            "0.01-0.05: small differences are noise."
        ),
        settings={
            "real.impute": "zero",
            "real.baselines": False,
            "real.table": "uci",
            "real.pair": "heart",
            "shared.seed": 0,
        },
        equations=("theta_hat",),
        notes=SpeakerNotes(
            say="UCI data with missing values at test time, computed here as the Real data "
            "page does (same fits, same store), beside the paper's Table 3. The paper "
            "reports no standard errors; here FLDA-Q − S-LR = {gap} ± {gap_se} on "
            "{n_target} target rows of {data_set}. The answer to the question below, at this "
            "run's noise per row: about {rows_needed} rows.",
            ask="The paper's Table 3 gives FLDA-Q − S-LR = {paper_gap} on {data_set}. How "
            "many target rows would a gap that size need to stand beyond {se_multiple} its "
            "standard error?",
            talk=5,
        ),
    ),
    LessonStep(
        slug="where-the-paper-disagrees",
        title="10 · Where the paper disagrees with itself",
        text=(
            "A paper is a claim to check. Figure 1 reports each classifier's target error; "
            "the Bayes error of the setting, computed exactly from the true distributions, "
            "is the best any classifier can reach there."
        ),
        figure="Notes on the paper",
        chart_key="",
        controls=(),
        question="Figure 1 reports S-LR's target error as 0.248. Can any classifier be "
        "that good on this setting?",
        choices=("Yes", "No: that is below the Bayes error of the setting"),
        answer=(
            "The Bayes error is the error of the best possible rule, knowing the true "
            "distributions; a reported error below it (beyond rounding) is impossible."
        ),
        settings=_domain("syn", PAPER_FIGURE1, n_samples=100_000, **{"syn.loss": "both", "syn.l2": 0.0}),
        core=False,
        notes=SpeakerNotes(
            say="The Bayes error is computed exactly by enumerating the lattice, no sampling: "
            "it does not depend on a seed. The second note sets Figure 2's text against "
            "Table 1, rerun with seed {rerun_seed} as on the Synthetic page.",
            ask="If a reported error is below the Bayes error, which are the possible "
            "explanations: a typo, a different setting, or a test on training data?",
            talk=4,
        ),
    ),
    LessonStep(
        slug="when-the-shift-is-not-dropout",
        title="11 · When the shift is not dropout",
        text=(
            "Counts can change their rate instead of vanishing: in the library's rate-change "
            "domains feature 1's counts fall to a fraction of their rate in the target and "
            "feature 2's rise. The figure shows how often each feature is 0 in each domain."
        ),
        figure="Count rates change",
        controls=(
            Control("syn.theta", "rate factor per feature (target rate / source rate)", RATE_FACTORS),
            Control("syn.n_target", "target samples", (10_000, 300)),
        ),
        question="Which features will the dropout model see as shifted (θ̂ above 0.05)?",
        choices=("Feature 1 only", "Feature 2 only", "Both", "Neither"),
        answer=(
            "θ̂ compares non-zero rates only. A count whose rate falls is 0 more often, so "
            "θ̂ grows, but it reads the change as whole values vanishing and rescales the "
            "rest; a count whose rate rises is 0 less often and gets θ̂ = 0, so FLDA "
            "treats it as unchanged. The rate transfer model fits such data."
        ),
        settings={
            "syn.shift": "rate",
            "syn.theta": RATE_FACTORS[0],
            "syn.n_source": LESSON_SAMPLES,
            "syn.n_target": LESSON_SAMPLES,
            "syn.loss": "quadratic",
            "shared.seed": 0,
        },
        equations=("theta_hat",),
        core=False,
        notes=SpeakerNotes(
            say="Dropout is one transfer model among several. Here the counts thin out "
            "(feature 1) or grow (feature 2). The figure's zeros are all θ̂ sees. The "
            "Synthetic page's 'Count rates change' preset and the Your data page take it "
            "further with the rate and two-sided models.",
            ask="A feature's values double in the target and are never zero. What θ̂ does it "
            "get, and is FLDA then right to treat it as unchanged?",
            talk=4,
        ),
    ),
    LessonStep(
        slug="recap",
        title="12 · Recap",
        text=(
            "FLDA models the shift feature by feature, estimates the model from unlabelled "
            "target data and trains on the source under it. The table lists what each step "
            "computed at its starting settings."
        ),
        figure="All steps",
        chart_key="",
        controls=(),
        question="Which condition did every step where FLDA helped share?",
        choices=(
            "Features vanished in the target and labels followed the source",
            "The target had labels",
            "Any difference between source and target",
        ),
        answer=(
            "FLDA helps where its transfer model describes the shift (dropout: features "
            "vanish) and the labels are conditionally independent of the target given the "
            "source; where ink or counts appear, θ̂ is 0 and FLDA is the naive classifier."
        ),
        settings=_domain("syn", PAPER_FIGURE1, seed=FIGURE1_SEED, **{"syn.loss": "both"}),
        equations=("transfer_model", "theta_hat", "per_feature_ridge"),
        notes=SpeakerNotes(
            say="Walk the table: the transfer model, its estimate, when FLDA wins beyond the "
            "noise and when it is too close to call, where the paper disagrees with itself. "
            "Close with the assumption of step {assumption_step} as the one thing to remember.",
            ask="For your own data: which transfer model would describe the shift, and how "
            "would you check the assumption without target labels?",
            talk=4,
        ),
    ),
)

_BY_SLUG = {s.slug: s for s in LESSON_STEPS}


def step(slug):
    """The step with this slug (``KeyError`` lists the valid ones)."""
    try:
        return _BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"No lesson step {slug!r}; steps: {', '.join(_BY_SLUG)}.") from None


def step_index(slug):
    """Zero-based position of a step, or 0 for an unknown slug (a bad link opens step 1;
    the page says so)."""
    return next((i for i, s in enumerate(LESSON_STEPS) if s.slug == slug), 0)


def settings_query(settings, present=False):
    """Query string (without ``?``) of ``settings``: key after the first dot -> URL value."""
    params = {key.split(".", 1)[-1]: encode_url_value(value) for key, value in settings.items()}
    if present:
        params["present"] = "1"
    return urlencode(params, quote_via=quote)


def lesson_url(slug, present=False):
    """Shareable URL (relative to the app) of one lesson step."""
    step(slug)
    return f"{LESSON_URL_PATH}?{settings_query({STEP_PARAM: slug}, present)}"


def full_page_url(lesson_step, present=False, values=None):
    """URL (relative to the app) of the step's full page with the step's settings, or
    ``values`` (but those of lesson-only controls)."""
    own = {c.key for c in lesson_step.controls if not c.page_setting}
    settings = {k: v for k, v in (lesson_step.settings if values is None else values).items() if k not in own}
    return f"{PAGE_URL_PATHS[lesson_step.page]}?{settings_query(settings, present)}"


def value_param(key):
    """The query name of control ``key`` in a Lesson link: ``v.<key after the first dot>``
    (``"v.theta"``; apart from the pages' own settings, such as the shared ``seed``)."""
    return "v." + key.split(".", 1)[-1]


def step_values_from_query(lesson_step, query):
    """The step's control values named in a URL's ``query`` (:func:`value_param`), each
    kept only when the control offers it; ``{key: value}``."""
    found = {}
    for control in lesson_step.controls:
        raw = query.get(value_param(control.key))
        if raw is None:
            continue
        checked = validate_url_value(control.key, raw, control.try_values[0], options=control.try_values)
        if checked.accepted:
            found[control.key] = checked.value
    return found


def with_chosen(lesson_step, chosen):
    """The step's start values with the ``chosen`` control values (a class's lecturer's),
    each kept only when its control offers it."""
    values = lesson_step.start_values()
    for control in lesson_step.controls:
        if chosen.get(control.key) in control.try_values:
            values[control.key] = chosen[control.key]
    return values


def explore_url(lesson_step, values):
    """URL (relative to the app) of the Lesson at ``lesson_step`` with its controls at
    ``values`` (a class's "explore this step on your device")."""
    chosen = {
        value_param(c.key): encode_url_value(values[c.key]) for c in lesson_step.controls if c.key in values
    }
    query = urlencode(chosen, quote_via=quote)
    return lesson_url(lesson_step.slug) + (f"&{query}" if query else "")


#: The lecture's slot, the minutes students need to join at its start, and what a round
#: of votes takes: reading the question and voting; before a second round, the
#: neighbours' discussion (peer instruction).
LECTURE_MINUTES = 90
JOIN_MINUTES = 4
VOTE_MINUTES = 1.5
DISCUSSION_MINUTES = 2.5
#: A multiple of standard errors in words ("twice"), as the notes say it.
_MULTIPLE_WORDS = {1: "once", 2: "twice", 3: "three times"}


def step_minutes(lesson_step, rounds=2):
    """Minutes of a step: its talk and, for a question, ``rounds`` votes with a
    discussion before each vote after the first."""
    talk = float(lesson_step.notes.talk) if lesson_step.notes else 0.0
    if not lesson_step.choices or rounds <= 0:
        return talk
    return talk + rounds * VOTE_MINUTES + (rounds - 1) * DISCUSSION_MINUTES


def lecture_plan(rounds=2, steps=LESSON_STEPS):
    """The plan of a lecture: ``[(step index, planned start minute, minutes)]`` of the core
    steps after :data:`JOIN_MINUTES` of joining; optional steps (``core=False``) get
    ``None`` as their start (taught only if time is left)."""
    plan, clock = [], float(JOIN_MINUTES)
    for i, lesson_step in enumerate(steps):
        minutes = step_minutes(lesson_step, rounds)
        plan.append((i, clock if lesson_step.core else None, minutes))
        clock += minutes if lesson_step.core else 0.0
    return plan


def _shown(value):
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _spelled(values):
    """``"0, 1 and 2"``."""
    shown = [_shown(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def notes_fields(lesson_step, values, facts=None):
    """What a step's speaker-notes templates may name: the lesson's constants, each
    setting's value (by its name after the first dot), each control's offered values
    (``try_<name>``, ``first_<name>``, ``last_<name>``) and the step's computed ``facts``."""
    fields = {
        "se_multiple": _MULTIPLE_WORDS.get(SE_MULTIPLE, f"{SE_MULTIPLE:g} times"),
        "assumption_step": str(1 + step_index("the-assumption")),
        "tolerance": f"{THETA_TOLERANCE:g}",
        "broken_labels": TARGET_LABELS[1],
    }
    fields.update({key.split(".", 1)[-1]: _shown(value) for key, value in values.items()})
    for control in lesson_step.controls:
        name = control.key.split(".", 1)[-1]
        fields[f"try_{name}"] = _spelled(control.try_values)
        fields[f"first_{name}"] = _shown(control.try_values[0])
        fields[f"last_{name}"] = _shown(control.try_values[-1])
    fields.update(facts or {})
    return fields


def notes_text(lesson_step, values, facts=None):
    """``(say, ask)`` of the step's speaker notes, filled from the step as shown
    (:func:`notes_fields`); ``("", "")`` for a step without notes."""
    if lesson_step.notes is None:
        return "", ""
    # a number the step could not compute (it showed an error instead) prints as "–"
    fields = defaultdict(lambda: "–", notes_fields(lesson_step, values, facts))
    return lesson_step.notes.say.format_map(fields), lesson_step.notes.ask.format_map(fields)
