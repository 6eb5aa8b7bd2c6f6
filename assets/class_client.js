// The class client: one ES module for the students' page (/join, join.js) and the
// lecturer's screens (the Lesson page's projector and presenter component, which loads
// it with `await import(base + "/_flda/class_client.js")`).  Server side:
// explorer/ui/class_routes.py.  Only fetch, no framework.
//
// API (base: the app's path prefix, "" at the root; code: the class's join code):
//   join(base, code)                  -> {status: "ok"|"unknown"|"ended"|"full"|"rate-limited"|..., code}
//   vote(base, code, choice)          -> {status: "counted"|"changed"|"closed"|..., mine}
//   steer(base, code, action, value)  -> {status, state}   (the lecturer's cookie; store actions)
//   start(base, token)                -> {status, code, presenter, projector, join, lecturer_link}
//   myClasses(base)                   -> {status, classes: [state + links]}
//   follow({base, code, screen, onAnswer, onStatus}) -> {stop(), poke()}
//     One long poll at a time (GET /_flda/class/state); onAnswer(body) on every new token,
//     body = {token, state, content, mine, counts}; onStatus(s) with s one of "live",
//     "reconnecting" (after a failure, or 3 s without the answer that was due at once),
//     "not-joined" (403: no seat; following stops), "ended" (the class is gone).
//     A watchdog aborts a poll after HOLD_S + 5 s; failures back off up to 2 s with jitter;
//     a page shown again (visibilitychange) or back online polls at once.
//   text(value): a value as plain text (use with textContent; never innerHTML).
export const HOLD_S = 20;

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export function text(value) {
  return value === null || value === undefined ? "" : String(value);
}

async function post(base, name, body) {
  try {
    const answer = await fetch(`${base}/_flda/class/${name}`, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await answer.json().catch(() => ({}));
    return { status: "error", retry: Number(answer.headers.get("Retry-After")) || 0, ...data };
  } catch (error) {
    return { status: "offline", message: "No connection to the class server: check your Wi-Fi. Trying again…" };
  }
}

export const join = (base, code) => post(base, "join", { code });
export const vote = (base, code, choice) => post(base, "vote", { code, choice });
export const steer = (base, code, action, value) => post(base, "steer", { code, action, value });
export const start = (base, token) => post(base, "start", { token });

export async function myClasses(base) {
  const answer = await fetch(`${base}/_flda/class/mine`, { credentials: "same-origin", cache: "no-store" });
  return answer.json();
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
        const query = `code=${encodeURIComponent(code)}&seen=${encodeURIComponent(token)}` +
          (screen ? `&screen=${encodeURIComponent(screen)}` : "");
        const answer = await fetch(`${base}/_flda/class/state?${query}`, {
          credentials: "same-origin",
          cache: "no-store",
          signal: controller.signal,
        });
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
