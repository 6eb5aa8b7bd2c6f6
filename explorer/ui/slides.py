"""The Lesson as slides (issues 25 and 34): a presenter's keys (:data:`KEY_MAP`, as
reveal.js users know them; the keyboard element :file:`assets/lesson_keys.js` receives
them), type that scales with the screen (:data:`TYPE_SCALE`, :func:`slide_css`,
:func:`chart_style`) and high contrast for dark rooms (:func:`high_contrast`).
"""

from __future__ import annotations

import functools
import math
import pathlib

import streamlit as st

ASSETS = pathlib.Path(__file__).resolve().parents[2] / "assets"
#: The keyboard element's key.
KEYS_KEY = "lesson_keys"
#: Key of the container holding one step (CSS class ``st-key-lesson_slide``).
SLIDE_KEY = "lesson_slide"
#: Key of the page title's container: on a slide it is kept for screen readers only.
TITLE_KEY = "lesson_title"
#: Keys of the containers that W and A open as overlays on the slide.
WHY_KEY = "lesson_why"
NUMBERS_KEY = "lesson_numbers"
#: Key of a slide's top row (title, counter, Back, Next).
HEADER_KEY = "lesson_header"
#: Key of the container of a class's overlays on the projector (out of the slide's flow).
CLASS_LAYER_KEY = "lesson_class"
#: Key of the step counter ("3 / 12").
COUNTER_KEY = "lesson_counter"
#: The step name of the slide after the last step.
END_SLUG = "end"
#: URL parameter and session key of high contrast.
CONTRAST_PARAM = "contrast"
CONTRAST_KEY = "shared.contrast"

#: Sizes on a slide as a percentage of the viewport's height (issue 34's floors: body
#: >= 3, key numbers >= 5, chart ticks and legends >= 2.2, the settings line >= 1.8).
TYPE_SCALE = {
    "body": 3.2,
    "number": 5.6,
    "title": 4.4,
    "overlay": 2.6,
    "chart": 2.4,
    "chart_title": 2.6,
    "settings": 2.0,
}
#: Room (px) a slide keeps below its chart (the chart fills the window from its top).
CHART_MARGIN = 12
#: The height (px) styled for until the browser has reported the window's.
DEFAULT_VIEWPORT = 1080

_LETTERS = {"n": "next", "p": "back", "o": "overview", "b": "black", "w": "why", "a": "numbers"}
_LETTERS |= {"r": "reset", "h": "contrast", "j": "join", "v": "bars"}
#: Key -> action (``KeyboardEvent.key`` values; letters in both cases).
KEY_MAP = {
    **dict.fromkeys(["ArrowRight", " ", "Spacebar", "PageDown"], "next"),
    **dict.fromkeys(["ArrowLeft", "PageUp"], "back"),
    "Home": "first",
    "End": "last",
    **{key: action for letter, action in _LETTERS.items() for key in (letter, letter.upper())},
    "Escape": "overview",
    ".": "black",
    "?": "help",
}
#: Keys of a class only (the join overlay, the class's vote bars).
CLASS_ACTIONS = ("join", "bars")
#: In a class these layers are the class's (shown on the projector, steered from the
#: presenter too): the keys element sends them to the server.
CLASS_LAYERS = ("black", "join", "why", "numbers")
#: The keys that move between steps outside presentation mode (no letters: a page to read).
PAGE_KEYS = ("ArrowRight", "ArrowLeft", "PageDown", "PageUp", " ", "Spacebar")
#: Actions the page carries out (a rerun); the rest are the browser's alone.
SERVER_ACTIONS = ("next", "back", "first", "last", "jump", "reset", "contrast")
#: What each action does, for the list of keys (``?``).
ACTION_TEXT = {
    "next": "reveal, then the next step",
    "back": "the previous step",
    "first": "the first step",
    "last": "the last step",
    "jump": "go to step number N",
    "overview": "overview of the steps (Esc also closes any overlay)",
    "black": "black out the screen",
    "why": "“Why”: the mechanism behind the answer",
    "numbers": "“All numbers” of this step, the paper's and the links",
    "reset": "reset the step: controls to their start values, answer hidden",
    "contrast": "high contrast on or off",
    "join": "in a class: the join code as a large QR code",
    "bars": "in a class: show or hide the class's votes",
    "help": "this list",
}
_KEY_NAMES = {" ": "Space", "ArrowRight": "→", "ArrowLeft": "←", "Escape": "Esc", "PageDown": "Page Down"}
_KEY_NAMES |= {"PageUp": "Page Up"}


def key_list(in_class=False):
    """``[(keys, what), ...]`` in :data:`ACTION_TEXT`'s order: the ``?`` overlay's rows
    (the class's keys only ``in_class``).

    >>> key_list()[0]
    ('→ / Space / Page Down / N', 'reveal, then the next step')
    """
    rows = []
    for action, text in ACTION_TEXT.items():
        if action in CLASS_ACTIONS and not in_class:
            continue
        if action == "jump":
            rows.append(("N then Enter", text))
            continue
        names = []
        for key, bound in KEY_MAP.items():
            name = _KEY_NAMES.get(key, key.upper() if len(key) == 1 else key)
            if bound == action and key != "Spacebar" and name not in names:
                names.append(name)
        rows.append((" / ".join(names), text))
    return rows


def parse_action(value, n_steps):
    """The keyboard element's trigger value as ``(action, step index or None)``, or None.

    ``"jump:N"`` names step N counted from 1 (the counter's number); the index returned
    is N - 1, and a number outside 1..``n_steps`` (or anything else) is None.

    >>> parse_action("jump:3", 12), parse_action("next", 12), parse_action("jump:13", 12)
    (('jump', 2), ('next', None), None)
    """
    if not isinstance(value, str):
        return None
    action, _, number = value.partition(":")
    if action not in SERVER_ACTIONS:
        return None
    if action != "jump":
        return None if number else (action, None)
    if not number.isdigit() or not 1 <= int(number) <= n_steps:
        return None
    return action, int(number) - 1


def type_px(kind, viewport_height):
    """The size (px, rounded up) of ``kind`` of :data:`TYPE_SCALE` on a window
    ``viewport_height`` px tall.

    >>> type_px("body", 1080), type_px("chart", 720)
    (35, 18)
    """
    return math.ceil(TYPE_SCALE[kind] * viewport_height / 100)


def chart_style(viewport_height=None, contrast=False):
    """The keyword arguments of :func:`explorer.ui.charts.show_chart`'s ``slide`` for a
    window ``viewport_height`` px tall (:data:`DEFAULT_VIEWPORT` until the browser has
    said): the figure's text, axis titles and settings line in px, and the contrast."""
    height = viewport_height or DEFAULT_VIEWPORT
    return {
        "font": type_px("chart", height),
        "title_font": type_px("chart_title", height),
        "settings_font": type_px("settings", height),
        "high_contrast": bool(contrast),
    }


def high_contrast():
    """True while high contrast is on: ``?contrast=high`` switches it on (``normal`` off),
    the H key toggles it (:func:`set_high_contrast`); kept in the session."""
    raw = st.query_params.get(CONTRAST_PARAM)
    if raw is not None:
        st.session_state[CONTRAST_KEY] = str(raw).lower() == "high"
    return bool(st.session_state.get(CONTRAST_KEY, False))


def set_high_contrast(on):
    """Switch high contrast on or off (and say so in the URL)."""
    st.session_state[CONTRAST_KEY] = bool(on)
    if on:
        st.query_params[CONTRAST_PARAM] = "high"
    else:
        st.query_params.pop(CONTRAST_PARAM, None)


def _vh(kind):
    return f"{TYPE_SCALE[kind]}vh"


_S = f".st-key-{SLIDE_KEY}"
_OVERLAYS = f".st-key-{WHY_KEY}, .st-key-{NUMBERS_KEY}"


def _in_overlays(*parts):
    """A selector list: each of ``parts`` inside either overlay."""
    return ", ".join(f"{o} {p}" for p in parts for o in (f".st-key-{WHY_KEY}", f".st-key-{NUMBERS_KEY}"))


_OVERLAY_TEXT = _in_overlays("p", "li", "td", "th", "a")
_OVERLAY_BLOCKS = _in_overlays('[data-testid="stElementContainer"]', '[data-testid="stHeading"]', "table")
#: Presentation mode's stylesheet in either theme.
_BASE_CSS = f"""
header[data-testid="stHeader"] {{ display: none; }}
.st-key-{TITLE_KEY} {{ position: absolute !important; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }}
[data-testid="stMainBlockContainer"] {{ padding: 1vh 1.6vw 0 1.6vw; max-width: none; }}
[data-testid="stMain"] {{ overflow: hidden; }}
{_S}, {_S} [data-testid="stVerticalBlock"] {{ gap: 0.6vh; }}
{_S} p, {_S} li, {_S} label, {_S} label p, {_S} [data-testid="stMarkdownContainer"],
{_S} [data-testid="stCaptionContainer"], {_S} [data-testid="stCaptionContainer"] p,
{_S} [data-testid="stWidgetLabel"] p, {_S} button p, {_S} [data-testid="stAlert"] p,
{_S} [data-testid="stMetricLabel"] p, {_S} summary p, {_S} td, {_S} th {{
  font-size: {_vh("body")} !important; line-height: 1.25; color: inherit; opacity: 1;
}}
{_S} [data-testid="stCaptionContainer"] {{ color: inherit !important; opacity: 1 !important; }}
{_S} [data-testid="stRadioGroup"] *:not(input) {{ color: var(--flda-slide-text) !important; }}
{_S} [data-testid="stMetricValue"], {_S} [data-testid="stMetricValue"] * {{
  font-size: {_vh("number")} !important; line-height: 1.15; font-weight: 600;
}}
{_S} [data-testid="stMetricLabel"], {_S} [data-testid="stMetricLabel"] * {{
  white-space: normal !important; overflow: visible !important; height: auto !important;
}}
{_S} [data-testid="stMetric"] {{ padding: 0; }}
{_S} h2, {_S} h2 span {{
  font-size: {_vh("title")} !important; padding: 0 !important; line-height: 1.15;
}}
{_S} h2 {{ padding-bottom: 0.8vh !important; }}
{_S} [data-testid="stHeadingWithActionElements"] a {{ display: none; }}
{_S} [data-testid="stHorizontalBlock"] {{ gap: 1.2vw; }}
{_S} [data-testid="stRadio"] [role="radiogroup"] {{ gap: 0 1.2vw; }}
{_S} [data-testid="stRadio"] label > div:first-child {{ width: 2.2vh; height: 2.2vh; }}
{_S} [data-testid="stAlert"] > div {{ padding: 0.6vh 0.8vw; }}
{_S} [data-testid="stButton"] button {{ min-height: 0; padding: 0.3vh 0.8vw; }}
{_S} [data-testid="stWidgetLabel"] [data-testid="stTooltipIcon"] {{ display: none; }}
.st-key-{HEADER_KEY} [data-testid="stHorizontalBlock"] {{ flex-wrap: nowrap; }}
.st-key-{HEADER_KEY} [data-testid="stColumn"] {{ min-width: 0; }}
.st-key-{COUNTER_KEY} p {{ font-variant-numeric: tabular-nums; white-space: nowrap;
  text-align: center; font-weight: 600; }}
{_OVERLAYS} {{ display: none !important; }}
html[data-flda-slide="why"] .st-key-{WHY_KEY},
html[data-flda-slide="numbers"] .st-key-{NUMBERS_KEY} {{
  display: block !important; position: fixed; left: 3vw; top: 3vh; z-index: 999990; box-sizing: border-box;
  width: 94vw !important; height: auto !important; max-height: 94vh; max-width: none !important;
  overflow: auto; padding: 2vh 2vw !important; border: 0.4vh solid currentColor; border-radius: 1vh;
  background: var(--flda-slide-bg); color: var(--flda-slide-text);
}}
html[data-flda-slide="numbers"] .st-key-{NUMBERS_KEY} {{ column-count: 2; column-gap: 3vw; }}
{_OVERLAY_TEXT} {{ font-size: {_vh("overlay")} !important; line-height: 1.3; }}
{_in_overlays("h3", "h3 *")} {{ font-size: {_vh("title")} !important; line-height: 1.2; }}
{_in_overlays("h3")} {{ padding: 0 0 1vh 0 !important; margin: 0 !important; }}
{_OVERLAY_BLOCKS} {{ margin: 0 0 1vh 0 !important; break-inside: avoid; }}
html[data-flda-slide="why"] .st-key-{WHY_KEY} p {{ font-size: {_vh("body")} !important; }}
"""
#: The browser-drawn layers (black-out, overview, list of keys, the jump note) and the
#: keys element out of sight: on slides and on the presenter's console.
_LAYER_CSS = f"""
.st-key-{KEYS_KEY} {{ position: absolute !important; width: 0; height: 0; }}
.flda-slide-layer {{ display: none; position: fixed; inset: 0; z-index: 999995;
  background: var(--flda-slide-bg); color: var(--flda-slide-text); padding: 4vh 4vw; overflow: hidden;
  font-family: var(--st-font, sans-serif); }}
html[data-flda-slide="black"] .flda-slide-black {{ display: block; background: #000; cursor: none; }}
html[data-flda-slide="overview"] .flda-slide-overview,
html[data-flda-slide="help"] .flda-slide-help {{ display: block; }}
.flda-slide-layer h2 {{ font-size: {_vh("title")}; margin: 0 0 2vh 0; padding: 0; }}
.flda-slide-grid {{ display: grid; grid-template-columns: repeat(4, 1fr); gap: 1.6vh 1.2vw; }}
.flda-slide-grid button {{ font: inherit; font-size: {_vh("overlay")}; text-align: left; min-height: 13vh;
  padding: 1vh 1vw; border-radius: 1vh; cursor: pointer; color: var(--flda-slide-text);
  background: transparent; border: 0.25vh solid currentColor; }}
.flda-slide-grid button[aria-current="step"] {{ border-width: 0.7vh; font-weight: 700; }}
.flda-slide-help table {{ font-size: {_vh("overlay")}; border-collapse: collapse; }}
.flda-slide-help td {{ padding: 0.5vh 1.5vw 0.5vh 0; vertical-align: top; }}
.flda-slide-help td:first-child {{ font-weight: 700; white-space: nowrap; }}
.flda-slide-jump {{ display: none; position: fixed; right: 2vw; bottom: 2vh; z-index: 999996;
  font-size: {_vh("body")}; padding: 1vh 1.5vw; border: 0.3vh solid currentColor; border-radius: 1vh;
  background: var(--flda-slide-bg); color: var(--flda-slide-text); }}
html[data-flda-jump] .flda-slide-jump {{ display: block; }}
"""
#: A class's layer: the join code in a corner, the vote bars over the slide's right side
#: (shown or hidden as the class says), "reconnecting…", the join overlay (J); on the
#: presenter the same bars with counts, share correct and the peer-instruction hint.
CLASS_CSS = f"""
.flda-class-projector .flda-class-corner {{ position: fixed; right: 1.2vw; bottom: 1vh; z-index: 999980;
  font-size: {_vh("settings")}; padding: 0.3vh 0.8vw; border-radius: 0.6vh; opacity: 0.85;
  background: var(--flda-slide-bg); color: var(--flda-slide-text); border: 0.15vh solid currentColor; }}
.flda-class-projector .flda-class-bars {{ position: fixed; right: 1vw; top: 10vh; width: 27vw;
  z-index: 999970; padding: 1vh 1vw; border-radius: 1vh; border: 0.3vh solid currentColor;
  background: var(--flda-slide-bg); color: var(--flda-slide-text); font-size: {_vh("overlay")}; }}
.flda-class-projector .flda-class-bars[hidden], .flda-class-status[hidden] {{ display: none; }}
.flda-class-status {{ position: fixed; left: 1.2vw; bottom: 1vh; z-index: 999990; padding: 0.3vh 0.8vw;
  background: #8a5300; color: #ffffff; border-radius: 0.6vh; font-weight: 700; }}
.flda-class-bar {{ display: grid; grid-template-columns: 3.5em 1fr 2.5em; gap: 0.6em; align-items: center;
  margin: 0.3em 0; font-variant-numeric: tabular-nums; }}
.flda-class-track {{ height: 1.1em; border: 1px solid currentColor; border-radius: 0.2em; overflow: hidden; }}
.flda-class-fill {{ display: block; height: 100%; background: #1E7BD6; }}
.flda-class-fill.flda-class-r1 {{ background: #7a7a7a; }}
.flda-class-round-head {{ font-weight: 700; margin-top: 0.4em; }}
.flda-class-hint {{ font-style: italic; margin-top: 0.2em; }}
.flda-class-stats {{ font-variant-numeric: tabular-nums; font-weight: 600; }}
.st-key-{CLASS_LAYER_KEY}, [data-testid="stLayoutWrapper"]:has(> .st-key-{CLASS_LAYER_KEY}) {{
  position: absolute !important; width: 0; height: 0; }}
.st-key-lesson_join {{ display: none !important; }}
html[data-flda-slide="join"] .st-key-lesson_join {{ display: flex !important; flex-direction: column;
  align-items: center; justify-content: center; position: fixed; inset: 0; z-index: 999992;
  background: var(--flda-slide-bg); color: var(--flda-slide-text); }}
html[data-flda-slide="join"] .st-key-lesson_join p, html[data-flda-slide="join"] .st-key-lesson_join h3 {{
  font-size: {_vh("title")} !important; text-align: center; }}
html[data-flda-slide="join"] .st-key-lesson_join img {{ width: 55vh !important; height: 55vh !important;
  background: #ffffff; padding: 1vh; }}
"""
#: The theme's colours for the browser-drawn layers.
_THEME_VARS = """
:root { --flda-slide-bg: var(--st-background-color, #ffffff);
  --flda-slide-text: var(--st-text-color, #31333f); }
"""
#: High contrast: white on black (21:1) everywhere on the slide, the primary button black
#: on white, links and the focus ring yellow (19.6:1 on black).
HIGH_CONTRAST_CSS = """
:root { --flda-slide-bg: #000000; --flda-slide-text: #ffffff; }
[data-testid="stApp"], [data-testid="stMain"], [data-testid="stAppViewContainer"],
[data-testid="stMainBlockContainer"] { background: #000000 !important; color: #ffffff !important; }
[data-testid="stMain"] *:not(svg *):not(button[kind="primary"]):not(button[kind="primary"] *) {
  color: #ffffff !important; opacity: 1 !important; }
[data-testid="stMain"] [data-testid="stAlert"] > div { background: #000000 !important;
  border: 0.3vh solid #ffffff; }
[data-testid="stMain"] button { background: #000000 !important; border: 0.25vh solid #ffffff !important; }
[data-testid="stMain"] button:disabled { border-style: dashed !important; }
[data-testid="stMain"] button[kind="primary"] { background: #ffffff !important; }
[data-testid="stMain"] button[kind="primary"], [data-testid="stMain"] button[kind="primary"] * {
  color: #000000 !important; }
[data-testid="stMain"] a, [data-testid="stMain"] a * { color: #ffff00 !important; }
[data-testid="stMain"] [role="radiogroup"] label { background: #000000 !important; }
[data-testid="stMain"] [role="radiogroup"] label > div:first-child { border: 0.3vh solid #ffffff !important;
  background: #000000 !important; }
[data-testid="stMain"] [role="radiogroup"] label:has(input:checked) > div:first-child {
  background: #ffffff !important; box-shadow: inset 0 0 0 0.5vh #000000; }
[data-testid="stMain"] [role="radiogroup"] label > div:first-child > div {
  background: transparent !important; }
[data-testid="stMain"] :focus-visible { outline-color: #ffff00 !important; }
[data-testid="stMain"] table, [data-testid="stMain"] td, [data-testid="stMain"] th {
  background: #000000 !important; border-color: #ffffff !important; }
"""


@functools.cache
def slide_css(contrast=False, in_class=False):
    """The ``<style>`` of presentation mode (``contrast``: :data:`HIGH_CONTRAST_CSS` too;
    ``in_class``: :data:`CLASS_CSS`)."""
    extra = (HIGH_CONTRAST_CSS if contrast else "") + (CLASS_CSS if in_class else "")
    return f"<style>{_THEME_VARS}{_BASE_CSS}{_LAYER_CSS}{extra}</style>"


@functools.cache
def layer_css():
    """The ``<style>`` of the presenter's console: the keys' layers and the class's bars."""
    return f"<style>{_THEME_VARS}{_LAYER_CSS}{CLASS_CSS}</style>"


@functools.cache
def component(name):
    """The Streamlit component ``flda_<name>``: the script ``assets/<name>.js``."""
    js = (ASSETS / f"{name}.js").read_text(encoding="utf-8")
    return st.components.v2.component(f"flda_{name}", js=js, isolate_styles=False)


def lesson_keys(titles, present, in_class=False, layer="", steer=None):
    """Draw the keyboard element; returns this run's ``(action, index)``
    (:func:`parse_action`) or None, and the viewport height the browser reported (None
    until it has).

    ``titles``: the overview's grid.  Outside presentation mode only ← / → / Page Up /
    Page Down / Space move between steps.  ``in_class``: the class's keys too (J, V), and
    the class's layers (:data:`CLASS_LAYERS`; ``layer`` the one it shows) are the
    server's; ``steer`` (``{base, code, steps, bars, layer}``, the lecturer's browser):
    the keys steer the class through its route, not through a run of the page.
    """
    keys = KEY_MAP if present else {k: v for k, v in KEY_MAP.items() if k in PAGE_KEYS}
    if not in_class:
        keys = {k: v for k, v in keys.items() if v not in CLASS_ACTIONS}
    data = {
        "present": bool(present),
        "titles": list(titles),
        "keys": keys,
        "serverLayers": list(CLASS_LAYERS) if in_class else [],
        "layer": layer if in_class else "",
        "steer": steer,
        "help": key_list(in_class),
    }
    ignore = lambda: None  # the trigger and the state are read from the result
    result = component("lesson_keys")(
        key=KEYS_KEY, data=data, height=0, on_nav_change=ignore, on_viewport_change=ignore
    )
    viewport = getattr(result, "viewport", None)
    viewport = int(viewport) if isinstance(viewport, (int, float)) and 200 <= viewport <= 10_000 else None
    return parse_action(getattr(result, "nav", None), len(titles)), viewport
