"""classroom: archived, projector setting, one-time codes

Revision ID: e5f2a9c3b1d7
Revises: d4e8b1c7a2f0
Create Date: 2026-11-24

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e5f2a9c3b1d7"
down_revision = "d4e8b1c7a2f0"
branch_labels = None
depends_on = None

FLAGS = ("archived", "hide_results_until_closed", "requires_codes")


def upgrade():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds surveys, and dropping
    # the old table deletes (by cascade) every question and submission.
    for flag in FLAGS:
        op.add_column(
            "surveys",
            sa.Column(flag, sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    op.create_table(
        "one_time_codes",
        sa.Column("survey_id", sa.Integer(), nullable=False),
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("used_on", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(["survey_id"], ["surveys.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("survey_id", "code_sha256"),
        sqlite_with_rowid=False,
    )


def downgrade():
    op.drop_table("one_time_codes")
    # SQLite (3.35+) drops a column in place; no table rebuild.
    for flag in reversed(FLAGS):
        op.drop_column("surveys", flag)
