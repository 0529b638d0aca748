"""uncounted_submissions: submissions stored but not yet added to the tallies (PostgreSQL)

Revision ID: b8e4d2f6a9c1
Revises: a3c8e5f1d7b4
Create Date: 2026-11-28

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "b8e4d2f6a9c1"
down_revision = "a3c8e5f1d7b4"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "uncounted_submissions",
        sa.Column("survey_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["survey_id"],
            ["surveys.id"],
            name=op.f("fk_uncounted_submissions_survey_id_surveys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "survey_id", "submission_id", name=op.f("pk_uncounted_submissions")
        ),
        sqlite_with_rowid=False,
    )


def downgrade():
    op.drop_table("uncounted_submissions")
