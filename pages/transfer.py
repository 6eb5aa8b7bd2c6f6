"""Transfer parameters: how wrong may θ̂ be? The paper's Table 1 and Figure 4 (section 4.1.3).

Widgets -> ``explorer.experiments.perturbation.run_perturbation`` with the shared cached fit ->
figures built in ``explorer.figures.synthetic``, captions from ``explorer.teaching.captions``.
Widget keys start with ``"tp."`` and are mirrored in the URL.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui import caches, charts, domain_controls, guard, perturbation_controls, state, tables, widgets
from explorer.experiments.perturbation import (
    PAPER_PERTURBATIONS,
    PAPER_TABLE1,
    own_theta_fits,
    own_theta_frame,
    paper_table1_frame,
    run_perturbation,
    sweep_frame,
)
from explorer.teaching import captions
from explorer.experiments.synthetic import matching_paper_setting
from explorer.figures.synthetic import (
    boundary_equation,
    decision_boundary_figure,
    own_theta_line,
    perturbation_error_figure,
    perturbed_boundary_lines,
    theta_figure,
)
from explorer.names import LOSS_TITLES, LOSSES, classifier_name

MAX_FEATURES = 10
MAX_SAMPLES = 100_000
QUICK_SAMPLES = 10_000
SETTINGS = [
    *domain_controls.domain_settings("tp", PAPER_TABLE1, MAX_FEATURES, QUICK_SAMPLES, MAX_SAMPLES),
    *perturbation_controls.sweep_settings(MAX_FEATURES, PAPER_PERTURBATIONS),
]


def preset_values(n_samples):
    """Session values of the paper's Table 1 / Figure 4 setting with ``n_samples`` per domain."""
    return {
        **domain_controls.domain_values("tp", PAPER_TABLE1, n_samples),
        **{f"tp.delta_{d}": 0.0 for d in range(1, MAX_FEATURES + 1)},
        "tp.l2": 0.0,
        "tp.feature": 1,
        "tp.perturbations": list(PAPER_PERTURBATIONS),
        "tp.own_mode": "perturb",
    }


PRESETS = (
    (
        "Table 1 / Figure 4 (100,000 samples)",
        100_000,
        captions.paper_preset_help(PAPER_TABLE1, "4.1.3", ", θ̂₁ + 0, 0.1, 0.2, 0.3"),
    ),
    (
        "Quick default (10,000 samples)",
        QUICK_SAMPLES,
        "The same setting with 10,000 samples per domain: every change re-runs instantly.",
    ),
)


def keep_feature_valid(n_features):
    """The perturbed feature must exist after the number of features shrinks."""
    if st.session_state.get("tp.feature", 1) > n_features:
        st.session_state["tp.feature"] = 1


def draw_controls():
    """Presets, data and perturbation widgets in the sidebar (hidden when presenting)."""
    with st.sidebar:
        st.subheader("Paper presets")
        for label, n, help_text in PRESETS:
            st.button(
                label, width="stretch", on_click=state.apply_values, args=(preset_values(n),), help=help_text
            )
        domain_controls.draw_domain_controls(
            "tp",
            MAX_FEATURES,
            MAX_SAMPLES,
            features_help="With 2 features the boundaries are plotted (Figure 4); with more, the "
            "error curve and tables still work.",
            on_n_features_change=keep_feature_valid,
        )
        domain_controls.draw_l2_control("tp")
        perturbation_controls.draw_sweep_controls()


def figure_settings(data_key, theta_own=None, shift=None):
    """The settings line of this page's figures: the data, the ℓ2 of the fits (FLDA's
    transfer model here is dropout, whose θ̂ the page perturbs), and "your θ" when it is drawn."""
    from explorer.figures.export import domain_settings_line

    own = ("your θ = " + ", ".join(f"{t:.2f}" for t in theta_own),) if theta_own is not None else ()
    l2 = float(st.session_state["tp.l2"])
    return domain_settings_line(data_key, shift=shift, l2=l2, extra=own, transfer="dropout")


def show_boundaries(data_key, result, own_fits, theta_own):
    """Figure 4 (2 features) or the θ bars."""
    drawn = theta_own if own_fits else None
    if len(data_key[4]) != 2:
        charts.show_chart(
            theta_figure(data_key[4], result.theta_hat, drawn),
            "tp_theta",
            "true estimated and chosen dropout per feature",
            "Decision boundaries need exactly 2 features; shown instead: the true θ (open bars), "
            "FLDA's estimate θ̂ (filled) and your θ (diamonds).",
            settings=figure_settings(data_key, drawn),
        )
        return
    panels = []
    for loss in LOSSES:
        naive = [result.naive.classifiers[classifier_name(f, loss)] for f in ("source", "target")]
        lines = perturbed_boundary_lines(naive, result.chosen_fits(loss), result.feature)
        panels.append(
            (LOSS_TITLES[loss], lines + ([own_theta_line(own_fits[loss], theta_own)] if own_fits else []))
        )
    charts.show_chart(
        decision_boundary_figure(caches.cached_lattice_counts(data_key), panels, height=600),
        "tp_boundaries",
        "figure 4 decision boundaries with a perturbed theta",
        captions.figure4_caption(result, bool(own_fits)),
        settings=figure_settings(data_key, drawn),
    )


def show_curve(data_key, result, paper):
    """Table 1 as a curve: FLDA's target error against the perturbation of θ̂."""
    sweep, naive, feature = result.sweep, result.naive.classifiers, result.feature
    charts.show_chart(
        perturbation_error_figure(
            sweep, list(naive.values()), feature, paper=paper.errors if paper else None
        ),
        "tp_curve",
        "table 1 target error against the perturbation of theta",
        captions.perturbation_curve_caption(
            sweep, naive, feature, float(result.theta_hat[feature]), result.chosen
        ),
        settings=figure_settings(data_key, shift=f"θ̂{feature + 1} shifted"),
    )


def show_tables(data_key, result, paper):
    """Table 1 of this run and as published, one above the other (side by side, their 6+
    numeric columns do not fit half a laptop screen)."""
    st.subheader("Table 1, this run")
    ours = result.table1()
    tables.show_table(
        ours,
        captions.table1_run_caption(data_key, result),
        "Download table (CSV)",
        "flda_table1.csv",
        "tp_download_table",
        "This run's Table 1 as CSV.",
        hide_index=False,
        column_config=tables.number_columns(ours, columns=ours.columns),
    )
    tables.download_csv(
        "Download error curve (CSV)",
        lambda: sweep_frame(result.sweep, result.feature),
        file_name="flda_perturbation_curve.csv",
        key="tp_download_curve",
        help="Every point of the error curve (both losses) as CSV.",
    )
    st.subheader("Table 1, as published")
    published = paper_table1_frame()
    st.dataframe(
        published, width="stretch", column_config=tables.number_columns(published, columns=published.columns)
    )
    st.caption(captions.paper_table1_caption(result, data_key, paper is not None))


def show_own_table(result, own_fits):
    """The fits at your θ, right under the sliders that set it (inside their fragment)."""
    if not own_fits:
        return
    two = len(result.theta_hat) == 2
    own = own_theta_frame(own_fits, lambda f: boundary_equation(f.coef[:2], f.intercept) if two else "")
    columns = tables.number_columns(own, columns=("target error", "source error"))
    st.dataframe(own, hide_index=True, width="stretch", column_config=columns)
    st.caption(
        "FLDA fitted with the θ from the sliders, for comparison with the θ̂ + 0 column of Table 1 below."
    )


def show_feasibility(result):
    """Warn about skipped perturbations; False (with an error) when none is feasible."""
    if result.skipped:
        st.warning(
            f"Perturbations {', '.join(f'{d:+g}' for d in result.skipped)} skipped: "
            f"θ̂{result.feature + 1} = {result.theta_hat[result.feature]:.3f} plus them leaves [0, 1]."
        )
    if not result.curve:
        st.error(
            "No perturbation in the chosen range keeps θ within [0, 1]. Widen the range of the "
            "error curve in the sidebar."
        )
    return bool(result.curve)


def main():
    """Draw the page."""
    state.restore_from_url(SETTINGS)
    present = state.presentation_mode()
    st.title("Transfer parameters")
    if not present:
        st.markdown(
            "FLDA first **estimates** the dropout θ̂ from unlabelled target data, then "
            "trains on source data under that transfer model. How much does a wrong θ̂ "
            "cost? Shift θ̂ and watch the decision boundary and the target error "
            "(paper section 4.1.3, Table 1 and Figure 4)."
        )
        charts.sidebar_controls(draw_controls)
    data_key, problems = domain_controls.read_domain_config("tp")
    n_features = int(st.session_state["tp.n_features"])
    own_settings = perturbation_controls.own_theta_settings(data_key[4] if data_key else (0.0,) * n_features)
    state.restore_from_url(own_settings)
    if guard.show_problems(problems):
        return state.write_to_url(SETTINGS + own_settings)
    paper = matching_paper_setting(data_key[0], data_key[1], data_key[4], candidates=(PAPER_TABLE1,))
    domain_controls.show_paper_setting(paper)
    with guard.error_boundary("fitting the classifiers", "Could not fit the classifiers.") as outcome:
        with widgets.progress_bar("Fitting classifiers…") as progress:
            result = run_perturbation(
                caches.cached_domains(*data_key),
                min(int(st.session_state["tp.feature"]), n_features) - 1,
                st.session_state["tp.perturbations"],
                st.session_state["tp.curve_range"],
                float(st.session_state["tp.l2"]),
                fit=caches.linear_fitter(data_key),
                progress=progress,
                chosen_only=charts.first_chart_pending(),  # a tab's first run ends with Figure 4
            )
    if outcome.failed or not show_feasibility(result):
        return state.write_to_url(SETTINGS + own_settings)
    show_own_theta(data_key, result, own_settings, present)
    show_curve(data_key, result, paper)
    show_tables(data_key, result, paper)
    charts.show_paper_notes("transfer")
    charts.show_equations()


@st.fragment
def show_own_theta(data_key, result, own_settings, present):
    """What "your θ" touches: its sliders, Figure 4 and its table.  A slider step
    re-runs only this part (neither the sweep nor the curve and tables below it)."""
    if not present:
        st.subheader("Your θ")
        perturbation_controls.draw_own_theta_controls(result.theta_hat, data_key[4])
    theta_own = perturbation_controls.own_theta(result.theta_hat)
    state.write_to_url(SETTINGS + own_settings)
    l2 = float(st.session_state["tp.l2"])
    own_fits = own_theta_fits(theta_own, result.theta_hat, l2, fit=caches.linear_fitter(data_key))
    show_own_table(result, own_fits)
    show_boundaries(data_key, result, own_fits, theta_own)


guard.run_page(main)
