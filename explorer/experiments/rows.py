"""Equal rows of a data set, grouped: what lattice data (section 4.1) make cheap.

The Bernoulli and Poisson domains of section 4.1 have a handful to a few hundred
distinct rows among 100,000.  :func:`distinct_rows` finds them with their counts;
the synthetic experiments fit on them weighted by the counts
(:func:`explorer.experiments.synthetic.fit_linear`), count the lattice points
of the figures (:func:`~explorer.experiments.synthetic.lattice_counts`) and
score thousands of classifiers on them
(:func:`explorer.experiments.scoring.lattice_error_rates`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Rows probed first by :func:`distinct_rows` with ``max_share < 1``: when more than
#: half of these are distinct (continuous data), it gives up after a 0.2 ms look
#: instead of hashing every column (16 ms at 100,000 rows).
_PROBE_ROWS = 1_000


def _column_codes(column):
    """``(codes, k)``: ``column`` as integers ``0 .. k-1``, equal codes for equal values."""
    if np.issubdtype(column.dtype, np.number):
        low, high = column.min(initial=0.0), column.max(initial=0.0)
        if (
            np.isfinite(low)
            and np.isfinite(high)
            and high - low < len(column)
            and np.array_equal(column, np.floor(column))
        ):
            return (column - low).astype(np.int64), int(high - low) + 1  # integer lattice
    codes, uniques = pd.factorize(column, use_na_sentinel=False)  # NaN is one value
    return codes.astype(np.int64), len(uniques)


def distinct_rows(X, y, max_share=1.0):
    """The distinct rows of ``[X, y]`` and how often each occurs, or ``None``.

    Fitting on the distinct rows with their counts as ``sample_weight`` minimises
    exactly the same (mean) objective as fitting on all rows
    (:meth:`flda_core.classifier.FLDAClassifier.fit`); lattice data -- the
    Bernoulli and Poisson domains of section 4.1 -- have a handful to a few
    hundred distinct rows among 100,000.  Rows are grouped by hashing one column
    at a time (integer-valued columns by their value), never by sorting rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    max_share : float, default=1.0
        Give up (return ``None``) as soon as it is clear that there are more than
        ``max_share * n_samples`` distinct rows.

    Returns
    -------
    (X_distinct, y_distinct, counts) or None
        One row per distinct ``(x, y)`` pair; ``counts`` (int) sums to ``n_samples``.
    """
    X, y = np.asarray(X), np.asarray(y)
    n = len(y)
    limit = max_share * n
    if n == 0 or X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
        return None
    if (
        max_share < 1.0
        and n > 2 * _PROBE_ROWS
        and distinct_rows(X[:_PROBE_ROWS], y[:_PROBE_ROWS], 0.5) is None
    ):
        return None  # the first rows are already mostly distinct: not lattice data
    codes, size = np.zeros(n, dtype=np.int64), 1
    for column in [*X.T, y]:
        column_codes, k = _column_codes(column)
        if k > limit:
            return None
        if size * k > 4 * n:  # keep codes dense: renumber the groups so far
            codes, groups = pd.factorize(codes)
            size = len(groups)
            if size > limit:
                return None
        codes = codes * k + column_codes
        size *= k
    counts = np.bincount(codes, minlength=size)
    present = np.flatnonzero(counts)
    if len(present) > limit:
        return None
    representative = np.empty(size, dtype=np.int64)
    representative[codes] = np.arange(n)  # any row of a group: its rows are identical
    rows = representative[present]
    return X[rows], y[rows], counts[present]
