// A student's device follows the class (issue 35) without rerunning its page: one
// long-polling request at a time to the server's /_flda/class-wait route, which answers
// when the class's step, round or reveal differs from the token this page was drawn
// with (or after 25 s, then it asks again).  A new token reruns the page once
// (setTriggerValue).  Errors back off up to 10 s; unmounting stops the loop.
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const win = parentElement.ownerDocument.defaultView;
  const generation = (win.__fldaClassFollow || 0) + 1;
  win.__fldaClassFollow = generation;
  const controller = new AbortController();
  const live = () => win.__fldaClassFollow === generation && !controller.signal.aborted;
  const url = `${data.url}?code=${encodeURIComponent(data.code)}&seen=${encodeURIComponent(data.token)}`;
  (async () => {
    let failures = 0;
    while (live()) {
      try {
        const answer = await fetch(url, { cache: "no-store", credentials: "same-origin", signal: controller.signal });
        if (!answer.ok) throw new Error(String(answer.status));
        const body = await answer.json();
        failures = 0;
        if (body.token && body.token !== data.token && live()) {
          setTriggerValue("changed", body.token);
          return;
        }
      } catch (error) {
        if (!live()) return;
        failures += 1;
        await sleep(Math.min(10000, 500 * 2 ** failures));
      }
    }
  })();
  return () => controller.abort();
}
