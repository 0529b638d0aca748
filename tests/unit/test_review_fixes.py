"""Edge cases: extreme flip probabilities, retries after closing, intro paragraphs, reopening."""

from __future__ import annotations

import uuid

import pytest

from survey_app.extensions import db
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import (
    SurveyStateError,
    close_survey,
    find_survey,
    open_survey,
    parse_definition,
)

QUESTIONS = [{"text": "Q?", "type": "yes_no"}]


@pytest.mark.parametrize("flip_probability", [1e-11, 1e-7, 0.4999999999, 0.4999995])
def test_flip_probabilities_the_browser_cannot_honour_are_refused(flip_probability):
    definition = {"title": "T", "flip_probability": flip_probability, "questions": QUESTIONS}
    with pytest.raises(SurveyDefinitionError, match="flip_probability"):
        parse_definition(definition)


@pytest.mark.parametrize("flip_probability", [0.000001, 0.01, 0.49, 0.499999])
def test_flip_probabilities_at_the_limits_are_accepted(flip_probability):
    definition = {"title": "T", "flip_probability": flip_probability, "questions": QUESTIONS}
    assert parse_definition(definition).flip_probability == flip_probability


def test_a_retry_after_the_survey_closed_is_still_recognised(app, client, survey):
    slug, (yes_no, choice) = survey
    body = {"submission_id": str(uuid.uuid4()), "answers": {str(yes_no): 1, str(choice): 0}}
    url = f"/api/v1/surveys/{slug}/responses"
    assert client.post(url, json=body).status_code == 201
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
    retry = client.post(url, json=body)
    assert retry.status_code == 200
    assert retry.get_json() == {"submission_id": body["submission_id"], "status": "recorded"}
    other = dict(body, submission_id=str(uuid.uuid4()))
    assert client.post(url, json=other).status_code == 409  # a new one is refused


def test_intro_paragraphs_typed_in_a_browser_split(client, make_survey):
    slug, _ = make_survey(
        {
            "title": "T",
            "intro": "First.\r\n\r\nSecond.",
            "flip_probability": 0.25,
            "questions": QUESTIONS,
        }
    )
    html = client.get(f"/s/{slug}").get_data(as_text=True)
    assert '<p class="intro">First.</p>' in html
    assert '<p class="intro">Second.</p>' in html


def test_a_draft_opened_by_another_request_meanwhile_is_not_opened_twice(app, make_survey):
    from sqlalchemy import func, select

    from survey_app.storage.models import Tally

    slug, _ = make_survey(status="draft")
    with app.app_context():
        stale = find_survey(slug)  # this request still sees a draft
        assert stale.is_draft and stale.questions
        # Keep the stale copy but end this read, as a request that read before the other
        # committed and writes after it (on SQLite its write transaction begins then).
        db.session.expunge(stale)
        db.session.rollback()
        with app.app_context():  # another request (its own session) opens it meanwhile
            open_survey(find_survey(slug))
            db.session.commit()
        db.session.add(stale)
        assert stale.is_draft
        with pytest.raises(SurveyStateError):
            open_survey(stale)
    with app.app_context():
        survey = find_survey(slug)
        tallies = db.session.execute(
            select(func.count())
            .select_from(Tally)
            .where(Tally.question_id.in_([q.id for q in survey.questions]))
        ).scalar_one()
        assert survey.is_open
        assert tallies == sum(q.option_count for q in survey.questions)  # one set of count rows
