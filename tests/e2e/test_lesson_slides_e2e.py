"""The Lesson as a projected lecture (issues 25 and 34, "Done when"): in presentation mode,
at 1920 x 1080 and 1280 x 720, the whole lesson is walked with a presenter's keys only,
and on every other step after a mouse click on a control (the keys are the document's: a
focused radio never takes →).  On every step the slide is all there is (nothing below the
viewport, no link, handout or equations), its type is a share of the viewport's height
(body >= 3 %, key numbers >= 5 %, chart ticks and legends >= 2.2 %, the settings line
>= 1.8 %), no panel is under a quarter of the figure, the counter says where the class is,
and every number the step reveals is one its full page shows.  Then every key does its
thing: Home / End, a number and Enter, the overview, the black-out, "Why" and "All
numbers" as overlays inside the viewport, reset, high contrast (>= 7:1), the list of keys
and the end slide.  The walk times each step change (median and 95th percentile)."""

from __future__ import annotations

import json
import re
import statistics
import time

import pytest

import e2e_harness as h
from explorer.teaching.lesson import LESSON_STEPS

pytestmark = pytest.mark.e2e

SCREENS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
SLIDE = ".st-key-lesson_slide"
#: Issue 34's floors, as shares of the viewport's height.
BODY, NUMBER, TICK, SETTINGS = 0.03, 0.05, 0.022, 0.018
#: Next keys of a clicker and a keyboard, used in turn.
NEXT_KEYS = ("ArrowRight", "PageDown", "Space", "n")
N = len(LESSON_STEPS)

_SLIDE_JS = """(sel) => {
    const slide = document.querySelector(sel);
    const box = slide.getBoundingClientRect();
    const shown = (e) => {
        if (!e.getClientRects().length) return false;
        for (let a = e; a; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
        }
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && !e.closest('[style*="clip"], .st-key-lesson_title');
    };
    const SKIP = 'svg, .flda-slide-layers, [data-testid=stIconMaterial], [aria-hidden=true]';
    const texts = [];
    let lowest = 0;
    const walker = document.createTreeWalker(document.querySelector('[data-testid=stMain]'),
                                             NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode, el = node.parentElement;
        if (!node.textContent.trim() || !shown(el) || el.closest(SKIP)) continue;
        const style = getComputedStyle(el);
        let back = el, fill = 'rgba(0, 0, 0, 0)';
        while (back && /^rgba\\(.*, 0\\)$/.test(fill = getComputedStyle(back).backgroundColor))
            back = back.parentElement;
        const r = el.getBoundingClientRect();
        lowest = Math.max(lowest, r.bottom);
        texts.push([node.textContent.trim().slice(0, 40), parseFloat(style.fontSize),
                    style.color, back ? fill : null, !!el.closest(sel)]);
    }
    for (const e of slide.querySelectorAll('*'))
        if (shown(e)) lowest = Math.max(lowest, e.getBoundingClientRect().bottom);
    const links = [...document.querySelectorAll('[data-testid=stMain] a[href]')].filter(shown)
        .map(a => a.textContent.trim()).filter(Boolean);
    const numbers = [...slide.querySelectorAll('[data-testid=stMetricValue]')].filter(shown)
        .map(e => [e.innerText.trim(), parseFloat(getComputedStyle(e.querySelector('*') || e).fontSize)]);
    const plots = [...slide.querySelectorAll('.js-plotly-plot')].filter(shown).map(gd => {
        const L = gd._fullLayout;
        const axes = Object.keys(L).filter(k => /^[xy]axis\\d*$/.test(k) && L[k] && L[k].tickfont
            && L[k].visible !== false && L[k].showticklabels !== false);
        const panels = [...gd.querySelectorAll('.nsewdrag')].map(d => +d.getAttribute('height'));
        const bars = Object.keys(L).filter(k => /^coloraxis\\d*$/.test(k) && L[k].colorbar)
            .map(k => L[k].colorbar.tickfont.size);
        return {ticks: axes.map(k => L[k].tickfont.size).concat(bars),
                legend: L.showlegend ? L.legend.font.size : null,
                settings: (L.meta && L.meta.settings) ? L.meta.settings.size : null,
                height: gd.getBoundingClientRect().height, panels};
    });
    const counter = document.querySelector('.st-key-lesson_counter');
    const scroller = document.querySelector('[data-testid=stMain]');
    return {top: box.top, bottom: lowest, right: box.right, width: innerWidth, height: innerHeight,
            docHeight: document.documentElement.scrollHeight,
            scrolled: scrollY + (scroller ? scroller.scrollTop : 0),
            texts, links, numbers, plots, counter: counter ? counter.innerText.trim() : null,
            downloads: document.querySelectorAll('[data-testid=stDownloadButton]').length,
            equations: [...document.querySelectorAll('[data-testid=stMain] h2, [data-testid=stMain] h1')]
                .filter(shown).map(e => e.textContent.trim()).filter(t => /equation/i.test(t)),
            background: getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor};
}"""


def _slide(page):
    return page.evaluate(_SLIDE_JS, SLIDE)


def _check_slide(page, where, counter, min_contrast=4.5):
    """The projected screen holds the slide and nothing else, in projector type."""
    s = _slide(page)
    height = s["height"]
    assert s["scrolled"] == 0 and s["docHeight"] <= height, (where, "the page scrolls")
    assert s["top"] >= 0 and s["bottom"] <= height + 1 and s["right"] <= s["width"] + 1, (
        where,
        "outside the viewport",
        s["bottom"],
        height,
    )
    assert s["counter"] == counter, (where, s["counter"])
    assert not s["links"] and not s["downloads"] and not s["equations"], (where, s["links"], s["equations"])
    outside = [t for t, *_, inside in s["texts"] if not inside]
    assert not outside, (where, "text outside the slide", outside[:5])
    small = [(t, size) for t, size, *_ in s["texts"] if size < BODY * height - 0.01]
    assert not small, (where, small[:5])
    faint = [
        (t, color, back)
        for t, _, color, back, _ in s["texts"]
        if h.contrast(color, back or s["background"]) < min_contrast
    ]
    assert not faint, (where, faint[:5])
    assert all(size >= NUMBER * height for _, size in s["numbers"]), (where, s["numbers"])
    for plot in s["plots"]:
        assert plot["ticks"] and min(plot["ticks"]) >= TICK * height, (where, plot["ticks"])
        assert plot["legend"] is None or plot["legend"] >= TICK * height, (where, plot["legend"])
        assert plot["settings"] is None or plot["settings"] >= SETTINGS * height, (where, plot["settings"])
        assert all(p >= plot["height"] / 4 for p in plot["panels"]), (where, plot["panels"], plot["height"])
    # titles, axis titles, tick labels, legend entries, colour-bar labels: none touch
    if s["plots"]:
        h.assert_no_text_overlaps(page, where, root=SLIDE)
    return s


def _numbers_in(text):
    """The numbers of a shown value (shares in % are the step's own arithmetic)."""
    return re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?(?![\d%])", text)


def _page_text(page):
    return page.evaluate("() => document.querySelector('[data-testid=stMain]').textContent")


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


def _press(page, tracker, key):
    h.act(page, tracker, lambda: page.keyboard.press(key))


def _tap(page, key):
    """A key the browser alone answers (no run)."""
    page.keyboard.press(key)
    page.wait_for_timeout(150)


def _layer(page):
    return page.evaluate("() => document.documentElement.dataset.fldaSlide || ''")


def _inside(page, selector):
    """Whether the element is shown whole inside the viewport, on top (its centre is
    its own)."""
    box = page.evaluate(
        """(sel) => { const e = document.querySelector(sel); if (!e) return null;
            const r = e.getBoundingClientRect(), s = getComputedStyle(e);
            return {top: r.top, left: r.left, bottom: r.bottom, right: r.right,
                    shown: s.display !== 'none' && r.height > 0,
                    at: !!document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)
                        ?.closest(sel)};
        }""",
        selector,
    )
    size = page.viewport_size
    return (
        box
        and box["shown"]
        and box["at"]
        and box["top"] >= 0
        and box["left"] >= 0
        and (box["bottom"] <= size["height"] + 1 and box["right"] <= size["width"] + 1)
    )


def _focus_a_control(page, where):
    """Click the chosen option of the step's first control (nothing changes, the radio
    has the focus): what a lecturer does with the mouse before reaching for the clicker."""
    chosen = page.locator(f"{SLIDE} [data-testid=stRadio] label:has(input:checked)")
    if not chosen.count():  # no control on this step (the prediction is still unanswered)
        return None
    label = chosen.first
    label.click()
    page.wait_for_timeout(200)
    focused = page.evaluate("() => document.activeElement && document.activeElement.type")
    assert focused == "radio", (where, focused)
    return label.inner_text()


def _checked_controls(page):
    return page.locator(f"{SLIDE} [data-testid=stRadio] label:has(input:checked)").all_inner_texts()


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_lesson_is_a_keyboard_driven_slide_show(streamlit_server, chromium, screen, screenshot_dir):
    size = f"{screen['width']}x{screen['height']}"
    context, page, tracker = h.screen_page(chromium, screen, f"{streamlit_server.url}/lesson?present=1")
    shots = lambda name: page.screenshot(path=str(screenshot_dir / f"slides-{size}-{name}.png"))
    step_times = []
    try:
        page.locator(".st-key-lesson_next button").first.wait_for(state="visible")
        presses = 0
        for i, lesson_step in enumerate(LESSON_STEPS):
            where = f"{lesson_step.slug} at {size}"
            assert h.query(page).get("step") == lesson_step.slug, where
            heading = page.locator(f"{SLIDE} h2").first.inner_text().strip()
            assert heading.startswith(lesson_step.title), (where, heading)
            assert not h.error_texts(page), where
            _check_slide(page, where, f"{i + 1} / {N}")
            if i in (0, 2, 5):
                shots(f"{i + 1}-before")
            clicked = _focus_a_control(page, where) if i % 2 else None
            controls = _checked_controls(page)
            # the first press reveals the answer, on the same slide, whatever has the focus
            key = NEXT_KEYS[presses % len(NEXT_KEYS)]
            presses += 1
            _press(page, tracker, key)
            assert h.query(page).get("step") == lesson_step.slug, (where, key)
            assert page.locator(".st-key-lesson_next button").first.inner_text().startswith("Next"), (
                where,
                key,
            )
            if clicked is not None:  # the focused radio kept its value
                assert _checked_controls(page)[: len(controls)] == controls, (where, clicked)
            revealed = _check_slide(page, where + " (revealed)", f"{i + 1} / {N}")
            shots(f"{i + 1}-revealed")
            ours = [value for value, _ in revealed["numbers"]]
            if ours and screen["width"] == 1920:  # one comparison per step is enough
                href = page.locator(".st-key-lesson_numbers a").filter(has_text="Open the full page")
                _full_page_numbers_agree(
                    chromium, streamlit_server.url, href.first.get_attribute("href"), ours, lesson_step.slug
                )
            key = NEXT_KEYS[presses % len(NEXT_KEYS)]
            presses += 1
            start = time.perf_counter()
            _press(page, tracker, key)
            step_times.append(time.perf_counter() - start)
        # the end slide, then every key
        assert h.query(page).get("step") == "end"
        _check_slide(page, "the end slide", f"end / {N}")
        shots("end")
        _press(page, tracker, "ArrowLeft")
        assert h.query(page).get("step") == LESSON_STEPS[-1].slug
        _press(page, tracker, "Home")
        assert h.query(page).get("step") == LESSON_STEPS[0].slug
        _press(page, tracker, "End")
        assert h.query(page).get("step") == LESSON_STEPS[-1].slug
        _press(page, tracker, "PageUp")
        _press(page, tracker, "p")
        assert h.query(page).get("step") == LESSON_STEPS[-3].slug
        _tap(page, "3")
        assert "3" in page.locator(".flda-slide-jump").inner_text()
        _press(page, tracker, "Enter")
        assert h.query(page).get("step") == LESSON_STEPS[2].slug
        _check_slide(page, "after a jump", f"3 / {N}")
        # the overview: a grid of every title, opened by O, closed by Esc, a click opens a step
        _tap(page, "o")
        assert _layer(page) == "overview" and _inside(page, ".flda-slide-overview")
        tiles = page.locator(".flda-slide-grid button")
        assert tiles.count() == N
        assert tiles.nth(2).get_attribute("aria-current") == "step"
        shots("overview")
        _tap(page, "Escape")
        assert _layer(page) == ""
        _tap(page, "O")
        h.act(page, tracker, lambda: tiles.nth(N - 2).click())
        assert h.query(page).get("step") == LESSON_STEPS[N - 2].slug and _layer(page) == ""
        # black-out: B and . both
        for key in ("b", "."):
            _tap(page, key)
            assert _layer(page) == "black" and _inside(page, ".flda-slide-black"), key
            _tap(page, key)
            assert _layer(page) == "", key
        _tap(page, "B")
        shots("black")
        _tap(page, "B")
        # W and A: nothing before Reveal (R hides the answer the walk revealed), overlays
        # that fit the screen after it
        _press(page, tracker, "R")
        assert page.locator(".st-key-lesson_next button").first.inner_text().startswith("Reveal")
        _tap(page, "w")
        assert _layer(page) == ""
        _press(page, tracker, "ArrowRight")
        for key, selector, name in (
            ("w", ".st-key-lesson_why", "why"),
            ("a", ".st-key-lesson_numbers", "numbers"),
        ):
            _tap(page, key)
            assert _layer(page) == name and _inside(page, selector), (key, size)
            overflow = page.evaluate(
                "(s) => { const e = document.querySelector(s); return e.scrollHeight - e.clientHeight; }",
                selector,
            )
            assert overflow <= 2, (name, size, overflow)  # nothing hidden below its edge
            shots(name)
            _tap(page, "Escape")
            assert _layer(page) == ""
        # R: the step as it started (controls back, answer hidden)
        radios = page.locator(f"{SLIDE} [data-testid=stRadio]")
        start = _checked_controls(page)
        changed = None
        if radios.count() > 1:
            unchecked = radios.nth(1).locator("[role=radiogroup] label:not(:has(input:checked))").first
            changed = unchecked.inner_text()
            h.act(page, tracker, unchecked.click)
            assert changed in _checked_controls(page)
        _press(page, tracker, "r")
        assert page.locator(".st-key-lesson_next button").first.inner_text().startswith("Reveal")
        assert [c for c in _checked_controls(page) if " ✓" not in c] == [c for c in start if " ✓" not in c]
        # ?: the list of keys
        _tap(page, "?")
        assert _layer(page) == "help" and _inside(page, ".flda-slide-help")
        assert page.locator(".flda-slide-help tr").count() >= 12
        shots("help")
        _tap(page, "Escape")
        # H: high contrast, every text >= 7:1, the figure too; H again ends it
        _press(page, tracker, "h")
        assert h.query(page).get("contrast") == "high"
        _check_slide(page, "high contrast", f"{N - 1} / {N}", min_contrast=7)
        _press(page, tracker, "ArrowRight")
        s = _check_slide(page, "high contrast (revealed)", f"{N - 1} / {N}", min_contrast=7)
        primary = page.evaluate(
            """() => { const b = document.querySelector('.st-key-lesson_next button');
                const s = getComputedStyle(b); return [s.color, s.backgroundColor]; }"""
        )
        assert h.contrast(*primary) >= 7, primary
        for plot in page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].map(g => [g._fullLayout.paper_bgcolor,"
            " g._fullLayout.xaxis.tickfont.color, g._fullLayout.legend.font.color])"
        ):
            assert all(h.contrast(ink, plot[0]) >= 7 for ink in plot[1:]), plot
        shots("contrast")
        _press(page, tracker, "H")
        assert "contrast" not in h.query(page)
        assert s["texts"]
    finally:
        context.close()
    ordered = sorted(step_times)
    timing = {
        "screen": size,
        "steps": len(ordered),
        "median_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 3),
    }
    (screenshot_dir / f"slides-{size}-timing.json").write_text(json.dumps(timing))
    print("step change times", timing)
