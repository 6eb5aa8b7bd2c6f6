// The class's live layer on the Lesson's projector and presenter (issues 40 and 41): it
// follows the class (class_client.js) and draws the votes, who joined and the clocks
// without rerunning the page; a newer class version reruns it once (trigger "changed").
// data: {base, code, screen, role: "projector" | "presenter", version, letters, correct,
//        join, clock: {now, stepStarted, started, stepPlan, planStart}, hints}
// Everything shown is set with textContent (no markup from the server).

function clockText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const doc = parentElement.ownerDocument;
  const win = doc.defaultView;
  const presenter = data.role === "presenter";
  // one follower per page and role: a rerun calls this again (the cleanup is not called)
  const registry = (win.__fldaClassLayer = win.__fldaClassLayer || {});
  if (registry[data.role]) registry[data.role].stop();
  let client = null;
  let stopped = false;
  let ticker = 0;
  (async () => {
    const module = await import(new URL(`${data.base}/_flda/class_client.js`, win.location.href).href);
    if (stopped) return;
    const { el, drawRounds } = module;
    const status = el(doc, "div", "flda-class-status");
    const bars = el(doc, "div", "flda-class-bars");
    const stats = el(doc, "div", "flda-class-stats");
    status.hidden = bars.hidden = true;
    const parts = [status, stats, bars];
    if (!presenter) parts.push(el(doc, "div", "flda-class-corner", `Join: ${data.join} · code ${data.code}`));
    parentElement.replaceChildren(el(doc, "div", `flda-class-layer flda-class-${data.role}`, parts));
    const offset = (data.clock ? data.clock.now : 0) - Date.now() / 1000;
    let latest = null;
    const draw = () => {
      if (!latest) return;
      const state = latest.state || {};
      bars.hidden = !presenter && !state.bars;
      if (!presenter && state.round_open && !state.live_counts) {
        const votes = Object.values((latest.counts || {})[state.round] || {}).reduce((a, b) => a + b, 0);
        bars.hidden = false;
        bars.replaceChildren(el(doc, "div", "flda-class-round-head", `Round ${state.round}: ${votes} votes`));
      } else if (!bars.hidden) {
        const marks = presenter || Boolean(state.revealed);
        drawRounds(bars, latest.counts, { ...data, marks, hints: presenter ? data.hints : null });
      }
      if (presenter) {
        const now = Date.now() / 1000 + offset;
        const c = data.clock;
        const lecture = now - c.started;
        let line = `lecture ${clockText(lecture)}`;
        if (c.planStart !== null) {
          const ahead = c.planStart * 60 - lecture + Math.max(0, now - c.stepStarted);
          line += ahead >= 0 ? ` (plan: ${clockText(ahead)} ahead)` : ` (plan: ${clockText(-ahead)} behind)`;
        }
        const step = `step ${clockText(now - c.stepStarted)} of ${clockText(c.stepPlan * 60)}`;
        stats.textContent = [`${latest.joined ?? "–"} joined`, step, line].join(" · ");
      }
    };
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
    if (presenter) ticker = win.setInterval(draw, 1000);
  })();
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
