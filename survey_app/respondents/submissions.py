"""The submission path: parse, check, store once, and the rules for retries.

A submission is ``{"submission_id": "<uuid4>", "answers": {"<question id>": <value>, ...}}``,
every question of an open survey answered once with a value in range, and ``"code"``: an unused
one-time code when the survey requires codes (see :mod:`survey_app.classroom.codes`). It is stored
all-or-nothing, and so is marking its code used: on SQLite in one short transaction with the
counts it adds to; on PostgreSQL in one statement that only inserts (the submission, and its
place among those that whoever next reads the counts adds to them first:
:func:`survey_app.storage.database.count_arrivals`), so that no submission waits on another's
count rows; a retry of the same id with the same
answers is counted once (its code is used by then: still 200), the same id with other answers is
refused. Refusals carry the HTTP status and a machine-readable
code (see :class:`SubmissionRejected`).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from survey_app.classroom.codes import code_sha256, code_state, normalise_code
from survey_app.extensions import db
from survey_app.storage.database import is_sqlite, write_transaction
from survey_app.storage.kept_connection import KeptStatement, run_on_kept_connection
from survey_app.storage.models import Submission, Survey, SurveyStatus, join_answers
from survey_app.surveys.services import find_survey


class SubmissionRejected(ValueError):
    """A submission was refused: ``status`` is the HTTP status to answer with, ``code`` a
    machine-readable reason (``invalid``, ``not_found``, ``survey_not_open``, ``already_used``,
    ...) that clients read instead of the wording."""

    def __init__(self, message: str, status: int = 400, code: str = "invalid"):
        super().__init__(message)
        self.status = status
        self.code = code


SUBMISSION_FIELDS = frozenset({"submission_id", "answers"})
OPTIONAL_FIELDS = frozenset({"code"})


def parse_submission_id(value: object) -> str:
    """A canonical random UUID (version 4, lower case, hyphenated), or refuse."""
    if not isinstance(value, str):
        raise SubmissionRejected("submission_id must be a UUID4 string")
    try:
        parsed = uuid.UUID(value)
    except ValueError as error:
        raise SubmissionRejected("submission_id must be a UUID4 string") from error
    if parsed.version != 4 or str(parsed) != value:
        raise SubmissionRejected(
            "submission_id must be a random UUID (version 4) in lower-case hyphenated form"
        )
    return value


def parse_submission(payload: object) -> tuple[str, dict[str, object]]:
    """Check the form of a submission body: ``{"submission_id": ..., "answers": {...}}``."""
    if not isinstance(payload, dict):
        raise SubmissionRejected("the body must be a JSON object")
    extra = set(payload) - SUBMISSION_FIELDS - OPTIONAL_FIELDS
    if extra:
        raise SubmissionRejected(f"unexpected field {sorted(extra)[0]!r}")
    missing = SUBMISSION_FIELDS - set(payload)
    if missing:
        raise SubmissionRejected(f"missing field {sorted(missing)[0]!r}")
    submission_id = parse_submission_id(payload["submission_id"])
    answers = payload["answers"]
    if not isinstance(answers, dict):
        raise SubmissionRejected("answers must be an object of question id to value")
    return submission_id, answers


@dataclass(frozen=True)
class SurveyShape:
    """A survey's shape, cached: what checking and storing a submission needs of a survey
    that has opened (its questions and what each may report, whether it requires codes).

    Once a survey opens, its questions can no longer change, so each worker keeps this in
    memory and a submission needs no query to be checked; only the status is read again.
    """

    survey_id: int
    #: Checked with the id when storing: a worker may still hold this for a survey deleted
    #: since, and SQLite gives a deleted survey's id (and its questions') to the next one.
    slug: str
    question_ids: tuple[int, ...]
    #: Each question's smallest and largest randomized value (0 .. k - 1 for k options; a
    #: numeric question's mechanism's output range).
    value_ranges: tuple[tuple[int, int], ...]
    #: Fixed once the survey opens, as the questions are (codes.require_codes).
    requires_codes: bool = False
    #: A numeric question's tally rows are added as its reports first arrive.
    has_numeric: bool = False

    @cached_property
    def question_list(self) -> str:
        """The question ids in order, as the text the recording statements take."""
        return join_answers(self.question_ids)


#: The shapes of surveys that have opened, by slug; a small per-process cache.
_shapes: dict[str, SurveyShape] = {}
MAX_CACHED_SHAPES = 1024


def shape_of(slug: str) -> SurveyShape:
    """The survey's shape, or SubmissionRejected: 404 if unknown, 409 if a draft."""
    cached = _shapes.get(slug)
    if cached is not None:
        return cached
    survey = find_survey(slug)
    if survey is None:
        raise SubmissionRejected("no such survey", 404, "not_found")
    if survey.is_draft:  # a draft's questions may still change: never cached
        raise _not_open(survey.status)
    shape = SurveyShape(
        survey_id=survey.id,
        slug=survey.slug,
        question_ids=tuple(question.id for question in survey.questions),
        value_ranges=tuple(question.report_range for question in survey.questions),
        requires_codes=survey.requires_codes,
        has_numeric=any(not question.has_options for question in survey.questions),
    )
    if len(_shapes) >= MAX_CACHED_SHAPES:
        _shapes.clear()
    _shapes[slug] = shape
    return shape


def encode_answers(shape: SurveyShape, answers: dict[str, object]) -> str:
    """Check randomized answers against the survey; return them in question order as text."""
    expected = [str(question_id) for question_id in shape.question_ids]
    unknown = set(answers) - set(expected)
    if unknown:
        raise SubmissionRejected(f"answers: unknown question id {sorted(unknown)[0]!r}")
    missing = [key for key in expected if key not in answers]
    if missing:
        raise SubmissionRejected(f"answers: question {missing[0]} is not answered")
    values = []
    for key, (low, high) in zip(expected, shape.value_ranges, strict=True):
        value = answers[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise SubmissionRejected(f"answers[{key}]: must be an integer, got {value!r}")
        if not low <= value <= high:
            raise SubmissionRejected(f"answers[{key}]: must be in {low} .. {high}, got {value}")
        values.append(value)
    return join_answers(values)


def code_of(shape: SurveyShape, payload: dict) -> str | None:
    """The submission's one-time code (stored form) if the survey requires one, else None."""
    if not shape.requires_codes:
        return None  # a code sent anyway is not needed, and not looked at
    if payload.get("code") in (None, ""):
        raise SubmissionRejected(
            'this survey asks for a one-time code: send it as "code"', 403, "code_required"
        )
    code = normalise_code(payload["code"])
    if code is None:
        raise SubmissionRejected("that is not a one-time code of this survey", 403, "code_invalid")
    return code


def _not_open(status: SurveyStatus) -> SubmissionRejected:
    return SubmissionRejected(f"this survey is {status.value}, not open", 409, "survey_not_open")


# A submission is recorded in each database's own SQL, written out: on the hot path there is
# no ORM and nothing to compile per request. The parameters are those of submission_row().

#: PostgreSQL: one statement, run in autocommit on the worker's kept connection
#: (kept_connection), so a submission costs one round trip. It
#: only inserts: the submission, if the survey is open, and its place in the queue of those
#: not yet counted (models.UncountedSubmission), which whoever reads the counts adds to the
#: tallies first (database.count_arrivals). No submission waits on another's count rows.
_RECORD_ON_POSTGRESQL = """
WITH {claim}stored AS (
    INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)
    SELECT %(submission_id)s, %(survey_id)s, %(submitted_on)s::date, %(answers)s
    WHERE EXISTS (SELECT FROM surveys
                  WHERE id = %(survey_id)s AND slug = %(slug)s AND status = 'open'){claimed}
    RETURNING survey_id, submission_id
)
INSERT INTO uncounted_submissions (survey_id, submission_id)
SELECT survey_id, submission_id FROM stored
"""

#: ... and for a survey that requires codes, the same statement also marks the code used, under
#: the same conditions: a data-modifying CTE runs whatever the rest does, so it checks them
#: itself. Of two submissions of one code, the second waits for the first's claim, then finds
#: the code used and stores nothing. A unique violation on the submission id undoes the claim.
_RECORD_WITH_CODE_ON_POSTGRESQL = _RECORD_ON_POSTGRESQL.format(
    claim="""claimed AS (
    UPDATE one_time_codes SET used_on = %(submitted_on)s::date
    WHERE survey_id = %(survey_id)s AND code_sha256 = %(code_sha256)s AND used_on IS NULL
      AND EXISTS (SELECT FROM surveys
                  WHERE id = %(survey_id)s AND slug = %(slug)s AND status = 'open')
    RETURNING survey_id
), """,
    claimed="\n      AND EXISTS (SELECT FROM claimed)",
)
_RECORD_ON_POSTGRESQL = _RECORD_ON_POSTGRESQL.format(claim="", claimed="")
RECORD = KeptStatement.from_named("survey_app_record", _RECORD_ON_POSTGRESQL)
RECORD_WITH_CODE = KeptStatement.from_named(
    "survey_app_record_with_code", _RECORD_WITH_CODE_ON_POSTGRESQL
)

#: SQLite: two statements in one write transaction (the write lock is whole, so no row locks).
_STORE_ON_SQLITE = """
INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)
SELECT :submission_id, :survey_id, :submitted_on, :answers
WHERE EXISTS (SELECT 1 FROM surveys WHERE id = :survey_id AND slug = :slug AND status = 'open')
"""
_CLAIM_ON_SQLITE = """
UPDATE one_time_codes SET used_on = :submitted_on
WHERE survey_id = :survey_id AND code_sha256 = :code_sha256 AND used_on IS NULL
  AND EXISTS (SELECT 1 FROM surveys WHERE id = :survey_id AND slug = :slug AND status = 'open')
"""
#: ... with the missing tally rows of a numeric question's reports added first (a refused
#: submission never gets here: it writes nothing).
_ADD_TALLIES_ON_SQLITE = """
INSERT OR IGNORE INTO tallies (question_id, value, shard, noisy_count)
SELECT question.value, answer.value, 0, 0
FROM json_each('[' || :question_list || ']') AS question
JOIN json_each('[' || :answers || ']') AS answer USING (key)
"""
_COUNT_ON_SQLITE = """
UPDATE tallies SET noisy_count = noisy_count + 1
WHERE shard = 0
  AND (question_id, value) IN (
      SELECT question.value, answer.value
      FROM json_each('[' || :question_list || ']') AS question
      JOIN json_each('[' || :answers || ']') AS answer USING (key))
"""


def submission_row(
    shape: SurveyShape, submission_id: str, encoded: str, code: str | None = None
) -> dict[str, object]:
    """The parameters of the statements that record a submission."""
    return {
        "code_sha256": None if code is None else code_sha256(code),
        "submission_id": submission_id,
        "survey_id": shape.survey_id,
        "slug": shape.slug,
        "submitted_on": dt.datetime.now(dt.UTC).date().isoformat(),
        "answers": encoded,
        "question_list": shape.question_list,
        "question_count": len(shape.question_ids),
        "has_numeric": shape.has_numeric,
    }


def _store_on_postgresql(row: dict[str, object]) -> bool:
    statement = RECORD if row["code_sha256"] is None else RECORD_WITH_CODE
    try:
        return run_on_kept_connection(statement, row) > 0
    except db.engine.dialect.loaded_dbapi.IntegrityError:
        return False  # this submission_id is stored already: a retry, or a concurrent twin


def _store_on_sqlite(row: dict[str, object]) -> bool:
    with write_transaction() as connection:
        if row["code_sha256"] is not None:
            if connection.exec_driver_sql(_CLAIM_ON_SQLITE, row).rowcount == 0:
                return False  # unknown or used code, or a closed survey: nothing was written
        # A unique violation here (a retry) rolls the claim back with the rest.
        if connection.exec_driver_sql(_STORE_ON_SQLITE, row).rowcount == 0:
            return False
        if row["has_numeric"]:
            connection.exec_driver_sql(_ADD_TALLIES_ON_SQLITE, row)
        counted = connection.exec_driver_sql(_COUNT_ON_SQLITE, row).rowcount
        if counted != row["question_count"]:  # raised inside the transaction: nothing stays
            raise RuntimeError(f"tallies missing for survey {row['survey_id']}")
    return True


def record_submission(slug: str, payload: object) -> tuple[str, bool]:
    """Store one randomized submission all-or-nothing; return ``(submission_id, created)``.

    ``created`` is False when the same submission_id already holds the same answers (a retry),
    which is then counted once. Raises :class:`SubmissionRejected` with the status to answer.

    Everything that can be checked is checked before writing, and the write is as short as
    the database allows: one statement on PostgreSQL, one short transaction on SQLite.
    """
    submission_id, answers = parse_submission(payload)
    shape = shape_of(slug)
    encoded = encode_answers(shape, answers)
    code = code_of(shape, payload)
    store = _store_on_sqlite if is_sqlite() else _store_on_postgresql
    # (A warm worker has not made the request's session at all: none is made just to ask.)
    if db.session.registry.has() and db.session().in_transaction():
        # The survey was read (a worker's first submission to it): end that read before the
        # store takes a connection of its own, so that a request holds one server connection
        # at a time (behind PgBouncer's transaction pooling, requests that each held one and
        # waited for a second would wait for each other for ever).
        db.session.rollback()
    # A second try only when the survey was reopened between the store and the checks below.
    for _attempt in range(2):
        try:
            stored = store(submission_row(shape, submission_id, encoded, code))
        except IntegrityError:
            stored = False  # this submission_id is stored already: a retry, or a concurrent twin
        if stored:
            return submission_id, True
        if _already_recorded(shape.survey_id, submission_id, encoded):
            return submission_id, False  # a retry (perhaps arriving after the survey closed)
        status = db.session.execute(
            select(Survey.status).where(Survey.id == shape.survey_id, Survey.slug == shape.slug)
        ).scalar_one_or_none()
        if status is None:  # deleted since this worker cached it
            _shapes.pop(slug, None)
            raise SubmissionRejected("no such survey", 404, "not_found")
        if status != SurveyStatus.OPEN:
            raise _not_open(status)
        if db.session.get(Submission, submission_id) is not None:  # loaded just above
            raise SubmissionRejected(
                "this submission_id was already used with other answers", 409, "already_used"
            )
        if code is not None:
            state = code_state(shape.survey_id, code)
            if state == "unknown":
                raise SubmissionRejected(
                    "that is not a one-time code of this survey", 403, "code_invalid"
                )
            if state == "used":
                raise SubmissionRejected(
                    "this one-time code was already used: each code answers once",
                    409,
                    "code_used",
                )
    raise RuntimeError(f"tallies missing for survey {shape.survey_id}")


def _already_recorded(survey_id: int, submission_id: str, encoded: str) -> bool:
    """True when the stored submission with this id holds these answers for this survey."""
    # End the session's transaction first: on SQLite a read transaction keeps the snapshot of
    # its first read (shape_of, on a cache miss), from before the concurrent twin's commit,
    # and would not see its row: an identical retry would be refused as a conflict (409).
    db.session.rollback()
    # Loaded as an entity: a conflict check after this finds it in the session, not by a query.
    stored = db.session.get(Submission, submission_id)
    return stored is not None and (stored.survey_id, stored.answers) == (survey_id, encoded)
