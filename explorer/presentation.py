"""Presentation mode's links: :func:`with_present` keeps ``?present=1`` across them.

Every link a page draws goes through :func:`with_present`.  No streamlit here.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

PRESENT_PARAM = "present"


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
