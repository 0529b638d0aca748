// The respondent page's table of randomized answers, and what this browser keeps of it.
//
// Repeat protection: the first time this browser opens a survey it draws, once, the randomized
// value for every possible true answer of every question, and keeps that table with a random
// submission id until the server confirms the submission. Every attempt until then (a retry, a
// reload) sends from the same table with the same id, so repeating reveals nothing new.
//
// A question's kind (kinds/) says what its entry in the table is: the randomized value of each
// possible option, or, for a number, the noise its mechanism adds (drawn once, independent of
// the answer). Sending again sends the same value for the same answer.
//
// Once the server has the submission, the table goes: it holds the randomized value of every
// answer not given (and a number's noise), and beside the export (which holds the id and the
// values sent) it would tell which answer was true. Only {"submitted": true} stays, to say
// "already answered".
//
// Nothing here touches the page: the storage (window.localStorage on the page) is passed in.

import { kindOf } from "./kinds/index.js";

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

/** 16 bytes (128 bits) from crypto.getRandomValues. */
function randomBytes() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

function hexOf(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A random (version 4) UUID from crypto.getRandomValues; works on plain-HTTP pages too. */
export function randomUuid() {
  const bytes = randomBytes();
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = hexOf(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const DEVICE_ID = /^[0-9a-f]{32}$/;

function deviceKey(slug) {
  return `survey-app:device:${slug}`;
}

/**
 * This browser's device id for one survey: 128 random bits in hexadecimal, drawn once per
 * survey and kept. The page names it in each submission's Survey-Device header, so that the
 * server can limit one device sending over and over without limiting a lecture hall that shares
 * one address. A new id for each survey: nothing the page sends is the same from one survey to
 * another. The server counts a keyed hash of it and the survey, for the rate limit's window,
 * and stores nothing of it with the answers. Without storage (private mode, a frame whose
 * storage is blocked: ``storage`` null or refusing) one is drawn for the page load, which the
 * page keeps for its retries.
 */
export function deviceId(storage, slug) {
  try {
    const kept = storage.getItem(deviceKey(slug));
    if (DEVICE_ID.test(kept ?? "")) return kept;
  } catch {
    // no storage: one id for this page load
  }
  const drawn = hexOf(randomBytes());
  try {
    storage.setItem(deviceKey(slug), drawn);
  } catch {
    // not kept: the next page load draws another
  }
  return drawn;
}

/**
 * For each question, what its kind draws once: the randomized value to send for each possible
 * true value, or a number's noise. A question is { id, type, optionCount } and what its kind
 * reads from its fieldset (a number's { min, max, mechanism, parameters }).
 */
export function drawTable(questions, flipProbability) {
  const table = {};
  for (const question of questions) {
    table[question.id] = kindOf(question).draw(question, flipProbability);
  }
  return table;
}

/** Whether a kept table fits these questions (else the page draws a new one). */
export function tableFits(table, questions) {
  return (
    table !== null &&
    typeof table === "object" &&
    Object.keys(table).length === questions.length &&
    questions.every((q) => kindOf(q).fits(table[q.id], q))
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
    randomized[question.id] = kindOf(question).report(question, answers[question.id], table[question.id]);
  }
  return randomized;
}
