"""The six UCI data sets of the paper's "missing data at test time" experiment.

Section 4.2.2 (Table 2, Table 3) makes a data set with missing values a domain-adaptation
problem: the **source** is every complete row (labelled, for training), the **target**
every row with a gap (the test rows).  Gaps are filled with 0, so a missing value is a
*dropped-out* feature, exactly what FLDA's dropout transfer model (section 3.3.1)
describes.  The CSV copies are in ``sample_data/uci/`` (UCI Machine Learning Repository,
CC BY 4.0; ``sample_data/uci/PROVENANCE.md``).

Imputation.  ``impute="zero"`` is the paper's choice: features are divided by their root
mean square on the source and gaps are 0.  ``impute="mean"`` (the alternative the paper
names) centres features on their source mean and divides by their source standard
deviation, so a gap, 0 *in those coordinates*, is the source mean.  Either way a gap is an
exact 0 in the matrices every classifier sees, so FLDA's θ̂ measures how often each
feature goes missing.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.

Dua, D. and Graff, C. (2019). UCI Machine Learning Repository. University of
California, Irvine, School of Information and Computer Sciences.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from explorer.errors import DataValidationError
from explorer.data.csv import CsvTable, is_numeric

#: Folder of the shipped CSV files.
UCI_DIR = Path(__file__).resolve().parents[2] / "sample_data" / "uci"
#: How the gaps of the target rows are filled (see the module docstring).
IMPUTE_OPTIONS = ("zero", "mean")


@dataclass(frozen=True)
class UciDataSet:
    """One shipped data set and the paper's Table 2 column for it.

    Attributes
    ----------
    key : str
        File stem, e.g. ``"heart"``.
    title : str
        Name shown on the page (the paper's abbreviation in brackets).
    label : str
        The class column.
    exclude : dict
        Columns that are not features, with the reason (shown as a note).
    n_rows, n_gap_rows : int
        Rows in the file and rows with a missing *feature* value (excluded
        columns do not count), as listed in ``PROVENANCE.md``.
    paper : dict
        The paper's Table 2 column: features, samples, classes, missing.
    """

    key: str
    title: str
    label: str
    exclude: dict
    n_rows: int
    n_gap_rows: int
    paper: dict

    @property
    def file(self):
        return f"{self.key}.csv"


#: Columns that are not features, with the reason (shown as a note).
_NOT_FEATURES = {
    "ozone": {"date": "the day of the measurement, an identifier rather than a measurement"},
    "heart": {"site": "which of the four clinics the patient came from"},
    "mammographic": {
        "bi_rads": "a radiologist's assessment, not a measurement (UCI calls it non-predictive)"
    },
}


def _spec(key, title, label, n_rows, n_gap_rows, *table2):
    paper = dict(zip(("features", "samples", "classes", "missing"), table2, strict=True))
    return UciDataSet(key, title, label, _NOT_FEATURES.get(key, {}), n_rows, n_gap_rows, paper)


#: The six data sets, in the column order of the paper's Tables 2 and 3: key, title, label
#: column, rows, rows with gaps, then Table 2's features, samples, classes, missing.
UCI_SETS = {
    spec.key: spec
    for spec in (
        _spec("hepatitis", "Hepatitis (hepat.)", "class", 155, 75, 19, 155, 2, 75),
        _spec("ozone", "Ozone (ozone)", "class", 2534, 687, 72, 2534, 2, 685),
        _spec("heart", "Heart disease (heart)", "class", 920, 621, 13, 704, 2, 615),
        _spec("mammographic", "Mammographic masses (mam.)", "severity", 961, 130, 4, 961, 2, 130),
        _spec("automobile", "Automobile (auto.)", "symboling", 205, 46, 24, 205, 6, 72),
        _spec("arrhythmia", "Arrhythmia (arrhy.)", "class", 452, 384, 279, 452, 13, 384),
    )
}


def load_uci(key):
    """Read one shipped data set: a DataFrame, empty cells as ``NaN``.

    Text columns (categories, class names) are strings, number columns float
    or int.  Nothing is dropped here.
    """
    if key not in UCI_SETS:
        raise KeyError(f"Unknown UCI data set {key!r}; choose from {tuple(UCI_SETS)}.")
    return pd.read_csv(UCI_DIR / UCI_SETS[key].file, keep_default_na=False, na_values=[""])


def _frame(table):
    return table.frame if isinstance(table, CsvTable) else table


def feature_columns(table, label, exclude=()):
    """The columns used as features: all but ``label`` and ``exclude``, in file order."""
    frame = _frame(table)
    if label not in frame.columns:
        raise DataValidationError(
            f"There is no column named {label!r}.",
            f"Choose the label column among: {', '.join(map(str, frame.columns[:10]))}.",
        )
    skip = set(exclude) | {label}
    return [c for c in frame.columns if c not in skip]


def split_by_missing(table, label, exclude=()):
    """Split a table into complete rows (source) and rows with a gap (target).

    The paper's protocol of section 4.2.2: a row with any missing *feature*
    value (``label`` and ``exclude`` columns do not count) goes to the target.
    Rows whose label is missing are left out of both.

    Parameters
    ----------
    table : pandas.DataFrame or CsvTable
        Missing values are ``NaN``/``None`` (as :func:`load_uci` and
        :func:`~explorer.data.tabular.parse_csv` return them).
    label : str
    exclude : sequence of str

    Returns
    -------
    source, target : same type as ``table``
        Row subsets (all columns kept, original row order and index).  For a
        :class:`CsvTable` the names get ``" (complete rows)"`` and ``" (rows
        with gaps)"`` appended, and each part's ``row_numbers`` are its rows'
        data-row numbers in ``table``'s file (so predictions name the file's rows).

    Raises
    ------
    DataValidationError
        No complete row, or no row with a gap.
    """
    frame = _frame(table)
    features = feature_columns(frame, label, exclude)
    if not features:
        raise DataValidationError(
            "No feature columns are left.", "Ignore fewer columns, or pick another label column."
        )
    labelled = frame[label].notna().to_numpy()
    gap = frame[features].isna().any(axis=1).to_numpy()
    source, target = frame[labelled & ~gap], frame[labelled & gap]
    name = table.name if isinstance(table, CsvTable) else "The table"
    if len(source) == 0:
        raise DataValidationError(
            f"{name} has no complete row: every labelled row has a missing feature value.",
            "Ignore the columns that are missing most often (they are not usable as "
            "features), so that some rows become complete.",
        )
    if len(target) == 0:
        raise DataValidationError(
            f"{name} has no row with a missing feature value, so there is no target.",
            "Use a file with empty cells, or load a separate target file.",
        )
    if not isinstance(table, CsvTable):
        return source, target
    file_rows = table.file_rows()  # each part keeps its rows' numbers in the file
    return tuple(
        replace(table, name=f"{table.name} ({what})", frame=part.reset_index(drop=True), **kept)
        for part, what, kept in (
            (source, "complete rows", {"row_numbers": file_rows[labelled & ~gap]}),
            (target, "rows with gaps", {"warnings": (), "row_numbers": file_rows[labelled & gap]}),
        )
    )


def encode_features(source, target, columns, impute="zero", keep_gaps=False):
    """Numeric matrices for ``columns`` of two frames; gaps become exact zeros.

    Text columns are one-hot encoded with the categories seen in the source
    (one 0/1 column per category, named ``"column=value"``); a missing text
    value, or a category the source never shows, is a row of zeros in that
    group, i.e. the whole group dropped out.  Then every column is scaled on
    the source (see the module docstring for ``impute``) and the gaps are set
    to 0 -- or, with ``keep_gaps``, the target's gaps stay ``NaN`` (for the
    ``"imputation"`` transfer model of :mod:`flda_core.transfer_models`).

    Returns
    -------
    X_source, X_target : ndarray of float64
    names : list of str
        One per output column.
    origin : list of str
        The input column each output column comes from.
    """
    if impute not in IMPUTE_OPTIONS:
        raise ValueError(f"impute must be one of {IMPUTE_OPTIONS}, got {impute!r}.")
    blocks_s, blocks_t, names, origin = [], [], [], []
    for column in columns:
        s, t = source[column], target[column]
        if not (is_numeric(s) and is_numeric(t)):
            s, t = s.astype("string"), t.astype("string")
            categories = sorted(s.dropna().unique())
            for value in categories:
                for blocks, values in ((blocks_s, s), (blocks_t, t)):
                    onehot = (values == value).astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
                    blocks.append(onehot)
                names.append(f"{column}={value}")
                origin.append(column)
        else:
            blocks_s.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
            blocks_t.append(t.to_numpy(dtype=np.float64, na_value=np.nan))
            names.append(str(column))
            origin.append(column)
    X_s = np.column_stack(blocks_s) if blocks_s else np.zeros((len(source), 0))
    X_t = np.column_stack(blocks_t) if blocks_t else np.zeros((len(target), 0))
    if impute == "mean":
        centre = np.nanmean(X_s, axis=0) if len(X_s) else np.zeros(X_s.shape[1])
        spread = np.nanstd(X_s, axis=0)
    else:
        centre = np.zeros(X_s.shape[1])
        spread = np.sqrt(np.nanmean(X_s**2, axis=0))
    centre = np.nan_to_num(centre)
    spread = np.where(np.isfinite(spread) & (spread > 0), spread, 1.0)
    X_s = np.nan_to_num((X_s - centre) / spread, nan=0.0)
    X_t = (X_t - centre) / spread
    X_t = X_t if keep_gaps else np.nan_to_num(X_t, nan=0.0)
    return X_s, X_t, names, origin


@dataclass(frozen=True)
class MissingDataProblem:
    """A data set split the paper's way, ready for the classifiers.

    Attributes
    ----------
    key, title : str
    X_source, X_target : ndarray
        Encoded, scaled features; gaps (target only) are exact zeros.
    y_source, y_target : ndarray
        Labels as in the file (the target's are for measuring errors only).
    feature_names : tuple of str
        Encoded column names (``"make=audi"`` for one-hot columns).
    feature_origin : tuple of str
        The file column each encoded column comes from.
    missing_rate : ndarray
        Per encoded column, the fraction of target rows where its file column
        is missing.
    impute : str
    notes : tuple of str
        What was excluded and encoded, and why.
    paper : dict
        The paper's Table 2 column.
    """

    key: str
    title: str
    X_source: np.ndarray = field(repr=False)
    y_source: np.ndarray = field(repr=False)
    X_target: np.ndarray = field(repr=False)
    y_target: np.ndarray = field(repr=False)
    feature_names: tuple
    feature_origin: tuple
    missing_rate: np.ndarray = field(repr=False)
    impute: str
    notes: tuple
    paper: dict


def make_missing_problem(key, impute="zero", keep_gaps=False):
    """Load a shipped data set and build the paper's source/target problem.

    Parameters
    ----------
    key : str
        One of :data:`UCI_SETS`.
    impute : {"zero", "mean"}
    keep_gaps : bool, default=False
        Leave the target's gaps as ``NaN`` (see :func:`encode_features`).

    Returns
    -------
    MissingDataProblem
    """
    spec = UCI_SETS[key]
    frame = load_uci(key)
    source, target = split_by_missing(frame, spec.label, tuple(spec.exclude))
    columns = feature_columns(frame, spec.label, tuple(spec.exclude))
    X_s, X_t, names, origin = encode_features(source, target, columns, impute, keep_gaps)
    gap_rate = target[columns].isna().mean(axis=0)
    missing_rate = np.array([gap_rate[c] for c in origin], dtype=np.float64)
    notes = [f"'{c}' is not used as a feature: {why}." for c, why in spec.exclude.items()]
    text = sorted({c for c, n in zip(origin, names) if n != c})
    if text:
        notes.append(
            f"{len(text)} categorical column(s) one-hot encoded with the source's "
            f"categories ({', '.join(text)}): {len(names)} encoded features from "
            f"{len(columns)} columns."
        )
    return MissingDataProblem(
        key=key,
        title=spec.title,
        X_source=X_s,
        y_source=source[spec.label].to_numpy(),
        X_target=X_t,
        y_target=target[spec.label].to_numpy(),
        feature_names=tuple(names),
        feature_origin=tuple(origin),
        missing_rate=missing_rate,
        impute=impute,
        notes=tuple(notes),
        paper=dict(spec.paper),
    )


def problem(key, impute="zero", keep_gaps=False):
    """:func:`make_missing_problem` of a shipped data set, built once per process (shared:
    never modify its arrays)."""
    return _problem(key, impute, bool(keep_gaps))


_problem = functools.lru_cache(maxsize=32)(make_missing_problem)


def table2(problems):
    """The paper's Table 2 beside the counts here, one row per data set.

    Parameters
    ----------
    problems : iterable of MissingDataProblem
    """
    rows = []
    for problem in problems:
        here = {
            "features": len(set(problem.feature_origin)),
            "samples": len(problem.y_source) + len(problem.y_target),
            "classes": len(np.unique(np.concatenate([problem.y_source, problem.y_target]))),
            "missing": len(problem.y_target),
        }
        row = {"data set": problem.title}
        for what, value in here.items():
            row[f"{what} (here)"], row[f"{what} (paper)"] = value, problem.paper[what]
        row["encoded features"] = len(problem.feature_names)
        row["source rows"] = len(problem.y_source)
        row["source classes"] = len(np.unique(problem.y_source))
        rows.append(row)
    return pd.DataFrame(rows)
