// The class's live layer on the Lesson's projector and presenter (issues 40 and 41): it
// follows the class with the shared client (assets/class_client.js: one long poll at a
// time, a watchdog, "reconnecting…") and draws what changes between the page's runs —
// the votes, who joined, the clocks — without rerunning the page.  When the lecturer
// changed the class (its version is newer than the one the page was drawn with), it
// reruns the page once (the trigger "changed").
//
// data: {base, code, screen, role: "projector" | "presenter", version, letters,
//        correct, join: {url, code}, clock: {now, stepStarted, started, stepPlan,
//        planStart}, hints: [[below, text], ...]}
// Everything shown is set with textContent (no markup from the server).

const ROUND_NAMES = { 1: "round 1", 2: "round 2" };

function el(doc, tag, className, text) {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function counted(counts, letters) {
  // {round: {choice: n}} with JSON's string keys -> [[round, [n per choice]], ...]
  return Object.keys(counts || {})
    .map(Number)
    .sort()
    .map((round) => [round, letters.map((_, i) => Number((counts[round] || {})[i] || 0))]);
}

function clockText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function hintFor(share, hints) {
  for (const [below, text] of hints) if (share < below) return text;
  return hints.length ? hints[hints.length - 1][1] : "";
}

function drawBars(doc, box, rounds, data, revealed) {
  box.replaceChildren();
  for (const [round, votes] of rounds) {
    const total = votes.reduce((a, b) => a + b, 0);
    const right = data.correct.reduce((a, c) => a + (votes[c] || 0), 0);
    const block = el(doc, "div", "flda-class-round");
    const head = `${ROUND_NAMES[round] || `round ${round}`}: ${total} vote${total === 1 ? "" : "s"}`;
    const share = total ? right / total : 0;
    block.append(el(doc, "div", "flda-class-round-head",
      (revealed || data.role === "presenter") && data.correct.length && total
        ? `${head} · ${Math.round(100 * share)} % correct` : head));
    votes.forEach((n, i) => {
      const row = el(doc, "div", "flda-class-bar");
      const mark = (revealed || data.role === "presenter") && data.correct.includes(i) ? " ✓" : "";
      row.append(el(doc, "span", "flda-class-letter", data.letters[i] + mark));
      const track = el(doc, "span", "flda-class-track");
      const fill = el(doc, "span", `flda-class-fill flda-class-r${round}`);
      fill.style.width = `${total ? (100 * n) / total : 0}%`;
      track.append(fill);
      row.append(track, el(doc, "span", "flda-class-count", n));
      block.append(row);
    });
    if (data.role === "presenter" && data.correct.length && total) {
      block.append(el(doc, "div", "flda-class-hint", hintFor(share, data.hints)));
    }
    box.append(block);
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const doc = parentElement.ownerDocument;
  const win = doc.defaultView;
  const root = el(doc, "div", `flda-class-layer flda-class-${data.role}`);
  const status = el(doc, "div", "flda-class-status");
  const bars = el(doc, "div", "flda-class-bars");
  const stats = el(doc, "div", "flda-class-stats");
  status.hidden = true;
  bars.hidden = true;
  root.append(status, stats, bars);
  if (data.role === "projector" && data.join) {
    root.append(el(doc, "div", "flda-class-corner", `Join: ${data.join.url} · code ${data.join.code}`));
  }
  parentElement.replaceChildren(root);
  const offset = (data.clock ? data.clock.now : 0) - Date.now() / 1000;
  let latest = null;
  const draw = () => {
    if (!latest) return;
    const state = latest.state || {};
    const rounds = counted(latest.counts, data.letters);
    const open = state.round_open ? rounds.filter(([r]) => r === state.round) : [];
    const hidden = data.role === "projector" && !state.bars;
    bars.hidden = hidden;
    if (data.role === "projector" && state.round_open && !state.live_counts) {
      const votes = open.length ? open[0][1].reduce((a, b) => a + b, 0) : 0;
      bars.hidden = false;
      bars.replaceChildren(el(doc, "div", "flda-class-round-head", `Round ${state.round}: ${votes} votes`));
    } else if (!hidden) {
      drawBars(doc, bars, rounds, data, Boolean(state.revealed));
    }
    if (data.role === "presenter") {
      const now = Date.now() / 1000 + offset;
      const c = data.clock;
      const parts = [`${latest.joined ?? state.joined ?? "–"} joined`];
      parts.push(`step ${clockText(now - c.stepStarted)} of ${clockText(c.stepPlan * 60)}`);
      const lecture = now - c.started;
      let line = `lecture ${clockText(lecture)}`;
      if (c.planStart !== null) {
        const ahead = c.planStart * 60 - lecture + Math.max(0, now - c.stepStarted);
        line += ahead >= 0 ? ` (plan: ${clockText(ahead)} ahead)` : ` (plan: ${clockText(-ahead)} behind)`;
      }
      parts.push(line);
      stats.textContent = parts.join(" · ");
    }
  };
  // One follower per page and role: a rerun calls this function again (the previous
  // follower stops here; the cleanup below is not called on every rerun).
  const registry = (win.__fldaClassLayer = win.__fldaClassLayer || {});
  const previous = registry[data.role];
  if (previous) previous.stop();
  let client = null;
  let stopped = false;
  let ticker = 0;
  (async () => {
    const module = await import(new URL(`${data.base}/_flda/class_client.js`, doc.defaultView.location.href).href);
    if (stopped) return;
    client = module.follow({
      base: data.base,
      code: data.code,
      screen: data.screen || "",
      onAnswer: (body) => {
        latest = body;
        if (body.state && body.state.version > data.version) setTriggerValue("changed", body.state.version);
        draw();
      },
      onStatus: (s) => {
        status.textContent = s === "reconnecting" ? "reconnecting…" : s === "ended" ? "class ended" : "";
        status.hidden = !status.textContent;
      },
    });
  })();
  if (data.role === "presenter") ticker = win.setInterval(draw, 1000);
  const mine = {
    stop() {
      stopped = true;
      win.clearInterval(ticker);
      if (client) client.stop();
    },
  };
  registry[data.role] = mine;
  return () => {
    mine.stop();
    if (registry[data.role] === mine) delete registry[data.role];
  };
}
