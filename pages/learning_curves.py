"""Learning curves page: how many samples does FLDA need to adapt? (section 4.1.2, Figure 3)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.ui import caches, charts, guard, state, tables, widgets
from flda_core.synthetic import PAPER_PARAMS, PAPER_THETA
from explorer.teaching.captions import learning_curve_sentences
from explorer.experiments.learning_curves import (
    headline,
    learning_curve_config,
    mean_sem_table,
    per_repeat_frame,
    repeat_errors,
    run_learning_curves,
    small_sample_gaps,
)
from explorer.figures.learning_curves import gap_figure, learning_curve_figure
from explorer.safe_text import escape_markdown

P = "lc."
DISTRIBUTIONS = {"poisson": "Poisson (counts)", "bernoulli": "Bernoulli (binary)"}
PARAM_LIMITS = {"poisson": (0.0, 50.0, 0.5), "bernoulli": (0.0, 1.0, 0.05)}
LOSS_CHOICES = {
    "quadratic": "Quadratic: S-LS, T-LS, FLDA-Q",
    "both": "Quadratic + logistic: adds S-LR, T-LR, FLDA-L",
}
GRID_MODES = {"log": "Log-spaced grid", "custom": "Custom list"}
RIDGE_VALUES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
TOLERANCES = (0.002, 0.005, 0.01, 0.02, 0.05)
MAX_POOL = 50_000
SMALL_N = 12  # "small sample sizes" in the ridge discussion: n <= SMALL_N


def _param_key(distribution, k, d):
    return f"{P}{distribution}_c{k + 1}_f{d + 1}"


SETTINGS = [
    state.Setting(P + "distribution", "poisson", options=tuple(DISTRIBUTIONS)),
    *[
        state.Setting(
            _param_key(dist, k, d),
            float(PAPER_PARAMS[dist][k][d]),
            lo=PARAM_LIMITS[dist][0],
            hi=PARAM_LIMITS[dist][1],
        )
        for dist in DISTRIBUTIONS
        for k in range(2)
        for d in range(2)
    ],
    *[state.Setting(f"{P}theta_f{d + 1}", float(PAPER_THETA[d]), lo=0.0, hi=1.0) for d in range(2)],
    state.Setting(P + "n_pool", 10_000, lo=100, hi=MAX_POOL),
    state.Setting(P + "grid_mode", "log", options=tuple(GRID_MODES)),
    state.Setting(P + "n_min", 2, lo=2, hi=MAX_POOL),
    state.Setting(P + "n_max", 10_000, lo=2, hi=MAX_POOL),
    state.Setting(P + "n_sizes", 15, lo=2, hi=40),
    state.Setting(P + "custom_sizes", "2, 5, 10, 20, 50, 100, 1000, 10000"),
    state.Setting(P + "repeats", 50, lo=2, hi=200),
    state.Setting(P + "loss", "quadratic", options=tuple(LOSS_CHOICES)),
    state.Setting(P + "repeats_logistic", 10, lo=2, hi=50),
    state.Setting(P + "l2", False),
    state.Setting(P + "ridge", 10.0, options=RIDGE_VALUES),
    state.Setting(P + "show_sem", True),
    state.Setting(P + "log_y", False),
    state.Setting(P + "tolerance", 0.01, options=TOLERANCES),
]


# --------------------------------------------------------------------------- cache
@caches.cache_data(show_spinner=False, max_entries=2_000)
def cached_errors(config, loss, repeats):
    """Cached :func:`explorer.experiments.learning_curves.repeat_errors`: the quadratic
    family for all repeats at once, the logistic family one repeat at a time."""
    return repeat_errors(config, loss, repeats)


# --------------------------------------------------------------------------- controls
def draw_controls():
    """Sidebar controls; every value lives in ``st.session_state`` under ``lc.*``.

    Returns the *Classifiers* and *Display* expanders: :func:`draw_result_controls`
    fills in their last controls from inside the results' fragment."""
    st.sidebar.header("Learning curves")
    with st.sidebar.expander("Data", expanded=True):
        dist = st.selectbox(
            "Class-conditional distribution",
            tuple(DISTRIBUTIONS),
            key=P + "distribution",
            format_func=DISTRIBUTIONS.get,
            help="Poisson counts (the paper's Figure 3) or binary Bernoulli features. "
            "Each class draws its two features independently.",
        )
        lo, hi, step = PARAM_LIMITS[dist]
        what = "Poisson rates" if dist == "poisson" else "probabilities P(x = 1)"
        for k in range(2):
            st.markdown(f"**Class {k + 1}** — {what}")
            cols = st.columns(2)
            for d in range(2):
                cols[d].number_input(
                    f"feature {d + 1}",
                    min_value=lo,
                    max_value=hi,
                    step=step,
                    key=_param_key(dist, k, d),
                    help=f"{'Poisson rate' if dist == 'poisson' else 'Success probability'} "
                    f"of feature {d + 1} in class {k + 1}. Paper: "
                    f"{PAPER_PARAMS[dist][k][d]:g}.",
                )
        cols = st.columns(2)
        for d in range(2):
            cols[d].slider(
                f"θ feature {d + 1}",
                0.0,
                1.0,
                step=0.05,
                key=f"{P}theta_f{d + 1}",
                help=f"Dropout probability of feature {d + 1} in the target domain: each "
                "value is set to 0 with this probability and otherwise scaled by "
                f"1/(1 − θ). Paper: θ = {PAPER_THETA[d]:g}.",
            )
        st.number_input(
            "Samples per data set",
            min_value=100,
            max_value=MAX_POOL,
            step=1000,
            key=P + "n_pool",
            help="Size of each of the four sets: source train, source validation, target "
            "train, target validation. The paper uses 10,000. Training subsets are "
            "drawn from the train pools, errors measured on the validation sets.",
        )
    with st.sidebar.expander("Sample sizes and repeats", expanded=True):
        mode = st.radio(
            "Sample sizes",
            tuple(GRID_MODES),
            key=P + "grid_mode",
            format_func=GRID_MODES.get,
            horizontal=True,
            help="A log-spaced grid like the paper's x-axis, or your own list.",
        )
        if mode == "log":
            cols = st.columns(2)
            cols[0].number_input(
                "Smallest n",
                min_value=2,
                max_value=MAX_POOL,
                step=1,
                key=P + "n_min",
                help="At least 2: every subset holds one sample per class.",
            )
            cols[1].number_input(
                "Largest n",
                min_value=2,
                max_value=MAX_POOL,
                step=1000,
                key=P + "n_max",
                help="At most the number of samples per data set.",
            )
            st.slider(
                "Number of sizes",
                2,
                40,
                key=P + "n_sizes",
                help="Number of log-spaced sizes (the paper shows about 15). "
                "Rounding can merge a few of the smallest ones.",
            )
        else:
            st.text_input(
                "Sample sizes (comma separated)",
                key=P + "custom_sizes",
                help="Whole numbers between 2 and the samples per data set, e.g. 2, 5, 10, 100, 1000.",
            )
        st.slider(
            "Repeats",
            2,
            200,
            key=P + "repeats",
            help="Independent random training subsets per sample size; the bands "
            "show the standard error of the mean over them. Paper: 50.",
        )
    classifiers = st.sidebar.expander("Classifiers", expanded=True)
    with classifiers:
        loss = st.radio(
            "Loss",
            tuple(LOSS_CHOICES),
            key=P + "loss",
            format_func=LOSS_CHOICES.get,
            help="The quadratic family is solved in closed form for all "
            "repeats at once (instant). The logistic family needs one "
            "iterative fit per classifier, size and repeat (slow).",
        )
        if loss == "both":
            st.slider(
                "Repeats for the logistic loss",
                2,
                50,
                key=P + "repeats_logistic",
                help="Logistic fits take ~0.02–0.1 s each, so fewer repeats keep the "
                "run short; its SEM bands are wider accordingly.",
            )
    return classifiers, st.sidebar.expander("Display", expanded=False)


def draw_all_controls():
    """Every sidebar control at once (a run whose controls were put off, see
    :func:`explorer.ui.charts.sidebar_controls`)."""
    draw_result_controls(*draw_controls())


def draw_result_controls(classifiers, display):
    """The controls that change only the results (the l2 penalty, the display), drawn
    by :func:`show_results` into the sidebar's *Classifiers* and *Display* expanders."""
    with classifiers:
        st.toggle(
            "l2 regularisation",
            key=P + "l2",
            help="Add λ‖w‖² to the summed loss of every classifier (the intercept "
            "is not penalised), the paper's ridge form (XXᵀ + λI)⁻¹Xy. The paper "
            "notes that FLDA-Q's small-sample advantage then disappears.",
        )
        if st.session_state[P + "l2"]:
            st.select_slider(
                "λ (ridge strength)",
                RIDGE_VALUES,
                key=P + "ridge",
                help="Fixed λ on the summed loss, i.e. FLDAClassifier"
                "(l2 = λ / n): strong at small n, fading as n grows.",
            )
    with display:
        st.toggle(
            "Show ± SEM bands",
            key=P + "show_sem",
            help="Shaded bands: mean ± one standard error over repeats.",
        )
        st.toggle(
            "Logarithmic error axis",
            key=P + "log_y",
            help="Helps to compare small errors; the paper uses a linear axis.",
        )
        st.select_slider(
            "Tolerance for 'adapted'",
            TOLERANCES,
            key=P + "tolerance",
            help="FLDA counts as adapted from the smallest n at which its mean "
            "target error stays within this distance of the target "
            "oracle's (T-LS / T-LR) for all larger n.",
        )


def read_config():
    """Validated :class:`LearningCurveConfig` and notes; raises ValueError with a clear fix."""
    s = st.session_state
    dist = s[P + "distribution"]
    sizes = (
        ("log", s[P + "n_min"], s[P + "n_max"], s[P + "n_sizes"])
        if s[P + "grid_mode"] == "log"
        else ("custom", s[P + "custom_sizes"])
    )
    return learning_curve_config(
        dist,
        [[s[_param_key(dist, k, d)] for d in range(2)] for k in range(2)],
        [s[f"{P}theta_f{d + 1}"] for d in range(2)],
        s[P + "n_pool"],
        state.get_seed(),
        sizes,
        float(s[P + "ridge"]) if s[P + "l2"] else 0.0,
    )


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
            help="Fit S-LR, T-LR and FLDA-L on every subset (with a progress "
            "bar). The quadratic curves are already shown.",
        ):
            return None
    placeholder.empty()
    with widgets.progress_bar("Fitting logistic classifiers ...") as progress:
        result = run_learning_curves(config, n_repeats, "logistic", fit=cached_errors, progress=progress)
    if key not in done_keys:
        done_keys.append(key)
    return result


# --------------------------------------------------------------------------- page
INTRO = (
    "How many samples does FLDA need to adapt? Each repeat draws *n* labelled source "
    "samples (**S-LS**), *n* labelled target samples (the oracle **T-LS**), and for "
    "**FLDA-Q** the same *n* source samples plus *n* **unlabelled** target samples from "
    "which θ is estimated; every classifier is scored on both validation sets "
    "(section 4.1.2, Figure 3)."
)


def show_metrics(heads, tolerance):
    """Headline numbers: when has FLDA caught up with the oracle?"""
    cols = st.columns(len(heads) * 2)
    for i, h in enumerate(heads):
        cols[2 * i].metric(
            f"{h.flda} ≈ {h.oracle} from n",
            "not yet" if h.adapted_from is None else f"{h.adapted_from:,}",
            help=f"Smallest n from which {h.flda}'s mean target error stays within "
            f"{tolerance:g} of {h.oracle}'s for every larger n (the paper reads "
            "'roughly 20' off Figure 3).",
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


def ridge_note(config):
    if config.ridge:
        return (
            f"All classifiers are l2-regularised with λ = {config.ridge:g}: the paper "
            "remarks that FLDA-Q's small-sample advantage then disappears — compare the "
            "smallest sizes with and without it. "
        )
    if state.presentation_mode():
        return "No l2 regularisation. "
    return (
        "No l2 regularisation: switch it on under *Classifiers* to test the paper's "
        "remark that with l2-regularised classifiers FLDA-Q's small-sample advantage "
        "disappears. "
    )


def figure_settings(config, results):
    """The settings line of this page's figures (:func:`explorer.figures.export.settings_line`):
    the data, the largest n, the repeats and the ℓ2 the curves were computed with (FLDA's
    transfer model here is dropout, the page's only one)."""
    from explorer.figures.export import settings_line

    repeats = "/".join(str(r.errors.shape[2]) for r in results)
    return settings_line(
        data=config.distribution.capitalize(),
        theta=config.theta,
        seed=config.seed,
        l2=float(config.ridge),
        extra=(f"n up to {max(config.sizes):,}", f"{repeats} repeats"),
        transfer="dropout",
    )


def curves_chart(config, results, table):
    """Figure 3 and its caption (the arguments of :func:`charts.show_chart`)."""
    fig = learning_curve_figure(
        table, show_sem=bool(st.session_state[P + "show_sem"]), log_y=bool(st.session_state[P + "log_y"])
    )
    repeats = [r.errors.shape[2] for r in results]
    return (
        fig,
        "lc_curves",
        "figure 3 learning curves on source and target",
        "Mirrors the paper's **Figure 3**: mean classification error against the number of "
        "training samples (log axis), on the source validation set (top, dotted) and the "
        "target validation set (bottom, solid); bands are ± one standard error over "
        f"{repeats[0]} repeats"
        + (f" ({repeats[1]} for the logistic loss)" if len(repeats) > 1 else "")
        + ". Look at the bottom panel: does FLDA (green) join the oracle (purple) while the "
        "naive source classifier (orange) stays high? Here: "
        + learning_curve_sentences(table, float(st.session_state[P + "tolerance"]), config.n_pool)
        + " "
        + ridge_note(config)
        + "At n = 2 (one sample per class) every least-squares classifier, with or without "
        "ridge, is the perpendicular bisector of its two samples; only FLDA's per-feature "
        "dropout penalty can change it.",
        0,
        figure_settings(config, results),
    )


def show_table(numbers, heads, tolerance):
    """The numbers behind Figure 3 (``numbers``: :func:`mean_sem_table`)."""
    st.dataframe(
        numbers,
        width="stretch",
        height="content",
        hide_index=True,
        key="lc_table",
        column_config={
            "n": st.column_config.NumberColumn(
                "n",
                format="localized",
                help="Training-set size: n labelled source samples (naive classifier "
                "and FLDA), n labelled target samples (oracle), n unlabelled "
                "target samples (FLDA).",
            )
        },
    )
    meets = "; ".join(
        f"{h.flda} stays within {tolerance:g} of {h.oracle} from n = {h.adapted_from:,} on"
        if h.adapted_from is not None
        else f"{h.flda} is still more than {tolerance:g} from {h.oracle} at the largest n"
        for h in heads
    )
    st.caption(
        "The numbers behind **Figure 3**: mean error ± one standard error over repeats, per "
        "training-set size n (rows) and classifier; *(target)* columns are the bottom panel, "
        "*(source)* columns the top one. Read down the *FLDA-Q (target)* and *T-LS (target)* "
        "columns to find where FLDA meets the oracle trained on labelled target data, and "
        "compare both with *S-LS (target)*, the naive source classifier. Here: "
        + meets
        + ("." if state.presentation_mode() else " (tolerance under *Display*).")
    )


def gaps_chart(gap_table, settings=""):
    """The adaptation gap to the oracle (the arguments of :func:`charts.show_chart`)."""
    small_text = "; ".join(
        f"{name}: {gap:+.3f}" for name, gap in small_sample_gaps(gap_table, SMALL_N).items()
    )
    return (
        gap_figure(gap_table),
        "lc_gaps",
        "figure 3 adaptation gap to the target oracle",
        "Target error minus the target oracle's (T-LS / T-LR), averaged over repeats with the "
        "paired standard error (every repeat shares its target subset between the oracle and "
        "FLDA). This re-plots the bottom panel of Figure 3 so that the adaptation gap is "
        "readable: FLDA's curve should reach 0, S-LS's stays far above. Below 0 means better "
        f"than the oracle. Mean gap over n ≤ {SMALL_N}"
        + (f" ({small_text})" if small_text else "")
        + " — compare it with l2 switched on and off.",
        0,
        settings,
    )


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


def show_method(config):
    with st.expander("How the experiment is run"):
        st.markdown(
            f"""
* **Data** (seed {config.seed} from the sidebar): four independent sets of
  {config.n_pool:,} samples — source train/validation from the class-conditionals,
  target train/validation from fresh draws passed through dropout with
  θ = ({config.theta[0]:g}, {config.theta[1]:g}). Classes are balanced.
* **Subsets**: every repeat shuffles each training pool once and size *n* uses the first
  *n* samples (nested subsets). The earliest sample of each class is moved to the front,
  so every subset contains both classes; T-LS and FLDA share the target subset.
* **FLDA-Q** estimates θ from its *n* source and *n* target samples
  (θ_d = max(0, 1 − ζ_d/η_d)); a feature absent from the target subset gets weight 0.
* **Closed form, batched**: all S-LS, T-LS and FLDA-Q fits of all repeats are solved at
  once; they equal `FLDAClassifier(loss="quadratic", l2=λ/n)` to machine precision.
  Singular systems (tiny *n*, no ridge) get the minimum-norm solution.
* **Logistic** curves fit `FLDAClassifier(loss="logistic", l2=λ/n)` one by one and use
  the first repeats of the same subsets.
* **Errors**: a validation sample counts as class 2 when its score is strictly positive.
  Count data sit on a lattice, and at small *n* a boundary often passes exactly through
  lattice points; scores within 10⁻⁹ (relative) of zero are treated as exactly zero so
  that rounding noise cannot move whole lattice points across the boundary (the same
  rule on every page).
* Sample sizes used: {", ".join(f"{n:,}" for n in config.sizes)}.
"""
        )


def main():
    """Draw the page."""
    st.title("Learning curves")
    st.markdown(INTRO)
    state.restore_from_url(SETTINGS)
    controls = (
        None
        if state.presentation_mode()
        else charts.sidebar_controls(draw_controls, deferred=draw_all_controls)
    )
    widgets.presentation_row("pages/learning_curves.py", SETTINGS)
    show_results(controls)
    charts.show_paper_notes("learning_curves")
    charts.show_equations()


@st.fragment
def show_results(controls):
    """Everything after the data controls: the l2 and display controls (in the sidebar,
    ``controls`` = its two expanders, None when presenting), the URL, the curves, their
    tables, downloads and method.  Toggling l2 (or a display control) re-runs only this
    part, not the sidebar's other controls, the paper notes and the equations."""
    if controls is not None:
        draw_result_controls(*controls)
    state.write_to_url(SETTINGS)
    try:
        config, notes = read_config()
    except ValueError as exc:  # the settings' own problems, each with its fix
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return
    for note in notes:
        st.warning(escape_markdown(note))
    with guard.error_boundary("computing the learning curves") as outcome:
        with widgets.progress_bar("Computing the quadratic learning curves ...") as progress:
            results = [
                run_learning_curves(
                    config,
                    int(st.session_state[P + "repeats"]),
                    "quadratic",
                    fit=cached_errors,
                    progress=progress,
                )
            ]
    if outcome.failed:
        return
    if st.session_state[P + "loss"] == "both":
        logistic = None
        with guard.error_boundary("computing the logistic learning curves"):
            logistic = logistic_result(config, int(st.session_state[P + "repeats_logistic"]))
        if logistic is not None:
            results.append(logistic)
            if logistic.n_unconverged:
                st.caption(
                    f"{logistic.n_unconverged} of {logistic.errors[:, 0].size:,} "
                    "logistic fits stopped at the iteration cap: without l2 a tiny "
                    "separable subset drives the weights to infinity; the direction, "
                    "and hence the error, is still meaningful."
                )
    table = pd.concat([r.table for r in results], ignore_index=True)
    tolerance = float(st.session_state[P + "tolerance"])
    heads = headline(table, tolerance)
    # Everything is computed before the first result is drawn: the browser then gets the
    # results in one burst and re-renders the page once, not once per element.
    curves = curves_chart(config, results, table)
    numbers = mean_sem_table(table)
    gaps = gaps_chart(
        pd.concat([r.gaps for r in results], ignore_index=True), figure_settings(config, results)
    )
    show_metrics(heads, tolerance)
    charts.show_chart(*curves)
    show_table(numbers, heads, tolerance)
    charts.show_chart(*gaps)
    show_downloads(table, results)
    show_method(config)


guard.run_page(main)
