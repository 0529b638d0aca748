"""Fixtures of the load tests; the machinery is in loadkit.py.

- ``deployment``: a fresh database set up with the real command line (init-db, create-analyst,
  create-survey --open), a copy of one made so once a session: a SQLite file in tmp_path, or,
  when SURVEY_APP_TEST_DATABASE_URL is set (the PostgreSQL pass of CI), a database of its own
  on that server.
- ``start_server``: ``start_server(deployment, workers=4, **env)`` runs ``survey-app serve``
  (gunicorn) as a subprocess on a free loopback port and returns once it answers; every server
  started is stopped at the end of the test (SIGTERM, then SIGKILL after a bound).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from cluster import PgBouncer, PostgreSQL, RedisServer
from loadkit import (
    Deployment,
    Server,
    launch_server,
    prepare_deployment,
    wait_until_ready,
)

from tests.databases import TEST_DATABASE_URL


@pytest.fixture(scope="session")
def deployment_template(tmp_path_factory) -> Deployment:
    """One deployment made with the commands, copied by each test's."""
    return prepare_deployment(tmp_path_factory.mktemp("template") / "deployment")


@pytest.fixture
def deployment(tmp_path, deployment_template) -> Deployment:
    return prepare_deployment(tmp_path / "deployment", deployment_template)


@pytest.fixture
def redis_server(tmp_path):
    """(URL, client) of a fresh redis-server on a free loopback port, with no persistence."""
    server = RedisServer.start(tmp_path)
    client = server.client()
    try:
        yield server.url, client
    finally:
        client.close()
        server.stop()


@pytest.fixture
def own_postgresql() -> Iterator[PostgreSQL]:
    """A PostgreSQL server of the test's own (tests/load/cluster.py), which it may restart; in
    the PostgreSQL pass alone, with the load tests (tests/conftest.py)."""
    server = PostgreSQL.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pgbouncer() -> Iterator[PgBouncer]:
    """PgBouncer in transaction pooling (deploy/pgbouncer.ini) before the PostgreSQL pass's
    server, two server connections a database (tests/load/cluster.py); the PostgreSQL pass
    alone runs the tests that use it (tests/conftest.py: EVERY_DATABASE_FIXTURES). One a test:
    its server connections must be gone before the next test's database replaces this one's."""
    if not TEST_DATABASE_URL:
        # Outside CI's PostgreSQL pass (a plain pytest run); in CI a skip fails (conftest.py).
        pytest.skip("PgBouncer stands before PostgreSQL: bash .ci/run runs this on one")
    bouncer = PgBouncer.start(TEST_DATABASE_URL)
    yield bouncer
    bouncer.stop()


@pytest.fixture
def start_server() -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(deployment: Deployment, workers: int = 4, **env: str) -> Server:
        server = launch_server(deployment, workers, **env)
        servers.append(server)
        wait_until_ready(server, deployment.survey)
        return server

    yield start
    for server in servers:
        server.stop()
