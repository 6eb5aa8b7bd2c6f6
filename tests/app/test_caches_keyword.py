"""The app's caches are Streamlit's, called by keyword (``explorer.ui.caches.keyword_calls``):
the same call, however its arguments are spelled, is one cache entry."""

from __future__ import annotations

import pytest
import streamlit as st

from explorer.ui import caches

CALLS = []


@caches.cache_data(max_entries=8, show_spinner=False)
def _scaled(values, factor=2.0, _note=None):
    CALLS.append((values, factor))
    return [v * factor for v in values]


@pytest.fixture(autouse=True)
def _fresh():
    _scaled.clear()
    CALLS.clear()
    yield
    _scaled.clear()


def test_positional_keyword_and_default_spellings_share_one_entry():
    first = _scaled((1, 2))
    assert _scaled((1, 2), 2.0) == first
    assert _scaled(values=(1, 2)) == first
    assert _scaled(factor=2.0, values=(1, 2)) == first
    assert CALLS == [((1, 2), 2.0)]


def test_other_values_are_other_entries_and_underscore_arguments_are_not_hashed():
    assert _scaled((1, 2), 3.0) == [3.0, 6.0]
    assert _scaled((1, 2), 3.0, _note=object()) == [3.0, 6.0]
    assert _scaled((1, 3)) == [2.0, 6.0]
    assert CALLS == [((1, 2), 3.0), ((1, 3), 2.0)]


def test_a_cache_data_value_is_still_a_copy():
    """``st.cache_data`` semantics stay: a caller changing its result changes nothing else."""
    _scaled((1, 2)).append("changed by a caller")
    assert _scaled((1, 2)) == [2.0, 4.0]


def test_wrong_arguments_fail_like_the_plain_function():
    with pytest.raises(TypeError):
        _scaled()
    with pytest.raises(TypeError):
        _scaled((1,), 2.0, None, "one too many")


def test_functions_that_cannot_be_called_by_keyword_are_refused():
    def star(*values):
        return values

    with pytest.raises(TypeError, match="positional-only or \\*args"):
        caches.keyword_calls(st.cache_data(star), star)


def test_streamlit_never_looks_up_positional_argument_names(monkeypatch):
    """The point of the wrapper: Streamlit's per-call :func:`inspect.signature` of each
    positional argument (``_get_positional_arg_name``) is never reached, neither here
    nor through the pages' shared caches called positionally."""
    from streamlit.runtime.caching import cache_utils

    def looked_up(*args):
        raise AssertionError("a cached function was called with positional arguments")

    monkeypatch.setattr(cache_utils, "_get_positional_arg_name", looked_up)
    assert _scaled((5,), 2.0) == [10.0]
    pair = caches.cached_domains("bernoulli", ((0.2, 0.7), (0.7, 0.2)), 20, 20, (0.5, 0.0), 0)
    assert pair.X_source.shape == (20, 2)
    fit = caches.linear_fitter(("bernoulli", ((0.2, 0.7), (0.7, 0.2)), 20, 20, (0.5, 0.0), 0))
    assert fit("flda", "quadratic", 0.0).theta.shape == (2,)
