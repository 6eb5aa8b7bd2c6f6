"""The one definition of a classification error used by every experiment and page.

Count and binary data sit on a lattice, and a fitted boundary often passes *exactly*
through lattice points (section 4.1.1: the S-LS boundary ``x1 + x2 = 1`` of Figure 1),
where the score ``s(x) = w . x + b`` is 0 up to rounding noise of either sign; a strict
``s > 0`` would move thousands of samples across the boundary at random.  So, for two
classes, a sample goes to the *second* class only when
``s(x) > TIE_RTOL * (|x| . |w| + |b|)`` (the largest rounding error of the score); a tie
counts as the first class.  For more classes the largest score wins, ties to the first
(NumPy's ``argmax``).  The **error** is the fraction of samples predicted wrongly; every
function here applies this same rule.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np

from explorer.experiments.rows import distinct_rows

#: Scores this close to 0 (relative to ``|x| . |w| + |b|``) are ties (first class).
TIE_RTOL = 1e-9


def positive_side(scores, scale):
    """Which scores say "second class": ``scores > TIE_RTOL * scale`` (ties are not)."""
    return np.asarray(scores) > TIE_RTOL * np.asarray(scale)


def _binary_decisions(coef, intercept, X):
    coef = np.asarray(coef, dtype=np.float64).ravel()
    intercept = float(intercept)
    scores = np.asarray(X @ coef).ravel() + intercept
    scale = np.asarray(abs(X) @ np.abs(coef)).ravel() + abs(intercept)
    return positive_side(scores, scale)


def wrong_per_sample(coef, intercept, X, y):
    """0/1 (float) per row: whether :func:`binary_error`'s rule gets the row wrong."""
    return (_binary_decisions(coef, intercept, X).astype(int) != np.asarray(y)).astype(np.float64)


def binary_error(coef, intercept, X, y):
    """Error rate of ``sign(X @ coef + intercept)`` on labels ``y`` in {0, 1}, ties as 0.

    Parameters
    ----------
    coef : array-like of shape (n_features,)
        Positive scores mean class 1.
    intercept : float
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), values 0 and 1

    Returns
    -------
    float
    """
    return float(np.mean(wrong_per_sample(coef, intercept, X, y)))


def lattice_error_rates(coef, intercept, X, y, chunk=256):
    """Error rates of many binary classifiers at once, evaluated on the distinct rows of X.

    The same rule as :func:`binary_error` (label 1 = positive side, ties
    count as 0), computed once per distinct row of ``X`` and weighted by how
    often each row occurs: lattice data have few distinct rows.

    Parameters
    ----------
    coef : ndarray of shape (..., m)
    intercept : ndarray of shape (...)
    X : ndarray of shape (n_samples, m)
    y : ndarray of shape (n_samples,), values 0 and 1
    chunk : int
        Classifiers per block (memory bound).

    Returns
    -------
    error : ndarray of shape (...)
    """
    lead = np.shape(intercept)
    W = np.asarray(coef, dtype=np.float64).reshape(-1, X.shape[1])
    b = np.asarray(intercept, dtype=np.float64).reshape(-1)
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y).ravel()
    # one row per distinct (x, label) pair, with its count (column-wise hashing: 0.3 ms
    # at 10,000 lattice rows where a row-wise np.unique took 6 ms)
    rows, labels, counts = distinct_rows(X, y) if len(y) else (X, y, np.zeros(0, int))
    positive = labels == 1
    counts = counts.astype(np.float64)
    out = np.empty(len(b))
    for start in range(0, len(b), chunk):
        Wc, bc = W[start : start + chunk], b[start : start + chunk]
        scale = np.abs(rows) @ np.abs(Wc).T + np.abs(bc)
        says_positive = positive_side(rows @ Wc.T + bc, scale)
        out[start : start + chunk] = counts @ (says_positive != positive[:, None])
    return (out / len(y)).reshape(lead)


def predict_labels(model, X):
    """Labels a fitted linear classifier assigns to ``X`` under the tie rule above.

    Two classes: ``classes_[1]`` where the score is on the positive side
    (:func:`positive_side`), else ``classes_[0]``; more classes: the class
    of the largest score (first one on ties).  Identical to ``model.predict``
    except for scores within rounding noise of a binary boundary.
    """
    coef = np.asarray(model.coef_)
    if coef.shape[0] == 1:
        says_second = _binary_decisions(coef[0], model.intercept_[0], X)
        return np.asarray(model.classes_)[says_second.astype(int)]
    return model.predict(X)


def error_rate(model, X, y):
    """Fraction of samples of ``X`` that :func:`predict_labels` gets wrong."""
    predicted = predict_labels(model, X)
    return float(np.mean(np.asarray(predicted) != np.asarray(y)))
