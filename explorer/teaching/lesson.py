"""The guided lesson: eight steps through the paper, as data.

Each :class:`LessonStep` says what to read (2-4 sentences), which page and
figure to show, the one or two controls that matter (widget keys of that page
and the values to try), a question with its answer, and the settings that open
the full page in the same state (:func:`full_page_url`).  The Lesson page
(phase 2) renders the steps; nothing here imports streamlit.

Settings use the pages' widget keys (``"syn.theta"``, ``"tp.delta_1"``,
``"lc.l2"``, ``"dig.direction"``, ``"data.sample"``; the shared seed is
``"shared.seed"``) and are written to a URL the way the pages mirror them
(``explorer.ui.state.write_to_url``): the part of the key after the first dot is the
query name, strings are written as they are and other values as JSON.

Answers explain; they never assert a number this tool computes (those come
from the live captions and the notes on the paper).  Numbers quoted from the
paper say so.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import quote, urlencode

from explorer.data.numbers import format_values
from explorer.experiments.perturbation import PAPER_TABLE1
from explorer.experiments.synthetic import PAPER_FIGURE1, PAPER_FIGURE2
from explorer.registry import PAGES, url_path

__all__ = ["Control", "LessonStep", "LESSON_STEPS", "LESSON_URL_PATH", "STEP_PARAM",
           "PAGE_URL_PATHS", "step", "step_index", "url_value", "settings_query",
           "lesson_url", "full_page_url"]

#: URL path of the Lesson page and the query parameter naming the step.
LESSON_URL_PATH = url_path("pages/lesson.py")
STEP_PARAM = "step"
#: URL path of each page file but Home (:mod:`explorer.registry`).
PAGE_URL_PATHS = {entry.script: entry.url_path for entry in PAGES if not entry.default}
#: Samples per domain in the lesson's synthetic steps (instant; the paper uses 100,000).
LESSON_SAMPLES = 10_000


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


@dataclass(frozen=True)
class LessonStep:
    """One step of the lesson (see the module docstring)."""

    slug: str
    title: str
    text: str
    page: str
    figure: str
    chart_key: str
    controls: tuple
    question: str
    answer: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    equations: tuple = ()


def _domain(prefix, paper, n_samples=LESSON_SAMPLES, **extra):
    """Settings of a synthetic page loading ``paper``'s data model."""
    values = {f"{prefix}.distribution": paper.distribution, f"{prefix}.n_features": 2,
              f"{prefix}.class1": format_values(paper.params[0]),
              f"{prefix}.class2": format_values(paper.params[1]),
              f"{prefix}.theta": format_values(paper.theta),
              f"{prefix}.n_source": n_samples, f"{prefix}.n_target": n_samples,
              "shared.seed": 0}
    values.update(extra)
    return values


LESSON_STEPS = (
    LessonStep(
        slug="domain-shift-as-dropout",
        title="1 · Domain shift as dropout",
        text=("The target domain is the source domain with some features switched off: "
              "each value of feature d is set to 0 with probability θ_d and otherwise scaled "
              "by 1/(1 − θ_d), so its mean does not change (Equation (8)). With θ = [0.5, 0] "
              "half of feature 1 vanishes in the target. Look at the target's lattice "
              "points and how many samples sit at x₁ = 0."),
        page="pages/synthetic.py", figure="Figure 1", chart_key="syn_figure",
        controls=(Control("syn.theta", "true dropout θ per feature", ("0.5, 0", "0.8, 0", "0, 0")),
                  Control("syn.show_source", "also show the source points", (True, False))),
        question="Why does feature 1 take the values 0 and 2 in the target, but 0 and 1 in "
                 "the source?",
        answer=("Dropout sets a value to 0 with probability θ₁ = 0.5 and otherwise divides it "
                "by 1 − θ₁ = 0.5, so a 1 becomes 2. The scaling keeps the expected value of "
                "every feature equal to the source value: E[z | x] = x."),
        settings=_domain("syn", PAPER_FIGURE1, **{"syn.loss": "both", "syn.l2": 0.0,
                                                  "syn.show_source": True}),
        equations=("transfer_model", "moments")),
    LessonStep(
        slug="estimating-theta",
        title="2 · Estimating θ without target labels",
        text=("FLDA never sees a target label. It estimates θ̂_d by comparing how often "
              "feature d is non-zero in the target and in the source (section 3.3.1). With "
              "few target samples the estimate is noisy; with many it recovers the θ that "
              "made the target."),
        page="pages/synthetic.py", figure="θ table (section 3.3.1)", chart_key="syn_figure",
        controls=(Control("syn.n_target", "target samples", (100, 1_000, 10_000)),
                  Control("syn.theta", "true dropout θ per feature", ("0.5, 0", "0.2, 0.6"))),
        question="Why can θ̂ not model a feature that is non-zero *more* often in the target?",
        answer=("θ̂_d = max{0, 1 − ζ̂_d/η̂_d}: if the target's non-zero rate ζ̂_d exceeds the "
                "source's η̂_d the ratio is above 1 and θ̂_d is clipped to 0. Dropout can only "
                "remove values, never add them."),
        settings=_domain("syn", PAPER_FIGURE1, **{"syn.n_target": 100, "syn.loss": "both",
                                                  "syn.l2": 0.0, "syn.show_source": False}),
        equations=("theta_hat",)),
    LessonStep(
        slug="flda-q-on-the-oracle",
        title="3 · FLDA-Q lands on the oracle (Figure 1)",
        text=("Three least-squares classifiers: S-LS trained on the labelled source, T-LS on "
              "the labelled target (the oracle we cannot have in practice), and FLDA-Q, "
              "trained on the source under the estimated transfer model. FLDA-Q has a closed "
              "form: least squares with the dropout variance added (Equation (11))."),
        page="pages/synthetic.py", figure="Figure 1", chart_key="syn_figure",
        controls=(Control("shared.seed", "random seed", (0, 1, 2)),
                  Control("syn.loss", "loss", ("quadratic", "logistic", "both"))),
        question="Change the seed: why does S-LS's target error jump while FLDA-Q's stays "
                 "with T-LS?",
        answer=("S-LS's boundary runs (in expectation) exactly through a target lattice point "
                "holding thousands of samples, so a tiny tilt moves all of them to one side "
                "or the other (the caption computes both errors). FLDA-Q's boundary is "
                "pulled towards the target's by the dropout variance and lies on T-LS's."),
        settings=_domain("syn", PAPER_FIGURE1, **{"syn.loss": "quadratic", "syn.l2": 0.0,
                                                  "syn.show_source": False}),
        equations=("quadratic_loss", "closed_form")),
    LessonStep(
        slug="counts",
        title="4 · Counts (Figure 2)",
        text=("The same experiment with Poisson counts (rates 2 and 6). Dropout now zeroes "
              "some counts and doubles the rest, so the target's feature 1 has only even "
              "values and a pile of zeros. Compare this run's errors with the paper's two "
              "reports of this setting."),
        page="pages/synthetic.py", figure="Figure 2", chart_key="syn_figure",
        controls=(Control("syn.theta", "true dropout θ per feature", ("0.5, 0", "0.5, 0.5")),
                  Control("syn.loss", "loss", ("both", "logistic"))),
        question="The paper's Figure 2 text and its Table 1 report different errors for this "
                 "same setting. How can you tell which one to trust?",
        answer=("Reproduce the setting and compare: the notes on the paper compute this "
                "run's errors and their distance to both reports. Two reports of one "
                "setting that differ by far more than the sampling noise cannot both be "
                "right."),
        settings=_domain("syn", PAPER_FIGURE2, **{"syn.loss": "both", "syn.l2": 0.0,
                                                  "syn.show_source": False}),
        equations=("per_feature_ridge",)),
    LessonStep(
        slug="a-wrong-theta",
        title="5 · A wrong θ (Table 1, Figure 4)",
        text=("What if θ̂ is off? Shift the estimate of feature 1 and watch the FLDA "
              "boundary and its target error. Overestimating θ₁ raises the per-feature "
              "penalty θ₁/(1 − θ₁) · Σᵢ xᵢ₁², so FLDA trusts feature 1 less than the "
              "target calls for."),
        page="pages/transfer.py", figure="Figure 4 and Table 1", chart_key="tp_boundaries",
        controls=(Control("tp.delta_1", "shift added to θ̂₁", (0.2, 0.0, 0.4, -0.3)),
                  Control("tp.l2", "ℓ2 penalty", (0.0, 0.01))),
        question="Why does a large overestimate of θ₁ hurt much more than a small one?",
        answer=("The penalty factor θ/(1 − θ) grows without bound as θ approaches 1 (it is 1 "
                "at 0.5 and 4 at 0.8), so the weight of feature 1 is shrunk ever harder and "
                "the boundary turns towards using feature 2 only."),
        settings=_domain("tp", PAPER_TABLE1, **{"tp.l2": 0.0, "tp.feature": 1,
                                                "tp.perturbations": [0.0, 0.1, 0.2, 0.3],
                                                "tp.own_mode": "perturb", "tp.delta_1": 0.2}),
        equations=("per_feature_ridge",)),
    LessonStep(
        slug="how-many-samples",
        title="6 · How many samples? (Figure 3)",
        text=("Learning curves: every classifier gets n labelled samples and FLDA also n "
              "unlabelled target samples to estimate θ. The paper reads 'roughly 20' off its "
              "Figure 3 and remarks that FLDA-Q's small-sample advantage disappears with "
              "l2-regularised classifiers; the headline numbers and the notes test both."),
        page="pages/learning_curves.py", figure="Figure 3", chart_key="lc_curves",
        controls=(Control("lc.l2", "l2 regularisation", (False, True)),
                  Control("lc.ridge", "λ (ridge strength)", (10.0, 100.0))),
        question="At the smallest n FLDA-Q can beat even the oracle T-LS. How is that "
                 "possible?",
        answer=("With very few samples every least-squares fit overfits; FLDA-Q's dropout "
                "variance acts as a per-feature ridge penalty that regularises it. The "
                "oracle has the right data but no regularisation."),
        settings={"lc.distribution": "poisson", "lc.loss": "quadratic", "lc.repeats": 50,
                  "lc.l2": False, "lc.ridge": 10.0, "lc.n_pool": 10_000, "lc.grid_mode": "log",
                  "shared.seed": 0},
        equations=("per_feature_ridge",)),
    LessonStep(
        slug="where-ink-vanishes",
        title="7 · Where ink vanishes (Figures 5-6)",
        text=("Handwritten digits from two collections ink different pixels: one fills the "
              "frame, the other is centred. Where the source inks a pixel often and the "
              "target rarely, θ is large and FLDA's weights fade there (Figure 6)."),
        page="pages/digits.py", figure="Figures 5 and 6", chart_key="dig_weights",
        controls=(Control("dig.direction", "direction (source → target)", ("A → B", "B → A")),
                  Control("dig.digit", "digit", ("0", "3", "8"))),
        question="Why does FLDA help in one direction but hardly in the other?",
        answer=("Dropout can only remove ink. Going from the frame-filling to the centred "
                "collection, border pixels vanish and θ is large there; in the other "
                "direction the target inks pixels the source rarely does, θ̂ is clipped to "
                "0 and FLDA reduces to the naive classifier."),
        settings={"dig.source": "offline", "dig.direction": "A → B", "dig.digit": "0",
                  "dig.loss": "logistic", "dig.l2_mode": "cv", "shared.seed": 0},
        equations=("theta_hat", "taylor_term")),
    LessonStep(
        slug="your-own-data",
        title="8 · Your own data",
        text=("Upload a source and a target CSV, or start from a sample pair. FLDA estimates "
              "which features go missing in the target and down-weights them; compare its "
              "target error with the naive classifier's."),
        page="pages/your_data.py", figure="Your data: θ per feature", chart_key="",
        controls=(Control("data.sample", "sample pair", ("poisson",)),
                  Control("data.l2", "ℓ2 penalty", (1e-3, 1e-2))),
        question="Which of your features does FLDA treat as dropped out, and would you "
                 "expect that from how the data were collected?",
        answer=("The features with the largest θ̂: those non-zero much less often in the "
                "target than in the source. If that matches a known cause (a sensor that "
                "fails, a word that is out of fashion) the dropout model fits; if features "
                "change their values rather than vanish, it does not."),
        settings={"data.sample": "poisson", "data.l2": 1e-3, "shared.seed": 0},
        equations=("theta_hat",)),
)

_BY_SLUG = {s.slug: s for s in LESSON_STEPS}


def step(slug):
    """The step with this slug (``KeyError`` lists the valid ones)."""
    try:
        return _BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"No lesson step {slug!r}; steps: {', '.join(_BY_SLUG)}.") from None


def step_index(slug):
    """Zero-based position of a step, or 0 for an unknown slug (a bad link opens step 1)."""
    return next((i for i, s in enumerate(LESSON_STEPS) if s.slug == slug), 0)


def url_value(value):
    """A setting's value as the pages write it to the URL (strings raw, others JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def settings_query(settings, present=False):
    """Query string (without ``?``) of ``settings``: key after the first dot -> URL value."""
    params = {key.split(".", 1)[-1]: url_value(value) for key, value in settings.items()}
    if present:
        params["present"] = "1"
    return urlencode(params, quote_via=quote)


def lesson_url(slug, present=False):
    """Shareable URL (relative to the app) of one lesson step."""
    step(slug)
    query = {STEP_PARAM: slug}
    if present:
        query["present"] = "1"
    return f"{LESSON_URL_PATH}?{urlencode(query, quote_via=quote)}"


def full_page_url(lesson_step, present=False):
    """URL (relative to the app) of the step's full page with the step's settings."""
    path = PAGE_URL_PATHS[lesson_step.page]
    return f"{path}?{settings_query(lesson_step.settings, present)}"
