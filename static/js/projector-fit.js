// The projector's last resort against a question taller than its box. The server sizes every
// page from an estimate (survey_app/classroom/projector_pages.py, tuned to Chromium); after each redraw
// projector.js measures each card shown and, where its words still overflow, sets them
// smaller with this module's choice, never below the smallest size the room reads. What
// still does not fit at that size scrolls inside its own card. Pure, so Node can test it
// (tests/unit/test_projector_fit_node.py).

/**
 * The smallest scale: app.css sets no word below 0.75 em of the projector's type (16 px at
 * 720 lines), and at 0.68 even the largest (1.1 em) is there (projector_pages.FIT_STEPS).
 */
export const SMALLEST_FIT = 0.68;

/** A step at least this big, so that a card is fitted in a few measurements. */
const LEAST_STEP = 0.05;

/**
 * The scale to try next for a card drawn at `scale` whose content is `contentHeight` high in a
 * box `boxHeight` high, or null when it fits or is already at the smallest (then it scrolls).
 * A text's height goes about with the square of its size (its lines are shorter and fewer
 * words fit each), so the guess is the square root of the shortfall, a step at least.
 */
export function smallerScale(scale, contentHeight, boxHeight, smallest = SMALLEST_FIT) {
  if (!(contentHeight > boxHeight) || !(boxHeight > 0)) return null;
  if (scale <= smallest) return null;
  const guess = scale * Math.sqrt(boxHeight / contentHeight);
  const next = Math.min(guess, scale - LEAST_STEP);
  return Math.max(smallest, Math.round(next * 1000) / 1000);
}
