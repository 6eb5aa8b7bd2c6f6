"""Synthetic domains: the paper's Figures 1 and 2 (section 4.1.1), live.

Widgets -> ``explorer.experiments.synthetic.fit_classifiers`` with the shared cached fit ->
figures built in ``explorer.figures.synthetic``.  Widget keys start with
``"syn."`` and are mirrored in the URL.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui import caches, charts, domain_controls, guard, navigation, state, tables, widgets
from explorer.data.domain_config import SHIFT_PRESETS
from explorer.teaching.equations import equation_link
from explorer.teaching.captions import (
    figure2_reference_sentence,
    synthetic_figure_caption,
    theta_recovery_sentence,
)
from explorer.experiments.perturbation import table1_unperturbed_errors
from explorer.experiments.synthetic import (
    PAPER_FIGURE1,
    PAPER_FIGURE2,
    classifier_errors,
    closest_to_oracle,
    fit_classifiers,
    matching_paper_setting,
    theta_table,
    transfer_errors,
)
from explorer.experiments.transfer_models import transfer_parameter_frame
from explorer.figures.synthetic import boundary_lines, decision_boundary_figure, theta_figure
from explorer.names import LOSS_TITLES, LOSSES
from flda_core.transfer_models import TRANSFER_MODELS

MAX_FEATURES = 50
MAX_SAMPLES = 100_000
QUICK_SAMPLES = 10_000
L2_OPTIONS = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
LOSS_OPTIONS = ("both", "quadratic", "logistic")
LOSS_LABELS = {
    "both": "both, side by side",
    "quadratic": "quadratic (S-LS, T-LS, FLDA-Q)",
    "logistic": "logistic (S-LR, T-LR, FLDA-L)",
}

SETTINGS = domain_controls.domain_settings("syn", PAPER_FIGURE1, MAX_FEATURES, QUICK_SAMPLES, MAX_SAMPLES) + [
    state.Setting("syn.loss", "both", options=LOSS_OPTIONS),
    state.Setting("syn.l2", 0.0, options=L2_OPTIONS),
    state.Setting("syn.show_source", False),
    state.Setting("syn.shift", "dropout", options=("dropout", *SHIFT_PRESETS)),
    widgets.transfer_setting("syn"),
]
#: The shift presets (issue 15): shift -> (button label, FLDA transfer model loaded, what it is).
SHIFT_BUTTONS = {
    "appearance": (
        "Features appear in the target",
        "two-sided",
        "Four binary features; in the target every 0 of feature 1 becomes 1 with "
        "probability {phi}. No feature gets rarer, so dropout's θ̂ is (nearly) 0; "
        "the two-sided model estimates the appearance rate φ.",
    ),
    "rate": (
        "Count rates change",
        "rate",
        "Poisson counts (rates {rates}); in the target the rate of every feature is "
        "multiplied by {factor}. The rate model estimates that factor r.",
    ),
}
#: FLDA variants compared on the shift presets.
COMPARED_TRANSFERS = ("dropout", "two-sided", "rate")


def preset_values(setting, n_samples):
    """Session values that reproduce a :class:`PaperSetting` with ``n_samples`` per domain."""
    return {
        **domain_controls.domain_values("syn", setting, n_samples),
        "syn.loss": "both",
        "syn.l2": 0.0,
        "syn.shift": "dropout",
        "syn.transfer": "dropout",
    }


def shift_text(shift):
    """What the data of a shift preset are, with the numbers of its generator."""
    _, params, true = SHIFT_PRESETS[shift]
    return SHIFT_BUTTONS[shift][2].format(
        phi=f"{true[0]:g}",
        factor=" / ".join(f"{v:g}" for v in true),
        rates=" vs ".join("/".join(f"{v:g}" for v in row) for row in params),
    )


def shift_values(shift):
    """Session values of a shift preset: its data, 10,000 samples, the matching transfer."""
    return {
        "syn.shift": shift,
        "syn.transfer": SHIFT_BUTTONS[shift][1],
        "syn.loss": "both",
        "syn.l2": 0.0,
        "syn.n_source": QUICK_SAMPLES,
        "syn.n_target": QUICK_SAMPLES,
    }


def draw_controls():
    """Presets and data/classifier widgets in the sidebar (hidden when presenting)."""
    with st.sidebar:
        st.subheader("Paper presets")
        st.button(
            "Figure 1: Bernoulli",
            width="stretch",
            on_click=state.apply_values,
            args=(preset_values(PAPER_FIGURE1, PAPER_FIGURE1.n_source),),
            help="Load the exact setting of the paper's Figure 1 (section 4.1.1): "
            "Bernoulli 0.7/0.3, θ = [0.5, 0], 100,000 samples per domain. " + PAPER_FIGURE1.summary,
        )
        st.button(
            "Figure 2: Poisson",
            width="stretch",
            on_click=state.apply_values,
            args=(preset_values(PAPER_FIGURE2, PAPER_FIGURE2.n_source),),
            help="Load the exact setting of the paper's Figure 2 (section 4.1.1): "
            "Poisson rates 2/6, θ = [0.5, 0], 100,000 samples per domain. " + PAPER_FIGURE2.summary,
        )
        st.button(
            "Quick default (10,000 samples)",
            width="stretch",
            on_click=state.apply_values,
            args=(preset_values(PAPER_FIGURE1, QUICK_SAMPLES),),
            help="Figure 1's data model with 10,000 samples per domain: every change re-runs instantly.",
        )
        st.subheader("Beyond dropout")
        for shift, (label, transfer, _) in SHIFT_BUTTONS.items():
            st.button(
                label,
                width="stretch",
                on_click=state.apply_values,
                args=(shift_values(shift),),
                key=f"syn_preset_{shift}",
                help=shift_text(shift) + f" Loads FLDA with the {transfer} transfer "
                "model; 10,000 samples per domain.",
            )

        if st.session_state["syn.shift"] == "dropout":
            domain_controls.draw_domain_controls(
                "syn",
                MAX_FEATURES,
                MAX_SAMPLES,
                features_help="With 2 features the data and decision boundaries are "
                "plotted; with more (up to 50) only the error table and θ "
                "are shown.",
            )
        else:
            st.subheader("Data")
            st.info(
                f"**{SHIFT_BUTTONS[st.session_state['syn.shift']][0]}.** "
                + shift_text(st.session_state["syn.shift"]),
                icon=":material/info:",
            )
            st.button(
                "Back to dropout data (Figure 1)",
                width="stretch",
                on_click=state.apply_values,
                key="syn_back_to_dropout",
                args=(preset_values(PAPER_FIGURE1, QUICK_SAMPLES),),
                help="Leave the preset and edit the data model again.",
            )

        st.subheader("Classifiers")
        widgets.transfer_control(
            "syn",
            note=(
                "Imputation needs missing values: the synthetic targets have none, so with it "
                "FLDA is the source classifier."
            ),
        )
        st.radio(
            "Loss",
            LOSS_OPTIONS,
            format_func=LOSS_LABELS.get,
            key="syn.loss",
            help="Which loss to plot: quadratic (least squares, FLDA-Q, Algorithm 1) "
            "or logistic (FLDA-L, Algorithm 2), or both side by side as in the "
            "paper. The table always lists all six classifiers.",
        )
        st.select_slider(
            "ℓ2 penalty",
            options=L2_OPTIONS,
            key="syn.l2",
            format_func=lambda v: "0 (none, as in the paper)" if v == 0 else f"{v:g}",
            help="Ridge penalty λ‖w‖² added to the mean (expected) loss of every "
            "classifier; the intercept is not penalised. The paper's artificial "
            "experiments use none.",
        )
        st.checkbox(
            "Also show source points",
            key="syn.show_source",
            help="Overlay the labelled source samples as open diamonds; the "
            "paper's figures show the target domain only.",
        )


def shift_caption(shift, errors):
    """What the current numbers of a shift preset show (:func:`transfer_errors`)."""
    parts = []
    for loss in LOSSES:
        rows = errors[errors["loss"] == loss]
        best, error, oracle = closest_to_oracle(errors, loss)
        source = float(rows["target error"].iloc[0])
        flda = ", ".join(
            f"{transfer} {error:.3f}"
            for transfer, error in zip(rows["transfer"], rows["target error"])
            if transfer
        )
        parts.append(
            f"{loss} loss: source "
            f"{rows['classifier'].iloc[0]} {source:.3f}, oracle "
            f"{rows['classifier'].iloc[-1]} {oracle:.3f}; FLDA with {flda} — closest "
            f"to the oracle: **{best}** ({error - oracle:+.3f})"
        )
    return (
        f"Target errors of FLDA with each transfer model on the *{SHIFT_BUTTONS[shift][0]}* "
        "data (this run; the paper has no such experiment, it goes beyond its dropout "
        "model). " + "; ".join(parts) + "."
    )


def figure_caption(data_key, result):
    """What to look at in the scatter plot (Figures 1-2), every claim computed from this run."""
    distribution, params, _, n_target, theta, _ = data_key
    if distribution in SHIFT_PRESETS:
        return (
            f"Target domain of the *{SHIFT_BUTTONS[distribution][0]}* preset: marker "
            "area ∝ number of samples, one colour per class; lines are the decision "
            "boundaries (orange dashed = source classifier, purple dotted = oracle, "
            f"green solid = FLDA with the {result.transfer} transfer model). Look for "
            "the green line moving from the orange one towards the purple one."
        )
    return synthetic_figure_caption(distribution, params, theta, result, n_target)


def error_caption(paper, data_key, result):
    """How to read the error table, honest about what the paper reports."""
    text = (
        "Target error = fraction of misclassified target samples (the oracle's is "
        "its training error, as in the paper); source error for contrast. "
    )
    if paper is None:
        return text + "The paper reports no numbers for this configuration."
    if paper is PAPER_FIGURE2:
        ours = {name: fit.target_error for name, fit in result.classifiers.items()}
        return text + figure2_reference_sentence(ours, data_key[2], data_key[3])
    return text + (
        f"The paper's numbers are for {paper.n_source:,} samples per domain; this "
        f"run uses {data_key[2]:,} source and {data_key[3]:,} target samples."
    )


def figure_settings(data_key, result):
    """The settings line of this page's figures: the data, the ℓ2 and the transfer model
    the result was fitted with (:func:`explorer.figures.export.settings_line`)."""
    from explorer.figures.export import domain_settings_line

    return domain_settings_line(data_key, l2=float(st.session_state["syn.l2"]), transfer=result.transfer)


def show_figure(data_key, result, paper):
    """Figures 1-2 (2 features) or a note that only the tables are shown."""
    theta = data_key[4]
    if len(theta) != 2:
        st.info(
            f"{len(theta)} feature(s): the scatter plot needs exactly 2 features, so "
            "only the errors and the transfer-model estimates are shown.",
            icon=":material/info:",
        )
        return
    loss_choice = st.session_state["syn.loss"]
    losses = LOSSES if loss_choice == "both" else (loss_choice,)
    target_counts = caches.cached_lattice_counts(data_key)
    source_counts = caches.cached_lattice_counts(data_key, "source")
    panels = [(LOSS_TITLES[loss], boundary_lines(result.for_loss(loss))) for loss in losses]
    fig = decision_boundary_figure(
        target_counts, panels, source_counts=source_counts if st.session_state["syn.show_source"] else None
    )
    charts.show_chart(
        fig,
        "syn_figure",
        f"{'figure 1' if data_key[0] == 'bernoulli' else 'figure 2'} "
        "decision boundaries on the target domain",
        figure_caption(data_key, result),
        settings=figure_settings(data_key, result),
    )


def show_tables(data_key, result, paper):
    """Errors (with the paper's numbers) and the true versus estimated θ."""
    references = {}
    if paper is not None:
        references[f"paper, {paper.label.split(' (')[0]}"] = paper.errors
        if paper is PAPER_FIGURE2:
            references["paper, Table 1"] = table1_unperturbed_errors()
    errors = classifier_errors(result, references)
    st.subheader("Target errors")
    st.dataframe(errors, hide_index=True, width="stretch", column_config=tables.number_columns(errors))
    st.caption(error_caption(paper, data_key, result))
    tables.download_csv(
        "Download errors (CSV)",
        errors,
        file_name="flda_synthetic_errors.csv",
        key="syn_download_errors",
        help="The table above as CSV, for your own analysis.",
    )
    distribution, params = data_key[0], data_key[1]
    if result.transfer != "dropout" or distribution in SHIFT_PRESETS:
        show_transfer_parameters(data_key, result)
        return
    thetas = theta_table(result.theta_true, result.theta_hat, params, distribution)
    st.subheader("Dropout: true θ vs estimated θ̂")
    st.dataframe(thetas, hide_index=True, width="stretch", column_config=tables.number_columns(thetas))
    st.caption(
        "FLDA's first stage (section 3.3.1, "
        f"{equation_link('theta_hat')}): θ̂ = max(0, 1 − ζ/η) per feature, from "
        "how often feature d is non-zero in the target (ζ) and in the "
        "source (η). " + theta_recovery_sentence(result.theta_true, result.theta_hat)
    )
    tables.download_csv(
        "Download θ table (CSV)",
        thetas,
        file_name="flda_synthetic_theta.csv",
        key="syn_download_theta",
        help="True and estimated dropout per feature as CSV.",
    )
    if len(result.theta_true) > 2:
        charts.show_chart(
            theta_figure(result.theta_true, result.theta_hat),
            "syn_theta_figure",
            "true and estimated dropout per feature",
            "Open bars: the true dropout θ per feature; filled bars: FLDA's estimate θ̂ "
            "(section 3.3.1). Bars of equal height mean the transfer model was recovered; "
            "features with θ̂ = 1 get weight 0. "
            + theta_recovery_sentence(result.theta_true, result.theta_hat),
            settings=figure_settings(data_key, result),
        )


def show_transfer_parameters(data_key, result):
    """Estimated (and true) parameters of FLDA's transfer model, like the θ̂ table."""
    pair = caches.cached_domains(*data_key)
    truth = getattr(pair, "true_params", {"theta": pair.theta_true})
    frame = transfer_parameter_frame(result.transfer, result.transfer_params, truth)
    st.subheader(f"Transfer model '{result.transfer}': estimated parameters")
    st.dataframe(frame, hide_index=True, width="stretch", column_config=tables.number_columns(frame))
    note = ""
    if result.transfer == "imputation":
        note = (
            f" Imputation needs missing values: this target has none, so θ̂ (largest "
            f"{result.transfer_params['theta'].max():.3f}) leaves FLDA equal to the source "
            "classifier."
        )
    elif result.transfer == "dropout" and data_key[0] in SHIFT_PRESETS:
        note = (
            f" Dropout can only model features that get rarer: here its largest θ̂ is "
            f"{result.transfer_params['theta'].max():.3f}."
        )
    st.caption(
        "FLDA's first stage with the chosen transfer model: every parameter is "
        "estimated per feature from the unlabelled target and the source. The model: "
        + TRANSFER_MODELS[result.transfer]
        + " 'true' columns show "
        "the values that made the target, where the model shares them." + note
    )
    tables.download_csv(
        "Download parameters (CSV)",
        frame,
        file_name="flda_synthetic_transfer_parameters.csv",
        key="syn_download_transfer",
        help="Estimated (and true) transfer parameters per feature as CSV.",
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
    st.dataframe(errors, hide_index=True, width="stretch", column_config=tables.number_columns(errors))
    st.caption(shift_caption(data_key[0], errors))
    tables.download_csv(
        "Download comparison (CSV)",
        errors,
        file_name="flda_synthetic_transfer_models.csv",
        key="syn_download_compare",
        help="Target error of every classifier and transfer model as CSV.",
    )


def main():
    """Draw the page."""
    state.restore_from_url(SETTINGS)
    present = state.presentation_mode()
    st.title("Synthetic domains")
    if not present:
        st.markdown(
            "Source data from per-class Bernoulli or Poisson distributions; the target "
            "domain is fresh data with feature-wise **dropout** θ. Compare the naive "
            "source classifier, the oracle trained on labelled target data, and FLDA, "
            "which sees the target only without labels (paper section 4.1.1)."
        )
        charts.sidebar_controls(draw_controls)
    widgets.presentation_row(
        "pages/synthetic.py",
        SETTINGS,
        {
            "Figure 1": preset_values(PAPER_FIGURE1, QUICK_SAMPLES),
            "Figure 2": preset_values(PAPER_FIGURE2, QUICK_SAMPLES),
        },
    )
    data_key, problems = domain_controls.read_domain_config("syn")
    state.write_to_url(SETTINGS)
    if guard.show_problems(problems):
        return
    distribution, params, _, n_target, theta, _ = data_key
    paper = matching_paper_setting(distribution, params, theta)
    # One slot whether or not a paper setting matches: the elements below keep their
    # places, so leaving a paper preset does not rebuild the charts and tables below.
    with widgets.stable_slot():
        if paper is not None:
            st.info(f"**Paper setting: {paper.label}.** {paper.summary}", icon=":material/menu_book:")
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
    show_figure(data_key, result, paper)
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
