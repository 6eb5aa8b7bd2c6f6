"""The server side: the routes of the files the app serves itself, the server's start
(:func:`server_lifespan`) and everything that keeps visitors from waiting: imports and
first calls done in the background (:func:`warm_up_imports`), the disk stores filled
(:func:`warm_up_stores`), each session's uploads bounded
(:func:`explorer.ui.uploads.bound_uploads`), long-lived objects kept out of the garbage collector
(:func:`freeze_long_lived_objects`) and small writes sent at once (``TCP_NODELAY``,
:func:`send_small_writes_at_once`).

Nothing here holds a Streamlit cache: ``app.py`` imports this module when the server
imports it, before Streamlit's runtime exists.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from explorer.ui import chart as ui_chart
from explorer.ui import equations as ui_equations

#: Imported by the warm-up besides the project's own modules: plotly's figure classes, its
#: subplots and utilities (which import Pillow: 70 ms, paid by the first figure with
#: subplots), and Streamlit's emoji list, which ``st.set_page_config`` imports on its
#: first call to check the page icon (a regular expression of every emoji: 40-60 ms).
#: Each was seen in a fresh server's first visit with ``py-spy``.
EXTRA_MODULES = ("plotly.graph_objects", "plotly.subplots", "plotly.utils", "streamlit.emojis")
#: The project's packages whose every module the warm-up imports.
PROJECT_PACKAGES = ("flda_core", "explorer")


def routes():
    """Starlette routes of the files this app serves itself (``st.App(routes=...)`` in
    ``app.py``): the chart element's plotly.js bundle (:func:`ui_chart.routes`) and the
    typeset equations (:func:`ui_equations.routes`) and a class's routes and students' page
    (:func:`explorer.ui.class_routes.routes`)."""
    from explorer.ui import class_routes

    return [*ui_chart.routes(), *ui_equations.routes(), *class_routes.routes()]


_warm_up = {"thread": None}
_frozen = {"modules": 0}


def freeze_long_lived_objects():
    """Keep what imports created out of the cyclic garbage collector's way (``gc.freeze``).

    A full collection walks every tracked object.  With scikit-learn, scipy,
    pandas and plotly loaded that is about 180,000 objects and 90 ms (measured on
    the 2-core machine), holding the GIL on the path from a slider move to the
    repainted figure.  Streamlit ran one after every script run until
    ``.streamlit/config.toml`` turned its ``runner.postScriptGC`` off (with a class
    on the server, the objects of its sessions and caches still made each 18 ms);
    Python's own collector still runs full collections now and then.  Modules, classes and
    functions live as long as the server, so once something new was imported
    they are collected once and frozen: later collections walk only what page
    runs create.  Called at the end of every page run and after the warm-up
    imports; does nothing unless the set of imported modules grew.

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
    """Every module of the project's packages (``flda_core``, ``explorer``), found on disk
    with :func:`pkgutil.walk_packages` (which imports the packages, not their modules).

    The warm-up imports all of them: whatever a page imports, directly or inside a
    function (Real data's ``explorer.experiments.paper_tables``), is loaded before the
    first visitor asks for it (a fresh server's first Digits or Real data visit imported
    for 0.2 s).  Optional heavy dependencies (skada, dask) are imported inside functions
    and stay unloaded.
    """
    import importlib
    import pkgutil

    names = []
    for package in packages:
        names.append(package)
        path = importlib.import_module(package).__path__
        names += [info.name for info in pkgutil.walk_packages(path, prefix=package + ".")]
    return tuple(names)


def _first_calls():
    """What the first visitor's run would pay on first use, done by the warm-up: one
    tiny fit per loss (scipy's optimiser and threadpoolctl's scan of the loaded
    libraries, 0.08 s), plotly's figure classes and the compressed bundle
    (:func:`ui_chart.warm_up`), and Streamlit's check of how it runs
    (:func:`_check_direct_execution_once`)."""
    import numpy as np

    from flda_core.classifier import FLDAClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    for loss in ("quadratic", "logistic"):
        FLDAClassifier(loss=loss).fit(X, [0, 1, 1, 0], X_target=X)
    ui_chart.warm_up()
    _check_direct_execution_once()


def _check_direct_execution_once():
    """Streamlit's check, on the first element a process sends, whether it runs in a
    Python prompt rather than under ``streamlit run`` (``delta_generator
    ._maybe_print_use_warning``, once per process; Streamlit 1.67): it walks the
    caller's whole stack with its source lines (``inspect.stack``), 30-70 ms of a fresh
    server's first visitor, seen with ``py-spy``.  Done here, on the warm-up thread's
    short stack; it prints nothing under a server.  ``tests/app/test_server_warm_up.py``
    checks that the function is still there."""
    from streamlit import delta_generator

    check = getattr(delta_generator, "_maybe_print_use_warning", None)
    if check is not None:
        check()


def warm_up_imports(modules=EXTRA_MODULES):
    """Import every module of the project (:func:`project_modules`) and ``modules`` in a
    background thread, once per server process, then make the first calls
    (:func:`_first_calls`).

    The server calls this when it starts (``app.py``'s ``st.App`` lifespan, see
    :func:`server_lifespan`), and ``app.py`` on every run, for servers started
    another way; only the first call starts the thread.  A page that needs a module
    the thread is still importing waits for it (Python's import lock), so nothing
    is imported twice.  Then :func:`freeze_long_lived_objects`.  A failed import is
    left for the page to report.
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
        # Streamlit looks up the module of a caller's frame (inspect.getmodule), whose
        # first call resolves the file of every loaded module: 0.1 s, paid here rather
        # than by the first visitor's first element.
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
    """Switch off Nagle's algorithm (``TCP_NODELAY``) for every connection the server
    accepts from now on; returns how many listening sockets were changed.

    Streamlit 1.67 binds its listening socket itself (``socket.socket(family)``, whose
    ``proto`` is 0), and asyncio sets ``TCP_NODELAY`` only on sockets whose ``proto``
    is ``IPPROTO_TCP``: so the server's connections kept Nagle's algorithm.  A response
    written as headers, then body waited for the browser's delayed ACK of the headers,
    about 40 ms for every request after a connection's first (the browser fetches some
    130 script files per page over six connections); small WebSocket messages sent
    one after another can wait the same way.  Linux (``tests/app/test_server_sockets.py``)
    and the BSDs give an accepted socket the listening socket's ``TCP_NODELAY``.
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
    """``app.py`` and every page's file (:data:`explorer.registry.PAGES`) as Streamlit's
    script cache keys them: ``st.Page`` resolves a page's path (symbolic links too)."""
    from explorer.registry import APP_DIR, PAGES

    return [
        str((APP_DIR / "app.py").resolve()),
        *(str((APP_DIR / entry.script).resolve()) for entry in PAGES),
    ]


def compile_page_scripts(script_cache=None):
    """Compile ``app.py`` and every page into the runtime's script cache; returns the paths.

    Streamlit compiles a script when a run first needs it (reading the file,
    rewriting its syntax tree for "magic" and compiling it: 20-50 ms per page on the
    2-core machine), so every page's first visitor of a fresh server paid for it.
    ``script_cache`` defaults to the running runtime's (``Runtime._script_cache``,
    Streamlit 1.67; ``tests/app/test_server_warm_up.py`` checks it is still there);
    without a runtime nothing is compiled.  The cache then keeps every script whose
    file has not changed (:func:`keep_unchanged_scripts`).
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
    """What tells an edited file from the one compiled: its size and modification time
    (``None`` when it cannot be read: the next run compiles it and reports the error)."""
    import os

    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def keep_unchanged_scripts(script_cache):
    """Make ``script_cache.clear()`` drop only the scripts whose file has changed.

    Streamlit empties its script cache when the last session disconnects (and when a
    watched source file changes), so that an edit made meanwhile is not missed.  The
    server's compiled pages (:func:`compile_page_scripts`) then served only the first
    visitor: a lecturer who tried the app and closed the tab left the class's first
    visitor to compile ``app.py`` and the page again (20-50 ms a page on the 2-core
    machine, 170 ms beside a browser loading the page).  With this the cache keeps a
    script whose size and modification time are those it had when it was compiled,
    and compiles an edited one again, as before.  Idempotent; returns the cache.
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
    """``st.App`` lifespan: the scientific libraries are loaded before the first visitor.

    ``streamlit run app.py`` serves ``app.py``'s ``st.App``; its start-up awaits
    :func:`warm_up_imports` (scikit-learn, scipy, plotly: 1.3 s on the 2-core
    machine, otherwise paid by the first visitor of every page), then compiles the
    pages (:func:`compile_page_scripts`) and computes the lesson's steps
    (:func:`warm_up_lesson`), so the server reports healthy once a page can be drawn
    without importing or compiling anything, and the lesson without computing.
    """
    import asyncio
    import threading
    import time

    from streamlit.runtime.pages_manager import PagesManager

    # What st.navigation does on its first call, done before the first visitor: without
    # it the first request of a fresh server runs a deep-linked page alone as a legacy
    # "pages/ directory" page, then again through app.py
    # (see explorer.ui.navigation.leave_pages_directory_mode).
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


#: The pages' disk stores a server fills at start, in this order: (environment
#: variable, module, function).  Set a variable to "0" to keep a server from filling
#: that store (the tests do).
STORE_WARM_UPS = (
    ("FLDA_DIGITS_WARM_UP", "explorer.experiments.digits", "precompute"),
    ("FLDA_REAL_DATA_WARM_UP", "explorer.experiments.paper_tables", "precompute"),
)
#: Set to "0" to keep a server from computing the lesson's steps before it opens
#: (:func:`warm_up_lesson`; the tests do).
LESSON_WARM_UP = "FLDA_LESSON_WARM_UP"


def _run_warm_up(env, module, function):
    """``module.function()`` unless the environment variable ``env`` is "0"; returns the
    seconds it took, or None when switched off or failed (a failure is logged and left
    to the page, which computes what it needs and says why)."""
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
    """Compute the lesson's steps at their starting values
    (:func:`explorer.ui.lesson_views.warm_up`) unless :data:`LESSON_WARM_UP` is "0";
    returns the seconds it took (None when switched off or failed).

    The server's start does this before it reports healthy, after the imports: in the
    background it would share the interpreter with the first visitors' runs (the
    first chart of a page opened during it came 0.2-0.6 s later on the 2-core
    machine), and a lecture is not started in the server's first seconds.
    """
    return _run_warm_up(LESSON_WARM_UP, "explorer.ui.lesson_views", "warm_up")


def warm_up_stores(warm_ups=STORE_WARM_UPS):
    """Fill the pages' disk stores for their default settings (server start, background).

    With the stores filled (``FLDA_CACHE_DIR``) this reads small JSON files (10 for
    Handwritten digits, 72 for Real data); on a new installation or after an upgrade
    it fits them once (the digits' Table 4 in about 6 s of one core, Real data's
    Table 3 in 16-30 s), at the lowest CPU priority so that visitors' pages come
    first.  A page asking for a fit the warm-up is computing waits for it and reads
    it (``explorer.experiments.result_store``).  A failure is logged and left for the
    page, which fits what is missing and says why.  (The lesson's steps are computed
    before the server opens: :func:`warm_up_lesson`.)
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
