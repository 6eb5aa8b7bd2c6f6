"""Your own data, step 2: match a source and a target table into FLDA's arrays.

:func:`prepare_domains` matches the features of two tables of
:func:`explorer.data.csv.parse_csv`, checks them and the labels, and treats missing values
as the paper's missing data at test time (section 4.2.2, Table 3): zeros (dropped-out
features) or dropped rows.  Every problem a user can fix raises
:class:`~explorer.errors.DataValidationError`, and no other exception escapes
(``tests/app/test_tabular_fuzz.py``); what is worth knowing is a warning of the
:class:`PreparationReport`.  Step 3 is :mod:`explorer.experiments.your_data`; the sample
pairs are :data:`SAMPLE_SETS` (``python3 sample_data/make_samples.py``).

What one fit may cost.  An evaluation of FLDA's objectives (eq. 11 and its
Taylor-approximated logistic form, section 3.4) touches every source value once per output
(one for two classes, one per class otherwise), and a fit may take ``max_iter`` (1,000)
iterations: on a shared server one upload must not tie up a core for an hour, so uploads
above :data:`MAX_FIT_COST` are refused and pages warn before fits above
:data:`LONG_FIT_COST`.  Measured on 2 shared cores: a multinomial FLDA-L fit on 20,000 x 100
values in 10 classes (cost 2e7) took about 45 ms per iteration and ran to its 1,000 cap.

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

from explorer.data.csv import _EXAMPLES, is_numeric, _name_list
from explorer.errors import DataValidationError

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
#: Largest ``rows x features x outputs`` accepted for one upload (see the module docstring).
MAX_FIT_COST = 50_000_000
#: From this cost on, pages say before fitting that it may take a while.
LONG_FIT_COST = 5_000_000
#: Fewer rows than this make a column's "unique per row / monotone" look meaningless.
ID_MIN_ROWS = 10
#: Fewer target rows than this make θ̂ and the target errors too coarse to trust.
TINY_TARGET_ROWS = 30
_NO_FEATURES = "Upload a file with at least one feature column, or un-ignore columns."


@dataclass(frozen=True)
class SampleSet:
    """A source/target pair shipped with the project (see :func:`read_sample`)."""

    title: str
    source_file: str
    target_file: str
    label: str
    description: str


#: The sample sets offered by the "Your data" page, by key.
SAMPLE_SETS = {
    "poisson": SampleSet(
        "Synthetic word counts (Poisson)",
        "poisson_source.csv",
        "poisson_target.csv",
        "label",
        "Synthetic counts of 10 words in two classes (ham/spam) drawn from Poisson "
        "distributions; in the target, 5 words are dropped out with probabilities 0.3-0.8 "
        "(the dropout transfer model of section 3.3.1, as in Figures 2-4).",
    ),
    "poisson_unlabelled": SampleSet(
        "Synthetic word counts, unlabelled target",
        "poisson_source.csv",
        "poisson_target_unlabelled.csv",
        "label",
        "The same Poisson pair without target labels: the realistic case, where only "
        "predictions and the transfer parameters can be shown.",
    ),
    "breast_cancer": SampleSet(
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
    """``(source_name, source_bytes, target_name, target_bytes)`` of a sample set whose
    files are in ``directory`` (the pages pass ``explorer.registry.SAMPLE_DIR``)."""
    sample = SAMPLE_SETS[key]
    files = (sample.source_file, sample.target_file)
    return tuple(x for f in files for x in (f, (Path(directory) / f).read_bytes()))


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
    missing_cells_*, incomplete_rows_*, dropped_rows_*, rows_* : int
        Per domain (``_source``, ``_target``): missing feature values, rows with one,
        rows removed (only with ``missing="drop"``), and rows before any were dropped.
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
        if self.missing_cells_source + self.missing_cells_target == 0:
            return "No missing feature values."
        parts = [
            f"{domain}: {cells:,} missing value{'s' if cells != 1 else ''} in {rows:,} of {n_rows:,} rows"
            if cells
            else f"{domain}: no missing values"
            for domain, cells, rows, n_rows in (
                ("source", self.missing_cells_source, self.incomplete_rows_source, self.rows_source),
                ("target", self.missing_cells_target, self.incomplete_rows_target, self.rows_target),
            )
        ]
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
        Target labels (for evaluation only), ``None`` without a label column; rows
        without a label hold ``None``.
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
        Each feature was divided by this (its source root mean square, or 1).
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
    """Add "this file seems to have no header row" to any refusal of such a file, whose
    first data row was read as column names (so every later message is misleading)."""

    @functools.wraps(prepare)
    def wrapper(source, target, *args, **kwargs):
        try:
            return prepare(source, target, *args, **kwargs)
        except DataValidationError as error:
            headerless = [t.name for t in (source, target) if t.headerless]
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
        Parsed files (:func:`~explorer.data.csv.parse_csv`).  The source must contain
        ``label``; the target may (then its labels are used for evaluation only).
    label : str
        Name of the label column in the source; its values are classes, never
        measurements (``1`` and ``1.5`` are two classes).
    match : {"name", "position"}, default="name"
        ``"name"``: features are the source columns (minus label and excluded ones) the
        target also has; the others are reported.  ``"position"``: the i-th source column
        pairs with the i-th target column; the target has the source's columns or all
        but the label.  Both files naming the same columns in another order are matched
        by name (with a note); a positional match reading a named feature as the labels,
        or the target's label column as a feature, is refused.
    missing : {"zero", "drop"}, default="zero"
        ``"zero"`` sets missing feature values to 0, the dropout view of missing data at
        test time (section 4.2.2); ``"drop"`` removes rows with a missing feature value.
    exclude : sequence of str, default=()
        Source column names not to use (ids, free text, ...).
    scale : bool, default=True
        Divide every feature by its root mean square in the source: zeros stay zeros (θ̂
        is unchanged) and one ``l2`` penalty is fair to all features.

    Returns
    -------
    PreparedDomains

    Raises
    ------
    DataValidationError
        Unknown label column, no common features, non-numeric or infinite features,
        missing source labels, fewer than 2 or more than :data:`MAX_CLASSES` classes, fewer
        than :data:`MIN_SAMPLES_PER_CLASS` samples of a class, nothing left after dropping
        incomplete rows, column counts that cannot be matched by position, or a fit
        costing more than :data:`MAX_FIT_COST`.
    """
    for name, value, options in (("match", match, MATCH_OPTIONS), ("missing", missing, MISSING_OPTIONS)):
        if value not in options:
            raise ValueError(f"{name} must be one of {options}, got {value!r}.")
    if label not in source.columns:
        choose = f"Choose one of its columns: {_name_list(source.columns)}."
        raise DataValidationError(f"The label column {label!r} is not in {source.name}.", choose)
    exclude = tuple(c for c in exclude if c in source.columns and c != label)
    notes, names = [*source.warnings, *target.warnings], (source.name, target.name)
    match, (features, target_features, target_label, *columns) = _match(
        source, target, label, match, exclude, notes
    )
    X_source, X_target = _feature_matrix(source, features), _feature_matrix(target, target_features)
    y_source = _labels(source, label, source=True)
    y_target, labelled = _labels(target, target_label, source=False)
    counts, (X_source, kept_source, X_target, kept) = _missing_values(missing, X_source, X_target, *names)
    X_source, y_source, X_target = X_source[kept_source], y_source[kept_source], X_target[kept]
    y_target = None if y_target is None else y_target[kept]
    labelled, target_rows = labelled[kept], target.file_rows()[kept]
    _check_classes(y_source, source.name, label, dropped=counts["dropped_rows_source"] > 0)
    y_source, y_target = _labels_as_classes(y_source, y_target, labelled, label, notes)
    classes = np.unique(y_source)
    notes += _label_notes(y_target, labelled, classes, *names) + _value_notes(
        X_source, X_target, features, *names
    )
    notes += size_notes(X_target.shape[0], int(labelled.sum()), target.name)
    if not scale:
        _check_magnitude(X_source, X_target, features, *names)
    scale_factor = root_mean_square(X_source) if scale else np.ones(len(features))
    X_source, X_target = X_source / scale_factor, X_target / scale_factor
    check_fit_cost(X_source.shape[0], X_source.shape[1], len(classes), source.name)
    counts["target_labels"] = int(labelled.sum())
    report = PreparationReport(match, missing, *map(tuple, columns), exclude, **counts, warnings=tuple(notes))
    arrays = (X_source, y_source, X_target, y_target, labelled, target_rows)
    return PreparedDomains(*arrays, tuple(features), label, classes, scale_factor, report)


def _missing_values(missing, X_source, X_target, source_name, target_name):
    """The counts of missing feature values (:class:`PreparationReport`) and
    ``[X_source, kept_source, X_target, kept_target]``: the matrices with missing values
    set to 0 and the rows kept (all, ``slice(None)``, with ``missing="zero"``; the complete
    ones with ``"drop"``)."""
    counts, arrays = {}, []
    for domain, X in (("source", X_source), ("target", X_target)):
        nan = np.isnan(X)
        incomplete = nan.any(axis=1)
        counts[f"missing_cells_{domain}"], counts[f"rows_{domain}"] = int(nan.sum()), X.shape[0]
        counts[f"incomplete_rows_{domain}"] = int(incomplete.sum())
        counts[f"dropped_rows_{domain}"] = int(incomplete.sum()) if missing == "drop" else 0
        arrays += [np.nan_to_num(X, nan=0.0), ~incomplete if missing == "drop" else slice(None)]
    for kept, name, domain, why in (
        (arrays[3], target_name, "target", " (the paper's choice, section 4.2.2)"),
        (arrays[1], source_name, "source", ""),
    ):
        if missing == "drop" and not kept.any():
            raise DataValidationError(
                f"Every row of {name} has a missing feature value, so dropping "
                f"incomplete rows leaves no {domain} data.",
                f"Choose 'treat as zeros' for missing values{why}.",
            )
    return counts, arrays


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
    only_source, only_target = matched[3:5]
    if only_source or only_target:
        parts = [
            f"{len(only)} column(s) only in {name}: {_name_list(only)}"
            for only, name in ((only_source, source.name), (only_target, target.name))
            if only
        ]
        notes.append("; ".join(parts) + ". They are not used (features are matched by name).")
    return match, matched


def _no_features(source, label):
    return DataValidationError(
        f"{source.name} has no feature columns besides the label {label!r}.", _NO_FEATURES
    )


def _match_by_name(source, target, label, exclude):
    unused = {label, *exclude}
    source_features = [c for c in source.columns if c not in unused]
    in_target, in_source = set(target.columns), set(source_features)
    features = [c for c in source_features if c in in_target]
    only_source = [c for c in source_features if c not in in_target]
    only_target = [c for c in target.columns if c not in unused and c not in in_source]
    if not source_features:
        raise _no_features(source, label)
    if not features:
        raise DataValidationError(
            f"{source.name} and {target.name} have no feature column names in common.",
            "Rename the target columns to match the source, or choose 'match features by "
            "position' if the columns are in the same order.",
        )
    target_label = label if label in target.columns else None
    return features, features, target_label, only_source, only_target, []


def _same_names_reordered(source, target, label):
    """Both files name their columns, and the target's names are the source's (with or
    without the label column) in another order: matching by name is unambiguous."""
    if source.headerless or target.headerless or len(set(target.columns)) != len(target.columns):
        return False
    target_columns = list(target.columns)
    orders = (list(source.columns), [c for c in source.columns if c != label])
    return sorted(target_columns) in [sorted(o) for o in orders] and target_columns not in orders


def _match_by_position(source, target, label, exclude):
    n_source, n_target = len(source.columns), len(target.columns)
    label_index = source.columns.index(label)
    target_columns = list(target.columns)
    if n_target == n_source - 1:
        target_columns.insert(label_index, None)  # no label column
    elif n_target != n_source:
        raise DataValidationError(
            f"Matching by position needs {target.name} to have the same {n_source} columns "
            f"as {source.name} (label at position {label_index + 1}) or {n_source - 1} "
            f"(no label column); it has {n_target}.",
            "Fix the columns of the target file, or match features by name.",
        )
    target_label = target_columns[label_index]
    _check_positional_label(source, target, label, label_index, target_label)
    pairs = [
        (column, target_columns[index])
        for index, column in enumerate(source.columns)
        if index != label_index and column not in exclude
    ]
    if not pairs:
        raise _no_features(source, label)
    features, target_features = (list(names) for names in zip(*pairs))
    return features, target_features, target_label, [], [], [(s, t) for s, t in pairs if s != t]


def _check_positional_label(source, target, label, label_index, target_label):
    """Refuse a positional match that would read a named feature as the target's labels
    or the target's label column as a feature."""
    if source.headerless or target.headerless:
        return
    misplaced = label in target.columns and target_label != label
    if not misplaced and target_label not in set(source.columns) - {label}:
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


def _feature_matrix(table, columns):
    """Float matrix of ``columns`` (NaN for missing), rejecting text and infinities."""
    non_numeric = [c for c in columns if not is_numeric(table.frame[c])]
    if non_numeric:
        values = table.frame[non_numeric[0]]
        position = int(np.flatnonzero(values.notna() & pd.to_numeric(values, errors="coerce").isna())[0])
        raise DataValidationError(
            f"Feature column(s) {_name_list(non_numeric)} in {table.name} are not numeric (e.g. "
            f"{str(values.iloc[position])[:40]!r} in data row {position + 1} of {non_numeric[0]!r}).",
            "Features must be numbers: encode categories as 0/1 columns, or add the "
            "column(s) to 'Columns to ignore'.",
        )
    X = table.frame[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    infinite = np.isinf(X)
    if infinite.any():
        rows, cols = np.nonzero(infinite)
        raise DataValidationError(
            f"{table.name} has {int(infinite.sum()):,} infinite value(s) (or numbers too large "
            f"for 64-bit floats, beyond ±1.8e308) in {_name_list([columns[j] for j in np.unique(cols)])} "
            f"(first in data row {rows[0] + 1} of {columns[cols[0]]!r}).",
            "Replace them by finite numbers, or leave those cells empty to mark them missing.",
        )
    return X


def _labels(table, column, source):
    """The labels of ``column`` as an object array: ints for whole numbers, else floats or
    text; ``None`` where missing.  Source: every row needs one.  Target: ``(labels or
    None, which rows are labelled)``, ``(None, all False)`` without a label column."""
    if column is None:
        return None, np.zeros(table.n_rows, dtype=bool)
    series = table.frame[column]
    missing = series.isna().to_numpy()
    if is_numeric(series):
        numbers = series.to_numpy(dtype=np.float64, na_value=np.nan)
        present = numbers[~missing]
        if np.isinf(present).any():
            raise DataValidationError(
                f"The label column {column!r} of {table.name} holds infinite values.",
                "Labels must be class names or whole numbers"
                + ("." if source else "; leave unknown labels empty."),
            )
        number = int if np.all(present == np.round(present)) and np.all(np.abs(present) < 2**53) else float
        values = [None if m else number(v) for v, m in zip(numbers, missing)]
    else:
        values = [None if m else str(v).strip() for v, m in zip(series.tolist(), missing)]
    labels = np.array(values, dtype=object)
    if not source:
        return (None, ~missing) if missing.all() else (labels, ~missing)
    if missing.any():
        rows = np.flatnonzero(missing) + 1
        more = f" and {len(rows) - _EXAMPLES} more" if len(rows) > _EXAMPLES else ""
        raise DataValidationError(
            f"The label column {column!r} of {table.name} has {len(rows):,} missing "
            f"label(s) (data rows {', '.join(map(str, rows[:_EXAMPLES]))}{more}).",
            "Every source row needs a label: fill them in or delete those rows "
            "(or choose another label column).",
        )
    return labels


def _label_text(value):
    """A label as a class name: whole numbers without ``.0`` (so 1 and 1.0 agree)."""
    return str(int(value)) if isinstance(value, float) and value == int(value) else str(value)


def _labels_as_classes(y_source, y_target, labelled, label, notes):
    """The labels as classes, never measurements: if they are not all whole numbers, or mix
    text and numbers, they become class names (:func:`_label_text`, with a note); the
    source's are returned as :func:`native_labels`."""
    values = list(y_source) + ([] if y_target is None else list(y_target[labelled]))
    kinds = {type(v) for v in values}
    if float in kinds or len(kinds) > 1:
        fractions = sorted({_label_text(v) for v in values if isinstance(v, float) and v != int(v)})
        examples = ", ".join(fractions[:_EXAMPLES])
        why = f"are not all whole numbers (e.g. {examples})" if fractions else "mix text and numbers"
        notes.append(
            f"The labels in {label!r} {why}; they are used as class names (text), so "
            "every distinct value is its own class."
        )
        y_source = [_label_text(v) for v in y_source]
        if y_target is not None:
            y_target = np.array([None if v is None else _label_text(v) for v in y_target], dtype=object)
    return native_labels(y_source), y_target


def native_labels(values):
    """Labels as an int64 array when all are ints, else as text (object arrays of ints
    confuse scikit-learn)."""
    values = list(values)
    if values and all(type(v) is int for v in values):
        return np.array(values, dtype=np.int64)
    return np.array([str(v) for v in values], dtype=object)


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
    small = counts < MIN_SAMPLES_PER_CLASS
    if small.any():
        listed = ", ".join(f"'{c}' ({n})" for c, n in list(zip(classes[small], counts[small]))[:5])
        raise DataValidationError(
            f"Every class needs at least {MIN_SAMPLES_PER_CLASS} source samples{after}; "
            f"{source_name} has too few of {listed}.",
            f"Add samples of those classes, merge or remove them{fix_drop}.",
        )


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


def id_like_columns(X, features, min_rows=ID_MIN_ROWS):
    """The names in ``features`` of the columns of ``X`` that look like row identifiers.

    With at least ``min_rows`` rows, a finite column is id-like when its values are whole
    numbers that are all different, or when it strictly increases or decreases from row to
    row (a row number, a timestamp).  Such a column is non-zero in almost every row of both
    files, tells nothing about the class and, in the target, only extrapolates.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < min_rows:
        return []
    steps = np.diff(X, axis=0)
    monotone = np.all(steps > 0, axis=0) | np.all(steps < 0, axis=0)
    unique = np.all(np.diff(np.sort(X, axis=0), axis=0) != 0, axis=0)
    flagged = np.all(np.isfinite(X), axis=0) & (monotone | (np.all(np.round(X) == X, axis=0) & unique))
    return [name for name, flag in zip(features, flagged) if flag]


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
    """Id-like columns and negative values in either file; features never non-zero in the
    source, or in the target."""
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
    in_source = (X_source != 0).any(axis=0)
    never_source = np.flatnonzero(~in_source)
    if len(never_source):
        notes.append(
            f"{len(never_source)} feature(s) are zero (or missing) in every source row "
            f"({_name_list([features[j] for j in never_source])}); no classifier can learn "
            "from them, so their weights are 0."
        )
    never_target = np.flatnonzero(in_source & ~(X_target != 0).any(axis=0))
    if len(never_target):
        notes.append(
            f"{len(never_target)} feature(s) never occur (are zero or missing in every row) in "
            f"{target_name} ({_name_list([features[j] for j in never_target])}): their "
            "dropout estimate is 1 and FLDA gives them weight 0."
        )
    return notes


def root_mean_square(X):
    """Root mean square of every column, 1 for all-zero columns, without overflow.

    ``sqrt(mean(x**2))`` overflows for ``|x|`` above about 1e154 (and underflows to 0 below
    1e-162); those columns are computed as ``m * sqrt(mean((x / m)**2))`` with ``m = max
    |x|``, exact up to rounding for any finite ``x``.  Other columns keep the direct
    formula, bit for bit.
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


def fit_cost(n_rows, n_features, n_classes):
    """``n_rows x n_features x outputs`` with one output for two classes, else one per class.

    Examples
    --------
    >>> fit_cost(1000, 20, 2), fit_cost(1000, 20, 10)
    (20000, 200000)
    """
    return int(n_rows) * int(n_features) * (1 if int(n_classes) <= 2 else int(n_classes))


def _cost_text(n_rows, n_features, n_classes):
    outputs = "1 output" if int(n_classes) <= 2 else f"{int(n_classes)} classes"
    cost = fit_cost(n_rows, n_features, n_classes)
    return f"{int(n_rows):,} rows x {int(n_features):,} features x {outputs} = {cost:,}"


def check_fit_cost(n_rows, n_features, n_classes, name):
    """Refuse (:class:`DataValidationError`) an upload whose fit would cost more than
    :data:`MAX_FIT_COST`: ``n_rows x n_features`` values in ``n_classes`` classes of the
    data a classifier is trained on, ``name`` the file's name."""
    if fit_cost(n_rows, n_features, n_classes) > MAX_FIT_COST:
        raise DataValidationError(
            f"Fitting on {name} would be too slow for a shared server: "
            f"{_cost_text(n_rows, n_features, n_classes)} values per pass; the limit is {MAX_FIT_COST:,}.",
            "Upload a random subsample of the rows, keep fewer features, or merge classes.",
        )


def fit_cost_note(n_rows, n_features, n_classes, n_fits=1):
    """The sentence to show before ``n_fits`` fits whose cost reaches :data:`LONG_FIT_COST`,
    else None."""
    if fit_cost(n_rows, n_features, n_classes) < LONG_FIT_COST:
        return None
    fits = f"each of the {int(n_fits)} fits" if n_fits > 1 else "the fit"
    return (
        f"This is a large problem ({_cost_text(n_rows, n_features, n_classes)} values "
        f"per pass over the data; every solver iteration makes at least one pass), so "
        f"{fits} may take minutes. A random subsample of the rows is much faster."
    )
