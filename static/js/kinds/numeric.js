// A numeric question (survey_app/kinds/numeric.py). It has too many possible answers for a
// table: the browser draws, once, the noise its mechanism adds (randomized-response.js's
// drawNumericNoise, independent of the answer), and the value sent follows from the number typed
// and that noise (numericReport). Sending again sends the same value for the same number.

import { drawNumericNoise, numericNoiseFits, numericReport } from "../randomized-response.js";
import { readTypedNumber, typedNumberMessage } from "../typed-numbers.js";

/** Show (or, with an empty message, clear) a number question's own error, tied to its field. */
function showNumberError(question, message) {
  const input = question.input;
  const id = `${input.id}-error`;
  const page = input.ownerDocument; // passed in with the field: this module runs under Node too
  let note = page.getElementById(id);
  if (!note && message) {
    note = page.createElement("p");
    note.id = id;
    note.className = "error number-error";
    input.insertAdjacentElement("afterend", note);
  }
  const described = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter((t) => t && t !== id);
  if (message) {
    note.textContent = message;
    described.push(id);
    input.setAttribute("aria-invalid", "true");
  } else if (note) {
    note.remove();
  }
  input.setAttribute("aria-describedby", described.join(" "));
}

export const numeric = {
  read(fieldset) {
    return {
      min: Number(fieldset.dataset.min),
      max: Number(fieldset.dataset.max),
      mechanism: fieldset.dataset.mechanism,
      parameters: JSON.parse(fieldset.dataset.parameters),
      input: fieldset.querySelector("input.number-input"),
      // Numbers are read the page's language's way too ("1.234,5" in German).
      language: fieldset.ownerDocument.documentElement.lang,
    };
  },
  draw(question) {
    return { noise: drawNumericNoise(question.mechanism, question.parameters) };
  },
  fits(entry, question) {
    return entry !== null && typeof entry === "object" && numericNoiseFits(entry.noise, question.mechanism, question.parameters);
  },
  report(question, answer, entry) {
    return numericReport(answer, question.min, question.max, question.mechanism, question.parameters, entry.noise);
  },
  /**
   * Its value; or what is wrong with what was typed ({ problem }: the note under the field says
   * it too, tied to the field); or, left blank, it is marked unanswered.
   */
  readAnswer(question) {
    const reading = readTypedNumber(question.input.value, question.language);
    const problem = typedNumberMessage(question.input.value, question.language);
    question.fieldset.classList.toggle("unanswered", reading.value === undefined);
    showNumberError(question, problem);
    if (problem) return { problem };
    if (reading.value === undefined) {
      question.input.setAttribute("aria-invalid", "true");
      return {};
    }
    question.input.removeAttribute("aria-invalid");
    return { value: reading.value };
  },
  clear(question) {
    question.input.value = "";
  },
  asksNumber: true,
};
