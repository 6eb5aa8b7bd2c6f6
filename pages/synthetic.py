"""Synthetic domains: the paper's Figures 1 and 2 (section 4.1.1), live.

Widgets -> ``explorer.experiments.synthetic.fit_classifiers`` with the shared cached fit ->
figures built in ``explorer.figures.synthetic``, captions from ``explorer.teaching.captions``.
Widget keys start with ``"syn."`` and are mirrored in the URL.
"""

from __future__ import annotations

import functools


import streamlit as st

from explorer.ui import caches, charts, domain_controls, guard, navigation, state, tables, widgets
from explorer.data.domain_config import SHIFT_PRESETS
from explorer.teaching import captions
from explorer.experiments.perturbation import table1_unperturbed_errors
from explorer.experiments.synthetic import (
    PAPER_FIGURE1,
    PAPER_FIGURE2,
    classifier_errors,
    fit_classifiers,
    matching_paper_setting,
    theta_table,
    transfer_errors,
)
from explorer.experiments.transfer_models import transfer_parameter_frame
from explorer.figures.synthetic import boundary_lines, decision_boundary_figure, theta_figure
from explorer.names import LOSS_TITLES, LOSSES

MAX_FEATURES = 50
MAX_SAMPLES = 100_000
QUICK_SAMPLES = 10_000
LOSS_LABELS = {
    "both": "both, side by side",
    "quadratic": "quadratic (S-LS, T-LS, FLDA-Q)",
    "logistic": "logistic (S-LR, T-LR, FLDA-L)",
}
#: The shift presets (issue 15): shift -> the FLDA transfer model its button loads.
SHIFT_TRANSFERS = {"appearance": "two-sided", "rate": "rate"}
#: FLDA variants compared on the shift presets.
COMPARED_TRANSFERS = ("dropout", "two-sided", "rate")
# the shift first: it says what the θ setting holds (a rate factor on the "rate" preset)
SETTINGS = [
    state.Setting("syn.shift", "dropout", options=("dropout", *SHIFT_PRESETS)),
    *domain_controls.domain_settings("syn", PAPER_FIGURE1, MAX_FEATURES, QUICK_SAMPLES, MAX_SAMPLES),
    state.Setting("syn.loss", "both", options=tuple(LOSS_LABELS)),
    state.Setting("syn.show_source", False),
    widgets.transfer_setting("syn"),
]


def preset_values(setting, n_samples):
    """Session values that reproduce a :class:`PaperSetting` with ``n_samples`` per domain."""
    values = domain_controls.domain_values("syn", setting, n_samples)
    return {**values, "syn.loss": "both", "syn.l2": 0.0, "syn.shift": "dropout", "syn.transfer": "dropout"}


def shift_values(shift):
    """Session values of a shift preset: its data, 10,000 samples, the matching transfer."""
    values = domain_controls.shift_values("syn", shift, QUICK_SAMPLES)
    return {**values, "syn.transfer": SHIFT_TRANSFERS[shift], "syn.loss": "both", "syn.l2": 0.0}


PRESETS = (
    (
        "Figure 1: Bernoulli",
        preset_values(PAPER_FIGURE1, 100_000),
        captions.paper_preset_help(PAPER_FIGURE1, "4.1.1"),
    ),
    (
        "Figure 2: Poisson",
        preset_values(PAPER_FIGURE2, 100_000),
        captions.paper_preset_help(PAPER_FIGURE2, "4.1.1"),
    ),
    (
        "Quick default (10,000 samples)",
        preset_values(PAPER_FIGURE1, QUICK_SAMPLES),
        "Figure 1's data model with 10,000 samples per domain: every change re-runs instantly.",
    ),
)


def draw_controls():
    """Presets and data/classifier widgets in the sidebar (hidden when presenting)."""
    with st.sidebar:
        st.subheader("Paper presets")
        for label, values, help_text in PRESETS:
            st.button(label, width="stretch", on_click=state.apply_values, args=(values,), help=help_text)
        st.subheader("Beyond dropout")
        for shift, transfer in SHIFT_TRANSFERS.items():
            st.button(
                captions.SHIFT_LABELS[shift],
                width="stretch",
                on_click=state.apply_values,
                args=(shift_values(shift),),
                key=f"syn_preset_{shift}",
                help=captions.shift_preset_text(shift)
                + f" Loads FLDA with the {transfer} transfer model; 10,000 samples per domain.",
            )
        shift = st.session_state["syn.shift"]
        if shift == "dropout":
            domain_controls.draw_domain_controls(
                "syn",
                MAX_FEATURES,
                MAX_SAMPLES,
                features_help="With 2 features the data and decision boundaries are plotted; with "
                "more (up to 50) only the error table and θ are shown.",
            )
        else:
            back = preset_values(PAPER_FIGURE1, QUICK_SAMPLES)
            describe = functools.partial(captions.shift_preset_text, shift)
            domain_controls.draw_shift_controls("syn", shift, captions.SHIFT_LABELS[shift], describe, back)
        st.subheader("Classifiers")
        widgets.transfer_control(
            "syn",
            note="Imputation needs missing values: the synthetic targets have none, so with it "
            "FLDA is the source classifier.",
        )
        st.radio(
            "Loss",
            tuple(LOSS_LABELS),
            format_func=LOSS_LABELS.get,
            key="syn.loss",
            help="Which loss to plot: quadratic (least squares, FLDA-Q, Algorithm 1) or logistic "
            "(FLDA-L, Algorithm 2), or both side by side as in the paper. The table always "
            "lists all six classifiers.",
        )
        domain_controls.draw_l2_control("syn")
        st.checkbox(
            "Also show source points",
            key="syn.show_source",
            help="Overlay the labelled source samples as open diamonds; the paper's figures "
            "show the target domain only.",
        )


def figure_settings(data_key, result):
    """The settings line of this page's figures (the data, ℓ2 and transfer model of the fits)."""
    from explorer.figures.export import domain_settings_line

    return domain_settings_line(data_key, l2=float(st.session_state["syn.l2"]), transfer=result.transfer)


def show_figure(data_key, result):
    """Figures 1-2 (2 features) or a note that only the tables are shown."""
    if len(data_key[4]) != 2:
        st.info(
            f"{len(data_key[4])} feature(s): the scatter plot needs exactly 2 features, so only "
            "the errors and the transfer-model estimates are shown.",
            icon=":material/info:",
        )
        return
    choice = st.session_state["syn.loss"]
    panels = [
        (LOSS_TITLES[loss], boundary_lines(result.for_loss(loss)))
        for loss in LOSSES
        if choice in ("both", loss)
    ]
    source = caches.cached_lattice_counts(data_key, "source") if st.session_state["syn.show_source"] else None
    figure = "figure 1" if data_key[0] == "bernoulli" else "figure 2"
    charts.show_chart(
        decision_boundary_figure(caches.cached_lattice_counts(data_key), panels, source_counts=source),
        "syn_figure",
        f"{figure} decision boundaries on the target domain",
        captions.synthetic_figure_caption(data_key[0], data_key[1], data_key[4], result, data_key[3]),
        settings=figure_settings(data_key, result),
    )


def show_tables(data_key, result, paper):
    """Errors (with the paper's numbers) and the true versus estimated θ."""
    references = {}
    if paper is not None:
        references[f"paper, {paper.label.split(' (')[0]}"] = paper.errors
        if paper is PAPER_FIGURE2:
            references["paper, Table 1"] = table1_unperturbed_errors()
    st.subheader("Target errors")
    tables.show_table(
        classifier_errors(result, references),
        captions.synthetic_error_caption(paper, data_key, result),
        "Download errors (CSV)",
        "flda_synthetic_errors.csv",
        "syn_download_errors",
        "The table above as CSV, for your own analysis.",
    )
    if result.transfer != "dropout" or data_key[0] in SHIFT_PRESETS:
        pair = caches.cached_domains(*data_key)
        truth = getattr(pair, "true_params", {"theta": pair.theta_true})
        st.subheader(f"Transfer model '{result.transfer}': estimated parameters")
        tables.show_table(
            transfer_parameter_frame(result.transfer, result.transfer_params, truth),
            captions.transfer_parameters_caption(result, data_key[0] in SHIFT_PRESETS),
            "Download parameters (CSV)",
            "flda_synthetic_transfer_parameters.csv",
            "syn_download_transfer",
            "Estimated (and true) transfer parameters per feature as CSV.",
        )
        return
    st.subheader("Dropout: true θ vs estimated θ̂")
    tables.show_table(
        theta_table(result.theta_true, result.theta_hat, data_key[1], data_key[0]),
        captions.theta_table_caption(result.theta_true, result.theta_hat),
        "Download θ table (CSV)",
        "flda_synthetic_theta.csv",
        "syn_download_theta",
        "True and estimated dropout per feature as CSV.",
    )
    if len(result.theta_true) > 2:
        charts.show_chart(
            theta_figure(result.theta_true, result.theta_hat),
            "syn_theta_figure",
            "true and estimated dropout per feature",
            "Open bars: the true dropout θ per feature; filled bars: FLDA's estimate θ̂ (section "
            "3.3.1). Bars of equal height mean the transfer model was recovered; features with "
            "θ̂ = 1 get weight 0. " + captions.theta_recovery_sentence(result.theta_true, result.theta_hat),
            settings=figure_settings(data_key, result),
        )


def show_shift_comparison(data_key):
    """On a shift preset: S-*, FLDA with every compared transfer model, T-*."""
    with widgets.progress_bar("Comparing transfer models…") as progress:
        errors = transfer_errors(
            caches.cached_domains(*data_key),
            COMPARED_TRANSFERS,
            l2=float(st.session_state["syn.l2"]),
            fit=caches.linear_fitter(data_key),
            progress=progress,
        )
    st.subheader("Which transfer model adapts?")
    tables.show_table(
        errors,
        captions.shift_comparison_caption(data_key[0], errors, data_key[3]),
        "Download comparison (CSV)",
        "flda_synthetic_transfer_models.csv",
        "syn_download_compare",
        "Target error of every classifier and transfer model as CSV.",
    )


def main():
    """Draw the page."""
    domain_controls.restore_settings("syn", SETTINGS)
    st.title("Synthetic domains")
    if not state.presentation_mode():
        st.markdown(
            "Source data from per-class Bernoulli or Poisson distributions; the target "
            "domain is fresh data with feature-wise **dropout** θ. Compare the naive "
            "source classifier, the oracle trained on labelled target data, and FLDA, "
            "which sees the target only without labels (paper section 4.1.1)."
        )
        charts.sidebar_controls(draw_controls)
    data_key, problems = domain_controls.read_domain_config("syn")
    state.write_to_url(SETTINGS)
    if guard.show_problems(problems):
        return
    paper = matching_paper_setting(data_key[0], data_key[1], data_key[4])
    domain_controls.show_paper_setting(paper)
    with guard.error_boundary("fitting the classifiers", "Could not fit the classifiers.") as outcome:
        with widgets.progress_bar("Fitting classifiers…") as progress:
            result = fit_classifiers(
                caches.cached_domains(*data_key),
                l2=float(st.session_state["syn.l2"]),
                fit=caches.linear_fitter(data_key),
                progress=progress,
                transfer=st.session_state["syn.transfer"],
            )
    if outcome.failed:
        return
    show_figure(data_key, result)
    show_tables(data_key, result, paper)
    if data_key[0] in SHIFT_PRESETS:
        show_shift_comparison(data_key)
    navigation.page_link(
        "pages/transfer.py",
        label="What if θ̂ were wrong? Perturb it on the Transfer parameters page (Table 1, Figure 4)",
        icon=":material/tune:",
    )
    charts.show_paper_notes("synthetic")
    charts.show_equations()


guard.run_page(main)
