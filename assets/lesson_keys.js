// A presenter's keys on the Lesson page (issues 25 and 34), as reveal.js users know them;
// the key map is explorer/ui/slides.py KEY_MAP.  Listened for on the document in the
// capture phase: in presentation mode they win over whatever has focus (but a text box);
// outside it only ← / → / Page Up / Page Down / Space move, and a focused control keeps them.
// Page actions go to the server as the trigger "nav"; the overview, black-out, "Why",
// "All numbers" and the key list are the browser's (<html data-flda-slide="...">), or in a
// class (data.serverLayers) the class's, and with data.steer the keys steer the class.
// The window's height is the state "viewport".
const PAGING = new Set(["PageDown", "PageUp"]);
const LAYERS = new Set(["overview", "black", "why", "numbers", "help", "join"]);

function ownsKeys(target) {
  if (!target || !target.closest) return false;
  if (target.isContentEditable || target.closest("textarea, select")) return true;
  const input = target.closest("input");
  return Boolean(input && !["radio", "checkbox", "button", "range"].includes(input.type));
}

function usesArrows(target) {
  return Boolean(target && target.closest &&
                 target.closest("input, button, [role='radio'], [role='button'], [role='slider'], summary, a"));
}

function currentStep(titles) {
  const counter = document.querySelector(".st-key-lesson_counter p");
  const match = counter && /^(\d+)\s*\//.exec(counter.textContent.trim());
  if (match) return Number(match[1]) - 1;
  return new URLSearchParams(window.location.search).get("step") === "end" ? titles.length : -1;
}

// an element with properties (attributes where it has no such property) and children
function element(doc, tag, props = {}, children = []) {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name in node) node[name] = value; else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

function buildLayers(doc, data, go) {
  const layer = (name, props, children) =>
    element(doc, "div", { className: `flda-slide-layer flda-slide-${name}`, ...props }, children);
  const grid = element(doc, "div", { className: "flda-slide-grid" }, data.titles.map((title, i) => {
    const numbered = title.startsWith(`${i + 1} `) ? title : `${i + 1} · ${title}`;
    const button = element(doc, "button", { type: "button", textContent: numbered, "data-step": i + 1 });
    button.addEventListener("click", () => go(`jump:${i + 1}`));
    return button;
  }));
  const rows = data.help.map(([keys, what]) => element(doc, "tr", {}, [
    element(doc, "td", { textContent: keys }), element(doc, "td", { textContent: what }),
  ]));
  const jump = element(doc, "div", { className: "flda-slide-jump", role: "status" });
  const root = element(doc, "div", { className: "flda-slide-layers" }, [
    layer("black", { "aria-label": "Black screen (B or . to return)" }),
    layer("overview", { role: "dialog", "aria-label": "Overview of the steps" }, [
      element(doc, "h2", { textContent: `Overview: ${data.titles.length} steps` }), grid,
    ]),
    layer("help", { role: "dialog", "aria-label": "The presenter's keys" }, [
      element(doc, "h2", { textContent: "Keys" }), element(doc, "table", {}, [element(doc, "tbody", {}, rows)]),
    ]),
    jump,
  ]);
  return { root, grid, jump };
}

export default function (component) {
  const { parentElement, setTriggerValue, setStateValue } = component;
  const data = component.data || { present: false, titles: [], keys: {}, help: [] };
  const serverLayers = new Set(data.serverLayers || []);
  const handled = new Set();
  const doc = parentElement.ownerDocument;
  const win = doc.defaultView;
  const html = doc.documentElement;
  let typed = "";
  const layer = () => html.dataset.fldaSlide || "";
  const show = (name) => {
    if (name) html.dataset.fldaSlide = name; else delete html.dataset.fldaSlide;
  };
  const setTyped = (text) => {
    typed = text;
    if (!typed) {
      delete html.dataset.fldaJump;
      return;
    }
    html.dataset.fldaJump = typed;
    const n = Number(typed);
    layers.jump.textContent = n >= 1 && n <= data.titles.length
      ? `Step ${typed}: Enter to go` : `No step ${typed} (1 to ${data.titles.length})`;
  };
  const go = (action) => {
    show("");
    setTyped("");
    if (data.steer && action !== "contrast") steer(action);
    else setTriggerValue("nav", action);
  };
  // In a class the keys steer it directly (POST /_flda/class/steer, the lecturer's cookie):
  // a key pressed during a rerun is never lost.
  const steer = async (action) => {
    const s = data.steer;
    const [name, number] = action.split(":");
    const wanted = {
      next: ["advance"], back: ["undo"], reset: ["values", {}], first: ["goto", 0],
      last: ["goto", s.steps - 1], jump: ["goto", Number(number) - 1], bars: ["bars", !s.bars],
    }[name] || (serverLayers.has(name) ? ["layer", s.layer === name ? "" : name] : null);
    if (!wanted) return;
    const client = await import(new URL(`${s.base}/_flda/class_client.js`, win.location.href).href);
    await client.call(s.base, "steer", { code: s.code, action: wanted[0], value: wanted[1] });
  };
  // the layers exist on slides only (their stylesheet comes with presentation mode)
  const layers = buildLayers(doc, data, go);
  parentElement.replaceChildren(...(data.present ? [layers.root] : []));
  const stop = (event) => {
    event.preventDefault();
    event.stopPropagation();
  };

  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const { key, target } = event;
    if (ownsKeys(target) || (!data.present && usesArrows(target) && !PAGING.has(key))) return;
    if (data.present && (/^[0-9]$/.test(key) || (typed && ["Enter", "Backspace"].includes(key)))) {
      stop(event);  // a number typed, then Enter jumps to that step
      const n = Number(typed);
      if (key === "Backspace") setTyped(typed.slice(0, -1));
      else if (key !== "Enter") setTyped((typed + key).slice(-3));
      else if (n >= 1 && n <= data.titles.length) go(`jump:${n}`);
      else setTyped("");
      return;
    }
    let action = data.keys[key];
    if (!action) return;
    stop(event);
    handled.add(key);
    if (typed) setTyped("");
    if (key === "Escape" && layer()) action = layer();  // Esc closes what is open
    if (serverLayers.has(action)) return go(action);
    if (LAYERS.has(action)) {
      const overlay = { why: ".st-key-lesson_why", numbers: ".st-key-lesson_numbers" }[action];
      if (overlay && !doc.querySelector(overlay)) return;  // shown once the answer is revealed
      show(layer() === action ? "" : action);
      if (layer() === "overview") {
        const current = currentStep(data.titles);
        layers.grid.querySelectorAll("button").forEach((button, i) => {
          if (i === current) button.setAttribute("aria-current", "step");
          else button.removeAttribute("aria-current");
        });
        (layers.grid.children[Math.max(current, 0)] || layers.grid.children[0])?.focus();
      }
      return;
    }
    if (layer() === "black" || layer() === "help") return show("");  // a key wakes the screen
    go(action);  // (from the overview too: go closes it)
  };
  // In the overview, arrows move between the titles and Enter/Space open one.
  const onOverviewKey = (event) => {
    if (layer() !== "overview") return;
    const buttons = [...layers.grid.children];
    const at = buttons.indexOf(doc.activeElement);
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 4, ArrowUp: -4 }[event.key];  // 4 columns
    if (step === undefined && !((event.key === "Enter" || event.key === " ") && at >= 0)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (step === undefined) go(`jump:${at + 1}`);
    else buttons[Math.min(buttons.length - 1, Math.max(0, at < 0 ? 0 : at + step))].focus();
  };
  // the key's keyup never activates a focused button (Space activates on keyup)
  const onKeyUp = (event) => {
    if (handled.delete(event.key)) stop(event);
  };
  // a mouse click leaves no focus behind (keyboard users keep theirs: detail is 0 then)
  const onClick = (event) => {
    const button = event.target.closest && event.target.closest("button");
    if (button && event.detail > 0 && data.present) win.setTimeout(() => button.blur(), 0);
  };
  const reportViewport = () => {
    if (data.present && setStateValue) setStateValue("viewport", win.innerHeight);
  };
  let resizeTimer = 0;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(reportViewport, 300);
  };
  const listen = (on, all) => {
    const verb = on ? "addEventListener" : "removeEventListener";
    const types = { onOverviewKey: "keydown", onKey: "keydown", onKeyUp: "keyup", onClick: "click" };
    for (const [name, type] of Object.entries(types)) doc[verb](type, all[name], true);
    win[verb]("resize", all.onResize);
  };
  if (win.__fldaLessonKeys) listen(false, win.__fldaLessonKeys);
  const handlers = { onKey, onOverviewKey, onKeyUp, onClick, onResize };
  win.__fldaLessonKeys = handlers;
  listen(true, handlers);
  if (data.present && win.__fldaViewport !== win.innerHeight) {
    win.__fldaViewport = win.innerHeight;
    reportViewport();
  }
  if (!data.present || serverLayers.size) show(data.present ? data.layer || "" : "");
  return () => {
    listen(false, handlers);
    clearTimeout(resizeTimer);
    if (win.__fldaLessonKeys === handlers) win.__fldaLessonKeys = null;
  };
}
