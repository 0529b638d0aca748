"""What the survey page tells respondents of their privacy (survey_app.respondents.words): each
choice gives its whole sentence, with the figures of surveys.words.privacy_explanation
worded as the rest of the app words them."""

from __future__ import annotations

import math

import pytest
from markupsafe import Markup

from survey_app.respondents import words
from survey_app.surveys.services import find_survey
from survey_app.surveys.words import privacy_explanation

SCRAMBLES = (
    "Your browser scrambles every answer before it leaves this device: it sends the "
    "<strong>opposite</strong> of your yes/no answer"
)
GROUP = (
    "If several people share an answer (friends who answer together, say), what all of them "
    "send, together, can give that shared answer away more: for a group of k people the cost "
    "adds up to k × ε, here ε&nbsp;=&nbsp;4.40 for 2 people and ε&nbsp;=&nbsp;10.99 for 5 "
    "people."
)
NUMBER_ON_THE_SCALE = (
    "A number is first put within its question’s range (a number above it counts as the "
    "highest, below it as the lowest), then on a scale of 1,000 steps, then the noise is added."
)


@pytest.mark.parametrize(
    ("flip_probability", "flip_percent", "sentence"),
    [
        (0.25, "25", f"{SCRAMBLES} 25% of the time (1 time in 4), by chance."),
        # 1 / 0.1 is 10.000000000000002: still one time in ten.
        (0.1, "10", f"{SCRAMBLES} 10% of the time (1 time in 10), by chance."),
        (0.3, "30", f"{SCRAMBLES} 30% of the time, by chance."),
        (0.4, "40", f"{SCRAMBLES} 40% of the time, by chance."),
        (0.125, "12.5", f"{SCRAMBLES} 12.5% of the time (1 time in 8), by chance."),
        (0.001, "0.1", f"{SCRAMBLES} 0.1% of the time (1 time in 1,000), by chance."),
    ],
)
def test_how_often_a_yes_no_answer_is_sent_reversed(flip_probability, flip_percent, sentence):
    """As privacy_explanation gives the figures: the percentage worded, and 1 / p."""
    said = words.flip_words(flip_percent, 1.0 / flip_probability)
    assert isinstance(said, Markup) and str(said) == sentence


def test_the_flip_percentage_stays_text():
    said = words.flip_words('<b>25</b> & "x"', 4.0)
    assert "<b>" not in said and "&lt;b&gt;25&lt;/b&gt; &amp; &#34;x&#34;% of the time" in said


def explanation(epsilon_total: float = 2 * math.log(3)) -> dict:
    """The figures privacy_words reads, as privacy_explanation gives them for two questions at
    p = 0.25 (a group of k costs k times the survey's epsilon)."""
    return {
        "flip_percent": "25",
        "flip_one_in": 4.0,
        "group_examples": [(k, k * epsilon_total) for k in (2, 5)],
        "epsilon": epsilon_total / 2,
        "epsilon_total": epsilon_total,
        "question_count": 2,
        "warner_lie_percent": "50",
    }


def test_the_survey_pages_words_on_privacy():
    said = words.privacy_words(explanation())
    assert str(said["flip"]) == f"{SCRAMBLES} 25% of the time (1 time in 4), by chance."
    assert isinstance(said["group"], Markup) and str(said["group"]) == GROUP
    assert said["number_on_the_scale"] == NUMBER_ON_THE_SCALE


def test_a_groups_cost_is_rounded_up():
    """format_epsilon rounds up to two decimals: never less privacy loss than there is."""
    said = words.privacy_words(explanation(epsilon_total=1.001))["group"]
    assert "ε&nbsp;=&nbsp;2.01 for 2 people and ε&nbsp;=&nbsp;5.01 for 5 people." in said


def test_a_real_surveys_words_on_privacy(app, make_survey):
    """privacy_explanation's figures for the sample survey (two questions at p = 0.25)."""
    slug, _ = make_survey()
    with app.app_context():
        said = words.privacy_words(privacy_explanation(find_survey(slug)))
    assert str(said["flip"]) == f"{SCRAMBLES} 25% of the time (1 time in 4), by chance."
    assert str(said["group"]) == GROUP
