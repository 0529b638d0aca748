"""numeric questions: bounds, unit and mechanism of a question

Revision ID: f3c6d2a8e4b9
Revises: e5f2a9c3b1d7
Create Date: 2026-12-14

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "f3c6d2a8e4b9"
down_revision = "e5f2a9c3b1d7"
branch_labels = None
depends_on = None

COLUMNS = (
    ("minimum", sa.Float()),
    ("maximum", sa.Float()),
    ("unit", sa.String(length=40)),
    ("numeric_mechanism", sa.String(length=10)),
)


def upgrade():
    # Plain add_column, never batch mode: on SQLite batch mode rebuilds the table, and dropping
    # the old one deletes (by cascade) every tally of its questions. "numeric" needs no change
    # to questions.kind: the enumeration is stored as text, without a check constraint.
    for name, column_type in COLUMNS:
        op.add_column("questions", sa.Column(name, column_type, nullable=True))


def downgrade():
    # SQLite (3.35+) drops a column in place; no table rebuild.
    for name, _ in reversed(COLUMNS):
        op.drop_column("questions", name)
