"""One run: each database measured in turn; the command line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import os
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import (
    DEFAULT_OUTPUT,
    DEFAULT_POSTGRESQL_BIN,
    DEFAULT_SIZES,
    THROUGHPUT_TURNS,
    BenchError,
    log,
)
from benchmarks.figures import BenchReport, DatabaseFigures, LatencyFigures, ThroughputFigures
from benchmarks.harness import Deployment, Server
from benchmarks.measuring import (
    bare_flask_server,
    combined,
    measure_export,
    measure_respondent_page,
    measure_results_latency,
    measure_throughput,
    percentile,
)
from benchmarks.postgresql import PostgresCluster, throwaway_database
from benchmarks.profiles import profile_missed
from benchmarks.report import evaluate, kept_notes, machine_details, print_summary, render_markdown
from benchmarks.seeding import (
    Fixtures,
    SeedState,
    check_consistency,
    create_fixtures,
    mark_closed,
    seed_submissions,
)

# ----------------------------------------------------------------------------------- a database


def measure_served(
    figures: DatabaseFigures,
    options: argparse.Namespace,
    fixtures: Fixtures,
    state: SeedState,
    rng: np.random.Generator,
    app,
    servers: tuple[Server, Server, Server],
) -> None:
    """Seed and time the results API at each size, then the export, throughput and the page."""
    from survey_app.extensions import db

    server, export_server, bare_server = servers
    name = figures.name
    for size in options.sizes:
        with app.app_context():
            seconds = seed_submissions(db.engine, state, size, rng)
        log(f"{name}: seeded to N = {size:,} in {seconds:.1f} s")
        timings, respondents = measure_results_latency(
            server.port,
            fixtures.seeded.slug,
            fixtures.token,
            options.latency_requests,
            warmup=2 * options.workers,
        )
        milliseconds = [t * 1000 for t in timings]
        latest = LatencyFigures(
            size=size,
            seed_seconds=seconds,
            requests=len(timings),
            median_ms=statistics.median(milliseconds),
            p95_ms=percentile(milliseconds, 0.95),
            respondents_reported=respondents,
        )
        figures.latency.append(latest)
        log(
            f"{name}: results API at N = {size:,}: median "
            f"{latest.median_ms:.2f} ms, p95 {latest.p95_ms:.2f} ms"
        )
    # responses.csv is exported once a survey closes: the seeded survey is marked closed
    # (closing's storage rewrite is not what this measures, so the status alone changes).
    with app.app_context():
        mark_closed(db.engine, fixtures.seeded.survey_id)
    # One results request first, so that the baseline is that of a working app.
    measure_results_latency(export_server.port, fixtures.seeded.slug, fixtures.token, 1, 0)
    figures.export = measure_export(
        export_server.port, fixtures.seeded.slug, fixtures.token, state.size, export_server
    )
    log(
        f"{name}: responses.csv: {figures.export.rows:,} rows in "
        f"{figures.export.seconds:.1f} s, peak RSS {figures.export.peak_rss_mib:.1f} MB"
    )
    # The app and the bare endpoint take turns, so that a slow spell of a shared machine
    # falls on both rather than on one of them.
    contenders = {"app_throughput": server, "bare_throughput": bare_server}
    slices: dict[str, list[ThroughputFigures]] = {label: [] for label in contenders}
    for turn in range(THROUGHPUT_TURNS):
        for label, target in contenders.items():
            slices[label].append(
                measure_throughput(
                    target.port,
                    fixtures.live,
                    options.throughput_seconds / THROUGHPUT_TURNS,
                    options.client_threads,
                    options.workers,
                    warm_up=turn == 0,
                )
            )
    for label, target in contenders.items():
        throughput = combined(slices[label])
        setattr(figures, label, throughput)
        log(f"{name}: {target.name}: {throughput.per_second:,.0f} submissions/s")
    figures.page = measure_respondent_page(server.port, fixtures.live.slug)
    log(
        f"{name}: respondent page: {figures.page.transfer_bytes:,} bytes in "
        f"{figures.page.requests} requests"
    )


def database_version(engine) -> str:
    if engine.dialect.name == "sqlite":
        return sqlite3.sqlite_version
    with engine.connect() as connection:
        return connection.exec_driver_sql("SHOW server_version").scalar_one()


def run_database(
    name: str, database_url: str, options: argparse.Namespace, rng: np.random.Generator
) -> DatabaseFigures:
    """Every measurement on one database."""
    from survey_app.extensions import db

    with tempfile.TemporaryDirectory(prefix="survey-app-bench-") as directory:
        deployment = Deployment(database_url, Path(directory))
        log(f"{name}: creating the schema with survey-app init-db")
        deployment.cli("init-db")
        app = deployment.create_app()
        try:
            with app.app_context():
                fixtures = create_fixtures(app)
                version = database_version(db.engine)
            log(f"{name}: starting the servers")
            figures = DatabaseFigures(name=name, version=version, workers=options.workers)
            state = SeedState(fixtures.seeded)
            server = Server.survey_app(deployment, options.workers, "main")
            export_server = Server.survey_app(deployment, 1, "export")
            bare_server = bare_flask_server(deployment, options.workers)
            servers = (server, export_server, bare_server)
            try:
                # Started together, as their boots overlap; idle servers take no CPU.
                for each in servers:
                    each.start()
                for each in servers:
                    each.wait_ready()
                measure_served(figures, options, fixtures, state, rng, app, servers)
            finally:
                for each in servers:
                    each.interrupt(signal.SIGINT)  # quick: nothing is in flight
                for each in servers:
                    each.wait_stopped()
            with app.app_context():
                figures.consistency = check_consistency(db.engine, state)
            log(
                f"{name}: tallies consistent with the stored rows: {figures.consistency.consistent}"
            )
            figures.verdicts = evaluate(figures)
            if options.profile != "none":
                log(f"{name}: profiling")
                # No application context around the requests: each gets its own, as in the server.
                figures.profiles = profile_missed(
                    app,
                    figures,
                    fixtures,
                    state.size,
                    options.latency_requests,
                    every=options.profile == "all",
                )
            return figures
        finally:
            with app.app_context():
                db.session.remove()
                db.engine.dispose()


# ----------------------------------------------------------------------------------- the command


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must be integers, got {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"sizes must be positive integers, got {text!r}")
    return sizes


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value}")
    return value


def parse_arguments(argv: list[str] | None = None, prog: str | None = None) -> argparse.Namespace:
    from survey_app.server import default_workers

    parser = argparse.ArgumentParser(
        prog=prog or "python -m benchmarks",
        description="Measure the app on SQLite and PostgreSQL and write docs/benchmarks.md.",
    )
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=list(DEFAULT_SIZES),
        help="submission counts to seed up to, cumulatively (default: 1000,100000,1000000)",
    )
    parser.add_argument(
        "--latency-requests",
        type=_positive_int,
        default=200,
        help="timed results requests at each size (default: 200)",
    )
    parser.add_argument(
        "--throughput-seconds",
        type=_positive_float,
        default=10.0,
        help="length of each submission throughput window (default: 10)",
    )
    parser.add_argument(
        "--client-threads", type=_positive_int, default=16, help="concurrent clients (default: 16)"
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=default_workers(),
        help=f"gunicorn workers (default: 2 x cores + 1 = {default_workers()})",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help=f"the Markdown report (default: {DEFAULT_OUTPUT})",
    )
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    postgresql = parser.add_mutually_exclusive_group()
    postgresql.add_argument(
        "--skip-postgresql", action="store_true", help="measure SQLite only (a quick run)"
    )
    postgresql.add_argument(
        "--postgresql-url",
        help="an existing PostgreSQL server (SQLAlchemy URL, e.g. "
        "postgresql+psycopg://user@host/db): the benchmark creates a throwaway database on it "
        "(CREATEDB needed) instead of starting a cluster",
    )
    parser.add_argument(
        "--postgresql-bin",
        type=Path,
        default=DEFAULT_POSTGRESQL_BIN,
        help=f"where initdb and pg_ctl are (default: {DEFAULT_POSTGRESQL_BIN})",
    )
    parser.add_argument(
        "--profile",
        choices=("missed", "all", "none"),
        default="missed",
        help="which paths to profile: those of missed targets (default), all, none",
    )
    parser.add_argument("--seed", type=int, help="seed of the generated data (default: random)")
    options = parser.parse_args(argv)
    arguments = list(argv if argv is not None else sys.argv[1:])
    if options.postgresql_url:
        from sqlalchemy.engine import make_url

        # The command is written into the report: never with a password.
        shown = make_url(options.postgresql_url).render_as_string(hide_password=True)
        arguments = [
            shown if argument == options.postgresql_url else argument for argument in arguments
        ]
        arguments = [
            f"--postgresql-url={shown}" if argument.startswith("--postgresql-url=") else argument
            for argument in arguments
        ]
    options.command = " ".join([parser.prog, *arguments])
    return options


def run(options: argparse.Namespace) -> BenchReport:
    """Every measurement, on SQLite and (unless skipped) PostgreSQL."""
    started = dt.datetime.now(dt.UTC)
    clock = time.perf_counter()
    load_at_start = os.getloadavg()
    rng = np.random.default_rng(options.seed)
    databases = []
    with tempfile.TemporaryDirectory(prefix="survey-app-bench-sqlite-") as directory:
        url = f"sqlite:///{Path(directory) / 'bench.sqlite3'}"
        databases.append(run_database("SQLite", url, options, rng))
    if not options.skip_postgresql:
        with contextlib.ExitStack() as stack:
            server_url = options.postgresql_url or stack.enter_context(
                PostgresCluster(options.postgresql_bin)
            )
            database_url = stack.enter_context(throwaway_database(server_url))
            databases.append(run_database("PostgreSQL", database_url, options, rng))
    versions = {f"{f.name} server": f.version for f in databases if f.name != "SQLite"}
    machine = machine_details(versions)
    # Other work on the machine skews every figure: say how busy it was.
    machine["Load average (1, 5, 15 min)"] = (
        f"{', '.join(f'{load:.2f}' for load in load_at_start)} at the start, "
        f"{', '.join(f'{load:.2f}' for load in os.getloadavg())} at the end"
    )
    return BenchReport(
        machine=machine,
        options={
            "command": options.command,
            "sizes": options.sizes,
            "latency_requests": options.latency_requests,
            "throughput_seconds": options.throughput_seconds,
            "client_threads": options.client_threads,
            "workers": options.workers,
        },
        databases=databases,
        started=started.strftime("%Y-%m-%d %H:%M UTC"),
        seconds=time.perf_counter() - clock,
    )


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; write the report. Exit status 0, or 1 when it could not run."""
    options = parse_arguments(argv, prog)
    try:
        report = run(options)
    except BenchError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    options.output.parent.mkdir(parents=True, exist_ok=True)
    previous = options.output.read_text(encoding="utf-8") if options.output.exists() else ""
    options.output.write_text(render_markdown(report, kept_notes(previous)), encoding="utf-8")
    if options.json:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(dataclasses.asdict(report), indent=2), encoding="utf-8")
    print_summary(report)
    log(f"wrote {options.output}")
    return 0
