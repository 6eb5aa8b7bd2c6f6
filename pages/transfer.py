"""Transfer parameters: how wrong may θ̂ be? The paper's Table 1 and Figure 4 (section 4.1.3).

Widgets -> ``explorer.experiments.perturbation.run_perturbation`` with the shared cached fit ->
figures built in ``explorer.figures.synthetic``.  Widget keys start with
``"tp."`` and are mirrored in the URL.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer.ui import caches, charts, domain_controls, guard, state, tables, widgets
from explorer.experiments.transfer_models import transfer_parameter_frame
from flda_core.transfer_models import TRANSFER_MODELS
from explorer.experiments.perturbation import (
    CURVE_STEP,
    PAPER_PERTURBATIONS,
    PAPER_TABLE1,
    own_theta_fits,
    own_theta_frame,
    paper_table1_frame,
    run_perturbation,
    sweep_frame,
)
from explorer.teaching.captions import (
    boundary_tilt_sentence,
    figure2_reference_sentence,
    perturbation_curve_caption,
    table1_agreement_sentence,
    table1_errors,
)
from explorer.experiments.synthetic import matching_paper_setting
from explorer.figures.style import FAMILY_COLORS
from explorer.figures.synthetic import (
    BoundaryLine,
    boundary_equation,
    decision_boundary_figure,
    perturbation_error_figure,
    perturbed_boundary_lines,
    theta_figure,
)
from explorer.names import LOSS_TITLES, LOSSES, classifier_name

MAX_FEATURES = 10
MAX_SAMPLES = 100_000
QUICK_SAMPLES = 10_000
PERTURBATION_OPTIONS = tuple(round(k * CURVE_STEP, 2) for k in range(-10, 11))
L2_OPTIONS = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
OWN_MODES = ("perturb", "hand")
OWN_MODE_LABELS = {"perturb": "perturb θ̂ per feature", "hand": "set θ by hand"}


def own_theta_settings(theta_true):
    """URL-mirrored sliders of "your θ": a perturbation of θ̂_d (default 0) and a
    hand-set θ_d (default: the true θ_d) per feature."""
    settings = []
    for d, value in enumerate(theta_true, start=1):
        settings.append(state.Setting(f"tp.delta_{d}", 0.0, lo=-1.0, hi=1.0))
        settings.append(state.Setting(f"tp.theta_{d}", round(float(value), 2), lo=0.0, hi=1.0))
    return settings


SETTINGS = domain_controls.domain_settings("tp", PAPER_TABLE1, MAX_FEATURES, QUICK_SAMPLES, MAX_SAMPLES) + [
    state.Setting("tp.l2", 0.0, options=L2_OPTIONS),
    state.Setting("tp.feature", 1, lo=1, hi=MAX_FEATURES),
    state.Setting("tp.perturbations", list(PAPER_PERTURBATIONS), options=PERTURBATION_OPTIONS),
    state.Setting("tp.curve_range", (-0.5, 0.5), lo=-1.0, hi=1.0, ordered=True),
    state.Setting("tp.own_mode", "perturb", options=OWN_MODES),
    widgets.transfer_setting("tp"),
]


def preset_values(n_samples):
    """Session values of the paper's Table 1 / Figure 4 setting with ``n_samples`` per domain."""
    values = {
        **domain_controls.domain_values("tp", PAPER_TABLE1, n_samples),
        "tp.l2": 0.0,
        "tp.feature": 1,
        "tp.perturbations": list(PAPER_PERTURBATIONS),
        "tp.own_mode": "perturb",
    }
    values.update({f"tp.delta_{d}": 0.0 for d in range(1, MAX_FEATURES + 1)})
    return values


def keep_feature_valid(n_features):
    """The perturbed feature must exist after the number of features shrinks."""
    if st.session_state.get("tp.feature", 1) > n_features:
        st.session_state["tp.feature"] = 1


def draw_controls():
    """Presets, data and perturbation widgets in the sidebar (hidden when presenting)."""
    with st.sidebar:
        st.subheader("Paper presets")
        st.button(
            "Table 1 / Figure 4 (100,000 samples)",
            width="stretch",
            on_click=state.apply_values,
            args=(preset_values(100_000),),
            help="Load the exact setting of the paper's Table 1 and Figure 4 "
            "(section 4.1.3): Poisson rates 2/6, θ = [0.5, 0], 100,000 samples "
            "per domain, θ̂₁ + 0, 0.1, 0.2, 0.3. " + PAPER_TABLE1.summary,
        )
        st.button(
            "Quick default (10,000 samples)",
            width="stretch",
            on_click=state.apply_values,
            args=(preset_values(QUICK_SAMPLES),),
            help="The same setting with 10,000 samples per domain: every change re-runs instantly.",
        )
        domain_controls.draw_domain_controls(
            "tp",
            MAX_FEATURES,
            MAX_SAMPLES,
            features_help="With 2 features the boundaries are plotted (Figure 4); with "
            "more, the error curve and tables still work.",
            on_n_features_change=keep_feature_valid,
        )
        st.select_slider(
            "ℓ2 penalty",
            options=L2_OPTIONS,
            key="tp.l2",
            format_func=lambda v: "0 (none, as in the paper)" if v == 0 else f"{v:g}",
            help="Ridge penalty λ‖w‖² on every classifier's mean loss; the paper uses none.",
        )
        widgets.transfer_control(
            "tp",
            note=(
                "This page perturbs dropout's θ̂ (section 4.1.3), which only the dropout model "
                "has: another model is fitted unperturbed and shown beside the sweep."
            ),
        )
        st.subheader("Perturbation sweep")
        n = int(st.session_state["tp.n_features"])
        st.selectbox(
            "Perturbed feature",
            list(range(1, n + 1)),
            key="tp.feature",
            help="Whose estimated dropout θ̂ gets the perturbations; the paper "
            "perturbs feature 1 (the one that is really dropped).",
        )
        st.multiselect(
            "Perturbations drawn as boundaries",
            PERTURBATION_OPTIONS,
            key="tp.perturbations",
            format_func=lambda v: f"{v:+g}",
            help="Amounts added to θ̂ of the perturbed feature; each gives one "
            "FLDA boundary in the figure and one column of the table. The "
            "paper uses +0, +0.1, +0.2, +0.3. Values that would leave "
            "θ ∈ [0, 1] are skipped.",
        )
        st.slider(
            "Range of the error curve",
            min_value=-1.0,
            max_value=1.0,
            step=CURVE_STEP,
            key="tp.curve_range",
            help="Perturbations (step 0.05) for the error-versus-perturbation "
            "curve; points where θ̂ + perturbation leaves [0, 1] are skipped.",
        )


def draw_own_theta_controls(theta_hat, theta_true):
    """Per-feature sliders for "your θ" (perturb θ̂ or set θ by hand); returns that θ."""
    n = len(theta_hat)
    st.radio(
        "How to choose your θ",
        OWN_MODES,
        format_func=OWN_MODE_LABELS.get,
        key="tp.own_mode",
        horizontal=True,
        help="Perturb: add an amount to FLDA's estimate θ̂ of each feature. By hand: "
        "type in the dropout θ FLDA should assume (sliders start at the true θ "
        "that made the target).",
    )
    mode = st.session_state["tp.own_mode"]
    columns = st.columns(min(n, 5))
    for d in range(1, n + 1):
        with columns[(d - 1) % len(columns)]:
            if mode == "perturb":
                st.slider(
                    f"θ̂{d} + …",
                    min_value=-1.0,
                    max_value=1.0,
                    step=0.01,
                    key=f"tp.delta_{d}",
                    help=f"Added to the estimate θ̂{d} = {theta_hat[d - 1]:.3f}; the "
                    "sum is clipped to [0, 1].",
                )
            else:
                st.slider(
                    f"θ{d}",
                    min_value=0.0,
                    max_value=1.0,
                    step=0.01,
                    key=f"tp.theta_{d}",
                    help=f"Dropout of feature {d} that FLDA assumes (true θ{d} = "
                    f"{theta_true[d - 1]:g}, estimate θ̂{d} = "
                    f"{theta_hat[d - 1]:.3f}).",
                )
    return own_theta(theta_hat)


def own_theta(theta_hat):
    """The θ the sliders define (clipped to [0, 1])."""
    n = len(theta_hat)
    if st.session_state["tp.own_mode"] == "perturb":
        deltas = np.array([st.session_state.get(f"tp.delta_{d}", 0.0) for d in range(1, n + 1)])
        return np.clip(np.asarray(theta_hat) + deltas, 0.0, 1.0)
    return np.array([st.session_state.get(f"tp.theta_{d}", 0.0) for d in range(1, n + 1)])


def own_line(fit, theta):
    """Boundary of FLDA with the user's θ (dash-dot, FLDA colour)."""
    return BoundaryLine(
        label=f"{fit.name}, your θ = ({', '.join(f'{t:.2f}' for t in theta)})",
        coef=(float(fit.coef[0]), float(fit.coef[1])),
        intercept=fit.intercept,
        color=FAMILY_COLORS["flda"],
        dash="dashdot",
        width=3.5,
        hover=f"target error {fit.target_error:.3f}",
    )


def figure_settings(data_key, theta_own=None, shift=None):
    """The settings line of this page's figures (:func:`explorer.figures.export.settings_line`):
    the data, the ℓ2 and transfer model of the fits, and "your θ" when it is drawn."""
    from explorer.figures.export import domain_settings_line

    own = ("your θ = " + ", ".join(f"{t:.2f}" for t in theta_own),) if theta_own is not None else ()
    return domain_settings_line(
        data_key,
        shift=shift,
        l2=float(st.session_state["tp.l2"]),
        extra=own,
        transfer=st.session_state["tp.transfer"],
    )


def show_boundaries(data_key, result, own_fits, theta_own, theta_true):
    """Figure 4 (2 features) or the θ bars."""
    feature = result.feature
    if len(theta_true) != 2:
        charts.show_chart(
            theta_figure(theta_true, result.theta_hat, theta_own if own_fits else None),
            "tp_theta",
            "true estimated and chosen dropout per feature",
            "Decision boundaries need exactly 2 features; shown instead: the true θ "
            "(open bars), FLDA's estimate θ̂ (filled) and your θ (diamonds).",
            settings=figure_settings(data_key, theta_own if own_fits else None),
        )
        return
    panels = []
    for loss in LOSSES:
        lines = perturbed_boundary_lines(
            [result.naive.classifiers[classifier_name(f, loss)] for f in ("source", "target")],
            result.chosen_fits(loss),
            feature,
        )
        if loss in own_fits:
            lines.append(own_line(own_fits[loss], theta_own))
        panels.append((LOSS_TITLES[loss], lines))
    charts.show_chart(
        decision_boundary_figure(caches.cached_lattice_counts(data_key), panels, height=600),
        "tp_boundaries",
        "figure 4 decision boundaries with a perturbed theta",
        "**Mirrors the paper's Figure 4.** Target data (marker area ∝ number of samples "
        "at each lattice point, hover for counts) with the boundaries of the naive source "
        "classifier (orange dashed), the target oracle (purple dotted) and FLDA at "
        f"θ̂{feature + 1} plus each chosen perturbation (green; fainter = larger "
        "perturbation, labelled at the line's end). Look how +0 lies on the oracle and "
        "how larger perturbations tilt the boundary towards ignoring feature "
        f"{feature + 1}. The dash-dot line is FLDA with your θ (“your θ” controls)."
        + (" Change your θ to add it." if not own_fits else "")
        + " "
        + boundary_tilt_sentence(result.chosen_fits(), feature),
        settings=figure_settings(data_key, theta_own if own_fits else None),
    )


def table1_caption(data_key, result, ours):
    """What this run's Table 1 holds (numbers from the run)."""
    feature = result.feature
    return (
        f"Target errors with {data_key[2]:,} source and {data_key[3]:,} target samples "
        f"(seed {data_key[5]}): SL/TL are the naive source/target classifiers, "
        f"θ̂{feature + 1}+d is FLDA with that perturbation. θ̂ = "
        f"({', '.join(f'{t:.3f}' for t in result.theta_hat)})."
    )


def paper_caption(result):
    """The published Table 1, how far this run is from it and from the paper's Figure 2 text
    (every number computed from this run or quoted from the paper)."""
    naive = result.naive.classifiers
    ours = {name: fit.target_error for name, fit in naive.items()}
    n_source = n_target = None
    if result.sweep:
        n_source = st.session_state["tp.n_source"]
        n_target = st.session_state["tp.n_target"]
    text = (
        f"The paper's Table 1 (Poisson rates 2/6, θ = [0.5, 0], "
        f"{PAPER_TABLE1.n_source:,} samples per domain). "
        + table1_agreement_sentence(table1_errors(naive, result.chosen_fits()), result.feature)
    )
    if n_source is not None and all(k in ours for k in ("S-LS", "T-LS", "S-LR", "T-LR")):
        text += " " + figure2_reference_sentence(
            {**ours, **{f.name: f.target_error for f in result.chosen_fits() if abs(f.perturbation) < 1e-12}},
            n_source,
            n_target,
        )
    return text


def show_tables(data_key, result, paper):
    """Table 1 of this run and as published."""
    feature = result.feature
    # One above the other: side by side, the 6+ numeric columns of each table do
    # not fit half a laptop screen and the last ones scroll out of sight.
    st.subheader("Table 1, this run")
    ours = result.table1()
    st.dataframe(ours, width="stretch", column_config=tables.number_columns(ours, columns=ours.columns))
    st.caption(table1_caption(data_key, result, ours))
    tables.download_csv(
        "Download table (CSV)",
        ours,
        index=True,
        file_name="flda_table1.csv",
        key="tp_download_table",
        help="This run's Table 1 as CSV.",
    )
    tables.download_csv(
        "Download error curve (CSV)",
        lambda: sweep_frame(result.sweep, feature),
        file_name="flda_perturbation_curve.csv",
        key="tp_download_curve",
        help="Every point of the error curve (both losses) as CSV.",
    )
    st.subheader("Table 1, as published")
    published = paper_table1_frame()
    st.dataframe(
        published, width="stretch", column_config=tables.number_columns(published, columns=published.columns)
    )
    if paper is not None:
        st.caption(paper_caption(result))
    else:
        st.caption(
            "The paper's Table 1 (Poisson rates 2/6, θ = [0.5, 0], "
            f"{PAPER_TABLE1.n_source:,} samples per domain); this run's data model "
            "differs, so its numbers are not comparable."
        )


def show_own_table(result, own_fits):
    """The fits at your θ, right under the sliders that set it (inside their fragment)."""
    if not own_fits:
        return
    two = len(result.theta_hat) == 2
    own = own_theta_frame(own_fits, lambda f: boundary_equation(f.coef[:2], f.intercept) if two else "")
    st.dataframe(
        own,
        hide_index=True,
        width="stretch",
        column_config=tables.number_columns(own, columns=("target error", "source error")),
    )
    st.caption(
        "FLDA fitted with the θ from the sliders, for comparison with the θ̂ + 0 column of Table 1 below."
    )


def show_transfer_comparison(result):
    """With a transfer model other than dropout: what it gives, unperturbed (issue 15)."""
    if not result.transfer_fits:
        return
    fits = list(result.transfer_fits.values())
    transfer = fits[0].transfer
    unperturbed = {f.loss: f for f in result.sweep if f.perturbation == 0.0}
    st.subheader(f"Transfer model '{transfer}' (not perturbed)")
    st.info(
        f"The sweep above perturbs the **dropout** θ̂, which only the dropout model has, so "
        f"it does not apply to the {transfer} model. Unperturbed, FLDA with {transfer}: "
        + "; ".join(
            f"{f.name} target error {f.target_error:.3f}"
            + (f" (dropout: {unperturbed[f.loss].target_error:.3f})" if f.loss in unperturbed else "")
            for f in fits
        )
        + ".",
        icon=":material/info:",
    )
    frame = transfer_parameter_frame(transfer, fits[0].transfer_params)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=tables.number_columns(frame))
    st.caption(
        f"The {transfer} model's parameters, estimated per feature from the source and "
        f"the unlabelled target. The model: {TRANSFER_MODELS[transfer]}"
    )


def show_feasibility(result):
    """Warn about skipped perturbations; False (with an error) when none is feasible."""
    if result.skipped:
        st.warning(
            f"Perturbations {', '.join(f'{d:+g}' for d in result.skipped)} skipped: "
            f"θ̂{result.feature + 1} = {result.theta_hat[result.feature]:.3f} plus them "
            "leaves [0, 1]."
        )
    if not result.curve:
        st.error(
            "No perturbation in the chosen range keeps θ within [0, 1]. Widen the "
            "range of the error curve in the sidebar."
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
    own_settings = own_theta_settings(data_key[4] if data_key else (0.0,) * n_features)
    state.restore_from_url(own_settings)
    widgets.presentation_row(
        "pages/transfer.py", SETTINGS + own_settings, {"Table 1 / Figure 4": preset_values(QUICK_SAMPLES)}
    )
    if guard.show_problems(problems):
        return state.write_to_url(SETTINGS + own_settings)
    distribution, params, _, _, theta_true, _ = data_key
    paper = matching_paper_setting(distribution, params, theta_true, candidates=(PAPER_TABLE1,))
    # One slot whether or not a paper setting matches: the elements below keep their
    # places, so leaving a paper preset does not rebuild the charts and tables below.
    with widgets.stable_slot():
        if paper is not None:
            st.info(f"**Paper setting: {paper.label}.** {paper.summary}", icon=":material/menu_book:")
    fit, l2 = caches.linear_fitter(data_key), float(st.session_state["tp.l2"])
    with guard.error_boundary("fitting the classifiers", "Could not fit the classifiers.") as outcome:
        with widgets.progress_bar("Fitting classifiers…") as progress:
            result = run_perturbation(
                caches.cached_domains(*data_key),
                min(int(st.session_state["tp.feature"]), n_features) - 1,
                st.session_state["tp.perturbations"],
                st.session_state["tp.curve_range"],
                l2,
                fit=fit,
                progress=progress,
                transfer=st.session_state["tp.transfer"],
                # a tab's first run ends with Figure 4, which needs only the chosen fits
                chosen_only=charts.first_chart_pending(),
            )
    if outcome.failed:
        return
    if not show_feasibility(result):
        return state.write_to_url(SETTINGS + own_settings)
    show_own_theta(data_key, result, l2, own_settings, present)
    charts.show_chart(
        perturbation_error_figure(
            result.sweep,
            list(result.naive.classifiers.values()),
            result.feature,
            paper=paper.errors if paper is not None else None,
        ),
        "tp_curve",
        "table 1 target error against the perturbation of theta",
        perturbation_curve_caption(
            result.sweep,
            result.naive.classifiers,
            result.feature,
            float(result.theta_hat[result.feature]),
            result.chosen,
        ),
        settings=figure_settings(data_key, shift=f"θ̂{result.feature + 1} shifted"),
    )
    show_tables(data_key, result, paper)
    show_transfer_comparison(result)
    charts.show_paper_notes("transfer")
    charts.show_equations()


@st.fragment
def show_own_theta(data_key, result, l2, own_settings, present):
    """What "your θ" touches: its sliders, Figure 4 and its table.  A slider step
    re-runs only this part (neither the sweep nor the curve and tables below it)."""
    theta_true = data_key[4]
    if not present:
        st.subheader("Your θ")
        theta_own = draw_own_theta_controls(result.theta_hat, theta_true)
    else:
        theta_own = own_theta(result.theta_hat)
    state.write_to_url(SETTINGS + own_settings)
    own_fits = own_theta_fits(theta_own, result.theta_hat, l2, fit=caches.linear_fitter(data_key))
    show_own_table(result, own_fits)
    show_boundaries(data_key, result, own_fits, theta_own, theta_true)


guard.run_page(main)
