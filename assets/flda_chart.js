// The FLDA explorer's chart element (explorer/ui/chart.py): one Plotly chart per key,
// updated in place with Plotly.react when its figure changes.
//
// Streamlit's own st.plotly_chart mounts a new chart whenever the figure changes
// and Plotly then draws it twice; this element keeps the chart and redraws it
// once.  It loads the plotly.js bundle of the three trace types the figures use
// (scatter, bar, heatmap) that the server ships (assets/), once per browser tab, and gives
// every figure the look of Streamlit's chart theme (light and dark), read from the
// theme variables Streamlit sets on the element.
//
// Streamlit calls the default export on every change of the payload or the theme,
// always with the same parentElement; it calls the returned function when the
// element goes away (also, late, for a call whose payload was already replaced:
// the generation check below keeps that from removing the newer chart).
//
// A payload with "report": true asks the element to tell the server (the trigger
// "drawn") once it has drawn that figure, could not draw it, or has waited
// REPORT_AFTER_MS for plotly.js: a page's first run stops after its first chart and
// sends the rest of the page only then (explorer.ui.charts.show_chart).

const CHART_TESTID = "fldaChart";
const MODEBAR_REMOVE = ["lasso2d", "select2d", "sendChartToCloud"];
// Longest wait for plotly.js before the rest of the page is asked for anyway (a slow
// network): the chart then draws while the rest of the page arrives.
const REPORT_AFTER_MS = 2000;
const EXPAND_ICON = {
  width: 24, height: 24,
  path: "M3 3h7v2H5v5H3V3zm11 0h7v7h-2V5h-5V3zM3 14h2v5h5v2H3v-7zm16 5v-5h2v7h-7v-2h5z",
};

// ------------------------------------------------------------------ plotly.js

function loadPlotly(url) {
  if (window.Plotly && typeof window.Plotly.react === "function") {
    return Promise.resolve(window.Plotly);
  }
  if (!window.__fldaPlotly) {
    window.__fldaPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        window.__fldaPlotly = null;  // a later chart may try again
        reject(new Error(`could not load the chart library from ${url}`));
      };
      document.head.appendChild(script);
    });
  }
  return window.__fldaPlotly;
}

// ------------------------------------------------------------------ theme

function rgbOf(color) {
  const text = String(color).trim();
  let m = /^#([0-9a-f]{3})$/i.exec(text);
  if (m) return [...m[1]].map((c) => parseInt(c + c, 16));
  m = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(text);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = /^rgba?\(([^)]*)\)$/i.exec(text);
  if (m) return m[1].split(/[ ,/]+/).slice(0, 3).map(Number);
  return null;
}

function isLight(color) {
  const rgb = rgbOf(color);
  if (!rgb) return true;
  const [r, g, b] = rgb.map((c) => c / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5;
}

// Streamlit's chart theme (frontend PlotlyChart CustomTheme), from the theme
// variables of the element: the same colours, fonts and sizes as st.plotly_chart.
function themeOf(element) {
  const css = getComputedStyle(element);
  const get = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  const list = (name) => get(name, "").split(",").map((s) => s.trim()).filter(Boolean);
  const background = get("--st-background-color", "#ffffff");
  const light = isLight(background);
  const text = get("--st-text-color", light ? "#31333F" : "#FAFAFA");
  const base = parseFloat(get("--st-base-font-size", "16px")) || 16;
  // Computed styles drop the space after commas; Streamlit's theme writes it.
  const family = (name, fallback) => get(name, fallback).replace(/\s*,\s*/g, ", ");
  const font = family("--st-font", "\"Source Sans\", sans-serif");
  return {
    light, background, text,
    heading: get("--st-heading-color", text),
    headingFont: family("--st-heading-font", font),
    border: get("--st-border-color", light ? "#D6D6D9" : "#3D3F4A"),
    secondaryBackground: get("--st-secondary-background-color", background),
    font,
    categorical: list("--st-chart-categorical-colors"),
    sequential: list("--st-chart-sequential-colors"),
    diverging: list("--st-chart-diverging-colors"),
    // Streamlit's greys: gray70 / gray30 (axis text), gray90 / gray10 (legend),
    // gray30 / gray85 (grid and zero lines).
    muted: light ? "#808495" : "#e6eaf1",
    strong: light ? "#262730" : "#fafafa",
    grid: light ? "#e6eaf1" : "#31333F",
    px: (rem) => Math.round(rem * base),
  };
}

// The colour placeholders of plotly's "streamlit" template (#000001-#000040,
// streamlit/elements/lib/streamlit_plotly_theme.py) replaced by the theme's colours.
function placeholderColors(theme) {
  const colors = {};
  const fill = (first, palette) => palette.forEach((c, i) => {
    if (i < 10) colors[first + i] = c;
  });
  fill(1, theme.categorical);
  fill(11, theme.sequential);
  fill(21, theme.diverging);
  Object.assign(colors, {
    32: "#3D9970", 33: "#FF4136", 34: "#4499FF",  // candlestick/waterfall (not used here)
    35: theme.grid, 36: theme.muted, 37: theme.strong, 38: theme.background,
    39: theme.grid, 40: theme.secondaryBackground,
  });
  return colors;
}

// Only colour properties get the theme's colours: a key ending in "color", "colors",
// "colorway" or "colorscale" (and a colorscale's "sequential", "sequentialminus",
// "diverging"), down through its arrays.  Trace data, names and labels keep their
// text, so a feature or class named "#000001" is shown as typed (issue 36; the
// substitution used to run over the whole JSON text).
const COLOR_KEY = /(color|colors|colorway|colorscale)$/i;
const SCALE_KEYS = new Set(["sequential", "sequentialminus", "diverging"]);
const PLACEHOLDER = /^#0000([0-4][0-9])$/;

function withThemeColors(node, colors, isColor = false) {
  if (typeof node === "string") {
    const match = isColor ? PLACEHOLDER.exec(node) : null;
    return match && colors[Number(match[1])] ? colors[Number(match[1])] : node;
  }
  if (Array.isArray(node)) {
    if (!isColor && !node.some((v) => v !== null && typeof v === "object")) return node;
    for (let i = 0; i < node.length; i += 1) node[i] = withThemeColors(node[i], colors, isColor);
    return node;
  }
  if (node !== null && typeof node === "object") {
    for (const key of Object.keys(node)) {
      node[key] = withThemeColors(node[key], colors, COLOR_KEY.test(key) || SCALE_KEYS.has(key));
    }
  }
  return node;
}

function themeLayout(t) {
  const tickFont = { color: t.muted, size: t.px(0.75) };
  const axisTitle = { font: { color: t.muted, size: t.px(0.875) } };
  return {
    font: { color: t.muted, family: t.font, size: t.px(0.75), weight: 400 },
    title: {
      color: t.heading, subtitleColor: t.text, xanchor: "left", x: 0, pad: { l: t.px(0.25) },
      font: { family: t.headingFont, size: t.px(1), color: t.heading },
    },
    legend: {
      title: { font: { size: t.px(0.75), color: t.muted }, side: "top" },
      valign: "top", bordercolor: "transparent", borderwidth: 0,
      font: { size: t.px(0.75), color: t.strong },
    },
    paper_bgcolor: t.background,
    plot_bgcolor: t.background,
    yaxis: {
      ticklabelposition: "outside", zerolinecolor: t.grid, tickcolor: t.grid, gridcolor: t.grid,
      title: { ...axisTitle, standoff: t.px(1.5) }, tickfont: tickFont,
      minor: { gridcolor: t.grid }, automargin: true,
    },
    xaxis: {
      zerolinecolor: t.grid, gridcolor: t.grid, showgrid: false, tickcolor: t.grid,
      tickfont: tickFont, title: { ...axisTitle, standoff: t.px(1.25) },
      minor: { gridcolor: t.grid }, zeroline: false, automargin: true,
    },
    margin: { pad: t.px(0.5), r: 0, l: 0 },
    hoverlabel: {
      bgcolor: t.background, bordercolor: t.border,
      font: { color: t.muted, family: t.font, size: t.px(0.75) },
    },
    coloraxis: {
      colorbar: {
        thickness: 16, xpad: t.px(1.5), ticklabelposition: "outside",
        outlinecolor: "transparent", outlinewidth: 8, len: 0.75, y: 0.5745,
        title: axisTitle, tickfont: tickFont,
      },
    },
  };
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// Deep merge of plain objects: values of `extra` win.
function merged(base, extra) {
  const out = isObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(extra)) {
    out[key] = isObject(value) && isObject(out[key]) ? merged(out[key], value) : value;
  }
  return out;
}

function themedFigure(figureText, theme) {
  const figure = withThemeColors(JSON.parse(figureText), placeholderColors(theme));
  const layout = isObject(figure.layout) ? figure.layout : {};
  const template = isObject(layout.template) ? layout.template : {};
  layout.template = { ...template, layout: merged(template.layout, themeLayout(theme)) };
  const title = layout.title;
  const titleText = typeof title === "string" ? title : isObject(title) ? title.text : null;
  if (titleText) layout.title = { ...(isObject(title) ? title : {}), text: `<b>${titleText}</b>` };
  layout.autosize = true;
  delete layout.width;  // the element's width: the chart stretches like st.plotly_chart
  figure.layout = layout;
  figure.data = Array.isArray(figure.data) ? figure.data : [];
  return figure;
}

// ------------------------------------------------------------------ settings line

// Every figure's settings line (explorer.figures.export.with_settings: the θ, seed, n,
// ℓ2 and transfer model it was computed with) is one line of its title, and its text
// and font size are in layout.meta.settings.  A chart in half a page's width is narrower
// than a line of about 100 characters, which plotly then cuts at the chart's left edge:
// the line is broken at its " · " (within a part, at its spaces) into lines that fit
// the drawn width, and the top margin grows by a line's height for each break.
const SETTINGS_SEPARATOR = " · ";
// px left free beside the line: the title's pad and a little air on either side.
const SETTINGS_SIDE_ROOM = 24;
// plotly.js's line spacing, in em of the title's font (svg_text_utils LINE_SPACING).
const LINE_SPACING = 1.3;
let measureContext = null;

function shownText(html) {
  return html.replace(/<[^>]*>/g, "").replace(/&#(\d+);/g, (m, n) => String.fromCharCode(n))
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function textWidth(html, font) {
  measureContext ||= document.createElement("canvas").getContext("2d");
  measureContext.font = font;
  return measureContext.measureText(shownText(html)).width;
}

// `tokens` joined by `separator` into as few lines as `fits` allows, each line but the
// last ending in `tail` (a token that does not fit alone gets a line of its own).
function joinedLines(tokens, separator, tail, fits) {
  const lines = [];
  let line = null;
  tokens.forEach((token, i) => {
    const end = i < tokens.length - 1 ? tail : "";
    if (line !== null && fits(line + separator + token + end)) {
      line += separator + token;
    } else {
      if (line !== null) lines.push(line + tail);
      line = token;
    }
  });
  if (line !== null) lines.push(line);
  return lines;
}

function brokenSettings(text, fits) {
  return joinedLines(text.split(SETTINGS_SEPARATOR), SETTINGS_SEPARATOR, " ·", fits)
    .flatMap((line) => (fits(line) ? [line] : joinedLines(line.split(" "), " ", "", fits)));
}

// What the settings line of a themed layout needs to be broken again at another width:
// null for a figure without one.
function settingsOf(layout, theme) {
  const settings = isObject(layout.meta) ? layout.meta.settings : null;
  const title = layout.title;
  if (!isObject(settings) || !isObject(title) || typeof title.text !== "string") return null;
  const span = (text) => `<span style='font-size:${settings.size}px'>${text}</span>`;
  if (!title.text.includes(span(settings.text))) return null;
  const titleSize = (isObject(title.font) && title.font.size) || theme.px(1);
  const pad = isObject(title.pad) ? title.pad : {};
  return {
    settings, span, title: title.text,
    top: isObject(layout.margin) && layout.margin.t ? layout.margin.t : 0,
    // plotly.js centres a title of several lines on its anchor: one anchored at its top
    // (no title above the settings) is moved down by half of what the breaks add.
    padTop: pad.t || 0, anchoredAtTop: title.yanchor === "top",
    font: `bold ${settings.size}px ${theme.headingFont}`,
    // plotly.js steps a title's lines by LINE_SPACING em of the title's own font.
    lineHeight: LINE_SPACING * titleSize,
  };
}

// The title text, top margin and title's top pad that show the whole settings line at
// `width` px.
function settingsShown(source, width) {
  const room = width - SETTINGS_SIDE_ROOM;
  const lines = width > 0  // 0: not laid out yet
    ? brokenSettings(source.settings.text, (line) => textWidth(line, source.font) <= room)
    : [source.settings.text];
  const added = (lines.length - 1) * source.lineHeight;
  return {
    text: lines.length < 2 ? source.title
      : source.title.replace(source.span(source.settings.text), lines.map(source.span).join("<br>")),
    top: source.top + Math.ceil(added),
    padTop: source.padTop + (source.anchoredAtTop ? Math.round(added / 2) : 0),
  };
}

// ------------------------------------------------------------------ the element

function isFullscreen(state) {
  return document.fullscreenElement === state.chart;
}

// The figure's own height, or the whole screen while the chart is shown full screen.
// With a ``fit_margin`` (a slide: the Lesson in presentation mode) the chart takes the
// height that is left in the window below its top, less that margin, so the slide fills
// the screen without scrolling.
const MIN_FIT_HEIGHT = 160;
function plotHeight(state) {
  if (isFullscreen(state)) return window.innerHeight;
  if (state.fitMargin) {
    const top = state.chart.getBoundingClientRect().top;
    return Math.max(MIN_FIT_HEIGHT, Math.floor(window.innerHeight - top - state.fitMargin));
  }
  return state.height;
}

function toggleFullscreen(chart) {
  if (document.fullscreenElement === chart) {
    document.exitFullscreen();
  } else if (chart.requestFullscreen) {
    chart.requestFullscreen();
  }
}

function createChart(parentElement) {
  const chart = document.createElement("div");
  chart.dataset.testid = CHART_TESTID;
  chart.className = "flda-chart";
  chart.setAttribute("role", "figure");
  const plot = document.createElement("div");
  plot.className = "flda-chart-plot";
  chart.appendChild(plot);
  parentElement.appendChild(chart);
  // next: the payload still to draw; draws: how many times Plotly drew this chart;
  // settings: its settings line (settingsOf); settingsText: the title text drawn with it.
  const state = { chart, plot, next: null, busy: false, generation: 0, height: 0,
                  observer: null, frame: 0, draws: 0, settings: null,
                  settingsText: null };
  chart.__flda = state;
  // One button object per chart: Plotly.react compares the config by identity, and a new
  // click function on every draw made it re-plot the whole chart (about twice the time).
  state.fullscreenButton = {
    name: "fullscreen", title: "Full screen (Esc to leave)", icon: EXPAND_ICON,
    click: () => toggleFullscreen(state.chart),
  };
  // The element follows its column's width (sidebar opened or closed, window resized).
  state.observer = new ResizeObserver(() => {
    if (!state.draws || state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      if (!window.Plotly || !state.plot.isConnected) return;
      const shown = state.settings && settingsShown(state.settings, state.plot.clientWidth);
      if (shown && shown.text !== state.settingsText) {  // the line breaks elsewhere now
        state.settingsText = shown.text;
        window.Plotly.relayout(state.plot, { "title.text": shown.text, "margin.t": shown.top,
                                             "title.pad.t": shown.padTop })
          .then(() => window.Plotly.Plots.resize(state.plot));
      } else {
        window.Plotly.Plots.resize(state.plot);
      }
    });
  });
  state.observer.observe(chart);
  // A slide's chart follows the window's height (fit_margin): the projector's resolution.
  window.addEventListener("resize", () => {
    if (!state.fitMargin || !state.draws || !state.plot.isConnected) return;
    const height = plotHeight(state);
    if (state.plot.style.height === `${height}px`) return;
    state.plot.style.height = `${height}px`;
    window.Plotly.relayout(state.plot, { height });
  });
  chart.addEventListener("fullscreenchange", () => {
    chart.style.background = isFullscreen(state) ? themeOf(chart).background : "";
    const height = plotHeight(state);
    state.plot.style.height = `${height}px`;
    if (state.draws) window.Plotly.relayout(state.plot, { height });
  });
  return state;
}

// Tell the server, once, that the chart it asked about is settled (drawn, failed or
// waited for long enough).  Sent in the same task that marks the chart drawn
// (data-draws), so whoever sees it drawn also sees the run it asked for.
function reportDrawn(state) {
  const report = state.report;
  if (!report) return;
  state.report = null;
  clearTimeout(state.reportTimer);
  state.chart.dataset.report = "sent";
  report();
}

function showProblem(state, message) {
  let note = state.chart.querySelector(".flda-chart-problem");
  if (!note) {
    note = document.createElement("p");
    note.className = "flda-chart-problem";
    note.setAttribute("role", "alert");
    state.chart.prepend(note);
  }
  note.textContent = `This chart could not be drawn: ${message}. Reload the page to try again.`;
}

function themeKey(theme) {
  return [theme.background, theme.text, theme.heading, theme.font, theme.categorical,
          theme.sequential, theme.diverging].join("|");
}

async function drain(state) {
  state.busy = true;
  try {
    while (state.next) {
      const Plotly = await loadPlotly(state.next.plotly);
      const payload = state.next;  // the newest one, if another arrived meanwhile
      state.next = null;
      const theme = themeOf(state.chart);
      const look = themeKey(theme);
      if (payload.revision === state.chart.dataset.revision && look === state.look) continue;
      const figure = themedFigure(payload.figure, theme);
      figure.layout.height = plotHeight(state);
      state.settings = settingsOf(figure.layout, theme);
      if (state.settings) {
        const shown = settingsShown(state.settings, state.plot.clientWidth);
        const title = figure.layout.title;
        title.text = state.settingsText = shown.text;
        title.pad = { ...(isObject(title.pad) ? title.pad : {}), t: shown.padTop };
        if (figure.layout.margin) figure.layout.margin.t = shown.top;
      }
      const config = {
        responsive: true,
        modeBarButtonsToRemove: MODEBAR_REMOVE,
        modeBarButtonsToAdd: [state.fullscreenButton],
        ...payload.config,
      };
      await Plotly.react(state.plot, figure.data, figure.layout, config);
      state.look = look;
      state.chart.querySelector(".flda-chart-problem")?.remove();
      // Read by the browser tests: which payload is on screen, and how often it was drawn.
      state.chart.dataset.revision = payload.revision;
      state.chart.dataset.draws = String(++state.draws);
    }
  } catch (error) {
    state.next = null;
    showProblem(state, error && error.message ? error.message : String(error));
  } finally {
    state.busy = false;
    reportDrawn(state);  // also when the figure on screen was already this one, or failed
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const payload = JSON.parse(new TextDecoder().decode(data));
  const state = parentElement.querySelector(`[data-testid="${CHART_TESTID}"]`)?.__flda
    || createChart(parentElement);
  const generation = ++state.generation;
  state.chart.dataset.key = payload.key;
  state.height = payload.height;
  state.fitMargin = payload.fit_margin || 0;
  state.plot.style.height = `${plotHeight(state)}px`;
  if (payload.description) state.chart.setAttribute("aria-label", payload.description);
  if (payload.report && !state.report) {
    state.report = () => setTriggerValue("drawn", true);
    state.chart.dataset.report = "pending";
    state.reportTimer = setTimeout(() => reportDrawn(state), REPORT_AFTER_MS);
  }
  state.next = payload;
  if (!state.busy) drain(state);
  return () => {
    if (state.generation !== generation) return;  // a newer payload owns the chart
    clearTimeout(state.reportTimer);
    state.observer.disconnect();
    if (state.frame) cancelAnimationFrame(state.frame);
    if (window.Plotly) window.Plotly.purge(state.plot);
    state.chart.remove();
  };
}
