// The builder page: its live privacy and planning readout, the fields each question type
// shows, and Warner's coins. Every figure and word of the readout comes from the server (the
// math lives in survey_app/privacy/); this script only fetches and shows it.

import { say } from "./page-words.js";
import { typedNumber } from "./typed-numbers.js";
import { flipProbabilityFromWarnerQ, warnerQFromFlipProbability } from "./warner.js";

function debounce(action, milliseconds) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), milliseconds);
  };
}

// The builder's fields that change what its readout says.
const READOUT_FIELDS = new Set([
  "flip_probability",
  "class_size",
  "margin",
  "question_text",
  "question_type",
  "question_options",
  "question_min",
  "question_max",
  "question_unit",
  "question_mechanism",
  "question_part1_text",
  "question_part1_type",
  "question_part1_options",
  "question_part2_text",
  "question_part2_type",
  "question_part2_options",
]);

function paragraph(id, text, isError) {
  const element = document.createElement("p");
  element.id = id;
  element.textContent = text;
  if (isError) element.className = "error";
  return element;
}

function suggestionButton(flipProbability) {
  // The same button the server renders: without this script it posts the form, which applies
  // the suggestion on the server.
  const button = document.createElement("button");
  button.type = "submit";
  button.name = "action";
  button.value = "apply_suggestion";
  button.className = "secondary";
  button.id = "apply-suggestion";
  button.formNoValidate = true;
  button.dataset.flipProbability = String(flipProbability);
  // Its figure as the page's language writes a decimal ("0,3" in German), as the server does.
  const figure = String(flipProbability).replace(".", say("decimal_mark"));
  button.textContent = say("use_flip_probability", { value: figure });
  return button;
}

function readoutParts(reply) {
  const parts = [paragraph("readout-summary", reply.ok ? reply.summary : reply.error, !reply.ok)];
  if (reply.warning) parts.push(paragraph("readout-warning", reply.warning, true));
  const plan = reply.planning;
  if (plan) parts.push(paragraph("readout-planning", plan.ok ? plan.text : plan.error, !plan.ok));
  const suggestion = reply.suggestion;
  if (suggestion) {
    const words = suggestion.ok ? suggestion.text : suggestion.error;
    const element = paragraph("readout-suggestion", words, !suggestion.ok);
    if (suggestion.ok && suggestion.apply) {
      element.append(" ", suggestionButton(suggestion.flip_probability));
    }
    parts.push(element);
  }
  return parts;
}

function wordsOf(elements) {
  return elements.map((element) => element.textContent.replace(/\s+/g, " ").trim()).join("\n");
}

function setupReadout() {
  const form = document.getElementById("survey-builder");
  const input = document.getElementById("flip_probability");
  const readout = document.getElementById("privacy-readout");
  if (!form || !input || !readout) return;
  // The page updates itself: the button that asks the server again is for pages without us.
  const again = document.getElementById("update-plan");
  if (again) again.hidden = true;
  let latest = 0;
  const update = debounce(async () => {
    const asked = ++latest;
    try {
      // The whole form (its CSRF token too): the server reads it as it reads a save.
      const response = await fetch(readout.dataset.readoutUrl, {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json" },
      });
      if (!response.ok || asked !== latest) return;
      const parts = readoutParts(await response.json());
      if (asked !== latest) return;
      // Only words that changed go into the live region, so screen readers hear only news.
      if (wordsOf(parts) === wordsOf([...readout.children])) return;
      readout.replaceChildren(...parts);
    } catch {
      // Keep the last readout; the server checks every value again on saving.
    }
  }, 200);
  const changed = (event) => {
    if (READOUT_FIELDS.has(event.target.name)) update();
  };
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  readout.addEventListener("click", (event) => {
    const button = event.target.closest("#apply-suggestion");
    if (!button) return;
    event.preventDefault();
    input.value = button.dataset.flipProbability;
    input.focus();
    update();
  });
}

function setupQuestionTypes() {
  for (const select of document.querySelectorAll("select.question-type")) {
    const item = select.closest("li");
    // Each kind's fields (its builder partial) say which kind they are for.
    const fields = item ? Array.from(item.querySelectorAll("[data-kind]")) : [];
    if (fields.length === 0) continue;
    const text = item.querySelector('input[name="question_text"]');
    const show = () => {
      for (const kindFields of fields) kindFields.hidden = select.value !== kindFields.dataset.kind;
      // A kind whose text is optional (a pair's heading) says so on its option.
      const chosen = select.selectedOptions[0];
      if (text) text.required = !chosen || chosen.dataset.textOptional !== "true";
    };
    select.addEventListener("change", show);
    show();
  }
}

// Each question of a pair shows its options field only when it is of the kind that field is
// for (multiple choice); without this script the field is always there, its label says why.
function setupPairParts() {
  for (const select of document.querySelectorAll("select.pair-part-type")) {
    const options = select.closest("fieldset")?.querySelector("[data-shown-for]");
    if (!options) continue;
    const show = () => {
      options.hidden = select.value !== options.dataset.shownFor;
    };
    select.addEventListener("change", show);
    show();
  }
}

/**
 * Warner's coins set p: q (the second coin's chance of "the opposite") typed gives its p
 * (warner.js), and a p typed shows its q. The server does the same for the "Use q / 2" button.
 */
function setupWarner() {
  const q = document.getElementById("warner_q");
  const p = document.getElementById("flip_probability");
  const apply = document.getElementById("apply-warner");
  if (!q || !p) return;
  if (apply) apply.hidden = true; // this script applies q as it is typed
  const shown = (value) => String(Number(value.toFixed(6)));
  q.addEventListener("input", () => {
    const warnerQ = typedNumber(q.value);
    if (warnerQ === null) return;
    p.value = shown(flipProbabilityFromWarnerQ(warnerQ));
    p.dispatchEvent(new Event("input", { bubbles: true }));
  });
  p.addEventListener("input", (event) => {
    if (event.isTrusted === false) return; // set from q just above
    const flipProbability = typedNumber(p.value);
    if (flipProbability !== null) q.value = shown(warnerQFromFlipProbability(flipProbability));
  });
}

setupReadout();
setupQuestionTypes();
setupPairParts();
setupWarner();
