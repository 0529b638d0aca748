// How the analyst's open pages keep themselves current (the dashboard's results, the projector):
// every few seconds, while the page is visible, they ask the server whether anything changed,
// sending the ETag of what they show as If-None-Match. "Nothing" is an empty 304; something new
// is handed to the page, which redraws only what changed (its live regions then announce news,
// not every poll, and focus stays where it is). One request at a time: the next waits for this
// one to end, however slow the network. How often is the server's to say (a data attribute).

/** The page's own timers, visibility and fetch; a test passes its own. */
function browserSurroundings() {
  return {
    fetch: (...args) => globalThis.fetch(...args),
    wait: (milliseconds, then) => globalThis.setTimeout(then, milliseconds),
    hidden: () => globalThis.document.hidden,
    whenVisible: (then) =>
      globalThis.document.addEventListener("visibilitychange", () => {
        if (!globalThis.document.hidden) then();
      }),
  };
}

/**
 * Ask `url` every `seconds` whether what the page shows (`etag`, or none yet) changed; hand a
 * changed answer (a Response) to `show`, and a 401 to `signedOut`. Returns { poll }, which asks
 * at once (and is what each tick runs).
 */
export function keepCurrent({ url, seconds, accept, etag = null, show, signedOut = () => {}, surroundings }) {
  const around = surroundings || browserSurroundings();
  let shown = etag;
  async function poll() {
    if (around.hidden()) return;
    const headers = { Accept: accept };
    if (shown) headers["If-None-Match"] = shown;
    try {
      const response = await around.fetch(url, { headers, cache: "no-store", credentials: "same-origin" });
      if (response.status === 304) return;
      if (response.status === 401) {
        signedOut();
        return;
      }
      if (!response.ok) return;
      await show(response);
      shown = response.headers.get("ETag") || null;
    } catch {
      // Offline for a moment (a lecture hall's network): try again at the next tick.
    }
  }
  const tick = async () => {
    await poll();
    around.wait(seconds * 1000, tick);
  };
  around.wait(seconds * 1000, tick);
  around.whenVisible(poll);
  return { poll };
}
