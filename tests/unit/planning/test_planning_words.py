"""The dashboard's planning section in words (survey_app.planning.words): each choice gives its
whole sentence, its counts and margins worded as the rest of the app words them, and what a
professor typed (a number question's text and unit) stays text for the page to escape."""

from __future__ import annotations

import dataclasses

import pytest
from markupsafe import Markup, escape

from survey_app.planning import words
from survey_app.planning.numbers import NEXT_TO_NOTHING, NumericPlan, PlannedNumber
from survey_app.planning.shares import TRADE_OFF_SIZES, Plan, TradeOffRow, make_plan
from survey_app.privacy import MAX_PLANNED_RESPONDENTS
from survey_app.surveys.services import find_survey

#: Text a professor might type into a question or a unit.
TYPED = '<b>Sleep</b> & "naps"'
ESCAPED = "&lt;b&gt;Sleep&lt;/b&gt; &amp; &#34;naps&#34;"

SHARES_WITHIN = "To know each share within <strong>±10 percentage points</strong> at 95% confidence"


def trade_off_row(flip_probability: float, is_current: bool) -> TradeOffRow:
    return TradeOffRow(flip_probability, 1.1, (0.3, 0.2, 0.12, 0.07), 97, 410, is_current)


def plan(**changes) -> Plan:
    """A plan as planning.make_plan gives it: at ±10 points and 95%, no one answered yet."""
    made = Plan(
        margin=0.1,
        confidence=0.95,
        respondents=0,
        needed_yes_no=97,
        needed_worst=97,
        needed_chebyshev=410,
        margin_now=None,
        margin_now_chebyshev=None,
        sizes=TRADE_OFF_SIZES,
        trade_off=[trade_off_row(0.1, False), trade_off_row(0.25, True)],
    )
    return dataclasses.replace(made, **changes)


def number_plan(name: str = "“Hours of sleep?”", hi: float = 40, unit: str = "hours", needed=60):
    """A number question's plan, as planning.numbers.numeric_plan gives it at ±10% of 0 to hi."""
    number = PlannedNumber(name, 0, hi, unit)
    return NumericPlan(number, number.amount(0.1 * hi), needed, None)


def numbers_alone(*numbers: NumericPlan, **changes) -> Plan:
    return plan(numbers=numbers, has_shares=False, trade_off=[], **changes)


# --------------------------------------------------------------------------- needed


@pytest.mark.parametrize(
    ("worst", "yes_no", "sentence"),
    [
        (97, 97, f"{SHARES_WITHIN}, this survey needs about <strong>97</strong> respondents."),
        (
            1234,
            97,
            f"{SHARES_WITHIN}, this survey needs about <strong>1,234</strong> respondents (97 for "
            "its yes/no questions alone).",
        ),
        (
            MAX_PLANNED_RESPONDENTS,
            5000,
            f"{SHARES_WITHIN}, this survey needs about <strong>over 1,000,000</strong> respondents "
            "(5,000 for its yes/no questions alone).",
        ),
        # A margin as wide as ±50 points at a low flip probability: one respondent is enough.
        (1, 1, f"{SHARES_WITHIN}, this survey needs about <strong>1</strong> respondent."),
    ],
    ids=["yes/no", "more than yes/no", "the planner's ceiling", "one"],
)
def test_the_respondents_a_margin_of_shares_needs(worst, yes_no, sentence):
    said = words.needed_words(plan(needed_worst=worst, needed_yes_no=yes_no))
    assert isinstance(said, Markup) and str(said) == sentence


@pytest.mark.parametrize(
    ("numbers", "sentence"),
    [
        (
            (number_plan(needed=1234),),
            "To know the average within <strong>±10% of its range</strong> at 95% confidence, "
            "this survey needs about <strong>1,234</strong> respondents.",
        ),
        (
            (number_plan(needed=60), number_plan("question 2", 5, "", needed=240)),
            "To know each average within <strong>±10% of its question’s range</strong> at 95% "
            "confidence, this survey needs about <strong>240</strong> respondents.",
        ),
        (
            (number_plan(needed=1),),
            "To know the average within <strong>±10% of its range</strong> at 95% confidence, "
            "this survey needs about <strong>1</strong> respondent.",
        ),
    ],
    ids=["one number", "two numbers: the one that needs most", "one respondent"],
)
def test_the_respondents_a_survey_of_numbers_alone_needs(numbers, sentence):
    said = words.needed_words(numbers_alone(*numbers))
    assert isinstance(said, Markup) and str(said) == sentence


def test_a_margin_is_worded_as_the_field_and_the_sentences_want_it():
    said = words.plan_words(numbers_alone(number_plan(), margin=0.025))
    assert said["of_range"] == "±2.5%" and "<strong>±2.5% of its range</strong>" in said["needed"]
    assert said["margin_points"] == "2.5"
    shares = words.plan_words(plan(margin=0.005))
    assert shares["wanted_short"] == "±0.5 points" and shares["margin_points"] == "0.5"
    assert "<strong>±0.5 percentage points</strong> at 95% confidence" in shares["needed"]
    assert words.plan_words(plan(confidence=0.9))["needed"].startswith(
        "To know each share within <strong>±10 percentage points</strong> at 90% confidence"
    )


# --------------------------------------------------------------------------- now


def test_no_one_has_answered_yet():
    assert words.now_words(plan()) == "No one has answered yet."
    said = words.plan_words(plan())
    assert said["now"] == said["answered"] == "No one has answered yet."


@pytest.mark.parametrize(
    ("respondents", "now", "chebyshev", "sentence"),
    [
        (
            1,
            0.3,
            0.52,
            "With the 1 respondent so far, each share is known within about <strong>±30 points"
            "</strong> (Chebyshev’s bound with the exact variance: ±52 points).",
        ),
        (
            1200,
            0.0541,
            0.0815,
            "With the 1,200 respondents so far, each share is known within about <strong>±5.5 "
            "points</strong> (Chebyshev’s bound with the exact variance: ±8.2 points).",
        ),
        (
            3,
            NEXT_TO_NOTHING,
            0.9,
            "With the 3 respondents so far, each share is known within about <strong>±40 points"
            "</strong>, which says next to nothing yet (Chebyshev’s bound with the exact "
            "variance: ±90 points).",
        ),
    ],
    ids=["one respondent", "many", "the next-to-nothing margin"],
)
def test_what_the_respondents_so_far_tell(respondents, now, chebyshev, sentence):
    said = words.now_words(
        plan(respondents=respondents, margin_now=now, margin_now_chebyshev=chebyshev)
    )
    assert isinstance(said, Markup) and str(said) == sentence


def test_a_margin_short_of_next_to_nothing_is_not_said_to_be():
    said = words.now_words(plan(respondents=5, margin_now=0.35, margin_now_chebyshev=0.7))
    assert (
        "<strong>±35 points</strong> (Chebyshev’s bound" in said and "next to nothing" not in said
    )


@pytest.mark.parametrize(
    ("respondents", "sentence"),
    [
        (1, "1 respondent has answered so far."),
        (2, "2 respondents have answered so far."),
        (1200, "1,200 respondents have answered so far."),
    ],
)
def test_how_many_have_answered_a_survey_of_numbers_alone(respondents, sentence):
    assert words.plan_words(numbers_alone(number_plan(), respondents=respondents))["answered"] == (
        sentence
    )


# --------------------------------------------------------------------------- the form and tables


def test_the_margin_fields_label_and_limits():
    shares = words.plan_words(plan())
    assert shares["label"] == "Margin wanted, ± percentage points"
    limits = (shares["margin_min"], shares["margin_max"], shares["margin_step"])
    assert limits == ("0.5", "50", "0.5")
    assert shares["margin_points"] == "10"
    numbers = words.plan_words(numbers_alone(number_plan()))
    assert numbers["label"] == "Margin wanted, ± % of each question’s range"


def test_the_row_of_the_surveys_own_flip_probability():
    assert words.plan_words(plan())["this_survey"] == "25% (this survey)"
    rows = [trade_off_row(0.125, True), trade_off_row(0.3, False)]
    assert words.plan_words(plan(trade_off=rows))["this_survey"] == "12.5% (this survey)"
    assert words.plan_words(plan(trade_off=[trade_off_row(0.3, False)]))["this_survey"] is None


def test_the_number_trade_off_caption_names_the_unit_where_there_is_one():
    caption = words.plan_words(numbers_alone(number_plan()))["number_trade_off"]
    assert caption == (
        "How privacy, class size and precision trade off for “Hours of sleep?” (95% "
        "confidence): the margin of its average (± hours) each class size reaches, and the "
        "respondents a margin of ±4 hours needs."
    )
    unitless = words.plan_words(numbers_alone(number_plan("question 1", 5, "")))
    assert unitless["number_trade_off"] == (
        "How privacy, class size and precision trade off for question 1 (95% confidence): the "
        "margin of its average each class size reaches, and the respondents a margin of ±0.5 "
        "needs."
    )
    assert words.plan_words(plan())["number_trade_off"] is None


def test_the_margin_that_says_next_to_nothing_in_the_first_numbers_unit():
    assert words.plan_words(numbers_alone(number_plan()))["next_to_nothing"] == "16 hours"
    # 40% of a range of 2.5 hours is one hour.
    assert words.plan_words(numbers_alone(number_plan(hi=2.5)))["next_to_nothing"] == "1 hour"
    assert words.plan_words(numbers_alone(number_plan(unit="")))["next_to_nothing"] == "16"
    assert words.plan_words(plan())["next_to_nothing"] is None


def test_a_question_and_unit_the_professor_typed_stay_text():
    """The caption and the margin are text, not markup: the page's autoescape escapes them."""
    said = words.plan_words(numbers_alone(number_plan(name=TYPED, unit=TYPED)))
    for key in ("number_trade_off", "next_to_nothing"):
        assert not isinstance(said[key], Markup) and ESCAPED in escape(said[key])


def test_a_real_survey_of_numbers_alone(app, make_survey):
    """The plan planning.make_plan gives a survey of numbers alone, in words."""
    slug, _ = make_survey(
        {
            "title": "Sleep",
            "flip_probability": 0.25,
            "questions": [
                {"text": "Hours of sleep?", "type": "numeric", "min": 0, "max": 12, "unit": "hours"}
            ],
        }
    )
    with app.app_context():
        said = words.plan_words(make_plan(find_survey(slug), 0.1, 0.95, 0))
    assert said["needed"].startswith(
        "To know the average within <strong>±10% of its range</strong> at 95% confidence, this "
        "survey needs about <strong>"
    )
    assert said["number_trade_off"].startswith(
        "How privacy, class size and precision trade off for “Hours of sleep?” (95% confidence): "
        "the margin of its average (± hours) each class size reaches, and the respondents a "
        "margin of ±1.2 hours needs."
    )
    assert said["this_survey"] == "25% (this survey)"
    assert said["next_to_nothing"] == "4.8 hours" and said["answered"] == "No one has answered yet."
