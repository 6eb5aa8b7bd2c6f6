"""Result tables: float columns shown with a fixed format (:func:`number_columns`), small
fixed tables as markdown (:func:`markdown_table`) and CSV downloads safe for
spreadsheets, made on click (:func:`download_csv`, :func:`csv_bytes`)."""

from __future__ import annotations

import streamlit as st

from explorer.safe_text import escape_markdown, safe_csv


def csv_bytes(frame, index=False):
    """``frame`` as CSV bytes, formula-leading cells neutralised (:func:`safe_csv`)."""
    return safe_csv(frame, index=index).encode("utf-8")


def download_csv(label, frame, file_name, key, help, index=False, container=None):
    """A download button for ``frame`` as spreadsheet-safe CSV (:func:`csv_bytes`).

    Made on click, without a rerun (a per-repeat table took 15 ms per rerun); ``frame``
    may be a function returning the DataFrame.
    """

    def data():
        return csv_bytes(frame() if callable(frame) else frame, index=index)

    return (container or st).download_button(
        label, data=data, file_name=file_name, mime="text/csv", key=key, help=help, on_click="ignore"
    )


def show_table(frame, caption, download, file_name, key, help, **options):
    """A result table as the pages show one: ``frame`` (float columns formatted by
    :func:`number_columns`), its ``caption`` and a CSV download labelled ``download``
    (:func:`download_csv`; ``file_name``, ``key`` and ``help`` are the button's).
    ``options`` go to ``st.dataframe`` (default: no index, the page's full width)."""
    options = {"hide_index": True, "width": "stretch", "column_config": number_columns(frame), **options}
    st.dataframe(frame, **options)
    st.caption(caption)
    download_csv(download, frame, file_name, key, help, index=not options["hide_index"])


def download_file(label, data, file_name, mime, key, help, container=None):
    """A download button for ``data`` (bytes this tool made, never a user's file as is),
    without a rerun on click; for CSV use :func:`download_csv`."""
    return (container or st).download_button(
        label,
        data=data,
        file_name=file_name,
        mime=mime,
        key=key,
        help=help,
        on_click="ignore",
        icon=":material/download:",
    )


def number_columns(frame, fmt="%.3f", columns=None):
    """``column_config`` showing the float columns of ``frame`` (or ``columns``) with ``fmt``."""
    if columns is None:
        columns = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    return {c: st.column_config.NumberColumn(format=fmt) for c in columns}


#: What a markdown table shows for a missing number (NaN, None).
MISSING = "–"


def _cell(value, fmt):
    if value is None or (isinstance(value, float) and value != value):
        return MISSING
    if isinstance(value, str):
        # one line ("|" comes out as "\\|"); spaces that keep words together stay
        return escape_markdown(" ".join(value.splitlines()))
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return f"{int(value):,}"
    return fmt % value


def markdown_table(frame, fmt="%.3f", right=None):
    """``frame`` as a markdown table: numbers (whole numbers with thousands separators,
    others with ``fmt``, a missing one as :data:`MISSING`) and the columns in ``right``
    right-aligned, text escaped and kept on one line.  An index that names the rows
    (named, or not whole numbers) is the first column.

    For small read-only tables: a tab's first ``st.dataframe`` fetches 1.2 MB of grid
    code (0.3-0.5 s before Real data's first chart), each grid 0.2-0.3 s more.
    """
    if frame.index.name is not None or frame.index.dtype.kind not in "iu":
        frame = frame.reset_index(names=frame.index.name or "")
    right = set(right or ())
    aligned = [c in right or frame[c].dtype.kind in "iuf" for c in frame.columns]
    header = "| " + " | ".join(_cell(str(c), fmt) for c in frame.columns) + " |"
    rule = "|" + "|".join("---:" if a else ":---" for a in aligned) + "|"
    rows = [
        "| " + " | ".join(_cell(v, fmt) for v in row) + " |"
        for row in frame.itertuples(index=False, name=None)
    ]
    return "\n".join([header, rule, *rows])


def paired_columns(frame, first="here", second="paper"):
    """``frame`` with each pair of columns ``"X (first)"``, ``"X (second)"`` shown as one
    column ``"X (first / second)"`` of ``"a / b"``, unbroken; returns the new frame and the
    names of the joined columns."""
    import pandas as pd

    columns, joined = {}, []
    for column in frame.columns:
        name = str(column)
        if name.endswith(f" ({second})") and name[: -len(second) - 3] + f" ({first})" in frame:
            continue
        if name.endswith(f" ({first})"):
            base = name[: -len(first) - 3]
            partner = f"{base} ({second})"
            if partner in frame:
                label = f"{base} ({first} / {second})"
                columns[label] = [
                    f"{_cell(a, '%g')}\u00a0/\u00a0{_cell(b, '%g')}"
                    for a, b in zip(frame[column], frame[partner], strict=True)
                ]
                joined.append(label)
                continue
        columns[column] = frame[column]
    return pd.DataFrame(columns, index=frame.index), joined
