"""The Transfer parameters page's perturbation controls (section 4.1.3): the sweep and
"your θ", with their URL-mirrored settings."""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer.experiments.perturbation import CURVE_STEP
from explorer.ui.state import Setting

#: The perturbations a user may draw as boundaries.
PERTURBATION_OPTIONS = tuple(round(k * CURVE_STEP, 2) for k in range(-10, 11))
OWN_MODE_LABELS = {"perturb": "perturb θ̂ per feature", "hand": "set θ by hand"}


def sweep_settings(max_features, perturbations):
    """URL-mirrored settings of the sweep: the perturbed feature, the perturbations drawn
    (default ``perturbations``), the error curve's range and how "your θ" is chosen."""
    return [
        Setting("tp.feature", 1, lo=1, hi=max_features),
        Setting("tp.perturbations", list(perturbations), options=PERTURBATION_OPTIONS),
        Setting("tp.curve_range", (-0.5, 0.5), lo=-1.0, hi=1.0, ordered=True),
        Setting("tp.own_mode", "perturb", options=tuple(OWN_MODE_LABELS)),
    ]


def draw_sweep_controls():
    """The sidebar's "Perturbation sweep" block."""
    st.subheader("Perturbation sweep")
    st.selectbox(
        "Perturbed feature",
        list(range(1, int(st.session_state["tp.n_features"]) + 1)),
        key="tp.feature",
        help="Whose estimated dropout θ̂ gets the perturbations; the paper perturbs feature 1 "
        "(the one that is really dropped).",
    )
    st.multiselect(
        "Perturbations drawn as boundaries",
        PERTURBATION_OPTIONS,
        key="tp.perturbations",
        format_func=lambda v: f"{v:+g}",
        help="Amounts added to θ̂ of the perturbed feature; each gives one FLDA boundary in the "
        "figure and one column of the table. The paper uses +0, +0.1, +0.2, +0.3. Values that "
        "would leave θ ∈ [0, 1] are skipped.",
    )
    st.slider(
        "Range of the error curve",
        min_value=-1.0,
        max_value=1.0,
        step=CURVE_STEP,
        key="tp.curve_range",
        help="Perturbations (step 0.05) for the error-versus-perturbation curve; points where "
        "θ̂ + perturbation leaves [0, 1] are skipped.",
    )


def own_theta_settings(theta_true):
    """URL-mirrored sliders of "your θ": a perturbation of θ̂_d (default 0) and a
    hand-set θ_d (default: the true θ_d) per feature."""
    settings = []
    for d, value in enumerate(theta_true, start=1):
        settings.append(Setting(f"tp.delta_{d}", 0.0, lo=-1.0, hi=1.0))
        settings.append(Setting(f"tp.theta_{d}", round(float(value), 2), lo=0.0, hi=1.0))
    return settings


def draw_own_theta_controls(theta_hat, theta_true):
    """Per-feature sliders for "your θ" (perturb θ̂ or set θ by hand)."""
    st.radio(
        "How to choose your θ",
        tuple(OWN_MODE_LABELS),
        format_func=OWN_MODE_LABELS.get,
        key="tp.own_mode",
        horizontal=True,
        help="Perturb: add an amount to FLDA's estimate θ̂ of each feature. By hand: type in the "
        "dropout θ FLDA should assume (sliders start at the true θ that made the target).",
    )
    perturb = st.session_state["tp.own_mode"] == "perturb"
    columns = st.columns(min(len(theta_hat), 5))
    for d, (hat, true) in enumerate(zip(theta_hat, theta_true), start=1):
        columns[(d - 1) % len(columns)].slider(
            f"θ̂{d} + …" if perturb else f"θ{d}",
            min_value=-1.0 if perturb else 0.0,
            max_value=1.0,
            step=0.01,
            key=f"tp.delta_{d}" if perturb else f"tp.theta_{d}",
            help=f"Added to the estimate θ̂{d} = {hat:.3f}; the sum is clipped to [0, 1]."
            if perturb
            else f"Dropout of feature {d} that FLDA assumes (true θ{d} = {true:g}, estimate "
            f"θ̂{d} = {hat:.3f}).",
        )


def own_theta(theta_hat):
    """The θ the sliders define (clipped to [0, 1])."""
    features = range(1, len(theta_hat) + 1)
    if st.session_state["tp.own_mode"] == "perturb":
        deltas = np.array([st.session_state.get(f"tp.delta_{d}", 0.0) for d in features])
        return np.clip(np.asarray(theta_hat) + deltas, 0.0, 1.0)
    return np.array([st.session_state.get(f"tp.theta_{d}", 0.0) for d in features])
