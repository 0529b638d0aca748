"""Nothing in the database's storage follows the order in which submissions arrived.

Submissions are sent in a known order whose ids are not sorted; then the tables are read as the
database keeps them: SQLite by rowid (there must be none) and in storage order, PostgreSQL by
physical position (ctid) and by writing transaction (xmin). Runs on SQLite, and on PostgreSQL in
the second pass of CI.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import uuid

import numpy as np
import pytest
from sqlalchemy import exc, inspect, select, text

from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage import database
from survey_app.storage.database import count_arrivals, forget_arrival_order
from survey_app.storage.models import Submission, Survey, UncountedSubmission
from survey_app.surveys.services import close_survey, find_survey
from tests.numeric_helpers import HOURS

SUBMISSIONS = 40


def arrival_ids() -> list[str]:
    """Random ids, arranged so that arrival order is far from id order (reversed)."""
    return sorted((str(uuid.uuid4()) for _ in range(SUBMISSIONS)), reverse=True)


def submit_in_order(app, slug: str, question_ids: list[int], ids: list[str]) -> None:
    with app.app_context():
        for index, submission_id in enumerate(ids):
            answers = {str(question_ids[0]): index % 2, str(question_ids[1]): index % 3}
            record_submission(slug, {"submission_id": submission_id, "answers": answers})


def storage_order(connection, dialect: str) -> list[str]:
    """The submission ids in the order the database stores them."""
    if dialect == "sqlite":
        # With answers, which no index holds: a scan of the table itself.
        rows = connection.exec_driver_sql("SELECT submission_id, answers FROM submissions")
        return [submission_id for submission_id, _ in rows]
    return (
        connection.exec_driver_sql("SELECT submission_id FROM submissions ORDER BY ctid")
        .scalars()
        .all()
    )


@pytest.fixture
def dialect(app) -> str:
    with app.app_context():
        return db.engine.dialect.name


def test_before_closing(app, survey, dialect):
    """SQLite: no rowid, and the table is kept in key order from the start. PostgreSQL (the
    control): the heap does follow arrival until the rewrite that closing a survey makes."""
    slug, question_ids = survey
    ids = arrival_ids()
    submit_in_order(app, slug, question_ids, ids)
    with app.app_context(), db.engine.connect() as connection:
        if dialect == "sqlite":
            for column in ("rowid", "_rowid_", "oid"):
                with pytest.raises(exc.OperationalError, match="no such column"):
                    connection.exec_driver_sql(f"SELECT {column} FROM submissions").all()
            assert storage_order(connection, dialect) == sorted(ids)
        else:
            assert storage_order(connection, dialect) == ids
            writers = connection.exec_driver_sql(
                "SELECT count(DISTINCT xmin::text) FROM submissions"
            )
            assert writers.scalar() == SUBMISSIONS


def test_storage_order_is_the_random_key_not_arrival(app, survey, dialect):
    slug, question_ids = survey
    ids = arrival_ids()
    submit_in_order(app, slug, question_ids, ids)
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
        with db.engine.connect() as connection:
            stored = storage_order(connection, dialect)
            assert stored == sorted(ids) != ids
            if dialect == "postgresql":
                writers = connection.exec_driver_sql(
                    "SELECT DISTINCT xmin::text FROM submissions"
                ).all()
                assert len(writers) == 1  # one transaction wrote them all: no time order


def test_the_command_rewrites_open_surveys_too_and_keeps_everything(
    app, runner, make_survey, dialect
):
    slugs = [make_survey() for _ in range(2)]
    expected = {}
    for slug, question_ids in slugs:
        ids = arrival_ids()
        submit_in_order(app, slug, question_ids, ids)
        with app.app_context():
            rows = db.session.execute(
                select(Submission.submission_id, Submission.answers)
                .join(Survey)
                .where(Survey.slug == slug)
            ).all()
            expected[slug] = sorted(map(tuple, rows))
    result = runner.invoke(args=["forget-arrival-order"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        with db.engine.connect() as connection:
            stored = storage_order(connection, dialect)
        assert stored == sorted(stored)
        for slug, rows in expected.items():
            assert find_survey(slug).is_open
            after = db.session.execute(
                select(Submission.submission_id, Submission.answers)
                .join(Survey)
                .where(Survey.slug == slug)
            ).all()
            assert sorted(map(tuple, after)) == rows


def test_rewriting_one_survey_leaves_the_others_alone(app, make_survey, dialect):
    (first, first_questions), (second, second_questions) = make_survey(), make_survey()
    submit_in_order(app, first, first_questions, arrival_ids())
    submit_in_order(app, second, second_questions, arrival_ids())
    with app.app_context():
        count_before = db.session.query(Submission).count()
        first_id = find_survey(first).id
        db.session.rollback()  # as after close_survey's commit: no read left open
        forget_arrival_order(first_id)
        assert db.session.query(Submission).count() == count_before == 2 * SUBMISSIONS


def test_closing_rewrites_storage_only_once_the_caller_commits(app, survey, monkeypatch):
    """close_survey flushes (the caller commits); the rewrite follows the commit, never a
    rollback."""
    from survey_app.surveys import services as surveys

    rewritten = []
    monkeypatch.setattr(surveys, "forget_arrival_order", rewritten.append)
    slug, _ = survey
    with app.app_context():
        close_survey(find_survey(slug))
        assert rewritten == []
        db.session.rollback()
        assert rewritten == []
        assert find_survey(slug).is_open  # the rollback undid the close
        survey_id = find_survey(slug).id
        close_survey(find_survey(slug))
        db.session.commit()
        assert rewritten == [survey_id]
        db.session.commit()  # a later commit does not run it again
        assert rewritten == [survey_id]


# --------------------------------------------------------------------------- SQLite's log


@pytest.fixture
def database_file(database_url) -> str:
    """The SQLite file of a test marked ``sqlite`` (so in every pass, PostgreSQL's too)."""
    assert database_url.startswith("sqlite:"), "mark the test sqlite: the log is SQLite's"
    return database_url.removeprefix("sqlite:///")


@pytest.mark.sqlite
def test_closing_empties_the_write_ahead_log(app, runner, survey, database_file, caplog):
    slug, question_ids = survey
    submit_in_order(app, slug, question_ids, arrival_ids())
    assert os.path.getsize(database_file + "-wal") > 0  # the submissions, in arrival order
    with caplog.at_level(logging.WARNING, logger="survey_app.storage.database"):
        assert runner.invoke(args=["close-survey", slug]).exit_code == 0
    assert os.path.getsize(database_file + "-wal") == 0
    assert not caplog.records
    with app.app_context():
        assert forget_arrival_order() is True


@pytest.mark.sqlite
def test_a_log_held_by_a_reader_is_reported_not_passed_over(
    app, runner, survey, database_file, caplog, monkeypatch
):
    """A read transaction begun before the last submissions pins them in the log: the
    checkpoint is busy, and that must be said (a warning, a failed command), never hidden."""
    monkeypatch.setattr(database, "CHECKPOINT_WAIT_MS", 50)  # the reader will not let go
    slug, question_ids = survey
    with contextlib.closing(sqlite3.connect(database_file, isolation_level=None)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM surveys").fetchone()  # its snapshot begins
        submit_in_order(app, slug, question_ids, arrival_ids())
        with caplog.at_level(logging.WARNING, logger="survey_app.storage.database"):
            with app.app_context():
                assert forget_arrival_order() is False
            result = runner.invoke(args=["forget-arrival-order"])
        assert result.exit_code == 1
        assert "write-ahead log could not be emptied" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 2
        assert "could not be emptied" in warnings[0].getMessage()
        assert os.path.getsize(database_file + "-wal") > 0
        reader.execute("COMMIT")
    with app.app_context():
        assert forget_arrival_order() is True
    assert os.path.getsize(database_file + "-wal") == 0


# --------------------------------------------------------------------------- every table

#: A survey whose submissions write every kind of row: a code used, a numeric report whose
#: count row is created when it first arrives, and yes/no counts. The numeric tests' survey: its
#: number randomized by the hybrid, whose reports take many values, each count row first made
#: by one arrival (the one-bit mechanism's two rows would show nothing).
EVERY_KIND = HOURS
#: Enough arrivals for a rank correlation to mean something: with no order kept, it is about
#: normal with standard deviation 1/sqrt(79) = 0.11 here, and the seeds below fix it.
ARRIVALS = 80
#: A stored order counts as following arrival when |rho| reaches this: 4.5 standard
#: deviations of an unordered table, while a table kept in arrival order gives 1.0.
ORDERED = 0.5
#: Tables no submission writes to (each other table must be read by the test below). What a
#: release's live ranges proved is written by the release, one row an option and confidence,
#: all rewritten together: no row belongs to an arrival.
UNTOUCHED_BY_SUBMISSIONS = {
    "alembic_version",
    "analysts",
    "analyst_sessions",
    "api_tokens",
    "carried_live_ranges",
    # LTI: platforms and the origins that may frame the tool, logins until their launch (a
    # login is over before any answer), and instructors' links to their accounts.
    "lti_deployments",
    "lti_frame_origins",
    "lti_instructor_links",
    "lti_logins",
    "lti_platforms",
    "questions",
    "sign_in_attempts",
    "surveys",
}


def spearman(positions: list[int]) -> float:
    """Rank correlation of stored position with arrival (``positions`` lists arrival indices
    in stored order)."""
    from scipy.stats import spearmanr

    return float(spearmanr(range(len(positions)), positions).statistic)


def arrive_in_known_order(
    app, slug: str, question_ids: list[int], seed: int, counted_each: bool = False
) -> dict:
    """Submit ARRIVALS submissions, each with its own code and a numeric report no other
    sends; return what ties each stored row to its arrival (id, code hash, report).

    On PostgreSQL a submission waits in uncounted_submissions until a reader of the counts
    adds it to the tallies; ``counted_each`` adds each one as it arrives (a view after each)."""
    from survey_app.classroom.codes import code_sha256, issue_codes

    rng = np.random.default_rng(seed)
    with app.app_context():
        survey = find_survey(slug)
        codes = issue_codes(survey, ARRIVALS)
        low, high = survey.questions[0].report_range
        db.session.commit()
    reports = rng.choice(np.arange(low, high + 1), size=ARRIVALS, replace=False)
    ids = [str(uuid.UUID(bytes=rng.bytes(16), version=4)) for _ in range(ARRIVALS)]
    order = {"submissions": {}, "one_time_codes": {}, "tallies": {}}
    with app.app_context():
        survey = find_survey(slug)
        from survey_app.surveys.services import open_survey

        open_survey(survey)
        db.session.commit()
    for index in range(ARRIVALS):
        answers = {str(question_ids[0]): int(reports[index]), str(question_ids[1]): index % 2}
        with app.app_context():
            record_submission(
                slug, {"submission_id": ids[index], "answers": answers, "code": codes[index]}
            )
        order["submissions"][ids[index]] = index
        order["one_time_codes"][code_sha256(codes[index])] = index
        order["tallies"][int(reports[index])] = index
        if counted_each:
            with app.app_context():
                count_arrivals()
                db.session.commit()
    order["released_tallies"] = order["tallies"]
    order["uncounted_submissions"] = order["submissions"]
    return order


def arrival_of(table: str, row: dict, order: dict, numeric_id: int) -> int | None:
    """The arrival a stored row belongs to, or None (a yes/no count, another survey's row)."""
    if table in ("submissions", "uncounted_submissions"):
        return order[table].get(row["submission_id"])
    if table == "one_time_codes":
        return order[table].get(row["code_sha256"])
    if row["question_id"] != numeric_id or not row["noisy_count"]:
        return None
    return order[table].get(row["value"])


def stored_orders(connection, dialect: str, table: str) -> dict[str, list[dict]]:
    """The table's rows in each order the database keeps: SQLite's scan and rowid (when it
    has one), PostgreSQL's physical position and writing transaction."""
    if dialect == "sqlite":
        statements = {
            "scan": f"SELECT * FROM {table}",
            "rowid": f"SELECT * FROM {table} ORDER BY rowid",
        }
    else:
        statements = {
            "ctid": f"SELECT * FROM {table} ORDER BY ctid",
            "xmin": f"SELECT * FROM {table} ORDER BY xmin::text::bigint, ctid",
        }
    orders = {}
    for name, statement in statements.items():
        try:
            orders[name] = [dict(row) for row in connection.exec_driver_sql(statement).mappings()]
        except exc.OperationalError:
            assert name == "rowid", statement  # a table without rowid: nothing to read
            connection.rollback()
    return orders


def correlations(app, dialect: str, order: dict, numeric_id: int) -> dict[str, float]:
    """For every table a submission writes to, and each stored order, rho with arrival."""
    found = {}
    with app.app_context(), db.engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        assert tables - set(order) <= UNTOUCHED_BY_SUBMISSIONS, "a new table: read it here too"
        for table in sorted(order):
            for name, rows in stored_orders(connection, dialect, table).items():
                positions = [
                    arrival
                    for row in rows
                    if (arrival := arrival_of(table, row, order, numeric_id)) is not None
                ]
                if len(positions) >= ARRIVALS // 2:
                    found[f"{table} by {name}"] = spearman(positions)
    return found


def writers(app, table: str, survey_id: int) -> int:
    """PostgreSQL: how many transactions wrote the survey's rows of ``table``."""
    of_survey = (
        "survey_id = :survey_id"
        if table in ("submissions", "one_time_codes")
        else "question_id IN (SELECT id FROM questions WHERE survey_id = :survey_id)"
    )
    with app.app_context(), db.engine.connect() as connection:
        return connection.execute(
            text(f"SELECT count(DISTINCT xmin::text) FROM {table} WHERE {of_survey}"),
            {"survey_id": survey_id},
        ).scalar_one()


@pytest.fixture
def every_kind(app, make_survey):
    slug, question_ids = make_survey(EVERY_KIND, status="draft")
    return slug, question_ids


@pytest.mark.parametrize("forget", ["closing", "the command"])
def test_no_table_keeps_the_arrival_order(app, runner, every_kind, dialect, forget):
    slug, question_ids = every_kind
    order = arrive_in_known_order(app, slug, question_ids, seed=2026)
    with app.app_context():
        survey_id = find_survey(slug).id
    if forget == "closing":
        assert runner.invoke(args=["close-survey", slug]).exit_code == 0
    else:
        # While open, a view has made a release: its rows are rewritten too.
        with app.app_context():
            from survey_app.results.releases import shown_counts

            assert shown_counts(find_survey(slug)).respondents == ARRIVALS
        assert runner.invoke(args=["forget-arrival-order"]).exit_code == 0
    found = correlations(app, dialect, order, question_ids[0])
    expected = {"submissions", "one_time_codes", "tallies"} | (
        {"released_tallies"} if forget == "the command" else set()
    )
    assert {name.split(" by ")[0] for name in found} == expected
    assert all(abs(rho) < ORDERED for rho in found.values()), found
    if dialect == "postgresql":
        for table in sorted(expected):
            assert writers(app, table, survey_id) == 1, table
    with app.app_context():  # every submission counted, none left waiting in arrival order
        assert db.session.query(UncountedSubmission).count() == 0
        counted = db.session.execute(
            select(Survey.respondents).where(Survey.id == survey_id)
        ).scalar_one()
        assert counted == ARRIVALS


def test_the_measure_sees_the_order_a_first_arrival_leaves(app, every_kind, dialect):
    """The control: numeric count rows as the app kept them before (SQLite: with a rowid, which
    closing kept; PostgreSQL: before the rewrite) do follow arrival, and the measure says so."""
    slug, question_ids = every_kind
    if dialect == "sqlite":
        with app.app_context(), db.engine.begin() as connection:
            connection.exec_driver_sql("ALTER TABLE tallies RENAME TO tallies_by_key")
            connection.exec_driver_sql(
                "CREATE TABLE tallies (question_id INTEGER NOT NULL, value INTEGER NOT NULL, "
                "shard INTEGER NOT NULL, noisy_count INTEGER NOT NULL, "
                "PRIMARY KEY (question_id, value, shard))"
            )
            connection.exec_driver_sql("INSERT INTO tallies SELECT * FROM tallies_by_key")
            connection.exec_driver_sql("DROP TABLE tallies_by_key")
    # PostgreSQL: each arrival counted at once (as if a view followed each), so that its
    # numeric report's row is written by its own transaction, in arrival order.
    order = arrive_in_known_order(app, slug, question_ids, seed=2026, counted_each=True)
    if dialect == "sqlite":
        with app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    found = correlations(app, dialect, order, question_ids[0])
    ordered = "tallies by rowid" if dialect == "sqlite" else "tallies by xmin"
    assert found[ordered] > 0.99, found


def test_the_measure_sees_the_order_of_submissions_waiting_to_be_counted(app, every_kind, dialect):
    """The control for the queue: on PostgreSQL, submissions not yet counted wait in
    uncounted_submissions in arrival order, and the measure says so (closing must empty it)."""
    slug, question_ids = every_kind
    order = arrive_in_known_order(app, slug, question_ids, seed=2026)
    found = correlations(app, dialect, order, question_ids[0])
    if dialect == "sqlite":  # SQLite counts each submission as it arrives: nothing waits
        assert not any(name.startswith("uncounted_submissions") for name in found), found
    else:
        assert found["uncounted_submissions by xmin"] > 0.99, found
