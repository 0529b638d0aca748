"""Thousands of submissions from many threads to several gunicorn workers.

Every accepted submission is stored once, with the answers sent; no 5xx; no "database is
locked"; the tallies equal the counts recomputed from the stored rows.
"""

from __future__ import annotations

import random
import threading
from collections import Counter

from loadkit import address_lines, new_id, recount, statuses, submit_all

SUBMISSIONS = 2000
THREADS = 16


def test_thousands_of_concurrent_submissions_are_each_stored_once(deployment, start_server):
    server = start_server(deployment, workers=4)
    survey = deployment.survey
    rng = random.Random(20240501)
    sent = {new_id(): survey.random_values(rng) for _ in range(SUBMISSIONS)}

    results = submit_all(server, survey, sent, threads=THREADS)
    log = server.stop()

    assert statuses(results) == Counter({201: SUBMISSIONS}), statuses(results)
    for (submission_id, _), (_, reply) in zip(sent.items(), results, strict=True):
        assert reply == {"submission_id": submission_id, "status": "recorded"}
    assert "database is locked" not in log.lower()
    assert "Traceback" not in log
    assert address_lines(log) == []

    stored = deployment.assert_consistent()
    assert len(stored) == SUBMISSIONS
    assert deployment.respondents() == SUBMISSIONS
    # Each row holds exactly the answers its request sent, in question order.
    assert stored == {sid: survey.encode(values) for sid, values in sent.items()}
    # And the tallies are what the client side expects from what it sent.
    assert deployment.tallies() == recount(survey, map(survey.encode, sent.values()))
    if deployment.is_sqlite:
        assert deployment.sqlite_integrity() == ["ok"]


def test_forgetting_the_arrival_order_while_a_class_submits_loses_nothing(deployment, start_server):
    """forget-arrival-order rewrites the counts, submissions and codes of open surveys while
    submissions keep coming: each still counts once, into the rewritten rows."""
    server = start_server(deployment, workers=4)
    survey = deployment.survey
    rng = random.Random(20261126)
    sent: dict[str, tuple] = {}
    results: list = []
    done = threading.Event()
    rewrites = []

    def rewrite() -> None:
        while not done.is_set():
            rewrites.append(deployment.cli("forget-arrival-order"))

    rewriter = threading.Thread(target=rewrite)
    rewriter.start()
    try:
        # Batches keep coming until several rewrites have run among them (bounded).
        while len(rewrites) < 2 and len(sent) < 6000:
            batch = {new_id(): survey.random_values(rng) for _ in range(200)}
            results += submit_all(server, survey, batch, threads=THREADS)
            sent |= batch
    finally:
        done.set()
        rewriter.join()
    log = server.stop()

    assert len(rewrites) >= 2  # whole rewrites did run among the submissions
    assert statuses(results) == Counter({201: len(sent)}), statuses(results)
    assert "Traceback" not in log
    stored = deployment.assert_consistent()
    assert stored == {sid: survey.encode(values) for sid, values in sent.items()}
    assert deployment.tallies() == recount(survey, map(survey.encode, sent.values()))
