"""A numeric question: a bounded number, randomized by a numeric mechanism at the survey's
epsilon."""

from __future__ import annotations

import math
import numbers
from typing import Any

from flask_babel import lazy_gettext

from survey_app import privacy
from survey_app.kinds.base import Kind, QuestionDefinition
from survey_app.surveys.definition_checks import checked_text, refused
from survey_app.surveys.typed_numbers import is_unclear_number, typed_number
from survey_app.words import format_number, with_unit

MAX_UNIT_LENGTH = 40
#: A survey with a numeric question needs epsilon >= privacy.MIN_NUMERIC_EPSILON (0.01): p below
#: 1 / (1 + e^0.01) = 0.49750002..., written as the shorter limit below it.
MAX_FLIP_PROBABILITY_WITH_NUMBERS = 0.4975
#: The mechanisms a numeric question's definition may name.
NUMERIC_MECHANISM_NAMES = tuple(privacy.NUMERIC_MECHANISMS)
#: A number's field on the survey page: its label, in its unit if it has one, and the hint
#: beneath (its upper bound with the unit, as the figure wants it: "40 hours", "1 hour").
ANSWER_LABEL = lazy_gettext("Your answer")
ANSWER_LABEL_IN_UNIT = lazy_gettext("Your answer (%(unit)s)")
ANSWER_HINT = lazy_gettext(
    "A number from %(low)s to %(high)s. A number outside counts as the nearest of the two."
)
#: Bounds have at most this many decimals: the builder shows them back with as many (the
#: ``bound`` filter, format_number), so a draft saved again keeps them exactly.
MAX_BOUND_DECIMALS = 6


def _bound(field: str, raw: dict, name: str) -> float:
    """A numeric question's ``min`` or ``max``: a finite number."""
    if name not in raw:
        detail = "missing (a numeric question needs min and max, e.g. 0 and 40)"
        raise refused(f"{field}.{name}", "missing", detail)
    value = raw[name]
    # The builder passes on a bound it could not read as typed: say so if it is a number whose
    # meaning is unclear ("1,000", "1.000,5"; survey_app.surveys.typed_numbers).
    if isinstance(value, str) and is_unclear_number(value):
        raise refused(
            f"{field}.{name}",
            "unclear_number",
            f"{value.strip()!r} is not clear: write 1000 without a thousands "
            "separator, or 1.5 with one decimal point or comma",
        )
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        key = "empty" if value == "" else "not_number"  # a field left empty, in the builder
        raise refused(f"{field}.{name}", key, f"must be a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        number = math.inf
    if not math.isfinite(number):
        detail = f"must be a finite number, got {value!r}"
        raise refused(f"{field}.{name}", "not_number", detail)
    return number


def check_numeric_bounds(field: str, minimum: float, maximum: float) -> None:
    """The limits of privacy.check_numeric_bounds, as errors naming the field, and decimals.

    Bounds within +-1e12 (a million million); max - min at least a millionth, and at least a
    billionth of the bounds’ size (so 1e9 to 1e9 + 100 is refused: ask from 0 to 100 instead);
    at most MAX_BOUND_DECIMALS decimals.
    """
    limit = privacy.MAX_NUMERIC_MAGNITUDE
    for name, value in (("min", minimum), ("max", maximum)):
        if abs(value) > limit:
            detail = f"must be between -{limit:,.0f} and {limit:,.0f}, got {value!r}"
            raise refused(f"{field}.{name}", "magnitude", detail, limit=limit)
    smallest = privacy.smallest_numeric_range(minimum, maximum)
    if maximum - minimum < smallest:
        raise refused(
            f"{field}.max",
            "range_too_small",
            f"must be at least {smallest:g} above min (a millionth, and a "
            f"billionth of the bounds’ size), got min={minimum!r}, max={maximum!r}",
            smallest=smallest,
        )
    for name, value in (("min", minimum), ("max", maximum)):
        if round(value, MAX_BOUND_DECIMALS) != value:
            detail = f"must have at most {MAX_BOUND_DECIMALS} decimals, got {value!r}"
            raise refused(f"{field}.{name}", "decimals", detail, limit=MAX_BOUND_DECIMALS)
    try:
        privacy.check_numeric_bounds(minimum, maximum)
    except ValueError as error:  # the checks above are the same: a safety net
        raise refused(field, "bounds", str(error)) from error


def parse_numeric_question(field: str, text: str, raw: dict) -> QuestionDefinition:
    """A numeric question: finite ``min`` below ``max``, optional ``unit`` and ``mechanism``."""
    if "options" in raw:
        raise refused(f"{field}.options", "no_options", "a numeric question has no options")
    minimum = _bound(field, raw, "min")
    maximum = _bound(field, raw, "max")
    if not minimum < maximum:
        detail = f"must be above min ({minimum:g}), got {maximum:g}"
        raise refused(f"{field}.max", "max_not_above_min", detail, minimum=minimum)
    check_numeric_bounds(field, minimum, maximum)
    unit = checked_text(f"{field}.unit", raw.get("unit", ""), MAX_UNIT_LENGTH, required=False)
    mechanism = raw.get("mechanism")
    if mechanism is not None and mechanism not in NUMERIC_MECHANISM_NAMES:
        names = " or ".join(repr(name) for name in NUMERIC_MECHANISM_NAMES)
        detail = f"must be {names}, got {mechanism!r}"
        raise refused(f"{field}.mechanism", "mechanism", detail)
    return QuestionDefinition(
        text, "numeric", minimum=minimum, maximum=maximum, unit=unit, mechanism=mechanism
    )


def typed_or_text(text: str) -> float | str:
    """A number typed in a field, by the one rule of survey_app.surveys.typed_numbers; else the
    text, which the definition's check names (asking how to write it, if it is unclear)."""
    value = typed_number(text)
    return text if value is None else value


class Numeric(Kind):
    name = "numeric"
    label = lazy_gettext("A number")
    fields = ("min", "max", "unit", "mechanism")
    has_options = False
    lesson_form = "number"
    add_words = "a number question"
    add_label = lazy_gettext("Add a number question")
    builder_partial = "kinds/numeric_builder.html"
    partial = "kinds/numeric.html"
    script = "js/kinds/numeric.js"
    script_role = lazy_gettext("reads a number you type and has it scrambled")
    max_flip_probability = MAX_FLIP_PROBABILITY_WITH_NUMBERS
    max_unit_length = MAX_UNIT_LENGTH
    flip_limit_words = (
        "a numeric question",
        "a number question",
        "closer to 0.5 a number would carry no information",
    )
    flip_limit_refused = lazy_gettext(
        "With a number question, the flip probability can be at most %(limit)s (closer to 0.5 "
        "a number would carry no information)"
    )

    def parse(self, field: str, text: str, raw: dict) -> QuestionDefinition:
        return parse_numeric_question(field, text, raw)

    def to_definition(self, question: Any) -> dict:
        named = {"mechanism": question.numeric_mechanism} if question.numeric_mechanism else {}
        return {
            "min": question.minimum,
            "max": question.maximum,
            "unit": question.unit or "",
        } | named

    def blank(self) -> dict:
        # Its bounds start empty: the fields show placeholders.
        return super().blank() | {"min": "", "max": "", "unit": ""}

    def from_form(self, typed: dict[str, str]) -> dict:
        """Bounds as typed: numbers where they are clear (else the text, which the definition's
        check names), the unit, and the mechanism unless "automatic" (empty).

        One decimal comma is a decimal point ("2,5" is 2.5); an unclear bound ("1,000",
        "1.000,5") stays text, which the check refuses, asking for 1000 or 1.5.
        """
        question: dict[str, object] = {"unit": typed["unit"]}
        for name in ("min", "max"):
            question[name] = typed_or_text(typed[name].strip())
        if typed["mechanism"]:
            question["mechanism"] = typed["mechanism"]
        return question

    def mechanism(self, question: Any) -> privacy.Mechanism:
        """The named mechanism, else the one fixed at opening, else the one of smaller
        worst-case variance at the survey's epsilon (privacy.numeric_mechanism)."""
        survey = question.survey
        return privacy.numeric_mechanism(
            question.minimum,
            question.maximum,
            survey.epsilon_per_question,
            question.numeric_mechanism or question.chosen_mechanism,
            survey.expected_respondents,
        )

    def at_open(self, question: Any) -> None:
        if question.numeric_mechanism is None:
            question.chosen_mechanism = question.mechanism.name

    def way(self, flip_percent: str) -> str:
        return "adds random noise to each number"

    def answer_label(self, question: Any) -> str:
        """The label of a question's number field: "Your answer (hours)"."""
        if not question.unit:
            return str(ANSWER_LABEL)
        return str(ANSWER_LABEL_IN_UNIT) % {"unit": question.unit}

    def answer_hint(self, question: Any) -> str:
        """What the number field takes: "A number from 0 to 40 hours. ...", "... 0 to 1 hour"."""
        return str(ANSWER_HINT) % {
            "low": format_number(question.minimum),
            "high": with_unit(format_number(question.maximum), question.unit),
        }


KIND = Numeric()
