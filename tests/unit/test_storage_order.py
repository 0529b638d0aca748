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

import pytest
from sqlalchemy import exc, select

from survey_app import database
from survey_app.database import forget_arrival_order
from survey_app.extensions import db
from survey_app.models import Submission, Survey
from survey_app.submissions import record_submission
from survey_app.surveys import close_survey, find_survey

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
    from survey_app import surveys

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
    with caplog.at_level(logging.WARNING, logger="survey_app.database"):
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
        with caplog.at_level(logging.WARNING, logger="survey_app.database"):
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
