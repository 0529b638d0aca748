"""Database models: analysts, surveys, questions, and the randomized submissions.

What is stored of a respondent is only what the estimates need: the randomized value of each
answer, a random submission id, and the day it arrived. No address, user agent, precise time,
sequential id or true answer is ever stored.
"""

from __future__ import annotations

import datetime as dt
import enum
import secrets
import unicodedata
from collections.abc import Iterable

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    select,
)
from sqlalchemy.orm import Mapped, column_property, mapped_column, relationship, validates

from survey_app import kinds, privacy
from survey_app.extensions import db


def new_slug() -> str:
    """An unguessable URL-safe survey slug: 144 random bits (at least 143 after the rule below).

    A slug never begins with "-", so that a command line never takes it for an option.
    """
    while True:
        slug = secrets.token_urlsafe(18)
        if not slug.startswith("-"):
            return slug


#: Join and one-time codes are read off a projector or a slip and typed on phones: no 0/O,
#: 1/I/L, 5/S, 2/Z, U/V, 8/B or 6/G.
JOIN_CODE_ALPHABET = "ACDEFHJKMNPQRTWXY346789"
#: What a typed code may hold: the alphabet, and B and G, which codes issued before they were
#: dropped from it may contain.
CODE_CHARACTERS = frozenset(JOIN_CODE_ALPHABET + "BG")
JOIN_CODE_LENGTH = 6
#: How many characters the join page's field takes: the code with room for spaces or dashes
#: typed between its characters ("K7W 3PX", "K-7-W-3-P-X"), which are read past.
JOIN_CODE_FIELD_LENGTH = 20


def new_join_code() -> str:
    """A random join code: 6 characters of 23, about 1.5 * 10^8 codes."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def typed_code_characters(typed: str) -> str:
    """A typed or pasted code's letters and digits, upper case, in their plain forms.

    Whatever separates them goes (spaces, non-breaking spaces from a chat, dashes, dots,
    underscores), and compatibility forms become plain ones (a full-width Ａ is A).
    """
    plain = unicodedata.normalize("NFKC", typed).upper()
    return "".join(char for char in plain if char.isalnum())


def normalise_join_code(typed: str) -> str | None:
    """A code as typed (any case, anything between its characters) in its stored form, or None."""
    code = typed_code_characters(typed[:64])
    if len(code) != JOIN_CODE_LENGTH or not CODE_CHARACTERS.issuperset(code):
        return None
    return code


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class SurveyStatus(enum.StrEnum):
    DRAFT = "draft"
    OPEN = "open"
    CLOSED = "closed"


class Analyst(db.Model):
    """A professor (or anyone) who builds surveys and reads their results."""

    __tablename__ = "analysts"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    #: The language of the professor's pages (a shipped one: survey_app.web.languages); None:
    #: the browser's.
    language: Mapped[str | None] = mapped_column(String(16), nullable=True)

    surveys: Mapped[list[Survey]] = relationship(back_populates="owner")

    # Flask-Login's interface. The id it keeps in the session cookie is the key of the
    # signed-in session (accounts.start_session), not the analyst's id: a session ends when
    # its row is deleted, whatever cookie a browser still holds.
    is_active = True
    is_authenticated = True
    is_anonymous = False
    session_key = None  # set on the loaded instance: the key of the session it came from

    def get_id(self) -> str:
        if not self.session_key:
            raise RuntimeError("start_session() gives an analyst a session key first")
        return self.session_key


class ApiToken(db.Model):
    """A bearer token for the results API and exports; only its SHA-256 is kept.

    ``hint`` holds the token's last four characters, so that a list of tokens can tell them
    apart without holding anything that opens the API.
    """

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    analyst_id: Mapped[int] = mapped_column(ForeignKey("analysts.id", ondelete="CASCADE"))
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(8), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    #: None: the token works until it is revoked.
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)

    analyst: Mapped[Analyst] = relationship()


class AnalystSession(db.Model):
    """One signed-in browser of an analyst; signing out deletes it, which ends the session.

    The browser's session cookie carries a random session key; only its SHA-256 is kept here,
    so the table opens no session by itself. A cookie whose row is gone is refused.
    """

    __tablename__ = "analyst_sessions"

    key_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    analyst_id: Mapped[int] = mapped_column(
        ForeignKey("analysts.id", ondelete="CASCADE"), index=True
    )
    started_at: Mapped[dt.datetime] = mapped_column(DateTime)

    analyst: Mapped[Analyst] = relationship()


class SignInAttempts(db.Model):
    """Sign-in attempts counted per throttling key and time window (shared by every worker).

    ``bucket`` is a keyed hash of a client address or of an account's email, never either
    itself; ``window`` numbers the window since the epoch (the time divided by its length).
    """

    __tablename__ = "sign_in_attempts"

    bucket: Mapped[str] = mapped_column(String(40), primary_key=True)
    window: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class Survey(db.Model):
    """A survey: its questions all share one flip probability, hence one epsilon each."""

    __tablename__ = "surveys"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True, default=new_slug)
    #: Given when the survey first opens; unique among all surveys.
    join_code: Mapped[str | None] = mapped_column(String(8), unique=True, index=True, nullable=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("analysts.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    intro: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[SurveyStatus] = mapped_column(
        Enum(
            SurveyStatus,
            native_enum=False,
            length=10,
            values_callable=lambda statuses: [status.value for status in statuses],
        ),
        default=SurveyStatus.DRAFT,
    )
    flip_probability: Mapped[float] = mapped_column(Float)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
    #: An archived survey leaves the survey list (its results and exports stay).
    archived: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The projector view shows the count but no results until the survey closes.
    hide_results_until_closed: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    #: Each submission must bring an unused one-time code (see OneTimeCode); set while a draft.
    requires_codes: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: When the survey last closed (None while it has never closed, and while it is open): its
    #: join code stops resolving a grace period after it (SURVEY_APP_JOIN_CODE_GRACE_HOURS).
    closed_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    #: While open, the owner sees results only as of this many submissions: the last release
    #: (see survey_app.results.releases and ReleasedTally).
    released_respondents: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: The class size the professor planned for (the builder's, or a definition's
    #: ``expected_respondents``): a numeric question's mechanism is the one whose guaranteed
    #: range is narrowest with this many answers.
    expected_respondents: Mapped[int] = mapped_column(Integer, default=40, server_default="40")
    #: It has closed and opened again since (closing it again then waits for a batch).
    reopened: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Closed, but its owner still sees its last release: it was reopened and closed again
    #: before a batch of new answers arrived (survey_app.results.releases.close).
    results_held: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Once closed, its page shows respondents the class's results (estimates and ranges, as
    #: the dashboard words them) and how their answers were protected; off unless asked for.
    show_results_after_close: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    #: The language its students see (a shipped one: survey_app.web.languages), since a class
    #: is taught in one; None: each student's browser decides.
    language: Mapped[str | None] = mapped_column(String(16), nullable=True)

    owner: Mapped[Analyst] = relationship(back_populates="surveys")
    questions: Mapped[list[Question]] = relationship(
        back_populates="survey",
        order_by="Question.position",
        cascade="all, delete-orphan",
    )

    @property
    def is_draft(self) -> bool:
        return self.status == SurveyStatus.DRAFT

    @property
    def is_open(self) -> bool:
        return self.status == SurveyStatus.OPEN

    @property
    def is_closed(self) -> bool:
        return self.status == SurveyStatus.CLOSED

    @property
    def epsilon_per_question(self) -> float:
        """Every question, yes/no or choice, is randomized at this epsilon."""
        return privacy.epsilon_from_flip_probability(self.flip_probability)

    @property
    def epsilon_total(self) -> float:
        """What answering the whole survey costs a respondent (basic composition)."""
        return privacy.total_epsilon([self.epsilon_per_question] * len(self.questions))


class Question(db.Model):
    """One question: ``yes_no``, ``choice`` (2 to 12 options), ``numeric`` (a bounded number) or
    ``paired`` (two of the first two kinds, randomized together)."""

    __tablename__ = "questions"
    __table_args__ = (UniqueConstraint("survey_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    survey_id: Mapped[int] = mapped_column(ForeignKey("surveys.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    #: The name of its kind (survey_app.kinds), checked against the registry when set: text
    #: without a CHECK constraint, so a kind registered later needs no schema change.
    kind: Mapped[str] = mapped_column(String(10))
    # Option labels of a choice question, in order; None for yes/no.
    choices: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    # A numeric question's bounds (answers are clipped to them in the browser), the unit it is
    # asked in ("hours", say: may be empty), and the mechanism its definition names (None: the
    # one of smaller worst-case variance at the survey's epsilon). None for other questions.
    minimum: Mapped[float | None] = mapped_column(Float, nullable=True)
    maximum: Mapped[float | None] = mapped_column(Float, nullable=True)
    unit: Mapped[str | None] = mapped_column(String(40), nullable=True)
    numeric_mechanism: Mapped[str | None] = mapped_column(String(10), nullable=True)
    #: The mechanism chosen for a numeric question the definition names none for, fixed when
    #: the survey opens (the browsers randomize with it; a later rule must not change it).
    chosen_mechanism: Mapped[str | None] = mapped_column(String(10), nullable=True)
    #: A paired question's two questions, as its kind stores them (survey_app.kinds.paired):
    #: each one's text, kind and option labels. None for other questions.
    parts: Mapped[list[dict] | None] = mapped_column(JSON, nullable=True)

    survey: Mapped[Survey] = relationship(back_populates="questions")

    @validates("kind")
    def _registered_kind(self, key: str, name: str) -> str:
        return kinds.kind_named(name).name

    @property
    def option_labels(self) -> list[str]:
        """Labels of the values a respondent can report, by value (none for a number)."""
        return kinds.kind_of(self).option_labels(self)

    @property
    def has_options(self) -> bool:
        """Its answers are one of its options (else numbers): see survey_app.kinds.base."""
        return kinds.kind_of(self).has_options

    @property
    def option_count(self) -> int:
        return len(self.option_labels)

    @property
    def mechanism(self) -> privacy.Mechanism:
        """What the browser does to an answer to this question: its kind picks it.

        Callers hold the privacy.Mechanism interface and never ask which kind it is.
        """
        return kinds.kind_of(self).mechanism(self)

    @property
    def report_range(self) -> tuple[int, int]:
        """The smallest and largest randomized value the browser can send (both included)."""
        return self.mechanism.report_range

    @property
    def mechanism_named(self) -> bool:
        """The definition named the question's (numeric) mechanism."""
        return self.numeric_mechanism is not None

    @property
    def mechanism_chosen_earlier(self) -> bool:
        """Its mechanism was fixed at opening by an earlier rule than today's (surveys opened
        before it): the rule of today would choose another for the survey's class size."""
        return (
            self.numeric_mechanism is None
            and self.chosen_mechanism is not None
            and self.chosen_mechanism
            != privacy.numeric_mechanism(
                self.minimum,
                self.maximum,
                self.survey.epsilon_per_question,
                None,
                self.survey.expected_respondents,
            ).name
        )


#: What separates the values in a submission's stored answers (see :func:`join_answers`).
ANSWER_SEPARATOR = ","


def join_answers(values: Iterable[int | str]) -> str:
    """A submission's randomized values as stored: integers in question order, joined by
    commas (``"1,0,3"``). The one place that writes the format, :func:`split_answers` the one
    that reads it; the recording statements (survey_app.respondents.submissions) split it in SQL,
    with
    the question ids joined the same way."""
    return ANSWER_SEPARATOR.join(str(value) for value in values)


def split_answers(stored: str) -> list[str]:
    """The values of :func:`join_answers`'s text, in question order, as text."""
    return stored.split(ANSWER_SEPARATOR)


class Submission(db.Model):
    """One respondent's randomized answers to a whole survey.

    ``answers`` holds the randomized values in question order as :func:`join_answers` writes
    them (e.g. ``"1,0,3"``): compact, and split again by :func:`split_answers`.
    """

    __tablename__ = "submissions"
    __table_args__ = (
        # Exports stream in submission_id order: random, not the order of arrival.
        Index("ix_submissions_survey_submission", "survey_id", "submission_id"),
        # On SQLite the table is stored in submission_id order and has no rowid, which would
        # count submissions in the order they arrived. (PostgreSQL: see reorder_submissions.)
        {"sqlite_with_rowid": False},
    )

    submission_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    survey_id: Mapped[int] = mapped_column(ForeignKey("surveys.id", ondelete="CASCADE"))
    submitted_on: Mapped[dt.date] = mapped_column(Date)
    answers: Mapped[str] = mapped_column(String(1000))


class OneTimeCode(db.Model):
    """A one-time code handed to one student: only its SHA-256 is kept, never the code.

    Nothing here joins a code to a submission: no submission id, and of its use only the day
    (``used_on``), as for submissions. On SQLite the table is stored in hash order with no
    rowid; on PostgreSQL closing the survey rewrites it in that order (see
    database.forget_arrival_order), so the order of use is not kept either.
    """

    __tablename__ = "one_time_codes"
    __table_args__ = ({"sqlite_with_rowid": False},)

    survey_id: Mapped[int] = mapped_column(
        ForeignKey("surveys.id", ondelete="CASCADE"), primary_key=True
    )
    code_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: None until the code is used.
    used_on: Mapped[dt.date | None] = mapped_column(Date, nullable=True)


class Tally(db.Model):
    """How many randomized answers reported each value of each question.

    A value's count is kept in shard 0. (Databases from before 2026-11-28 kept it in 8 shards,
    which submissions picked at random so that they would not wait on one hot row; their rows
    stay, and a value's count is the sum over its shards wherever it is read. Submissions no
    longer wait on count rows: SQLite writes one transaction at a time, and PostgreSQL counts
    at each read.) On SQLite kept up to date in the same transaction as each submission; on
    PostgreSQL by whoever next reads the counts, from the submissions waiting
    (:class:`UncountedSubmission`). Results never scan all submissions.
    """

    __tablename__ = "tallies"
    # On SQLite the table is stored in key order (question, value, shard) and has no rowid,
    # which would list a numeric question's reports in the order they first arrived.
    # (PostgreSQL: forget_arrival_order rewrites it in key order when the survey closes.)
    __table_args__ = ({"sqlite_with_rowid": False},)

    question_id: Mapped[int] = mapped_column(
        ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True
    )
    value: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Always 0 for counts made since 2026-11-28 (see above).
    shard: Mapped[int] = mapped_column(Integer, primary_key=True, default=0)
    noisy_count: Mapped[int] = mapped_column(Integer, default=0)


class UncountedSubmission(db.Model):
    """A stored submission not yet added to the tallies (PostgreSQL).

    On PostgreSQL a submission only inserts: its row, and one here, in one statement. Adding
    to the tallies at each arrival would make every submission wait on a few hot rows;
    instead, whoever reads a survey's counts first adds the submissions queued here
    (survey_app.storage.database.count_arrivals), in one statement, so counts stay exact.
    Closing leaves none (forget_arrival_order). SQLite adds to its tallies as each submission
    arrives (one writer at a time: nothing to wait on) and keeps this table empty.
    """

    __tablename__ = "uncounted_submissions"
    __table_args__ = ({"sqlite_with_rowid": False},)

    survey_id: Mapped[int] = mapped_column(
        ForeignKey("surveys.id", ondelete="CASCADE"), primary_key=True
    )
    submission_id: Mapped[str] = mapped_column(String(36), primary_key=True)


class ReleasedTally(db.Model):
    """An open survey's counts as of its last release: what its owner's views show.

    While a survey is open, results change only in releases of at least
    ``SURVEY_APP_RELEASE_BATCH`` submissions (survey_app.results.releases), so that comparing two
    views
    never isolates one arrival's answers. Each release replaces the survey's rows, in key
    order; closing deletes them (a closed survey shows its full counts).
    """

    __tablename__ = "released_tallies"
    __table_args__ = ({"sqlite_with_rowid": False},)

    question_id: Mapped[int] = mapped_column(
        ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True
    )
    value: Mapped[int] = mapped_column(Integer, primary_key=True)
    noisy_count: Mapped[int] = mapped_column(Integer)


class CarriedLiveRange(db.Model):
    """What a question's live range proved at its survey's last release, at one confidence.

    Each release narrows it, never widens it by more than the new answers allow
    (survey_app.privacy.live.carry_forward), so the live ranges never give back what an earlier
    look proved. Kept as bounds, not as each release's counts: a history of the counts would
    keep which batch every numeric report came in, after closing too; these bounds say no more
    than the ranges their owner saw. For each option (``value``; 0 for a number question's
    average): among the first ``respondents`` answers, the count of true holders (the sum of
    the true values) lies in [low, high].
    """

    __tablename__ = "carried_live_ranges"

    question_id: Mapped[int] = mapped_column(
        ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True
    )
    confidence: Mapped[float] = mapped_column(Float, primary_key=True)
    value: Mapped[int] = mapped_column(Integer, primary_key=True)
    respondents: Mapped[int] = mapped_column(Integer)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)


def _first_question_id():
    return (
        select(Question.id)
        .where(Question.survey_id == Survey.id)
        .order_by(Question.position)
        .limit(1)
        .correlate(Survey)
        .scalar_subquery()
    )


# Every submission answers every question, so the first question's tallies count respondents,
# with the submissions not yet counted into them (UncountedSubmission): one snapshot, exact.
Survey.respondents = column_property(
    select(func.coalesce(func.sum(Tally.noisy_count), 0))
    .where(Tally.question_id == _first_question_id())
    .correlate(Survey)
    .scalar_subquery()
    + select(func.count())
    .select_from(UncountedSubmission)
    .where(UncountedSubmission.survey_id == Survey.id)
    .correlate(Survey)
    .scalar_subquery(),
    # Loaded only when read: the respondent page and submissions never need it.
    deferred=True,
)
