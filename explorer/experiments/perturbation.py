"""How wrong may θ̂ be? The perturbation experiment of section 4.1.3 (Table 1, Figure 4).

Table 1 and Figure 4 refit FLDA with the estimated dropout θ̂ (section 3.3.1) of
feature 1 shifted by +0, +0.1, +0.2 and +0.3.  :func:`run_perturbation` is the entry
point of the "Transfer parameters" page.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from flda_core.classifier import FLDAClassifier
from explorer.data.numbers import format_values
from explorer.names import FAMILIES, LOSS_TITLES, LOSSES, classifier_name, subscript
from flda_core.transfer import estimate_dropout
from explorer.experiments.progress import finish, report, scaled
from explorer.experiments.synthetic import PAPER_FIGURE2, ExperimentResult, fit_classifiers, fit_linear

#: Spacing of the perturbations of the error curve (section 4.1.3 uses steps of 0.1).
CURVE_STEP = 0.05

#: Perturbations added to the estimated theta of feature 1 in Table 1 / Figure 4.
PAPER_PERTURBATIONS = (0.0, 0.1, 0.2, 0.3)
#: Section 4.1.3, Table 1 (same data model as Figure 2). Keys of ``errors``:
#: S-*/T-* names, and ``"FLDA-Q+0.1"`` etc. for the perturbed FLDA fits.
PAPER_TABLE1 = replace(
    PAPER_FIGURE2,
    label="Table 1 / Figure 4 (Poisson, perturbed theta)",
    errors={
        "S-LS": 0.245,
        "T-LS": 0.137,
        "FLDA-Q+0": 0.138,
        "FLDA-Q+0.1": 0.145,
        "FLDA-Q+0.2": 0.149,
        "FLDA-Q+0.3": 0.150,
        "S-LR": 0.264,
        "T-LR": 0.139,
        "FLDA-L+0": 0.139,
        "FLDA-L+0.1": 0.140,
        "FLDA-L+0.2": 0.142,
        "FLDA-L+0.3": 0.146,
    },
    summary="The paper reports that adding 0.1-0.3 to the estimated theta of feature 1 "
    "raises the target error only by a few percent (FLDA-Q <FLDA-Q+0> -> <FLDA-Q+0.3>, "
    "FLDA-L <FLDA-L+0> -> <FLDA-L+0.3>), while the naive S-LS / S-LR stay at "
    "<S-LS> / <S-LR>.",
)


def feasible_perturbations(theta_value, perturbations):
    """The perturbations ``d`` (in order) for which ``theta_value + d`` is a valid dropout
    in [0, 1], up to a rounding tolerance of 1e-12."""
    return [float(d) + 0.0 for d in perturbations if -1e-12 <= theta_value + d <= 1 + 1e-12]


def perturbation_sweep(
    pair, perturbations, feature=0, losses=LOSSES, l2=0.0, theta_base=None, progress=None, fit=None
):
    """Refit FLDA with one feature's dropout shifted: section 4.1.3, Table 1 / Figure 4.

    For each loss and each ``d`` in ``perturbations`` FLDA is fitted with
    ``theta = theta_base`` except ``theta[feature] = theta_base[feature] + d``.

    Parameters
    ----------
    pair : DomainPair
    perturbations : sequence of float
        Amounts added to ``theta_base[feature]``; every sum must lie in [0, 1]
        (filter with :func:`feasible_perturbations`).
    feature : int, default=0
        Zero-based index of the perturbed feature (the paper's feature 1 is 0).
    losses : sequence of {"quadratic", "logistic"}
    l2 : float, default=0.0
    theta_base : array-like of shape (n_features,), optional
        Defaults to the maximum-likelihood estimate from the pair's data.
    progress : callable(fraction, text), optional
        See :mod:`explorer.experiments.progress`.
    fit : callable(family, loss, l2, theta=None, perturbation=None), optional
        Fits one classifier on ``pair``; defaults to :func:`fit_linear`.

    Returns
    -------
    list of FittedLinear
        One per (loss, perturbation), losses outermost; ``perturbation`` set.
    """
    if not 0 <= feature < pair.n_features:
        raise ValueError(f"feature must be in 0..{pair.n_features - 1}, got {feature}.")
    if theta_base is None:
        theta_base = estimate_dropout(pair.X_source, pair.X_target)
    base = np.array(theta_base, dtype=float)
    perturbations = [float(d) for d in perturbations]
    bad = [d for d in perturbations if d not in feasible_perturbations(base[feature], perturbations)]
    if bad:
        raise ValueError(
            f"theta[{feature}] = {base[feature]:.3f} plus {bad} leaves [0, 1]; "
            "use feasible_perturbations() to keep only valid perturbations."
        )
    if fit is None:
        # One warm-started estimator per loss: each refit starts from the
        # previous perturbation's solution (FLDA-L needs fewer L-BFGS steps).
        warm = {loss: FLDAClassifier(warm_start=True) for loss in losses}

        def fit(family, loss, l2, theta=None, perturbation=None):
            return fit_linear(pair, family, loss, l2, theta, perturbation, estimator=warm[loss])

    jobs = [(loss, d) for loss in losses for d in perturbations]
    fits = []
    for i, (loss, d) in enumerate(jobs):
        text = f"Fitting {classifier_name('flda', loss)} with θ̂{feature + 1} {d:+.2f} ({i + 1}/{len(jobs)})"
        report(progress, i, len(jobs), text)
        theta = base.copy()
        theta[feature] = min(1.0, max(0.0, base[feature] + d))
        fits.append(fit("flda", loss, l2, theta=theta, perturbation=d))
    finish(progress)
    return fits


def sweep_frame(fits, feature=0):
    """Long table of a sweep: ``loss``, ``classifier``, ``perturbation``,
    ``theta of feature <feature+1>``, ``target error``, ``source error``."""
    return pd.DataFrame(
        [
            {
                "loss": f.loss,
                "classifier": f.name,
                "perturbation": f.perturbation,
                f"theta of feature {feature + 1}": float(f.theta[feature]),
                "target error": f.target_error,
                "source error": f.source_error,
            }
            for f in fits
        ]
    )


def _perturbation_column(delta, feature):
    return f"θ̂{subscript(feature + 1)}{delta:+g}"


def table1_frame(result, fits, feature=0):
    """Table 1 layout: one row per loss; columns SL, TL, then ``θ̂₁+0``, ``θ̂₁+0.1``, ...

    ``result`` supplies the naive S-* and T-* errors, ``fits`` (from
    :func:`perturbation_sweep`) the perturbed FLDA errors.
    """
    naive = {name: fit.target_error for name, fit in result.classifiers.items()}
    return _table1(naive, {(f.loss, f.perturbation): f.target_error for f in fits}, feature)


def paper_table1_frame():
    """The paper's Table 1 exactly as published, in the layout of :func:`table1_frame`."""
    errors = PAPER_TABLE1.errors
    perturbed = {
        (loss, d): errors[f"{classifier_name('flda', loss)}+{d:g}"]
        for loss in LOSSES
        for d in PAPER_PERTURBATIONS
    }
    return _table1(errors, perturbed, 0)


def _table1(naive, perturbed, feature):
    """Table 1 from ``{S-*/T-* name: error}`` and ``{(loss, perturbation): FLDA's error}``;
    without any perturbation, SL and TL of both losses."""
    rows = []
    for loss in LOSSES:
        columns = sorted((d, error) for (of, d), error in perturbed.items() if of == loss)
        if perturbed and not columns:
            continue
        row = {
            "loss": LOSS_TITLES[loss],
            "SL": naive[classifier_name("source", loss)],
            "TL": naive[classifier_name("target", loss)],
        }
        rows.append(row | {_perturbation_column(d, feature): error for d, error in columns})
    return pd.DataFrame(rows).set_index("loss")


def table1_unperturbed_errors():
    """Table 1's errors of the six classifiers without perturbation (FLDA at θ̂ + 0)."""
    names = [classifier_name(family, loss) for loss in LOSSES for family in FAMILIES]
    return {name: PAPER_TABLE1.errors[f"{name}+0" if name.startswith("FLDA") else name] for name in names}


def curve_grid(lo, hi, step=CURVE_STEP):
    """Perturbations ``lo, lo + step, ..., hi`` (rounded to 2 decimals, ``-0.0`` as 0)."""
    return [round(k * step, 2) + 0.0 for k in range(round(lo / step), round(hi / step) + 1)]


@dataclass(frozen=True)
class PerturbationResult:
    """The naive classifiers and FLDA at every perturbation of one feature's θ̂.

    Attributes
    ----------
    feature : int
        Zero-based index of the perturbed feature.
    naive : ExperimentResult
        S-LS, T-LS, S-LR, T-LR (no FLDA) with ``theta_hat`` the unperturbed estimate.
    sweep : list of FittedLinear
        FLDA at every perturbation of ``curve`` (losses outermost).
    chosen : list of float
        The requested perturbations that keep θ in [0, 1] (Table 1's columns,
        Figure 4's boundaries).
    skipped : list of float
        The requested perturbations that would leave [0, 1].
    curve : list of float
        Feasible perturbations of the error curve (including ``chosen``);
        empty when none keeps θ in [0, 1] (then nothing else was fitted).
    """

    feature: int
    naive: ExperimentResult
    sweep: list = field(default_factory=list)
    chosen: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    curve: list = field(default_factory=list)

    @property
    def theta_hat(self):
        return self.naive.theta_hat

    def chosen_fits(self, loss=None):
        """The FLDA fits of :attr:`chosen` (of one loss, if given)."""
        return [f for f in self.sweep if f.perturbation in self.chosen and (loss is None or f.loss == loss)]

    def table1(self):
        """This run's Table 1 (:func:`table1_frame`)."""
        return table1_frame(self.naive, self.chosen_fits(), self.feature)


def run_perturbation(
    pair,
    feature=0,
    perturbations=PAPER_PERTURBATIONS,
    curve_range=(-0.5, 0.5),
    l2=0.0,
    fit=None,
    progress=None,
    chosen_only=False,
):
    """Table 1 and Figure 4 (section 4.1.3) on ``pair``: the experiment's entry point.

    θ̂ is the estimate FLDA-Q uses; the perturbations of ``feature`` (zero-based: the
    paper's feature 1 is 0) that keep ``θ̂ + d`` in [0, 1] are fitted: ``perturbations``
    for the table and the boundaries, a grid of spacing :data:`CURVE_STEP` over ``curve_range``
    for the error curve (:func:`curve_grid`), with the naive S-* and T-* classifiers
    for reference.

    Parameters
    ----------
    fit : callable(family, loss, l2, theta=None, perturbation=None), optional
        Fits one classifier on ``pair``; defaults to :func:`fit_linear`.  A page
        passes its cached version.
    progress : callable(fraction, text), optional
    chosen_only : bool, default=False
        Fit FLDA only at the chosen perturbations (Figure 4's boundaries; a page's first
        chart comes sooner); ``curve`` still lists every feasible point of the grid.

    Returns
    -------
    PerturbationResult
    """
    fit = functools.partial(fit_linear, pair) if fit is None else fit
    theta_hat = estimate_dropout(pair.X_source, pair.X_target)  # what FLDA's fit estimates, without a fit
    requested = sorted(float(d) for d in perturbations)
    chosen = feasible_perturbations(theta_hat[feature], requested)
    curve = feasible_perturbations(theta_hat[feature], sorted(set(curve_grid(*curve_range)) | set(chosen)))
    skipped = sorted(set(requested) - set(chosen))
    if not curve:
        naive = ExperimentResult(np.asarray(pair.theta_true, dtype=float), theta_hat, {})
        return PerturbationResult(feature, naive, [], chosen, skipped, [])
    fitted = chosen if chosen_only else curve
    share = 2 / (2 + len(fitted))  # two naive families, then the sweep
    naive = fit_classifiers(pair, LOSSES, l2, scaled(progress, 0.0, share), fit, ("source", "target"))
    naive = ExperimentResult(naive.theta_true, theta_hat, naive.classifiers)
    sweep = perturbation_sweep(
        pair, fitted, feature, LOSSES, l2, theta_hat, scaled(progress, share, 1.0), fit
    )
    finish(progress)
    return PerturbationResult(feature, naive, sweep, chosen, skipped, curve)


def own_theta_fits(theta_own, theta_hat, l2=0.0, fit=None, pair=None):
    """FLDA of both losses at a θ the user chose; ``{}`` when it equals θ̂.

    ``fit`` as in :func:`run_perturbation` (or ``pair`` to fit directly).
    """
    if np.allclose(theta_own, theta_hat):
        return {}
    fit = functools.partial(fit_linear, pair) if fit is None else fit
    return {loss: fit("flda", loss, l2, theta=np.asarray(theta_own, dtype=float)) for loss in LOSSES}


def own_theta_frame(own_fits, boundary=None):
    """One row per FLDA fit of :func:`own_theta_fits`: θ, errors and the text of the
    decision boundary (``boundary(fit)``, optional)."""
    return pd.DataFrame(
        [
            {
                "classifier": f.name,
                "theta": format_values(np.round(f.theta, 3)),
                "target error": f.target_error,
                "source error": f.source_error,
                "decision boundary": boundary(f) if boundary is not None else "",
            }
            for f in own_fits.values()
        ]
    )
