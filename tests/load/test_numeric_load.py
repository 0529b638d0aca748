"""Numeric reports under load: many threads, several gunicorn workers, first arrivals racing.

A numeric question's tally rows are created as its reports first arrive (a report seen for the
first time), so concurrent first arrivals of the same report, on different workers,
must each be counted once: every accepted submission stored once, no 5xx, no "database is
locked", and the tallies equal the counts recomputed from the stored rows.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from loadkit import address_lines, new_id, statuses, submit_all

SUBMISSIONS = 1200
THREADS = 16

HOURS = {
    "title": "Study time under load",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Hours a week?", "type": "numeric", "min": 0, "max": 40, "unit": "hours"},
        {"text": "Used the forum?", "type": "yes_no"},
    ],
}


def test_concurrent_numeric_reports_are_each_stored_and_counted_once(deployment, start_server):
    survey = deployment.create_survey(HOURS)
    server = start_server(deployment, workers=4)
    status, _, body = server.request("GET", f"/api/v1/surveys/{survey.slug}")
    assert status == 200
    low, high = json.loads(body)["questions"][0]["report_range"]
    rng = random.Random(20261125)
    # Few distinct reports (a narrow band of the range), so that many submissions race to
    # create the same report's tally row on different workers.
    band = [rng.randint(low, high) for _ in range(12)]
    sent = {new_id(): (rng.choice(band), rng.randrange(2)) for _ in range(SUBMISSIONS)}

    results = submit_all(server, survey, sent, threads=THREADS)
    log = server.stop()

    assert statuses(results) == Counter({201: SUBMISSIONS}), statuses(results)
    assert "database is locked" not in log.lower()
    assert "Traceback" not in log
    assert address_lines(log) == []
    stored = deployment.stored(survey)
    assert stored == {sid: survey.encode(values) for sid, values in sent.items()}
    assert deployment.respondents(survey) == SUBMISSIONS
    # The tallies, rows of zero left aside, are the counts of what was sent.
    expected = Counter()
    for values in sent.values():
        for question_id, value in zip(survey.question_ids, values, strict=True):
            expected[(question_id, value)] += 1
    counted = {key: n for key, n in deployment.tallies(survey).items() if n}
    assert counted == dict(expected)
    if deployment.is_sqlite:
        assert deployment.sqlite_integrity() == ["ok"]
