"""Presentation mode as data: the live controls each page keeps, and links that keep it.

In presentation mode (``?present=1``) a page hides its sidebar but keeps, in a
compact row above its figures, the few controls a live demonstration needs
(:data:`PRESENTATION_CONTROLS`, the page's widget keys; pages with paper
presets keep those buttons too, :data:`HAS_PRESETS`), both read from the page
registry (:mod:`explorer.registry`).  Every link a page draws goes through
:func:`with_present`, so the mode survives navigation.  No streamlit here.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from explorer.registry import PAGES

__all__ = ["PRESENT_PARAM", "PRESENTATION_CONTROLS", "PRESENTATION_LABELS", "HAS_PRESETS", "with_present"]

PRESENT_PARAM = "present"

#: Page file -> widget keys kept in presentation mode, in display order
#: (:attr:`explorer.registry.Page.live_controls`).
PRESENTATION_CONTROLS = {entry.script: entry.live_controls for entry in PAGES if entry.live_controls}
#: Short labels of those controls for the compact row (key after the first dot).
PRESENTATION_LABELS = {
    "theta": "true dropout θ per feature",
    "loss": "loss",
    "seed": "random seed",
    "delta_1": "shift added to θ̂₁",
    "perturbations": "perturbations drawn",
    "l2": "ℓ2 regularisation",
    "ridge": "λ (ridge strength)",
    "direction": "direction",
    "digit": "digit",
    "sample": "sample pair",
}
#: Pages whose paper-preset buttons stay visible in presentation mode
#: (:attr:`explorer.registry.Page.has_presets`).
HAS_PRESETS = frozenset(entry.script for entry in PAGES if entry.has_presets)


def with_present(url, present=True):
    """``url`` with ``present=1`` added (or removed when ``present`` is False).

    Other query parameters and the fragment (an equation anchor) are kept.

    >>> with_present("synthetic?theta=0.5#eq-theta-hat")
    'synthetic?theta=0.5&present=1#eq-theta-hat'
    """
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != PRESENT_PARAM]
    if present:
        query.append((PRESENT_PARAM, "1"))
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))
