"""The submission statement's kept connection on PostgreSQL (storage.kept_connection).

On SQLite a submission is a short write transaction on the pool's connection, so the
PostgreSQL-only tests here check that nothing is kept there and end.
"""

from __future__ import annotations

import threading
import time

from sqlalchemy import func, select, text

from survey_app import create_app
from survey_app.extensions import db
from survey_app.respondents import submissions
from survey_app.storage import database, kept_connection
from survey_app.storage.kept_connection import KeptStatement
from survey_app.storage.models import Submission, Survey
from tests.conftest import TEST_SECRET_KEY
from tests.unit.respondents.test_submission_api import post_json
from tests.unit.web.test_request_path import end_other_sessions, submission


def test_named_parameters_are_numbered_by_first_appearance():
    statement = KeptStatement.from_named(
        "s", "SELECT %(b)s, %(a)s WHERE x = %(b)s AND y = %(c)s::date"
    )
    assert statement.sql == "SELECT $1, $2 WHERE x = $1 AND y = $3::date"
    assert statement.parameters == ("b", "a", "c")
    assert statement.values({"a": 1, "b": "two", "c": None, "unused": 4}) == ["two", 1, None]


def kept_connections(app) -> list:
    """The app's engine's kept connections, of every thread (none on SQLite)."""
    with app.app_context():
        return list(kept_connection._kept.get(db.engine, {}).values())


def server_names(kept) -> list[str]:
    """The statements prepared on the kept connection's server session."""
    rows = kept.driver.execute("SELECT name FROM pg_prepared_statements ORDER BY name")
    return [name for (name,) in rows.fetchall()]


def is_postgresql(app) -> bool:
    with app.app_context():
        return db.engine.dialect.name == "postgresql"


def respondents(app, slug: str) -> int:
    with app.app_context():
        return db.session.execute(
            select(Survey.respondents).where(Survey.slug == slug)
        ).scalar_one()


def stored(app) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(Submission)).scalar_one()


def test_the_statement_is_prepared_once_on_a_connection_of_its_own(app, client, survey):
    slug, _ = survey
    for _ in range(3):
        assert post_json(client, slug, submission(app, slug)).status_code == 201
    kept = kept_connections(app)
    if not is_postgresql(app):
        assert kept == []  # SQLite writes on the pool's connection
        return
    assert len(kept) == 1
    assert kept[0].prepares
    assert server_names(kept[0]) == [submissions.RECORD.name]
    assert respondents(app, slug) == 3


def test_behind_transaction_pooling_nothing_is_prepared(app, survey, database_url):
    slug, _ = survey
    if not is_postgresql(app):
        return  # a pooler's mode is PostgreSQL's setting
    pooled = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": TEST_SECRET_KEY,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_ENABLED": False,
            "DATABASE_POOL_MODE": "transaction",
        }
    )
    client = pooled.test_client()
    try:
        for _ in range(6):  # psycopg would prepare at the fifth use
            assert post_json(client, slug, submission(app, slug)).status_code == 201
        (kept,) = kept_connections(pooled)
        assert not kept.prepares
        assert server_names(kept) == []
        assert respondents(app, slug) == 6
    finally:
        with pooled.app_context():
            db.engine.dispose()


def test_a_lost_connection_is_replaced_and_the_submission_stored_once(
    app, client, survey, monkeypatch
):
    """The server ends every session (a restart): the submission that finds its connection lost
    is run again on a new one, a page's retry of it is answered as a retry, and the pool's
    connections are checked before their next use instead of failing in turn."""
    slug, _ = survey
    if not is_postgresql(app):
        return
    monkeypatch.setattr(database, "IDLE_CONNECTION_CHECK_SECONDS", 1e9)  # not for being idle
    for _ in range(3):
        assert post_json(client, slug, submission(app, slug)).status_code == 201
    assert client.get(f"/api/v1/surveys/{slug}").status_code == 200  # a pooled one too
    (before,) = kept_connections(app)
    lost, later = submission(app, slug), submission(app, slug)
    with app.app_context():
        assert end_other_sessions(db.engine) >= 1

    response = post_json(client, slug, lost)
    assert response.status_code == 201, response.get_json()
    (after,) = kept_connections(app)
    assert after is not before
    retried = post_json(client, slug, lost)
    assert retried.status_code == 200, retried.get_json()
    assert post_json(client, slug, later).status_code == 201
    assert client.get(f"/api/v1/surveys/{slug}").status_code == 200  # a pooled one, checked
    assert (respondents(app, slug), stored(app)) == (5, 5)


def test_a_connection_lost_twice_running_is_an_error_that_stores_nothing(
    app, client, survey, monkeypatch
):
    slug, _ = survey
    if not is_postgresql(app):
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    opened = []
    real_open = kept_connection._open

    def open_then_lose(engine):
        kept = real_open(engine)
        opened.append(kept)
        end_other_sessions(engine)  # this one's session too: it is not the killer's
        return kept

    monkeypatch.setattr(kept_connection, "_open", open_then_lose)
    failed = submission(app, slug)
    with app.app_context():
        end_other_sessions(db.engine)
    response = post_json(client, slug, failed)
    assert 500 <= response.status_code < 600
    assert response.mimetype == "application/json"
    assert len(opened) == 1  # the kept one lost, one new one lost: no third try
    monkeypatch.setattr(kept_connection, "_open", real_open)
    assert post_json(client, slug, failed).status_code == 201
    assert (respondents(app, slug), stored(app)) == (2, 2)


def test_disposing_the_engine_closes_its_kept_connections(app, client, survey):
    slug, _ = survey
    if not is_postgresql(app):
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    (kept,) = kept_connections(app)
    backend = kept.driver.info.backend_pid
    with app.app_context():
        db.engine.dispose()
        assert kept_connections(app) == []
        assert kept.driver.closed
        deadline = time.monotonic() + 10
        while backend_alive(backend) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not backend_alive(backend)


def backend_alive(pid: int) -> bool:
    """Whether a server session of this pid is still there (asked in the app's context)."""
    query = text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid")
    alive = db.session.execute(query, {"pid": pid}).scalar_one() > 0
    db.session.rollback()
    return alive


def test_a_forked_worker_leaves_its_parent_s_connection_alone(app, client, survey):
    """A connection made before a fork is the parent's: the child opens its own, and neither
    uses nor closes the parent's (closing it would end the parent's session)."""
    slug, _ = survey
    if not is_postgresql(app):
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    (parents,) = kept_connections(app)
    parents.pid = -1  # as the child sees it: made in another process
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    (childs,) = kept_connections(app)
    assert childs is not parents
    assert parents in kept_connection._parents_connections
    assert not parents.driver.closed
    assert parents.driver.execute("SELECT 1").fetchone() == (1,)
    with app.app_context():
        db.engine.dispose()  # closes the child's own, not the parent's
    assert childs.driver.closed and not parents.driver.closed
    kept_connection._parents_connections.remove(parents)
    parents.driver.close()


def test_a_statement_deallocated_since_is_prepared_again(app, client, survey):
    slug, _ = survey
    if not is_postgresql(app):
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    (kept,) = kept_connections(app)
    kept.driver.execute("DEALLOCATE ALL")
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    assert server_names(kept) == [submissions.RECORD.name]
    assert (respondents(app, slug), stored(app)) == (2, 2)


def test_a_statement_prepared_for_tables_changed_since_is_prepared_again(app, client, survey):
    """A prepared plan whose table is gone (as a migration may leave it) ran nothing: the
    statement is prepared again for the tables as they are, and the submission stored once."""
    slug, _ = survey
    if not is_postgresql(app):
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    (kept,) = kept_connections(app)
    name = submissions.RECORD.name
    kept.driver.execute("DEALLOCATE ALL")
    kept.driver.execute("CREATE TEMPORARY TABLE outdated (submission_id text)")
    kept.driver.execute(
        f"PREPARE {name} (text, text, text, text, text) AS INSERT INTO outdated VALUES ($1)"
    )
    kept.driver.execute("DROP TABLE outdated")
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    assert server_names(kept) == [name]
    assert (respondents(app, slug), stored(app)) == (2, 2)


def test_disposing_leaves_a_running_thread_s_connection_to_that_thread(app, survey):
    """Another thread may be in the middle of a statement on its kept connection: disposing
    the engine from this thread forgets it but does not close it under that thread."""
    slug, _ = survey
    if not is_postgresql(app):
        return
    posted, release = threading.Event(), threading.Event()
    statuses = []

    def other_thread():
        statuses.append(post_json(app.test_client(), slug, submission(app, slug)).status_code)
        posted.set()
        release.wait(timeout=30)

    thread = threading.Thread(target=other_thread)
    thread.start()
    try:
        assert posted.wait(timeout=30) and statuses == [201]
        (theirs,) = kept_connections(app)
        with app.app_context():
            db.engine.dispose()
        assert kept_connections(app) == []
        assert not theirs.driver.closed
    finally:
        release.set()
        thread.join(timeout=30)
    theirs.driver.close()
