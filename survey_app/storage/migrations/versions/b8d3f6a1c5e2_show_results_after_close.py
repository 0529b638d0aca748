"""surveys: show the class's results to respondents after the survey closes (off by default)

Revision ID: b8d3f6a1c5e2
Revises: a7c2e9d4f1b3
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "b8d3f6a1c5e2"
down_revision = "a7c2e9d4f1b3"
branch_labels = None
depends_on = None


def upgrade():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds surveys, and dropping
    # the old table deletes (by cascade) every question and submission.
    op.add_column(
        "surveys",
        sa.Column(
            "show_results_after_close", sa.Boolean(), nullable=False, server_default=sa.false()
        ),
    )


def downgrade():
    # SQLite (3.35+) drops a column in place; no table rebuild.
    op.drop_column("surveys", "show_results_after_close")
