"""Numeric questions on the respondent's side: the page and its privacy words, and the
submissions (reports outside the mechanism's range refused with 400 and nothing stored, retries
and concurrent first arrivals counted once).
"""

from __future__ import annotations

import html
import json
import math
import re
import uuid

import pytest

from survey_app import privacy
from survey_app.extensions import db
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Submission, Tally
from tests.numeric_helpers import (
    HOURS,
    definition_with,
    numeric,
    post,
)


def test_the_public_definition_carries_the_browsers_parameters(client, hours, app):
    slug, (number_id, _) = hours
    document = client.get(f"/api/v1/surveys/{slug}").get_json()
    question = document["questions"][0]
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert question["type"] == "numeric"
    assert (question["min"], question["max"], question["unit"]) == (0.0, 40.0, "hours")
    assert question["mechanism"]["name"] == "hybrid" == mechanism.name
    assert question["mechanism"]["parameters"] == mechanism.browser_parameters()
    assert question["mechanism"]["named_in_definition"] is True
    assert question["report_range"] == list(mechanism.output_range)
    assert question["mechanism"]["real_epsilon"] <= question["epsilon"]
    assert question["options"] == []


def test_reports_in_range_are_stored_and_counted(client, hours, app):
    slug, (number_id, yes_no_id) = hours
    low, high = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").output_range
    for report in [low, high, 700, 700]:
        response = post(client, slug, {str(number_id): report, str(yes_no_id): 1})
        assert response.status_code == 201, response.get_json()
    with app.app_context():
        count_arrivals()
        counts = {}
        for tally in db.session.query(Tally).filter_by(question_id=number_id):
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        assert {value: c for value, c in counts.items() if c} == {low: 1, high: 1, 700: 2}


@pytest.mark.parametrize("offset", [-1, 1])
def test_reports_outside_the_range_are_refused_and_nothing_is_stored(client, hours, app, offset):
    slug, (number_id, yes_no_id) = hours
    low, high = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").output_range
    value = low - 1 if offset < 0 else high + 1
    response = post(client, slug, {str(number_id): value, str(yes_no_id): 1})
    assert response.status_code == 400
    assert response.get_json() == {
        "error": f"answers[{number_id}]: must be in {low} .. {high}, got {value}",
        "code": "invalid",
    }
    for bad in [2.5, "700", None, True]:
        assert post(client, slug, {str(number_id): bad, str(yes_no_id): 1}).status_code == 400
    with app.app_context():
        count_arrivals()
        assert db.session.query(Submission).count() == 0
        assert db.session.query(Tally).filter_by(question_id=number_id).count() == 0


def test_a_retry_of_a_numeric_submission_is_counted_once(client, hours, app):
    slug, (number_id, yes_no_id) = hours
    submission_id = str(uuid.uuid4())
    answers = {str(number_id): 123, str(yes_no_id): 0}
    assert post(client, slug, answers, submission_id).status_code == 201
    assert post(client, slug, answers, submission_id).status_code == 200
    other = {str(number_id): 124, str(yes_no_id): 0}
    refused = post(client, slug, other, submission_id)
    assert (refused.status_code, refused.get_json()["code"]) == (409, "already_used")
    with app.app_context():
        count_arrivals()
        total = sum(t.noisy_count for t in db.session.query(Tally).filter_by(question_id=number_id))
        assert total == 1


def test_laplaces_negative_reports_are_accepted(client, make_survey, app):
    slug, (number_id,) = make_survey(definition_with(numeric(mechanism="laplace")))
    low, high = privacy.numeric_mechanism(0.0, 10.0, math.log(3), "laplace").output_range
    assert low < -1000
    assert post(client, slug, {str(number_id): -1000}).status_code == 201
    assert post(client, slug, {str(number_id): low - 1}).status_code == 400


def test_concurrent_first_arrivals_of_a_report_are_each_counted_once(app, hours):
    """Many threads sending the same few reports at once, each new to its tally row: every
    submission is stored and counted once (PostgreSQL: the ordered insert of missing rows)."""
    import threading

    from survey_app.respondents.submissions import record_submission

    slug, (number_id, yes_no_id) = hours
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def send(worker: int) -> None:
        start.wait()
        for index in range(25):
            answers = {str(number_id): 100 + (index + worker) % 5, str(yes_no_id): index % 2}
            try:
                with app.app_context():
                    record_submission(
                        slug, {"submission_id": str(uuid.uuid4()), "answers": answers}
                    )
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

    threads = [threading.Thread(target=send, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with app.app_context():
        count_arrivals()
        counts: dict[int, int] = {}
        for tally in db.session.query(Tally).filter_by(question_id=number_id):
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        assert {value: count for value, count in counts.items() if count} == {
            value: 40 for value in range(100, 105)
        }
        assert db.session.query(Submission).count() == 200


def test_the_respondent_page_asks_for_a_number_with_its_bounds(client, hours, app):
    slug, (number_id, _) = hours
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert f'<label for="answer-{number_id}">Your answer (hours)</label>' in page
    assert f'id="answer-{number_id}" type="text" inputmode="decimal"' in page
    assert "A number from 0 to 40 hours." in " ".join(page.split())
    assert 'data-mechanism="hybrid"' in page
    # The parameters are JSON in an attribute, quotes escaped.
    attribute = re.search(r'data-parameters="([^"]*)"', page).group(1)
    assert json.loads(html.unescape(attribute)) == mechanism.browser_parameters()
    # Not inside any form: the true number never goes anywhere but the script.
    controls = page.split('id="survey"', 1)[1].split('<div id="thank-you"')[0]
    assert "<form" not in controls


def test_the_privacy_words_cover_numbers_groups_and_warners_coins(client, hours):
    slug, _ = hours
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    words = " ".join(page.split())  # the sentences as read, however the template wraps them
    assert 'id="numeric-privacy"' in page
    assert "nobody can be more than 3 times surer of your number" in words
    # p = 0.25: Warner's second coin says "lie" half the time.
    assert "that says “send the opposite” 50% of the time" in page
    # Two questions at ln 3 each: 2.20 in all, so 4.40 for two people and 10.99 for five.
    assert "for a group of k people the cost adds up to k × ε" in page
    assert "ε&nbsp;=&nbsp;4.40 for 2 people and ε&nbsp;=&nbsp;10.99 for 5" in words


def test_a_survey_of_numbers_alone_says_nothing_of_yes_no_flips(client, make_survey):
    slug, _ = make_survey({**HOURS, "questions": HOURS["questions"][:1]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="numeric-privacy"' in page
    assert "of your yes/no answer" not in page
    assert 'id="warner-coins"' not in page and "Multiple-choice" not in page


def test_a_survey_of_yes_no_questions_alone_says_nothing_of_swapped_options(client, make_survey):
    slug, _ = make_survey({**HOURS, "questions": HOURS["questions"][1:]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="warner-coins"' in page and "of your yes/no answer" in page
    assert "Multiple-choice" not in page and 'id="numeric-privacy"' not in page


def test_a_survey_of_choice_questions_alone_says_nothing_of_yes_no_answers(client, make_survey):
    choice = {"text": "Which?", "type": "choice", "options": ["A", "B", "C"]}
    slug, _ = make_survey({**HOURS, "questions": [choice]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="choice-privacy"' in page and "Multiple-choice" in page
    assert "yes/no" not in page and 'id="warner-coins"' not in page


def test_a_survey_without_numbers_says_nothing_of_them(client, survey):
    slug, _ = survey
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="numeric-privacy"' not in page and 'id="group-privacy"' in page
