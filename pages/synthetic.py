"""Synthetic domains: the paper's Figures 1 and 2 (section 4.1.1), live.

Widgets -> ``flda_core.experiments.synthetic.fit_classifiers`` with the shared cached fit ->
figures built in ``flda_core.figures.synthetic``.  Widget keys start with
``"syn."`` and are mirrored in the URL.
"""

from __future__ import annotations

import streamlit as st

import ui_common
from flda_core.equations import equation_link
from flda_core.experiments.captions import (figure2_reference_sentence, synthetic_figure_caption,
                                            theta_recovery_sentence)
from flda_core.experiments.perturbation import table1_unperturbed_errors
from flda_core.experiments.synthetic import (PAPER_FIGURE1, PAPER_FIGURE2, classifier_errors,
                                             fit_classifiers, matching_paper_setting,
                                             theta_table)
from flda_core.figures.synthetic import (boundary_lines, decision_boundary_figure, lattice_counts,
                                         theta_figure)
from flda_core.names import LOSS_TITLES, LOSSES

MAX_FEATURES = 50
MAX_SAMPLES = 100_000
QUICK_SAMPLES = 10_000
L2_OPTIONS = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
LOSS_OPTIONS = ("both", "quadratic", "logistic")
LOSS_LABELS = {"both": "both, side by side", "quadratic": "quadratic (S-LS, T-LS, FLDA-Q)",
               "logistic": "logistic (S-LR, T-LR, FLDA-L)"}

SETTINGS = ui_common.domain_settings("syn", PAPER_FIGURE1, MAX_FEATURES, QUICK_SAMPLES,
                                     MAX_SAMPLES) + [
    ui_common.Setting("syn.loss", "both", options=LOSS_OPTIONS),
    ui_common.Setting("syn.l2", 0.0, options=L2_OPTIONS),
    ui_common.Setting("syn.show_source", False),
]


def preset_values(setting, n_samples):
    """Session values that reproduce a :class:`PaperSetting` with ``n_samples`` per domain."""
    return {**ui_common.domain_values("syn", setting, n_samples),
            "syn.loss": "both", "syn.l2": 0.0}


@st.cache_data(max_entries=8, show_spinner=False)
def cached_counts(data_key):
    """Lattice counts (first two features) of the target and source domains."""
    pair = ui_common.cached_domains(*data_key)
    return (lattice_counts(pair.X_target, pair.y_target),
            lattice_counts(pair.X_source, pair.y_source))


def draw_controls():
    """Presets and data/classifier widgets in the sidebar (hidden when presenting)."""
    with st.sidebar:
        st.subheader("Paper presets")
        st.button("Figure 1: Bernoulli", width="stretch",
                  on_click=ui_common.apply_values,
                  args=(preset_values(PAPER_FIGURE1, PAPER_FIGURE1.n_source),),
                  help="Load the exact setting of the paper's Figure 1 (section 4.1.1): "
                       "Bernoulli 0.7/0.3, θ = [0.5, 0], 100,000 samples per domain. "
                       + PAPER_FIGURE1.summary)
        st.button("Figure 2: Poisson", width="stretch",
                  on_click=ui_common.apply_values,
                  args=(preset_values(PAPER_FIGURE2, PAPER_FIGURE2.n_source),),
                  help="Load the exact setting of the paper's Figure 2 (section 4.1.1): "
                       "Poisson rates 2/6, θ = [0.5, 0], 100,000 samples per domain. "
                       + PAPER_FIGURE2.summary)
        st.button("Quick default (10,000 samples)", width="stretch",
                  on_click=ui_common.apply_values,
                  args=(preset_values(PAPER_FIGURE1, QUICK_SAMPLES),),
                  help="Figure 1's data model with 10,000 samples per domain: every "
                       "change re-runs instantly.")

        ui_common.draw_domain_controls(
            "syn", MAX_FEATURES, MAX_SAMPLES,
            features_help="With 2 features the data and decision boundaries are plotted; "
                          "with more (up to 50) only the error table and θ are shown.")

        st.subheader("Classifiers")
        st.radio("Loss", LOSS_OPTIONS, format_func=LOSS_LABELS.get, key="syn.loss",
                 help="Which loss to plot: quadratic (least squares, FLDA-Q, Algorithm 1) "
                      "or logistic (FLDA-L, Algorithm 2), or both side by side as in the "
                      "paper. The table always lists all six classifiers.")
        st.select_slider(
            "ℓ2 penalty", options=L2_OPTIONS, key="syn.l2",
            format_func=lambda v: "0 (none, as in the paper)" if v == 0 else f"{v:g}",
            help="Ridge penalty λ‖w‖² added to the mean (expected) loss of every "
                 "classifier; the intercept is not penalised. The paper's artificial "
                 "experiments use none.")
        st.checkbox("Also show source points", key="syn.show_source",
                    help="Overlay the labelled source samples as open diamonds; the "
                         "paper's figures show the target domain only.")


def figure_caption(data_key, result):
    """What to look at in the scatter plot (Figures 1-2), every claim computed from this run."""
    distribution, params, _, _, theta, _ = data_key
    return synthetic_figure_caption(distribution, params, theta, result)


def error_caption(paper, data_key, result):
    """How to read the error table, honest about what the paper reports."""
    text = ("Target error = fraction of misclassified target samples (the oracle's is "
            "its training error, as in the paper); source error for contrast. ")
    if paper is None:
        return text + "The paper reports no numbers for this configuration."
    if paper is PAPER_FIGURE2:
        ours = {name: fit.target_error for name, fit in result.classifiers.items()}
        return text + figure2_reference_sentence(ours, data_key[2], data_key[3])
    return text + (f"The paper's numbers are for {paper.n_source:,} samples per domain; this "
                   f"run uses {data_key[2]:,} source and {data_key[3]:,} target samples.")


def show_figure(data_key, result, paper):
    """Figures 1-2 (2 features) or a note that only the tables are shown."""
    theta = data_key[4]
    if len(theta) != 2:
        st.info(f"{len(theta)} feature(s): the scatter plot needs exactly 2 features, so "
                "only the errors and the dropout estimates are shown.", icon=":material/info:")
        return
    loss_choice = st.session_state["syn.loss"]
    losses = LOSSES if loss_choice == "both" else (loss_choice,)
    target_counts, source_counts = cached_counts(data_key)
    panels = [(LOSS_TITLES[loss], boundary_lines(result.for_loss(loss)))
              for loss in losses]
    fig = decision_boundary_figure(
        target_counts, panels,
        source_counts=source_counts if st.session_state["syn.show_source"] else None)
    ui_common.show_chart(fig, "syn_figure", f"{'figure 1' if data_key[0] == 'bernoulli' else 'figure 2'} "
                         "decision boundaries on the target domain",
                         figure_caption(data_key, result))


def show_tables(data_key, result, paper):
    """Errors (with the paper's numbers) and the true versus estimated θ."""
    references = {}
    if paper is not None:
        references[f"paper, {paper.label.split(' (')[0]}"] = paper.errors
        if paper is PAPER_FIGURE2:
            references["paper, Table 1"] = table1_unperturbed_errors()
    errors = classifier_errors(result, references)
    st.subheader("Target errors")
    st.dataframe(errors, hide_index=True, width="stretch",
                 column_config=ui_common.number_columns(errors))
    st.caption(error_caption(paper, data_key, result))
    st.download_button("Download errors (CSV)", errors.to_csv(index=False),
                       file_name="flda_synthetic_errors.csv", mime="text/csv",
                       key="syn_download_errors",
                       help="The table above as CSV, for your own analysis.")
    distribution, params = data_key[0], data_key[1]
    thetas = theta_table(result.theta_true, result.theta_hat, params, distribution)
    st.subheader("Dropout: true θ vs estimated θ̂")
    st.dataframe(thetas, hide_index=True, width="stretch",
                 column_config=ui_common.number_columns(thetas))
    st.caption("FLDA's first stage (section 3.3.1, "
               f"{equation_link('theta_hat', label='the estimate θ̂')}): θ̂_d = max(0, 1 − "
               "ζ_d/η_d) from how often feature d is non-zero in the target (ζ) and in the "
               "source (η). " + theta_recovery_sentence(result.theta_true, result.theta_hat))
    st.download_button("Download θ table (CSV)", thetas.to_csv(index=False),
                       file_name="flda_synthetic_theta.csv", mime="text/csv",
                       key="syn_download_theta",
                       help="True and estimated dropout per feature as CSV.")
    if len(result.theta_true) > 2:
        ui_common.show_chart(
            theta_figure(result.theta_true, result.theta_hat), "syn_theta_figure",
            "true and estimated dropout per feature",
            "Open bars: the true dropout θ per feature; filled bars: FLDA's estimate θ̂ "
            "(section 3.3.1). Bars of equal height mean the transfer model was recovered; "
            "features with θ̂ = 1 get weight 0. "
            + theta_recovery_sentence(result.theta_true, result.theta_hat))


def main():
    """Draw the page."""
    ui_common.restore_from_url(SETTINGS)
    present = ui_common.presentation_mode()
    st.title("Synthetic domains")
    if not present:
        st.markdown(
            "Source data from per-class Bernoulli or Poisson distributions; the target "
            "domain is fresh data with feature-wise **dropout** θ. Compare the naive "
            "source classifier, the oracle trained on labelled target data, and FLDA, "
            "which sees the target only without labels (paper section 4.1.1).")
        draw_controls()
    ui_common.presentation_row("pages/synthetic.py", SETTINGS, {
        "Figure 1": preset_values(PAPER_FIGURE1, QUICK_SAMPLES),
        "Figure 2": preset_values(PAPER_FIGURE2, QUICK_SAMPLES)})
    data_key, problems = ui_common.read_domain_config("syn")
    ui_common.write_to_url(SETTINGS)
    if ui_common.show_problems(problems):
        return
    distribution, params, _, _, theta, _ = data_key
    paper = matching_paper_setting(distribution, params, theta)
    if paper is not None:
        st.info(f"**Paper setting: {paper.label}.** {paper.summary}", icon=":material/menu_book:")
    try:
        with ui_common.progress_bar("Fitting classifiers…") as progress:
            result = fit_classifiers(ui_common.cached_domains(*data_key),
                                     l2=float(st.session_state["syn.l2"]),
                                     fit=ui_common.linear_fitter(data_key), progress=progress)
    except ValueError as error:
        st.error(f"Could not fit the classifiers: {error} Change the data settings in the "
                 "sidebar.")
        return
    show_figure(data_key, result, paper)
    show_tables(data_key, result, paper)
    ui_common.page_link("pages/transfer.py", label="What if θ̂ were wrong? Perturb it on the "
                        "Transfer parameters page (Table 1, Figure 4)", icon=":material/tune:")
    ui_common.show_paper_notes("synthetic")
    ui_common.show_equations()


main()
