"""lti_instructor_links: an instructor's platform account linked to an analyst account (LTI 1.3)

Revision ID: a3c8e5f1d7b4
Revises: a3d7e5c9f1b2
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a3c8e5f1d7b4"
down_revision = "a3d7e5c9f1b2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "lti_instructor_links",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("sub_digest", sa.String(length=64), nullable=False),
        sa.Column("analyst_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["analyst_id"], ["analysts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "sub_digest"),
    )
    op.create_index("ix_lti_instructor_links_analyst_id", "lti_instructor_links", ["analyst_id"])


def downgrade():
    op.drop_index("ix_lti_instructor_links_analyst_id", table_name="lti_instructor_links")
    op.drop_table("lti_instructor_links")
