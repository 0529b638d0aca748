"""The benchmark (issue 6): results latency, export speed and memory, submission throughput,
and the respondent page's weight, on SQLite and on PostgreSQL, against the real server.

Run it as ``python -m survey_app.bench`` (or ``survey-app bench``); ``--help`` lists the options.
It writes a table with the machine's details to ``docs/benchmarks.md``.

What it does, for each database:

1. creates the schema with ``survey-app init-db`` (the migrations), an analyst, an API token and
   two open 10-question surveys: one to seed, one to take the live submissions;
2. seeds randomized submissions in bulk (SQLite: ``executemany`` in one transaction; PostgreSQL:
   ``COPY``), cumulatively up to each size, and adds their counts to the tallies and to
   ``Survey.respondents`` in the same transaction, so the maintained counts stay exact;
3. at each size, times ``GET /api/v1/surveys/<slug>/results`` on ``survey-app serve``;
4. at the largest size, streams ``responses.csv`` from a one-worker server and reads the worker's
   peak resident memory (``VmHWM``);
5. posts valid submissions from many client threads for a fixed time, to the app and to a bare
   Flask endpoint served by gunicorn the same way, and reports the ratio;
6. fetches the respondent page and everything it loads, and checks that nothing is external;
7. checks that the tallies and ``respondents`` equal the counts of the rows actually stored;
8. profiles (cProfile, in-process test client) the paths whose targets were missed.

PostgreSQL is a throwaway cluster started here (``initdb``/``pg_ctl`` as the postgres user on
127.0.0.1), or a throwaway database created on the server of ``--postgresql-url``.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import dataclasses
import datetime as dt
import http.client
import json
import os
import platform
import pstats
import random
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib import metadata
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import click
import numpy as np

PACKAGE_DIR = Path(__file__).resolve().parent

DEFAULT_SIZES = (1_000, 100_000, 1_000_000)
DEFAULT_OUTPUT = Path("docs/benchmarks.md")
DEFAULT_POSTGRESQL_BIN = Path("/usr/lib/postgresql/15/bin")

#: How the benchmark starts the real command line, as a user would (``survey-app ...``).
CLI = [sys.executable, "-c", "from survey_app.cli import main; main()"]

# ----------------------------------------------------------------------------------- targets

RESULTS_MEDIAN_LIMIT_MS = 50.0
RESULTS_GROWTH_LIMIT = 3.0
EXPORT_ROWS_PER_SECOND_TARGET = 200_000
EXPORT_PEAK_RSS_LIMIT_MIB = 150.0
THROUGHPUT_RATIO_TARGET = 0.5
PAGE_TRANSFER_LIMIT_BYTES = 60 * 1024
#: Submission throughput: the app and the bare endpoint take this many turns each.
THROUGHPUT_TURNS = 5
#: The size the results and export targets are defined at.
TARGET_SIZE = 1_000_000

# ----------------------------------------------------------------------------------- the survey

#: 6 yes/no and 4 choice questions (3 to 5 options), interleaved as a real survey would be.
BENCH_DEFINITION = {
    "title": "Benchmark: academic integrity",
    "intro": "A survey seeded by the benchmark.",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        {"text": "Have you used a phone in an exam?", "type": "yes_no"},
        {"text": "Have you shared exam questions?", "type": "yes_no"},
        {
            "text": "Which year are you in?",
            "type": "choice",
            "options": ["First", "Second", "Third", "Fourth"],
        },
        {"text": "Have you invented lab data?", "type": "yes_no"},
        {
            "text": "How much did the pressure to succeed weigh?",
            "type": "choice",
            "options": ["Not at all", "A little", "Somewhat", "Much", "Very much"],
        },
        {"text": "Have you bought an essay?", "type": "yes_no"},
        {"text": "Would you report a friend?", "type": "choice", "options": ["No", "Maybe", "Yes"]},
        {"text": "Have you signed in for an absent friend?", "type": "yes_no"},
    ],
}

#: Distribution of the seeded (already randomized) values of each question, by value.
SEED_DISTRIBUTIONS = (
    (0.7, 0.3),
    (0.6, 0.3, 0.1),
    (0.85, 0.15),
    (0.75, 0.25),
    (0.3, 0.27, 0.23, 0.2),
    (0.9, 0.1),
    (0.2, 0.3, 0.25, 0.15, 0.1),
    (0.95, 0.05),
    (0.4, 0.35, 0.25),
    (0.8, 0.2),
)

#: Rows generated and written at a time while seeding (all sizes go in one transaction).
SEED_BATCH = 100_000
#: The seeded days: submitted_on is a day within this many days before today.
SEED_DAYS = 30
#: SQLite page cache of the seeding connection (KiB): random-key index inserts stay in memory.
SQLITE_SEED_CACHE_KIB = 512 * 1024

#: Rows of responses.csv read under cProfile or tracemalloc (enough to show the proportions).
PROFILE_EXPORT_ROWS = 200_000

_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


class BenchError(RuntimeError):
    """The benchmark cannot go on; the message says why."""


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------- figures


@dataclass
class LatencyFigures:
    size: int
    seed_seconds: float
    requests: int
    median_ms: float
    p95_ms: float
    respondents_reported: int


@dataclass
class ExportFigures:
    size: int
    rows: int
    seconds: float
    bytes: int
    rows_per_second: float
    rss_before_mib: float
    peak_rss_mib: float
    error: str | None = None


@dataclass
class ThroughputFigures:
    seconds: float
    client_threads: int
    workers: int
    accepted: int
    failed: int
    per_second: float
    outcomes: dict[str, int]


@dataclass
class Resource:
    url: str
    kind: str
    status: int
    body_bytes: int
    transfer_bytes: int


@dataclass
class PageFigures:
    requests: int
    body_bytes: int
    transfer_bytes: int
    resources: list[Resource]
    external: list[str]
    errors: list[str]


@dataclass
class ConsistencyFigures:
    seeded: int
    stored_rows: int
    respondents: int
    tallies_match_rows: bool
    tallies_match_seeded: bool
    consistent: bool = field(init=False)

    def __post_init__(self):
        self.consistent = (
            self.tallies_match_rows
            and self.tallies_match_seeded
            and self.seeded == self.stored_rows == self.respondents
        )


@dataclass
class Verdict:
    key: str
    passed: bool
    #: How far from the target, computed; empty when passed.
    shortfall: str = ""
    #: False when the figure could not be taken (then ``passed`` is False too).
    measured: bool = True


@dataclass
class DatabaseFigures:
    name: str
    version: str
    workers: int
    latency: list[LatencyFigures] = field(default_factory=list)
    export: ExportFigures | None = None
    app_throughput: ThroughputFigures | None = None
    bare_throughput: ThroughputFigures | None = None
    page: PageFigures | None = None
    consistency: ConsistencyFigures | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    #: Markdown of the profile of each missed target's path, by target key.
    profiles: dict[str, str] = field(default_factory=dict)

    @property
    def throughput_ratio(self) -> float | None:
        if not self.app_throughput or not self.bare_throughput:
            return None
        if self.bare_throughput.per_second == 0:
            return None
        return self.app_throughput.per_second / self.bare_throughput.per_second


@dataclass
class BenchReport:
    machine: dict[str, str]
    options: dict[str, object]
    databases: list[DatabaseFigures]
    started: str
    seconds: float


# ----------------------------------------------------------------------------------- seeding


@dataclass
class SurveyShape:
    """What the benchmark needs to know of a survey it created."""

    slug: str
    survey_id: int
    question_ids: list[int]
    option_counts: list[int]


@dataclass
class SeedState:
    """The seeded survey and the counts of every value seeded so far (cumulative)."""

    shape: SurveyShape
    size: int = 0
    counts: list[np.ndarray] = field(default_factory=list)

    def __post_init__(self):
        if not self.counts:
            self.counts = [np.zeros(k, dtype=np.int64) for k in self.shape.option_counts]


def random_uuid4_strings(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` random version-4 UUIDs in canonical form, in sorted order.

    Built with numpy rather than ``uuid.uuid4()`` a million times; sorted so that the bulk insert
    appends to the primary-key index instead of touching pages at random.
    """
    raw = np.frombuffer(rng.bytes(16 * count), dtype=np.uint8).reshape(count, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    raw = np.sort(raw.view("S16").ravel()).view(np.uint8).reshape(count, 16)
    digits = np.empty((count, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX_DIGITS[raw >> 4]
    digits[:, 1::2] = _HEX_DIGITS[raw & 0x0F]
    text = np.full((count, 36), ord("-"), dtype=np.uint8)
    for start, stop, offset in ((0, 8, 0), (8, 12, 1), (12, 16, 2), (16, 20, 3), (20, 32, 4)):
        text[:, start + offset : stop + offset] = digits[:, start:stop]
    return text.view("S36").ravel().astype("U36").tolist()


def encode_answer_rows(values: np.ndarray) -> list[str]:
    """Rows of single-digit values as the app stores them: ``"1,0,2,..."``."""
    if values.size and values.max() > 9:
        raise ValueError("encode_answer_rows: values must be single digits (0 .. 9)")
    count, questions = values.shape
    text = np.full((count, 2 * questions - 1), ord(","), dtype=np.uint8)
    text[:, 0::2] = values + ord("0")
    return text.view(f"S{2 * questions - 1}").ravel().astype(f"U{2 * questions - 1}").tolist()


def draw_values(rng: np.random.Generator, count: int, option_counts: list[int]) -> np.ndarray:
    """A ``count`` x questions matrix of randomized values, by SEED_DISTRIBUTIONS."""
    columns = []
    for options, distribution in zip(option_counts, SEED_DISTRIBUTIONS, strict=True):
        if len(distribution) != options:
            raise ValueError("SEED_DISTRIBUTIONS does not match the survey's questions")
        columns.append(rng.choice(options, size=count, p=distribution).astype(np.uint8))
    return np.column_stack(columns)


def draw_days(rng: np.random.Generator, count: int) -> list[str]:
    today = dt.date.today()
    days = np.array([(today - dt.timedelta(days=n)).isoformat() for n in range(SEED_DAYS)])
    return days[rng.integers(0, SEED_DAYS, size=count)].tolist()


def seed_submissions(engine, state: SeedState, target_size: int, rng: np.random.Generator) -> float:
    """Add submissions until ``target_size`` are seeded; return the seconds it took.

    The rows, their tallies and ``respondents`` are written in one transaction, so that the
    maintained counts are exactly those of the stored rows at every moment.
    """
    missing = target_size - state.size
    if missing <= 0:
        return 0.0
    started = time.perf_counter()
    batch_counts = [np.zeros_like(counts) for counts in state.counts]
    raw = engine.raw_connection()
    try:
        if engine.dialect.name == "sqlite":
            _seed_sqlite(raw, state, missing, rng, batch_counts)
        elif engine.dialect.name == "postgresql":
            _seed_postgresql(raw, state, missing, rng, batch_counts)
        else:
            raise BenchError(f"seeding: unsupported database {engine.dialect.name!r}")
    finally:
        raw.close()
    for counts, added in zip(state.counts, batch_counts, strict=True):
        counts += added
    state.size = target_size
    if engine.dialect.name == "postgresql":
        # What autovacuum does soon after a bulk load: measure the steady state, not the moment.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
    return time.perf_counter() - started


def _seed_batches(
    state: SeedState, missing: int, rng: np.random.Generator, batch_counts: list[np.ndarray]
) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """Batches of (submission ids, days, answers), counting the values as they are drawn."""
    for start in range(0, missing, SEED_BATCH):
        count = min(SEED_BATCH, missing - start)
        values = draw_values(rng, count, state.shape.option_counts)
        for column, counts in enumerate(batch_counts):
            counts += np.bincount(values[:, column], minlength=len(counts))
        yield random_uuid4_strings(rng, count), draw_days(rng, count), encode_answer_rows(values)


def _tally_parameters(state: SeedState, batch_counts: list[np.ndarray]) -> list[tuple[int, ...]]:
    return [
        (int(count), question_id, value)
        for question_id, counts in zip(state.shape.question_ids, batch_counts, strict=True)
        for value, count in enumerate(counts)
    ]


def _seed_sqlite(raw, state, missing, rng, batch_counts) -> None:
    cursor = raw.cursor()
    try:
        # Safe only for seeding a throwaway database, and the connection is discarded afterwards.
        cursor.execute("PRAGMA synchronous = OFF")
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_SEED_CACHE_KIB}")
        cursor.execute("BEGIN IMMEDIATE")
        try:
            survey_id = state.shape.survey_id
            for ids, days, answers in _seed_batches(state, missing, rng, batch_counts):
                cursor.executemany(
                    "INSERT INTO submissions (submission_id, survey_id, submitted_on, answers)"
                    " VALUES (?, ?, ?, ?)",
                    zip(ids, [survey_id] * len(ids), days, answers, strict=True),
                )
            _write_counts(cursor, "?", state, batch_counts)
            cursor.execute("COMMIT")
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        # The pragmas above must not reach the app's pool.
        raw.invalidate()


def _seed_postgresql(raw, state, missing, rng, batch_counts) -> None:
    cursor = raw.cursor()
    try:
        suffix = f"\t{state.shape.survey_id}\t"
        for ids, days, answers in _seed_batches(state, missing, rng, batch_counts):
            block = "".join(
                f"{submission_id}{suffix}{day}\t{answer}\n"
                for submission_id, day, answer in zip(ids, days, answers, strict=True)
            )
            with cursor.copy(
                "COPY submissions (submission_id, survey_id, submitted_on, answers) FROM STDIN"
            ) as copy:
                copy.write(block)
        _write_counts(cursor, "%s", state, batch_counts)
        raw.commit()
    except BaseException:
        raw.rollback()
        raise


def _write_counts(cursor, placeholder: str, state, batch_counts) -> None:
    """Add the seeded counts to the tallies (opened at zero) and to ``respondents``."""
    p = placeholder
    parameters = _tally_parameters(state, batch_counts)
    # Seeded counts go to shard 0 of each value; the app adds to random shards.
    cursor.executemany(
        f"UPDATE tallies SET noisy_count = noisy_count + {p}"
        f" WHERE question_id = {p} AND value = {p} AND shard = 0",
        parameters,
    )
    cursor.execute(
        f"SELECT count(*) FROM tallies WHERE shard = 0"
        f" AND question_id IN ({', '.join([p] * len(state.counts))})",
        state.shape.question_ids,
    )
    if cursor.fetchone()[0] != len(parameters):
        raise BenchError("seeding: the survey's tallies are not those its questions need")


def check_consistency(engine, state: SeedState) -> ConsistencyFigures:
    """Count the stored rows' values afresh and compare with the tallies and ``respondents``."""
    p = "?" if engine.dialect.name == "sqlite" else "%s"
    shape = state.shape
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute(f"SELECT answers FROM submissions WHERE survey_id = {p}", (shape.survey_id,))
        answers = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            f"SELECT question_id, value, sum(noisy_count) FROM tallies"
            f" WHERE question_id IN ({', '.join([p] * len(shape.question_ids))})"
            f" GROUP BY question_id, value",
            shape.question_ids,
        )
        tallies = {(question_id, value): int(count) for question_id, value, count in cursor}
        # What the app reports as respondents: the first question's count.
        respondents = sum(
            count
            for (question_id, _), count in tallies.items()
            if question_id == shape.question_ids[0]
        )
        raw.rollback()
    finally:
        raw.close()
    questions = len(shape.question_ids)
    if answers:
        values = np.fromstring(",".join(answers), dtype=np.int64, sep=",").reshape(-1, questions)
    else:
        values = np.zeros((0, questions), dtype=np.int64)
    from_rows = [
        np.bincount(values[:, column], minlength=options)
        for column, options in enumerate(shape.option_counts)
    ]
    from_tallies = [
        np.array([tallies.get((question_id, value), -1) for value in range(options)])
        for question_id, options in zip(shape.question_ids, shape.option_counts, strict=True)
    ]
    return ConsistencyFigures(
        seeded=state.size,
        stored_rows=len(answers),
        respondents=int(respondents),
        tallies_match_rows=all(
            np.array_equal(a, b) for a, b in zip(from_rows, from_tallies, strict=True)
        ),
        tallies_match_seeded=all(
            np.array_equal(a, b) for a, b in zip(state.counts, from_tallies, strict=True)
        ),
    )


# ----------------------------------------------------------------------------------- the app


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of a block."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class Deployment:
    """One database with the app's schema, and what the servers need to run against it."""

    name: str
    database_url: str
    directory: Path
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(48))

    @property
    def instance_path(self) -> Path:
        return self.directory / "instance"

    def server_environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SURVEY_APP_DATABASE_URL=self.database_url,
            SURVEY_APP_SECRET_KEY=self.secret_key,
            SURVEY_APP_INSTANCE_PATH=str(self.instance_path),
            SURVEY_APP_RATELIMIT_ENABLED="false",
            # The package, even when run from outside the source tree without being installed.
            PYTHONPATH=os.pathsep.join(
                filter(None, [str(PACKAGE_DIR.parent), os.environ.get("PYTHONPATH")])
            ),
        )
        return env

    def run_cli(self, *arguments: str) -> str:
        """Run a ``survey-app`` command against this database; its standard output."""
        done = subprocess.run(
            [*CLI, *arguments],
            env=self.server_environment(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise BenchError(
                f"survey-app {' '.join(arguments)} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )
        return done.stdout

    def create_app(self):
        """The app in this process, for fixtures, seeding and profiles."""
        from survey_app import create_app

        self.instance_path.mkdir(parents=True, exist_ok=True)
        with environment({"SURVEY_APP_INSTANCE_PATH": str(self.instance_path)}):
            return create_app(
                {
                    "SECRET_KEY": self.secret_key,
                    "SQLALCHEMY_DATABASE_URI": self.database_url,
                    "RATELIMIT_ENABLED": False,
                }
            )


@dataclass
class Fixtures:
    token: str
    seeded: SurveyShape
    live: SurveyShape


def create_fixtures(app) -> Fixtures:
    """An analyst, an API token, and two open benchmark surveys (seeded, and live)."""
    from survey_app.accounts import create_analyst, create_token
    from survey_app.extensions import db
    from survey_app.surveys import create_survey, open_survey, parse_definition

    with app.app_context():
        analyst = create_analyst("bench@example.edu", secrets.token_urlsafe(24))
        shapes = []
        for title in ("Benchmark: seeded", "Benchmark: live submissions"):
            survey = create_survey(analyst, parse_definition(BENCH_DEFINITION | {"title": title}))
            db.session.commit()
            open_survey(survey)
            shapes.append(
                SurveyShape(
                    slug=survey.slug,
                    survey_id=survey.id,
                    question_ids=[question.id for question in survey.questions],
                    option_counts=[question.option_count for question in survey.questions],
                )
            )
        token = create_token(analyst)
        db.session.commit()
        return Fixtures(token=token, seeded=shapes[0], live=shapes[1])


def database_version(engine) -> str:
    if engine.dialect.name == "sqlite":
        return sqlite3.sqlite_version
    with engine.connect() as connection:
        return connection.exec_driver_sql("SHOW server_version").scalar_one()


# ----------------------------------------------------------------------------------- servers


_ports_given: set[int] = set()


def free_port() -> int:
    """A free loopback port, never one already given out (servers are made before they bind)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in _ports_given:
            _ports_given.add(port)
            return port


def child_pids(parent: int) -> list[int]:
    """Processes whose parent is ``parent`` (from /proc: /proc/*/task/*/children may be absent)."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces or parentheses: the fields follow the last ")".
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == parent:
            children.append(int(entry))
    return children


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set size (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"no VmHWM in /proc/{pid}/status")


class Server:
    """A gunicorn server in a subprocess: ``survey-app serve``, or the bare Flask app."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int, log_path: Path):
        self.name = name
        self.argv = argv
        self.env = env
        self.port = port
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    @classmethod
    def survey_app(cls, deployment: Deployment, workers: int, label: str) -> Server:
        port = free_port()
        argv = [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--workers", str(workers)]
        log_path = deployment.directory / f"server-{label}-{port}.log"
        return cls(
            f"survey-app serve ({label})", argv, deployment.server_environment(), port, log_path
        )

    @classmethod
    def bare_flask(cls, deployment: Deployment, workers: int) -> Server:
        port = free_port()
        code = (
            "from survey_app.bench import serve_bare_flask; "
            f"serve_bare_flask('127.0.0.1', {port}, {workers})"
        )
        log_path = deployment.directory / f"server-bare-{port}.log"
        argv = [sys.executable, "-c", code]
        return cls("bare Flask", argv, deployment.server_environment(), port, log_path)

    def start(self) -> None:
        """Start the server and return at once; :meth:`wait_ready` waits for it."""
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(
                self.argv, env=self.env, stdout=log_file, stderr=subprocess.STDOUT
            )

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until the server answers and every worker has booted."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise BenchError(f"{self.name} exited at start:\n{self.log_tail()}")
            try:
                fetch(self.port, "GET", "/", timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise BenchError(f"{self.name} did not answer:\n{self.log_tail()}") from None
                time.sleep(0.1)
        # Measure only once every worker has booted (each builds its own app after the fork).
        while len(self.worker_pids()) < self._configured_workers():
            if time.monotonic() > deadline:
                raise BenchError(f"{self.name}: workers did not boot:\n{self.log_tail()}")
            time.sleep(0.1)

    def _configured_workers(self) -> int:
        if "--workers" in self.argv:
            return int(self.argv[self.argv.index("--workers") + 1])
        match = re.search(r", (\d+)\)$", self.argv[-1])
        return int(match.group(1)) if match else 1

    def worker_pids(self) -> list[int]:
        return child_pids(self.process.pid) if self.process else []

    def stop(self) -> None:
        self.interrupt()
        self.wait_stopped()

    def interrupt(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # Quick shutdown (SIGINT): nothing is in flight once the measures are taken.
            self.process.send_signal(signal.SIGINT)

    def wait_stopped(self) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def last_exception(self) -> str:
        """The last exception line in the server's log (``module.Error: message``), if any."""
        found = re.findall(r"^[\w.]*(?:Error|Exception)\b.*$", self.log_tail(200_000), re.M)
        return found[-1][:400] if found else ""

    def log_tail(self, characters: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-characters:]
        except OSError:
            return "(no log)"


def bare_flask_app():
    """A minimal Flask app: one POST route that parses the JSON body and answers 201."""
    from flask import Flask, jsonify, request

    app = Flask("bare_flask")

    @app.post("/api/v1/surveys/<slug>/responses")
    def submit_response(slug: str):
        """Parse the submission and answer as the app does, storing nothing."""
        payload = request.get_json()
        return jsonify(submission_id=payload["submission_id"], status="recorded"), 201

    return app


def serve_bare_flask(host: str, port: int, workers: int) -> None:
    """Serve :func:`bare_flask_app` exactly as ``survey-app serve`` serves the app.

    The app's own gunicorn application is reused with only the app it loads swapped, so the
    worker class, worker count, timeouts and logging are the same by construction.
    """
    from survey_app import server

    server.SurveyServer.load = lambda self: bare_flask_app()
    server.serve(host=host, port=port, workers=workers)


# ----------------------------------------------------------------------------------- HTTP


@dataclass
class Fetched:
    status: int
    body: bytes
    header_bytes: int
    content_type: str


def fetch(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Fetched:
    """One request on a new connection (gunicorn's sync workers close every connection)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        content = response.read()
        header_bytes = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + 2
        header_bytes += sum(len(name) + len(value) + 4 for name, value in response.getheaders())
        return Fetched(
            response.status, content, header_bytes, response.getheader("Content-Type", "")
        )
    finally:
        connection.close()


def measure_results_latency(
    port: int, slug: str, token: str, requests: int, warmup: int
) -> tuple[list[float], int]:
    """Seconds of each of ``requests`` sequential results requests, and the respondents seen."""
    path = f"/api/v1/surveys/{slug}/results"
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    respondents = -1
    timings = []
    for index in range(warmup + requests):
        started = time.perf_counter()
        fetched = fetch(port, "GET", path, headers=headers)
        elapsed = time.perf_counter() - started
        if fetched.status != 200:
            raise BenchError(f"results API answered {fetched.status}: {fetched.body[:300]!r}")
        if index == 0:
            respondents = json.loads(fetched.body)["respondents"]
        if index >= warmup:
            timings.append(elapsed)
    return timings, respondents


def percentile(values: list[float], fraction: float) -> float:
    return float(np.percentile(np.asarray(values), fraction * 100))


def measure_export(port: int, slug: str, token: str, size: int, server: Server) -> ExportFigures:
    """Stream responses.csv over HTTP, count its lines, and read the worker's peak RSS."""
    path = f"/api/v1/surveys/{slug}/responses.csv"
    headers = {"Authorization": f"Bearer {token}"}
    workers = server.worker_pids()
    if len(workers) != 1:
        raise BenchError(f"the export server should have one worker, found {len(workers)}")
    worker = workers[0]
    rss_before = peak_rss_mib(worker)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    lines = 0
    received = 0
    error = None
    started = time.perf_counter()
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        if response.status == 200:
            while chunk := response.read(1 << 20):
                lines += chunk.count(b"\n")
                received += len(chunk)
        else:
            # Reported as a miss, with the rest of the figures, rather than ending the run.
            error = f"responses.csv answered HTTP {response.status}"
            logged = server.last_exception()
            if logged:
                error += f" (server log: `{logged}`)"
            lines = 1
    except (OSError, http.client.HTTPException) as failure:
        error = f"the download broke off: {type(failure).__name__}: {failure}"
    finally:
        connection.close()
    seconds = time.perf_counter() - started
    rows = max(lines - 1, 0)  # less the header row
    try:
        peak = peak_rss_mib(worker)
    except (OSError, BenchError):
        peak = float("nan")
        error = error or "the worker was gone after the export (killed by gunicorn's timeout?)"
    if rows != size and error is None:
        error = f"{rows:,} rows counted, {size:,} stored"
    return ExportFigures(
        size=size,
        rows=rows,
        seconds=seconds,
        bytes=received,
        rows_per_second=rows / seconds if seconds > 0 else 0.0,
        rss_before_mib=rss_before,
        peak_rss_mib=peak,
        error=error,
    )


def submission_body(shape: SurveyShape, chooser: random.Random) -> bytes:
    """A valid submission to ``shape``: a fresh UUID4 and a value in range for every question."""
    answers = {
        str(question_id): chooser.randrange(options)
        for question_id, options in zip(shape.question_ids, shape.option_counts, strict=True)
    }
    return json.dumps({"submission_id": str(uuid.uuid4()), "answers": answers}).encode()


def measure_throughput(
    port: int,
    shape: SurveyShape,
    seconds: float,
    threads: int,
    workers: int,
    warm_up: bool = True,
) -> ThroughputFigures:
    """Submissions accepted per second from ``threads`` clients posting for ``seconds``."""
    path = f"/api/v1/surveys/{shape.slug}/responses"
    headers = {"Content-Type": "application/json"}
    # Warm every worker up first: the first request of a worker pays for lazy imports.
    chooser = random.Random()
    for _ in range(2 * workers if warm_up else 0):
        fetch(port, "POST", path, submission_body(shape, chooser), headers)
    outcomes: list[Counter] = [Counter() for _ in range(threads)]
    start_together = threading.Barrier(threads + 1)
    deadline = 0.0

    def client(outcome: Counter) -> None:
        chooser = random.Random()
        start_together.wait()
        while time.perf_counter() < deadline:
            body = submission_body(shape, chooser)
            try:
                status = fetch(port, "POST", path, body, headers, timeout=30).status
                outcome[str(status)] += 1
            except (OSError, http.client.HTTPException) as failure:
                outcome[type(failure).__name__] += 1

    pool = [threading.Thread(target=client, args=(outcome,)) for outcome in outcomes]
    for thread in pool:
        thread.start()
    started = time.perf_counter()
    deadline = started + seconds
    start_together.wait()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    total: Counter = sum(outcomes, Counter())
    accepted = total.get("201", 0)
    return ThroughputFigures(
        seconds=elapsed,
        client_threads=threads,
        workers=workers,
        accepted=accepted,
        failed=sum(total.values()) - accepted,
        per_second=accepted / elapsed if elapsed > 0 else 0.0,
        outcomes=dict(sorted(total.items())),
    )


def combined(slices: list[ThroughputFigures]) -> ThroughputFigures:
    """One figure for several windows of the same server: totals over their summed time."""
    seconds = sum(piece.seconds for piece in slices)
    accepted = sum(piece.accepted for piece in slices)
    outcomes: Counter = sum((Counter(piece.outcomes) for piece in slices), Counter())
    return ThroughputFigures(
        seconds=seconds,
        client_threads=slices[0].client_threads,
        workers=slices[0].workers,
        accepted=accepted,
        failed=sum(piece.failed for piece in slices),
        per_second=accepted / seconds if seconds > 0 else 0.0,
        outcomes=dict(sorted(outcomes.items())),
    )


# ----------------------------------------------------------------------------------- the page

#: ``<link rel=...>`` values that make the browser fetch the link.
FETCHED_LINK_RELS = {
    "stylesheet",
    "modulepreload",
    "preload",
    "prefetch",
    "icon",
    "apple-touch-icon",
    "manifest",
}
#: Attributes that load something, by element.
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "img": ("src",),
    "iframe": ("src",),
    "source": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "track": ("src",),
}
JS_IMPORT = re.compile(
    r"""\b(?:import|export)\b[^;'"`]*?\bfrom\s*["']([^"']+)["']"""
    r"""|\bimport\s*["']([^"']+)["']"""
    r"""|\bimport\s*\(\s*["']([^"']+)["']\s*\)"""
)
CSS_URL = re.compile(r"""@import\s+["']([^"']+)["']|url\(\s*["']?([^"')]+?)["']?\s*\)""")


class ResourceLinks(HTMLParser):
    """The URLs an HTML page makes the browser load, with what kind of resource each is."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "link":
            rels = set(attributes.get("rel", "").lower().split())
            if rels & FETCHED_LINK_RELS and attributes.get("href"):
                kind = "script" if "modulepreload" in rels else sorted(rels)[0]
                if "stylesheet" in rels:
                    kind = "stylesheet"
                self.links.append((kind, attributes["href"]))
        for name in LOADING_ATTRIBUTES.get(tag, ()):
            if attributes.get(name):
                self.links.append(("script" if tag == "script" else tag, attributes[name]))
        if tag == "style":
            self._in_style = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.links.extend(("stylesheet", url) for url in css_urls(data))


def js_imports(source: str) -> list[str]:
    return [
        next(group for group in match.groups() if group) for match in JS_IMPORT.finditer(source)
    ]


def css_urls(source: str) -> list[str]:
    return [next(group for group in match.groups() if group) for match in CSS_URL.finditer(source)]


def is_external(raw_url: str, page_netloc: str) -> bool:
    """True for a URL to another site: another host, or scheme-relative (``//host/...``)."""
    url = raw_url.strip()
    if url.startswith(("//", "\\\\", "/\\", "\\/")):
        return True
    parts = urlsplit(url)
    if parts.scheme in ("http", "https", "ws", "wss"):
        return parts.netloc != page_netloc
    return False


def measure_respondent_page(port: int, slug: str) -> PageFigures:
    """Fetch /s/<slug> and, recursively, what it loads; sum the bytes and count the requests."""
    page_url = f"http://127.0.0.1:{port}/s/{slug}"
    netloc = urlsplit(page_url).netloc
    queue: list[tuple[str, str, str]] = [("document", page_url, page_url)]
    seen: set[str] = set()
    resources: list[Resource] = []
    external: list[str] = []
    errors: list[str] = []
    while queue:
        kind, raw_url, base = queue.pop(0)
        if raw_url.strip().lower().startswith(("data:", "blob:", "about:", "#")):
            continue  # no request
        if is_external(raw_url, netloc):
            external.append(raw_url)
            continue
        absolute = urljoin(base, raw_url.strip()).split("#", 1)[0]
        if absolute in seen:
            continue  # the browser fetches a URL once
        seen.add(absolute)
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        fetched = fetch(port, "GET", path)
        resources.append(
            Resource(
                absolute.removeprefix(f"http://{netloc}"),
                kind,
                fetched.status,
                len(fetched.body),
                len(fetched.body) + fetched.header_bytes,
            )
        )
        if fetched.status != 200:
            errors.append(f"{path} answered {fetched.status}")
            continue
        text = fetched.body.decode("utf-8", errors="replace")
        if kind == "document":
            parser = ResourceLinks()
            parser.feed(text)
            queue.extend((found_kind, url, absolute) for found_kind, url in parser.links)
        elif kind == "script" or "javascript" in fetched.content_type:
            queue.extend(("script", url, absolute) for url in js_imports(text))
        elif kind == "stylesheet" or "css" in fetched.content_type:
            queue.extend(("resource", url, absolute) for url in css_urls(text))
    return PageFigures(
        requests=len(resources),
        body_bytes=sum(resource.body_bytes for resource in resources),
        transfer_bytes=sum(resource.transfer_bytes for resource in resources),
        resources=resources,
        external=external,
        errors=errors,
    )


# ----------------------------------------------------------------------------------- targets


def mib(value: float) -> str:
    return f"{value:,.1f} MB"


def kib(value: float) -> str:
    return f"{value / 1024:,.1f} KB"


def evaluate(figures: DatabaseFigures) -> dict[str, Verdict]:
    """PASS or MISS for every target, with how far a miss is from it."""
    verdicts: dict[str, Verdict] = {}
    if figures.latency:
        smallest, largest = figures.latency[0], figures.latency[-1]
        growth = largest.median_ms / smallest.median_ms if smallest.median_ms else float("inf")
        shortfalls = []
        if largest.median_ms > RESULTS_MEDIAN_LIMIT_MS:
            over = largest.median_ms - RESULTS_MEDIAN_LIMIT_MS
            shortfalls.append(
                f"median {largest.median_ms:.1f} ms is {over:.1f} ms "
                f"({over / RESULTS_MEDIAN_LIMIT_MS:.0%}) over {RESULTS_MEDIAN_LIMIT_MS:.0f} ms"
            )
        if growth > RESULTS_GROWTH_LIMIT:
            shortfalls.append(
                f"median grows {growth:.2f}x from N = {smallest.size:,} to N = {largest.size:,} "
                f"(limit {RESULTS_GROWTH_LIMIT:.0f}x): it must fall by "
                f"{1 - RESULTS_GROWTH_LIMIT / growth:.0%}"
            )
        verdicts["results_latency"] = Verdict(
            "results_latency", not shortfalls, "; ".join(shortfalls)
        )
    if figures.export:
        export = figures.export
        if export.error:
            verdicts["export_speed"] = Verdict("export_speed", False, export.error)
        elif export.rows_per_second < EXPORT_ROWS_PER_SECOND_TARGET:
            verdicts["export_speed"] = Verdict(
                "export_speed",
                False,
                f"{export.rows_per_second:,.0f} rows/s is "
                f"{1 - export.rows_per_second / EXPORT_ROWS_PER_SECOND_TARGET:.0%} below "
                f"{EXPORT_ROWS_PER_SECOND_TARGET:,} rows/s: it must be "
                f"{EXPORT_ROWS_PER_SECOND_TARGET / export.rows_per_second:.2f}x faster "
                f"({export.size / EXPORT_ROWS_PER_SECOND_TARGET:.1f} s instead of "
                f"{export.seconds:.1f} s for {export.size:,} rows)",
            )
        else:
            verdicts["export_speed"] = Verdict("export_speed", True)
        if export.error and export.rows == 0:
            verdicts["export_memory"] = Verdict(
                "export_memory", False, "not measured: the export failed", measured=False
            )
        elif not export.peak_rss_mib <= EXPORT_PEAK_RSS_LIMIT_MIB:
            over = export.peak_rss_mib - EXPORT_PEAK_RSS_LIMIT_MIB
            verdicts["export_memory"] = Verdict(
                "export_memory",
                False,
                f"peak {mib(export.peak_rss_mib)} is {mib(over)} "
                f"({over / EXPORT_PEAK_RSS_LIMIT_MIB:.0%}) over {mib(EXPORT_PEAK_RSS_LIMIT_MIB)} "
                f"(the worker held {mib(export.rss_before_mib)} before the export)",
            )
        else:
            verdicts["export_memory"] = Verdict("export_memory", True)
    ratio = figures.throughput_ratio
    if ratio is not None:
        app, bare = figures.app_throughput, figures.bare_throughput
        needed = THROUGHPUT_RATIO_TARGET * bare.per_second
        shortfall = ""
        if ratio < THROUGHPUT_RATIO_TARGET:
            shortfall = (
                f"{ratio:.0%} of bare Flask, {(THROUGHPUT_RATIO_TARGET - ratio) * 100:.0f} points "
                f"short of {THROUGHPUT_RATIO_TARGET:.0%}: {app.per_second:,.0f}/s must reach "
                f"{needed:,.0f}/s ({needed / max(app.per_second, 1e-9):.2f}x)"
            )
        if app.failed:
            shortfall = "; ".join(
                filter(None, [shortfall, f"{app.failed} submissions failed: {app.outcomes}"])
            )
        verdicts["throughput"] = Verdict("throughput", not shortfall, shortfall)
    if figures.page:
        page = figures.page
        shortfalls = []
        if page.transfer_bytes > PAGE_TRANSFER_LIMIT_BYTES:
            over = page.transfer_bytes - PAGE_TRANSFER_LIMIT_BYTES
            shortfalls.append(
                f"{kib(page.transfer_bytes)} is {kib(over)} "
                f"({over / PAGE_TRANSFER_LIMIT_BYTES:.0%}) over {kib(PAGE_TRANSFER_LIMIT_BYTES)}"
            )
        if page.external:
            shortfalls.append(f"{len(page.external)} external: {', '.join(page.external)}")
        if page.errors:
            shortfalls.append(f"failed requests: {', '.join(page.errors)}")
        verdicts["respondent_page"] = Verdict(
            "respondent_page", not shortfalls, "; ".join(shortfalls)
        )
    if figures.consistency:
        consistency = figures.consistency
        verdicts["consistency"] = Verdict(
            "consistency",
            consistency.consistent,
            ""
            if consistency.consistent
            else (
                f"seeded {consistency.seeded:,}, stored {consistency.stored_rows:,}, "
                f"respondents {consistency.respondents:,}, tallies match rows: "
                f"{consistency.tallies_match_rows}, tallies match seeded counts: "
                f"{consistency.tallies_match_seeded}"
            ),
        )
    return verdicts


# ----------------------------------------------------------------------------------- profiles


def _where(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    if filename == "~":
        return function
    suffix = f"({function})" if function else ""
    for marker in ("site-packages/", "lib/python3"):
        if marker in filename:
            filename = re.sub(r"^[\d.]*/", "", filename.split(marker, 1)[1])
            break
    else:
        root = str(PACKAGE_DIR.parent) + os.sep
        filename = filename.removeprefix(root)
    return f"{filename}:{line}{suffix}"


def format_profile(profiler: cProfile.Profile, per: int, unit: str, top: int = 15) -> str:
    """The heaviest functions by own time, and the app's functions by cumulative time."""
    stats = pstats.Stats(profiler)
    rows = [
        (key, calls, own, cumulative)
        for key, (_primitive, calls, own, cumulative, _callers) in stats.stats.items()
    ]
    bench_file = str(Path(__file__).resolve())

    def table(selected) -> list[str]:
        lines = [f"{'own ms':>9} {'cum ms':>9} {'calls':>9}  function (per {unit})"]
        for key, calls, own, cumulative in selected:
            lines.append(
                f"{own * 1000 / per:9.3f} {cumulative * 1000 / per:9.3f} "
                f"{calls / per:9.1f}  {_where(key)}"
            )
        return lines

    by_own = sorted(rows, key=lambda row: row[2], reverse=True)[:top]
    app_rows = [
        row
        for row in rows
        if f"{os.sep}survey_app{os.sep}" in row[0][0] and row[0][0] != bench_file
    ]
    by_cumulative = sorted(app_rows, key=lambda row: row[3], reverse=True)[:top]
    return "\n".join(
        [
            "Where the time goes, by own time (profiled total "
            f"{stats.total_tt * 1000 / per:.2f} ms per {unit}):",
            "",
            "```",
            *table(by_own),
            "```",
            "",
            "The app's own functions, by cumulative time:",
            "",
            "```",
            *table(by_cumulative),
            "```",
        ]
    )


def profile_section(title: str, call: Callable[[], None], count: int, unit: str) -> str:
    """Time ``call`` ``count`` times (wall and CPU), then again under cProfile."""
    call()  # warm up: lazy imports, first queries, caches
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(count):
        call()
    profiler.disable()
    return "\n".join(
        [
            f"#### {title}",
            "",
            f"In-process (Flask test client, same database), {count:,} {unit}(s), without the "
            f"profiler: {wall * 1000 / count:.2f} ms wall, {cpu * 1000 / count:.2f} ms CPU per "
            f"{unit}. A wall time well above the CPU time is time spent waiting (disk, locks, "
            "the database server).",
            "",
            format_profile(profiler, count, unit),
        ]
    )


def consume_export(client, path: str, headers: dict[str, str], rows: int) -> int:
    """Read responses.csv through the test client until ``rows`` rows; return the lines read."""
    lines = 0
    try:
        response = client.get(path, headers=headers, buffered=False)
        try:
            if response.status_code != 200:
                raise BenchError(f"responses.csv answered HTTP {response.status_code} in-process")
            for chunk in response.response:
                lines += (chunk if isinstance(chunk, bytes) else chunk.encode()).count(b"\n")
                if lines > rows:
                    break
        finally:
            response.close()
    except BenchError:
        raise
    except Exception as error:  # the stream broke off; the server answers 500 then
        message = str(error).splitlines()[0] if str(error) else ""
        raise BenchError(
            f"responses.csv failed in-process: `{type(error).__name__}: {message}`"
        ) from error
    return lines


def profile_missed(
    app, figures: DatabaseFigures, fixtures: Fixtures, size: int, count: int, every: bool
) -> dict[str, str]:
    """Profile the path of every missed target (of every target with ``every``)."""
    client = app.test_client()
    auth = {"Authorization": f"Bearer {fixtures.token}"}
    seeded = fixtures.seeded.slug
    profiles: dict[str, str] = {}

    def wanted(key: str) -> bool:
        verdict = figures.verdicts.get(key)
        return every or (verdict is not None and not verdict.passed)

    if wanted("results_latency"):

        def results() -> None:
            response = client.get(f"/api/v1/surveys/{seeded}/results", headers=auth)
            assert response.status_code == 200, response.status_code

        profiles["results_latency"] = profile_section(
            f"Results API, N = {size:,}", results, count, "request"
        )
    export_rows = min(size, PROFILE_EXPORT_ROWS)
    export_path = f"/api/v1/surveys/{seeded}/responses.csv"
    export_title = f"responses.csv, the first {export_rows:,} of {size:,} rows"
    if wanted("export_speed"):
        try:
            profiles["export_speed"] = profile_section(
                export_title,
                lambda: consume_export(client, export_path, auth, export_rows),
                1,
                "export",
            )
        except BenchError as error:
            profiles["export_speed"] = f"#### {export_title}\n\nNot profiled: {error}."
    if wanted("export_memory"):
        tracemalloc.start(10)
        try:
            consume_export(client, export_path, auth, export_rows)
            current, peak = tracemalloc.get_traced_memory()
            snapshot = tracemalloc.take_snapshot()
        except BenchError as error:
            snapshot = None
            profiles["export_memory"] = f"#### {export_title}\n\nNot traced: {error}."
        finally:
            tracemalloc.stop()
    if wanted("export_memory") and snapshot is not None:
        top = snapshot.statistics("lineno")[:10]
        profiles["export_memory"] = "\n".join(
            [
                f"#### responses.csv memory, the first {export_rows:,} rows",
                "",
                f"tracemalloc, in-process: peak {peak / 2**20:.1f} MB of Python objects "
                f"allocated during the export, {current / 2**20:.1f} MB still held after it. "
                "Largest live allocations after the export:",
                "",
                "```",
                *(
                    f"{stat.size / 1024:9,.1f} KB {stat.count:7,} blocks  "
                    f"{_where((stat.traceback[0].filename, stat.traceback[0].lineno, ''))}"
                    for stat in top
                ),
                "```",
            ]
        )
    if wanted("throughput"):
        live = fixtures.live
        chooser = random.Random()

        def submit() -> None:
            response = client.post(
                f"/api/v1/surveys/{live.slug}/responses",
                data=submission_body(live, chooser),
                content_type="application/json",
            )
            assert response.status_code == 201, response.status_code

        profiles["throughput"] = profile_section(
            "Submissions (one client, in-process)", submit, count, "submission"
        )
    return profiles


# ----------------------------------------------------------------------------------- PostgreSQL


class PostgresCluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1 in a temporary directory, as .ci/run starts."""

    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.directory: Path | None = None
        self.port = 0
        self.started = False

    def _run(self, *command: str) -> None:
        argv = [str(self.bin_dir / command[0]), *command[1:]]
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root.
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise BenchError(f"{' '.join(command[:2])} failed: {done.stderr.strip()[-1500:]}")

    def __enter__(self) -> str:
        if not (self.bin_dir / "initdb").exists():
            raise BenchError(
                f"no PostgreSQL at {self.bin_dir} (install postgresql-15, or pass "
                "--postgresql-bin, --postgresql-url or --skip-postgresql)"
            )
        self.directory = Path(tempfile.mkdtemp(prefix="survey-app-bench-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        data = self.directory / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        self.port = free_port()
        settings = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.directory} -c max_connections=200"
        )
        log_file = str(self.directory / "log")
        self._run("pg_ctl", "-D", str(data), "-l", log_file, "-w", "-o", settings, "start")
        self.started = True
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def __exit__(self, *_exc) -> None:
        if self.started:
            with contextlib.suppress(BenchError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", "fast", "stop")
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def _psycopg_connect(url):
    import psycopg

    return psycopg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
        **dict(url.query),
    )


@contextlib.contextmanager
def throwaway_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server of ``server_url``, dropped afterwards."""
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    if not url.drivername.startswith("postgresql"):
        raise BenchError(f"--postgresql-url must be a postgresql URL, got {url.drivername!r}")
    name = f"survey_app_bench_{secrets.token_hex(4)}"
    try:
        with _psycopg_connect(url) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    except Exception as error:
        raise BenchError(f"cannot create a database on {url.host}:{url.port}: {error}") from None
    try:
        yield url.set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False
        )
    finally:
        with _psycopg_connect(url) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
    figures.page = measure_respondent_page(server.port, fixtures.seeded.slug)
    log(
        f"{name}: respondent page: {figures.page.transfer_bytes:,} bytes in "
        f"{figures.page.requests} requests"
    )


def run_database(
    name: str, database_url: str, options: argparse.Namespace, rng: np.random.Generator
) -> DatabaseFigures:
    """Every measurement on one database."""
    from survey_app.extensions import db

    with tempfile.TemporaryDirectory(prefix="survey-app-bench-") as directory:
        deployment = Deployment(name, database_url, Path(directory))
        log(f"{name}: creating the schema with survey-app init-db")
        deployment.run_cli("init-db")
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
            bare_server = Server.bare_flask(deployment, options.workers)
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
                    each.interrupt()
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


# ----------------------------------------------------------------------------------- the report


def machine_details(versions: dict[str, str]) -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GB"
                break
    system = platform.system()
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                system = line.split("=", 1)[1].strip().strip('"')
    details = {
        "CPU": f"{cpu}, {os.cpu_count()} logical CPUs",
        "Memory": memory,
        "OS": f"{system}, {platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
    }
    details.update(versions)
    for package in ("Flask", "SQLAlchemy", "gunicorn", "psycopg"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            details[package] = metadata.version(package)
    return details


def _status(verdict: Verdict | None) -> str:
    if verdict is None:
        return ""
    if not verdict.measured:
        return " **NOT MEASURED**"
    return " **PASS**" if verdict.passed else " **MISS**"


def table_rows(report: BenchReport) -> list[tuple[str, str, list[str]]]:
    """(measure, target, one cell per database) for the results table."""
    databases = report.databases
    rows: list[tuple[str, str, list[str]]] = []
    sizes = [figure.size for figure in databases[0].latency] if databases else []
    largest = sizes[-1] if sizes else 0
    for index, size in enumerate(sizes):
        target = ""
        if index == len(sizes) - 1 and len(sizes) > 1:
            target = (
                f"median ≤ {RESULTS_MEDIAN_LIMIT_MS:.0f} ms and ≤ {RESULTS_GROWTH_LIMIT:.0f}x "
                f"the median at N = {sizes[0]:,}"
            )
            if size != TARGET_SIZE:
                target += f" (defined at N = {TARGET_SIZE:,})"
        cells = []
        for figures in databases:
            latency = figures.latency[index]
            cell = f"{latency.median_ms:.2f} / {latency.p95_ms:.2f} ms"
            if target:
                growth = latency.median_ms / figures.latency[0].median_ms
                cell += f" ({growth:.2f}x){_status(figures.verdicts.get('results_latency'))}"
            cells.append(cell)
        rows.append((f"Results API, N = {size:,}: median / p95", target, cells))
    rows.append(
        (
            f"responses.csv, N = {largest:,}: rows per second",
            f"≥ {EXPORT_ROWS_PER_SECOND_TARGET:,} rows/s",
            [
                (
                    f"failed after {f.export.rows:,} rows (see below)"
                    if f.export.error
                    else f"{f.export.rows_per_second:,.0f} "
                    f"({f.export.rows:,} rows in {f.export.seconds:.2f} s)"
                )
                + _status(f.verdicts.get("export_speed"))
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "responses.csv: peak RSS of the server worker",
            f"≤ {EXPORT_PEAK_RSS_LIMIT_MIB:.0f} MB",
            [
                (
                    "n/a"
                    if not f.verdicts["export_memory"].measured
                    else f"{mib(f.export.peak_rss_mib)} ({mib(f.export.rss_before_mib)} before)"
                )
                + _status(f.verdicts.get("export_memory"))
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Submissions per second: the app",
            "",
            [
                f"{f.app_throughput.per_second:,.0f} ({f.app_throughput.failed} failed)"
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Submissions per second: bare Flask",
            "",
            [f"{f.bare_throughput.per_second:,.0f}" for f in databases],
        )
    )
    rows.append(
        (
            "Submission throughput: app / bare Flask",
            f"≥ {THROUGHPUT_RATIO_TARGET:.0%}",
            [f"{f.throughput_ratio:.0%}{_status(f.verdicts.get('throughput'))}" for f in databases],
        )
    )
    rows.append(
        (
            "Respondent page: transfer size, requests, external requests",
            f"≤ {kib(PAGE_TRANSFER_LIMIT_BYTES)}, no external request",
            [
                f"{kib(f.page.transfer_bytes)} ({kib(f.page.body_bytes)} of bodies), "
                f"{f.page.requests} requests, {len(f.page.external)} external"
                f"{_status(f.verdicts.get('respondent_page'))}"
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Tallies and respondents consistent with the stored rows",
            "exact",
            [
                f"{'yes' if f.consistency.consistent else 'NO'} "
                f"({f.consistency.stored_rows:,} rows)"
                f"{_status(f.verdicts.get('consistency'))}"
                for f in databases
            ],
        )
    )
    return rows


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def results_table(report: BenchReport) -> list[str]:
    header = ["Measure", "Target", *(f.name for f in report.databases)]
    return markdown_table(
        header, [[measure, target, *cells] for measure, target, cells in table_rows(report)]
    )


TARGET_NAMES = {
    "results_latency": "Results API latency",
    "export_speed": "responses.csv speed",
    "export_memory": "responses.csv memory",
    "throughput": "Submission throughput",
    "respondent_page": "Respondent page",
    "consistency": "Tallies consistency",
}


#: Hand-written notes between these markers survive when the benchmark rewrites its page.
NOTES_START = "<!-- notes: kept when the benchmark rewrites this page -->"
NOTES_END = "<!-- end of notes -->"


def kept_notes(previous_page: str) -> str | None:
    """The hand-written notes block of a page the benchmark wrote before, markers included."""
    start = previous_page.find(NOTES_START)
    end = previous_page.find(NOTES_END, start)
    if start < 0 or end < 0:
        return None
    return previous_page[start : end + len(NOTES_END)]


def render_markdown(report: BenchReport, notes: str | None = None) -> str:
    databases = report.databases
    options = report.options
    from survey_app.cli import default_workers

    workers_note = " (2 x cores + 1)" if options["workers"] == default_workers() else ""
    lines = [
        "# Benchmarks",
        "",
        "Written by `python -m survey_app.bench` (`survey-app bench`); run it again to refresh "
        "this page, which it overwrites.",
        "",
        f"Run: `{options['command']}`, {report.started}, {report.seconds / 60:.1f} minutes.",
        "",
        "## Machine",
        "",
        *(f"- {name}: {value}" for name, value in report.machine.items()),
        "",
        "## Method",
        "",
        f"- One 10-question survey (6 yes/no, 4 choice questions of 3 to 5 options) seeded with "
        f"random submissions up to N = {', '.join(f'{size:,}' for size in options['sizes'])}, "
        "cumulatively: SQLite `executemany` and PostgreSQL `COPY`, with the tallies and "
        "`respondents` updated in the same transaction. PostgreSQL then runs `VACUUM ANALYZE`, "
        "as autovacuum soon would after a bulk load; SQLite is used as the app leaves it.",
        f"- Every measure is taken over HTTP on loopback against `survey-app serve` (gunicorn, "
        f"sync workers), {options['workers']} workers{workers_note} unless said otherwise; "
        "the schema comes from `survey-app init-db`; rate limits are off. The clients run on "
        "the same machine.",
        f"- Results API: {options['latency_requests']} sequential `GET "
        "/api/v1/surveys/<slug>/results` with a bearer token, each on a new connection, after a "
        "warm-up of 2 requests a worker; median and 95th percentile of the time to the last byte.",
        "- responses.csv: the whole export streamed from a server with 1 worker, lines counted; "
        "peak RSS is the worker's `VmHWM` (which includes the app itself: the figure before the "
        "export is in brackets).",
        f"- Submissions: {options['client_threads']} client threads (Python `http.client`, a new "
        f"connection per request) post valid submissions (a fresh UUID4, every question answered) "
        f"for {options['throughput_seconds']:g} s to a second open survey of the same shape, and "
        "for the same time to a bare Flask app (one route that parses the JSON and answers 201) "
        "served by the same gunicorn setup and worker count; the two take turns, "
        f"{THROUGHPUT_TURNS} windows of {options['throughput_seconds'] / THROUGHPUT_TURNS:g} s "
        "each, so that a slow spell of the machine falls on both. The clients take CPU from the "
        "servers, more so from the faster one.",
        "- Respondent page: `/s/<slug>` and everything it loads (stylesheets, scripts, module "
        "preloads, the modules' static imports, recursively, each URL once); transfer = bodies "
        "+ response headers; 1 KB = 1,024 bytes, 1 MB = 1,048,576 bytes.",
        "",
        "## Results",
        "",
        *results_table(report),
        "",
        "Seeding time (cumulative top-ups):",
        "",
    ]
    seed_rows = []
    for index, size in enumerate(options["sizes"]):
        previous = options["sizes"][index - 1] if index else 0
        cells = [f"{size:,} (+{size - previous:,})"]
        for figures in databases:
            seconds = figures.latency[index].seed_seconds
            rate = (size - previous) / seconds if seconds else 0
            cells.append(f"{seconds:.1f} s ({rate:,.0f} rows/s)")
        seed_rows.append(cells)
    lines += markdown_table(["N", *(f.name for f in databases)], seed_rows)
    lines += ["", "Respondent page, request by request:", ""]
    if databases and databases[0].page:
        page = databases[0].page
        lines += markdown_table(
            ["URL", "kind", "status", "body", "transfer"],
            [
                [r.url, r.kind, str(r.status), f"{r.body_bytes:,} B", f"{r.transfer_bytes:,} B"]
                for r in page.resources
            ],
        )
    lines += ["", "## Targets missed", ""]
    misses = [
        f"- **{TARGET_NAMES[key]}, {figures.name}**: {verdict.shortfall}."
        for figures in databases
        for key, verdict in figures.verdicts.items()
        if not verdict.passed
    ]
    lines += misses or ["None: every target passed."]
    if notes:
        lines += ["", notes]
    lines += [
        "",
        "## What the profile shows",
        "",
        "<!-- Written by the benchmark: cProfile (tracemalloc for memory) of each missed target's "
        "path, in-process through the Flask test client on the same database, each request in "
        "its own application context as in the server. cProfile slows Python code down; read "
        "the proportions, not the absolute times. -->",
        "",
    ]
    profiled = False
    for figures in databases:
        for key, text in figures.profiles.items():
            lines += [f"### {TARGET_NAMES[key]}, {figures.name}", "", text, ""]
            profiled = True
    if not profiled:
        lines += ["Nothing to profile: no target was missed.", ""]
    return "\n".join(lines).rstrip() + "\n"


def print_summary(report: BenchReport) -> None:
    print("\n".join(results_table(report)))
    print()
    for figures in report.databases:
        for key, verdict in figures.verdicts.items():
            if not verdict.passed:
                status = "MISS" if verdict.measured else "NOT MEASURED"
                print(f"{status} {TARGET_NAMES[key]}, {figures.name}: {verdict.shortfall}")


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
    from survey_app.cli import default_workers

    parser = argparse.ArgumentParser(
        prog=prog or "python -m survey_app.bench",
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


@click.command(
    "bench",
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def bench_command(arguments: tuple[str, ...]) -> None:
    """Measure latency, export, throughput and page weight; write docs/benchmarks.md (--help)."""
    sys.exit(main(list(arguments), prog="survey-app bench"))


if __name__ == "__main__":
    sys.exit(main())
