"""The app behind PgBouncer in transaction pooling (deploy/pgbouncer.ini), as several servers on
one PostgreSQL run it: with SURVEY_APP_DATABASE_POOL_MODE=transaction nothing fails, and without
it the failure the setting prevents is seen, so that the test shows what the setting is for.

PgBouncer lends a server connection a transaction at a time. psycopg prepares a statement on
the server after its fifth use on a client connection; PgBouncer 1.18 (Debian 12's) does not
carry prepared statements, so the next transaction, lent another server connection, fails.
Run in CI's PostgreSQL pass only (the ``pgbouncer`` fixture), never skipped there.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time

import pytest
from loadkit import LOAD_SURVEY, new_id, run_parallel, statuses
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from benchmarks.harness import environment
from survey_app import create_app
from survey_app.extensions import db

#: A statement each transaction runs, more often than psycopg's threshold for preparing it (5).
REPEATED = text("SELECT count(*) FROM surveys WHERE id > :floor")
USES = 8
#: A lecture hall's class, each with a one-time code.
STUDENTS = 120


def _app_through(bouncer_url: str, deployment, pool_mode: str):
    with environment({"SURVEY_APP_INSTANCE_PATH": str(deployment.instance_path)}):
        return create_app(
            {
                "SECRET_KEY": deployment.secret_key,
                "SQLALCHEMY_DATABASE_URI": bouncer_url,
                "DATABASE_POOL_MODE": pool_mode,
                "RATELIMIT_ENABLED": False,
            }
        )


def _use_in_transactions(app) -> set[int]:
    """One client connection runs REPEATED in transactions, USES of them at least and until
    two server connections (PgBouncer, round robin) each ran it after psycopg's fifth use,
    within a bound; the server processes seen after that use."""
    seen: set[int] = set()
    deadline = time.monotonic() + 20
    with app.app_context():
        with db.engine.connect() as connection:
            for use in itertools.count():
                with connection.begin():
                    connection.execute(REPEATED, {"floor": use})
                    server = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
                if use >= 5:
                    seen.add(server)
                if (use >= USES and len(seen) >= 2) or time.monotonic() > deadline:
                    break
                time.sleep(0.01)  # PgBouncer opens its second server connection meanwhile
        db.engine.dispose()
    return seen


def test_statements_are_never_prepared_on_a_server_connection_in_transaction_pooling(
    pgbouncer, deployment
):
    bouncer_url = pgbouncer.url(deployment.database_url)
    # Without the setting: the statement prepared on one server connection is missing on the
    # other, as PgBouncer's transaction pooling makes it.
    with pytest.raises(DBAPIError, match="prepared statement"):
        _use_in_transactions(_app_through(bouncer_url, deployment, "session"))
    # With it, the same sequence runs.
    assert len(_use_in_transactions(_app_through(bouncer_url, deployment, "transaction"))) == 2


def test_servers_behind_pgbouncer_take_a_class_and_its_commands(
    pgbouncer, deployment, start_server
):
    """Two servers of three workers share two server connections through PgBouncer: the
    commands (a draft, a one-time code a student, opening it) and 120 submissions all succeed,
    a code used on one server is refused by the other, and the counts equal the submissions."""
    through = dataclasses.replace(
        deployment,
        database_url=pgbouncer.url(deployment.database_url),
        settings={"SURVEY_APP_DATABASE_POOL_MODE": "transaction"},
    )
    survey = through.create_survey(LOAD_SURVEY, open_it=False)
    codes = through.cli("issue-codes", survey.slug, str(STUDENTS)).split()
    through.cli("open-survey", survey.slug)
    servers = [start_server(through, workers=3, **through.settings) for _ in range(2)]
    rng = random.Random(31)
    sent = {new_id(): survey.random_values(rng) for _ in range(STUDENTS)}

    def answer(index: int, submission_id: str, values) -> tuple[int, object]:
        # Students alternate between the servers, each with a code of their own.
        return servers[index % 2].submit(survey, submission_id, values, code=codes[index])

    results = run_parallel(
        [
            lambda arguments=arguments: answer(*arguments)
            for arguments in ((index, *item) for index, item in enumerate(sent.items()))
        ],
        threads=8,
    )
    assert statuses(results) == {201: STUDENTS}
    # The first code was used through the first server: the second refuses it.
    status, reply = servers[1].submit(survey, new_id(), survey.random_values(rng), code=codes[0])
    assert (status, reply["code"]) == (409, "code_used")
    assert through.assert_consistent(survey).keys() == sent.keys()
    for server in servers:
        assert "prepared statement" not in server.log()
        assert "Traceback" not in server.log()
