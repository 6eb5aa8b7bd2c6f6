// The students' page (/join, assets/join.html): join with the code, follow the class,
// vote with large buttons; /join?lecturer is the lecturer's door (start a class, list
// yours).  Every text from the server goes through textContent (never HTML).
import { follow, join, myClasses, start, text, vote } from "./class_client.js";

const base = document.querySelector('meta[name="flda-base"]').content;
const $ = (id) => document.getElementById(id);
const LETTERS = "ABCDEFGHJKLM";
const STATUS = {
  reconnecting: "Reconnecting…",
  "not-joined": "You are not in this class (any more): join again.",
  ended: "The class has ended.",
};
let code = "";
let last = null;
let follower = null;

function show(view) {
  for (const name of ["join", "class", "lecturer"]) $(`${name}-view`).hidden = name !== view;
}

function onStatus(status) {
  $("status").hidden = !STATUS[status];
  $("status").textContent = STATUS[status] || "";
  if (status === "not-joined") show("join");
}

async function enter(typed) {
  const answer = await join(base, typed);
  if (answer.status === "ok") {
    code = answer.code;
    history.replaceState(null, "", `?code=${encodeURIComponent(code)}`);
    $("join-note").textContent = "";
    show("class");
    if (follower) follower.stop();
    follower = follow({ base, code, onAnswer: draw, onStatus });
    return;
  }
  $("code").value = text(typed).slice(0, 12);
  $("join-note").textContent = text(answer.message) || "Could not join: try again.";
  show("join");
  if (["busy", "offline", "unavailable", "error"].includes(answer.status)) {
    setTimeout(() => enter(typed), 1000 * Math.min(10, answer.retry || 3));
  }
}

function roundText(s, mine) {
  const yours = mine === null || mine === undefined ? "" : ` Your vote: ${LETTERS[mine]}.`;
  if (!s.live) return "The class has ended.";
  if (s.revealed) return `The answer is revealed.${yours}`;
  if (!s.n_choices) return "No vote on this step: listen to the lecturer.";
  if (!s.round) return "Wait for the lecturer to open the vote.";
  const which = s.round === 2 ? "Round 2 (after discussion)" : "Round 1";
  if (s.round_open) return yours ? `${which} is open.${yours} Tap another to change it.` : `${which} is open: tap your answer.`;
  return `${which} is closed.${yours}${s.round === 1 ? " Discuss with your neighbours." : ""}`;
}

function choiceButton(s, content, counts, i) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "choice";
  const right = s.revealed && (content.correct || []).includes(i);
  button.disabled = !(s.round_open && s.live);
  button.classList.toggle("mine", i === last.mine);
  button.classList.toggle("correct", right);
  button.setAttribute("aria-pressed", String(i === last.mine));
  const parts = [LETTERS[i] + (right ? " ✓" : ""), text(content.choices[i]), ""];
  if (counts) {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    parts[2] = String(counts[i] || 0);
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = `${total ? (100 * (counts[i] || 0)) / total : 0}%`;
    button.append(bar);
  }
  for (const [k, part] of parts.entries()) {
    const span = document.createElement("span");
    span.className = ["letter", "label", "count"][k];
    span.textContent = part;
    button.append(span);
  }
  if (right) button.setAttribute("aria-label", `${LETTERS[i]}: ${parts[1]} (correct)`);
  button.addEventListener("click", () => cast(i));
  return button;
}

function draw(body) {
  last = body;
  const s = body.state;
  const content = body.content || {};
  if (!s) return onStatus("ended");
  $("step").textContent = `Step ${s.step + 1} of ${s.n_steps}`;
  $("title").textContent = text(content.title);
  $("text").textContent = text(content.text);
  $("question").textContent = s.n_choices ? text(content.question) : "";
  $("round").textContent = roundText(s, body.mine);
  const rounds = body.counts ? Object.keys(body.counts).sort() : [];
  const counts = rounds.length ? body.counts[rounds[rounds.length - 1]] : null;
  const choices = s.n_choices ? content.choices || [] : [];
  $("choices").replaceChildren(...choices.map((_, i) => choiceButton(s, content, counts, i)));
  $("answer").hidden = !(s.revealed && content.answer);
  $("answer-text").textContent = text(content.answer);
  $("explore").href = content.explore ? `${base}/${content.explore}` : "#";
  $("explore").hidden = !content.explore;
}

async function cast(i) {
  $("vote-note").textContent = "";
  const answer = await vote(base, code, i);
  if (answer.status === "counted" || answer.status === "changed") {
    draw({ ...last, mine: answer.mine });
  } else {
    $("vote-note").textContent = text(answer.message) || "Not counted: try again.";
    if (follower) follower.poke();
  }
}

async function lecturer() {
  show("lecturer");
  $("start-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await start(base, $("token").value);
    if (answer.status === "ok") location.assign(answer.presenter);
    else $("start-note").textContent = text(answer.message) || "Could not start a class: try again.";
  });
  const mine = await myClasses(base).catch(() => ({ classes: [] }));
  $("mine").replaceChildren(
    ...(mine.classes || []).map((c) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = c.presenter;
      link.textContent = `${text(c.code)}: step ${c.step + 1} of ${c.n_steps}${c.live ? "" : " (ended)"}`;
      item.append(link);
      return item;
    }),
  );
}

const params = new URLSearchParams(location.search);
$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  enter($("code").value);
});
if (params.has("lecturer")) lecturer();
else if (params.get("code")) enter(params.get("code"));
else show("join");
