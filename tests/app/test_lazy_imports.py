"""Home of a fresh server must not wait for scikit-learn/scipy; every page still gets them.

Each check runs in a fresh Python process, so modules imported by other tests
do not hide an eager import.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code):
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_home_imports_neither_sklearn_nor_scipy():
    # every UI module (app.py and pages/home.py import some of them) and the registry
    out = _run(
        "import sys, flda_core\n"
        "from explorer import registry\n"
        "from explorer.ui import (caches, charts, domain_controls, guard, navigation,\n"
        "                         serving, state, tables, widgets)\n"
        "print(sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))"
    )
    assert out == "[]"


def test_public_api_still_importable_from_the_package():
    out = _run(
        "import flda_core\n"
        "from flda_core import *\n"
        "from flda_core import FLDAClassifier, make_domains, TRANSFER_MODELS\n"
        "from flda_core.classifier import FLDAClassifier as C\n"
        "assert FLDAClassifier is C and set(flda_core.__all__) <= set(dir(flda_core))\n"
        "print(FLDAClassifier.__name__)"
    )
    assert out == "FLDAClassifier"
    missing = _run(
        "import flda_core\n"
        "try:\n    flda_core.no_such_name\nexcept AttributeError as e:\n"
        "    print('AttributeError')"
    )
    assert missing == "AttributeError"


def test_warm_up_loads_every_module_of_the_project_once():
    out = _run(
        "import sys\n"
        "from explorer.ui import serving\n"
        "t = serving.warm_up_imports()\n"
        "assert serving.warm_up_imports() is t  # one thread per process\n"
        "t.join()\n"
        "modules = serving.project_modules()\n"
        "print(all(m in sys.modules for m in modules), len(modules) > 60, "
        "'sklearn' in sys.modules, 'skada' in sys.modules, 'dask' in sys.modules)"
    )
    assert out == "True True True False False"  # optional heavy libraries stay unloaded


def test_warm_up_loads_every_module_the_pages_import_and_makes_the_first_calls():
    """No page's first visitor on a fresh server waits for an import: the warm-up loads
    every module of the project (also ``explorer.experiments.missing_data``, which Real
    data imports inside a function), plotly's figure classes, and compresses the chart
    bundle."""
    out = _run(
        "import sys\n"
        "from explorer.ui import serving\n"
        "from explorer.ui import chart as ui_chart\n"
        "modules = serving.project_modules()\n"
        "serving.warm_up_imports().join()\n"
        "print(sorted(m for m in modules if m not in sys.modules),\n"
        "      'explorer.experiments.missing_data' in modules,\n"
        "      'explorer.figures.digits' in modules,\n"
        "      'plotly.graph_objs.layout._legend' in sys.modules,\n"
        "      'plotly.graph_objs.heatmap.colorbar' in sys.modules,\n"
        "      ui_chart._bundle_bytes.cache_info().currsize)"
    )
    assert out == "[] True True True True 1"


def test_transfer_options_spelled_out_in_the_widgets_match_the_core():
    """``explorer.ui.widgets`` lists the transfer models without importing the method
    (which loads scikit-learn); the list must stay the core's, in the core's order."""
    out = _run(
        "from explorer.ui import widgets\n"
        "from flda_core.transfer_models import TRANSFER_MODELS\n"
        "print(widgets.TRANSFER_OPTIONS == tuple(TRANSFER_MODELS))"
    )
    assert out == "True"


def test_streamlit_run_serves_the_st_app_whose_start_loads_the_heavy_modules():
    """``streamlit run app.py`` discovers ``app`` (an ``st.App``); importing app.py the
    way the server does runs no page, and the app's lifespan returns only once the
    heavy modules are loaded and frozen, so no visitor waits for them."""
    out = _run(
        "import asyncio, gc, os, sys\n"
        "os.environ['FLDA_REAL_DATA_WARM_UP'] = '0'\n"
        "os.environ['FLDA_DIGITS_WARM_UP'] = '0'\n"
        "os.environ['FLDA_LESSON_WARM_UP'] = '0'\n"
        "from pathlib import Path\n"
        "from streamlit.runtime.pages_manager import PagesManager\n"
        "from streamlit.web.server.app_discovery import discover_asgi_app\n"
        "found = discover_asgi_app(Path('app.py'))\n"
        "import app, streamlit as st\n"
        "assert isinstance(app.app, st.App)\n"
        "# the modules with Streamlit caches: imported by the lifespan, not before\n"
        "assert 'explorer.ui.caches' not in sys.modules\n"
        "assert 'explorer.ui.charts' not in sys.modules\n"
        "async def start():\n"
        "    async with app.lifespan(app.app):\n"
        "        from explorer.ui import serving\n"
        "        return (all(m in sys.modules for m in serving.project_modules()),\n"
        "                'sklearn' in sys.modules, gc.get_freeze_count() > 10_000,\n"
        "                PagesManager.uses_pages_directory)\n"
        "print(found.is_asgi_app, found.import_string, *asyncio.run(start()))"
    )
    # and the app is no legacy pages-directory app from the first visitor on
    assert out.splitlines()[-1] == "True app:app True True True False"


def test_imports_are_frozen_once_and_again_only_after_new_imports():
    """Streamlit's full GC after every run would walk every module object: they are
    frozen after imports, and freezing again happens only when modules were added."""
    out = _run(
        "import gc\n"
        "from explorer.ui import serving\n"
        "first = serving.freeze_long_lived_objects()\n"
        "frozen = gc.get_freeze_count()\n"
        "again = serving.freeze_long_lived_objects()\n"
        "import sklearn.linear_model\n"
        "after_import = serving.freeze_long_lived_objects()\n"
        "print(first, frozen > 0, again, after_import, gc.get_freeze_count() > frozen)"
    )
    assert out == "True True False True True"


def test_store_warm_ups_run_in_order_skip_the_switched_off_and_survive_failures(monkeypatch):
    """The server's start fills each page's disk store unless its variable is "0"; a failing
    warm-up is logged and the next one still runs.  (In a thread: it lowers its priority.)"""
    import threading
    import types

    from explorer.ui import serving

    calls = []
    module = types.ModuleType("fake_warm_ups")
    module.good = lambda: calls.append("good")
    module.skipped = lambda: calls.append("skipped")
    module.broken = lambda: calls.append("broken") or 1 / 0
    monkeypatch.setitem(sys.modules, "fake_warm_ups", module)
    monkeypatch.setenv("FLDA_TEST_OFF", "0")
    monkeypatch.setenv("FLDA_TEST_ON", "1")
    monkeypatch.delenv("FLDA_TEST_UNSET", raising=False)
    warm_ups = (
        ("FLDA_TEST_UNSET", "fake_warm_ups", "broken"),
        ("FLDA_TEST_OFF", "fake_warm_ups", "skipped"),
        ("FLDA_TEST_ON", "fake_warm_ups", "good"),
    )
    thread = threading.Thread(target=serving.warm_up_stores, args=(warm_ups,))
    thread.start()
    thread.join()
    assert calls == ["broken", "good"]
    # the server's own table: the pages' stores, each with its switch
    assert [(env, module) for env, module, _ in serving.STORE_WARM_UPS] == [
        ("FLDA_DIGITS_WARM_UP", "explorer.experiments.digits"),
        ("FLDA_REAL_DATA_WARM_UP", "explorer.experiments.paper_tables"),
    ]


def test_the_warm_up_covers_every_project_module_the_pages_import():
    """Every project module a page imports (read here with ast, also inside functions)
    is among the modules the warm-up imports."""
    import ast
    from importlib.util import find_spec

    from explorer.ui import serving

    expected = set()
    for path in (ROOT / "pages").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith(("flda_core", "explorer"))
            ):
                expected.add(node.module)
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    try:
                        if find_spec(name) is not None:
                            expected.add(name)
                    except ImportError:
                        pass
            elif isinstance(node, ast.Import):
                expected.update(a.name for a in node.names if a.name.startswith(("flda_core", "explorer")))
    assert expected <= set(serving.project_modules())
    assert {"explorer.experiments.paper_tables", "explorer.data.digits"} <= expected
