"""Seeding: random randomized submissions in bulk, their counts kept exact, and the fixtures."""

from __future__ import annotations

import datetime as dt
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import text

from benchmarks.common import (
    _HEX_DIGITS,
    BENCH_DEFINITION,
    SEED_BATCH,
    SEED_DAYS,
    SEED_DISTRIBUTIONS,
    SQLITE_SEED_CACHE_KIB,
    BenchError,
)
from benchmarks.figures import ConsistencyFigures
from survey_app.storage.database import count_arrivals

# ----------------------------------------------------------------------------------- seeding


@dataclass
class SurveyShape:
    """What the benchmark needs to know of a survey it created."""

    slug: str
    survey_id: int
    question_ids: list[int]
    option_counts: list[int]


@dataclass
class SeedState:
    """The seeded survey and the counts of every value seeded so far (cumulative)."""

    shape: SurveyShape
    size: int = 0
    counts: list[np.ndarray] = field(default_factory=list)

    def __post_init__(self):
        if not self.counts:
            self.counts = [np.zeros(k, dtype=np.int64) for k in self.shape.option_counts]


def random_uuid4_strings(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` random version-4 UUIDs in canonical form, in sorted order.

    Built with numpy rather than ``uuid.uuid4()`` a million times; sorted so that the bulk insert
    appends to the primary-key index instead of touching pages at random.
    """
    raw = np.frombuffer(rng.bytes(16 * count), dtype=np.uint8).reshape(count, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    raw = np.sort(raw.view("S16").ravel()).view(np.uint8).reshape(count, 16)
    digits = np.empty((count, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX_DIGITS[raw >> 4]
    digits[:, 1::2] = _HEX_DIGITS[raw & 0x0F]
    text = np.full((count, 36), ord("-"), dtype=np.uint8)
    for start, stop, offset in ((0, 8, 0), (8, 12, 1), (12, 16, 2), (16, 20, 3), (20, 32, 4)):
        text[:, start + offset : stop + offset] = digits[:, start:stop]
    return text.view("S36").ravel().astype("U36").tolist()


def encode_answer_rows(values: np.ndarray) -> list[str]:
    """Rows of single-digit values as the app stores them: ``"1,0,2,..."``."""
    if values.size and values.max() > 9:
        raise ValueError("encode_answer_rows: values must be single digits (0 .. 9)")
    count, questions = values.shape
    text = np.full((count, 2 * questions - 1), ord(","), dtype=np.uint8)
    text[:, 0::2] = values + ord("0")
    return text.view(f"S{2 * questions - 1}").ravel().astype(f"U{2 * questions - 1}").tolist()


def draw_values(rng: np.random.Generator, count: int, option_counts: list[int]) -> np.ndarray:
    """A ``count`` x questions matrix of randomized values, by SEED_DISTRIBUTIONS."""
    columns = []
    for options, distribution in zip(option_counts, SEED_DISTRIBUTIONS, strict=True):
        if len(distribution) != options:
            raise ValueError("SEED_DISTRIBUTIONS does not match the survey's questions")
        columns.append(rng.choice(options, size=count, p=distribution).astype(np.uint8))
    return np.column_stack(columns)


def draw_days(rng: np.random.Generator, count: int) -> list[str]:
    today = dt.date.today()
    days = np.array([(today - dt.timedelta(days=n)).isoformat() for n in range(SEED_DAYS)])
    return days[rng.integers(0, SEED_DAYS, size=count)].tolist()


def seed_submissions(engine, state: SeedState, target_size: int, rng: np.random.Generator) -> float:
    """Add submissions until ``target_size`` are seeded; return the seconds it took.

    The rows and their tallies are written in one transaction (respondents are counted from
    the tallies), so that the maintained counts are exactly those of the stored rows at every
    moment.
    """
    missing = target_size - state.size
    if missing <= 0:
        return 0.0
    started = time.perf_counter()
    batch_counts = [np.zeros_like(counts) for counts in state.counts]
    raw = engine.raw_connection()
    try:
        if engine.dialect.name == "sqlite":
            _seed_sqlite(raw, state, missing, rng, batch_counts)
        elif engine.dialect.name == "postgresql":
            _seed_postgresql(raw, state, missing, rng, batch_counts)
        else:
            raise BenchError(f"seeding: unsupported database {engine.dialect.name!r}")
    finally:
        raw.close()
    for counts, added in zip(state.counts, batch_counts, strict=True):
        counts += added
    state.size = target_size
    if engine.dialect.name == "postgresql":
        # What autovacuum does soon after a bulk load: measure the steady state, not the moment.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
    return time.perf_counter() - started


def _seed_batches(
    state: SeedState, missing: int, rng: np.random.Generator, batch_counts: list[np.ndarray]
) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """Batches of (submission ids, days, answers), counting the values as they are drawn."""
    for start in range(0, missing, SEED_BATCH):
        count = min(SEED_BATCH, missing - start)
        values = draw_values(rng, count, state.shape.option_counts)
        for column, counts in enumerate(batch_counts):
            counts += np.bincount(values[:, column], minlength=len(counts))
        yield random_uuid4_strings(rng, count), draw_days(rng, count), encode_answer_rows(values)


def _tally_parameters(state: SeedState, batch_counts: list[np.ndarray]) -> list[tuple[int, ...]]:
    return [
        (int(count), question_id, value)
        for question_id, counts in zip(state.shape.question_ids, batch_counts, strict=True)
        for value, count in enumerate(counts)
    ]


def _seed_sqlite(raw, state, missing, rng, batch_counts) -> None:
    cursor = raw.cursor()
    try:
        # Safe only for seeding a throwaway database, and the connection is discarded afterwards.
        cursor.execute("PRAGMA synchronous = OFF")
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_SEED_CACHE_KIB}")
        cursor.execute("BEGIN IMMEDIATE")
        try:
            survey_id = state.shape.survey_id
            for ids, days, answers in _seed_batches(state, missing, rng, batch_counts):
                cursor.executemany(
                    "INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)"
                    " VALUES (?, ?, ?, ?)",
                    zip(ids, [survey_id] * len(ids), days, answers, strict=True),
                )
            _write_counts(cursor, "?", state, batch_counts)
            cursor.execute("COMMIT")
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        # The pragmas above must not reach the app's pool.
        raw.invalidate()


def _seed_postgresql(raw, state, missing, rng, batch_counts) -> None:
    cursor = raw.cursor()
    try:
        suffix = f"\t{state.shape.survey_id}\t"
        for ids, days, answers in _seed_batches(state, missing, rng, batch_counts):
            block = "".join(
                f"{submission_id}{suffix}{day}\t{answer}\n"
                for submission_id, day, answer in zip(ids, days, answers, strict=True)
            )
            with cursor.copy(
                "COPY submissions (submission_id, survey_id, submitted_on, answers) FROM STDIN"
            ) as copy:
                copy.write(block)
        _write_counts(cursor, "%s", state, batch_counts)
        raw.commit()
    except BaseException:
        raw.rollback()
        raise


def _write_counts(cursor, placeholder: str, state, batch_counts) -> None:
    """Add the seeded counts to the tallies (opened at zero)."""
    p = placeholder
    parameters = _tally_parameters(state, batch_counts)
    # Seeded counts go to shard 0 of each value, as the app's own.
    cursor.executemany(
        f"UPDATE tallies SET noisy_count = noisy_count + {p}"
        f" WHERE question_id = {p} AND value = {p} AND shard = 0",
        parameters,
    )
    cursor.execute(
        f"SELECT count(*) FROM tallies WHERE shard = 0"
        f" AND question_id IN ({', '.join([p] * len(state.counts))})",
        state.shape.question_ids,
    )
    if cursor.fetchone()[0] != len(parameters):
        raise BenchError("seeding: the survey's tallies are not those its questions need")


def check_consistency(engine, state: SeedState) -> ConsistencyFigures:
    """Count the stored rows' values afresh and compare with the tallies and ``respondents``."""
    p = "?" if engine.dialect.name == "sqlite" else "%s"
    shape = state.shape
    with engine.begin() as connection:  # what the app does before it reads counts
        count_arrivals(shape.survey_id, connection)
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute(f"SELECT answers FROM submissions WHERE survey_id = {p}", (shape.survey_id,))
        answers = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            f"SELECT question_id, value, sum(noisy_count) FROM tallies"
            f" WHERE question_id IN ({', '.join([p] * len(shape.question_ids))})"
            f" GROUP BY question_id, value",
            shape.question_ids,
        )
        tallies = {(question_id, value): int(count) for question_id, value, count in cursor}
        # What the app reports as respondents: the first question's count.
        respondents = sum(
            count
            for (question_id, _), count in tallies.items()
            if question_id == shape.question_ids[0]
        )
        raw.rollback()
    finally:
        raw.close()
    questions = len(shape.question_ids)
    if answers:
        values = np.fromstring(",".join(answers), dtype=np.int64, sep=",").reshape(-1, questions)
    else:
        values = np.zeros((0, questions), dtype=np.int64)
    from_rows = [
        np.bincount(values[:, column], minlength=options)
        for column, options in enumerate(shape.option_counts)
    ]
    from_tallies = [
        np.array([tallies.get((question_id, value), -1) for value in range(options)])
        for question_id, options in zip(shape.question_ids, shape.option_counts, strict=True)
    ]
    return ConsistencyFigures(
        seeded=state.size,
        stored_rows=len(answers),
        respondents=int(respondents),
        tallies_match_rows=all(
            np.array_equal(a, b) for a, b in zip(from_rows, from_tallies, strict=True)
        ),
        tallies_match_seeded=all(
            np.array_equal(a, b) for a, b in zip(state.counts, from_tallies, strict=True)
        ),
    )


@dataclass
class Fixtures:
    token: str
    seeded: SurveyShape
    live: SurveyShape


def create_fixtures(app) -> Fixtures:
    """An analyst, an API token, and two open benchmark surveys (seeded, and live)."""
    from survey_app.accounts.services import create_analyst, create_token
    from survey_app.extensions import db
    from survey_app.surveys.services import create_survey, open_survey, parse_definition

    with app.app_context():
        analyst = create_analyst("bench@example.edu", secrets.token_urlsafe(24))
        shapes = []
        for title in ("Benchmark: seeded", "Benchmark: live submissions"):
            survey = create_survey(analyst, parse_definition(BENCH_DEFINITION | {"title": title}))
            db.session.commit()
            open_survey(survey)
            db.session.commit()
            shapes.append(
                SurveyShape(
                    slug=survey.slug,
                    survey_id=survey.id,
                    question_ids=[question.id for question in survey.questions],
                    option_counts=[question.option_count for question in survey.questions],
                )
            )
        token = create_token(analyst)
        db.session.commit()
        return Fixtures(token=token, seeded=shapes[0], live=shapes[1])


def mark_closed(engine, survey_id: int) -> None:
    """Set a benchmark survey's status to closed, and nothing else (no storage rewrite)."""
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE surveys SET status = 'closed' WHERE id = :survey_id"),
            {"survey_id": survey_id},
        )
