"""Every submission sent twice, many at the same moment: each is counted once.

Lanes of two threads share a Barrier, so both copies of a submission leave together and race
through different workers; other copies are sent again right away, or much later. A retry
answers 200 with the body of the first reply; the same submission_id with other answers (even
at the same moment as the first) answers 409 and changes nothing.
"""

from __future__ import annotations

import json
import random
import threading
import uuid
from contextlib import contextmanager

from loadkit import BATCH_TIMEOUT, LOAD_SURVEY, address_lines, new_id, run_parallel
from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.respondents import submissions
from survey_app.storage.models import Submission, Survey

LANES = 8  # two threads each
SIMULTANEOUS_PER_LANE = 25  # same body, both threads at once
CONFLICTS_PER_LANE = 5  # same id, other answers, both threads at once
LATER = 100  # sent once now, again after everything else
BACK_TO_BACK = 50  # the same thread sends it twice in a row
CONFLICTS_LATER = 30  # accepted now, then sent with other answers


def other_values(values: tuple[int, ...]) -> tuple[int, ...]:
    """The same answers but for the first question's, which flips."""
    return (1 - values[0], *values[1:])


def run_lanes(server, survey, jobs_per_lane):
    """Each lane's two threads send their pair of bodies together, job after job."""
    replies: dict[str, list] = {}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def lane_thread(barrier, jobs, side):
        try:
            for submission_id, pair in jobs:
                barrier.wait(timeout=BATCH_TIMEOUT)
                reply = server.submit(survey, submission_id, pair[side])
                with lock:
                    replies.setdefault(submission_id, []).append((pair[side], reply))
        except BaseException as error:  # reported by the test, not lost in the thread
            barrier.abort()
            with lock:
                errors.append(error)

    threads = []
    for jobs in jobs_per_lane:
        barrier = threading.Barrier(2)
        threads += [
            threading.Thread(target=lane_thread, args=(barrier, jobs, side)) for side in (0, 1)
        ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=BATCH_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a lane did not finish in time"
    assert not errors, errors
    return replies


def test_each_submission_sent_twice_is_counted_once(deployment, start_server):
    other_survey = deployment.create_survey(LOAD_SURVEY | {"title": "Another survey"})
    server = start_server(deployment, workers=4)
    survey = deployment.survey
    rng = random.Random(7)
    expected: dict[str, tuple[int, ...]] = {}  # what must be stored, by id

    # 1. Lanes: duplicates and conflicts, both copies at the same moment.
    jobs_per_lane = []
    conflict_ids = set()
    for _ in range(LANES):
        jobs = []
        for _ in range(SIMULTANEOUS_PER_LANE):
            values = survey.random_values(rng)
            jobs.append((new_id(), (values, values)))
        for _ in range(CONFLICTS_PER_LANE):
            values = survey.random_values(rng)
            submission_id = new_id()
            conflict_ids.add(submission_id)
            jobs.append((submission_id, (values, other_values(values))))
        rng.shuffle(jobs)
        jobs_per_lane.append(jobs)

    # 2. Meanwhile, on other threads: first copies of the later ones, and back-to-back pairs.
    later = {new_id(): survey.random_values(rng) for _ in range(LATER)}
    back_to_back = {new_id(): survey.random_values(rng) for _ in range(BACK_TO_BACK)}
    conflicts_later = {new_id(): survey.random_values(rng) for _ in range(CONFLICTS_LATER)}
    first_copies = later | conflicts_later

    def twice(submission_id, values):
        return [server.submit(survey, submission_id, values) for _ in range(2)]

    background: list = []
    background_thread = threading.Thread(
        target=lambda: background.append(
            run_parallel(
                [lambda s=s, v=v: server.submit(survey, s, v) for s, v in first_copies.items()]
                + [lambda s=s, v=v: twice(s, v) for s, v in back_to_back.items()],
                threads=6,
            )
        )
    )
    background_thread.start()
    lane_replies = run_lanes(server, survey, jobs_per_lane)
    background_thread.join(timeout=BATCH_TIMEOUT)
    assert background, "the background submissions did not finish"
    first_results = background[0][: len(first_copies)]
    back_to_back_results = background[0][len(first_copies) :]

    # 3. Much later: the second copies, a same-id-other-answers for each conflict, and a
    # retry of an id of this survey sent to another survey.
    stolen_id = next(iter(later))
    second_results = run_parallel(
        [lambda s=s, v=v: server.submit(survey, s, v) for s, v in later.items()]
        + [
            lambda s=s, v=v: server.submit(survey, s, other_values(v))
            for s, v in conflicts_later.items()
        ]
        + [lambda: server.submit(other_survey, stolen_id, later[stolen_id])],
        threads=8,
    )
    log = server.stop()

    # ---- replies
    recorded = {"status": "recorded"}
    for submission_id, replies in lane_replies.items():
        assert len(replies) == 2
        codes = sorted(status for _, (status, _) in replies)
        if submission_id in conflict_ids:
            assert codes == [201, 409], (submission_id, replies)
            (winner,) = [values for values, (status, _) in replies if status == 201]
            (loser,) = [body for _, (status, body) in replies if status == 409]
            assert isinstance(loser.get("error"), str) and loser["error"]
            expected[submission_id] = winner
        else:
            assert codes == [200, 201], (submission_id, replies)
            bodies = [body for _, (_, body) in replies]
            assert bodies[0] == bodies[1] == {"submission_id": submission_id} | recorded
            expected[submission_id] = replies[0][0]

    for (submission_id, values), reply in zip(first_copies.items(), first_results, strict=True):
        assert reply == (201, {"submission_id": submission_id} | recorded)
        expected[submission_id] = values
    for (submission_id, values), replies in zip(
        back_to_back.items(), back_to_back_results, strict=True
    ):
        body = {"submission_id": submission_id} | recorded
        assert replies == [(201, body), (200, body)]
        expected[submission_id] = values
    later_replies = second_results[:LATER]
    for submission_id, reply in zip(later, later_replies, strict=True):
        assert reply == (200, {"submission_id": submission_id} | recorded)
    for status, body in second_results[LATER:]:
        assert status == 409 and isinstance(body.get("error"), str) and body["error"]

    assert "database is locked" not in log.lower()
    assert "Traceback" not in log
    assert address_lines(log) == []

    # ---- storage: each accepted id once, with the answers of its first acceptance
    stored = deployment.assert_consistent()
    assert stored == {sid: survey.encode(values) for sid, values in expected.items()}
    assert deployment.respondents() == len(expected)
    assert deployment.assert_consistent(other_survey) == {}
    assert deployment.respondents(other_survey) == 0
    if deployment.is_sqlite:
        assert deployment.sqlite_integrity() == ["ok"]


def test_twin_committed_after_the_survey_was_read_is_a_retry(app, survey, monkeypatch):
    """The race above, made deterministic (in process, no server).

    A worker's first submission to a survey reads it (the mechanism cache is empty) in the
    session's transaction; on SQLite that transaction keeps its snapshot. When an identical
    twin is committed by another worker after that read and before this insert, the insert
    fails on the key and the check behind it must see the twin's row: 200, not 409.
    """
    slug, (yes_no, choice) = survey
    url = f"/api/v1/surveys/{slug}/responses"
    body = json.dumps({"submission_id": str(uuid.uuid4()), "answers": {yes_no: 1, choice: 2}})
    submissions._shapes.clear()  # as in a fresh worker: the survey is read from the database
    twin: dict[str, int] = {}

    def post_twin():
        response = app.test_client().post(url, data=body, content_type="application/json")
        twin["status"] = response.status_code

    def twin_first():
        if "started" not in twin:
            twin["started"] = 1
            thread = threading.Thread(target=post_twin)
            thread.start()
            thread.join(timeout=BATCH_TIMEOUT)

    def twin_commits_first(real_connection):
        @contextmanager
        def connection_after_the_twin():
            twin_first()
            with real_connection() as connection:
                yield connection

        return connection_after_the_twin

    def twin_runs_first(real_run):
        def run_after_the_twin(statement, row):
            twin_first()
            return real_run(statement, row)

        return run_after_the_twin

    # The connection a submission is written on: a transaction (SQLite), autocommit (PostgreSQL).
    write_transaction = twin_commits_first(submissions.write_transaction)
    monkeypatch.setattr(submissions, "write_transaction", write_transaction)
    run_on_kept_connection = twin_runs_first(submissions.run_on_kept_connection)
    monkeypatch.setattr(submissions, "run_on_kept_connection", run_on_kept_connection)
    response = app.test_client().post(url, data=body, content_type="application/json")

    assert twin.get("status") == 201
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"submission_id": json.loads(body)["submission_id"]} | {
        "status": "recorded"
    }
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(Submission)).scalar() == 1
        respondents = select(Survey.respondents).where(Survey.slug == slug)
        assert db.session.execute(respondents).scalar_one() == 1
