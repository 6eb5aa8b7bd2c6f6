"""Learning curves of S-LS, T-LS and FLDA-Q (paper section 4.1.2, Figure 3: the quadratic
loss only, as in the paper).

Four independent data sets are drawn (source/target training and validation).  For every
repeat and training-set size ``n``, S-LS trains on ``n`` labelled source samples, T-LS (the
oracle) on ``n`` labelled target samples and FLDA-Q on the same ``n`` source samples plus
``n`` *unlabelled* target samples (section 3.3.1, Algorithm 1); each is scored on both
validation sets.  The curves are the mean error over repeats with its SEM.

Within a repeat the training subsets are nested prefixes of one random order per domain
(:func:`stratified_order`); T-LS and FLDA share the target order (common random numbers).
All least-squares fits are computed together in closed form (:func:`prefix_sums`,
:func:`quadratic_fits`), equal to ``FLDAClassifier(loss="quadratic", l2=ridge / n)``.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from explorer.data.numbers import parse_numbers
from explorer.names import FAMILIES, classifier_name
from explorer.experiments.progress import finish
from flda_core.synthetic import PAPER_POISSON_PARAMS, PAPER_THETA, make_domains
from flda_core.solvers import solve_quadratic_moments
from flda_core.transfer import dropout_from_rates, dropout_variance_factor
from explorer.experiments.scoring import lattice_error_rates

#: Validation domains: the paper's top (source) and bottom (target) panels.
DOMAINS = ("source", "target")
#: Figure 3's loss: the paper's learning curves are those of S-LS, T-LS and FLDA-Q.
LOSS = "quadratic"
#: Repeats processed together by :func:`quadratic_learning_errors` (memory bound).
REPEAT_BLOCK = 25
#: Spawn-key roots that keep the data draws and the repeat orders independent.
_DATA_KEY, _REPEAT_KEY = 0, 1
#: Columns of the curves table (and of the CSV download).
TABLE_COLUMNS = ["classifier", "family", "loss", "domain", "n", "mean_error", "sem", "repeats"]


@dataclass(frozen=True)
class LearningCurveData:
    """The four data sets of section 4.1.2: the labelled source training pool (subsets
    of it train S-LS and FLDA), the source validation set (Figure 3, top panel), the
    target training pool (labelled for T-LS, unlabelled for FLDA) and the target
    validation set (Figure 3, bottom panel)."""

    X_source_train: np.ndarray
    y_source_train: np.ndarray
    X_source_val: np.ndarray
    y_source_val: np.ndarray
    X_target_train: np.ndarray
    y_target_train: np.ndarray
    X_target_val: np.ndarray
    y_target_val: np.ndarray

    @property
    def n_train(self):
        """Size of the smaller training pool: the largest usable ``n``."""
        return min(len(self.y_source_train), len(self.y_target_train))

    def validation(self, domain):
        """``(X, y)`` of the ``"source"`` or ``"target"`` validation set."""
        if domain not in DOMAINS:
            raise ValueError(f"domain must be 'source' or 'target', got {domain!r}.")
        return getattr(self, f"X_{domain}_val"), getattr(self, f"y_{domain}_val")


def _seed_sequence(seed, *key):
    if seed is not None and (isinstance(seed, bool) or int(seed) != seed or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}.")
    return np.random.SeedSequence(None if seed is None else int(seed), spawn_key=key)


def make_learning_curve_data(
    distribution="poisson",
    params=PAPER_POISSON_PARAMS,
    theta=PAPER_THETA,
    n_train=10_000,
    n_validation=10_000,
    seed=0,
):
    """Draw the source/target training and validation sets of section 4.1.2.

    The training pair and the validation pair are two independent calls of
    :func:`flda_core.synthetic.make_domains` (balanced classes, target made by
    dropout with ``theta``), so all four sets are independent.

    Parameters
    ----------
    distribution : {"poisson", "bernoulli"}, default="poisson"
    params : array-like of shape (2, n_features)
        Poisson rates or Bernoulli probabilities per class (rows) and feature;
        the paper's ``[[2, 2], [6, 6]]`` by default.  Learning curves are for
        two classes only (the quadratic loss uses ``{-1, +1}`` codes).
    theta : array-like of shape (n_features,), default=(0.5, 0)
    n_train, n_validation : int, default=10_000
        Size of each training pool and of each validation set.
    seed : int or None
        The same seed always gives the same four sets.

    Returns
    -------
    LearningCurveData
    """
    params = np.atleast_2d(np.asarray(params, dtype=np.float64))
    if params.shape[0] != 2:
        raise ValueError(f"Learning curves need exactly 2 classes (rows of params); got {params.shape[0]}.")
    train, val = (
        make_domains(
            distribution, params, n, n, theta, np.random.default_rng(_seed_sequence(seed, _DATA_KEY, k))
        )
        for k, n in enumerate((n_train, n_validation))
    )
    # in the dataclass's order: source train, source validation, target train, target validation
    return LearningCurveData(
        *(getattr(pair, f"{a}_{domain}") for domain in DOMAINS for pair in (train, val) for a in ("X", "y"))
    )


def sample_size_grid(n_min=2, n_max=10_000, n_sizes=15):
    """``n_sizes`` roughly log-spaced integer training-set sizes from ``n_min`` to ``n_max``
    (the x-axis of Figure 3), strictly increasing: rounding can merge neighbours at the
    small end, so fewer may be returned; one size is ``n_max``."""
    if int(n_sizes) == 1:
        return np.array([int(n_max)])
    return np.unique(np.round(np.geomspace(int(n_min), int(n_max), int(n_sizes))).astype(int))


def stratified_order(y, rng, classes=None):
    """A random order of ``range(len(y))`` whose every prefix of ``K`` or more has all classes.

    A uniformly random permutation in which the earliest sample of each class
    is moved to the front (keeping the relative order of everything else).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    rng : numpy.random.Generator
    classes : ndarray, optional
        ``np.unique(y)``, passed by callers that draw many orders of the same ``y``
        (sorting ``y`` was half the time of an order).

    Returns
    -------
    order : ndarray of int of shape (n_samples,)
    """
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else classes
    perm = rng.permutation(len(y))
    shuffled = y[perm]
    first = np.sort([np.argmax(shuffled == k) for k in classes])
    return np.concatenate([perm[first], np.delete(perm, first)])


def training_orders(data, repeats, seed):
    """Source and target training orders of the given repeats.

    Repeat ``r`` draws from its own seed sequence ``(seed, 1, r)``, so a repeat
    gives the same orders whether it is computed alone or with others.

    Returns
    -------
    source_orders, target_orders : ndarray of int of shape (len(repeats), n_train_pool)
    """
    source, target = [], []
    source_classes, target_classes = np.unique(data.y_source_train), np.unique(data.y_target_train)
    for r in repeats:
        rng = np.random.default_rng(_seed_sequence(seed, _REPEAT_KEY, int(r)))
        source.append(stratified_order(data.y_source_train, rng, source_classes))
        target.append(stratified_order(data.y_target_train, rng, target_classes))
    return np.array(source, dtype=np.intp), np.array(target, dtype=np.intp)


def prefix_sums(X, t, orders, sizes):
    """Sums over the first ``n`` samples of each order, for every ``n`` in ``sizes``.

    Every sum is a block of one Gram matrix: with ``z = [x, t, 1, x != 0]`` per sample,
    ``sum z z^T`` over a segment holds them all, so each segment between two sizes costs
    one batched matrix product.

    Parameters
    ----------
    X : ndarray of shape (n_pool, m)
    t : ndarray of shape (n_pool,)
        Regression targets (``{-1, +1}``).
    orders : ndarray of int of shape (R, n_pool)
    sizes : ndarray of int of shape (G,), strictly increasing

    Returns
    -------
    dict of ndarray
        ``"xx"`` (R, G, m, m) sum of ``x x^T``; ``"x"`` (R, G, m) sum of ``x``;
        ``"xt"`` (R, G, m) sum of ``x t``; ``"t"`` (R, G) sum of ``t``;
        ``"nonzero"`` (R, G, m) number of non-zero entries per feature.
    """
    sizes = np.asarray(sizes, dtype=int)
    bounds = np.concatenate([[0], sizes])
    X = np.asarray(X, dtype=np.float64)
    R, m, G = orders.shape[0], X.shape[1], len(sizes)
    Z = np.concatenate(
        [X, np.asarray(t, dtype=np.float64)[:, None], np.ones((len(X), 1)), (X != 0).astype(np.float64)],
        axis=1,
    )
    Zo = Z[orders[:, : sizes[-1]]]  # (R, n_max, 2m + 2)
    gram = np.empty((R, G, Z.shape[1], Z.shape[1]))
    for g in range(G):
        Zs = Zo[:, bounds[g] : bounds[g + 1]]
        gram[:, g] = np.matmul(Zs.transpose(0, 2, 1), Zs)
    gram = np.cumsum(gram, axis=1)
    t_col, one_col = m, m + 1
    return {
        "xx": gram[..., :m, :m],
        "x": gram[..., :m, one_col],
        "xt": gram[..., :m, t_col],
        "t": gram[..., t_col, one_col],
        "nonzero": gram[..., m + 2 :, one_col],
    }


def quadratic_fits(sums, sizes, ridge=0.0, theta=None):
    """Closed-form least-squares fits for every (repeat, size) cell at once.

    Solves, per cell, the system of :func:`flda_core.solvers.solve_quadratic` (Eq. (11)
    with the bias split off) with :func:`flda_core.solvers.solve_quadratic_moments`: this
    is ``FLDAClassifier(loss="quadratic", l2=ridge / n)``, a fixed ``ridge`` penalising the
    *summed* loss, the paper's ridge form ``(X X^T + lambda I)^-1 X y`` (section 3.4.1).
    A feature with ``theta = 1`` or no non-zero value in the subset gets weight exactly 0;
    singular systems get the minimum-norm solution.

    Parameters
    ----------
    sums : dict
        Output of :func:`prefix_sums` for the training data of the fits.
    sizes : ndarray of int of shape (G,)
    ridge : float, default=0.0
    theta : ndarray of shape (R, G, m) or None
        Dropout estimates per cell (FLDA-Q); None for plain least squares.

    Returns
    -------
    coef : ndarray of shape (R, G, m)
    intercept : ndarray of shape (R, G)
    """
    xx = sums["xx"]
    n = np.asarray(sizes, dtype=np.float64)  # (G,)
    square_sums = np.diagonal(xx, axis1=-2, axis2=-1)
    active = sums["nonzero"] > 0
    variance = np.zeros_like(square_sums)
    if theta is not None:
        active = active & (theta < 1.0)
        variance[active] = dropout_variance_factor(theta[active]) * square_sums[active]
    coef, intercept = solve_quadratic_moments(
        xx, sums["x"], sums["xt"][..., None], sums["t"][..., None], n, variance, ridge / n, active=active
    )
    return coef[..., 0], intercept[..., 0]


def _check_sizes(sizes, n_pool):
    sizes = np.asarray(sizes, dtype=int)
    if sizes.ndim != 1 or len(sizes) == 0 or np.any(np.diff(sizes) <= 0):
        raise ValueError("sizes must be a non-empty, strictly increasing list of integers.")
    if sizes[0] < 2 or sizes[-1] > n_pool:
        raise ValueError(
            f"sample sizes must lie in 2 .. {n_pool} (the training pool size); got {sizes[0]} .. {sizes[-1]}."
        )
    return sizes


def quadratic_learning_errors(data, sizes, repeats, ridge=0.0, seed=0):
    """Validation errors of S-LS, T-LS and FLDA-Q for the given repeats (batched).

    Parameters
    ----------
    data : LearningCurveData
    sizes : array-like of int, strictly increasing, in ``2 .. data.n_train``
    repeats : sequence of int
        Repeat indices (each has its own training orders, see
        :func:`training_orders`).
    ridge : float, default=0.0
        Fixed l2 penalty on the summed loss, i.e. ``FLDAClassifier(l2=ridge / n)``.
    seed : int

    Returns
    -------
    errors : ndarray of shape (3 families, 2 domains, len(repeats), len(sizes))
        Families in :data:`FAMILIES` order, domains in :data:`DOMAINS` order.
    """
    sizes = _check_sizes(sizes, data.n_train)
    repeats = list(repeats)
    if len(repeats) > REPEAT_BLOCK:  # bound memory: (block, n_max, m) gathers
        return np.concatenate(
            [
                quadratic_learning_errors(data, sizes, repeats[i : i + REPEAT_BLOCK], ridge, seed)
                for i in range(0, len(repeats), REPEAT_BLOCK)
            ],
            axis=2,
        )
    source_orders, target_orders = training_orders(data, repeats, seed)
    t_source = np.where(data.y_source_train == 1, 1.0, -1.0)
    t_target = np.where(data.y_target_train == 1, 1.0, -1.0)
    src = prefix_sums(data.X_source_train, t_source, source_orders, sizes)
    tgt = prefix_sums(data.X_target_train, t_target, target_orders, sizes)
    # estimate_dropout on every (repeat, size) cell: both prefixes have n samples, so the
    # ratio of the non-zero rates is the ratio of the counts (section 3.3.1)
    theta = dropout_from_rates(src["nonzero"], tgt["nonzero"])
    fits = (
        quadratic_fits(src, sizes, ridge),
        quadratic_fits(tgt, sizes, ridge),
        quadratic_fits(src, sizes, ridge, theta=theta),
    )
    errors = np.empty((len(FAMILIES), len(DOMAINS), len(repeats), len(sizes)))
    for f, (coef, intercept) in enumerate(fits):
        for d, domain in enumerate(DOMAINS):
            errors[f, d] = lattice_error_rates(coef, intercept, *data.validation(domain))
    return errors


def _grid(**axes):
    """One row per combination of ``axes`` (column -> values), the last varying fastest:
    the rows of an array's ``ravel()``."""
    return pd.MultiIndex.from_product(list(axes.values()), names=list(axes)).to_frame(index=False)


def summarize_errors(errors, sizes):
    """Mean error and standard error of the mean over repeats, as a long table.

    Parameters
    ----------
    errors : ndarray of shape (3, 2, R, G)
        Errors of S-LS, T-LS and FLDA-Q (:data:`FAMILIES`) on both domains.
    sizes : ndarray of int of shape (G,)

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, family, loss, domain, n, mean_error, sem,
        repeats``; ``sem = std(ddof=1) / sqrt(R)`` (NaN for a single repeat).
    """
    errors = np.asarray(errors, dtype=np.float64)
    mean, sem = _mean_sem(errors, axis=2)
    frame = _grid(family=FAMILIES, domain=DOMAINS, n=np.asarray(sizes, dtype=int))
    names = [classifier_name(f, LOSS) for f in frame["family"]]
    frame = frame.assign(classifier=names, loss=LOSS, mean_error=mean.ravel(), sem=sem.ravel())
    return frame.assign(repeats=errors.shape[2])[TABLE_COLUMNS]


def mean_sem_table(table, decimals=3):
    """Figure 3 as numbers: one row per ``n``, one ``"mean ± SEM"`` column per curve.

    Columns: ``"n"`` (increasing), then ``"<classifier> (target)"`` for every classifier
    of :data:`FAMILIES` (the bottom panel of Figure 3, where FLDA should meet the oracle
    T-LS), then ``"<classifier> (source)"``; cells ``"0.123 ± 0.004"``, just the mean when
    the SEM is undefined (a single repeat).  ``table``: :func:`summarize_errors`.
    """
    if table.empty:
        raise ValueError("The learning-curve table is empty; nothing to tabulate.")
    cells = [
        f"{mean:.{decimals}f}" + (f" ± {sem:.{decimals}f}" if np.isfinite(sem) else "")
        for mean, sem in zip(table["mean_error"], table["sem"])
    ]
    column = table["classifier"] + " (" + table["domain"] + ")"
    wide = table.assign(cell=cells, column=column).pivot(index="n", columns="column", values="cell")
    names = [classifier_name(family, LOSS) for family in FAMILIES]
    wide = wide[[f"{name} ({domain})" for domain in ("target", "source") for name in names]]
    return wide.rename_axis(columns=None).reset_index()


def _mean_sem(values, axis):
    n = values.shape[axis]
    mean = values.mean(axis=axis)
    if n < 2:
        return mean, np.full_like(mean, np.nan)
    return mean, values.std(axis=axis, ddof=1) / np.sqrt(n)


def oracle_gaps(errors, sizes, domain="target"):
    """Error minus the target oracle's error, paired over repeats.

    In every repeat the classifiers share the training orders, so the per-repeat
    differences are paired; their mean and standard error say how far each classifier is
    from the oracle of Figure 3 and whether the gap is significant.

    Returns
    -------
    pandas.DataFrame
        Columns ``classifier, reference, loss, domain, n, mean_gap, sem,
        repeats`` for the source family and FLDA.
    """
    errors = np.asarray(errors, dtype=np.float64)
    d = DOMAINS.index(domain)
    compared = [
        errors[FAMILIES.index(family), d] - errors[FAMILIES.index("target"), d]
        for family in ("source", "flda")
    ]
    mean, sem = _mean_sem(np.stack(compared), axis=1)
    frame = _grid(
        classifier=[classifier_name(f, LOSS) for f in ("source", "flda")], n=np.asarray(sizes, dtype=int)
    )
    frame.insert(1, "reference", classifier_name("target", LOSS))
    frame.insert(2, "loss", LOSS)
    frame.insert(3, "domain", domain)
    return frame.assign(mean_gap=mean.ravel(), sem=sem.ravel(), repeats=errors.shape[2])


@dataclass(frozen=True)
class LearningCurveResult:
    """Errors of S-LS, T-LS and FLDA-Q and their summary table.

    Attributes
    ----------
    errors : ndarray of shape (3 families, 2 domains, repeats, sizes)
    sizes : ndarray of int
    """

    errors: np.ndarray
    sizes: np.ndarray

    @property
    def table(self):
        """The curves as a long table (:func:`summarize_errors`)."""
        return summarize_errors(self.errors, self.sizes)

    @property
    def gaps(self):
        """Target-domain gaps to the oracle (:func:`oracle_gaps`)."""
        return oracle_gaps(self.errors, self.sizes)


def adaptation_sample_size(table, classifier, reference, domain="target", tolerance=0.01):
    """Smallest ``n`` from which ``classifier`` stays within ``tolerance`` of ``reference``.

    Quantifies the paper's reading of Figure 3 ("roughly 20 labeled source samples and 20
    unlabeled target samples are sufficient for FLDA to adapt"): ``|mean_error(classifier)
    - mean_error(reference)| <= tolerance`` on ``domain`` at ``n`` and every larger size.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`summarize_errors`.
    classifier, reference : str
        Paper names, e.g. ``"FLDA-Q"`` and ``"T-LS"``.
    domain : {"source", "target"}
    tolerance : float

    Returns
    -------
    int or None
        None when the curves are still apart at the largest size.
    """
    rows = table[table["domain"] == domain]
    a = rows[rows["classifier"] == classifier].set_index("n")["mean_error"].sort_index()
    b = rows[rows["classifier"] == reference].set_index("n")["mean_error"].sort_index()
    if a.empty or b.empty:
        raise ValueError(f"The table has no {domain!r} curve for {classifier!r} or {reference!r}.")
    close = (a - b).abs().to_numpy() <= tolerance
    if not close[-1]:
        return None
    first_far = np.flatnonzero(~close)
    start = 0 if len(first_far) == 0 else first_far[-1] + 1
    return int(a.index[start])


@dataclass(frozen=True)
class LearningCurveConfig:
    """A validated, hashable setting of the learning-curve experiment (section 4.1.2).

    Attributes
    ----------
    distribution : {"poisson", "bernoulli"}
    params : tuple of tuple of float, shape (2, 2)
    theta : tuple of float
    n_pool : int
        Size of each of the four data sets.
    seed : int
    sizes : tuple of int
        Training-set sizes, strictly increasing, in ``2 .. n_pool``.
    ridge : float
        Fixed l2 penalty on the summed loss (``FLDAClassifier(l2=ridge / n)``).
    """

    distribution: str
    params: tuple
    theta: tuple
    n_pool: int
    seed: int
    sizes: tuple
    ridge: float = 0.0

    def data(self):
        """The four data sets (:func:`make_learning_curve_data`)."""
        n = self.n_pool
        return make_learning_curve_data(self.distribution, self.params, self.theta, n, n, self.seed)


def _sizes(sizes, n_pool):
    """The sizes of :func:`learning_curve_config`; ``ValueError`` naming the problem."""
    if sizes[0] == "log":
        n_min, n_max, n_sizes = (int(v) for v in sizes[1:])
        if n_max > n_pool:
            raise ValueError(
                f"Largest n ({n_max:,}) exceeds the samples per data set "
                f"({n_pool:,}). Lower 'Largest n' or raise 'Samples per data set'."
            )
        if n_min > n_max:
            raise ValueError(f"Smallest n ({n_min:,}) is above largest n ({n_max:,}). Swap or change them.")
        if n_min < 2:
            raise ValueError(f"The smallest sample size must be >= 2 (one per class); got {n_min}.")
        return sample_size_grid(n_min, n_max, n_sizes)
    values = parse_numbers(
        sizes[1],
        empty="Sample sizes: The list of sample sizes is empty; enter e.g. '2, 5, 10, 100, 1000'.",
        not_a_number="Sample sizes: '{token}' is not a number; enter whole numbers separated by commas, "
        "e.g. '2, 5, 10, 100'.",
    )
    for value in values:
        # bounds before int(): 1e400 is inf, and 1e308 has 309 digits (shown as 1e+308)
        if not 2 <= value <= n_pool:
            raise ValueError(
                f"Sample sizes: Sample size {value:.12g} is outside 2 .. {n_pool} (at least one "
                "sample per class, at most the training pool size)."
            )
        if value != int(value):
            raise ValueError(f"Sample sizes: '{value:g}' is not a whole number; sample sizes count samples.")
    return np.unique([int(value) for value in values])


def learning_curve_config(distribution, params, theta, n_pool, seed, sizes, ridge=0.0):
    """Validate a page's settings into a :class:`LearningCurveConfig` plus notes.

    Parameters
    ----------
    sizes : ("log", n_min, n_max, n_sizes) or ("custom", text)
        A log-spaced grid (:func:`sample_size_grid`) or a typed list of whole numbers
        separated by commas, semicolons or white space (``"2, 5, 10, 100"``).

    Returns
    -------
    config : LearningCurveConfig
    notes : list of str
        Settings that are valid but make the experiment pointless (equal
        classes, everything dropped), each with the fix.

    Raises
    ------
    ValueError
        Naming the problem and the fix.
    """
    params = tuple(tuple(float(v) for v in row) for row in params)
    theta = tuple(float(t) for t in theta)
    n_pool = int(n_pool)
    grid = _sizes(sizes, n_pool)
    notes = []
    if params[0] == params[1]:
        notes.append(
            "Both classes have the same class-conditional parameters: there is "
            "nothing to learn and every classifier should sit at 50% error. Change "
            "the class 1 or class 2 values under *Data*."
        )
    if all(t == 1.0 for t in theta):
        notes.append(
            "θ = 1 for every feature: the target domain is all zeros, so no "
            "classifier can beat 50% error there. Lower θ under *Data*."
        )
    config = LearningCurveConfig(
        distribution, params, theta, n_pool, int(seed), tuple(int(n) for n in grid), float(ridge)
    )
    return config, notes


def repeat_errors(config, repeats):
    """Errors of some repeats (:func:`quadratic_learning_errors` on the setting's data):
    the default ``fit`` of :func:`run_learning_curves`.

    Returns
    -------
    errors : ndarray of shape (3, 2, len(repeats), len(config.sizes))
    """
    data, sizes = config.data(), np.array(config.sizes)
    return quadratic_learning_errors(data, sizes, repeats, config.ridge, config.seed)


def run_learning_curves(config, n_repeats, fit=None, progress=None):
    """Figure 3 (section 4.1.2): the entry point of the page, all repeats in one batched call.

    Parameters
    ----------
    config : LearningCurveConfig
    n_repeats : int
    fit : callable(config, repeats) -> errors, optional
        Defaults to :func:`repeat_errors`; a page passes its cached version.
        ``repeats`` is a tuple of repeat indices.
    progress : callable(fraction, text), optional
        See :mod:`explorer.experiments.progress`.

    Returns
    -------
    LearningCurveResult
    """
    if int(n_repeats) != n_repeats or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}.")
    errors = (repeat_errors if fit is None else fit)(config, tuple(range(int(n_repeats))))
    finish(progress)
    return LearningCurveResult(errors, np.asarray(config.sizes, dtype=int))


def per_repeat_frame(result):
    """Every single error rate of a :class:`LearningCurveResult` (classifier, domain,
    repeat, n), for the raw download."""
    errors = result.errors
    names = [classifier_name(f, LOSS) for f in FAMILIES]
    frame = _grid(classifier=names, domain=DOMAINS, repeat=range(errors.shape[2]), n=np.asarray(result.sizes))
    frame.insert(1, "loss", LOSS)
    return frame.assign(error=errors.ravel())


@dataclass(frozen=True)
class Headline:
    """When FLDA caught up with the oracle (the page's metrics)."""

    flda: str
    oracle: str
    naive: str
    adapted_from: int | None
    flda_error: float
    naive_error: float
    largest_n: int


def headline(table, tolerance):
    """The :class:`Headline` of ``table`` (:func:`summarize_errors` output):
    :func:`adaptation_sample_size` on the target and the errors at the largest n."""
    flda, oracle, naive = (classifier_name(f, LOSS) for f in ("flda", "target", "source"))
    largest_n = int(table["n"].max())
    largest = table[(table["domain"] == "target") & (table["n"] == largest_n)].set_index("classifier")[
        "mean_error"
    ]
    adapted_from = adaptation_sample_size(table, flda, oracle, "target", tolerance)
    return Headline(flda, oracle, naive, adapted_from, float(largest[flda]), float(largest[naive]), largest_n)


def small_sample_gaps(gaps, n_max):
    """Per FLDA curve of :func:`oracle_gaps`: its mean gap to the oracle over the sizes
    ``n <= n_max`` and a bound of that mean's standard error (the mean of the sizes'
    standard errors: the sizes share nested subsets, and the standard error of a mean of
    correlated estimates is at most the mean of theirs)."""
    small = gaps[(gaps["n"] <= n_max) & (gaps["classifier"].str.startswith("FLDA"))]
    return {
        name: (float(group["mean_gap"].mean()), float(group["sem"].mean()))
        for name, group in small.groupby("classifier")
    }
