"""Render user-supplied text (file, column and label names from uploads and links) inertly:

* **Streamlit markdown**: :func:`escape_markdown` backslash-escapes ASCII punctuation,
  folds line breaks and breaks bare URLs and e-mail addresses with a zero-width space;
* **Plotly labels**: :func:`escape_plotly` writes ``& < >`` and ``{ }`` as entities;
  :func:`plain_from_plotly` takes text back out for aria-labels and captions;
* **CSV downloads**: :func:`safe_csv` prefixes formula-leading text cells with ``'``
  (OWASP, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection).

Every escape also removes Unicode's bidirectional controls (:func:`strip_bidi`).  This
module never imports streamlit.
"""

from __future__ import annotations

import html
import re

import pandas as pd

#: First characters that make a spreadsheet treat a cell as a formula (OWASP).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
#: Inserted where GFM would start a link literal (invisible, breaks no word).
ZERO_WIDTH_SPACE = "\u200b"
#: Where a link literal would start: after ``://`` (``http://``, ``https://``, any
#: scheme), between ``www`` and its dot, before an ``@`` (e-mail, ``mailto:``).
_AUTOLINK = re.compile(r"(?<=://)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
#: Unicode's bidirectional controls: the embeddings and overrides U+202A-U+202E, the
#: isolates U+2066-U+2069, the marks U+200E/U+200F and the Arabic letter mark U+061C.
#: One in a file, column or label name (or a link's value) reverses the rest of the
#: line it is shown on ("Trojan Source"), so every escape removes them.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def strip_bidi(text):
    """``text`` without Unicode's bidirectional controls (:data:`BIDI_CONTROLS`).

    Examples
    --------
    >>> strip_bidi("report\u202etxt.exe")
    'reporttxt.exe'
    """
    return _BIDI.sub("", str(text))


def escape_markdown(text):
    r"""``text`` escaped for Streamlit markdown: shown literally, nothing interpreted.

    ASCII punctuation gets a backslash (no image, link, LaTeX, formatting or directive
    forms), line breaks and tabs become spaces, other controls are dropped, and a
    zero-width space after ``://``, inside ``www.`` and before ``@`` keeps GFM from
    making a live link.

    Examples
    --------
    >>> print(escape_markdown("![x](http://e.vil/a.png) costs $5").replace("\u200b", "|"))
    \!\[x\]\(http\:\/\/|e\.vil\/a\.png\) costs \$5
    >>> escape_markdown("www.e.vil me@e.vil").replace("\u200b", "|")
    'www|\\.e\\.vil me|\\@e\\.vil'
    """
    text = strip_bidi(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    text = _CONTROL.sub("", text.replace("\t", " "))
    text = _AUTOLINK.sub(ZERO_WIDTH_SPACE, text)
    return _PUNCTUATION.sub(r"\\\1", text)


def escape_plotly(text):
    """``text`` for plotly labels (ticks, legend, titles, hover): no HTML, no template.

    ``& < >`` become entities (no tag forms) and ``{ }`` numeric ones (no ``%{x}``
    substitution); plotly decodes them for display.

    Examples
    --------
    >>> escape_plotly('<a href="http://e.vil">click</a> & %{x}')
    '&lt;a href="http://e.vil"&gt;click&lt;/a&gt; &amp; %&#123;x&#125;'
    """
    return (
        strip_bidi(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("{", "&#123;")
        .replace("}", "&#125;")
    )


def plain_from_plotly(text):
    """The plain text a plotly label shows: tags (``<br>``, ``<b>``) become spaces and
    entities are decoded, inverting :func:`escape_plotly`.  For aria-labels and text
    alternatives; escape the result again for where it goes (e.g. ``escape_markdown``).

    Examples
    --------
    >>> plain_from_plotly(escape_plotly("<img src=x> & %{x}") + "<br>(A)")
    '<img src=x> & %{x} (A)'
    """
    return strip_bidi(html.unescape(_TAG.sub(" ", str(text)))).strip()


def _neutralise(value):
    if not isinstance(value, str):
        return value
    value = strip_bidi(value)
    if not value.startswith(FORMULA_PREFIXES):
        return value
    if _NUMBER.fullmatch(value):
        return value  # "-1.5" is a number, not a formula
    return "'" + value


def neutralise_formulas(frame):
    """A copy of ``frame`` whose formula-leading text cells start with an apostrophe.

    Text cells, column names and index labels lose their bidirectional controls; those
    starting with one of :data:`FORMULA_PREFIXES` get a ``'`` unless they are a number
    such as ``-1.5``.
    """
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
            out[column] = values.map(_neutralise)
    out.columns = (
        pd.Index([_neutralise(c) for c in out.columns], dtype=object)
        if not isinstance(out.columns, pd.MultiIndex)
        else out.columns
    )
    if out.index.dtype == object:
        out.index = pd.Index([_neutralise(i) for i in out.index], name=out.index.name)
    return out


def safe_csv(frame, index=False):
    """``frame`` as CSV text (UTF-8 ready) with formula injection neutralised.

    Parameters
    ----------
    frame : pandas.DataFrame
    index : bool, default=False
        Write the index as the first column (as ``DataFrame.to_csv``).

    Returns
    -------
    str
        CSV with CRLF line ends; pass ``.encode("utf-8")`` to a download button.

    Examples
    --------
    >>> import pandas as pd
    >>> safe_csv(pd.DataFrame({"name": ["=1+2", "-3", "ok"], "x": [-1, 2, 3]})).splitlines()
    ['name,x', "'=1+2,-1", '-3,2', 'ok,3']
    """
    # CRLF line ends (RFC 4180): the csv writer then quotes cells holding a bare
    # carriage return too, so such a cell cannot split a row.
    return neutralise_formulas(frame).to_csv(index=index, lineterminator="\r\n")
