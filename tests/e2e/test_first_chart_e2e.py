"""The first chart of a browser tab comes before the rest of its page (``explorer.ui.charts.show_chart``).

A tab's first run stops after its first chart; the chart element reports once it has
drawn it, and the run that report asks for sends the whole page.  These tests read
what each run sent on the websocket (``RunTracker.run_elements``) and what the page
shows in the end: nothing may be lost, and only a tab's first chart waits.
"""

import pytest

import e2e_harness as h

CHART = "bidi_component"
TABLE = "dataframe"


def _runs(tracker, since=0):
    return list(zip(tracker.run_kinds[since:], tracker.run_elements[since:]))


def test_first_run_stops_after_the_chart_then_the_page_is_complete(streamlit_server, browser_page):
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/synthetic?seed=3")
    (kind1, first), (kind2, full) = _runs(tracker)
    assert (kind1, kind2) == ("full", "full")
    assert first.count(CHART) == 1 and TABLE not in first
    assert first[-1] == "markdown"  # the chart's caption ends the first run
    assert full.count(TABLE) >= 2 and len(full) > len(first) + 20
    # the whole page is there: tables, equations, the figure drawn once
    assert h.visible_tables(page) >= 2
    assert page.locator('[data-testid="stHeading"]').filter(has_text="Equations").count() == 1
    chart = page.locator(h.PLOT_SELECTOR).first
    assert chart.get_attribute("data-report") == "sent"
    assert chart.get_attribute("data-draws") == "1"  # not redrawn by the second run
    assert h.query(page).get("seed") == "3"
    assert not h.error_texts(page)

    # after that, a control change is one run with the whole page
    since = len(tracker.run_kinds)
    h.choose_radio(page, tracker, "Loss", "quadratic")
    ((kind, elements),) = _runs(tracker, since)
    assert kind == "full" and elements.count(TABLE) >= 2

    # and so is another page of the same tab: plotly.js is loaded, nothing waits
    since = len(tracker.run_kinds)
    h.act(
        page,
        tracker,
        page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Transfer parameters").first.click,
    )
    assert h.page_title(page) == "Transfer parameters"
    assert [kind for kind, _ in _runs(tracker, since)] == ["full"]
    assert h.visible_tables(page) >= 1


def test_a_first_chart_inside_a_fragment_brings_the_whole_page(streamlit_server, browser_page):
    """Learning curves draws its charts in an ``st.fragment``: the report reruns that
    fragment, which then asks for the whole page."""
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/learning_curves?seed=5")
    assert tracker.run_kinds[0] == "full" and tracker.run_kinds[-1] == "full"
    assert TABLE not in tracker.run_elements[0]
    assert TABLE in tracker.run_elements[-1]
    assert page.locator('[data-testid="stHeading"]').filter(has_text="Equations").count() == 1
    assert h.visible_tables(page) >= 1
    assert h.widget(page, "stCheckbox", "l2 regularisation").count() == 1
    assert not h.error_texts(page)


@pytest.mark.parametrize("path", ["", "lesson"])
def test_pages_without_a_first_chart_in_the_first_run_are_sent_whole(streamlit_server, browser_page, path):
    """Home has no chart; a tab that opens it first keeps "first chart" for later."""
    page, tracker = browser_page
    h.open_page(page, tracker, f"{streamlit_server.url}/{path}")
    if not path:
        assert tracker.run_kinds == ["full"] and CHART not in tracker.run_elements[0]
        since = len(tracker.run_kinds)
        h.act(
            page,
            tracker,
            page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Synthetic domains").first.click,
        )
        assert [kind for kind, _ in _runs(tracker, since)] == ["full", "full"]
    assert h.visible_plots(page) >= 1
    assert not h.error_texts(page)


def test_a_chart_that_cannot_be_drawn_does_not_hold_the_page_back(streamlit_server, browser_page):
    """plotly.js fails to load: the chart says so, and the rest of the page still comes."""
    page, tracker = browser_page
    page.route("**/_flda/plotly-*.js", lambda route: route.abort())
    page.goto(f"{streamlit_server.url}/synthetic?seed=3")
    equations = page.locator('[data-testid="stHeading"]').filter(has_text="Equations")
    equations.first.wait_for(state="attached", timeout=60_000)
    chart = page.locator(h.PLOT_SELECTOR).first
    assert "This chart could not be drawn" in chart.inner_text()
    assert chart.get_attribute("data-report") == "sent"
    for _ in range(250):  # the second run's end follows its last element
        if len(tracker.run_kinds) >= 2:
            break
        page.wait_for_timeout(40)
    assert tracker.run_kinds[:2] == ["full", "full"]
    # the tables' code loads after the run: wait for the second grid
    page.locator('[data-testid="stDataFrame"]').nth(1).wait_for(state="attached", timeout=60_000)
