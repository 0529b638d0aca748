// The kinds of question, by the name survey_app/kinds registers them with: each reads its true
// answer from its fieldset and asks randomized-response.js for the value to send. Nothing else
// on the page asks which kind a question is.

import { choice } from "./choice.js";
import { numeric } from "./numeric.js";
import { paired } from "./paired.js";
import { yesNo } from "./yes-no.js";

const KINDS = { yes_no: yesNo, choice, numeric, paired };

/** Add a kind (its name as survey_app/kinds registers it). */
export function registerKind(name, kind) {
  KINDS[name] = kind;
}

/** The kind of a question read from the page ({ type, ... }). */
export function kindOf(question) {
  const kind = KINDS[question.type];
  if (!kind) throw new Error(`no kind of question is named ${JSON.stringify(question.type)}`);
  return kind;
}
