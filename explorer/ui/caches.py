"""The app's shared caches: synthetic domains, their fits, lattice counts and paper notes.
Heavy modules are imported where used, so Home stays light."""

from __future__ import annotations

import functools
import inspect

import numpy as np
import streamlit as st


def keyword_calls(cached, func):
    """``cached`` (``func`` under ``st.cache_data``/``st.cache_resource``) called with
    every argument by name, defaults filled in.

    Streamlit calls :func:`inspect.signature` for positional arguments on every call: 1.0
    of a hit's 1.5 ms, 50 hits per Transfer rerun.  With defaults filled in, ``f(1)`` and
    ``f(1, b=2)`` share an entry.
    """
    signature = inspect.signature(func)
    if any(p.kind in (p.VAR_POSITIONAL, p.POSITIONAL_ONLY) for p in signature.parameters.values()):
        raise TypeError(
            f"{func.__qualname__}: a cached function called by keyword cannot "
            "take positional-only or *args parameters."
        )

    @functools.wraps(func)
    def call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return cached(**bound.arguments)

    call.clear = cached.clear
    return call


def cache_data(**options):
    """``st.cache_data(**options)``, called by keyword (:func:`keyword_calls`)."""
    return lambda func: keyword_calls(st.cache_data(**options)(func), func)


def cache_resource(**options):
    """``st.cache_resource(**options)``, called by keyword (:func:`keyword_calls`)."""
    return lambda func: keyword_calls(st.cache_resource(**options)(func), func)


@cache_resource(max_entries=4, show_spinner=False)
def cached_domains(distribution, params, n_source, n_target, theta, seed):
    """Cached :func:`explorer.data.domain_config.make_any_domains`, shared by the
    synthetic pages.  One read-only object for every session (``st.cache_resource``): a
    ``st.cache_data`` copy cost 7 ms per call, 45 calls in Table 1's sweep.
    """
    from explorer.data.domain_config import make_any_domains

    pair = make_any_domains(distribution, params, n_source, n_target, theta, random_state=seed)
    for value in vars(pair).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return pair


@cache_data(max_entries=8, show_spinner=False)
def cached_lattice_counts(data_key, domain="target"):
    """Lattice counts (first two features) of the "target" or "source" domain."""
    from explorer.experiments.synthetic import lattice_counts

    pair = cached_domains(*data_key)
    if domain == "source":
        return lattice_counts(pair.X_source, pair.y_source)
    return lattice_counts(pair.X_target, pair.y_target)


@cache_data(max_entries=512, show_spinner=False)
def cached_linear_fit(data_key, family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
    """Cached :func:`explorer.experiments.synthetic.fit_linear` on the domains of
    ``data_key`` (``theta`` a tuple or None).  One cache for every synthetic page."""
    from explorer.experiments.synthetic import fit_linear

    return fit_linear(
        cached_domains(*data_key),
        family,
        loss,
        l2=l2,
        theta=theta,
        perturbation=perturbation,
        transfer=transfer,
    )


def linear_fitter(data_key):
    """The ``fit=`` of the synthetic experiments, via :func:`cached_linear_fit` (``theta``
    rounded to a tuple, so equal values share an entry)."""

    def fit(family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
        key = None if theta is None else tuple(np.round(np.asarray(theta, dtype=float), 12))
        return cached_linear_fit(data_key, family, loss, float(l2), key, perturbation, transfer)

    return fit


@cache_data(max_entries=8, show_spinner=False)
def cached_paper_notes(page):
    """The notes on the paper of one page, as markdown (each reruns an experiment: 0-4 s)."""
    from explorer.teaching.paper_notes import NOTES_BY_PAGE

    return [build().markdown() for build in NOTES_BY_PAGE[page]]
