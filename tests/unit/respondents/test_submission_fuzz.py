"""Property-based fuzzing of POST /api/v1/surveys/<slug>/responses (Hypothesis).

Bodies: arbitrary JSON values, near misses of a valid submission (right keys with wrong types,
extra keys, wrong, unknown or missing question ids, values out of range, bools, floats, huge
ints, nested junk), mangled JSON text, raw bytes and random content types. An oracle, written
from the API's contract rather than from its code, says whether a request is a well-formed
submission; then:

- malformed: a 4xx JSON ``{"error": "<non-empty text>"}``; nothing stored (submissions,
  tallies, respondent counts unchanged);
- well-formed: 201 and stored once (the row, each answered value's tally, the respondent
  count), or 200 for a retry with the same answers, or 409 for its id with other answers;
- never a 5xx.

Runs are derandomized (no flakes, no example database written to the tree).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from werkzeug.http import parse_options_header

from survey_app.config import MAX_CONTENT_LENGTH
from survey_app.extensions import db
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Submission, Survey, Tally
from survey_app.web.errors import CODES
from tests.databases import TEST_DATABASE_URL

#: Examples a property draws. The body's checks are the same code on either database, and the
#: SQLite pass draws 300 of each; the PostgreSQL pass draws 100, enough to see that what is
#: refused stores nothing there too and what is valid is stored once (a few seconds, not a
#: minute, of each property's examples, which each make a request and read the tables back).
EXAMPLES = 100 if TEST_DATABASE_URL else 300

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

#: A second open survey: its question ids and slug are near misses for the first's.
OTHER_DEFINITION = {
    "title": "Lab safety",
    "flip_probability": 0.2,
    "questions": [
        {"text": "Skipped the goggles?", "type": "yes_no"},
        {"text": "Which lab?", "type": "choice", "options": ["A", "B", "C", "D", "E"]},
    ],
}


@dataclass(frozen=True)
class Target:
    """The survey under fuzz: slug, question ids (as the API spells them) and option counts."""

    slug: str
    keys: tuple[str, ...]
    counts: tuple[int, ...]
    other_slug: str
    other_keys: tuple[str, ...]

    @property
    def url(self) -> str:
        return f"/api/v1/surveys/{self.slug}/responses"


@pytest.fixture
def target(survey, make_survey) -> Target:
    slug, question_ids = survey
    other_slug, other_ids = make_survey(OTHER_DEFINITION)
    return Target(
        slug,
        tuple(map(str, question_ids)),
        (2, 3),  # SAMPLE_DEFINITION in tests/conftest.py: a yes/no and a 3-option choice
        other_slug,
        tuple(map(str, other_ids)),
    )


# --------------------------------------------------------------------------- the oracle


def _no_constants(name: str):
    raise ValueError(name)


def _no_duplicates(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def well_formed(target: Target, body: bytes, content_type: str | None) -> tuple[str, str] | None:
    """(submission_id, answers encoded in question order) if the request is a valid
    submission to ``target`` by the API's contract; None if it must be refused."""
    if content_type is None or parse_options_header(content_type)[0].lower() != "application/json":
        return None
    if len(body) > MAX_CONTENT_LENGTH:
        return None
    try:
        payload = json.loads(
            body.decode("utf-8"), parse_constant=_no_constants, object_pairs_hook=_no_duplicates
        )
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict) or set(payload) != {"submission_id", "answers"}:
        return None
    submission_id, answers = payload["submission_id"], payload["answers"]
    if not isinstance(submission_id, str):
        return None
    try:
        parsed = uuid.UUID(submission_id)
    except ValueError:
        return None
    if parsed.version != 4 or str(parsed) != submission_id:
        return None
    if not isinstance(answers, dict) or set(answers) != set(target.keys):
        return None
    values = []
    for key, count in zip(target.keys, target.counts, strict=True):
        value = answers[key]
        if type(value) is not int or not 0 <= value < count:
            return None
        values.append(str(value))
    return submission_id, ",".join(values)


def snapshot(app) -> tuple[dict, dict, dict]:
    with app.app_context():
        count_arrivals()  # what a reader of the counts does first (PostgreSQL)
        db.session.commit()
        rows = db.session.execute(
            select(Submission.submission_id, Submission.survey_id, Submission.answers)
        ).all()
        tallies = db.session.execute(
            select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count)).group_by(
                Tally.question_id, Tally.value
            )
        )
        respondents = db.session.execute(select(Survey.slug, Survey.respondents))
        return (
            {sid: (survey_id, answers) for sid, survey_id, answers in rows},
            {(q, v): n for q, v, n in tallies},
            dict(map(tuple, respondents)),
        )


def survey_id_of(app, slug: str) -> int:
    with app.app_context():
        return db.session.execute(select(Survey.id).where(Survey.slug == slug)).scalar_one()


def post(client, target: Target, body: bytes, content_type: str | None):
    headers = {} if content_type is None else {"Content-Type": content_type}
    return client.post(target.url, data=body, headers=headers)


def check(app, client, target: Target, body: bytes, content_type: str | None) -> str:
    """Send one request and check it against the oracle; return what happened."""
    before = snapshot(app)
    response = post(client, target, body, content_type)
    after = snapshot(app)
    status = response.status_code
    event(f"status {status}")  # shown by pytest --hypothesis-show-statistics
    assert status < 500, (status, response.data, body[:200], content_type)
    expected = well_formed(target, body, content_type)

    if expected is None:
        assert 400 <= status < 500, (status, body[:200], content_type)
        assert_json_error(response)
        assert after == before, (status, body[:200], content_type)
        return "refused"

    submission_id, encoded = expected
    own_id = survey_id_of(app, target.slug)
    existing = before[0].get(submission_id)
    if existing is None:
        assert status == 201, (response.data, body[:200])
        assert response.get_json() == {"submission_id": submission_id, "status": "recorded"}
        rows, tallies, respondents = before
        assert after[0] == rows | {submission_id: (own_id, encoded)}
        counted = dict(tallies)
        for key, value in zip(target.keys, encoded.split(","), strict=True):
            counted[(int(key), int(value))] += 1
        assert after[1] == counted
        assert after[2] == respondents | {target.slug: respondents[target.slug] + 1}
        return "stored"
    if existing == (own_id, encoded):
        assert status == 200, response.data
        assert response.get_json() == {"submission_id": submission_id, "status": "recorded"}
    else:
        assert status == 409, response.data
        assert_json_error(response)
    assert after == before
    return "retry" if status == 200 else "conflict"


def assert_json_error(response) -> None:
    assert response.mimetype == "application/json", response.data
    body = response.get_json()
    assert isinstance(body, dict) and set(body) == {"error", "code"}, body
    assert isinstance(body["error"], str) and body["error"].strip()
    assert body["code"] in {*CODES.values(), "already_used", "survey_not_open"}, body


# --------------------------------------------------------------------------- strategies

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

JSON_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON"]
OTHER_TYPES = [
    "text/plain",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json-patch+json",
    "application/jsonp",
    "application/ json",
    "application/javascript",
    "",
]
content_types = (
    st.sampled_from(JSON_TYPES + OTHER_TYPES)
    | st.none()
    | st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
)


def uniformly(*strategies):
    """One of the strategies, each as likely (st.one_of favours the first ones)."""
    return st.sampled_from(strategies).flatmap(lambda strategy: strategy)


bad_submission_ids = uniformly(
    json_values.filter(lambda value: not isinstance(value, str)),
    st.text(max_size=40),
    st.uuids(version=4).map(lambda u: str(u).upper()).filter(lambda text: text != text.lower()),
    st.uuids(version=4).map(lambda u: u.hex),
    st.uuids(version=4).map(lambda u: "{" + str(u) + "}"),
    st.uuids(version=4).map(lambda u: u.urn),
    st.uuids(version=4).map(lambda u: f" {u}"),
    st.uuids(version=4).map(lambda u: str(u)[:-1]),
    st.uuids(version=4).map(lambda u: str(u) + "0"),
    st.uuids(version=1).map(str),
    st.uuids(version=3).map(str),
    st.uuids(version=5).map(str),
    st.just(str(uuid.UUID(int=0))),
    # Version 4 digits but not the RFC 4122 variant.
    st.uuids(version=4).map(lambda u: str(u)[:19] + "c" + str(u)[20:]),
)


def bad_values(count: int):
    """Anything but an int in 0 .. count - 1."""
    return uniformly(
        st.integers(max_value=-1),
        st.integers(min_value=count, max_value=2**63),
        st.integers(min_value=2**63),
        st.booleans(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(0, count - 1).map(float),  # 1.0: an integer, but not an int
        st.text(max_size=5),
        st.integers(0, count - 1).map(str),
        st.none(),
        st.lists(st.integers(0, count - 1), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(0, count - 1), max_size=2),
    )


EXTRA_KEYS = [
    "epsilon",
    "survey_id",
    "survey",
    "slug",
    "true_answer",
    "true_answers",
    "flip_probability",
    "status",
    "id",
    "",
    "Submission_id",
    "answers ",
]


def valid_payload(draw, target: Target) -> dict:
    values = [draw(st.integers(0, count - 1)) for count in target.counts]
    keys = draw(st.permutations(list(target.keys)))
    answers = {key: values[target.keys.index(key)] for key in keys}
    return {"submission_id": str(draw(st.uuids(version=4))), "answers": answers}


def unknown_question_ids(target: Target, key: str):
    near = ["0" + key, " " + key, key + " ", "+" + key, key + ".0", str(-int(key)), "999999"]
    return uniformly(
        st.sampled_from(near + ["0", "", *target.other_keys]),
        st.integers().map(str).filter(lambda text: text not in target.keys),
        st.text(max_size=6).filter(lambda text: text not in target.keys),
    )


FAULTS = [
    "drop-field",
    "extra-field",
    "bad-submission-id",
    "answers-not-an-object",
    "drop-answer",
    "unknown-question",
    "bad-value",
    "other-surveys-questions",
    "answers-as-list",
    "wrapped",
]


@st.composite
def near_misses(draw, target: Target) -> dict:
    """A valid submission with one thing wrong with it (sometimes two or three)."""
    payload = valid_payload(draw, target)
    answers = payload["answers"]
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        fault = draw(st.sampled_from(FAULTS))
        if fault == "drop-field" and payload:
            del payload[draw(st.sampled_from(sorted(payload)))]
        elif fault == "extra-field":
            key = draw(uniformly(st.sampled_from(EXTRA_KEYS), st.text(max_size=10)))
            if key in ("submission_id", "answers"):
                key += "_"
            payload[key] = draw(json_values)
        elif fault == "bad-submission-id":
            payload["submission_id"] = draw(bad_submission_ids)
        elif fault == "answers-not-an-object":
            payload["answers"] = draw(json_values.filter(lambda value: not isinstance(value, dict)))
        elif fault == "drop-answer":
            answers.pop(draw(st.sampled_from(list(target.keys))), None)
        elif fault == "unknown-question":
            key = draw(st.sampled_from(list(target.keys)))
            answers[draw(unknown_question_ids(target, key))] = draw(st.integers(0, 1))
            if draw(st.booleans()):
                answers.pop(key, None)  # in place of a real one rather than beside it
        elif fault == "bad-value":
            index = draw(st.integers(0, len(target.keys) - 1))
            answers[target.keys[index]] = draw(bad_values(target.counts[index]))
        elif fault == "other-surveys-questions":
            payload["answers"] = {key: 0 for key in target.other_keys}
        elif fault == "answers-as-list":
            size = len(target.keys)
            payload["answers"] = draw(st.lists(st.integers(0, 1), min_size=size, max_size=size))
        else:  # wrapped: the submission inside something else
            return draw(
                st.sampled_from([[payload], {"submission": payload}, {"data": payload}, [], ""])
            )
    return payload


@st.composite
def valid_texts(draw, target: Target) -> bytes:
    return json.dumps(valid_payload(draw, target)).encode()


@st.composite
def mangled_texts(draw, target: Target) -> bytes:
    """Valid JSON text with characters inserted, deleted or replaced: mostly not JSON."""
    text = json.dumps(valid_payload(draw, target))
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(list('{}[]",:0123456789 -.eE\\') + ["NaN", "Infinity"]))
        if edit == "insert":
            text = text[:position] + piece + text[position:]
        elif edit == "delete":
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + piece + text[position + 1 :]
    return text.encode()


def crafted_bodies(target: Target) -> list[bytes]:
    """Hand-made edge cases mixed into the raw strategy."""
    valid = json.dumps(
        {"submission_id": str(uuid.uuid4()), "answers": {key: 0 for key in target.keys}}
    )
    first = target.keys[0]
    return [
        b"",
        b"   ",
        b"null",
        b"[]",
        b"{}",
        b'"' + b"x" * 100 + b'"',
        b"[" * 50_000 + b"]" * 10,  # deep nesting, under the size limit
        b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
        ("9" * 5000).encode(),  # an int too long for Python to convert
        valid.replace(f'"{first}": 0', f'"{first}": {"9" * 5000}').encode(),
        valid.replace(f'"{first}": 0', f'"{first}": NaN').encode(),
        valid.replace(f'"{first}": 0', f'"{first}": Infinity').encode(),
        valid.replace(f'"{first}": 0', f'"{first}": 1e0').encode(),
        valid.replace(f'"{first}": 0', f'"{first}": 0, "{first}": 0').encode(),
        valid[:-1].encode() + b', "submission_id": "x"}',
        b"\xef\xbb\xbf" + valid.encode(),  # a UTF-8 byte order mark
        valid.encode("utf-16"),
        valid.encode("utf-32"),
        valid.encode() + b"\x00",
        valid.encode()[:-1] + b"\xff}",
        valid.encode() + b" " * MAX_CONTENT_LENGTH,  # over the limit
        b"\x00" * 100,
    ]


# --------------------------------------------------------------------------- properties


@FUZZ_SETTINGS
@given(value=json_values, content_type=st.sampled_from(JSON_TYPES))
def test_arbitrary_json_values_are_refused(app, client, target, value, content_type):
    outcome = check(app, client, target, json.dumps(value).encode(), content_type)
    assert outcome == "refused"


@FUZZ_SETTINGS
@given(data=st.data())
def test_near_miss_submissions_are_refused(app, client, target, data):
    payload = data.draw(near_misses(target))
    content_type = data.draw(st.sampled_from(JSON_TYPES))
    body = json.dumps(payload).encode()
    # Faults can undo each other (an answer dropped, then set again): that is no near miss.
    assume(well_formed(target, body, content_type) is None)
    assert check(app, client, target, body, content_type) == "refused"


@FUZZ_SETTINGS
@given(data=st.data())
def test_raw_bodies_and_content_types_are_refused_unless_valid(app, client, target, data):
    body = data.draw(
        st.binary(max_size=300)
        | st.text(max_size=100).map(str.encode)
        | mangled_texts(target)
        | st.sampled_from(crafted_bodies(target))
        | valid_texts(target)  # under a content type drawn at random
    )
    content_type = data.draw(content_types)
    check(app, client, target, body, content_type)


@settings(FUZZ_SETTINGS, max_examples=60)
@given(data=st.data())
def test_crafted_edge_cases_sent_as_json_are_refused(app, client, target, data):
    body = data.draw(st.sampled_from(crafted_bodies(target)))
    content_type = data.draw(st.sampled_from(JSON_TYPES))
    assert check(app, client, target, body, content_type) == "refused"


@FUZZ_SETTINGS
@given(data=st.data())
def test_valid_submissions_are_stored_once(app, client, target, data):
    payload = valid_payload(data.draw, target)
    indent = data.draw(st.sampled_from([None, 0, 2, "\t"]))
    content_type = data.draw(st.sampled_from(JSON_TYPES))
    body = json.dumps(payload, indent=indent).encode()
    # Stored, unless an earlier example already used the id ("retry" or "conflict").
    outcome = check(app, client, target, body, content_type)
    assert outcome != "refused"
    accepted = outcome in {"stored", "retry"}

    # Then a retry: the same body (200), or the same id with other answers (409).
    retry = data.draw(st.sampled_from(["same", "other", "none"]))
    if retry == "same":
        assert check(app, client, target, body, content_type) == (
            "retry" if accepted else "conflict"
        )
    elif retry == "other":
        key = target.keys[0]
        flipped = payload | {"answers": payload["answers"] | {key: 1 - payload["answers"][key]}}
        assert check(app, client, target, json.dumps(flipped).encode(), content_type) in (
            {"conflict"} if accepted else {"conflict", "retry"}
        )
