"""The Learning curves page's controls (section 4.1.2, Figure 3): URL-mirrored settings
(keys ``lc.*``), the sidebar and the validated configuration."""

from __future__ import annotations

import streamlit as st

from flda_core.synthetic import PAPER_PARAMS, PAPER_THETA
from explorer.ui.state import Setting, get_seed

P = "lc."
DISTRIBUTIONS = {"poisson": "Poisson (counts)", "bernoulli": "Bernoulli (binary)"}
PARAM_LIMITS = {"poisson": (0.0, 50.0, 0.5), "bernoulli": (0.0, 1.0, 0.05)}
GRID_MODES = {"log": "Log-spaced grid", "custom": "Custom list"}
RIDGE_VALUES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
TOLERANCES = (0.002, 0.005, 0.01, 0.02, 0.05)
MAX_POOL = 50_000


def _param_key(distribution, k, d):
    return f"{P}{distribution}_c{k + 1}_f{d + 1}"


SETTINGS = [
    Setting(P + "distribution", "poisson", options=tuple(DISTRIBUTIONS)),
    *[
        Setting(_param_key(dist, k, d), float(PAPER_PARAMS[dist][k][d]), lo=lo, hi=hi)
        for dist, (lo, hi, _) in PARAM_LIMITS.items()
        for k in range(2)
        for d in range(2)
    ],
    *[Setting(f"{P}theta_f{d + 1}", float(PAPER_THETA[d]), lo=0.0, hi=1.0) for d in range(2)],
    Setting(P + "n_pool", 10_000, lo=100, hi=MAX_POOL),
    Setting(P + "grid_mode", "log", options=tuple(GRID_MODES)),
    Setting(P + "n_min", 2, lo=2, hi=MAX_POOL),
    Setting(P + "n_max", 10_000, lo=2, hi=MAX_POOL),
    Setting(P + "n_sizes", 15, lo=2, hi=40),
    Setting(P + "custom_sizes", "2, 5, 10, 20, 50, 100, 1000, 10000"),
    Setting(P + "repeats", 50, lo=2, hi=200),
    Setting(P + "l2", False),
    Setting(P + "ridge", 10.0, options=RIDGE_VALUES),
    Setting(P + "show_sem", True),
    Setting(P + "log_y", False),
    Setting(P + "tolerance", 0.01, options=TOLERANCES),
]


def _draw_data_controls():
    """The *Data* expander: distribution, class parameters, θ, pool size."""
    dist = st.selectbox(
        "Class-conditional distribution",
        tuple(DISTRIBUTIONS),
        key=P + "distribution",
        format_func=DISTRIBUTIONS.get,
        help="Poisson counts (the paper's Figure 3) or binary Bernoulli features. Each class "
        "draws its two features independently.",
    )
    lo, hi, step = PARAM_LIMITS[dist]
    word = "Poisson rate" if dist == "poisson" else "Success probability"
    for k in range(2):
        st.markdown(
            f"**Class {k + 1}** — {'Poisson rates' if dist == 'poisson' else 'probabilities P(x = 1)'}"
        )
        for d, column in enumerate(st.columns(2)):
            column.number_input(
                f"feature {d + 1}",
                min_value=lo,
                max_value=hi,
                step=step,
                key=_param_key(dist, k, d),
                help=f"{word} of feature {d + 1} in class {k + 1}. Paper: {PAPER_PARAMS[dist][k][d]:g}.",
            )
    for d, column in enumerate(st.columns(2)):
        column.slider(
            f"θ feature {d + 1}",
            0.0,
            1.0,
            step=0.05,
            key=f"{P}theta_f{d + 1}",
            help=f"Dropout probability of feature {d + 1} in the target domain: each value is set to 0 "
            f"with this probability and otherwise scaled by 1/(1 − θ). Paper: θ = {PAPER_THETA[d]:g}.",
        )
    st.number_input(
        "Samples per data set",
        min_value=100,
        max_value=MAX_POOL,
        step=1000,
        key=P + "n_pool",
        help="Size of each of the four sets: source train, source validation, target train, target "
        "validation. The paper uses 10,000. Training subsets are drawn from the train pools, "
        "errors measured on the validation sets.",
    )


def _draw_size_controls():
    """The *Sample sizes and repeats* expander."""
    mode = st.radio(
        "Sample sizes",
        tuple(GRID_MODES),
        key=P + "grid_mode",
        format_func=GRID_MODES.get,
        horizontal=True,
        help="A log-spaced grid like the paper's x-axis, or your own list.",
    )
    if mode == "log":
        low, high = st.columns(2)
        low.number_input(
            "Smallest n",
            min_value=2,
            max_value=MAX_POOL,
            step=1,
            key=P + "n_min",
            help="At least 2: every subset holds one sample per class.",
        )
        high.number_input(
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
            help="Number of log-spaced sizes (the paper shows about 15). Rounding can merge a few of "
            "the smallest ones.",
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
        help="Independent random training subsets per sample size; the bands show the standard "
        "error of the mean over them. Paper: 50.",
    )


def draw_controls():
    """Sidebar controls; returns the *Classifiers* and *Display* expanders, filled by
    :func:`draw_result_controls` from inside the results' fragment."""
    st.sidebar.header("Learning curves")
    with st.sidebar.expander("Data", expanded=True):
        _draw_data_controls()
    with st.sidebar.expander("Sample sizes and repeats", expanded=True):
        _draw_size_controls()
    return st.sidebar.expander("Classifiers", expanded=True), st.sidebar.expander("Display", expanded=False)


def draw_all_controls():
    """Every sidebar control at once (controls put off: :func:`explorer.ui.charts.sidebar_controls`)."""
    draw_result_controls(*draw_controls())


def draw_result_controls(classifiers, display):
    """The controls that change only the results (the l2 penalty, the display), drawn
    by the results' fragment into the sidebar's *Classifiers* and *Display* expanders."""
    classifiers.toggle(
        "l2 regularisation",
        key=P + "l2",
        help="Add λ‖w‖² to the summed loss of every classifier (the intercept is not penalised), "
        "the paper's ridge form (XXᵀ + λI)⁻¹Xy. The paper notes that FLDA-Q's small-sample "
        "advantage then disappears.",
    )
    if st.session_state[P + "l2"]:
        classifiers.select_slider(
            "λ (ridge strength)",
            RIDGE_VALUES,
            key=P + "ridge",
            help="Fixed λ on the summed loss, i.e. FLDAClassifier(l2 = λ / n): strong at small n, "
            "fading as n grows.",
        )
    display.toggle(
        "Show ± SEM bands", key=P + "show_sem", help="Shaded bands: mean ± one standard error over repeats."
    )
    display.toggle(
        "Logarithmic error axis",
        key=P + "log_y",
        help="Helps to compare small errors; the paper uses a linear axis.",
    )
    display.select_slider(
        "Tolerance for 'adapted'",
        TOLERANCES,
        key=P + "tolerance",
        help="FLDA counts as adapted from the smallest n at which its mean target error stays within "
        "this distance of the target oracle's (T-LS) for all larger n.",
    )


def read_config():
    """Validated :class:`~explorer.experiments.learning_curves.LearningCurveConfig` and
    notes; raises ValueError with a clear fix."""
    from explorer.experiments.learning_curves import learning_curve_config

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
        get_seed(),
        sizes,
        float(s[P + "ridge"]) if s[P + "l2"] else 0.0,
    )
