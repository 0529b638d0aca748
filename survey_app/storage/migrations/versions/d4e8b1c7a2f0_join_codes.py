"""join codes

Revision ID: d4e8b1c7a2f0
Revises: c71d2f0a9e31
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "d4e8b1c7a2f0"
down_revision = "c71d2f0a9e31"
branch_labels = None
depends_on = None


def upgrade():
    # Not batch mode: on SQLite it would rebuild surveys, and dropping the old table deletes
    # (by cascade) every question and submission. A new nullable column and an index need no
    # rebuild on either database.
    op.add_column("surveys", sa.Column("join_code", sa.String(length=8), nullable=True))
    op.create_index("ix_surveys_join_code", "surveys", ["join_code"], unique=True)


def downgrade():
    op.drop_index("ix_surveys_join_code", table_name="surveys")
    op.drop_column("surveys", "join_code")
