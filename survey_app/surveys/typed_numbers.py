"""Whether a number typed by a person is clear, and which number it is.

One rule, for the builder's fields (bounds, p, Warner's q) and the respondent's number answers;
static/js/typed-numbers.js is the same rule in the browser, and tests/typed_numbers.json holds
the cases both are tested against.

- Spaces around the number do not count. A sign may lead: ``+``, ``-`` or the minus sign
  ``−`` (U+2212, what a word processor or a French keyboard types).
- One decimal point or decimal comma (phones in many languages type a comma): ``2.5``,
  ``2,5``, ``.5`` and ``5.`` are clear.
- Thousands may be grouped with spaces (a space, a no-break, thin or figure space), the way
  French and the SI write them: ``1 000`` and ``12 500,5`` are clear, when every group after
  the first has three digits.
- Not clear (a number, but which one?): a point or comma after one to three digits (not
  starting with 0) or after spaced groups, before exactly three digits (``1,500`` is 1500 in
  English and 1.5 in French; ``1.500`` the other way round; ``0.125`` is clear, as no one
  groups a thousand after a 0), several points or commas (``1.000,5``), spaces that do not
  group thousands (``12 5``).
- In a language's own way (``language``, the page's): a number written with both of its
  separators, thousands grouped by the one and decimals after the other, is clear: ``1.234,5``
  in German, ``1,234.5`` in English (French groups with spaces, clear in every language).
  Without both, the separator stays unclear: ``1.234`` is 1234 to a German and 1.234 to many
  phones' keypads.
- Not a number: anything else, among them exponents (``1e3``), NaN, infinities, hexadecimal,
  underscores and digits of other scripts, or a number too large for a float.

Whole numbers have a rule of their own, in two forms. :func:`whole_number` reads what the app's
own links and forms carry (a lesson's step, a projector's page, how many questions): ASCII
digits alone, at most MAX_WHOLE_DIGITS of them. :func:`typed_count` reads a count a professor
types (a class size, a number of codes): the same, and its digits may be grouped in threes by
the spaces above or by commas, as the pages themselves write counts ("2,000 students"). A count
is whole, so a comma before three digits can only group thousands: ``1,000`` is clear here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Characters ignored around a number.
_AROUND = " \t\n\r\u00a0\u2007\u2009\u202f"
#: One of these between groups of three digits: a space, no-break space, figure space, thin
#: space or narrow no-break space.
_GROUP = "[ \u00a0\u2007\u2009\u202f]"
_SIGN = "[-+\u2212]?"

_PLAIN = re.compile(rf"{_SIGN}(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)")
_GROUPED_DIGITS = rf"[1-9][0-9]{{0,2}}(?:{_GROUP}[0-9]{{3}})+"
_GROUPED = re.compile(rf"{_SIGN}{_GROUPED_DIGITS}(?:[.,][0-9]*)?")
#: A separator that could be grouping thousands: after 1-3 digits or spaced groups, before 3.
_MAYBE_THOUSANDS = re.compile(
    rf"{_SIGN}(?:[1-9][0-9]{{0,2}}|[1-9][0-9]{{0,2}}(?:{_GROUP}[0-9]{{3}})+)[.,][0-9]{{3}}"
)
#: The most digits a whole number may have: no count, step or page comes near it, a float holds
#: it exactly (the browser's numbers are floats), and ``int`` is never asked to read thousands
#: of digits (past 4300 it refuses: a 500 instead of a plain answer).
MAX_WHOLE_DIGITS = 15
_WHOLE = re.compile(rf"[0-9]{{1,{MAX_WHOLE_DIGITS}}}")
#: A count's digits grouped in threes, by one kind of separator throughout.
_COUNT_GROUPS = (re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+"), re.compile(_GROUPED_DIGITS))
#: Made of digits, points, commas and spaces only: a number, clear or not.
_NUMBER_LIKE = re.compile(rf"{_SIGN}(?:[0-9.,]|{_GROUP})*[0-9](?:[0-9.,]|{_GROUP})*")


#: Per language, a number written with both its separators: thousands grouped by the first,
#: decimals after the second (see the module's docstring).
_SEPARATORS = {"de": (".", ","), "en": (",", ".")}
_GROUPED_IN = {
    language: re.compile(
        rf"{_SIGN}[1-9][0-9]{{0,2}}(?:{re.escape(group)}[0-9]{{3}})+{re.escape(decimal)}[0-9]+"
    )
    for language, (group, decimal) in _SEPARATORS.items()
}


@dataclass(frozen=True)
class TypedNumber:
    """What was typed: a clear ``value``, ``unclear`` (a number, but which one?), or neither."""

    value: float | None = None
    unclear: bool = False


def read_typed_number(typed: str, language: str | None = None) -> TypedNumber:
    """The number ``typed`` (text a person typed), by the rule in this module's docstring;
    ``language`` (the page's: "de", "de-CH") adds its own way of grouping thousands."""
    text = typed.strip(_AROUND)
    primary = (language or "").split("-")[0].lower()
    if primary in _GROUPED_IN and _GROUPED_IN[primary].fullmatch(text):
        group, decimal = _SEPARATORS[primary]
        value = float(text.replace(group, "").replace(decimal, ".").replace("\u2212", "-"))
        return TypedNumber(value=value) if abs(value) != float("inf") else TypedNumber()
    if _MAYBE_THOUSANDS.fullmatch(text):
        return TypedNumber(unclear=True)
    if _PLAIN.fullmatch(text) or _GROUPED.fullmatch(text):
        plain = re.sub(_GROUP, "", text).replace(",", ".").replace("\u2212", "-")
        value = float(plain)
        return TypedNumber(value=value) if abs(value) != float("inf") else TypedNumber()
    return TypedNumber(unclear=bool(_NUMBER_LIKE.fullmatch(text)))


def typed_number(typed: str, language: str | None = None) -> float | None:
    """The clear number ``typed``, else None (not clear, or not a number)."""
    return read_typed_number(typed, language).value


def is_unclear_number(typed: str, language: str | None = None) -> bool:
    """True if ``typed`` is a number written so that which one it is is not clear."""
    return read_typed_number(typed, language).unclear


def whole_number(text: str) -> int | None:
    """``text`` as a whole number if it is ASCII digits alone, at most MAX_WHOLE_DIGITS of
    them; else None.

    Not ``str.isdigit`` and ``int``: "²" is a digit that ``int`` refuses, "٣" one that it
    reads, and a string of thousands of digits one it refuses; ``int`` also takes spaces,
    signs and underscores ("+1_0"), which no link of the app writes.
    """
    return int(text) if _WHOLE.fullmatch(text) else None


def typed_count(typed: str) -> int | None:
    """The whole count ``typed`` (a class size, a number of codes), by the rule in this
    module's docstring: "40", " 1 000 " and "1,000" are clear; "1.000", "2,5", "-3", "1e3"
    and "4.0" are not (None)."""
    text = typed.strip(_AROUND)
    if any(groups.fullmatch(text) for groups in _COUNT_GROUPS):
        text = re.sub(rf",|{_GROUP}", "", text)
    return whole_number(text)
