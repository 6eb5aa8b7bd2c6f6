"""What a fresh server does before its first visitor so that the visitor does not wait:
every page script compiled into Streamlit's script cache, and the lazily imported
modules of a first run (Streamlit's emoji list, plotly's utilities) loaded."""

import inspect
import os
import subprocess
import sys
from pathlib import Path

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest

from explorer.registry import PAGES
from explorer.ui import serving

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_and_app_py_are_compiled_into_the_given_cache():
    cache = ScriptCache()
    paths = serving.compile_page_scripts(cache)
    assert paths == serving.page_script_paths()
    assert len(paths) == len(PAGES) + 1 and len(set(paths)) == len(paths)
    assert {Path(p).name for p in paths} == {"app.py", *(Path(e.script).name for e in PAGES)}
    assert set(cache._cache) == set(paths)  # the cache's own table
    # compiled once: asking again returns the same code object
    assert all(cache.get_bytecode(p) is cache._cache[p] for p in paths)


def test_compiled_pages_outlive_the_caches_clear_while_their_files_are_unchanged():
    """Streamlit clears its script cache when the last session leaves; the compiled pages
    stay (the next visitor compiles nothing) because no file changed."""
    cache = ScriptCache()
    paths = serving.compile_page_scripts(cache)
    codes = {p: cache._cache[p] for p in paths}
    cache.clear()
    assert all(cache.get_bytecode(p) is codes[p] for p in paths)
    assert serving.keep_unchanged_scripts(cache) is cache  # idempotent
    cache.clear()
    assert set(cache._cache) == set(paths)


def test_an_edited_or_removed_script_is_compiled_again_after_a_clear(tmp_path):
    script, other = tmp_path / "page.py", tmp_path / "other.py"
    script.write_text("VALUE = 1\n")
    other.write_text("VALUE = 3\n")
    cache = serving.keep_unchanged_scripts(ScriptCache())
    first, kept = cache.get_bytecode(str(script)), cache.get_bytecode(str(other))
    script.write_text("VALUE = 2\n")
    stat = script.stat()
    os.utime(script, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # same size, newer
    cache.clear()
    again = cache.get_bytecode(str(script))
    assert again is not first
    namespace = {}
    exec(again, namespace)
    assert namespace["VALUE"] == 2
    assert cache.get_bytecode(str(other)) is kept
    other.unlink()
    cache.clear()
    assert str(other) not in cache._cache and str(script) in cache._cache


def test_streamlit_still_clears_the_script_cache_when_the_last_session_leaves():
    """Why ``keep_unchanged_scripts`` exists (Streamlit 1.67): if an upgrade stops clearing
    the cache there, the wrapper is no longer needed; if it moves the cache's table or
    lock, the tests above fail."""
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    source = inspect.getsource(WebsocketSessionManager.disconnect_session)
    assert "self._script_cache.clear()" in source


def test_without_a_runtime_nothing_is_compiled(monkeypatch):
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: False))
    assert serving.compile_page_scripts() == []


def test_a_visit_asks_the_script_cache_for_exactly_those_paths(monkeypatch):
    """The keys must be the ones Streamlit asks for (``st.Page`` resolves the page's path):
    a compiled script under another key would be compiled again by the first visitor."""
    asked = []
    original = ScriptCache.get_bytecode

    def recording(self, script_path):
        asked.append(os.path.abspath(script_path))
        return original(self, script_path)

    monkeypatch.setattr(ScriptCache, "get_bytecode", recording)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    home = str((ROOT / "pages" / "home.py").resolve())
    assert str((ROOT / "app.py").resolve()) in asked and home in asked
    assert set(asked) <= set(serving.page_script_paths())


def test_the_runtime_still_keeps_its_script_cache_where_the_warm_up_looks():
    """``compile_page_scripts`` reads ``Runtime._script_cache`` (Streamlit 1.67); an upgrade
    that moves it must fail here rather than silently skip the warm-up."""
    assert "self._script_cache = ScriptCache()" in inspect.getsource(Runtime.__init__)


def test_streamlits_once_per_process_check_of_how_it_runs_is_still_there():
    """The warm-up makes the check of the first element a process sends
    (``delta_generator._maybe_print_use_warning``, which walks the whole stack); an
    upgrade that renames it must fail here rather than silently slow the first visitor."""
    from streamlit import delta_generator

    source = inspect.getsource(delta_generator._maybe_print_use_warning)
    assert "_use_warning_has_been_displayed = True" in source and "is_repl()" in source
    assert "_maybe_print_use_warning()" in inspect.getsource(delta_generator.DeltaGenerator)


def test_the_warm_up_loads_what_a_first_run_imported_lazily():
    code = (
        "import sys\n"
        "from explorer.ui import serving\n"
        "serving.warm_up_imports().join()\n"
        "from streamlit import delta_generator\n"
        "print(all(m in sys.modules for m in ('streamlit.emojis', 'plotly.utils',\n"
        "                                     'plotly.subplots', 'PIL.Image')),\n"
        "      delta_generator._use_warning_has_been_displayed)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True"


def test_the_lesson_is_computed_before_the_server_opens_unless_switched_off(monkeypatch):
    calls = []
    monkeypatch.setattr("explorer.ui.lesson_views.warm_up", lambda: calls.append("lesson"))
    monkeypatch.setenv(serving.LESSON_WARM_UP, "0")
    assert serving.warm_up_lesson() is None and calls == []
    monkeypatch.delenv(serving.LESSON_WARM_UP)
    assert serving.warm_up_lesson() >= 0 and calls == ["lesson"]

    def broken():
        raise RuntimeError("no data")

    monkeypatch.setattr("explorer.ui.lesson_views.warm_up", broken)
    assert serving.warm_up_lesson() is None  # logged; the page computes what it needs
    source = inspect.getsource(serving.server_lifespan)
    assert source.index("warm_up_lesson") < source.index("yield")  # before it opens
