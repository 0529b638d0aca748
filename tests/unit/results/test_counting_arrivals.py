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
