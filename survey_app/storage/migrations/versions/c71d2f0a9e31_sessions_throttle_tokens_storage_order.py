"""server-side sessions, sign-in throttling, token expiry, submissions without arrival order

Revision ID: c71d2f0a9e31
Revises: b500ebf8be25
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c71d2f0a9e31"
down_revision = "b500ebf8be25"
branch_labels = None
depends_on = None

_SUBMISSION_COLUMNS = "submission_id, survey_id, submitted_on, answers"


def _create_analyst_sessions():
    op.create_table(
        "analyst_sessions",
        sa.Column("key_sha256", sa.String(length=64), nullable=False),
        sa.Column("analyst_id", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["analyst_id"],
            ["analysts.id"],
            name=op.f("fk_analyst_sessions_analyst_id_analysts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("key_sha256", name=op.f("pk_analyst_sessions")),
    )
    with op.batch_alter_table("analyst_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analyst_sessions_analyst_id"), ["analyst_id"], unique=False
        )


def _create_sign_in_attempts():
    op.create_table(
        "sign_in_attempts",
        sa.Column("bucket", sa.String(length=40), nullable=False),
        sa.Column("window", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", "window", name=op.f("pk_sign_in_attempts")),
    )


def _add_token_hint_and_expiry():
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("hint", sa.String(length=8), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.alter_column("hint", server_default=None)


def _submissions_without_rowid_on_sqlite():
    """Rebuild submissions without a rowid (which counts rows in the order they arrived),
    copying in submission_id order."""
    op.create_table(
        "submissions_by_id",
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("survey_id", sa.Integer(), nullable=False),
        sa.Column("submitted_on", sa.Date(), nullable=False),
        sa.Column("answers", sa.String(length=1000), nullable=False),
        sa.ForeignKeyConstraint(
            ["survey_id"],
            ["surveys.id"],
            name=op.f("fk_submissions_survey_id_surveys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("submission_id", name=op.f("pk_submissions")),
        sqlite_with_rowid=False,
    )
    op.execute(
        f"INSERT INTO submissions_by_id ({_SUBMISSION_COLUMNS}) "
        f"SELECT {_SUBMISSION_COLUMNS} FROM submissions ORDER BY submission_id"
    )
    op.drop_index("ix_submissions_survey_submission", table_name="submissions")
    op.drop_table("submissions")
    op.rename_table("submissions_by_id", "submissions")
    op.create_index(
        "ix_submissions_survey_submission", "submissions", ["survey_id", "submission_id"]
    )


def _submissions_in_id_order_on_postgresql():
    """PostgreSQL stores rows in the order they arrive; rewrite them in submission_id order,
    in one transaction (see survey_app.storage.reorder_submissions)."""
    op.execute(
        "CREATE TEMPORARY TABLE submissions_by_id ON COMMIT DROP AS "
        f"SELECT {_SUBMISSION_COLUMNS} FROM submissions"
    )
    op.execute("DELETE FROM submissions")
    op.execute(
        f"INSERT INTO submissions ({_SUBMISSION_COLUMNS}) "
        f"SELECT {_SUBMISSION_COLUMNS} FROM submissions_by_id ORDER BY submission_id"
    )


def upgrade():
    _create_analyst_sessions()
    _create_sign_in_attempts()
    _add_token_hint_and_expiry()
    if op.get_bind().dialect.name == "sqlite":
        _submissions_without_rowid_on_sqlite()
    else:
        _submissions_in_id_order_on_postgresql()


def downgrade():
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
        batch_op.drop_column("hint")
    op.drop_table("sign_in_attempts")
    with op.batch_alter_table("analyst_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analyst_sessions_analyst_id"))
    op.drop_table("analyst_sessions")
