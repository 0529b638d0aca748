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

import shutil
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest
import redis
from cluster import PgBouncer
from loadkit import (
    HOST,
    START_TIMEOUT,
    STOP_TIMEOUT,
    Deployment,
    Server,
    free_port,
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
    binary = shutil.which("redis-server")
    assert binary, "redis-server is missing: apt-get install redis-server"
    port = free_port()
    log = open(tmp_path / "redis.log", "w")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    client = redis.Redis(host=HOST, port=port, socket_timeout=10)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, (tmp_path / "redis.log").read_text()
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                pass
            assert time.monotonic() < deadline, "redis-server did not answer"
            time.sleep(0.05)
        yield f"redis://{HOST}:{port}/0", client
    finally:
        client.close()
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
        log.close()


@pytest.fixture
def pgbouncer() -> Iterator[PgBouncer]:
    """PgBouncer in transaction pooling (deploy/pgbouncer.ini) before the PostgreSQL pass's
    server, two server connections a database (tests/load/cluster.py); the PostgreSQL pass
    alone runs the tests that use it (tests/conftest.py: EVERY_DATABASE_FIXTURES). One a test:
    its server connections must be gone before the next test's database replaces this one's."""
    if not TEST_DATABASE_URL:
        pytest.fail("PgBouncer stands before PostgreSQL: set SURVEY_APP_TEST_DATABASE_URL")
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
