"""Links round-trip: every value a page writes to its URL reopens as the same value (issue 36).

A one-feature configuration on Synthetic and Transfer wrote ``theta=0.5&class1=0.7``
and reopening ignored all three per-feature texts ("it is not text"): a text setting's
value that looks like a number was read back as a number.  The writer
(:func:`explorer.url_state.encode_url_value`, used by ``state.write_to_url``) and
the reader (:func:`explorer.url_state.validate_url_value`, used by
``state.restore_from_url``) are one pair; these tests check it on its own
(property-style, through a real query string) and through every page: the page's
own ``Setting`` lists (recorded from ``state.restore_from_url``) get a
representative value each (one feature, single values, every control), the URL the
page writes is opened in a fresh session, and every setting comes back equal, with
no note.
"""

import math
import urllib.parse

import pytest
from apptest_support import APP, open_page, shown
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer import url_state
from explorer.registry import PAGES
from explorer.ui import state


def _through_a_url(value):
    """``value`` written, sent as a query string and parsed back as Streamlit does."""
    query = urllib.parse.urlencode({"v": url_state.encode_url_value(value)}, quote_via=urllib.parse.quote)
    return urllib.parse.parse_qs(query, keep_blank_values=True)["v"][-1]


TEXTS = st.one_of(
    st.sampled_from(["0.3", "0.9", "1", "0", "-2", "1e-3", "true", "null", "[1]", '"x"', "0.5, 0", "2 5 10"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=40),
)


@given(TEXTS)
@settings(max_examples=300, deadline=None, derandomize=True)
def test_text_reopens_as_the_same_text_even_when_it_looks_like_a_number(text):
    outcome = url_state.validate_url_value("theta", _through_a_url(text), "0.5, 0")
    if text.count("[") + text.count("{") <= url_state.MAX_URL_BRACKETS:
        assert (outcome.value, outcome.accepted, outcome.note) == (text, True, None)


@given(
    st.floats(-1.0, 1.0),
    st.integers(1, 10**6),
    st.booleans(),
    st.lists(st.floats(-1.0, 1.0), min_size=2, max_size=2).map(lambda v: tuple(sorted(v))),
)
@settings(max_examples=300, deadline=None, derandomize=True)
def test_numbers_flags_and_ranges_reopen_exactly(x, n, flag, pair):
    for value, default, bounds in (
        (x, 0.0, dict(lo=-1.0, hi=1.0)),
        (n, 5, dict(lo=1, hi=10**6)),
        (flag, not flag, {}),
        (pair, (-0.5, 0.5), dict(lo=-1.0, hi=1.0, ordered=True)),
    ):
        outcome = url_state.validate_url_value("p", _through_a_url(value), default, **bounds)
        assert (outcome.value, outcome.note) == (value, None)
        assert type(outcome.value) is type(default) and (not isinstance(x, float) or math.isfinite(x))


def test_options_reopen_including_text_that_looks_like_a_number():
    for value, options in (("0", ("0", "1", "7")), ("A → B", ("A → B", "B → A")), (1e-3, (0.0, 1e-3))):
        outcome = url_state.validate_url_value("p", _through_a_url(value), options[-1], options=options)
        assert (outcome.value, outcome.note) == (value, None)
    listed = url_state.validate_url_value("p", _through_a_url(["b", "a"]), ["a"], options=("a", "b"))
    assert (listed.value, listed.note) == (["b", "a"], None)


# ----------------------------------------------------------------------------- every page

#: Pages with URL settings (the Lesson's links are its steps: tests/app/test_page_lesson.py).
SCRIPTS = [p.script for p in PAGES if p.script not in ("pages/lesson.py",) and p.url_path]
#: Per-feature texts (Synthetic, Transfer): one feature with single values, then two.
PER_FEATURE = (
    {"class1": "0.9", "class2": "0.2", "theta": "0.3"},
    {"class1": "0.9, 0.1", "class2": "0.2", "theta": "0.5, 0"},
)
TEXT = {"custom_sizes": ("10", "2, 5, 10"), "digit": ("3", "7")}


def _recorded_settings(script, monkeypatch):
    """The ``Setting`` lists the page restores from its URL (app.py's too)."""
    found = {}
    restore = state.restore_from_url

    def recording(settings_):
        for setting in settings_:
            found.setdefault(setting.key, setting)
        return restore(settings_)

    monkeypatch.setattr(state, "restore_from_url", recording)
    open_page(script)
    monkeypatch.setattr(state, "restore_from_url", restore)
    return list(found.values())


def _step(value, lo, hi, step):
    """``value`` moved by ``step`` inside ``[lo, hi]``."""
    moved = value + step if hi is None or value + step <= hi else value - step
    return moved if lo is None or moved >= lo else value


def _representative(setting, r):
    """A value of ``setting`` other than its default (round ``r`` = 0 or 1)."""
    name, d, options = setting.url_name, setting.default, setting.options
    if options is not None:
        options = list(options)
        if name == "shift" and r == 0:  # the dropout data model: its per-feature texts are used
            return d
        if isinstance(d, (list, tuple)):
            return [options[-1]] if r == 0 else options[:2]
        return options[(options.index(d) + 1 + r) % len(options)] if len(options) > 1 else d
    if isinstance(d, bool):
        return not d
    if isinstance(d, str):
        if name in PER_FEATURE[r]:
            return PER_FEATURE[r][name]
        return TEXT.get(name, ("0.3", "a b"))[r]
    if isinstance(d, tuple):
        return (setting.lo, setting.hi) if r == 0 else (-0.25, 0.75)
    if isinstance(d, int):
        if name == "n_features":
            return 1 if r == 0 else 2
        return int(_step(d, setting.lo, setting.hi, 1 + r))
    return round(_step(d, setting.lo, setting.hi, 0.05 * (r + 1)), 2)


def _same(a, b):
    return (list(a) if isinstance(a, (list, tuple)) else a) == (
        list(b) if isinstance(b, (list, tuple)) else b
    )


def _link_notes(at):
    return [shown(i.value) for i in at.info if "the link's value" in shown(i.value)]


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_every_value_a_page_writes_reopens_as_the_same_value(script, monkeypatch):
    settings_ = _recorded_settings(script, monkeypatch)
    assert settings_
    for r in (0, 1):
        values = {s.key: _representative(s, r) for s in settings_}
        first = AppTest.from_file(APP, default_timeout=300)
        for key, value in values.items():
            first.session_state[key] = value
        first.run()
        first.switch_page(script)
        first.run()
        assert not first.exception, [e.value for e in first.exception]
        written = {k: v[-1] if isinstance(v, list) else v for k, v in first.query_params.items()}
        kept = {
            s.key: first.session_state[s.key]
            for s in settings_
            if s.url_name in written and s.key in first.session_state
        }
        # The page kept the one-feature configuration and the single values it was given.
        for s in settings_:
            if s.url_name in ("n_features", "class1", "class2", "theta", "custom_sizes", "curve_range"):
                assert _same(kept.get(s.key), values[s.key]), (s.key, kept.get(s.key), values[s.key])
        again = open_page(script, written)
        assert _link_notes(again) == [], (_link_notes(again), written)
        rewritten = {k: v[-1] if isinstance(v, list) else v for k, v in again.query_params.items()}
        assert rewritten == written, r  # the reopened page writes the same link
        changed = {
            k: (v, again.session_state[k])
            for k, v in kept.items()
            if k in again.session_state and not _same(v, again.session_state[k])
        }
        assert changed == {}, (r, written)


def test_a_reversed_curve_range_is_put_in_order_with_a_note():
    at = open_page("pages/transfer.py", {"curve_range": "[0.5,-0.5]"})
    assert at.session_state["tp.curve_range"] == (-0.5, 0.5)
    [note] = _link_notes(at)
    assert "'curve_range'" in note and "[-0.5, 0.5]" in note
