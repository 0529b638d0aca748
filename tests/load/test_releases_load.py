"""Releases under load: an owner polling the results while a class submits to four workers.

Every release the owner sees holds whole submissions (each question's counts add up to it) and
comes at least a batch after the one before, whichever worker made it; no submission is lost or
counted twice; closing shows every one of them.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter

from loadkit import ANALYST_EMAIL, new_id, recount, statuses, submit_all

SUBMISSIONS = 1000
BATCH = 5


def poll_results(server, slug: str, token: str, done: threading.Event, seen: list) -> None:
    """Read the results as the owner's API client does, until ``done``."""
    headers = {"Authorization": f"Bearer {token}"}
    while not done.is_set():
        status, _, body = server.request("GET", f"/api/v1/surveys/{slug}/results", None, headers)
        seen.append((status, json.loads(body) if status == 200 else body))


def test_an_owner_polling_under_load_sees_only_releases_of_a_batch(deployment, start_server):
    server = start_server(deployment, workers=4)
    survey = deployment.survey
    token = deployment.cli("create-token", ANALYST_EMAIL).strip().splitlines()[-1]
    rng = random.Random(20261125)
    sent = {new_id(): survey.random_values(rng) for _ in range(SUBMISSIONS)}
    seen: list = []
    done = threading.Event()
    readers = [
        threading.Thread(target=poll_results, args=(server, survey.slug, token, done, seen))
        for _ in range(2)
    ]
    for reader in readers:
        reader.start()
    try:
        results = submit_all(server, survey, sent, threads=14)
    finally:
        done.set()
        for reader in readers:
            reader.join()

    assert statuses(results) == Counter({201: SUBMISSIONS}), statuses(results)
    assert {status for status, _ in seen} == {200}, [
        body for status, body in seen if status != 200
    ][:3]
    releases = sorted({document["respondents"] for _, document in seen})
    assert len(releases) >= 5, releases  # the owner did watch the results change
    gaps = [later - earlier for earlier, later in zip(releases, releases[1:], strict=False)]
    assert min(gaps) >= BATCH, releases
    for _, document in seen:
        assert document["respondents"] <= document["answered"]
        for question in document["questions"]:
            assert sum(option["noisy_count"] for option in question["options"]) == question["n"]
            assert question["n"] == document["respondents"]

    deployment.cli("close-survey", survey.slug)
    headers = {"Authorization": f"Bearer {token}"}
    status, _, body = server.request("GET", f"/api/v1/surveys/{survey.slug}/results", None, headers)
    closed = json.loads(body)
    assert status == 200 and closed["respondents"] == closed["answered"] == SUBMISSIONS
    server.stop()
    stored = deployment.assert_consistent()
    assert stored == {sid: survey.encode(values) for sid, values in sent.items()}
    assert deployment.tallies() == recount(survey, map(survey.encode, sent.values()))
