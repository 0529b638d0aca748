"""Engine settings that keep concurrent workers safe, on SQLite and on PostgreSQL.

SQLite runs in WAL mode with a busy timeout, and a transaction that will write starts with
``BEGIN IMMEDIATE``: it takes the write lock at its start, so two workers never both read and then
race to upgrade their locks (which SQLite answers with "database is locked" at once, whatever
the timeout). Read-only transactions begin deferred and never wait for writers.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import event, make_url, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.orm import Session

from survey_app.extensions import db

#: How long a SQLite connection waits for the write lock before giving up.
SQLITE_BUSY_TIMEOUT_MS = 30_000

_WRITE_OPTION = "survey_app_write"

logger = logging.getLogger(__name__)

#: A pooled server connection that sat unused for longer than this is checked with a round trip
#: before it is handed out (the server may have restarted, or closed idle sessions meanwhile).
IDLE_CONNECTION_CHECK_SECONDS = 5.0
_IDLE_SINCE = "survey_app_idle_since"
_TRUSTED_SINCE = "survey_app_trusted_since"
#: When this process last saw a server connection lost (monotonic time).
_last_disconnect = float("-inf")


_AFTER_COMMIT = "survey_app_after_commit"


def after_commit(action: Callable[[], None]) -> None:
    """Run ``action`` once the session's transaction has committed; drop it on a rollback.

    For services, which flush and leave the commit to their caller, but have work that must
    only follow a commit (rewriting storage outside the transaction, say).
    """
    db.session.info.setdefault(_AFTER_COMMIT, []).append(action)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    for action in session.info.pop(_AFTER_COMMIT, []):
        action()


@event.listens_for(Session, "after_rollback")
def _drop_after_commit(session: Session) -> None:
    session.info.pop(_AFTER_COMMIT, None)


def is_sqlite(engine: Engine | None = None) -> bool:
    """True when the app's database (or ``engine``) is SQLite; PostgreSQL is the other one."""
    return (engine if engine is not None else db.engine).dialect.name == "sqlite"


def protect_database_file(url: str) -> None:
    """Create a SQLite database file readable and writable by its owner only (mode 600).

    SQLite gives its -wal and -shm files the mode of the database file, so they follow. A
    file made before with wider access is narrowed.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    if parsed.database.startswith("file:"):
        return  # a URI filename: its owner decides
    path = parsed.database
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        return  # SQLite will say that the folder is missing
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for name in (path, path + "-wal", path + "-shm", path + ".write-lock"):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
        except FileNotFoundError:
            pass


def configure_engine(engine: Engine) -> None:
    """Hide statement parameters from errors; on SQLite, install the pragmas and transactions."""
    # A database error names its statement, and by default the statement's parameters: a
    # submission's id and answers. Its traceback goes to the server's log, which must hold none.
    engine.hide_parameters = True
    if not is_sqlite(engine):
        _check_idle_connections(engine)
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Let SQLAlchemy, not the driver, say when transactions begin (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL loses no committed transaction on a process crash.
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        immediate = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _check_idle_connections(engine: Engine) -> None:
    """Check a pooled connection before use only when there is reason to doubt it.

    ``pool_pre_ping`` would cost a round trip on every checkout: it would double a submission's
    round trips. A connection is checked instead when it sat idle for a while, or when it was
    last handed out before a lost connection was seen (the server may have restarted). If the
    server drops a connection in steady use anyway, that one statement fails.
    """
    event.listen(engine, "checkin", note_idle_since)
    event.listen(engine, "checkout", check_idle_connection)


def note_idle_since(_dbapi_connection, record) -> None:
    record.info[_IDLE_SINCE] = time.monotonic()


def note_disconnect() -> None:
    """A server connection was lost: check every pooled connection before its next use."""
    global _last_disconnect
    _last_disconnect = time.monotonic()


def check_idle_connection(dbapi_connection, record, _proxy) -> None:
    now = time.monotonic()
    idle_since = record.info.get(_IDLE_SINCE)
    trusted_since = record.info.get(_TRUSTED_SINCE, now)
    record.info[_TRUSTED_SINCE] = now
    if idle_since is None:
        return  # a new connection
    if now - idle_since < IDLE_CONNECTION_CHECK_SECONDS and trusted_since > _last_disconnect:
        return
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
        finally:
            cursor.close()
        dbapi_connection.rollback()
    except Exception as error:
        # The pool drops this connection and checks out (or opens) another.
        raise DisconnectionError("an idle database connection was closed") from error


def begin_session_writes() -> None:
    """Begin the session's transaction as a write transaction (``BEGIN IMMEDIATE`` on SQLite).

    For requests that change something through the session (the analyst's forms): a deferred
    transaction that reads first and then writes is refused at once ("database is locked") if
    another connection committed in between, whatever the busy timeout.
    """
    db.session.connection(execution_options={_WRITE_OPTION: True})


def session_writes() -> bool:
    """True while the session's transaction is a write transaction (a request that changes
    something: see begin_session_writes); another connection's writes would wait on it."""
    session = db.session()  # the request's session, behind the scoped proxy
    if not session.in_transaction():
        return False
    return bool(session.connection().get_execution_options().get(_WRITE_OPTION))


class _WriterQueue:
    """Makes the writers of one SQLite file wait in line on a file lock, not by polling.

    SQLite's busy timeout polls: a writer that finds the lock taken sleeps 1, 2, 5, 10... ms
    before trying again, though a submission holds the lock well under a millisecond. Writers
    that first take an exclusive ``flock`` on a file beside the database are woken by the kernel
    the moment the lock is free, in every worker process. (PostgreSQL needs none of this.)
    """

    def __init__(self):
        self._files: dict[str, int] = {}

    def descriptor(self, database: str) -> int:
        fd = self._files.get(database)
        if fd is None:
            fd = os.open(database + ".write-lock", os.O_RDWR | os.O_CREAT, 0o600)
            self._files[database] = fd
        return fd

    @contextmanager
    def turn(self, engine: Engine) -> Iterator[None]:
        database = engine.url.database
        if not is_sqlite(engine) or database in (None, "", ":memory:"):
            yield
            return
        fd = self.descriptor(database)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


_writer_queue = _WriterQueue()


@contextmanager
def write_transaction() -> Iterator[Connection]:
    """A connection of its own in a write transaction, committed on success, else rolled back.

    For hot paths that need no ORM: Core statements on it cost a fraction of a session's. On
    SQLite it waits its turn in the writer queue, then begins ``BEGIN IMMEDIATE``.
    """
    engine = db.engine
    with _writer_queue.turn(engine), engine.connect() as connection:
        connection.execution_options(**{_WRITE_OPTION: True})
        with connection.begin():
            yield connection


#: What a submission writes to, with each table's columns, its key (the order it is rewritten
#: in) and how its rows of one survey are found. Tallies come first: see _rewrite_in_key_order.
_ARRIVAL_TABLES = (
    (
        "tallies",
        "question_id, value, shard, noisy_count",
        "question_id, value, shard",
        "question_id IN (SELECT id FROM questions WHERE survey_id = :survey_id)",
    ),
    (
        "submissions",
        "submission_id, survey_id, submitted_on, answers",
        "submission_id",
        "survey_id = :survey_id",
    ),
    ("one_time_codes", "survey_id, code_sha256, used_on", "code_sha256", "survey_id = :survey_id"),
)
#: PostgreSQL: add queued submissions (uncounted_submissions) to the tallies, in one statement.
#: Each queued row is deleted as it is counted, so two of these running together count each
#: submission once (the second waits for the first's rows, then finds them gone: PostgreSQL's
#: default READ COMMITTED, which the app's connections keep); the queued rows are locked in key
#: order, whatever the plan, so two never wait for each other's in a cycle; the counts
#: land in shard 0, in key order (two never wait for each other's rows in a cycle), a numeric
#: report's row added when it is new. A submission's answers are in question order.
_COUNT_ARRIVALS = """
WITH gone AS (
    DELETE FROM uncounted_submissions
    WHERE (survey_id, submission_id) IN (
        SELECT survey_id, submission_id FROM uncounted_submissions {which}
        ORDER BY survey_id, submission_id
        FOR UPDATE)
    RETURNING survey_id, submission_id
), question_lists AS (
    SELECT survey_id, array_agg(id ORDER BY position) AS question_ids
    FROM questions WHERE survey_id IN (SELECT survey_id FROM gone)
    GROUP BY survey_id
), reports AS (
    SELECT answer.question_id, answer.value, count(*) AS added
    FROM gone
    JOIN submissions ON submissions.submission_id = gone.submission_id
    JOIN question_lists ON question_lists.survey_id = gone.survey_id
    CROSS JOIN LATERAL unnest(question_lists.question_ids,
                              string_to_array(submissions.answers, ',')::integer[])
        AS answer (question_id, value)
    GROUP BY answer.question_id, answer.value
)
INSERT INTO tallies (question_id, value, shard, noisy_count)
SELECT question_id, value, 0, added FROM reports ORDER BY question_id, value
ON CONFLICT (question_id, value, shard)
DO UPDATE SET noisy_count = tallies.noisy_count + excluded.noisy_count
"""


_ANY_WAITING = "SELECT EXISTS (SELECT FROM uncounted_submissions {which})"


def count_arrivals(survey_id: int | None = None, connection: Connection | None = None) -> int:
    """Add the submissions stored since the survey's counts were last brought up to date
    (every survey's, for ``None``) to its tallies; how many tally rows changed.

    PostgreSQL only (SQLite counts each submission as it stores it): whoever reads a survey's
    counts calls this first, in its own transaction (``connection``'s, else the session's),
    never a submission. See :class:`~survey_app.storage.models.UncountedSubmission`.
    """
    if is_sqlite(None if connection is None else connection.engine):
        return 0
    which = "" if survey_id is None else "WHERE survey_id = :survey_id"
    execute = db.session.execute if connection is None else connection.execute
    # Nothing waiting (most views while nobody answers): no row lock, no write, nothing held
    # until the request ends that a rewrite's lock (and the submissions behind it) would wait on.
    waiting = execute(text(_ANY_WAITING.format(which=which)), {"survey_id": survey_id})
    if not waiting.scalar_one():
        return 0
    return execute(text(_COUNT_ARRIVALS.format(which=which)), {"survey_id": survey_id}).rowcount


#: How long forgetting the arrival order waits for readers before a checkpoint gives up.
CHECKPOINT_WAIT_MS = 2_000
#: ... and, on PostgreSQL, before copying the tables into new files gives up.
REWRITE_WAIT_MS = 2_000
#: PostgreSQL's error code for a lock not taken within ``lock_timeout``.
LOCK_NOT_AVAILABLE = "55P03"


def forget_arrival_order(survey_id: int | None = None) -> bool:
    """Leave no trace of the order in which submissions arrived in the database's storage.

    SQLite keeps submissions, tallies and one-time codes in tables without rowid, in key order
    (a submission's random id; a count's question, value and shard; a code's hash); what can
    still follow arrival is physical: the write-ahead log, and where rows sit inside each
    page. Both go: the log is checkpointed and ``VACUUM`` rewrites the file in key order.

    PostgreSQL appends rows to its heap in the order they arrive, and stamps each with the id
    of the transaction that wrote it (``xmin``), which grows with time. Here every row the
    survey's submissions wrote (every survey's, for ``None``) is rewritten in one transaction
    in key order (:func:`_rewrite_in_key_order`), so their physical order is the key's and
    they share one ``xmin``. The tables are then copied into new files
    (:func:`_vacuum_into_new_files`), which leaves no old row version in their pages.

    Called when a survey closes, and by ``survey-app forget-arrival-order`` (for surveys
    still open). For 100,000 submissions it took 0.1 s on SQLite and 1.1 s on PostgreSQL
    here (on a busier machine, 3.4 s with the copy into new files, 3.8 s with the plain
    ``VACUUM`` it replaced); writers wait meanwhile. Returns False, and logs a warning, when
    SQLite's log could not be emptied because another connection kept reading it for longer
    than ``CHECKPOINT_WAIT_MS`` (the log then still holds recent writes in arrival order), or
    PostgreSQL's tables could not be copied within ``REWRITE_WAIT_MS``.
    """
    engine = db.engine
    if is_sqlite(engine):
        with _writer_queue.turn(engine):
            connection = engine.raw_connection()
            try:
                driver = connection.driver_connection
                _checkpoint(driver)  # VACUUM then copies less; only the last one must succeed
                driver.execute("VACUUM")
                busy, log_frames, checkpointed = _checkpoint(driver)
            finally:
                connection.close()
        if busy:
            # A read transaction that began before the last writes pins them in the log (an
            # export still streaming, or a process that holds a transaction open): the log is
            # neither emptied nor truncated, so it is said rather than passed over.
            logger.warning(
                "The SQLite write-ahead log could not be emptied (another connection was "
                "reading it; %s of %s pages copied): until it is, the -wal file keeps recent "
                "writes in arrival order. Run `survey-app forget-arrival-order` again once "
                "no other process holds the database open.",
                checkpointed,
                log_frames,
            )
            return False
        return True
    rewrite = _rewrite_in_key_order(engine, survey_id)
    return _vacuum_into_new_files(engine, rewrite)


#: The id of the running transaction (64 bits, never wrapping).
_TRANSACTION_ID = "SELECT txid_current()"
#: Whether a transaction that began before the one given still runs: on the whole server (any
#: database: a copy's own snapshot would go back to it, and keep what it could read), or in
#: this database as a snapshot without an id of its own (a read). The rows the rewrite replaced
#: are still theirs to read, and a copy would keep them.
_OLDER_TRANSACTIONS = """
SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint <= CAST(:rewrite AS bigint)
    OR EXISTS (SELECT FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid()
                 AND age(backend_xmin)
                     >= age(CAST(CAST(:rewrite AS bigint) % 4294967296 AS text)::xid))
"""


def _wait_for_older_transactions(engine: Engine, rewrite: int) -> bool:
    """Wait up to ``REWRITE_WAIT_MS`` until no transaction that began before the rewrite is
    still running (a submission in flight, autovacuum's ANALYZE); whether none is."""
    deadline = time.monotonic() + REWRITE_WAIT_MS / 1000
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        while True:
            older = connection.execute(text(_OLDER_TRANSACTIONS), {"rewrite": rewrite})
            if not older.scalar_one():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def _vacuum_into_new_files(engine: Engine, rewrite: int) -> bool:
    """PostgreSQL: copy the rewritten tables into new files (``VACUUM FULL``), indexes rebuilt.

    The rewrite leaves the rows it replaced behind: as dead row versions, each with the
    ``xmin`` of the submission that wrote it, and, once a plain ``VACUUM`` has freed them, as
    stale bytes in the pages' free space, which nothing wipes until a new row lands there.
    ``VACUUM FULL`` copies the live rows alone into new pages and drops the old file (released
    counts too: each release deletes the one before, in order). It runs outside a transaction,
    so no snapshot of its own keeps the old rows alive (``CLUSTER`` in a transaction would copy
    them whenever any transaction on the server began before the rewrite).

    It holds each table's exclusive lock while it copies it: submissions wait meanwhile (see
    forget_arrival_order for how long), then go on; none is lost. Before each table, a short
    transaction checks that the lock can be had within ``REWRITE_WAIT_MS`` (``SET LOCAL``:
    no setting stays on the server connection, as PgBouncer's transaction pooling needs). A
    long read (an export streaming) holds it longer: then a plain ``VACUUM`` frees what it
    can, a warning says so, and it returns False, so that no submission waits behind the
    read. Rows that a transaction begun before the rewrite could still read would be copied
    too: the copy waits (as long) for such transactions to end, and says when one did not.
    """
    tables = (
        "released_tallies",
        "uncounted_submissions",
        *(table for table, *_ in _ARRIVAL_TABLES),
    )
    if not _wait_for_older_transactions(engine, rewrite):
        logger.warning(
            "A transaction older than the rewrite of stored submissions was still running "
            "after %s ms: the copy keeps the rows it could read until "
            "`survey-app forget-arrival-order` runs again.",
            REWRITE_WAIT_MS,
        )
        # Copied all the same: whatever that transaction cannot read goes now.
    try:
        for table in tables:  # one lock held at a time: nothing waits for it holding another
            with engine.begin() as connection:
                connection.exec_driver_sql(f"SET LOCAL lock_timeout = {REWRITE_WAIT_MS}")
                connection.exec_driver_sql(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            with engine.connect() as connection:
                connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                    f"VACUUM (FULL) {table}"
                )
    except OperationalError as error:
        if getattr(error.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "VACUUM " + ", ".join(tables)
            )
        logger.warning(
            "The tables that submissions write to could not be copied into new files "
            "(another connection kept reading them for over %s ms): their pages keep old "
            "row versions until `survey-app forget-arrival-order` runs again.",
            REWRITE_WAIT_MS,
        )
        return False
    return True


def _rewrite_in_key_order(engine: Engine, survey_id: int | None) -> int:
    """PostgreSQL: rewrite every table a submission writes to in key order, in one transaction.

    A numeric question's tally rows are created as its reports are first counted, and every
    count row carries the ``xmin`` of the count that last added to it; one-time codes are marked
    used as submissions arrive. Rewritten together, they share one ``xmin`` and lie in key
    order: nothing is left to order them, or to join a code or a report to a submission.

    The queue of submissions waiting to be counted and the tallies are locked first, against
    writes, and everything waiting is counted: a submission arriving meanwhile
    (``forget-arrival-order`` on an open survey) waits before it starts, then queues beside the
    rewritten rows; a reader that would count waits too (a reader that finds nothing waiting
    does not). Nothing else is locked ahead, so no submission holds a lock the rewrite waits for
    while waiting for one the rewrite holds.
    """
    with engine.begin() as connection:
        # The queue first, as a count of arrivals takes it: then nothing waits in a cycle.
        connection.exec_driver_sql("LOCK TABLE uncounted_submissions, tallies IN EXCLUSIVE MODE")
        count_arrivals(survey_id, connection)  # none stays queued: no arrival order
        rewrite = connection.exec_driver_sql(_TRANSACTION_ID).scalar_one()
        for table, columns, key, of_survey in _ARRIVAL_TABLES:
            which = "" if survey_id is None else f"WHERE {of_survey}"
            connection.execute(
                text(
                    f"CREATE TEMPORARY TABLE {table}_in_key_order ON COMMIT DROP AS "
                    f"SELECT {columns} FROM {table} {which}"
                ),
                {"survey_id": survey_id},
            )
            connection.execute(text(f"DELETE FROM {table} {which}"), {"survey_id": survey_id})
            connection.execute(
                text(
                    f"INSERT INTO {table} ({columns}) "
                    f"SELECT {columns} FROM {table}_in_key_order ORDER BY {key}"
                )
            )
    return rewrite


def _checkpoint(driver) -> tuple[int, int, int]:
    """Copy SQLite's write-ahead log into the database file and truncate it to 0 bytes.

    Returns SQLite's answer: (busy, pages in the log, pages copied); busy is 1 when a reader
    still needed the log after ``CHECKPOINT_WAIT_MS`` (a long export is not waited for).
    """
    driver.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
    try:
        busy, log_frames, checkpointed = driver.execute(
            "PRAGMA wal_checkpoint(TRUNCATE)"
        ).fetchone()
    finally:
        driver.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
    return busy, log_frames, checkpointed
