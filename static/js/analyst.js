// The analyst's pages: the builder's live privacy readout, copying the respondent link, and
// the open dashboard refreshing its results. Every figure comes from the server (the math
// lives in survey_app/privacy.py); this script only fetches and shows it.

const REFRESH_SECONDS = 10;

function debounce(action, milliseconds) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), milliseconds);
  };
}

function setupReadout() {
  const input = document.getElementById("flip_probability");
  const readout = document.getElementById("privacy-readout");
  if (!input || !readout) return;
  const update = debounce(async () => {
    const questions = document.querySelectorAll("#questions > li").length || 1;
    const url = new URL(readout.dataset.readoutUrl, window.location.href);
    url.searchParams.set("flip_probability", input.value);
    url.searchParams.set("questions", String(questions));
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      const reply = await response.json();
      const paragraph = document.createElement("p");
      paragraph.textContent = reply.ok ? reply.summary : reply.error;
      paragraph.className = reply.ok ? "" : "error";
      readout.replaceChildren(paragraph);
    } catch {
      // Keep the last readout; the server checks the value again on saving.
    }
  }, 200);
  input.addEventListener("input", update);
}

function setupQuestionTypes() {
  for (const select of document.querySelectorAll("select.question-type")) {
    const options = select.closest("li")?.querySelector(".choice-options");
    if (!options) continue;
    const show = () => {
      options.hidden = select.value !== "choice";
    };
    select.addEventListener("change", show);
    show();
  }
}

function setupCopyLink() {
  const button = document.getElementById("copy-link");
  if (!button) return;
  const field = document.getElementById(button.dataset.copyTarget);
  const status = document.getElementById("copy-status");
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = "Link copied.";
    } catch {
      field.select(); // no clipboard access (plain HTTP): select it for Ctrl+C
      status.textContent = "Press Ctrl+C (or ⌘C) to copy the selected link.";
    }
  });
}

function setupRefresh() {
  const results = document.getElementById("results");
  if (!results || results.dataset.status !== "open") return;
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const response = await fetch(results.dataset.refreshUrl, { headers: { Accept: "text/html" } });
      if (!response.ok) return;
      const holder = document.createElement("div");
      holder.innerHTML = await response.text(); // our own server-rendered, escaped fragment
      const fresh = holder.querySelector("#results");
      if (fresh) document.getElementById("results").replaceWith(fresh);
    } catch {
      // Offline for a moment: try again at the next tick.
    }
  }, REFRESH_SECONDS * 1000);
}

setupReadout();
setupQuestionTypes();
setupCopyLink();
setupRefresh();
