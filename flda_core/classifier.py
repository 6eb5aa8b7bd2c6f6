"""``FLDAClassifier``: feature-level domain adaptation as a scikit-learn estimator."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.extmath import softmax
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from flda_core import dask_support
from flda_core.solvers import quadratic_targets, solve_logistic, solve_quadratic
from flda_core.transfer import check_theta, dropout_variance_factor, nonzero_rate
from flda_core.transfer_models import (
    _MODELS,
    MAX_DENSE_ENTRIES,
    DropoutTransfer,
    check_model_params,
    make_transfer_model,
)
from flda_core.validation import (  # noqa: F401 (MAX_/MIN_ABS_FEATURE, split/take_domains: kept importable here)
    MAX_ABS_FEATURE,
    MIN_ABS_FEATURE,
    check_parameters,
    finite_check,
    split_domains,
    take_domains,
    take_rows,
    validate_fit_inputs,
)

__all__ = ["FLDAClassifier"]


def _select_columns(X, mask):
    """``X[:, mask]`` as CSR or C-ordered dense (column fancy-indexing of a dense
    array returns Fortran order, which makes the row-blocked objectives slow);
    no copy when every column is kept."""
    if np.all(mask):
        return X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
    return X[:, mask].tocsr() if sp.issparse(X) else np.ascontiguousarray(X[:, mask])


def _check_finite_fit(estimator, what):
    """A solved model with inf/NaN weights is refused, never returned."""
    if not (np.all(np.isfinite(estimator.coef_)) and np.all(np.isfinite(estimator.intercept_))):
        raise ValueError(
            f"The fit produced non-finite weights ({what}), so the model would be "
            "meaningless. Rescale the features (e.g. divide every column by its root mean "
            "square) and keep transfer_params on the scale of the data."
        )


def _score_rows(y, sample_domain):
    """Rows ``score`` counts: all, except target rows whose label is skada's mask."""
    y = np.asarray(y)
    if sample_domain is None:
        return None
    target = np.asarray(sample_domain) < 0
    if y.dtype.kind == "f":
        masked = np.isnan(y)
    elif y.dtype.kind in "iu":
        masked = y == -1
    else:
        masked = np.zeros(len(y), dtype=bool)
    return ~(target & masked)


def _warn_if_centred(X, model, zero_tol=0.0):
    """Warn when dropout is estimated as 0 everywhere on data that have no zeros.

    Dropout is seen as zeros: centred or standardised data (e.g. after
    ``StandardScaler()``) have none, so θ̂ = 0 and FLDA silently becomes the
    source classifier.
    """
    if model.name not in ("dropout", "two-sided"):
        return
    rates = [np.asarray(v) for k, v in model.params().items() if k in ("theta", "phi")]
    if any(np.any(r != 0) for r in rates) or not X.shape[0]:
        return
    if np.all(nonzero_rate(X, zero_tol=zero_tol) == 1.0):
        warnings.warn(
            f"The estimated {model.name} model is 0 for every feature and no feature of the "
            "source is ever zero, so FLDA does not adapt: dropout shows as zeros, and centred "
            "or standardised data (e.g. after StandardScaler()) have none. Use scaling that "
            "keeps zeros, such as MaxAbsScaler() or StandardScaler(with_mean=False), or set "
            "theta by hand.",
            UserWarning,
            stacklevel=3,
        )


def _is_logistic(estimator):
    return estimator.loss == "logistic"


def _streams_dropout_quadratic(estimator):
    """``partial_fit`` exists for FLDA-Q with the paper's dropout model only."""
    return (
        estimator.loss == "quadratic"
        and estimator.transfer == "dropout"
        and estimator.transfer_params is None
    )


class DomainRequests:
    """The metadata FLDA's estimators request by default (a mixin)."""

    # Requested by default, so that meta-estimators (GridSearchCV,
    # cross_val_score, Pipeline, skada's pipelines) route them also when
    # scikit-learn's metadata routing is on (skada switches it on for the whole
    # process when imported):
    # * fit: X_target and sample_weight (the weights of a reweighting adapter in
    #   front of FLDA -- skada refuses to fit when they are unrequested), and
    #   sample_domain: skada's selectors drop the masked target rows before an
    #   estimator that does not request it, which would leave FLDA nothing to
    #   adapt to; requested, FLDA receives them and takes them as its target;
    # * predict and the other prediction methods: sample_domain, which skada's
    #   scorers pass (FLDA predicts every domain alike and ignores it);
    # * score: sample_domain, so that masked target rows are left out of the
    #   accuracy, and sample_weight (skada's ImportanceWeightedScorer scores with
    #   importance weights, and refuses an estimator that does not request them).
    # ``set_fit_request(sample_weight=False)`` etc. opt out, as for any
    # scikit-learn estimator.
    __metadata_request__fit = {"X_target": True, "sample_weight": True, "sample_domain": True}
    __metadata_request__predict = {"sample_domain": True}
    __metadata_request__predict_proba = {"sample_domain": True}
    __metadata_request__predict_log_proba = {"sample_domain": True}
    __metadata_request__decision_function = {"sample_domain": True}
    __metadata_request__score = {"sample_domain": True, "sample_weight": True}


class FLDAClassifier(DomainRequests, ClassifierMixin, BaseEstimator):
    """Feature-level domain adaptation with a dropout transfer model.

    Stage 1 estimates per-feature dropout probabilities ``theta`` from how
    often each feature is non-zero in the source and in the (unlabelled)
    target data (section 3.3.1).  Stage 2 fits a linear classifier that
    minimises the expected loss on the source data when the source samples are
    corrupted by that dropout (Eq. (3)): FLDA-Q for the quadratic loss
    (closed form, Eq. (11), Algorithm 1) and FLDA-L for the logistic
    loss (second-order Taylor approximation, Eq. (13), Algorithm 2,
    Appendix C).  With ``theta = 0`` the model is the plain source classifier
    (the paper's S-LS / S-LR); fitted on labelled target data it is the oracle
    T-LS / T-LR.

    ``transfer`` replaces dropout by another transfer model of
    :mod:`flda_core.transfer_models` (mean imputation of missing values,
    two-sided dropout/appearance, a count-rate change); stage 2 then uses that
    model's ``E[z | x]`` and ``Var[z | x]`` in the same expected losses.

    Parameters
    ----------
    loss : {"logistic", "quadratic"}, default="logistic"
        ``"quadratic"`` is FLDA-Q (least squares on ``{-1, +1}`` codes,
        one-vs-rest for more than two classes, one shared factorisation);
        ``"logistic"`` is FLDA-L (binary logistic or multinomial softmax).
    l2 : float, default=0.0
        Ridge penalty ``l2 * ||W||**2`` added to the *mean* expected loss.  The
        intercept is never penalised.  ``l2 = 1 / (2 * C * n_samples)`` matches
        scikit-learn's ``LogisticRegression(C=C)`` (with ``sample_weight``:
        the sum of the weights in place of ``n_samples``).
    theta : array-like of shape (n_features,) or None, default=None
        Dropout probabilities to use instead of estimating them; overrides
        ``X_target`` (e.g. to perturb theta, as the paper's Table 1 does).
    zero_tol : float, default=0.0
        Values with ``|x| <= zero_tol`` count as zero when estimating theta.
    solver : {"auto", "cholesky", "woodbury", "cg"}, default="auto"
        Linear solver for the quadratic loss (see :mod:`flda_core.solvers`);
        ``"auto"`` never forms a dense matrix larger than 2,000 x 2,000.
        Ignored for the logistic loss, which always uses L-BFGS (with one
        BLAS thread unless :func:`flda_core.blas_threads` says otherwise).
    tol : float, default=1e-6
        Logistic: L-BFGS stops when the largest gradient component is at most
        ``tol`` -- scikit-learn's ``LogisticRegression(solver="lbfgs", tol=...)``
        test on the same objective scale, looser only for features with dropout
        (see :func:`flda_core.solvers.solve_logistic`).  The default keeps the
        target errors of the paper's experiments within 0.001 of a 1e-8 fit
        (measured: the repository's ``benchmarks/bench_tolerance.py``).
        Quadratic ``"cg"``: relative residual.
    max_iter : int, default=1000
        Iteration cap for L-BFGS or conjugate gradients.
    transfer : {"dropout", "imputation", "two-sided", "rate"}, default="dropout"
        Transfer model (:mod:`flda_core.transfer_models`, one-line summaries in
        ``TRANSFER_MODELS``).  ``"dropout"`` is the paper's model and takes the
        code path of the original implementation.  ``"imputation"`` accepts
        missing values (``NaN``) in ``X``, ``X_target`` and at prediction,
        where they are filled with the source mean.  ``"rate"`` needs
        non-negative data.  With sparse input, ``"imputation"`` and
        ``"two-sided"`` make the variance non-zero at zero entries: the
        quadratic loss stays sparse (it needs only column sums), the logistic
        loss densifies up to ``MAX_DENSE_ENTRIES`` values and otherwise
        raises a ``ValueError`` naming the alternatives.
    transfer_params : dict or None, default=None
        Parameters of the transfer model to use instead of estimating them,
        e.g. ``{"theta": ..., "phi": ..., "value": ...}`` for ``"two-sided"``
        (all of the model's parameters; see ``transfer_params_`` of a fit).
        For ``"dropout"`` the ``theta`` parameter does the same.
    warm_start : bool, default=False
        As in scikit-learn: when True and the estimator already holds
        ``coef_`` and ``intercept_`` of the same shape, the next ``fit``
        starts from them instead of from zero -- cheaper when refitting with
        a neighbouring ``l2`` or ``theta`` (a cross-validation grid, a
        perturbation sweep).  The solution is the same up to ``tol``.  Used
        by L-BFGS (logistic) and by the quadratic ``"cg"`` solver as its
        starting point; the direct quadratic solvers (``"cholesky"``,
        ``"woodbury"``) are exact in one factorisation and ignore it.
        Otherwise (no previous fit, other shapes) the fit starts cold.

    Attributes
    ----------
    theta_ : ndarray of shape (n_features,)
        Dropout probabilities used in the fit (``"dropout"``,
        ``"two-sided"``), or the missing probabilities (``"imputation"``).
        Every parameter ``k`` of the transfer model is also stored as ``k_``
        (``mu_``, ``phi_``, ``value_``, ``rate_``).
    transfer_model_ : TransferModel
        The fitted transfer model (its ``mean``/``variance`` give
        ``E[z | x]`` and ``Var[z | x]``).
    transfer_params_ : dict
        ``{parameter name: ndarray of shape (n_features,)}``.
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

    References
    ----------
    Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
    Feature-Level Domain Adaptation. Journal of Machine Learning Research
    17(171), 1-32.

    Examples
    --------
    >>> from flda_core import FLDAClassifier, make_bernoulli_domains
    >>> data = make_bernoulli_domains(n_source=2000, n_target=2000, random_state=0)
    >>> clf = FLDAClassifier(loss="quadratic").fit(
    ...     data.X_source, data.y_source, X_target=data.X_target)
    >>> clf.theta_.round(1)
    array([0.5, 0. ])

    Cross-validation: scikit-learn cuts a fit parameter to the training fold
    only when it has as many rows as ``X``.  A target of another size reaches
    every fold whole; one of the same size is cut, so each fold's θ̂ sees only
    part of the target.  To keep it whole whatever its size, stack it into
    ``X`` with skada's ``sample_domain`` (target rows negative, their labels
    masked; ``cross_val_score`` cuts ``sample_domain`` with ``X``, so use
    skada's splitters, which keep target rows in every training fold), or
    choose ``l2`` with :class:`flda_core.FLDAClassifierCV`, which never splits
    the target.

    >>> from sklearn.model_selection import cross_val_score
    >>> Xs, ys, Xt = data.X_source, data.y_source, data.X_target
    >>> whole = cross_val_score(FLDAClassifier(), Xs, ys, params={"X_target": Xt[:1500]})
    >>> cut = cross_val_score(FLDAClassifier(), Xs, ys, params={"X_target": Xt})  # 2000 rows: cut
    """

    def __init__(
        self,
        loss="logistic",
        l2=0.0,
        theta=None,
        zero_tol=0.0,
        solver="auto",
        tol=1e-6,
        max_iter=1000,
        transfer="dropout",
        transfer_params=None,
        warm_start=False,
    ):
        self.transfer = transfer
        self.transfer_params = transfer_params
        self.loss = loss
        self.l2 = l2
        self.theta = theta
        self.zero_tol = zero_tol
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.warm_start = warm_start

    def fit(self, X, y, X_target=None, sample_weight=None, sample_domain=None):
        """Estimate the transfer model and fit the adapted classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Labelled source data (with ``sample_domain``: source and target rows).
        y : array-like of shape (n_samples,)
            Source labels: any hashable values, at least two classes.
        X_target : {array-like, sparse matrix} of shape (n_target, n_features), optional
            Unlabelled target data used to estimate ``theta``.  Ignored when the
            ``theta`` parameter is set; without either, ``theta = 0`` and the
            model is the plain source classifier.  In cross-validation
            (``cross_val_score``, ``GridSearchCV``) scikit-learn slices a fit
            parameter into the training fold only when it has as many rows as
            ``X``: a target of another size reaches every fold whole, one of the
            same size is cut to the fold's rows (see the Examples).  skada's
            ``sample_domain`` keeps the target rows in ``X`` instead.  As the last
            step of a scikit-learn ``Pipeline`` with transformers, ``X_target`` must
            pass through them (``transform_input=["X_target"]``, metadata routing
            on); an ``X_target`` the pipeline did not transform is refused.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights of the labelled source samples (scikit-learn
            semantics; at least one positive, and a positive total in every
            class).  The objective becomes the weighted *mean* expected loss
            ``sum_i w_i E[loss_i] / sum_i w_i + l2 ||W||**2``, so integer
            weights are exactly repeated rows, a zero weight removes a row,
            rescaling all weights changes nothing and ``l2`` keeps its
            meaning.  The source statistics of the transfer model (dropout's
            non-zero rates ``eta``, imputation's missing rates and means,
            two-sided's rates, the rate model's source means) are weighted
            too; ``X_target`` is never weighted.  FLDA-Q stays closed-form
            (weighted Gram matrix).  The weights are first divided by a power
            of two near their maximum (exact), so weights of any scale (all
            1e308, all 1e-320) fit alike; weights spanning more than the
            float range (a positive weight that would underflow) are refused.
            Not supported for dask input.
        sample_domain : array-like of shape (n_samples,), optional
            skada's stacked-domain convention: the domain of every row of
            ``X``, positive (or 0) for a source domain and negative for a
            target domain.  Target rows are the unlabelled target data (their
            ``y``, masked as ``-1`` or ``NaN`` by skada, is never read), source
            rows the labelled data; several domains of either kind are pooled.
            This is how ``skada.make_da_pipeline(..., FLDAClassifier())`` hands
            FLDA the target rows, after the pipeline's transformers.  Without
            target rows the fit warns and is the plain source classifier.

        Raises
        ------
        ValueError
            Besides invalid arguments: a feature column whose values all lie
            below ``MIN_ABS_FEATURE`` (their squares underflow) or any above
            ``MAX_ABS_FEATURE``; transfer parameters that make ``E[z | x]``
            overflow; a solution with non-finite weights; an ``X_target`` that
            skipped the transformers of the ``Pipeline`` fitting this estimator.

        Returns
        -------
        self : FLDAClassifier

        Notes
        -----
        ``X`` and ``X_target`` may be ``dask.array`` collections (dense or
        sparse blocks): the fit then runs as block-wise reductions on the
        active Dask scheduler (:mod:`flda_core.dask_support`).
        """
        if dask_support.is_dask_collection(X, X_target, sample_weight):
            return self._fit_dask(X, y, X_target, sample_weight, sample_domain)
        data = validate_fit_inputs(self, X, y, X_target, sample_weight, sample_domain)
        self.classes_ = data.classes
        model = self._resolve_model(data.X, data.X_target, data.sample_weight)
        self._set_transfer_attributes(model)
        if data.X_target is not None and self.theta is None and self.transfer_params is None:
            _warn_if_centred(data.X, model, self.zero_tol)
        if self.transfer != "dropout" or self.transfer_params is not None:
            return self._fit_general(data.X, data.y_index, len(data.classes), model, data.sample_weight)
        return self._fit_dropout(data.X, data.y_index, len(data.classes), data.sample_weight)

    def _fit_dask(self, X, y, X_target, sample_weight, sample_domain):
        """:func:`flda_core.dask_support.fit`, for dropout without weights or domains."""
        check_parameters(self)
        if sample_domain is not None:
            raise ValueError(
                "sample_domain is not supported with dask input; pass the target rows as X_target."
            )
        if sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported with dask input; compute the arrays "
                "(e.g. X.compute()) to fit with weights, or fit without sample_weight."
            )
        return dask_support.fit(self, X, y, X_target)

    def _fit_dropout(self, X, y_index, n_classes, sample_weight):
        """Stage 2 with the paper's dropout model: Eq. (11) or Eq. (12)-(13) on the
        active features.

        Features that are dropped for sure (theta = 1) or never non-zero in the
        source carry no usable signal: their weight is exactly 0 and they are
        removed before solving (no inf, no NaN, no clipping).  With weights, "in
        the source" means in a sample of positive weight.
        """
        n_features = X.shape[1]
        in_source = nonzero_rate(X, sample_weight=sample_weight) > 0
        active = (self.theta_ < 1.0) & in_source
        X_active = _select_columns(X, active)
        c = dropout_variance_factor(self.theta_[active])
        n_out = 1 if n_classes == 2 else n_classes
        init = self._warm_start_init(n_out, n_features, active)
        if self.loss == "quadratic":
            W, b, self.solver_, self.n_iter_ = solve_quadratic(
                X_active,
                quadratic_targets(y_index, n_classes),
                c,
                self.l2,
                self.solver,
                tol=self.tol,
                max_iter=self.max_iter,
                init=None if init is None else init[0],
                sample_weight=sample_weight,
            )
        else:
            W, b, self.n_iter_ = solve_logistic(
                X_active,
                y_index,
                n_classes,
                c,
                self.l2,
                tol=self.tol,
                max_iter=self.max_iter,
                init=init,
                sample_weight=sample_weight,
            )
            self.solver_ = "lbfgs"
        self.coef_ = np.zeros((n_out, n_features))
        self.coef_[:, active] = W.T
        self.intercept_ = np.asarray(b, dtype=np.float64).reshape(n_out)
        _check_finite_fit(self, "loss=" + repr(self.loss))
        return self

    def _warm_start_init(self, n_out, n_features, active, shift=None):
        """``(W0, b0)`` on the active features from the previous fit, or ``None``.

        ``shift`` (general transfer models): the solvers' intercept is
        ``b' = b + shift @ W`` (see :meth:`_fit_general`).
        """
        coef, intercept = getattr(self, "coef_", None), getattr(self, "intercept_", None)
        if (
            not self.warm_start
            or coef is None
            or intercept is None
            or np.shape(coef) != (n_out, n_features)
            or np.shape(intercept) != (n_out,)
        ):
            return None
        W0 = np.array(coef[:, active].T, dtype=np.float64)
        b0 = np.array(intercept, dtype=np.float64)
        return W0, (b0 if shift is None else b0 + shift @ W0)

    def _finite_check(self):
        return finite_check(self.transfer)

    def _set_transfer_attributes(self, model):
        self.transfer_model_ = model
        self.transfer_params_ = model.params()
        for name, value in self.transfer_params_.items():
            setattr(self, f"{name}_", value)

    def _resolve_model(self, X, X_target, sample_weight=None):
        """The fitted transfer model: given parameters, estimated, or all zero.

        The one place where ``theta``/``transfer_params`` and ``X_target`` are
        checked, for every transfer model.  ``sample_weight`` weights the
        source statistics; without a target the model is fitted on the
        weighted source against itself (no shift).
        """
        n_features = X.shape[1]
        if self.theta is not None and self.transfer != "dropout":
            raise ValueError(
                f"theta= sets the dropout model; for transfer={self.transfer!r} pass transfer_params instead."
            )
        if self.theta is not None:
            return DropoutTransfer(check_theta(self.theta, n_features))
        if self.transfer_params is not None:
            model = make_transfer_model(self.transfer, self.transfer_params)
        elif X_target is None and self.transfer == "dropout":
            return DropoutTransfer(np.zeros(n_features))
        elif X_target is None and self.transfer == "rate":
            model = make_transfer_model("rate", {"rate": np.ones(n_features)})  # no change
        elif X_target is None:  # no shift: parameters 0
            model = make_transfer_model(self.transfer).fit(
                X, X, sample_weight=sample_weight, target_weight=sample_weight
            )
        else:
            X_target = check_array(
                X_target,
                accept_sparse=("csr", "csc"),
                dtype=np.float64,
                input_name="X_target",
                ensure_all_finite=self._finite_check(),
            )
            if X_target.shape[1] != n_features:
                raise ValueError(
                    f"X_target has {X_target.shape[1]} features but X has {n_features}; "
                    "source and target must share one feature space."
                )
            model = make_transfer_model(self.transfer).fit(
                X, X_target, zero_tol=self.zero_tol, sample_weight=sample_weight
            )
        return check_model_params(model, n_features)

    def _fit_general(self, X, y_index, n_classes, model, sample_weight=None):
        """Fit with any transfer model through its mean and variance.

        ``E[Z | X] = X' + 1 a^T``: the solvers work on ``X'`` (sparse when
        ``X`` is) and the constant row only moves the intercept,
        ``b = b' - a.W``, which is exact because the intercept is neither
        penalised nor corrupted (see :mod:`flda_core.transfer_models`).
        """
        n, n_features = X.shape
        X = model.prepare(X)
        active = model.informative() & (nonzero_rate(X, sample_weight=sample_weight) > 0)
        X_active = _select_columns(X, active)
        model = model.take(active)
        X_mean, shift = model.mean_parts(X_active)
        self._check_transfer_scale(X_mean, shift)
        n_out = 1 if n_classes == 2 else n_classes
        init = self._warm_start_init(n_out, n_features, active, shift)
        if self.loss == "quadratic":
            W, b, self.solver_, self.n_iter_ = solve_quadratic(
                X_mean,
                quadratic_targets(y_index, n_classes),
                None,
                self.l2,
                self.solver,
                tol=self.tol,
                max_iter=self.max_iter,
                variance_sums=model.variance_column_sums(X_active, sample_weight),
                init=None if init is None else init[0],
                sample_weight=sample_weight,
            )
        else:
            V_part, row = model.variance_parts(X_active)
            if sp.issparse(X_mean) and np.any(row):
                if n * X_mean.shape[1] > MAX_DENSE_ENTRIES:
                    raise ValueError(
                        f"transfer={self.transfer!r} with the logistic loss makes the variance "
                        f"dense for sparse input ({n} x {X_mean.shape[1]} values, more than "
                        f"{MAX_DENSE_ENTRIES:,}). Use loss='quadratic' (stays sparse), "
                        "transfer='dropout', or fewer features."
                    )
                X_mean, V_part = X_mean.toarray(), V_part.toarray()
            variance = V_part + row if not sp.issparse(V_part) else V_part
            W, b, self.n_iter_ = solve_logistic(
                X_mean,
                y_index,
                n_classes,
                None,
                self.l2,
                tol=self.tol,
                max_iter=self.max_iter,
                variance=variance,
                init=init,
                sample_weight=sample_weight,
            )
            self.solver_ = "lbfgs"
        self.coef_ = np.zeros((n_out, n_features))
        self.coef_[:, active] = W.T
        self.intercept_ = (np.asarray(b, dtype=np.float64) - shift @ W).reshape(n_out)
        _check_finite_fit(self, f"transfer={self.transfer!r}")
        return self

    def _check_transfer_scale(self, X_mean, shift):
        """``E[z | x]`` of the transfer model must be squarable, as the features are."""
        params = {
            k: float(np.max(np.abs(v))) if np.size(v) else 0.0 for k, v in self.transfer_params_.items()
        }
        largest = max(
            float(abs(X_mean).max()) if X_mean.size else 0.0,
            float(np.max(np.abs(shift))) if shift.size else 0.0,
            *params.values(),
        )
        if largest > MAX_ABS_FEATURE or not np.isfinite(largest):
            given = (
                "the given transfer_params"
                if self.transfer_params is not None
                else "the estimated transfer model"
            )
            worst = max(params, key=params.get)
            raise ValueError(
                f"transfer={self.transfer!r} with {given} makes E[z | x] or its parameters "
                f"as large as {largest:.3g} (parameter {worst!r} reaches "
                f"{params[worst]:.3g}); FLDA squares these values (Eq. (10)), which "
                "overflows 64-bit floats beyond about 1e154. "
                "Keep transfer_params on the scale of the data (e.g. an imputation mean "
                "within the range of the feature), or rescale the features."
            )

    @available_if(_streams_dropout_quadratic)
    def partial_fit(self, X, y, classes=None, X_target=None, sample_weight=None):
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
        sample_weight : None
            Not supported: any value other than ``None`` raises a
            ``ValueError`` (the accumulated statistics are unweighted; use
            :meth:`fit` with ``sample_weight`` on the whole data).

        Returns
        -------
        self : FLDAClassifier
        """
        check_parameters(self)
        if sample_weight is not None:
            raise ValueError(
                "partial_fit does not support sample_weight (its accumulated statistics are "
                "unweighted); use fit(X, y, X_target=..., sample_weight=...) on all the data."
            )
        return dask_support.partial_fit_quadratic(self, X, y, classes, X_target)

    def decision_function(self, X, sample_domain=None):
        """Linear scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored: the adapted classifier scores
            every domain alike.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            One column for two classes (positive means ``classes_[1]``); lazy for a
            dask array.
        """
        check_is_fitted(self)
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "decision_function")
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=np.float64,
            reset=False,
            ensure_all_finite=self._finite_check(),
        )
        if _MODELS[self.transfer].allows_nan:
            X = self.transfer_model_.prepare(X)  # missing cells take the source mean
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X, sample_domain=None):
        """Predicted class labels for ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of ``classes_``; lazy for a dask array.
        """
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "predict")
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else np.argmax(scores, axis=1)
        return self.classes_[index]

    @available_if(_is_logistic)
    def predict_proba(self, X, sample_domain=None):
        """Class probabilities of the logistic model (FLDA-L only).

        Calibration: these are the probabilities of the fitted linear model, trained on
        source data under the transfer model, not calibrated on the target.  With a
        nearly unpenalised fit they are overconfident on the target, as the source
        classifier's are: on Table 5's A→W (counts divided by the file's largest) at
        ``l2 = 1e-8`` the expected calibration error on the target (10 bins) is 0.37
        for FLDA-L and 0.37 for S-LR (this estimator with ``theta=0``), the mean top
        probability 0.71 against an accuracy of 0.35; at ``l2 = 1e-5`` both are 0.03-0.04.
        Choose ``l2`` by cross-validation (:class:`flda_core.FLDAClassifierCV`) before
        reading the probabilities; the source folds cannot calibrate them for the target.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            skada's convention, accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1, columns in the order of ``classes_``; lazy for a dask array.
        """
        if dask_support.is_dask_collection(X):
            return dask_support.predict_lazy(self, X, "predict_proba")
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return softmax(scores, copy=False)

    @available_if(_is_logistic)
    def predict_log_proba(self, X, sample_domain=None):
        """Logarithm of :meth:`predict_proba` (FLDA-L only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sample_domain : array-like, optional
            Accepted and ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))

    def score(self, X, y, sample_weight=None, sample_domain=None):
        """Accuracy on ``(X, y)``, as scikit-learn's ``ClassifierMixin.score``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the rows in the accuracy.
        sample_domain : array-like of shape (n_samples,), optional
            skada's convention: rows of a target domain (negative label) whose ``y``
            is skada's mask (``-1``, or ``NaN``) are left out, their labels being
            unknown.

        Returns
        -------
        float
            The (weighted) share of rows predicted right.
        """
        keep = _score_rows(y, sample_domain)
        if keep is not None and not keep.all():
            rows = np.flatnonzero(keep)
            X, y = take_rows(X, rows), np.asarray(y)[rows]
            sample_weight = None if sample_weight is None else np.asarray(sample_weight)[rows]
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = _MODELS[self.transfer].allows_nan
        return tags
