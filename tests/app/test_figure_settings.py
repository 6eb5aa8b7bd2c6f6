"""Every page's figures carry the settings they were computed with (issue 25): one line
built by :func:`explorer.figures.export.settings_line` from the values the page used (not
its defaults), written into the figure (:func:`explorer.figures.export.with_settings`), so
an exported PNG says what it shows; user text in it is escaped."""

from __future__ import annotations

import html

import pytest
from apptest_support import charts, open_page

from explorer.figures.export import settings_line, with_settings
from explorer.safe_text import plain_from_plotly


def settings_of(chart):
    """The settings line of a chart as a reader sees it (tags and entities resolved)."""
    title = chart.figure["layout"].get("title", {}).get("text", "")
    return plain_from_plotly(title.split("<br>")[-1])


def test_settings_line_names_what_applies_in_one_order():
    assert settings_line() == ""
    line = settings_line(
        data="Bernoulli",
        theta="0.8, 0",
        shift="θ̂₁ +0.2",
        seed=4,
        n_source=500,
        n_target=300,
        l2=0.01,
        extra=("ε = 0.1",),
        transfer="two-sided",
    )
    assert line == (
        "Bernoulli · θ = 0.8, 0 · θ̂₁ +0.2 · seed 4 · n = 500 source, 300 target "
        "· ℓ2 = 0.01 · ε = 0.1 · transfer model: two-sided"
    )
    assert settings_line(l2=0) == "no ℓ2"
    assert settings_line(l2="by cross-validation") == "ℓ2 by cross-validation"
    assert settings_line(theta=(0.25, 1)) == "θ = 0.25, 1"


def test_user_text_in_the_settings_line_is_shortened_and_neutralised():
    hostile = "<img src=x onerror=alert(1)>%{y}\n<b>long " + "x" * 200
    line = settings_line(data=hostile + " → t.csv", extra=(f"label column {hostile}",))
    assert "\n" not in line and len(line) < 140 and "…" in line
    fig = with_settings(pytest.importorskip("plotly.graph_objects").Figure(), line)
    text = fig.layout.title.text
    assert "<img" not in text and "<b>long" not in text and "%{" not in text
    assert "&lt;img src=x" in text
    assert html.unescape(plain_from_plotly(text)).startswith("<img src=x onerror=alert(1)>")


@pytest.mark.parametrize("validated", [True, False])
def test_the_settings_line_goes_below_a_title_or_at_the_top_right_with_room(validated):
    """Plotly's own figures and the plain-JSON ones (``style.unvalidated_figure``) alike:
    an existing title keeps its text and style with the line below it; without one the
    line sits at the figure's top right; the top margin grows by the line's height."""
    go = pytest.importorskip("plotly.graph_objects")
    from explorer.figures.export import SETTINGS_FONT
    from explorer.figures.style import unvalidated_figure

    def figure(layout):
        return go.Figure(layout=layout) if validated else unvalidated_figure([], layout)

    titled = with_settings(
        figure(dict(title=dict(text="Errors", font=dict(size=20)), margin=dict(t=80, l=5))), "seed 3"
    )
    assert titled.layout.title.text.startswith("Errors<br><span")
    assert "seed 3" in titled.layout.title.text and titled.layout.title.font.size == 20
    assert titled.layout.margin.t == 80 + SETTINGS_FONT + 8 and titled.layout.margin.l == 5
    plain = with_settings(figure(dict(title=dict(font=dict(size=9)))), "seed 4")
    assert "seed 4" in plain.layout.title.text and plain.layout.title.font.size == 9
    assert (plain.layout.title.x, plain.layout.title.xanchor, plain.layout.title.xref) == (
        1,
        "right",
        "container",
    )
    assert plain.layout.margin.t == 50 + SETTINGS_FONT + 8
    untouched = figure({})
    assert with_settings(untouched, "").layout.title.text is None


@pytest.mark.parametrize("validated", [True, False])
def test_the_settings_line_is_marked_for_the_chart_element_to_break(validated):
    """The chart element (assets/flda_chart.js, checked in a browser by
    tests/e2e/test_chart_text_e2e.py) finds the line through ``layout.meta["settings"]``:
    its escaped text and font size, exactly as the title shows them; other meta stays."""
    go = pytest.importorskip("plotly.graph_objects")
    from explorer.figures.export import SETTINGS_FONT
    from explorer.figures.style import unvalidated_figure

    def figure(layout):
        return go.Figure(layout=layout) if validated else unvalidated_figure([], layout)

    line = settings_line(data="<a.csv> → b.csv", seed=3, l2=0.1)
    for fig in (figure(dict(title=dict(text="Errors"), meta=dict(source="x"))), figure({})):
        with_settings(fig, line)
        meta = fig.to_plotly_json()["layout"]["meta"]
        assert meta["settings"] == {
            "text": "&lt;a.csv&gt; → b.csv · seed 3 · ℓ2 = 0.1",
            "size": SETTINGS_FONT,
        }
        span = f"<span style='font-size:{SETTINGS_FONT}px'>{meta['settings']['text']}</span>"
        assert fig.layout.title.text.endswith(span)
    assert (
        meta == {"settings": meta["settings"]}
        and with_settings(figure(dict(meta=dict(source="x"))), line).layout.meta["source"] == "x"
    )


#: page, URL query, what every chart's settings line must say (the values set, not the
#: defaults).
PAGES = [
    (
        "pages/synthetic.py",
        {"seed": "3", "theta": "0.8, 0", "l2": "0.01"},
        ["Bernoulli", "θ = 0.8, 0", "seed 3", "ℓ2 = 0.01", "transfer model: dropout"],
    ),
    (
        "pages/transfer.py",
        {"seed": "2", "l2": "0.001"},
        ["θ = 0.5, 0", "seed 2", "ℓ2 = 0.001", "transfer model: dropout"],
    ),
    (
        "pages/learning_curves.py",
        {"seed": "5", "repeats": "3"},
        ["Poisson", "seed 5", "n up to 10,000", "3 repeats", "transfer model: dropout"],
    ),
    ("pages/digits.py", {"seed": "1", "l2_mode": "hand", "l2": "0.01"}, ["A = ", "seed 1"]),
    (
        "pages/real_data.py",
        {"pair": "hepatitis", "impute": "mean"},
        ["gaps filled: mean", "transfer model: dropout"],
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("page, query, expected", PAGES, ids=[p[0][6:-3] for p in PAGES])
def test_every_chart_of_a_page_says_its_settings(page, query, expected):
    at = open_page(page, query, timeout=600)
    shown = charts(at)
    assert shown, page
    for chart in shown:
        line = settings_of(chart)
        missing = [e for e in expected if e not in line]
        assert not missing, (chart.key, line, missing)


@pytest.mark.slow
def test_digits_figures_of_fits_say_the_penalty_and_the_digit():
    at = open_page(
        "pages/digits.py", {"seed": "1", "l2_mode": "hand", "l2": "0.01", "digit": "3"}, timeout=600
    )
    lines = {c.key: settings_of(c) for c in charts(at)}
    assert "ℓ2 = 0.01" in lines["dig_weights"] and "digit 3" in lines["dig_weights"]
    assert "ℓ2 = 0.01" in lines["dig_errors"] and "ε = 0" in lines["dig_errors"]
    assert "ε = 0" in lines["dig_rates"]
    assert "ℓ2" not in lines["dig_rates"]  # the data alone: no fit, no penalty


@pytest.mark.slow
def test_your_data_figures_name_the_files_and_label_column_escaped():
    from streamlit.testing.v1 import AppTest

    from apptest_support import APP

    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/your_data.py")
    at.run()
    raw = b"a,b,<b>lab</b>\n" + b"".join(f"{i % 3},{i % 2},{i % 2}\n".encode() for i in range(30))
    for index, name in enumerate(("<i>src</i>.csv", "tgt.csv")):
        at.file_uploader[index].set_value((name, raw, "text/csv"))
        at.run()
    assert not at.exception, at.exception
    shown = charts(at)
    assert shown
    for chart in shown:
        title = chart.figure["layout"]["title"]["text"]
        assert "<i>src" not in title and "<b>lab" not in title, title
        line = settings_of(chart)
        assert "<i>src</i>.csv → tgt.csv" in line and "label column <b>lab</b>" in line, line
        assert "ℓ2 = 0.001" in line and "transfer model: dropout" in line
