"""AppTest runs of the Lesson page (issue 12): every step, Back/Next, step URLs, links."""

import pytest
import streamlit as st
from apptest_support import chart_specs, open_page

from explorer.experiments import digits as ed
from explorer.teaching.lesson import LESSON_STEPS, full_page_url

PAGE = "pages/lesson.py"


def _step_of(at):
    value = at.query_params.get("step")
    return value[0] if isinstance(value, list) else value


@pytest.mark.parametrize("lesson_step", [s for s in LESSON_STEPS if s.slug != "where-ink-vanishes"],
                         ids=lambda s: s.slug)
def test_every_step_opens_from_its_url(lesson_step):
    at = open_page(PAGE, {"step": lesson_step.slug})
    assert at.header[0].value == lesson_step.title
    assert _step_of(at) == lesson_step.slug
    markdown = " ".join(m.value for m in at.markdown)
    assert lesson_step.question in markdown
    assert full_page_url(lesson_step) in markdown
    assert any(e.label == "Show the answer" for e in at.expander)
    if lesson_step.chart_key:
        assert "lesson_chart" in chart_specs(at)
    for control in lesson_step.controls:            # the controls that matter, live
        widget = at.radio(key="lesson_ctl_" + control.key.replace(".", "_"))
        assert widget.value == lesson_step.settings.get(control.key, control.try_values[0])


def test_next_and_back_walk_through_the_steps():
    at = open_page(PAGE)
    assert _step_of(at) == LESSON_STEPS[0].slug
    at.button(key="lesson_next").click().run()
    assert _step_of(at) == LESSON_STEPS[1].slug and at.header[0].value == LESSON_STEPS[1].title
    at.button(key="lesson_next").click().run()
    assert _step_of(at) == LESSON_STEPS[2].slug
    at.button(key="lesson_back").click().run()
    assert _step_of(at) == LESSON_STEPS[1].slug
    assert not at.exception


def test_a_control_changes_the_figure_and_its_caption():
    at = open_page(PAGE, {"step": "domain-shift-as-dropout"})
    assert "θ₁ = 0.5" in at.caption[0].value
    at.radio(key="lesson_ctl_syn_theta").set_value("0.8, 0").run()
    assert at.session_state["syn.theta"] == "0.8, 0"
    assert "θ₁ = 0.8" in at.caption[0].value and "θ₁ = 0.5" not in at.caption[0].value


def test_an_unknown_step_opens_step_one_with_a_note():
    at = open_page(PAGE, {"step": "no-such-step"})
    assert at.header[0].value == LESSON_STEPS[0].title
    assert any("no lesson step" in w.value for w in at.warning)


@pytest.mark.slow
def test_digits_step_shows_figure_six_with_the_digits_pages_stored_fits(tmp_path, monkeypatch):
    """Step 7 fits what the Digits page shows by default (Table 4, l2 by cross-validation)
    and keeps the fits in that page's disk store, under the keys the page and the
    server's start-up warm-up use: each reads what the other fitted."""
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    st.cache_data.clear()  # the step's fits must not come from an earlier test's run
    at = open_page(PAGE, {"step": "where-ink-vanishes"}, timeout=600)
    assert "lesson_chart" in chart_specs(at)
    assert "Figure 6" in at.caption[0].value

    def no_fit(*args, **kwargs):
        raise AssertionError(f"fitted again: {args[4]}")

    monkeypatch.setattr(ed, "fit_method", no_fit)
    shown = ed.precompute(seed=0)  # the Digits page's defaults, from the store alone
    assert set(shown) == {(d, m) for d in ed.DIRECTIONS for m in ed.TABLE_CLASSIFIERS}
