"""Your own data, step 2: match a source and a target table into FLDA's arrays.

:func:`prepare_domains` takes two parsed tables (:func:`explorer.data.csv.parse_csv`),
chooses the label column, matches the features of the two files (by column
name or by position), checks that the features are finite numbers and the
labels usable, and handles missing values the way the paper's "missing data at
test time" experiment does (section 4.2.2, Table 3): a missing feature is a
*dropped-out* feature, i.e. a zero (the default), or, if the user prefers,
incomplete rows are dropped.  Fitting the classifiers is step 3,
:mod:`explorer.experiments.your_data`.

Every problem a user can fix raises :class:`~explorer.errors.DataValidationError`;
things that are allowed but worth knowing (negative values, columns present in
only one file, ...) are returned as warnings in the :class:`PreparationReport`.
No other exception escapes :func:`prepare_domains` for any parsed input
(checked by a property-based test with generated malformed files).

The sample sets the page offers (:data:`SAMPLE_SETS`) are read from a folder
the caller names (:func:`read_sample`); the repository ships them in
``sample_data/`` (regenerate with ``python3 sample_data/make_samples.py``).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from explorer.errors import DataValidationError
from explorer.data.cost import check_fit_cost
from explorer.data.csv import _EXAMPLES, CsvTable, _is_numeric, _looks_numeric, _name_list, _row_list

#: Most distinct labels; more usually means a continuous (regression) target.
MAX_CLASSES = 50
#: Largest feature magnitude accepted without scaling: FLDA squares values (the
#: dropout variance, eq. 10), which overflows float64 beyond about 1.3e154.
MAX_UNSCALED_MAGNITUDE = 1e150
#: Fewest source samples of every class.
MIN_SAMPLES_PER_CLASS = 2
#: How source and target features are matched.
MATCH_OPTIONS = ("name", "position")
#: What happens to missing feature values (section 4.2.2: zeros, i.e. dropout).
MISSING_OPTIONS = ("zero", "drop")


@dataclass(frozen=True)
class SampleSet:
    """A source/target pair shipped with the project (see :func:`read_sample`)."""

    key: str
    title: str
    source_file: str
    target_file: str
    label: str
    description: str


#: The sample sets offered by the "Your data" page, by key.
SAMPLE_SETS = {
    "poisson": SampleSet(
        "poisson",
        "Synthetic word counts (Poisson)",
        "poisson_source.csv",
        "poisson_target.csv",
        "label",
        "Synthetic counts of 10 words in two classes (ham/spam) drawn from Poisson "
        "distributions; in the target, 5 words are dropped out with probabilities 0.3-0.8 "
        "(the dropout transfer model of section 3.3.1, as in Figures 2-4).",
    ),
    "poisson_unlabelled": SampleSet(
        "poisson_unlabelled",
        "Synthetic word counts, unlabelled target",
        "poisson_source.csv",
        "poisson_target_unlabelled.csv",
        "label",
        "The same Poisson pair without target labels: the realistic case, where only "
        "predictions and the transfer parameters can be shown.",
    ),
    "breast_cancer": SampleSet(
        "breast_cancer",
        "Breast cancer, missing data at test time",
        "breast_cancer_source.csv",
        "breast_cancer_target.csv",
        "diagnosis",
        "scikit-learn's Wisconsin breast cancer data: complete rows as source; the other "
        "rows as target with features knocked out (empty cells), like the UCI experiments "
        "of section 4.2.2 (Table 3).",
    ),
}


def read_sample(key, directory):
    """Raw bytes of a sample set: ``(source_name, source_bytes, target_name, target_bytes)``.

    ``directory`` is the folder holding the files of :data:`SAMPLE_SETS`; the
    repository ships them in ``sample_data/`` (the pages pass
    ``explorer.registry.SAMPLE_DIR``).  Nothing here guesses where that folder is.
    """
    sample = SAMPLE_SETS[key]
    directory = Path(directory)
    return (
        sample.source_file,
        (directory / sample.source_file).read_bytes(),
        sample.target_file,
        (directory / sample.target_file).read_bytes(),
    )


@dataclass(frozen=True)
class PreparationReport:
    """What :func:`prepare_domains` did to the two files.

    Attributes
    ----------
    match, missing : str
        The options used (see :data:`MATCH_OPTIONS`, :data:`MISSING_OPTIONS`).
    only_in_source, only_in_target : tuple of str
        Columns present in one file only (matching by name); they are not used.
    renamed : tuple of (str, str)
        Source/target column pairs with different names (matching by position).
    excluded : tuple of str
        Columns the user chose to ignore.
    missing_cells_source, missing_cells_target : int
        Missing feature values found.
    incomplete_rows_source, incomplete_rows_target : int
        Rows with at least one missing feature value.
    dropped_rows_source, dropped_rows_target : int
        Rows removed (only with ``missing="drop"``).
    target_labels : int
        Target rows with a label (0 if the target has no label column).
    warnings : tuple of str
    """

    match: str
    missing: str
    only_in_source: tuple = ()
    only_in_target: tuple = ()
    renamed: tuple = ()
    excluded: tuple = ()
    missing_cells_source: int = 0
    missing_cells_target: int = 0
    incomplete_rows_source: int = 0
    incomplete_rows_target: int = 0
    dropped_rows_source: int = 0
    dropped_rows_target: int = 0
    target_labels: int = 0
    warnings: tuple = ()
    rows_source: int = 0
    rows_target: int = 0

    def missing_summary(self):
        """One sentence on missing values and what was done with them (section 4.2.2)."""
        total = self.missing_cells_source + self.missing_cells_target
        if total == 0:
            return "No missing feature values."
        parts = []
        for domain, cells, rows, n_rows in (
            ("source", self.missing_cells_source, self.incomplete_rows_source, self.rows_source),
            ("target", self.missing_cells_target, self.incomplete_rows_target, self.rows_target),
        ):
            parts.append(
                f"{domain}: {cells:,} missing value{'s' if cells != 1 else ''} in {rows:,} of {n_rows:,} rows"
                if cells
                else f"{domain}: no missing values"
            )
        counts = "Missing feature values, " + "; ".join(parts)
        if self.missing == "zero":
            return (
                f"{counts}. They were set to 0, i.e. treated as dropped-out features "
                "(the paper's missing data at test time, section 4.2.2)."
            )
        return (
            f"{counts}. Incomplete rows were dropped: {self.dropped_rows_source:,} "
            f"source and {self.dropped_rows_target:,} target rows."
        )


@dataclass(frozen=True)
class PreparedDomains:
    """Arrays ready for :class:`~flda_core.classifier.FLDAClassifier`.

    Attributes
    ----------
    X_source : ndarray of shape (n_source, n_features)
    y_source : ndarray of shape (n_source,)
    X_target : ndarray of shape (n_target, n_features)
    y_target : ndarray of shape (n_target,) or None
        Target labels (for evaluation only; FLDA never sees them); ``None`` if
        the target has no label column.  Rows without a label hold ``None``.
    target_labelled : ndarray of bool, shape (n_target,)
        Which target rows carry a label.
    target_rows : ndarray of int, shape (n_target,)
        Data-row numbers (1-based) of the target rows kept, for the predictions.
    feature_names : tuple of str
        Source column names of the features, in order.
    label : str
        The label column (source name).
    classes : ndarray
        Sorted source classes.
    scale : ndarray of shape (n_features,)
        Each feature was divided by this (its root mean square in the source,
        1 when scaling is off); zeros stay zeros, so theta is unchanged.
    report : PreparationReport
    """

    X_source: np.ndarray
    y_source: np.ndarray
    X_target: np.ndarray
    y_target: np.ndarray | None
    target_labelled: np.ndarray
    target_rows: np.ndarray
    feature_names: tuple
    label: str
    classes: np.ndarray
    scale: np.ndarray
    report: PreparationReport

    @property
    def has_target_labels(self):
        return bool(self.target_labelled.any())


def _explain_headerless(prepare):
    """Add "this file seems to have no header row" to any refusal of such a file.

    A header-less file of numbers has its first data row read as column names,
    so every later message (one sample of class '0', no label column ...) is
    true but misleading on its own.
    """

    @functools.wraps(prepare)
    def wrapper(source, target, *args, **kwargs):
        try:
            return prepare(source, target, *args, **kwargs)
        except DataValidationError as error:
            headerless = [
                t.name for t in (source, target) if t.columns and all(_looks_numeric(c) for c in t.columns)
            ]
            if not headerless:
                raise
            raise DataValidationError(
                f"{error.message} Note: every column name of {' and '.join(headerless)} is a "
                "number, so the file probably has no header row and its first data row was "
                "read as column names.",
                "Add a first line naming the columns (e.g. word_1,word_2,...,label). " + error.hint,
            ) from None

    return wrapper


@_explain_headerless
def prepare_domains(source, target, label, match="name", missing="zero", exclude=(), scale=True):
    """Match, check and convert a source and a target table into FLDA's arrays.

    Parameters
    ----------
    source, target : CsvTable
        Parsed files (:func:`parse_csv`).  The source must contain ``label``;
        the target may (then its labels are used for evaluation only).
    label : str
        Name of the label column in the source.
    match : {"name", "position"}, default="name"
        ``"name"``: features are the source columns (minus label and excluded
        ones) that the target also has; the others are reported.
        ``"position"``: the i-th source column pairs with the i-th target
        column, whatever their names; the target has either the same columns
        as the source (its label column at the same position) or one column
        fewer (no label column).  When both files name their columns and the
        target has the source's names in another order, the columns are matched
        by name instead (with a note); a positional match that would read a
        named feature as the target's labels, or the target's label column as a
        feature, is refused.
    missing : {"zero", "drop"}, default="zero"
        ``"zero"`` sets missing feature values to 0, the dropout view of
        missing data at test time (section 4.2.2); ``"drop"`` removes rows
        with a missing feature value.
    exclude : sequence of str, default=()
        Source column names not to use (ids, free text, ...).
    scale : bool, default=True
        Divide every feature by its root mean square in the source.  This
        keeps zeros at zero (so the dropout estimate, which counts non-zeros,
        is unchanged) while making one ``l2`` penalty fair to all features;
        centring would destroy the zeros the transfer model relies on.

    Labels are classes, never measurements (:func:`_labels_as_categories`): a
    target label the source never has is reported as unseen, and a continuous
    column is refused by the :data:`MAX_CLASSES` limit.  Uploads whose fit would
    cost more than :data:`~explorer.data.cost.MAX_FIT_COST` are refused.

    Returns
    -------
    PreparedDomains

    Raises
    ------
    DataValidationError
        Unknown label column, no common features, non-numeric or infinite
        feature values, missing source labels, one class, too many classes,
        fewer than :data:`MIN_SAMPLES_PER_CLASS` samples of a class, nothing
        left after dropping incomplete rows, or incompatible column counts
        when matching by position.
    """
    for name, value, options in (("match", match, MATCH_OPTIONS), ("missing", missing, MISSING_OPTIONS)):
        if value not in options:
            raise ValueError(f"{name} must be one of {options}, got {value!r}.")
    if label not in source.columns:
        choose = f"Choose one of its columns: {_name_list(source.columns)}."
        raise DataValidationError(f"The label column {label!r} is not in {source.name}.", choose)
    exclude = tuple(c for c in exclude if c in source.columns and c != label)
    notes = list(source.warnings) + list(target.warnings)
    match, matched = _match(source, target, label, match, exclude, notes)
    features, names = matched[0], (source.name, target.name)
    counts, arrays = _missing_values(missing, _arrays(source, target, label, matched), *names)
    X_source, y_source, X_target, y_target, labelled, target_rows = arrays
    _check_classes(y_source, source.name, label, dropped=counts["dropped_rows_source"] > 0)
    y_source, y_target = _labels_as_categories(y_source, y_target, labelled, label, notes)
    classes = np.unique(y_source := native_labels(y_source))
    notes += _label_notes(y_target, labelled, classes, *names) + _value_notes(
        X_source, X_target, features, *names
    )
    notes += size_notes(X_target.shape[0], int(labelled.sum()), target.name)
    scale_factor = root_mean_square(X_source) if scale else np.ones(len(features))
    if not scale:
        _check_magnitude(X_source, X_target, features, *names)
    X_source, X_target = X_source / scale_factor, X_target / scale_factor
    check_fit_cost(X_source.shape[0], X_source.shape[1], len(classes), source.name)
    labelled_rows = dict(target_labels=int(labelled.sum()), warnings=tuple(notes))
    report = PreparationReport(match, missing, *map(tuple, matched[3:]), exclude, **counts, **labelled_rows)
    arrays = (X_source, y_source, X_target, y_target, labelled, target_rows)
    return PreparedDomains(*arrays, tuple(features), label, classes, scale_factor, report)


def _arrays(source, target, label, matched):
    """``(X_source, y_source, X_target, y_target, labelled, target_rows)`` of the matched
    features (``matched``: what :func:`_match` found), missing values as ``NaN``."""
    features, target_features, target_label = matched[:3]
    X_source = _feature_matrix(source, features, features)
    X_target = _feature_matrix(target, target_features, features)
    y_source = _labels(source, label, source=True)
    y_target, labelled = _labels(target, target_label, source=False)
    target_rows = target.file_rows() if isinstance(target, CsvTable) else np.arange(1, X_target.shape[0] + 1)
    return X_source, y_source, X_target, y_target, labelled, target_rows


def _missing_values(missing, arrays, source_name, target_name):
    """The counts of missing feature values (:class:`PreparationReport`), and the arrays
    ``(X_source, y_source, X_target, y_target, labelled, target_rows)`` with them set to
    0 (``missing="zero"``) or their rows dropped (``"drop"``)."""
    X_source, y_source, X_target, y_target, labelled, target_rows = arrays
    counts = {}
    for domain, X in (("source", X_source), ("target", X_target)):
        nan = np.isnan(X)
        incomplete = int(nan.any(axis=1).sum())
        counts[f"missing_cells_{domain}"], counts[f"rows_{domain}"] = int(nan.sum()), X.shape[0]
        counts[f"incomplete_rows_{domain}"] = incomplete
        counts[f"dropped_rows_{domain}"] = incomplete if missing == "drop" else 0
    if missing == "zero":
        return counts, (
            np.nan_to_num(X_source, nan=0.0),
            y_source,
            np.nan_to_num(X_target, nan=0.0),
            *arrays[3:],
        )
    kept_source, kept = ~np.isnan(X_source).any(axis=1), ~np.isnan(X_target).any(axis=1)
    for rows, name, domain, why in (
        (kept, target_name, "target", " (the paper's choice, section 4.2.2)"),
        (kept_source, source_name, "source", ""),
    ):
        if not rows.any():
            raise DataValidationError(
                f"Every row of {name} has a missing feature value, so dropping "
                f"incomplete rows leaves no {domain} data.",
                f"Choose 'treat as zeros' for missing values{why}.",
            )
    y_target = None if y_target is None else y_target[kept]
    return counts, (
        X_source[kept_source],
        y_source[kept_source],
        X_target[kept],
        y_target,
        labelled[kept],
        target_rows[kept],
    )


def _match(source, target, label, match, exclude, notes):
    """``(match used, (features, target features, target label, only in source, only in
    target, renamed))``: by name, or by position unless the target has the source's
    names in another order (then by name, with a note)."""
    if match == "position" and _same_names_reordered(source, target, label):
        match = "name"
        notes.append(
            f"{source.name} and {target.name} have the same column names in a different "
            "order, so their columns were matched by name (matching by position would have "
            "paired columns of different meaning, e.g. a feature with the label)."
        )
    matched = (_match_by_name if match == "name" else _match_by_position)(source, target, label, exclude)
    if matched[3] or matched[4]:
        notes.append(_only_in_one_note(source.name, matched[3], target.name, matched[4]))
    return match, matched


def _label_notes(y_target, labelled, classes, source_name, target_name):
    """Target labels the source never has, and target rows without a label."""
    if y_target is None or not labelled.any():
        return []
    notes = []
    unseen = sorted({str(v) for v in y_target[labelled]} - {str(c) for c in classes})
    if unseen:
        notes.append(
            f"{target_name} has labels that never occur in {source_name} "
            f"({_name_list(unseen)}); no classifier can predict them, so those rows "
            "count as errors."
        )
    if labelled.sum() < len(labelled):
        notes.append(
            f"{len(labelled) - int(labelled.sum()):,} target rows have no label; errors "
            f"are measured on the {int(labelled.sum()):,} labelled rows, predictions "
            "are made for all."
        )
    return notes


def root_mean_square(X):
    """Root mean square of every column, 1 for all-zero columns, without overflow.

    ``sqrt(mean(x**2))`` overflows for ``|x|`` above about 1e154 (and
    underflows to 0 below 1e-162); those columns are computed as
    ``m * sqrt(mean((x / m)**2))`` with ``m = max |x|``, which is exact up to
    rounding for any finite ``x``.  Ordinary columns keep the direct formula,
    bit for bit.
    """
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        rms = np.sqrt(np.mean(X**2, axis=0)) if len(X) else np.zeros(X.shape[1])
    largest = np.max(np.abs(X), axis=0) if len(X) else np.zeros(X.shape[1])
    redo = (~np.isfinite(rms) | (rms == 0)) & (largest > 0)
    if redo.any():
        m = largest[redo]
        rms[redo] = m * np.sqrt(np.mean((X[:, redo] / m) ** 2, axis=0))
    return np.where(rms > 0, rms, 1.0)


def _check_magnitude(X_source, X_target, features, source_name, target_name):
    """Refuse unscaled values whose squares overflow (FLDA squares every value)."""
    for X, name in ((X_source, source_name), (X_target, target_name)):
        big = np.abs(X) > MAX_UNSCALED_MAGNITUDE
        if big.any():
            rows, cols = np.nonzero(big)
            raise DataValidationError(
                f"{name} has values as large as {float(np.max(np.abs(X))):.3g} (first in data "
                f"row {rows[0] + 1} of {features[cols[0]]!r}); without feature scaling their "
                "squares, which FLDA's dropout variance needs, overflow 64-bit floats.",
                "Turn feature scaling on, or store the values in smaller units.",
            )


def _match_by_name(source, target, label, exclude):
    unused = {label, *exclude}
    source_features = [c for c in source.columns if c not in unused]
    target_columns = set(target.columns)
    features = [c for c in source_features if c in target_columns]
    only_source = [c for c in source_features if c not in target_columns]
    only_target = [c for c in target.columns if c not in unused and c not in set(source_features)]
    if not source_features:
        raise DataValidationError(
            f"{source.name} has no feature columns besides the label {label!r}.",
            "Upload a file with at least one feature column, or un-ignore columns.",
        )
    if not features:
        raise DataValidationError(
            f"{source.name} and {target.name} have no feature column names in common.",
            "Rename the target columns to match the source, or choose 'match features by "
            "position' if the columns are in the same order.",
        )
    target_label = label if label in target_columns else None
    return features, features, target_label, only_source, only_target, []


def _has_header(table):
    """A first row of column names, not of numbers (see :func:`_explain_headerless`)."""
    return bool(table.columns) and not all(_looks_numeric(c) for c in table.columns)


def _same_names_reordered(source, target, label):
    """Both files name their columns, and the target's names are the source's (with or
    without the label column) in another order: matching by name is unambiguous."""
    if not (_has_header(source) and _has_header(target)):
        return False
    source_columns, target_columns = list(source.columns), list(target.columns)
    without_label = [c for c in source_columns if c != label]
    if len(set(target_columns)) != len(target_columns):
        return False
    return sorted(target_columns) in (
        sorted(source_columns),
        sorted(without_label),
    ) and target_columns not in (source_columns, without_label)


def _check_positional_label(source, target, label, label_index, target_label):
    """Refuse a positional match that would read a named feature as the target's labels
    or the target's label column as a feature."""
    if not (_has_header(source) and _has_header(target)):
        return
    features = set(source.columns) - {label}
    misplaced = label in target.columns and target_label != label
    if not misplaced and target_label not in features:
        return
    where = (
        f"{target.name} has the label column {label!r} at position {list(target.columns).index(label) + 1}"
        if label in target.columns
        else f"{target.name} has the feature column {target_label!r} at position {label_index + 1}"
    )
    used = (
        f"its column {target_label!r} would be read as the labels"
        if target_label is not None
        else f"its column {label!r} would be read as a feature"
    )
    raise DataValidationError(
        f"Matching by position puts the label of {source.name} at position "
        f"{label_index + 1}, but {where}: {used}, so the errors would be meaningless.",
        f"Put the columns of {target.name} in the order of {source.name} (label column "
        f"{label!r} at position {label_index + 1}), or match features by name.",
    )


def _match_by_position(source, target, label, exclude):
    n_source, n_target = len(source.columns), len(target.columns)
    label_index = source.columns.index(label)
    if n_target == n_source:
        target_label = target.columns[label_index]
        _check_positional_label(source, target, label, label_index, target_label)
        target_columns = list(target.columns)
    elif n_target == n_source - 1:
        target_label = None
        _check_positional_label(source, target, label, label_index, target_label)
        target_columns = list(target.columns[:label_index]) + [None] + list(target.columns[label_index:])
    else:
        raise DataValidationError(
            f"Matching by position needs {target.name} to have the same {n_source} columns "
            f"as {source.name} (label at position {label_index + 1}) or {n_source - 1} "
            f"(no label column); it has {n_target}.",
            "Fix the columns of the target file, or match features by name.",
        )
    features, target_features, renamed = [], [], []
    for index, column in enumerate(source.columns):
        if index == label_index or column in exclude:
            continue
        features.append(column)
        target_features.append(target_columns[index])
        if target_columns[index] != column:
            renamed.append((column, target_columns[index]))
    if not features:
        raise DataValidationError(
            f"{source.name} has no feature columns besides the label {label!r}.",
            "Upload a file with at least one feature column, or un-ignore columns.",
        )
    return features, target_features, target_label, [], [], renamed


def _only_in_one_note(source_name, only_source, target_name, only_target):
    parts = []
    if only_source:
        parts.append(f"{len(only_source)} column(s) only in {source_name}: {_name_list(only_source)}")
    if only_target:
        parts.append(f"{len(only_target)} column(s) only in {target_name}: {_name_list(only_target)}")
    return "; ".join(parts) + ". They are not used (features are matched by name)."


def _feature_matrix(table, columns, feature_names):
    """Float matrix of ``columns`` (NaN for missing), rejecting text and infinities."""
    non_numeric = [
        (c, f) for c, f in zip(columns, feature_names, strict=False) if not _is_numeric(table.frame[c])
    ]
    if non_numeric:
        column = non_numeric[0][0]
        values = table.frame[column]
        bad = values.notna() & pd.to_numeric(values, errors="coerce").isna()
        position = int(np.flatnonzero(bad.to_numpy())[0])
        example = str(values.iloc[position])[:40]
        raise DataValidationError(
            f"Feature column(s) {_name_list([c for c, _ in non_numeric])} in {table.name} "
            f"are not numeric (e.g. {example!r} in data row {position + 1} of {column!r}).",
            "Features must be numbers: encode categories as 0/1 columns, or add the "
            "column(s) to 'Columns to ignore'.",
        )
    if not columns:
        return np.empty((table.n_rows, 0))
    X = table.frame[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    infinite = np.isinf(X)
    if infinite.any():
        rows, cols = np.nonzero(infinite)
        names = [columns[j] for j in sorted(set(cols.tolist()))]
        raise DataValidationError(
            f"{table.name} has {int(infinite.sum()):,} infinite value(s) (or numbers too large "
            f"for 64-bit floats, beyond ±1.8e308) in "
            f"{_name_list(names)} (first in data row {rows[0] + 1} of {columns[cols[0]]!r}).",
            "Replace them by finite numbers, or leave those cells empty to mark them missing.",
        )
    return X


def _labels(table, column, source):
    """The labels of ``column`` as an object array (ints for integer-valued numbers, else
    floats or stripped text; ``None`` where missing).  Source: every row needs one.
    Target: ``(labels or None, which rows are labelled)``."""
    if column is None:
        return None, np.zeros(table.n_rows, dtype=bool)
    series = table.frame[column]
    missing = series.isna().to_numpy()
    values = series.tolist()
    if _is_numeric(series):
        numbers = series.to_numpy(dtype=np.float64, na_value=np.nan)
        present = numbers[~missing]
        if np.isinf(present).any():
            where = f"{column!r} of {table.name}"
            raise DataValidationError(
                f"The label column {where} holds infinite values.",
                "Labels must be class names or whole numbers"
                + ("." if source else "; leave unknown labels empty."),
            )
        number = int if np.all(present == np.round(present)) and np.all(np.abs(present) < 2**53) else float
        values = [None if m else number(v) for v, m in zip(numbers, missing, strict=True)]
    else:
        values = [str(v).strip() for v in values]
    labels = np.array([None if m else v for v, m in zip(values, missing, strict=True)], dtype=object)
    if not source:
        return (None, ~missing) if missing.all() else (labels, ~missing)
    if missing.any():
        rows = np.flatnonzero(missing)
        raise DataValidationError(
            f"The label column {column!r} of {table.name} has {len(rows):,} missing "
            f"label(s) (data rows {_row_list(rows)}).",
            "Every source row needs a label: fill them in or delete those rows "
            "(or choose another label column).",
        )
    return labels


def _label_text(value):
    """A label as a class name: whole numbers without ``.0`` (so 1 and 1.0 agree)."""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def _labels_as_categories(y_source, y_target, labelled, label, notes):
    """Labels that are not all whole numbers, or mix text and numbers, become class names.

    Labels are classes, never measurements: ``1`` and ``1.5`` are two classes
    named "1" and "1.5", and a target label ``0.5`` against integer source
    labels is a class the source never has (reported as unseen).  A
    continuous column is still refused by the class-count limit
    (:data:`MAX_CLASSES`).  Adds a note to ``notes`` when it converts.
    """
    values = list(y_source) + ([] if y_target is None else list(y_target[labelled]))
    kinds = {type(v) for v in values}
    if float not in kinds and len(kinds) <= 1:
        return y_source, y_target
    examples = sorted({_label_text(v) for v in values if isinstance(v, float) and v != int(v)})[:_EXAMPLES]
    why = f"are not all whole numbers (e.g. {', '.join(examples)})" if examples else "mix text and numbers"
    notes.append(
        f"The labels in {label!r} {why}; they are used as class names (text), so "
        "every distinct value is its own class."
    )
    y_source = np.array([_label_text(v) for v in y_source], dtype=object)
    if y_target is not None:
        y_target = np.array([None if v is None else _label_text(v) for v in y_target], dtype=object)
    return y_source, y_target


def _check_classes(y_source, source_name, label, dropped):
    after = " after dropping incomplete rows" if dropped else ""
    fix_drop = " or treat missing values as zeros" if dropped else ""
    classes, counts = np.unique(np.array([str(v) for v in y_source]), return_counts=True)
    if len(classes) < 2:
        raise DataValidationError(
            f"The label column {label!r} of {source_name} has only one class ('{classes[0]}'){after}.",
            f"A classifier needs at least two classes: add samples of another class{fix_drop}, "
            "or choose another label column.",
        )
    if len(classes) > MAX_CLASSES:
        raise DataValidationError(
            f"The label column {label!r} of {source_name} has {len(classes):,} distinct "
            f"values; the limit is {MAX_CLASSES}. It looks like a measurement, not a class.",
            "Choose the column that holds the classes, or bin the values into a few classes.",
        )
    small = [(c, n) for c, n in zip(classes, counts, strict=False) if n < MIN_SAMPLES_PER_CLASS]
    if small:
        listed = ", ".join(f"'{c}' ({n})" for c, n in small[:5])
        raise DataValidationError(
            f"Every class needs at least {MIN_SAMPLES_PER_CLASS} source samples{after}; "
            f"{source_name} has too few of {listed}.",
            f"Add samples of those classes, merge or remove them{fix_drop}.",
        )


#: Fewer rows than this make a column's "unique per row / monotone" look meaningless.
ID_MIN_ROWS = 10
#: Fewer target rows than this make θ̂ and the target errors too coarse to trust.
TINY_TARGET_ROWS = 30


def id_like_columns(X, features, min_rows=ID_MIN_ROWS):
    """Columns that look like row identifiers rather than features.

    A column is id-like when (with at least ``min_rows`` rows) its values are
    whole numbers that are all different, or when it strictly increases or
    decreases from row to row (a row number, a timestamp).  Such a column is
    non-zero in almost every row of both files, tells nothing about the class
    and, in the target, only extrapolates.

    Returns
    -------
    list of str
        The names in ``features`` of the id-like columns, in column order.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < min_rows:
        return []
    found = []
    for j, name in enumerate(features):
        column = X[:, j]
        if not np.all(np.isfinite(column)):
            continue
        steps = np.diff(column)
        monotone = bool(np.all(steps > 0) or np.all(steps < 0))
        whole_and_unique = bool(np.all(column == np.round(column)) and len(np.unique(column)) == len(column))
        if monotone or whole_and_unique:
            found.append(name)
    return found


def size_notes(n_target_rows, n_labelled, target_name, tiny=TINY_TARGET_ROWS):
    """Warnings when the target is too small for θ̂ or its errors to mean much."""
    notes = []
    if n_target_rows < tiny:
        notes.append(
            f"{target_name} has only {n_target_rows:,} rows: each θ̂ compares non-zero rates, "
            f"and a rate from {n_target_rows:,} rows has a standard error of up to "
            f"{0.5 / np.sqrt(max(n_target_rows, 1)):.2f}, so θ̂ is rough. Add target rows "
            f"(at least {tiny}) for a stable estimate."
        )
    if 0 < n_labelled < tiny:
        notes.append(
            f"Only {n_labelled:,} labelled target rows: a target error moves in steps of "
            f"1/{n_labelled:,} = {1 / n_labelled:.3f}, so differences between classifiers "
            "smaller than a few steps are noise."
        )
    return notes


def _value_notes(X_source, X_target, features, source_name, target_name):
    notes = []
    for X, name in ((X_source, source_name), (X_target, target_name)):
        ids = id_like_columns(X, features)
        if ids:
            notes.append(
                f"{name}: {_name_list(ids)} look{'s' if len(ids) == 1 else ''} like a row "
                "identifier (whole numbers, all different, or rising/falling from row to "
                "row), not a feature. Exclude it so the classifiers do not learn from row "
                "numbers."
            )
    for X, name in ((X_source, source_name), (X_target, target_name)):
        negative = np.flatnonzero((X < 0).any(axis=0))
        if len(negative):
            notes.append(
                f"{name} has negative values in {len(negative)} feature(s) "
                f"({_name_list([features[j] for j in negative])}). Negative values are "
                "allowed, but FLDA's transfer model counts every non-zero value as 'present', "
                "so negatives count as present too; it suits counts and indicators best."
            )
    never_source = np.flatnonzero(~(X_source != 0).any(axis=0))
    if len(never_source):
        notes.append(
            f"{len(never_source)} feature(s) are zero (or missing) in every source row "
            f"({_name_list([features[j] for j in never_source])}); no classifier can learn "
            "from them, so their weights are 0."
        )
    in_source = (X_source != 0).any(axis=0)
    never_target = np.flatnonzero(in_source & ~(X_target != 0).any(axis=0))
    if len(never_target):
        notes.append(
            f"{len(never_target)} feature(s) never occur (are zero or missing in every row) in "
            f"{target_name} ({_name_list([features[j] for j in never_target])}): their "
            "dropout estimate is 1 and FLDA gives them weight 0."
        )
    return notes


def native_labels(values):
    """Labels as an int, float or str array (object arrays of ints confuse scikit-learn)."""
    values = list(values)
    kinds = {type(v) for v in values}
    if kinds == {int}:
        return np.array(values, dtype=np.int64)
    if kinds <= {int, float}:
        return np.array(values, dtype=np.float64)
    return np.array([str(v) for v in values], dtype=object)
