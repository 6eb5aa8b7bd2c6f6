"""Your data: upload a labelled source CSV and a target CSV and try FLDA on them.

Thin page: the files are :mod:`explorer.ui.your_data_files`, steps 1 and 2
:mod:`explorer.ui.your_data_controls`, the fits :mod:`explorer.experiments.your_data`,
what is shown of them :mod:`explorer.ui.your_data_views`.
"""

from __future__ import annotations

import functools

import streamlit as st

from explorer.data import tabular as tab
from explorer.experiments import baselines as bl
from explorer.experiments import your_data as yd
from explorer.figures import tabular as figs
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import escape_markdown as esc
from explorer.ui import guard, state, widgets
from explorer.ui import your_data_controls as controls
from explorer.ui import your_data_files as files
from explorer.ui import your_data_views as views

SETTINGS = [
    state.Setting("data.match", "name", options=tab.MATCH_OPTIONS),
    state.Setting("data.missing", "zero", options=tab.MISSING_OPTIONS),
    state.Setting("data.l2", 1e-3, options=controls.L2_OPTIONS),
    state.Setting("data.scale", True),
    state.Setting("data.top_n", figs.DEFAULT_TOP_FEATURES, lo=5, hi=60),
    state.Setting("data.mode", "two", options=tuple(controls.MODE_LABELS)),
    state.Setting("data.baselines", False),
    widgets.transfer_setting("data"),
]


def sample_problem(key):
    """Why a link's ``?sample`` names no sample pair (None for a pair or nothing)."""
    if key in ("", *tab.SAMPLE_SETS):
        return None
    shown = repr(key) if len(key) <= 40 else repr(key[:39]) + "…"
    return f"{shown} is not a sample pair (one of {', '.join(tab.SAMPLE_SETS)})."


#: ``?sample=<key>``: the sample pair loaded (empty after an upload: no ``sample`` then).
SAMPLE = state.Setting(files.SAMPLE_KEY, "", check=sample_problem)
INTRO = (
    "Try FLDA on your own data: a **labelled source** CSV to train on and a **target** "
    "CSV whose features may be missing more often (e.g. sensors that fail in the field, "
    "words used less in another genre). FLDA estimates per feature how often it is "
    "dropped in the target and trains a classifier that expects exactly that "
    "(sections 3.3–3.4 of the paper). Missing cells count as dropped-out features."
)


@st.cache_data(show_spinner=False, max_entries=64)
def baseline_cached(key, name, seed, _prepared):
    """One baseline's error row on the prepared data of ``key``."""
    p = _prepared
    return bl.error_row(
        name, p.X_source, p.y_source, p.X_target, p.y_target, p.target_labelled, random_state=seed
    )


def run_baselines(key, prepared, seed):
    """Error rows of the skada baselines (KMM, SA, TCA, CORAL, OT), with progress."""
    rows = []
    with widgets.progress_bar("Fitting the baselines…") as progress:
        for i, name in enumerate(bl.BASELINES):
            progress(i / len(bl.BASELINES), f"Fitting {name} ({i + 1} of {len(bl.BASELINES)})…")
            rows.append(baseline_cached(key, name, seed, prepared))
    return rows


@st.cache_data(show_spinner=False, max_entries=64)
def fit_model_cached(key, name, l2, transfer="dropout", *, _prepared):
    """Cached :func:`explorer.experiments.your_data.fit_model` on the data of ``key``."""
    return yd.fit_model(_prepared, name, l2, transfer)


def fit_all_models(key, prepared, l2, transfer):
    """The page's experiment: :func:`explorer.experiments.your_data.fit_models`; ``None``
    (with the reason) when FLDA cannot use the chosen transfer model on these data."""
    note = tab.fit_cost_note(*prepared.X_source.shape, len(prepared.classes), n_fits=len(TABLE_CLASSIFIERS))
    if note:
        st.info(note, icon=":material/hourglass_top:")
    try:
        with widgets.progress_bar("Fitting classifiers…") as progress:
            models = yd.fit_models(
                prepared,
                l2=l2,
                progress=progress,
                fit=functools.partial(fit_model_cached, key, _prepared=prepared),
                transfer=transfer,
            )
    except ValueError as error:
        if transfer == "dropout":
            raise
        st.error(
            f"**FLDA cannot use the {transfer} transfer model on these data.** "
            f"{esc(str(error))}\n\n**Fix:** choose another transfer model in step 2.",
            icon=":material/error:",
        )
        return None
    for note in yd.convergence_notes(models):
        st.warning(esc(note), icon=":material/warning:")
    return models


def read_inputs(source, target):
    """The key of :func:`explorer.ui.your_data_files.prepare_held`: the files' digests and
    names and the options (``None`` digest for the target of one file, whose gaps are
    zeros, section 4.2.2)."""
    session = st.session_state
    missing = "zero" if controls.one_file() else session["data.missing"]
    return (
        *(source["digest"], source["name"], target["digest"], target["name"]),
        *(session["data.label"], session["data.match"], missing),
        *(tuple(session.get("data.exclude", [])), bool(session["data.scale"])),
    )


def restore_sample():
    """A first run with ``?sample=<key>`` loads that pair (an unknown key gets a note)."""
    first = files.SAMPLE_KEY not in st.session_state
    state.restore_from_url([*SETTINGS, SAMPLE])
    if first:
        key, st.session_state[files.SAMPLE_KEY] = st.session_state[files.SAMPLE_KEY], ""
        if key and not st.session_state.get(files.FILES_KEY):
            files.load_shipped("sample", key)


def figure_settings(prepared, source_name, target_name):
    """The settings line of this page's figures (:func:`explorer.figures.export.settings_line`,
    which shortens user text; the figure escapes it)."""
    from explorer.figures.export import settings_line

    return settings_line(
        data=f"{source_name} → {target_name}",
        l2=float(st.session_state["data.l2"]),
        extra=(f"label column {prepared.label}",),
        transfer=st.session_state["data.transfer"],
    )


def loaded_files(present):
    """Step 1 (unless presenting with both files loaded) and the files to use, or
    ``None`` (with what is missing)."""
    needed = files.SLOTS[:1] if controls.one_file() else files.SLOTS
    if present and not all(slot in st.session_state.get(files.FILES_KEY, {}) for slot in needed):
        present = False  # nothing to present yet: the loaders
    if not present:
        st.markdown(INTRO)
        controls.draw_loaders()
    source, target = files.loaded("source"), files.loaded("target")
    files.show_released_note()
    if controls.one_file() and source:
        target = {"digest": None, "name": f"{source['name']} (rows with gaps)"}
    if source and target:
        return present, source, target
    missing = ["file with gaps"] if controls.one_file() else [s for s in files.SLOTS if not files.loaded(s)]
    st.info(
        f"Load a {' and a '.join(missing)} file (or a sample pair) to see results.",
        icon=":material/upload_file:",
    )
    return present, None, None


def main():
    """Draw the page."""
    st.title("Your data")
    files.restore_choices()
    restore_sample()
    present, source, target = loaded_files(state.presentation_mode())
    if source is None:
        return
    source_table = files.table("source")
    if present:
        controls.check_columns(source_table)
    else:
        controls.draw_options(source_table)
    state.write_to_url([*SETTINGS, SAMPLE] if st.session_state[files.SAMPLE_KEY] else SETTINGS)
    if not st.session_state[files.SAMPLE_KEY]:
        st.query_params.pop("sample", None)
    key = read_inputs(source, target)
    target_table = None if controls.one_file() else files.table("target")
    with guard.error_boundary("preparing your files", "These files cannot be used together yet.") as outcome:
        prepared = files.prepare_held(key, source_table, target_table)
    if outcome.failed:
        return
    if not present:
        views.show_report(prepared, source["name"], target["name"])
    l2, transfer = float(st.session_state["data.l2"]), st.session_state["data.transfer"]
    with guard.error_boundary("fitting the classifiers", "The classifiers could not be fitted.") as outcome:
        models = fit_all_models(key, prepared, l2, transfer)
    if outcome.failed or models is None:
        return
    baseline_rows = ()
    if st.session_state.get("data.baselines") and prepared.has_target_labels:
        with guard.error_boundary("fitting the baselines", "The baselines could not be fitted."):
            baseline_rows = run_baselines(key, prepared, state.get_seed())
    with guard.error_boundary("keeping the results", "The results cannot be kept.") as outcome:
        results = files.result_tables_held(key, l2, transfer, prepared, models)
    if outcome.failed:
        return
    names = (source["name"], target["name"])
    settings = figure_settings(prepared, *names)
    views.show_results(prepared, results, names, int(st.session_state["data.top_n"]), settings, baseline_rows)
    views.show_transfer_parameters(prepared, models)


guard.run_page(main)
