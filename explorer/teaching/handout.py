"""The lesson's handout (issue 25): one print-ready HTML page with every step.

For each step: its title and text, the settings it was computed with and the link to
the full page, the figure (plotly JSON drawn as SVG by the plotly.js bundle inlined in
the page, so the file works offline and prints), its caption, the step's numbers
beside the paper's, the question with its choices, the computed answer, the notes on
the paper, and room for the student's notes.  All text is HTML-escaped; the little
markdown the captions use (bold, italics, links) becomes plain HTML.  No streamlit.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import html
import re

__all__ = ["markdown_to_html", "handout_html"]

_STYLE = """
body { font-family: system-ui, sans-serif; color: #111; max-width: 60rem; margin: 2rem auto;
       line-height: 1.45; font-size: 12pt; }
section { page-break-after: always; border-top: 2px solid #444; padding-top: 1rem; }
h1 { font-size: 20pt; } h2 { font-size: 16pt; margin-bottom: 0.3rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
td, th { border: 1px solid #999; padding: 0.2rem 0.5rem; text-align: left; }
.figure { width: 100%; height: 26rem; }
.paper { border-left: 4px solid #777; padding-left: 0.8rem; }
.notes { border: 1px dashed #777; min-height: 8rem; margin-top: 1rem; padding: 0.5rem;
         color: #555; }
.small { font-size: 10pt; color: #333; }
code { word-break: break-all; }
@media print { .figure { height: 22rem; } a { color: inherit; } }
"""


def markdown_to_html(text):
    """Escape ``text`` and turn its markdown bold, italics, links and paragraphs into HTML
    (links keep their text only: their anchors are on the dashboard, not here)."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", out)
    out = out.replace("\\", "")
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return "".join(f"<p>{part}</p>" for part in out.split("\n\n") if part.strip())


def _value(value):
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _table(rows, header=None):
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_value(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    head = "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>" if header else ""
    return f"<table>{head}{cells}</table>"


def _frame(frame):
    frame = (
        frame.reset_index()
        if frame.index.name or not frame.index.equals(frame.index.__class__(range(len(frame))))
        else frame
    )
    rows = [[f"{v:.3f}" if isinstance(v, float) else v for v in row] for row in frame.itertuples(index=False)]
    return _table(rows, ["" if c == "index" else str(c) for c in frame.columns])


def _step(number, lesson_step, values, view, full_url):
    parts = [
        f"<section id='{html.escape(lesson_step.slug)}'>",
        f"<h2>{html.escape(lesson_step.title)}</h2>",
        markdown_to_html(lesson_step.text),
    ]
    parts.append(
        "<p class='small'><strong>Settings:</strong> "
        + html.escape("; ".join(f"{k.split('.', 1)[-1]} = {_value(v)}" for k, v in values.items()))
        + f" · full page: <code>{html.escape(full_url)}</code></p>"
    )
    if view is not None and view.fig is not None:
        parts.append(f"<div class='figure' id='fig{number}'></div>")
        figure_json = view.fig.to_json().replace("</", "<\\/")
        parts.append(f"<script type='application/json' id='fig{number}-data'>{figure_json}</script>")
    if view is not None:
        if view.caption:
            parts.append(f"<div class='small'>{markdown_to_html(view.caption)}</div>")
        if view.numbers:
            parts.append(_table(view.numbers, ("this step", "value")))
        if view.table is not None:
            parts.append(_frame(view.table))
        if view.paper:
            parts.append(f"<div class='paper'>{markdown_to_html(view.paper)}</div>")
        for note in view.notes:
            parts.append(markdown_to_html(note))
    parts.append(
        f"<p><strong>Predict:</strong> {html.escape(lesson_step.question)}</p><ul>"
        + "".join(f"<li>{html.escape(c)}</li>" for c in lesson_step.choices)
        + "</ul>"
    )
    if view is not None and view.reveal:
        right = ", ".join(lesson_step.choices[i] for i in sorted(view.correct))
        parts.append(
            f"<p><strong>Answer here:</strong> {html.escape(right)}. {markdown_to_html(view.reveal)}</p>"
        )
    parts.append(f"<p><strong>Why:</strong> {html.escape(lesson_step.answer)}</p>")
    parts.append("<div class='notes'>Your notes:</div></section>")
    return "\n".join(parts)


def handout_html(pages, plotly_js, full_url=None):
    """The handout of ``pages`` (``(step, values, view)`` per step) as one HTML string.

    ``plotly_js`` is the plotly.js bundle inlined to draw the figures; ``full_url(step,
    values)`` the full page's address of a step (default
    :func:`explorer.teaching.lesson.full_page_url`).
    """
    import dataclasses

    from explorer.teaching.lesson import full_page_url

    if full_url is None:

        def full_url(lesson_step, values):
            return full_page_url(dataclasses.replace(lesson_step, settings=values))

    sections = [
        _step(i, s, values, view, full_url(s, values)) for i, (s, values, view) in enumerate(pages, start=1)
    ]
    contents = "".join(f"<li>{html.escape(s.title)}</li>" for s, _, _ in pages)
    draw = (
        "document.querySelectorAll('.figure').forEach(function (el) {"
        "var f = JSON.parse(document.getElementById(el.id + '-data').textContent);"
        "f.layout = Object.assign(f.layout || {}, {autosize: true, height: null,"
        " paper_bgcolor: 'white', plot_bgcolor: 'white', font: {color: '#111'}});"
        "Plotly.newPlot(el, f.data, f.layout, {staticPlot: true, responsive: true});});"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<title>FLDA lesson handout</title><style>" + _STYLE + "</style>"
        "<script>" + plotly_js.replace("</script", "<\\/script") + "</script></head><body>"
        "<h1>Feature-level domain adaptation: the lesson</h1>"
        "<p class='small'>Kouw, van der Maaten, Krijthe and Loog (2016), Feature-Level "
        "Domain Adaptation, JMLR 17(171). Numbers marked as the paper's are quoted from "
        "it; every other number was computed by the FLDA explorer with the settings "
        "listed under each step.</p><ol>"
        + contents
        + "</ol>"
        + "\n".join(sections)
        + "<script>"
        + draw
        + "</script></body></html>"
    )
