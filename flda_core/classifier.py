"""``FLDAClassifier``: feature-level domain adaptation as a scikit-learn estimator."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import softmax
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data
from scipy.special import expit

from . import dask_support
from .solvers import QUADRATIC_SOLVERS, solve_logistic, solve_quadratic
from .transfer import check_theta, dropout_variance_factor, estimate_dropout, nonzero_rate

__all__ = ["FLDAClassifier"]


def _select_columns(X, mask):
    """``X[:, mask]`` as CSR or C-ordered dense (column fancy-indexing of a dense
    array returns Fortran order, which makes the row-blocked objectives slow);
    no copy when every column is kept."""
    if np.all(mask):
        return X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
    return X[:, mask].tocsr() if sp.issparse(X) else np.ascontiguousarray(X[:, mask])


def _is_logistic(estimator):
    return estimator.loss == "logistic"


class FLDAClassifier(ClassifierMixin, BaseEstimator):
    """Feature-level domain adaptation with a dropout transfer model.

    Stage 1 estimates per-feature dropout probabilities ``theta`` from how
    often each feature is non-zero in the source and in the (unlabelled)
    target data (section 3.3.1).  Stage 2 fits a linear classifier that
    minimises the expected loss on the source data when the source samples are
    corrupted by that dropout (eq. ``tr4``): FLDA-Q for the quadratic loss
    (closed form, eq. ``flda-quad``, Algorithm 1) and FLDA-L for the logistic
    loss (second-order Taylor approximation, eq. ``log_loss``, Algorithm 2,
    Appendix C).  With ``theta = 0`` the model is the plain source classifier
    (the paper's S-LS / S-LR); fitted on labelled target data it is the oracle
    T-LS / T-LR.

    Parameters
    ----------
    loss : {"logistic", "quadratic"}, default="logistic"
        ``"quadratic"`` is FLDA-Q (least squares on ``{-1, +1}`` codes,
        one-vs-rest for more than two classes, one shared factorisation);
        ``"logistic"`` is FLDA-L (binary logistic or multinomial softmax).
    l2 : float, default=0.0
        Ridge penalty ``l2 * ||W||**2`` added to the *mean* expected loss.  The
        intercept is never penalised.  ``l2 = 1 / (2 * C * n_samples)`` matches
        scikit-learn's ``LogisticRegression(C=C)``.
    theta : array-like of shape (n_features,) or None, default=None
        Dropout probabilities to use instead of estimating them; overrides
        ``X_target`` (the dashboard perturbs theta this way).
    zero_tol : float, default=0.0
        Values with ``|x| <= zero_tol`` count as zero when estimating theta.
    solver : {"auto", "cholesky", "woodbury", "cg"}, default="auto"
        Linear solver for the quadratic loss (see :mod:`flda_core.solvers`);
        ``"auto"`` never forms a dense matrix larger than 2,000 x 2,000.
        Ignored for the logistic loss, which always uses L-BFGS.
    tol : float, default=1e-6
        Logistic: L-BFGS tolerance on the projected gradient (as in
        scikit-learn).  Quadratic ``"cg"``: relative residual.
    max_iter : int, default=1000
        Iteration cap for L-BFGS or conjugate gradients.

    Attributes
    ----------
    theta_ : ndarray of shape (n_features,)
        Dropout probabilities used in the fit.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights; exactly 0 for features with ``theta = 1`` (never seen in the
        target) and for features that are always zero in the source.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        L-BFGS iterations (logistic); conjugate-gradient iterations for the
        quadratic ``"cg"`` solver; 1 for the direct quadratic solvers.
    solver_ : str
        The solver used: ``"lbfgs"`` or the quadratic solver chosen.

    Examples
    --------
    >>> from flda_core import FLDAClassifier, make_bernoulli_domains
    >>> data = make_bernoulli_domains(n_source=2000, n_target=2000, random_state=0)
    >>> clf = FLDAClassifier(loss="quadratic").fit(
    ...     data.X_source, data.y_source, X_target=data.X_target)
    >>> clf.theta_.round(1)
    array([0.5, 0. ])
    """

    _parameter_constraints = {
        "loss": [StrOptions({"logistic", "quadratic"})],
        "l2": [Interval(Real, 0, None, closed="left")],
        "theta": ["array-like", Interval(Real, 0, 1, closed="both"), None],
        "zero_tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions(set(QUADRATIC_SOLVERS))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, loss="logistic", l2=0.0, theta=None, zero_tol=0.0,
                 solver="auto", tol=1e-6, max_iter=1000):
        self.loss = loss
        self.l2 = l2
        self.theta = theta
        self.zero_tol = zero_tol
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_target=None):
        """Estimate the transfer model and fit the adapted classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Labelled source data.
        y : array-like of shape (n_samples,)
            Source labels: any hashable values, at least two classes.
        X_target : {array-like, sparse matrix} of shape (n_target, n_features), optional
            Unlabelled target data used to estimate ``theta``.  Ignored when the
            ``theta`` parameter is set; without either, ``theta = 0``.

        Returns
        -------
        self : FLDAClassifier

        Notes
        -----
        ``X`` and ``X_target`` may be ``dask.array`` collections (dense or
        sparse blocks): the fit then runs as block-wise reductions on the
        active Dask scheduler (:mod:`flda_core.dask_support`).
        """
        if dask_support.is_dask_collection(X, X_target):
            return dask_support.fit(self, X, y, X_target)
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"),
                             dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                "FLDAClassifier needs samples of at least 2 classes in the source "
                f"data; got only one class: '{self.classes_[0]}'.")
        n_features = X.shape[1]
        self.theta_ = self._resolve_theta(X, X_target)

        # Features that are dropped for sure (theta = 1) or never non-zero in the
        # source carry no usable signal: their weight is exactly 0 and they are
        # removed before solving (no inf, no NaN, no clipping).
        in_source = nonzero_rate(X) > 0
        active = (self.theta_ < 1.0) & in_source
        X_active = _select_columns(X, active)
        c = dropout_variance_factor(self.theta_[active])

        n_out = 1 if n_classes == 2 else n_classes
        if self.loss == "quadratic":
            if n_classes == 2:
                T = np.where(y_index == 1, 1.0, -1.0)[:, None]
            else:
                T = -np.ones((X.shape[0], n_classes))
                T[np.arange(X.shape[0]), y_index] = 1.0
            W, b, self.solver_, self.n_iter_ = solve_quadratic(
                X_active, T, c, self.l2, self.solver, tol=self.tol, max_iter=self.max_iter)
        else:
            W, b, self.n_iter_ = solve_logistic(X_active, y_index, n_classes, c, self.l2,
                                                tol=self.tol, max_iter=self.max_iter)
            self.solver_ = "lbfgs"
        self.coef_ = np.zeros((n_out, n_features))
        self.coef_[:, active] = W.T
        self.intercept_ = np.asarray(b, dtype=np.float64).reshape(n_out)
        return self

    def _resolve_theta(self, X, X_target):
        n_features = X.shape[1]
        if self.theta is not None:
            return check_theta(self.theta, n_features)
        if X_target is None:
            return np.zeros(n_features)
        X_target = check_array(X_target, accept_sparse=("csr", "csc"), dtype=np.float64,
                               input_name="X_target")
        if X_target.shape[1] != n_features:
            raise ValueError(
                f"X_target has {X_target.shape[1]} features but X has {n_features}; "
                "source and target must share one feature space.")
        return estimate_dropout(X, X_target, zero_tol=self.zero_tol)

    @available_if(lambda estimator: estimator.loss == "quadratic")
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, X_target=None):
        """FLDA-Q from batches: accumulate sufficient statistics, then re-solve.

        Each call adds the batch's counts and moments (``XᵀX``, ``XᵀT``,
        ``Σx``, ``Σx²``, non-zero counts for θ̂) to those of earlier calls
        and solves eq. (11) on all data seen so far, so after the last batch
        the model equals :meth:`fit` on the concatenated batches (solver
        ``"cholesky"``; memory ``O(n_features²)`` whatever the number of
        batches).  Only for ``loss="quadratic"``.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features) or None
            A batch of labelled source data; ``None`` to add only target data.
        y : array-like of shape (n_samples,) or None
        classes : array-like, optional
            All labels of the stream; required on the first call unless the
            estimator was fitted before, whose ``classes_`` are then used.  A
            call after :meth:`fit` starts a new stream (``fit`` keeps no
            statistics).
        X_target : {array-like, sparse matrix, dask array}, optional
            A batch of unlabelled target data: its non-zero counts are added
            to those of earlier target batches, and θ̂ uses all target rows
            seen so far.  Target batches need not match source batches.

        Returns
        -------
        self : FLDAClassifier
        """
        return dask_support.partial_fit_quadratic(self, X, y, classes, X_target)

    def decision_function(self, X):
        """Linear scores ``X @ coef_.T + intercept_``.

        Returns shape (n_samples,) for two classes (positive means
        ``classes_[1]``) and (n_samples, n_classes) otherwise.
        """
        check_is_fitted(self)
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "decision_function")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64,
                          reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predicted class labels for ``X`` (lazy for a dask array)."""
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "predict")
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else np.argmax(scores, axis=1)
        return self.classes_[index]

    @available_if(_is_logistic)
    def predict_proba(self, X):
        """Class probabilities of the logistic model (FLDA-L only; lazy for a dask array)."""
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "predict_proba")
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return softmax(scores, copy=False)

    @available_if(_is_logistic)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
