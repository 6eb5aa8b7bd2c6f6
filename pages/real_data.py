"""Real data: missing data at test time on six UCI data sets (section 4.2.2, Tables 2-3).

Thin page over :mod:`explorer.experiments.missing_data` (fits, tables, every cell kept
on disk by ``stored_fit_one``), :mod:`explorer.data.uci` (data),
:mod:`explorer.figures.real_data` (figures) and :mod:`explorer.teaching.real_data`
(captions).  FLDA's two stages in order: the data (Table 2), θ̂ from the data alone (the
first chart comes at once), then Table 3, data set by data set.  Widget keys start with
``"real."`` and are mirrored in the URL.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui import caches, charts, guard, navigation, state, tables, widgets
from explorer.data import uci
from explorer.experiments import baselines as bl
from explorer.experiments import missing_data as md
from explorer.figures.real_data import error_comparison_figure, theta_figure
from explorer.figures.export import settings_line
from explorer.teaching import real_data as captions
from explorer.teaching.real_data import IMPUTE_LABELS, provenance_caption, table3_caption, theta_caption

KEYS = tuple(uci.UCI_SETS)
SETTINGS = [
    state.Setting("real.impute", "zero", options=uci.IMPUTE_OPTIONS),
    state.Setting("real.baselines", True),
    state.Setting("real.sets", list(KEYS), options=KEYS),
    state.Setting("real.theta_set", "heart", options=KEYS),
    state.Setting("real.top_n", 25, lo=5, hi=80),
    widgets.transfer_setting("real"),
]


@caches.cache_data(show_spinner=False, max_entries=512)
def fit_cached(key, classifier, impute, seed, transfer="dropout"):
    """One (data set, classifier) cell of Table 3 (read from the disk store when
    this code computed it before, e.g. before a server restart)."""
    return md.stored_fit_one(key, classifier, impute, seed, transfer)


@st.cache_data(show_spinner=False, max_entries=4)
def table2_cached(impute):
    return uci.table2(md.problem(k, impute) for k in KEYS), {k: md.problem(k, impute).notes for k in KEYS}


def draw_controls():
    with st.sidebar:
        st.subheader("Real data")
        st.radio(
            "Fill the gaps of the target rows with",
            uci.IMPUTE_OPTIONS,
            key="real.impute",
            format_func=IMPUTE_LABELS.get,
            help="Zeros: a missing value is a dropped-out feature, as in the paper "
            "(section 4.2.2). Mean: features are centred on the source mean, so a "
            "gap holds the source mean; FLDA's dropout then replaces a feature by "
            "its mean, the alternative the paper names.",
        )
        widgets.transfer_control("real", note=captions.TRANSFER_NOTE)
        st.checkbox(
            "Domain-adaptation baselines (skada)",
            key="real.baselines",
            help="Add KMM, SA, TCA, CORAL and optimal transport from the skada "
            "library (about half of the computing time). SCL and GFK are not "
            "in skada and stay empty.",
        )
        st.multiselect(
            "Data sets",
            KEYS,
            key="real.sets",
            format_func=lambda k: uci.UCI_SETS[k].title,
            help="Rows of the table. All six are the paper's Table 3.",
        )


def run_table(keys, classifiers, impute, seed, transfer="dropout"):
    """Table 3, rows appearing as each data set is done; returns it and its slot."""
    with widgets.progress_bar("Fitting classifiers…") as progress:
        slot = st.empty()

        def show_partial(partial):
            done = len(partial.errors)
            if done == len(keys):
                return  # the complete table is drawn by draw_table3
            with slot.container():
                st.dataframe(key_columns_first(partial.errors, bl.NOT_AVAILABLE), width="stretch")
                st.caption(
                    f"**Not complete: {done} of {len(keys)} data sets done** "
                    f"({', '.join(partial.errors.index)}); the remaining rows, the "
                    "paper's Table 3 beside them and the comparison follow when "
                    "every data set is done."
                )

        result = md.run_missing_data(
            keys,
            classifiers,
            impute,
            seed,
            fit=fit_cached,
            progress=lambda f, text: progress(f, f"Fitting {text}…"),
            transfer=transfer,
            on_data_set=show_partial,
        )
    return result, slot


def formatted(frame, digits=3):
    return frame.map(lambda v: "—" if v != v else f"{v:.{digits}f}")


#: Table 3's columns shown first, so that half a 1920 px screen shows them (issue 25).
FIRST_COLUMNS = ("S-LR", "FLDA-Q", "FLDA-L", "T-LR")


def key_columns_first(frame, drop=()):
    """``frame`` formatted, :data:`FIRST_COLUMNS` first, without the columns ``drop``."""
    first = [c for c in FIRST_COLUMNS if c in frame.columns]
    return formatted(frame[first + [c for c in frame.columns if c not in first and c not in drop]])


def show_transfer_notes(result):
    """Which transfer model FLDA used, and the cells where it does not apply."""
    info, warnings = captions.transfer_notes(result)
    if info:
        st.info(info, icon=":material/info:")
    for text in warnings:
        st.warning(text, icon=":material/warning:")


def show_transfer_parameters(parameters, title):
    """Another transfer model's estimated parameters for one data set (no fit needed)."""
    if parameters.transfer == "dropout":
        return
    frame, note = parameters.transfer_params, captions.parameters_note(parameters, title)
    st.markdown(f"**{title}: estimated {parameters.transfer} parameters**")
    if frame is None:
        st.info(note, icon=":material/info:")
        return
    st.dataframe(frame, hide_index=True, width="stretch", column_config=tables.number_columns(frame))
    st.caption(note)
    tables.download_csv(
        "Download the parameters (CSV)",
        frame,
        file_name=f"flda_{parameters.transfer}_{parameters.key}.csv",
        key="real_download_transfer",
        help="The table above as CSV.",
    )


def figure_settings(data, impute, transfer, seed=None):
    """The settings line of this page's figures: data, gaps, seed and transfer model."""
    return settings_line(data=data, seed=seed, extra=(f"gaps filled: {impute}",), transfer=transfer)


@st.fragment
def draw_theta_section(keys, impute, transfer, present):
    """FLDA's first stage: θ̂ (and another transfer model's parameters) from the data
    alone, drawn before any classifier is fitted.  A fragment: choosing another data set
    or number of features reruns only this section, not Table 3 below it."""
    st.subheader("Which features go missing (θ̂)")
    if st.session_state["real.theta_set"] not in keys:
        st.session_state["real.theta_set"] = keys[0]
    if not present:
        st.selectbox(
            "Data set",
            keys,
            key="real.theta_set",
            format_func=lambda k: uci.UCI_SETS[k].title,
            help="The data set whose features are shown.",
        )
        st.slider(
            "Features shown",
            5,
            80,
            key="real.top_n",
            help="The features with the largest θ̂ or missing share.",
        )
    state.write_to_url(SETTINGS)
    key = st.session_state["real.theta_set"]
    parameters = md.data_parameters(key, impute, transfer)
    thetas = parameters.thetas
    title = uci.UCI_SETS[key].title
    charts.show_chart(
        theta_figure(thetas, int(st.session_state["real.top_n"])),
        "real_theta",
        f"estimated dropout per feature {title}",
        theta_caption(thetas, title),
        settings=figure_settings(title, impute, transfer),
    )
    tables.download_csv(
        "Download θ̂ per feature (CSV)",
        thetas,
        file_name=f"flda_theta_{key}_{impute}.csv",
        key="real_download_theta",
        help="Per encoded feature: its file column, θ̂ and the share of "
        "target rows in which the column is empty.",
    )
    show_transfer_parameters(parameters, title)


def draw_table3(keys, classifiers, impute, seed, transfer, present):
    """FLDA's second stage: every classifier fitted (Table 3), the rows appearing as
    each data set is done; None when the fits failed (the error is shown)."""
    st.subheader("Errors on the rows with gaps (Table 3)")
    with guard.error_boundary("fitting the classifiers of Table 3") as outcome:
        result, slot = run_table(keys, classifiers, impute, seed, transfer)
    if outcome.failed:
        return None
    with slot.container():
        left, right = st.columns(2)
        with left:
            st.markdown("**Here**")
            st.dataframe(key_columns_first(result.errors, bl.NOT_AVAILABLE), width="stretch")
        with right:
            st.markdown("**The paper's Table 3**")
            st.dataframe(key_columns_first(md.paper_table(keys)), width="stretch")
        st.caption(table3_caption(result))
        provenance = provenance_caption(result)
        if provenance:
            st.caption(provenance)
    show_transfer_notes(result)
    charts.show_chart(
        error_comparison_figure(result.errors, result.paper),
        "real_errors",
        "table 3 target errors on uci data with gaps",
        "Bars: target error here (orange naive source classifiers, blue skada "
        "baselines, green FLDA, purple the T-LR oracle trained on the target "
        "labels); grey marks: the paper's Table 3.",
        settings=figure_settings(", ".join(keys), impute, transfer, seed),
    )
    if {"S-LR", "FLDA-Q", "FLDA-L"} <= set(result.errors.columns):
        st.markdown(
            "**Gain of FLDA over S-LR** (S-LR's error minus FLDA's; positive = FLDA makes fewer errors)"
        )
        st.dataframe(formatted(result.gain), width="stretch")
    tables.download_csv(
        "Download the table (CSV)",
        result.long_table,
        file_name=f"flda_missing_data_{impute}.csv",
        key="real_download",
        help="One row per data set and classifier: error here, the paper's value, wrong / "
        "target rows, the hyper-parameters chosen and the fit time.",
    )
    if not present:
        with st.expander("How the numbers are computed"):
            st.markdown("".join(f"* {line}\n" for line in md.PROTOCOL))
            st.dataframe(result.params, width="stretch")
    return result


def main():
    state.restore_from_url(SETTINGS)
    present = state.presentation_mode()
    seed = state.get_seed()
    st.title("Real data: missing data at test time")
    if not present:
        st.markdown(
            "Six UCI data sets with missing values, split the paper's way (section 4.2.2): "
            "the **complete rows** are the labelled source, the **rows with a gap** are the "
            "target, and a gap is a dropped-out feature. Every classifier is trained on the "
            "source (FLDA and the domain-adaptation baselines also see the unlabelled target "
            "rows) and scored on the target."
        )
        charts.sidebar_controls(draw_controls)
    state.write_to_url(SETTINGS)
    impute = st.session_state["real.impute"]
    keys = [k for k in KEYS if k in st.session_state["real.sets"]]
    if not keys:
        st.info("Choose at least one data set in the sidebar.", icon=":material/info:")
        return
    # SCL and GFK stay in the table as "n/a" (not in skada): the paper's columns, in order
    classifiers = tuple(
        c
        for c in md.CLASSIFIERS
        if st.session_state["real.baselines"] or c not in (*bl.BASELINES, *bl.NOT_AVAILABLE)
    )

    st.subheader("The data sets (Table 2)")
    summary, notes = table2_cached(impute)
    summary = summary[summary["data set"].isin([uci.UCI_SETS[k].title for k in keys])]
    side_by_side, joined = tables.paired_columns(summary)
    st.markdown(tables.markdown_table(side_by_side, right=joined))
    st.caption(
        "Counts here beside the paper's Table 2. Files: sample_data/uci/ (UCI Machine "
        "Learning Repository, CC BY 4.0; see PROVENANCE.md there). "
        + " ".join(n for k in keys for n in notes[k])
    )

    draw_theta_section(keys, impute, st.session_state["real.transfer"], present)
    result = draw_table3(keys, classifiers, impute, seed, st.session_state["real.transfer"], present)
    if result is not None and not present:
        navigation.page_link(
            "pages/benchmarks.py",
            label="The paper's image and text benchmarks (Tables 5-9)",
            icon=":material/leaderboard:",
        )


guard.run_page(main)
