// Which page of questions the projector shows, and which way a key turns it. The pages, their
// questions and their words are the server's (survey_app/classroom/projector_pages.py); this module only
// counts along them, so that Node can test it (tests/unit/test_projector_pages_node.py).

/** What each key a keyboard or a presentation clicker sends does: a step, or an end. */
const KEYS = {
  ArrowRight: 1,
  ArrowDown: 1,
  PageDown: 1,
  ArrowLeft: -1,
  ArrowUp: -1,
  PageUp: -1,
  Home: "first",
  End: "last",
};

/** The keys that scroll a box. */
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown"]);

/** Elements whose keys are their own (a field's arrows move its caret, not the page). */
const OWN_KEYS = new Set(["INPUT", "SELECT", "TEXTAREA", "BUTTON"]);

/**
 * The turn a key event asks for (1, -1, "first" or "last"), or null: with a modifier held, in
 * a field or a button, or for any other key.
 */
export function turnFor(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return null;
  const target = event.target || {};
  if (OWN_KEYS.has(target.tagName) || target.isContentEditable) return null;
  // A question that scrolls inside itself (projector-fit.js) keeps the keys that scroll it;
  // a clicker's PageUp and PageDown, and left and right, still turn the page.
  if (target.dataset && "ownKeys" in target.dataset && SCROLL_KEYS.has(event.key)) return null;
  return Object.hasOwn(KEYS, event.key) ? KEYS[event.key] : null;
}

/** The page (0-based) a turn leads to from `index` among `count`; after the last comes the first. */
export function turned(index, turn, count) {
  if (count < 1) return 0;
  if (turn === "first") return 0;
  if (turn === "last") return count - 1;
  return (((index + turn) % count) + count) % count;
}

/**
 * The page (0-based) that holds `question` among `pages` (each { columns: [[number, ...]] }),
 * so that a redraw keeps what the room was reading; the first page if none does.
 */
export function pageHolding(pages, question) {
  const index = pages.findIndex((page) => page.columns.some((column) => column.includes(question)));
  return index < 0 ? 0 : index;
}
