"""carried_live_ranges: what each question's live range proved at its last release

Revision ID: c9e4a7b2d5f1
Revises: b8d3f6a1c5e2
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c9e4a7b2d5f1"
down_revision = "b8d3f6a1c5e2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "carried_live_ranges",
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("respondents", sa.Integer(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_carried_live_ranges_question_id_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "question_id", "confidence", "value", name=op.f("pk_carried_live_ranges")
        ),
    )


def downgrade():
    op.drop_table("carried_live_ranges")
