"""The licence and the version: one source of truth each, as the wheel's metadata reads them."""

import re
from importlib.metadata import PackageNotFoundError, metadata, version
from pathlib import Path

import pytest

import flda_core

ROOT = Path(__file__).resolve().parents[2]


def _project():
    """The checkout's pyproject.toml (the library-only CI step runs these tests copied
    out of the checkout, against the installed wheel: there the metadata test speaks)."""
    path = ROOT / "pyproject.toml"
    if not path.is_file():
        pytest.skip("not run from the checkout: the installed wheel's metadata is checked instead")
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_installed_metadata_carries_the_licence_and_the_version():
    try:
        installed = metadata("flda-core")
    except PackageNotFoundError:
        pytest.skip("flda-core is not installed (tests run on the source tree alone)")
    assert installed["License-Expression"] == "BSD-3-Clause"
    assert version("flda-core") == flda_core.__version__


def test_version_is_read_from_the_package():
    project = _project()
    assert "version" not in project["project"]  # no second copy to drift
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "flda_core.__version__"}
    # A PEP 440 release number, as pip and importlib.metadata expect.
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", flda_core.__version__)
    assert "__version__" in dir(flda_core)


def test_licence_file_and_metadata_agree():
    project = _project()["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, The FLDA explorer developers" in text
    # the three conditions of BSD-3-Clause, and its disclaimer
    assert len(re.findall(r"^\d\. ", text, flags=re.MULTILINE)) == 3
    assert "AS IS" in text
    # Vendored files keep their own notices.
    assert (ROOT / "assets" / "LICENSE-plotly.js.txt").is_file()


def test_citation_file_cites_this_version_and_the_paper():
    """CITATION.cff (the checkout's; skipped outside it, like the pyproject checks)."""
    path = ROOT / "CITATION.cff"
    if not path.is_file():
        pytest.skip("not run from the checkout")
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", text, flags=re.MULTILINE)
    assert re.search(r"^version: (\S+)$", text, flags=re.MULTILINE).group(1) == flda_core.__version__
    assert re.search(r"^license: BSD-3-Clause$", text, flags=re.MULTILINE)
    assert '- name: "The FLDA explorer developers"' in text
    for field in ('title: "Feature-Level Domain Adaptation"', "volume: 17", "issue: 171", "year: 2016"):
        assert field in text
    assert [name for name in ("Kouw", "van der Maaten", "Krijthe", "Loog") if name not in text] == []
