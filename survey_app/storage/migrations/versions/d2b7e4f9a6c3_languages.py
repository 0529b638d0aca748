"""surveys and analysts: the language a survey's students see, and a professor's pages

Revision ID: d2b7e4f9a6c3
Revises: c9e4a7b2d5f1
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "d2b7e4f9a6c3"
down_revision = "c9e4a7b2d5f1"
branch_labels = None
depends_on = None


def upgrade():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds surveys, and dropping
    # the old table deletes (by cascade) every question and submission.
    op.add_column("surveys", sa.Column("language", sa.String(length=16), nullable=True))
    op.add_column("analysts", sa.Column("language", sa.String(length=16), nullable=True))


def downgrade():
    # SQLite (3.35+) drops a column in place; no table rebuild.
    op.drop_column("analysts", "language")
    op.drop_column("surveys", "language")
