"""The dashboard's planning section in words (a planning.Plan): how many respondents a margin
needs, what the respondents so far can tell, the trade-off table's captions, and the margin
field's limits.

Each sentence is whole here, its figures filled in: where a plan calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The page places
them (templates/dashboard/dashboard.html).
"""

from __future__ import annotations

from flask_babel import lazy_gettext, ngettext
from markupsafe import Markup

from survey_app.planning.shares import MARGIN_STEP_POINTS, MAX_MARGIN_POINTS, MIN_MARGIN_POINTS
from survey_app.results import rounding
from survey_app.web.languages import is_english
from survey_app.words import (
    format_count,
    format_number,
    grouped,
    local_percent,
    percent,
    points,
)


#: The respondents a margin of shares needs: the question that needs the most, and, when that
#: is not a yes/no question, how many the yes/no questions alone need.
def needed_sentence(n, **figures):
    return ngettext(
        "To know each share within <strong>%(wanted)s</strong> at %(confidence)s confidence, this "
        "survey needs about <strong>%(needed)s</strong> respondent.",
        "To know each share within <strong>%(wanted)s</strong> at %(confidence)s confidence, this "
        "survey needs about <strong>%(needed)s</strong> respondents.",
        n,
        **figures,
    )


def needed_more_than_yes_no_sentence(n, **figures):
    return ngettext(
        "To know each share within <strong>%(wanted)s</strong> at %(confidence)s confidence, this "
        "survey needs about <strong>%(needed)s</strong> respondent (%(for_yes_no)s for its yes/no "
        "questions alone).",
        "To know each share within <strong>%(wanted)s</strong> at %(confidence)s confidence, this "
        "survey needs about <strong>%(needed)s</strong> respondents (%(for_yes_no)s for its yes/no "
        "questions alone).",
        n,
        **figures,
    )


#: The same for a survey of numbers alone, planned by its averages.
def needed_for_average_sentence(n, **figures):
    return ngettext(
        "To know the average within <strong>%(margin)s of its range</strong> at %(confidence)s "
        "confidence, this survey needs about <strong>%(needed)s</strong> respondent.",
        "To know the average within <strong>%(margin)s of its range</strong> at %(confidence)s "
        "confidence, this survey needs about <strong>%(needed)s</strong> respondents.",
        n,
        **figures,
    )


def needed_for_averages_sentence(n, **figures):
    return ngettext(
        "To know each average within <strong>%(margin)s of its question’s range</strong> at "
        "%(confidence)s confidence, this survey needs about <strong>%(needed)s</strong> "
        "respondent.",
        "To know each average within <strong>%(margin)s of its question’s range</strong> at "
        "%(confidence)s confidence, this survey needs about <strong>%(needed)s</strong> "
        "respondents.",
        n,
        **figures,
    )


#: What the respondents so far tell of the shares.
NO_ONE_YET = lazy_gettext("No one has answered yet.")


def known_now_sentence(n, **figures):
    return ngettext(
        "With the %(count)s respondent so far, each share is known within about "
        "<strong>%(now)s</strong> (Chebyshev’s bound with the exact variance: %(chebyshev)s).",
        "With the %(count)s respondents so far, each share is known within about "
        "<strong>%(now)s</strong> (Chebyshev’s bound with the exact variance: %(chebyshev)s).",
        n,
        **figures,
    )


def known_now_next_to_nothing_sentence(n, **figures):
    return ngettext(
        "With the %(count)s respondent so far, each share is known within about "
        "<strong>%(now)s</strong>, which says next to nothing yet (Chebyshev’s bound with the "
        "exact variance: %(chebyshev)s).",
        "With the %(count)s respondents so far, each share is known within about "
        "<strong>%(now)s</strong>, which says next to nothing yet (Chebyshev’s bound with the "
        "exact variance: %(chebyshev)s).",
        n,
        **figures,
    )


#: The caption of a survey of numbers alone's trade-off table, in its first number's unit.
NUMBER_TRADE_OFF = lazy_gettext(
    "How privacy, class size and precision trade off for %(name)s (%(confidence)s confidence): "
    "the margin of its average each class size reaches, and the respondents a margin of "
    "±%(margin)s needs."
)
NUMBER_TRADE_OFF_IN_UNIT = lazy_gettext(
    "How privacy, class size and precision trade off for %(name)s (%(confidence)s confidence): "
    "the margin of its average (± %(unit)s) each class size reaches, and the respondents a "
    "margin of ±%(margin)s needs."
)

#: The trade-off tables' row of the survey's own flip probability.
THIS_SURVEY = lazy_gettext("%(flip)s (this survey)")
#: The margin field's label, by whether the survey plans shares or numbers alone.
MARGIN_LABEL = lazy_gettext("Margin wanted, ± percentage points")
MARGIN_LABEL_OF_RANGE = lazy_gettext("Margin wanted, ± %% of each question’s range")


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
        "label": str(MARGIN_LABEL if plan.has_shares else MARGIN_LABEL_OF_RANGE) % {},
        # The margin field: the margin asked for, in points, as the field shows it ("10",
        # "2.5"), and the limits the planner takes (planning.parse_margin).
        "margin_points": f"{plan.margin * 100:g}",
        "margin_min": f"{MIN_MARGIN_POINTS:g}",
        "margin_max": f"{MAX_MARGIN_POINTS:g}",
        "margin_step": f"{MARGIN_STEP_POINTS:g}",
        "answered": ngettext(
            "%(count)s respondent has answered so far.",
            "%(count)s respondents have answered so far.",
            plan.respondents,
            count=grouped(plan.respondents),
        )
        if plan.respondents
        else str(NO_ONE_YET),
        "this_survey": None if current is None else str(THIS_SURVEY) % {"flip": percent(current)},
        "number_trade_off": None if first is None else number_trade_off_words(plan, first),
        # The first number's margin that says next to nothing, in its unit.
        "next_to_nothing": None
        if first is None
        else first.number.amount(plan.next_to_nothing * (first.number.hi - first.number.lo)),
    }


def of_range(plan) -> str:
    """A number's margin as a share of its range: "±10%" ("±10\u00a0%" in German)."""
    if is_english():
        return f"±{format_number(plan.margin * 100, 1)}%"
    return f"±{local_percent(rounding.nearest(plan.margin * 100, 0.1))}"


def needed_words(plan) -> Markup:
    """The respondents the margin asked for needs, in shares (the yes/no questions' own count
    where they need fewer) or, for a survey of numbers alone, in its averages."""
    confidence = percent(plan.confidence)
    if not plan.has_shares:
        sentence = (
            needed_for_averages_sentence if len(plan.numbers) > 1 else needed_for_average_sentence
        )
        needed = max(each.needed for each in plan.numbers)
        figures = {"margin": of_range(plan), "confidence": confidence}
        return Markup(sentence(needed, needed=format_count(needed), **figures))
    sentence = (
        needed_sentence
        if plan.needed_worst == plan.needed_yes_no
        else needed_more_than_yes_no_sentence
    )
    figures = {
        "wanted": points(plan.margin, long=True),
        "confidence": confidence,
        "needed": format_count(plan.needed_worst),
        "for_yes_no": format_count(plan.needed_yes_no),
    }
    return Markup(sentence(plan.needed_worst, **figures))


def now_words(plan) -> Markup | str:
    """What the respondents so far tell of the shares: how near each is known (and that it says
    next to nothing yet, when it does), or that no one has answered yet."""
    if plan.margin_now is None:
        return str(NO_ONE_YET)
    sentence = (
        known_now_next_to_nothing_sentence if plan.says_next_to_nothing else known_now_sentence
    )
    figures = {
        "count": grouped(plan.respondents),
        "now": points(plan.margin_now),
        "chebyshev": points(plan.margin_now_chebyshev),
    }
    return Markup(sentence(plan.respondents, **figures))


def number_trade_off_words(plan, first) -> str:
    """The caption of the trade-off table of a survey of numbers alone (``first``: its first
    number's plan, a planning.NumericPlan), naming its unit when it has one."""
    sentence = NUMBER_TRADE_OFF_IN_UNIT if first.number.unit else NUMBER_TRADE_OFF
    return str(sentence) % {
        "name": first.number.name,
        "confidence": percent(plan.confidence),
        "unit": first.number.unit,
        "margin": first.margin_words,
    }
