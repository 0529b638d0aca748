// A yes/no question (survey_app/kinds/yes_no.py): its answer flipped with the survey's flip
// probability, by randomized-response.js.

import { randomizeBit } from "../randomized-response.js";
import { optionKind } from "./options.js";

export const yesNo = optionKind((trueValue, optionCount, flipProbability) => randomizeBit(trueValue, flipProbability));
