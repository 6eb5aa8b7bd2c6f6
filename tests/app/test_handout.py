"""The lesson's two handouts (issue 34): the students' holds no answer, the lecturer's
answers and speaker notes; headings numbered once, absolute links, no "nan"."""

import dataclasses
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from explorer.teaching.handout import (
    MISSING,
    PAPER_SIZES,
    app_base_url,
    handout_html,
    step_heading,
)
from explorer.teaching.lesson import (
    DISCUSSION_MINUTES,
    JOIN_MINUTES,
    LECTURE_MINUTES,
    LESSON_STEPS,
    VOTE_MINUTES,
    SpeakerNotes,
    step_minutes,
)
from explorer.ui.lesson_views import View

REVEAL = "Revealed: FLDA-Q 0.303 beats S-LS 0.400 here"
NUMBER = ("FLDA-Q error", "0.30317")


def _fig(name):
    return go.Figure(go.Scatter(x=[0, 1], y=[1, 0], name=name))


def _pages(with_before=True, notes=True):
    pages = []
    for i, s in enumerate(LESSON_STEPS[:4]):
        s = dataclasses.replace(
            s,
            notes=SpeakerNotes(f"say-{i} <b>", f"ask-{i}", 4.5 + i) if notes else None,
        )
        view = View(
            fig=_fig(f"revealed-trace-{i}"),
            fig_before=_fig(f"before-trace-{i}") if with_before else None,
            caption=f"Caption-{i} with **bold** answer",
            numbers=[NUMBER, ("paper value", np.nan)],
            paper=f"*The paper:* quoted-{i}",
            correct=frozenset({1}),
            reveal=f"{REVEAL} ({i})",
            table=pd.DataFrame({"classifier": ["S-LS", "T-LS"], "paper": [0.4, np.nan]}),
            notes=[f"paper-note-{i}"],
        )
        pages.append((s, dict(s.settings), view))
    return pages


def _text(markup):
    """The text a reader sees: no tags, no figure JSON, no scripts."""
    markup = re.sub(r"<script.*?</script>", "", markup, flags=re.S)
    return re.sub(r"<[^>]+>", " ", markup)


def test_the_students_handout_holds_the_questions_and_no_answer():
    pages = _pages()
    students = handout_html(pages, "", "students")
    text = _text(students)
    for s, _, view in pages:
        assert s.question.replace("'", "&#x27;") in students
        for choice in s.choices:
            assert choice.replace("'", "&#x27;") in students
        # nothing that answers: no reveal, no Why, no numbers, caption, paper quote or notes
        for secret in (s.answer, view.reveal, view.caption.split("**")[0], view.paper, *view.notes):
            assert secret.split("*")[-1].strip()[:20] not in text, secret
        assert s.notes.say not in students and s.notes.ask not in students
    assert NUMBER[1] not in text and "right" not in re.findall(r"class='(\w+)'", students)
    # nor anywhere in the file (its source is readable too): no reveal, no revealed figure
    assert "Revealed:" not in students and "Caption-" not in students
    # one empty answer box per step, the before-Reveal figure only
    assert students.count("class='answerbox'") == len(pages)
    assert "before-trace-0" in students and "revealed-trace-0" not in students


def test_a_step_without_a_before_figure_prints_no_figure_for_students():
    students = handout_html(_pages(with_before=False), "", "students")
    assert "revealed-trace" not in students and "class='figure'" not in students
    assert students.count("class='nofigure'") == 4


def test_the_lecturers_handout_holds_answers_numbers_and_speaker_notes():
    pages = _pages()
    lecturer = handout_html(pages, "", "lecturer")
    for s, _, view in pages:
        assert s.answer.replace("'", "&#x27;") in lecturer
        assert view.reveal in lecturer
        assert f"say-{pages.index((s, _, view))} &lt;b&gt;" in lecturer  # escaped
        assert "revealed-trace" in lecturer and "before-trace" in lecturer
    assert NUMBER[1] in lecturer
    # the right choice is marked, once a step
    assert len(re.findall(r"<li class='right'>", lecturer)) == len(pages)
    # the plan: joining, then each step's talk (4.5 + 5.5 + 6.5 + 7.5) and two rounds of votes
    planned = JOIN_MINUTES + sum(step_minutes(s) for s, _, _ in pages)
    assert planned == JOIN_MINUTES + 24 + 4 * (2 * VOTE_MINUTES + DISCUSSION_MINUTES)
    assert f"Planned time: {planned:g} of {LECTURE_MINUTES} minutes" in lecturer


def test_the_lecturers_handout_says_which_steps_have_no_notes():
    lecturer = handout_html(_pages(notes=False), "", "lecturer")
    assert f"Planned time: {JOIN_MINUTES:g} of" in lecturer
    assert "4 of 4 steps have no speaker notes" in lecturer
    assert lecturer.count("No speaker notes for this step.") == 4


@pytest.mark.parametrize("audience", ["students", "lecturer"])
def test_no_nan_and_every_heading_numbered_once(audience):
    pages = _pages()
    markup = handout_html(pages, "", audience)
    assert not re.search(r"\bnan\b", _text(markup), flags=re.I)
    if audience == "lecturer":
        assert f"<td>{MISSING}</td>" in markup  # the missing paper value
    for number in range(1, len(pages) + 1):
        heading = re.search(rf"<h2>({number} · [^<]*)</h2>", markup).group(1)
        assert not re.match(r"\d+ · \d", heading), heading


def test_step_heading_keeps_one_number():
    assert step_heading(1, "1 · Domain shift") == "1 · Domain shift"
    assert step_heading(3, "Counts") == "3 · Counts"
    assert step_heading(2, "12. Twelve") == "2 · Twelve"


def test_links_are_absolute_and_carry_the_settings():
    pages = _pages()
    base = app_base_url("https://class.example:8501/app/lesson", "lesson")
    assert base == "https://class.example:8501/app/"
    markup = handout_html(pages, "", "students", base_url=base)
    for s, _, _ in pages:
        assert f"https://class.example:8501/app/lesson?step={s.slug}" in markup
    first_values = pages[0][1]
    full = re.findall(r"href='(https://class\.example:8501/app/synthetic\?[^']+)'", markup)[0]
    assert "theta=" in full and f"seed={first_values['shared.seed']}" in full
    # a relative handout only without an address
    assert app_base_url(None, "lesson") is None
    assert app_base_url("http://h:1/lesson?step=x", "lesson") == "http://h:1/"


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES))
def test_the_page_size_margins_and_page_numbers(paper):
    markup = handout_html(_pages(), "", "students", paper=paper)
    size, width, height = PAPER_SIZES[paper]
    assert f"size: {size};" in markup and f"width: {width};" in markup
    # a students' step fills the page less its margins (the answer box takes the rest)
    assert f"min-height: calc({height} - 3mm)" in markup
    assert "@bottom-center" in markup and "counter(page)" in markup
    with pytest.raises(ValueError):
        handout_html(_pages(), "", "students", paper="A5")
    with pytest.raises(ValueError):
        handout_html(_pages(), "", "everyone")


def test_user_text_is_escaped():
    s, values, view = _pages()[0]
    view.reveal = "<script>alert(1)</script>"
    values = {**values, "syn.theta": "<img src=x onerror=alert(1)>"}
    markup = handout_html([(s, values, view)], "", "lecturer")
    assert "<script>alert" not in markup and "<img src=x" not in markup


def test_the_lesson_page_offers_both_handouts_for_the_chosen_paper(monkeypatch):
    """The Lesson page's paper size and two downloads (steps stubbed: computing them is
    tested in test_page_lesson and the print test)."""
    from apptest_support import open_page

    from explorer.ui import lesson_slide, lesson_views

    made = []

    def quick(lesson_step, values, slide=False):
        made.append(lesson_step.slug)
        return View(reveal=f"reveal of {lesson_step.slug}", correct=frozenset({0}))

    # both names: lesson_slide imported step_view itself (patching only lesson_views left
    # the stub in lesson_slide for every later test when this test imported it first)
    monkeypatch.setattr(lesson_views, "step_view", quick)
    monkeypatch.setattr(lesson_slide, "step_view", quick)
    at = open_page("pages/lesson.py", {"step": LESSON_STEPS[0].slug})
    at.radio(key="lesson_handout_paper").set_value("Letter").run()
    made.clear()
    at.button(key="lesson_handout").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # every step computed once for both handouts (the page's own step once more: drawn)
    assert sorted(set(made)) == sorted(s.slug for s in LESSON_STEPS)
    assert all(made.count(s.slug) == 1 for s in LESSON_STEPS[1:])
    downloads = {d.proto.label: d for d in at.get("download_button")}
    assert {"Download the students' handout", "Download the lecturer's handout"} <= set(downloads)
    stored = at.session_state["lesson_handout_html"]
    assert stored["paper"] == "Letter"
    assert b"size: letter;" in stored["students"] and b"reveal of" not in stored["students"]
    assert b"reveal of domain-shift-as-dropout" in stored["lecturer"]
    # another paper size: the old files are not offered as if they were for it
    at.radio(key="lesson_handout_paper").set_value("A4").run()
    assert not [d for d in at.get("download_button") if "handout" in d.proto.label]
