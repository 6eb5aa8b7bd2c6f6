"""How every page draws a chart (:func:`show_chart`, with "first chart first"), the
equations panel and the notes on the paper."""

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

    Sent alone, the chart was drawn 0.45-0.9 s sooner (median of 6 fresh tabs).  Its
    report of the draw reruns the page in full; under ``AppTest`` the harness reports it
    (``tests/conftest.py``).
    """
    return not st.session_state.get(CHART_DRAWN_KEY, False)


def sidebar_controls(draw, *args, deferred=None):
    """Draw the page's sidebar controls ``draw(*args)`` now (returning what it returns), or
    after its first chart (returning None).

    Put off while :func:`first_chart_pending` (rendering them cost a fresh tab 0.2-0.4 s
    before its chart); a run ending without a chart draws them at its end
    (:func:`deferred_controls`), ``deferred()`` replacing ``draw`` if given.  Pages read
    settings from ``st.session_state``, never from a widget's return value.
    """
    if first_chart_pending() and not _in_fragment_run():
        later = (deferred, ()) if deferred is not None else (draw, args)
        st.session_state[DEFERRED_CONTROLS_KEY] = [*st.session_state.get(DEFERRED_CONTROLS_KEY, ()), later]
        return None
    return draw(*args)


@contextmanager
def deferred_controls():
    """The span in which :func:`sidebar_controls` may put controls off; draws them at its
    end, also after an error (not after ``st.stop``/``st.rerun``)."""

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

    A chart inside an ``st.fragment`` gets a fragment run, which would leave out the
    rest of the page.
    """
    if st.session_state.pop(REST_OWED_KEY, False) and _in_fragment_run():
        st.rerun(scope="app")


def show_chart(fig, key, what, caption=None, fit_margin=0, settings="", describe=True, slide=None):
    """Draw a plotly figure the way every page does, then its caption.

    The camera button saves a PNG named after ``what``; presentation mode gets projector
    typography, else the legend goes below; ``settings`` is written into ``fig`` (built
    for this call); the caption ends with a text alternative (only the ``aria-label``
    with ``describe=False``).  ``fit_margin`` and ``slide``
    (:func:`explorer.ui.slides.chart_style`) size a slide's chart.  A tab's first chart
    ends the run (:func:`first_chart_pending`).
    """
    from explorer.figures.export import (
        SETTINGS_FONT,
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
    with_settings(fig, settings, size=settings_font or SETTINGS_FONT)
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
    """The equations panel: each formula under the anchor equation links point to,
    pre-typeset (``st.latex`` when it could not be)."""
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
    """An expander with the notes on the paper for ``page`` (a file stem), computed on
    request so they never delay the first chart."""
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
