"""The lesson's handouts printed by Chromium to PDF (issue 34): the students' holds no
answer and at most N + 2 pages for N steps, the lecturer's holds the answers and the
speaker notes, neither prints "nan", and no box overlaps another (figures against the
text around them, and every text inside a figure against the others: legends, axis
titles, colour bars, subplot titles).  Needs no Streamlit server: the handouts are
made by :func:`explorer.ui.lesson_views.handout_bytes` from every step's view and
opened as files; Poppler's ``pdfinfo`` / ``pdftotext`` read the PDFs."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import pytest

import e2e_harness as h

pytestmark = pytest.mark.e2e

#: Boxes of the page (CSS selectors) a figure must not overlap.
TEXT_BOXES = "h1, h2, h3, p, ul, table, .answerbox, .speaker, .small, .links, .nofigure"


def _squash(text):
    """Text without whitespace or soft hyphens (PDF text breaks lines anywhere)."""
    return re.sub(r"[\s\u00ad]+", "", text)


def _distinctive(text, length=40):
    """The first ``length`` characters of ``text``'s first sentence, markdown stripped."""
    plain = re.sub(r"[*_`\\]", "", text)
    return _squash(plain)[:length]


@pytest.fixture(scope="module")
def steps_and_views():
    """Every lesson step (each has speaker notes) and its view at its starting values."""
    from explorer.teaching.lesson import LESSON_STEPS
    from explorer.ui.lesson_views import step_view

    steps = list(LESSON_STEPS)
    assert all(s.notes is not None for s in steps)
    return [(s, s.start_values(), step_view(s, s.start_values(), slide=True)) for s in steps]


def _handout(pages, audience, paper="A4"):
    from explorer.teaching.handout import handout_html
    from explorer.ui.chart import PLOTLY_BUNDLE

    return handout_html(
        pages, PLOTLY_BUNDLE.read_text(encoding="utf-8"), audience, paper, "http://class.example:8501/"
    )


def _print(chromium, markup, tmp_path, name, paper="A4"):
    """Open ``markup`` in Chromium, check its boxes, print it; ``(pages, text)``."""
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        pytest.skip("needs poppler-utils (pdfinfo, pdftotext): apt-get install poppler-utils")
    source = tmp_path / f"{name}.html"
    source.write_text(markup, encoding="utf-8")
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.emulate_media(media="print")
        page.goto(source.as_uri())
        page.wait_for_function("document.body.hasAttribute('data-figures-drawn')", timeout=60_000)
        assert not errors, errors
        _assert_no_overlaps(page, name)
        pdf = tmp_path / f"{name}.pdf"
        page.pdf(path=str(pdf), format=paper, prefer_css_page_size=True, print_background=True)
    finally:
        context.close()
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True)
    return pages, text.stdout


def _assert_no_overlaps(page, name):
    layout = page.evaluate(
        """(textSel) => {
            const box = e => { const r = e.getBoundingClientRect();
                               return [r.left, r.top, r.right, r.bottom]; };
            const figures = Array.from(document.querySelectorAll('.figbox')).map(f => {
                const texts = [];
                for (const t of f.querySelectorAll('.main-svg text')) {
                    if (!t.textContent.trim() || t.closest('.hoverlayer')) continue;
                    const r = t.getBoundingClientRect();
                    if (r.width < 1 || r.height < 1) continue;
                    const group = t.closest('g[class]');
                    texts.push({text: t.textContent.trim().slice(0, 60),
                                kind: [t.getAttribute('class'), group && group.getAttribute('class')]
                                      .filter(Boolean).join(' '), box: box(t)});
                }
                const svg = f.querySelector('.main-svg');
                return {key: f.firstElementChild.id, box: box(f), svg: svg ? box(svg) : null, texts};
            });
            const others = Array.from(document.querySelectorAll(textSel))
                .filter(e => !e.closest('.figbox'))
                .map(e => ({tag: e.tagName + '.' + e.className, text: e.textContent.slice(0, 40),
                            box: box(e)}));
            const clipped = Array.from(document.querySelectorAll('header, section'))
                .filter(e => getComputedStyle(e).overflow === 'hidden'
                             && e.scrollHeight > e.clientHeight + 1)
                .map(e => e.tagName + ' ' + e.textContent.slice(0, 40));
            return {figures, others, clipped};
        }""",
        TEXT_BOXES,
    )
    assert layout["figures"] or name.startswith("students-as-is"), name
    assert not layout["clipped"], (name, layout["clipped"])  # no text cut off
    for figure in layout["figures"]:
        assert figure["svg"] is not None and len(figure["texts"]) >= 3, (name, figure["key"])
        # every text of the figure apart from the others and inside the drawing
        overlaps = h.text_overlaps(figure)
        assert not overlaps, (name, figure["key"], overlaps[:6])
        left, top, right, bottom = figure["box"]
        assert figure["svg"][3] <= bottom + 1 and figure["svg"][2] <= right + 1, (name, figure["key"])
        for other in layout["others"]:
            x0, y0, x1, y1 = other["box"]
            dx, dy = min(right, x1) - max(left, x0), min(bottom, y1) - max(top, y0)
            assert not (dx > 1 and dy > 1), (name, figure["key"], other)


def test_the_students_handout_holds_no_answer_and_one_page_a_step(chromium, steps_and_views, tmp_path):
    from explorer.teaching.lesson import JOIN_MINUTES, LECTURE_MINUTES, notes_text, step_minutes

    lecturer_pages, lecturer_text = _print(
        chromium, _handout(steps_and_views, "lecturer"), tmp_path, "lecturer"
    )
    lecturer_squashed = _squash(lecturer_text)
    n = len(steps_and_views)
    # the worst case for the page count: a figure before Reveal on every step
    with_figures = [
        (s, v, dataclasses.replace(view, fig_before=view.fig_before or view.fig))
        for s, v, view in steps_and_views
    ]
    for name, pages in (("students-as-is", steps_and_views), ("students-with-figures", with_figures)):
        for paper in ("A4", "Letter"):
            count, text = _print(
                chromium, _handout(pages, "students", paper), tmp_path, f"{name}-{paper}", paper
            )
            assert count <= n + 2, (name, paper, count)
            assert not re.search(r"\bnan\b", text, re.I), name
            squashed = _squash(text)
            for lesson_step, _, view in steps_and_views:
                assert _squash(lesson_step.question)[:40] in squashed, lesson_step.slug
                say, ask = notes_text(lesson_step, lesson_step.start_values(), view.facts)
                secrets = [lesson_step.answer, view.reveal, say, ask]
                for secret in filter(None, secrets):
                    phrase = _distinctive(secret)
                    # the phrase is in the lecturer's PDF: the check can see it
                    assert phrase in lecturer_squashed, (lesson_step.slug, phrase)
                    assert phrase not in squashed, (name, lesson_step.slug, phrase)
    assert lecturer_pages >= n  # answers, numbers and notes for every step
    assert not re.search(r"\bnan\b", lecturer_text, re.I)
    planned = JOIN_MINUTES + sum(step_minutes(s) for s, _, _ in steps_and_views if s.core)
    assert f"Planned time: {planned:g} of {LECTURE_MINUTES} minutes" in lecturer_text
    # absolute links carrying the settings
    assert "http://class.example:8501/lesson?step=" in lecturer_text
