// The respondent page: reads the true answers from the page, sends only randomized ones. This
// entry wires the page; what it decides lives in modules of its own, tested under Node: the
// table of randomized answers and what this browser keeps (answer-table.js), each kind of
// question's reading of its answer (kinds/), and what the server's replies mean
// (survey-replies.js).

import { deviceId, forgetTable, loadState, randomizedAnswers, stateToAnswerFrom } from "./answer-table.js";
import { say } from "./page-words.js";
import { missingAnswersMessage, replyOutcome, sendSubmission } from "./survey-replies.js";
import { kindOf } from "./kinds/index.js";

const root = document.getElementById("survey");

function readQuestions() {
  return Array.from(root.querySelectorAll("fieldset.question"), (fieldset) => {
    const question = {
      id: fieldset.dataset.questionId,
      type: fieldset.dataset.questionType,
      optionCount: Number(fieldset.dataset.optionCount),
      fieldset,
    };
    return Object.assign(question, kindOf(question).read(fieldset));
  });
}

function showStatus(message, isError) {
  const status = document.getElementById("survey-status");
  status.textContent = message;
  status.classList.toggle("error", Boolean(isError));
}

function showDone(elementId) {
  root.hidden = true;
  const notice = document.getElementById(elementId);
  notice.hidden = false;
  notice.focus();
}

/**
 * The true answers, as each question's kind reads them; which are missing, and which have
 * something wrong with what was typed (a number not clear, or no number), and what.
 */
function trueAnswers(questions) {
  const answers = {};
  const unanswered = [];
  const problems = [];
  for (const question of questions) {
    const reading = kindOf(question).readAnswer(question);
    if (reading.problem) {
      problems.push({ question, message: reading.problem });
    } else if (reading.value === undefined) {
      unanswered.push(question);
    } else {
      answers[question.id] = reading.value;
    }
  }
  return { answers, unanswered, problems };
}

/**
 * The one-time code field, when the survey asks for one. A slip's QR code carries the code in
 * the address's fragment (#code=...), which browsers never send to a server: it fills the
 * field, then leaves the address bar and history.
 */
function setupCodeField() {
  const field = document.getElementById("one-time-code");
  if (!field) return null;
  const fromSlip = new URLSearchParams(window.location.hash.slice(1)).get("code");
  if (fromSlip) {
    field.value = fromSlip.slice(0, field.maxLength); // the field's own limit
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  field.addEventListener("input", () => showCodeError(field, ""));
  return field;
}

function showCodeError(field, message) {
  document.getElementById("one-time-code-error").textContent = message;
  if (message) {
    field.setAttribute("aria-invalid", "true");
  } else {
    field.removeAttribute("aria-invalid");
  }
}

/** The page's localStorage, or null where reading it throws (a sandboxed frame, a course's
 * frame whose browser blocks a third party's storage): the page then keeps its table and
 * device id for as long as it is open. */
function browserStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The true answers leave the page's controls once they are no longer needed. */
function clearAnswers(questions) {
  for (const question of questions) kindOf(question).clear(question);
}

/** What the status says of answers missing or wrongly typed: which, and why. */
function missingMessage(questions, unanswered, problems) {
  const numberOf = (question) => questions.indexOf(question) + 1;
  const numeric = unanswered.some((q) => kindOf(q).asksNumber);
  const numbered = problems.map(({ question, message }) => ({ number: numberOf(question), message }));
  return missingAnswersMessage(numbered, unanswered.map(numberOf), numeric);
}

/** Answers missing or wrongly typed: say which and why, and go to the first. True if any is. */
function stopAtMissing(questions, unanswered, problems) {
  if (unanswered.length === 0 && problems.length === 0) return false;
  showStatus(missingMessage(questions, unanswered, problems), true);
  const wrong = problems.map(({ question }) => question);
  const first = questions.find((q) => wrong.includes(q) || unanswered.includes(q));
  // A kind may say which of its inputs is missing (one of a pair's two groups, say).
  (kindOf(first).missingInput?.(first) ?? first.fieldset.querySelector("input")).focus();
  return true;
}

/**
 * Once a send has stopped at missing or wrongly typed answers (which marks them), each option
 * picked reads them all again: a question answered or corrected loses its mark and its note,
 * and the status says what is still missing, or nothing once none is. Before that, nothing is
 * marked while the student answers. A typed number is read again at the next pick or send, not
 * when its field is left: leaving it is also what pressing Send does, and the notes going then
 * would move the button between the press and the release, and lose the tap. Returns what the
 * page calls at each send: whether it stopped so (a send that went ahead leaves its status to
 * the reply).
 */
function recheckOnChange(questions) {
  let marked = false;
  root.addEventListener("change", (event) => {
    if (!marked || event.target.type !== "radio" || !event.target.closest("fieldset.question")) return;
    const { unanswered, problems } = trueAnswers(questions);
    marked = unanswered.length > 0 || problems.length > 0;
    const message = marked ? missingMessage(questions, unanswered, problems) : "";
    // Arrowing through a group changes it at every key: a live region said again is noise.
    if (document.getElementById("survey-status").textContent !== message) showStatus(message, marked);
  });
  return (stopped) => {
    marked = stopped;
  };
}

/** Send the randomized answers once; what the server says decides what the page shows. */
async function submit(page) {
  const { slug, questions, codeField } = page;
  const { answers, unanswered, problems } = trueAnswers(questions);
  const stopped = stopAtMissing(questions, unanswered, problems);
  page.markedMissing(stopped);
  if (stopped) return;
  const body = { submission_id: page.state.submissionId, answers: randomizedAnswers(questions, answers, page.state.table) };
  if (codeField) body.code = codeField.value.trim();
  showStatus(say("sending"), false);
  const { status, reply } = await sendSubmission(root.dataset.submitUrl, body, page.device);
  const outcome = replyOutcome(status, reply, Boolean(codeField));
  if (outcome.sent || outcome.answered) {
    page.state = forgetTable(page.storage, slug);
    clearAnswers(questions);
    if (outcome.sent && codeField) codeField.value = "";
    if (outcome.sent) showStatus("", false);
    showDone(outcome.sent ? "thank-you" : "already-answered");
  } else if (outcome.codeError) {
    showStatus("", false);
    showCodeError(codeField, outcome.codeError);
    codeField.focus();
  } else {
    showStatus(outcome.message, true);
  }
}

function start() {
  if (!root) return;
  // This script and the modules it imports loaded and passed their integrity checks.
  const notice = document.getElementById("script-not-started");
  if (notice) notice.remove();
  // The button is about to work: the reason it did not goes, with the tie to it.
  const button = document.getElementById("submit-survey");
  document.getElementById("submit-survey-reason")?.remove();
  button.removeAttribute("aria-describedby");
  const slug = root.dataset.slug;
  const questions = readQuestions();
  const codeField = setupCodeField();
  const storage = browserStorage();
  let kept = loadState(storage, slug);
  if (kept && kept.submitted === true) {
    kept = forgetTable(storage, slug); // also drops a table an older page kept
    if (!codeField) {
      showDone("already-answered");
      return;
    }
    // A survey that requires one-time codes counts answers by code, not by browser: a phone
    // shared by a class takes the next student's answer, with their code and a table drawn
    // afresh (the note kept says only that this browser sent something).
    kept = null;
  }
  const flipProbability = Number(root.dataset.flipProbability);
  const state = stateToAnswerFrom(storage, slug, kept, questions, flipProbability);
  // Drawn after the table, so the table's draws come first from the random words.
  const page = {
    slug,
    questions,
    codeField,
    state,
    storage,
    device: deviceId(storage, slug),
    markedMissing: recheckOnChange(questions),
  };
  button.disabled = false;
  let sending = false;
  button.addEventListener("click", async () => {
    if (sending) return;
    if (codeField && !codeField.value.trim()) {
      showCodeError(codeField, say("code_required"));
      codeField.focus();
      return;
    }
    sending = true;
    button.disabled = true;
    try {
      await submit(page);
    } catch (error) {
      // No reply in time: whether the answers arrived is not known, and sending again is safe.
      showStatus(say(error?.name === "AbortError" ? "no_reply" : "connection_failed"), true);
    } finally {
      sending = false;
      if (!page.state.submitted) button.disabled = false;
    }
  });
}

start();
