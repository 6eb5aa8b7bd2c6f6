"""The lesson's steps are complete, and their keys and links match the pages."""

import json
import pathlib
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.teaching.equations import EQUATIONS
from explorer.url_state import encode_url_value
from explorer.teaching.lesson import (
    LESSON_STEPS,
    PAGE_URL_PATHS,
    full_page_url,
    lesson_url,
    settings_query,
    step,
    step_index,
)

ROOT = pathlib.Path(__file__).parents[2]
PREFIX = {
    "pages/synthetic.py": "syn",
    "pages/transfer.py": "tp",
    "pages/learning_curves.py": "lc",
    "pages/digits.py": "dig",
    "pages/your_data.py": "data",
    "pages/real_data.py": "real",
}
#: The UI modules whose helpers take a page's key prefix (``f"{prefix}.theta"``).
PREFIX_TAKERS = ("domain_controls.py", "widgets.py")
#: The UI modules that hold a page's own controls (their keys count as the page's).
PAGE_CONTROLS = {
    "pages/learning_curves.py": ("learning_curve_controls.py",),
    "pages/transfer.py": ("perturbation_controls.py",),
    "pages/your_data.py": ("your_data_controls.py", "your_data_files.py", "your_data_views.py"),
    "pages/digits.py": ("digits_data.py", "digits_views.py"),
}


def _key_patterns(page):
    """Regular expressions of every settings key the page (or a UI module for it) uses.

    Read from the source (pages run at import): literal keys ("syn.loss"),
    the Learning-curves prefix (P + "loss", f"{P}theta_f{d + 1}"), the shared
    domain settings (f"{prefix}.theta" in ``explorer.ui.domain_controls``), the transfer
    model (f"{prefix}.transfer" in ``explorer.ui.widgets``) and per-feature keys
    (f"tp.delta_{d}").
    """
    prefix = PREFIX[page]
    source = (ROOT / page).read_text(encoding="utf-8")
    if page in PAGE_CONTROLS:
        for name in PAGE_CONTROLS[page]:
            source += (ROOT / "explorer" / "ui" / name).read_text(encoding="utf-8")
    shared = "".join((ROOT / "explorer" / "ui" / name).read_text(encoding="utf-8") for name in PREFIX_TAKERS)
    literals = re.findall(r'f?"([^"\n]*)"', source)
    literals += [f"{{P}}{name}" for name in re.findall(r'P \+ "([a-z0-9_]+)"', source)]
    if f'"{prefix}"' in source:  # the page passes its prefix to the UI modules
        literals += re.findall(r'f"(\{prefix\}\.[a-z0-9_]+)"', shared)
    patterns = set()
    for text in literals:
        text = text.replace("{P}", "lc.").replace("{prefix}", prefix)
        if not text.startswith(prefix + "."):
            continue
        pattern = re.sub(r"\\\{[^}]*\\\}", r"\\d+", re.escape(text))
        patterns.add(pattern)
    return [re.compile(p + "$") for p in patterns]


def _valid_key(page, key):
    if key == "shared.seed":
        return True
    return any(p.match(key) for p in _key_patterns(page))


def test_the_lesson_follows_the_paper_in_twelve_steps():
    assert len(LESSON_STEPS) == 12
    assert any("disagrees" in s.title for s in LESSON_STEPS)
    slugs = [s.slug for s in LESSON_STEPS]
    assert len(set(slugs)) == len(slugs)
    figures = " ".join(s.figure for s in LESSON_STEPS)
    for figure in (
        "Figure 1",
        "Figure 2",
        "Figure 3",
        "Figure 4",
        "Figures 5",
        "Table 3",
        "Equations (1)-(3)",
    ):
        assert figure in figures
    # the assumption early (right after the transfer model), the recap last
    assert slugs.index("the-assumption") == 1 and slugs[-1] == "recap"


def test_the_plan_fits_a_ninety_minute_slot_with_joining_and_two_rounds():
    from explorer.teaching.lesson import JOIN_MINUTES, LECTURE_MINUTES, lecture_plan, step_minutes

    plan = lecture_plan(rounds=2)
    core = [(i, start, minutes) for i, start, minutes in plan if start is not None]
    end = core[-1][1] + core[-1][2]
    assert core[0][1] >= JOIN_MINUTES and LECTURE_MINUTES - 10 <= end <= LECTURE_MINUTES
    # each core step starts where the one before ends; its minutes hold its talk and rounds
    for (_, start, minutes), (_, following, _) in zip(core, core[1:]):
        assert following == pytest.approx(start + minutes)
    for s in LESSON_STEPS:
        assert step_minutes(s, 2) > step_minutes(s, 1) > s.notes.talk >= 2, s.slug
    # the first and last steps and the assumption are core; the optional ones fit the rest
    assert LESSON_STEPS[0].core and LESSON_STEPS[-1].core and step("the-assumption").core


def test_speaker_notes_hold_no_typed_number_and_fit_their_minutes():
    """Every number a note says is a field filled from the step as shown."""
    words_a_minute = 130
    for s in LESSON_STEPS:
        assert s.notes is not None, s.slug
        assert s.notes.say.strip() and s.notes.ask.strip().endswith("?"), s.slug
        for template in (s.notes.say, s.notes.ask):
            typed = re.sub(r"\{[a-z_0-9]+\}", "", template)
            # names, not numbers: "feature 1", the paper's "Figure 5", "Table 1", "Equation (3)", ℓ2
            typed = re.sub(r"(feature|Figures?|Tables?|Equations?) \(?\d+\)?|ℓ2", "", typed)
            assert not re.search(r"\d", typed), (s.slug, template)
        assert len((s.notes.say + " " + s.notes.ask).split()) <= words_a_minute * s.notes.talk, s.slug


def test_titles_name_the_topic_not_the_result():
    """Step 3's "FLDA-Q lands on the oracle" was the answer to its own question."""
    verdicts = ("lands", "beats", "wins", "lower", "better", "fails", "matches")
    for s in LESSON_STEPS:
        assert not any(word in s.title.lower() for word in verdicts), s.title
        assert not any(len(c) > 8 and c.lower() in s.title.lower() for c in s.choices), s.title


def test_step_one_does_not_state_the_scaling_its_question_asks_about():
    first = step("domain-shift-as-dropout")
    assert "1/(1 − θ" not in first.text and "scaled" not in first.text
    assert any("1/(1 − θ" in c for c in first.choices)


def test_choices_allow_too_close_to_call_where_a_winner_is_asked_for():
    from explorer.teaching.lesson import TOO_CLOSE

    for slug in ("naive-against-flda", "counts", "a-wrong-theta", "how-many-samples", "natural-data"):
        assert TOO_CLOSE in step(slug).choices, slug


@pytest.mark.parametrize("lesson_step", LESSON_STEPS, ids=lambda s: s.slug)
def test_every_step_is_complete(lesson_step):
    s = lesson_step
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s.slug)
    assert s.title and s.question.endswith("?") and s.answer.endswith(".")
    sentences = [x for x in re.split(r"(?<=[.!?])\s+(?=[A-Z])", s.text) if x]
    assert 2 <= len(sentences) <= 4, sentences
    assert s.page in PAGE_URL_PATHS and (ROOT / s.page).exists()
    # A step without a figure has no controls: a control must change what the step shows.
    assert (1 <= len(s.controls) <= 2) if s.chart_key else len(s.controls) <= 1
    assert 2 <= len(s.choices) <= 4 and len(set(s.choices)) == len(s.choices)
    for control in s.controls:
        assert control.label and control.try_values
        assert control.key in s.settings or control.key == "shared.seed"
        # The step starts at the first value worth trying.
        if control.key in s.settings:
            assert s.settings[control.key] == control.try_values[0]
    keys = {eq.key for eq in EQUATIONS}
    assert set(s.equations) <= keys


@pytest.mark.parametrize("lesson_step", LESSON_STEPS, ids=lambda s: s.slug)
def test_every_key_is_a_setting_of_the_steps_page(lesson_step):
    own = {c.key for c in lesson_step.controls if not c.page_setting}  # the lesson's alone
    for key in [
        k for k in list(lesson_step.settings) + [c.key for c in lesson_step.controls] if k not in own
    ]:
        assert _valid_key(lesson_step.page, key), (lesson_step.page, key)


@pytest.mark.parametrize("lesson_step", LESSON_STEPS, ids=lambda s: s.slug)
def test_the_figure_shown_is_a_chart_of_that_page(lesson_step):
    if lesson_step.chart_key:  # drawn by the page or by one of its UI modules
        sources = [ROOT / lesson_step.page, *sorted((ROOT / "explorer" / "ui").glob("*.py"))]
        assert any(f'"{lesson_step.chart_key}"' in p.read_text(encoding="utf-8") for p in sources)


def test_key_patterns_reject_what_the_page_does_not_have():
    assert _valid_key("pages/transfer.py", "tp.delta_3")
    assert _valid_key("pages/learning_curves.py", "lc.theta_f2")
    assert _valid_key("pages/synthetic.py", "syn.theta")
    assert not _valid_key("pages/synthetic.py", "syn.delta_1")
    assert not _valid_key("pages/synthetic.py", "tp.theta")
    assert not _valid_key("pages/learning_curves.py", "lc.nonsense")


@pytest.mark.parametrize("lesson_step", LESSON_STEPS, ids=lambda s: s.slug)
def test_full_page_link_carries_the_settings_as_the_pages_mirror_them(lesson_step):
    url = full_page_url(lesson_step)
    parts = urlsplit(url)
    assert parts.path == PAGE_URL_PATHS[lesson_step.page]
    query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    assert "present" not in query
    own = {c.key for c in lesson_step.controls if not c.page_setting}  # not the page's
    assert not {k.split(".", 1)[1] for k in own} & set(query)
    for key, value in lesson_step.settings.items():
        if key in own:
            continue
        raw = query[key.split(".", 1)[1]]
        decoded = raw if isinstance(value, str) else json.loads(raw)
        assert decoded == (list(value) if isinstance(value, tuple) else value)
    present = parse_qs(urlsplit(full_page_url(lesson_step, present=True)).query)
    assert present["present"] == ["1"]


def test_step_urls_and_lookup():
    first = LESSON_STEPS[0]
    assert lesson_url(first.slug) == f"lesson?step={first.slug}"
    assert lesson_url(first.slug, present=True).endswith("&present=1")
    assert step(first.slug) is first
    assert step_index(LESSON_STEPS[3].slug) == 3 and step_index("nope") == 0
    with pytest.raises(KeyError, match="steps:"):
        lesson_url("nope")


def test_url_values_match_write_to_url():
    assert encode_url_value("0.5, 0") == "0.5, 0"
    assert encode_url_value(True) == "true" and encode_url_value(0.0) == "0.0"
    assert encode_url_value((0.1, 0.2)) == "[0.1, 0.2]"
    assert settings_query({"syn.theta": "0.5, 0", "shared.seed": 3}) == "theta=0.5%2C%200&seed=3"


# ----------------------------------------------------------------------------- presentation mode
from explorer.presentation import with_present  # noqa: E402


def test_with_present_keeps_every_other_parameter_and_the_anchor():
    url = with_present("synthetic?theta=0.5%2C%200&seed=3#eq-theta-hat")
    parts = urlsplit(url)
    assert parse_qs(parts.query) == {"theta": ["0.5, 0"], "seed": ["3"], "present": ["1"]}
    assert parts.fragment == "eq-theta-hat"
    assert with_present(url) == url  # idempotent
    assert "present" not in with_present(url, present=False)
    assert with_present("lesson") == "lesson?present=1"
    for lesson_step in LESSON_STEPS:
        assert with_present(full_page_url(lesson_step)) == full_page_url(lesson_step, True)


def test_the_server_starts_the_lesson_with_every_step_computed(monkeypatch):
    """The server's warm-up (``lesson_views.warm_up``) computes each step's view at its
    starting values: after it no step fits or draws data again, so the lecturer's
    Reveal / Next / Back only draws.  Without it the first view of a step fits."""
    import importlib

    import streamlit as st
    from sklearn.linear_model import LogisticRegression

    from explorer.experiments import learning_curves
    from explorer.ui import lesson_views, serving
    from flda_core.classifier import FLDAClassifier

    for name in serving.project_modules():  # every import done before anything is patched
        importlib.import_module(name)

    def refuse(*args, **kwargs):
        raise AssertionError("computed again after the warm-up")

    def refusing():
        """Every fit, and the learning curves' data (their batched closed form fits
        without ``fit``), fail while this patch is on."""
        patch = pytest.MonkeyPatch()
        patch.setattr(FLDAClassifier, "fit", refuse)
        patch.setattr(LogisticRegression, "fit", refuse)
        patch.setattr(learning_curves, "make_learning_curve_data", refuse)
        return patch

    st.cache_data.clear()
    st.cache_resource.clear()
    patch = refusing()
    try:
        for slug in ("domain-shift-as-dropout", "how-many-samples"):
            lesson_step = step(slug)
            with pytest.raises(AssertionError, match="computed again"):
                lesson_views.step_view(lesson_step, lesson_step.start_values())
    finally:
        patch.undo()

    assert lesson_views.warm_up() == [s.slug for s in LESSON_STEPS]
    patch = refusing()
    try:
        for lesson_step in LESSON_STEPS:
            values = lesson_step.start_values()
            assert set(lesson_step.settings) <= set(values)
            assert all(
                values[c.key] == lesson_step.settings.get(c.key, c.try_values[0])
                for c in lesson_step.controls
            )
            view = lesson_views.step_view(lesson_step, values)
            assert not view.error, (lesson_step.slug, view.error)
    finally:
        patch.undo()
