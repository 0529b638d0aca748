// Two questions asked together (survey_app/kinds/paired.py): the pair of answers is one answer,
// the cell a * k2 + b, randomized over the k1 * k2 cells by randomized-response.js.

import { randomizePair } from "../randomized-response.js";
import { optionKind } from "./options.js";

const cells = optionKind(() => {
  throw new Error("a paired question draws its cells itself");
});

export const paired = {
  ...cells,
  read(fieldset) {
    return { columns: Number(fieldset.dataset.pairColumns) };
  },
  draw(question, flipProbability) {
    const rows = question.optionCount / question.columns;
    const values = [];
    for (let cell = 0; cell < question.optionCount; cell += 1) {
      const a = Math.floor(cell / question.columns);
      values.push(randomizePair(a, cell % question.columns, rows, question.columns, flipProbability));
    }
    return values;
  },
  missingInput(question) {
    const parts = Array.from(question.fieldset.querySelectorAll("fieldset.pair-part"));
    const missing = parts.find((part) => !part.querySelector("input[type=radio]:checked")) ?? parts[0];
    return missing.querySelector("input");
  },
  readAnswer(question) {
    const checked = Array.from(question.fieldset.querySelectorAll("fieldset.pair-part"), (part) =>
      part.querySelector("input[type=radio]:checked"),
    );
    const answered = checked.every(Boolean);
    question.fieldset.classList.toggle("unanswered", !answered);
    return answered ? { value: Number(checked[0].value) * question.columns + Number(checked[1].value) } : {};
  },
};
