"""Learning curves page: how many samples does FLDA need to adapt? (section 4.1.2, Figure 3).

Widgets (``explorer.ui.learning_curve_controls``) -> ``run_learning_curves`` with a cached
fit -> figures and captions.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui import caches, charts, guard, state, tables, widgets
from explorer.ui import learning_curve_controls as controls
from explorer.teaching import captions
from explorer.experiments.learning_curves import (
    headline,
    mean_sem_table,
    per_repeat_frame,
    repeat_errors,
    run_learning_curves,
)
from explorer.figures.learning_curves import gap_figure, learning_curve_figure
from explorer.safe_text import escape_markdown

P = controls.P
SMALL_N = 12  # "small sample sizes" in the ridge discussion: n <= SMALL_N
INTRO = (
    "How many samples does FLDA need to adapt? Each repeat draws *n* labelled source "
    "samples (**S-LS**), *n* labelled target samples (the oracle **T-LS**), and for "
    "**FLDA-Q** the same *n* source samples plus *n* **unlabelled** target samples from "
    "which θ is estimated; every classifier is scored on both validation sets "
    "(section 4.1.2, Figure 3)."
)


@caches.cache_data(show_spinner=False, max_entries=2_000)
def cached_errors(config, repeats):
    """Cached :func:`explorer.experiments.learning_curves.repeat_errors` (all repeats at once)."""
    return repeat_errors(config, repeats)


def show_metrics(h, tolerance):
    """Headline numbers (``h``: :func:`headline`): when has FLDA caught up with the oracle?"""
    adapted, error = st.columns(2)
    adapted.metric(
        f"{h.flda} ≈ {h.oracle} from n",
        "not yet" if h.adapted_from is None else f"{h.adapted_from:,}",
        help=f"Smallest n from which {h.flda}'s mean target error stays within {tolerance:g} of "
        f"{h.oracle}'s for every larger n (the paper reads 'roughly 20' off Figure 3).",
    )
    error.metric(
        f"{h.flda} target error",
        f"{h.flda_error:.3f}",
        delta=f"{h.flda_error - h.naive_error:+.3f} vs {h.naive}",
        delta_color="inverse",
        help=f"{h.flda}'s mean error on the target validation set at the largest n "
        f"({h.largest_n:,}), and its difference to the naive source classifier "
        f"{h.naive} (negative = better).",
    )


def figure_settings(config, result):
    """The settings line of this page's figures: data, largest n, repeats and ℓ2."""
    from explorer.figures.export import settings_line

    return settings_line(
        data=config.distribution.capitalize(),
        theta=config.theta,
        seed=config.seed,
        l2=float(config.ridge),
        extra=(
            f"n up to {max(config.sizes):,}",
            f"{result.errors.shape[2]} repeats",
        ),
        transfer="dropout",
    )


def show_table(numbers, head, tolerance):
    """The numbers behind Figure 3 (``numbers``: :func:`mean_sem_table`)."""
    n_help = (
        "Training-set size: n labelled source samples (naive classifier and FLDA), n labelled "
        "target samples (oracle), n unlabelled target samples (FLDA)."
    )
    st.dataframe(
        numbers,
        width="stretch",
        height="content",
        hide_index=True,
        key="lc_table",
        column_config={"n": st.column_config.NumberColumn("n", format="localized", help=n_help)},
    )
    st.caption(captions.learning_curve_table_caption(head, tolerance, state.presentation_mode()))


def show_downloads(table, result):
    cols = st.columns(2)
    tables.download_csv(
        "Download curves (CSV)",
        table,
        container=cols[0],
        file_name="flda_learning_curves.csv",
        key="lc_download_curves",
        help="One row per classifier, validation domain and n: mean error, SEM and repeats.",
    )
    tables.download_csv(
        "Download every error (CSV)",
        lambda: per_repeat_frame(result),
        container=cols[1],
        file_name="flda_learning_curves_per_repeat.csv",
        key="lc_download_raw",
        help="Each single error rate (classifier, domain, repeat, n) for your own analysis.",
    )


def main():
    """Draw the page."""
    st.title("Learning curves")
    st.markdown(INTRO)
    state.restore_from_url(controls.SETTINGS)
    sidebar = (
        None
        if state.presentation_mode()
        else charts.sidebar_controls(controls.draw_controls, deferred=controls.draw_all_controls)
    )
    show_results(sidebar)
    charts.show_paper_notes("learning_curves")
    charts.show_equations()


@st.fragment
def show_results(sidebar):
    """Everything after the data controls (``sidebar``: the two expanders the result
    controls go in, None when presenting); a fragment, so those controls rerun only it."""
    if sidebar is not None:
        controls.draw_result_controls(*sidebar)
    state.write_to_url(controls.SETTINGS)
    try:
        config, notes = controls.read_config()
    except ValueError as exc:  # the settings' own problems, each with its fix
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return
    for note in notes:
        st.warning(escape_markdown(note))
    with guard.error_boundary("computing the learning curves") as outcome:
        with widgets.progress_bar("Computing the learning curves ...") as progress:
            repeats = int(st.session_state[P + "repeats"])
            result = run_learning_curves(config, repeats, fit=cached_errors, progress=progress)
    if outcome.failed:
        return
    table = result.table
    tolerance, present = float(st.session_state[P + "tolerance"]), state.presentation_mode()
    head = headline(table, tolerance)
    # Everything is computed before the first result is drawn: the browser then gets the
    # results in one burst and re-renders the page once, not once per element.
    settings = figure_settings(config, result)
    curves = learning_curve_figure(
        table, show_sem=bool(st.session_state[P + "show_sem"]), log_y=bool(st.session_state[P + "log_y"])
    )
    curves_caption = captions.learning_curve_caption(config, repeats, table, tolerance, present)
    numbers = mean_sem_table(table)
    gaps = result.gaps
    gap_chart = gap_figure(gaps), "lc_gaps", "figure 3 adaptation gap to the target oracle"
    gap_caption = captions.gap_caption(gaps, SMALL_N)
    show_metrics(head, tolerance)
    charts.show_chart(
        curves, "lc_curves", "figure 3 learning curves on source and target", curves_caption, 0, settings
    )
    show_table(numbers, head, tolerance)
    charts.show_chart(*gap_chart, gap_caption, 0, settings)
    show_downloads(table, result)
    with st.expander("How the experiment is run"):
        st.markdown(captions.learning_curve_method(config))


guard.run_page(main)
