"""Table 3's data on the Real data page (section 4.2.2): Table 2 and FLDA's first stage,
θ̂ per feature from the data alone; and the settings line of the page's figures."""

from __future__ import annotations

import streamlit as st

from explorer.data import benchmarks as bm
from explorer.data import uci
from explorer.experiments import missing_data as md
from explorer.figures.export import settings_line
from explorer.figures.real_data import theta_figure
from explorer.teaching import real_data as captions
from explorer.ui import charts, state, tables

#: How many features the θ̂ chart shows (URL-mirrored, ``?top_n=``).
TOP_N = state.Setting("real.top_n", 25, lo=5, hi=80)


def figure_settings(data, options, seed=None):
    """The settings line of the page's figures: data, seed and (Table 3) gaps and transfer model."""
    extra = (f"gaps filled: {options['impute']}",) if options else ()
    return settings_line(data=data, seed=seed, extra=extra, transfer=options.get("transfer", "dropout"))


def show_table2(impute):
    """Table 2: the six data sets counted here beside the paper's counts."""
    problems = [uci.problem(k, impute) for k in uci.UCI_SETS]
    side_by_side, joined = tables.paired_columns(uci.table2(problems))
    st.markdown(tables.markdown_table(side_by_side, right=joined))
    notes = " ".join(n for problem in problems for n in problem.notes)
    st.caption(f"Counts here beside the paper's Table 2. {bm.BENCHMARKS[bm.TABLE3].note} {notes}")


@st.fragment
def draw_theta_section(pair, impute, transfer, present):
    """FLDA's first stage on a Table 3 data set: θ̂ (and another transfer model's
    parameters) from the data alone, drawn before any classifier is fitted.  A fragment:
    another number of features reruns only this section."""
    if not present:
        st.slider(
            "Features shown",
            5,
            80,
            key="real.top_n",
            help="The features with the largest θ̂ or missing share.",
        )
    state.write_to_url([TOP_N])
    thetas, params = md.data_parameters(pair, impute, transfer)
    title = uci.UCI_SETS[pair].title
    charts.show_chart(
        theta_figure(thetas, int(st.session_state["real.top_n"])),
        "real_theta",
        f"estimated dropout per feature {title}",
        captions.theta_caption(thetas, title),
        settings=figure_settings(title, {"impute": impute, "transfer": transfer}),
    )
    tables.download_csv(
        "Download θ̂ per feature (CSV)",
        thetas,
        file_name=f"flda_theta_{pair}_{impute}.csv",
        key="real_download_theta",
        help="Per encoded feature: its file column, θ̂ and the share of target rows missing the column.",
    )
    if transfer == "dropout":
        return
    st.markdown(f"**{title}: estimated {transfer} parameters**")
    note, file = captions.parameters_note(params, transfer, title), f"flda_{transfer}_{pair}.csv"
    if params is None:
        st.info(note, icon=":material/info:")
    else:
        tables.show_table(params, note, "Download the parameters (CSV)", file, "real_download_tp", "As CSV.")
