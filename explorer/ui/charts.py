"""How every page draws a chart and the panels beside it: :func:`show_chart` (the chart
element of :mod:`explorer.ui.chart` with the export button, projector styling and text
alternative, and the "first chart first" bookkeeping), the equations panel
(:func:`show_equations`) and the notes on the paper (:func:`show_paper_notes`)."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from explorer.safe_text import escape_markdown
from explorer.ui import chart as ui_chart
from explorer.ui import equations as ui_equations
from explorer.ui.caches import cached_paper_notes
from explorer.ui.state import CHART_DRAWN_KEY, REST_OWED_KEY, presentation_mode

#: Session key of the sidebar controls the page's run has put off (:func:`sidebar_controls`).
DEFERRED_CONTROLS_KEY = "_flda_deferred_controls"


def _note_chart_drawn():
    st.session_state[CHART_DRAWN_KEY] = True


def _in_fragment_run():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def first_chart_pending():
    """In a browser tab that has drawn no chart yet, the run stops after its first chart.

    A first visit's time to the first chart is mostly the browser's: it renders the
    whole page and loads the code of every kind of element on it before it mounts the
    chart, then loads and evaluates plotly.js.  Sent alone, the chart was drawn
    0.45-0.9 s sooner (every page but Home, warm server, median of 6 fresh tabs).  The
    chart's element reports the draw (:func:`ui_chart.plotly_chart`), which reruns
    the page in full; after that no run of the session stops early.  Every session
    runs this same code: under ``AppTest``, which has no browser, the tests' harness
    plays the browser's part and reports the draw (``tests/conftest.py``).
    """
    return not st.session_state.get(CHART_DRAWN_KEY, False)


def sidebar_controls(draw, *args, deferred=None):
    """Draw the page's sidebar controls ``draw(*args)`` now (returning what it returns), or
    after its first chart (returning None).

    In a run that stops after its first chart (:func:`first_chart_pending`) the
    page's sidebar controls are put off: the browser would render every one of them,
    and load the code of each kind, before it draws the chart (0.2-0.4 s of a fresh tab
    on Transfer parameters, measured in Chromium on the 2-core machine).  The run the
    browser asks for once it has drawn the chart draws them.  Should the run end
    without a chart (an error, bad settings), :func:`deferred_controls` draws them at its
    end, in the order they were put off, so the sidebar is the same either way;
    ``deferred`` (called without arguments) then replaces ``draw`` for a page that fills
    in parts of the sidebar later in its run (Learning curves).  The pages read every
    setting from ``st.session_state`` (restored from the URL first), never from a
    widget's return value, so nothing above the chart needs the controls.  The shared
    control ``app.py`` draws (the seed) is one small widget and is
    not put off.  Only inside :func:`deferred_controls` (``explorer.ui.guard.run_page``).
    """
    if first_chart_pending() and not _in_fragment_run():
        later = (deferred, ()) if deferred is not None else (draw, args)
        st.session_state[DEFERRED_CONTROLS_KEY] = [*st.session_state.get(DEFERRED_CONTROLS_KEY, ()), later]
        return None
    return draw(*args)


@contextmanager
def deferred_controls():
    """The span of a page's run in which :func:`sidebar_controls` may put controls off:
    it starts with none put off and, unless the run stopped at its first chart (or was
    rerun: Streamlit's control flow is no ``Exception``), draws those put off at its end,
    in order, also after an error: the user needs the controls to fix what failed."""

    def draw_put_off():
        for draw, args in st.session_state.pop(DEFERRED_CONTROLS_KEY, ()):
            draw(*args)

    st.session_state.pop(DEFERRED_CONTROLS_KEY, None)
    try:
        yield
    except Exception:
        draw_put_off()
        raise
    draw_put_off()


def finish_owed_page():
    """Rerun the whole page if the first chart's report reran only its fragment.

    The report reruns what the chart belongs to: a chart inside an ``st.fragment``
    gets a fragment run, which would leave out the rest of the page that the first
    run held back.  Full runs just clear the flag (:func:`explorer.ui.guard.run_page`).
    """
    if st.session_state.pop(REST_OWED_KEY, False) and _in_fragment_run():
        st.rerun(scope="app")


def show_chart(fig, key, what, caption=None, fit_margin=0, settings="", describe=True, slide=None):
    """Draw a plotly figure the way every page does, then its caption.

    The chart is :func:`ui_chart.plotly_chart`: it stays in the page across reruns
    and is redrawn in place, once, when the figure changes.  The camera button saves
    a slide-sized PNG named after ``what``
    (:func:`explorer.figures.export.chart_config`); in presentation mode the
    figure gets projector typography (:func:`~explorer.figures.export.presentation_style`);
    the caption ends with a one-sentence text alternative of the chart
    (:func:`~explorer.figures.export.alt_text`).  ``fit_margin`` (px) makes the chart take
    the window's height below its top less that margin (a slide, :mod:`explorer.ui.slides`);
    ``slide`` (:func:`explorer.ui.slides.chart_style`) sizes a slide's figure text and
    settings line from the window's height and sets its contrast.
    A horizontal legend below the plot is anchored to the figure's bottom
    (:func:`~explorer.figures.export.legend_below`: no overlap or cut entry at any export
    size); ``settings`` (the θ, seed, n, l2 and transfer model the figure was computed
    with) is written into the figure, so a saved image says what it shows.  ``fig`` must
    be built for this call (the settings line is added to it).  With ``describe=False``
    (a slide, short of room) the text alternative is only the chart's ``aria-label``.

    The first chart of a browser tab ends its run (``st.stop``): the rest of the page
    comes with the run that the browser asks for once it has drawn the chart
    (:func:`first_chart_pending`).
    """
    from explorer.figures.export import (
        alt_text,
        chart_config,
        legend_below,
        presentation_style,
        with_settings,
    )

    finish_owed_page()
    slide = dict(slide or {})
    settings_font = slide.pop("settings_font", None)
    if presentation_mode():
        fig = presentation_style(fig, **slide)
    else:
        legend_below(fig)  # idempotent: safe on a figure drawn before
    if settings_font:
        with_settings(fig, settings, size=settings_font)
    else:
        with_settings(fig, settings)
    text = alt_text(fig)
    first = first_chart_pending()
    ui_chart.plotly_chart(
        fig,
        key,
        config=chart_config(what),
        description=text,
        report_drawn=first,
        on_drawn=_note_chart_drawn,
        fit_margin=fit_margin,
    )
    description = "*Chart:* " + escape_markdown(text) if describe else ""
    shown = "\n\n".join(part for part in (caption, description) if part)
    if shown:
        st.caption(shown)
    if first:
        st.session_state[REST_OWED_KEY] = True
        st.stop()


def show_equations(keys=None, title="Equations"):
    """The equations panel: each formula under an anchor that the captions' equation
    links (:func:`explorer.teaching.equations.equation_link`) point to, typeset ahead of time
    (:func:`ui_equations.equation_html`; ``st.latex`` for one typeset from other LaTeX)."""
    from explorer.teaching.equations import EQUATIONS

    st.header(title, anchor="equations")
    for eq in EQUATIONS:
        if keys is not None and eq.key not in keys:
            continue
        st.subheader(eq.title, anchor=eq.anchor)
        typeset = ui_equations.equation_html(eq)
        if typeset is None:
            st.latex(eq.latex)
        else:
            st.html(typeset)
        st.caption(f"{eq.explanation} *{eq.reference[0].upper()}{eq.reference[1:]}.*")


def show_paper_notes(page):
    """An expander with the notes on the paper for ``page`` (a page file stem).

    The notes are computed on request (a button), so they never delay the first
    chart; once computed in this session they are shown at once.
    """
    with st.expander(
        "Notes on the paper: where its reported numbers and its own setup disagree",
        icon=":material/rate_review:",
    ):
        flag = f"notes_shown_{page}"
        if not st.session_state.get(flag):
            st.caption(
                "Each note reruns the paper's setting and compares the result with "
                "the numbers the paper prints (a few seconds)."
            )
            if not st.button(
                "Compute the notes",
                key=f"notes_button_{page}",
                help="Run the paper's settings and compare with its reported "
                "numbers; the result is cached for everyone.",
            ):
                return
            st.session_state[flag] = True
        with st.spinner("Computing the notes on the paper…"):
            notes = cached_paper_notes(page)
        for note in notes:
            st.markdown(note)
