"""``FLDAClassifierCV``: FLDA with its ridge penalty chosen the paper's way.

The paper chooses its hyperparameters by cross-validation on the labelled
source data (section 4.2): the transfer model is estimated once, from all
source and all target rows, and held fixed while ``l2`` is cross-validated on
source folds; the classifier is then refitted on the whole source.  The target
labels are never used.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.dummy import DummyClassifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from flda_core.classifier import (
    DomainRequests,
    FLDAClassifier,
    _check_class_weights,
    _check_inputs,
    take_domains,
)
from flda_core.transfer_models import _MODELS

__all__ = ["FLDAClassifierCV", "DEFAULT_L2S"]

#: The ``l2`` values tried by default: five decades around the scale where the
#: penalty starts to matter for features of unit size.
DEFAULT_L2S = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)

#: The parameters FLDAClassifierCV hands to every FLDAClassifier it fits.
_SHARED = ("loss", "theta", "zero_tol", "solver", "tol", "max_iter", "transfer", "transfer_params")


def _is_logistic(estimator):
    return estimator.loss == "logistic"


class FLDAClassifierCV(DomainRequests, ClassifierMixin, BaseEstimator):
    """FLDA with ``l2`` chosen by cross-validation on the labelled source.

    As in the paper (section 4.2): the transfer model (``theta`` for dropout)
    is estimated once from all source rows and all target rows and held fixed;
    every ``l2`` in ``l2s`` is fitted on the training folds of the *source*
    and scored on its validation folds (target labels are never used); the
    ``l2`` with the best mean validation score wins (ties: the larger
    penalty) and, with ``refit=True``, FLDA is refitted with it on the whole
    source.  The parameters shared with :class:`FLDAClassifier` mean the
    same; the fitted model behaves as that ``FLDAClassifier``.

    Parameters
    ----------
    loss : {"logistic", "quadratic"}, default="logistic"
    l2s : array-like of float, default=DEFAULT_L2S
        The ridge penalties tried (``l2`` of :class:`FLDAClassifier`).
    cv : int, cross-validation generator or iterable, default=3
        Folds of the source rows, as scikit-learn's ``check_cv``: an int is
        that many ``StratifiedKFold`` folds (no shuffling); pass e.g.
        ``StratifiedKFold(3, shuffle=True, random_state=0)`` for shuffled ones.
    scoring : str, callable or None, default=None
        scikit-learn scorer on the source validation folds (higher is
        better); ``None`` is the accuracy.
    theta, zero_tol, solver, tol, max_iter, transfer, transfer_params
        As in :class:`FLDAClassifier`.  With ``theta``/``transfer_params``
        given, they are used instead of an estimate.
    warm_start : bool, default=False
        If True, each fold fits the ``l2s`` from the largest to the smallest,
        each fit starting from the previous solution (fewer L-BFGS
        iterations; the same solutions up to ``tol``).  If False every fit
        starts from zero, so the scores equal those of ``GridSearchCV`` over
        ``FLDAClassifier(l2=...)`` with the same fixed transfer model.
    refit : bool, default=True
        Refit on the whole source with the chosen ``l2``.  If False only
        ``l2_``, ``cv_results_`` and the transfer model are learned (and the
        estimator cannot predict).

    Attributes
    ----------
    l2_ : float
        The chosen ridge penalty.
    cv_results_ : dict of ndarray
        ``"l2"`` (the ``l2s`` in the given order), ``"mean_test_score"``,
        ``"std_test_score"``, ``"rank_test_score"`` (1 for ``l2_``; equal
        means ranked by decreasing ``l2``) and
        ``"split{k}_test_score"`` per fold, as scikit-learn's ``GridSearchCV``.
    best_estimator_ : FLDAClassifier
        The refitted model (``refit=True``).
    theta_, transfer_params_, transfer_model_, coef_, intercept_, classes_, n_iter_, solver_
        Those of ``best_estimator_`` (``theta_`` and the transfer model also
        without refit).
    n_features_in_ : int

    Notes
    -----
    A training fold holding a single class (of positive weight) cannot be
    fitted by FLDA; it is scored by ``DummyClassifier(strategy="most_frequent")``
    (predicting that class).  ``sample_weight`` weights the fits (folds
    included; rows of weight 0 are left out of a training fold), not the
    validation scores.

    References
    ----------
    Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
    Feature-Level Domain Adaptation. Journal of Machine Learning Research
    17(171), 1-32.

    Examples
    --------
    >>> from flda_core import FLDAClassifierCV, make_poisson_domains
    >>> data = make_poisson_domains(n_source=2000, n_target=2000, random_state=0)
    >>> clf = FLDAClassifierCV(l2s=[1e-4, 1e-2, 1.0]).fit(
    ...     data.X_source, data.y_source, X_target=data.X_target)
    >>> clf.theta_.round(1)
    array([0.5, 0. ])
    >>> float(clf.l2_) in (1e-4, 1e-2, 1.0)
    True
    """

    _parameter_constraints = {
        **{k: v for k, v in FLDAClassifier._parameter_constraints.items() if k in _SHARED},
        "l2s": ["array-like"],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "warm_start": ["boolean"],
        "refit": ["boolean"],
    }

    def __init__(
        self,
        loss="logistic",
        l2s=DEFAULT_L2S,
        cv=3,
        scoring=None,
        theta=None,
        zero_tol=0.0,
        solver="auto",
        tol=1e-6,
        max_iter=1000,
        transfer="dropout",
        transfer_params=None,
        warm_start=False,
        refit=True,
    ):
        self.loss = loss
        self.l2s = l2s
        self.cv = cv
        self.scoring = scoring
        self.theta = theta
        self.zero_tol = zero_tol
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.transfer = transfer
        self.transfer_params = transfer_params
        self.warm_start = warm_start
        self.refit = refit

    def _l2s(self):
        l2s = np.asarray(self.l2s, dtype=np.float64).ravel()
        if not len(l2s) or not np.all(np.isfinite(l2s)) or np.any(l2s < 0):
            raise ValueError(f"l2s must be one or more finite numbers >= 0; got {self.l2s!r}.")
        return l2s

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_target=None, sample_weight=None, sample_domain=None):
        """Estimate the transfer model, cross-validate ``l2`` on the source, refit.

        Parameters
        ----------
        X, y, X_target, sample_weight, sample_domain
            As in :meth:`FLDAClassifier.fit`: ``X_target`` (or the rows of
            ``X`` with a negative ``sample_domain``) is the unlabelled target
            data, used whole for the transfer model and never split into
            folds; only the labelled source rows are.

        Returns
        -------
        self : FLDAClassifierCV
        """
        l2s = self._l2s()
        template = FLDAClassifier(**{k: getattr(self, k) for k in _SHARED})
        if sample_domain is not None:
            X, y, sample_weight, X_target = take_domains(self, X, y, sample_domain, sample_weight, X_target)
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse=("csr", "csc"),
            dtype=np.float64,
            y_numeric=False,
            ensure_all_finite="allow-nan" if _MODELS[self.transfer].allows_nan else True,
        )
        _check_inputs(X, y)
        check_classification_targets(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            classes, y_index = np.unique(y, return_inverse=True)
            _check_class_weights(classes, y_index, sample_weight)
        if len(np.unique(y)) < 2:  # FLDAClassifier's own error, in its words
            template.fit(X, y, sample_weight=sample_weight)
        # The transfer model: estimated once from all rows, then fixed.
        model = template._resolve_model(X, X_target, sample_weight)
        fixed = (
            {"theta": model.theta}
            if self.transfer == "dropout" and self.transfer_params is None
            else {"transfer_params": model.params()}
        )
        template.set_params(**fixed)
        FLDAClassifier._set_transfer_attributes(self, model)

        folds = list(check_cv(self.cv, y, classifier=True).split(X, y))
        scorer = check_scoring(template, scoring=self.scoring)
        order = np.argsort(-l2s, kind="stable") if self.warm_start else np.arange(len(l2s))
        scores = np.zeros((len(folds), len(l2s)))
        mean = np.zeros(len(l2s))
        for f, (train, test) in enumerate(folds):
            X_test, y_test = _safe_indexing(X, test), y[test]
            weights = None
            if sample_weight is not None:  # rows of weight 0 are left out (FLDA's own rule)
                train = train[sample_weight[train] > 0]
                weights = sample_weight[train]
            X_train, y_train = _safe_indexing(X, train), y[train]
            model_f = clone(template).set_params(warm_start=self.warm_start)
            for k in order:
                if len(np.unique(y_train)) < 2:
                    fitted = DummyClassifier(strategy="most_frequent").fit(X_train, y_train)
                else:
                    fitted = model_f.set_params(l2=float(l2s[k])).fit(X_train, y_train, sample_weight=weights)
                scores[f, k] = scorer(fitted, X_test, y_test)
            # accumulated fold by fold: the mean of every candidate is rounded alike
            mean += scores[f] / len(folds)
        # best mean score first; a tie goes to the larger penalty
        ranking = sorted(range(len(l2s)), key=lambda k: (-round(float(mean[k]), 12), -l2s[k]))
        self.l2_ = float(l2s[ranking[0]])
        ranks = np.empty(len(l2s), dtype=np.int32)
        ranks[ranking] = np.arange(1, len(l2s) + 1)
        self.cv_results_ = {
            "l2": l2s,
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=0),
            "rank_test_score": ranks,
            **{f"split{f}_test_score": scores[f] for f in range(len(folds))},
        }
        self.classes_ = np.unique(y)
        if self.refit:
            self.best_estimator_ = clone(template).set_params(l2=self.l2_)
            self.best_estimator_.fit(X, y, sample_weight=sample_weight)
            for name in ("coef_", "intercept_", "classes_", "n_iter_", "solver_"):
                setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _fitted(self):
        check_is_fitted(self)
        if not hasattr(self, "best_estimator_"):
            raise AttributeError(
                "This FLDAClassifierCV was fitted with refit=False and cannot predict; "
                "fit an FLDAClassifier(l2=l2_) or refit with refit=True."
            )
        return self.best_estimator_

    def decision_function(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.decision_function` of the refitted model."""
        return self._fitted().decision_function(X)

    def predict(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict` of the refitted model."""
        return self._fitted().predict(X)

    @available_if(_is_logistic)
    def predict_proba(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict_proba` of the refitted model (logistic loss)."""
        return self._fitted().predict_proba(X)

    @available_if(_is_logistic)
    def predict_log_proba(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict_log_proba` of the refitted model (logistic loss)."""
        return self._fitted().predict_log_proba(X)

    def score(self, X, y, sample_weight=None, sample_domain=None):
        """:meth:`FLDAClassifier.score` of the refitted model (masked target rows left out)."""
        return self._fitted().score(X, y, sample_weight=sample_weight, sample_domain=sample_domain)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = _MODELS[self.transfer].allows_nan
        return tags
