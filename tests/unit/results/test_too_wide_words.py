"""Ranges too wide to say much say why, and how many answers would narrow them (issue 27,
row 6): a choice question's live ranges at 40 answers reach 0-100% for most options, and the
dashboard and the projector say that live ranges hold at every look, that the options share
the randomization, and how many answers the planner says would bring them to ±20 points. A
number question says the same of its range against a fifth of its scale.
"""

from __future__ import annotations

import html
import math

from survey_app.planning.shares import respondents_needed
from survey_app.privacy import MAX_PLANNED_RESPONDENTS, RandomizedResponse, numeric_mechanism
from survey_app.results.cautions import too_wide_average_caution, too_wide_caution
from survey_app.results.tables import survey_results
from survey_app.results.words import TOO_WIDE
from survey_app.surveys.services import find_survey
from survey_app.words import percent
from tests.numeric_helpers import HOURS
from tests.unit.results.test_results_api import submit, submit_and_close

FOUR_OPTIONS = {
    "title": "How do you get here?",
    "flip_probability": 0.25,
    "questions": [
        {"text": "How?", "type": "choice", "options": ["Walk", "Bus", "Bike", "Car"]},
    ],
}
#: 40 reports, spread as a class of 40 might send them.
FORTY = [(0,)] * 16 + [(1,)] * 10 + [(2,)] * 8 + [(3,)] * 6


def test_live_ranges_say_they_hold_at_every_look_and_what_the_options_share():
    said = too_wide_caution(0.5, 40, "live", 4, 516)
    assert "however often the results are read" in said
    assert "40 respondents" in said and "spread over 4 options" in said
    assert said.endswith("About 516 respondents would bring them to ±20 points.")


def test_the_projector_says_it_in_one_sentence():
    assert too_wide_caution(0.5, 40, "live", 4, 516, brief=True) == (
        "Too wide yet: about 516 answers for ±20 points at every redraw."
    )
    assert too_wide_caution(0.43, 30, "exact", 2, 75, brief=True) == (
        "Too wide yet: about 75 answers for ±20 points."
    )
    assert too_wide_caution(0.25, 80, "exact", 2, 75, brief=True) == (
        "Too wide yet, by chance: classes of 75 answers usually get ±20 points."
    )
    assert too_wide_caution(0.5, 40, "live", 4, 10**9, brief=True).startswith(
        "Too wide yet: more than"
    )


def test_a_yes_no_question_names_no_options_and_a_fixed_range_no_looks():
    said = too_wide_caution(0.43, 30, "exact", 2, 75)
    assert "options" not in said and "however often" not in said
    assert "(up to ±43 percentage points)" in said
    assert said.endswith("About 75 respondents would bring them to ±20 points.")


def test_when_the_planner_says_fewer_would_do_the_words_say_it_was_chance():
    said = too_wide_caution(0.25, 80, "exact", 2, 75)
    assert said.endswith(
        "Classes of 75 respondents usually bring them to ±20 points: these answers left them "
        "wider by chance."
    )


def test_beyond_what_the_planner_searches_the_words_say_more_than():
    said = too_wide_caution(0.5, 40, "live", 12, MAX_PLANNED_RESPONDENTS)
    assert said.endswith(
        f"It would take more than {MAX_PLANNED_RESPONDENTS:,} respondents to bring them to "
        "±20 points."
    )


def test_the_live_plan_reaches_the_margin_and_needs_more_than_the_exact_one():
    mechanism = RandomizedResponse(0.25, 4)
    needed = mechanism.live_respondents_for(TOO_WIDE)
    assert mechanism.live_half_width(needed) <= TOO_WIDE < mechanism.live_half_width(needed - 1)
    assert needed > mechanism.respondents_for(TOO_WIDE)
    assert mechanism.live_half_width(40) > TOO_WIDE


def test_the_dashboard_and_the_projector_say_why_and_how_many(
    app, client, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey(FOUR_OPTIONS)
    submit(app, slug, FORTY)
    sign_in_as(client, analyst)
    needed = RandomizedResponse(0.25, 4).live_respondents_for(TOO_WIDE)
    assert needed > 40
    page = html.unescape(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    projector = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    room = html.unescape(projector["questions"][0]["html"])
    assert "too wide to say much yet" in page and "however often the results are read" in page
    assert "spread over 4 options" in page
    assert f"About {needed} respondents would bring them to ±20 points." in page
    assert f"Too wide yet: about {needed} answers for ±20 points at every redraw." in room
    assert '<svg class="chart"' in room, "the room keeps its chart"


def test_closed_the_caution_plans_the_exact_ranges(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey(FOUR_OPTIONS, status="draft")
    from survey_app.extensions import db
    from survey_app.surveys.services import close_survey, find_survey, open_survey

    with app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()
    submit(app, slug, FORTY[:20])
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
    sign_in_as(client, analyst)
    page = html.unescape(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    needed = respondents_needed(0.25, 4, TOO_WIDE, 0.95)
    assert "which makes them wider than a range read once" not in page
    assert f"About {needed} respondents would bring them to ±20 points." in page


def test_the_projector_makes_room_for_the_caution():
    from survey_app.classroom.projector_pages import RESULTS, QuestionShape, question_height

    shares = QuestionShape(1, 20, worded_labels=(4, 3, 4, 3), chart_rows=4)
    with_caution = QuestionShape(
        1, 20, worded_labels=(4, 3, 4, 3), chart_rows=4, caution_length=130
    )
    # 130 characters at 0.8 em in a column of about 18.8 em: 4 lines of 1.08 em, and a margin.
    assert question_height(with_caution, RESULTS) - question_height(shares, RESULTS) >= 4 * 1.08


# --------------------------------------------------------------------------- number questions

#: A number question on a scale of 0 to 40 hours, alone: TOO_WIDE of it is ±8 hours.
HOURS_ALONE = {**HOURS, "questions": HOURS["questions"][:1]}


def test_a_number_questions_live_plan_is_the_fewest_that_reach_the_margin():
    mechanism = numeric_mechanism(0, 40, math.log(3), "hybrid")
    margin = TOO_WIDE * 40
    needed = mechanism.live_respondents_for(margin)
    assert mechanism.live_half_width(needed) <= margin < mechanism.live_half_width(needed - 1)
    # A live range holds at every look: it needs more than the range read once.
    assert needed > mechanism.respondents_for(margin)
    assert mechanism.live_respondents_for(1e-6) == MAX_PLANNED_RESPONDENTS


def test_a_number_questions_caution_says_its_scale_and_how_many():
    words = {"said": {"shown_half_width": "12.5 hours", "max": "40 hours"}, "min": "0"}
    words["unit"] = " hours"
    said = too_wide_average_caution(words, (0, 40), 12, "live", 239)
    assert said.startswith("This range is too wide to say much yet (±12.5 hours on a scale of 0 ")
    assert "to 40 hours): it holds however often the results are read" in said
    assert said.endswith("About 239 respondents would bring it to ±8 hours.")
    fixed = too_wide_average_caution(words, (0, 40), 12, "exact", 173)
    assert "however often" not in fixed and fixed.endswith("bring it to ±8 hours.")
    over = too_wide_average_caution(words, (0, 40), 12, "exact", MAX_PLANNED_RESPONDENTS)
    assert over.endswith(
        f"more than {MAX_PLANNED_RESPONDENTS:,} respondents to bring it to ±8 hours."
    )


def test_a_number_question_says_it_on_the_dashboard(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey(HOURS_ALONE)
    # Reports spread evenly over the hybrid's outputs (0 to 1,693): an average mid-scale.
    submit(app, slug, [(value,) for value in [0, 423, 846, 1269, 1692] * 3])
    sign_in_as(client, analyst)
    with app.app_context():
        results = survey_results(find_survey(slug))
        mechanism = results.questions[0].numeric.mechanism
        half = (
            results.questions[0].numeric.estimate.live_high
            - results.questions[0].numeric.estimate.live_low
        ) / 2
    needed = mechanism.live_respondents_for(TOO_WIDE * 40, 0.95)
    assert half > TOO_WIDE * 40 and needed > 15
    page = html.unescape(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    assert "This range is too wide to say much yet (±" in page
    assert f"About {needed} respondents would bring it to ±8 hours." in page
    # The projector's card for a number has no room for it: the dashboard says it.
    projector = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert "Too wide yet" not in projector["questions"][0]["html"]


def test_the_projector_says_what_the_shares_add_up_to_once_not_too_wide(
    app, client, make_survey, analyst, sign_in_as
):
    """400 answers: the ranges are narrow enough, and "Car", reported less often than the
    randomization alone would make it, has its estimate kept at 0%: the room reads the sum."""
    slug, _ = make_survey(
        {
            "title": "How do you get here?",
            "flip_probability": 0.25,
            "questions": [{"text": "How?", "type": "choice", "options": ["Walk", "Bus", "Car"]}],
        }
    )
    submit_and_close(app, slug, [(0,)] * 200 + [(1,)] * 130 + [(2,)] * 70)
    sign_in_as(client, analyst)
    with app.app_context():
        (question,) = survey_results(find_survey(slug)).questions
        shares = [option.headline("exact") for option in question.options]
        assert question.options[2].estimate.estimate < 0 and shares[2] == 0
    room = html.unescape(
        client.get(f"/analyst/surveys/{slug}/present/state").get_json()["questions"][0]["html"]
    )
    assert "Too wide yet" not in room
    assert f"These add up to {percent(sum(shares))}: each share is kept within 0–100%." in room
