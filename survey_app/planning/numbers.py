"""Planning numeric questions: the average's guaranteed margin in the question's unit.

Split from :mod:`survey_app.planning.shares` (which words the builder's readout and the dashboard's
plan): the figures come from :mod:`survey_app.privacy`'s numeric mechanisms at the survey's
epsilon, and a margin typed in points is that share of a question's range (±10 points: a tenth
of it, ±4 hours on a question from 0 to 40 hours).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from babel.lists import format_list
from flask_babel import gettext, ngettext

from survey_app import kinds, privacy
from survey_app.kinds.numeric import MAX_FLIP_PROBABILITY_WITH_NUMBERS
from survey_app.results import rounding
from survey_app.storage.models import Survey
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.web.languages import current_locale, is_english
from survey_app.words import (
    counted,
    grouped,
    join_words,
    local_figure,
    numeric_places,
    with_unit,
)

#: A margin this wide says next to nothing: a share of 50% could be anything from 10% to 90%,
#: an average anywhere in the middle four fifths of its range. A share of the scale (0.4 is
#: ±40 points of a share, or ±16 hours on a question from 0 to 40 hours).
NEXT_TO_NOTHING = 0.4

#: Said after a margin at least NEXT_TO_NOTHING wide.
SAYS_NEXT_TO_NOTHING = ", which says next to nothing"

#: A question's text is named in the builder's readout up to this many characters.
NAME_LENGTH = 40


def question_name(text: str, number: int) -> str:
    """How the readout names a question: its text in quotes, shortened, or its number."""
    text = " ".join(text.split())
    if not text:
        return gettext("question %(number)s", number=number)
    if len(text) > NAME_LENGTH:
        text = text[: NAME_LENGTH - 1].rstrip() + "…"
    return gettext("“%(text)s”", text=text)


#: What the readout leaves out until it is complete, each kind of question in its own words.
LEFT_OUT_CHOICES = "{count} without 2 to {high} options"
LEFT_OUT_NUMBERS = "{count} without a usable smallest and largest answer"
LEFT_OUT = " ({questions} yet left out.)"


def left_out_words(choices: int, numbers: int = 0) -> str:
    """The questions the readout cannot plan yet, each named by its own kind: " (1
    multiple-choice question without 2 to 12 options yet left out.)"; "" when there are none."""
    if not is_english():
        return left_out_said(choices, numbers)
    parts = []
    if choices:
        count = counted(choices, "multiple-choice question")
        parts.append(LEFT_OUT_CHOICES.format(count=count, high=privacy.MAX_OPTIONS))
    if numbers:
        parts.append(LEFT_OUT_NUMBERS.format(count=counted(numbers, "number question")))
    return LEFT_OUT.format(questions=join_words(parts)) if parts else ""


def left_out_said(choices: int, numbers: int) -> str:
    """left_out_words in the page's language, each kind's part a whole message of the
    catalog."""
    parts = []
    if choices:
        parts.append(
            ngettext(
                "%(count)s multiple-choice question without 2 to %(high)s options",
                "%(count)s multiple-choice questions without 2 to %(high)s options",
                choices,
                count=grouped(choices),
                high=privacy.MAX_OPTIONS,
            )
        )
    if numbers:
        parts.append(
            ngettext(
                "%(count)s number question without a usable smallest and largest answer",
                "%(count)s number questions without a usable smallest and largest answer",
                numbers,
                count=grouped(numbers),
            )
        )
    if not parts:
        return ""
    return " " + gettext("(%(questions)s yet left out.)", questions=all_of(parts))


def all_of(parts: list[str]) -> str:
    """ "a, b and c", as the page's language lists them (CLDR's; English's own, join_words)."""
    if is_english():
        return join_words(parts)
    return format_list(parts, locale=current_locale())


@dataclass(frozen=True)
class PlannedNumber:
    """A numeric question: planned on its own, its margin in its unit."""

    name: str
    lo: float
    hi: float
    unit: str
    mechanism: str | None = None

    def amount(self, value: float) -> str:
        """A margin in the question's unit: "4.1 hours", "1 hour" (3 significant digits of the
        range)."""
        places = numeric_places(self.lo, self.hi)
        figure = rounding.up(value, 10.0**-places)
        if not is_english():
            return with_unit(local_figure(figure, places), self.unit)
        return with_unit(rounding.text(figure, places), self.unit)


def numeric_questions(questions: Sequence[dict]) -> tuple[list[PlannedNumber], int]:
    """The builder's numeric questions with usable bounds, and how many lack them."""
    numbers, left_out = [], 0
    for index, question in enumerate(questions):
        kind = kinds.KINDS.get(question.get("type"))
        if kind is None or kind.has_options:
            continue  # planned by its shares (survey_app.planning.shares)
        # Its own kind's fields only: what the page carries for other kinds is no concern of it.
        own = {name: question[name] for name in kind.fields if name in question}
        try:
            parsed = kind.parse(f"questions[{index}]", "x", own)
        except SurveyDefinitionError:
            left_out += 1
            continue
        numbers.append(
            PlannedNumber(
                question_name(question.get("text", ""), index + 1),
                parsed.minimum,
                parsed.maximum,
                parsed.unit or "",
                parsed.mechanism,
            )
        )
    return numbers, left_out


def numeric_half_width(
    number: PlannedNumber, flip_probability: float, n: int, confidence: float
) -> float:
    """The guaranteed half-width (in the question's unit) n answers reach at p, with the
    mechanism a survey planned for n would get (or the one named)."""
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    mechanism = privacy.numeric_mechanism(number.lo, number.hi, epsilon, number.mechanism, n)
    return mechanism.half_width(n, confidence)


def numeric_respondents(
    number: PlannedNumber, flip_probability: float, margin: float, confidence: float
) -> int:
    """The fewest answers reaching ``margin`` (a share of the question's range) at p, each class
    size with the mechanism it would get (or the one named)."""
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    wanted = margin * (number.hi - number.lo)
    return privacy.numeric_respondents_for(
        number.lo, number.hi, epsilon, wanted, number.mechanism, confidence
    )


def numbers_readout(
    flip_probability: float,
    class_size: int,
    confidence: float,
    numbers: Sequence[PlannedNumber],
) -> dict:
    """What a class will learn of each numeric question's average, in its unit."""
    if flip_probability > MAX_FLIP_PROBABILITY_WITH_NUMBERS:
        highest = f"{MAX_FLIP_PROBABILITY_WITH_NUMBERS:g}"
        return {
            "ok": False,
            "error": gettext(
                "A survey with a numeric question needs a flip probability of at most %(p)s.",
                p=highest if is_english() else local_figure(MAX_FLIP_PROBABILITY_WITH_NUMBERS, 6),
            ),
        }
    figures = [
        (number, numeric_half_width(number, flip_probability, class_size, confidence))
        for number in numbers
    ]
    parts = [average_within(n, h) for n, h in figures]
    return {
        "ok": True,
        "class_size": class_size,
        "confidence": confidence,
        "questions": [],
        "numbers": [
            {"label": n.name, "unit": n.unit, "half_width": h, "margin": n.amount(h)}
            for n, h in figures
        ],
        "text": ngettext(
            "With %(count)s student, %(averages)s (guaranteed ranges).",
            "With %(count)s students, %(averages)s (guaranteed ranges).",
            class_size,
            count=grouped(class_size),
            averages=all_of(parts),
        ),
    }


def average_within(number: PlannedNumber, half_width: float) -> str:
    """What a class will learn of one number's average: "the average of “Hours?” within ±4.1
    hours", and that this says next to nothing where it does."""
    said = {"name": number.name, "margin": number.amount(half_width)}
    if half_width >= NEXT_TO_NOTHING * (number.hi - number.lo):
        return gettext(
            "the average of %(name)s within ±%(margin)s, which says next to nothing", **said
        )
    return gettext("the average of %(name)s within ±%(margin)s", **said)


@dataclass(frozen=True)
class NumericPlan:
    """The dashboard's plan for a numeric question: now, and for the margin asked (both in
    words, in the question's unit; a :class:`~survey_app.planning.shares.Plan`'s margins are
    shares)."""

    number: PlannedNumber
    #: The margin asked for, in the question's unit (that share of its range): "±4 hours".
    margin_words: str
    needed: int
    #: The guaranteed margin with the respondents so far (None before any).
    margin_now_words: str | None


@dataclass(frozen=True)
class NumberTradeOffRow:
    """A row of the dashboard's trade-off table for a survey of numbers alone."""

    flip_probability: float
    epsilon: float
    #: The guaranteed margin, in the question's unit, at each of the table's class sizes.
    margins: tuple[str, ...]
    needed: int
    is_current: bool


@dataclass(frozen=True)
class NumbersPlan:
    """A survey's numeric questions planned at once: each one's plan, and the trade-off table
    of the first (for a survey of numbers alone; else empty)."""

    plans: tuple[NumericPlan, ...]
    trade_off: tuple[NumberTradeOffRow, ...] = ()


def survey_numbers(survey: Survey) -> list[PlannedNumber]:
    """A survey's numeric questions as the planner takes them."""
    return [
        PlannedNumber(
            question_name(question.text, number),
            question.minimum,
            question.maximum,
            question.unit or "",
            # The mechanism its answers come (or will come) with: named, fixed at opening, or
            # the rule's for the class planned.
            question.mechanism.name,
        )
        for number, question in enumerate(survey.questions, start=1)
        if not question.has_options
    ]


def numeric_plan(
    number: PlannedNumber, flip_probability: float, margin: float, confidence: float, n: int
) -> NumericPlan:
    """A numeric question's respondents needed for ``margin`` (a share of its range), and the
    margin its n answers so far reach."""
    return NumericPlan(
        number=number,
        margin_words=number.amount(margin * (number.hi - number.lo)),
        needed=numeric_respondents(number, flip_probability, margin, confidence),
        margin_now_words=(
            number.amount(numeric_half_width(number, flip_probability, n, confidence))
            if n
            else None
        ),
    )


def plan_numbers(
    survey: Survey,
    margin: float,
    confidence: float,
    n: int,
    trade_off_probabilities: Sequence[float] = (),
    sizes: Sequence[int] = (),
) -> NumbersPlan:
    """Every numeric question's plan, and the first one's trade-off table at those flip
    probabilities and class sizes (none asked: no table)."""
    p = survey.flip_probability
    numbers = survey_numbers(survey)
    plans = tuple(numeric_plan(number, p, margin, confidence, n) for number in numbers)
    if not numbers or not trade_off_probabilities:
        return NumbersPlan(plans)
    table = number_trade_off(numbers[0], trade_off_probabilities, p, sizes, margin, confidence)
    return NumbersPlan(plans, tuple(table))


def number_trade_off(
    number: PlannedNumber,
    flip_probabilities: Sequence[float],
    current: float,
    sizes: Sequence[int],
    margin: float,
    confidence: float,
) -> list[NumberTradeOffRow]:
    """How privacy, class size and the average's margin trade off for ``number``."""
    return [
        NumberTradeOffRow(
            flip_probability=p,
            epsilon=privacy.epsilon_from_flip_probability(p),
            margins=tuple(
                number.amount(numeric_half_width(number, p, size, confidence)) for size in sizes
            ),
            needed=numeric_respondents(number, p, margin, confidence),
            is_current=abs(p - current) < 1e-9,
        )
        for p in flip_probabilities
        if p <= MAX_FLIP_PROBABILITY_WITH_NUMBERS
    ]
