"""Once a survey closes, no old version of its rows is left in the database's pages.

Closing (and ``survey-app forget-arrival-order``) rewrites every row that submissions wrote, in
key order (tests/unit/storage/test_storage_order.py). On PostgreSQL the rows it replaces would
otherwise stay in the table's pages: as dead row versions, each with the ``xmin`` of the
submission that wrote it (a code and a submission written together share one), and as stale
bytes in the space that vacuuming frees but does not wipe. Here the pages are read raw
(pageinspect's ``get_raw_page`` and ``heap_page_items``), in the test's own cluster: no dead row
version, and each submission id and code hash only as often as the live rows hold it. On SQLite,
whose closing rebuilds the file, the file itself is read: each id and hash as often as in a
clean copy of the database (``VACUUM INTO``), and no free page.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid

import pytest
from sqlalchemy import text

from survey_app.classroom.codes import code_sha256, issue_codes
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage.database import count_arrivals
from survey_app.surveys.services import find_survey, open_survey
from tests.numeric_helpers import HOURS

#: Submissions sent; each with its own one-time code and its own numeric report.
ARRIVALS = 60
#: The tables a submission writes to (on PostgreSQL it waits in uncounted_submissions until the
#: counts are next read), and the released counts a view makes from them.
TABLES = ("submissions", "one_time_codes", "tallies", "released_tallies", "uncounted_submissions")
PAGE = 8192


def arrive(app, slug: str, question_ids: list[int]) -> tuple[list[str], list[str]]:
    """Send ARRIVALS coded submissions; their ids and their codes' hashes."""
    with app.app_context():
        survey = find_survey(slug)
        codes = issue_codes(survey, ARRIVALS)
        low, _high = survey.questions[0].report_range
        open_survey(survey)
        db.session.commit()
    ids = [str(uuid.uuid4()) for _ in range(ARRIVALS)]
    for index, (submission_id, code) in enumerate(zip(ids, codes, strict=True)):
        answers = {str(question_ids[0]): low + index, str(question_ids[1]): index % 2}
        with app.app_context():
            record_submission(
                slug, {"submission_id": submission_id, "answers": answers, "code": code}
            )
    return ids, [code_sha256(code) for code in codes]


def forget(app, runner, slug: str, how: str) -> None:
    if how == "closing":
        result = runner.invoke(args=["close-survey", slug])
    else:
        with app.app_context():  # a release while open: its rows are rewritten too
            from survey_app.results.releases import shown_counts

            assert shown_counts(find_survey(slug)).respondents == ARRIVALS
        result = runner.invoke(args=["forget-arrival-order"])
    assert result.exit_code == 0, result.output


def postgresql_pages(connection, relation: str) -> list[bytes]:
    """Every page of ``relation`` (a table or an index), raw."""
    size = connection.execute(
        text("SELECT pg_relation_size(CAST(:r AS regclass))"), {"r": relation}
    ).scalar_one()
    return [
        bytes(
            connection.execute(
                text("SELECT inspection.get_raw_page(CAST(:r AS text), :block)"),
                {"r": relation, "block": block},
            ).scalar_one()
        )
        for block in range(size // PAGE)
    ]


def dead_row_versions(connection, table: str) -> list[tuple]:
    """The row versions of ``table``'s heap that are not live: deleted or updated (xmax set),
    or line pointers left dead or unused, each with the transaction that wrote it."""
    return connection.execute(
        text(
            "SELECT block, lp, lp_flags, t_xmin, t_xmax FROM generate_series(0, "
            "  pg_relation_size(CAST(:t AS regclass)) / 8192 - 1) AS block, LATERAL "
            "  inspection.heap_page_items(inspection.get_raw_page(CAST(:t AS text), block::int)) "
            "WHERE lp_flags <> 1 OR t_xmax <> 0"
        ),
        {"t": table},
    ).all()


def relations_of(connection, table: str) -> list[str]:
    """The table and its indexes."""
    indexes = connection.execute(
        text(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = CAST(:t AS regclass)"
        ),
        {"t": table},
    ).scalars()
    return [table, *indexes]


def copies_on_postgresql(app, values: list[bytes]) -> tuple[dict, dict]:
    """How often each value's bytes are in each table's pages (and its indexes'); how often
    the live rows hold each; and every dead row version."""
    found, live, dead = {}, {}, {}
    with app.app_context(), db.engine.begin() as connection:
        connection.exec_driver_sql("CREATE SCHEMA IF NOT EXISTS inspection")
        connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA inspection")
        for table in TABLES:
            dead[table] = dead_row_versions(connection, table)
            for relation in relations_of(connection, table):
                pages = postgresql_pages(connection, relation)
                for value in values:
                    found[relation, value] = sum(page.count(value) for page in pages)
                # What the live rows hold: once in the table, once in an index of it.
                dump = repr(connection.exec_driver_sql(f"SELECT * FROM {table}").all()).encode()
                for value in values:
                    live[relation, value] = min(dump.count(value), 1)
    return {key: count for key, count in found.items() if count > live[key]}, {
        table: rows for table, rows in dead.items() if rows
    }


def copies_on_sqlite(app, database_file: str, values: list[bytes], tmp_path) -> tuple[dict, int]:
    """How often each value's bytes are in the database file and its log beyond their count in
    a clean copy of the database; and the file's free pages."""
    clean = tmp_path / "clean.sqlite3"
    with contextlib.closing(sqlite3.connect(database_file, isolation_level=None)) as connection:
        connection.execute("VACUUM INTO ?", (str(clean),))
        free_pages = connection.execute("PRAGMA freelist_count").fetchone()[0]
    stored = b"".join(
        open(name, "rb").read()
        for name in (database_file, database_file + "-wal")
        if os.path.exists(name)
    )
    expected = clean.read_bytes()
    extra = {value: stored.count(value) - expected.count(value) for value in values}
    return {value: count for value, count in extra.items() if count > 0}, free_pages


@pytest.mark.parametrize("how", ["closing", "the command"])
def test_no_old_row_version_is_left_in_the_pages(
    app, runner, make_survey, database_url, how, tmp_path
):
    slug, question_ids = make_survey(HOURS, status="draft")
    ids, hashes = arrive(app, slug, question_ids)
    values = [value.encode() for value in ids + hashes]
    forget(app, runner, slug, how)
    if database_url.startswith("postgresql"):
        stale, dead = copies_on_postgresql(app, values)
        assert dead == {}
    else:
        stale, free_pages = copies_on_sqlite(
            app, database_url.removeprefix("sqlite:///"), values, tmp_path
        )
        assert free_pages == 0
    assert stale == {}


def test_the_pages_do_keep_old_rows_without_the_rewrite(app, make_survey, database_url, tmp_path):
    """The control: before closing, the measure finds old copies. PostgreSQL: marking a code
    used leaves its old version (dead); SQLite: the log keeps each page as each submission left
    it. PostgreSQL again: counting the waiting submissions leaves their queue rows dead."""
    slug, question_ids = make_survey(HOURS, status="draft")
    with contextlib.ExitStack() as holding:
        if database_url.startswith("postgresql"):
            # A transaction begun before the arrivals and open through them: no old version
            # of a code may be pruned away meanwhile, whatever the table held before.
            with app.app_context():
                older = holding.enter_context(db.engine.connect())
            older = older.execution_options(isolation_level="REPEATABLE READ")
            older.exec_driver_sql("SELECT count(*) FROM one_time_codes").scalar_one()
        ids, hashes = arrive(app, slug, question_ids)
    values = [value.encode() for value in ids + hashes]
    if database_url.startswith("postgresql"):
        stale, dead = copies_on_postgresql(app, values)
        # Each use leaves a line pointer at least (pruned to a redirect, or dead).
        assert len(dead["one_time_codes"]) >= ARRIVALS
        # Every code's hash, in its old version too.
        found = {value for _, value in stale} & {value.encode() for value in hashes}
        assert len(found) == ARRIVALS
        # Counting the waiting submissions deletes their rows in uncounted_submissions.
        with app.app_context():
            count_arrivals()
            db.session.commit()
        _stale, dead = copies_on_postgresql(app, [])
        assert len(dead["uncounted_submissions"]) >= ARRIVALS
    else:
        # SQLite's log keeps each page as each transaction left it: old copies of the rows.
        stale, _free_pages = copies_on_sqlite(
            app, database_url.removeprefix("sqlite:///"), values, tmp_path
        )
        # (A value whose page a later submission left unchanged is in the log once: most are not.)
        assert len(stale) >= 0.9 * len(values)


def test_a_long_read_is_not_waited_for_and_that_is_said(app, runner, make_survey, monkeypatch):
    """A read transaction holding the tables (an export streaming) keeps the copy from taking
    its lock (PostgreSQL), or the log from being emptied (SQLite): the command gives up after a
    short wait rather than stall the class's submissions behind it, and says so."""
    from survey_app.storage import database

    monkeypatch.setattr(database, "REWRITE_WAIT_MS", 100)
    monkeypatch.setattr(database, "CHECKPOINT_WAIT_MS", 100)
    slug, question_ids = make_survey(HOURS, status="draft")
    arrive(app, slug, question_ids)
    with app.app_context():
        (code,) = issue_codes(find_survey(slug), 1)
        db.session.commit()
    late = {"submission_id": str(uuid.uuid4()), "code": code}
    late["answers"] = {str(question_ids[0]): 0, str(question_ids[1]): 1}
    with app.app_context(), db.engine.connect() as reader:
        reader.exec_driver_sql("SELECT count(*) FROM submissions").all()  # holds it, reading
        with app.app_context():
            record_submission(slug, late)  # a write the reader's snapshot predates
        result = runner.invoke(args=["forget-arrival-order"])
        assert result.exit_code == 1
        assert result.stderr.startswith("Error: ") and "run this again later" in result.stderr
        reader.rollback()
    result = runner.invoke(args=["forget-arrival-order"])
    assert result.exit_code == 0, result.output
