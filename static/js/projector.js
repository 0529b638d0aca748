// The projector view keeps itself current through live-updates.js (asking every few seconds,
// with the version it shows as If-None-Match; "nothing" is an empty 304) and, when something
// changed, redraws the count and the questions from the server's words and charts. Every figure
// and word comes from the server; this script only fetches and shows it.

import { keepCurrent } from "./live-updates.js";

const root = document.getElementById("projector");

function showQuestions(state) {
  const results = document.getElementById("present-results");
  const parts = [];
  if (state.results_hidden) {
    const notice = document.createElement("p");
    notice.className = "present-hidden";
    notice.id = "present-hidden";
    notice.textContent = "The results stay hidden until the survey closes.";
    parts.push(notice);
  }
  for (const question of state.questions) {
    const section = document.createElement("section");
    section.className = "present-question";
    section.id = `present-question-${question.number}`;
    section.setAttribute("aria-labelledby", `present-question-${question.number}-heading`);
    section.innerHTML = question.html; // our own server-rendered, escaped fragment
    parts.push(section);
  }
  // The closing lines stay as the page drew them (the scope only while results show).
  const scope = results.querySelector(".present-scope");
  if (scope && !state.results_hidden) parts.push(scope);
  const privacy = document.getElementById("present-privacy");
  if (privacy) parts.push(privacy);
  results.replaceChildren(...parts);
}

/** How to join, redrawn only when the survey opened or closed (its QR code does not flicker). */
function showJoin(state) {
  const join = document.getElementById("present-join");
  if (join.dataset.joinKey === state.join_key) return;
  join.dataset.joinKey = state.join_key;
  join.innerHTML = state.join_html; // our own server-rendered, escaped fragment
}

function show(state) {
  root.dataset.version = state.version;
  showJoin(state);
  document.getElementById("present-status").textContent = state.status_words;
  const count = document.getElementById("present-count");
  // Only a changed count is written: the status region then announces news, not every poll.
  if (count.textContent !== state.respondents_words) count.textContent = state.respondents_words;
  showQuestions(state);
}

function sayOnce(words) {
  const status = document.getElementById("present-status");
  if (status.textContent !== words) status.textContent = words;
}

function schedule() {
  keepCurrent({
    url: root.dataset.stateUrl,
    seconds: Number(root.dataset.pollSeconds),
    accept: "application/json",
    etag: `"${root.dataset.version}"`,
    show: async (response) => show(await response.json()),
    signedOut: () => sayOnce("Signed out: reload this page to sign in again."),
  });
}

function setupFullScreen() {
  const button = document.getElementById("full-screen");
  if (!button || !document.fullscreenEnabled) return;
  button.hidden = false;
  button.addEventListener("click", () => {
    document.documentElement.requestFullscreen().catch(() => {});
  });
}

if (root) {
  schedule();
  setupFullScreen();
}
