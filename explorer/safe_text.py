"""Render user-supplied text inertly: Streamlit markdown, plotly labels, CSV downloads.

File names, column names and label values come from uploads and shared
links, and end up in three places that interpret text:

* **Streamlit markdown** (``st.markdown``, ``st.caption``, ``st.error``, ...)
  turns ``![x](https://...)`` into an image every viewer's browser fetches,
  ``[x](...)`` into a link, ``$...$`` into LaTeX, ``:red[...]`` into coloured
  text and ``*``/``_``/``#`` into formatting.  :func:`escape_markdown`
  backslash-escapes every ASCII punctuation character (CommonMark lets any of
  them be escaped, and renders the escaped character literally) and folds
  line breaks, so the text shows exactly as typed.  Streamlit's markdown (GFM)
  also turns bare ``http(s)://…``, ``www.…`` and e-mail addresses into live
  links *after* escapes are resolved, so a zero-width space
  (:data:`ZERO_WIDTH_SPACE`) goes after ``://``, between ``www`` and ``.`` and
  before ``@``: the text reads the same but no link forms.
* **Plotly** renders a small HTML subset (``<a href>``, ``<b>``, ``<br>``,
  ``<span style>``, entities) in tick labels, legend entries, titles and hover
  labels, and substitutes ``%{...}`` in hover templates.
  :func:`escape_plotly` writes ``& < >`` and the template braces as entities,
  which plotly decodes for display only.  Text taken back *out* of a figure
  for a plain-text place (a chart's aria-label, its text alternative in the
  caption) goes through :func:`plain_from_plotly`, which removes plotly's tags
  and decodes the entities, so ``&lt;`` never shows; that text is then escaped
  for its own place (``escape_markdown`` for a caption).
* **Spreadsheets** execute a CSV cell that starts with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return as a formula (CSV injection).
  :func:`safe_csv` prefixes such text cells with an apostrophe (the OWASP
  rule): spreadsheets show the text, and the apostrophe is visible, so the
  value stays readable; numbers, and text that is exactly a number, are
  left untouched.

Every one of these escapes also removes Unicode's bidirectional controls
(:func:`strip_bidi`): a right-to-left override in a name would show the rest of
its line reversed.

This module never imports streamlit.

References
----------
OWASP Foundation, "CSV Injection",
https://owasp.org/www-community/attacks/CSV_Injection
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

    Every ASCII punctuation character gets a backslash (so no image, link,
    HTML tag or entity, LaTeX, emphasis, heading, list, table, emoji
    shortcode or coloured-text directive can form), line breaks and tabs
    become spaces (no new block can start), other control characters are
    dropped, and a zero-width space after ``://``, inside ``www.`` and before
    ``@`` keeps a bare URL or e-mail address from becoming a live link.

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

    ``&``, ``<`` and ``>`` become entities, so ``<a href=...>`` shows as
    typed instead of becoming a link; ``{`` and ``}`` become numeric entities,
    so ``%{x}`` inside a name is not substituted by a hover template.
    Plotly decodes the entities when it draws the text.

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

    Text cells (and column names and index labels) lose their bidirectional
    controls (:func:`strip_bidi`); those that start with one of
    :data:`FORMULA_PREFIXES` get a leading ``'``, unless the whole text is a
    plain number such as ``-1.5``.  Numeric columns and non-text cells are
    returned unchanged.
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
