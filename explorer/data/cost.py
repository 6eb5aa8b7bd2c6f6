"""What one upload may cost to fit: a bound in rows x features x classes.

One evaluation of the FLDA objectives (eq. 11 and its Taylor-approximated
logistic form, section 3.4) touches every value of the source data once per
output: the work of one L-BFGS iteration grows as ``rows x features x
outputs`` (one output for two classes, one per class otherwise), and a fit
may take up to ``max_iter`` (default 1,000) iterations.  On a shared server
a single upload must not tie up a core for an hour, so the readers refuse
uploads above :data:`MAX_FIT_COST` and pages warn before fits above
:data:`LONG_FIT_COST`.

The thresholds were set from one measurement (``benchmarks/bench_core.py``
style, 2 shared cores): a multinomial FLDA-L fit on 20,000 x 100 values in
10 classes (cost 2e7) took about 45 ms per iteration and ran to its 1,000
iteration cap.
"""

from __future__ import annotations

from explorer.errors import DataValidationError

#: Largest ``rows x features x outputs`` accepted for one upload.
MAX_FIT_COST = 50_000_000
#: From this cost on, pages say before fitting that it may take a while.
LONG_FIT_COST = 5_000_000


def fit_cost(n_rows, n_features, n_classes):
    """``n_rows x n_features x outputs`` with one output for two classes, else one per class.

    Examples
    --------
    >>> fit_cost(1000, 20, 2), fit_cost(1000, 20, 10)
    (20000, 200000)
    """
    outputs = 1 if int(n_classes) <= 2 else int(n_classes)
    return int(n_rows) * int(n_features) * outputs


def _describe(n_rows, n_features, n_classes):
    return (
        f"{int(n_rows):,} rows x {int(n_features):,} features x "
        f"{1 if int(n_classes) <= 2 else int(n_classes)} "
        f"{'output' if int(n_classes) <= 2 else 'classes'} = "
        f"{fit_cost(n_rows, n_features, n_classes):,}"
    )


def check_fit_cost(n_rows, n_features, n_classes, name):
    """Refuse an upload whose fit would cost more than :data:`MAX_FIT_COST`.

    Parameters
    ----------
    n_rows, n_features, n_classes : int
        Of the data a classifier is trained on.
    name : str
        File name for the message.

    Raises
    ------
    DataValidationError
    """
    cost = fit_cost(n_rows, n_features, n_classes)
    if cost > MAX_FIT_COST:
        raise DataValidationError(
            f"Fitting on {name} would be too slow for a shared server: "
            f"{_describe(n_rows, n_features, n_classes)} values per pass; the limit is "
            f"{MAX_FIT_COST:,}.",
            "Upload a random subsample of the rows, keep fewer features, or merge classes.",
        )


def fit_cost_note(n_rows, n_features, n_classes, n_fits=1):
    """A sentence to show *before* a fit above :data:`LONG_FIT_COST`, else None.

    Parameters
    ----------
    n_rows, n_features, n_classes : int
    n_fits : int, default=1
        How many classifiers the page is about to fit.
    """
    cost = fit_cost(n_rows, n_features, n_classes)
    if cost < LONG_FIT_COST:
        return None
    fits = f"each of the {int(n_fits)} fits" if n_fits > 1 else "the fit"
    return (
        f"This is a large problem ({_describe(n_rows, n_features, n_classes)} values "
        f"per pass over the data; every solver iteration makes at least one pass), so "
        f"{fits} may take minutes. A random subsample of the rows is much faster."
    )
