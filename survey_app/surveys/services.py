"""What can be done with a survey: define it (checked), open, close, copy, archive, delete it.

Views and commands call these; they hold the rules (a definition's fields and their limits; a
survey's mechanism is frozen once it opens), so that the web, the API and the command line
agree. They flush; the view or command that calls them commits. Submissions are recorded by
:mod:`survey_app.respondents.submissions`.
"""

from __future__ import annotations

import functools
import json
import numbers
import tomllib
from dataclasses import dataclass
from pathlib import Path

from flask import current_app
from sqlalchemy import (
    delete,
    select,
    update,
)

from survey_app import kinds, privacy
from survey_app.extensions import db
from survey_app.kinds.base import QuestionDefinition
from survey_app.results import releases
from survey_app.storage.database import after_commit, forget_arrival_order
from survey_app.storage.models import (
    Analyst,
    OneTimeCode,
    Question,
    Submission,
    Survey,
    SurveyStatus,
    Tally,
    UncountedSubmission,
    new_join_code,
    normalise_join_code,
    utc_now,
)
from survey_app.surveys.definition_checks import (
    MAX_QUESTION_LENGTH,
    SurveyDefinitionError,
    refused,
)
from survey_app.surveys.definition_checks import checked_text as _text
from survey_app.web import strictjson
from survey_app.web.languages import SHIPPED_LANGUAGES, is_shipped

MAX_TITLE_LENGTH = 200
MAX_INTRO_LENGTH = 5000
MAX_QUESTIONS = 50
MIN_FLIP_PROBABILITY = 0.000001
MAX_FLIP_PROBABILITY = 0.499999
#: The flip probabilities the builder takes: its hint, its check on saving and its readout say
#: them one way (surveys.words.flip_probability_limits). A definition file may go closer to 0
#: and 0.5; nearer 0.5 than 0.49 a class learns next to nothing, and a number question needs
#: 0.4975 at most (kinds.numeric).
BUILDER_FLIP_PROBABILITIES = (0.01, 0.49)


def is_builder_flip_probability(value: object) -> bool:
    """Whether ``value`` is a number the builder takes as a flip probability."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    low, high = BUILDER_FLIP_PROBABILITIES
    return low <= value <= high


#: The survey quickstart opens, and the tests' sample: a yes/no and a three-option question.
SAMPLE_SURVEY = {
    "title": "Academic integrity (sample)",
    "intro": "A sample survey. Your answers are randomized on your device before they are sent.",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
    ],
}


class SurveyStateError(ValueError):
    """The survey's status does not allow what was asked: the message in English (the command
    line's and the logs'), and ``reason`` naming the refusal for a page that says it in its
    language (surveys.words.state_refusal)."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason


# --------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class SurveyDefinition:
    title: str
    intro: str
    flip_probability: float
    questions: tuple[QuestionDefinition, ...]
    #: The class size planned for: a numeric question's mechanism is chosen for it.
    expected_respondents: int = privacy.PLANNED_RESPONDENTS
    #: Once closed, the survey's page shows respondents the class's results.
    show_results_after_close: bool = False
    #: The language its students see (survey_app.web.languages); None: each browser's.
    language: str | None = None


def parse_flip_probability(value: object, field: str = "flip_probability") -> float:
    """A flip probability in (0, 0.5), or :class:`SurveyDefinitionError` saying why not."""
    shown = shown_number(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise refused(field, "not_probability", f"must be a number in (0, 0.5), got {shown}")
    try:
        privacy.epsilon_from_flip_probability(value)
    except (ValueError, OverflowError) as error:  # an integer of 400 digits is no float
        detail = f"must be a number in (0, 0.5), got {shown}"
        raise refused(field, "not_probability", detail) from error
    if not MIN_FLIP_PROBABILITY <= value <= MAX_FLIP_PROBABILITY:
        # Closer to 0 or 0.5 the browser's 32-bit draws round the flip away (answers sent as
        # they are) or to a coin toss (nothing can be estimated); either way it is no survey.
        raise refused(
            field,
            "probability_limits",
            f"must be between {MIN_FLIP_PROBABILITY} and {MAX_FLIP_PROBABILITY}, got {shown}",
        )
    return float(value)


#: How much of a value a refusal repeats: a number typed with 400 digits is not said whole.
SHOWN_LENGTH = 40


def shown_number(value: object) -> str:
    """``value`` as a refusal says it: its repr, cut short with an ellipsis when long."""
    try:
        text = repr(value)
    except ValueError:  # an integer past Python's digit limit has no repr
        return "a number too long to show"
    return text if len(text) <= SHOWN_LENGTH else text[: SHOWN_LENGTH - 1] + "…"


def parse_question(index: int, raw: object) -> QuestionDefinition:
    """One question of a definition; ``index`` counts from 0 and names it in errors."""
    field = f"questions[{index}]"
    if not isinstance(raw, dict):
        raise refused(field, "not_object", "must be an object with text and type")
    every_field = {name for kind in kinds.KINDS.values() for name in kind.fields}
    unknown = set(raw) - {"text", "type", "options", *every_field}
    if unknown:
        raise refused(field, "unknown_field", f"unknown field {sorted(unknown)[0]!r}")
    try:
        kind = kinds.kind_named(raw.get("type"))
    except KeyError:
        names = [repr(name) for name in kinds.KINDS]
        detail = f"must be {', '.join(names[:-1])} or {names[-1]}, got {raw.get('type')!r}"
        raise refused(f"{field}.type", "type", detail) from None
    text = _text(
        f"{field}.text",
        raw.get("text", None if kind.text_required else ""),
        MAX_QUESTION_LENGTH,
        required=kind.text_required,
        line_breaks=True,
    )
    # A field of another kind (options aside, which the kind refuses itself) is named with it.
    for name in raw:
        if name not in ("text", "type", "options", *kind.fields):
            owner = next(other for other in kinds.KINDS.values() if name in other.fields)
            detail = f"only a {owner.name} question has {name}"
            raise refused(f"{field}.{name}", "other_kind_field", detail)
    return kind.parse(field, text, raw)


def parse_definition(raw: object) -> SurveyDefinition:
    """Check a survey definition (the parsed JSON or TOML) and return it, or raise.

    The error names the first field that is wrong and what is wrong with it.
    """
    if not isinstance(raw, dict):
        raise SurveyDefinitionError("survey: must be an object with title and questions")
    unknown = set(raw) - {
        "title",
        "intro",
        "flip_probability",
        "questions",
        "expected_respondents",
        "show_results_after_close",
        "language",
    }
    if unknown:
        raise refused(sorted(unknown)[0], "unknown_field", "unknown field")
    title = _text("title", raw.get("title"), MAX_TITLE_LENGTH)
    intro = _text("intro", raw.get("intro", ""), MAX_INTRO_LENGTH, required=False, line_breaks=True)
    if "flip_probability" not in raw:
        detail = "missing (a number in (0, 0.5), e.g. 0.25)"
        raise refused("flip_probability", "missing", detail)
    flip_probability = parse_flip_probability(raw["flip_probability"])
    questions = raw.get("questions")
    if not isinstance(questions, list) or not questions:
        raise refused("questions", "no_questions", "must be a non-empty list")
    if len(questions) > MAX_QUESTIONS:
        detail = f"at most {MAX_QUESTIONS} questions"
        raise refused("questions", "too_many_questions", detail, limit=MAX_QUESTIONS)
    parsed = tuple(parse_question(index, q) for index, q in enumerate(questions))
    check_flip_probability_for_kinds(flip_probability, parsed)
    return SurveyDefinition(
        title=title,
        intro=intro,
        flip_probability=flip_probability,
        questions=parsed,
        expected_respondents=parse_expected_respondents(raw.get("expected_respondents")),
        show_results_after_close=parse_switch(
            "show_results_after_close", raw.get("show_results_after_close", False)
        ),
        language=parse_language(raw.get("language")),
    )


def parse_language(value: object) -> str | None:
    """The language a survey's students see (``language``): a shipped language's code, or
    none given (each student's browser then decides)."""
    if value is None:
        return None
    if not is_shipped(value):
        names = [repr(code) for code in SHIPPED_LANGUAGES]
        detail = (
            f"must be {', '.join(names[:-1])} or {names[-1]} (the languages the app speaks), "
            f"got {value!r}"
        )
        raise refused("language", "language", detail)
    return value


def check_flip_probability_for_kinds(
    flip_probability: float, questions: tuple[QuestionDefinition, ...]
) -> None:
    """Refused if a kind asked has a lower limit on the flip probability than the survey's."""
    for kind in dict.fromkeys(kinds.kind_of(question) for question in questions):
        limit = kind.max_flip_probability
        if limit is not None and flip_probability > limit:
            in_file, in_builder, why = kind.flip_limit_words
            raise refused(
                "flip_probability",
                "probability_for_kind",
                f"must be at most {limit} in a survey with {in_file} ({why}), "
                f"got {flip_probability!r}",
                limit=limit,
                question=in_builder,
                why=why,
            )


def parse_switch(field: str, value: object) -> bool:
    """A setting that is on or off: true or false, nothing else."""
    if not isinstance(value, bool):
        raise SurveyDefinitionError(f"{field}: must be true or false, got {value!r}")
    return value


#: The class sizes a survey may plan for (the planner's own limits).
MAX_EXPECTED_RESPONDENTS = 100_000


def parse_expected_respondents(value: object) -> int:
    """The class size planned (``expected_respondents``): a whole number of 2 or more."""
    if value is None:
        return privacy.PLANNED_RESPONDENTS
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not 2 <= value <= MAX_EXPECTED_RESPONDENTS
    ):
        raise SurveyDefinitionError(
            f"expected_respondents: must be a whole number from 2 to {MAX_EXPECTED_RESPONDENTS:,}, "
            f"got {value!r}"
        )
    return value


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
            raw = strictjson.loads(content.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise SurveyDefinitionError(f"{path}: is not UTF-8 text") from error
    except RecursionError as error:  # brackets nested thousands deep
        raise SurveyDefinitionError(
            f"{path}: is not valid {_format_name(path)} (nested too deeply)"
        ) from error
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise SurveyDefinitionError(
            f"{path}: is not valid {_format_name(path)} ({error})"
        ) from error
    except ValueError as error:
        raise SurveyDefinitionError(f"{path}: {error}") from error
    return parse_definition(raw)


def _format_name(path: Path) -> str:
    return "TOML" if path.suffix.lower() == ".toml" else "JSON"


# --------------------------------------------------------------------------- surveys


def create_survey(owner: Analyst, definition: SurveyDefinition) -> Survey:
    """Add a draft survey for ``owner`` (the caller commits)."""
    survey = Survey(
        owner=owner,
        title=definition.title,
        intro=definition.intro,
        flip_probability=definition.flip_probability,
        expected_respondents=definition.expected_respondents,
        show_results_after_close=definition.show_results_after_close,
        language=definition.language,
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
            minimum=question.minimum,
            maximum=question.maximum,
            unit=question.unit,
            numeric_mechanism=question.mechanism,
            parts=kinds.kind_of(question).parts_stored(question),
        )
        for position, question in enumerate(questions)
    )


def open_survey(survey: Survey) -> None:
    """Open a draft (or reopen a closed survey) to submissions; the caller commits.

    Opening freezes the mechanism: every value of every yes/no or choice question gets its
    zero tallies now. A numeric question's reports are too many to list (Laplace's reach far
    beyond the bounds): each gets its tally row when it first arrives (submissions).
    """
    if survey.is_open:
        return
    if survey.archived:
        raise SurveyStateError(
            "an archived survey cannot open: put it back on your survey list first", "archived"
        )
    if not survey.questions:
        raise SurveyStateError("a survey needs at least one question to open", "no_questions")
    if survey.is_draft:
        # Only the request that moves the survey out of draft adds its tallies (a double
        # click, or an edit saved at the same moment, must not).
        moved = db.session.execute(
            update(Survey)
            .where(Survey.id == survey.id, Survey.status == SurveyStatus.DRAFT)
            .values(status=SurveyStatus.OPEN)
        )
        if moved.rowcount != 1:  # nothing was changed: the caller rolls back its transaction
            raise SurveyStateError(
                "the survey was opened or changed a moment ago; reload", "opened_meanwhile"
            )
        db.session.add_all(
            Tally(question_id=question.id, value=value, noisy_count=0)
            for question in survey.questions
            for value in range(question.option_count)
        )
        # The browsers randomize with these from now: a later rule must not change them.
        for question in survey.questions:
            kinds.kind_of(question).at_open(question)
    elif survey.is_closed:
        releases.reopen(survey)
    # Read before closed_at is cleared: a code that has stopped resolving is never revived
    # (someone may have kept it to try later); reopening within the grace keeps it.
    code_expired = join_code_expired(survey)
    survey.status = SurveyStatus.OPEN
    survey.closed_at = None
    if survey.join_code is None or code_expired:
        survey.join_code = unused_join_code()
    db.session.flush()


def unused_join_code() -> str:
    """A join code no survey has (the column's unique index is the last word on a race)."""
    while True:
        code = new_join_code()
        taken = db.session.execute(select(Survey.id).where(Survey.join_code == code)).first()
        if taken is None:
            return code


def close_survey(survey: Survey) -> None:
    """Stop accepting submissions; the caller commits. Results stay readable.

    Once that commit is done, the storage forgets the order in which the survey's
    submissions arrived (:func:`survey_app.storage.database.forget_arrival_order`).
    A survey already closed is left as it is: a new closing time would give its join code,
    expired perhaps, a new grace.
    """
    if survey.is_draft:
        raise SurveyStateError("a draft has not opened, so it cannot close", "draft")
    if survey.is_closed:
        return
    survey.status = SurveyStatus.CLOSED
    survey.closed_at = utc_now()
    releases.close(survey)
    db.session.flush()
    after_commit(functools.partial(forget_arrival_order, survey.id))


def archive_survey(survey: Survey, archived: bool = True) -> None:
    """Take a survey off the survey list (or put it back); results and exports stay.

    An open survey is refused: archived surveys are out of sight, so none may be taking
    answers. The professor closes it first (with its confirmation), then archives it.
    """
    if archived:
        # Checked in the database, not only as loaded: an "open" arriving meanwhile waits
        # (PostgreSQL holds the row) or is seen (SQLite writes one at a time).
        moved = db.session.execute(
            update(Survey)
            .where(Survey.id == survey.id, Survey.status != SurveyStatus.OPEN)
            .values(archived=True)
        )
        if moved.rowcount != 1:
            raise SurveyStateError(
                "this survey is still taking answers: close it first, then archive it", "open"
            )
    survey.archived = archived
    db.session.flush()


def delete_survey(survey: Survey) -> None:
    """Delete a survey and all of it: questions, tallies, submissions, one-time codes.

    The caller commits. The rows are deleted here one table at a time, not left to the
    foreign keys' ON DELETE CASCADE alone (which stays, for tables added later): SQLite
    applies cascades only on connections with ``PRAGMA foreign_keys = ON``. Once committed,
    the storage is rewritten as when a survey closes
    (:func:`survey_app.storage.database.forget_arrival_order`): SQLite's file is rebuilt without the
    deleted rows, PostgreSQL's tables are copied into new files without them.
    """
    survey_id = survey.id
    questions = select(Question.id).where(Question.survey_id == survey_id)
    # In the order a count takes them (the survey's row, its waiting submissions, its count
    # rows): deleting never waits in a cycle with a view counting the survey's answers.
    db.session.execute(select(Survey.id).where(Survey.id == survey_id).with_for_update())
    db.session.execute(
        delete(UncountedSubmission).where(UncountedSubmission.survey_id == survey_id)
    )
    db.session.execute(delete(Tally).where(Tally.question_id.in_(questions)))
    releases.delete_release(survey)
    db.session.execute(delete(Submission).where(Submission.survey_id == survey_id))
    db.session.execute(delete(OneTimeCode).where(OneTimeCode.survey_id == survey_id))
    db.session.delete(survey)  # its questions go with it (the relationship's cascade)
    db.session.flush()
    after_commit(functools.partial(forget_arrival_order, survey_id))


def join_code_expired(survey: Survey) -> bool:
    """Whether a closed survey's join code has stopped resolving: its grace has passed.

    ``SURVEY_APP_JOIN_CODE_GRACE_HOURS`` after closing, so that the codes of old surveys do not
    pile up as targets for whoever guesses codes.
    """
    if not survey.is_closed:
        return False
    if survey.closed_at is None:  # closed before closing times were kept: long ago
        return True
    return utc_now() - survey.closed_at >= current_app.config["JOIN_CODE_GRACE"]


def find_survey_by_join_code(typed: str) -> Survey | None:
    """The survey a typed join code names (any case, spaces or dashes between), or None.

    A closed survey's code past its grace names nothing: it answers as an unknown code does.
    """
    code = normalise_join_code(typed)
    if code is None:
        return None
    survey = db.session.execute(select(Survey).where(Survey.join_code == code)).scalar_one_or_none()
    if survey is None or join_code_expired(survey):
        return None
    return survey


def find_survey(slug: str) -> Survey | None:
    return db.session.execute(select(Survey).where(Survey.slug == slug)).scalar_one_or_none()
