"""The synthetic domains' data settings (section 4.1), shared by the "Synthetic domains"
and "Transfer parameters" pages: same data model, different key prefix.  The settings
(:func:`domain_settings`, :func:`domain_values`), the sidebar block
(:func:`draw_domain_controls`) and the validated configuration
(:func:`read_domain_config`, a :func:`explorer.ui.caches.cached_domains` key)."""

from __future__ import annotations

import streamlit as st

from explorer.data.numbers import format_values, truncate_per_feature
from explorer.ui.state import Setting, get_seed

__all__ = [
    "DISTRIBUTION_LABELS",
    "domain_settings",
    "domain_values",
    "draw_domain_controls",
    "read_domain_config",
]

DISTRIBUTION_LABELS = {"bernoulli": "Bernoulli (binary features)", "poisson": "Poisson (count features)"}
_LIST_HELP = (
    "One value per feature, separated by commas. Fewer values than features: "
    "the last one is repeated (so a single value applies to every feature)."
)


def domain_settings(prefix, paper, max_features, n_samples, max_samples):
    """URL-mirrored settings of the data model, starting from a paper setting."""
    return [
        Setting(f"{prefix}.distribution", paper.distribution, options=("bernoulli", "poisson")),
        Setting(f"{prefix}.n_features", 2, lo=1, hi=max_features),
        Setting(f"{prefix}.class1", format_values(paper.params[0]), check=_per_feature_check(prefix, 1)),
        Setting(f"{prefix}.class2", format_values(paper.params[1]), check=_per_feature_check(prefix, 2)),
        Setting(f"{prefix}.theta", format_values(paper.theta), check=_per_feature_check(prefix, None)),
        Setting(f"{prefix}.n_source", n_samples, lo=10, hi=max_samples),
        Setting(f"{prefix}.n_target", n_samples, lo=10, hi=max_samples),
    ]


def _per_feature_check(prefix, k):
    """A link's per-feature text for class ``k`` (None: theta), checked against the
    distribution and number of features already restored: why it is unusable, or None."""

    def check(text):
        from explorer.data.numbers import parse_per_feature
        from explorer.data.domain_config import PARAM_BOUNDS, PARAM_WORD

        distribution = st.session_state.get(f"{prefix}.distribution", "bernoulli")
        n = int(st.session_state.get(f"{prefix}.n_features", 2))
        if k is None:
            name, bounds = "True dropout θ", (0.0, 1.0)
        else:
            name, bounds = f"Class {k} {PARAM_WORD[distribution]}", PARAM_BOUNDS[distribution]
        try:
            parse_per_feature(text, n, name, *bounds)
        except ValueError as error:
            return str(error)
        return None

    return check


def domain_values(prefix, paper, n_samples):
    """Session values that load ``paper``'s data model with ``n_samples`` per domain."""
    return {
        f"{prefix}.distribution": paper.distribution,
        f"{prefix}.n_features": 2,
        f"{prefix}.class1": format_values(paper.params[0]),
        f"{prefix}.class2": format_values(paper.params[1]),
        f"{prefix}.theta": format_values(paper.theta),
        f"{prefix}.n_source": n_samples,
        f"{prefix}.n_target": n_samples,
    }


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
    """The page's validated data configuration (a hashable
    :func:`explorer.ui.caches.cached_domains` key) or a list of problems
    (:func:`explorer.data.domain_config.parse_domain_config`).

    When ``"<prefix>.shift"`` names a preset of
    :data:`explorer.data.domain_config.SHIFT_PRESETS`, the key is that preset's
    fixed data model with the page's sample sizes and seed.
    """
    from explorer.data.domain_config import parse_domain_config
    from explorer.data.domain_config import SHIFT_PRESETS

    state = st.session_state
    shift = state.get(f"{prefix}.shift", "dropout")
    if shift in SHIFT_PRESETS:  # a fixed data model other than dropout (issue 15)
        _, params, true = SHIFT_PRESETS[shift]
        return (
            shift,
            tuple(tuple(float(v) for v in row) for row in params),
            int(state[f"{prefix}.n_source"]),
            int(state[f"{prefix}.n_target"]),
            tuple(float(v) for v in true),
            get_seed(),
        ), []
    return parse_domain_config(
        state[f"{prefix}.distribution"],
        state[f"{prefix}.n_features"],
        state[f"{prefix}.class1"],
        state[f"{prefix}.class2"],
        state[f"{prefix}.theta"],
        state[f"{prefix}.n_source"],
        state[f"{prefix}.n_target"],
        get_seed(),
    )
