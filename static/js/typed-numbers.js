// Whether a number a person typed is clear, and which number it is: the rule of
// survey_app/surveys/typed_numbers.py (its docstring says it in words), tested against the same cases
// (tests/typed_numbers.json). A sign (+, - or the minus sign U+2212), one decimal point or
// comma, thousands grouped by spaces; "1,500" or "1.500" (a thousands separator, or a decimal
// one?) and several separators are unclear; exponents, NaN, infinities and hex are not numbers.

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

/**
 * What was typed: { value } for a clear number, { unclear: true } for a number whose meaning
 * is not clear, or {} for anything else (nothing typed, letters, 1e3).
 */
export function readTypedNumber(typed) {
  const text = String(typed).replace(AROUND, "");
  if (MAYBE_THOUSANDS.test(text)) return { unclear: true };
  if (PLAIN.test(text) || GROUPED.test(text)) {
    const value = Number(text.replace(GROUPS, "").replace(",", ".").replace("\u2212", "-"));
    return Number.isFinite(value) ? { value } : {};
  }
  return NUMBER_LIKE.test(text) ? { unclear: true } : {};
}

/** The clear number typed, else null. */
export function typedNumber(typed) {
  const { value } = readTypedNumber(typed);
  return value === undefined ? null : value;
}

/** How to write an unclear number: "1,500" -> "Write 1500 without a separator, or 1.5 ...". */
export function unclearNumberMessage(typed) {
  const text = String(typed).replace(AROUND, "").replace(GROUPS, "");
  const sign = /^[-\u2212]/.test(text) ? "-" : "";
  const digits = text.replace(/^[-+\u2212]/, "");
  const parts = digits.split(/[.,]/);
  if (parts.length === 2 && parts.every((part) => /^[0-9]*$/.test(part))) {
    const whole = sign + digits.replace(/[.,]/g, "").replace(/^0+(?=\d)/, "");
    const decimal = sign + `${parts[0] || "0"}.${parts[1]}`.replace(/\.?0+$/, "");
    return `Write ${whole} without a separator, or ${decimal} with one decimal point or comma.`;
  }
  return "Write the number without thousands separators and with at most one decimal point or comma, like 1500 or 1.5.";
}
