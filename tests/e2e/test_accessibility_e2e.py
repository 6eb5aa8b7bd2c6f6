"""Accessibility in Chromium: visible keyboard focus and error tables on a phone.

Visible keyboard focus (WCAG 2.4.7 / 2.4.11), light and dark theme:

Tabbing through the Synthetic domains page reaches a sidebar page link, buttons,
a number input, radios, a text input, a selectbox, a slider and a checkbox; each
must show an outline of at least 2 px whose colour has 3:1 contrast against the
background it is drawn on (Streamlit 1.67 alone draws none on most of them).

On a 390 x 844 phone a wide table scrolls sideways: the Synthetic domains error
table must start with the classifier and its target error.
"""

import pytest

import e2e_harness as h

pytestmark = pytest.mark.e2e

#: The focused element, or the nearest of its 4 ancestors that draws an outline, with
#: the outline's width and colour and the first opaque background behind it.
FOCUS_JS = """() => {
    const active = document.activeElement;
    if (!active || active === document.body) return null;
    const kind = active.getAttribute('data-testid') === 'stSidebarNavLink' ? 'page link'
        : active.getAttribute('role') === 'combobox' ? 'selectbox'
        : active.tagName === 'INPUT' ? active.type : active.tagName.toLowerCase();
    let el = active, ring = null;
    for (let i = 0; i < 5 && el; i++, el = el.parentElement) {
        const cs = getComputedStyle(el);
        if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) { ring = el; break; }
    }
    if (!ring) return {kind, width: 0};
    const cs = getComputedStyle(ring);
    let bg = ring.parentElement, background = 'rgb(255, 255, 255)';
    for (; bg; bg = bg.parentElement) {
        const c = getComputedStyle(bg).backgroundColor;
        if (c && c !== 'transparent' && !c.startsWith('rgba(0, 0, 0, 0)')) { background = c; break; }
    }
    const box = ring.getBoundingClientRect();
    return {kind, width: parseFloat(cs.outlineWidth), color: cs.outlineColor, background,
            visible: box.width > 4 && box.height > 4};
}"""

KINDS = {"page link", "button", "number", "radio", "text", "selectbox", "range", "checkbox"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tab_shows_visible_focus_on_every_control_kind(chromium, streamlit_server, scheme):
    context = h.new_context(chromium, color_scheme=scheme)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
        seen = {}
        for _ in range(60):
            page.keyboard.press("Tab")
            page.wait_for_function("() => document.activeElement !== null")
            focus = page.evaluate(FOCUS_JS)
            if focus and focus["kind"] in KINDS and focus["kind"] not in seen:
                seen[focus["kind"]] = focus
            if set(seen) == KINDS:
                break
        assert set(seen) == KINDS, f"tabbing never reached {KINDS - set(seen)}"
        for kind, focus in seen.items():
            assert focus["width"] >= 2, f"{scheme}: no focus outline on a {kind}"
            assert focus["visible"], f"{scheme}: the {kind}'s focus outline has no size"
            ratio = h.contrast(focus["color"], focus["background"])
            assert ratio >= 3, (
                f"{scheme}: {kind} focus outline {focus['color']} on "
                f"{focus['background']} has contrast {ratio:.2f} < 3"
            )
    finally:
        context.close()


PHONE = {"width": 390, "height": 844}
#: Header texts of a dataframe's accessible grid (what Streamlit's data grid has drawn,
#: left to right) and the grid's total column count.
HEADERS_JS = """df => {
    const grid = df.querySelector('table[role="grid"]');
    const cells = [...grid.querySelectorAll('th[role="columnheader"]')]
        .sort((a, b) => a.getAttribute('aria-colindex') - b.getAttribute('aria-colindex'));
    return {headers: cells.map(th => th.textContent.trim()),
            first: cells.length ? +cells[0].getAttribute('aria-colindex') : 0,
            total: +grid.getAttribute('aria-colcount'),
            right: df.getBoundingClientRect().right};
}"""


def test_phone_shows_classifier_and_target_error_first(chromium, streamlit_server):
    context = chromium.new_context(viewport=PHONE, device_scale_factor=1)
    context.set_default_timeout(20_000)
    context.set_default_navigation_timeout(60_000)
    try:
        page = context.new_page()
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{streamlit_server.url}/synthetic")
        heading = page.get_by_role("heading", name="Target errors")
        heading.scroll_into_view_if_needed()
        table = page.locator(f'{h.APP_ROOT} [data-testid="stDataFrame"]').first
        table.locator('th[role="columnheader"]').first.wait_for(state="attached")
        grid = table.evaluate(HEADERS_JS)
        assert grid["right"] <= PHONE["width"], "the table is wider than the phone"
        assert grid["first"] == 1  # not scrolled: what a reader sees first
        assert grid["headers"][:2] == ["classifier", "target error"], grid["headers"]
        # The descriptive columns are there, after the errors.
        assert grid["total"] >= 5 and "loss" not in grid["headers"][:3]
    finally:
        context.close()
