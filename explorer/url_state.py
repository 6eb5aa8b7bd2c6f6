"""Validate settings read from a shared link (the URL query string).

Pages mirror their settings in the URL so that a configuration can be shared.
A link can be edited by hand, so every value is checked before it reaches a
widget or a fit: JSON's ``NaN`` and ``Infinity``, numbers that overflow to
infinity (``1e999``), values outside a setting's bounds or options, wrong
types and over-long text are *ignored* (the setting keeps its default) and a
note naming the parameter says so.  Pure Python, no streamlit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

__all__ = [
    "MAX_URL_TEXT",
    "MAX_URL_VALUE",
    "MAX_URL_NESTING",
    "UrlValue",
    "decode_url_value",
    "validate_url_value",
    "validate_url_values",
]

#: Longest text value taken from a URL (characters).
MAX_URL_TEXT = 500
#: Longest raw value decoded at all (characters): settings are numbers, short
#: lists of numbers or text of at most :data:`MAX_URL_TEXT` characters.
MAX_URL_VALUE = 2000
#: Deepest nesting of ``[``/``{`` decoded (settings are flat lists, depth 1);
#: checked before ``json.loads``, whose recursion a deeper value would exhaust.
MAX_URL_NESTING = 4
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
        Why the URL's value was ignored, naming the parameter; None if accepted.
    """

    value: Any
    accepted: bool
    note: str | None = None


def _nesting(text):
    """The deepest nesting of JSON arrays/objects in ``text`` (brackets in strings ignored)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def decode_url_value(raw):
    """Decode one query-string value: JSON if it parses, else the plain text.

    ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's JSON reader would
    accept) raise ``ValueError``, as do numbers too large for a float, values
    longer than :data:`MAX_URL_VALUE` characters and values nested deeper than
    :data:`MAX_URL_NESTING` (both checked before parsing).

    Examples
    --------
    >>> decode_url_value("[0.1, 2]"), decode_url_value("poisson")
    ([0.1, 2], 'poisson')
    """
    if not isinstance(raw, str):
        raise ValueError("it is not text")
    if len(raw) > MAX_URL_VALUE:
        raise ValueError(f"it is longer than {MAX_URL_VALUE} characters")
    if _nesting(raw) > MAX_URL_NESTING:
        raise ValueError(f"it is nested more than {MAX_URL_NESTING} levels deep")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except _NonFinite as error:
        raise ValueError(f"{error} is not a finite number") from None
    except RecursionError:  # not reachable within the limits above; never a traceback
        raise ValueError(f"it is nested more than {MAX_URL_NESTING} levels deep") from None
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


def _problem(value, default, options, lo, hi):
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
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return (
                f"{_describe(v)} is outside [{_number(lo)}, {_number(hi)}]"
                if lo is not None and hi is not None
                else f"{_describe(v)} is out of range"
            )
    return None


def _coerce(value, default):
    if isinstance(default, tuple):
        return tuple(value)
    if isinstance(default, int) and not isinstance(default, bool):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


def validate_url_value(name, raw, default, options=None, lo=None, hi=None):
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

    Returns
    -------
    UrlValue

    Examples
    --------
    >>> validate_url_value("theta_1", "0.5", 0.0, lo=0.0, hi=1.0).value
    0.5
    >>> validate_url_value("theta_1", "NaN", 0.0, lo=0.0, hi=1.0).note
    "Ignored the link's value of 'theta_1': NaN is not a finite number."
    """
    if raw is None:
        return UrlValue(default, False)
    try:
        decoded = decode_url_value(raw)
    except ValueError as error:
        problem = str(error)
    else:
        problem = _problem(decoded, default, options, lo, hi)
    if problem is None:
        return UrlValue(_coerce(decoded, default), True)
    return UrlValue(default, False, f"Ignored the link's value of {name!r}: {problem}.")


def validate_url_values(settings, query):
    """:func:`validate_url_value` for several settings at once.

    Parameters
    ----------
    settings : iterable of tuple ``(name, default, options, lo, hi)``
    query : mapping of str to str
        The query parameters.

    Returns
    -------
    values : dict of name -> value
    notes : list of str
    """
    values, notes = {}, []
    for name, default, options, lo, hi in settings:
        outcome = validate_url_value(name, query.get(name), default, options, lo, hi)
        values[name] = outcome.value
        if outcome.note:
            notes.append(outcome.note)
    return values, notes
