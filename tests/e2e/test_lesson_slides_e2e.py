"""The Lesson as a projected lecture (issue 25, "Done when"): in presentation mode, at
1920 x 1080 and 1280 x 720, the whole lesson is walked with the keyboard only (what a
presenter's clicker sends), and every step is inside the viewport, in projector-sized
text, with no number that the full page opened with the step's settings does not show;
the handout names every step."""

from __future__ import annotations

import re

import pytest

import e2e_harness as h
from explorer.teaching.lesson import LESSON_STEPS

pytestmark = pytest.mark.e2e

SCREENS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
SLIDE = ".st-key-lesson_slide"
#: Issue 25's floors (CSS px): body text, the step's key numbers, chart tick labels.
BODY_PX, NUMBER_PX, TICK_PX = 24, 28, 20
#: Next keys of a clicker, used in turn; Back keys.
NEXT_KEYS = ("ArrowRight", "PageDown", "Space")


def _slide(page):
    """Where the slide is, whether the page scrolled, and the sizes and colours of its text."""
    return page.evaluate(
        """(sel) => {
        const slide = document.querySelector(sel);
        const box = slide.getBoundingClientRect();
        const visible = (e) => e.getClientRects().length && getComputedStyle(e).visibility
            !== 'hidden' && !e.closest('details:not([open]) > :not(summary)');
        const texts = [];
        const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const node = walker.currentNode, el = node.parentElement;
            if (!node.textContent.trim() || !visible(el)
                || el.closest('svg, [data-testid=fldaChart], [aria-hidden=true]')) continue;
            const style = getComputedStyle(el);
            let back = el, fill = 'rgba(0, 0, 0, 0)';
            while (back && (fill = getComputedStyle(back).backgroundColor).endsWith(', 0)'))
                back = back.parentElement;
            texts.push([node.textContent.trim().slice(0, 40), parseFloat(style.fontSize),
                        style.color, back ? fill : null]);
        }
        const chart = [...slide.querySelectorAll('.xtick text, .ytick text, .legendtext')]
            .map(t => parseFloat(getComputedStyle(t).fontSize));
        const numbers = [...slide.querySelectorAll('[data-testid=stMetricValue]')]
            .map(e => [e.innerText.trim(),
                       parseFloat(getComputedStyle(e.querySelector('*') || e).fontSize)]);
        const scroller = document.querySelector('[data-testid=stMain]');
        return {top: box.top, bottom: box.bottom, right: box.right, width: innerWidth,
                height: innerHeight, scrolled: scrollY + (scroller ? scroller.scrollTop : 0),
                texts, chart, numbers,
                background: getComputedStyle(
                    document.querySelector('[data-testid=stApp]')).backgroundColor};
    }""",
        SLIDE,
    )


def _numbers_in(text):
    """The numbers of a shown value (shares in % are the step's own arithmetic)."""
    return re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?(?![\d%])", text)


def _page_text(page):
    return page.evaluate("() => document.querySelector('[data-testid=stMain]').textContent")


def _check_slide(page, where):
    s = _slide(page)
    assert s["scrolled"] == 0, (where, "the page scrolled")
    assert s["top"] >= 0 and s["bottom"] <= s["height"] + 1 and s["right"] <= s["width"] + 1, (
        where,
        "outside the viewport",
        s["top"],
        s["bottom"],
        s["height"],
    )
    small = [(t, size) for t, size, _, _ in s["texts"] if size < BODY_PX]
    assert not small, (where, small[:5])
    faint = [
        (t, color, back)
        for t, _, color, back in s["texts"]
        if h.contrast(color, back or s["background"]) < 4.5
    ]
    assert not faint, (where, faint[:5])
    assert all(size >= TICK_PX for size in s["chart"]), (where, sorted(s["chart"])[:3])
    assert all(size >= NUMBER_PX for _, size in s["numbers"]), (where, s["numbers"])
    # titles, axis titles, tick labels, legend entries, colour-bar labels: none touch
    h.assert_no_text_overlaps(page, where, root=SLIDE)
    return s


def _full_page_numbers_agree(chromium, base_url, href, numbers, slug):
    """Every number the step revealed (not the paper's) is shown by the full page."""
    context = h.new_context(chromium)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{base_url}/{href}")
        assert not h.error_texts(page), slug
        if slug == "where-the-paper-disagrees":  # the notes are computed on request
            page.locator("summary").filter(has_text="Notes on the paper").first.click()
            button = (
                page.locator('[data-testid="stButton"] button').filter(has_text="Compute the notes").first
            )
            button.wait_for(state="visible")
            try:
                h.act(page, tracker, button.click)
            except TimeoutError:
                # A click while the expander still grows can land beside the moving button
                # (seen once in CI: no rerun requested); the button must work the second time.
                h.act(page, tracker, button.click)
        grids = page.locator('[data-testid="stDataFrame"]')
        for i in range(grids.count()):  # a data grid fills its cells once seen
            grids.nth(i).scroll_into_view_if_needed()
            page.wait_for_timeout(200)
        shown = {float(v.replace(",", "")) for v in _numbers_in(_page_text(page))}
        values = [v for value in numbers for v in _numbers_in(value)]
        # the page may print more decimals (0.1416 where the step says 0.142)
        missing = [
            v for v in values if not any(abs(float(v.replace(",", "")) - x) <= 5e-4 + 1e-9 for x in shown)
        ]
        # the θ step shows θ̂ of every feature, the page's caption the worst one (its θ table
        # is drawn on a canvas); the learning-curve step the means at the n it asks about,
        # which the page has in its data grid (a canvas too), and its caption's n; the
        # natural-data step the Real data page's Table 3 cells (a data grid as well)
        if slug in ("estimating-theta", "how-many-samples", "natural-data"):
            assert len(missing) < len(values), (slug, values)
        else:
            assert not missing, (slug, missing, numbers)
    finally:
        context.close()


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_lesson_is_a_keyboard_driven_slide_show(streamlit_server, chromium, screen, screenshot_dir):
    context, page, tracker = h.screen_page(chromium, screen, f"{streamlit_server.url}/lesson?present=1")
    try:
        presses = 0
        for i, lesson_step in enumerate(LESSON_STEPS):
            where = f"{lesson_step.slug} at {screen['width']}x{screen['height']}"
            assert h.query(page).get("step") == lesson_step.slug, where
            heading = page.locator(f"{SLIDE} h2").first.inner_text().strip()
            assert heading.startswith(lesson_step.title), (where, heading)
            assert not h.error_texts(page), where
            _check_slide(page, where)
            # the clicker's first press reveals the answer, on the same slide
            key = NEXT_KEYS[presses % len(NEXT_KEYS)]
            presses += 1
            h.act(page, tracker, lambda key=key: page.keyboard.press(key))
            assert h.query(page).get("step") == lesson_step.slug, (where, key)
            revealed = _check_slide(page, where + " (revealed)")
            page.screenshot(path=str(screenshot_dir / f"lesson-{lesson_step.slug}-{screen['width']}.png"))
            ours = [value for value, _ in revealed["numbers"]]
            link = page.locator("a").filter(has_text="Open the full page with these settings")
            if ours and screen["width"] == 1920:  # one comparison per step is enough
                _full_page_numbers_agree(
                    chromium, streamlit_server.url, link.first.get_attribute("href"), ours, lesson_step.slug
                )
            if i < len(LESSON_STEPS) - 1:
                key = NEXT_KEYS[presses % len(NEXT_KEYS)]
                presses += 1
                h.act(page, tracker, lambda key=key: page.keyboard.press(key))
        # back with the other keys of a clicker
        for key in ("ArrowLeft", "PageUp"):
            h.act(page, tracker, lambda key=key: page.keyboard.press(key))
        assert h.query(page).get("step") == LESSON_STEPS[-3].slug
        _check_slide(page, "after Back")
        # the handout, by keyboard too: every step named
        page.locator('[data-testid="stButton"] button').filter(has_text="Prepare the handout").first.focus()
        h.act(page, tracker, lambda: page.keyboard.press("Enter"))
        download = (
            page.locator('[data-testid="stDownloadButton"] button')
            .filter(has_text="Download the handout")
            .first
        )
        download.focus()
        with page.expect_download() as info:
            page.keyboard.press("Enter")
        with open(info.value.path(), encoding="utf-8") as handout:
            html = handout.read()
        for lesson_step in LESSON_STEPS:
            assert lesson_step.title.replace("'", "&#x27;") in html, lesson_step.title
        assert "Plotly.newPlot" in html and "class='figure'" in html
    finally:
        context.close()
