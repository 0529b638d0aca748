// The dashboard: copying the respondent link, issuing one-time codes once per press, and, while
// the survey is open, its results keeping themselves current (live-updates.js: asked every few
// seconds, redrawn only when they changed). Every figure and word comes from the server (its
// sentences from the page's catalog: page-words.js).

import { keepCurrent } from "./live-updates.js";
import { say } from "./page-words.js";

function setupCopyLink() {
  const button = document.getElementById("copy-link");
  if (!button) return;
  const field = document.getElementById(button.dataset.copyTarget);
  const status = document.getElementById("copy-status");
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = say("link_copied");
    } catch {
      field.select(); // no clipboard access (plain HTTP): select it for Ctrl+C
      status.textContent = say("copy_selected_link");
    }
  });
}

function focusable(element) {
  return [...element.querySelectorAll("a[href], button, summary, input, select, [tabindex]")];
}

/** While open, the results panel is fetched again when it changed, and swapped in. */
function setupRefresh() {
  const results = document.getElementById("results");
  if (!results || results.dataset.status !== "open") return;
  keepCurrent({
    url: results.dataset.refreshUrl,
    seconds: Number(results.dataset.refreshSeconds),
    accept: "text/html",
    show: async (response) => {
      const holder = document.createElement("div");
      holder.innerHTML = await response.text(); // our own server-rendered, escaped fragment
      const fresh = holder.querySelector("#results");
      if (!fresh) return;
      const shown = document.getElementById("results");
      // Focus stays where it was: on the same control (or scrolling table) of the fresh results.
      const focused = focusable(shown).indexOf(document.activeElement);
      // A disclosure the reader opened ("How this range was worked out") stays open.
      const opened = [...shown.querySelectorAll("details[open][id]")].map((each) => each.id);
      shown.replaceWith(fresh);
      for (const id of opened) document.getElementById(id)?.setAttribute("open", "");
      if (focused >= 0) focusable(fresh)[focused]?.focus({ preventScroll: true });
    },
  });
}

/**
 * The form that issues one-time codes is sent once per press: a double click would start a
 * second request, whose codes nobody would ever see. The form takes presses again after a few
 * seconds (a CSV download leaves the page where it is, and more codes may be wanted).
 */
function setupIssueCodesOnce() {
  const form = document.getElementById("issue-codes");
  if (!form) return;
  form.addEventListener("submit", (event) => {
    if (form.dataset.sending) {
      event.preventDefault();
      return;
    }
    form.dataset.sending = "1";
    setTimeout(() => delete form.dataset.sending, 5000);
  });
}

setupCopyLink();
setupIssueCodesOnce();
setupRefresh();
