"""Lists of numbers typed into a page: one tokenizer and one parser for all of them.

``"0.7, 0.7"``, ``"2;6 1e-1"`` and ``"2 5 10"`` are all lists (:func:`split_values`) of
plain decimal numbers (:func:`parse_numbers`: ``nan``, ``inf`` and words are refused,
naming the entry), used by the synthetic domains' per-feature settings
(:func:`parse_per_feature`) and the learning curves' sample sizes.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def split_values(text):
    """The entries of a typed list: separated by commas, semicolons or white space."""
    return [token for token in re.split(r"[,;\s]+", str(text).strip()) if token]


def parse_numbers(text, empty, not_a_number):
    """The numbers of a typed list, as floats, in the order typed.

    Parameters
    ----------
    text : str
    empty : str
        Message of the ``ValueError`` raised when ``text`` holds no entry.
    not_a_number : str
        Message of the one raised for the first entry that is not a plain decimal number,
        formatted with ``token=`` that entry.
    """
    tokens = split_values(text)
    if not tokens:
        raise ValueError(empty)
    bad = [t for t in tokens if not _NUMBER.match(t)]
    if bad:
        raise ValueError(not_a_number.format(token=bad[0]))
    return [float(t) for t in tokens]


def parse_per_feature(text, n_features, name, lo=None, hi=None):
    """Parse ``"0.7, 0.7"`` into one float per feature; with fewer values than features
    the last is repeated (``"0.5, 0"`` with 5 features is ``0.5, 0, 0, 0, 0``).

    Parameters
    ----------
    text : str
    n_features : int
    name : str
        What the values are, used in error messages (e.g. ``"theta"``).
    lo, hi : float, optional
        Inclusive bounds every value must respect.

    Returns
    -------
    tuple of float, length ``n_features``

    Raises
    ------
    ValueError
        Naming the offending entry and how to fix it.
    """
    values = parse_numbers(
        text,
        empty=f"{name}: no values given. Type one number per feature, separated by commas, e.g. 0.7, 0.7.",
        not_a_number=f"{name}: {{token!r}} is not a number. Use digits with a decimal point, "
        "separated by commas, e.g. 0.7, 0.7.",
    )
    if len(values) > n_features:
        raise ValueError(
            f"{name}: {len(values)} values given but there are only "
            f"{n_features} features. Remove {len(values) - n_features} "
            "value(s) or increase the number of features."
        )
    for position, value in enumerate(values, start=1):
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = (
                f"between {lo:g} and {hi:g}"
                if lo is not None and hi is not None
                else (f"at least {lo:g}" if lo is not None else f"at most {hi:g}")
            )
            raise ValueError(f"{name}: value {position} ({value:g}) must be {bounds}.")
    values += [values[-1]] * (n_features - len(values))
    return tuple(values)


def format_values(values):
    """Inverse of :func:`parse_per_feature` for display: ``(0.7, 0.7) -> "0.7, 0.7"``."""
    return ", ".join(f"{v:g}" for v in values)


def truncate_per_feature(text, n_features):
    """Keep the first ``n_features`` comma-separated values of ``text`` (others dropped)."""
    values = split_values(text)
    return ", ".join(values[:n_features]) if len(values) > n_features else text
