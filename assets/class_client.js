// The class client: one ES module for the students' page (join.js) and the lecturer's
// screens (class_layer.js, lesson_keys.js import it); server side:
// explorer/ui/class_routes.py.  Only fetch, no framework.
//
// API (base: the app's path prefix, "" at the root; code: the class's join code):
//   call(base, name, body) -> the JSON answer of POST /_flda/class/<name> (GET without
//     body), {status: "offline"} when there is no answer: join {code}, vote {code, choice},
//     steer {code, action, value}, start {token}, mine (GET).
//   follow({base, code, screen, onAnswer, onStatus}) -> {stop(), poke()}
//     One long poll at a time (GET /_flda/class/state); onAnswer(body) on every new token,
//     body = {token, state, content, mine, counts}; onStatus(s) with s one of "live",
//     "reconnecting" (after a failure, or 3 s without the answer that was due at once),
//     "not-joined" (403: no seat; following stops), "ended" (the class is gone).
//     A watchdog aborts a poll after HOLD_S + 5 s; failures back off up to 2 s with jitter;
//     a page shown again (visibilitychange) or back online polls at once.
//   el(doc, tag, className, content): an element; content is text (textContent, never
//     HTML) or a list of nodes.
//   drawRounds(box, counts, {letters, correct, marks, hints}): the vote bars of every round
//     of counts ({round: {choice: votes}}); with marks the share correct and ✓ on the
//     correct choices, with hints the peer-instruction hint ([[below, text], ...]).
export const HOLD_S = 20;

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const FETCH = { credentials: "same-origin", cache: "no-store" };

export async function call(base, name, body) {
  const json = { "Content-Type": "application/json" };
  const post = body === undefined ? {} : { method: "POST", headers: json, body: JSON.stringify(body) };
  try {
    const answer = await fetch(`${base}/_flda/class/${name}`, { ...FETCH, ...post });
    const data = await answer.json().catch(() => ({}));
    return { status: "error", retry: Number(answer.headers.get("Retry-After")) || 0, ...data };
  } catch (error) {
    return { status: "offline", message: "No connection to the class server: check your Wi-Fi. Trying again…" };
  }
}

export function el(doc, tag, className, content) {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (Array.isArray(content)) node.append(...content);
  else if (content !== undefined && content !== null) node.textContent = String(content);
  return node;
}

export function drawRounds(box, counts, { letters, correct = [], marks = false, hints = null }) {
  const doc = box.ownerDocument;
  const rounds = Object.keys(counts || {}).map(Number).sort();
  box.replaceChildren(...rounds.map((round) => {
    const votes = letters.map((_, i) => Number(counts[round][i] || 0));
    const total = votes.reduce((a, b) => a + b, 0);
    const share = total ? correct.reduce((a, c) => a + (votes[c] || 0), 0) / total : 0;
    const scored = marks && correct.length && total;
    const head = `round ${round}: ${total} vote${total === 1 ? "" : "s"}`;
    const text = scored ? `${head} · ${Math.round(100 * share)} % correct` : head;
    const block = el(doc, "div", "flda-class-round", [el(doc, "div", "flda-class-round-head", text)]);
    votes.forEach((n, i) => {
      const fill = el(doc, "span", `flda-class-fill flda-class-r${round}`);
      fill.style.width = `${total ? (100 * n) / total : 0}%`;
      block.append(el(doc, "div", "flda-class-bar", [
        el(doc, "span", "flda-class-letter", letters[i] + (marks && correct.includes(i) ? " ✓" : "")),
        el(doc, "span", "flda-class-track", [fill]),
        el(doc, "span", "flda-class-count", n),
      ]));
    });
    const hint = hints && scored && (hints.find(([below]) => share < below) || hints[hints.length - 1]);
    if (hint) block.append(el(doc, "div", "flda-class-hint", hint[1]));
    return block;
  }));
}

export function follow({ base = "", code, screen = "", onAnswer, onStatus = () => {} }) {
  let token = "";
  let stopped = false;
  let failures = 0;
  let poked = false;
  let controller = null;
  let status = "";
  const say = (next) => {
    if (next !== status) onStatus((status = next));
  };
  const poke = () => {
    poked = true;
    if (controller) controller.abort();
  };
  const onVisible = () => document.visibilityState === "visible" && poke();
  document.addEventListener("visibilitychange", onVisible);
  window.addEventListener("online", poke);
  (async () => {
    while (!stopped) {
      controller = new AbortController();
      const due = token === "" || failures > 0 || poked;
      poked = false;
      const watchdog = setTimeout(() => controller.abort(), (HOLD_S + 5) * 1000);
      const slow = due ? setTimeout(() => say("reconnecting"), 3000) : null;
      let wait = 0;
      try {
        const query = new URLSearchParams({ code, seen: token, ...(screen ? { screen } : {}) });
        const signal = controller.signal;
        const answer = await fetch(`${base}/_flda/class/state?${query}`, { ...FETCH, signal });
        if (answer.status === 403 || answer.status === 400) {
          say("not-joined");
          break;
        }
        if (!answer.ok) {
          wait = 1000 * (Number(answer.headers.get("Retry-After")) || 0);
          throw new Error(String(answer.status));
        }
        const body = await answer.json();
        failures = 0;
        say(body.state ? "live" : "ended");
        if (body.token !== token) {
          token = body.token;
          onAnswer(body);
        }
        if (!body.state) break;
      } catch (error) {
        if (stopped) break;
        if (!poked) {
          failures += 1;
          say("reconnecting");
          const backoff = Math.min(2000, 250 * 2 ** failures) * (0.5 + Math.random() / 2);
          await sleep(Math.max(wait, backoff));
        }
      } finally {
        clearTimeout(watchdog);
        clearTimeout(slow);
      }
    }
  })();
  return {
    poke,
    stop() {
      stopped = true;
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("online", poke);
      if (controller) controller.abort();
    },
  };
}
