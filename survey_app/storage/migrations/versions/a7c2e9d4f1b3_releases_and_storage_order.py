"""releases: counts shown while open, tallies without rowid, when a survey closed, reopened

Revision ID: a7c2e9d4f1b3
Revises: f3c6d2a8e4b9
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a7c2e9d4f1b3"
down_revision = "f3c6d2a8e4b9"
branch_labels = None
depends_on = None

_TALLY_COLUMNS = "question_id, value, shard, noisy_count"


def _tallies_table(name: str, with_rowid: bool) -> None:
    op.create_table(
        name,
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("shard", sa.Integer(), nullable=False),
        sa.Column("noisy_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_tallies_question_id_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("question_id", "value", "shard", name=op.f("pk_tallies")),
        sqlite_with_rowid=with_rowid,
    )


def _rebuild_tallies_on_sqlite(with_rowid: bool) -> None:
    """Copy the tallies into a table with (or without) a rowid, in key order."""
    _tallies_table("tallies_in_key_order", with_rowid)
    op.execute(
        f"INSERT INTO tallies_in_key_order ({_TALLY_COLUMNS}) "
        f"SELECT {_TALLY_COLUMNS} FROM tallies ORDER BY question_id, value, shard"
    )
    op.drop_table("tallies")
    op.rename_table("tallies_in_key_order", "tallies")


def _add_survey_columns():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds surveys, and dropping
    # the old table deletes (by cascade) every question and submission.
    op.add_column("surveys", sa.Column("closed_at", sa.DateTime(), nullable=True))
    op.add_column(
        "surveys",
        sa.Column("released_respondents", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column(
        "surveys",
        sa.Column("expected_respondents", sa.Integer(), nullable=False, server_default="40"),
    )


def _add_chosen_mechanism():
    op.add_column("questions", sa.Column("chosen_mechanism", sa.String(length=10), nullable=True))
    # Numeric questions of surveys that have opened keep the mechanism their browsers used: the
    # rule before this one chose the hybrid at every epsilon the app allows (a test pinned it).
    op.execute(
        "UPDATE questions SET chosen_mechanism = 'hybrid' WHERE kind = 'numeric' "
        "AND numeric_mechanism IS NULL "
        "AND survey_id IN (SELECT id FROM surveys WHERE status <> 'draft')"
    )


def _add_survey_flags_and_close_times():
    for flag in ("reopened", "results_held"):
        op.add_column(
            "surveys", sa.Column(flag, sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # Surveys closed before: their join codes lead to them for the grace period from now
    # (closed_at is naive UTC, as models.utc_now writes it).
    now = (
        "CURRENT_TIMESTAMP"
        if op.get_bind().dialect.name == "sqlite"
        else "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')"
    )
    op.execute(f"UPDATE surveys SET closed_at = {now} WHERE status = 'closed'")


def _create_released_tallies():
    op.create_table(
        "released_tallies",
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("noisy_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_released_tallies_question_id_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("question_id", "value", name=op.f("pk_released_tallies")),
        sqlite_with_rowid=False,
    )


def _tallies_in_key_order_on_postgresql():
    """PostgreSQL keeps rows in the order they were written: rewrite them in key order, in
    one transaction (as survey_app.storage.database.forget_arrival_order does at closing)."""
    op.execute(
        "CREATE TEMPORARY TABLE tallies_in_key_order ON COMMIT DROP AS "
        f"SELECT {_TALLY_COLUMNS} FROM tallies"
    )
    op.execute("DELETE FROM tallies")
    op.execute(
        f"INSERT INTO tallies ({_TALLY_COLUMNS}) SELECT {_TALLY_COLUMNS} "
        "FROM tallies_in_key_order ORDER BY question_id, value, shard"
    )


def upgrade():
    _add_survey_columns()
    _add_chosen_mechanism()
    _add_survey_flags_and_close_times()
    _create_released_tallies()
    if op.get_bind().dialect.name == "sqlite":
        # A rowid numbered a numeric question's reports in the order they first arrived.
        # Nothing references tallies, so dropping the old table cascades nowhere.
        _rebuild_tallies_on_sqlite(with_rowid=False)
    else:
        _tallies_in_key_order_on_postgresql()


def downgrade():
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_tallies_on_sqlite(with_rowid=True)
    op.drop_table("released_tallies")
    # SQLite (3.35+) drops a column in place; no table rebuild.
    op.drop_column("questions", "chosen_mechanism")
    op.drop_column("surveys", "expected_respondents")
    op.drop_column("surveys", "results_held")
    op.drop_column("surveys", "reopened")
    op.drop_column("surveys", "released_respondents")
    op.drop_column("surveys", "closed_at")
