"""The app's shared caches: the synthetic domains (one read-only object per setting for
every session), the fits of the synthetic experiments (handed to them as ``fit=`` by
:func:`linear_fitter`), the lattice counts of Figures 1-2 and 4, and the notes on the
paper.  Modules that import scikit-learn/scipy are imported where used, so Home stays
light (``explorer.ui.serving`` loads them in the background).

:func:`cache_data` and :func:`cache_resource` are Streamlit's, called by keyword (see
:func:`keyword_calls`)."""

from __future__ import annotations

import functools
import inspect

import numpy as np
import streamlit as st


def keyword_calls(cached, func):
    """``cached`` (``func`` under ``st.cache_data``/``st.cache_resource``) called with
    every argument by name, defaults filled in.

    Streamlit looks up the name of each *positional* argument of a cached call with
    :func:`inspect.signature`, on every call: 1.0 of the 1.5 ms of a cache hit with
    seven arguments on the 2-core machine, and Transfer parameters' sweep makes about
    50 such calls per rerun.  Binding the arguments here, with a signature read once,
    leaves Streamlit only keywords; with the defaults filled in, ``f(1)`` and
    ``f(1, b=2)`` (2 the default) are also the same cache entry.  ``clear`` is the
    cache's.
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
    """Cached :func:`explorer.data.domain_config.make_any_domains` (arguments are plain
    tuples): ``distribution`` "bernoulli"/"poisson" makes dropout domains with
    ``theta``; a shift preset key ("appearance", "rate") makes those domains with
    ``theta`` as the shift's parameter.  Shared by the synthetic-data pages, so
    switching between them reuses the data.

    One object shared by every caller and session (``st.cache_resource``): a
    ``st.cache_data`` copy of 100,000 samples per domain cost 7 ms per call, and the
    Table 1 preset's sweep calls it for each of its 45 fits.  Its arrays are made
    read-only, so no caller can change what the others see.
    """
    from explorer.data.domain_config import make_any_domains

    pair = make_any_domains(distribution, params, n_source, n_target, theta, random_state=seed)
    for value in vars(pair).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return pair


@cache_data(max_entries=8, show_spinner=False)
def cached_lattice_counts(data_key, domain="target"):
    """Lattice counts (first two features) of one domain of :func:`cached_domains`
    (``domain`` "target" or "source"); shared by every page that draws Figures 1-2 or 4."""
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
    """The ``fit=`` callable of the synthetic experiments, backed by :func:`cached_linear_fit`.

    ``theta`` arrays are turned into rounded tuples, so equal values share a
    cache entry.
    """

    def fit(family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
        key = None if theta is None else tuple(np.round(np.asarray(theta, dtype=float), 12))
        return cached_linear_fit(data_key, family, loss, float(l2), key, perturbation, transfer)

    return fit


@cache_data(max_entries=8, show_spinner=False)
def cached_paper_notes(page):
    """The notes on the paper of one page
    (:data:`explorer.teaching.paper_notes.NOTES_BY_PAGE`), as markdown; cached because
    each note reruns a paper experiment (0-4 s)."""
    from explorer.teaching.paper_notes import NOTES_BY_PAGE

    return [build().markdown() for build in NOTES_BY_PAGE[page]]
