"""The dashboard's planning section in words (a planning.Plan): how many respondents a margin
needs, what the respondents so far can tell, the trade-off table's captions, and the margin
field's limits.

Each sentence is whole here, its figures filled in: where a plan calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The page places
them (templates/dashboard/dashboard.html).
"""

from __future__ import annotations

from markupsafe import Markup

from survey_app.planning.shares import MARGIN_STEP_POINTS, MAX_MARGIN_POINTS, MIN_MARGIN_POINTS
from survey_app.words import counted, format_count, format_number, percent, plural, points

#: The respondents a margin of shares needs: the question that needs the most, and, when that
#: is not a yes/no question, how many the yes/no questions alone need.
NEEDED = Markup(
    "To know each share within <strong>{wanted}</strong> at {confidence} confidence, this "
    "survey needs about <strong>{needed}</strong> {respondents}."
)
NEEDED_MORE_THAN_YES_NO = Markup(
    "To know each share within <strong>{wanted}</strong> at {confidence} confidence, this "
    "survey needs about <strong>{needed}</strong> {respondents} ({yes_no} for its yes/no "
    "questions alone)."
)
#: The same for a survey of numbers alone, planned by its averages.
NEEDED_FOR_AVERAGE = Markup(
    "To know the average within <strong>{margin} of its range</strong> at {confidence} "
    "confidence, this survey needs about <strong>{needed}</strong> {respondents}."
)
NEEDED_FOR_AVERAGES = Markup(
    "To know each average within <strong>{margin} of its question’s range</strong> at "
    "{confidence} confidence, this survey needs about <strong>{needed}</strong> {respondents}."
)

#: What the respondents so far tell of the shares.
NO_ONE_YET = "No one has answered yet."
KNOWN_NOW = Markup(
    "With the {respondents} so far, each share is known within about <strong>{now}</strong> "
    "(Chebyshev’s bound with the exact variance: {chebyshev})."
)
KNOWN_NOW_NEXT_TO_NOTHING = Markup(
    "With the {respondents} so far, each share is known within about <strong>{now}</strong>, "
    "which says next to nothing yet (Chebyshev’s bound with the exact variance: {chebyshev})."
)

#: The caption of a survey of numbers alone's trade-off table, in its first number's unit.
NUMBER_TRADE_OFF = (
    "How privacy, class size and precision trade off for {name} ({confidence} confidence): the "
    "margin of its average each class size reaches, and the respondents a margin of ±{margin} "
    "needs."
)
NUMBER_TRADE_OFF_IN_UNIT = (
    "How privacy, class size and precision trade off for {name} ({confidence} confidence): the "
    "margin of its average (± {unit}) each class size reaches, and the respondents a margin of "
    "±{margin} needs."
)

#: The trade-off tables' row of the survey's own flip probability.
THIS_SURVEY = "{flip} (this survey)"


def plan_words(plan) -> dict:
    """The dashboard's planning section in words (a planning.Plan): its sentences, the figures
    its tables name, and the margin field's label and limits."""
    first = plan.numbers[0] if plan.numbers else None
    rows = (*plan.trade_off, *plan.number_trade_off)
    current = next((row.flip_probability for row in rows if row.is_current), None)
    return {
        "needed": needed_words(plan),
        "now": now_words(plan),
        # A share's margin in percentage points: said in full first, then "±4 points".
        "wanted_short": points(plan.margin),
        # A number's margin is that share of its range: "±10% of its range".
        "of_range": of_range(plan),
        "label": "Margin wanted, ± percentage points"
        if plan.has_shares
        else "Margin wanted, ± % of each question’s range",
        # The margin field: the margin asked for, in points, as the field shows it ("10",
        # "2.5"), and the limits the planner takes (planning.parse_margin).
        "margin_points": f"{plan.margin * 100:g}",
        "margin_min": f"{MIN_MARGIN_POINTS:g}",
        "margin_max": f"{MAX_MARGIN_POINTS:g}",
        "margin_step": f"{MARGIN_STEP_POINTS:g}",
        "answered": (
            f"{counted(plan.respondents, 'respondent')} "
            f"{plural(plan.respondents, 'has', 'have')} answered so far."
            if plan.respondents
            else NO_ONE_YET
        ),
        "this_survey": None if current is None else THIS_SURVEY.format(flip=percent(current)),
        "number_trade_off": None if first is None else number_trade_off_words(plan, first),
        # The first number's margin that says next to nothing, in its unit.
        "next_to_nothing": None
        if first is None
        else first.number.amount(plan.next_to_nothing * (first.number.hi - first.number.lo)),
    }


def of_range(plan) -> str:
    """A number's margin as a share of its range: "±10%"."""
    return f"±{format_number(plan.margin * 100, 1)}%"


def needed_words(plan) -> Markup:
    """The respondents the margin asked for needs, in shares (the yes/no questions' own count
    where they need fewer) or, for a survey of numbers alone, in its averages."""
    confidence = percent(plan.confidence)
    if not plan.has_shares:
        sentence = NEEDED_FOR_AVERAGES if len(plan.numbers) > 1 else NEEDED_FOR_AVERAGE
        needed = max(each.needed for each in plan.numbers)
        return sentence.format(
            margin=of_range(plan),
            confidence=confidence,
            needed=format_count(needed),
            respondents=plural(needed, "respondent"),
        )
    sentence = NEEDED if plan.needed_worst == plan.needed_yes_no else NEEDED_MORE_THAN_YES_NO
    return sentence.format(
        wanted=points(plan.margin, long=True),
        confidence=confidence,
        needed=format_count(plan.needed_worst),
        respondents=plural(plan.needed_worst, "respondent"),
        yes_no=format_count(plan.needed_yes_no),
    )


def now_words(plan) -> Markup | str:
    """What the respondents so far tell of the shares: how near each is known (and that it says
    next to nothing yet, when it does), or that no one has answered yet."""
    if plan.margin_now is None:
        return NO_ONE_YET
    sentence = KNOWN_NOW_NEXT_TO_NOTHING if plan.says_next_to_nothing else KNOWN_NOW
    return sentence.format(
        respondents=counted(plan.respondents, "respondent"),
        now=points(plan.margin_now),
        chebyshev=points(plan.margin_now_chebyshev),
    )


def number_trade_off_words(plan, first) -> str:
    """The caption of the trade-off table of a survey of numbers alone (``first``: its first
    number's plan, a planning.NumericPlan), naming its unit when it has one."""
    sentence = NUMBER_TRADE_OFF_IN_UNIT if first.number.unit else NUMBER_TRADE_OFF
    return sentence.format(
        name=first.number.name,
        confidence=percent(plan.confidence),
        unit=first.number.unit,
        margin=first.margin_words,
    )
