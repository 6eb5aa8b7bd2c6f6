// The students' page (/join, assets/join.html): join with the code, follow the class,
// vote with large buttons; /join?lecturer is the lecturer's door (start a class, list
// yours).  Every text from the server goes through textContent (never HTML).
import { call, drawRounds, el, follow } from "./class_client.js";

const base = document.querySelector('meta[name="flda-base"]').content;
const $ = (id) => document.getElementById(id);
const letter = (i) => String.fromCharCode(65 + i);
const STATUS = {
  reconnecting: "Reconnecting…",
  "not-joined": "You are not in this class (any more): join again.",
  ended: "The class has ended.",
};
const bars = el(document, "div", "bars");
$("choices").after(bars);
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
  const answer = await call(base, "join", { code: typed });
  if (answer.status === "ok") {
    code = answer.code;
    history.replaceState(null, "", `?code=${encodeURIComponent(code)}`);
    $("join-note").textContent = "";
    show("class");
    if (follower) follower.stop();
    follower = follow({ base, code, onAnswer: draw, onStatus });
    return;
  }
  $("code").value = String(typed).slice(0, 12);
  $("join-note").textContent = answer.message || "Could not join: try again.";
  show("join");
  if (["busy", "offline", "unavailable", "error"].includes(answer.status)) {
    setTimeout(() => enter(typed), 1000 * Math.min(10, answer.retry || 3));
  }
}

function roundText(s, mine) {
  const yours = mine === null || mine === undefined ? "" : ` Your vote: ${letter(mine)}.`;
  if (!s.live) return "The class has ended.";
  if (s.revealed) return `The answer is revealed.${yours}`;
  if (!s.n_choices) return "No vote on this step: listen to the lecturer.";
  if (!s.round) return "Wait for the lecturer to open the vote.";
  const which = s.round === 2 ? "Round 2 (after discussion)" : "Round 1";
  if (s.round_open) return yours ? `${which} is open.${yours} Tap another to change it.` : `${which} is open: tap your answer.`;
  return `${which} is closed.${yours}${s.round === 1 ? " Discuss with your neighbours." : ""}`;
}

function choiceButton(s, content, i) {
  const right = s.revealed && (content.correct || []).includes(i);
  const label = String(content.choices[i] ?? "");
  const button = el(document, "button", "choice", [
    el(document, "span", "letter", letter(i) + (right ? " ✓" : "")),
    el(document, "span", "label", label),
  ]);
  button.type = "button";
  button.disabled = !(s.round_open && s.live);
  button.classList.toggle("mine", i === last.mine);
  button.classList.toggle("correct", right);
  button.setAttribute("aria-pressed", String(i === last.mine));
  if (right) button.setAttribute("aria-label", `${letter(i)}: ${label} (correct)`);
  button.addEventListener("click", () => cast(i));
  return button;
}

function draw(body) {
  last = body;
  const s = body.state;
  const content = body.content || {};
  if (!s) return onStatus("ended");
  $("step").textContent = `Step ${s.step + 1} of ${s.n_steps}`;
  $("title").textContent = content.title ?? "";
  $("text").textContent = content.text ?? "";
  $("question").textContent = s.n_choices ? content.question ?? "" : "";
  $("round").textContent = roundText(s, body.mine);
  const choices = s.n_choices ? content.choices || [] : [];
  $("choices").replaceChildren(...choices.map((_, i) => choiceButton(s, content, i)));
  const letters = choices.map((_, i) => letter(i));
  drawRounds(bars, body.counts, { letters, correct: content.correct || [], marks: s.revealed });
  $("answer").hidden = !(s.revealed && content.answer);
  $("answer-text").textContent = content.answer ?? "";
  $("explore").href = content.explore ? `${base}/${content.explore}` : "#";
  $("explore").hidden = !content.explore;
}

async function cast(i) {
  $("vote-note").textContent = "";
  const answer = await call(base, "vote", { code, choice: i });
  if (answer.status === "counted" || answer.status === "changed") {
    draw({ ...last, mine: answer.mine });
  } else {
    $("vote-note").textContent = answer.message || "Not counted: try again.";
    if (follower) follower.poke();
  }
}

async function lecturer() {
  show("lecturer");
  $("start-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await call(base, "start", { token: $("token").value });
    if (answer.status === "ok") location.assign(answer.presenter);
    else $("start-note").textContent = answer.message || "Could not start a class: try again.";
  });
  const mine = await call(base, "mine");
  $("mine").replaceChildren(
    ...(mine.classes || []).map((c) => {
      const text = `${c.code}: step ${c.step + 1} of ${c.n_steps}${c.live ? "" : " (ended)"}`;
      const link = el(document, "a", "", text);
      link.href = c.presenter;
      return el(document, "li", "", [link]);
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
