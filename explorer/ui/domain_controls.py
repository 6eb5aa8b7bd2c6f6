"""The synthetic domains' data settings (section 4.1), shared by the "Synthetic domains"
and "Transfer parameters" pages (same data model, different key prefix).

On a shift preset (``"<prefix>.shift"`` a key of
:data:`explorer.data.domain_config.SHIFT_PRESETS`) the θ setting holds that preset's
shift parameter instead of a dropout probability (:data:`SHIFT_PARAMETERS`)."""

from __future__ import annotations

import streamlit as st

from explorer.data.numbers import format_values, truncate_per_feature
from explorer.ui.state import Setting, apply_values, get_seed, restore_from_url

DISTRIBUTION_LABELS = {"bernoulli": "Bernoulli (binary features)", "poisson": "Poisson (count features)"}
_LIST_HELP = (
    "One value per feature, separated by commas. Fewer values than features: "
    "the last one is repeated (so a single value applies to every feature)."
)

#: What the θ setting holds on a shift preset: (name, lowest, highest value).
SHIFT_PARAMETERS = {"appearance": ("Appearance rate φ", 0.0, 1.0), "rate": ("Rate factor", 0.0, 100.0)}
#: The ℓ2 penalties offered for the classifiers (0: none, as in the paper's section 4.1).
L2_OPTIONS = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)


def domain_settings(prefix, paper, max_features, n_samples, max_samples):
    """URL-mirrored settings of the data model, starting from a paper setting, and the
    classifiers' ℓ2 penalty (0, as in the paper)."""
    return [
        Setting(f"{prefix}.distribution", paper.distribution, options=("bernoulli", "poisson")),
        Setting(f"{prefix}.n_features", 2, lo=1, hi=max_features),
        Setting(f"{prefix}.class1", format_values(paper.params[0]), check=_per_feature_check(prefix, 1)),
        Setting(f"{prefix}.class2", format_values(paper.params[1]), check=_per_feature_check(prefix, 2)),
        Setting(f"{prefix}.theta", format_values(paper.theta), check=_per_feature_check(prefix, None)),
        Setting(f"{prefix}.n_source", n_samples, lo=10, hi=max_samples),
        Setting(f"{prefix}.n_target", n_samples, lo=10, hi=max_samples),
        Setting(f"{prefix}.l2", 0.0, options=L2_OPTIONS),
    ]


def draw_l2_control(prefix):
    """The sidebar's "ℓ2 penalty" slider of every classifier (``"<prefix>.l2"``)."""
    st.select_slider(
        "ℓ2 penalty",
        options=L2_OPTIONS,
        key=f"{prefix}.l2",
        format_func=lambda v: "0 (none, as in the paper)" if v == 0 else f"{v:g}",
        help="Ridge penalty λ‖w‖² added to the mean (expected) loss of every classifier; "
        "the intercept is not penalised. The paper's artificial experiments use none.",
    )


def _parse_per_feature(prefix, k, text):
    """The per-feature values of class ``k`` (None: θ or a shift preset's parameter) as
    typed and checked; ValueError naming the problem."""
    from explorer.data.domain_config import PARAM_BOUNDS, PARAM_WORD, SHIFT_PRESETS
    from explorer.data.numbers import parse_per_feature

    state = st.session_state
    distribution = state.get(f"{prefix}.distribution", "bernoulli")
    n = int(state.get(f"{prefix}.n_features", 2))
    shift = state.get(f"{prefix}.shift", "dropout")
    if k is None and shift in SHIFT_PRESETS:
        name, lo, hi = SHIFT_PARAMETERS[shift]
        return parse_per_feature(text, len(SHIFT_PRESETS[shift][1][0]), name, lo, hi)
    if k is None:
        return parse_per_feature(text, n, "True dropout θ", 0.0, 1.0)
    return parse_per_feature(text, n, f"Class {k} {PARAM_WORD[distribution]}", *PARAM_BOUNDS[distribution])


def _per_feature_check(prefix, k):
    """A :class:`Setting` check by :func:`_parse_per_feature`."""

    def check(text):
        try:
            _parse_per_feature(prefix, k, text)
        except ValueError as error:
            return str(error)
        return None

    return check


def domain_values(prefix, paper, n_samples):
    """Session values that load ``paper``'s data model with ``n_samples`` per domain."""
    return {s.key: s.default for s in domain_settings(prefix, paper, 2, n_samples, n_samples)[:-1]}


def _load_paper_params(prefix):
    """Switching distribution loads that distribution's paper parameters (section 4.1.1)."""
    from flda_core.synthetic import PAPER_PARAMS

    params = PAPER_PARAMS[st.session_state[f"{prefix}.distribution"]]
    st.session_state[f"{prefix}.class1"] = format_values(params[0])
    st.session_state[f"{prefix}.class2"] = format_values(params[1])


def _truncate_lists(prefix, on_change=None):
    """Drop list values beyond the new number of features so the lists stay valid."""
    n = st.session_state[f"{prefix}.n_features"]
    for name in ("class1", "class2", "theta"):
        key = f"{prefix}.{name}"
        st.session_state[key] = truncate_per_feature(st.session_state.get(key, ""), n)
    if on_change is not None:
        on_change(n)


def draw_domain_controls(prefix, max_features, max_samples, features_help, on_n_features_change=None):
    """The "Data" block of the sidebar: distribution, parameters, theta, sizes.

    ``on_n_features_change(n)`` lets a page keep its own settings valid when the
    number of features shrinks.  Returns the chosen distribution.
    """
    from explorer.data.domain_config import PARAM_BOUNDS, PARAM_WORD

    st.subheader("Data")
    distribution = st.radio(
        "Class-conditional distribution",
        ("bernoulli", "poisson"),
        format_func=DISTRIBUTION_LABELS.get,
        key=f"{prefix}.distribution",
        on_change=_load_paper_params,
        args=(prefix,),
        help="Each feature of each class is drawn independently: Bernoulli gives 0/1 "
        "features (Figure 1), Poisson gives counts (Figures 2-4). Switching loads "
        "the paper's parameters for that distribution.",
    )
    st.number_input(
        "Number of features",
        min_value=1,
        max_value=max_features,
        step=1,
        key=f"{prefix}.n_features",
        on_change=_truncate_lists,
        args=(prefix, on_n_features_change),
        help=features_help,
    )
    word = PARAM_WORD[distribution]
    lo, hi = PARAM_BOUNDS[distribution]
    for k in (1, 2):
        st.text_input(
            f"Class {k} {word}",
            key=f"{prefix}.class{k}",
            help=f"Per-feature {word} of class {k}, between {lo:g} and {hi:g}. " + _LIST_HELP,
        )
    st.text_input(
        "True dropout θ per feature",
        key=f"{prefix}.theta",
        help="The transfer model that makes the target domain: feature d is set to 0 "
        "with probability θ (one per feature) and otherwise scaled by 1/(1 − θ). "
        "The paper uses 0.5, 0 (half of feature 1 dropped). Values in [0, 1]; " + _LIST_HELP,
    )
    col_s, col_t = st.columns(2)
    col_s.number_input(
        "Source samples",
        min_value=10,
        max_value=max_samples,
        step=1000,
        key=f"{prefix}.n_source",
        help="Labelled source samples (balanced classes). The paper uses 100,000; "
        "10,000 keeps the page instant.",
    )
    col_t.number_input(
        "Target samples",
        min_value=10,
        max_value=max_samples,
        step=1000,
        key=f"{prefix}.n_target",
        help="Target samples: FLDA sees them without labels (to estimate θ); the "
        "oracles T-LS/T-LR are trained on them with labels; all errors are "
        "measured on them.",
    )
    return distribution


def read_domain_config(prefix):
    """The page's validated :func:`explorer.ui.caches.cached_domains` key and a list of
    problems; on a shift preset, its class parameters with θ as its shift parameter."""
    from explorer.data.domain_config import SHIFT_PRESETS, parse_domain_config

    state = st.session_state
    shift = state.get(f"{prefix}.shift", "dropout")
    if shift in SHIFT_PRESETS:  # a data model other than dropout (issue 15)
        try:
            values = _parse_per_feature(prefix, None, state[f"{prefix}.theta"])
        except ValueError as error:
            return None, [str(error)]
        params = tuple(tuple(float(v) for v in row) for row in SHIFT_PRESETS[shift][1])
        sizes = int(state[f"{prefix}.n_source"]), int(state[f"{prefix}.n_target"])
        return (shift, params, *sizes, tuple(float(v) for v in values), get_seed()), []
    return parse_domain_config(
        *(state[f"{prefix}.{name}"] for name in ("distribution", "n_features", "class1", "class2", "theta")),
        state[f"{prefix}.n_source"],
        state[f"{prefix}.n_target"],
        get_seed(),
    )


def shift_values(prefix, shift, n_samples):
    """Session values of a shift preset: its data model with its own shift parameter and
    ``n_samples`` per domain."""
    from explorer.data.domain_config import SHIFT_PRESETS

    values = {"shift": shift, "theta": format_values(SHIFT_PRESETS[shift][2])}
    return {f"{prefix}.{k}": v for k, v in {**values, "n_source": n_samples, "n_target": n_samples}.items()}


def restore_settings(prefix, settings):
    """:func:`explorer.ui.state.restore_from_url` of a page's ``settings``; a shift preset
    linked without its parameter gets the preset's own (θ holds it there)."""
    from explorer.data.domain_config import SHIFT_PRESETS

    fresh = f"{prefix}.theta" not in st.session_state
    restore_from_url(settings)
    shift = st.session_state.get(f"{prefix}.shift", "dropout")
    if fresh and shift in SHIFT_PRESETS and "theta" not in st.query_params:
        st.session_state[f"{prefix}.theta"] = format_values(SHIFT_PRESETS[shift][2])


def draw_shift_controls(prefix, shift, label, describe, back_values):
    """The "Data" block of a shift preset (``label``; ``describe(values)`` says what its
    data are with the shift parameter per feature ``values``): that parameter and a
    button back to dropout data (``back_values``)."""
    from explorer.data.domain_config import SHIFT_PRESETS

    try:
        values = _parse_per_feature(prefix, None, st.session_state[f"{prefix}.theta"])
    except ValueError:  # read_domain_config says why
        values = SHIFT_PRESETS[shift][2]
    st.subheader("Data")
    st.info(f"**{label}.** {describe(values)}", icon=":material/info:")
    name, lo, hi = SHIFT_PARAMETERS[shift]
    st.text_input(
        f"{name} per feature",
        key=f"{prefix}.theta",
        help=f"The preset's shift parameter of each feature, between {lo:g} and {hi:g}. " + _LIST_HELP,
    )
    st.button(
        "Back to dropout data (Figure 1)",
        width="stretch",
        on_click=apply_values,
        key=f"{prefix}_back_to_dropout",
        args=(back_values,),
        help="Leave the preset and edit the data model again.",
    )


def show_paper_setting(paper):
    """The note naming the paper's setting the data model matches (none for ``paper``
    None), in a :func:`explorer.ui.widgets.stable_slot`."""
    from explorer.ui.widgets import stable_slot

    with stable_slot():
        if paper is not None:
            st.info(f"**Paper setting: {paper.label}.** {paper.summary}", icon=":material/menu_book:")
