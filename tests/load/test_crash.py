"""SIGKILL gunicorn workers while 16 threads submit: no acknowledged submission is lost.

gunicorn starts a new worker. A request the killed worker was handling fails on the client's
side with a connection error; it may or may not have been stored, so the client sends it again
with the same id, and it is then counted exactly once.
"""

from __future__ import annotations

import http.client
import os
import random
import signal
import threading
import time

import pytest
from loadkit import BATCH_TIMEOUT, AtomicCounter, address_lines, new_id, run_parallel

SUBMISSIONS = 1000
THREADS = 16
KILL_AFTER = (200, 400, 600)  # a worker dies when this many submissions were acknowledged


def test_killing_workers_under_load_loses_no_acknowledged_submission(deployment, start_server):
    server = start_server(deployment, workers=4)
    survey = deployment.survey
    rng = random.Random(99)
    sent = {new_id(): survey.random_values(rng) for _ in range(SUBMISSIONS)}
    acknowledged = AtomicCounter()
    outcomes: dict[str, object] = {}
    lock = threading.Lock()

    def submit(submission_id, values):
        try:
            status, body = server.submit(survey, submission_id, values)
        except (OSError, http.client.HTTPException) as error:
            outcome = error  # the connection died with the worker
        else:
            outcome = (status, body)
            if 200 <= status < 300:
                acknowledged.add()
        with lock:
            outcomes[submission_id] = outcome

    load: list = []
    load_thread = threading.Thread(
        target=lambda: load.append(
            run_parallel([lambda s=s, v=v: submit(s, v) for s, v in sent.items()], threads=THREADS)
        )
    )
    load_thread.start()
    deadline = time.monotonic() + BATCH_TIMEOUT
    victims = []
    for threshold in KILL_AFTER:
        while acknowledged.value < threshold:
            if time.monotonic() > deadline or not load_thread.is_alive():
                pytest.fail(f"the load stopped before {threshold} acknowledgements")
            time.sleep(0.01)
        # One worker at a time, each kill after its predecessor was replaced.
        victim = min(server.wait_for_workers(exclude=set(victims)))
        os.kill(victim, signal.SIGKILL)
        victims.append(victim)
    acknowledged_at_last_kill = acknowledged.value
    load_thread.join(timeout=BATCH_TIMEOUT)
    assert load, "the load did not finish"
    # The load went on after the kills, and gunicorn replaced the workers.
    assert acknowledged_at_last_kill < SUBMISSIONS, "the last kill came after the load"
    replacements = server.wait_for_workers(exclude=set(victims))
    assert len(replacements) == 4

    failed = {s: o for s, o in outcomes.items() if not isinstance(o, tuple)}
    replies = {s: o for s, o in outcomes.items() if isinstance(o, tuple)}
    assert len(outcomes) == SUBMISSIONS
    assert all(status == 201 for status, _ in replies.values()), {
        s: o for s, o in replies.items() if o[0] != 201
    }

    # Every acknowledged submission is stored, with its answers.
    stored = deployment.assert_consistent()
    for submission_id in replies:
        assert stored.get(submission_id) == survey.encode(sent[submission_id])
    # A failed one is stored or not: never anything else, never twice.
    assert set(stored) <= set(sent)
    maybe = {s: stored.get(s) for s in failed}
    assert all(v is None or v == survey.encode(sent[s]) for s, v in maybe.items())

    # Sent again with the same id, each failed one is then counted exactly once.
    retried = run_parallel(
        [lambda s=s: server.submit(survey, s, sent[s]) for s in failed], threads=4
    )
    for submission_id, (status, body) in zip(failed, retried, strict=True):
        assert status == (200 if maybe[submission_id] else 201), (submission_id, status)
        assert body == {"submission_id": submission_id, "status": "recorded"}
    log = server.stop()

    stored = deployment.assert_consistent()
    assert stored == {s: survey.encode(v) for s, v in sent.items()}
    assert deployment.respondents() == SUBMISSIONS
    for victim in victims:
        assert f"Worker (pid:{victim}) was sent SIGKILL" in log
    assert "database is locked" not in log.lower()
    assert address_lines(log) == []
    if deployment.is_sqlite:
        assert deployment.sqlite_integrity() == ["ok"]
