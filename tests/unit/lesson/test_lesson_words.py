"""The lesson's sentences (survey_app.lesson.words): each choice gives its whole sentence, the
constants they quote are the lesson's own, and what a professor typed stays text."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from markupsafe import Markup, escape

from survey_app.lesson import words
from survey_app.words import with_unit

#: Text a professor might type into a label or a unit.
TYPED = '<script>alert(1)</script> & "quotes"'
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;quotes&#34;"


def test_the_constants_the_sentences_quote():
    assert words.WHOLE_SCALE == "0–100%"
    assert words.SHARE_AXIS == "0% to 100%"
    assert words.WHOLE_SCALE_POINTS == "±100 percentage points"
    assert words.covers_whole_scale(1.0) and not words.covers_whole_scale(0.999)


@pytest.mark.parametrize(
    ("is_open", "sentence"),
    [
        (False, 'The server received <strong id="lesson-n">1,200</strong> randomized answers.'),
        (
            True,
            'The server received <strong id="lesson-n">1,200</strong> randomized answers, as of '
            "the dashboard’s last release.",
        ),
    ],
    ids=["closed", "open"],
)
def test_what_the_server_received(is_open, sentence):
    said = words.received("1,200", is_open)
    assert isinstance(said, Markup) and str(said) == sentence
    assert ESCAPED in words.received(TYPED, is_open)


def test_which_way_the_raw_shares_are_biased():
    assert words.biased(0) is None
    assert words.biased(2) == "The raw share is biased: the flips push it toward 50%."
    assert words.biased(3) == (
        "The raw shares are biased: the flips push each toward 33.3%, an equal share for every "
        "answer."
    )


def test_the_estimate_inside_and_outside_the_scale():
    inside = words.undone_estimate("20%", False, "20%")
    assert str(inside) == (
        'Undo the flips on average: the estimate is <strong id="lesson-estimate">20%</strong>.'
    )
    outside = words.undone_estimate("−50%", True, "0%")
    assert str(outside) == (
        'Undo the flips on average: the estimate is <strong id="lesson-estimate">−50%</strong>'
        " (outside 0–100% by chance: the dashboard shows 0%)."
    )
    assert ESCAPED in words.undone_estimate(TYPED, True, TYPED)


def average(mean: str, low: str, high: str, unit: str | None) -> dict:
    """A number question's words as results.words.numeric_words gives them."""
    return {"low": low, "said": {"mean": with_unit(mean, unit), "high": with_unit(high, unit)}}


@pytest.mark.parametrize(
    ("kind", "guarantee"),
    [
        ("exact", "guaranteed at least 95% of the time"),
        ("live", "guaranteed at least 95% of the time, however often you look"),
    ],
)
def test_a_number_questions_average_says_its_unit_as_the_figure_wants_it(kind, guarantee):
    said = words.average_words("40", average("1", "0.5", "2.5", "hours"), kind, 0.95)
    assert str(said) == (
        'From 40 randomized numbers, the average is about <strong id="lesson-mean">1 hour</strong>:'
        f" between <strong>0.5</strong> and <strong>2.5 hours</strong>, {guarantee}."
    )
    unitless = words.average_words("40", average("6", "5", "7", None), kind, 0.95)
    assert '<strong id="lesson-mean">6</strong>' in unitless and "<strong>7</strong>" in unitless


def test_a_unit_the_professor_typed_stays_text():
    said = words.average_words("40", average("6", "5", "7", TYPED), "exact", 0.95)
    assert "<script>" not in said and said.count(ESCAPED) == 2


def test_a_bound_that_covers_the_scale_says_nothing():
    assert words.bound_says_nothing(0.999) is None
    assert words.bound_says_nothing(1.415) == (
        "(A bound of ±100 percentage points or more says nothing: it covers all of 0–100%.)"
    )
    assert words.range_says_nothing(0.5) is None
    assert words.range_says_nothing(1.0) == (
        "A range of ±100 percentage points or more covers all of 0–100%: it says nothing about "
        "the class."
    )


def test_the_charts_titles_name_each_range():
    rows = [{"label": "Exact", "words": "10% to 30%"}, {"label": "Live", "words": "5% to 35%"}]
    assert words.ranges_chart_title(rows, "20%") == (
        "The ranges on one axis from 0% to 100%: Exact, 10% to 30%; Live, 5% to 35%; the "
        "estimate, 20%."
    )
    assert words.options_chart_title(rows) == (
        "Each option’s exact range on one axis from 0% to 100%: Exact, 10% to 30%; Live, 5% to "
        "35%; each estimate marked."
    )


def test_a_label_in_a_charts_title_is_left_for_the_page_to_escape():
    """The titles are text, not markup: the template's autoescape escapes an option's label."""
    title = words.options_chart_title([{"label": TYPED, "words": "0% to 100%"}])
    assert not isinstance(title, Markup) and ESCAPED in escape(title)


@pytest.mark.parametrize(
    ("true_yes", "n", "sentence"),
    [
        (1, 42, "Suppose 1 of the 42 truly holds “Yes” (2.4%, the estimate)."),
        (8, 40, "Suppose 8 of the 40 truly hold “Yes” (2.4%, the estimate)."),
        (1200, 3000, "Suppose 1,200 of the 3,000 truly hold “Yes” (2.4%, the estimate)."),
    ],
)
def test_the_class_the_reruns_suppose(true_yes, n, sentence):
    assert words.supposed_class(true_yes, n, "2.4%", "2.4%", "Yes") == sentence


def test_whole_people_that_cannot_make_the_estimate_say_so():
    """23 of 40 is 57.5%, not the estimate 58.3%: the sentence names both, never one for the
    other."""
    assert words.supposed_class(23, 40, "57.5%", "58.3%", "Walk") == (
        "Suppose 23 of the 40 truly hold “Walk” (57.5%: the estimate, 58.3%, in whole people)."
    )


def test_reruns_below_zero_are_said():
    assert words.below_zero(0.0) is None
    assert words.below_zero(-0.05) == (
        "Some fell below 0%: noise alone can push an estimate outside 0–100%."
    )


def ceiling(prior_odds: str | None = "0.25", shown: str = "20%", yes_no: bool = True):
    return words.ceiling(
        label="Yes" if yes_no else shown,
        yes_no=yes_no,
        prior=shown,
        prior_against="80%",
        ratio="0.75 / 0.25" if yes_no else "0.6 / 0.2",
        odds=None
        if prior_odds is None
        else {
            "prior_odds": prior_odds,
            "ceiling_odds": "0.75",
            "ceiling": "42.9%",
            "floor_odds": "0.083",
            "floor": "7.7%",
        },
    )


def test_the_ceiling_of_one_yes():
    assert str(ceiling()) == (
        'The ceiling: the odds of “Yes”, <span id="lesson-prior-odds">0.25</span> (20% against '
        "80%), can grow at most e<sup>ε</sup> = (1 − p) / p = 0.75 / 0.25 times, to "
        '<span id="lesson-ceiling-odds">0.75</span>: a chance of <span id="lesson-ceiling">'
        "42.9%</span> (and shrink at most as many times, to 0.083: "
        '<span id="lesson-floor">7.7%</span>). Randomized response reaches the ceiling exactly: '
        "one “Yes” tells as much as ε allows, and no more."
    )
    assert ESCAPED in ceiling(shown=TYPED)
    assert ESCAPED in ceiling(shown=TYPED, yes_no=False)
    # One answer of several: P / Q, and no floor (another answer does not reach it).
    assert "e<sup>ε</sup> = P / Q = 0.6 / 0.2 times" in ceiling(yes_no=False)
    assert "lesson-floor" not in ceiling(yes_no=False)


def test_a_certain_prior_has_nothing_to_learn():
    assert ceiling(prior_odds=None) == "A prior of 0% or 100% leaves nothing to learn."


def test_the_trade_offs_rows():
    assert words.trade_off_label("0.25", True) == "0.25 (this survey)"
    assert words.trade_off_label("0.3", False) == "0.3"
    assert words.trade_off_row("0.4", "0.41", 1200, "12.3 percentage points", "20 points") == (
        "At p = 0.4: ε = 0.41; a class of 1,200 would get a range of about ±12.3 percentage "
        "points (exact), ±20 points by Chebyshev’s bound with the exact variance."
    )


@pytest.mark.parametrize(
    ("count", "answering"),
    [
        (1, "Answering the survey’s one question at ε = 1.1"),
        (3, "Answering all 3 questions at ε = 1.1 each"),
    ],
)
def test_what_the_survey_costs(count, answering):
    said = words.composition(count, "1.1", "3.3", "27.2")
    assert isinstance(said, Markup)
    assert str(said) == (
        f'{answering} costs <strong id="lesson-total">ε = 3.3</strong> (composition: the '
        'epsilons add up), so the whole survey can make anyone at most <span id="lesson-total-'
        'odds">27.2</span> times surer.'
    )
    assert ESCAPED in words.composition(count, TYPED, TYPED, TYPED)


@pytest.mark.parametrize(
    ("answered", "shows", "consistent", "appear_at", "note"),
    [
        (0, False, True, 10, "No answers yet: this step fills in once 10 people have answered."),
        (
            4,
            False,
            True,
            10,
            "Too early: 4 answered. This step fills in once 10 have, as the dashboard’s shares do.",
        ),
        # Released in batches of 20: nothing shows until 20 have answered, as on the dashboard.
        (
            12,
            False,
            True,
            20,
            "Too early: 12 answered. This step fills in once 20 have, as the dashboard’s shares "
            "do.",
        ),
        (
            40,
            True,
            False,
            10,
            "These answers are not consistent with the randomization (some were probably not sent "
            "by the survey page): the dashboard says more.",
        ),
        (40, True, True, 10, None),
    ],
    ids=["none", "too early", "a batch of 20", "inconsistent", "ready"],
)
def test_why_a_step_waits(answered, shows, consistent, appear_at, note):
    question = SimpleNamespace(shows_results=shows, consistent_with_randomization=consistent)
    assert words.waiting_note(question, answered, appear_at) == note
