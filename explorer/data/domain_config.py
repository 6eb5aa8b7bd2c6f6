"""The synthetic-domain settings typed on a page, checked (section 4.1).

Turns the per-feature text boxes of the Synthetic, Transfer and Learning curves
pages into the arguments of :func:`flda_core.synthetic.make_domains`, or into one
message per invalid entry.
"""

from __future__ import annotations

from flda_core.synthetic import PARAM_BOUNDS, PARAM_WORD
from explorer.data.numbers import parse_per_feature

__all__ = ["parse_domain_config"]


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
