"""Real data: the paper's Tables 3 and 5-9 (section 4.2), pair by pair and whole.

Thin page over :mod:`explorer.experiments.paper_tables` and :mod:`explorer.ui.real_data_views`.
One set of controls for every table: the table, a pair (Table 3: a UCI data set) and the
skada baselines.  Widget keys start with ``"real."``; an older link's ``theta_set`` is
read as ``pair``.
"""

from __future__ import annotations

import streamlit as st

from explorer.data import benchmarks as bm
from explorer.data import uci
from explorer.experiments import paper_tables as pt
from explorer.figures.lesson import Series, estimates_figure
from explorer.figures.real_data import reproduction_figure
from explorer.safe_text import escape_markdown as esc
from explorer.teaching import real_data as captions
from explorer.ui import caches, charts, guard, state, tables, widgets
from explorer.ui import real_data_views as views
from explorer.ui.real_data_views import figure_settings

KEYS, TABLE3 = tuple(bm.BENCHMARKS), bm.TABLE3
ONLINE_KEY = "real_online"  # (key, pair) of the pair downloaded
WHOLE_KEY = "real_whole"  # the table whose every pair the user asked for


def pair_problem(pair):
    key = st.session_state["real.table"]  # restored before the pair
    return (
        None
        if pair in bm.pairs(key)
        else f"{pair!r} is not a pair of the paper's {bm.BENCHMARKS[key].table}."
    )


SETTINGS = [
    state.Setting("real.table", TABLE3, options=KEYS),
    state.Setting(
        "real.pair", "heart", options=tuple(dict.fromkeys(sum(map(bm.pairs, KEYS), []))), check=pair_problem
    ),
    state.Setting("real.baselines", False),
    state.Setting("real.impute", "zero", options=uci.IMPUTE_OPTIONS),
    widgets.transfer_setting("real"),
    views.TOP_N,
]


@caches.cache_data(show_spinner=False, max_entries=1024)
def cell(key, pair, classifier, random_state, impute="zero", transfer="dropout"):
    """One cell (read from the disk store when this code computed it before)."""
    return pt.stored_cell(key, pair, classifier, random_state, impute, transfer)


def formatted(frame):
    return frame.map(lambda v: "—" if v != v else f"{v:.3f}" if isinstance(v, float) else v)


def first_pair():
    st.session_state["real.pair"] = bm.pairs(st.session_state["real.table"])[0]


def draw_controls(key):
    left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
    left.selectbox(
        "The paper's table",
        KEYS,
        key="real.table",
        on_change=first_pair,
        format_func=lambda k: f"{bm.BENCHMARKS[k].table}: {bm.BENCHMARKS[k].title}",
        help="Tables 3, 5, 7 and 8 are read from files shipped with this app (no network); "
        "Tables 6 and 9 are downloaded by skada on request.",
    )
    middle.selectbox(
        "Data set" if key == TABLE3 else "Source → target",
        bm.pairs(key),
        key="real.pair",
        format_func=lambda p: bm.pair_title(key, p),
        help="Trained on the source's labelled rows (FLDA and the baselines also see the target's "
        "rows, unlabelled), scored on the target's labels. Table 3: a data set's complete rows "
        "are the source, its rows with a gap the target (section 4.2.2).",
    )
    right.checkbox(
        "skada's baselines",
        key="real.baselines",
        help="The paper's baselines in skada (Table 3: KMM, SA, TCA, CORAL, OT; Tables 5-9: KMM, SA, "
        "TCA on samples): up to a minute per pair the first time, then read from disk. No SCL, GFK.",
    )


def draw_sidebar(key):
    st.sidebar.subheader("Table 3's gaps")
    if key != TABLE3:
        st.sidebar.caption(
            "Filling the gaps and FLDA's transfer model apply to Table 3 only: the files of "
            "Tables 5-9 have no gaps, and FLDA uses dropout there, as in the paper."
        )
        return
    st.sidebar.radio(
        "Fill the gaps of the target rows with",
        uci.IMPUTE_OPTIONS,
        key="real.impute",
        format_func=captions.IMPUTE_LABELS.get,
        help="Zeros: a missing value is a dropped-out feature, as in the paper (section 4.2.2). "
        "Mean: features are centred on the source mean, so a gap holds the source mean; FLDA's "
        "dropout then replaces a feature by its mean, the alternative the paper names.",
    )
    widgets.transfer_control("real", note=captions.TRANSFER_NOTE, container=st.sidebar)


def show_pair(key, pair, names, seed, options):
    """The chosen pair: the figure, this run beside the paper's row, its data's summary."""
    table, title = bm.BENCHMARKS[key].table, bm.pair_title(key, pair)
    with guard.error_boundary(f"fitting the classifiers on {title}") as outcome:
        with widgets.progress_bar(f"Fitting on {title}…") as progress:
            result = pt.run_pair(key, pair, names, seed, fit=cell, progress=progress, **options)
    if outcome.failed:
        return
    summary = pt.pair_summary(key, pair, options.get("impute", "zero"))
    paper = Series(f"the paper's {table}", tuple(result.paper), None, "x")
    here = Series(
        "this server (±1 SE)", tuple(result.errors), tuple(pt.binomial_se(result.errors, result.n_target))
    )
    charts.show_chart(
        estimates_figure(result.errors.index, [paper, here], "target error", (0, 1)),
        "real_errors",
        f"{table} {title} target errors",
        captions.pair_caption(result) + captions.oracle_note(result, summary),
        settings=figure_settings(f"{table}, {title}", options, seed),
    )
    st.dataframe(formatted(result.frame()), width="stretch")
    st.caption(f"The paper's row as typed from it. {captions.provenance_caption(result.cells.values())}")
    info, warnings = captions.transfer_notes(result, options.get("transfer", "dropout"))
    if info:
        st.info(info, icon=":material/info:")
    for text in warnings:
        st.warning(text, icon=":material/warning:")
    with st.expander(f"The data of {title} and its θ̂ (no classifier fitted); how the numbers are computed"):
        shown = summary.map(lambda v: f"{v:,.0f}" if float(v).is_integer() else f"{v:.3f}")
        st.dataframe(shown.to_frame(), width="stretch")
        st.markdown("".join(f"* {line}\n" for line in pt.protocol(key)))
    tables.download_csv(
        "Download this pair (CSV)",
        pt.TableResult(key, {pair: result}).long_table(),
        file_name=f"flda_{key}_{pair.replace(' → ', '_to_')}.csv",
        key="real_download_pair",
        help="One row per classifier: error, its SE, the paper's value, wrong / target rows, what "
        "cross-validation chose and the fit time.",
    )


def show_paper_table(key):
    st.dataframe(formatted(bm.paper_rows(key)), width="stretch")
    st.caption(f"The paper's {bm.BENCHMARKS[key].table} as typed from the paper. {bm.BENCHMARKS[key].note}")


def run_whole(key):
    st.session_state[WHOLE_KEY] = key


def show_whole_table(key, names, seed, options):
    """Every pair of the table (on request), rows appearing as each pair is done, then how
    closely this run reproduces the paper."""
    benchmark = bm.BENCHMARKS[key]
    st.subheader(f"The whole {benchmark.table}")
    if st.session_state.get(WHOLE_KEY) != key:
        show_paper_table(key)
        st.button(
            f"Run every {benchmark.pair_word} of {benchmark.table}",
            key="real_whole_run",
            on_click=run_whole,
            args=(key,),
            help="Fits the chosen classifiers on every pair (cells computed before are read back).",
        )
        return
    slot, total = st.empty(), len(bm.pairs(key))

    def show_partial(done):
        with slot.container():
            st.dataframe(formatted(done.errors), width="stretch")
            st.caption(f"**Not complete: {len(done.pairs)} of {total} done**; the comparison follows.")

    with guard.error_boundary(f"fitting every pair of {benchmark.table}") as outcome:
        with widgets.progress_bar(f"Fitting every pair of {benchmark.table}…") as progress:
            result = pt.run_table(key, names, seed, cell, progress, show_partial, **options)
    if outcome.failed:
        return
    with slot.container():
        st.dataframe(formatted(result.errors) + " / " + formatted(result.paper), width="stretch")
        st.caption(captions.table_caption(result) + " " + captions.provenance_caption(result.cells))
    charts.show_chart(
        reproduction_figure(result.errors, result.paper, benchmark.table),
        "real_table",
        f"{benchmark.table} this run against the paper",
        captions.reproduction_caption(result),
        settings=figure_settings(benchmark.table, options, seed),
    )
    st.dataframe(formatted(result.reproduction().reset_index()), hide_index=True, width="stretch")
    tables.download_csv(
        f"Download {benchmark.table} (CSV)",
        result.long_table,
        file_name=f"flda_{key}_table.csv",
        key="real_download_table",
        help="One row per pair and classifier, as the pair's download.",
    )


def online_ready(key, pair):
    """Tables 6 and 9: downloaded on request (a button); True once this pair is there."""
    if st.session_state.get(ONLINE_KEY) == (key, pair):
        return True
    title = bm.BENCHMARKS[key].title
    if st.button("Download and run", key="real_fetch", type="primary", help=f"skada downloads {title} once."):
        try:
            bm.pair_data(key, pair)
        except bm.BenchmarkUnavailable as error:
            message = f"**Not available right now.** {esc(str(error))} Tables 3, 5, 7 and 8 need no network."
            st.warning(message, icon=":material/cloud_off:")
            return False
        st.session_state[ONLINE_KEY] = (key, pair)
        return True
    return False


def main():
    if "theta_set" in st.query_params and "pair" not in st.query_params:  # an older page's link
        st.query_params["pair"] = st.query_params.pop("theta_set")
    state.restore_from_url(SETTINGS)
    if st.session_state["real.pair"] not in bm.pairs(st.session_state["real.table"]):
        first_pair()
    present, seed = state.presentation_mode(), state.get_seed()
    key, pair = st.session_state["real.table"], st.session_state["real.pair"]
    st.title("Real data: the paper's Tables 3 and 5-9")
    if not present:
        st.markdown(
            "The paper's real-data experiments (section 4.2): FLDA-Q and FLDA-L beside the naive "
            "S-LR, skada's versions of the paper's baselines and the T-LR oracle, with the paper's "
            "protocol (penalties by cross-validation on the source), next to the paper's numbers. "
            "Table 3 is missing data at test time: a gap is a dropped-out feature."
        )
        draw_controls(key)
        charts.sidebar_controls(draw_sidebar, key)
    state.write_to_url(SETTINGS)
    options = {}
    if key == TABLE3:
        options = {"impute": st.session_state["real.impute"], "transfer": st.session_state["real.transfer"]}
    names = pt.classifiers(key, st.session_state["real.baselines"])
    if not bm.BENCHMARKS[key].offline and not online_ready(key, pair):
        show_paper_table(key)
        return
    if key == TABLE3:
        st.subheader("The data sets (Table 2) and which features go missing (θ̂)")
        views.show_table2(options["impute"])
        views.draw_theta_section(pair, options["impute"], options["transfer"], present)
    st.subheader(f"{bm.BENCHMARKS[key].table}: {bm.pair_title(key, pair)}")
    show_pair(key, pair, names, seed, options)
    show_whole_table(key, names, seed, options)


guard.run_page(main)
