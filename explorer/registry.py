"""The app's pages, each listed once (no streamlit here).

Navigation, Home's list and the lesson's links all read :data:`PAGES`;
``tests/app/test_registry.py`` checks every file in ``pages/`` is listed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: The folder of ``app.py``; the pages are in ``pages/`` next to it.
APP_DIR = Path(__file__).resolve().parents[1]
PAGES_DIR = APP_DIR / "pages"
#: The sample data shipped with the project (``sample_data/`` next to ``app.py``),
#: passed explicitly to the readers of ``explorer.data``.
SAMPLE_DIR = APP_DIR / "sample_data"


@dataclass(frozen=True)
class Page:
    """One page of the app.

    Attributes
    ----------
    script : str
        The page's file, relative to ``app.py`` (``"pages/synthetic.py"``).
    title, icon : str
        Its name and icon in the navigation and on Home.
    url_path : str
        The file name without ``.py``; ``""`` for Home, served at the app's root.
    blurb : str
        What the page shows, under its link on Home.
    """

    script: str
    title: str
    icon: str
    url_path: str
    blurb: str = ""

    @property
    def default(self):
        """Home: the page served at the app's root."""
        return self.url_path == ""


PAGES = (
    Page("pages/home.py", "Home", ":material/home:", ""),
    Page(
        "pages/lesson.py",
        "Lesson",
        ":material/school:",
        "lesson",
        "Start here: the paper step by step, from the assumption to a recap, each step with "
        "its live figure, the one or two controls that matter, a prediction for the class "
        "(the answer computed and revealed after), slides for a projector (?present=1, a "
        "presenter's keys), a class session for votes on phones, handouts for students and "
        "lecturer and a link to the full page with the same settings.",
    ),
    Page(
        "pages/synthetic.py",
        "Synthetic domains",
        ":material/scatter_plot:",
        "synthetic",
        "Bernoulli and Poisson toy problems with the decision boundaries of S-LS/T-LS/FLDA-Q "
        "and S-LR/T-LR/FLDA-L, target errors and θ̂ beside the true θ; one-click presets "
        "for the paper's Figures 1 and 2 (section 4.1.1).",
    ),
    Page(
        "pages/transfer.py",
        "Transfer parameters",
        ":material/tune:",
        "transfer",
        "What a wrong θ̂ costs: FLDA's boundary and target error when θ̂ is perturbed, "
        "with sliders for your own θ; the paper's Table 1 and Figure 4 (section 4.1.3).",
    ),
    Page(
        "pages/learning_curves.py",
        "Learning curves",
        ":material/show_chart:",
        "learning_curves",
        "How many samples FLDA needs to adapt: error against training-set size on source "
        "and target (Figure 3, section 4.1.2).",
    ),
    Page(
        "pages/digits.py",
        "Handwritten digits",
        ":material/draw:",
        "digits",
        "MNIST-like versus USPS-like digits: where pixels drop out, and how FLDA-L's "
        "weights differ from the naive classifier's (Figures 5-6, section 4.2.3).",
    ),
    Page(
        "pages/real_data.py",
        "Real data",
        ":material/table_chart:",
        "real_data",
        "The paper's real-data tables, offline: Table 3 (missing data at test time on six UCI "
        "data sets, with Table 2's counts and θ̂ from the data alone) and the image and text "
        "benchmarks of Tables 5, 7 and 8 on the authors' files (6 and 9 downloaded on request). "
        "FLDA-Q and FLDA-L beside S-LR, skada's baselines and the T-LR oracle, the paper's row "
        "beside this run's, a winner only beyond the noise, pair by pair or the whole table "
        "(section 4.2).",
    ),
    Page(
        "pages/your_data.py",
        "Your data",
        ":material/upload_file:",
        "your_data",
        "Upload source and target CSVs (or use the samples) and compare FLDA with the "
        "naive classifiers on your own problem.",
    ),
)
#: The default page (served at the app's root).
HOME = PAGES[0]
_BY_SCRIPT = {entry.script: entry for entry in PAGES}


def page(script):
    """The :class:`Page` of ``script`` (``"pages/digits.py"``); KeyError for no page."""
    return _BY_SCRIPT[script]


def url_path(script):
    """The URL path of the page ``script`` (``"digits"``; ``""`` for Home)."""
    return page(script).url_path
