"""Read a user's CSV file: decode, detect the delimiter, parse and validate.

Step 1 of "Your data" (step 2, matching a source and a target table, is
:mod:`explorer.data.tabular`).  :func:`parse_csv` decodes the bytes (UTF-8 with or without
a byte-order mark, UTF-16/32 with one, else Latin-1), detects the delimiter (comma,
semicolon, tab or pipe), reads the header and converts every column it can to numbers;
missing cells (empty, ``NA``, ``NaN``, ``?``, ...) become ``NaN``.  Every problem a user can
fix raises :class:`~explorer.errors.DataValidationError` (what is wrong and how to fix it);
what is allowed but worth knowing (Latin-1 text, ...) is returned as warnings.  No other
exception escapes :func:`parse_csv` for any bytes (``tests/app/test_tabular_fuzz.py``).
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
_NEED_ROWS = "Upload a CSV file with a header row and at least one data row."
_SAVE_UTF8 = "Save it again as CSV with UTF-8 encoding."
_FEWER_COLUMNS = "Keep the most frequent features (e.g. the most common words) and upload again."
_SUBSAMPLE = "Upload a random subsample of the rows or drop rare features."
_PLAIN_CSV = "Check that it is a plain CSV file with one header row."
_ADD_HEADER = "Add a first line naming the columns (e.g. word_1,word_2,...,label)."
_SEPARATOR_LINE = re.compile(r"[ \t]*\"?sep=(.?)\"?[ \t]*(\n|$)", re.IGNORECASE)


@dataclass(frozen=True)
class CsvTable:
    """A parsed CSV file.

    Attributes
    ----------
    name : str
        File name, used in every message about this file.
    frame : pandas.DataFrame
        One column per header name (unique, stripped of spaces): ``float64`` (``NaN`` for
        missing) where every cell is a number or missing, else strings (``NaN`` for missing).
    encoding, delimiter : str
        How the bytes were decoded (e.g. ``"UTF-8"``, ``"Latin-1"``) and split.
    warnings : tuple of str
        Things worth knowing that are not errors.
    row_numbers : ndarray of int or None
        The data-row number (1-based, header not counted) in the file of each row of
        ``frame`` when it is a subset of the file's rows (one file split by
        :func:`explorer.data.uci.split_by_missing`); ``None``: rows 1 to ``n_rows``.
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
    def headerless(self):
        """Every column name is a number: the first row was probably data, not a header."""
        return bool(self.columns) and _all_numbers(self.columns)

    def describe(self):
        """One line for the page, e.g. ``"569 rows x 31 columns, UTF-8, comma-separated"``."""
        return (
            f"{self.n_rows:,} rows x {len(self.columns):,} columns, {self.encoding}, "
            f"{DELIMITER_NAMES[self.delimiter]}-separated"
        )


def decode_text(raw, name="file"):
    """Decode the bytes of a text file: ``(text, encoding)``.

    UTF-32 and UTF-16 only when the file starts with their byte-order mark, then UTF-8
    with or without one (``"UTF-8 with BOM"``, ``"UTF-8"``), else ``"Latin-1"``, which
    decodes any bytes.  Binary files (NUL bytes, or a known signature such as an Excel
    workbook's) raise :class:`DataValidationError`, naming UTF-16 or UTF-32 when the NUL
    bytes are those of such text without a byte-order mark.
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
                message = f"{name} starts like a {encoding} text file but is not valid {encoding}."
                raise DataValidationError(message, _SAVE_UTF8) from None
    for signature, what in _BINARY_SIGNATURES:
        if raw.startswith(signature):
            raise DataValidationError(
                f"{name} is not a text CSV file: it looks like {what}.",
                "Open it in its program and export or 'Save as' CSV (comma-separated values).",
            )
    if b"\x00" in raw:
        if wide := _wide_encoding(raw):
            raise DataValidationError(
                f"{name} looks like {wide} text without a byte-order mark, which cannot be "
                "told apart from binary data reliably.",
                _SAVE_UTF8,
            )
        raise DataValidationError(
            f"{name} contains binary data (NUL bytes), so it is not a text CSV file.",
            "Export the data as CSV (comma-separated values) and upload that file.",
        )
    try:
        return raw.decode("utf-8-sig"), "UTF-8 with BOM" if raw.startswith(codecs.BOM_UTF8) else "UTF-8"
    except UnicodeDecodeError:
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
    """The delimiter (one of :data:`DELIMITER_NAMES`) of the first non-blank ``lines``.

    One giving every line the same number (>= 2) of fields wins, the one giving the most
    fields first; otherwise the one giving the header the most fields; a file with a
    single column gets ``","``.
    """
    keys = {}
    for delimiter in DELIMITER_NAMES:
        counts = [len(_split_fields(line, delimiter)) for line in lines[:_SNIFF_LINES]]
        if counts and counts[0] >= 2:
            consistent = len(set(counts)) == 1
            keys[delimiter] = (consistent, counts[0] if consistent else 0, counts[0])
    return max(keys, key=keys.get, default=",")


def _all_numbers(names):
    """Every name reads as a number (``float`` accepts it)."""
    try:
        [float(n) for n in names]
    except ValueError:
        return False
    return True


def is_numeric(series):
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _convert_column(series, delimiter):
    """``(column, decimal_comma_used)``: floats if every non-missing cell is a number,
    else stripped strings without bidirectional controls."""
    if is_numeric(series):
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
    """Read the bytes of an uploaded CSV file (``name``: for messages) into a :class:`CsvTable`.

    Raises
    ------
    DataValidationError
        Empty file, header only, binary content, more than :data:`MAX_FILE_BYTES` bytes,
        :data:`MAX_LINE_BREAKS` line breaks, :data:`MAX_ROWS` rows, :data:`MAX_COLUMNS`
        columns or :data:`MAX_CELLS` cells, duplicate or missing column names, rows with
        more fields than the header, broken quoting.  Non-numeric or infinite features are
        checked by :func:`explorer.data.tabular.prepare_domains`, which knows the label.
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


def _no_data_rows(name):
    return DataValidationError(
        f"{name} has a header row but no data rows.", "Add at least one row of values below the column names."
    )


def _header(lines, delimiter, name, notes):
    """The column names of the first line, checked (data rows, cells, the first row's
    width, distinct names); a note when every name is a number.  Names are in Unicode's
    composed form (NFC: "café" written decomposed, as macOS tools often do, is one name)
    without bidirectional controls (invisible, but they reverse the line a name is on)."""
    raw_header = [h.strip() for h in _split_fields(lines[0], delimiter)]
    header = [unicodedata.normalize("NFC", strip_bidi(h)).strip() for h in raw_header]
    if len(lines) == 1:
        raise _no_data_rows(name)
    n_cells = (len(lines) - 1) * len(header)
    if n_cells > MAX_CELLS:
        raise DataValidationError(
            f"{name} has {len(lines) - 1:,} rows x {len(header):,} columns = {n_cells:,} "
            f"values; the limit is {MAX_CELLS:,}.",
            _SUBSAMPLE,
        )
    n_first = len(_split_fields(lines[1], delimiter))
    if n_first > len(header):
        raise DataValidationError(
            f"The first data row of {name} has {n_first} values but the header names {len(header)} columns.",
            "Every row needs exactly one value per column: add the missing column name(s) "
            "or remove the extra delimiter at the end of the data rows.",
        )
    first = {}
    for raw, normal in zip(raw_header, header, strict=True):
        if first.setdefault(normal, raw) != raw:
            raise DataValidationError(
                f"{name} has two columns whose names look the same, {first[normal]!r} and {raw!r}: "
                "they differ only in invisible direction marks or in how accented letters are "
                "encoded (Unicode composed and decomposed forms), which this page reads as "
                "one name.",
                "Rename one of the two columns.",
            )
    duplicates = list(
        dict.fromkeys(c for c, again in zip(header, pd.Index(header).duplicated()) if c and again)
    )
    headerless = _all_numbers(header)
    if duplicates and headerless:
        raise DataValidationError(
            f"{name} has duplicate column names: {_name_list(duplicates)}. Every column name is a "
            "number, so the file probably has no header row and its first data row was read as column names.",
            _ADD_HEADER,
        )
    if duplicates:
        raise DataValidationError(
            f"{name} has duplicate column names: {_name_list(duplicates)}.",
            "Column names must be unique; rename or delete the repeated columns.",
        )
    if headerless:
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
                engine="c",
                low_memory=False,
            )
    except pd.errors.ParserError as error:
        message = str(error)
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
        if match:  # (the body starts with the newline that ends the header line)
            raise DataValidationError(
                f"Line {int(match.group(2)) + lines_before_body} of {name} has {match.group(3)} values "
                f"but the header names {len(header)} columns.",
                "Every row needs one value per column; check for an extra delimiter, or "
                "quote values that contain the delimiter.",
            ) from None
        if "EOF" in message or "quote" in message.lower():
            raise DataValidationError(
                f'{name} has an opening quote (") that is never closed.',
                "Close the quote or remove it; quotes must come in pairs around a value.",
            ) from None
        raise DataValidationError(
            f"{name} could not be read as a CSV table ({message}).", _PLAIN_CSV
        ) from None
    except (ValueError, UnicodeError, OverflowError, MemoryError, csv.Error) as error:
        raise DataValidationError(f"{name} could not be read as a CSV table ({error}).", _PLAIN_CSV) from None
    if frame.shape[0] == 0:  # (more rows than lines cannot be: MAX_ROWS holds)
        raise _no_data_rows(name)
    return frame


def _check_raw_shape(raw, name):
    """Refuse too many lines, columns or cells, counted in the raw bytes before parsing.

    The byte limit alone does not bound what parsing costs: one 40 MB line of commas is 40
    million columns, which cost 0.7-0.8 GB to split.  ``bytes.count`` allocates nothing:
    line breaks (``\n``, or ``\r`` of old Mac files) against :data:`MAX_LINE_BREAKS`, each
    candidate delimiter in the first line (the second after Excel's ``sep=`` line) against
    :data:`MAX_COLUMNS` and in the whole file against :data:`MAX_CELLS`.  Delimiters inside
    quotes count too (upper bounds; the exact counts are checked after parsing).
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
                _FEWER_COLUMNS,
            )
        cells = raw.count(delimiter.encode("ascii"))
        if cells > MAX_CELLS:
            raise DataValidationError(
                f"{name} holds more than {cells:,} values ({cells:,} {what}s); the limit is {MAX_CELLS:,}.",
                _SUBSAMPLE,
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


def _excel_separator_line(text, name, notes):
    """Drop Excel's ``sep=;`` first line; returns ``(text, delimiter or None)``."""
    match = _SEPARATOR_LINE.match(text)
    if not match:
        return text, None
    delimiter, line = match.group(1), match.group(0).strip()
    if delimiter not in DELIMITER_NAMES:
        raise DataValidationError(
            f"The first line of {name}, {line!r}, asks for the delimiter {delimiter!r}, which is not "
            "supported.",
            "Save the file with commas, semicolons, tabs or pipes between values.",
        )
    notes.append(
        f"{name}: skipped the first line {line!r} (a hint written by Excel) "
        f"and used the {DELIMITER_NAMES[delimiter]} it names as the delimiter."
    )
    return text[match.end() :], delimiter


def _check_header_line_breaks(text, first_line, delimiter, name):
    """Refuse a header whose quoted column name spans lines (the header is one line)."""
    if first_line.count('"') % 2 == 0:
        return
    try:
        record = next(
            csv.reader(io.StringIO(text[text.find(first_line) :]), delimiter=delimiter, strict=True), []
        )
    except csv.Error:
        return  # an unclosed quote: reported by the table reader
    broken = [field for field in record if "\n" in field]
    if broken:
        raise DataValidationError(
            f"A column name in the header of {name} contains a line break: {broken[0][:60]!r}.",
            "Remove line breaks from the column names (edit the header cells), then save as CSV again.",
        )


def _name_list(names, limit=5):
    names = [repr(str(n)) for n in names]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def guess_label_column(table):
    """A column named like a label (``label``, ``class``, ``target``, ``y``, ``outcome`` or
    ``diagnosis``, in any case), else the last one."""
    lower = {c.lower(): c for c in table.columns}
    for candidate in ("label", "class", "target", "y", "outcome", "diagnosis"):
        if candidate in lower:
            return lower[candidate]
    return table.columns[-1]
