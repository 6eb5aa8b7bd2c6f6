"""Handwritten digits: dropout heatmaps and adapted weights (section 4.2.3, Figures 5-6, Table 4).

Widgets -> cached data loaders (``explorer.data.digits``) and
``explorer.experiments.digits.run_digits`` with the page's cached fit -> figures
built in ``explorer.figures.digits``.  Widget keys start with ``"dig."`` and
the settings that define a configuration are mirrored in the URL.
"""

from __future__ import annotations

import hashlib
import weakref

import pandas as pd
import streamlit as st

from explorer.ui import charts, guard, memory, state, tables, uploads, widgets
from explorer.data import digits as dg
from explorer.data.cost import fit_cost_note
from explorer.errors import DigitDataUnavailable
from explorer.experiments import digits as ed
from explorer.teaching.captions import asymmetry_sentence, l2_sentence, paper_table4_sentence
from explorer.figures.digits import (
    table4_figure,
    nonzero_rate_figure,
    sample_images_figure,
    digit_weights_figure,
)
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import escape_markdown as esc
from flda_core.transfer import nonzero_rate

SOURCES = ("offline", "openml", "upload")
SOURCE_LABELS = {
    "offline": "Offline: scikit-learn digits (default)",
    "openml": "MNIST vs USPS (OpenML download)",
    "upload": "Your own pair of files",
}
DIRECTIONS = ed.DIRECTIONS
LOSS_LABELS = {
    "logistic": "logistic: S-LR vs FLDA-L (as in Figure 6)",
    "quadratic": "quadratic: S-LS vs FLDA-Q",
}
L2_MODES = ("cv", "hand")
L2_MODE_LABELS = {"cv": "cross-validation on the source (as in the paper)", "hand": "by hand"}
L2_OPTIONS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
OPENML_KEY = "dig_openml_data"  # last MNIST/USPS successfully loaded (DigitDomains)
UPLOAD_KEY = "dig_upload_data"  # file ids and rescale of the pair held (UPLOAD_ROLE)
UPLOAD_ROLE = "dig.pair"  # the uploaded pair in the data store (explorer.ui.memory)
OPENML_ERROR_KEY = "dig_openml_error"  # why the last MNIST/USPS load failed
FIT_TOL_KEY = "dig_fit_zero_tol"  # the ε the classifiers were last fitted with

SETTINGS = [
    state.Setting("dig.source", "offline", options=SOURCES),
    state.Setting("dig.direction", "A → B", options=DIRECTIONS),
    state.Setting("dig.digit", "0"),
    state.Setting("dig.loss", "logistic", options=tuple(LOSS_LABELS)),
    state.Setting("dig.zero_tol", 0.0, lo=0.0, hi=0.5),
    state.Setting("dig.l2_mode", "cv", options=L2_MODES),
    state.Setting("dig.l2", 1e-3, options=L2_OPTIONS),
    state.Setting("dig.shared_range", True),
    state.Setting("dig.n_mnist", dg.PAPER_N_MNIST, lo=1_000, hi=70_000),
    state.Setting("dig.n_usps", dg.PAPER_N_USPS, lo=1_000, hi=dg.PAPER_N_USPS),
    state.Setting("dig.rescale", True),
    widgets.transfer_setting("dig", options=ed.COMPARED_TRANSFERS),
    state.Setting("dig.compare", False),
]


# ---------------------------------------------------------------- cached work


@st.cache_resource(show_spinner=False, max_entries=4)
def offline_data(seed):
    return dg.make_offline_domains(random_state=seed)


@st.cache_resource(show_spinner=False, max_entries=2)
def openml_data(n_mnist, n_usps, seed):
    return dg.load_mnist_usps(n_mnist=n_mnist, n_usps=n_usps, random_state=seed)


def hold_upload_pair(file_a, file_b, rescale):
    """The uploaded pair as a :class:`~explorer.data.digits.DigitDomains` (float32
    images), held by this tab in the process's data store (:mod:`explorer.ui.memory`:
    once per pair of digests, counted against the tab's budget, released when an
    uploader drops its file or the tab is idle or closed).  ``UPLOAD_KEY`` keeps the
    pair's file ids and ``rescale``, so a rerun finds it without hashing the bytes."""
    data, session = memory.store(), memory.current_session()
    ids = (file_a.file_id, file_b.file_id, bool(rescale))
    held = data.get(session, UPLOAD_ROLE)
    if held is not None and st.session_state.get(UPLOAD_KEY) == ids:
        return held
    raw_a, raw_b = file_a.getvalue(), file_b.getvalue()
    key = ("digits", hashlib.sha256(raw_a).hexdigest(), file_a.name, hashlib.sha256(raw_b).hexdigest())
    key = (*key, file_b.name, bool(rescale))
    pair = data.hold(
        session,
        UPLOAD_ROLE,
        key,
        lambda: dg.make_uploaded_domains((file_a.name, raw_a), (file_b.name, raw_b), rescale=rescale),
        what="your digit pair",
    )
    st.session_state[UPLOAD_KEY] = ids
    return pair


@st.cache_data(show_spinner=False, max_entries=16)
def rates_cached(key, zero_tol, _data):
    return nonzero_rate(_data.X_a, zero_tol), nonzero_rate(_data.X_b, zero_tol)


@st.cache_data(show_spinner=False, max_entries=512)
def fit_direction_cached(key, direction, method, l2, zero_tol, seed, _data, transfer="dropout"):
    """One classifier for one direction; ``key`` (the data fingerprint) stands for ``_data``.
    Fits of public data come from the disk store when this code fitted them before (a
    server restart, or the server's start-up warm-up: ``explorer.ui.serving.warm_up_stores``)."""
    return ed.stored_fit(_data, direction, method, l2, zero_tol, seed, transfer)


def cached_fitter(data, seed):
    """The ``fit=`` of :func:`run_digits` backed by :func:`fit_direction_cached`."""

    def fit(direction, method, l2, tol, transfer="dropout"):
        return fit_direction_cached(data.key, direction, method, l2, tol, seed, _data=data, transfer=transfer)

    return fit


# ---------------------------------------------------------------- data


def draw_data_controls():
    """Data source widgets in the sidebar."""
    st.radio(
        "Digit collections",
        SOURCES,
        format_func=SOURCE_LABELS.get,
        key="dig.source",
        help="Offline: real scikit-learn digits turned into a frame-filling (USPS-like) "
        "and a centred (MNIST-like) domain, always available. MNIST vs USPS: the "
        "paper's data, downloaded once from OpenML and cached on disk. Your own: "
        "two files of flattened square images with labels.",
    )
    source = st.session_state["dig.source"]
    if source == "openml":
        st.number_input(
            "MNIST images",
            min_value=1_000,
            max_value=70_000,
            step=1_000,
            key="dig.n_mnist",
            help="Class-balanced random subsample of the 70,000 MNIST digits (resized "
            "28 x 28 -> 16 x 16). The paper uses 14,000. More images: slower fits.",
        )
        st.number_input(
            "USPS images",
            min_value=1_000,
            max_value=dg.PAPER_N_USPS,
            step=500,
            key="dig.n_usps",
            help="Random subsample of the 9,298 USPS digits (16 x 16), balanced as far as "
            "the classes allow. The paper uses all 9,298.",
        )
        st.button(
            "Load MNIST and USPS",
            key="dig_load_openml",
            type="primary",
            width="stretch",
            help="Download from OpenML on first use (a few tens of MB, kept in the "
            "server's data cache; the server's environment variable "
            "FLDA_CACHE_DIR chooses its folder). Later loads need no network.",
        )
    elif source == "upload":
        uploads.warn_when_server_is_full(dg.MAX_UPLOAD_BYTES)
        st.file_uploader(
            "Domain A file (CSV or NPZ)", type=["csv", "npz"], key="dig_file_a", help=UPLOAD_HELP
        )
        st.file_uploader(
            "Domain B file (CSV or NPZ)", type=["csv", "npz"], key="dig_file_b", help=UPLOAD_HELP
        )
        st.checkbox(
            "Scale each file to [0, 1]",
            key="dig.rescale",
            help="Map each file's smallest value to 0 and largest to 1 (e.g. MNIST "
            "0..255 or USPS -1..1). Leave on unless 0 already means 'no ink' "
            "in both files: dropout is about zeros.",
        )


UPLOAD_HELP = (
    "One image per row, flattened row by row (side x side values, e.g. 256 for 16 x 16). "
    "CSV: a header row, a column named 'label' (or y, target, class, digit) and one column "
    "per pixel. NPZ (numpy.savez): arrays X of shape (n, side*side) or (n, side, side) and "
    f"y. At most {dg.MAX_UPLOAD_SAMPLES:,} images and {dg.MAX_UPLOAD_BYTES // 2**20} MB per "
    "file; both files must have the same image size and the same classes. " + uploads.REFUSED_HELP
)


def resolve_data(seed):
    """The collections to show: the chosen source if loaded, else the last good one.

    Errors are shown with ``st.error``; what was loaded before stays in place.
    """
    source = st.session_state["dig.source"]
    default = offline_data(seed)
    if source == "openml":
        n_mnist = int(st.session_state["dig.n_mnist"])
        n_usps = int(st.session_state["dig.n_usps"])
        wanted = st.session_state.get("dig_load_openml") or dg.is_cached()
        if wanted:
            with guard.error_boundary("loading MNIST and USPS"):
                try:
                    with st.spinner("Loading MNIST and USPS (the first time downloads from OpenML)…"):
                        st.session_state[OPENML_KEY] = openml_data(n_mnist, n_usps, seed)
                    st.session_state.pop(OPENML_ERROR_KEY, None)
                except DigitDataUnavailable as error:
                    st.session_state[OPENML_ERROR_KEY] = str(error)
        if OPENML_ERROR_KEY in st.session_state:
            st.error(
                "**MNIST/USPS could not be loaded.** "
                f"{esc(st.session_state[OPENML_ERROR_KEY])}"
                "\n\n**How to fix it:** check the network connection and press *Load "
                "MNIST and USPS* again (sidebar), or keep working with the data shown "
                "below.",
                icon=":material/cloud_off:",
            )
        loaded = st.session_state.get(OPENML_KEY)
        if loaded is None:
            st.info(
                "Showing the offline default until MNIST and USPS are loaded (sidebar).",
                icon=":material/info:",
            )
        return loaded or default
    if source == "upload":
        file_a, file_b = st.session_state.get("dig_file_a"), st.session_state.get("dig_file_b")
        data, session = memory.store(), memory.current_session()
        if file_a is not None and file_b is not None:
            with guard.error_boundary("reading your digit files", "These files cannot be used.") as outcome:
                hold_upload_pair(file_a, file_b, st.session_state["dig.rescale"])
            if outcome.failed:
                st.info(
                    "The previously loaded pair is still shown."
                    if data.get(session, UPLOAD_ROLE) is not None
                    else "The offline default is shown meanwhile.",
                    icon=":material/info:",
                )
        else:  # an uploader dropped its file (✕): the pair leaves memory
            data.release(session, UPLOAD_ROLE)
            st.session_state.pop(UPLOAD_KEY, None)
        loaded = data.get(session, UPLOAD_ROLE)
        if loaded is None:
            st.info(
                "Showing the offline default until two valid files are uploaded (sidebar).",
                icon=":material/info:",
            )
        return loaded or default
    return default


# ---------------------------------------------------------------- fits


def l2_setting():
    """``None`` (cross-validate) or the hand-set penalty."""
    if st.session_state["dig.l2_mode"] == "cv":
        return None
    return float(st.session_state["dig.l2"])


def fit_both_directions(data, first_direction, loss, zero_tol, seed):
    """:func:`explorer.experiments.digits.run_digits` with the page's cached fits."""
    if data.kind == "upload":
        note = fit_cost_note(
            max(len(data.y_a), len(data.y_b)),
            data.side**2,
            len(data.classes),
            n_fits=2 * len(TABLE_CLASSIFIERS),
        )
        if note:
            st.info(note, icon=":material/hourglass_top:")
    with widgets.progress_bar("Fitting classifiers…") as progress:
        return ed.run_digits(
            data,
            first_direction,
            loss,
            l2_setting(),
            zero_tol,
            seed,
            progress=progress,
            fit=cached_fitter(data, seed),
            transfer=st.session_state["dig.transfer"],
        )


# ---------------------------------------------------------------- drawing


def draw_model_controls(classes):
    """Classifier settings in the sidebar."""
    st.radio(
        "Ridge penalty l2",
        L2_MODES,
        format_func=L2_MODE_LABELS.get,
        key="dig.l2_mode",
        help="Cross-validation: for every classifier, 3-fold cross-validation on the "
        f"labelled source images over l2 in {list(ed.L2_GRID)} (the oracle T-LR on "
        "the target), as in the paper. By hand: one l2 for all classifiers.",
    )
    if st.session_state["dig.l2_mode"] == "hand":
        st.select_slider(
            "l2",
            options=L2_OPTIONS,
            key="dig.l2",
            format_func=lambda v: f"{v:g}",
            help="Weight of l2 * ||W||² added to the mean loss (the intercept is "
            "not penalised). l2 = 1 / (2 C n) matches scikit-learn's C.",
        )
    widgets.transfer_control(
        "dig",
        options=ed.COMPARED_TRANSFERS,
        note=("Imputation is not offered here: digit images have no missing pixels."),
    )
    st.toggle(
        "Compare transfer models (both directions)",
        key="dig.compare",
        help="Also fit FLDA with " + ", ".join(ed.COMPARED_TRANSFERS) + " in both "
        "directions and show their target errors side by side: does a model that "
        "lets pixels appear remove the M → U asymmetry? About three times the "
        "fitting work of the table above (cached afterwards).",
    )


def draw_view_controls(classes):
    """Direction, digit and loss, next to Figure 6."""
    labels = [str(c) for c in classes]
    chosen = st.session_state.get("dig.digit")
    if chosen not in labels:
        if chosen is not None and chosen == str(st.query_params.get("digit", "")).strip('"'):
            shown = chosen if len(chosen) <= 40 else chosen[:40] + "…"
            st.session_state.setdefault(state.LINK_NOTES_KEY, {})["dig.digit"] = (
                f"Ignored the link's value of 'digit': “{shown}” is not a label of these "
                f"data; showing digit {labels[0]}."
            )
        st.session_state["dig.digit"] = labels[0]
    with widgets.stable_slot():  # the note stays until the user's next step (state.start_run)
        note = st.session_state.get(state.LINK_NOTES_KEY, {}).get("dig.digit")
        if note:
            st.info(esc(note), icon=":material/link_off:")
    cols = st.columns([1, 1, 2])
    cols[0].radio(
        "Direction (source → target)",
        DIRECTIONS,
        key="dig.direction",
        horizontal=True,
        help="A → B trains on domain A with labels and adapts to domain B "
        "(unlabelled); B → A the reverse. Here A → B is like the paper's "
        "U → M.",
    )
    cols[1].selectbox(
        "Digit",
        labels,
        key="dig.digit",
        help="Which class's predictor to show (one weight map per class). "
        "Switching the digit does not refit anything.",
    )
    cols[2].radio(
        "Loss",
        tuple(LOSS_LABELS),
        format_func=LOSS_LABELS.get,
        key="dig.loss",
        horizontal=True,
        help="Logistic: the paper's Figure 6 (S-LR and FLDA-L). Quadratic: the "
        "least-squares pair S-LS and FLDA-Q (one-vs-rest).",
    )


def label_of(classes, text):
    """The class label whose string form is ``text``."""
    for c in classes:
        if str(c) == text:
            return c
    return classes[0]


def asymmetry_text(data, results):
    """Caption of Table 4: the paper's asymmetry, and what the numbers here say."""
    parts, errors = [], {}
    # The paper's asymmetry is about U → M first (FLDA helps there, not for M → U).
    order = tuple(sorted(DIRECTIONS, key=lambda d: data.paper_rows.get(d) != "U → M"))
    for direction in DIRECTIONS:
        src, tgt = ("A", "B") if direction == "A → B" else ("B", "A")
        s_lr = results[(direction, "S-LR")].error
        f_l = results[(direction, "FLDA-L")].error
        theta = results[(direction, "FLDA-L")].theta
        errors[direction] = (s_lr, f_l, float(theta.mean()), "S-LR", "FLDA-L")
        parts.append(
            f"{direction} ({esc(data.name(src))} → {esc(data.name(tgt))}): mean θ = "
            f"{theta.mean():.2f}, S-LR {s_lr:.3f} → FLDA-L {f_l:.3f}"
        )
    return (
        "Error rates on the target domain (lower is better); T-LR is the oracle trained on "
        "labelled target images (3-fold cross-validated error). Mirrors the paper's Table 4. "
        "The paper's *text* describes an **asymmetry**: FLDA helps for U → M, where pixels "
        "inked in the source (USPS fills the frame) are rarely inked in the target (MNIST is "
        "centred), because dropout can *remove* such pixels; it does not help for M → U, "
        "because dropout cannot model pixels that appear *more often* in the target — θ is "
        "then (nearly) 0 and FLDA reduces to the naive classifier. "
        + paper_table4_sentence()
        + " "
        + (asymmetry_sentence(errors, order) if data.paper_rows else "Here: " + "; ".join(parts) + ".")
    )


INTRO = (
    "Pixels often inked in one digit collection and rarely in another are exactly "
    "what the dropout transfer model captures (paper section 4.2.3). FLDA learns "
    "how often each pixel is dropped out in the target, **θ**, and stops relying on "
    "pixels the target hardly ever inks."
)


def settings_line_of_data(data, *extra):
    """The settings line of a figure of the data alone (no fit): collections, seed, ``extra``."""
    from explorer.figures.export import settings_line

    return settings_line(data=f"A = {data.name_a}, B = {data.name_b}", seed=state.get_seed(), extra=extra)


def figure_settings(data, extra=()):
    """The settings line of this page's figures (:func:`explorer.figures.export.settings_line`):
    the two collections (user text for uploads, escaped by the figure), the seed, ε of the
    fits, the ℓ2 and the transfer model of the fits."""
    from explorer.figures.export import settings_line

    l2 = l2_setting()
    return settings_line(
        data=f"A = {data.name_a}, B = {data.name_b}",
        seed=state.get_seed(),
        l2="by cross-validation" if l2 is None else float(l2),
        extra=(f"ε = {fitted_zero_tol():g}", *extra),
        transfer=st.session_state["dig.transfer"],
    )


def show_data(data):
    """What the two domains are, with one image per class."""
    with st.expander(
        f"**The data:** A = {esc(data.name_a)}, B = {esc(data.name_b)} "
        f"({len(data.y_a):,} + {len(data.y_b):,} images, "
        f"{data.side} x {data.side} pixels)",
        expanded=data.kind == "offline",
    ):
        st.markdown(esc(data.description) if data.kind == "upload" else data.description)
        charts.show_chart(
            sample_images_figure(data.X_a, data.y_a, data.X_b, data.y_b, data.side, data.name_a, data.name_b),
            "dig_samples",
            "one sample digit per class in both domains",
            "The first image of every class in domain A (top) and B (bottom), black = ink. "
            "Look at how much of the frame the digits use.",
            settings=settings_line_of_data(data),
        )


def fitted_zero_tol():
    """The ε the classifiers use: the slider's value when the page first ran (e.g. from
    the URL), afterwards the value of the last refit the user asked for."""
    return float(st.session_state.setdefault(FIT_TOL_KEY, float(st.session_state["dig.zero_tol"])))


@st.fragment
def show_rates_section(data, present):
    """The ε slider and Figure 5.  A slider step re-runs only this part: the non-zero
    rates need one pass over the images, the classifiers below a refit, which waits
    for the button (moving the slider through several values costs no fit)."""
    if released(data):
        st.rerun()
    st.subheader("Where the ink is (Figure 5)")
    if not present:
        st.slider(
            "Zero threshold ε",
            min_value=0.0,
            max_value=0.5,
            step=0.01,
            key="dig.zero_tol",
            help="A pixel counts as zero (no ink) when |x| <= ε. Scanned digits have "
            "faint, non-zero backgrounds; raising ε treats them as empty. Ink is "
            "scaled to [0, 1]. The non-zero maps follow at once; the classifiers "
            "(estimated dropout θ, Figure 6, Table 4) are refitted when you press "
            "the button that appears.",
        )
        state.write_to_url(SETTINGS)
    zero_tol, fitted = float(st.session_state["dig.zero_tol"]), fitted_zero_tol()
    show_rates(data, rates_cached(data.key, zero_tol, _data=data), zero_tol)
    if zero_tol != fitted:
        st.info(
            f"The maps above use ε = {zero_tol:g}; θ, Figure 6 and Table 4 below still "
            f"use ε = {fitted:g}. Refitting takes a few seconds.",
            icon=":material/pending:",
        )
        if st.button(
            f"Refit the classifiers with ε = {zero_tol:g}",
            key="dig_refit",
            type="primary",
            help="Estimate θ with the new threshold and fit every classifier of "
            "both directions again (cached: a value fitted before comes back "
            "at once).",
        ):
            st.session_state[FIT_TOL_KEY] = zero_tol
            st.rerun()  # the whole page: the fits below live outside this fragment


def show_rates(data, rates, zero_tol):
    """Figure 5: where the ink is."""
    charts.show_chart(
        nonzero_rate_figure(rates[0], rates[1], data.side, data.name_a, data.name_b, zero_tol),
        "dig_rates",
        "figure 5 non-zero rate per pixel in both domains",
        "Per-pixel probability that a pixel is non-zero (|x| > ε) in each domain, on one "
        "colour scale. Mirrors the paper's Figure 5 (MNIST left, USPS right there). Look for "
        "pixels bright in one map and dark in the other: where the source inks often and "
        "the target rarely, the estimated dropout θ = 1 − P_target / P_source is large.",
        settings=settings_line_of_data(data, f"ε = {zero_tol:g}"),
    )


def weights_caption(data, direction, digit, naive, adapted):
    """What Figure 6 shows here, from the fitted numbers."""
    source_name, flda_name = naive.method, adapted.method
    src, tgt = ("A", "B") if direction == "A → B" else ("B", "A")
    paper_row = data.paper_rows.get(direction)
    digit = esc(digit)  # labels of uploaded files are user text
    return (
        f"Training on {esc(data.name(src))} (source) for {esc(data.name(tgt))} (target). "
        "Top left: "
        f"weights of the naive {source_name} predictor of digit {digit}; top right: the "
        f"{flda_name} weights; below: the estimated "
        f"dropout θ per pixel (the paper puts it between the two). Red pushes towards digit "
        f"{digit}, blue away, white is 0; pixels "
        "with θ = 1 (never inked in the target) get weight exactly 0; pixels never inked in the "
        "source have θ = 0 (nothing to drop) and no weight either. Mirrors the paper's "
        "Figure 6"
        + (f" ({paper_row} there is the matching direction)" if paper_row else "")
        + (
            ": FLDA's weights fade where θ is large and concentrate where the target has ink."
            if adapted.theta.mean() >= 0.05
            else f". Here θ is (nearly) 0 everywhere (mean {adapted.theta.mean():.3f}): the target "
            "inks hardly any pixel less often than the source, so FLDA's weights are close to "
            "the naive ones — dropout cannot model pixels that appear more often in the "
            "target (the paper's M → U case)."
        )
        + " "
        + l2_sentence(
            source_name, naive.l2, flda_name, adapted.l2, st.session_state.get("dig.l2_mode") == "cv"
        )
    )


def transfer_note(adapted):
    """For a transfer model other than dropout: what the θ map is, and its other parameters."""
    if adapted.transfer == "dropout":
        return ""
    params = adapted.transfer_params
    means = ", ".join(f"{name} {values.mean():.3f}" for name, values in params.items())
    return (
        f"\n\n**{adapted.method} uses the {adapted.transfer} transfer model.** The θ map "
        "shows its dropout part"
        + ("" if "theta" in params else " (it has none: 0 everywhere)")
        + f"; mean estimated parameters over the pixels: {means} (per pixel in the pixel-map "
        "download)."
    )


def show_weights(data, results, direction, loss, digit, present):
    """Figure 6: the naive and the adapted weights of one digit."""
    source_name, flda_name = ed.FIGURE6_PAIRS[loss]
    naive, adapted = results[(direction, source_name)], results[(direction, flda_name)]
    if not present:
        st.checkbox(
            "Same colour range for both weight maps",
            key="dig.shared_range",
            help="On: a colour means the same weight in both panels (compare "
            "magnitudes). Off: each panel uses its own range (compare patterns; "
            "the naive panel is rescaled and its factor shown in the title).",
        )
    charts.show_chart(
        digit_weights_figure(
            naive.weights(digit),
            adapted.theta,
            adapted.weights(digit),
            data.side,
            digit,
            source_name,
            flda_name,
            bool(st.session_state["dig.shared_range"]),
        ),
        "dig_weights",
        f"figure 6 weights and dropout for digit {digit} {direction}",
        weights_caption(data, direction, digit, naive, adapted) + transfer_note(adapted),
        settings=figure_settings(data, extra=(f"{direction}, digit {digit}",)),
    )


def show_errors(data, results):
    """Table 4 here and in the paper; returns the comparison table (for download)."""
    st.subheader("Error rates in both directions (Table 4)")
    ours = ed.table4_frame(results, data)
    paper = ed.paper_table(data)
    charts.show_chart(
        table4_figure(ours, paper if data.paper_rows else None),
        "dig_errors",
        "table 4 digit error rates in both directions",
        settings=figure_settings(data),
    )
    both = ed.comparison_table(ours, paper)
    shown = both.copy()
    for method in TABLE_CLASSIFIERS:  # "—": not reported in the paper (S-LS)
        shown[method] = both[method].map(lambda v: "—" if pd.isna(v) else f"{v:.3f}")
    st.dataframe(shown, width="stretch")
    stand_in = {
        "offline": " The offline domains are a stand-in for MNIST/USPS: expect the "
        "asymmetry, not the paper's numbers.",
        "upload": " The paper's rows are for MNIST/USPS, shown for reference.",
    }
    st.caption(
        asymmetry_text(data, results)
        + stand_in.get(data.kind, "")
        + (
            " Grey dashes (dark outline) in the chart: the paper's values for the matching direction."
            if data.paper_rows
            else ""
        )
    )
    return both


def comparison_caption(data, frame, loss):
    """What the transfer-model comparison shows, from its numbers."""
    source, flda = ed.FIGURE6_PAIRS[loss]
    models = [c for c in frame.columns if c.startswith(flda)]
    parts = []
    for (label, row), direction in zip(frame.iterrows(), ed.DIRECTIONS):
        best = min(models, key=lambda c: (round(row[c], 12), models.index(c)))
        paper_row = data.paper_rows.get(direction)
        parts.append(
            f"{label}{f' (like the paper’s {paper_row})' if paper_row else ''}: "
            f"{source} {row[source]:.3f}, "
            + ", ".join(f"{c.split(' ', 1)[1]} {row[c]:.3f}" for c in models)
            + f"; best FLDA: {best.split(' ', 1)[1]} "
            f"({row[best] - row[source]:+.3f} vs {source})"
        )
    gains = {c.split(" ", 1)[1]: [frame[source].iloc[i] - frame[c].iloc[i] for i in range(2)] for c in models}
    spread = "; ".join(f"{t}: {g[0]:+.3f} vs {g[1]:+.3f}" for t, g in gains.items())
    return (
        "Target errors of FLDA with each transfer model in both directions (lower is "
        "better; T-LR the oracle). The paper's Table 4 has dropout only; the other models "
        "go beyond it. " + "; ".join(parts) + ". Gain over the source classifier "
        f"(A → B vs B → A) — {spread}: the asymmetry is gone for a model only if both "
        "gains are positive."
    )


def show_comparison(data, loss, zero_tol, seed):
    """The transfer models side by side in both directions (issue 15)."""
    st.subheader("Beyond dropout: transfer models in both directions")
    with widgets.progress_bar("Fitting FLDA with every transfer model…") as progress:
        comparison = ed.run_transfer_comparison(
            data, loss, l2_setting(), zero_tol, seed, fit=cached_fitter(data, seed), progress=progress
        )
    frame = ed.transfer_comparison_frame(comparison, data, loss)
    st.dataframe(frame, width="stretch", column_config=tables.number_columns(frame))
    st.caption(comparison_caption(data, frame, loss))
    tables.download_csv(
        "Download comparison (CSV)",
        frame,
        index=True,
        file_name="flda_digits_transfer_models.csv",
        key="dig_dl_transfer",
        help="The table above as CSV.",
    )


def show_downloads(data, rates, results, both, direction, loss, digit):
    """CSV downloads and how the numbers are computed."""
    cols = st.columns(3)
    tables.download_csv(
        "Download error rates (CSV)",
        both,
        index=True,
        container=cols[0],
        file_name="flda_digits_errors.csv",
        key="dig_dl_errors",
        help="Target error of every classifier in both directions, with the paper's Table 4 values.",
    )
    tables.download_csv(
        "Download pixel maps (CSV)",
        lambda: ed.pixel_frame(data, rates, results, direction, loss, digit),
        container=cols[1],
        file_name="flda_digits_pixels.csv",
        key="dig_dl_pixels",
        help="Per pixel: non-zero probabilities of A and B, θ and both weight maps of the "
        "current direction and digit.",
    )
    settings = ed.l2_frame(results)
    tables.download_csv(
        "Download l2 choices (CSV)",
        settings,
        container=cols[2],
        file_name="flda_digits_l2.csv",
        key="dig_dl_l2",
        help="The ridge penalty of every fit and the cross-validation errors behind it.",
    )
    with st.expander("How the numbers are computed"):
        st.markdown(
            "* S-LS, S-LR, FLDA-Q and FLDA-L are trained on **all** source images and "
            "tested on **all** target images; FLDA also sees the target images, without "
            "labels, to estimate θ = max(0, 1 − ζ / η) per pixel from the non-zero rates "
            "η (source) and ζ (target) with threshold ε.\n"
            "* T-LR is trained on labelled target images; its error is 3-fold "
            "cross-validated so it is never tested on its own training images.\n"
            "* l2 by cross-validation: 3 stratified folds of at most 3,000 source images "
            "(target for T-LR), the grid below, ties to the larger l2.\n"
            "* Multiclass: FLDA-L and S-LR are softmax (multinomial) models; FLDA-Q and "
            "S-LS are one-vs-rest least squares."
        )
        st.dataframe(settings, width="stretch", hide_index=True)


def draw_sidebar_data_controls():
    """The sidebar's heading and its Data controls."""
    with st.sidebar:
        st.subheader("Handwritten digits")
        with st.expander("Data", expanded=True):
            draw_data_controls()


def draw_sidebar_model_controls(classes):
    """The sidebar's Classifiers controls (for the data's ``classes``)."""
    with st.sidebar, st.expander("Classifiers", expanded=True):
        draw_model_controls(classes)


def main():
    """Draw the page."""
    if "dig.digit" not in st.session_state and "digit" in st.query_params:
        # Labels may be numbers or names: keep the URL text as is (checked against the data).
        st.session_state["dig.digit"] = str(st.query_params["digit"]).strip('"')
    state.restore_from_url(SETTINGS)
    present = state.presentation_mode()
    seed = state.get_seed()
    st.title("Handwritten digits: pixels that vanish")
    if not present:
        st.markdown(INTRO)
        charts.sidebar_controls(draw_sidebar_data_controls)
    data = resolve_data(seed)
    if not present:
        charts.sidebar_controls(draw_sidebar_model_controls, data.classes)
        show_data(data)
    handle = fragment_handle(data)
    show_rates_section(handle, present)
    show_fits(handle, seed, present)


def fragment_handle(data):
    """What the fragments get: an uploaded pair by weak reference.  Streamlit keeps a
    fragment's arguments for as long as it keeps the session (a closed tab's until
    its lazily expiring store drops it), which kept every pair alive after the data
    store released it; the store owns the pair (:func:`hold_upload_pair`)."""
    return weakref.proxy(data) if data.kind == "upload" else data


def released(data):
    """True if ``data`` is an uploaded pair the data store has released since the
    page ran (then the fragment reruns the whole page, which reads the pair again)."""
    try:
        return not data.kind
    except ReferenceError:
        return True


@st.fragment
def show_fits(data, seed, present):
    """Direction, digit and loss with Figure 6, Table 4 and the downloads: choosing
    another digit re-runs only this part (no fit, no other figure redrawn)."""
    if released(data):
        st.rerun()
    zero_tol = fitted_zero_tol()
    rates = rates_cached(data.key, zero_tol, _data=data)
    st.subheader("What FLDA learns (Figure 6)")
    draw_view_controls(data.classes)
    direction, loss = st.session_state["dig.direction"], st.session_state["dig.loss"]
    digit = label_of(data.classes, st.session_state["dig.digit"])
    state.write_to_url(SETTINGS)
    with guard.error_boundary("fitting the classifiers", "The classifiers could not be fitted.") as outcome:
        results = fit_both_directions(data, direction, loss, zero_tol, seed)
    if outcome.failed:
        return
    for note in ed.convergence_notes(results):
        st.warning(esc(note), icon=":material/warning:")
    show_weights(data, results, direction, loss, digit, present)
    both = show_errors(data, results)
    if st.session_state["dig.compare"]:
        show_comparison(data, loss, zero_tol, seed)
    if not present:
        show_downloads(data, rates, results, both, direction, loss, digit)


guard.run_page(main)
