"""A family of transfer models for FLDA beyond dropout.

FLDA (Kouw et al., 2016) needs from its transfer model ``p(z | x)`` only two
things to evaluate the expected quadratic loss exactly (eq. (10)) and the
second-order Taylor approximation of the expected logistic loss (eqs.
(12)-(13), Appendix C): the conditional mean ``E[z | x]`` and the conditional
covariance, which is diagonal because every model here acts on each feature
independently (factorised over features, as dropout in section 3.3.1).

Why mean and variance suffice (general form of eqs. (10) and (13)).  Write
``m_i = E[z_i | x_i]`` and ``v_i = diag Var[z_i | x_i]``.

* Quadratic loss: ``E (t - w.z - b)**2 = (t - w.m - b)**2 + sum_d v_d w_d**2``
  exactly, so FLDA-Q solves ridge regression on ``M`` with the per-feature
  penalty ``sum_i v_id`` (eq. (11) with ``E = M`` and ``V = diag(sum_i v_i)``).
* Logistic loss: expanding the log-partition ``A`` around ``a_i = W^T m_i + b``
  (not around ``W^T x_i + b`` as for dropout, where ``m_i = x_i``), the
  first-order term ``A'(a_i) E[W^T z_i - W^T m_i]`` vanishes for every model,
  and the second-order term is ``1/2 tr(Hess A(a_i) W^T diag(v_i) W)``.  So
  :func:`flda_core.objectives.logistic_multinomial_objective` evaluated with
  ``X = M`` and ``Q = V`` is the expected loss of any model below.

Every model writes its moments as "sparse part + constant row":
``M = X' + 1 a^T`` and ``V = V' + 1 u^T`` where ``X'`` and ``V'`` are zero
wherever ``X`` is zero (so they stay sparse for sparse ``X``) and ``a``, ``u``
are per-feature constants.  Because the intercept is neither penalised nor
corrupted, a constant row ``a`` only re-parametrises the intercept
(``b = b' - a.W``): the solvers work on ``X'`` and never densify the mean.
A constant variance row ``u`` is harmless for the quadratic loss (only column
sums of ``V`` enter) but makes the logistic variance term dense; sparse input
with such a model and the logistic loss is densified if it fits in
:data:`MAX_DENSE_ENTRIES`, otherwise a clear error names the alternatives.

Models (``TRANSFER_MODELS`` gives one-line explanations for user interfaces):

``"dropout"``  -- the paper's model (eq. (8)), unchanged.
``"imputation"`` -- a feature goes missing in the target with probability
  ``theta_d`` and is then mean-imputed with the source mean ``mu_d`` (the
  paper's suggestion in section 4.2.2 / 5); missing cells are ``NaN``.
``"two-sided"`` -- each feature either drops out (its non-zero rate fell) or
  "blanks in" (its non-zero rate rose): a source zero becomes ``c_d`` with
  probability ``phi_d``.
``"rate"`` -- a count feature's rate changes by a factor ``r_d``: every unit
  of the source count becomes a random number of units with mean ``r_d``.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research, 17(171), 1-32.

Examples
--------
>>> from flda_core import FLDAClassifier
>>> from flda_core.synthetic import make_appearance_domains
>>> data = make_appearance_domains(n_source=2000, n_target=2000, random_state=0)
>>> clf = FLDAClassifier(transfer="two-sided").fit(
...     data.X_source, data.y_source, X_target=data.X_target)
>>> clf.phi_.round(1)
array([0.6, 0. , 0. , 0. ])
>>> clf.transfer_model_.params()["phi"].round(2)
array([0.62, 0.  , 0.  , 0.  ])
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from flda_core.transfer import (
    check_theta,
    dropout_from_rates,
    dropout_variance_factor,
    estimate_dropout,
    nonzero_rate,
)

__all__ = [
    "TRANSFER_MODELS",
    "MAX_DENSE_ENTRIES",
    "TransferModel",
    "DropoutTransfer",
    "ImputationTransfer",
    "TwoSidedTransfer",
    "RateTransfer",
    "make_transfer_model",
]

#: One-line explanation of every transfer model, for user interfaces.
TRANSFER_MODELS = {
    "dropout": (
        "Features vanish in the target: each feature is zeroed with probability θ "
        "and survivors scaled by 1/(1−θ) (the paper's model, section 3.3.1)."
    ),
    "imputation": (
        "Values go missing in the target with probability θ and are replaced by "
        "the source mean μ; missing cells stay missing (NaN), not zero."
    ),
    "two-sided": (
        "Each feature either drops out (θ, where it became rarer) or appears "
        "(a zero becomes c with probability φ, where it became more common)."
    ),
    "rate": (
        "Counts change rate: every unit of a source count becomes on average r units "
        "in the target (thinning for r < 1, extra Poisson counts for r > 1)."
    ),
}

#: Largest ``n_samples * n_features`` a sparse input is densified to (160 MB in float64).
MAX_DENSE_ENTRIES = 20_000_000


def _random(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))


def _as_float(X, allow_nan=False):
    return check_array(
        X,
        accept_sparse=("csr", "csc"),
        dtype=np.float64,
        ensure_all_finite="allow-nan" if allow_nan else True,
    )


def _column_mean(X, weights=None):
    """Column means of ``X``, weighted by ``weights`` if given."""
    if weights is None:
        return np.asarray(X.mean(axis=0)).ravel()
    weights = np.asarray(weights, dtype=np.float64)
    return np.asarray(X.T @ weights).ravel() / weights.sum()


def _scale_columns(X, factor):
    """``X * factor`` (per column), keeping CSR sparsity."""
    if sp.issparse(X):
        return sp.csr_matrix(X).multiply(factor).tocsr()
    return X * factor


def _on_nonzeros(X, values):
    """``1[X != 0] * values`` per column (CSR for sparse ``X``)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.eliminate_zeros()
        X.data = values[X.indices].astype(np.float64)
        return X
    return (X != 0) * values


class TransferModel:
    """Base class: a per-feature transfer model ``p(z | x)``.

    Subclasses set ``name``, their parameter arrays (listed in
    ``param_names``) and implement :meth:`mean_parts`, :meth:`variance_parts`,
    :meth:`sample` and :meth:`fit`.  All parameters are arrays of shape
    ``(n_features,)``.  ``fit(X_source, X_target, zero_tol=0.0,
    sample_weight=None, target_weight=None)`` weights the source statistics by
    ``sample_weight`` (as if row ``i`` were repeated ``w_i`` times) and the
    target statistics by ``target_weight`` (``FLDAClassifier`` leaves the
    target unweighted; it passes the source weights when it fits a model on
    the source alone, "no shift").
    """

    name = ""
    param_names = ()
    #: Whether a missing value (NaN) is part of the model (only imputation).
    allows_nan = False

    def params(self):
        """``{name: array}`` of the model's (estimated or given) parameters."""
        return {k: np.asarray(getattr(self, k)) for k in self.param_names}

    def take(self, columns):
        """The same model on a subset of features (parameters sliced)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for k in self.param_names:
            setattr(new, k, np.asarray(getattr(self, k))[columns])
        return new

    def informative(self):
        """Features that can carry weight (e.g. not dropped with certainty)."""
        return np.ones(len(getattr(self, self.param_names[0])), dtype=bool)

    def prepare(self, X):
        """Input as the model sees it (imputation fills NaN); validated float."""
        return _as_float(X)

    def mean_parts(self, X):
        """``(X', a)`` with ``E[Z | X] = X' + 1 a^T``; ``X'`` zero where ``X`` is zero."""
        raise NotImplementedError

    def variance_parts(self, X):
        """``(V', u)`` with ``Var[Z | X] = V' + 1 u^T``; ``V'`` zero where ``X`` is zero."""
        raise NotImplementedError

    def mean(self, X):
        """``E[z | x]`` for every row of ``X`` (sparse only if it stays sparse)."""
        return _assemble(*self.mean_parts(self.prepare(X)))

    def variance(self, X):
        """Diagonal ``Var[z | x]`` for every row of ``X`` (sparse only if it stays sparse)."""
        return _assemble(*self.variance_parts(self.prepare(X)))

    def variance_column_sums(self, X, sample_weight=None):
        """``sum_i w_i Var[z_id | x_i]`` per feature (``w = 1`` by default),
        without densifying sparse ``X``."""
        Vp, u = self.variance_parts(X)
        if sample_weight is None:
            return np.asarray(Vp.sum(axis=0)).ravel() + X.shape[0] * u
        weights = np.asarray(sample_weight, dtype=np.float64)
        return np.asarray(Vp.T @ weights).ravel() + weights.sum() * u

    def sample(self, X, random_state=None):
        """Draw one target sample ``z ~ p(z | x)`` per row of dense ``X``."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(self.param_names)})"


def _assemble(part, row):
    """``part + 1 row^T``; stays sparse when ``row`` is all zero."""
    if sp.issparse(part):
        if not np.any(row):
            return sp.csr_matrix(part)
        return part.toarray() + row
    return part + row


class DropoutTransfer(TransferModel):
    """The paper's dropout model (eq. (8), section 3.3.1).

    ``z_d = x_d / (1 - theta_d)`` with probability ``1 - theta_d``, else 0, so
    ``E[z | x] = x`` and ``Var[z_d | x] = theta_d / (1 - theta_d) x_d**2``.
    ML estimate ``theta_d = max(0, 1 - zeta_d / eta_d)`` from the non-zero
    rates (Appendix A; :func:`flda_core.transfer.estimate_dropout`).  Features
    with ``theta_d = 1`` have infinite variance and are not informative.
    """

    name = "dropout"
    param_names = ("theta",)

    def __init__(self, theta=None):
        self.theta = None if theta is None else np.asarray(theta, dtype=np.float64)

    def fit(self, X_source, X_target, zero_tol=0.0, sample_weight=None, target_weight=None):
        self.theta = estimate_dropout(
            X_source, X_target, zero_tol=zero_tol, sample_weight=sample_weight, target_weight=target_weight
        )
        return self

    def informative(self):
        return self.theta < 1.0

    def _factor(self):
        return dropout_variance_factor(self.theta)

    def mean_parts(self, X):
        return X, np.zeros(X.shape[1])

    def variance_parts(self, X):
        c = self._factor()
        if sp.issparse(X):
            return _scale_columns(sp.csr_matrix(X).multiply(X), c), np.zeros(X.shape[1])
        with np.errstate(invalid="ignore"):  # 0 * inf at theta = 1 -> 0
            return np.where(X != 0, X**2 * c, 0.0), np.zeros(X.shape[1])

    def sample(self, X, random_state=None):
        rng = _random(random_state)
        X = np.asarray(X, dtype=np.float64)
        theta = check_theta(self.theta, X.shape[1])
        scale = np.zeros_like(theta)
        scale[theta < 1] = 1.0 / (1.0 - theta[theta < 1])
        return np.where(rng.random(X.shape) >= theta, X * scale, 0.0)


class ImputationTransfer(TransferModel):
    """Missing at random in the target, then mean-imputed.

    Model: ``z_d = x_d`` with probability ``1 - theta_d`` and ``z_d = mu_d``
    (the observed source mean) with probability ``theta_d``.  Hence

    * ``E[z_d | x] = (1 - theta_d) x_d + theta_d mu_d``,
    * ``E[z_d**2 | x] = (1 - theta_d) x_d**2 + theta_d mu_d**2``, so
      ``Var[z_d | x] = theta_d (1 - theta_d) (x_d - mu_d)**2``.

    Unlike zero-filled dropout, the mean is shrunk towards ``mu`` rather than
    kept at ``x``: under mean imputation a missing cell is *not* unbiased for
    the value it hides, and the classifier is trained for that.

    Estimation (moments = ML for independent Bernoulli "is missing" flags):
    with source and target missing rates ``rho_s``, ``rho_t`` (fractions of
    ``NaN`` cells) and the model "a cell observed in the source goes missing
    with probability theta", ``1 - rho_t = (1 - rho_s)(1 - theta)``, so
    ``theta_d = max(0, 1 - (1 - rho_t) / (1 - rho_s))`` (the dropout
    estimator with "observed" in place of "non-zero").  ``mu_d`` is the mean
    of the observed source values (0 if none is observed; such a feature is
    constant after imputation and gets weight 0).  Source cells that are
    missing are filled with ``mu`` before training (ordinary mean
    imputation); at prediction, missing target cells are filled with ``mu``
    too -- exactly the value the model says they take.
    """

    name = "imputation"
    param_names = ("theta", "mu")
    allows_nan = True

    def __init__(self, theta=None, mu=None):
        self.theta = None if theta is None else np.asarray(theta, dtype=np.float64)
        self.mu = None if mu is None else np.asarray(mu, dtype=np.float64)

    @staticmethod
    def missing_rate(X, sample_weight=None):
        """Fraction of missing (NaN) cells per feature (weighted by ``sample_weight``)."""
        X = _as_float(X, allow_nan=True)
        if sample_weight is not None:
            weights = np.asarray(sample_weight, dtype=np.float64)
            if sp.issparse(X):
                gaps = sp.csr_matrix(X, copy=True)
                gaps.data = np.isnan(gaps.data).astype(np.float64)
            else:
                gaps = np.isnan(X).astype(np.float64)
            return np.asarray(gaps.T @ weights).ravel() / weights.sum()
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            return np.bincount(X.indices[np.isnan(X.data)], minlength=X.shape[1]) / X.shape[0]
        return np.isnan(X).mean(axis=0)

    def fit(self, X_source, X_target, zero_tol=0.0, sample_weight=None, target_weight=None):
        X_source = _as_float(X_source, allow_nan=True)
        rho_s = self.missing_rate(X_source, sample_weight)
        rho_t = self.missing_rate(X_target, target_weight)
        if rho_s.shape != rho_t.shape:
            raise ValueError("Source and target must share one feature space.")
        observed = 1.0 - rho_s
        self.theta = np.zeros_like(rho_s)
        seen = observed > 0
        self.theta[seen] = np.clip(1.0 - (1.0 - rho_t[seen]) / observed[seen], 0.0, 1.0)
        dense = X_source.toarray() if sp.issparse(X_source) else X_source
        if sample_weight is None:
            counts = np.sum(~np.isnan(dense), axis=0)
            sums = np.nansum(dense, axis=0)
        else:
            weights = np.asarray(sample_weight, dtype=np.float64)
            counts = (~np.isnan(dense)).T.astype(np.float64) @ weights
            sums = np.where(np.isnan(dense), 0.0, dense).T @ weights
        self.mu = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
        return self

    def informative(self):
        return self.theta < 1.0

    def prepare(self, X):
        """Missing cells (NaN) take the source mean ``mu``."""
        X = _as_float(X, allow_nan=True)
        if sp.issparse(X):
            X = sp.csr_matrix(X, copy=True)
            gaps = np.isnan(X.data)
            X.data[gaps] = self.mu[X.indices[gaps]]
            return X
        gaps = np.isnan(X)
        if gaps.any():
            X = np.where(gaps, self.mu, X)
        return X

    def mean_parts(self, X):
        return _scale_columns(X, 1.0 - self.theta), self.theta * self.mu

    def variance_parts(self, X):
        # theta (1 - theta) (x - mu)^2 = k (x^2 - 2 mu x) + k mu^2
        k = self.theta * (1.0 - self.theta)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            sparse_part = X.multiply(X) - X.multiply(2.0 * self.mu)
            return _scale_columns(sparse_part, k), k * self.mu**2
        return k * (X**2 - 2.0 * self.mu * X), k * self.mu**2

    def sample(self, X, random_state=None):
        rng = _random(random_state)
        X = np.asarray(X, dtype=np.float64)
        return np.where(rng.random(X.shape) < self.theta, self.mu, X)


class TwoSidedTransfer(TransferModel):
    """Dropout where a feature became rarer, appearance ("blank-in") where it became commoner.

    Per feature exactly one of ``theta_d``, ``phi_d`` is non-zero.

    * Dropout side (eq. (8)): ``E = x``, ``Var = theta/(1-theta) x**2``.
    * Appearance side: a source zero becomes ``c_d`` with probability
      ``phi_d``; non-zeros are kept.  With ``s = 1[x_d = 0]``,
      ``E[z_d | x] = x_d + s phi_d c_d`` and
      ``Var[z_d | x] = s phi_d (1 - phi_d) c_d**2`` (a scaled Bernoulli on the
      zeros, nothing on the non-zeros).

    Estimation.  With source / target non-zero rates ``eta_d``, ``zeta_d``:
    where ``zeta_d <= eta_d`` the paper's ``theta_d = 1 - zeta_d / eta_d``;
    where ``zeta_d > eta_d`` the model gives
    ``zeta = eta + (1 - eta) phi``, so ``phi_d = (zeta_d - eta_d) / (1 - eta_d)``
    (the ML estimate of the compound Bernoulli, as in Appendix A), and
    ``c_d`` = mean of the non-zero target values of feature ``d`` (moment
    estimate of the value that appears).  A feature never non-zero in the
    source stays uninformative (its mean column is the constant ``phi c``).
    "Zero" means exactly 0 here (``zero_tol`` only affects the rates).
    """

    name = "two-sided"
    param_names = ("theta", "phi", "value")

    def __init__(self, theta=None, phi=None, value=None):
        self.theta = None if theta is None else np.asarray(theta, dtype=np.float64)
        self.phi = None if phi is None else np.asarray(phi, dtype=np.float64)
        self.value = None if value is None else np.asarray(value, dtype=np.float64)

    def fit(self, X_source, X_target, zero_tol=0.0, sample_weight=None, target_weight=None):
        eta = nonzero_rate(X_source, zero_tol, sample_weight)
        zeta = nonzero_rate(X_target, zero_tol, target_weight)
        self.theta = dropout_from_rates(eta, zeta)
        self.phi = np.zeros_like(eta)
        up = (zeta > eta) & (eta < 1.0)
        self.phi[up] = (zeta[up] - eta[up]) / (1.0 - eta[up])
        X_target = _as_float(X_target)
        if target_weight is None:
            totals = np.asarray(X_target.sum(axis=0)).ravel()
            nonzero_counts = (
                np.asarray((X_target != 0).sum(axis=0)).ravel()
                if sp.issparse(X_target)
                else np.count_nonzero(X_target, axis=0)
            )
        else:  # weighted sums / weighted counts: the same ratio on repeated rows
            totals = _column_mean(X_target, target_weight)
            nonzero_counts = nonzero_rate(X_target, 0.0, target_weight)
        self.value = np.divide(totals, nonzero_counts, out=np.zeros_like(totals), where=nonzero_counts > 0)
        return self

    def informative(self):
        return self.theta < 1.0

    def mean_parts(self, X):
        shift = self.phi * self.value
        return X - _on_nonzeros(X, shift), shift

    def variance_parts(self, X):
        dropout = DropoutTransfer(self.theta).variance_parts(X)[0]
        k = self.phi * (1.0 - self.phi) * self.value**2
        return dropout - _on_nonzeros(X, k), k

    def sample(self, X, random_state=None):
        rng = _random(random_state)
        X = np.asarray(X, dtype=np.float64)
        Z = DropoutTransfer(self.theta).sample(X, rng)
        appear = (X == 0) & (rng.random(X.shape) < self.phi)
        return np.where(appear, self.value, Z)


class RateTransfer(TransferModel):
    """A multiplicative rate change for non-negative counts.

    Model (a one-step branching process): every unit of a source count
    ``x_d`` independently becomes ``N`` units in the target, with
    ``E N = r_d``; for ``r_d <= 1`` ``N ~ Bernoulli(r_d)`` (binomial thinning,
    ``z ~ Binomial(x, r)``), for ``r_d > 1`` ``N = 1 + Poisson(r_d - 1)``.
    Summing ``x`` independent units,

    * ``E[z_d | x] = r_d x_d``,
    * ``Var[z_d | x] = g(r_d) x_d`` with ``g(r) = r (1 - r)`` for ``r <= 1``
      and ``g(r) = r - 1`` for ``r > 1``.

    Why this choice: it is the only simple count model we found that (i) keeps
    zeros at zero (sparse stays sparse), (ii) is the identity at ``r = 1``
    (``Var = 0``, so FLDA reduces to the plain classifier), (iii) covers both
    a falling and a rising rate, and (iv) has variance linear in the count, as
    counts have.  A Poisson re-draw ``z ~ Poisson(r x)`` fails (ii); a
    deterministic rescaling ``z = r x`` has no variance and so no
    regularisation.  Non-integer values are allowed (the moments are used
    as written) but values must be non-negative.

    Estimation: ``r_d = mean_t(x_d) / mean_s(x_d)``, the moment estimator of
    ``E z = r E x``.  It equals the ratio of the non-zero means when the
    non-zero rates agree (``r > 1`` never creates or removes zeros); under
    thinning (``r < 1``) zeros are created and the ratio of non-zero means
    would be biased, so the overall means are used.  A feature absent in the
    source keeps ``r = 1``; one absent in the target gets ``r = 0``
    (uninformative).
    """

    name = "rate"
    param_names = ("rate",)

    def __init__(self, rate=None):
        self.rate = None if rate is None else np.asarray(rate, dtype=np.float64)

    @staticmethod
    def _check_nonnegative(X, name):
        data = X.data if sp.issparse(X) else X
        if np.any(data < 0):
            raise ValueError(
                f"The 'rate' transfer model needs non-negative counts; {name} "
                "has negative values. Use transfer='dropout' or shift the data."
            )

    def fit(self, X_source, X_target, zero_tol=0.0, sample_weight=None, target_weight=None):
        X_source, X_target = _as_float(X_source), _as_float(X_target)
        self._check_nonnegative(X_source, "the source data")
        self._check_nonnegative(X_target, "the target data")
        mean_s = _column_mean(X_source, sample_weight)
        mean_t = _column_mean(X_target, target_weight)
        self.rate = np.ones_like(mean_s)
        present = mean_s > 0
        self.rate[present] = mean_t[present] / mean_s[present]
        return self

    def informative(self):
        return self.rate > 0

    def _unit_variance(self):
        r = self.rate
        return np.where(r <= 1.0, r * (1.0 - r), r - 1.0)

    def mean_parts(self, X):
        return _scale_columns(X, self.rate), np.zeros(X.shape[1])

    def variance_parts(self, X):
        g = self._unit_variance()
        changed = _scale_columns(X, (g != 0).astype(np.float64))
        self._check_nonnegative(changed, "X (in a feature whose rate changes)")
        return _scale_columns(X, g), np.zeros(X.shape[1])

    def sample(self, X, random_state=None):
        """Exact draws for integer counts (thinning or 1 + Poisson per unit)."""
        rng = _random(random_state)
        X = np.asarray(X, dtype=np.float64)
        if np.any(np.round(X) != X) or np.any(X < 0):
            raise ValueError("sample() needs non-negative integer counts.")
        counts = X.astype(np.int64)
        r = np.broadcast_to(self.rate, X.shape)
        thin = rng.binomial(counts, np.minimum(r, 1.0))
        grow = counts + rng.poisson(counts * np.maximum(r - 1.0, 0.0))
        return np.where(r <= 1.0, thin, grow).astype(np.float64)


_MODELS = {cls.name: cls for cls in (DropoutTransfer, ImputationTransfer, TwoSidedTransfer, RateTransfer)}


def make_transfer_model(name, params=None):
    """An (unfitted, or with ``params`` given, ready) transfer model by name.

    Parameters
    ----------
    name : {"dropout", "imputation", "two-sided", "rate"}
    params : dict, optional
        Parameter arrays (e.g. ``{"theta": ..., "mu": ...}`` for imputation);
        every parameter of the model must be given.

    Returns
    -------
    TransferModel
        Its ``fit(X_source, X_target)`` estimates the parameters when ``params`` is
        None; ``mean`` and ``variance`` give E[z | x] and Var[z | x].
    """
    if name not in _MODELS:
        raise ValueError(f"Unknown transfer model {name!r}; choose from {sorted(_MODELS)}.")
    cls = _MODELS[name]
    if params is None:
        return cls()
    missing = [k for k in cls.param_names if k not in params]
    extra = [k for k in params if k not in cls.param_names]
    if missing or extra:
        raise ValueError(
            f"The {name!r} transfer model takes parameters {list(cls.param_names)}; "
            f"missing {missing}, unknown {extra}."
        )
    return cls(**params)


def check_model_params(model, n_features):
    """Validate shapes and ranges of a model's parameters (broadcast scalars)."""
    for k in model.param_names:
        value = np.asarray(getattr(model, k), dtype=np.float64)
        if value.ndim == 0:
            value = np.full(n_features, float(value))
        if value.shape != (n_features,) or not np.all(np.isfinite(value)):
            raise ValueError(f"Transfer parameter {k!r} must be {n_features} finite values.")
        if k in ("theta", "phi") and (np.any(value < 0) or np.any(value > 1)):
            raise ValueError(f"Transfer parameter {k!r} must lie in [0, 1].")
        if k == "rate" and np.any(value < 0):
            raise ValueError("Transfer parameter 'rate' must be >= 0.")
        setattr(model, k, value)
    return model
