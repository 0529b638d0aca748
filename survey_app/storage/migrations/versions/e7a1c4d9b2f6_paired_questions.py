"""questions: a paired question's two questions, randomized together

Revision ID: e7a1c4d9b2f6
Revises: d2b7e4f9a6c3
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e7a1c4d9b2f6"
down_revision = "d2b7e4f9a6c3"
branch_labels = None
depends_on = None


def upgrade():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds questions, and dropping
    # the old table deletes (by cascade) every tally of them.
    op.add_column("questions", sa.Column("parts", sa.JSON(), nullable=True))


def downgrade():
    # SQLite (3.35+) drops a column in place; no table rebuild.
    op.drop_column("questions", "parts")
