// The respondent page's table of randomized answers, and what this browser keeps of it.
//
// Repeat protection: the first time this browser opens a survey it draws, once, the randomized
// value for every possible true answer of every question, and keeps that table with a random
// submission id until the server confirms the submission. Every attempt until then (a retry, a
// reload) sends from the same table with the same id, so repeating reveals nothing new.
//
// A numeric question has too many possible answers for a table: for it the browser draws, once,
// the noise its mechanism adds (randomized-response.js's drawNumericNoise, independent of the
// answer), and the value sent follows from the number typed and that noise (numericReport).
// Sending again sends the same value for the same number.
//
// Once the server has the submission, the table goes: it holds the randomized value of every
// answer not given (and a number's noise), and beside the export (which holds the id and the
// values sent) it would tell which answer was true. Only {"submitted": true} stays, to say
// "already answered".
//
// Nothing here touches the page: the storage (window.localStorage on the page) is passed in.

import {
  drawNumericNoise,
  numericNoiseFits,
  numericReport,
  randomizeBit,
  randomizeChoice,
} from "./randomized-response.js";

function storageKey(slug) {
  return `survey-app:${slug}`;
}

/** What this browser kept for the survey, or null (nothing, damaged, or no storage). */
export function loadState(storage, slug) {
  try {
    const saved = JSON.parse(storage.getItem(storageKey(slug)) || "null");
    return saved && typeof saved === "object" ? saved : null;
  } catch {
    return null; // storage unavailable (private mode) or damaged: start afresh
  }
}

export function saveState(storage, slug, state) {
  try {
    storage.setItem(storageKey(slug), JSON.stringify(state));
  } catch {
    // Without storage the table lives as long as the page: still one table per attempt.
  }
}

/** After the server has the submission: keep only that it was answered, never the table. */
export function forgetTable(storage, slug) {
  const answered = { submitted: true };
  try {
    storage.setItem(storageKey(slug), JSON.stringify(answered));
  } catch {
    try {
      storage.removeItem(storageKey(slug)); // could not overwrite: drop it all
    } catch {
      // storage unavailable: nothing was kept
    }
  }
  return answered;
}

/** A random (version 4) UUID from crypto.getRandomValues; works on plain-HTTP pages too. */
export function randomUuid() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * For each question, the randomized value to send for each possible true value. A question is
 * { id, type, optionCount } and, if numeric, { mechanism, parameters }.
 */
export function drawTable(questions, flipProbability) {
  const table = {};
  for (const question of questions) {
    if (question.type === "numeric") {
      table[question.id] = { noise: drawNumericNoise(question.mechanism, question.parameters) };
      continue;
    }
    const values = [];
    for (let trueValue = 0; trueValue < question.optionCount; trueValue += 1) {
      values.push(
        question.type === "yes_no"
          ? randomizeBit(trueValue, flipProbability)
          : randomizeChoice(trueValue, question.optionCount, flipProbability),
      );
    }
    table[question.id] = values;
  }
  return table;
}

/** Whether a kept table fits these questions (else the page draws a new one). */
export function tableFits(table, questions) {
  return (
    table !== null &&
    typeof table === "object" &&
    Object.keys(table).length === questions.length &&
    questions.every((q) =>
      q.type === "numeric"
        ? table[q.id] !== null &&
          typeof table[q.id] === "object" &&
          numericNoiseFits(table[q.id].noise, q.mechanism, q.parameters)
        : Array.isArray(table[q.id]) &&
          table[q.id].length === q.optionCount &&
          table[q.id].every((value) => Number.isInteger(value) && value >= 0 && value < q.optionCount),
    )
  );
}

/**
 * The state to answer from: the one kept if it fits (same id, same table), else a new id and
 * table, saved at once.
 */
export function stateToAnswerFrom(storage, slug, kept, questions, flipProbability) {
  if (kept && typeof kept.submissionId === "string" && tableFits(kept.table, questions)) {
    return kept;
  }
  const state = { submissionId: randomUuid(), table: drawTable(questions, flipProbability), submitted: false };
  saveState(storage, slug, state);
  return state;
}

/** The randomized value to send for each question, from the true answers and the table. */
export function randomizedAnswers(questions, answers, table) {
  const randomized = {};
  for (const question of questions) {
    randomized[question.id] =
      question.type === "numeric"
        ? numericReport(
            answers[question.id],
            question.min,
            question.max,
            question.mechanism,
            question.parameters,
            table[question.id].noise,
          )
        : table[question.id][answers[question.id]];
  }
  return randomized;
}
