"""Lists of numbers typed into a page: one tokenizer and one parser for all of them.

``"0.7, 0.7"``, ``"2;6 1e-1"`` and ``"2 5 10"`` are all lists: entries are
separated by commas, semicolons or white space (:func:`split_values`), and every
entry must be a plain decimal number (:func:`parse_numbers`; ``nan``, ``inf``
and words are rejected with a message naming the entry).  The per-feature
settings of the synthetic domains (:func:`parse_per_feature`) and the sample
sizes of the learning curves
(:func:`explorer.experiments.learning_curves.learning_curve_config`) both use it.
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
        Message raised for the first entry that is not a plain decimal number;
        ``{token}`` in it is replaced by that entry (``{token!r}`` quoted).

    Raises
    ------
    ValueError
    """
    tokens = split_values(text)
    if not tokens:
        raise ValueError(empty)
    bad = [t for t in tokens if not _NUMBER.match(t)]
    if bad:
        raise ValueError(not_a_number.format(token=bad[0]))
    return [float(t) for t in tokens]


def parse_per_feature(text, n_features, name, lo=None, hi=None):
    """Parse ``"0.7, 0.7"`` into one float per feature.

    Values are separated by commas, semicolons or spaces. Fewer values than
    features are allowed: the last value is repeated (so ``"0.5"`` means 0.5
    for every feature and ``"0.5, 0"`` with 5 features means
    ``0.5, 0, 0, 0, 0``).

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
        With a message naming the offending entry and how to fix it.
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
