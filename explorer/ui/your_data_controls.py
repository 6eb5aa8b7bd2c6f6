"""The controls of "Your data": step 1 (load the files) and step 2 (how to read them).

The widgets' values live in session state under ``data.*`` keys, remembered as they
change (:func:`explorer.ui.your_data_files.kept`); loading goes through
:mod:`explorer.ui.your_data_files`.
"""

from __future__ import annotations

import streamlit as st

from explorer.data import csv as csvio
from explorer.data import tabular as tab
from explorer.data import uci
from explorer.safe_text import escape_markdown as esc
from explorer.ui import uploads, widgets
from explorer.ui import your_data_files as files

#: "two": a source and a target file; "one": one file split into complete rows
#: (source) and rows with gaps (target), the paper's protocol of section 4.2.2.
MODE_LABELS = {"two": "a source and a target file", "one": "one file with gaps"}
UPLOAD_KEYS = {"source": "data_source_upload", "target": "data_target_upload"}
L2_OPTIONS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
MISSING_LABELS = {"zero": "treat as zeros (dropped-out features)", "drop": "drop incomplete rows"}
MATCH_LABELS = {"name": "by column name", "position": "by position (column order)"}
UPLOAD_HELP = {
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


def one_file():
    """True in the mode "one file with gaps"."""
    return st.session_state.get("data.mode") == "one"


def show_file_status(slot):
    """Under an uploader: why the last file was refused, and what is loaded."""
    current = files.loaded(slot)
    rejected = st.session_state.get(files.REJECTED_KEY, {}).get(slot)
    if rejected:
        keep = f" Still using the previously loaded **{esc(current['name'])}**." if current else ""
        st.error(
            f"**{esc(rejected['name'])} was not loaded.** {esc(rejected['message'])}\n\n"
            f"**Fix:** {esc(rejected['hint'])}{keep}",
            icon=":material/error:",
        )
    if current:
        table = files.table(slot)
        st.caption(f":material/check_circle: **{esc(current['name'])}** — {esc(table.describe())}")
        for note in table.warnings:
            st.warning(esc(note), icon=":material/warning:")


def draw_shipped_buttons(kind, specs, help_of, primary=""):
    """One button per shipped sample pair (``kind`` "sample") or UCI file ("uci")."""
    for column, (key, spec) in zip(st.columns(len(specs)), specs.items(), strict=False):
        column.button(
            spec.title,
            key=f"data_{kind if kind == 'uci' else 'sample'}_{key}",
            on_click=files.load_shipped,
            args=(kind, key),
            help=help_of(spec),
            width="stretch",
            type="primary" if primary == key else "secondary",
        )


def draw_loaders():
    """Step 1: the mode, the uploaders with their status, and the shipped files."""
    st.subheader("1 · Load a source and a target file")
    st.radio(
        "Files",
        tuple(MODE_LABELS),
        **files.kept("data.mode"),
        format_func=MODE_LABELS.get,
        horizontal=True,
        help="One file with gaps: the paper's missing data at test time in one click "
        "(section 4.2.2) — rows without an empty feature cell become the labelled "
        "source, rows with one become the target, and the gaps are zeros.",
    )
    uploads.warn_when_server_is_full(csvio.MAX_FILE_BYTES)
    titles = {
        "source": "CSV with gaps (labelled; split in two)"
        if one_file()
        else "Source CSV (labelled training data)",
        "target": "Target CSV (data to adapt to)",
    }
    for slot, column in zip(files.SLOTS[:1] if one_file() else files.SLOTS, st.columns(2), strict=False):
        with column:
            uploaded = st.file_uploader(
                titles[slot],
                type=["csv", "tsv", "txt"],
                key=UPLOAD_KEYS[slot],
                help=UPLOAD_HELP[slot],
                max_upload_size=csvio.MAX_FILE_BYTES // 2**20,
            )
            files.take_upload(slot, uploaded)
            show_file_status(slot)
    if one_file():
        st.markdown(
            "**…or load a UCI data set with gaps** (`sample_data/uci/`, CC BY 4.0; "
            "the paper's section 4.2.2):"
        )
        sets = {k: spec for k, spec in uci.UCI_SETS.items() if k != "automobile"}  # text features
        draw_shipped_buttons(
            "uci",
            sets,
            lambda spec: (
                f"{spec.file}: label '{spec.label}'"
                + "".join(f"; '{c}' ignored ({why})" for c, why in spec.exclude.items())
                + "."
            ),
        )
        return
    st.markdown("**…or load a sample pair** (files in `sample_data/`):")
    draw_shipped_buttons(
        "sample",
        tab.SAMPLE_SETS,
        lambda spec: spec.description,
        primary=st.session_state.get(files.SAMPLE_KEY),
    )


def check_columns(source_table):
    """The label column and the columns to ignore, kept among the source's columns (a
    label column the source lacks is guessed)."""
    columns = list(source_table.columns)
    if st.session_state.get("data.label") not in columns:
        files.set_choice("data.label", csvio.guess_label_column(source_table))
    label = st.session_state["data.label"]
    files.set_choice(
        "data.exclude", [c for c in st.session_state.get("data.exclude", []) if c in columns and c != label]
    )
    return columns, label


def draw_options(source_table):
    """Step 2: label column, columns to ignore, matching, missing values, l2, transfer
    model, baselines, scaling and how many features the charts show."""
    columns, label = check_columns(source_table)
    st.subheader("2 · Choose how to read them")
    left, middle, right = st.columns(3)
    left.selectbox(
        "Label column (in the source)",
        columns,
        **files.kept("data.label"),
        help="The column holding the classes. Every other column is a feature "
        "unless you ignore it. Text labels (spam/ham) and whole numbers "
        "both work.",
    )
    left.multiselect(
        "Columns to ignore",
        [c for c in columns if c != label],
        **files.kept("data.exclude"),
        help="Columns that are not features, e.g. an id, a date or free "
        "text. They are left out in both files.",
    )
    middle.radio(
        "Match features",
        tab.MATCH_OPTIONS,
        **files.kept("data.match"),
        format_func=MATCH_LABELS.get,
        help="By name: a feature is used if both files have a column with its "
        "name; columns found in one file only are listed below. By position: "
        "the i-th source column pairs with the i-th target column whatever "
        "the names; the target has the same columns as the source or just "
        "lacks the label column (its label at the source's label position; "
        "the same names in another order are matched by name).",
    )
    middle.radio(
        "Missing values",
        tab.MISSING_OPTIONS,
        **files.kept("data.missing"),
        disabled=one_file(),  # the gaps are the target
        format_func=MISSING_LABELS.get,
        help="Zeros is the paper's choice for missing data at test time "
        "(section 4.2.2): a missing value is a dropped-out feature, which is "
        "exactly what FLDA's transfer model expects. Dropping rows instead "
        "removes every row with an empty cell.",
    )
    with right:
        draw_fit_options()


def draw_fit_options():
    """Step 2's last column: l2, FLDA's transfer model, the baselines, scaling and how many
    features the charts show."""
    st.select_slider(
        "Regularisation l2",
        L2_OPTIONS,
        **files.kept("data.l2"),
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
        **files.kept("data.baselines"),
        help="Add KMM, SA, TCA, CORAL and optimal transport (skada library, as "
        "on the Real data page) to the error table; their classifiers' C "
        "(and SVM bandwidth) by cross-validation on the source. Slower.",
    )
    st.checkbox(
        "Scale features (divide by source RMS)",
        **files.kept("data.scale"),
        help="Divides every feature by its root mean square in the source so one "
        "l2 penalty treats features of different units alike. Zeros stay "
        "zeros, so the dropout estimate θ̂ does not change (centring "
        "would destroy the zeros FLDA counts).",
    )
    st.slider(
        "Features shown in the charts",
        5,
        60,
        **files.kept("data.top_n"),
        help="How many features the per-feature charts show (the most dropped or the most changed ones).",
    )
