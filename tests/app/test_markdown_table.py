"""Small fixed tables drawn as markdown (``explorer.ui.tables.markdown_table``)."""

import numpy as np
import pandas as pd
from apptest_support import shown

from explorer.ui.tables import markdown_table, paired_columns


def test_numbers_are_right_aligned_whole_numbers_grouped_and_floats_formatted():
    frame = pd.DataFrame({"data set": ["a", "b"], "rows": np.array([1234567, 2]), "error": [0.5, 1 / 3]})
    lines = markdown_table(frame).splitlines()
    assert lines[0] == "| data set | rows | error |"
    assert lines[1] == "|:---|---:|---:|"
    assert lines[2:] == ["| a | 1,234,567 | 0.500 |", "| b | 2 | 0.333 |"]
    assert markdown_table(frame, fmt="%.1f").splitlines()[3] == "| b | 2 | 0.3 |"


def test_rows_named_by_the_index_keep_their_names_and_missing_numbers_show_a_dash():
    frame = pd.DataFrame(
        {"S-LR": [0.8, 0.1], "FLDA-Q": [np.nan, 0.25]}, index=["here, A → B", "paper, M → U"]
    )
    lines = markdown_table(frame).splitlines()
    assert shown(lines[0]) == "|  | S-LR | FLDA-Q |"
    assert lines[1] == "|:---|---:|---:|"
    assert shown(lines[2]) == "| here, A → B | 0.800 | – |"
    assert shown(lines[3]) == "| paper, M → U | 0.100 | 0.250 |"
    named = frame.rename_axis("setting")
    assert shown(markdown_table(named).splitlines()[0]) == "| setting | S-LR | FLDA-Q |"
    # pandas' row numbers are not shown, also after rows were filtered out; named ones are
    numbered = frame.reset_index(drop=True)
    assert markdown_table(numbered).splitlines()[0].count("|") == 3
    assert markdown_table(numbered[numbered["S-LR"] < 0.5]).splitlines()[0].count("|") == 3
    assert shown(markdown_table(numbered.rename_axis("fold")).splitlines()[2]) == "| 0 | 0.800 | – |"
    assert "–" in markdown_table(pd.DataFrame({"a": [None], "b": ["x"]}))


def test_text_stays_one_cell_of_one_line_and_is_escaped():
    """A pipe, a line break, markdown or a URL in a cell or a column name must not break
    the table, format text or become a link."""
    frame = pd.DataFrame({"na|me *x*": ["x|y\nz", "http://e.com **bold**"], "n": [1, 2]})
    lines = markdown_table(frame).splitlines()
    assert len(lines) == 4
    assert all(line.count(" | ") == 1 for line in [lines[0], *lines[2:]])  # two cells each
    assert shown(lines[0]) == "| na|me *x* | n |"
    assert shown(lines[2]) == "| x|y z | 1 |"
    assert "**" not in lines[3].replace("\\*", "") and "http://" not in lines[3]
    assert shown(lines[3]) == "| http://e.com **bold** | 2 |"


def test_here_and_paper_columns_become_one_column_of_pairs():
    frame = pd.DataFrame(
        {
            "data set": ["a"],
            "rows (here)": [1200],
            "rows (paper)": [1100],
            "rate (here)": [0.25],
            "rate (paper)": [0.5],
            "extra": [3],
            "only (here)": [7],
        }
    )
    paired, joined = paired_columns(frame)
    assert list(paired.columns) == [
        "data set",
        "rows (here / paper)",
        "rate (here / paper)",
        "extra",
        "only (here)",
    ]
    assert joined == ["rows (here / paper)", "rate (here / paper)"]
    nbsp = "\u00a0"  # no line break inside a pair
    assert paired.iloc[0].tolist() == ["a", f"1,200{nbsp}/{nbsp}1,100", f"0.25{nbsp}/{nbsp}0.5", 3, 7]
    lines = markdown_table(paired, right=joined).splitlines()
    assert lines[1] == "|:---|---:|---:|---:|---:|"
    assert shown(lines[2]) == f"| a | 1,200{nbsp}/{nbsp}1,100 | 0.25{nbsp}/{nbsp}0.5 | 3 | 7 |"
