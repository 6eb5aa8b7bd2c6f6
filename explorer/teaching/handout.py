"""The lesson's two handouts (issues 25 and 34): print-ready HTML, one page a step.

For students (``audience="students"``): every step's title, text, the settings it is
computed with and absolute links to it, the figure shown *before* Reveal
(``View.fig_before``; a step without one prints no figure, since its revealed figure
answers the question), and the question with its choices and an empty box to answer
in: no answer, no reveal, no numbers, no caption, no notes on the paper, no "Why".
For the lecturer (``audience="lecturer"``): the same plus the revealed figure and its
caption, the right choices, the reveal, the step's numbers beside the paper's, the
notes on the paper, the "Why" and the speaker notes (say, ask, minutes) with the
minutes in all.

Printing: A4 or Letter (:data:`PAPER_SIZES`) with page numbers; the figures are drawn
offline by the inlined plotly.js bundle as the app lays them out, zoomed to the printable
width (:data:`_DRAW`).  All text is HTML-escaped, the captions' markdown becomes HTML and
a missing number prints as "–", never "nan".  No streamlit.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

import html
import math
import re
from urllib.parse import urljoin

from explorer.teaching import lesson

#: Who a handout is for.
AUDIENCES = ("students", "lecturer")
#: CSS ``@page`` size, printable width and height (the page less its margins:
#: 15 mm at the sides, 14 mm at the top, 16 mm at the bottom).
PAPER_SIZES = {"A4": ("A4", "180mm", "267mm"), "Letter": ("letter", "185.9mm", "249.4mm")}
#: Height of the students' title block on page 1 (their first step fills the rest).
_STUDENTS_HEADER = "26mm"
#: How a missing number prints.
MISSING = "–"

_STYLE = """
@page { size: %(size)s; margin: 14mm 15mm 16mm 15mm;
        @bottom-center { content: "%(footer)s · page " counter(page) " of " counter(pages);
                         font: 8pt system-ui, sans-serif; color: #444; } }
html { background: white; }
body { font-family: system-ui, sans-serif; color: #111; width: %(width)s; margin: 1rem auto;
       line-height: 1.35; font-size: 10.5pt; }
@media print { body { margin: 0; } a { color: inherit; } }
header { margin-bottom: 3mm; }
h1 { font-size: 16pt; margin: 0 0 2mm 0; }
h2 { font-size: 13.5pt; margin: 0 0 2mm 0; break-after: avoid; }
h3 { font-size: 11pt; margin: 3mm 0 1mm 0; break-after: avoid; }
p { margin: 0 0 2mm 0; }
section { border-top: 1.5px solid #444; padding-top: 3mm; margin-top: 5mm; }
/* students: one page a step, the answer box taking what the step leaves of it */
body.students header { height: %(header)s; overflow: hidden; margin-bottom: 0; }
body.students h1 { font-size: 14pt; }
body.students section { display: flex; flex-direction: column; box-sizing: border-box;
                        min-height: calc(%(height)s - 3mm); break-before: page; margin-top: 0; }
body.students section:first-of-type { break-before: auto;
                                      min-height: calc(%(height)s - %(header)s - 3mm); }
body.students .question { display: flex; flex-direction: column; flex: 1 0 auto; }
body.students .answerbox { flex: 1 0 auto; }
table { border-collapse: collapse; margin: 1mm 0 2mm 0; font-size: 9pt; break-inside: avoid; }
td, th { border: 1px solid #999; padding: 0.6mm 2mm; text-align: left; }
.figbox { width: 100%%; break-inside: avoid; margin: 1mm 0; }
.figure { overflow: hidden; }
.nofigure { font-size: 9pt; color: #333; font-style: italic; }
.paper { border-left: 3px solid #777; padding-left: 3mm; }
.small { font-size: 8.5pt; color: #333; }
.links { font-size: 8pt; color: #333; overflow-wrap: anywhere; }
.question { break-inside: avoid; }
.choices { list-style: none; padding-left: 2mm; margin: 1mm 0; }
.choices li::before { content: "☐  "; }
.choices li.right::before { content: "☑  "; }
.choices li.right { font-weight: bold; }
.answerbox { border: 1px solid #555; min-height: 20mm; padding: 1.5mm 2mm; color: #555;
             font-size: 8.5pt; break-inside: avoid; }
.speaker { border: 1px dashed #555; padding: 2mm 3mm; break-inside: avoid; margin-top: 2mm; }
.block { break-inside: avoid; }
"""

#: Width (CSS px) each figure is laid out at before it is zoomed to the printable width
#: (the width the app's figures are designed for: their heights, legends and colour bars
#: are placed for it), the height used when a figure sets none, and the tallest a
#: figure prints (in design px zoomed to 180 mm: 520 px is 104 mm; a taller figure is
#: zoomed further, never re-laid out), so that a step with its figure fits a page.
FIGURE_DESIGN_WIDTH = 900
FIGURE_DEFAULT_HEIGHT = 450
FIGURE_MAX_HEIGHT = 520

#: Each figure laid out as its builder placed it (re-anchoring legends put Figure 3's axis
#: title on its ticks) at the design width, then zoomed to the printable width; white, no
#: interaction.  When every figure is drawn, ``body`` gets ``data-figures-drawn``.
_DRAW = (
    "Promise.all(Array.prototype.map.call(document.querySelectorAll('.figure'), function (el) {"
    "var f = JSON.parse(document.getElementById(el.id + '-data').textContent);"
    "var layout = f.layout || {};"
    f"var h = layout.height || {FIGURE_DEFAULT_HEIGHT};"
    f"el.style.width = '{FIGURE_DESIGN_WIDTH}px'; el.style.height = h + 'px';"
    "Object.assign(layout, {autosize: false, height: h,"
    f" width: {FIGURE_DESIGN_WIDTH}, paper_bgcolor: 'white', plot_bgcolor: 'white'}});"
    "layout.font = Object.assign(layout.font || {}, {color: '#111'});"
    "return Plotly.newPlot(el, f.data, layout, {staticPlot: true, responsive: false})"
    ".then(function () { el.style.zoom = el.parentElement.clientWidth"
    f" / {FIGURE_DESIGN_WIDTH} * Math.min(1, {FIGURE_MAX_HEIGHT} / h); }});"
    "})).then(function (drawn) { document.body.setAttribute('data-figures-drawn', drawn.length); });"
)


def markdown_to_html(text):
    """Escape ``text`` and turn its markdown bold, italics, links and paragraphs into HTML
    (links keep their text only: their anchors are on the dashboard, not here)."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", out)
    out = out.replace("\\", "")
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return "".join(f"<p>{part}</p>" for part in out.split("\n\n") if part.strip())


def app_base_url(page_url, page_path):
    """The app's root URL (ending in ``/``) from the address of one of its pages
    (``st.context.url``, e.g. ``http://host:8501/lesson``) and that page's URL path
    (``"lesson"``); ``None`` when there is no address."""
    if not page_url:
        return None
    base = page_url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if page_path and base.endswith("/" + page_path.strip("/")):
        base = base[: -len(page_path.strip("/")) - 1]
    return base + "/"


def step_heading(number, title):
    """``"3 · title"`` once, whether or not ``title`` starts with a number of its own."""
    rest = re.sub(r"^\s*\d+\s*[·.:)]\s*", "", str(title))
    return f"{number} · {rest}"


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value)) or str(value).lower() == "nan"


def value_text(value):
    """A setting's value as printed (and as a control labels it): "on"/"off", floats as %g."""
    if _missing(value):
        return MISSING
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _table(rows, header=None):
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(value_text(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    head = "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>" if header else ""
    return f"<table>{head}{cells}</table>"


def _frame(frame):
    if frame.index.name or not frame.index.equals(frame.index.__class__(range(len(frame)))):
        frame = frame.reset_index()
    rows = [
        [f"{v:.3f}" if isinstance(v, float) and not math.isnan(v) else v for v in row]
        for row in frame.itertuples(index=False)
    ]
    return _table(rows, ["" if c == "index" else str(c) for c in frame.columns])


def _figure(element_id, fig):
    figure_json = fig.to_json().replace("</", "<\\/")
    return (
        f"<div class='figbox'><div class='figure' id='{element_id}'></div></div>"
        f"<script type='application/json' id='{element_id}-data'>{figure_json}</script>"
    )


def _link(label, url):
    return f"{html.escape(label)}: <a href='{html.escape(url)}'>{html.escape(url)}</a>"


def _speaker_notes(lesson_step, values, view):
    """The step's notes as shown (:func:`explorer.teaching.lesson.notes_text`) with its
    minutes (talk and two rounds of votes, :func:`~explorer.teaching.lesson.step_minutes`)."""
    if lesson_step.notes is None:
        return "<div class='speaker'><h3>Speaker notes</h3><p>No speaker notes for this step.</p></div>"
    say, ask = lesson.notes_text(lesson_step, values, getattr(view, "facts", None))
    return (
        "<div class='speaker'><h3>Speaker notes "
        f"({html.escape(value_text(lesson.step_minutes(lesson_step)))} min"
        f"{'' if lesson_step.core else ', optional'})</h3>"
        f"<p><strong>Say:</strong> {html.escape(say)}</p>"
        f"<p><strong>Ask:</strong> {html.escape(ask)}</p></div>"
    )


def _step(number, lesson_step, values, view, links, lecturer):
    before = getattr(view, "fig_before", None)
    parts = [
        f"<section id='{html.escape(lesson_step.slug)}' class='{'fig' if before is not None else ''}'>",
        f"<h2>{html.escape(step_heading(number, lesson_step.title))}</h2>",
        markdown_to_html(lesson_step.text),
        "<p class='small'><strong>Settings:</strong> "
        + html.escape("; ".join(f"{k.split('.', 1)[-1]} = {value_text(v)}" for k, v in values.items()))
        + "</p>",
        "<p class='links'>" + "<br>".join(_link(label, url) for label, url in links) + "</p>",
    ]
    if view is not None and view.error:
        parts.append(f"<p><strong>This step could not be computed:</strong> {html.escape(view.error)}</p>")
    if before is not None:
        if lecturer:
            parts.append("<h3>Before Reveal</h3>")
        parts.append(_figure(f"fig{number}-before", before))
    elif not lecturer:
        parts.append(
            "<p class='nofigure'>The figure of this step is shown in class after your prediction.</p>"
        )
    choices = lesson_step.choices
    right = set(view.correct) if (lecturer and view is not None) else set()
    parts.append(
        "<div class='question'>"
        f"<p><strong>Predict:</strong> {html.escape(lesson_step.question)}</p>"
        "<ul class='choices'>"
        + "".join(
            f"<li class='{'right' if i in right else ''}'>{html.escape(c)}</li>"
            for i, c in enumerate(choices)
        )
        + "</ul>"
    )
    if not lecturer:
        parts.append("<div class='answerbox'>Your answer and why:</div></div></section>")
        return "\n".join(parts)
    parts.append("</div>")
    if view is not None:
        if view.fig is not None:
            parts.append("<h3>After Reveal</h3>" + _figure(f"fig{number}", view.fig))
        if view.caption:
            parts.append(f"<div class='small block'>{markdown_to_html(view.caption)}</div>")
        if view.reveal:
            names = ", ".join(choices[i] for i in sorted(view.correct) if i < len(choices))
            parts.append(
                f"<div class='block'><p><strong>Answer here:</strong> {html.escape(names or MISSING)}.</p>"
                f"{markdown_to_html(view.reveal)}</div>"
            )
        if view.numbers:
            parts.append(_table(view.numbers, ("this step", "value")))
        if view.table is not None:
            parts.append(_frame(view.table))
        if view.paper:
            parts.append(f"<div class='paper block'>{markdown_to_html(view.paper)}</div>")
        for note in view.notes:
            parts.append(f"<div class='block'>{markdown_to_html(note)}</div>")
    parts.append(f"<p class='block'><strong>Why:</strong> {html.escape(lesson_step.answer)}</p>")
    parts.append(_speaker_notes(lesson_step, values, view))
    parts.append("</section>")
    return "\n".join(parts)


def _minutes_line(steps):
    minutes = {i: lesson.step_minutes(s) for i, s in enumerate(steps, 1) if s.notes}
    core = {i: m for i, m in minutes.items() if steps[i - 1].core}
    optional = ", ".join(f"step {i} ({value_text(m)})" for i, m in minutes.items() if i not in core)
    planned = lesson.JOIN_MINUTES + sum(core.values())
    line = (
        f"Planned time: {value_text(planned)} of {lesson.LECTURE_MINUTES} minutes "
        f"({lesson.JOIN_MINUTES} to join, then "
        + ", ".join(f"step {i}: {value_text(m)}" for i, m in core.items())
        + ", each with two rounds of votes)"
        + (f"; if time is left: {optional}" if optional else "")
        + "."
    )
    missing = len(steps) - len(minutes)
    if missing:
        line += f" {missing} of {len(steps)} steps have no speaker notes."
    return f"<p class='small'><strong>{html.escape(line)}</strong></p>"


def handout_html(pages, plotly_js, audience="students", paper="A4", base_url=None):
    """The handout of ``pages`` (``(step, values, view)`` per step) as one HTML string.

    Parameters
    ----------
    pages : list of tuple
        ``(LessonStep, values, View)`` per step (the view may be None).
    plotly_js : str
        The plotly.js bundle inlined to draw the figures.
    audience : {"students", "lecturer"}
        The students' handout holds no answer; the lecturer's holds answers and notes.
    paper : {"A4", "Letter"}
        The page size printed with.
    base_url : str or None
        The app's root URL (:func:`app_base_url`): the links are made absolute with it
        (relative links when None).
    """
    if audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {AUDIENCES}, not {audience!r}.")
    if paper not in PAPER_SIZES:
        raise ValueError(f"paper must be one of {tuple(PAPER_SIZES)}, not {paper!r}.")

    def absolute(url):
        return urljoin(base_url, url) if base_url else url

    lecturer = audience == "lecturer"
    sections = []
    for i, (s, values, view) in enumerate(pages, start=1):
        links = [
            ("This step of the lesson", absolute(lesson.lesson_url(s.slug))),
            ("Full page with these settings", absolute(lesson.full_page_url(s, values=values))),
        ]
        sections.append(_step(i, s, values, view, links, lecturer))
    who = "lecturer's handout, with answers and speaker notes" if lecturer else "students' handout"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>FLDA lesson: {html.escape(who)}</title><style>" + _page_style(paper, who) + "</style>"
        "<script>" + plotly_js.replace("</script", "<\\/script") + "</script></head>"
        f"<body class='{audience}'>"
        + _header(pages, who, lecturer)
        + "\n".join(sections)
        + "<script>"
        + _DRAW
        + "</script></body></html>"
    )


def _page_style(paper, who):
    size, width, height = PAPER_SIZES[paper]
    return _STYLE % {
        "size": size,
        "width": width,
        "height": height,
        "header": _STUDENTS_HEADER,
        "footer": f"FLDA lesson, {who.split(',')[0]}",
    }


def _header(pages, who, lecturer):
    """The title, the citation and (for the lecturer) the steps with their minutes; the
    students' first step follows the title on page 1."""
    title = (
        f"Feature-level domain adaptation: the lesson ({html.escape(who)})"
        if lecturer
        else "Feature-level domain adaptation: students' handout"
    )
    contents = " · ".join(html.escape(step_heading(i, s.title)) for i, (s, _, _) in enumerate(pages, 1))
    steps = (
        f"<p class='small'><strong>Steps:</strong> {contents}</p>" + _minutes_line([s for s, _, _ in pages])
        if lecturer
        else ""
    )
    return (
        f"<header><h1>{title}</h1>"
        "<p class='small'>Kouw, van der Maaten, Krijthe and Loog (2016), Feature-Level "
        "Domain Adaptation, JMLR 17(171). Numbers marked as the paper's are quoted from "
        "it; every other number was computed by the FLDA explorer with the settings "
        f"listed under each step.</p>{steps}</header>"
    )
