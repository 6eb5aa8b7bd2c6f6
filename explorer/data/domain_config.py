"""The synthetic-domain settings typed on a page, checked (section 4.1), and the pages'
data models (dropout or a shift preset) keyed to the library's generators."""

from __future__ import annotations

from flda_core.synthetic import (
    APPEARANCE_PARAMS,
    APPEARANCE_PHI,
    RATE_FACTOR,
    RATE_PARAMS,
    make_appearance_domains,
    make_domains,
    make_rate_domains,
)
from explorer.data.numbers import parse_per_feature

#: What the per-class parameters are called on the pages, and the range their
#: inputs accept, per distribution.
PARAM_WORD = {"bernoulli": "success probabilities", "poisson": "rates"}
PARAM_BOUNDS = {"bernoulli": (0.0, 1.0), "poisson": (0.0, 1000.0)}

#: Synthetic shifts other than dropout, by the key the pages use as "distribution"
#: (the Synthetic page's ``syn.shift`` setting): key -> (generator, default class
#: parameters, default true shift parameters).
SHIFT_PRESETS = {
    "appearance": (make_appearance_domains, APPEARANCE_PARAMS, APPEARANCE_PHI),
    "rate": (make_rate_domains, RATE_PARAMS, RATE_FACTOR),
}


def make_any_domains(distribution, params, n_source, n_target, shift, random_state=None):
    """One entry point for every synthetic data model of the pages, keyed by ``distribution``.

    ``"bernoulli"`` / ``"poisson"``: :func:`flda_core.synthetic.make_domains` with dropout
    ``shift`` (theta); a key of :data:`SHIFT_PRESETS`: its generator with ``shift`` as its
    shift parameter.  All arguments are hashable, so a page can cache on them.
    """
    if distribution in SHIFT_PRESETS:
        generator = SHIFT_PRESETS[distribution][0]
        return generator(n_source, n_target, params, shift, random_state=random_state)
    return make_domains(distribution, params, n_source, n_target, shift, random_state=random_state)


def parse_domain_config(distribution, n_features, class1, class2, theta, n_source, n_target, seed):
    """Validate the synthetic-domain settings typed on a page (section 4.1).

    Parameters
    ----------
    distribution : {"bernoulli", "poisson"}
    n_features : int
    class1, class2, theta : str
        Per-feature values as typed, e.g. ``"0.7, 0.7"`` (see :func:`parse_per_feature`).
    n_source, n_target, seed : int

    Returns
    -------
    key : tuple or None
        ``(distribution, (class1, class2), n_source, n_target, theta, seed)``
        with tuples of floats: the arguments of
        :func:`flda_core.synthetic.make_domains` in a hashable form; None if
        any value is invalid.
    problems : list of str
        One message per invalid entry, naming it and how to fix it.
    """
    n = int(n_features)
    lo, hi = PARAM_BOUNDS[distribution]
    word = PARAM_WORD[distribution]
    problems, values = [], []
    for text, name, bounds in (
        (class1, f"Class 1 {word}", (lo, hi)),
        (class2, f"Class 2 {word}", (lo, hi)),
        (theta, "True dropout θ", (0.0, 1.0)),
    ):
        try:
            values.append(parse_per_feature(text, n, name, *bounds))
        except ValueError as error:
            problems.append(str(error))
    if problems:
        return None, problems
    return (distribution, (values[0], values[1]), int(n_source), int(n_target), values[2], int(seed)), []
