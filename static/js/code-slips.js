// The page of one-time code slips.

/** The page of one-time code slips: a button for the browser's print dialog. */
function setupPrintSlips() {
  const button = document.getElementById("print-slips");
  if (!button) return;
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}

setupPrintSlips();
