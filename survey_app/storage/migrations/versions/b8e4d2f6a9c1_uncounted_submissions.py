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


#: The submissions still waiting, added to the tallies (shard 0) before their queue goes: the
#: revision before this one counts each submission as it stores it, and would never count them.
_COUNT_THE_WAITING = """
INSERT INTO tallies (question_id, value, shard, noisy_count)
SELECT answer.question_id, answer.value, 0, count(*)
FROM uncounted_submissions AS waiting
JOIN submissions USING (submission_id)
CROSS JOIN LATERAL unnest(
    ARRAY(SELECT id FROM questions WHERE questions.survey_id = waiting.survey_id
          ORDER BY position),
    string_to_array(submissions.answers, ',')::integer[]) AS answer (question_id, value)
GROUP BY answer.question_id, answer.value
ORDER BY answer.question_id, answer.value
ON CONFLICT (question_id, value, shard)
DO UPDATE SET noisy_count = tallies.noisy_count + excluded.noisy_count
"""


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_COUNT_THE_WAITING)
    op.drop_table("uncounted_submissions")
