"""The server side: the app's own routes, the server's start (:func:`server_lifespan`) and
what keeps visitors from waiting (warm-ups, ``gc.freeze``, ``TCP_NODELAY``).  Holds no
Streamlit cache: ``app.py`` imports it before Streamlit's runtime exists.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from explorer.ui import chart as ui_chart
from explorer.ui import equations as ui_equations

#: Imported by the warm-up besides the project's modules (seen in a fresh server's first
#: visit with ``py-spy``): plotly's utilities import Pillow (70 ms); ``st.set_page_config``
#: imports the emoji list to check the page icon (40-60 ms).
EXTRA_MODULES = ("plotly.graph_objects", "plotly.subplots", "plotly.utils", "streamlit.emojis")
#: The project's packages whose every module the warm-up imports.
PROJECT_PACKAGES = ("flda_core", "explorer")


def routes():
    """Starlette routes for ``st.App(routes=...)``: the plotly.js bundle, the typeset
    equations and a class's routes."""
    from explorer.ui import class_routes

    return [*ui_chart.routes(), *ui_equations.routes(), *class_routes.routes()]


_warm_up = {"thread": None}
_frozen = {"modules": 0}


def freeze_long_lived_objects():
    """Keep what imports created out of the cyclic garbage collector's way (``gc.freeze``).

    A full collection walks the 180,000 objects of the loaded libraries: 90 ms on the
    2-core machine, holding the GIL between a slider move and the repainted figure.
    Modules live as long as the server, so they are collected once and frozen.  Called
    after every page run and the warm-up; does nothing unless new modules were imported.

    Returns
    -------
    bool
        Whether it froze (new modules were imported since the last call).
    """
    import gc
    import sys

    n_modules = len(sys.modules)
    if n_modules == _frozen["modules"]:
        return False
    _frozen["modules"] = n_modules
    gc.collect()
    gc.freeze()
    return True


def project_modules(packages=PROJECT_PACKAGES):
    """Every module of ``packages`` (:func:`pkgutil.walk_packages`), for the warm-up: a
    fresh server's first Digits or Real data visit imported for 0.2 s."""
    import importlib
    import pkgutil

    names = []
    for package in packages:
        names.append(package)
        path = importlib.import_module(package).__path__
        names += [info.name for info in pkgutil.walk_packages(path, prefix=package + ".")]
    return tuple(names)


def _first_calls():
    """What the first visitor would pay on first use: a tiny fit per loss (0.08 s), the
    chart's bundle and Streamlit's check of how it runs."""
    import numpy as np

    from flda_core.classifier import FLDAClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    for loss in ("quadratic", "logistic"):
        FLDAClassifier(loss=loss).fit(X, [0, 1, 1, 0], X_target=X)
    ui_chart.warm_up()
    _check_direct_execution_once()


def _check_direct_execution_once():
    """Streamlit's once-per-process ``delta_generator._maybe_print_use_warning`` (1.67) walks
    the caller's stack with its source lines: 30-70 ms of a first visitor (``py-spy``).
    Done here on a short stack; ``tests/app/test_server_warm_up.py`` checks it exists."""
    from streamlit import delta_generator

    check = getattr(delta_generator, "_maybe_print_use_warning", None)
    if check is not None:
        check()


def warm_up_imports(modules=EXTRA_MODULES):
    """Import the project's modules and ``modules``, then make :func:`_first_calls`, in a
    background thread started by the first call in a process; returns the thread.

    A page needing a module being imported waits on Python's import lock; a failed import
    is left for the page to report.
    """
    import importlib
    import threading

    def run():
        import inspect
        import logging

        for name in (*project_modules(), *modules):
            try:
                importlib.import_module(name)
            except Exception:  # the page that needs it reports it; the warm-up says so here
                logging.getLogger("flda").warning("warm-up: importing %s failed; warm-up stopped", name)
                return
        try:
            _first_calls()
        except Exception:
            pass
        # Streamlit's inspect.getmodule resolves every module's file on first call: 0.1 s.
        inspect.getmodule(inspect.currentframe())
        freeze_long_lived_objects()

    if _warm_up["thread"] is None:
        _warm_up["thread"] = threading.Thread(target=run, name="flda-warm-up", daemon=True)
        _warm_up["thread"].start()
    return _warm_up["thread"]


def listening_tcp_sockets():
    """This process's listening TCP sockets, each a duplicate of its descriptor (close
    them after use); none where the process's descriptors cannot be listed."""
    import os
    import socket
    import stat

    fd_dir = next((d for d in ("/proc/self/fd", "/dev/fd") if os.path.isdir(d)), None)
    if fd_dir is None:
        return []
    found = []
    for name in os.listdir(fd_dir):
        try:
            if not stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                continue
            dup = os.dup(int(name))
        except (OSError, ValueError):
            continue  # gone meanwhile (the listing's own descriptor)
        try:
            sock = socket.socket(fileno=dup)
        except OSError:
            os.close(dup)  # a duplicate left open would keep a pipe or socket alive
            continue
        try:
            listening = (
                sock.type == socket.SOCK_STREAM
                and sock.family in (socket.AF_INET, socket.AF_INET6)
                and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
            )
        except OSError:
            listening = False
        if listening:
            found.append(sock)
        else:
            sock.close()
    return found


def send_small_writes_at_once():
    """Set ``TCP_NODELAY`` on the listening sockets, which accepted ones inherit (Linux,
    BSDs); returns how many were changed.

    Streamlit 1.67 binds its socket with ``proto`` 0 and asyncio sets ``TCP_NODELAY`` only
    for ``IPPROTO_TCP``, so a response's body waited ~40 ms for the delayed ACK of its
    headers, on each of some 130 requests per page.
    """
    import socket

    changed = 0
    for sock in listening_tcp_sockets():
        with sock:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                changed += 1
            except OSError:
                pass
    return changed


def page_script_paths():
    """``app.py`` and every page's file, resolved as ``st.Page`` and the script cache do."""
    from explorer.registry import APP_DIR, PAGES

    return [
        str((APP_DIR / "app.py").resolve()),
        *(str((APP_DIR / entry.script).resolve()) for entry in PAGES),
    ]


def compile_page_scripts(script_cache=None):
    """Compile ``app.py`` and every page into the script cache (else 20-50 ms per page for
    its first visitor); returns the paths.

    ``script_cache`` defaults to ``Runtime._script_cache`` (Streamlit 1.67; checked by
    ``tests/app/test_server_warm_up.py``); without a runtime nothing is compiled.
    """
    if script_cache is None:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return []
        script_cache = getattr(Runtime.instance(), "_script_cache", None)
        if script_cache is None:
            return []
    keep_unchanged_scripts(script_cache)
    paths = page_script_paths()
    for path in paths:
        script_cache.get_bytecode(path)
    return paths


def _file_signature(path):
    """A file's size and modification time, or ``None`` when it cannot be read."""
    import os

    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def keep_unchanged_scripts(script_cache):
    """Make ``script_cache.clear()`` drop only the scripts whose file has changed.

    Streamlit empties the cache when the last session disconnects, so a lecturer who
    closed the tab left the class's first visitor to compile again (up to 170 ms a page).
    Idempotent; returns the cache.
    """
    import os

    if getattr(script_cache, "_flda_keeps_unchanged", False):
        return script_cache
    compiled = {}  # path -> the file's signature when its code was compiled
    get_bytecode = script_cache.get_bytecode

    def get_bytecode_noting_signature(script_path):
        path = os.path.abspath(script_path)
        if path not in compiled:  # signature first: an edit while compiling counts
            compiled[path] = _file_signature(path)
        return get_bytecode(script_path)

    def clear_changed():
        with script_cache._lock:
            for path in list(script_cache._cache):
                if path not in compiled or compiled[path] != _file_signature(path):
                    del script_cache._cache[path]
                    compiled.pop(path, None)

    script_cache.get_bytecode = get_bytecode_noting_signature
    script_cache.clear = clear_changed
    script_cache._flda_keeps_unchanged = True
    return script_cache


@asynccontextmanager
async def server_lifespan(app):
    """``st.App`` lifespan: before the server reports healthy, import the libraries
    (1.3 s otherwise paid by a first visitor), compile the pages and compute the lesson."""
    import asyncio
    import threading
    import time

    from streamlit.runtime.pages_manager import PagesManager

    # What st.navigation does on its first call: else a fresh server's first deep-linked
    # request runs as a legacy "pages/" page, then again (navigation.leave_pages_directory_mode).
    PagesManager.uses_pages_directory = False
    send_small_writes_at_once()
    from explorer.ui.uploads import bound_uploads

    bound_uploads()  # what one session may hold on the upload endpoint (issue 26)
    start = time.perf_counter()
    await asyncio.to_thread(warm_up_imports().join)
    await asyncio.to_thread(compile_page_scripts)
    lesson = await asyncio.to_thread(warm_up_lesson)
    print(
        "  FLDA explorer: scientific libraries loaded"
        + (", the lesson's steps computed" if lesson is not None else "")
        + f" in {time.perf_counter() - start:.1f} s; every page is ready.",
        flush=True,
    )
    threading.Thread(target=warm_up_stores, name="flda-store-warm-up", daemon=True).start()
    yield


#: The disk stores a server fills at start: (environment variable, module, function);
#: a variable set to "0" skips its store (the tests do).
STORE_WARM_UPS = (
    ("FLDA_DIGITS_WARM_UP", "explorer.experiments.digits", "precompute"),
    ("FLDA_REAL_DATA_WARM_UP", "explorer.experiments.paper_tables", "precompute"),
)
#: Set to "0" to skip :func:`warm_up_lesson` (the tests do).
LESSON_WARM_UP = "FLDA_LESSON_WARM_UP"


def _run_warm_up(env, module, function):
    """``module.function()`` unless ``env`` is "0"; returns the seconds, or None when
    switched off or failed (logged; the page computes what it needs)."""
    import importlib
    import os
    import time

    if os.environ.get(env, "1") == "0":
        return None
    start = time.perf_counter()
    try:
        getattr(importlib.import_module(module), function)()
    except Exception:
        import logging

        logging.getLogger("flda").warning("Warm-up %s.%s failed", module, function, exc_info=True)
        return None
    return time.perf_counter() - start


def warm_up_lesson():
    """Compute the lesson's starting steps unless :data:`LESSON_WARM_UP` is "0"; returns
    the seconds (None when off or failed).  Done before the server opens: in the
    background it delayed first visitors' charts by 0.2-0.6 s."""
    return _run_warm_up(LESSON_WARM_UP, "explorer.ui.lesson_views", "warm_up")


def warm_up_stores(warm_ups=STORE_WARM_UPS):
    """Fill the pages' disk stores for their default settings, in the background at the
    lowest CPU priority (a new installation fits Table 4 in ~6 s, Table 3 in 16-30 s).
    A page asking for a fit being computed waits for it; a failure is left to the page.
    """
    import os
    import threading

    wanted = [entry for entry in warm_ups if os.environ.get(entry[0], "1") != "0"]
    if not wanted:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # this thread only
    except (AttributeError, OSError):
        pass
    for env, module, function in wanted:
        _run_warm_up(env, module, function)
