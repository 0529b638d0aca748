// Whether a number a person typed is clear, and which number it is: the rule of
// survey_app/surveys/typed_numbers.py (its docstring says it in words), tested against the same cases
// (tests/typed_numbers.json). A sign (+, - or the minus sign U+2212), one decimal point or
// comma, thousands grouped by spaces; "1,500" or "1.500" (a thousands separator, or a decimal
// one?) and several separators are unclear; exponents, NaN, infinities and hex are not numbers.
// In a page's language, a number with both its separators is clear: "1.234,5" in German,
// "1,234.5" in English.

import { say } from "./page-words.js";

const AROUND = /^[ \t\n\r\u00a0\u2007\u2009\u202f]+|[ \t\n\r\u00a0\u2007\u2009\u202f]+$/g;
const GROUP = "[ \\u00a0\\u2007\\u2009\\u202f]";
const SIGN = "[-+\\u2212]?";

const PLAIN = new RegExp(`^${SIGN}(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)$`);
const GROUPED = new RegExp(`^${SIGN}[1-9][0-9]{0,2}(?:${GROUP}[0-9]{3})+(?:[.,][0-9]*)?$`);
const MAYBE_THOUSANDS = new RegExp(
  `^${SIGN}(?:[1-9][0-9]{0,2}|[1-9][0-9]{0,2}(?:${GROUP}[0-9]{3})+)[.,][0-9]{3}$`,
);
const NUMBER_LIKE = new RegExp(`^${SIGN}(?:[0-9.,]|${GROUP})*[0-9](?:[0-9.,]|${GROUP})*$`);
const GROUPS = new RegExp(GROUP, "g");
// Per language: thousands grouped by the first separator, decimals after the second.
const SEPARATORS = { de: [".", ","], en: [",", "."] };
const escaped = (mark) => mark.replace(".", "\\.");
const GROUPED_IN = Object.fromEntries(
  Object.entries(SEPARATORS).map(([language, [group, decimal]]) => [
    language,
    new RegExp(`^${SIGN}[1-9][0-9]{0,2}(?:${escaped(group)}[0-9]{3})+${escaped(decimal)}[0-9]+$`),
  ]),
);

/**
 * What was typed: { value } for a clear number, { unclear: true } for a number whose meaning
 * is not clear, or {} for anything else (nothing typed, letters, 1e3). ``language`` (the
 * page's, "de" or "de-CH") adds its own way of grouping thousands.
 */
export function readTypedNumber(typed, language = "") {
  const text = String(typed).replace(AROUND, "");
  const primary = String(language || "").split("-")[0].toLowerCase();
  if (Object.hasOwn(GROUPED_IN, primary) && GROUPED_IN[primary].test(text)) {
    const [group, decimal] = SEPARATORS[primary];
    const value = Number(text.split(group).join("").replace(decimal, ".").replace("\u2212", "-"));
    return Number.isFinite(value) ? { value } : {};
  }
  if (MAYBE_THOUSANDS.test(text)) return { unclear: true };
  if (PLAIN.test(text) || GROUPED.test(text)) {
    const value = Number(text.replace(GROUPS, "").replace(",", ".").replace("\u2212", "-"));
    return Number.isFinite(value) ? { value } : {};
  }
  return NUMBER_LIKE.test(text) ? { unclear: true } : {};
}

/** The clear number typed, else null. */
export function typedNumber(typed, language = "") {
  const { value } = readTypedNumber(typed, language);
  return value === undefined ? null : value;
}

/**
 * How to write an unclear number: "1,500" -> "Write 1500 without a separator, or 1.5 ...", the
 * decimal written with the page language's mark ("1,5" in German).
 */
export function unclearNumberMessage(typed) {
  const text = String(typed).replace(AROUND, "").replace(GROUPS, "");
  const sign = /^[-\u2212]/.test(text) ? "-" : "";
  const digits = text.replace(/^[-+\u2212]/, "");
  const parts = digits.split(/[.,]/);
  if (parts.length === 2 && parts.every((part) => /^[0-9]*$/.test(part))) {
    const whole = sign + digits.replace(/[.,]/g, "").replace(/^0+(?=\d)/, "");
    const decimal = sign + `${parts[0] || "0"}.${parts[1]}`.replace(/\.?0+$/, "").replace(".", say("decimal_mark"));
    return say("write_whole_or_decimal", { whole, decimal });
  }
  return say("write_without_separators");
}

// Dashes a keyboard or word processor types for a minus sign, and marks some write between
// thousands (1_000, 1'000): a repair that turns the text into a clear number says what to type.
const DASHES = /[\u2010-\u2015\ufe63\uff0d]/g;
const GROUP_MARKS = /(?<=[0-9])[_'\u2019`](?=[0-9]{3})/g;
const EXPONENT = /^[-+\u2212]?(?:[0-9]+[.,]?[0-9]*|[.,][0-9]+)e[-+\u2212]?[0-9]+$/i;
// A number among words ("about 7", "12 cm"): a sign, digits, one decimal point or comma.
const NUMBER_AMONG_WORDS = /[-+\u2212]?(?:[0-9]+(?:[.,][0-9]+)?|[.,][0-9]+)/g;
// A text quoted back is cut to this many characters: a note under a field, not a copy of it.
const QUOTED_LENGTH = 20;

function quoted(text) {
  const characters = Array.from(text);
  const shown = characters.length > QUOTED_LENGTH ? `${characters.slice(0, QUOTED_LENGTH).join("")}…` : text;
  return say("quoted", { text: shown });
}

/** The number a text that is no number most likely meant, as the person should type it; or null. */
function meantNumber(text) {
  for (const repaired of [text.replace(DASHES, "-"), text.replace(GROUP_MARKS, "")]) {
    if (repaired !== text && readTypedNumber(repaired).value !== undefined) return repaired;
  }
  if (EXPONENT.test(text)) {
    const value = Number(text.replace(",", ".").replace("\u2212", "-"));
    if (Number.isFinite(value) && !/e/i.test(String(value))) return String(value);
  }
  return null;
}

/**
 * Why a text typed as a number is none, and what to type instead: "about 7" -> "Type 7, the
 * number alone (not “about 7”)."; "" when nothing was typed or it is a number (clear or not).
 */
export function notANumberMessage(typed, language = "") {
  const text = String(typed).replace(AROUND, "");
  const reading = readTypedNumber(text, language);
  if (text === "" || reading.value !== undefined || reading.unclear) return "";
  const meant = meantNumber(text);
  if (meant !== null) return say("type_meant", { meant, quoted: quoted(text) });
  if (PLAIN.test(text) || GROUPED.test(text)) return say("too_large");
  if (/\p{Nd}/u.test(text) && !/[0-9]/.test(text)) {
    return say("type_digits", { quoted: quoted(text) });
  }
  const numbers = text.match(NUMBER_AMONG_WORDS) || [];
  if (numbers.length === 1 && readTypedNumber(numbers[0]).unclear) return unclearNumberMessage(numbers[0]);
  if (numbers.length === 1) return say("type_alone", { number: numbers[0], quoted: quoted(text) });
  if (numbers.length > 1) return say("type_one_alone", { quoted: quoted(text) });
  return say("type_a_number", { quoted: quoted(text) });
}

/** What is wrong with a number typed, in a sentence for the note under its field; "" if nothing is. */
export function typedNumberMessage(typed, language = "") {
  if (readTypedNumber(typed, language).unclear) return unclearNumberMessage(typed);
  return notANumberMessage(typed, language);
}
