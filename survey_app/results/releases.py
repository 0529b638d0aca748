"""What its owner sees of a survey's answers: while it is open, releases of several at once.

Comparing the results before and after one student's arrival would show which options that
student's (randomized) answers added. So while a survey is open, everything its owner can see
that derives from answers (dashboard, projector, results JSON and CSV, pooled results) is
computed from its last **release**: the counts as they stood when at least
``SURVEY_APP_RELEASE_BATCH`` submissions (default 5) had arrived since the release before.
Two views then differ by sums over at least that many randomized answers, never by one. How
many have answered stays live. The first release waits for :data:`MIN_ANSWERS_FOR_SHARES`
answers, the fewest any result shows at (:func:`shows_results`): so the count at which results
appear (:func:`results_appear_at`) is one rule, true whenever the page is read. A closed
survey shows all its counts; reopening it releases them (its owner has seen them), and the
next release again waits for a batch. A survey closed again before a batch of new answers came
in keeps showing its last release (:func:`close`): else closing, reopening for one arrival and
closing again would show that arrival.

A release is made when a view asks for results and a batch is due: the counts are copied, in
one statement, into :class:`~survey_app.storage.models.ReleasedTally`, under a lock on the survey's
row, so two views arriving together make one release, not two a submission apart.

Each release is a look at the live ranges, and a later look never gives back what an earlier
one proved: with each release, what every question's live ranges proved is kept
(:class:`~survey_app.storage.models.CarriedLiveRange`, at each confidence the dashboard offers),
and the next look carries it forward (survey_app.privacy.live.carry_forward), closed surveys'
included. Pooled results are not carried: each survey's carried ranges hold with the confidence
asked, but their sum would hold only with the chances of missing added up, so pooled live ranges
are each look's own (valid at every look, though they may widen).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flask import current_app
from sqlalchemy import delete, func, insert, select, text

from survey_app import privacy
from survey_app.extensions import db
from survey_app.storage.database import (
    count_arrivals,
    is_sqlite,
    session_writes,
    write_transaction,
)
from survey_app.storage.models import CarriedLiveRange, Question, ReleasedTally, Survey, Tally

#: Below this many answers a question shows its count and says it is too early for results:
#: with fewer, the randomization that protects each answer hides nearly everything.
MIN_ANSWERS_FOR_SHARES = 10

#: How many randomized answers reported each value: a list by value (yes/no, choice) or, for a
#: numeric question, a dict of report to count (reports that never came are left out).
Counts = list[int] | dict[int, int]
#: For each question id and confidence, what its live ranges proved at the last release: one
#: ``(n, low, high)`` an option (privacy.Look; one for a number question's average).
Carried = dict[int, dict[float, tuple[privacy.Look, ...]]]

#: The confidences whose live ranges each release carries forward: the levels the dashboard
#: offers (results.tables.CONFIDENCE_LEVELS; a test holds them equal). The API may ask for
#: another: its live ranges are each look's own.
CARRIED_CONFIDENCES = (0.90, 0.95, 0.99)


@dataclass(frozen=True)
class ShownCounts:
    """A survey's counts as its owner may see them, and how many have answered."""

    #: For each question id, the counts the results are computed from.
    counts: dict[int, Counts]
    #: How many submissions those counts hold (all of them unless the survey is open).
    respondents: int
    #: How many have answered so far (live: at least ``respondents``).
    answered: int
    #: A closed survey whose owner still sees its last release (see :func:`close`).
    held: bool = False
    #: What the live ranges proved at the last release (:func:`carried_live_ranges`).
    carried: Carried = field(default_factory=dict)


def _total(counts: Counts) -> int:
    """How many reports a question's counts hold."""
    return sum(counts.values() if isinstance(counts, dict) else counts)


def _empty_counts(survey: Survey) -> dict[int, Counts]:
    return {
        question.id: [0] * question.option_count if question.has_options else {}
        for question in survey.questions
    }


def _fill(counts: dict[int, Counts], rows) -> dict[int, Counts]:
    for question_id, value, count in rows:
        if count or not isinstance(counts[question_id], dict):
            counts[question_id][value] = count
    return counts


def respondents_in(survey: Survey, counts: dict[int, Counts]) -> int:
    """How many submissions a survey's counts hold: the owner of "the number who answered".

    Everyone answers every question, so the first question's total counts the submissions
    (its SQL twin, for lists of surveys and under a release's lock, is
    :attr:`Survey.respondents <survey_app.storage.models.Survey.respondents>`). A page that shows
    results takes the number from its :class:`ShownCounts`, read once (test_tally_reads).
    """
    return _total(counts[survey.questions[0].id]) if survey.questions else 0


def live_counts(survey: Survey) -> dict[int, Counts]:
    """For each question id, how many randomized answers reported each value, up to now.

    The submissions stored since the counts were last read are added to them first
    (database.count_arrivals, PostgreSQL), in the caller's transaction: if it is rolled
    back, they only wait to be counted again.
    """
    count_arrivals(survey.id)
    return _tallied_counts(survey)


def _tallied_counts(survey: Survey) -> dict[int, Counts]:
    """The survey's tallies, summed over shards (its waiting submissions left aside)."""
    rows = db.session.execute(
        select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count))
        .join(Question, Question.id == Tally.question_id)
        .where(Question.survey_id == survey.id)
        .group_by(Tally.question_id, Tally.value)
    )
    return _fill(_empty_counts(survey), rows)


def release_batch() -> int:
    """New submissions a release waits for (``SURVEY_APP_RELEASE_BATCH``)."""
    return current_app.config["RELEASE_BATCH"]


def shows_results(answers: int) -> bool:
    """Whether results computed from this many answers show (on every page): the one rule."""
    return answers >= MIN_ANSWERS_FOR_SHARES


def release_due(so_far: int, released: int, batch: int) -> bool:
    """Whether an open survey makes a release now: a batch has arrived since the last one, and
    enough have answered for results to show (a release that showed nothing would only move
    the count at which they appear)."""
    return so_far - released >= batch and shows_results(so_far)


def results_appear_at(released: int, batch: int) -> int:
    """How many answers an open survey's results appear at, while its last release (of
    ``released`` answers) shows none: the first count at which :func:`release_due` holds."""
    return max(MIN_ANSWERS_FOR_SHARES, released + batch)


def shown_counts(survey: Survey) -> ShownCounts:
    """The counts its owner's views show: the last release while the survey is open (or
    while a closed survey holds its results back), else all of them.

    A release is made first when at least a batch has arrived since the last one.
    """
    if count_arrivals(survey.id) and not session_writes():
        # Kept at once by a view that only reads (else they would be counted again at each
        # view); a request that writes keeps them with its own commit.
        db.session.commit()
    live = _tallied_counts(survey)  # as counted just now (later arrivals wait for the next)
    so_far = respondents_in(survey, live)
    if survey.is_open and release_due(so_far, survey.released_respondents, release_batch()):
        counts = _release_if_due(survey, live)
    elif survey.is_open or survey.results_held:
        counts = _released(survey, db.session.execute)
    else:
        return ShownCounts(live, so_far, so_far, carried=carried_live_ranges(survey, so_far))
    released = respondents_in(survey, counts)
    # A release made just now may hold answers that arrived after the count above was read.
    return ShownCounts(
        counts,
        released,
        max(so_far, released),
        held=survey.results_held,
        carried=carried_live_ranges(survey, released),
    )


def carried_live_ranges(
    survey: Survey, respondents: int, execute: Callable | None = None
) -> Carried:
    """What the survey's live ranges proved at its last release, by question and confidence,
    for results of ``respondents`` answers (a release of more is left out: it cannot carry
    into fewer answers, and a release never holds more than the results shown)."""
    rows = (execute or db.session.execute)(
        select(
            CarriedLiveRange.question_id,
            CarriedLiveRange.confidence,
            CarriedLiveRange.respondents,
            CarriedLiveRange.low,
            CarriedLiveRange.high,
        )
        .join(Question, Question.id == CarriedLiveRange.question_id)
        .where(Question.survey_id == survey.id, CarriedLiveRange.respondents <= respondents)
        .order_by(CarriedLiveRange.question_id, CarriedLiveRange.confidence, CarriedLiveRange.value)
    )
    carried: dict[int, dict[float, list]] = {}
    for question_id, level, n, low, high in rows:
        carried.setdefault(question_id, {}).setdefault(level, []).append((n, low, high))
    return {
        question_id: {level: tuple(looks) for level, looks in by_level.items()}
        for question_id, by_level in carried.items()
    }


def _carry_live_ranges(survey: Survey, counts: dict[int, Counts], execute: Callable) -> None:
    """Keep what each question's live ranges prove with this release, at each carried
    confidence: the last release's, carried forward to these counts (privacy.live)."""
    respondents = respondents_in(survey, counts)
    if respondents == 0:
        return
    # Read in the release's own transaction, under its lock: the last release's, not older.
    earlier = carried_live_ranges(survey, respondents, execute)
    of_survey = select(Question.id).where(Question.survey_id == survey.id)
    execute(delete(CarriedLiveRange).where(CarriedLiveRange.question_id.in_(of_survey)))
    rows = []
    for question in survey.questions:
        for level in CARRIED_CONFIDENCES:
            looks = earlier.get(question.id, {}).get(level, ())
            proved = question.mechanism.live_sums(counts[question.id], level, looks)
            rows += [
                {
                    "question_id": question.id,
                    "confidence": level,
                    "value": value,
                    "respondents": n,
                    "low": low,
                    "high": high,
                }
                for value, (n, low, high) in enumerate(proved)
            ]
    if rows:
        execute(insert(CarriedLiveRange), rows)


def _released(survey: Survey, execute: Callable) -> dict[int, Counts]:
    """The survey's last release, read in one statement (its counts agree with each other)."""
    rows = execute(
        select(ReleasedTally.question_id, ReleasedTally.value, ReleasedTally.noisy_count)
        .join(Question, Question.id == ReleasedTally.question_id)
        .where(Question.survey_id == survey.id)
    )
    return _fill(_empty_counts(survey), rows)


#: The survey's live counts, summed over shards, copied as its release in key order.
_COPY_RELEASE = """
INSERT INTO released_tallies (question_id, value, noisy_count)
SELECT tallies.question_id, tallies.value, sum(tallies.noisy_count)
FROM tallies JOIN questions ON questions.id = tallies.question_id
WHERE questions.survey_id = :survey_id
GROUP BY tallies.question_id, tallies.value
HAVING sum(tallies.noisy_count) > 0
ORDER BY tallies.question_id, tallies.value
"""


def _delete_release(survey_id: int, execute: Callable) -> None:
    of_survey = select(Question.id).where(Question.survey_id == survey_id)
    execute(delete(ReleasedTally).where(ReleasedTally.question_id.in_(of_survey)))


def _write_release(survey: Survey, execute: Callable) -> dict[int, Counts]:
    """Replace the survey's release with its counts now; returns them.

    The counts are copied in one statement, so they hold whole submissions; how many they
    hold is read back from the copy, not counted apart (a submission may arrive meanwhile).
    """
    count_arrivals(survey.id)  # on PostgreSQL, execute is the session's
    _delete_release(survey.id, execute)
    execute(text(_COPY_RELEASE), {"survey_id": survey.id})
    counts = _released(survey, execute)
    execute(
        text("UPDATE surveys SET released_respondents = :released WHERE id = :survey_id"),
        {"released": respondents_in(survey, counts), "survey_id": survey.id},
    )
    _carry_live_ranges(survey, counts, execute)
    return counts


#: The survey's row, locked against a concurrent release (PostgreSQL; SQLite writes one at a
#: time anyway): how many its last release holds, and whether it is still open.
_RELEASE_STATE = """
SELECT surveys.released_respondents, surveys.status
FROM surveys WHERE surveys.id = :survey_id {lock}
"""


def _release_if_due(survey: Survey, live: dict[int, Counts]) -> dict[int, Counts]:
    """Make a release if a batch has arrived since the last one; return the counts to show.

    In a transaction of its own, so that a view that only reads can make it (a request that
    writes already holds one: then in it, which SQLite would otherwise wait on); the survey's
    row is locked first, and whether a release is due is decided again under that lock.
    """
    if is_sqlite():
        # SQLite writes one transaction at a time (no row locks): a read transaction cannot
        # become a write one while another writes, so the release takes a connection of its
        # own, in the writers' queue, unless this request already writes.
        if session_writes():
            return _release_in(survey, live, db.session.execute, lock=False)
        with write_transaction() as connection:
            return _release_in(survey, live, connection.execute, lock=False)
    # PostgreSQL: in the request's own transaction, committed at once, so that a request holds
    # one server connection at a time (behind PgBouncer's transaction pooling, requests that
    # each held one and waited for a second would wait for each other for ever).
    counts = _release_in(survey, live, db.session.execute, lock=True)
    db.session.commit()
    return counts


def _release_in(survey: Survey, live: dict[int, Counts], execute: Callable, lock: bool):
    state = execute(
        # NO KEY UPDATE: releases (and closing) still wait for each other, but the foreign-key
        # checks of rows referring to the survey (a rewrite's submissions and codes) do not
        # wait for a release, which could wait for the rewrite's lock while it counts.
        text(_RELEASE_STATE.format(lock="FOR NO KEY UPDATE" if lock else "")),
        {"survey_id": survey.id},
    ).first()
    if state is None or state.status != "open":
        return live  # closed meanwhile: a closed survey shows its counts (as read before)
    # Read again under the lock, as models.Survey.respondents counts it.
    so_far = execute(select(Survey.respondents).where(Survey.id == survey.id)).scalar_one()
    if not release_due(so_far, state.released_respondents, release_batch()):
        return _released(survey, execute)  # released meanwhile by another view
    return _write_release(survey, execute)


def reopen(survey: Survey) -> None:
    """A closed survey opens again, in the caller's transaction: the counts its owner saw
    while it was closed are its release, and the next one waits for a batch of new answers.
    (Results held back at closing stay held: their owner has not seen them.)"""
    if not survey.results_held:
        _write_release(survey, db.session.execute)
        db.session.expire(survey, ["released_respondents"])
    survey.results_held = False
    survey.reopened = True


def close(survey: Survey) -> None:
    """The survey closes, in the caller's transaction: its owner sees all its counts, unless
    it was reopened and fewer than a batch have arrived since its last release.

    The first closing shows everything, the last few answers included (fewer than a batch:
    their sum is what closing reveals). Without the rule for reopened surveys, closing,
    reopening for one arrival and closing again would show each arrival's answers.
    """
    so_far = respondents_in(survey, live_counts(survey))
    survey.results_held = survey.reopened and so_far - survey.released_respondents < release_batch()
    if not survey.results_held:
        _delete_release(survey.id, db.session.execute)


def delete_release(survey: Survey) -> None:
    """Delete the survey's release and what its live ranges proved, in the caller's
    transaction (the survey is deleted)."""
    _delete_release(survey.id, db.session.execute)
    of_survey = select(Question.id).where(Question.survey_id == survey.id)
    db.session.execute(delete(CarriedLiveRange).where(CarriedLiveRange.question_id.in_(of_survey)))
