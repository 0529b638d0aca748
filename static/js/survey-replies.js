// What the respondent page tells a student: what each reply of the submission API means for
// the page, and which answers are still missing. The server's error codes are listed once in
// survey_app/web/errors.py; REPLY_CODES names what this page does with every code that endpoint can
// send (a test checks the two lists are the same codes). Every sentence is the page's own, in
// its language (page-words.js).

import { say } from "./page-words.js";

/** How long a submission waits for the server's reply before the page gives the button back:
 * on a stalled connection (a crowded hall's Wi-Fi) the student is asked to send again, which is
 * safe, since the same submission id is stored once whatever reached the server. */
export const SEND_TIMEOUT_MS = 15000;

/**
 * Post a submission (its randomized answers) from ``device``; the reply's status and JSON
 * (``{}`` where its body is not JSON). Rejects when the connection fails, or (with an
 * AbortError) when no whole reply came within ``timeoutMs``: the page then asks the student to
 * send again.
 */
export async function sendSubmission(url, body, device, timeoutMs = SEND_TIMEOUT_MS) {
  // AbortController with a timer, not AbortSignal.timeout: older Safari has only the former.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  try {
    const response = await fetch(url, {
      method: "POST",
      // The device id lets the server limit one device, not the lecture hall behind its address.
      headers: { "Content-Type": "application/json", Accept: "application/json", "Survey-Device": device },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
      signal: stop.signal,
    });
    let reply = {};
    try {
      reply = await response.json();
    } catch (error) {
      // A reply cut off at the timeout says nothing sure: the page asks to send again.
      if (stop.signal.aborted) throw error;
      // a proxy's HTML error page: keep the status alone
    }
    return { status: response.status, reply };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every code the submission endpoint may send, and what the page does with it: "answered"
 * (the server has this submission already), "code" (the one-time code's field says why),
 * "closed", "busy", or "generic" (the server's own words, and "please send again").
 */
export const REPLY_CODES = {
  already_used: "answered",
  code_required: "code",
  code_invalid: "code",
  code_used: "code",
  survey_not_open: "closed",
  rate_limited: "busy",
  invalid: "generic",
  not_found: "generic",
  method_not_allowed: "generic",
  too_large: "generic",
  internal: "generic",
};

/**
 * What a reply to a submission means for the page: { sent: true } once the server has it,
 * { answered: true } when it had it already, { codeError } for the code's field, or
 * { message } for the status line.
 */
export function replyOutcome(status, reply, hasCodeField) {
  if (status === 200 || status === 201) return { sent: true };
  // A reply without a code (a proxy's own page) is read by its status alone.
  const handling = REPLY_CODES[reply.code] || { 409: "closed", 429: "busy" }[status] || "generic";
  if (handling === "answered") return { answered: true };
  // A refused code's words are the page's, by the server's reason (code_required, ...).
  if (handling === "code" && hasCodeField) return { codeError: say(reply.code) };
  if (handling === "closed") return { message: say("not_taking_answers") };
  if (handling === "busy") return { message: say("busy") };
  // The server's own reason is English (the API speaks English to every program): a page in
  // another language gives the status alone.
  const reason = reply.error && pageLanguage() === "en" ? reply.error : say("error_status", { status });
  return { message: say("not_recorded", { reason }) };
}

/** The page's language ("de" for de-CH); "en" outside a page. */
function pageLanguage() {
  return (globalThis.document?.documentElement.lang || "en").split("-")[0].toLowerCase();
}

/** Languages whose sentence after a colon starts in lower case (German keeps its capital). */
const LOWER_CASE_AFTER_COLON = new Set(["en", "fr"]);

/**
 * The status line when answers are missing or not clear: ``problems`` are the questions whose
 * number is not clear or no number, each { number (from 1), message (the note under its
 * field) }; ``unansweredNumbers`` the questions left blank.
 */
export function missingAnswersMessage(problems, unansweredNumbers, numberUnanswered) {
  const lower = LOWER_CASE_AFTER_COLON.has(pageLanguage());
  const messages = problems.map(({ number, message }) =>
    say("check_question", { number, message: lower ? `${message.charAt(0).toLowerCase()}${message.slice(1)}` : message }),
  );
  if (unansweredNumbers.length > 0) {
    const key = numberUnanswered ? "answer_every_question_number" : "answer_every_question";
    messages.push(say(key, { numbers: unansweredNumbers.join(", ") }));
  }
  return messages.join(" ");
}
