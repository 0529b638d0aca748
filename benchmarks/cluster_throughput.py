"""Submissions a second through the cluster of tests/load/test_cluster.py (HAProxy on
deploy/haproxy.cfg before three app servers, PgBouncer on deploy/pgbouncer.ini before a
PostgreSQL of its own) against one app server with as many workers, through the same PgBouncer.

    python3 -m benchmarks.cluster_throughput [--seconds 10] [--rounds 3]

The two take turns, round after round, so that the machine's drift falls on both; the figures
are printed as JSON. On one machine the cluster cannot be faster: the same cores serve every
server, and HAProxy adds a hop. It shows what the balancer and the extra processes cost.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from benchmarks.harness import Deployment, Server
from benchmarks.measuring import measure_throughput
from benchmarks.seeding import create_fixtures
from tests.load.cluster import HAProxy, PgBouncer, PostgreSQL

SERVERS = 3  # as deploy/haproxy.cfg names them


def _options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each measurement's length")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each setup")
    parser.add_argument("--workers", type=int, default=2, help="workers of each cluster server")
    parser.add_argument("--threads", type=int, default=16, help="client threads")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = _options(argv)
    directory = Path(tempfile.mkdtemp(prefix="survey-app-cluster-bench-"))
    postgresql = PostgreSQL.start()
    started: list = []
    try:
        deployment = Deployment(postgresql.url(), directory)
        deployment.cli("init-db")
        app = deployment.create_app()
        shape = create_fixtures(app).live
        bouncer = PgBouncer.start(postgresql.url(), pool_size=10)
        started.append(bouncer)
        env = {
            "SURVEY_APP_DATABASE_URL": bouncer.url(postgresql.url()),
            "SURVEY_APP_DATABASE_POOL_MODE": "transaction",
        }
        workers = options.workers * SERVERS
        cluster = [
            Server.survey_app(deployment, options.workers, f"cluster-{n}", **env).start()
            for n in range(SERVERS)
        ]
        single = Server.survey_app(deployment, workers, "single", **env).start()
        started.extend([*cluster, single])
        for server in started[1:]:
            server.wait_ready(f"/api/v1/surveys/{shape.slug}", expected=200)
        balancer = HAProxy.start([server.port for server in cluster], directory)
        started.append(balancer)
        figures: dict[str, list] = {"cluster": [], "one server": []}
        for _ in range(options.rounds):
            for name, port in (("cluster", balancer.port), ("one server", single.port)):
                measured = measure_throughput(
                    port, shape, options.seconds, options.threads, workers
                )
                figures[name].append(asdict(measured))
        print(json.dumps(figures, indent=2))
        return 0
    finally:
        for part in reversed(started):
            part.stop()
        postgresql.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
