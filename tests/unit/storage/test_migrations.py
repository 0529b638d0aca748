"""The migrations build the schema the models describe, on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from survey_app.extensions import db
from tests.analyst_helpers import submit
from tests.unit.storage.test_dead_rows import copies_on_sqlite


def seed_first_release(app, ids: list[str]) -> None:
    """An analyst and a closed survey with these submissions (in this order), in a database
    of the first release (b500ebf8be25), written as that release wrote them."""
    with app.app_context(), db.engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO analysts (id, email, password_hash, created_at) "
            "VALUES (1, 'old@example.edu', 'scrypt:x', '2026-11-01 00:00:00')"
        )
        connection.exec_driver_sql(
            "INSERT INTO surveys (id, slug, owner_id, title, intro, status, "
            "flip_probability, created_at) VALUES (1, 'old-survey', 1, 'Old', '', 'closed', "
            "0.25, '2026-11-01 00:00:00')"
        )
        for submission_id in ids:
            connection.exec_driver_sql(
                "INSERT INTO submissions (submission_id, survey_id, submitted_on, answers) "
                f"VALUES ('{submission_id}', 1, '2026-11-02', '1')"
            )


def test_upgrade_builds_exactly_the_models_schema(app, runner):
    with app.app_context():
        db.drop_all()
        inspector = inspect(db.engine)
        assert "surveys" not in inspector.get_table_names()
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        tables = set(inspect(db.engine).get_table_names())
        assert {"analysts", "surveys", "questions", "submissions", "tallies"} <= tables
        with db.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), db.metadata)
            if db.engine.dialect.name == "sqlite":
                # Without rowid, which would number rows in the order they arrived.
                for table in ("submissions", "tallies", "released_tallies", "one_time_codes"):
                    listed = connection.exec_driver_sql(f"PRAGMA table_list('{table}')").all()
                    assert listed[0][4] == 1, table  # table_list's "wr" column
        assert differences == []


def test_init_db_upgrades_and_keeps_data(app, runner):
    with app.app_context():
        db.drop_all()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    created = runner.invoke(
        args=["create-analyst", "keep@example.edu", "--password-stdin"], input="long enough pw\n"
    )
    assert created.exit_code == 0, created.output
    again = runner.invoke(args=["init-db"])  # at head already: nothing to do, nothing lost
    assert again.exit_code == 0, again.output
    with app.app_context():
        with db.engine.begin() as connection:
            emails = connection.exec_driver_sql("SELECT email FROM analysts").scalars().all()
            versions = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert len(versions.all()) == 1
    assert emails == ["keep@example.edu"]


def test_upgrading_keeps_submissions_and_drops_their_arrival_order(app, runner):
    """A database of the first release, with submissions, upgraded to this one."""
    with app.app_context():
        db.drop_all()
    assert runner.invoke(args=["db", "upgrade", "b500ebf8be25"]).exit_code == 0
    ids = [f"{index:08x}-0000-4000-8000-000000000000" for index in range(20)][::-1]
    seed_first_release(app, ids)
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        with db.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), db.metadata)
            if db.engine.dialect.name == "sqlite":
                stored = connection.exec_driver_sql(
                    "SELECT submission_id, answers FROM submissions"
                )
                columns = connection.exec_driver_sql("PRAGMA table_list('submissions')").all()
                assert columns[0][4] == 1  # table_list's "wr" column: WITHOUT ROWID
            else:
                stored = connection.exec_driver_sql(
                    "SELECT submission_id, answers FROM submissions ORDER BY ctid"
                )
            assert [submission_id for submission_id, _ in stored] == sorted(ids)
    assert differences == []


@pytest.mark.sqlite
@pytest.mark.parametrize("command", [["db", "upgrade"], ["init-db"]])
def test_upgrading_sqlite_leaves_no_old_row_in_free_pages(
    app, runner, database_url, tmp_path, command
):
    """The upgrade rebuilds tables without rowid; the old tables' pages, rows in arrival order,
    are freed. Both ways of upgrading rebuild the file: each submission id is then in it (and
    its log) as often as in a clean copy of the database, and no page is free."""
    database_file = database_url.removeprefix("sqlite:///")
    with app.app_context():
        db.drop_all()
    assert runner.invoke(args=["db", "upgrade", "b500ebf8be25"]).exit_code == 0
    ids = [str(uuid.UUID(int=index, version=4)) for index in range(200)][::-1]
    seed_first_release(app, ids)
    result = runner.invoke(args=command)
    assert result.exit_code == 0, result.output
    extra, free_pages = copies_on_sqlite(
        app, database_file, [submission_id.encode() for submission_id in ids], tmp_path
    )
    assert (free_pages, extra) == (0, {})
    with app.app_context(), db.engine.connect() as connection:
        kept = connection.exec_driver_sql("SELECT submission_id FROM submissions").scalars()
        assert sorted(kept) == sorted(ids)  # the copy the file is compared with holds them


@pytest.mark.database
def test_downgrading_counts_the_submissions_still_waiting(app, runner, make_survey):
    """PostgreSQL queues a submission to be counted by the next reader; the revision before
    the queue counts each as it stores it, so going back adds those still waiting first."""
    slug, questions = make_survey()
    submit(app, slug, [(1, 0), (0, 2), (1, 2)])
    assert runner.invoke(args=["db", "stamp", "head"]).exit_code == 0
    result = runner.invoke(args=["db", "downgrade", "a3c8e5f1d7b4"])
    assert result.exit_code == 0, result.output
    with app.app_context(), db.engine.connect() as connection:
        counted = connection.exec_driver_sql(
            "SELECT question_id, value, sum(noisy_count) FROM tallies "
            "GROUP BY question_id, value HAVING sum(noisy_count) > 0 ORDER BY question_id, value"
        ).all()
    first, second = questions
    assert [tuple(row) for row in counted] == [
        (first, 0, 1),
        (first, 1, 2),
        (second, 0, 1),
        (second, 2, 2),
    ]
