// Keyboard navigation of the Lesson page (issue 25): a presenter's clicker sends
// ArrowRight / PageDown / Space (next) and ArrowLeft / PageUp (back).  The keys are
// listened for on the page's document; a key pressed in a text or number box, a select
// box or an editable element is that element's.  On a radio or a button the arrows and
// Space keep their own meaning and only PageDown / PageUp navigate.
const NEXT = new Set(["ArrowRight", "PageDown", " ", "Spacebar"]);
const BACK = new Set(["ArrowLeft", "PageUp"]);
const PAGING = new Set(["PageDown", "PageUp"]);

function ownsKeys(target) {
  if (!target || !target.closest) return false;
  if (target.isContentEditable || target.closest("textarea, select")) return true;
  const input = target.closest("input");
  return Boolean(input && !["radio", "checkbox", "button"].includes(input.type));
}

function usesArrows(target) {
  return Boolean(target && target.closest &&
                 target.closest("input, button, [role='radio'], [role='button'], summary, a"));
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const doc = parentElement.ownerDocument;
  const win = doc.defaultView;
  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (ownsKeys(target)) return;
    if (usesArrows(target) && !PAGING.has(event.key)) return;
    const where = NEXT.has(event.key) ? "next" : BACK.has(event.key) ? "back" : null;
    if (!where) return;
    event.preventDefault();
    setTriggerValue("nav", where);
  };
  if (win.__fldaLessonKeys) doc.removeEventListener("keydown", win.__fldaLessonKeys, true);
  win.__fldaLessonKeys = onKey;
  doc.addEventListener("keydown", onKey, true);
  return () => {
    doc.removeEventListener("keydown", onKey, true);
    if (win.__fldaLessonKeys === onKey) win.__fldaLessonKeys = null;
  };
}
