"""lti_frame_origins: the origins whose pages may show the tool in a frame, by platform

Revision ID: a3d7e5c9f1b2
Revises: f9b2d6e1a4c8
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a3d7e5c9f1b2"
down_revision = "f9b2d6e1a4c8"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "lti_frame_origins",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("origin", sa.String(length=2000), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "origin"),
    )


def downgrade():
    op.drop_table("lti_frame_origins")
