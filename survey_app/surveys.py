"""What can be done with a survey: define it, open and close it, and record submissions.

Views and commands call these; they hold the rules (a survey's mechanism is frozen once it
opens; a submission answers every question exactly once, with a value in range; a retried
submission is counted once), so that the web, the API and the command line agree.
"""

from __future__ import annotations

import datetime as dt
import json
import numbers
import random
import tomllib
import unicodedata
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from sqlalchemy import (
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from survey_app import privacy
from survey_app.database import autocommit_cursor, forget_arrival_order, write_transaction
from survey_app.extensions import db
from survey_app.models import (
    TALLY_SHARDS,
    Analyst,
    Question,
    QuestionKind,
    Submission,
    Survey,
    SurveyStatus,
    Tally,
)

MAX_TITLE_LENGTH = 200
MAX_INTRO_LENGTH = 5000
MAX_QUESTION_LENGTH = 1000
MAX_OPTION_LENGTH = 200
MAX_QUESTIONS = 50
MIN_OPTIONS = 2
MIN_FLIP_PROBABILITY = 0.000001
MAX_FLIP_PROBABILITY = 0.499999


class SurveyDefinitionError(ValueError):
    """A survey definition is invalid; the message names the field and what is wrong."""


class SurveyStateError(ValueError):
    """The survey's status does not allow what was asked."""


class SubmissionRejected(ValueError):
    """A submission was refused; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class QuestionDefinition:
    text: str
    kind: QuestionKind
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SurveyDefinition:
    title: str
    intro: str
    flip_probability: float
    questions: tuple[QuestionDefinition, ...]


#: Characters that draw nothing yet are not control or format characters.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_ZERO_WIDTH_JOINER = "\u200d"


def _hidden_character(text: str, line_breaks: bool) -> tuple[int, str] | None:
    """The first control or invisible character of ``text`` (position and code), if any.

    Such characters make two options that look the same differ, hide text from the page or
    turn it around (bidirectional overrides), and can break the CSV. Refused: control
    characters (line breaks only where ``line_breaks``), format characters (zero-width spaces,
    bidirectional controls, the byte-order mark...), surrogates, private-use and unassigned
    code points, line and paragraph separators, and blank letters. A zero-width joiner is let
    through between two pictographs, where it joins an emoji ("👩‍💻").
    """
    for position, char in enumerate(text):
        if line_breaks and char in "\r\n":
            continue
        category = unicodedata.category(char)
        if char == _ZERO_WIDTH_JOINER and 0 < position < len(text) - 1:
            before, after = text[position - 1], text[position + 1]
            if unicodedata.category(after) == "So" and (
                unicodedata.category(before) in ("So", "Sk") or before == "\ufe0f"
            ):
                continue
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or char in _INVISIBLE:
            return position, f"U+{ord(char):04X}"
    return None


def _text(
    field: str, value: object, max_length: int, required: bool = True, line_breaks: bool = False
) -> str:
    if not isinstance(value, str):
        raise SurveyDefinitionError(f"{field}: must be text, got {type(value).__name__}")
    hidden = _hidden_character(value, line_breaks)
    if hidden is not None:
        position, code = hidden
        raise SurveyDefinitionError(
            f"{field}: contains an invisible or control character ({code}, character "
            f"{position + 1}); type the text again without it"
        )
    text = value.strip()
    if required and not text:
        raise SurveyDefinitionError(f"{field}: must not be empty")
    if len(text) > max_length:
        raise SurveyDefinitionError(f"{field}: must be at most {max_length} characters")
    return text


def parse_flip_probability(value: object, field: str = "flip_probability") -> float:
    """A flip probability in (0, 0.5), or :class:`SurveyDefinitionError` saying why not."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SurveyDefinitionError(f"{field}: must be a number in (0, 0.5), got {value!r}")
    try:
        privacy.epsilon_from_flip_probability(value)
    except ValueError as error:
        raise SurveyDefinitionError(
            f"{field}: must be a number in (0, 0.5), got {value!r}"
        ) from error
    if not MIN_FLIP_PROBABILITY <= value <= MAX_FLIP_PROBABILITY:
        # Closer to 0 or 0.5 the browser's 32-bit draws round the flip away (answers sent as
        # they are) or to a coin toss (nothing can be estimated); either way it is no survey.
        raise SurveyDefinitionError(
            f"{field}: must be between {MIN_FLIP_PROBABILITY} and {MAX_FLIP_PROBABILITY}, "
            f"got {value!r}"
        )
    return float(value)


def parse_question(index: int, raw: object) -> QuestionDefinition:
    """One question of a definition; ``index`` counts from 0 and names it in errors."""
    field = f"questions[{index}]"
    if not isinstance(raw, dict):
        raise SurveyDefinitionError(f"{field}: must be an object with text and type")
    unknown = set(raw) - {"text", "type", "options"}
    if unknown:
        raise SurveyDefinitionError(f"{field}: unknown field {sorted(unknown)[0]!r}")
    text = _text(f"{field}.text", raw.get("text"), MAX_QUESTION_LENGTH, line_breaks=True)
    kind = raw.get("type")
    if kind == QuestionKind.YES_NO.value:
        if "options" in raw:
            raise SurveyDefinitionError(f"{field}.options: a yes_no question has no options")
        return QuestionDefinition(text, QuestionKind.YES_NO)
    if kind != QuestionKind.CHOICE.value:
        raise SurveyDefinitionError(f"{field}.type: must be 'yes_no' or 'choice', got {kind!r}")
    options = raw.get("options")
    if not isinstance(options, list):
        raise SurveyDefinitionError(f"{field}.options: a choice question needs a list of options")
    if not MIN_OPTIONS <= len(options) <= privacy.MAX_OPTIONS:
        raise SurveyDefinitionError(
            f"{field}.options: must have {MIN_OPTIONS} to {privacy.MAX_OPTIONS} options, "
            f"got {len(options)}"
        )
    labels = tuple(
        _text(f"{field}.options[{number}]", option, MAX_OPTION_LENGTH)
        for number, option in enumerate(options)
    )
    if len(set(labels)) != len(labels):
        raise SurveyDefinitionError(f"{field}.options: options must all differ")
    return QuestionDefinition(text, QuestionKind.CHOICE, labels)


def parse_definition(raw: object) -> SurveyDefinition:
    """Check a survey definition (the parsed JSON or TOML) and return it, or raise.

    The error names the first field that is wrong and what is wrong with it.
    """
    if not isinstance(raw, dict):
        raise SurveyDefinitionError("survey: must be an object with title and questions")
    unknown = set(raw) - {"title", "intro", "flip_probability", "questions"}
    if unknown:
        raise SurveyDefinitionError(f"{sorted(unknown)[0]}: unknown field")
    title = _text("title", raw.get("title"), MAX_TITLE_LENGTH)
    intro = _text("intro", raw.get("intro", ""), MAX_INTRO_LENGTH, required=False, line_breaks=True)
    if "flip_probability" not in raw:
        raise SurveyDefinitionError("flip_probability: missing (a number in (0, 0.5), e.g. 0.25)")
    flip_probability = parse_flip_probability(raw["flip_probability"])
    questions = raw.get("questions")
    if not isinstance(questions, list) or not questions:
        raise SurveyDefinitionError("questions: must be a non-empty list")
    if len(questions) > MAX_QUESTIONS:
        raise SurveyDefinitionError(f"questions: at most {MAX_QUESTIONS} questions")
    return SurveyDefinition(
        title=title,
        intro=intro,
        flip_probability=flip_probability,
        questions=tuple(parse_question(index, q) for index, q in enumerate(questions)),
    )


def load_definition_file(path: str | Path) -> SurveyDefinition:
    """Read a survey definition from a ``.json`` or ``.toml`` file."""
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as error:
        raise SurveyDefinitionError(f"{path}: cannot be read ({error.strerror})") from error
    try:
        if path.suffix.lower() == ".toml":
            raw = tomllib.loads(content.decode("utf-8"))
        else:
            raw = json.loads(content.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as error:
        raise SurveyDefinitionError(f"{path}: is not UTF-8 text") from error
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise SurveyDefinitionError(
            f"{path}: is not valid {_format_name(path)} ({error})"
        ) from error
    except ValueError as error:
        raise SurveyDefinitionError(f"{path}: {error}") from error
    return parse_definition(raw)


def _format_name(path: Path) -> str:
    return "TOML" if path.suffix.lower() == ".toml" else "JSON"


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


# --------------------------------------------------------------------------- surveys


def create_survey(owner: Analyst, definition: SurveyDefinition) -> Survey:
    """Add a draft survey for ``owner`` (the caller commits)."""
    survey = Survey(
        owner=owner,
        title=definition.title,
        intro=definition.intro,
        flip_probability=definition.flip_probability,
        status=SurveyStatus.DRAFT,
    )
    db.session.add(survey)
    replace_questions(survey, definition.questions)
    return survey


def replace_questions(survey: Survey, questions: tuple[QuestionDefinition, ...]) -> None:
    """Set a draft's questions; refused once the survey has opened."""
    if not survey.is_draft and survey.id is not None:
        raise SurveyStateError("questions cannot change once the survey has opened")
    if survey.id is not None:
        # Still a draft in the database, not only as loaded; on PostgreSQL this also holds the
        # survey's row, so an "open" arriving meanwhile waits for this edit to commit.
        still_draft = db.session.execute(
            update(Survey)
            .where(Survey.id == survey.id, Survey.status == SurveyStatus.DRAFT)
            .values(status=SurveyStatus.DRAFT)
        )
        if still_draft.rowcount != 1:
            raise SurveyStateError("questions cannot change once the survey has opened")
    survey.questions.clear()
    db.session.flush()
    survey.questions.extend(
        Question(
            position=position,
            text=question.text,
            kind=question.kind,
            choices=list(question.choices) if question.choices else None,
        )
        for position, question in enumerate(questions)
    )


def open_survey(survey: Survey) -> None:
    """Open a draft (or reopen a closed survey) to submissions, and commit.

    Opening freezes the mechanism: every value of every question gets its zero tallies now.
    """
    if survey.is_open:
        return
    if not survey.questions:
        raise SurveyStateError("a survey needs at least one question to open")
    if survey.is_draft:
        # Only the request that moves the survey out of draft adds its tallies (a double
        # click, or an edit saved at the same moment, must not).
        moved = db.session.execute(
            update(Survey)
            .where(Survey.id == survey.id, Survey.status == SurveyStatus.DRAFT)
            .values(status=SurveyStatus.OPEN)
        )
        if moved.rowcount != 1:
            db.session.rollback()
            raise SurveyStateError("the survey was opened or changed a moment ago; reload")
        db.session.add_all(
            Tally(question_id=question.id, value=value, shard=shard, noisy_count=0)
            for question in survey.questions
            for value in range(question.option_count)
            for shard in range(TALLY_SHARDS)
        )
    survey.status = SurveyStatus.OPEN
    db.session.commit()


def close_survey(survey: Survey) -> None:
    """Stop accepting submissions, and commit. Results stay readable.

    Then the storage forgets the order in which the survey's submissions arrived
    (:func:`survey_app.database.forget_arrival_order`).
    """
    if survey.is_draft:
        raise SurveyStateError("a draft has not opened, so it cannot close")
    survey.status = SurveyStatus.CLOSED
    survey_id = survey.id
    db.session.commit()
    forget_arrival_order(survey_id)


def find_survey(slug: str) -> Survey | None:
    return db.session.execute(select(Survey).where(Survey.slug == slug)).scalar_one_or_none()


# --------------------------------------------------------------------------- submissions

SUBMISSION_FIELDS = frozenset({"submission_id", "answers"})


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
    """Check the shape of a submission body: ``{"submission_id": ..., "answers": {...}}``."""
    if not isinstance(payload, dict):
        raise SubmissionRejected("the body must be a JSON object")
    extra = set(payload) - SUBMISSION_FIELDS
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
class Mechanism:
    """What checking and storing a submission needs of a survey that has opened.

    Once a survey opens, its questions can no longer change, so each worker keeps this in
    memory and a submission needs no query to be checked; only the status is read again.
    """

    survey_id: int
    question_ids: tuple[int, ...]
    option_counts: tuple[int, ...]

    @cached_property
    def question_list(self) -> str:
        """The question ids in order, as the text the recording statements take."""
        return ",".join(str(question_id) for question_id in self.question_ids)


#: Mechanisms of surveys that have opened, by slug; a small per-process cache.
_mechanisms: dict[str, Mechanism] = {}
MAX_CACHED_MECHANISMS = 1024


def mechanism_of(slug: str) -> Mechanism:
    """The survey's mechanism, or SubmissionRejected: 404 if unknown, 409 if a draft."""
    cached = _mechanisms.get(slug)
    if cached is not None:
        return cached
    survey = find_survey(slug)
    if survey is None:
        raise SubmissionRejected("no such survey", 404)
    if survey.is_draft:  # a draft's questions may still change: never cached
        raise _not_open(survey.status)
    mechanism = Mechanism(
        survey_id=survey.id,
        question_ids=tuple(question.id for question in survey.questions),
        option_counts=tuple(question.option_count for question in survey.questions),
    )
    if len(_mechanisms) >= MAX_CACHED_MECHANISMS:
        _mechanisms.clear()
    _mechanisms[slug] = mechanism
    return mechanism


def encode_answers(mechanism: Mechanism, answers: dict[str, object]) -> str:
    """Check randomized answers against the survey; return them in question order as text."""
    expected = [str(question_id) for question_id in mechanism.question_ids]
    unknown = set(answers) - set(expected)
    if unknown:
        raise SubmissionRejected(f"answers: unknown question id {sorted(unknown)[0]!r}")
    missing = [key for key in expected if key not in answers]
    if missing:
        raise SubmissionRejected(f"answers: question {missing[0]} is not answered")
    values = []
    for key, option_count in zip(expected, mechanism.option_counts, strict=True):
        value = answers[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise SubmissionRejected(f"answers[{key}]: must be an integer, got {value!r}")
        if not 0 <= value < option_count:
            raise SubmissionRejected(
                f"answers[{key}]: must be in 0 .. {option_count - 1}, got {value}"
            )
        values.append(str(value))
    return ",".join(values)


def decode_answers(encoded: str) -> list[int]:
    return [int(value) for value in encoded.split(",")]


def _not_open(status: SurveyStatus) -> SubmissionRejected:
    return SubmissionRejected(f"this survey is {status.value}, not open", 409)


# A submission is recorded in each database's own SQL, written out: on the hot path there is
# no ORM and nothing to compile per request. The parameters are those of submission_row().

#: PostgreSQL: one statement, run in autocommit, so a submission costs one round trip. It locks
#: the submission's tally rows in one fixed order (two submissions never each hold a row the
#: other waits for: a plain multi-row UPDATE deadlocks under load), stores the submission if
#: the survey is open and every tally row exists, and counts it only if it was stored.
_RECORD_ON_POSTGRESQL = """
WITH cells AS MATERIALIZED (
    SELECT tallies.question_id, tallies.value, tallies.shard
    FROM unnest(string_to_array(%(question_list)s, ',')::integer[],
                string_to_array(%(answers)s, ',')::integer[]) AS answer (question_id, value)
    JOIN tallies ON (tallies.question_id, tallies.value, tallies.shard)
                    = (answer.question_id, answer.value, %(shard)s)
    ORDER BY tallies.question_id, tallies.value
    FOR UPDATE OF tallies
), stored AS (
    INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)
    SELECT %(submission_id)s, %(survey_id)s, %(submitted_on)s::date, %(answers)s
    WHERE EXISTS (SELECT FROM surveys WHERE id = %(survey_id)s AND status = 'open')
      AND (SELECT count(*) FROM cells) = %(question_count)s
    RETURNING submission_id
)
UPDATE tallies SET noisy_count = tallies.noisy_count + 1
FROM cells
WHERE (tallies.question_id, tallies.value, tallies.shard)
      = (cells.question_id, cells.value, cells.shard)
  AND EXISTS (SELECT FROM stored)
"""

#: SQLite: two statements in one write transaction (the write lock is whole, so no row locks).
_STORE_ON_SQLITE = """
INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)
SELECT :submission_id, :survey_id, :submitted_on, :answers
WHERE EXISTS (SELECT 1 FROM surveys WHERE id = :survey_id AND status = 'open')
"""
_COUNT_ON_SQLITE = """
UPDATE tallies SET noisy_count = noisy_count + 1
WHERE shard = :shard
  AND (question_id, value) IN (
      SELECT question.value, answer.value
      FROM json_each('[' || :question_list || ']') AS question
      JOIN json_each('[' || :answers || ']') AS answer USING (key))
"""


def submission_row(mechanism: Mechanism, submission_id: str, encoded: str) -> dict[str, object]:
    """The parameters of the statements that record a submission."""
    return {
        "submission_id": submission_id,
        "survey_id": mechanism.survey_id,
        "submitted_on": dt.datetime.now(dt.UTC).date().isoformat(),
        "answers": encoded,
        "question_list": mechanism.question_list,
        "question_count": len(mechanism.question_ids),
        # Concurrent submissions add to one of several rows per count (see Tally).
        "shard": random.randrange(TALLY_SHARDS),
    }


def _store_on_postgresql(row: dict[str, object]) -> bool:
    try:
        with autocommit_cursor() as cursor:
            cursor.execute(_RECORD_ON_POSTGRESQL, row)
            return cursor.rowcount > 0
    except db.engine.dialect.loaded_dbapi.IntegrityError:
        return False  # this submission_id is stored already: a retry, or a concurrent twin


def _store_on_sqlite(row: dict[str, object]) -> bool:
    with write_transaction() as connection:
        if connection.exec_driver_sql(_STORE_ON_SQLITE, row).rowcount == 0:
            return False
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
    mechanism = mechanism_of(slug)
    encoded = encode_answers(mechanism, answers)
    store = _store_on_sqlite if db.engine.dialect.name == "sqlite" else _store_on_postgresql
    # A second try only when the survey was reopened between the store and the checks below.
    for _attempt in range(2):
        try:
            stored = store(submission_row(mechanism, submission_id, encoded))
        except IntegrityError:
            stored = False  # this submission_id is stored already: a retry, or a concurrent twin
        if stored:
            return submission_id, True
        if _already_recorded(mechanism.survey_id, submission_id, encoded):
            return submission_id, False  # a retry (perhaps arriving after the survey closed)
        status = db.session.execute(
            select(Survey.status).where(Survey.id == mechanism.survey_id)
        ).scalar_one()
        if status != SurveyStatus.OPEN:
            raise _not_open(status)
        if db.session.get(Submission, submission_id) is not None:  # loaded just above
            raise SubmissionRejected("this submission_id was already used with other answers", 409)
    raise RuntimeError(f"tallies missing for survey {mechanism.survey_id}")


def _already_recorded(survey_id: int, submission_id: str, encoded: str) -> bool:
    """True when the stored submission with this id holds these answers for this survey."""
    # End the session's transaction first: on SQLite a read transaction keeps the snapshot of
    # its first read (mechanism_of, on a cache miss), from before the concurrent twin's commit,
    # and would not see its row: an identical retry would be refused as a conflict (409).
    db.session.rollback()
    # Loaded as an entity: a conflict check after this finds it in the session, not by a query.
    stored = db.session.get(Submission, submission_id)
    return stored is not None and (stored.survey_id, stored.answers) == (survey_id, encoded)
