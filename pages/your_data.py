"""Your data: upload a labelled source CSV and a target CSV and try FLDA on them.

Thin page over :mod:`explorer.data.csv` (reading, validation),
:mod:`explorer.data.tabular` (preparation), :mod:`explorer.experiments.your_data`
(fits, via ``fit_models`` with the page's cached fit) and :mod:`explorer.figures.tabular`.

Session state (keys with the page prefix survive switching pages):

* ``data.files`` -- ``{"source": {"name", "digest", "origin"}, "target": {...}}``,
  the files accepted so far: names and digests only.  Their parsed tables, the
  prepared arrays and the result tables are held in the process's data store
  (:mod:`explorer.ui.memory`: once per digest, counted against the tab's budget and
  the server's total, released when the uploader drops the file, when the tab is
  closed or idle).  Every way of loading a file (the uploaders and the sample
  buttons) goes through :func:`accept_file`, which validates the bytes with
  :func:`explorer.data.csv.parse_csv` and replaces the file only when they are
  valid; ``origin`` says how to read the file again if its table was released
  (``("upload", file id)``, ``("sample", key)``, ``("uci", key)``).
* ``data.rejected`` -- the last rejected file per slot with its message, shown
  as an error until the user uploads something else.
* ``data.choices`` -- a plain copy of the option widgets' values, written by
  their ``on_change`` callbacks and at the end of each run and put back at the
  start of the next, so the choices survive pages that do not draw these
  widgets even if Streamlit resets the widget state.
* ``data.sample`` -- key of the sample set loaded (mirrored in the URL as
  ``?sample=...``), or ``""`` after an upload.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from explorer import registry
from explorer.ui import charts, guard, memory, state, tables, uploads, widgets
from explorer.data import csv as csvio
from explorer.data.cost import fit_cost_note
from explorer.error_report import describe_error
from explorer.data import tabular as tab
from explorer.experiments import your_data as yd
from explorer.figures import tabular as figs
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import escape_markdown as esc
from explorer.data import uci
from explorer.experiments import baselines as bl
from explorer.experiments.transfer_models import transfer_parameter_frame
from flda_core.transfer_models import TRANSFER_MODELS

SLOTS = ("source", "target")
FILES_KEY = "data.files"
REJECTED_KEY = "data.rejected"
SEEN_KEY = "data.seen_uploads"
SAMPLE_KEY = "data.sample"
CHOICES_KEY = "data.choices"
CHOICE_KEYS = (
    "data.label",
    "data.exclude",
    "data.match",
    "data.missing",
    "data.l2",
    "data.scale",
    "data.top_n",
    "data.mode",
    "data.baselines",
)
#: "two": a source and a target file; "one": one file split into complete rows
#: (source) and rows with gaps (target), the paper's protocol of section 4.2.2.
MODE_LABELS = {"two": "a source and a target file", "one": "one file with gaps"}
UPLOAD_KEYS = {"source": "data_source_upload", "target": "data_target_upload"}
L2_OPTIONS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
MISSING_LABELS = {"zero": "treat as zeros (dropped-out features)", "drop": "drop incomplete rows"}
MATCH_LABELS = {"name": "by column name", "position": "by position (column order)"}

SETTINGS = [
    state.Setting("data.match", "name", options=tab.MATCH_OPTIONS),
    state.Setting("data.missing", "zero", options=tab.MISSING_OPTIONS),
    state.Setting("data.l2", 1e-3, options=L2_OPTIONS),
    state.Setting("data.scale", True),
    state.Setting("data.top_n", figs.DEFAULT_TOP_FEATURES, lo=5, hi=60),
    state.Setting("data.mode", "two", options=tuple(MODE_LABELS)),
    state.Setting("data.baselines", False),
    widgets.transfer_setting("data"),
]


# ----------------------------------------------------------------------------- held data
# A trivial rerun (a display option) must not pay for the files again: with a 45 MB
# pair, hashing the raw bytes for every cached call's key and unpickling the cached
# tables and arrays cost 1.6 s a run, and recomputing the result tables 1.5 s
# (docs/performance-history.md).  So the keys carry each file's digest (computed once
# when the file is accepted, see ``file_digest``) instead of its bytes; the parsed
# tables, prepared arrays and result tables are held once per process, shared and
# read-only, in the data store (``explorer.ui.memory``), which counts them against the
# tab's budget and releases them (issue 36).  A session holds one entry per role.
# A file with the same name but other bytes has another digest: it is parsed again.

ROLES = {"source": "data.source", "target": "data.target"}
PREPARED_ROLE, RESULTS_ROLE = "data.prepared", "data.results"
RELEASED_KEY = "data.released"


def file_digest(raw):
    """Key of a file's bytes in the caches (BLAKE2b, 128 bits)."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def hold_table(slot, digest, name, raw):
    """:func:`explorer.data.csv.parse_csv` of ``raw``, held by this tab as its ``slot``
    file (once per ``digest`` and name in the process; shared: never modify it)."""
    return memory.store().hold(
        memory.current_session(),
        ROLES[slot],
        ("csv", digest, name),
        lambda: csvio.parse_csv(raw, name),
        what=f"the table of {name}",
    )


def _read_only(prepared):
    for value in vars(prepared).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return prepared


def prepare_held(key, source_table, target_table):
    """:func:`explorer.data.tabular.prepare_domains` of the tables and options in ``key``
    (:func:`read_inputs`), held by this tab (once per key in the process); its arrays
    are read-only (shared)."""
    (_, _, target_digest, _, label, match, missing, exclude, scale) = key

    def prepare():
        source, target = source_table, target_table
        if target_digest is None:  # one file with gaps: complete rows vs rows with a gap
            source, target = uci.split_by_missing(source, label, exclude)
        prepared = tab.prepare_domains(
            source, target, label, match=match, missing=missing, exclude=exclude, scale=scale
        )
        return _read_only(prepared)

    return memory.store().hold(
        memory.current_session(), PREPARED_ROLE, ("prepared", *key), prepare, what="the prepared arrays"
    )


@st.cache_data(show_spinner=False, max_entries=64)
def baseline_cached(key, name, seed, _prepared):
    """One baseline's error row on the prepared data of ``key``."""
    return bl.error_row(
        name,
        _prepared.X_source,
        _prepared.y_source,
        _prepared.X_target,
        _prepared.y_target,
        _prepared.target_labelled,
        random_state=seed,
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
    """Cached :func:`explorer.experiments.your_data.fit_model` (one classifier) on the
    prepared data of ``key``."""
    return yd.fit_model(_prepared, name, l2, transfer)


def result_tables_held(key, l2, transfer, names, prepared, models):
    """θ̂ per feature, the error table and the predictions of the models fitted with
    ``key``, ``l2`` and ``transfer`` (``names``: which ones), held by this tab (once
    per process; shared: never modify them)."""
    return memory.store().hold(
        memory.current_session(),
        RESULTS_ROLE,
        ("results", key, l2, transfer, names),
        lambda: (
            yd.theta_frame(prepared, models),
            yd.target_error_table(prepared, models),
            yd.predictions_frame(prepared, models),
        ),
        what="the result tables",
    )


# ----------------------------------------------------------------------------- loading files


def accept_file(slot, name, raw, origin=None):
    """Validate ``raw`` and hold its table as the ``slot`` file; keep the old file if
    invalid (or over the memory budget).

    The single entry point for uploads and sample sets (``origin``: how to read the
    file again, see ``data.files``).  Returns True when the file was accepted.
    """
    rejected = st.session_state.setdefault(REJECTED_KEY, {})
    digest = file_digest(raw)
    previous = st.session_state.get(FILES_KEY, {}).get(slot)
    try:
        hold_table(slot, digest, name, raw)
    except Exception as error:  # shown under the uploader: problem and fix, never a traceback
        report = describe_error(error, "reading an uploaded file")
        rejected[slot] = {"name": name, "message": report.message, "hint": report.hint}
        if previous is not None and previous["digest"] != digest:  # hold it again if it went
            restore_file(slot, previous)
        return False
    st.session_state.setdefault(FILES_KEY, {})[slot] = {"name": name, "digest": digest, "origin": origin}
    rejected.pop(slot, None)
    return True


def forget_file(slot):
    """The ``slot`` file is gone (its uploader dropped it): release what this tab holds
    of it and of the results made with it."""
    st.session_state.get(FILES_KEY, {}).pop(slot, None)
    data, session = memory.store(), memory.current_session()
    for role in (ROLES[slot], PREPARED_ROLE, RESULTS_ROLE):
        data.release(session, role)


def take_upload(slot, uploaded):
    """Process a new upload once (uploads stay in the widget across reruns); a file the
    uploader dropped (its ✕) leaves memory; a file whose table was released (the tab
    was idle) is read again from the uploader."""
    seen = st.session_state.setdefault(SEEN_KEY, {})
    current = st.session_state.get(FILES_KEY, {}).get(slot)
    if uploaded is None:
        dropped = seen.pop(slot, None)
        st.session_state.get(REJECTED_KEY, {}).pop(slot, None)
        if dropped is not None and current is not None and current.get("origin") == ("upload", dropped):
            if memory.store().get(memory.current_session(), ROLES[slot]) is None:
                st.session_state[RELEASED_KEY] = current["name"]  # culled with its upload
            forget_file(slot)
        return
    if seen.get(slot) == uploaded.file_id:
        ours = current is not None and current.get("origin") == ("upload", uploaded.file_id)
        if ours and memory.store().get(memory.current_session(), ROLES[slot]) is None:
            accept_file(slot, uploaded.name, uploaded.getvalue(), ("upload", uploaded.file_id))
        return
    seen[slot] = uploaded.file_id
    if accept_file(slot, uploaded.name, uploaded.getvalue(), ("upload", uploaded.file_id)):
        st.session_state[SAMPLE_KEY] = ""


def set_choice(key, value):
    """Set an option widget's value and remember it (see ``data.choices``)."""
    st.session_state[key] = value
    st.session_state.setdefault(CHOICES_KEY, {})[key] = value


def remember_choice(key):
    """``on_change`` callback: remember the value the user just chose."""
    if key in st.session_state:
        st.session_state.setdefault(CHOICES_KEY, {})[key] = st.session_state[key]


def restore_choices():
    for key, value in st.session_state.get(CHOICES_KEY, {}).items():
        if st.session_state.get(key) != value:
            st.session_state[key] = value


def remember_choices():
    st.session_state[CHOICES_KEY] = {
        key: st.session_state[key] for key in CHOICE_KEYS if key in st.session_state
    }


def load_sample(key):
    """Load both files of a sample set (button callback)."""
    source_name, source_raw, target_name, target_raw = tab.read_sample(key, registry.SAMPLE_DIR)
    accepted = accept_file("source", source_name, source_raw, ("sample", key)) and accept_file(
        "target", target_name, target_raw, ("sample", key)
    )
    if accepted:
        st.session_state[SAMPLE_KEY] = key
        set_choice("data.label", tab.SAMPLE_SETS[key].label)
        set_choice("data.exclude", [])


def load_uci_sample(key):
    """Load one shipped UCI file as the file with gaps (button callback)."""
    spec = uci.UCI_SETS[key]
    if accept_file("source", spec.file, (uci.UCI_DIR / spec.file).read_bytes(), ("uci", key)):
        st.session_state[SAMPLE_KEY] = ""
        set_choice("data.label", spec.label)
        set_choice("data.exclude", list(spec.exclude))


def draw_uci_samples():
    st.markdown(
        "**…or load a UCI data set with gaps** (`sample_data/uci/`, CC BY 4.0; the paper's section 4.2.2):"
    )
    keys = [k for k in uci.UCI_SETS if k != "automobile"]  # automobile has text features
    for column, key in zip(st.columns(len(keys)), keys, strict=False):
        column.button(
            uci.UCI_SETS[key].title,
            key=f"data_uci_{key}",
            on_click=load_uci_sample,
            args=(key,),
            width="stretch",
            help=f"{uci.UCI_SETS[key].file}: label '{uci.UCI_SETS[key].label}'"
            + "".join(f"; '{c}' ignored ({why})" for c, why in uci.UCI_SETS[key].exclude.items())
            + ".",
        )


def restore_file(slot, current):
    """Hold the table of a sample file again (read from ``sample_data/``); True if done."""
    origin = current.get("origin") or ()
    if origin[:1] == ("sample",) and origin[1] in tab.SAMPLE_SETS:
        source_name, source_raw, target_name, target_raw = tab.read_sample(origin[1], registry.SAMPLE_DIR)
        name, raw = (source_name, source_raw) if slot == "source" else (target_name, target_raw)
    elif origin[:1] == ("uci",) and origin[1] in uci.UCI_SETS:
        name = uci.UCI_SETS[origin[1]].file
        raw = (uci.UCI_DIR / name).read_bytes()
    else:
        return False
    hold_table(slot, current["digest"], name, raw)
    return True


def loaded(slot):
    """The accepted ``slot`` file: ``{"name", "digest", "origin"}``, or None.

    A file whose table was released (the tab was idle, or the server needed the
    room) is read again when it is a sample; an uploaded one is read again from its
    uploader (:func:`take_upload`), else it is forgotten with a note."""
    current = st.session_state.get(FILES_KEY, {}).get(slot)
    if current is None:
        return None
    if "digest" not in current or memory.store().get(memory.current_session(), ROLES[slot]) is None:
        try:
            restored = "digest" in current and restore_file(slot, current)
        except Exception:  # over the budget now: the file is gone, with the note
            restored = False
        if not restored:
            forget_file(slot)
            st.session_state[RELEASED_KEY] = current["name"]
            return None
    return current


def parsed(current, slot="source"):
    """The parsed table of a loaded file (held by :func:`hold_table`)."""
    return memory.store().get(memory.current_session(), ROLES[slot])


def show_file_status(slot):
    current = loaded(slot)
    rejected = st.session_state.get(REJECTED_KEY, {}).get(slot)
    if rejected:
        keep = f" Still using the previously loaded **{esc(current['name'])}**." if current else ""
        st.error(
            f"**{esc(rejected['name'])} was not loaded.** {esc(rejected['message'])}\n\n"
            f"**Fix:** {esc(rejected['hint'])}{keep}",
            icon=":material/error:",
        )
    if current:
        table = parsed(current, slot)
        st.caption(f":material/check_circle: **{esc(current['name'])}** — {esc(table.describe())}")
        for note in table.warnings:
            st.warning(esc(note), icon=":material/warning:")


def draw_loaders():
    st.subheader("1 · Load a source and a target file")
    st.radio(
        "Files",
        tuple(MODE_LABELS),
        key="data.mode",
        format_func=MODE_LABELS.get,
        horizontal=True,
        on_change=remember_choice,
        args=("data.mode",),
        help="One file with gaps: the paper's missing data at test time in one click "
        "(section 4.2.2) — rows without an empty feature cell become the labelled "
        "source, rows with one become the target, and the gaps are zeros.",
    )
    one_file = st.session_state["data.mode"] == "one"
    uploads.warn_when_server_is_full(csvio.MAX_FILE_BYTES)
    columns = st.columns(2)
    help_text = {
        "source": (
            "CSV with a header row: one column per feature and a label column "
            "(choose it below). Comma, semicolon, tab or pipe separated; "
            f"at most {csvio.MAX_FILE_BYTES // 2**20} MB, {csvio.MAX_ROWS:,} rows and "
            f"{csvio.MAX_COLUMNS:,} columns. Empty cells, NA, NaN and ? are missing "
            "values. " + uploads.REFUSED_HELP
        ),
        "target": (
            "CSV with the same features as the source (matched by name, or by "
            "position). A label column is optional: with it the page reports errors, "
            "without it only predictions. FLDA itself never sees the target labels. " + uploads.REFUSED_HELP
        ),
    }
    titles = {
        "source": "CSV with gaps (labelled; split in two)"
        if one_file
        else "Source CSV (labelled training data)",
        "target": "Target CSV (data to adapt to)",
    }
    for slot, column in zip(SLOTS[:1] if one_file else SLOTS, columns, strict=False):
        with column:
            uploaded = st.file_uploader(
                titles[slot],
                type=["csv", "tsv", "txt"],
                key=UPLOAD_KEYS[slot],
                help=help_text[slot],
                max_upload_size=csvio.MAX_FILE_BYTES // 2**20,
            )
            take_upload(slot, uploaded)
            show_file_status(slot)
    if one_file:
        draw_uci_samples()
        return
    st.markdown("**…or load a sample pair** (files in `sample_data/`):")
    sample_columns = st.columns(len(tab.SAMPLE_SETS))
    for column, (key, sample) in zip(sample_columns, tab.SAMPLE_SETS.items(), strict=False):
        with column:
            st.button(
                sample.title,
                key=f"data_sample_{key}",
                on_click=load_sample,
                args=(key,),
                help=sample.description,
                width="stretch",
                type="primary" if st.session_state.get(SAMPLE_KEY) == key else "secondary",
            )


# ----------------------------------------------------------------------------- options


def draw_options(source_table):
    """Label column, matching, missing values, regularisation; returns the choices."""
    columns = list(source_table.columns)
    if st.session_state.get("data.label") not in columns:
        set_choice("data.label", csvio.guess_label_column(source_table))
    label = st.session_state["data.label"]
    set_choice(
        "data.exclude", [c for c in st.session_state.get("data.exclude", []) if c in columns and c != label]
    )
    st.subheader("2 · Choose how to read them")
    left, middle, right = st.columns(3)
    with left:
        st.selectbox(
            "Label column (in the source)",
            columns,
            key="data.label",
            on_change=remember_choice,
            args=("data.label",),
            help="The column holding the classes. Every other column is a feature "
            "unless you ignore it. Text labels (spam/ham) and whole numbers "
            "both work.",
        )
        st.multiselect(
            "Columns to ignore",
            [c for c in columns if c != st.session_state["data.label"]],
            key="data.exclude",
            on_change=remember_choice,
            args=("data.exclude",),
            help="Columns that are not features, e.g. an id, a date or free "
            "text. They are left out in both files.",
        )
    with middle:
        st.radio(
            "Match features",
            tab.MATCH_OPTIONS,
            key="data.match",
            on_change=remember_choice,
            args=("data.match",),
            format_func=MATCH_LABELS.get,
            help="By name: a feature is used if both files have a column with its "
            "name; columns found in one file only are listed below. By position: "
            "the i-th source column pairs with the i-th target column whatever "
            "the names; the target has the same columns as the source or just "
            "lacks the label column (its label at the source's label position; "
            "the same names in another order are matched by name).",
        )
        st.radio(
            "Missing values",
            tab.MISSING_OPTIONS,
            key="data.missing",
            on_change=remember_choice,
            args=("data.missing",),
            disabled=st.session_state.get("data.mode") == "one",  # gaps are the target
            format_func=MISSING_LABELS.get,
            help="Zeros is the paper's choice for missing data at test time "
            "(section 4.2.2): a missing value is a dropped-out feature, which is "
            "exactly what FLDA's transfer model expects. Dropping rows instead "
            "removes every row with an empty cell.",
        )
    with right:
        st.select_slider(
            "Regularisation l2",
            L2_OPTIONS,
            key="data.l2",
            on_change=remember_choice,
            args=("data.l2",),
            format_func=lambda v: f"{v:g}",
            help="Ridge penalty l2·‖w‖² added to the mean (expected) loss of "
            "every classifier (S-LS, S-LR, FLDA-Q, FLDA-L, T-LR). Larger "
            "values give smaller weights. 1e-3 suits a few hundred rows.",
        )
        widgets.transfer_control(
            "data",
            note=(
                "Imputation needs gaps kept as gaps: this page fills missing cells with zeros "
                "(or drops their rows), so with it FLDA equals the source classifier; the Real "
                "data page keeps gaps for the imputation model."
            ),
        )
        st.checkbox(
            "Add the domain-adaptation baselines",
            key="data.baselines",
            on_change=remember_choice,
            args=("data.baselines",),
            help="Add KMM, SA, TCA, CORAL and optimal transport (skada library, as "
            "on the Real data page) to the error table; their classifiers' C "
            "(and SVM bandwidth) by cross-validation on the source. Slower.",
        )
        st.checkbox(
            "Scale features (divide by source RMS)",
            key="data.scale",
            on_change=remember_choice,
            args=("data.scale",),
            help="Divides every feature by its root mean square in the source so one "
            "l2 penalty treats features of different units alike. Zeros stay "
            "zeros, so the dropout estimate θ̂ does not change (centring "
            "would destroy the zeros FLDA counts).",
        )
        st.slider(
            "Features shown in the charts",
            5,
            60,
            key="data.top_n",
            on_change=remember_choice,
            args=("data.top_n",),
            help="How many features the per-feature charts show (the most dropped or the most changed ones).",
        )


# ----------------------------------------------------------------------------- results


def show_report(prepared, source_name, target_name):
    report = prepared.report
    n_features = len(prepared.feature_names)
    st.markdown(
        f"Using **{prepared.X_source.shape[0]:,}** source rows and "
        f"**{prepared.X_target.shape[0]:,}** target rows with **{n_features:,}** feature"
        f"{'s' if n_features != 1 else ''}, label **{esc(prepared.label)}** "
        f"({len(prepared.classes)} classes: {esc(', '.join(map(str, prepared.classes[:10])))}"
        f"{', …' if len(prepared.classes) > 10 else ''}). "
        + (
            f"{report.target_labels:,} target rows are labelled (used for evaluation only)."
            if report.target_labels
            else "The target has no labels: predictions only."
        )
    )
    st.info(report.missing_summary(), icon=":material/info:")  # counts only, no user text
    if report.renamed:
        pairs = ", ".join(f"{a!r} ↔ {b!r}" for a, b in report.renamed[:6])
        more = f" and {len(report.renamed) - 6} more" if len(report.renamed) > 6 else ""
        st.info(
            f"Matched by position: {len(report.renamed)} column pair(s) have different "
            f"names ({esc(pairs)}{more}).",
            icon=":material/info:",
        )
    for note in report.warnings:
        if note.startswith(tuple(f"{n} is not valid UTF-8" for n in (source_name, target_name))):
            continue  # already shown under the uploader
        st.warning(esc(note), icon=":material/warning:")


def fit_all_models(key, prepared, l2):
    """The page's experiment: :func:`explorer.experiments.your_data.fit_models`."""
    transfer = st.session_state["data.transfer"]
    note = fit_cost_note(*prepared.X_source.shape, len(prepared.classes), n_fits=len(TABLE_CLASSIFIERS))
    if note:
        st.info(note, icon=":material/hourglass_top:")
    try:
        with widgets.progress_bar("Fitting classifiers…") as progress:
            models = yd.fit_models(
                prepared,
                l2=l2,
                progress=progress,
                fit=lambda name, l2, transfer="dropout": fit_model_cached(
                    key, name, l2, transfer, _prepared=prepared
                ),
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


#: What each classifier is (column help of the tables).
CLASSIFIER_HELP = {
    "S-LS": "least squares trained on the source only (no adaptation)",
    "S-LR": "logistic regression trained on the source only (no adaptation)",
    "FLDA-Q": "FLDA with the quadratic loss (Algorithm 1), adapted to the target",
    "FLDA-L": "FLDA with the logistic loss (Algorithm 2), adapted to the target",
    "T-LR": "logistic regression trained on the target labels: the oracle, out of reach in practice",
}


def error_columns():
    """Column labels, widths and help of the error table (all columns fit at 1280 px)."""
    column = st.column_config
    return {
        "classifier": column.TextColumn(
            "classifier",
            width=85,
            help="The paper's names: S- trained on the source, FLDA- adapted to the "
            "target, T- trained on the target labels (the oracle); -LS/-Q quadratic "
            "loss, -LR/-L logistic loss.",
        ),
        "family": column.TextColumn(
            "family",
            width=65,
            help="source: naive source classifier (orange); flda: FLDA (green); "
            "target: oracle (purple); baseline: skada domain adaptation (blue).",
        ),
        "error": column.NumberColumn(
            "error", width=65, format="%.3f", help="Fraction of the labelled target rows classified wrongly."
        ),
        "errors": column.NumberColumn(
            "wrong", width=65, format="%d", help="Number of labelled target rows classified wrongly."
        ),
        "n_target": column.NumberColumn(
            "labelled rows",
            width=105,
            format="%d",
            help="Labelled target rows the error is computed on (the same for every "
            "classifier; rows without a label are left out).",
        ),
    }


def prediction_columns(predictions):
    """Column labels, widths and help of the prediction tables."""
    column = st.column_config
    config = {
        "row": column.NumberColumn(
            "row",
            width=55,
            format="%d",
            help="Data row in the target file (1 = the first row below the header).",
        ),
        "true_label": column.TextColumn(
            "true label", help="The label in the target file. Used for the error only; FLDA never sees it."
        ),
    }
    for name in TABLE_CLASSIFIERS:
        if name in predictions.columns:
            config[name] = column.TextColumn(
                name, help=f"Class predicted by {name}: {CLASSIFIER_HELP[name]}."
            )
    for name, cls in yd.probability_columns(predictions):
        config[name] = column.NumberColumn(
            f"P({cls})",
            format="%.3f",
            help=f"{yd.PROBABILITY_MODEL}'s probability that the row is of class "
            f"{esc(repr(cls))} "
            "(the probabilities of a row sum to 1).",
        )
    return config


def figure_settings(prepared, source_name, target_name):
    """The settings line of this page's figures (:func:`explorer.figures.export.settings_line`):
    the files and the label column (user text: shortened there, escaped by the figure), the
    ℓ2 and FLDA's transfer model of the fits."""
    from explorer.figures.export import settings_line

    return settings_line(
        data=f"{source_name} → {target_name}",
        l2=float(st.session_state["data.l2"]),
        extra=(f"label column {prepared.label}",),
        transfer=st.session_state["data.transfer"],
    )


def show_results(prepared, models, results, source_name, target_name, top_n, baseline_rows=()):
    """Steps 3 on: ``results`` are :func:`result_tables_cached`'s θ̂, errors and
    predictions of ``models``."""
    settings = figure_settings(prepared, source_name, target_name)
    thetas, errors, predictions = results
    if baseline_rows and len(errors):
        errors = pd.concat([errors, pd.DataFrame(list(baseline_rows))], ignore_index=True)
    section = iter(range(3, 10))  # steps 1 and 2 are the loaders and the options

    st.subheader(f"{next(section)} · Error on the target")
    if len(errors):
        left, right = st.columns([1, 1])
        # The chart first: a tab's first run ends with its first chart (charts.show_chart).
        with right:
            charts.show_chart(
                figs.target_error_figure(errors),
                "data_errors_chart",
                "target error per classifier on your data",
                settings=settings,
            )
        with left:
            st.dataframe(errors, hide_index=True, width="stretch", column_config=error_columns())
            tables.download_csv(
                "Download errors (CSV)",
                errors,
                file_name="flda_errors.csv",
                key="data_download_errors",
                help="The error table: classifier, error rate, number wrong, "
                "family and number of labelled target rows.",
            )
        st.caption(
            "Error on the labelled target rows, one row of the paper's error tables "
            "(Table 3 for missing data at test time, section 4.2.2; Tables 7-9 for IMDB, "
            "spam and Amazon). Look at whether FLDA-Q/FLDA-L (green) close the gap between the "
            "source classifiers S-LS/S-LR (orange) and the T-LR oracle (purple), which was "
            "trained on the target labels and is out of reach in practice."
        )
    else:
        st.info(
            "The target has no labels, so no errors can be computed; the predictions "
            "are below. Add a label column to the target file to compare classifiers.",
            icon=":material/info:",
        )

    st.subheader(f"{next(section)} · Which features go missing in the target")
    n_shown, n_total = min(top_n, len(thetas)), len(thetas)
    which = (
        f"the {n_shown} features with the largest θ̂ (of {n_total})"
        if n_shown < n_total
        else f"all {n_total} features"
    )
    left, right = st.columns(2)
    with left:
        charts.show_chart(
            figs.feature_theta_figure(thetas, top_n),
            "data_theta_chart",
            "estimated dropout per feature on your data",
            settings=settings,
        )
        st.caption(
            f"Estimated dropout probability θ̂ = max(0, 1 − ζ/η) of {which} "
            "(section 3.3.1), η and ζ being the fractions of source and target rows where a "
            "feature is non-zero. Look at the top: these features go missing most often in "
            "the target, and FLDA trusts them least. The middle panel of the paper's "
            "Figure 6 shows θ̂ for digits."
        )
    with right:
        charts.show_chart(
            figs.nonzero_proportion_figure(thetas, top_n, source_name, target_name),
            "data_nonzero_chart",
            "non-zero share per feature in source and target",
            settings=settings,
        )
        changed = (
            f"the {n_shown} features that differ most" if n_shown < n_total else f"all {n_total} features"
        )
        st.caption(
            "Share of rows in which each feature is non-zero, in source and target, for "
            f"{changed} (largest difference on top), like the paper's word-proportion "
            "figures for IMDB, spam and Amazon (section 4.2). A feature rarer in the target "
            "gets θ̂ > 0; one that is *more* common in the target cannot be explained by "
            "dropout (θ̂ = 0)."
        )
    tables.download_csv(
        "Download θ̂ per feature (CSV)",
        thetas,
        file_name="flda_theta.csv",
        key="data_download_theta",
        help="Per feature: θ̂, the non-zero proportions in source and target and (binary "
        "tasks) the S-LR and FLDA-L weights.",
    )

    if "FLDA-L weight" in thetas.columns:
        st.subheader(f"{next(section)} · How FLDA re-weights the features")
        charts.show_chart(
            figs.feature_weights_figure(thetas, top_n),
            "data_weights_chart",
            "naive and flda weights per feature on your data",
            settings=settings,
        )
        st.caption(
            f"Weights of S-LR and FLDA-L (positive favours class "
            f"{esc(repr(prepared.classes[-1]))}) "
            f"for {which}, the largest θ̂ on top. FLDA shrinks the weights of features that "
            "are often missing in the target and leans on the reliable ones, as the right "
            "panel of the paper's Figure 6 shows for digit pixels."
        )

    st.subheader(f"{next(section)} · Target predictions")
    probabilities = [name for name, _ in yd.probability_columns(predictions)]
    labels = [c for c in predictions.columns if c not in probabilities]
    config = prediction_columns(predictions)
    left, right = st.columns([2, 3])
    with left:
        charts.show_chart(
            figs.prediction_mix_figure(predictions, prepared.classes),
            "data_predictions_chart",
            "predicted class shares on the target",
            settings=settings,
        )
        st.caption(
            "Share of target rows assigned to each class by S-LR, FLDA-Q and FLDA-L"
            + (" next to the true labels" if prepared.has_target_labels else "")
            + ". A classifier hurt by the domain shift often piles its predictions "
            "onto one class (missing features look like small values)."
        )
    with right:
        st.dataframe(
            predictions,
            hide_index=True,
            width="stretch",
            height=320,
            column_order=labels,
            column_config=config,
        )
        if probabilities:
            with st.expander(f"{yd.PROBABILITY_MODEL}'s class probabilities per row"):
                st.dataframe(
                    predictions,
                    hide_index=True,
                    width="stretch",
                    height=280,
                    column_order=["row", yd.PROBABILITY_MODEL, *probabilities],
                    column_config=config,
                )
        tables.download_csv(
            "Download predictions (CSV)",
            predictions,
            file_name="flda_predictions.csv",
            key="data_download_predictions",
            help="One row per target row (row = data row in the target file): the true label "
            "if any, the prediction of every classifier and FLDA-L's class "
            "probabilities.",
        )


# ----------------------------------------------------------------------------- page


def sync_sample_url():
    """``?sample=<key>`` while a sample pair is loaded, no ``sample`` after an upload."""
    sample = st.session_state.get(SAMPLE_KEY, "")
    if sample:
        if st.query_params.get("sample") != sample:
            st.query_params["sample"] = sample
    elif "sample" in st.query_params:
        del st.query_params["sample"]


def show_transfer_parameters(prepared, models):
    """FLDA's estimated parameters when its transfer model is not dropout (issue 15)."""
    flda = next((models[n] for n in ("FLDA-L", "FLDA-Q") if n in models), None)
    if flda is None or flda.transfer == "dropout":
        return
    frame = transfer_parameter_frame(
        flda.transfer, flda.transfer_params_, feature_names=prepared.feature_names
    )
    st.subheader(f"Transfer model '{flda.transfer}': estimated parameters")
    if flda.transfer == "imputation":
        st.info(
            f"Imputation needs missing cells kept as gaps; here they were filled (largest "
            f"θ̂ = {flda.transfer_params_['theta'].max():.3f}), so FLDA-Q/FLDA-L equal "
            "the source classifiers. The Real data page keeps the gaps for this model.",
            icon=":material/info:",
        )
    st.dataframe(frame, hide_index=True, width="stretch", column_config=tables.number_columns(frame))
    st.caption(
        "Per feature, the parameters FLDA-Q and FLDA-L used, estimated from the "
        "source and the unlabelled target. The model: " + TRANSFER_MODELS[flda.transfer]
    )
    tables.download_csv(
        "Download parameters (CSV)",
        frame,
        file_name="flda_transfer_parameters.csv",
        key="data_download_transfer",
        help="The estimated transfer parameters per feature as CSV.",
    )


def read_inputs(source, target, one_file=False):
    """The key of :func:`prepare_held` from the files and the options: the files'
    digests and names and the options (small and hashable; ``None`` digest for the
    target of one file).

    With one file (``one_file``), its gaps are what the target has: they are
    treated as zeros, as in the paper's missing-data protocol (section 4.2.2).
    """
    session = st.session_state
    key = (
        source["digest"],
        source["name"],
        target["digest"],
        target["name"],
        session["data.label"],
        session["data.match"],
        "zero" if one_file else session["data.missing"],
        tuple(session.get("data.exclude", [])),
        bool(session["data.scale"]),
    )
    return key


def leave_presentation_mode():
    """Button callback: end presentation mode (as ``?present=0`` does)."""
    st.session_state[state.PRESENT_KEY] = False
    st.query_params[state.PRESENT_PARAM] = "0"


def draw_presentation_exit():
    """Presentation mode before any data are loaded: say so, and offer the way out."""
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.info(
        "Presentation mode shows the results only; load the files below first.",
        icon=":material/slideshow:",
    )
    right.button(
        "Leave presentation mode",
        key="data_leave_present",
        on_click=leave_presentation_mode,
        icon=":material/close_fullscreen:",
        width="stretch",
        help="Show the page's controls and the sidebar again (the link's ?present=0).",
    )


def show_released_note():
    """Say once that a file was released (the tab was idle, or the server needed room)."""
    name = st.session_state.pop(RELEASED_KEY, None)
    if name is not None:
        idle = memory.store().idle_seconds / 60
        st.info(
            f"**{esc(name)}** was released from the server's memory: this tab had been "
            f"idle (no action for {idle:,.0f} minutes, or over a minute while the server "
            "needed the room). Load it again to continue.",
            icon=":material/history:",
        )


def main():
    """Draw the page."""
    st.title("Your data")
    present = state.presentation_mode()
    restore_choices()
    state.restore_from_url(SETTINGS)
    if SAMPLE_KEY not in st.session_state:
        url_sample = st.query_params.get("sample")
        st.session_state[SAMPLE_KEY] = ""
        if url_sample in tab.SAMPLE_SETS and not st.session_state.get(FILES_KEY):
            load_sample(url_sample)
        elif url_sample is not None and url_sample not in tab.SAMPLE_SETS:
            shown = repr(url_sample) if len(url_sample) <= 40 else repr(url_sample[:39]) + "…"
            st.session_state.setdefault(state.LINK_NOTES_KEY, {})[SAMPLE_KEY] = (
                f"Ignored the link's value of 'sample': {shown} is not a sample pair "
                f"(one of {', '.join(tab.SAMPLE_SETS)})."
            )
    sample_note = st.session_state.get(state.LINK_NOTES_KEY, {}).get(SAMPLE_KEY)
    if sample_note:
        st.info(esc(sample_note), icon=":material/link_off:")

    one_file = st.session_state.get("data.mode") == "one"
    files = st.session_state.get(FILES_KEY, {})
    if present and not all(slot in files for slot in (SLOTS[:1] if one_file else SLOTS)):
        draw_presentation_exit()  # nothing to present yet: the loaders, and a way out
        present = False
    if not present:
        st.markdown(
            "Try FLDA on your own data: a **labelled source** CSV to train on and a **target** "
            "CSV whose features may be missing more often (e.g. sensors that fail in the field, "
            "words used less in another genre). FLDA estimates per feature how often it is "
            "dropped in the target and trains a classifier that expects exactly that "
            "(sections 3.3–3.4 of the paper). Missing cells count as dropped-out features."
        )
        draw_loaders()

    one_file = st.session_state.get("data.mode") == "one"
    source, target = loaded("source"), loaded("target")
    show_released_note()
    if one_file and source:
        target = {"digest": None, "name": f"{source['name']} (rows with gaps)"}
    if not (source and target):
        missing = [slot for slot in SLOTS if not loaded(slot)]
        if one_file:
            missing = ["file with gaps"]
        st.info(
            f"Load a {' and a '.join(missing)} file (or a sample pair) to see results.",
            icon=":material/upload_file:",
        )
        return
    source_table = parsed(source, "source")
    if present:
        if st.session_state.get("data.label") not in source_table.columns:
            set_choice("data.label", csvio.guess_label_column(source_table))
    else:
        draw_options(source_table)
    remember_choices()
    state.write_to_url(SETTINGS)
    sync_sample_url()
    key = read_inputs(source, target, one_file)
    target_table = None if one_file else parsed(target, "target")
    with guard.error_boundary("preparing your files", "These files cannot be used together yet.") as outcome:
        prepared = prepare_held(key, source_table, target_table)
    if outcome.failed:
        return
    if not present:
        show_report(prepared, source["name"], target["name"])
    with guard.error_boundary("fitting the classifiers", "The classifiers could not be fitted.") as outcome:
        models = fit_all_models(key, prepared, float(st.session_state["data.l2"]))
    if outcome.failed or models is None:
        return
    baseline_rows = ()
    if st.session_state.get("data.baselines") and prepared.has_target_labels:
        with guard.error_boundary("fitting the baselines", "The baselines could not be fitted."):
            baseline_rows = run_baselines(key, prepared, state.get_seed())
    with guard.error_boundary("keeping the results", "The results cannot be kept.") as outcome:
        results = result_tables_held(
            key,
            float(st.session_state["data.l2"]),
            st.session_state["data.transfer"],
            tuple(models),
            prepared,
            models,
        )
    if outcome.failed:
        return
    show_results(
        prepared,
        models,
        results,
        source["name"],
        target["name"],
        int(st.session_state["data.top_n"]),
        baseline_rows,
    )
    show_transfer_parameters(prepared, models)


guard.run_page(main)
