"""Handwritten digits: dropout heatmaps and adapted weights (section 4.2.3, Figures 5-6, Table 4).

Data from :mod:`explorer.ui.digits_data`, fits from :func:`explorer.experiments.digits.run_digits`,
views from :mod:`explorer.ui.digits_views`.  Widget keys start with ``"dig."``.
"""

from __future__ import annotations

import streamlit as st

from explorer.data import digits as dg
from explorer.experiments import digits as ed
from explorer.safe_text import escape_markdown as esc
from explorer.ui import charts, digits_data, guard, state, widgets
from explorer.ui import digits_views as views
from flda_core.transfer import nonzero_rate

SETTINGS = [
    state.Setting("dig.source", "offline", options=digits_data.SOURCES),
    state.Setting("dig.direction", "A → B", options=ed.DIRECTIONS),
    state.Setting("dig.digit", "0", options=views.DIGITS),
    state.Setting("dig.loss", "logistic", options=tuple(views.LOSS_LABELS)),
    state.Setting("dig.zero_tol", 0.0, lo=0.0, hi=0.5),
    state.Setting("dig.l2_mode", "cv", options=tuple(views.L2_MODE_LABELS)),
    state.Setting("dig.l2", 1e-3, options=views.L2_OPTIONS),
    state.Setting("dig.shared_range", True),
    state.Setting("dig.n_mnist", dg.PAPER_N_MNIST, lo=1_000, hi=70_000),
    state.Setting("dig.n_usps", dg.PAPER_N_USPS, lo=1_000, hi=dg.PAPER_N_USPS),
]
INTRO = (
    "Pixels often inked in one digit collection and rarely in another are exactly "
    "what the dropout transfer model captures (paper section 4.2.3). FLDA learns "
    "how often each pixel is dropped out in the target, **θ**, and stops relying on "
    "pixels the target hardly ever inks."
)


@st.cache_data(show_spinner=False, max_entries=16)
def rates_cached(key, zero_tol, _data):
    return nonzero_rate(_data.X_a, zero_tol), nonzero_rate(_data.X_b, zero_tol)


@st.cache_data(show_spinner=False, max_entries=512)
def fit_direction_cached(key, direction, method, l2, zero_tol, seed, _data):
    """One classifier for one direction; ``key`` (the data fingerprint) stands for ``_data``.
    Fits come from the disk store when this code fitted them before (a server restart, or
    the server's start-up warm-up: ``explorer.ui.serving.warm_up_stores``)."""
    return ed.stored_fit(_data, direction, method, l2, zero_tol, seed)


def fit_both_directions(data, first_direction, loss, zero_tol, seed):
    """:func:`explorer.experiments.digits.run_digits` with the page's cached fits."""

    def fit(direction, method, l2, tol):
        return fit_direction_cached(data.key, direction, method, l2, tol, seed, _data=data)

    with widgets.progress_bar("Fitting classifiers…") as progress:
        return ed.run_digits(
            data,
            first_direction,
            loss,
            views.l2_setting(),
            zero_tol,
            seed,
            progress=progress,
            fit=fit,
        )


def draw_sidebar_data_controls():
    """The sidebar's heading and its Data controls."""
    with st.sidebar:
        st.subheader("Handwritten digits")
        with st.expander("Data", expanded=True):
            digits_data.draw_data_controls()


def draw_sidebar_model_controls():
    with st.sidebar, st.expander("Classifiers", expanded=True):
        views.draw_model_controls()


def main():
    """Draw the page."""
    state.restore_from_url(SETTINGS)
    present = state.presentation_mode()
    seed = state.get_seed()
    st.title("Handwritten digits: pixels that vanish")
    if not present:
        st.markdown(INTRO)
        charts.sidebar_controls(draw_sidebar_data_controls)
    data = digits_data.resolve_data(seed)
    if not present:
        charts.sidebar_controls(draw_sidebar_model_controls)
        views.show_data(data)
    show_rates_section(data, present)
    show_fits(data, seed, present)


@st.fragment
def show_rates_section(data, present):
    """The ε slider and Figure 5.  A slider step re-runs only this part: the non-zero
    rates need one pass over the images, the classifiers below a refit, which waits
    for the button (moving the slider through several values costs no fit)."""
    st.subheader("Where the ink is (Figure 5)")
    if not present:
        st.slider(
            "Zero threshold ε",
            min_value=0.0,
            max_value=0.5,
            step=0.01,
            key="dig.zero_tol",
            help="A pixel counts as zero (no ink) when |x| <= ε. Scanned digits have "
            "faint, non-zero backgrounds; raising ε treats them as empty. Ink is "
            "scaled to [0, 1]. The non-zero maps follow at once; the classifiers "
            "(estimated dropout θ, Figure 6, Table 4) are refitted when you press "
            "the button that appears.",
        )
        state.write_to_url(SETTINGS)
    zero_tol, fitted = float(st.session_state["dig.zero_tol"]), views.fitted_zero_tol()
    views.show_rates(data, rates_cached(data.key, zero_tol, _data=data), zero_tol)
    if zero_tol != fitted:
        st.info(
            f"The maps above use ε = {zero_tol:g}; θ, Figure 6 and Table 4 below still "
            f"use ε = {fitted:g}. Refitting takes a few seconds.",
            icon=":material/pending:",
        )
        if st.button(
            f"Refit the classifiers with ε = {zero_tol:g}",
            key="dig_refit",
            type="primary",
            help="Estimate θ with the new threshold and fit every classifier of "
            "both directions again (cached: a value fitted before comes back "
            "at once).",
        ):
            st.session_state[views.FIT_TOL_KEY] = zero_tol
            st.rerun()  # the whole page: the fits below live outside this fragment


@st.fragment
def show_fits(data, seed, present):
    """Direction, digit and loss with Figure 6, Table 4 and the downloads: choosing
    another digit re-runs only this part (no fit, no other figure redrawn)."""
    zero_tol = views.fitted_zero_tol()
    st.subheader("What FLDA learns (Figure 6)")
    digit = views.draw_view_controls(data.classes)
    direction, loss = st.session_state["dig.direction"], st.session_state["dig.loss"]
    state.write_to_url(SETTINGS)
    with guard.error_boundary("fitting the classifiers", "The classifiers could not be fitted.") as outcome:
        results = fit_both_directions(data, direction, loss, zero_tol, seed)
    if outcome.failed:
        return
    for note in ed.convergence_notes(results):
        st.warning(esc(note), icon=":material/warning:")
    views.show_weights(data, results, direction, loss, digit, present)
    both = views.show_errors(data, results)
    if not present:
        rates = rates_cached(data.key, zero_tol, _data=data)
        views.show_downloads(data, rates, results, both, direction, loss, digit)


guard.run_page(main)
