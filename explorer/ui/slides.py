"""The Lesson as slides (issue 25): clicker keys, projector type, a chart that fits.

* :func:`lesson_keys` draws the keyboard element (``st.components.v2``,
  :file:`assets/lesson_keys.js`): ArrowRight / PageDown / Space ask for the next step
  (or the reveal), ArrowLeft / PageUp for the previous one.
* :data:`SLIDE_CSS` is the stylesheet of presentation mode on the Lesson (a constant,
  never user text): body text >= :data:`BODY_PX`, key numbers >= :data:`NUMBER_PX`,
  captions in the text colour, the page's padding and header removed so a step fits
  1280 x 720 and 1920 x 1080 without scrolling.
* :data:`CHART_MARGIN`: the room a slide keeps beside its chart; the chart element caps
  the chart's height at the window's height less it (``fit_margin``).
"""

from __future__ import annotations

import functools
import pathlib

import streamlit as st

__all__ = ["BODY_PX", "NUMBER_PX", "CHART_MARGIN", "SLIDE_KEY", "TITLE_KEY", "SLIDE_CSS", "lesson_keys"]

ASSETS = pathlib.Path(__file__).resolve().parents[2] / "assets"
#: The keyboard element's key.
KEYS_KEY = "lesson_keys"
#: Key of the container holding one step (CSS class ``st-key-lesson_slide``).
SLIDE_KEY = "lesson_slide"
#: Key of the page title's container: on a slide it is kept for screen readers only.
TITLE_KEY = "lesson_title"
#: Projector type (CSS px): body text, the step's key numbers, its title.
BODY_PX = 24
NUMBER_PX = 32
TITLE_PX = 30
#: Room (px) a slide keeps above and below its chart: title row, controls, text alternative.
CHART_MARGIN = 300

_S = f".st-key-{SLIDE_KEY}"
SLIDE_CSS = f"""<style>
header[data-testid="stHeader"] {{ display: none; }}
.st-key-{TITLE_KEY} {{ position: absolute !important; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }}
[data-testid="stMainBlockContainer"] {{ padding: 0.25rem 1.5rem 1rem 1.5rem; max-width: none; }}
{_S}, {_S} [data-testid="stVerticalBlock"] {{ gap: 0.3rem; }}
{_S} p, {_S} li, {_S} label, {_S} label p, {_S} [data-testid="stMarkdownContainer"],
{_S} [data-testid="stCaptionContainer"], {_S} [data-testid="stCaptionContainer"] p,
{_S} [data-testid="stWidgetLabel"] p, {_S} button p, {_S} [data-testid="stAlert"] p,
{_S} [data-testid="stMetricLabel"] p, {_S} summary p {{
  font-size: {BODY_PX}px !important; line-height: 1.25; color: inherit; opacity: 1;
}}
{_S} [data-testid="stCaptionContainer"] {{ color: inherit !important; opacity: 1 !important; }}
{_S} [data-testid="stMetricValue"], {_S} [data-testid="stMetricValue"] * {{
  font-size: {NUMBER_PX}px !important; line-height: 1.2; font-weight: 600;
}}
{_S} [data-testid="stMetricLabel"], {_S} [data-testid="stMetricLabel"] * {{
  white-space: normal !important; overflow: visible !important; height: auto !important;
}}
{_S} [data-testid="stMetric"] {{ padding: 0; }}
{_S} h2, {_S} h2 span {{
  font-size: {TITLE_PX}px !important; padding: 0 !important; line-height: 1.2;
}}
{_S} [data-testid="stElementContainer"]:has(> iframe[height="0"]) {{ display: none; }}
{_S} [data-testid="stHorizontalBlock"] {{ gap: 1rem; }}
{_S} [data-testid="stRadio"] [role="radiogroup"] {{ gap: 0 1.2rem; }}
{_S} [data-testid="stAlert"] {{ padding: 0.4rem 0.8rem; }}
</style>"""


@functools.cache
def _component():
    return st.components.v2.component(
        "flda_lesson_keys", js=(ASSETS / "lesson_keys.js").read_text(encoding="utf-8"), isolate_styles=False
    )


def _ignore():
    pass


def lesson_keys():
    """Draw the keyboard element; returns ``"next"``, ``"back"`` or None for this run."""
    result = _component()(key=KEYS_KEY, height=0, on_nav_change=_ignore)
    nav = getattr(result, "nav", None)
    return nav if nav in ("next", "back") else None
