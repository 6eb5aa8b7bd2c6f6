// "Start a class" on the Lesson page (issues 40 and 42): a lecturer's act.  The server
// decides who may (FLDA_LECTURER_TOKEN, else only its own machine); a started class's
// lecturer key comes back as a cookie of this browser (never shown in a link), so the
// presenter and projector views opened here may steer it.  Lists the classes this
// browser started, with their links and End (asked twice).  Uses the shared client
// (assets/class_client.js); every text is set with textContent.
//
// data: {base, tokenNeeded}

function el(doc, tag, props = {}, children = []) {
  const node = Object.assign(doc.createElement(tag), props);
  node.append(...children);
  return node;
}

export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument;
  let stopped = false;
  const root = el(doc, "div", { className: "flda-class-start" });
  const token = el(doc, "input", { type: "password", placeholder: "lecturer passphrase", autocomplete: "off" });
  token.setAttribute("aria-label", "Lecturer passphrase");
  const button = el(doc, "button", { type: "button", textContent: "Start a class" });
  const message = el(doc, "p", { className: "flda-class-message" });
  message.setAttribute("role", "status");
  const list = el(doc, "div", { className: "flda-class-mine" });
  root.append(...(data.tokenNeeded ? [token] : []), button, message, list);
  parentElement.replaceChildren(root);

  const link = (text, href) => el(doc, "a", { textContent: text, href, target: "_blank", rel: "noopener" });
  (async () => {
    const client = await import(new URL(`${data.base}/_flda/class_client.js`, doc.defaultView.location.href).href);
    const refresh = async () => {
      const mine = await client.myClasses(data.base).catch(() => ({ classes: [] }));
      if (stopped) return;
      const rows = (mine.classes || []).map((c) => {
        const state = c.live ? `step ${c.step + 1} of ${c.n_steps}` : "ended (results kept 24 h)";
        const row = el(doc, "li", {}, [`${c.code}: ${state} · `, link("presenter", c.presenter), " · ",
          link("projector", c.projector), " · ", link("join link", c.join)]);
        if (c.live) {
          const end = el(doc, "button", { type: "button", textContent: "End" });
          end.addEventListener("click", async () => {
            if (end.dataset.sure !== "1") {
              end.dataset.sure = "1";
              end.textContent = "End it? Click again";
              return;
            }
            const answer = await client.steer(data.base, c.code, "end");
            message.textContent = answer.status === "ok" ? `Class ${c.code} ended.` : client.text(answer.message);
            refresh();
          });
          row.append(" ", end);
        }
        return row;
      });
      list.replaceChildren(...(rows.length ? [el(doc, "p", { textContent: "Classes this browser started:" }),
        el(doc, "ul", {}, rows)] : []));
    };
    button.addEventListener("click", async () => {
      button.disabled = true;
      const answer = await client.start(data.base, token.value);
      button.disabled = false;
      if (answer.status !== "ok") {
        message.textContent = client.text(answer.message || "Could not start a class.");
        return;
      }
      message.replaceChildren(`Class ${answer.code} started: `, link("open your presenter view", answer.presenter),
        " (here), then ", link("the projector view", answer.projector), " on the room's screen.");
      refresh();
    });
    refresh();
  })();
  return () => { stopped = true; };
}
