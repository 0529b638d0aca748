// A multiple-choice question (survey_app/kinds/choice.py): its answer sometimes swapped for
// another option, by randomized-response.js.

import { randomizeChoice } from "../randomized-response.js";
import { optionKind } from "./options.js";

export const choice = optionKind(randomizeChoice);
