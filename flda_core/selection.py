"""``FLDAClassifierCV``: FLDA with its ridge penalty chosen the paper's way.

The paper chooses its hyperparameters by cross-validation on the labelled
source data (section 4.2): the transfer model is estimated once, from all
source and all target rows, and held fixed while ``l2`` is cross-validated on
source folds; the classifier is then refitted on the whole source.  The target
labels are never used.  The search is scikit-learn's ``GridSearchCV`` over
``FLDAClassifier(l2=...)`` with that transfer model fixed, so its scores are
``GridSearchCV``'s and it runs in parallel with ``n_jobs``.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV, check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from flda_core.classifier import DomainRequests, FLDAClassifier
from flda_core.validation import finite_check, validate_fit_inputs

__all__ = ["FLDAClassifierCV", "DEFAULT_L2S", "scaled_l2s"]

#: The ``l2`` values tried by default, relative to the data's scale (see
#: :func:`scaled_l2s`): five decades below the average curvature of the loss, where
#: the penalty goes from negligible to dominant for features of unit mean square.
DEFAULT_L2S = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)

#: The parameters FLDAClassifierCV hands to every FLDAClassifier it fits.
_SHARED = ("loss", "theta", "zero_tol", "solver", "tol", "max_iter", "transfer", "transfer_params")


def _is_logistic(estimator):
    return estimator.loss == "logistic"


def feature_mean_square(X, sample_weight=None):
    """The mean over features of each feature's (weighted) mean square, ``||X||_F^2 / (n m)``.

    The average diagonal of ``X^T X / n``: up to the loss's curvature, the size of
    the data term's Hessian that ``2 l2`` is added to.  1 for standardised features.
    """
    squares = X.multiply(X) if sp.issparse(X) else X * X
    if sample_weight is None:
        total, n = float(squares.sum()), X.shape[0]
    else:
        total, n = float(np.asarray(squares.T @ sample_weight).sum()), float(np.sum(sample_weight))
    return total / (n * X.shape[1]) if n and X.shape[1] else 0.0


def scaled_l2s(X, l2s=DEFAULT_L2S, sample_weight=None):
    """``l2s`` times the data's mean square: the default grid on the scale of ``X``.

    A ridge ``l2 ||W||^2`` on the mean loss adds ``2 l2`` to a curvature of about
    ``mean(x_d^2)`` per feature, so a grid fixed in absolute numbers means other
    penalties on other data: on the paper's spam data divided by its largest count
    (mean square 2e-8 for the SMS) the fixed grid 1e-5..1e-1 holds only penalties that flatten
    every weight, and ``FLDAClassifierCV`` predicted one class.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    l2s : sequence of float, default=DEFAULT_L2S
        The grid for features of unit mean square.
    sample_weight : ndarray of shape (n_samples,), optional

    Returns
    -------
    ndarray of float
        ``np.asarray(l2s) * feature_mean_square(X)``; ``l2s`` itself for all-zero ``X``.
    """
    scale = feature_mean_square(X, sample_weight)
    return np.asarray(l2s, dtype=np.float64) * (scale if scale > 0 else 1.0)


class _FoldClassifier(FLDAClassifier):
    """``FLDAClassifier`` for one training fold of the search.

    Rows of weight 0 are left out before fitting (what FLDA does to them, exactly);
    a fold whose remaining rows hold a single class, which FLDA cannot fit, predicts
    that class (as ``DummyClassifier(strategy="most_frequent")`` would).
    """

    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y)
        if sample_weight is not None:
            keep = np.asarray(sample_weight) > 0
            X, y, sample_weight = X[keep], y[keep], np.asarray(sample_weight)[keep]
        classes = np.unique(y)
        if len(classes) > 1:
            return super().fit(X, y, sample_weight=sample_weight)
        self.classes_, self.n_features_in_ = classes, X.shape[1]
        self.coef_, self.intercept_ = np.zeros((1, X.shape[1])), np.zeros(1)
        return self

    def decision_function(self, X, sample_domain=None):
        if len(self.classes_) == 1:  # every score 0: predict gives classes_[0]
            return np.zeros(X.shape[0])
        return super().decision_function(X)


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
        As in :class:`FLDAClassifier`: FLDA-L or FLDA-Q.
    l2s : array-like of float or "scaled", default="scaled"
        The ridge penalties tried (``l2`` of :class:`FLDAClassifier`).  ``"scaled"``
        is :data:`DEFAULT_L2S` times the source's mean square feature value
        (:func:`scaled_l2s`): the same grid as before for features of unit mean
        square, and a grid on the data's own scale otherwise.  A choice at either
        end of the grid whose score still improves towards that end warns (the best
        penalty may lie beyond it).
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
        Deprecated and ignored (a ``FutureWarning`` says so): every fit starts
        cold, as in ``GridSearchCV``.  Warm starts along the grid stopped L-BFGS at
        other points than cold fits and changed the chosen ``l2`` in 10 of 20
        Office-Caltech and IMDB cases (target error up to 0.070 apart).
    refit : bool, default=True
        Refit on the whole source with the chosen ``l2``.  If False only
        ``l2_``, ``cv_results_`` and the transfer model are learned (and the
        estimator cannot predict).
    n_jobs : int or None, default=None
        Fits run in parallel by ``GridSearchCV`` (joblib's meaning: ``-1`` all
        cores).  Each logistic fit keeps one BLAS thread (:func:`flda_core.blas_threads`).

    Attributes
    ----------
    l2_ : float
        The chosen ridge penalty.
    cv_results_ : dict of ndarray
        ``GridSearchCV``'s ``cv_results_`` (``"mean_test_score"``,
        ``"std_test_score"``, ``"split{k}_test_score"`` per fold, fit and score
        times, ``"params"``, ``"param_l2"``) with ``"l2"`` (the grid in the given
        order) and ``"rank_test_score"`` (1 for ``l2_``; equal means ranked by
        decreasing ``l2``, so that ties go to the larger penalty).
    best_estimator_ : FLDAClassifier
        The refitted model (``refit=True``).
    theta_, transfer_params_, transfer_model_, coef_, intercept_, classes_, n_iter_, solver_
        Those of ``best_estimator_`` (``theta_`` and the transfer model also
        without refit).
    n_features_in_ : int

    Notes
    -----
    A training fold holding a single class (of positive weight) cannot be
    fitted by FLDA; it predicts that class (as
    ``DummyClassifier(strategy="most_frequent")``).  ``sample_weight`` weights the
    fits (folds included; rows of weight 0 are left out of a training fold), not
    the validation scores.

    References
    ----------
    Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
    Feature-Level Domain Adaptation. Journal of Machine Learning Research
    17(171), 1-32.

    Examples
    --------
    >>> from flda_core import FLDAClassifierCV, make_poisson_domains
    >>> data = make_poisson_domains(n_source=2000, n_target=2000, random_state=0)
    >>> clf = FLDAClassifierCV(l2s=[1e-2, 1.0, 100.0, 1e4], n_jobs=2).fit(
    ...     data.X_source, data.y_source, X_target=data.X_target)
    >>> clf.theta_.round(1)
    array([0.5, 0. ])
    >>> float(clf.l2_)
    100.0
    """

    def __init__(
        self,
        loss="logistic",
        l2s="scaled",
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
        n_jobs=None,
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
        self.n_jobs = n_jobs

    def _grid(self, X, sample_weight):
        """The ``l2`` values to try, checked (``"scaled"``: :func:`scaled_l2s`)."""
        if isinstance(self.l2s, str) and self.l2s == "scaled":
            return scaled_l2s(X, DEFAULT_L2S, sample_weight)
        l2s = (
            np.asarray(self.l2s, dtype=np.float64).ravel() if not isinstance(self.l2s, str) else np.array([])
        )
        if not len(l2s) or not np.all(np.isfinite(l2s)) or np.any(l2s < 0):
            raise ValueError(f'l2s must be "scaled" or one or more finite numbers >= 0; got {self.l2s!r}.')
        return l2s

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
        if self.warm_start:
            warnings.warn(
                "FLDAClassifierCV(warm_start=True) is deprecated and ignored: every fit "
                "starts cold, as in GridSearchCV (warm starts changed the chosen l2).",
                FutureWarning,
                stacklevel=2,
            )
        data = validate_fit_inputs(self, X, y, X_target, sample_weight, sample_domain)
        l2s = self._grid(data.X, data.sample_weight)
        template = self._fixed_transfer_template(data)
        scores = self._search(template, l2s, data)
        self._choose(l2s, scores)
        self.classes_ = data.classes
        if self.refit:
            self.best_estimator_ = clone(template).set_params(l2=self.l2_)
            self.best_estimator_.fit(data.X, data.y, sample_weight=data.sample_weight)
            for name in ("coef_", "intercept_", "classes_", "n_iter_", "solver_"):
                setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _fixed_transfer_template(self, data):
        """An unfitted ``FLDAClassifier`` holding the transfer model estimated once from
        all source and target rows (``theta`` for dropout, else ``transfer_params``)."""
        template = FLDAClassifier(**{k: getattr(self, k) for k in _SHARED})
        model = template._resolve_model(data.X, data.X_target, data.sample_weight)
        if self.transfer == "dropout" and self.transfer_params is None:
            template.set_params(theta=model.theta)
        else:
            template.set_params(transfer_params=model.params())
        FLDAClassifier._set_transfer_attributes(self, model)
        return template

    def _search(self, template, l2s, data):
        """``GridSearchCV`` over ``l2`` on the source folds; its ``cv_results_``.

        Metadata routing is off inside: ``sample_weight`` goes to every fit and no
        score, whatever the process's routing setting (FLDA's ``score`` requests
        weights, which would weight the validation scores only under routing).
        """
        folds = list(check_cv(self.cv, data.y, classifier=True).split(data.X, data.y))
        search = GridSearchCV(
            _FoldClassifier(**template.get_params()),
            {"l2": [float(l2) for l2 in l2s]},
            scoring=self.scoring,
            cv=folds,
            n_jobs=self.n_jobs,
            refit=False,
            error_score="raise",
        )
        params = {} if data.sample_weight is None else {"sample_weight": data.sample_weight}
        with config_context(enable_metadata_routing=False):
            search.fit(data.X, data.y, **params)
        return search.cv_results_

    def _choose(self, l2s, results):
        """``l2_`` (best mean score, ties to the larger penalty), ``cv_results_`` and
        the warning when the choice sits at an end of the grid it still improves to."""
        mean = np.round(results["mean_test_score"], 12)
        ranking = sorted(range(len(l2s)), key=lambda k: (-mean[k], -l2s[k]))
        self.l2_ = float(l2s[ranking[0]])
        ranks = np.empty(len(l2s), dtype=np.int32)
        ranks[ranking] = np.arange(1, len(l2s) + 1)
        self.cv_results_ = {**results, "l2": l2s, "rank_test_score": ranks}
        _warn_at_grid_edge(l2s, mean, ranking[0])

    def _fitted(self):
        check_is_fitted(self)
        if not hasattr(self, "best_estimator_"):
            raise AttributeError(
                "This FLDAClassifierCV was fitted with refit=False and cannot predict; "
                "fit an FLDAClassifier(l2=l2_) or refit with refit=True."
            )
        return self.best_estimator_

    def decision_function(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.decision_function` of the refitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        return self._fitted().decision_function(X)

    def predict(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict` of the refitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._fitted().predict(X)

    @available_if(_is_logistic)
    def predict_proba(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict_proba` of the refitted model (logistic loss; see
        its note on calibration).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._fitted().predict_proba(X)

    @available_if(_is_logistic)
    def predict_log_proba(self, X, sample_domain=None):
        """:meth:`FLDAClassifier.predict_log_proba` of the refitted model (logistic loss).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._fitted().predict_log_proba(X)

    def score(self, X, y, sample_weight=None, sample_domain=None):
        """:meth:`FLDAClassifier.score` of the refitted model (masked target rows left out).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        sample_domain : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        return self._fitted().score(X, y, sample_weight=sample_weight, sample_domain=sample_domain)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = finite_check(self.transfer) == "allow-nan"
        return tags


def _warn_at_grid_edge(l2s, mean, best):
    """Warn when the best ``l2`` is the grid's smallest or largest and strictly beats
    its neighbour: the score still improves towards the edge, so a better penalty may
    lie beyond it."""
    if len(l2s) < 2:
        return
    order = np.argsort(l2s, kind="stable")
    for edge, neighbour, side, beyond in (
        (order[0], order[1], "smallest", "below"),
        (order[-1], order[-2], "largest", "above"),
    ):
        if best == edge and mean[edge] > mean[neighbour]:
            warnings.warn(
                f"FLDAClassifierCV chose l2={l2s[edge]:.3g}, the {side} value of l2s, and the "
                f"validation score still improves towards it ({mean[neighbour]:.4g} at "
                f"{l2s[neighbour]:.3g}, {mean[edge]:.4g} at {l2s[edge]:.3g}): the best penalty "
                f"may lie {beyond} the grid. Extend l2s {beyond} {l2s[edge]:.3g}.",
                UserWarning,
                stacklevel=4,
            )
