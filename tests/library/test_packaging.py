"""``pip install .`` gives the library alone: ``flda_core`` with numpy, scipy,
scikit-learn and threadpoolctl, nothing of the dashboard, and it works outside the
checkout; its declared floors are the versions CI tests (``.ci/min-constraints.txt``).

The wheel is built from the checkout without build isolation (no download), then
installed without dependencies into a fresh virtual environment that sees this
interpreter's numpy/scipy/scikit-learn (their folders, through a ``.pth`` file: that
works whether the suite runs from a system Python or from a virtualenv, where
``--system-site-packages`` would see the base interpreter's packages instead); the fit
runs from a folder outside the checkout, so only the installed copy can be imported.
"""

import email
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What the library may require (and nothing else), without version bounds.
LIBRARY_REQUIREMENTS = {"numpy", "scipy", "scikit-learn", "threadpoolctl"}


def _requirement_name(text):
    for stop in "<>=!~[; ":
        text = text.split(stop)[0]
    return text.strip().lower()


def _numerical_stack_folders():
    """The folders this interpreter imports the library's dependencies from (and their
    own: joblib, threadpoolctl), whether it is a system Python or a virtualenv's."""
    import joblib
    import numpy
    import scipy
    import sklearn
    import threadpoolctl

    folders = {Path(module.__file__).resolve().parent.parent for module in (numpy, scipy, sklearn, joblib)}
    return sorted(folders | {Path(threadpoolctl.__file__).resolve().parent})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
        ],
        cwd=build,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode and "No module named" in result.stderr and "setuptools" in result.stderr:
        pytest.skip("setuptools is not installed: cannot build without downloading it")
    assert result.returncode == 0, result.stderr[-2000:]
    (found,) = out.glob("flda_core-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_holds_only_flda_core_and_requires_only_the_numerical_stack(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(metadata_name))
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"flda_core"}
    assert {
        "flda_core/classifier.py",
        "flda_core/transfer.py",
        "flda_core/solvers.py",
        "flda_core/synthetic.py",
        "flda_core/dask_support.py",
    } <= set(names)
    required = metadata.get_all("Requires-Dist")
    always = {_requirement_name(r) for r in required if "extra ==" not in r}
    assert always == LIBRARY_REQUIREMENTS
    extras = {_requirement_name(r) for r in required if "extra ==" in r}
    assert extras == {"dask", "distributed"}
    assert not {"streamlit", "plotly", "pandas", "skada"} & (always | extras)


@pytest.mark.slow
def test_the_installed_library_fits_and_predicts_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site_packages = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout.strip()
    (Path(site_packages) / "numerical_stack.pth").write_text(
        "".join(f"{folder}\n" for folder in _numerical_stack_folders())
    )
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)],
        check=True,
        timeout=300,
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # The dashboard's libraries behave as if not installed (a finder that refuses them):
    # the library must fit without them (scikit-learn itself tries pandas, lives without it).
    code = (
        "import sys\n"
        "class NotInstalled:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('streamlit', 'plotly', 'pandas', 'skada', 'dask',\n"
        "                                  'distributed', 'explorer'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NotInstalled())\n"
        "import flda_core\n"
        "from flda_core import FLDAClassifier, make_bernoulli_domains\n"
        "data = make_bernoulli_domains(n_source=2000, n_target=2000, random_state=0)\n"
        "clf = FLDAClassifier(loss='quadratic').fit(data.X_source, data.y_source,\n"
        "                                           X_target=data.X_target)\n"
        "error = (clf.predict(data.X_target) != data.y_target).mean()\n"
        "print(flda_core.__file__, round(float(clf.theta_[0]), 1), error < 0.5)\n"
    )
    result = subprocess.run(
        [str(python), "-c", code],
        cwd=outside,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    location, theta, better_than_chance = result.stdout.split()
    assert Path(location).is_relative_to(venv) and not Path(location).is_relative_to(ROOT)
    assert theta == "0.5" and better_than_chance == "True"  # the paper's θ₁ = 0.5


def test_declared_floors_are_the_pins_ci_tests():
    """Every ``>=`` floor of pyproject.toml's dependencies and ``[dask]`` extra is pinned, equal, in
    ``.ci/min-constraints.txt`` (which ``.ci/library-floors`` installs), and nothing
    else is pinned there."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floors = {}
    for requirement in project["dependencies"] + project["optional-dependencies"]["dask"]:
        name, bound = requirement.split(">=")
        floors[_requirement_name(name)] = bound.strip()
    pins = {}
    for line in (ROOT / ".ci" / "min-constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[_requirement_name(name)] = version.strip()
    assert set(floors) == LIBRARY_REQUIREMENTS | {"dask", "distributed"}
    assert pins == floors
