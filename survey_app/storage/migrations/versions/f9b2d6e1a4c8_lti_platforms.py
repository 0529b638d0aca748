"""lti_platforms, lti_deployments, lti_logins: the platforms that launch the tool (LTI 1.3)

Revision ID: f9b2d6e1a4c8
Revises: e7a1c4d9b2f6
Create Date: 2026-11-27

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "f9b2d6e1a4c8"
down_revision = "e7a1c4d9b2f6"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=2000), nullable=False),
        sa.Column("client_id", sa.String(length=2000), nullable=False),
        sa.Column("auth_url", sa.String(length=2000), nullable=False),
        sa.Column("token_url", sa.String(length=2000), nullable=False),
        sa.Column("jwks_url", sa.String(length=2000), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=2000), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "deployment_id"),
    )
    op.create_table(
        "lti_logins",
        sa.Column("state_sha256", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("state_sha256"),
    )
    op.create_index("ix_lti_logins_expires_at", "lti_logins", ["expires_at"])


def downgrade():
    op.drop_index("ix_lti_logins_expires_at", table_name="lti_logins")
    op.drop_table("lti_logins")
    op.drop_table("lti_deployments")
    op.drop_table("lti_platforms")
