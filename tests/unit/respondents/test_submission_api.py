"""POST /api/v1/surveys/<slug>/responses: what is accepted, what is refused, what is stored."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import uuid
from dataclasses import dataclass

import pytest
from flask_wtf.csrf import generate_csrf
from sqlalchemy import delete, func, select, text

from survey_app import create_app
from survey_app.accounts.services import create_analyst
from survey_app.config import MAX_CONTENT_LENGTH
from survey_app.extensions import db
from survey_app.respondents import submissions
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Submission, Survey, Tally
from survey_app.surveys import services as surveys
from survey_app.surveys.services import create_survey, open_survey, parse_definition
from survey_app.web.errors import CODES

#: A second survey, so that ids of one can be sent to the other.
OTHER_DEFINITION = {
    "title": "Lab safety",
    "flip_probability": 0.2,
    "questions": [
        {"text": "Have you ever skipped the goggles?", "type": "yes_no"},
        {"text": "Which lab?", "type": "choice", "options": ["A", "B"]},
    ],
}


def url(slug: str) -> str:
    return f"/api/v1/surveys/{slug}/responses"


def new_id() -> str:
    return str(uuid.uuid4())


def post_json(client, slug: str, body: object):
    return client.post(url(slug), data=json.dumps(body), content_type="application/json")


def snapshot(app) -> tuple[list, list, list]:
    """Every stored submission, every tally and every survey's respondent count."""
    with app.app_context():
        count_arrivals()  # what a reader of the counts does first (PostgreSQL)
        db.session.commit()
        rows = db.session.execute(
            select(
                Submission.submission_id,
                Submission.survey_id,
                Submission.answers,
                Submission.submitted_on,
            )
        ).all()
        tallies = db.session.execute(
            select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count)).group_by(
                Tally.question_id, Tally.value
            )
        ).all()
        respondents = db.session.execute(select(Survey.id, Survey.respondents)).all()
        return (
            sorted(map(tuple, rows)),
            sorted(map(tuple, tallies)),
            sorted(map(tuple, respondents)),
        )


def tallies_of(app, question_id: int) -> dict[int, int]:
    with app.app_context():
        count_arrivals()
        db.session.commit()
        rows = db.session.execute(
            select(Tally.value, func.sum(Tally.noisy_count))
            .where(Tally.question_id == question_id)
            .group_by(Tally.value)
        ).all()
        return dict(map(tuple, rows))


def respondents_of(app, slug: str) -> int:
    with app.app_context():
        return db.session.execute(
            select(Survey.respondents).where(Survey.slug == slug)
        ).scalar_one()


def assert_json_error(response, status: int, code: str | None = None) -> str:
    """A JSON error: words for people in ``error``, a reason for programs in ``code``."""
    assert response.status_code == status, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error", "code"}
    assert isinstance(body["error"], str) and body["error"].strip()
    assert body["code"] == (code or CODES[status])
    return body["error"]


@dataclass(frozen=True)
class Context:
    """An open survey (yes/no + 3-option choice) and a question of another open survey."""

    slug: str
    yes_no: str
    choice: str
    other: str

    def answers(self, yes_no: object = 1, choice: object = 2) -> dict[str, object]:
        return {self.yes_no: yes_no, self.choice: choice}

    def body(self, **fields: object) -> dict[str, object]:
        return {"submission_id": new_id(), "answers": self.answers()} | fields


@pytest.fixture
def other_survey(make_survey):
    return make_survey(OTHER_DEFINITION)


@pytest.fixture
def ctx(survey, other_survey) -> Context:
    slug, (yes_no, choice) = survey
    _, other_ids = other_survey
    return Context(slug, str(yes_no), str(choice), str(other_ids[0]))


# --------------------------------------------------------------------------- accepted


def test_accepted_submission_is_stored_and_counted(app, client, ctx, other_survey):
    before_day = dt.datetime.now(dt.UTC).date()
    submission_id = new_id()
    response = post_json(
        client, ctx.slug, {"submission_id": submission_id, "answers": ctx.answers(1, 2)}
    )
    after_day = dt.datetime.now(dt.UTC).date()

    assert response.status_code == 201
    assert response.mimetype == "application/json"
    assert response.get_json() == {"submission_id": submission_id, "status": "recorded"}
    with app.app_context():
        stored = db.session.get(Submission, submission_id)
        survey_row = db.session.execute(select(Survey).where(Survey.slug == ctx.slug)).scalar_one()
        assert stored.survey_id == survey_row.id
        assert stored.answers == "1,2"  # question order: yes/no first, then the choice
        # A day, never a time of day: datetime is a subclass of date, so check the exact type.
        assert type(stored.submitted_on) is dt.date
        assert stored.submitted_on in {before_day, after_day}
        assert survey_row.respondents == 1
        # As the database holds it (text on SQLite, DATE on PostgreSQL): the day alone.
        held = db.session.execute(
            text("SELECT submitted_on FROM submissions WHERE submission_id = :id"),
            {"id": submission_id},
        ).scalar_one()
        assert str(held) in {before_day.isoformat(), after_day.isoformat()}
    assert tallies_of(app, int(ctx.yes_no)) == {0: 0, 1: 1}
    assert tallies_of(app, int(ctx.choice)) == {0: 0, 1: 0, 2: 1}
    assert respondents_of(app, other_survey[0]) == 0
    assert tallies_of(app, int(ctx.other)) == {0: 0, 1: 0}


def test_answers_are_stored_in_question_order_whatever_the_key_order(app, client, ctx):
    submission_id = new_id()
    body_text = (
        f'{{"answers": {{"{ctx.choice}": 0, "{ctx.yes_no}": 1}}, '
        f'"submission_id": "{submission_id}"}}'
    )
    response = client.post(url(ctx.slug), data=body_text, content_type="application/json")
    assert response.status_code == 201
    with app.app_context():
        assert db.session.get(Submission, submission_id).answers == "1,0"


def test_tallies_add_up_over_several_submissions(app, client, ctx):
    reported = [(1, 0), (1, 2), (0, 2), (1, 2)]
    for yes_no, choice in reported:
        body = {"submission_id": new_id(), "answers": ctx.answers(yes_no, choice)}
        assert post_json(client, ctx.slug, body).status_code == 201
    assert tallies_of(app, int(ctx.yes_no)) == {0: 1, 1: 3}
    assert tallies_of(app, int(ctx.choice)) == {0: 1, 1: 0, 2: 3}
    assert respondents_of(app, ctx.slug) == 4
    assert len(snapshot(app)[0]) == 4


def test_charset_parameter_on_json_content_type_is_accepted(client, ctx):
    response = client.post(
        url(ctx.slug),
        data=json.dumps(ctx.body()),
        content_type="application/json; charset=utf-8",
    )
    assert response.status_code == 201


def test_body_of_exactly_the_size_limit_is_accepted(client, ctx):
    body_text = json.dumps(ctx.body())
    padded = body_text[:-1] + " " * (MAX_CONTENT_LENGTH - len(body_text)) + "}"
    assert len(padded.encode()) == MAX_CONTENT_LENGTH
    response = client.post(url(ctx.slug), data=padded, content_type="application/json")
    assert response.status_code == 201


# --------------------------------------------------------------------------- retries


def test_retry_with_same_answers_is_counted_once(app, client, ctx):
    body = ctx.body()
    first = post_json(client, ctx.slug, body)
    assert first.status_code == 201
    after_first = snapshot(app)

    again = post_json(client, ctx.slug, body)

    assert again.status_code == 200
    assert again.get_json() == first.get_json()
    assert snapshot(app) == after_first
    assert respondents_of(app, ctx.slug) == 1


def test_same_id_with_other_answers_is_a_conflict(app, client, ctx):
    submission_id = new_id()
    assert post_json(client, ctx.slug, ctx.body(submission_id=submission_id)).status_code == 201
    after_first = snapshot(app)

    other = {"submission_id": submission_id, "answers": ctx.answers(0, 1)}
    assert_json_error(post_json(client, ctx.slug, other), 409, "already_used")

    assert snapshot(app) == after_first
    with app.app_context():
        assert db.session.get(Submission, submission_id).answers == "1,2"


def test_same_id_sent_to_another_survey_is_a_conflict(app, client, ctx, other_survey):
    other_slug, other_ids = other_survey
    submission_id = new_id()
    assert post_json(client, ctx.slug, ctx.body(submission_id=submission_id)).status_code == 201
    after_first = snapshot(app)

    body = {"submission_id": submission_id, "answers": {str(q): 0 for q in other_ids}}
    assert_json_error(post_json(client, other_slug, body), 409, "already_used")

    assert snapshot(app) == after_first
    assert respondents_of(app, other_slug) == 0


@pytest.mark.parametrize(
    ("retry_answers", "status"), [((1, 2), 200), ((0, 2), 409)], ids=["same", "other"]
)
def test_a_retry_is_decided_by_the_unique_key(app, client, ctx, monkeypatch, retry_answers, status):
    """A retry goes straight to the insert; the unique key refuses it, then answers compare.

    There is no check before the insert that a concurrent twin could slip past: whichever
    request commits first stores the submission, and the other meets the key.
    """
    submission_id = new_id()
    assert post_json(client, ctx.slug, ctx.body(submission_id=submission_id)).status_code == 201
    after_first = snapshot(app)

    real_check = submissions._already_recorded
    checks = []

    def counting_check(survey_id, submission_id, encoded):
        checks.append(submission_id)
        return real_check(survey_id, submission_id, encoded)

    monkeypatch.setattr(submissions, "_already_recorded", counting_check)
    body = {"submission_id": submission_id, "answers": ctx.answers(*retry_answers)}
    response = post_json(client, ctx.slug, body)

    assert checks == [submission_id]  # the insert failed on the key, then one comparison
    if status == 200:
        assert response.status_code == 200
        assert response.get_json() == {"submission_id": submission_id, "status": "recorded"}
    else:
        assert_json_error(response, 409, "already_used")
    assert snapshot(app) == after_first


# --------------------------------------------------------------------------- survey state


@pytest.mark.parametrize("status", ["draft", "closed"])
def test_survey_not_open_is_a_conflict(app, client, make_survey, status):
    slug, (yes_no, choice) = make_survey(status=status)
    before = snapshot(app)
    body = {"submission_id": new_id(), "answers": {str(yes_no): 1, str(choice): 0}}
    message = assert_json_error(post_json(client, slug, body), 409, "survey_not_open")
    assert status in message
    assert snapshot(app) == before


def test_unknown_survey_is_not_found(app, client, ctx):
    before = snapshot(app)
    assert_json_error(post_json(client, "no-such-survey-slug-xxxxxx", ctx.body()), 404, "not_found")
    assert snapshot(app) == before


def test_get_on_the_submission_url_is_refused_as_json(client, ctx):
    assert_json_error(client.get(url(ctx.slug)), 405)


# --------------------------------------------------------------------------- bad bodies


def as_json(body: object) -> dict:
    return {"data": json.dumps(body), "content_type": "application/json"}


def raw(content: str | bytes, content_type: str | None = "application/json") -> dict:
    request = {"data": content}
    if content_type is not None:
        request["content_type"] = content_type
    return request


def valid_text(c: Context) -> str:
    return json.dumps(c.body())


def body_with(**fields: object):
    """A valid body with ``fields`` added or replaced."""
    return lambda c: as_json(c.body(**fields))


def values(yes_no: object, choice: object):
    """A valid body but for the two reported values."""
    return lambda c: as_json(c.body(answers=c.answers(yes_no, choice)))


def literal_value(literal: str):
    """A body whose yes/no value is ``literal`` written into the JSON text as it is."""
    return lambda c: raw(
        f'{{"submission_id": "{new_id()}", '
        f'"answers": {{"{c.yes_no}": {literal}, "{c.choice}": 2}}}}'
    )


def form(content_type: str):
    return lambda c: {
        "data": {"submission_id": new_id(), "answers": json.dumps(c.answers())},
        "content_type": content_type,
    }


def typed(content_type: str | None):
    """The valid JSON text under another content type (or none)."""
    return lambda c: raw(valid_text(c), content_type)


BAD_REQUESTS = {
    # --- not JSON, or not sent as JSON
    "malformed-json": lambda c: raw('{"submission_id": '),
    "trailing-garbage": lambda c: raw(valid_text(c) + " x"),
    "two-documents": lambda c: raw(valid_text(c) + valid_text(c)),
    "empty-body": lambda c: raw(""),
    "whitespace-body": lambda c: raw("   \n"),
    "text-plain": typed("text/plain"),
    "text-json": typed("text/json"),
    "json-patch-type": typed("application/json-patch+json"),
    "no-content-type": typed(None),
    "form-encoded": form("application/x-www-form-urlencoded"),
    "multipart": form("multipart/form-data"),
    "not-utf8": lambda c: raw(b'{"submission_id": "\xff\xfe"}'),
    "utf16": lambda c: raw(valid_text(c).encode("utf-16")),
    "json-array": lambda c: as_json([c.body()]),
    "json-empty-array": lambda c: as_json([]),
    "json-string": lambda c: as_json("hello"),
    "json-number": lambda c: as_json(42),
    "json-null": lambda c: raw("null"),
    "json-true": lambda c: raw("true"),
    "deeply-nested": lambda c: raw('{"answers": ' + "[" * 20000 + "]" * 20000 + "}"),
    # --- top-level fields
    "empty-object": lambda c: as_json({}),
    "missing-submission-id": lambda c: as_json({"answers": c.answers()}),
    "missing-answers": lambda c: as_json({"submission_id": new_id()}),
    "extra-epsilon": body_with(epsilon=1.1),
    "extra-survey": body_with(survey="x"),
    "extra-survey-id": body_with(survey_id=1),
    "extra-true-answer": body_with(true_answer={"1": 1}),
    "extra-true-answers": body_with(true_answers={}),
    "extra-flip-probability": body_with(flip_probability=0.49),
    "extra-status": body_with(status="recorded"),
    "extra-empty-name": body_with(**{"": 0}),
    # --- submission_id
    "submission-id-not-a-uuid": body_with(submission_id="not-a-uuid"),
    "submission-id-empty": body_with(submission_id=""),
    "submission-id-uuid1": body_with(submission_id=str(uuid.uuid1())),
    "submission-id-uuid3": body_with(submission_id=str(uuid.uuid3(uuid.NAMESPACE_DNS, "a.edu"))),
    "submission-id-uuid5": body_with(submission_id=str(uuid.uuid5(uuid.NAMESPACE_DNS, "a.edu"))),
    "submission-id-nil": body_with(submission_id=str(uuid.UUID(int=0))),
    "submission-id-uppercase": body_with(submission_id=str(uuid.uuid4()).upper()),
    "submission-id-no-hyphens": body_with(submission_id=uuid.uuid4().hex),
    "submission-id-braces": body_with(submission_id="{" + str(uuid.uuid4()) + "}"),
    "submission-id-urn": body_with(submission_id=uuid.uuid4().urn),
    "submission-id-padded": body_with(submission_id=" " + str(uuid.uuid4()) + " "),
    "submission-id-too-long": body_with(submission_id=str(uuid.uuid4()) + "0"),
    "submission-id-integer": body_with(submission_id=uuid.uuid4().int),
    "submission-id-small-integer": body_with(submission_id=4),
    "submission-id-null": body_with(submission_id=None),
    "submission-id-true": body_with(submission_id=True),
    "submission-id-list": body_with(submission_id=[str(uuid.uuid4())]),
    "submission-id-object": body_with(submission_id={"id": str(uuid.uuid4())}),
    # --- answers as a whole
    "answers-list": body_with(answers=[1, 2]),
    "answers-string": body_with(answers="1,2"),
    "answers-number": body_with(answers=12),
    "answers-null": body_with(answers=None),
    "answers-empty": body_with(answers={}),
    "answers-pairs": lambda c: as_json(c.body(answers=[[c.yes_no, 1], [c.choice, 2]])),
    # --- question ids
    "missing-question": lambda c: as_json(c.body(answers={c.yes_no: 1})),
    "missing-first-question": lambda c: as_json(c.body(answers={c.choice: 1})),
    "unknown-question": lambda c: as_json(c.body(answers=c.answers() | {"999999": 0})),
    "other-surveys-question-extra": lambda c: as_json(c.body(answers=c.answers() | {c.other: 0})),
    "other-surveys-question-instead": lambda c: as_json(c.body(answers={c.yes_no: 1, c.other: 0})),
    "question-id-zero-padded": lambda c: as_json(c.body(answers={"0" + c.yes_no: 1, c.choice: 2})),
    "question-id-with-space": lambda c: as_json(c.body(answers={" " + c.yes_no: 1, c.choice: 2})),
    "question-id-position": body_with(answers={"0": 1, "1": 2}),
    # --- values
    "value-yes-no-minus-1": values(-1, 0),
    "value-yes-no-2": values(2, 0),
    "value-choice-3": values(1, 3),
    "value-choice-minus-1": values(1, -1),
    "value-huge": values(10**30, 0),
    "value-true": values(True, 0),
    "value-false": values(1, False),
    "value-float-1.0": values(1.0, 0),
    "value-float-0.5": values(0.5, 0),
    "value-float-choice-2.0": values(1, 2.0),
    "value-string-1": values("1", 0),
    "value-string-yes": values("yes", 0),
    "value-null": values(None, 0),
    "value-list": values([1], 0),
    "value-empty-list": values(1, []),
    "value-object": values({"value": 1}, 0),
    "value-exponent-literal": literal_value("1e0"),
    # --- what Python's json module accepts but JSON does not
    "literal-nan": literal_value("NaN"),
    "literal-infinity": literal_value("Infinity"),
    "literal-minus-infinity": literal_value("-Infinity"),
    "literal-nan-as-field": lambda c: raw(valid_text(c)[:-1] + ', "epsilon": NaN}'),
    "duplicate-submission-id": lambda c: raw(
        f'{{"submission_id": "{new_id()}", "submission_id": "{new_id()}", '
        f'"answers": {json.dumps(c.answers())}}}'
    ),
    "duplicate-answers-field": lambda c: raw(
        f'{{"submission_id": "{new_id()}", "answers": {json.dumps(c.answers(0, 0))}, '
        f'"answers": {json.dumps(c.answers(1, 2))}}}'
    ),
    "duplicate-question-key": lambda c: raw(
        f'{{"submission_id": "{new_id()}", '
        f'"answers": {{"{c.yes_no}": 1, "{c.yes_no}": 0, "{c.choice}": 2}}}}'
    ),
    "duplicate-identical-key": lambda c: raw(
        f'{{"submission_id": "{new_id()}", '
        f'"answers": {{"{c.yes_no}": 1, "{c.yes_no}": 1, "{c.choice}": 2}}}}'
    ),
}


#: What the error message must mention, for the cases where one word says what is wrong.
MESSAGE_NAMES = {
    "text-plain": "application/json",
    "no-content-type": "application/json",
    "form-encoded": "application/json",
    "malformed-json": "JSON",
    "empty-body": "JSON",
    "not-utf8": "UTF-8",
    "json-array": "object",
    "missing-submission-id": "submission_id",
    "missing-answers": "answers",
    "extra-epsilon": "epsilon",
    "extra-survey-id": "survey_id",
    "extra-true-answer": "true_answer",
    "extra-flip-probability": "flip_probability",
    "submission-id-uuid1": "submission_id",
    "submission-id-uppercase": "submission_id",
    "submission-id-integer": "submission_id",
    "answers-list": "answers",
    "unknown-question": "999999",
    "missing-question": "not answered",
    "value-yes-no-2": "answers[",
    "value-true": "answers[",
    "value-string-1": "answers[",
    # Refused as JSON that is not JSON, before any other check sees a float.
    "literal-nan": "NaN",
    "literal-infinity": "Infinity",
    "literal-minus-infinity": "Infinity",
    "literal-nan-as-field": "NaN",
    "duplicate-submission-id": "twice",
    "duplicate-answers-field": "twice",
    "duplicate-question-key": "twice",
    "duplicate-identical-key": "twice",
}


@pytest.mark.parametrize("case", BAD_REQUESTS)
def test_bad_body_is_refused_and_stores_nothing(app, client, ctx, case):
    before = snapshot(app)
    response = client.post(url(ctx.slug), **BAD_REQUESTS[case](ctx))
    message = assert_json_error(response, 400)
    assert MESSAGE_NAMES.get(case, "") in message
    assert snapshot(app) == before
    assert respondents_of(app, ctx.slug) == 0


def test_every_message_name_belongs_to_a_case():
    assert set(MESSAGE_NAMES) <= set(BAD_REQUESTS)


@pytest.mark.parametrize(
    "content_type", ["application/json", "text/plain"], ids=["json", "text-plain"]
)
def test_body_over_64_kib_is_too_large_and_stores_nothing(app, client, ctx, content_type):
    body_text = json.dumps(ctx.body())
    padded = body_text[:-1] + " " * (MAX_CONTENT_LENGTH - len(body_text) + 1) + "}"
    assert len(padded.encode()) == MAX_CONTENT_LENGTH + 1
    before = snapshot(app)
    response = client.post(url(ctx.slug), data=padded, content_type=content_type)
    # A JSON body over the limit is 413; a body of the wrong type may be refused first.
    assert_json_error(response, 413 if content_type == "application/json" else 400)
    assert snapshot(app) == before


def test_much_larger_body_is_too_large(app, client, ctx):
    body = ctx.body() | {"padding": "x" * (1024 * 1024)}
    before = snapshot(app)
    message = assert_json_error(post_json(client, ctx.slug, body), 413)
    assert "64 KiB" in message
    assert snapshot(app) == before


def post_chunked(client, slug: str, data: bytes):
    """As gunicorn passes a chunked body on: no Content-Length, the stream ends where it ends."""
    return client.post(
        url(slug),
        input_stream=io.BytesIO(data),
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )


@pytest.mark.parametrize(
    ("extra_bytes", "status"),
    [(-100, 201), (0, 201), (1, 413), (10_000, 413)],
    ids=["small", "exactly-64-kib", "one-byte-over", "far-over"],
)
def test_chunked_body_over_64_kib_is_too_large(app, client, ctx, extra_bytes, status):
    """A valid body padded with whitespace after it: cut at the limit it would still parse."""
    body_text = json.dumps(ctx.body())
    data = (body_text + " " * (MAX_CONTENT_LENGTH - len(body_text) + extra_bytes)).encode()
    assert len(data) == MAX_CONTENT_LENGTH + extra_bytes
    before = snapshot(app)
    response = post_chunked(client, ctx.slug, data)
    assert response.request.headers.get("Transfer-Encoding") == "chunked"
    if status == 201:
        assert response.status_code == 201, response.data
        assert respondents_of(app, ctx.slug) == 1
    else:
        assert_json_error(response, 413)
        assert snapshot(app) == before


def test_rejected_body_then_valid_body_with_same_id_is_accepted(app, client, ctx):
    """A refusal leaves no trace that would make the same id a conflict later."""
    submission_id = new_id()
    bad = {"submission_id": submission_id, "answers": ctx.answers(1, 3)}
    assert_json_error(post_json(client, ctx.slug, bad), 400)
    good = {"submission_id": submission_id, "answers": ctx.answers(1, 2)}
    assert post_json(client, ctx.slug, good).status_code == 201
    assert respondents_of(app, ctx.slug) == 1


# --------------------------------------------------------------------------- all or nothing


def assert_json_server_error(response) -> None:
    assert 500 <= response.status_code < 600
    assert response.mimetype == "application/json"
    assert b"<html" not in response.data.lower()
    assert response.get_json()["error"]


#: A trigger that makes the database refuse the last write of a submission, in each dialect:
#: on SQLite the count's update, on PostgreSQL its place among those not yet counted.
REFUSE_THE_LAST_WRITE = {
    "sqlite": (
        [
            "CREATE TRIGGER refuse_tally_updates BEFORE UPDATE ON tallies "
            "BEGIN SELECT RAISE(ABORT, 'tally updates refused'); END"
        ],
        ["DROP TRIGGER refuse_tally_updates"],
    ),
    "postgresql": (
        [
            "CREATE FUNCTION refuse_queueing() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'queueing refused'; END $$",
            "CREATE TRIGGER refuse_queueing BEFORE INSERT ON uncounted_submissions "
            "FOR EACH ROW EXECUTE FUNCTION refuse_queueing()",
        ],
        [
            "DROP TRIGGER refuse_queueing ON uncounted_submissions",
            "DROP FUNCTION refuse_queueing()",
        ],
    ),
}


def run_statements(app, statements: list[str]) -> None:
    with app.app_context(), db.engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)


def test_a_database_error_after_the_insert_leaves_nothing(app, client, ctx):
    """The database refuses the last write after it stored the submission row: nothing stays."""
    with app.app_context():
        create, drop = REFUSE_THE_LAST_WRITE[db.engine.dialect.name]
    run_statements(app, create)
    body = ctx.body()
    before = snapshot(app)
    try:
        assert_json_server_error(post_json(client, ctx.slug, body))
        assert snapshot(app) == before
    finally:
        run_statements(app, drop)

    # Nothing half-written is left: the same submission goes through once the fault is gone.
    assert post_json(client, ctx.slug, body).status_code == 201
    assert respondents_of(app, ctx.slug) == 1


def test_a_failure_after_some_tallies_were_counted_leaves_nothing(app, client, ctx):
    """SQLite: the first question's tally is counted, the second's is missing: all rolls back.
    PostgreSQL: a submission does not touch the tallies; counting it adds the missing rows."""
    with app.app_context():
        dialect = db.engine.dialect.name
        missing = db.session.execute(
            select(Tally.value, Tally.shard).where(Tally.question_id == int(ctx.choice))
        ).all()
        db.session.execute(delete(Tally).where(Tally.question_id == int(ctx.choice)))
        db.session.commit()
    body = ctx.body()
    if dialect == "postgresql":
        assert post_json(client, ctx.slug, body).status_code == 201
        assert tallies_of(app, int(ctx.choice)) == {body["answers"][ctx.choice]: 1}
        return
    before = snapshot(app)

    assert_json_server_error(post_json(client, ctx.slug, body))
    assert snapshot(app) == before

    with app.app_context():
        db.session.add_all(
            Tally(question_id=int(ctx.choice), value=value, shard=shard, noisy_count=0)
            for value, shard in missing
        )
        db.session.commit()
    assert post_json(client, ctx.slug, body).status_code == 201
    assert respondents_of(app, ctx.slug) == 1


# --------------------------------------------------------------------------- CSRF


@pytest.fixture
def csrf_app(database_url):
    """An app with CSRF protection on, plus a protected endpoint showing that it is on."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "V7gEQWcpXKfGCkJblQqvQKC-NTi4vE_Ay87ny3N-kKa-i4hB",
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_ENABLED": False,
            "WTF_CSRF_ENABLED": True,
        }
    )
    app.add_url_rule("/csrf-probe", "csrf_probe", generate_csrf, methods=["GET"])
    app.add_url_rule("/csrf-probe", "csrf_probe_post", lambda: "accepted", methods=["POST"])
    with app.app_context():
        db.drop_all()
        db.create_all()
        owner = create_analyst("csrf@example.edu", "a long enough password")
        survey = create_survey(
            owner,
            parse_definition(
                {
                    "title": "CSRF",
                    "flip_probability": 0.25,
                    "questions": [{"text": "Q?", "type": "yes_no"}],
                }
            ),
        )
        db.session.commit()
        open_survey(survey)
        db.session.commit()
        app.config["TEST_SURVEY"] = (survey.slug, str(survey.questions[0].id))
    yield app
    with app.app_context():
        db.session.remove()
        if os.environ.get("SURVEY_APP_TEST_DATABASE_URL"):
            db.drop_all()
        db.engine.dispose()


def test_csrf_protection_is_really_on_in_the_csrf_app(csrf_app):
    client = csrf_app.test_client()
    assert client.post("/csrf-probe").status_code == 400
    token = client.get("/csrf-probe").get_data(as_text=True)
    assert client.post("/csrf-probe", headers={"X-CSRFToken": token}).status_code == 200


@pytest.mark.parametrize("token_header", [None, "not-a-real-token"], ids=["none", "bogus"])
def test_submission_api_is_csrf_exempt(csrf_app, token_header):
    slug, question_id = csrf_app.config["TEST_SURVEY"]
    client = csrf_app.test_client(use_cookies=False)
    headers = {"X-CSRFToken": token_header} if token_header else {}
    submission_id = new_id()
    response = client.post(
        url(slug),
        data=json.dumps({"submission_id": submission_id, "answers": {question_id: 0}}),
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 201, response.data
    assert response.get_json() == {"submission_id": submission_id, "status": "recorded"}
    assert respondents_of(csrf_app, slug) == 1


def test_a_survey_reopened_while_a_submission_was_refused_takes_it(app, client, ctx, monkeypatch):
    """The store sees the survey closed; the professor reopens it before the checks after it
    read the status: the submission is stored on a second try, not lost to a server error."""
    with app.app_context():
        survey = db.session.execute(select(Survey).where(Survey.slug == ctx.slug)).scalar_one()
        surveys.close_survey(survey)
        db.session.commit()

    def reopened_after(real_store):
        def store(row):
            stored = real_store(row)
            with app.app_context():
                reopened = db.session.execute(
                    select(Survey).where(Survey.slug == ctx.slug)
                ).scalar_one()
                surveys.open_survey(reopened)
                db.session.commit()
            return stored

        return store

    for name in ("_store_on_sqlite", "_store_on_postgresql"):
        monkeypatch.setattr(submissions, name, reopened_after(getattr(submissions, name)))
    body = ctx.body()
    response = post_json(client, ctx.slug, body)
    assert response.status_code == 201, response.get_json()
    assert respondents_of(app, ctx.slug) == 1
