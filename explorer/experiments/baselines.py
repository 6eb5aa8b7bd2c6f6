"""The paper's domain-adaptation baselines (section 4.2.1), taken from **skada**
(https://scikit-adaptation.github.io), never re-implemented here:

========  ============================================  ==========================
name      skada adapter                                  classifier after it
========  ============================================  ==========================
KMM       ``KMMReweightAdapter`` (RBF kernel)            weighted logistic regression
SA        ``SubspaceAlignmentAdapter``                   SVM, RBF kernel
TCA       ``TransferComponentAnalysisAdapter`` (RBF)     SVM, RBF kernel
CORAL     ``CORALAdapter``                               logistic regression
OT        ``OTMappingAdapter`` (exact optimal transport) logistic regression
========  ============================================  ==========================

GFK and SCL (Table 3) are not in skada: :data:`NOT_AVAILABLE`.  As in the paper, the
classifier's parameters are chosen by cross-validation on the (adapted) labelled source
data only (:class:`SourceCV`); the adapters' own parameters stay at skada's defaults,
except as :data:`BASELINE_NOTES` says.  skada switches scikit-learn's metadata routing on
for the whole process when imported, so it is imported lazily (:func:`make_baseline`) and
every fit runs inside ``sklearn.config_context(enable_metadata_routing=True)``.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.

Gnassounou, T. et al. (2024). SKADA: Scikit Adaptation. https://scikit-adaptation.github.io
"""

from __future__ import annotations

import warnings

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

#: Baselines taken from skada, in the order of the paper's Table 3.
BASELINES = ("KMM", "SA", "TCA", "CORAL", "OT")
#: Baselines of the paper that skada does not provide.
NOT_AVAILABLE = {
    "SCL": "structural correspondence learning is not in skada",
    "GFK": "the geodesic flow kernel is not in skada",
}
#: What each baseline is, and which parameters are not cross-validated.
BASELINE_NOTES = {
    "KMM": "kernel mean matching weights (RBF kernel, gamma = 1 / n_features, "
    "skada's Frank-Wolfe solver), then importance-weighted logistic regression",
    "SA": "subspace alignment with as many principal components as the smaller "
    "domain allows (at most 100), then an RBF SVM",
    "TCA": "transfer component analysis (RBF kernel, mu = 0.1, 20 components, "
    "fitted on at most 600 source and 600 target rows), then an RBF SVM",
    "CORAL": "correlation alignment (skada's automatic shrinkage), then logistic regression",
    "OT": "exact optimal-transport mapping of the source onto the target "
    "(squared Euclidean cost, skada's OTMapping), then logistic regression",
}
#: Inverse regularisation strengths tried by cross-validation.
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
#: SVM kernel bandwidths tried: these multiples of scikit-learn's "scale"
#: value ``1 / (n_features * X.var())``.
GAMMA_FACTORS = (0.1, 1.0, 10.0)
#: Largest number of rows per domain TCA is fitted on (its cost grows with the
#: cube of the number of rows).
TCA_MAX_ROWS = 600
#: Most principal components SA aligns (its cost grows with their number).
SA_MAX_COMPONENTS = 100
#: Target rows predicted at once (a sparse target is made dense this many rows at a time).
PREDICT_CHUNK = 1000
_SOURCE, _TARGET = 1, -2


def cv_folds(y, n_folds, random_state):
    """Stratified folds when every class has ``n_folds`` rows, else shuffled folds."""
    counts = np.unique(y, return_counts=True)[1]
    n_folds = int(min(n_folds, len(y)))
    if counts.min() >= n_folds:
        return StratifiedKFold(n_folds, shuffle=True, random_state=random_state).split(y, y)
    return KFold(n_folds, shuffle=True, random_state=random_state).split(y)


class SourceCV(ClassifierMixin, BaseEstimator):
    """A classifier whose parameters are chosen by k-fold cross-validation.

    A plain estimator around scikit-learn's ``GridSearchCV`` (skada 0.6's pipelines route
    ``sample_weight`` only to a step with a request of its own).  :meth:`fit` keeps the
    candidate of ``param_grid`` with the highest mean validation accuracy on ``n_folds``
    folds (:func:`cv_folds`; ties: the earlier candidate, so put the most regularised
    first) and refits it on all rows.

    Parameters
    ----------
    estimator : classifier
    param_grid : dict of lists
    gamma_factors : sequence of float or None
        If given, ``gamma`` is added to the grid as these multiples of
        ``1 / (n_features * X.var())`` of the data being fitted.
    n_folds : int, default=3
    random_state : int, default=0

    Attributes
    ----------
    estimator_ : the refitted best classifier
    best_params_ : dict
    cv_results_ : dict
        ``GridSearchCV``'s.
    classes_ : ndarray
    """

    __metadata_request__fit = {"sample_weight": True}

    def __init__(self, estimator=None, param_grid=None, gamma_factors=None, n_folds=3, random_state=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.gamma_factors = gamma_factors
        self.n_folds = n_folds
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Cross-validate every candidate on ``(X, y)`` and refit the best one."""
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        grid = dict(self.param_grid or {})
        if self.gamma_factors is not None:
            variance = float(np.var(X))
            scale = 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
            grid["gamma"] = [f * scale for f in self.gamma_factors]
        folds = list(cv_folds(y, self.n_folds, self.random_state))
        search = GridSearchCV(self.estimator, grid, scoring=_accuracy, cv=folds, error_score=0.0)
        with sklearn.config_context(enable_metadata_routing=False), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # non-convergence, one-class folds, unweighted scores
            search.fit(X, y, sample_weight=sample_weight)
        self.best_params_, self.cv_results_ = search.best_params_, search.cv_results_
        self.estimator_ = search.best_estimator_
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(np.asarray(X, dtype=np.float64))


def _accuracy(estimator, X, y):
    """The validation score of :class:`SourceCV`: unweighted, whatever weights the fits had."""
    return float(np.mean(estimator.predict(X) == y))


def logistic_cv(grid=C_GRID, n_folds=3, random_state=0):
    """L2-regularised logistic regression with ``C`` chosen on the data it is fitted on."""
    return SourceCV(LogisticRegression(max_iter=500), {"C": list(grid)}, None, n_folds, random_state)


def svm_cv(grid=C_GRID[1:4], gamma_factors=GAMMA_FACTORS, n_folds=3, random_state=0):
    """RBF SVM (one-vs-one) with ``C`` and the bandwidth chosen on the data it is fitted on."""
    return SourceCV(SVC(kernel="rbf"), {"C": list(grid)}, gamma_factors, n_folds, random_state)


def make_baseline(name, n_components=None, n_folds=3, random_state=0):
    """An unfitted skada pipeline for one of :data:`BASELINES`.

    Imports skada (which switches metadata routing on process-wide); fit it
    through :func:`fit_baseline`.  ``n_components`` is the subspace dimension
    of SA (default: all, at most :data:`SA_MAX_COMPONENTS`) and caps TCA's 20 components.
    """
    if name in NOT_AVAILABLE:
        raise ValueError(f"{name} is not available: {NOT_AVAILABLE[name]}.")
    if name not in BASELINES:
        raise ValueError(f"Unknown baseline {name!r}; choose from {BASELINES}.")
    with sklearn.config_context(enable_metadata_routing=True):
        import skada

        lr = logistic_cv(n_folds=n_folds, random_state=random_state)
        svm = svm_cv(n_folds=n_folds, random_state=random_state)
        if name == "KMM":
            steps = [skada.KMMReweightAdapter(gamma=None), lr]
        elif name == "SA":
            n = min(n_components or SA_MAX_COMPONENTS, SA_MAX_COMPONENTS)
            steps = [skada.SubspaceAlignmentAdapter(n_components=n, random_state=random_state), svm]
        elif name == "TCA":
            steps = [
                skada.StratifiedDomainSubsampler(TCA_MAX_ROWS * 2, random_state=random_state),
                skada.TransferComponentAnalysisAdapter(n_components=min(20, n_components or 20), mu=0.1),
                svm,
            ]
        elif name == "CORAL":
            steps = [skada.CORALAdapter(), lr]
        else:
            steps = [skada.OTMappingAdapter(), lr]
        return skada.make_da_pipeline(*steps)


def domain_arrays(X_source, y_source, X_target):
    """skada's input convention: stacked rows, masked target labels, domain ids.

    Returns ``(X, y, sample_domain)`` with target labels set to -1 (unknown)
    and ``sample_domain`` 1 for source rows and -2 for target rows; ``y_source``
    must already be class indices ``0..K-1``.
    """
    X = np.vstack([_dense(X_source), _dense(X_target)])
    n_source, n_target = X_source.shape[0], X_target.shape[0]
    y = np.concatenate([np.asarray(y_source, dtype=np.int64), -np.ones(n_target, dtype=np.int64)])
    domain = np.concatenate([np.full(n_source, _SOURCE), np.full(n_target, _TARGET)])
    return X, y, domain


def kmm_weights(X_source, X_target):
    """KMM's importance weights of the source rows (skada's ``KMMReweightAdapter``, RBF
    kernel, ``gamma = 1 / n_features``): for a weighted classifier of one's own."""
    X, _, domain = domain_arrays(X_source, np.zeros(X_source.shape[0], dtype=np.int64), X_target)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        import skada

        warnings.simplefilter("ignore")
        adapter = skada.KMMReweightAdapter(gamma=None).fit(X, sample_domain=domain)
        return adapter.compute_weights(X, sample_domain=domain)[: X_source.shape[0]]


def fit_baseline(name, X_source, y_source, X_target, n_folds=3, random_state=0, X_predict=None):
    """Fit a baseline on labelled source and unlabelled target rows; predict the target.

    Parameters
    ----------
    name : str
        One of :data:`BASELINES`.
    X_source, y_source : array-like
        Labelled source rows; any hashable labels.
    X_target : array-like
        Unlabelled target rows (the same features).
    X_predict : array-like or sparse matrix, optional
        Target rows to predict instead of ``X_target`` (e.g. all of them, when the
        baseline was fitted on a sample); predicted :data:`PREDICT_CHUNK` rows at a time.

    Returns
    -------
    predictions : ndarray of shape (n_target,)
        Predicted labels of the target rows, in the label values of ``y_source``.
    pipeline : the fitted skada pipeline
    """
    X_source, X_target = (
        X if hasattr(X, "toarray") else np.asarray(X, np.float64) for X in (X_source, X_target)
    )
    classes, y_index = np.unique(np.asarray(y_source), return_inverse=True)
    X, y, domain = domain_arrays(X_source, y_index, X_target)
    # SA fits one PCA per domain: no more components than the smaller domain has rows
    n_components = int(min(X_source.shape[0], X_target.shape[0], X.shape[1]))
    pipeline = make_baseline(name, n_components=n_components, n_folds=n_folds, random_state=random_state)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipeline.fit(X, y, sample_domain=domain)
        rows = X_target if X_predict is None else X_predict
        predicted = []
        for start in range(0, rows.shape[0], PREDICT_CHUNK):
            chunk = _dense(rows[start : start + PREDICT_CHUNK])
            predicted.append(pipeline.predict(chunk, sample_domain=np.full(len(chunk), _TARGET)))
    return classes[np.concatenate(predicted).astype(np.int64)], pipeline


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)


def error_row(name, X_source, y_source, X_target, y_target, labelled=None, random_state=0):
    """Fit a baseline and score it on the labelled target rows.

    The row format of :func:`explorer.experiments.your_data.target_error_table`, so the
    "Your data" page can append baselines to its table.

    Parameters
    ----------
    y_target : array-like of shape (n_target,)
        Target labels (used for the error only; the baseline never sees them).
    labelled : array-like of bool, optional
        Which target rows carry a label (default: all).

    Returns
    -------
    dict with ``classifier``, ``family`` (``"baseline"``), ``error``, ``errors``
    and ``n_target``.
    """
    y_target = np.asarray(y_target, dtype=object)
    labelled = np.ones(len(y_target), bool) if labelled is None else np.asarray(labelled, bool)
    if not labelled.any():
        raise ValueError("The target has no labelled rows to measure an error on.")
    predicted, _ = fit_baseline(name, X_source, y_source, X_target, random_state=random_state)
    truth = y_target[labelled]
    wrong, n = int(sum(p != t for p, t in zip(predicted[labelled], truth))), len(truth)
    return {"classifier": name, "family": "baseline", "error": wrong / n, "errors": wrong, "n_target": n}
