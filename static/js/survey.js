// The respondent page: reads the true answers from the page, sends only randomized ones.
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

import {
  drawNumericNoise,
  numericNoiseFits,
  numericReport,
  randomizeBit,
  randomizeChoice,
} from "./randomized-response.js";

const root = document.getElementById("survey");

function storageKey(slug) {
  return `survey-app:${slug}`;
}

function loadState(slug) {
  try {
    const saved = JSON.parse(window.localStorage.getItem(storageKey(slug)) || "null");
    return saved && typeof saved === "object" ? saved : null;
  } catch {
    return null; // storage unavailable (private mode) or damaged: start afresh
  }
}

function saveState(slug, state) {
  try {
    window.localStorage.setItem(storageKey(slug), JSON.stringify(state));
  } catch {
    // Without storage the table lives as long as the page: still one table per attempt.
  }
}

/** After the server has the submission: keep only that it was answered, never the table. */
function forgetTable(slug) {
  const answered = { submitted: true };
  try {
    window.localStorage.setItem(storageKey(slug), JSON.stringify(answered));
  } catch {
    try {
      window.localStorage.removeItem(storageKey(slug)); // could not overwrite: drop it all
    } catch {
      // storage unavailable: nothing was kept
    }
  }
  return answered;
}

/** A random (version 4) UUID from crypto.getRandomValues; works on plain-HTTP pages too. */
function randomUuid() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readQuestions() {
  return Array.from(root.querySelectorAll("fieldset.question"), (fieldset) => {
    const question = {
      id: fieldset.dataset.questionId,
      type: fieldset.dataset.questionType,
      optionCount: Number(fieldset.dataset.optionCount),
      fieldset,
    };
    if (question.type === "numeric") {
      question.min = Number(fieldset.dataset.min);
      question.max = Number(fieldset.dataset.max);
      question.mechanism = fieldset.dataset.mechanism;
      question.parameters = JSON.parse(fieldset.dataset.parameters);
      question.input = fieldset.querySelector("input.number-input");
    }
    return question;
  });
}

/**
 * A typed number: digits with an optional sign and one decimal point or comma (phones in many
 * languages type a comma). Anything else (empty, letters) is null. A comma before exactly three
 * digits ("1,500": 1.5 in some languages, 1500 in others), a point between one to three digits
 * and three ("1.500", read the other way round; "0.125" is clear) or several separators
 * ("1.000,5") are not clear: they give { unclear: true }, so that the page can say how to
 * write it.
 */
function parseTypedNumber(text) {
  const typed = String(text).trim().replace(/\s/g, "");
  const separators = (typed.match(/[.,]/g) || []).length;
  const grouped = /,\d{3}$/.test(typed) || /^[-+−]?[1-9]\d{0,2}\.\d{3}$/.test(typed);
  if (/^[-+−]?[\d.,]*\d[\d.,]*$/.test(typed) && (grouped || separators > 1)) {
    return { unclear: true, typed };
  }
  const normal = typed.replace(",", ".");
  if (!/^[-+−]?(\d+(\.\d*)?|\.\d+)$/.test(normal)) return null;
  const value = Number(normal.replace("−", "-"));
  return Number.isFinite(value) ? value : null;
}

/** How to write an unclear number: "1,500" -> "Write 1500 without a separator, or 1.5." */
function unclearNumberMessage(typed) {
  const sign = /^[-−]/.test(typed) ? "-" : "";
  const digits = typed.replace(/^[-+−]/, "");
  const parts = digits.split(/[.,]/);
  if (parts.length === 2) {
    const whole = sign + digits.replace(/[.,]/g, "").replace(/^0+(?=\d)/, "");
    const decimal = sign + `${parts[0] || "0"}.${parts[1]}`.replace(/\.?0+$/, "");
    return `Write ${whole} without a separator, or ${decimal} with one decimal point or comma.`;
  }
  return "Write the number without thousands separators and with at most one decimal point or comma, like 1500 or 1.5.";
}

/** Show (or, with an empty message, clear) a number question's own error, tied to its field. */
function showNumberError(question, message) {
  const input = question.input;
  const id = `${input.id}-error`;
  let note = document.getElementById(id);
  if (!note && message) {
    note = document.createElement("p");
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

/** For each question, the randomized value to send for each possible true value. */
function drawTable(questions, flipProbability) {
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

function tableFits(table, questions) {
  return (
    table &&
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

function trueAnswers(questions) {
  const answers = {};
  const unanswered = [];
  const unclear = [];
  for (const question of questions) {
    if (question.type === "numeric") {
      const value = parseTypedNumber(question.input.value);
      const unclearNumber = value !== null && typeof value === "object";
      question.fieldset.classList.toggle("unanswered", value === null || unclearNumber);
      showNumberError(question, unclearNumber ? unclearNumberMessage(value.typed) : "");
      if (unclearNumber) {
        unclear.push(question);
      } else if (value === null) {
        question.input.setAttribute("aria-invalid", "true");
        unanswered.push(question);
      } else {
        question.input.removeAttribute("aria-invalid");
        answers[question.id] = value;
      }
      continue;
    }
    const checked = question.fieldset.querySelector("input[type=radio]:checked");
    question.fieldset.classList.toggle("unanswered", !checked);
    if (checked) {
      answers[question.id] = Number(checked.value);
    } else {
      unanswered.push(question);
    }
  }
  return { answers, unanswered, unclear };
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
    field.value = fromSlip.slice(0, 24);
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

/** What to tell a student whose code was refused, by the server's reason; null if not one. */
const CODE_REFUSALS = {
  code_required: "Please type the one-time code from your slip.",
  code_invalid: "That code is not right for this survey. Check it against your slip (letters and digits, like K7W3P-XM4RT).",
  code_used: "That code was already used: each code answers once. If you did not use it, ask for another slip.",
};

async function send(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
    referrerPolicy: "no-referrer",
  });
  let reply = {};
  try {
    reply = await response.json();
  } catch {
    // a proxy's HTML error page: keep the status alone
  }
  return { status: response.status, reply };
}

/** The true answers leave the page's controls once they are no longer needed. */
function clearAnswers() {
  for (const radio of root.querySelectorAll("input[type=radio]")) radio.checked = false;
  for (const input of root.querySelectorAll("input.number-input")) input.value = "";
}

function start() {
  if (!root) return;
  // This script and the mechanism it imports loaded and passed their integrity checks.
  const notice = document.getElementById("script-not-started");
  if (notice) notice.remove();
  const slug = root.dataset.slug;
  const flipProbability = Number(root.dataset.flipProbability);
  const questions = readQuestions();
  const button = document.getElementById("submit-survey");
  const codeField = setupCodeField();

  let state = loadState(slug);
  if (state && state.submitted === true) {
    state = forgetTable(slug); // also drops a table an older version of this page kept
    if (!codeField) {
      showDone("already-answered");
      return;
    }
    // A survey that requires one-time codes counts answers by code, not by browser: a phone
    // shared by a class takes the next student's answer, with their code and a table drawn
    // afresh below (the note kept says only that this browser sent something).
    state = null;
  }
  if (!state || typeof state.submissionId !== "string" || !tableFits(state.table, questions)) {
    state = {
      submissionId: randomUuid(),
      table: drawTable(questions, flipProbability),
      submitted: false,
    };
    saveState(slug, state);
  }

  button.disabled = false;
  let sending = false;
  button.addEventListener("click", async () => {
    if (sending) return;
    if (codeField && !codeField.value.trim()) {
      showCodeError(codeField, CODE_REFUSALS.code_required);
      codeField.focus();
      return;
    }
    const { answers, unanswered, unclear } = trueAnswers(questions);
    if (unanswered.length > 0 || unclear.length > 0) {
      const numbersOf = (list) => list.map((q) => questions.indexOf(q) + 1).join(", ");
      const messages = [];
      if (unclear.length > 0) {
        messages.push(`Please check the number in question ${numbersOf(unclear)}: see the note under it.`);
      }
      if (unanswered.length > 0) {
        const numeric = unanswered.some((q) => q.type === "numeric");
        messages.push(
          `Please answer every question before sending${numeric ? " (a number, like 12 or 2.5)" : ""}. Not answered yet: ${numbersOf(unanswered)}.`,
        );
      }
      showStatus(messages.join(" "), true);
      const first = questions.find((q) => unclear.includes(q) || unanswered.includes(q));
      first.fieldset.querySelector("input").focus();
      return;
    }
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
              state.table[question.id].noise,
            )
          : state.table[question.id][answers[question.id]];
    }
    sending = true;
    button.disabled = true;
    showStatus("Sending your randomized answers…", false);
    try {
      const body = { submission_id: state.submissionId, answers: randomized };
      if (codeField) body.code = codeField.value.trim();
      const { status, reply } = await send(root.dataset.submitUrl, body);
      if (status === 200 || status === 201) {
        state = forgetTable(slug);
        clearAnswers();
        if (codeField) codeField.value = "";
        showStatus("", false);
        showDone("thank-you");
        return;
      }
      if (status === 409 && reply.code === "already_used") {
        state = forgetTable(slug);
        clearAnswers();
        showDone("already-answered");
        return;
      }
      if (codeField && CODE_REFUSALS[reply.code]) {
        showStatus("", false);
        showCodeError(codeField, CODE_REFUSALS[reply.code]);
        codeField.focus();
      } else if (status === 409) {
        showStatus("This survey is not taking answers right now.", true);
      } else if (status === 429) {
        showStatus("Many people are answering right now. Please wait a moment and send again.", true);
      } else {
        showStatus(
          `Your answers could not be recorded (${reply.error || `error ${status}`}). Please send again.`,
          true,
        );
      }
    } catch {
      showStatus(
        "Your answers could not be sent: the connection failed. Your answers are still here; please send again.",
        true,
      );
    } finally {
      sending = false;
      if (!state.submitted) button.disabled = false;
    }
  });
}

start();
