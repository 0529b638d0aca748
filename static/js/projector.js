// The projector view keeps itself current through live-updates.js (asking every few seconds,
// with the version it shows as If-None-Match; "nothing" is an empty 304) and, when something
// changed, redraws the count and the questions from the server's words and charts. The
// questions come in pages the server made to fit the screen (survey_app/classroom/projector_pages.py);
// this script turns them in place (keys, a clicker, the links, or every few seconds when the
// professor asks) and keeps the page the room reads across redraws. It never moves focus.

import { keepCurrent } from "./live-updates.js";
import { say } from "./page-words.js";
import { smallerScale } from "./projector-fit.js";
import { pageHolding, turnFor, turned } from "./projector-pages.js";

const root = document.getElementById("projector");
let autoTimer = null;

/** The pages as the page shows them: each with its words, link and questions. */
function shownPages() {
  return [...document.querySelectorAll("#present-pages .present-page")].map((page) => ({
    element: page,
    words: page.dataset.words,
    href: page.dataset.href,
    columns: JSON.parse(page.dataset.columns),
  }));
}

function showPage(index) {
  const pages = shownPages();
  if (!pages.length) return;
  pages.forEach((page, at) => {
    page.element.hidden = at !== index;
  });
  root.dataset.page = String(index + 1);
  // The address names the page (?page=N, the server's link): a reload shows the same one.
  if (pages[index].href) history.replaceState(null, "", pages[index].href);
  const words = document.getElementById("present-page-words");
  // Written only when it changes: the polite status then says a turn, not every redraw.
  if (words.textContent !== pages[index].words) words.textContent = pages[index].words;
  document.getElementById("present-previous").href = pages[turned(index, -1, pages.length)].href;
  document.getElementById("present-next").href = pages[turned(index, 1, pages.length)].href;
  document.getElementById("present-pager").hidden = pages.length < 2;
  fitCards(pages[index].element);
}

function overflows(card) {
  return card.scrollHeight > card.clientHeight + 1;
}

/** A card drawn too tall after all scrolls inside itself, from the keyboard too. */
function letScroll(card) {
  card.classList.add("present-clipped");
  card.tabIndex = 0;
  card.setAttribute("role", "region");
  card.dataset.ownKeys = "";
  const number = card.id.replace("present-question-", "");
  card.setAttribute("aria-label", say("question_in_full", { number }));
}

/**
 * The last resort (projector-fit.js): a card shown whose words overflow it leaves its chart
 * out, then is set smaller, step by step, down to the smallest words; what still does not fit
 * scrolls inside the card. It only restyles the page shown: focus stays where it is.
 */
function fitCards(page) {
  for (const card of page.querySelectorAll(".present-question")) {
    if (!overflows(card)) continue;
    const chart = card.querySelector("svg.chart");
    if (chart) chart.hidden = true;
    let scale = Number(getComputedStyle(card).getPropertyValue("--fit")) || 1;
    for (let step = 0; step < 8 && overflows(card); step += 1) {
      const next = smallerScale(scale, card.scrollHeight, card.clientHeight);
      if (next === null) break;
      scale = next;
      card.style.setProperty("--fit", String(scale));
    }
    if (overflows(card)) letScroll(card);
  }
}

function turn(step) {
  const count = shownPages().length;
  if (count < 2) return;
  showPage(turned(Number(root.dataset.page) - 1, step, count));
  restartAutoTurn();
}

function questionSection(question) {
  const section = document.createElement("section");
  section.className = "present-question";
  section.id = `present-question-${question.number}`;
  section.setAttribute("aria-labelledby", `present-question-${question.number}-heading`);
  section.innerHTML = question.html; // our own server-rendered, escaped fragment
  if (question.fit_class) section.classList.add(question.fit_class);
  return section;
}

function pageElement(page, byNumber) {
  const element = document.createElement("div");
  element.className = page.wide ? "present-page present-page-wide" : "present-page";
  element.id = `present-page-${page.number}`;
  Object.assign(element.dataset, {
    page: page.number,
    words: page.words,
    href: page.href,
    columns: JSON.stringify(page.columns),
  });
  for (const numbers of page.columns) {
    const column = document.createElement("div");
    column.className = "present-column";
    column.append(...numbers.map((number) => questionSection(byNumber.get(number))));
    element.append(column);
  }
  return element;
}

/** The notice that results are hidden, there only while they are. */
function showHiddenNotice(state) {
  const notice = document.getElementById("present-hidden");
  if (notice && !state.results_hidden) notice.remove();
  if (notice || !state.results_hidden) return;
  const made = document.createElement("p");
  made.className = "present-hidden";
  made.id = "present-hidden";
  made.textContent = state.hidden_words;
  document.getElementById("present-results").prepend(made);
}

/** The question scrolled inside itself that has the focus (its id and how far it is read). */
function readingInside() {
  const card = document.activeElement && document.activeElement.closest(".present-clipped");
  return card ? { id: card.id, scrollTop: card.scrollTop } : null;
}

/** After a redraw, the same question where it was read, the focus still on it. */
function keepReading(reader) {
  const card = reader && document.getElementById(reader.id);
  if (!card || !card.classList.contains("present-clipped")) return;
  card.scrollTop = reader.scrollTop;
  card.focus({ preventScroll: true });
}

function showQuestions(state) {
  const pages = shownPages();
  const current = pages[Number(root.dataset.page) - 1];
  const reading = current ? current.columns[0][0] : 1;
  const byNumber = new Map(state.questions.map((question) => [question.number, question]));
  const elements = state.pages.map((page) => pageElement(page, byNumber));
  const reader = readingInside();
  document.getElementById("present-pages").replaceChildren(...elements);
  showPage(pageHolding(state.pages, reading));
  keepReading(reader);
  showHiddenNotice(state);
  const summary = document.getElementById("present-summary");
  summary.hidden = !state.summary_words;
  if (summary.textContent !== (state.summary_words || "")) summary.textContent = state.summary_words || "";
  const scope = root.querySelector(".present-scope");
  if (scope) scope.hidden = state.results_hidden;
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
  root.dataset.layout = state.layout;
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
    signedOut: () => sayOnce(say("projector_signed_out")),
  });
}

function restartAutoTurn() {
  clearInterval(autoTimer);
  autoTimer = null;
  if (!document.getElementById("present-auto-turn").checked) return;
  autoTimer = setInterval(() => turn(1), Number(root.dataset.autoTurnSeconds) * 1000);
}

function setupPaging() {
  for (const [id, step] of [["present-previous", -1], ["present-next", 1]]) {
    document.getElementById(id).addEventListener("click", (event) => {
      event.preventDefault();
      turn(step);
    });
  }
  document.addEventListener("keydown", (event) => {
    const step = event.defaultPrevented ? null : turnFor(event);
    if (step === null || shownPages().length < 2) return;
    event.preventDefault();
    turn(step);
  });
  document.getElementById("present-auto").hidden = false;
  document.getElementById("present-auto-turn").addEventListener("change", restartAutoTurn);
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
  const first = document.querySelector("#present-pages .present-page:not([hidden])");
  if (first) fitCards(first);
  schedule();
  setupPaging();
  setupFullScreen();
}
