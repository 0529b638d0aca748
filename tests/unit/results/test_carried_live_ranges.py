"""A live range never gives back what an earlier release proved (issue 27, row 5).

Each release keeps what its live ranges proved, in people (storage.models.CarriedLiveRange), at
each confidence the dashboard offers, and the next look carries it forward on counts
(privacy.live.carry_forward): a count's lower end never falls, its upper end rises by at most the
new answers. Closing, reopening and deleting keep or drop them as the releases are; pooled
results are each look's own. Runs on SQLite, and on PostgreSQL in the second pass of CI.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from survey_app.extensions import db
from survey_app.privacy.live import live_share_interval
from survey_app.results.releases import CARRIED_CONFIDENCES
from survey_app.results.tables import CONFIDENCE_LEVELS
from survey_app.storage.models import CarriedLiveRange
from survey_app.surveys.services import delete_survey, find_survey, open_survey
from tests.unit.results.test_releases import close_survey_now
from tests.unit.results.test_results_api import bearer, new_token, submit

#: Ten answering "no" to both, then five answering "yes" and "Once" (reports as sent): with the
#: five, today's own live range for "yes" reaches 0 to 13 people of 15, though the first look
#: proved at most 3 of the first 10, so at most 8 of 15.
NO_THEN_YES = [(0, 0)] * 10 + [(1, 1)] * 5


@pytest.fixture
def token(app, analyst) -> str:
    return new_token(app, analyst)


def results(client, token: str, slug: str, confidence: float | None = None) -> dict:
    query = "" if confidence is None else f"?confidence={confidence}"
    return client.get(f"/api/v1/surveys/{slug}/results{query}", headers=bearer(token)).get_json()


def people(document: dict) -> list[list[tuple[int, int, int]]]:
    """Each question's options' live ranges in people: (n, low, high)."""
    return [
        [
            (
                question["n"],
                round(option["live_ci_low"] * question["n"]),
                round(option["live_ci_high"] * question["n"]),
            )
            for option in question["options"]
        ]
        for question in document["questions"]
    ]


def assert_never_gives_back(before: dict, after: dict) -> None:
    for earlier, later in zip(people(before), people(after), strict=True):
        for (n_before, low_before, high_before), (n, low, high) in zip(earlier, later, strict=True):
            assert low >= low_before and high <= high_before + (n - n_before)


def test_the_dashboards_levels_are_the_ones_carried():
    assert CARRIED_CONFIDENCES == CONFIDENCE_LEVELS


def test_a_later_release_never_gives_back_what_an_earlier_one_proved(app, client, token, survey):
    slug, _ = survey
    submit(app, slug, NO_THEN_YES[:10])
    first = results(client, token, slug)
    assert first["respondents"] == 10
    assert people(first)[0][1] == (10, 0, 3)
    submit(app, slug, NO_THEN_YES[10:])
    second = results(client, token, slug)
    assert second["respondents"] == 15
    # The control: the look's own live range would give back 5 of what was proved.
    keep = 0.75
    own = live_share_interval(5, 15, keep, 1.0 - keep)
    assert round(own[1] * 15) == 13
    assert people(second)[0][1] == (15, 0, 8)
    assert_never_gives_back(first, second)


@pytest.mark.parametrize("confidence", CONFIDENCE_LEVELS)
def test_each_level_the_dashboard_offers_is_carried(app, client, token, survey, confidence):
    slug, _ = survey
    submit(app, slug, NO_THEN_YES[:10])
    first = results(client, token, slug, confidence)
    submit(app, slug, NO_THEN_YES[10:])
    assert_never_gives_back(first, results(client, token, slug, confidence))


def test_a_release_keeps_each_options_range_in_people_at_each_level(app, client, token, survey):
    slug, question_ids = survey
    submit(app, slug, NO_THEN_YES[:10])
    document = results(client, token, slug)
    with app.app_context():
        rows = db.session.execute(select(CarriedLiveRange)).scalars().all()
        kept = {(row.question_id, row.confidence, row.value): row for row in rows}
    assert len(kept) == len(CARRIED_CONFIDENCES) * (2 + 3)
    for question, ranges in zip(document["questions"], people(document), strict=True):
        for value, (n, low, high) in enumerate(ranges):
            row = kept[question["id"], 0.95, value]
            assert (row.respondents, row.low, row.high) == (n, low, high)
    assert {question_id for question_id, _, _ in kept} == set(question_ids)


def test_closing_carries_the_last_release_into_every_answer(app, client, token, survey):
    slug, _ = survey
    submit(app, slug, NO_THEN_YES[:10])
    released = results(client, token, slug)
    submit(app, slug, NO_THEN_YES[10:14])  # fewer than a batch: no release
    close_survey_now(app, slug)
    closed = results(client, token, slug)
    assert closed["respondents"] == 14
    assert_never_gives_back(released, closed)
    assert people(closed)[0][1][2] <= 3 + 4


def test_reopening_keeps_what_the_closed_results_proved(app, client, token, survey):
    slug, _ = survey
    submit(app, slug, NO_THEN_YES[:10])
    results(client, token, slug)
    submit(app, slug, NO_THEN_YES[10:14])
    close_survey_now(app, slug)
    closed = results(client, token, slug)
    with app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()
    submit(app, slug, NO_THEN_YES[14:15] + [(1, 1)] * 4)
    reopened = results(client, token, slug)
    assert reopened["respondents"] == 19
    assert_never_gives_back(closed, reopened)


def test_pooled_live_ranges_are_each_looks_own(app, client, token, make_survey):
    """Each survey's carried range holds at the confidence asked; their sum would not."""
    (slug, _), (other, _) = make_survey(), make_survey()
    for each in (slug, other):
        submit(app, each, NO_THEN_YES[:10])
        results(client, token, each)
        submit(app, each, NO_THEN_YES[10:])
    pooled = client.get(f"/api/v1/results?surveys={slug},{other}", headers=bearer(token)).get_json()
    keep = 0.75
    own = live_share_interval(10, 30, keep, 1.0 - keep)
    yes = pooled["questions"][0]["options"][1]
    assert (yes["live_ci_low"], yes["live_ci_high"]) == own


def test_deleting_a_survey_deletes_what_its_ranges_proved(app, client, token, survey):
    slug, _ = survey
    submit(app, slug, NO_THEN_YES[:10])
    results(client, token, slug)
    with app.app_context():
        delete_survey(find_survey(slug))
        db.session.commit()
        assert db.session.execute(select(CarriedLiveRange)).first() is None


def test_a_number_questions_average_is_carried_on_its_sum(app, client, token, make_survey):
    """The running sum of true hours, each 0 to 40, grows by 0 to 40 an answer."""
    from tests.numeric_helpers import HOURS, submit_numbers

    slug, (number_id, yes_no_id) = make_survey(HOURS)
    submit_numbers(client, slug, number_id, yes_no_id, [0.0] * 10, seed=3)
    first = results(client, token, slug)
    submit_numbers(client, slug, number_id, yes_no_id, [40.0] * 5, seed=4)
    second = results(client, token, slug)
    sums = []
    for document in (first, second):
        average = document["questions"][0]
        n = average["n"]
        sums.append((n, n * average["live_ci_low"], n * average["live_ci_high"]))
    (n_before, low_before, high_before), (n, low, high) = sums
    assert (n_before, n) == (10, 15)
    assert low >= low_before - 1e-9 and high <= high_before + 40.0 * (n - n_before) + 1e-9
