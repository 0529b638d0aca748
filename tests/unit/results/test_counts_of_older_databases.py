"""A database from before counts were kept in one row a value (2026-11-28) holds them spread
over 8 shards: a choice's values have a row in each, a numeric report a row in the shard it first
arrived in. Wherever counts are read they are summed over the shards, submissions after the
upgrade add to them (shard 0, made where missing), and closing keeps the sums.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select, text

from survey_app.extensions import db
from survey_app.results.releases import live_counts
from survey_app.storage.models import Submission, Survey, split_answers
from survey_app.surveys.services import close_survey, find_survey
from tests.numeric_helpers import HOURS, submit_numbers

OLD_SHARDS = 8


def spread_as_an_older_database(app, slug: str) -> None:
    """Move each count to another shard, and give every choice value its 8 rows, as an older
    database has them; a numeric report keeps a row only in the shard it moved to."""
    with app.app_context():
        survey = find_survey(slug)
        live_counts(survey)  # PostgreSQL: what waits is counted into shard 0 first
        number, choice = (question.id for question in survey.questions)
        db.session.execute(
            text("UPDATE tallies SET shard = 1 + value % 7 WHERE question_id IN (:a, :b)"),
            {"a": number, "b": choice},
        )
        for value in (0, 1):
            for shard in range(OLD_SHARDS):
                db.session.execute(
                    text(
                        "INSERT INTO tallies (question_id, value, shard, noisy_count) "
                        "SELECT :q, :v, :s, 0 WHERE NOT EXISTS (SELECT 1 FROM tallies "
                        "WHERE question_id = :q AND value = :v AND shard = :s)"
                    ),
                    {"q": choice, "v": value, "s": shard},
                )
        db.session.commit()


def counted(app, slug: str) -> tuple[list[dict[int, int]], int]:
    """Each question's counts as the app reads them (zeros left out), and who answered."""
    with app.app_context():
        survey = find_survey(slug)
        counts = live_counts(survey)
        db.session.commit()
        respondents = db.session.execute(
            select(Survey.respondents).where(Survey.id == survey.id)
        ).scalar_one()
        shown = [
            {value: n for value, n in (c.items() if isinstance(c, dict) else enumerate(c)) if n}
            for c in (counts[question.id] for question in survey.questions)
        ]
        return shown, respondents


def recounted(app, slug: str) -> list[dict[int, int]]:
    """Each question's counts recomputed from the stored submissions."""
    with app.app_context():
        survey = find_survey(slug)
        stored = db.session.execute(
            select(Submission.answers).where(Submission.survey_id == survey.id)
        ).scalars()
        columns = zip(*(split_answers(answers) for answers in stored), strict=True)
        return [dict(Counter(int(value) for value in column)) for column in columns]


def test_counts_spread_over_eight_shards_are_summed_with_the_new_ones(app, client, make_survey):
    slug, (number, choice) = make_survey(HOURS)
    submit_numbers(client, slug, number, choice, [3, 12, 12, 30, 8], seed=5)
    spread_as_an_older_database(app, slug)
    # The same reports again (same seed): each adds to a report whose row is in another shard.
    submit_numbers(client, slug, number, choice, [3, 12, 12, 30, 8], seed=5)
    submit_numbers(client, slug, number, choice, [0, 40, 20], seed=6)
    expected = recounted(app, slug)
    assert counted(app, slug) == (expected, 13)
    with app.app_context():
        close_survey(find_survey(slug))  # rewrites the counts in key order
        db.session.commit()
    assert counted(app, slug) == (expected, 13)
