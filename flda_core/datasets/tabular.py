"""Your own data: read CSV files, validate them and prepare FLDA's inputs.

The "Your data" page lets a user bring a labelled *source* CSV and an
(optionally labelled) *target* CSV.  Everything that can go wrong with a real
file is checked here, in three small steps that never import streamlit:

1. :func:`parse_csv` turns raw bytes (+ the file name) into a :class:`CsvTable`:
   it decodes the text (UTF-8, UTF-8 with BOM, UTF-16 or UTF-32 with BOM, else
   Latin-1), detects the delimiter (comma, semicolon, tab or pipe; an Excel
   ``sep=;`` first line is obeyed and skipped), reads the
   header and converts every column it can to numbers.  Missing cells (empty,
   ``NA``, ``NaN``, ``?``, ...) become ``NaN``.
2. :func:`prepare_domains` chooses the label column, matches the features of
   the two files (by column name or by position), checks that the features are
   finite numbers and the labels usable, and handles missing values the way
   the paper's "missing data at test time" experiment does (section 4.2.2,
   Table ``missing``): a missing feature is a *dropped-out* feature, i.e. a
   zero (the default), or, if the user prefers, incomplete rows are dropped.
3. :func:`fit_models` fits the paper's classifiers (S-LS, S-LR, FLDA-Q,
   FLDA-L and, when the target carries labels, the T-LR oracle of section 4.2.1)
   and :func:`error_table`, :func:`predictions_frame` and :func:`theta_frame`
   summarise them.

Every problem a user can fix raises :class:`DataValidationError` with a
message saying what is wrong and a hint saying how to fix it; things that are
allowed but worth knowing (Latin-1 text, negative values, columns present in
only one file, ...) are returned as warnings instead.  No other exception
escapes :func:`parse_csv` or :func:`prepare_domains` for any input bytes
(checked by a property-based test with generated malformed files).
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import re
import warnings as _warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from ..classifier import FLDAClassifier
from ..figures.style import classifier_name
from ..transfer import nonzero_rate

__all__ = [
    "MAX_FILE_BYTES", "MAX_ROWS", "MAX_COLUMNS", "MAX_CELLS", "MAX_CLASSES",
    "MIN_SAMPLES_PER_CLASS", "MISSING_TOKENS", "DELIMITER_NAMES",
    "MATCH_OPTIONS", "MISSING_OPTIONS", "MODEL_NAMES", "PROBABILITY_MODEL",
    "DataValidationError", "CsvTable", "PreparationReport", "PreparedDomains",
    "decode_text", "detect_delimiter", "parse_csv", "guess_label_column",
    "prepare_domains", "fit_models", "error_table", "predictions_frame",
    "probability_columns", "theta_frame", "convergence_notes", "SampleSet", "SAMPLE_SETS",
    "SAMPLE_DIR", "read_sample",
]

#: Largest file accepted (bytes).  Bigger files should be subsampled first.
MAX_FILE_BYTES = 50 * 1024 * 1024
#: Most data rows (samples) per file.
MAX_ROWS = 200_000
#: Most columns per file (features + label).
MAX_COLUMNS = 5_000
#: Most cells (rows x columns) per file, so that the fits fit in memory.
MAX_CELLS = 10_000_000
#: Most distinct labels; more usually means a continuous (regression) target.
MAX_CLASSES = 50
#: Largest feature magnitude accepted without scaling: FLDA squares values (the
#: dropout variance, eq. 10), which overflows float64 beyond about 1.3e154.
MAX_UNSCALED_MAGNITUDE = 1e150
#: Fewest source samples of every class.
MIN_SAMPLES_PER_CLASS = 2
#: Cell contents read as "missing" (compared case-insensitively, after stripping spaces).
MISSING_TOKENS = ("", "na", "n/a", "nan", "null", "none", "?", "missing")
#: Delimiters recognised, in order of preference, with their names for messages.
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
#: How source and target features are matched.
MATCH_OPTIONS = ("name", "position")
#: What happens to missing feature values (section 4.2.2: zeros, i.e. dropout).
MISSING_OPTIONS = ("zero", "drop")
#: Classifiers fitted on the page, in the order of the paper's tables.
MODEL_NAMES = ("S-LS", "S-LR", "FLDA-Q", "FLDA-L", "T-LR")
#: The classifier whose class probabilities :func:`predictions_frame` reports.
PROBABILITY_MODEL = "FLDA-L"

#: Folder of the sample CSVs (regenerate with ``python3 sample_data/make_samples.py``).
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


@dataclass(frozen=True)
class SampleSet:
    """A source/target pair shipped in :data:`SAMPLE_DIR`."""

    key: str
    title: str
    source_file: str
    target_file: str
    label: str
    description: str


#: The sample sets offered by the "Your data" page, by key.
SAMPLE_SETS = {
    "poisson": SampleSet(
        "poisson", "Synthetic word counts (Poisson)", "poisson_source.csv",
        "poisson_target.csv", "label",
        "Synthetic counts of 10 words in two classes (ham/spam) drawn from Poisson "
        "distributions; in the target, 5 words are dropped out with probabilities 0.3-0.8 "
        "(the dropout transfer model of section 3.3.1, as in Figures 2-4)."),
    "poisson_unlabelled": SampleSet(
        "poisson_unlabelled", "Synthetic word counts, unlabelled target",
        "poisson_source.csv", "poisson_target_unlabelled.csv", "label",
        "The same Poisson pair without target labels: the realistic case, where only "
        "predictions and the transfer parameters can be shown."),
    "breast_cancer": SampleSet(
        "breast_cancer", "Breast cancer, missing data at test time",
        "breast_cancer_source.csv", "breast_cancer_target.csv", "diagnosis",
        "scikit-learn's Wisconsin breast cancer data: complete rows as source; the other "
        "rows as target with features knocked out (empty cells), like the UCI experiments "
        "of section 4.2.2 (Table 'missing')."),
}


def read_sample(key, directory=None):
    """Raw bytes of a sample set: ``(source_name, source_bytes, target_name, target_bytes)``."""
    sample = SAMPLE_SETS[key]
    directory = Path(directory) if directory is not None else SAMPLE_DIR
    return (sample.source_file, (directory / sample.source_file).read_bytes(),
            sample.target_file, (directory / sample.target_file).read_bytes())


_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) workbook"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "a gzip-compressed file"),
)
_NA_VALUES = sorted({v for t in MISSING_TOKENS for v in (t, t.upper(), t.title())}
                    | {"NaN", "N/A", "#N/A"})
_SNIFF_LINES = 50
_EXAMPLES = 3


class DataValidationError(ValueError):
    """A problem with user data that the user can fix.

    Parameters
    ----------
    message : str
        What is wrong, naming the file, column, row or value concerned.
    hint : str, default=""
        How to fix it.

    The string form is ``message`` followed by ``hint``, so the exception
    reads well wherever it is shown.
    """

    def __init__(self, message, hint=""):
        self.message = str(message)
        self.hint = str(hint)
        super().__init__(f"{self.message} {self.hint}".strip())


@dataclass(frozen=True)
class CsvTable:
    """A parsed CSV file.

    Attributes
    ----------
    name : str
        File name, used in every message about this file.
    frame : pandas.DataFrame
        One column per header name (unique, stripped of spaces).  Columns that
        hold only numbers and missing cells are ``float64`` with ``NaN`` for
        missing; other columns are strings with ``NaN`` for missing.
    encoding : str
        How the bytes were decoded, e.g. ``"UTF-8"`` or ``"Latin-1"``.
    delimiter : str
        The field delimiter detected.
    warnings : tuple of str
        Things worth knowing that are not errors.
    """

    name: str
    frame: pd.DataFrame = field(repr=False)
    encoding: str
    delimiter: str
    warnings: tuple = ()

    @property
    def n_rows(self):
        return int(self.frame.shape[0])

    @property
    def columns(self):
        return tuple(self.frame.columns)

    @property
    def numeric_columns(self):
        """Names of the columns that hold numbers (and missing cells) only."""
        return tuple(c for c in self.frame.columns if _is_numeric(self.frame[c]))

    def describe(self):
        """One line for the page, e.g. ``"569 rows x 31 columns, UTF-8, comma-separated"``."""
        return (f"{self.n_rows:,} rows x {len(self.columns):,} columns, {self.encoding}, "
                f"{DELIMITER_NAMES[self.delimiter]}-separated")


# --------------------------------------------------------------------------- parsing

def decode_text(raw, name="file"):
    """Decode the bytes of a text file.

    Tries UTF-32 and UTF-16 (only when the file starts with their byte-order
    mark), UTF-8 with or without a byte-order mark, and finally Latin-1, which
    decodes any byte sequence; binary files (NUL bytes or a known signature
    such as an Excel workbook) are rejected, with a message naming UTF-16 or
    UTF-32 when the NUL bytes are those of such text without a byte-order
    mark.

    Parameters
    ----------
    raw : bytes
    name : str
        File name for messages.

    Returns
    -------
    text : str
    encoding : str
        ``"UTF-32"``, ``"UTF-16"``, ``"UTF-8 with BOM"``, ``"UTF-8"`` or ``"Latin-1"``.

    Raises
    ------
    DataValidationError
        For binary content.
    """
    # The UTF-32-LE mark starts with the UTF-16-LE one: test it first.
    for marks, encoding in (((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "UTF-32"),
                            ((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), "UTF-16")):
        if raw.startswith(marks):
            try:
                return raw.decode(encoding.lower()), encoding
            except UnicodeDecodeError:
                raise DataValidationError(
                    f"{name} starts like a {encoding} text file but is not valid {encoding}.",
                    "Save it again as CSV with UTF-8 encoding.") from None
    for signature, what in _BINARY_SIGNATURES:
        if raw.startswith(signature):
            raise DataValidationError(
                f"{name} is not a text CSV file: it looks like {what}.",
                "Open it in its program and export or 'Save as' CSV (comma-separated values).")
    if b"\x00" in raw:
        wide = _wide_encoding(raw)
        if wide:
            raise DataValidationError(
                f"{name} looks like {wide} text without a byte-order mark, which cannot be "
                "told apart from binary data reliably.",
                "Save it again as CSV with UTF-8 encoding.")
        raise DataValidationError(
            f"{name} contains binary data (NUL bytes), so it is not a text CSV file.",
            "Export the data as CSV (comma-separated values) and upload that file.")
    if raw.startswith(codecs.BOM_UTF8):
        try:
            return raw[len(codecs.BOM_UTF8):].decode("utf-8"), "UTF-8 with BOM"
        except UnicodeDecodeError:
            pass
    else:
        try:
            return raw.decode("utf-8"), "UTF-8"
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1"), "Latin-1"


def _wide_encoding(raw):
    """``"UTF-32"``/``"UTF-16"`` if ``raw`` decodes as such into NUL-free printable text."""
    sample = raw[:4096]
    for encoding, width in (("utf-32-le", 4), ("utf-32-be", 4), ("utf-16-le", 2),
                            ("utf-16-be", 2)):
        try:
            text = sample[:len(sample) - len(sample) % width].decode(encoding)
        except UnicodeDecodeError:
            continue
        if text and "\x00" not in text and all(c.isprintable() or c in "\r\n\t"
                                                for c in text):
            return encoding[:6].upper()
    return None


def _split_fields(line, delimiter):
    """Fields of one line, honouring quotes; never raises."""
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return line.split(delimiter)


def detect_delimiter(lines):
    """The delimiter that splits the first lines into equally many fields.

    Parameters
    ----------
    lines : list of str
        The first non-blank lines of a file (the header first).

    Returns
    -------
    str
        One of :data:`DELIMITER_NAMES`.  A delimiter that gives every line the
        same number (>= 2) of fields wins, the one giving the most fields
        first; otherwise the one giving the header the most fields; a file
        with a single column gets ``","``.
    """
    sample = lines[:_SNIFF_LINES]
    best, best_key = ",", None
    for delimiter in DELIMITER_NAMES:
        counts = [len(_split_fields(line, delimiter)) for line in sample]
        consistent = len(set(counts)) == 1
        key = (consistent and counts[0] >= 2, counts[0] if consistent else 0,
               counts[0] if counts else 0)
        if counts and counts[0] >= 2 and (best_key is None or key > best_key):
            best, best_key = delimiter, key
    return best


def _looks_numeric(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_numeric(series):
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype)


def _convert_column(series, delimiter):
    """Float column if every non-missing cell is a number, else stripped strings.

    Returns ``(column, decimal_comma_used)``.
    """
    if _is_numeric(series):
        return series.astype(np.float64), False
    text = series.astype("str").str.strip()
    missing = series.isna() | text.str.lower().isin(MISSING_TOKENS)
    text = text.mask(missing)
    numbers = pd.to_numeric(text, errors="coerce")
    if not (numbers.isna() & ~missing).any():
        return numbers.astype(np.float64), False
    if delimiter != ",":
        # Semicolon/tab files from European locales write 1,5 for 1.5.
        decimal = text.str.fullmatch(r"[+-]?\d*,\d+|[+-]?\d+,?")
        if bool((decimal | missing).all()):
            numbers = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
            if not (numbers.isna() & ~missing).any():
                return numbers.astype(np.float64), True
    return text, False


def parse_csv(raw, name="file.csv"):
    """Read the bytes of an uploaded CSV file into a validated :class:`CsvTable`.

    Parameters
    ----------
    raw : bytes
        File content.
    name : str
        File name, used in messages.

    Returns
    -------
    CsvTable

    Raises
    ------
    DataValidationError
        Empty file, header only, binary content, more than
        :data:`MAX_FILE_BYTES` bytes / :data:`MAX_ROWS` rows /
        :data:`MAX_COLUMNS` columns / :data:`MAX_CELLS` cells, duplicate or
        missing column names, rows with more fields than the header, broken
        quoting.  Non-numeric or infinite feature values are checked later, in
        :func:`prepare_domains`, once the label column is known.
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    raw = bytes(raw)
    if len(raw) > MAX_FILE_BYTES:
        raise DataValidationError(
            f"{name} is {len(raw) / 2**20:.1f} MB; the limit is "
            f"{MAX_FILE_BYTES / 2**20:.0f} MB.",
            "Upload a random subsample of the rows (or fewer columns).")
    if not raw.strip():
        raise DataValidationError(
            f"{name} is empty.", "Upload a CSV file with a header row and at least one data row.")
    text, encoding = decode_text(raw, name)
    file_warnings = []
    if encoding == "Latin-1":
        file_warnings.append(
            f"{name} is not valid UTF-8; it was read as Latin-1 (Western European). "
            "If column names look garbled, save the file as UTF-8.")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text, forced_delimiter = _excel_separator_line(text, name, file_warnings)
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        raise DataValidationError(
            f"{name} is empty (only blank lines).",
            "Upload a CSV file with a header row and at least one data row.")
    if len(lines) - 1 > MAX_ROWS:
        raise DataValidationError(
            f"{name} has {len(lines) - 1:,} data rows; the limit is {MAX_ROWS:,}.",
            "Upload a random subsample of the rows.")
    delimiter = forced_delimiter or detect_delimiter(lines)
    _check_header_line_breaks(text, lines[0], delimiter, name)
    header = [h.strip() for h in _split_fields(lines[0], delimiter)]
    if len(header) > MAX_COLUMNS:
        raise DataValidationError(
            f"{name} has {len(header):,} columns; the limit is {MAX_COLUMNS:,}.",
            "Keep the most frequent features (e.g. the most common words) and upload again.")
    if len(lines) == 1:
        raise DataValidationError(
            f"{name} has a header row but no data rows.",
            "Add at least one row of values below the column names.")
    n_cells = (len(lines) - 1) * len(header)
    if n_cells > MAX_CELLS:
        raise DataValidationError(
            f"{name} has {len(lines) - 1:,} rows x {len(header):,} columns = {n_cells:,} "
            f"values; the limit is {MAX_CELLS:,}.",
            "Upload a random subsample of the rows or drop rare features.")
    n_first = len(_split_fields(lines[1], delimiter))
    if n_first > len(header):
        raise DataValidationError(
            f"The first data row of {name} has {n_first} values but the header names "
            f"{len(header)} columns.",
            "Every row needs exactly one value per column: add the missing column name(s) "
            "or remove the extra delimiter at the end of the data rows.")
    _check_column_names(header, name)
    if all(_looks_numeric(h) for h in header):
        file_warnings.append(
            f"Every column name in {name} is a number, so the first row may be data rather "
            "than a header. The first row is always read as column names.")

    header_end = text.find(lines[0]) + len(lines[0])
    body = text[header_end:]
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            frame = pd.read_csv(
                io.StringIO(body), sep=delimiter, header=None, names=range(len(header)),
                index_col=False, skipinitialspace=True, keep_default_na=False,
                na_values=_NA_VALUES, skip_blank_lines=True, engine="c",
                low_memory=False, quotechar='"')
    except pd.errors.ParserError as error:
        raise DataValidationError(*_parser_message(
            str(error), name, len(header), text[:header_end].count("\n"))) from None
    except (ValueError, UnicodeError, OverflowError, MemoryError, csv.Error) as error:
        raise DataValidationError(
            f"{name} could not be read as a CSV table ({error}).",
            "Check that it is a plain CSV file with one header row.") from None
    if frame.shape[0] == 0:
        raise DataValidationError(
            f"{name} has a header row but no data rows.",
            "Add at least one row of values below the column names.")
    if frame.shape[0] > MAX_ROWS:
        raise DataValidationError(
            f"{name} has {frame.shape[0]:,} data rows; the limit is {MAX_ROWS:,}.",
            "Upload a random subsample of the rows.")

    columns, decimal_comma = {}, []
    for index, column_name in enumerate(header):
        converted, used_comma = _convert_column(frame[index], delimiter)
        if column_name == "":
            if converted.isna().all():
                file_warnings.append(
                    f"{name}: ignored column {index + 1}, which has no name and no values "
                    "(a delimiter at the end of each line).")
                continue
            raise DataValidationError(
                f"Column {index + 1} of {name} has values but no name.",
                "Give every column a name in the header row.")
        columns[column_name] = converted.reset_index(drop=True)
        if used_comma:
            decimal_comma.append(column_name)
    if not columns:
        raise DataValidationError(
            f"{name} has no named columns with values.",
            "Upload a CSV file with a header row and at least one data row.")
    if decimal_comma:
        file_warnings.append(
            f"{name}: read decimal commas as decimal points in {_name_list(decimal_comma)}.")
    table = pd.DataFrame(columns)
    return CsvTable(name=name, frame=table, encoding=encoding, delimiter=delimiter,
                    warnings=tuple(file_warnings))


_SEPARATOR_LINE = re.compile(r"[ \t]*\"?sep=(.?)\"?[ \t]*(\n|$)", re.IGNORECASE)


def _excel_separator_line(text, name, file_warnings):
    """Drop Excel's ``sep=;`` first line; returns ``(text, delimiter or None)``."""
    match = _SEPARATOR_LINE.match(text)
    if not match:
        return text, None
    delimiter = match.group(1)
    if delimiter not in DELIMITER_NAMES:
        raise DataValidationError(
            f"The first line of {name}, {match.group(0).strip()!r}, asks for the delimiter "
            f"{delimiter!r}, which is not supported.",
            "Save the file with commas, semicolons, tabs or pipes between values.")
    file_warnings.append(
        f"{name}: skipped the first line {match.group(0).strip()!r} (a hint written by Excel) "
        f"and used the {DELIMITER_NAMES[delimiter]} it names as the delimiter.")
    return text[match.end():], delimiter


def _check_header_line_breaks(text, first_line, delimiter, name):
    """Refuse a header whose quoted column name spans lines (the header is one line)."""
    if first_line.count('"') % 2 == 0:
        return
    start = text.find(first_line)
    try:
        record = next(csv.reader(io.StringIO(text[start:]), delimiter=delimiter,
                                 strict=True), [])
    except csv.Error:
        return  # an unclosed quote: reported by the table reader
    broken = [field for field in record if "\n" in field]
    if broken:
        raise DataValidationError(
            f"A column name in the header of {name} contains a line break: "
            f"{broken[0][:60]!r}.",
            "Remove line breaks from the column names (edit the header cells), then save "
            "as CSV again.")


def _check_column_names(header, name):
    seen, duplicates = set(), []
    for column_name in header:
        if column_name and column_name in seen and column_name not in duplicates:
            duplicates.append(column_name)
        seen.add(column_name)
    if duplicates:
        headerless = all(_looks_numeric(c) for c in header)
        raise DataValidationError(
            f"{name} has duplicate column names: {_name_list(duplicates)}."
            + (" Every column name is a number, so the file probably has no header row "
               "and its first data row was read as column names." if headerless else ""),
            ("Add a first line naming the columns (e.g. word_1,word_2,...,label)."
             if headerless else
             "Column names must be unique; rename or delete the repeated columns."))


def _parser_message(message, name, n_header, lines_before_body):
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if match:
        # The body starts with the newline that ends the header line.
        line = int(match.group(2)) + lines_before_body
        return (f"Line {line} of {name} has {match.group(3)} values but the header names "
                f"{n_header} columns.",
                "Every row needs one value per column; check for an extra delimiter, or "
                "quote values that contain the delimiter.")
    if "EOF" in message or "quote" in message.lower():
        return (f"{name} has an opening quote (\") that is never closed.",
                "Close the quote or remove it; quotes must come in pairs around a value.")
    return (f"{name} could not be read as a CSV table ({message}).",
            "Check that it is a plain CSV file with one header row.")


def _name_list(names, limit=5):
    names = [repr(str(n)) for n in names]
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def _row_list(positions, limit=_EXAMPLES):
    rows = [str(int(p) + 1) for p in positions[:limit]]
    more = f" and {len(positions) - limit} more" if len(positions) > limit else ""
    return ", ".join(rows) + more


def guess_label_column(table):
    """A sensible default label column: a column named like a label, else the last one.

    Names tried, case-insensitively: ``label``, ``class``, ``target``, ``y``,
    ``outcome``, ``diagnosis``.
    """
    lower = {c.lower(): c for c in table.columns}
    for candidate in ("label", "class", "target", "y", "outcome", "diagnosis"):
        if candidate in lower:
            return lower[candidate]
    return table.columns[-1]


# --------------------------------------------------------------------------- preparation

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
                ("source", self.missing_cells_source, self.incomplete_rows_source,
                 self.rows_source),
                ("target", self.missing_cells_target, self.incomplete_rows_target,
                 self.rows_target)):
            parts.append(f"{domain}: {cells:,} missing value{'s' if cells != 1 else ''} in "
                         f"{rows:,} of {n_rows:,} rows" if cells else
                         f"{domain}: no missing values")
        counts = "Missing feature values, " + "; ".join(parts)
        if self.missing == "zero":
            return (f"{counts}. They were set to 0, i.e. treated as dropped-out features "
                    "(the paper's missing data at test time, section 4.2.2).")
        return (f"{counts}. Incomplete rows were dropped: {self.dropped_rows_source:,} "
                f"source and {self.dropped_rows_target:,} target rows.")


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
            headerless = [t.name for t in (source, target)
                          if t.columns and all(_looks_numeric(c) for c in t.columns)]
            if not headerless:
                raise
            raise DataValidationError(
                f"{error.message} Note: every column name of {' and '.join(headerless)} is a "
                "number, so the file probably has no header row and its first data row was "
                "read as column names.",
                "Add a first line naming the columns (e.g. word_1,word_2,...,label). "
                + error.hint) from None
    return wrapper


@_explain_headerless
def prepare_domains(source, target, label, match="name", missing="zero", exclude=(),
                    scale=True):
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
        fewer (no label column).
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

    Labels are classes, never measurements: when they are not all whole
    numbers (``1`` and ``1.5``, or integer source labels against a target
    label ``0.5``) or mix text and numbers, every label becomes its text
    ("1", "1.5"; ``1.0`` is written "1") and a note says so; a target label
    the source never has is reported as unseen.  A continuous column is
    refused by the :data:`MAX_CLASSES` limit.  Uploads whose fit would cost
    more than :data:`~flda_core.datasets.cost.MAX_FIT_COST` are refused.

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
    if match not in MATCH_OPTIONS:
        raise ValueError(f"match must be one of {MATCH_OPTIONS}, got {match!r}.")
    if missing not in MISSING_OPTIONS:
        raise ValueError(f"missing must be one of {MISSING_OPTIONS}, got {missing!r}.")
    if label not in source.columns:
        raise DataValidationError(
            f"The label column {label!r} is not in {source.name}.",
            f"Choose one of its columns: {_name_list(source.columns)}.")
    exclude = tuple(c for c in exclude if c in source.columns and c != label)
    notes = list(source.warnings) + list(target.warnings)

    if match == "name":
        features, target_features, target_label, only_source, only_target, renamed = \
            _match_by_name(source, target, label, exclude)
    else:
        features, target_features, target_label, only_source, only_target, renamed = \
            _match_by_position(source, target, label, exclude)
    if only_source or only_target:
        notes.append(_only_in_one_note(source.name, only_source, target.name, only_target))

    X_source = _feature_matrix(source, features, features)
    X_target = _feature_matrix(target, target_features, features)
    y_source = _source_labels(source, label)
    y_target, labelled = _target_labels(target, target_label)

    nan_source, nan_target = np.isnan(X_source), np.isnan(X_target)
    incomplete_source, incomplete_target = nan_source.any(axis=1), nan_target.any(axis=1)
    counts = dict(missing_cells_source=int(nan_source.sum()),
                  missing_cells_target=int(nan_target.sum()),
                  incomplete_rows_source=int(incomplete_source.sum()),
                  incomplete_rows_target=int(incomplete_target.sum()))
    counts.update(rows_source=int(X_source.shape[0]), rows_target=int(X_target.shape[0]))
    target_rows = np.arange(1, X_target.shape[0] + 1)
    dropped_source = dropped_target = 0
    if missing == "zero":
        X_source = np.where(nan_source, 0.0, X_source)
        X_target = np.where(nan_target, 0.0, X_target)
    else:
        dropped_source, dropped_target = counts["incomplete_rows_source"], \
            counts["incomplete_rows_target"]
        X_source, y_source = X_source[~incomplete_source], y_source[~incomplete_source]
        X_target, labelled = X_target[~incomplete_target], labelled[~incomplete_target]
        target_rows = target_rows[~incomplete_target]
        if y_target is not None:
            y_target = y_target[~incomplete_target]
        if X_target.shape[0] == 0:
            raise DataValidationError(
                f"Every row of {target.name} has a missing feature value, so dropping "
                "incomplete rows leaves no target data.",
                "Choose 'treat as zeros' for missing values (the paper's choice, section 4.2.2).")
        if X_source.shape[0] == 0:
            raise DataValidationError(
                f"Every row of {source.name} has a missing feature value, so dropping "
                "incomplete rows leaves no source data.",
                "Choose 'treat as zeros' for missing values.")

    classes = _check_classes(y_source, source.name, label, dropped=dropped_source > 0)
    y_source, y_target = _labels_as_categories(y_source, y_target, labelled, label, notes)
    y_source, y_target = _harmonise_labels(y_source, y_target, labelled)
    y_source = _native_labels(y_source)
    classes = np.unique(y_source)
    if y_target is not None and labelled.any():
        unseen = sorted({str(v) for v in y_target[labelled]} - {str(c) for c in classes})
        if unseen:
            notes.append(
                f"{target.name} has labels that never occur in {source.name} "
                f"({_name_list(unseen)}); no classifier can predict them, so those rows "
                "count as errors.")
        if labelled.sum() < len(labelled):
            notes.append(
                f"{len(labelled) - int(labelled.sum()):,} target rows have no label; errors "
                f"are measured on the {int(labelled.sum()):,} labelled rows, predictions "
                "are made for all.")
    notes.extend(_value_notes(X_source, X_target, features, source.name, target.name))

    scale_factor = np.ones(len(features))
    if scale:
        scale_factor = root_mean_square(X_source)
        X_source = X_source / scale_factor
        X_target = X_target / scale_factor
    else:
        _check_magnitude(X_source, X_target, features, source.name, target.name)
    from .cost import check_fit_cost  # cost imports this module's error class
    check_fit_cost(X_source.shape[0], X_source.shape[1], len(classes), source.name)

    report = PreparationReport(
        match=match, missing=missing, only_in_source=tuple(only_source),
        only_in_target=tuple(only_target), renamed=tuple(renamed), excluded=exclude,
        dropped_rows_source=dropped_source, dropped_rows_target=dropped_target,
        target_labels=int(labelled.sum()), warnings=tuple(notes), **counts)
    return PreparedDomains(
        X_source=X_source, y_source=y_source, X_target=X_target, y_target=y_target,
        target_labelled=labelled, target_rows=target_rows, feature_names=tuple(features),
        label=label, classes=classes, scale=scale_factor, report=report)


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
        rms = np.sqrt(np.mean(X ** 2, axis=0)) if len(X) else np.zeros(X.shape[1])
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
                "Turn feature scaling on, or store the values in smaller units.")


def _match_by_name(source, target, label, exclude):
    unused = {label, *exclude}
    source_features = [c for c in source.columns if c not in unused]
    target_columns = set(target.columns)
    features = [c for c in source_features if c in target_columns]
    only_source = [c for c in source_features if c not in target_columns]
    only_target = [c for c in target.columns
                   if c not in unused and c not in set(source_features)]
    if not source_features:
        raise DataValidationError(
            f"{source.name} has no feature columns besides the label {label!r}.",
            "Upload a file with at least one feature column, or un-ignore columns.")
    if not features:
        raise DataValidationError(
            f"{source.name} and {target.name} have no feature column names in common.",
            "Rename the target columns to match the source, or choose 'match features by "
            "position' if the columns are in the same order.")
    target_label = label if label in target_columns else None
    return features, features, target_label, only_source, only_target, []


def _match_by_position(source, target, label, exclude):
    n_source, n_target = len(source.columns), len(target.columns)
    label_index = source.columns.index(label)
    if n_target == n_source:
        target_label = target.columns[label_index]
        target_columns = list(target.columns)
    elif n_target == n_source - 1:
        target_label = None
        target_columns = list(target.columns[:label_index]) + [None] + \
            list(target.columns[label_index:])
    else:
        raise DataValidationError(
            f"Matching by position needs {target.name} to have the same {n_source} columns "
            f"as {source.name} (label at position {label_index + 1}) or {n_source - 1} "
            f"(no label column); it has {n_target}.",
            "Fix the columns of the target file, or match features by name.")
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
            "Upload a file with at least one feature column, or un-ignore columns.")
    return features, target_features, target_label, [], [], renamed


def _only_in_one_note(source_name, only_source, target_name, only_target):
    parts = []
    if only_source:
        parts.append(f"{len(only_source)} column(s) only in {source_name}: "
                     f"{_name_list(only_source)}")
    if only_target:
        parts.append(f"{len(only_target)} column(s) only in {target_name}: "
                     f"{_name_list(only_target)}")
    return "; ".join(parts) + ". They are not used (features are matched by name)."


def _feature_matrix(table, columns, feature_names):
    """Float matrix of ``columns`` (NaN for missing), rejecting text and infinities."""
    non_numeric = [(c, f) for c, f in zip(columns, feature_names)
                   if not _is_numeric(table.frame[c])]
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
            "column(s) to 'Columns to ignore'.")
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
            "Replace them by finite numbers, or leave those cells empty to mark them missing.")
    return X


def _label_series_values(series):
    """Labels as an object array (ints for integer-valued numbers), None for missing."""
    missing = series.isna().to_numpy()
    if _is_numeric(series):
        numbers = series.to_numpy(dtype=np.float64, na_value=np.nan)
        present = numbers[~missing]
        if np.isinf(present).any():
            return None, missing
        if np.all(present == np.round(present)) and np.all(np.abs(present) < 2**53):
            values = [None if m else int(v) for v, m in zip(numbers, missing)]
        else:
            values = [None if m else float(v) for v, m in zip(numbers, missing)]
    else:
        values = [None if m else str(v).strip() for v, m in zip(series.tolist(), missing)]
    return np.array(values, dtype=object), missing


def _source_labels(source, label):
    values, missing = _label_series_values(source.frame[label])
    if values is None:
        raise DataValidationError(
            f"The label column {label!r} of {source.name} holds infinite values.",
            "Labels must be class names or whole numbers.")
    if missing.any():
        rows = np.flatnonzero(missing)
        raise DataValidationError(
            f"The label column {label!r} of {source.name} has {len(rows):,} missing "
            f"label(s) (data rows {_row_list(rows)}).",
            "Every source row needs a label: fill them in or delete those rows "
            "(or choose another label column).")
    return values


def _target_labels(target, target_label):
    n = target.n_rows
    if target_label is None:
        return None, np.zeros(n, dtype=bool)
    values, missing = _label_series_values(target.frame[target_label])
    if values is None:
        raise DataValidationError(
            f"The label column {target_label!r} of {target.name} holds infinite values.",
            "Labels must be class names or whole numbers; leave unknown labels empty.")
    if missing.all():
        return None, np.zeros(n, dtype=bool)
    return values, ~missing


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
    examples = sorted({_label_text(v) for v in values if isinstance(v, float)
                       and v != int(v)})[:_EXAMPLES]
    why = (f"are not all whole numbers (e.g. {', '.join(examples)})" if examples
           else "mix text and numbers")
    notes.append(f"The labels in {label!r} {why}; they are used as class names (text), so "
                 "every distinct value is its own class.")
    y_source = np.array([_label_text(v) for v in y_source], dtype=object)
    if y_target is not None:
        y_target = np.array([None if v is None else _label_text(v) for v in y_target],
                            dtype=object)
    return y_source, y_target


def _harmonise_labels(y_source, y_target, labelled):
    """Make source and target labels comparable (strings if their kinds differ)."""
    kinds = {type(v) for v in y_source}
    if y_target is not None:
        kinds |= {type(v) for v in y_target[labelled]}
    if len(kinds) <= 1 or kinds <= {int, float}:
        if kinds == {int, float}:
            y_source = np.array([float(v) for v in y_source], dtype=object)
            if y_target is not None:
                y_target = np.array([None if v is None else float(v) for v in y_target],
                                    dtype=object)
        return y_source, y_target
    y_source = np.array([str(v) for v in y_source], dtype=object)
    if y_target is not None:
        y_target = np.array([None if v is None else str(v) for v in y_target], dtype=object)
    return y_source, y_target


def _check_classes(y_source, source_name, label, dropped):
    after = " after dropping incomplete rows" if dropped else ""
    fix_drop = " or treat missing values as zeros" if dropped else ""
    classes, counts = np.unique(np.array([str(v) for v in y_source]), return_counts=True)
    if len(classes) < 2:
        raise DataValidationError(
            f"The label column {label!r} of {source_name} has only one class "
            f"('{classes[0]}'){after}.",
            f"A classifier needs at least two classes: add samples of another class{fix_drop}, "
            "or choose another label column.")
    if len(classes) > MAX_CLASSES:
        raise DataValidationError(
            f"The label column {label!r} of {source_name} has {len(classes):,} distinct "
            f"values; the limit is {MAX_CLASSES}. It looks like a measurement, not a class.",
            "Choose the column that holds the classes, or bin the values into a few classes.")
    small = [(c, n) for c, n in zip(classes, counts) if n < MIN_SAMPLES_PER_CLASS]
    if small:
        listed = ", ".join(f"'{c}' ({n})" for c, n in small[:5])
        raise DataValidationError(
            f"Every class needs at least {MIN_SAMPLES_PER_CLASS} source samples{after}; "
            f"{source_name} has too few of {listed}.",
            f"Add samples of those classes, merge or remove them{fix_drop}.")
    return classes


def _value_notes(X_source, X_target, features, source_name, target_name):
    notes = []
    for X, name in ((X_source, source_name), (X_target, target_name)):
        negative = np.flatnonzero((X < 0).any(axis=0))
        if len(negative):
            notes.append(
                f"{name} has negative values in {len(negative)} feature(s) "
                f"({_name_list([features[j] for j in negative])}). Negative values are "
                "allowed, but FLDA's transfer model counts every non-zero value as 'present', "
                "so negatives count as present too; it suits counts and indicators best.")
    never_source = np.flatnonzero(~(X_source != 0).any(axis=0))
    if len(never_source):
        notes.append(
            f"{len(never_source)} feature(s) are zero (or missing) in every source row "
            f"({_name_list([features[j] for j in never_source])}); no classifier can learn "
            "from them, so their weights are 0.")
    in_source = (X_source != 0).any(axis=0)
    never_target = np.flatnonzero(in_source & ~(X_target != 0).any(axis=0))
    if len(never_target):
        notes.append(
            f"{len(never_target)} feature(s) never occur (are zero or missing in every row) in "
            f"{target_name} ({_name_list([features[j] for j in never_target])}): their "
            "dropout estimate is 1 and FLDA gives them weight 0.")
    return notes


# --------------------------------------------------------------------------- models

def fit_models(prepared, l2=1e-3, names=MODEL_NAMES, callback=None):
    """Fit the paper's classifiers on prepared data (sections 3.4, 4.2.1).

    Parameters
    ----------
    prepared : PreparedDomains
    l2 : float, default=1e-3
        Ridge penalty on the *mean* loss, the same for every classifier.
    names : sequence of str
        Which of :data:`MODEL_NAMES` to fit.  ``"T-LR"`` (logistic regression
        on the labelled target rows, the oracle) is skipped when the target has
        fewer than two labelled classes.
    callback : callable, optional
        Called as ``callback(i, n, name)`` before each fit (progress bars).

    Returns
    -------
    dict of str -> FLDAClassifier
        S-LS/S-LR: ``theta = 0`` (plain source classifiers); FLDA-Q/FLDA-L:
        ``theta`` estimated from the target (eq. ``dropout``, Algorithms 1-2).
    """
    unknown = [n for n in names if n not in MODEL_NAMES]
    if unknown:
        raise ValueError(f"Unknown classifier(s) {unknown}; choose from {MODEL_NAMES}.")
    names = [n for n in names if n != "T-LR" or _target_trainable(prepared)]
    models = {}
    for i, name in enumerate(names):
        if callback is not None:
            callback(i, len(names), name)
        model = FLDAClassifier(loss=loss_of(name), l2=l2)
        with _warnings.catch_warnings():
            # Reported to the user by convergence_notes() instead of the log.
            _warnings.simplefilter("ignore", ConvergenceWarning)
            _fit_one(model, name, prepared)
        models[name] = model
    return models


def convergence_notes(models):
    """Messages for logistic fits that stopped at ``max_iter`` before converging."""
    stalled = [name for name, model in models.items()
               if model.loss == "logistic" and model.n_iter_ >= model.max_iter]
    if not stalled:
        return []
    return [f"{', '.join(stalled)} stopped after {models[stalled[0]].max_iter} iterations "
            "without converging; their results may be slightly off. Scale the features or "
            "increase l2."]


def _fit_one(model, name, prepared):
    """Source classifiers ignore the target, FLDA estimates theta from it, T-LR trains on it."""
    if name in ("S-LS", "S-LR"):
        model.fit(prepared.X_source, prepared.y_source)
    elif name in ("FLDA-Q", "FLDA-L"):
        model.fit(prepared.X_source, prepared.y_source, X_target=prepared.X_target)
    else:
        mask = prepared.target_labelled
        model.fit(prepared.X_target[mask], _native_labels(prepared.y_target[mask]))


def _native_labels(values):
    """Labels as an int, float or str array (object arrays of ints confuse scikit-learn)."""
    values = list(values)
    kinds = {type(v) for v in values}
    if kinds == {int}:
        return np.array(values, dtype=np.int64)
    if kinds <= {int, float}:
        return np.array(values, dtype=np.float64)
    return np.array([str(v) for v in values], dtype=object)


def _target_trainable(prepared):
    if not prepared.has_target_labels:
        return False
    labels = prepared.y_target[prepared.target_labelled]
    return len({str(v) for v in labels}) >= 2


def error_table(prepared, models):
    """Classification error on the labelled target rows, one row per classifier.

    Mirrors one row of the paper's tables (e.g. Table ``missing``, section
    4.2.2): S-LS, S-LR, FLDA-Q, FLDA-L and the T-LR oracle.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier``, ``family`` ("source", "flda" or "target"),
        ``error``, ``errors``, ``n_target``.  Empty when the target has no labels.
    """
    columns = ["classifier", "family", "error", "errors", "n_target"]
    if not prepared.has_target_labels:
        return pd.DataFrame(columns=columns)
    mask = prepared.target_labelled
    truth = prepared.y_target[mask]
    rows = []
    for name, model in models.items():
        predicted = model.predict(prepared.X_target[mask])
        wrong = int(sum(p != t for p, t in zip(predicted, truth)))
        family = "source" if name.startswith("S-") else "target" if name.startswith("T-") \
            else "flda"
        rows.append((name, family, wrong / len(truth), wrong, len(truth)))
    return pd.DataFrame(rows, columns=columns)


def predictions_frame(prepared, models):
    """Target predictions of every fitted classifier, one row per target sample.

    Columns: ``row`` (data row in the target file), ``true_label`` (if the
    target is labelled), one ``<classifier>`` column of predicted labels per
    model, and ``FLDA-L P(<class>)`` probabilities when FLDA-L was fitted.
    """
    frame = pd.DataFrame({"row": prepared.target_rows})
    if prepared.has_target_labels:
        frame["true_label"] = pd.Series(list(prepared.y_target), dtype=object)
    for name, model in models.items():
        frame[name] = pd.Series(list(model.predict(prepared.X_target)), dtype=object)
    if PROBABILITY_MODEL in models:
        model = models[PROBABILITY_MODEL]
        probabilities = model.predict_proba(prepared.X_target)
        for j, cls in enumerate(model.classes_):
            frame[f"{PROBABILITY_MODEL} P({cls})"] = probabilities[:, j]
    return frame


def probability_columns(predictions):
    """The class-probability columns of :func:`predictions_frame`, in class order.

    Returns
    -------
    list of (str, str)
        ``(column, class)`` pairs, e.g. ``[("FLDA-L P(ham)", "ham"), ...]``;
        empty when FLDA-L was not fitted.
    """
    prefix, suffix = f"{PROBABILITY_MODEL} P(", ")"
    return [(str(c), str(c)[len(prefix):-len(suffix)]) for c in predictions.columns
            if str(c).startswith(prefix) and str(c).endswith(suffix)]


def theta_frame(prepared, models=None):
    """Per-feature transfer parameters and non-zero proportions.

    ``source_nonzero`` and ``target_nonzero`` are the fractions of rows in
    which the feature is non-zero (eta and zeta, the quantities of the
    paper's word-proportion figures for IMDB, spam and Amazon); ``theta`` is
    the dropout estimate ``max(0, 1 - zeta / eta)`` (section 3.3.1).  With
    ``models``, the weights of the binary S-LR and FLDA-L classifiers (on the
    scaled features) are added.

    Returns
    -------
    pandas.DataFrame, sorted by decreasing ``theta``.
    """
    eta = nonzero_rate(prepared.X_source)
    zeta = nonzero_rate(prepared.X_target)
    theta = np.zeros_like(eta)
    present = eta > 0
    theta[present] = np.maximum(0.0, 1.0 - zeta[present] / eta[present])
    frame = pd.DataFrame({"feature": list(prepared.feature_names), "theta": theta,
                          "source_nonzero": eta, "target_nonzero": zeta,
                          "difference": zeta - eta})
    for name in ("S-LR", "FLDA-L"):
        if models and name in models and models[name].coef_.shape[0] == 1:
            frame[f"{name} weight"] = models[name].coef_[0]
    order = np.lexsort((frame["feature"].to_numpy(dtype=str), -frame["theta"].to_numpy()))
    return frame.iloc[order].reset_index(drop=True)


def loss_of(name):
    """``"quadratic"`` or ``"logistic"`` for a name in :data:`MODEL_NAMES`."""
    return "quadratic" if name in (classifier_name("source", "quadratic"),
                                   classifier_name("flda", "quadratic")) else "logistic"
