"""Paper benchmarks: the paper's Tables 5-9 (sections 4.2.4-4.2.7), pair by pair and whole.

Thin page over :mod:`explorer.experiments.paper_tables` (the fits, the protocol, every
cell kept on disk), :mod:`explorer.data.benchmarks` (the authors' files of Tables 5, 7
and 8, offline; skada's downloads of Tables 6 and 9 on request) and
:mod:`explorer.figures.real_data`.  Widget keys start with ``"bench."`` and are mirrored
in the URL (:func:`explorer.experiments.paper_tables.page_url` builds a link).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer.data import benchmarks as bm
from explorer.experiments import paper_tables as pt
from explorer.figures.export import settings_line
from explorer.figures.real_data import error_comparison_figure, reproduction_figure
from explorer.safe_text import escape_markdown as esc
from explorer.teaching import real_data as captions
from explorer.ui import charts, guard, state, tables, widgets

KEYS = tuple(bm.BENCHMARKS)
ONLINE_KEY = "bench_online"  # {"pair": (key, pair)} after a download, or {"error": message}
WHOLE_KEY = "bench_whole"  # the table whose every pair the user asked for


def pair_problem(pair):
    key = st.session_state.get("bench.table")
    if key in bm.PAPER_TABLES and pair not in bm.pairs(key):
        return f"{pair!r} is not a pair of the paper's {bm.BENCHMARKS[key].table}."
    return None


SETTINGS = [
    state.Setting("bench.table", "office_caltech", options=KEYS),
    state.Setting(
        "bench.pair", "A → D", options=tuple(dict.fromkeys(sum(map(bm.pairs, KEYS), []))), check=pair_problem
    ),
    state.Setting("bench.baselines", False),
]


@st.cache_data(show_spinner=False, max_entries=1024)
def cell(key, pair, name, seed):
    """One cell (read from the disk store when this code computed it before)."""
    return pt.stored_cell(key, pair, name, seed)


def formatted(frame):
    return frame.map(lambda v: "—" if v != v else f"{v:.3f}" if isinstance(v, float) else v)


def first_pair():
    st.session_state["bench.pair"] = bm.pairs(st.session_state["bench.table"])[0]


def draw_controls(key):
    left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
    left.selectbox(
        "The paper's table",
        KEYS,
        key="bench.table",
        on_change=first_pair,
        format_func=lambda k: f"{bm.BENCHMARKS[k].table}: {bm.BENCHMARKS[k].title}",
        help="Tables 5, 7 and 8 are read from the authors' files shipped with this app (no "
        "network); Tables 6 and 9 are downloaded by skada on request.",
    )
    middle.selectbox(
        "Source → target",
        bm.pairs(key),
        key="bench.pair",
        help="Trained on the first domain's labelled rows (FLDA and the baselines also see the "
        "second's rows, unlabelled), scored on the second domain's labels.",
    )
    right.checkbox(
        "skada's KMM, SA and TCA",
        key="bench.baselines",
        help="The paper's baselines that skada provides (seconds to a minute per pair the first "
        "time; then read from this server's disk). SCL and GFK are not in skada.",
    )


def show_pair(key, pair, names, seed):
    """The chosen pair: the figure, this run beside the paper's row, the data's summary."""
    table = bm.BENCHMARKS[key].table
    with guard.error_boundary(f"fitting the classifiers on {pair}") as outcome:
        with widgets.progress_bar(f"Fitting on {pair}…") as progress:
            result = pt.run_pair(key, pair, names, seed, fit=cell, progress=progress)
    if outcome.failed:
        return
    errors, n = result.errors, result.n_target
    se = errors.map(lambda p: np.sqrt(p * (1 - p) / n))
    charts.show_chart(
        error_comparison_figure(
            errors.to_frame(pair).T, result.paper.to_frame(pair).T, 1, se.to_frame(pair).T, table
        ),
        "bench_pair",
        f"{table} {pair} target errors",
        f"Bars: target error on {pair} here (± one binomial standard error, {n} target rows); "
        f"grey marks: the paper's {table} row. " + captions.verdict_text(result),
        settings=settings_line(data=f"{table}, {pair}", seed=seed),
    )
    st.dataframe(formatted(result.frame()), width="stretch")
    summary = pt.pair_summary(key, pair)
    st.caption(
        f"This run beside the paper's {table} (typed from the paper) and the difference; the chosen "
        f"penalty per classifier is in the CSV.{captions.oracle_note(result, summary)}"
    )
    with st.expander(f"The data of {pair} and its θ̂ (no classifier fitted)"):
        shown = summary.map(lambda v: f"{v:,.0f}" if float(v).is_integer() else f"{v:.3f}")
        st.dataframe(shown.to_frame(), width="stretch")
        st.markdown("".join(f"* {line}\n" for line in pt.PROTOCOL))
    pair_table = pt.TableResult(key, {pair: result}).long_table()
    tables.download_csv(
        "Download this pair (CSV)",
        pair_table,
        file_name=f"flda_{key}_{pair.replace(' → ', '_to_')}.csv",
        key="bench_download_pair",
        help="One row per classifier: error, its SE, the paper's value, wrong / target rows, the "
        "penalty cross-validation chose and the fit time.",
    )


def run_whole(key):
    st.session_state[WHOLE_KEY] = key


def show_whole_table(key, names, seed):
    """Every pair of the table (on request), with how closely this run reproduces it."""
    benchmark = bm.BENCHMARKS[key]
    st.subheader(f"The whole {benchmark.table}")
    if st.session_state.get(WHOLE_KEY) != key:
        st.dataframe(formatted(bm.paper_rows(key)), width="stretch")
        st.caption(f"The paper's {benchmark.table} as typed from the paper. {benchmark.note}")
        st.button(
            f"Run every pair of {benchmark.table}",
            key="bench_whole_run",
            on_click=run_whole,
            args=(key,),
            help="Fits the chosen classifiers on every pair (cells computed before are read back).",
        )
        return
    with guard.error_boundary(f"fitting every pair of {benchmark.table}") as outcome:
        with widgets.progress_bar("Fitting every pair…") as progress:
            result = pt.run_table(key, names, seed, fit=cell, progress=progress)
    if outcome.failed:
        return
    reproduction = result.reproduction()
    charts.show_chart(
        reproduction_figure(result.errors, result.paper, benchmark.table),
        "bench_table",
        f"{benchmark.table} this run against the paper",
        f"Each mark one pair and classifier of {benchmark.table}: on the diagonal this run equals the "
        "paper; dotted lines ± 0.03. "
        + " ".join(
            f"{c}: mean |here − paper| {row['mean |here − paper|']:.3f}, worst {row['worst pair']} "
            f"({row['here − paper there']:+.3f})."
            for c, row in reproduction.loc[
                [c for c in ("FLDA-Q", "FLDA-L") if c in reproduction.index]
            ].iterrows()
        ),
        settings=settings_line(data=benchmark.table, seed=seed),
    )
    st.dataframe(formatted(reproduction.reset_index()), hide_index=True, width="stretch")
    st.dataframe(formatted(result.errors), width="stretch")
    st.caption(
        f"Target error here, every pair of {benchmark.table}; the figure sets each against the paper's."
    )
    tables.download_csv(
        f"Download {benchmark.table} (CSV)",
        result.long_table,
        file_name=f"flda_{key}_table.csv",
        key="bench_download_table",
        help="One row per pair and classifier, as the pair's download.",
    )


def fetch(key, pair):
    try:
        bm.pair_data(key, pair)
        st.session_state[ONLINE_KEY] = {"pair": (key, pair)}
    except bm.BenchmarkUnavailable as error:
        st.session_state[ONLINE_KEY] = {"error": str(error)}


def online_ready(key, pair):
    """Tables 6 and 9: a button that downloads; True once this pair is there."""
    outcome = st.session_state.get(ONLINE_KEY, {})
    if outcome.get("pair") == (key, pair):
        return True
    st.button(
        "Download and run",
        key="bench_fetch",
        type="primary",
        on_click=fetch,
        args=(key, pair),
        help=f"skada downloads {bm.BENCHMARKS[key].title} once into this server's cache.",
    )
    if "error" in outcome:
        st.warning(
            f"**Not available right now.** {esc(outcome['error'])} Tables 5, 7 and 8 need no network.",
            icon=":material/cloud_off:",
        )
    return False


def main():
    state.restore_from_url(SETTINGS)
    if st.session_state["bench.pair"] not in bm.pairs(st.session_state["bench.table"]):
        first_pair()
    present = state.presentation_mode()
    key, pair, seed = st.session_state["bench.table"], st.session_state["bench.pair"], state.get_seed()
    st.title("Paper benchmarks: Tables 5-9")
    if present:
        widgets.presentation_row(pt.PAGE, SETTINGS)
    else:
        st.markdown(
            "The paper's image and text benchmarks (sections 4.2.4-4.2.7): FLDA-Q and FLDA-L beside "
            "the naive S-LR, skada's versions of the paper's baselines and the T-LR oracle, with the "
            "paper's protocol (penalty by cross-validation on the source), next to the paper's row."
        )
        draw_controls(key)
    state.write_to_url(SETTINGS)
    names = pt.FAST + (pt.BASELINES if st.session_state["bench.baselines"] else ())
    if not bm.BENCHMARKS[key].offline and not online_ready(key, pair):
        st.dataframe(formatted(bm.paper_rows(key)), width="stretch")
        st.caption(
            f"The paper's {bm.BENCHMARKS[key].table} as typed from the paper. {bm.BENCHMARKS[key].note}"
        )
        return
    show_pair(key, pair, names, seed)
    show_whole_table(key, names, seed)


guard.run_page(main)
