"""Streamlit plumbing shared by every page, defined once.

Seed, URL state and presentation mode; the app's page list (:func:`app_pages`);
the one cache of synthetic fits (:func:`cached_linear_fit`, handed to the
experiments as ``fit=`` by :func:`linear_fitter`); the data settings of the
synthetic pages (:func:`draw_domain_controls`, :func:`read_domain_config`);
the progress bar every experiment reports to (:func:`progress_bar`); number
columns (:func:`number_columns`); the one error boundary (:func:`error_boundary`,
:func:`run_page`, :func:`show_error`, :func:`show_problems`); CSV downloads
safe for spreadsheets (:func:`csv_bytes`); where the sample data live (:data:`SAMPLE_DIR`).

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
import re
from urllib.parse import parse_qsl
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import streamlit as st

import numpy as np

from explorer.data.numbers import format_values, truncate_per_feature
from explorer.error_report import describe_error
from explorer.safe_text import escape_markdown, safe_csv
from explorer.url_state import validate_url_value
from explorer.presentation import (HAS_PRESETS, PRESENTATION_CONTROLS, PRESENTATION_LABELS,
                                    with_present)

# The synthetic data model and the fits (flda_core.synthetic,
# explorer.experiments.synthetic) import scikit-learn and scipy: they are imported
# where used, so the Home page of a fresh server does not wait for them, and
# warm_up_imports() loads them in the background meanwhile.
HEAVY_MODULES = ("flda_core.synthetic", "explorer.experiments.synthetic",
                 "explorer.experiments.transfer_models", "explorer.figures.synthetic",
                 "plotly.graph_objects")

SEED_KEY = "shared.seed"
#: The sample data shipped with the project (``sample_data/`` next to ``app.py``),
#: passed explicitly to the readers of ``explorer.data``.
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
#: The pages of the app (``pages/`` next to ``app.py``).
PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"
PRESENT_PARAM = "present"
IMAGE_FORMAT_KEY = "shared.image_format"
#: Session flag of presentation mode (it outlives the query string; see presentation_mode).
PRESENT_KEY = "shared.present"

__all__ = ["Setting", "SEED_KEY", "get_seed", "presentation_mode", "keep_widget_state",
           "restore_from_url", "write_to_url", "apply_values", "cached_domains", "progress_bar",
           "SAMPLE_DIR", "cached_linear_fit", "linear_fitter", "read_domain_config",
           "show_problems", "show_error", "error_boundary", "run_page", "Outcome",
           "csv_bytes", "number_columns", "PAGE_SPECS", "app_pages",
           "in_pages_directory_mode",
           "cached_lattice_counts", "domain_settings", "domain_values", "draw_domain_controls", "warm_up_imports",
           "TRANSFER_OPTIONS", "transfer_setting", "transfer_control",
           "IMAGE_FORMAT_KEY", "image_format", "draw_image_format_choice", "show_chart",
           "show_equations", "cached_paper_notes", "show_paper_notes", "page_link",
           "PRESENT_KEY", "keep_presentation_in_url", "presentation_row"]


@dataclass(frozen=True)
class Setting:
    """A widget value that lives in ``st.session_state[key]`` and in the URL.

    ``options`` (for selects/radios) or ``lo``/``hi`` (for numbers and sliders)
    bound what a URL may set; anything else in the URL (including ``NaN`` and
    ``Infinity``) is ignored with a note, never raised
    (:func:`explorer.url_state.validate_url_value`).
    """

    key: str
    default: Any
    options: Sequence[Any] | None = None
    lo: float | None = None
    hi: float | None = None

    @property
    def url_name(self):
        return self.key.split(".", 1)[-1] if "." in self.key else self.key


#: Keyboard focus ring (WCAG 2.4.7 / 2.4.11). Streamlit 1.67 draws no focus indicator on
#: sidebar page links, radios, checkboxes, text/number inputs and selectboxes, and only a
#: half-transparent ring (about 2.4:1 on white) on buttons. One colour serves both themes
#: (and a theme picked in the Settings menu, which CSS cannot see): #1E7BD6 has at least
#: 3:1 contrast against the light (#ffffff, sidebar #f0f2f6) and the dark (#171614,
#: sidebar #262730) backgrounds and is neither a classifier-family nor a class colour.
FOCUS_COLOR = "#1E7BD6"
FOCUS_CSS = f"""<style>
a:focus-visible, button:focus-visible, [role="slider"]:focus-visible,
[data-testid="stSidebarNavLink"]:focus-visible, summary:focus-visible,
label:has(> input[type="radio"]:focus-visible),
label:has(> input[type="checkbox"]:focus-visible),
[data-testid="stRadio"] label:has(input:focus-visible),
[data-testid="stCheckbox"] label:has(input:focus-visible),
[data-testid="stNumberInputContainer"]:has(input:focus-visible),
[data-testid="stTextInputRootElement"]:has(input:focus-visible),
[data-testid="stTextAreaRootElement"]:has(textarea:focus-visible),
[data-testid="stSelectbox"] div:has(> input:focus-visible),
[data-testid="stMultiSelect"] div:has(> input:focus-visible),
div:has(> div > input[type="range"]:focus-visible) {{
  outline: 3px solid {FOCUS_COLOR} !important;
  outline-offset: 2px !important;
}}
</style>"""


def show_focus_style():
    """Inject :data:`FOCUS_CSS` (a constant, never user data); ``app.py`` calls it once per run."""
    st.html(FOCUS_CSS)


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
    A URL value that is not valid for its setting (not finite, out of range,
    not an option, wrong type) is ignored: the default is used and an
    ``st.info`` names the parameter and says why.
    """
    notes = []
    for setting in settings:
        if setting.key in st.session_state:
            continue
        outcome = validate_url_value(setting.url_name, st.query_params.get(setting.url_name),
                                     setting.default, setting.options, setting.lo, setting.hi)
        st.session_state[setting.key] = outcome.value
        if outcome.note:
            notes.append(outcome.note)
    for note in notes:
        st.info(escape_markdown(note), icon=":material/link_off:")


def write_to_url(settings):
    """Mirror the current values of ``settings`` into the URL query string.

    All changed values go in one update: the browser handles every query-string
    message of a run on its own (a history entry and a re-render each; a page's
    first visit wrote about ten of them, 0.1-0.3 s of the browser's time).
    """
    changed = {}
    for setting in settings:
        if setting.key not in st.session_state:
            continue
        value = st.session_state[setting.key]
        encoded = value if isinstance(value, str) else json.dumps(
            list(value) if isinstance(value, tuple) else value)
        if st.query_params.get(setting.url_name) != encoded:
            changed[setting.url_name] = encoded
    if changed:
        st.query_params.update(changed)


@st.cache_data(max_entries=512, show_spinner=False)
def cached_linear_fit(data_key, family, loss, l2, theta=None, perturbation=None,
                      transfer="dropout"):
    """Cached :func:`explorer.experiments.synthetic.fit_linear` on the domains of
    ``data_key`` (``theta`` a tuple or None).  One cache for every synthetic page."""
    from explorer.experiments.synthetic import fit_linear

    return fit_linear(cached_domains(*data_key), family, loss, l2=l2, theta=theta,
                      perturbation=perturbation, transfer=transfer)


def linear_fitter(data_key):
    """The ``fit=`` callable of the synthetic experiments, backed by :func:`cached_linear_fit`.

    ``theta`` arrays are turned into rounded tuples, so equal values share a
    cache entry.
    """
    def fit(family, loss, l2, theta=None, perturbation=None, transfer="dropout"):
        key = None if theta is None else tuple(np.round(np.asarray(theta, dtype=float), 12))
        return cached_linear_fit(data_key, family, loss, float(l2), key, perturbation,
                                 transfer)
    return fit


# --- The transfer model FLDA uses (issue 15), one control on every page that fits FLDA.

#: Every transfer model of :mod:`flda_core.transfer_models`, dropout (the paper's) first
#: (``tests/test_lazy_imports.py`` checks it equals ``tuple(TRANSFER_MODELS)``; spelled out
#: so that importing this module does not load scikit-learn, see HEAVY_MODULES).
TRANSFER_OPTIONS = ("dropout", "imputation", "two-sided", "rate")


def transfer_setting(prefix, options=TRANSFER_OPTIONS):
    """The URL-mirrored setting ``"<prefix>.transfer"`` (``?transfer=two-sided``)."""
    return Setting(f"{prefix}.transfer", "dropout", options=tuple(options))


def transfer_help(options=TRANSFER_OPTIONS, note=""):
    """Help text listing the one-line explanation of every model in ``options``."""
    from flda_core.transfer_models import TRANSFER_MODELS

    lines = "\n".join(f"- **{name}**: {TRANSFER_MODELS[name]}" for name in options)
    return ("How FLDA models the change from source to target; its parameters are "
            "estimated from the unlabelled target data (dropout is the paper's model, "
            "section 3.3.1; the others go beyond the paper).\n\n" + lines
            + (f"\n\n{note}" if note else ""))


def transfer_control(prefix, options=TRANSFER_OPTIONS, note="", container=None):
    """The "Transfer model" select box; returns the chosen model name."""
    return (container or st).selectbox(
        "Transfer model", tuple(options), key=f"{prefix}.transfer",
        help=transfer_help(options, note))


def read_domain_config(prefix):
    """The page's validated data configuration (a hashable :func:`cached_domains` key) or a
    list of problems (:func:`explorer.data.domain_config.parse_domain_config`).

    When ``"<prefix>.shift"`` names a preset of
    :data:`flda_core.synthetic.SHIFT_PRESETS`, the key is that preset's
    fixed data model with the page's sample sizes and seed.
    """
    from explorer.data.domain_config import parse_domain_config
    from flda_core.synthetic import SHIFT_PRESETS

    state = st.session_state
    shift = state.get(f"{prefix}.shift", "dropout")
    if shift in SHIFT_PRESETS:  # a fixed data model other than dropout (issue 15)
        _, params, true = SHIFT_PRESETS[shift]
        return (shift, tuple(tuple(float(v) for v in row) for row in params),
                int(state[f"{prefix}.n_source"]), int(state[f"{prefix}.n_target"]),
                tuple(float(v) for v in true), get_seed()), []
    return parse_domain_config(
        state[f"{prefix}.distribution"], state[f"{prefix}.n_features"],
        state[f"{prefix}.class1"], state[f"{prefix}.class2"], state[f"{prefix}.theta"],
        state[f"{prefix}.n_source"], state[f"{prefix}.n_target"], get_seed())


# --- Teaching helpers (issue 12): one chart call, the equations panel, the notes on
# the paper, the lesson's links and presentation mode's links.

def image_format():
    """The download format of every chart's camera button (sidebar choice, PNG by default)."""
    from explorer.figures.export import IMAGE_FORMATS

    value = st.session_state.get(IMAGE_FORMAT_KEY, "png")
    return value if value in IMAGE_FORMATS else "png"


def draw_image_format_choice():
    """The one PNG/SVG choice for every chart's download (drawn in the sidebar by ``app.py``)."""
    from explorer.figures.export import IMAGE_FORMATS

    st.radio("Chart download format", IMAGE_FORMATS, key=IMAGE_FORMAT_KEY, horizontal=True,
             format_func=str.upper,
             help="What the camera button above each chart saves: PNG at twice the size of "
                  "a 1600 × 900 slide, or SVG (vector, for print). The whole legend is "
                  "always included and the file is named after what the chart shows.")


#: Whether a page's first chart is drawn before the rest of the page is sent
#: (:func:`show_chart`).  The server's start switches it on (:func:`server_lifespan`):
#: there a browser reports the draw.  Off for runs without one (``AppTest``).
CHART_FIRST = False
#: Session flag: the browser has drawn a chart of this session (it said so).
CHART_DRAWN_KEY = "_flda_chart_drawn"
#: Session flag: a run stopped after its first chart and owes the rest of its page.
REST_OWED_KEY = "_flda_rest_owed"


def _note_chart_drawn():
    st.session_state[CHART_DRAWN_KEY] = True


def _in_fragment_run():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def _rest_follows_first_chart():
    """In a browser tab that has drawn no chart yet, the run stops after its first chart.

    A first visit's time to the first chart is mostly the browser's: it renders the
    whole page and loads the code of every kind of element on it before it mounts the
    chart, then loads and evaluates plotly.js.  Sent alone, the chart was drawn
    0.45-0.9 s sooner (every page but Home, warm server, median of 6 fresh tabs).  The
    chart's element reports the draw (:func:`ui_chart.plotly_chart`), which reruns
    the page in full; after that no run of the session stops early.
    """
    return CHART_FIRST and not st.session_state.get(CHART_DRAWN_KEY, False)


def finish_owed_page():
    """Rerun the whole page if the first chart's report reran only its fragment.

    The report reruns what the chart belongs to: a chart inside an ``st.fragment``
    gets a fragment run, which would leave out the rest of the page that the first
    run held back.  Full runs just clear the flag (:func:`run_page`).
    """
    if st.session_state.pop(REST_OWED_KEY, False) and _in_fragment_run():
        st.rerun(scope="app")


def show_chart(fig, key, what, caption=None):
    """Draw a plotly figure the way every page does, then its caption.

    The chart is :func:`ui_chart.plotly_chart`: it stays in the page across reruns
    and is redrawn in place, once, when the figure changes.  The camera button saves
    a slide-sized PNG (or SVG) named after ``what``
    (:func:`explorer.figures.export.chart_config`); in presentation mode the
    figure gets projector typography (:func:`~explorer.figures.export.presentation_style`);
    the caption ends with a one-sentence text alternative of the chart
    (:func:`~explorer.figures.export.alt_text`).

    The first chart of a browser tab ends its run (``st.stop``): the rest of the page
    comes with the run that the browser asks for once it has drawn the chart
    (:func:`_rest_follows_first_chart`).
    """
    from explorer.ui import chart as ui_chart
    from explorer.figures.export import alt_text, chart_config, presentation_style

    finish_owed_page()
    if presentation_mode():
        fig = presentation_style(fig)
    text = alt_text(fig)
    first = _rest_follows_first_chart()
    ui_chart.plotly_chart(fig, key, config=chart_config(what, image_format()), description=text,
                          report_drawn=first, on_drawn=_note_chart_drawn)
    description = "*Chart:* " + escape_markdown(text)
    st.caption(f"{caption}\n\n{description}" if caption else description)
    if first:
        st.session_state[REST_OWED_KEY] = True
        st.stop()


def show_equations(keys=None, title="Equations"):
    """The equations panel: each formula under an anchor that the captions' equation
    links (:func:`explorer.teaching.equations.equation_link`) point to, typeset ahead of time
    (:func:`ui_equations.equation_html`; ``st.latex`` for one typeset from other LaTeX)."""
    from explorer.ui import equations as ui_equations
    from explorer.teaching.equations import EQUATIONS

    st.header(title, anchor="equations")
    for eq in EQUATIONS:
        if keys is not None and eq.key not in keys:
            continue
        st.subheader(eq.title, anchor=eq.anchor)
        typeset = ui_equations.equation_html(eq)
        if typeset is None:
            st.latex(eq.latex)
        else:
            st.html(typeset)
        st.caption(f"{eq.explanation} *{eq.reference[0].upper()}{eq.reference[1:]}.*")


@st.cache_data(max_entries=8, show_spinner=False)
def cached_paper_notes(page):
    """The notes on the paper of one page (:data:`NOTES_BY_PAGE`), as markdown; cached
    because each note reruns a paper experiment (0-4 s)."""
    from explorer.teaching.paper_notes import NOTES_BY_PAGE

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
    from explorer.figures.export import export_filename

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
    """One ``st.error`` per problem (escaped: problems quote typed values), each saying
    where to fix it; True if there were any."""
    for problem in problems:
        st.error(escape_markdown(f"{problem} Fix it {where}; nothing else was changed."),
                 icon=":material/error:")
    return bool(problems)


def show_error(error, action="updating this page", headline=None):
    """Show any exception the way a user should see it; returns its
    :class:`explorer.error_report.UserError`.

    Known problems (:class:`explorer.errors.DataValidationError`, ...) show
    ``headline``, the problem and the fix; anything else a short friendly
    message with an incident code (no traceback, no server path), the details
    being logged on the server (:func:`explorer.error_report.describe_error`).
    All text is escaped: messages quote file names, column names and values.
    """
    report = describe_error(error, action)
    if report.expected:
        head = f"**{escape_markdown(headline)}** " if headline else ""
        st.error(f"{head}{escape_markdown(report.message)}\n\n"
                 f"**Fix:** {escape_markdown(report.hint)}", icon=":material/error:")
    else:
        st.error(f"{escape_markdown(report.message)}\n\n{escape_markdown(report.hint)}",
                 icon=":material/report:")
    return report


@dataclass
class Outcome:
    """What an :func:`error_boundary` caught: ``error`` (a ``UserError``) or None."""

    error: Any = None

    @property
    def failed(self):
        return self.error is not None


@contextmanager
def error_boundary(action, headline=None):
    """The one error boundary of every page: run a read, a parse or a fit inside it.

    Any exception raised in the ``with`` block is shown by :func:`show_error`
    and swallowed; session state is not touched, so everything loaded before
    stays, and progress bars opened inside the block are cleared by their own
    ``finally`` (:func:`progress_bar`).  Streamlit's own control flow
    (``st.rerun``, ``st.stop``) derives from ``BaseException`` and passes
    through.  Yields an :class:`Outcome`; check ``outcome.failed`` after the
    block::

        with ui_common.error_boundary("fitting the classifiers") as outcome:
            result = run_experiment(...)
        if outcome.failed:
            return
    """
    outcome = Outcome()
    try:
        yield outcome
    except Exception as error:  # noqa: BLE001 - the boundary: nothing may escape to the user
        outcome.error = show_error(error, action, headline)


def run_page(main, action="drawing this page"):
    """Run a page's ``main()`` inside :func:`error_boundary` (the last line of every page)."""
    _leave_pages_directory_mode()
    st.session_state.pop(REST_OWED_KEY, None)  # a full run draws the whole page
    with error_boundary(action):
        main()
    freeze_long_lived_objects()  # this page's imports stay out of every later rerun's GC


def csv_bytes(frame, index=False):
    """``frame`` as the bytes of a CSV download, formula-leading cells neutralised
    (:func:`explorer.safe_text.safe_csv`).  Every download uses it (:func:`download_csv`)."""
    return safe_csv(frame, index=index).encode("utf-8")


def download_csv(label, frame, file_name, key, help, index=False, container=None):
    """A download button for ``frame`` as spreadsheet-safe CSV (:func:`csv_bytes`).

    The CSV is made when the user clicks (Streamlit's deferred download), not on
    every rerun: Learning curves' per-repeat table alone took 15 ms per rerun.
    The click does not rerun the page.  ``frame`` may be a DataFrame or a function
    returning one (for tables that are only assembled for the download).
    """
    def data():
        return csv_bytes(frame() if callable(frame) else frame, index=index)

    return (container or st).download_button(label, data=data, file_name=file_name,
                                             mime="text/csv", key=key, help=help,
                                             on_click="ignore")


def number_columns(frame, fmt="%.3f", columns=None):
    """``column_config`` showing the float columns of ``frame`` (or ``columns``) with ``fmt``."""
    if columns is None:
        columns = [c for c in frame.columns if frame[c].dtype.kind == "f"]
    return {c: st.column_config.NumberColumn(format=fmt) for c in columns}


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_domains(distribution, params, n_source, n_target, theta, seed):
    """Cached :func:`flda_core.synthetic.make_any_domains` (arguments are plain
    tuples): ``distribution`` "bernoulli"/"poisson" makes dropout domains with
    ``theta``; a shift preset key ("appearance", "rate") makes those domains with
    ``theta`` as the shift's parameter.  Shared by the synthetic-data pages, so
    switching between them reuses the data.

    One object shared by every caller and session (``st.cache_resource``): a
    ``st.cache_data`` copy of 100,000 samples per domain cost 7 ms per call, and the
    Table 1 preset's sweep calls it for each of its 45 fits.  Its arrays are made
    read-only, so no caller can change what the others see.
    """
    from flda_core.synthetic import make_any_domains

    pair = make_any_domains(distribution, params, n_source, n_target, theta,
                            random_state=seed)
    for value in vars(pair).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return pair


@st.cache_data(max_entries=8, show_spinner=False)
def cached_lattice_counts(data_key, domain="target"):
    """Lattice counts (first two features) of one domain of :func:`cached_domains`
    (``domain`` "target" or "source"); shared by every page that draws Figures 1-2 or 4."""
    from explorer.experiments.synthetic import lattice_counts

    pair = cached_domains(*data_key)
    if domain == "source":
        return lattice_counts(pair.X_source, pair.y_source)
    return lattice_counts(pair.X_target, pair.y_target)


def stable_slot():
    """A container for elements a page shows only sometimes (a note, a warning).

    Streamlit identifies elements by their place in the page: a note that comes and
    goes shifts every element after it, and the browser rebuilds those (data grids
    and charts: 0.3-0.5 s on the first θ change away from a paper preset).  Inside
    this container the note changes nothing after it.
    """
    return st.container()


@contextmanager
def progress_bar(text):
    """A progress bar for the duration of a ``with`` block; yields the callable
    ``progress(fraction, text)`` every ``flda_core`` experiment accepts
    (:mod:`explorer.experiments.progress`).  The bar disappears afterwards."""
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
    from flda_core.synthetic import PAPER_PARAMS

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
    from flda_core.synthetic import PARAM_BOUNDS, PARAM_WORD

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
    visitor until someone opens the home page.  Every page's run starts in
    :func:`run_page`, which calls this; the first call inside a script run of the
    process looks at the mode (this module is first imported by ``app.py``'s server
    start, outside any run).  If it is on, declare the app's real pages with the public
    ``st.navigation`` (which is what ends the legacy mode; the deep-linked page
    is among them, so the URL stays) and rerun, so the same URL is served by
    ``app.py``.  Only the read of the mode touches Streamlit internals.  (A
    more radical fix is to rename ``pages/``; ``st.navigation`` does not need
    that name.)
    """
    if _pages_mode_checked["done"] or not (st.runtime.exists() and _script_running()):
        return
    _pages_mode_checked["done"] = True  # the mode is per process: look once
    if in_pages_directory_mode():
        st.navigation(app_pages(), position="hidden")
        st.rerun()


_pages_mode_checked = {"done": False}


_warm_up = {"thread": None}
_frozen = {"modules": 0}


def freeze_long_lived_objects():
    """Keep what imports created out of the cyclic garbage collector's way (``gc.freeze``).

    Streamlit runs a full ``gc.collect(2)`` after every script run (its
    ``runner.postScriptGC``), and a full collection walks every tracked object.
    With scikit-learn, scipy, pandas and plotly loaded that is about 180,000
    objects and 90 ms (measured on the 2-core machine), holding the GIL on the
    path from a slider move to the repainted figure.  Modules, classes and
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


#: ``from flda_core.x import a, b`` / ``from explorer.x import (a,\n b)`` and
#: ``import flda_core.x`` anywhere in a page (read as text: :mod:`ast` is not safe to
#: run in a thread while another parses, as Streamlit does with every page it runs).
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+((?:flda_core|explorer)[\w.]*)[ \t]+import[ \t]+"
                          r"(\([^)]*\)|[^\n#]*)", re.M)
_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+((?:flda_core|explorer)[\w.]*)", re.M)


def page_modules(pages_dir=PAGES_DIR):
    """The ``flda_core`` and ``explorer`` modules the pages import, anywhere in their source
    (``from explorer.experiments import digits`` counts the submodule).  The warm-up
    loads them: a fresh server's first Digits or Real data visit imported for 0.2 s."""
    from importlib.util import find_spec

    names = set()
    for path in sorted(Path(pages_dir).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for module, imported in _FROM_IMPORT.findall(source):
            names.add(module)
            for part in imported.strip("()").replace("\\", " ").split(","):
                if part.split():
                    names.add(f"{module}.{part.split()[0]}")
        names.update(_PLAIN_IMPORT.findall(source))
    return tuple(sorted(name for name in names if _is_module(name, find_spec)))


def _is_module(name, find_spec):
    try:
        return find_spec(name) is not None
    except ImportError:  # "explorer.figures.style.CLASS_COLORS": a name, not a module
        return False


def _first_calls():
    """What the first visitor's run would pay on first use, done by the warm-up: one
    tiny fit per loss (scipy's optimiser and threadpoolctl's scan of the loaded
    libraries, 0.08 s), and plotly's figure classes and the compressed bundle
    (:func:`ui_chart.warm_up`)."""
    from explorer.ui import chart as ui_chart
    from flda_core.classifier import FLDAClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    for loss in ("quadratic", "logistic"):
        FLDAClassifier(loss=loss).fit(X, [0, 1, 1, 0], X_target=X)
    ui_chart.warm_up()


def warm_up_imports(modules=HEAVY_MODULES):
    """Import ``modules`` and the pages' modules in a background thread, once per server
    process, then make the first calls (:func:`_first_calls`).

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

        for name in (*modules, *page_modules()):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the page importing it shows the error
                return
        try:
            _first_calls()
        except Exception:  # noqa: BLE001 - a page making the same call reports it
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
            listening = (sock.type == socket.SOCK_STREAM
                         and sock.family in (socket.AF_INET, socket.AF_INET6)
                         and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
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
    one after another can wait the same way.  Linux (``tests/test_server_sockets.py``)
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


@asynccontextmanager
async def server_lifespan(app):
    """``st.App`` lifespan: the scientific libraries are loaded before the first visitor.

    ``streamlit run app.py`` serves ``app.py``'s ``st.App``; its start-up awaits
    :func:`warm_up_imports` (scikit-learn, scipy, plotly: 1.3 s on the 2-core
    machine, otherwise paid by the first visitor of every page), so the server
    reports healthy once a page can be drawn without importing anything.
    """
    import asyncio
    import threading
    import time

    from streamlit.runtime.pages_manager import PagesManager

    # What st.navigation does on its first call, done before the first visitor: without
    # it the first request of a fresh server runs a deep-linked page alone as a legacy
    # "pages/ directory" page, then again through app.py (see _leave_pages_directory_mode).
    PagesManager.uses_pages_directory = False
    send_small_writes_at_once()
    global CHART_FIRST
    CHART_FIRST = True  # browsers will report their first chart (show_chart)
    start = time.perf_counter()
    await asyncio.to_thread(warm_up_imports().join)
    print(f"  FLDA explorer: scientific libraries loaded in {time.perf_counter() - start:.1f} s; "
          "every page is ready.", flush=True)
    threading.Thread(target=warm_up_stores, name="flda-store-warm-up", daemon=True).start()
    yield


#: The pages' disk stores a server fills at start, in this order: (environment
#: variable, module, function).  Set a variable to "0" to keep a server from filling
#: that store (the tests do).
STORE_WARM_UPS = (
    ("FLDA_DIGITS_WARM_UP", "explorer.experiments.digits", "precompute"),
    ("FLDA_REAL_DATA_WARM_UP", "explorer.experiments.missing_data", "precompute"),
)


def warm_up_stores(warm_ups=STORE_WARM_UPS):
    """Fill the pages' disk stores for their default settings (server start, background).

    With the stores filled (``FLDA_CACHE_DIR``) this reads small JSON files (10 for
    Handwritten digits, 72 for Real data); on a new installation or after an upgrade
    it fits them once (the digits' Table 4 in about 6 s of one core, Real data's
    Table 3 in 16-30 s), at the lowest CPU priority so that visitors' pages come
    first.  A page asking for a fit the warm-up is computing waits for it and reads
    it (``explorer.experiments.result_store``).  A failure is left for the page,
    which fits what is missing and says why.
    """
    import importlib
    import os
    import threading

    wanted = [(module, function) for env, module, function in warm_ups
              if os.environ.get(env, "1") != "0"]
    if not wanted:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # this thread only
    except (AttributeError, OSError):
        pass
    for module, function in wanted:
        try:
            getattr(importlib.import_module(module), function)()
        except Exception:  # noqa: BLE001 - the page reports its own failures
            import logging

            logging.getLogger("flda").warning("Warm-up %s.%s failed", module, function,
                                              exc_info=True)


def _script_running():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None


_leave_pages_directory_mode()
