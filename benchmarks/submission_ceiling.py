"""How near bare Flask a submission on PostgreSQL can come: the app against a lean endpoint (bare
Flask running the app's own statement as the app does, prepared once on one autocommit driver
connection per worker and run through libpq: no checks, no hooks) and against bare Flask
(which stores nothing), served alike; and two controls that say where the lean endpoint's
cost lies: the same statement with the commit not waiting for the disk (``synchronous_commit``
off on its connections: a measure only, since the app answers 201 once the answers are
durable) and a round trip alone (``SELECT 1``).

    python3 -m benchmarks.submission_ceiling [--seconds 4] [--rounds 3]

All take turns, round after round, so that the machine's drift falls on all; the ratios to
bare Flask (summed over the rounds) and every round's figures are printed as JSON. The lean
endpoint is what the benchmark's 70% would allow the app at most: whatever the app does beyond
the one statement comes out of the difference.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import tempfile
from pathlib import Path

from benchmarks.common import DEFAULT_POSTGRESQL_BIN
from benchmarks.harness import Deployment, Server
from benchmarks.measuring import bare_flask_server, flask_app_server, measure_throughput
from benchmarks.postgresql import PostgresCluster, throwaway_database
from benchmarks.seeding import create_fixtures

WORKERS = 5  # the benchmark's default on 2 cores: 2 x cores + 1


#: The lean endpoints: what each runs for a submission (LEAN_STATEMENT).
LEAN_STATEMENTS = {
    "lean": "the app's statement",
    "lean_not_durable": "the app's statement, synchronous_commit off",
    "round_trip": "SELECT 1",
}


def lean_app():
    """Bare Flask plus one statement (LEAN_STATEMENT), on a driver connection kept by the
    worker: the app's own, with or without waiting for the disk, or a round trip alone."""
    import psycopg
    from flask import Flask, jsonify, request
    from psycopg import pq

    from survey_app.respondents.submissions import RECORD

    url, survey_id = os.environ["LEAN_DATABASE_URL"], int(os.environ["LEAN_SURVEY_ID"])
    statement = os.environ["LEAN_STATEMENT"]
    sql = "SELECT 1" if statement == "round_trip" else RECORD.sql
    app = Flask("lean")
    kept: dict[str, psycopg.Connection] = {}
    app.extensions["lean_connection"] = kept  # for a test to close

    @app.post("/api/v1/surveys/<slug>/responses")
    def submit_response(slug: str):
        payload = request.get_json()
        answers = payload["answers"]
        row = {
            "submission_id": payload["submission_id"],
            "survey_id": survey_id,
            "slug": slug,
            "submitted_on": dt.datetime.now(dt.UTC).date().isoformat(),
            "answers": ",".join(str(answers[key]) for key in sorted(answers, key=int)),
        }
        if "connection" not in kept:
            kept["connection"] = psycopg.connect(url, autocommit=True)
            if statement == "lean_not_durable":
                kept["connection"].execute("SET synchronous_commit = off")
            prepared = kept["connection"].pgconn.prepare(b"lean", sql.encode())
            if prepared.status != pq.ExecStatus.COMMAND_OK:
                raise RuntimeError(prepared.error_message.decode())
        parameters = [] if sql == "SELECT 1" else [str(v).encode() for v in RECORD.values(row)]
        result = kept["connection"].pgconn.exec_prepared(b"lean", parameters)
        if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
            raise RuntimeError(result.error_message.decode())
        return jsonify(submission_id=row["submission_id"], status="recorded"), 201

    return app


def _lean_server(deployment: Deployment, url: str, survey_id: int, statement: str) -> Server:
    env = {
        "LEAN_DATABASE_URL": url.replace("postgresql+psycopg://", "postgresql://"),
        "LEAN_SURVEY_ID": str(survey_id),
        "LEAN_STATEMENT": statement,
    }
    factory = "benchmarks.submission_ceiling:lean_app"
    return flask_app_server(deployment, WORKERS, statement.replace("_", " "), factory, env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="each measurement's length")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each endpoint")
    parser.add_argument("--threads", type=int, default=16, help="client threads")
    options = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        cluster = stack.enter_context(PostgresCluster(DEFAULT_POSTGRESQL_BIN))
        url = stack.enter_context(throwaway_database(cluster))
        deployment = Deployment(url, directory)
        deployment.cli("init-db")
        shape = create_fixtures(deployment.create_app()).live
        servers = {
            "app": Server.survey_app(deployment, WORKERS, "app"),
            **{
                statement: _lean_server(deployment, url, shape.survey_id, statement)
                for statement in LEAN_STATEMENTS
            },
            "bare": bare_flask_server(deployment, WORKERS),
        }
        for server in servers.values():
            server.start()
            stack.callback(server.stop)
        for server in servers.values():
            server.wait_ready()
        rounds: dict[str, list[float]] = {name: [] for name in servers}
        for turn in range(options.rounds):
            for name, server in servers.items():
                measured = measure_throughput(
                    server.port, shape, options.seconds, options.threads, WORKERS, turn == 0
                )
                rounds[name].append(round(measured.per_second))
        bare = sum(rounds["bare"])
        ratios = {name: round(sum(figures) / bare, 3) for name, figures in rounds.items()}
        print(json.dumps({"ratio to bare Flask": ratios, "submissions a second": rounds}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
