// The projector view keeps itself current: every few seconds it asks the server whether anything
// changed (sending the version it shows as If-None-Match; "nothing" is an empty 304) and, when
// something did, redraws the count and the questions from the server's words and charts. Every
// figure and word comes from the server; this script only fetches and shows it.

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

async function poll() {
  if (document.hidden) return;
  try {
    const response = await fetch(root.dataset.stateUrl, {
      headers: { Accept: "application/json", "If-None-Match": `"${root.dataset.version}"` },
      cache: "no-store",
      credentials: "same-origin",
    });
    if (response.status === 304) return;
    if (response.status === 401) {
      sayOnce("Signed out: reload this page to sign in again.");
      return;
    }
    if (!response.ok) return;
    show(await response.json());
  } catch {
    // Offline for a moment (a lecture hall's network): try again at the next tick.
  }
}

function schedule() {
  const seconds = Number(root.dataset.pollSeconds) || 2;
  // One request at a time: the next waits for this one to end, however slow the network.
  const tick = async () => {
    await poll();
    setTimeout(tick, seconds * 1000);
  };
  setTimeout(tick, seconds * 1000);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) poll();
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
