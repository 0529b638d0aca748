"""The migrations build the schema the models describe, on SQLite and on PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from survey_app.extensions import db


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
