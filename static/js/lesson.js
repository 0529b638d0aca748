// The lesson's keys: → and Page Down (a presentation clicker's "next") go to the next step,
// ← and Page Up to the previous one, Home and End to the first and last. Each step is a page of
// its own, reached by the same links the buttons are, so nothing here computes or draws: it
// follows a link. Step 7's control shows the words of the row the server wrote for each p.

const root = document.getElementById("lesson");

const KEYS = {
  ArrowRight: "lesson-next",
  PageDown: "lesson-next",
  ArrowLeft: "lesson-previous",
  PageUp: "lesson-previous",
};

function follow(link) {
  if (link && link.href) window.location.assign(link.href);
}

function onKey(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
    return;
  }
  // Keys typed into a control (the question chooser, step 7's slider) stay with it.
  if (event.target.closest && event.target.closest("input, select, textarea, [contenteditable]")) {
    return;
  }
  const steps = root.querySelectorAll(".lesson-steps a");
  let link = null;
  if (KEYS[event.key]) link = document.getElementById(KEYS[event.key]);
  else if (event.key === "Home") link = steps[0];
  else if (event.key === "End") link = steps[steps.length - 1];
  else return;
  event.preventDefault();
  follow(link);
}

/** Step 7: the slider picks a row of the table; its words (the server's) show beside it. */
function setupTradeOff() {
  const slider = document.getElementById("trade-off-p");
  const words = document.getElementById("trade-off-words");
  const table = document.getElementById("trade-off-table");
  if (!slider || !words || !table) return;
  const show = () => {
    let best = null;
    for (const row of table.querySelectorAll("tbody tr")) {
      const distance = Math.abs(Number(row.dataset.p) - Number(slider.value));
      if (best === null || distance < best.distance - 1e-9) best = { row, distance };
    }
    for (const row of table.querySelectorAll("tbody tr")) {
      row.classList.toggle("picked", row === best.row);
    }
    words.textContent = best.row.dataset.words;
  };
  slider.addEventListener("input", show);
}

if (root) {
  document.addEventListener("keydown", onKey);
  const keys = document.getElementById("lesson-keys");
  if (keys) keys.hidden = false;
  setupTradeOff();
}
