"""Read a user's CSV file: decode, detect the delimiter, parse and validate.

The first of the three steps behind the "Your data" page (the others are
:mod:`explorer.data.tabular`, which matches a source and a target table
into FLDA's arrays, and :mod:`explorer.experiments.your_data`, which fits the
classifiers).  :func:`parse_csv` turns raw bytes (+ the file name) into a
:class:`CsvTable`: it decodes the text (UTF-8, UTF-8 with BOM, UTF-16 with BOM,
else Latin-1), detects the delimiter (comma, semicolon, tab or pipe), reads the
header and converts every column it can to numbers.  Missing cells (empty,
``NA``, ``NaN``, ``?``, ...) become ``NaN``.

Every problem a user can fix raises :class:`~explorer.errors.DataValidationError`
with a message saying what is wrong and a hint saying how to fix it; things
that are allowed but worth knowing (Latin-1 text, ...) are returned as warnings
instead.  No other exception escapes :func:`parse_csv` for any input bytes
(checked by a property-based test with generated malformed files).
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import unicodedata
import warnings as _warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explorer.errors import DataValidationError
from explorer.safe_text import BIDI_CONTROLS, strip_bidi

#: Largest file accepted (bytes).  Bigger files should be subsampled first.
MAX_FILE_BYTES = 50 * 1024 * 1024
#: Most data rows (samples) per file.
MAX_ROWS = 200_000
#: Most columns per file (features + label).
MAX_COLUMNS = 5_000
#: Most cells (rows x columns) per file, so that the fits fit in memory.
MAX_CELLS = 10_000_000
#: Most line breaks per file, blank lines included (twice :data:`MAX_ROWS`: room for
#: blank lines and line breaks inside quoted cells).
MAX_LINE_BREAKS = 2 * MAX_ROWS
#: Cell contents read as "missing" (compared case-insensitively, after stripping spaces).
MISSING_TOKENS = ("", "na", "n/a", "nan", "null", "none", "?", "missing")
#: Delimiters recognised, in order of preference, with their names for messages.
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) workbook"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "a gzip-compressed file"),
)
_NA_VALUES = sorted({v for t in MISSING_TOKENS for v in (t, t.upper(), t.title())} | {"NaN", "N/A", "#N/A"})
_SNIFF_LINES = 50
_EXAMPLES = 3


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
    row_numbers : ndarray of int or None
        The data-row number (1-based, header not counted) in the file of each row of
        ``frame``, when ``frame`` is a subset of the file's rows (one file split by
        :func:`explorer.data.uci.split_by_missing`); ``None`` means rows 1 to
        ``n_rows``, in order.
    """

    name: str
    frame: pd.DataFrame = field(repr=False)
    encoding: str
    delimiter: str
    warnings: tuple = ()
    row_numbers: np.ndarray | None = field(default=None, repr=False, compare=False)

    def file_rows(self):
        """The data-row number in the file of each row (see ``row_numbers``)."""
        if self.row_numbers is None:
            return np.arange(1, self.n_rows + 1)
        return np.asarray(self.row_numbers, dtype=np.int64)

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
        return (
            f"{self.n_rows:,} rows x {len(self.columns):,} columns, {self.encoding}, "
            f"{DELIMITER_NAMES[self.delimiter]}-separated"
        )


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
    for marks, encoding in (
        ((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "UTF-32"),
        ((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), "UTF-16"),
    ):
        if raw.startswith(marks):
            try:
                return raw.decode(encoding.lower()), encoding
            except UnicodeDecodeError:
                raise DataValidationError(
                    f"{name} starts like a {encoding} text file but is not valid {encoding}.",
                    "Save it again as CSV with UTF-8 encoding.",
                ) from None
    for signature, what in _BINARY_SIGNATURES:
        if raw.startswith(signature):
            raise DataValidationError(
                f"{name} is not a text CSV file: it looks like {what}.",
                "Open it in its program and export or 'Save as' CSV (comma-separated values).",
            )
    if b"\x00" in raw:
        wide = _wide_encoding(raw)
        if wide:
            raise DataValidationError(
                f"{name} looks like {wide} text without a byte-order mark, which cannot be "
                "told apart from binary data reliably.",
                "Save it again as CSV with UTF-8 encoding.",
            )
        raise DataValidationError(
            f"{name} contains binary data (NUL bytes), so it is not a text CSV file.",
            "Export the data as CSV (comma-separated values) and upload that file.",
        )
    if raw.startswith(codecs.BOM_UTF8):
        try:
            return raw[len(codecs.BOM_UTF8) :].decode("utf-8"), "UTF-8 with BOM"
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
    for encoding, width in (("utf-32-le", 4), ("utf-32-be", 4), ("utf-16-le", 2), ("utf-16-be", 2)):
        try:
            text = sample[: len(sample) - len(sample) % width].decode(encoding)
        except UnicodeDecodeError:
            continue
        if text and "\x00" not in text and all(c.isprintable() or c in "\r\n\t" for c in text):
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
        key = (consistent and counts[0] >= 2, counts[0] if consistent else 0, counts[0] if counts else 0)
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
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _convert_column(series, delimiter):
    """Float column if every non-missing cell is a number, else stripped strings
    (without bidirectional controls, :func:`explorer.safe_text.strip_bidi`).

    Returns ``(column, decimal_comma_used)``.
    """
    if _is_numeric(series):
        return series.astype(np.float64), False
    text = series.astype("str").str.replace(f"[{BIDI_CONTROLS}]", "", regex=True).str.strip()
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
    raw = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if len(raw) > MAX_FILE_BYTES:
        raise DataValidationError(
            f"{name} is {len(raw) / 2**20:.1f} MB; the limit is {MAX_FILE_BYTES / 2**20:.0f} MB.",
            "Upload a random subsample of the rows (or fewer columns).",
        )
    if not raw or raw.isspace():  # (raw.strip() would copy up to 50 MB)
        raise DataValidationError(f"{name} is empty.", _NEED_ROWS)
    _check_raw_shape(raw, name)
    text, encoding = decode_text(raw, name)
    notes = []
    if encoding == "Latin-1":
        notes.append(
            f"{name} is not valid UTF-8; it was read as Latin-1 (Western European). "
            "If column names look garbled, save the file as UTF-8."
        )
    text, delimiter = _excel_separator_line(text.replace("\r\n", "\n").replace("\r", "\n"), name, notes)
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        raise DataValidationError(f"{name} is empty (only blank lines).", _NEED_ROWS)
    if len(lines) - 1 > MAX_ROWS:
        raise DataValidationError(
            f"{name} has {len(lines) - 1:,} data rows; the limit is {MAX_ROWS:,}.",
            "Upload a random subsample of the rows.",
        )
    _check_line_widths(lines[:_SNIFF_LINES], delimiter or "".join(DELIMITER_NAMES), name)
    delimiter = delimiter or detect_delimiter(lines)
    _check_line_widths(lines, delimiter, name)
    _check_header_line_breaks(text, lines[0], delimiter, name)
    header = _header(lines, delimiter, name, notes)
    header_end = text.find(lines[0]) + len(lines[0])
    frame = _read_body(text[header_end:], delimiter, header, name, text[:header_end].count("\n"))
    columns, decimal_comma = {}, []
    for index, column_name in enumerate(header):
        converted, used_comma = _convert_column(frame[index], delimiter)
        if column_name == "":
            if not converted.isna().all():
                raise DataValidationError(
                    f"Column {index + 1} of {name} has values but no name.",
                    "Give every column a name in the header row.",
                )
            notes.append(
                f"{name}: ignored column {index + 1}, which has no name and no values "
                "(a delimiter at the end of each line)."
            )
            continue
        columns[column_name] = converted.reset_index(drop=True)
        if used_comma:
            decimal_comma.append(column_name)
    if not columns:
        raise DataValidationError(f"{name} has no named columns with values.", _NEED_ROWS)
    if decimal_comma:
        notes.append(f"{name}: read decimal commas as decimal points in {_name_list(decimal_comma)}.")
    return CsvTable(name, pd.DataFrame(columns), encoding, delimiter, tuple(notes))


_NEED_ROWS = "Upload a CSV file with a header row and at least one data row."


def _no_data_rows(name):
    return DataValidationError(
        f"{name} has a header row but no data rows.", "Add at least one row of values below the column names."
    )


def _header(lines, delimiter, name, notes):
    """The column names of the first line, checked (count, cells, the first row's width,
    distinct names); a note when every name is a number."""
    raw_header = [h.strip() for h in _split_fields(lines[0], delimiter)]
    # Names in Unicode's composed form (NFC): "café" typed on one system and written
    # decomposed (NFD, as macOS tools often do) on another is one name.  Bidirectional
    # controls (invisible, but they reverse the line a name is shown on) are dropped.
    header = [unicodedata.normalize("NFC", strip_bidi(h)).strip() for h in raw_header]
    if len(header) > MAX_COLUMNS:
        raise DataValidationError(
            f"{name} has {len(header):,} columns; the limit is {MAX_COLUMNS:,}.",
            "Keep the most frequent features (e.g. the most common words) and upload again.",
        )
    if len(lines) == 1:
        raise _no_data_rows(name)
    n_cells = (len(lines) - 1) * len(header)
    if n_cells > MAX_CELLS:
        raise DataValidationError(
            f"{name} has {len(lines) - 1:,} rows x {len(header):,} columns = {n_cells:,} "
            f"values; the limit is {MAX_CELLS:,}.",
            "Upload a random subsample of the rows or drop rare features.",
        )
    n_first = len(_split_fields(lines[1], delimiter))
    if n_first > len(header):
        raise DataValidationError(
            f"The first data row of {name} has {n_first} values but the header names {len(header)} columns.",
            "Every row needs exactly one value per column: add the missing column name(s) "
            "or remove the extra delimiter at the end of the data rows.",
        )
    _check_normalised_names(raw_header, header, name)
    _check_column_names(header, name)
    if all(_looks_numeric(h) for h in header):
        notes.append(
            f"Every column name in {name} is a number, so the first row may be data rather "
            "than a header. The first row is always read as column names."
        )
    return header


def _read_body(body, delimiter, header, name, lines_before_body):
    """The rows below the header as a frame of text cells (columns ``0..n-1``)."""
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            frame = pd.read_csv(
                io.StringIO(body),
                sep=delimiter,
                header=None,
                names=range(len(header)),
                index_col=False,
                skipinitialspace=True,
                keep_default_na=False,
                na_values=_NA_VALUES,
                skip_blank_lines=True,
                engine="c",
                low_memory=False,
                quotechar='"',
            )
    except pd.errors.ParserError as error:
        raise DataValidationError(
            *_parser_message(str(error), name, len(header), lines_before_body)
        ) from None
    except (ValueError, UnicodeError, OverflowError, MemoryError, csv.Error) as error:
        raise DataValidationError(
            f"{name} could not be read as a CSV table ({error}).",
            "Check that it is a plain CSV file with one header row.",
        ) from None
    if frame.shape[0] == 0:  # (more rows than lines cannot be: MAX_ROWS holds)
        raise _no_data_rows(name)
    return frame


def _check_raw_shape(raw, name):
    """Refuse too many lines, columns or cells, counted in the raw bytes before parsing.

    The byte limit alone does not bound what parsing costs: one 40 MB line of commas
    is 40 million columns, which cost 0.7-0.8 GB to split before the column limit
    was checked.  ``bytes.count`` allocates nothing, so these bounds cost a few passes
    over the bytes: line breaks (``\n`` or, for old Mac files, ``\r``) against
    :data:`MAX_LINE_BREAKS`; each candidate delimiter in the first line (the second
    after Excel's ``sep=`` line) against :data:`MAX_COLUMNS`; and in the whole file
    against :data:`MAX_CELLS`.  A delimiter inside quotes counts too, so these are
    upper bounds (the exact counts are checked again after parsing); in UTF-16/32 a
    delimiter's first byte is counted, which only adds a few.
    """
    breaks = max(raw.count(b"\n"), raw.count(b"\r"))
    if breaks > MAX_LINE_BREAKS:
        raise DataValidationError(
            f"{name} has {breaks:,} line breaks (blank lines included); the limit is "
            f"{MAX_LINE_BREAKS:,} for at most {MAX_ROWS:,} data rows.",
            "Upload a random subsample of the rows and remove blank lines.",
        )
    line_end = re.compile(rb"\r|\n")
    end = line_end.search(raw)
    start, stop = 0, end.start() if end else len(raw)  # the first line (never copied)
    if end and _SEPARATOR_LINE.match(raw[: min(stop, 20)].decode("latin-1").lstrip("\xef\xbb\xbf")):
        after = line_end.search(raw, end.end())
        start, stop = end.end(), after.start() if after else len(raw)
    for delimiter, what in DELIMITER_NAMES.items():
        columns = raw.count(delimiter.encode("ascii"), start, stop) + 1
        if columns > MAX_COLUMNS:
            raise DataValidationError(
                f"{name} has {columns:,} columns ({columns - 1:,} {what}s in its first "
                f"line); the limit is {MAX_COLUMNS:,}.",
                "Keep the most frequent features (e.g. the most common words) and upload again.",
            )
        cells = raw.count(delimiter.encode("ascii"))
        if cells > MAX_CELLS:
            raise DataValidationError(
                f"{name} holds more than {cells:,} values ({cells:,} {what}s); the limit is {MAX_CELLS:,}.",
                "Upload a random subsample of the rows or drop rare features.",
            )


def _check_line_widths(lines, delimiters, name):
    """Refuse a line with more than :data:`MAX_COLUMNS` of any of ``delimiters`` before it is
    split (``str.count`` allocates nothing; splitting a line of 5 million commas into
    fields took ten times its size).  Delimiters in quoted text count too."""
    for delimiter in delimiters:
        widest = max(range(len(lines)), key=lambda i: lines[i].count(delimiter))
        columns = lines[widest].count(delimiter) + 1
        if columns > MAX_COLUMNS:
            raise DataValidationError(
                f"Line {widest + 1} of {name} (blank lines not counted) has {columns:,} "
                f"values ({columns - 1:,} {DELIMITER_NAMES[delimiter]}s, in quoted text "
                f"too); the limit is {MAX_COLUMNS:,} columns.",
                "Every row needs one value per column: fix or remove that line, or keep fewer columns.",
            )


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
            "Save the file with commas, semicolons, tabs or pipes between values.",
        )
    file_warnings.append(
        f"{name}: skipped the first line {match.group(0).strip()!r} (a hint written by Excel) "
        f"and used the {DELIMITER_NAMES[delimiter]} it names as the delimiter."
    )
    return text[match.end() :], delimiter


def _check_header_line_breaks(text, first_line, delimiter, name):
    """Refuse a header whose quoted column name spans lines (the header is one line)."""
    if first_line.count('"') % 2 == 0:
        return
    start = text.find(first_line)
    try:
        record = next(csv.reader(io.StringIO(text[start:]), delimiter=delimiter, strict=True), [])
    except csv.Error:
        return  # an unclosed quote: reported by the table reader
    broken = [field for field in record if "\n" in field]
    if broken:
        raise DataValidationError(
            f"A column name in the header of {name} contains a line break: {broken[0][:60]!r}.",
            "Remove line breaks from the column names (edit the header cells), then save as CSV again.",
        )


def _check_normalised_names(raw_header, header, name):
    """Refuse two distinct names that are one name in Unicode's composed form (NFC)."""
    first = {}
    for raw, normal in zip(raw_header, header, strict=True):
        other = first.setdefault(normal, raw)
        if other != raw:
            raise DataValidationError(
                f"{name} has two columns whose names look the same, {other!r} and {raw!r}: "
                "they differ only in invisible direction marks or in how accented letters are "
                "encoded (Unicode composed and decomposed forms), which this page reads as "
                "one name.",
                "Rename one of the two columns.",
            )


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
            + (
                " Every column name is a number, so the file probably has no header row "
                "and its first data row was read as column names."
                if headerless
                else ""
            ),
            (
                "Add a first line naming the columns (e.g. word_1,word_2,...,label)."
                if headerless
                else "Column names must be unique; rename or delete the repeated columns."
            ),
        )


def _parser_message(message, name, n_header, lines_before_body):
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if match:
        # The body starts with the newline that ends the header line.
        line = int(match.group(2)) + lines_before_body
        return (
            f"Line {line} of {name} has {match.group(3)} values but the header names {n_header} columns.",
            "Every row needs one value per column; check for an extra delimiter, or "
            "quote values that contain the delimiter.",
        )
    if "EOF" in message or "quote" in message.lower():
        return (
            f'{name} has an opening quote (") that is never closed.',
            "Close the quote or remove it; quotes must come in pairs around a value.",
        )
    return (
        f"{name} could not be read as a CSV table ({message}).",
        "Check that it is a plain CSV file with one header row.",
    )


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
