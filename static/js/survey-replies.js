// What the respondent page tells a student: what each reply of the submission API means for
// the page, and which answers are still missing. The server's error codes are listed once in
// survey_app/web/errors.py; REPLY_CODES names what this page does with every code that endpoint can
// send (a test checks the two lists are the same codes).

/** What to tell a student whose one-time code was refused, by the server's reason. */
export const CODE_REFUSALS = {
  code_required: "Please type the one-time code from your slip.",
  code_invalid: "That code is not right for this survey. Check it against your slip (letters and digits, like K7W3P-XM4RT).",
  code_used: "That code was already used: each code answers once. If you did not use it, ask for another slip.",
};

const NOT_TAKING_ANSWERS = "This survey is not taking answers right now.";
const BUSY = "Many people are answering right now. Please wait a moment and send again.";

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
  if (handling === "code" && hasCodeField) return { codeError: CODE_REFUSALS[reply.code] };
  if (handling === "closed") return { message: NOT_TAKING_ANSWERS };
  if (handling === "busy") return { message: BUSY };
  return {
    message: `Your answers could not be recorded (${reply.error || `error ${status}`}). Please send again.`,
  };
}

/**
 * The status line when answers are missing or not clear: ``problems`` are the questions whose
 * number is not clear or no number, each { number (from 1), message (the note under its
 * field) }; ``unansweredNumbers`` the questions left blank.
 */
export function missingAnswersMessage(problems, unansweredNumbers, numberUnanswered) {
  const messages = problems.map(
    ({ number, message }) => `Please check question ${number}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`,
  );
  if (unansweredNumbers.length > 0) {
    const hint = numberUnanswered ? " (a number, like 12 or 2.5)" : "";
    messages.push(`Please answer every question before sending${hint}. Not answered yet: ${unansweredNumbers.join(", ")}.`);
  }
  return messages.join(" ");
}

export const CONNECTION_FAILED =
  "Your answers could not be sent: the connection failed. Your answers are still here; please send again.";
