"""Fixtures of the load tests; the machinery is in loadkit.py.

- ``deployment``: a fresh database set up with the real command line (init-db, create-analyst,
  create-survey --open): a SQLite file in tmp_path (a copy of one made so once a session), or,
  when SURVEY_APP_TEST_DATABASE_URL is set (the PostgreSQL pass of CI), that database with every
  table dropped first and after.
- ``start_server``: ``start_server(deployment, workers=4, **env)`` runs ``survey-app serve``
  (gunicorn) as a subprocess on a free loopback port and returns once it answers; every server
  started is stopped at the end of the test (SIGTERM, then SIGKILL after a bound).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from loadkit import (
    TEST_DATABASE_URL,
    Deployment,
    Server,
    launch_server,
    prepare_deployment,
    reset_database,
    wait_until_ready,
)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Deployment | None:
    """On SQLite, one deployment made with the commands, copied by each test's."""
    if TEST_DATABASE_URL:
        return None
    return prepare_deployment(tmp_path_factory.mktemp("template") / "deployment")


@pytest.fixture
def deployment(tmp_path, sqlite_template) -> Iterator[Deployment]:
    deployment = prepare_deployment(tmp_path / "deployment", sqlite_template)
    yield deployment
    if TEST_DATABASE_URL:
        reset_database(deployment.database_url)


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
