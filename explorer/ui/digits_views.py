"""What the Handwritten digits page shows (section 4.2.3): the data, Figures 5-6, Table 4
in both directions, the downloads and the controls beside them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.experiments import digits as ed
from explorer.figures import digits as figs
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import escape_markdown as esc
from explorer.teaching import digit_captions as captions
from explorer.ui import charts, state, tables

LOSS_LABELS = {
    "logistic": "logistic: S-LR vs FLDA-L (as in Figure 6)",
    "quadratic": "quadratic: S-LS vs FLDA-Q",
}
L2_MODE_LABELS = {"cv": "cross-validation on the source (as in the paper)", "hand": "by hand"}
L2_OPTIONS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
FIT_TOL_KEY = "dig_fit_zero_tol"  # the ε the classifiers were last fitted with
DIGITS = tuple(str(d) for d in range(10))  # the class labels of every collection offered


def l2_setting():
    """``None`` (cross-validate) or the hand-set penalty."""
    return None if st.session_state["dig.l2_mode"] == "cv" else float(st.session_state["dig.l2"])


def fitted_zero_tol():
    """The ε of the fits: the slider's first value, then that of the last refit asked for."""
    return float(st.session_state.setdefault(FIT_TOL_KEY, float(st.session_state["dig.zero_tol"])))


def figure_settings(data, extra=(), fitted=True):
    """The settings line of this page's figures: collections, seed and ``extra``; for
    ``fitted`` figures also ε, ℓ2 and the transfer model."""
    from explorer.figures.export import settings_line

    data_line = dict(data=f"A = {data.name_a}, B = {data.name_b}", seed=state.get_seed())
    if not fitted:
        return settings_line(**data_line, extra=extra)
    l2 = l2_setting()
    return settings_line(
        **data_line,
        l2="by cross-validation" if l2 is None else float(l2),
        extra=(f"ε = {fitted_zero_tol():g}", *extra),
        transfer="dropout",
    )


def draw_model_controls():
    """Classifier settings (in the sidebar)."""
    st.radio(
        "Ridge penalty l2",
        tuple(L2_MODE_LABELS),
        format_func=L2_MODE_LABELS.get,
        key="dig.l2_mode",
        help="Cross-validation: for every classifier, 3-fold cross-validation on the "
        f"labelled source images over l2 in {list(ed.L2_GRID)} (the oracle T-LR on "
        "the target), as in the paper. By hand: one l2 for all classifiers.",
    )
    if st.session_state["dig.l2_mode"] == "hand":
        st.select_slider(
            "l2",
            options=L2_OPTIONS,
            key="dig.l2",
            format_func=lambda v: f"{v:g}",
            help="Weight of l2 * ||W||² added to the mean loss (the intercept is "
            "not penalised). l2 = 1 / (2 C n) matches scikit-learn's C.",
        )


def draw_view_controls(classes):
    """Direction, digit and loss, next to Figure 6; returns the digit (a class label of
    ``classes``, the ten digits: :data:`DIGITS`)."""
    cols = st.columns([1, 1, 2])
    cols[0].radio(
        "Direction (source → target)",
        ed.DIRECTIONS,
        key="dig.direction",
        horizontal=True,
        help="A → B trains on domain A with labels and adapts to domain B "
        "(unlabelled); B → A the reverse. Here A → B is like the paper's "
        "U → M.",
    )
    cols[1].selectbox(
        "Digit",
        DIGITS,
        key="dig.digit",
        help="Which class's predictor to show (one weight map per class). "
        "Switching the digit does not refit anything.",
    )
    cols[2].radio(
        "Loss",
        tuple(LOSS_LABELS),
        format_func=LOSS_LABELS.get,
        key="dig.loss",
        horizontal=True,
        help="Logistic: the paper's Figure 6 (S-LR and FLDA-L). Quadratic: the "
        "least-squares pair S-LS and FLDA-Q (one-vs-rest).",
    )
    return classes[[str(c) for c in classes].index(st.session_state["dig.digit"])]


def show_data(data):
    """What the two domains are, with one image per class."""
    with st.expander(
        f"**The data:** A = {esc(data.name_a)}, B = {esc(data.name_b)} "
        f"({len(data.y_a):,} + {len(data.y_b):,} images, "
        f"{data.side} x {data.side} pixels)",
        expanded=data.kind == "offline",
    ):
        st.markdown(data.description)
        charts.show_chart(
            figs.sample_images_figure(
                data.X_a, data.y_a, data.X_b, data.y_b, data.side, data.name_a, data.name_b
            ),
            "dig_samples",
            "one sample digit per class in both domains",
            "The first image of every class in domain A (top) and B (bottom), black = ink. "
            "Look at how much of the frame the digits use.",
            settings=figure_settings(data, fitted=False),
        )


def show_rates(data, rates, zero_tol):
    """Figure 5: where the ink is."""
    charts.show_chart(
        figs.nonzero_rate_figure(rates[0], rates[1], data.side, data.name_a, data.name_b, zero_tol),
        "dig_rates",
        "figure 5 non-zero rate per pixel in both domains",
        "Per-pixel probability that a pixel is non-zero (|x| > ε) in each domain, on one "
        "colour scale. Mirrors the paper's Figure 5 (MNIST left, USPS right there). Look for "
        "pixels bright in one map and dark in the other: where the source inks often and "
        "the target rarely, the estimated dropout θ = 1 − P_target / P_source is large.",
        settings=figure_settings(data, (f"ε = {zero_tol:g}",), fitted=False),
    )


def show_weights(data, results, direction, loss, digit, present):
    """Figure 6: the naive and the adapted weights of one digit."""
    naive, adapted = (results[(direction, name)] for name in ed.FIGURE6_PAIRS[loss])
    if not present:
        st.checkbox(
            "Same colour range for both weight maps",
            key="dig.shared_range",
            help="On: a colour means the same weight in both panels (compare "
            "magnitudes). Off: each panel uses its own range (compare patterns; "
            "the naive panel is rescaled and its factor shown in the title).",
        )
    cross_validated = st.session_state.get("dig.l2_mode") == "cv"
    charts.show_chart(
        figs.digit_weights_figure(
            naive.weights(digit),
            adapted.theta,
            adapted.weights(digit),
            data.side,
            digit,
            naive.method,
            adapted.method,
            bool(st.session_state["dig.shared_range"]),
        ),
        "dig_weights",
        f"figure 6 weights and dropout for digit {digit} {direction}",
        captions.weights_caption(data, direction, digit, naive, adapted, cross_validated),
        settings=figure_settings(data, (f"{direction}, digit {digit}",)),
    )


def show_errors(data, results):
    """Table 4 here and in the paper; returns the comparison table (for download)."""
    st.subheader("Error rates in both directions (Table 4)")
    ours, paper = ed.table4_frame(results, data), ed.paper_table(data)
    charts.show_chart(
        figs.table4_figure(ours, paper),
        "dig_errors",
        "table 4 digit error rates in both directions",
        settings=figure_settings(data),
    )
    both = ed.comparison_table(ours, paper)
    shown = both.copy()
    for method in TABLE_CLASSIFIERS:  # "—": not reported in the paper (S-LS)
        shown[method] = both[method].map(lambda v: "—" if pd.isna(v) else f"{v:.3f}")
    st.dataframe(shown, width="stretch")
    stand_in = (
        " The offline domains are a stand-in for MNIST/USPS: expect the asymmetry, not the paper's numbers."
    )
    st.caption(
        captions.asymmetry_text(data, results)
        + (stand_in if data.kind == "offline" else "")
        + " Grey dashes (dark outline) in the chart: the paper's values for the matching direction."
    )
    return both


def show_downloads(data, rates, results, both, direction, loss, digit):
    """CSV downloads and how the numbers are computed."""
    cols = st.columns(3)
    tables.download_csv(
        "Download error rates (CSV)",
        both,
        index=True,
        container=cols[0],
        file_name="flda_digits_errors.csv",
        key="dig_dl_errors",
        help="Target error of every classifier in both directions, with the paper's Table 4 values.",
    )
    tables.download_csv(
        "Download pixel maps (CSV)",
        lambda: ed.pixel_frame(data, rates, results, direction, loss, digit),
        container=cols[1],
        file_name="flda_digits_pixels.csv",
        key="dig_dl_pixels",
        help="Per pixel: non-zero probabilities of A and B, θ and both weight maps of the "
        "current direction and digit.",
    )
    settings = ed.l2_frame(results)
    tables.download_csv(
        "Download l2 choices (CSV)",
        settings,
        container=cols[2],
        file_name="flda_digits_l2.csv",
        key="dig_dl_l2",
        help="The ridge penalty of every fit and the cross-validation errors behind it.",
    )
    with st.expander("How the numbers are computed"):
        st.markdown(
            "* S-LS, S-LR, FLDA-Q and FLDA-L are trained on **all** source images and "
            "tested on **all** target images; FLDA also sees the target images, without "
            "labels, to estimate θ = max(0, 1 − ζ / η) per pixel from the non-zero rates "
            "η (source) and ζ (target) with threshold ε.\n"
            "* T-LR is trained on labelled target images; its error is 3-fold "
            "cross-validated so it is never tested on its own training images.\n"
            "* l2 by cross-validation: 3 stratified folds of at most 3,000 source images "
            "(target for T-LR), the grid below, ties to the larger l2.\n"
            "* Multiclass: FLDA-L and S-LR are softmax (multinomial) models; FLDA-Q and "
            "S-LS are one-vs-rest least squares."
        )
        st.dataframe(settings, width="stretch", hide_index=True)
