"""Streamlit plumbing shared by every page, defined once.

Seed, URL state and presentation mode; the app's page list (:func:`app_pages`);
the one cache of synthetic fits (:func:`cached_linear_fit`, handed to the
experiments as ``fit=`` by :func:`linear_fitter`); the data settings of the
synthetic pages (:func:`draw_domain_controls`, :func:`read_domain_config`);
the progress bar every experiment reports to (:func:`progress_bar`); number
columns (:func:`number_columns`) and error display (:func:`show_problems`,
:func:`show_data_error`); where the sample data live (:data:`SAMPLE_DIR`).

This module is the only place (besides ``app.py`` and ``pages/``) that imports
streamlit; ``flda_core`` never does.

Conventions every page follows
------------------------------
* Widget keys that should survive switching pages contain a dot and start with
  the page's prefix, e.g. ``"syn.n_source"``.  ``app.py`` calls
  :func:`keep_widget_state` on every run so Streamlit does not drop them when
  their page is not shown.  Keys of file uploaders and buttons must *not*
  contain a dot (Streamlit forbids setting their state).
* A page's settings are mirrored in the URL query string so a configuration
  can be shared: call :func:`restore_from_url` with the page's
  :class:`Setting` list before drawing widgets and :func:`write_to_url` after.
* ``?present=1`` in the URL switches on presentation mode: pages hide their
  controls and show clean figures for a lecture.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from numbers import Real
from typing import Any, Sequence

import streamlit as st

import numpy as np

from flda_core.datasets.numbers import format_values, truncate_per_feature
from flda_core.datasets.synthetic import (PAPER_PARAMS, PARAM_BOUNDS, PARAM_WORD, make_domains,
                                          parse_domain_config)
from flda_core.equations import EQUATIONS
from flda_core.experiments.paper_notes import NOTES_BY_PAGE
from flda_core.experiments.synthetic import fit_linear
from flda_core.figures.export import (IMAGE_FORMATS, alt_text, chart_config, export_filename,
                                     presentation_style)
from flda_core.presentation import (HAS_PRESETS, PRESENTATION_CONTROLS, PRESENTATION_LABELS,
                                    with_present)
from flda_core.safe_text import escape_markdown

SEED_KEY = "shared.seed"
#: The sample data shipped with the project (``sample_data/`` next to ``app.py``),
#: passed explicitly to the readers of ``flda_core.datasets``.
SAMPLE_DIR = Path(__file__).resolve().parent / "sample_data"
PRESENT_PARAM = "present"
IMAGE_FORMAT_KEY = "shared.image_format"
#: Session flag of presentation mode (it outlives the query string; see presentation_mode).
PRESENT_KEY = "shared.present"

__all__ = ["Setting", "SEED_KEY", "get_seed", "presentation_mode", "keep_widget_state",
           "restore_from_url", "write_to_url", "apply_values", "cached_domains", "progress_bar",
           "SAMPLE_DIR", "cached_linear_fit", "linear_fitter", "read_domain_config",
           "show_problems", "show_data_error", "number_columns", "PAGE_SPECS", "app_pages",
           "in_pages_directory_mode",
           "domain_settings", "domain_values", "draw_domain_controls",
           "IMAGE_FORMAT_KEY", "image_format", "draw_image_format_choice", "show_chart",
           "show_equations", "cached_paper_notes", "show_paper_notes", "page_link",
           "PRESENT_KEY", "keep_presentation_in_url", "presentation_row"]


@dataclass(frozen=True)
class Setting:
    """A widget value that lives in ``st.session_state[key]`` and in the URL.

    ``options`` (for selects/radios) or ``lo``/``hi`` (for numbers and sliders)
    bound what a URL may set; anything else in the URL is ignored, never raised.
    """

    key: str
    default: Any
    options: Sequence[Any] | None = None
    lo: float | None = None
    hi: float | None = None

    @property
    def url_name(self):
        return self.key.split(".", 1)[-1] if "." in self.key else self.key

    def accepts(self, value):
        """Whether ``value`` (decoded from JSON) is a valid value of this setting."""
        if self.options is not None:
            values = value if isinstance(self.default, (list, tuple)) else [value]
            return isinstance(values, (list, tuple)) and all(v in self.options for v in values)
        if isinstance(self.default, bool):
            return isinstance(value, bool)
        if isinstance(self.default, Real):
            values = [value]
        elif isinstance(self.default, (list, tuple)):
            if not isinstance(value, list) or len(value) != len(self.default):
                return False
            values = value
        elif isinstance(self.default, str):
            return isinstance(value, str)
        else:
            return False
        for v in values:
            if isinstance(v, bool) or not isinstance(v, Real):
                return False
            if isinstance(self.default, int) and not isinstance(self.default, bool) \
                    and not float(v).is_integer():
                return False
            if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
                return False
        return True

    def coerce(self, value):
        if isinstance(self.default, tuple):
            return tuple(value)
        if isinstance(self.default, int) and not isinstance(self.default, bool):
            return int(value)
        if isinstance(self.default, float):
            return float(value)
        return value


def get_seed():
    """The random seed chosen in the sidebar (shared by every page)."""
    return int(st.session_state.get(SEED_KEY, 0))


def presentation_mode():
    """True in presentation mode: pages hide their sidebar controls.

    ``?present=1`` switches it on and ``?present=0`` off; the mode is remembered
    in the session, because Streamlit's navigation drops the query string when
    the viewer switches pages (:func:`keep_presentation_in_url` writes it back).
    """
    raw = st.query_params.get(PRESENT_PARAM)
    if raw is not None:
        st.session_state[PRESENT_KEY] = str(raw).lower() in ("1", "true", "yes")
    return bool(st.session_state.get(PRESENT_KEY, False))


def keep_presentation_in_url():
    """Put ``?present=1`` back into the URL after a page switch, so a copied or reloaded
    link stays in presentation mode (called by ``app.py`` on every run)."""
    if presentation_mode() and st.query_params.get(PRESENT_PARAM) != "1":
        st.query_params[PRESENT_PARAM] = "1"


def keep_widget_state():
    """Stop Streamlit from deleting widget state of pages that are not shown.

    Streamlit removes a widget's value at the end of a run in which the widget
    was not drawn; re-assigning it marks it as user state.  Applies to every
    key containing a dot (see the module conventions).
    """
    for key in list(st.session_state.keys()):
        if isinstance(key, str) and "." in key:
            st.session_state[key] = st.session_state[key]


def restore_from_url(settings):
    """Initialise missing session values from the URL, else from the defaults.

    Values already in the session (the user moved a widget) win over the URL.
    """
    for setting in settings:
        if setting.key in st.session_state:
            continue
        raw = st.query_params.get(setting.url_name)
        value = setting.default
        if raw is not None:
            try:
                decoded = json.loads(raw)
            except (TypeError, ValueError):
                decoded = raw  # plain strings need no quotes in a URL
            if setting.accepts(decoded):
                value = setting.coerce(decoded)
        st.session_state[setting.key] = value


def write_to_url(settings):
    """Mirror the current values of ``settings`` into the URL query string."""
    for setting in settings:
        if setting.key not in st.session_state:
            continue
        value = st.session_state[setting.key]
        encoded = value if isinstance(value, str) else json.dumps(
            list(value) if isinstance(value, tuple) else value)
        if st.query_params.get(setting.url_name) != encoded:
            st.query_params[setting.url_name] = encoded


@st.cache_data(max_entries=512, show_spinner=False)
def cached_linear_fit(data_key, family, loss, l2, theta=None, perturbation=None):
    """Cached :func:`flda_core.experiments.synthetic.fit_linear` on the domains of
    ``data_key`` (``theta`` a tuple or None).  One cache for every synthetic page."""
    return fit_linear(cached_domains(*data_key), family, loss, l2=l2, theta=theta,
                      perturbation=perturbation)


def linear_fitter(data_key):
    """The ``fit=`` callable of the synthetic experiments, backed by :func:`cached_linear_fit`.

    ``theta`` arrays are turned into rounded tuples, so equal values share a
    cache entry.
    """
    def fit(family, loss, l2, theta=None, perturbation=None):
        key = None if theta is None else tuple(np.round(np.asarray(theta, dtype=float), 12))
        return cached_linear_fit(data_key, family, loss, float(l2), key, perturbation)
    return fit


def read_domain_config(prefix):
    """The page's validated data configuration (a hashable ``make_domains`` key) or a
    list of problems (:func:`flda_core.datasets.synthetic.parse_domain_config`)."""
    state = st.session_state
    return parse_domain_config(
        state[f"{prefix}.distribution"], state[f"{prefix}.n_features"],
        state[f"{prefix}.class1"], state[f"{prefix}.class2"], state[f"{prefix}.theta"],
        state[f"{prefix}.n_source"], state[f"{prefix}.n_target"], get_seed())


# --- Teaching helpers (issue 12): one chart call, the equations panel, the notes on
# the paper, the lesson's links and presentation mode's links.

def image_format():
    """The download format of every chart's camera button (sidebar choice, PNG by default)."""
    value = st.session_state.get(IMAGE_FORMAT_KEY, "png")
    return value if value in IMAGE_FORMATS else "png"


def draw_image_format_choice():
    """The one PNG/SVG choice for every chart's download (drawn in the sidebar by ``app.py``)."""
    st.radio("Chart download format", IMAGE_FORMATS, key=IMAGE_FORMAT_KEY, horizontal=True,
             format_func=str.upper,
             help="What the camera button above each chart saves: PNG at twice the size of "
                  "a 1600 × 900 slide, or SVG (vector, for print). The whole legend is "
                  "always included and the file is named after what the chart shows.")


def show_chart(fig, key, what, caption=None):
    """Draw a plotly figure the way every page does, then its caption.

    The camera button saves a slide-sized PNG (or SVG) named after ``what``
    (:func:`flda_core.figures.export.chart_config`); in presentation mode the
    figure gets projector typography (:func:`~flda_core.figures.export.presentation_style`);
    the caption ends with a one-sentence text alternative of the chart
    (:func:`~flda_core.figures.export.alt_text`).
    """
    if presentation_mode():
        fig = presentation_style(fig)
    st.plotly_chart(fig, width="stretch", key=key, config=chart_config(what, image_format()))
    description = "*Chart:* " + escape_markdown(alt_text(fig))
    st.caption(f"{caption}\n\n{description}" if caption else description)


def show_equations(keys=None, title="Equations"):
    """The equations panel: each formula typeset (``st.latex``) under an anchor that the
    captions' equation links (:func:`flda_core.equations.equation_link`) point to."""
    st.header(title, anchor="equations")
    for eq in EQUATIONS:
        if keys is not None and eq.key not in keys:
            continue
        st.subheader(eq.title, anchor=eq.anchor)
        st.latex(eq.latex)
        st.caption(f"{eq.explanation} *{eq.reference[0].upper()}{eq.reference[1:]}.*")


@st.cache_data(max_entries=8, show_spinner=False)
def cached_paper_notes(page):
    """The notes on the paper of one page (:data:`NOTES_BY_PAGE`), as markdown; cached
    because each note reruns a paper experiment (0-4 s)."""
    return [build().markdown() for build in NOTES_BY_PAGE[page]]


def show_paper_notes(page):
    """An expander with the notes on the paper for ``page`` (a page file stem).

    The notes are computed on request (a button), so they never delay the first
    chart; once computed in this session they are shown at once.
    """
    with st.expander("Notes on the paper: where its reported numbers and its own setup "
                     "disagree", icon=":material/rate_review:"):
        flag = f"notes_shown_{page}"
        if not st.session_state.get(flag):
            st.caption("Each note reruns the paper's setting and compares the result with "
                       "the numbers the paper prints (a few seconds).")
            if not st.button("Compute the notes", key=f"notes_button_{page}",
                             help="Run the paper's settings and compare with its reported "
                                  "numbers; the result is cached for everyone."):
                return
            st.session_state[flag] = True
        with st.spinner("Computing the notes on the paper…"):
            notes = cached_paper_notes(page)
        for note in notes:
            st.markdown(note)


def _copy_from_widget(key, widget_key):
    st.session_state[key] = st.session_state[widget_key]


def _draw_live_control(setting, widget_key):
    """One compact control for ``setting`` (its type and bounds choose the widget)."""
    label = PRESENTATION_LABELS.get(setting.url_name, setting.url_name)
    common = dict(key=widget_key, on_change=_copy_from_widget, args=(setting.key, widget_key),
                  help=f"The page's “{label}” setting (the sidebar has all of them).")
    if setting.options is not None and isinstance(setting.default, (list, tuple)):
        st.multiselect(label, setting.options, format_func=lambda v: f"{v:+g}", **common)
    elif setting.options is not None:
        st.selectbox(label, setting.options, **common)
    elif isinstance(setting.default, bool):
        st.toggle(label, **common)
    elif isinstance(setting.default, (int, float)):
        st.number_input(label, min_value=setting.lo, max_value=setting.hi,
                        step=1 if isinstance(setting.default, int) else 0.05, **common)
    else:
        st.text_input(label, **common)


def presentation_row(page, settings, presets=None):
    """In presentation mode, the page's live controls (:data:`PRESENTATION_CONTROLS`) and
    its paper presets (``{label: values}``, pages in :data:`HAS_PRESETS`) in one compact
    row above the figures; nothing otherwise.  Each control writes to the page's own key,
    so the sidebar, the URL and the figures stay in step."""
    if not presentation_mode() or page not in PRESENTATION_CONTROLS:
        return
    by_key = {s.key: s for s in settings}
    by_key[SEED_KEY] = Setting(SEED_KEY, 0, lo=0, hi=2**31 - 1)
    keys = [k for k in PRESENTATION_CONTROLS[page] if k in by_key]
    shown_presets = presets if presets and page in HAS_PRESETS else {}
    columns = st.columns([3] * len(keys) + [2] * len(shown_presets), vertical_alignment="bottom")
    for column, key in zip(columns, keys):
        widget_key = "present_ctl_" + key.replace(".", "_")
        if key in st.session_state:
            st.session_state[widget_key] = st.session_state[key]
        with column:
            _draw_live_control(by_key[key], widget_key)
    for column, (label, values) in zip(columns[len(keys):], shown_presets.items()):
        column.button(label, on_click=apply_values, args=(values,), width="stretch",
                      key="present_preset_" + export_filename(label),
                      help=f"Load the paper's setting: {label}.")


def page_link(page, label, icon=None, query="", help=None):
    """``st.page_link`` that keeps presentation mode (and an optional query string)."""
    url = with_present("?" + query, presentation_mode()).lstrip("?")
    st.page_link(page, label=label, icon=icon, help=help,
                 query_params=dict(parse_qsl(url)) or None)


def show_problems(problems, where="in the sidebar"):
    """One ``st.error`` per problem, each saying where to fix it; True if there were any."""
    for problem in problems:
        st.error(f"{problem} Fix it {where}; nothing else was changed.")
    return bool(problems)


def show_data_error(headline, error):
    """``st.error`` for a :class:`flda_core.errors.DataValidationError`: what is wrong, then
    how to fix it (never a traceback)."""
    st.error(f"**{headline}** {error.message}\n\n**Fix:** {error.hint}", icon=":material/error:")


def number_columns(frame, fmt="%.3f", columns=None):
    """``column_config`` showing the float columns of ``frame`` (or ``columns``) with ``fmt``."""
    if columns is None:
        columns = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    return {c: st.column_config.NumberColumn(format=fmt) for c in columns}


@st.cache_data(max_entries=4, show_spinner=False)
def cached_domains(distribution, params, n_source, n_target, theta, seed):
    """Cached :func:`flda_core.datasets.synthetic.make_domains` (arguments are plain tuples).

    Shared by the synthetic-data pages, so switching between them reuses the data.
    """
    return make_domains(distribution, params, n_source, n_target, theta, random_state=seed)


@contextmanager
def progress_bar(text):
    """A progress bar for the duration of a ``with`` block; yields the callable
    ``progress(fraction, text)`` every ``flda_core`` experiment accepts
    (:mod:`flda_core.experiments.progress`).  The bar disappears afterwards."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda fraction, message: bar.progress(min(1.0, max(0.0, fraction)), text=message)
    finally:
        bar.empty()


def apply_values(values):
    """Set several session values at once (use as an ``on_click`` callback for presets)."""
    for key, value in values.items():
        st.session_state[key] = value


# --- Controls of the synthetic domains (section 4.1), shared by the "Synthetic
# domains" and "Transfer parameters" pages: same data model, different key prefix.

DISTRIBUTION_LABELS = {"bernoulli": "Bernoulli (binary features)",
                       "poisson": "Poisson (count features)"}
_LIST_HELP = ("One value per feature, separated by commas. Fewer values than features: "
              "the last one is repeated (so a single value applies to every feature).")


def domain_settings(prefix, paper, max_features, n_samples, max_samples):
    """URL-mirrored settings of the data model, starting from a paper setting."""
    return [
        Setting(f"{prefix}.distribution", paper.distribution,
                          options=("bernoulli", "poisson")),
        Setting(f"{prefix}.n_features", 2, lo=1, hi=max_features),
        Setting(f"{prefix}.class1", format_values(paper.params[0])),
        Setting(f"{prefix}.class2", format_values(paper.params[1])),
        Setting(f"{prefix}.theta", format_values(paper.theta)),
        Setting(f"{prefix}.n_source", n_samples, lo=10, hi=max_samples),
        Setting(f"{prefix}.n_target", n_samples, lo=10, hi=max_samples),
    ]


def domain_values(prefix, paper, n_samples):
    """Session values that load ``paper``'s data model with ``n_samples`` per domain."""
    return {f"{prefix}.distribution": paper.distribution, f"{prefix}.n_features": 2,
            f"{prefix}.class1": format_values(paper.params[0]),
            f"{prefix}.class2": format_values(paper.params[1]),
            f"{prefix}.theta": format_values(paper.theta),
            f"{prefix}.n_source": n_samples, f"{prefix}.n_target": n_samples}


def _load_paper_params(prefix):
    """Switching distribution loads that distribution's paper parameters (section 4.1.1)."""
    params = PAPER_PARAMS[st.session_state[f"{prefix}.distribution"]]
    st.session_state[f"{prefix}.class1"] = format_values(params[0])
    st.session_state[f"{prefix}.class2"] = format_values(params[1])


def _truncate_lists(prefix, on_change=None):
    """Drop list values beyond the new number of features so the lists stay valid."""
    n = st.session_state[f"{prefix}.n_features"]
    for name in ("class1", "class2", "theta"):
        key = f"{prefix}.{name}"
        st.session_state[key] = truncate_per_feature(st.session_state.get(key, ""), n)
    if on_change is not None:
        on_change(n)


def draw_domain_controls(prefix, max_features, max_samples, features_help,
                         on_n_features_change=None):
    """The "Data" block of the sidebar: distribution, parameters, theta, sizes.

    ``on_n_features_change(n)`` lets a page keep its own settings valid when the
    number of features shrinks.  Returns the chosen distribution.
    """
    st.subheader("Data")
    distribution = st.radio(
        "Class-conditional distribution", ("bernoulli", "poisson"),
        format_func=DISTRIBUTION_LABELS.get, key=f"{prefix}.distribution",
        on_change=_load_paper_params, args=(prefix,),
        help="Each feature of each class is drawn independently: Bernoulli gives 0/1 "
             "features (Figure 1), Poisson gives counts (Figures 2-4). Switching loads "
             "the paper's parameters for that distribution.")
    st.number_input("Number of features", min_value=1, max_value=max_features, step=1,
                    key=f"{prefix}.n_features", on_change=_truncate_lists,
                    args=(prefix, on_n_features_change), help=features_help)
    word = PARAM_WORD[distribution]
    lo, hi = PARAM_BOUNDS[distribution]
    for k in (1, 2):
        st.text_input(f"Class {k} {word}", key=f"{prefix}.class{k}",
                      help=f"Per-feature {word} of class {k}, between {lo:g} and {hi:g}. "
                           + _LIST_HELP)
    st.text_input(
        "True dropout θ per feature", key=f"{prefix}.theta",
        help="The transfer model that makes the target domain: feature d is set to 0 "
             "with probability θ_d and otherwise scaled by 1/(1 − θ_d). The paper uses "
             "0.5, 0 (half of feature 1 dropped). Values in [0, 1]; " + _LIST_HELP)
    col_s, col_t = st.columns(2)
    col_s.number_input(
        "Source samples", min_value=10, max_value=max_samples, step=1000,
        key=f"{prefix}.n_source",
        help="Labelled source samples (balanced classes). The paper uses 100,000; "
             "10,000 keeps the page instant.")
    col_t.number_input(
        "Target samples", min_value=10, max_value=max_samples, step=1000,
        key=f"{prefix}.n_target",
        help="Target samples: FLDA sees them without labels (to estimate θ); the "
             "oracles T-LS/T-LR are trained on them with labels; all errors are "
             "measured on them.")
    return distribution


#: The app's pages: ``(script, title, icon)``; :func:`app_pages` turns them into ``st.Page``s.
PAGE_SPECS = (
    ("pages/home.py", "Home", ":material/home:"),
    ("pages/lesson.py", "Lesson", ":material/school:"),
    ("pages/synthetic.py", "Synthetic domains", ":material/scatter_plot:"),
    ("pages/transfer.py", "Transfer parameters", ":material/tune:"),
    ("pages/learning_curves.py", "Learning curves", ":material/show_chart:"),
    ("pages/digits.py", "Handwritten digits", ":material/draw:"),
    ("pages/real_data.py", "Real data", ":material/table_chart:"),
    ("pages/your_data.py", "Your data", ":material/upload_file:"),
)


def app_pages():
    """The ``st.Page`` list of ``app.py``'s ``st.navigation`` (Home is the default)."""
    return [st.Page(script, title=title, icon=icon, default=i == 0)
            for i, (script, title, icon) in enumerate(PAGE_SPECS)]


def in_pages_directory_mode():
    """Whether this process still treats the app as a legacy "pages/ directory" app.

    Streamlit 1.67 (``streamlit/runtime/pages_manager.py``) sets the class
    attribute ``PagesManager.uses_pages_directory`` once per process, when the
    first session starts: True if a ``pages/`` folder sits next to the main
    script; ``st.navigation`` sets it to False (``commands/navigation.py``).
    There is no config option for it.  ``tests/test_streamlit_assumptions.py``
    checks both facts, so a Streamlit upgrade that changes them fails in CI.
    """
    from streamlit.runtime.pages_manager import PagesManager

    return bool(PagesManager.uses_pages_directory)


def _leave_pages_directory_mode():
    """Make the first request of a fresh server use ``app.py``'s navigation.

    While the app counts as a legacy pages-directory app (see
    :func:`in_pages_directory_mode`), a first request that deep-links to a
    page (``/synthetic``) runs ``pages/synthetic.py`` *alone* under
    Streamlit's automatic navigation (file names as titles, no
    ``set_page_config``, no shared seed) - and keeps doing so for every
    visitor until someone opens the home page.  Every page imports this
    module, and a module is imported once per process: if that first import
    happens in such a run, declare the app's real pages with the public
    ``st.navigation`` (which is what ends the legacy mode; the deep-linked page
    is among them, so the URL stays) and rerun, so the same URL is served by
    ``app.py``.  Only the read of the mode touches Streamlit internals.  (A
    more radical fix is to rename ``pages/``; ``st.navigation`` does not need
    that name.)
    """
    if st.runtime.exists() and _script_running() and in_pages_directory_mode():
        st.navigation(app_pages(), position="hidden")
        st.rerun()


def _script_running():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None


_leave_pages_directory_mode()
