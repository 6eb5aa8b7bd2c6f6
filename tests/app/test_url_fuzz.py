"""URL fuzzer: hostile values in every page's URL parameters, through ``app.py`` (issue 26).

For every page of :data:`explorer.registry.PAGES` but the Lesson (its own tests cover
its links; another developer is rewriting it), every URL parameter the page reads (its
``state.Setting`` lists, found by running the page and reading the URL it writes and by
scanning its source, plus the values it reads from ``st.query_params`` directly) gets
hostile values: wrong types, JSON nested 10 and 5,000 deep, 100 kB of text,
NaN/Infinity/-1e308/1e400, an empty list, a repeated key, unicode, a foreign URL and an
HTML tag.  Each page runs a few times, every parameter with a different value each time
(so every value reaches every page and every parameter sees several), and then:

* no exception (``at.exception`` empty);
* no error box, unless it names the parameter whose value caused it (or follows from a
  value the page corrected, with a note naming it);
* no server path (the repository folder, the cache folder) in any element;
* every value the page ignored leaves a note naming the parameter, still visible once
  the page is complete (after the run that follows the first chart).
"""

import json
import os
import re
from pathlib import Path

import pytest
from apptest_support import ROOT, open_page, shown
from streamlit.testing.v1 import AppTest

from explorer.data.digits import default_cache_dir
from explorer.registry import PAGES

APP = os.path.join(ROOT, "app.py")
TIMEOUT = 300

HOSTILE = (
    '{"a": [1, {"b": null}]}',  # wrong type: an object
    "true",  # wrong type: a boolean
    "[" * 10 + "]" * 10,  # nesting depth 10
    "[" * 5000 + "]" * 5000,  # nesting depth 5,000
    "x" * 100_000,  # 100 kB of text
    "NaN",
    "Infinity",
    "-1e308",
    "1e400",
    "[]",
    ["1", "2"],  # the key twice
    "θ̂ ½ \u202e😀\u0000",  # unicode, bidi override, NUL
    "https://evil.example",
    "<img src=x onerror=alert(1)>",
)

#: Parameters pages read from ``st.query_params`` themselves (not through a Setting).
DIRECT = {}
#: Read by ``app.py`` on every page (``seed`` is a Setting there; ``present`` a flag:
#: any value but 1/true/yes means "off", so it is checked for crashes only).
EVERY_PAGE = ("seed",)
NOT_NOTED = {"present"}

FUZZED = [p.script for p in PAGES if p.script != "pages/lesson.py"]
#: A page whose settings appear only with data: opened with a sample loaded too.
WITH_DATA = {"pages/your_data.py": {"sample": "breast_cancer"}}


def _setting_names(script):
    """URL names of the ``Setting("prefix.name", ...)`` calls in the page's source."""
    text = (Path(ROOT) / script).read_text(encoding="utf-8")
    return set(re.findall(r"Setting\(\s*\"[a-z]+\.([a-z0-9_]+)\"", text))


def _run(script, query):
    """``app.py`` with ``query`` (the app-wide parameters' notes are on this run), then
    the page (AppTest runs it on its own after ``switch_page``; the URL stays)."""
    first = AppTest.from_file(APP, default_timeout=TIMEOUT)
    first.query_params.update(query)
    first.run()
    if first.exception:
        return first, first
    return first, open_page(script, query, timeout=TIMEOUT)  # asserts no exception


def _parameters(script):
    """The page's URL parameters: what it writes to the URL, its Setting calls, direct reads."""
    names = set(EVERY_PAGE) | _setting_names(script) | set(DIRECT.get(script, ()))
    _, at = _run(script, WITH_DATA.get(script, {}))
    assert not at.exception, [e.value for e in at.exception]
    names |= set(at.query_params)
    return sorted(names)


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _notes(at):
    return [shown(str(e.value)) for kind in ("info", "warning", "error") for e in at.get(kind)]


def _decoded(raw):
    try:
        return json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        return raw


def _accepted(raw, written):
    """The page kept the link's value: it wrote it back (up to JSON spelling)."""
    if isinstance(raw, list):
        raw = raw[-1]
    if isinstance(written, list):
        written = written[-1]
    if written is None:
        return False
    return written == raw or _decoded(written) == _decoded(raw) or str(written).strip('"') == raw


def _query(names, k, extra):
    query = {name: HOSTILE[(i + k * 5) % len(HOSTILE)] for i, name in enumerate(names)}
    query.update(extra)
    return query


SERVER_PATHS = (str(Path(ROOT).resolve()), str(default_cache_dir().expanduser().resolve()))


def _check(script, at, query, noted):
    assert not at.exception, [e.value[:300] for e in at.exception]
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None:
            text = str(proto)
            for path in SERVER_PATHS:
                assert path not in text, (path, text[:300])
    notes = _notes(at)
    # a value the page moved into range and said so may clash with another setting (Learning
    # curves: a pool corrected to 100 below the largest n); the page's error then names the controls
    corrected = any(note.startswith("Corrected the link's value of") for note in notes)
    for error in at.error:
        message = shown(str(error.value))
        assert corrected or any(
            f"'{name}'" in message or f"`{name}`" in message or name in message for name in query
        ), message[:300]
    written = dict(at.query_params)
    for name, raw in query.items():
        direct = name in DIRECT.get(script, ())  # hostile values are never valid there
        if name not in noted or (not direct and _accepted(raw, written.get(name))):
            continue
        assert any(f"'{name}'" in note for note in notes), (
            name,
            str(raw)[:60],
            written.get(name, "")[:60],
            [n[:120] for n in notes],
        )


@pytest.mark.slow
@pytest.mark.parametrize("script", FUZZED)
def test_hostile_links_never_crash_leak_or_pass_silently(script):
    names = _parameters(script) + ["present"]
    rounds = max(3, -(-len(HOSTILE) // len(names)))
    extra = WITH_DATA.get(script)
    failures = []
    for k in range(min(rounds, len(HOSTILE))):
        for fixed in [{}] if extra is None else [{}, extra]:
            query = _query([n for n in names if n not in fixed], k, fixed)
            try:
                first, at = _run(script, query)
            except AssertionError as error:  # an exception on the page
                failures.append((k, bool(fixed), str(error)[:600]))
                continue
            fuzzed = {n: v for n, v in query.items() if n not in fixed}
            for run, noted in ((first, set(EVERY_PAGE)), (at, set(fuzzed) - set(EVERY_PAGE) - NOT_NOTED)):
                try:
                    _check(script, run, fuzzed, noted)
                except AssertionError as error:
                    failures.append((k, bool(fixed), str(error)[:600]))
    assert not failures, "\n".join(map(str, failures))


def test_an_empty_list_in_a_link_is_ignored_with_a_note():
    """``tp.perturbations=[]`` raised KeyError on Transfer; an empty list from a link is
    now ignored with a note (explorer/url_state.py)."""
    script, name = "pages/transfer.py", "perturbations"
    _, at = _run(script, {name: "[]"})
    _check(script, at, {name: "[]"}, {name})
    assert not at.error and any(f"'{name}'" in note for note in _notes(at))


def test_deselecting_every_perturbation_in_the_sidebar_leaves_a_note():
    _, at = _run("pages/transfer.py", {})
    at.multiselect(key="tp.perturbations").set_value([]).run()
    assert not at.exception and not at.error


@pytest.mark.parametrize("raw", ["true", "<img src=x onerror=alert(1)>"])
def test_unknown_digit_in_a_link_leaves_a_note(raw):
    _, at = _run("pages/digits.py", {"digit": raw})
    assert not at.exception
    assert any("'digit'" in note for note in _notes(at))
