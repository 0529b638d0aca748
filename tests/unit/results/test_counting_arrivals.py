"""Counting arrivals: the counts stay exact while submissions and readers of the counts run at once.

On PostgreSQL a submission only inserts (its row, and its place among those not yet counted);
whoever reads the counts adds those first (database.count_arrivals). Here senders and readers
run together in threads: every read holds whole submissions and never goes back, and in the end
the tallies are exactly the counts of what was sent, with nothing left waiting. On SQLite (each
submission counted as it is stored) the same must hold.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter

from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.results.releases import live_counts, shown_counts
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Question, Survey, Tally, UncountedSubmission
from survey_app.surveys.services import find_survey
from tests.numeric_helpers import HOURS

SENDERS = 6
EACH = 30
READERS = 3


def run_together(senders, readers) -> list[BaseException]:
    """Run the senders and, until they are done, the readers in a loop; the errors raised."""
    errors: list[BaseException] = []
    sending = threading.Event()
    sending.set()

    def guarded(work, *args):
        try:
            work(*args)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    def loop(read):
        while sending.is_set():
            read()

    send_threads = [threading.Thread(target=guarded, args=(send,)) for send in senders]
    read_threads = [threading.Thread(target=guarded, args=(loop, read)) for read in readers]
    for thread in send_threads + read_threads:
        thread.start()
    for thread in send_threads:
        thread.join()
    sending.clear()
    for thread in read_threads:
        thread.join()
    return errors


def test_concurrent_submissions_and_reads_count_each_submission_once(app, make_survey):
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    sent: list[tuple[int, int]] = []  # list.append is atomic under the GIL
    seen: list[list[int]] = [[] for _ in range(READERS)]

    def send(worker: int) -> None:
        for index in range(EACH):
            report, yes_no = 100 + (index * 7 + worker) % 6, (index + worker) % 2
            with app.app_context():
                payload = {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(number_id): report, str(yes_no_id): yes_no},
                }
                assert record_submission(slug, payload)[1]
            sent.append((report, yes_no))

    def read(reader: int) -> None:
        with app.app_context():
            survey = find_survey(slug)
            if reader == 0:
                counts = live_counts(survey)  # counts the queued ones, then reads
                numbers, yes_nos = sum(counts[number_id].values()), sum(counts[yes_no_id])
                assert numbers == yes_nos, counts  # whole submissions, never half of one
                seen[reader].append(numbers)
            elif reader == 1:
                seen[reader].append(shown_counts(survey).answered)  # makes releases too
            else:
                count_arrivals(survey.id)
                db.session.commit()
                respondents = select(Survey.respondents).where(Survey.id == survey.id)
                seen[reader].append(db.session.execute(respondents).scalar_one())

    errors = run_together(
        [lambda worker=worker: send(worker) for worker in range(SENDERS)],
        [lambda reader=reader: read(reader) for reader in range(READERS)],
    )
    assert errors == []
    for counts_seen in seen:
        assert counts_seen == sorted(counts_seen), "a later read saw fewer submissions"
    with app.app_context():
        survey = find_survey(slug)
        counts = live_counts(survey)
        assert db.session.query(UncountedSubmission).count() == 0
        assert {value: n for value, n in counts[number_id].items() if n} == Counter(
            report for report, _ in sent
        )
        assert counts[yes_no_id] == [
            sum(1 for _, yes_no in sent if yes_no == value) for value in (0, 1)
        ]
        assert (
            db.session.execute(
                select(Survey.respondents).where(Survey.id == survey.id)
            ).scalar_one()
            == SENDERS * EACH
        )


def test_how_many_answered_counts_submissions_not_yet_added_to_the_tallies(app, make_survey):
    """Survey.respondents is live and exact without counting arrivals first: tallies plus
    those waiting (PostgreSQL), read in one snapshot; counting them changes nothing."""
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    with app.app_context():
        for index in range(7):
            answers = {str(number_id): 100 + index, str(yes_no_id): index % 2}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})
    with app.app_context():
        survey_id = find_survey(slug).id
        respondents = select(Survey.respondents).where(Survey.id == survey_id)
        waiting = db.session.query(UncountedSubmission).count()
        in_tallies = db.session.execute(
            select(func.coalesce(func.sum(Tally.noisy_count), 0))
            .join(Question, Question.id == Tally.question_id)
            .where(Question.survey_id == survey_id, Question.id == yes_no_id)
        ).scalar_one()
        assert waiting + in_tallies == 7
        if db.engine.dialect.name == "postgresql":
            assert waiting == 7  # no submission added to a tally: none waited on a count row
        assert db.session.execute(respondents).scalar_one() == 7
        count_arrivals(survey_id)
        db.session.commit()
        assert db.session.query(UncountedSubmission).count() == 0
        assert db.session.execute(respondents).scalar_one() == 7


def send_some(app, slug: str, question_ids: list[int], count: int) -> None:
    number_id, yes_no_id = question_ids
    for index in range(count):
        with app.app_context():
            answers = {str(number_id): 100 + index % 6, str(yes_no_id): index % 2}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})


def test_a_release_and_a_rewrite_at_once_both_finish_and_count_exactly(
    app, make_survey, monkeypatch
):
    """A release (its survey's row locked) that must count arrivals while a rewrite of the
    stored submissions (forget-arrival-order on an open survey) holds the queue waits for the
    rewrite; the rewritten rows, whose foreign keys check the survey's row, must not wait for
    the release in turn: PostgreSQL would end one of them as a deadlock. On PostgreSQL the two
    are made to meet so (the release counts once the rewrite holds the queue); on SQLite, where
    writers take turns, they simply run together."""
    from survey_app.results import releases
    from survey_app.storage import database

    slug, question_ids = make_survey(HOURS)
    send_some(app, slug, question_ids, 10)  # the first release is due at 10
    with app.app_context():
        on_postgresql = db.engine.dialect.name == "postgresql"
    release_holds_row, rewrite_holds_queue = threading.Event(), threading.Event()
    if on_postgresql:
        counted, calls = database.count_arrivals, []

        def in_release(survey_id=None, connection=None):
            calls.append(survey_id)
            if len(calls) == 1:  # the view's first count: then three more arrive
                done = counted(survey_id, connection)
                send_some(app, slug, question_ids, 3)
                return done
            release_holds_row.set()  # in the release, under its lock on the survey's row
            assert rewrite_holds_queue.wait(30)
            return counted(survey_id, connection)

        def in_rewrite(survey_id=None, connection=None):
            rewrite_holds_queue.set()  # the queue and the tallies locked by the rewrite
            return counted(survey_id, connection)

        monkeypatch.setattr(releases, "count_arrivals", in_release)
        monkeypatch.setattr(database, "count_arrivals", in_rewrite)
    else:
        send_some(app, slug, question_ids, 3)

    def release() -> None:
        with app.app_context():
            releases.shown_counts(find_survey(slug))

    def rewrite() -> None:
        if on_postgresql:  # once the release holds its survey's row and is about to count
            assert release_holds_row.wait(30)
        with app.app_context():
            database.forget_arrival_order(None)

    errors = run_together([release, rewrite], [])
    assert errors == []
    assert rewrite_holds_queue.is_set() == on_postgresql
    with app.app_context():
        counts = live_counts(find_survey(slug))
        assert db.session.query(UncountedSubmission).count() == 0
        assert sum(counts[question_ids[1]]) == 13
