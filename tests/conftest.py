"""Shared by every test folder: the repository root and the three test folders
(``library``: flda_core alone, never streamlit; ``app``: the dashboard, with
AppTest; ``e2e``: a real Chromium) are importable, so a test can reuse another
folder's helpers by module name."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
for folder in (TESTS.parent, TESTS / "library", TESTS / "app", TESTS / "e2e"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
