"""Validate settings read from a shared link (the URL query string).

Invalid values (``NaN``, ``1e999``, wrong types, over-long text, not an option) are
ignored, numbers out of bounds corrected and reversed ranges put in order, each with a
note.  :func:`encode_url_value` and :func:`validate_url_value` are the one writer/reader
pair.  Pure Python, no streamlit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

#: Longest text value taken from a URL (characters).
MAX_URL_TEXT = 500
#: Longest raw value decoded at all (characters).
MAX_URL_VALUE = 2000
#: Most ``[``/``{`` in a value decoded (settings are flat lists, one bracket); counted
#: before ``json.loads``, whose recursion a deeply nested value would exhaust.
MAX_URL_BRACKETS = 4
#: Whole numbers with more digits than this are shown in exponent form.
_SHOWN_DIGITS = 15


class _NonFinite(ValueError):
    pass


def _refuse_constant(name):
    raise _NonFinite(name)


@dataclass(frozen=True)
class UrlValue:
    """The outcome of :func:`validate_url_value`.

    Attributes
    ----------
    value : object
        The accepted value (coerced to the default's type), or the default.
    accepted : bool
        Whether the URL's value was used.
    note : str or None
        Why the URL's value was ignored or corrected, naming the parameter; None
        if it was used as written.
    """

    value: Any
    accepted: bool
    note: str | None = None


def _check_raw(raw):
    """``ValueError`` for a value too long or with too many brackets to read at all."""
    if not isinstance(raw, str):
        raise ValueError("it is not text")
    if len(raw) > MAX_URL_VALUE:
        raise ValueError(f"it is longer than {MAX_URL_VALUE} characters")
    if raw.count("[") + raw.count("{") > MAX_URL_BRACKETS:
        raise ValueError(f"it is nested too deeply (more than {MAX_URL_BRACKETS} brackets)")


def encode_url_value(value):
    """The query-string text of a setting's value, read back by :func:`validate_url_value`.

    Text as it is (read back undecoded: ``"0.3"`` stays text); anything else as JSON.

    Examples
    --------
    >>> encode_url_value("0.5, 0"), encode_url_value((-0.5, 0.5)), encode_url_value(True)
    ('0.5, 0', '[-0.5, 0.5]', 'true')
    """
    if isinstance(value, str):
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def decode_url_value(raw):
    """Decode one query-string value: JSON if it parses, else the plain text.

    ``ValueError`` for non-finite numbers and values over :data:`MAX_URL_VALUE` characters
    or :data:`MAX_URL_BRACKETS` brackets.

    Examples
    --------
    >>> decode_url_value("[0.1, 2]"), decode_url_value("poisson")
    ([0.1, 2], 'poisson')
    """
    _check_raw(raw)
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except _NonFinite as error:
        raise ValueError(f"{error} is not a finite number") from None
    except RecursionError:  # not reachable within the limits above; never a traceback
        raise ValueError(f"it is nested too deeply (more than {MAX_URL_BRACKETS} brackets)") from None
    except (TypeError, ValueError):
        return raw  # plain strings need no quotes in a URL
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("a number is too large for a 64-bit float (not a finite number)")
    return value


def _number(value):
    """A number shown compactly: whole numbers exact up to 15 digits, else ``1.00e+308``."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = str(abs(value))  # JSON integers have at most 4,300 digits
        if len(digits) <= _SHOWN_DIGITS:
            return str(value)
        return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:3]}e+{len(digits) - 1}"
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def _describe(value):
    if isinstance(value, Real) and not isinstance(value, bool):
        return _number(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _problem(value, default, options):
    """Why ``value`` is not a valid value of a setting, or None."""
    if options is not None:
        values = value if isinstance(default, (list, tuple)) else [value]
        if not isinstance(values, (list, tuple)):
            return "it is not a list"
        if not values and default:
            return "the list is empty (choose at least one value)"
        bad = [v for v in values if (isinstance(v, float) and not math.isfinite(v)) or v not in options]
        if bad:
            return f"{_describe(bad[0])} is not one of the options"
        return None
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "it is not true or false"
    if isinstance(default, str):
        if not isinstance(value, str):
            return "it is not text"
        return None if len(value) <= MAX_URL_TEXT else f"it is longer than {MAX_URL_TEXT} characters"
    if isinstance(default, Real):
        values = [value]
    elif isinstance(default, (list, tuple)):
        if not isinstance(value, list) or len(value) != len(default):
            return f"it is not a list of {len(default)} numbers"
        values = value
    else:
        return "this setting cannot be set from a link"
    for v in values:
        if isinstance(v, bool) or not isinstance(v, Real):
            return f"{_describe(v)} is not a number"
        if isinstance(v, float) and not math.isfinite(v):
            return f"{_describe(v)} is not a finite number"
        if isinstance(v, int) and v.bit_length() > 1000 and not isinstance(default, int):
            return f"{_describe(v)} is too large for a 64-bit float (not a finite number)"
        if (
            isinstance(default, int)
            and not isinstance(default, bool)
            and isinstance(v, float)
            and not v.is_integer()
        ):
            return f"{_describe(v)} is not a whole number"
    return None


def _out_of_range(v, lo, hi):
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        return (
            f"{_describe(v)} is outside [{_number(lo)}, {_number(hi)}]"
            if lo is not None and hi is not None
            else f"{_describe(v)} is out of range"
        )
    return None


def _correct(value, default, options, lo, hi, ordered):
    """``value`` (of the right type) with numbers moved into ``[lo, hi]`` and, if
    ``ordered``, a list sorted; and why, or None when nothing was changed."""
    if options is not None or isinstance(default, (bool, str)):
        return value, None
    values = list(value) if isinstance(value, list) else [value]
    reasons = [reason for v in values if (reason := _out_of_range(v, lo, hi))]
    fixed = [min(max(v, lo if lo is not None else v), hi if hi is not None else v) for v in values]
    if ordered and fixed != sorted(fixed):
        reasons.append(f"{_describe_list(values)} is in decreasing order")
        fixed = sorted(fixed)
    if not reasons:
        return value, None
    result = fixed if isinstance(value, list) else fixed[0]
    shown = _describe_list(fixed) if isinstance(value, list) else _describe(fixed[0])
    return result, f"{reasons[0]}; {shown} is used"


def _describe_list(values):
    return "[" + ", ".join(_describe(v) for v in values) + "]"


def _coerce(value, default):
    if isinstance(default, tuple):
        return tuple(value)
    if isinstance(default, int) and not isinstance(default, bool):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


def validate_url_value(name, raw, default, options=None, lo=None, hi=None, ordered=False):
    """Check one URL parameter against a setting's type, options and bounds.

    Parameters
    ----------
    name : str
        The parameter's name in the URL (used in the note).
    raw : str or None
        The query-string value (None: absent, the default is used silently).
    default : object
        The setting's default; its type decides what is valid (bool, int,
        float, str, or a list/tuple of numbers of the same length).
    options : sequence, optional
        The allowed values (every element, for list settings).
    lo, hi : float, optional
        Bounds for numbers (inclusive).
    ordered : bool, optional
        The value is a range (a list read in increasing order).

    Returns
    -------
    UrlValue

    Examples
    --------
    >>> validate_url_value("theta_1", "0.5", 0.0, lo=0.0, hi=1.0).value
    0.5
    >>> validate_url_value("theta_1", "NaN", 0.0, lo=0.0, hi=1.0).note
    "Ignored the link's value of 'theta_1': NaN is not a finite number."
    >>> validate_url_value("r", "[0.5, -2]", (-0.5, 0.5), lo=-1.0, hi=1.0, ordered=True).value
    (-1.0, 0.5)
    """
    if raw is None:
        return UrlValue(default, False)
    try:
        if isinstance(default, str):  # text as written (encode_url_value): "0.3" is text
            _check_raw(raw)
            decoded = raw
            if options is not None and raw not in options:
                quoted = decode_url_value(raw)  # an option in JSON quotes
                decoded = quoted if isinstance(quoted, str) else raw
        else:
            decoded = decode_url_value(raw)
    except ValueError as error:
        problem = str(error)
    else:
        problem = _problem(decoded, default, options)
    if problem is not None:
        return UrlValue(default, False, f"Ignored the link's value of {name!r}: {problem}.")
    value, correction = _correct(decoded, default, options, lo, hi, ordered)
    note = None if correction is None else f"Corrected the link's value of {name!r}: {correction}."
    return UrlValue(_coerce(value, default), True, note)
