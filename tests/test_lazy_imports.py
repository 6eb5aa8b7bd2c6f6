"""Home of a fresh server must not wait for scikit-learn/scipy; every page still gets them.

Each check runs in a fresh Python process, so modules imported by other tests
do not hide an eager import.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code):
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_home_imports_neither_sklearn_nor_scipy():
    # what app.py and pages/home.py import
    out = _run("import sys, ui_common, flda_core\n"
               "print(sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))")
    assert out == "[]"


def test_public_api_still_importable_from_the_package():
    out = _run("import flda_core\n"
               "from flda_core import *\n"
               "from flda_core import FLDAClassifier, make_domains, TRANSFER_MODELS\n"
               "from flda_core.classifier import FLDAClassifier as C\n"
               "assert FLDAClassifier is C and set(flda_core.__all__) <= set(dir(flda_core))\n"
               "print(FLDAClassifier.__name__)")
    assert out == "FLDAClassifier"
    missing = _run("import flda_core\n"
                   "try:\n    flda_core.no_such_name\nexcept AttributeError as e:\n"
                   "    print('AttributeError')")
    assert missing == "AttributeError"


def test_warm_up_loads_the_heavy_modules_once():
    out = _run("import sys, ui_common\n"
               "t = ui_common.warm_up_imports()\n"
               "assert ui_common.warm_up_imports() is t  # one thread per process\n"
               "t.join()\n"
               "print(all(m in sys.modules for m in ui_common.HEAVY_MODULES), "
               "'sklearn' in sys.modules)")
    assert out == "True True"


def test_transfer_options_spelled_out_in_ui_common_match_the_core():
    """ui_common lists the transfer models without importing the method (which
    loads scikit-learn); the list must stay the core's, in the core's order."""
    out = _run("import ui_common\n"
               "from flda_core.transfer_models import TRANSFER_MODELS\n"
               "print(ui_common.TRANSFER_OPTIONS == tuple(TRANSFER_MODELS))")
    assert out == "True"
