"""Learning curves page: how many samples does FLDA need to adapt? (section 4.1.2, Figure 3).

Widgets (``explorer.ui.learning_curve_controls``) ->
``explorer.experiments.learning_curves.run_learning_curves`` with a cached fit -> figures
built in ``explorer.figures.learning_curves``, captions from ``explorer.teaching.captions``.
"""

from __future__ import annotations

import pandas as pd
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
def cached_errors(config, loss, repeats):
    """Cached :func:`explorer.experiments.learning_curves.repeat_errors`: the quadratic
    family for all repeats at once, the logistic family one repeat at a time."""
    return repeat_errors(config, loss, repeats)


def _duration(seconds):
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def logistic_result(config, n_repeats):
    """The logistic curves once the user asked for them (then cached), else None."""
    key = (config, n_repeats)
    done_keys = st.session_state.setdefault("lc_logistic_done", [])
    placeholder = st.empty()
    if key not in done_keys:
        n_fits = 3 * n_repeats * len(config.sizes)
        ask = placeholder.container()
        ask.info(
            f"The logistic curves need {n_fits:,} iterative L-BFGS fits: typically "
            f"{_duration(n_fits * 0.02)} to {_duration(n_fits * 0.1)}, longer on a busy "
            "machine (a progress bar shows the time left). They are cached afterwards: "
            "coming back to these settings is instant."
        )
        if not ask.button(
            "Compute logistic curves",
            type="primary",
            help="Fit S-LR, T-LR and FLDA-L on every subset (with a progress bar). The quadratic "
            "curves are already shown.",
        ):
            return None
    placeholder.empty()
    with widgets.progress_bar("Fitting logistic classifiers ...") as progress:
        result = run_learning_curves(config, n_repeats, "logistic", fit=cached_errors, progress=progress)
    if key not in done_keys:
        done_keys.append(key)
    return result


def show_metrics(heads, tolerance):
    """Headline numbers: when has FLDA caught up with the oracle?"""
    cols = st.columns(len(heads) * 2)
    for i, h in enumerate(heads):
        cols[2 * i].metric(
            f"{h.flda} ≈ {h.oracle} from n",
            "not yet" if h.adapted_from is None else f"{h.adapted_from:,}",
            help=f"Smallest n from which {h.flda}'s mean target error stays within {tolerance:g} of "
            f"{h.oracle}'s for every larger n (the paper reads 'roughly 20' off Figure 3).",
        )
        cols[2 * i + 1].metric(
            f"{h.flda} target error",
            f"{h.flda_error:.3f}",
            delta=f"{h.flda_error - h.naive_error:+.3f} vs {h.naive}",
            delta_color="inverse",
            help=f"{h.flda}'s mean error on the target validation set at the largest n "
            f"({h.largest_n:,}), and its difference to the naive source classifier "
            f"{h.naive} (negative = better).",
        )


def figure_settings(config, results):
    """The settings line of this page's figures: the data, the largest n, the repeats and
    the ℓ2 the curves were computed with (FLDA's transfer model here is dropout only)."""
    from explorer.figures.export import settings_line

    return settings_line(
        data=config.distribution.capitalize(),
        theta=config.theta,
        seed=config.seed,
        l2=float(config.ridge),
        extra=(
            f"n up to {max(config.sizes):,}",
            "/".join(str(r.errors.shape[2]) for r in results) + " repeats",
        ),
        transfer="dropout",
    )


def show_table(numbers, heads, tolerance):
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
    st.caption(captions.learning_curve_table_caption(heads, tolerance, state.presentation_mode()))


def show_downloads(table, results):
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
        lambda: pd.concat([per_repeat_frame(r) for r in results], ignore_index=True),
        container=cols[1],
        file_name="flda_learning_curves_per_repeat.csv",
        key="lc_download_raw",
        help="Each single error rate (classifier, domain, repeat, n) for your own analysis.",
    )


def compute(config):
    """The quadratic curves and, if asked for, the logistic ones; None on a failure (shown)."""
    with guard.error_boundary("computing the learning curves") as outcome:
        with widgets.progress_bar("Computing the quadratic learning curves ...") as progress:
            repeats = int(st.session_state[P + "repeats"])
            results = [
                run_learning_curves(config, repeats, "quadratic", fit=cached_errors, progress=progress)
            ]
    if outcome.failed:
        return None
    if st.session_state[P + "loss"] == "both":
        logistic = None
        with guard.error_boundary("computing the logistic learning curves"):
            logistic = logistic_result(config, int(st.session_state[P + "repeats_logistic"]))
        if logistic is not None:
            results.append(logistic)
            if logistic.n_unconverged:
                st.caption(
                    f"{logistic.n_unconverged} of {logistic.errors[:, 0].size:,} logistic fits "
                    "stopped at the iteration cap: without l2 a tiny separable subset drives the "
                    "weights to infinity; the direction, and hence the error, is still meaningful."
                )
    return results


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
    widgets.presentation_row("pages/learning_curves.py", controls.SETTINGS)
    show_results(sidebar)
    charts.show_paper_notes("learning_curves")
    charts.show_equations()


@st.fragment
def show_results(sidebar):
    """Everything after the data controls: the l2 and display controls (in the sidebar,
    ``sidebar`` = its two expanders, None when presenting), the URL, the curves, their
    tables, downloads and method.  Toggling l2 (or a display control) re-runs only this
    part, not the sidebar's other controls, the paper notes and the equations."""
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
    results = compute(config)
    if results is None:
        return
    table = pd.concat([r.table for r in results], ignore_index=True)
    tolerance, present = float(st.session_state[P + "tolerance"]), state.presentation_mode()
    heads = headline(table, tolerance)
    # Everything is computed before the first result is drawn: the browser then gets the
    # results in one burst and re-renders the page once, not once per element.
    settings = figure_settings(config, results)
    curves = learning_curve_figure(
        table, show_sem=bool(st.session_state[P + "show_sem"]), log_y=bool(st.session_state[P + "log_y"])
    )
    repeats = [r.errors.shape[2] for r in results]
    curves_caption = captions.learning_curve_caption(config, repeats, table, tolerance, present)
    numbers = mean_sem_table(table)
    gaps = pd.concat([r.gaps for r in results], ignore_index=True)
    gap_chart = gap_figure(gaps), "lc_gaps", "figure 3 adaptation gap to the target oracle"
    gap_caption = captions.gap_caption(gaps, SMALL_N)
    show_metrics(heads, tolerance)
    charts.show_chart(
        curves, "lc_curves", "figure 3 learning curves on source and target", curves_caption, 0, settings
    )
    show_table(numbers, heads, tolerance)
    charts.show_chart(*gap_chart, gap_caption, 0, settings)
    show_downloads(table, results)
    with st.expander("How the experiment is run"):
        st.markdown(captions.learning_curve_method(config))


guard.run_page(main)
