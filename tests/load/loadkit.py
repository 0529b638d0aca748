"""Helpers of the load tests: the production server (gunicorn, several workers) as a subprocess.

- ``prepare_deployment``: a fresh database (a SQLite file in tmp_path, or the PostgreSQL database of
  ``SURVEY_APP_TEST_DATABASE_URL`` with its tables dropped first) set up through the real command
  line: ``init-db`` (the migrations), ``create-analyst`` and ``create-survey --open``.
- ``launch_server``: starts ``survey-app serve`` on a free loopback port for a deployment, its
  standard output and error going to a file; ``wait_until_ready`` waits (bounded) until it
  answers and all its workers exist; ``Server.stop`` sends the master SIGTERM, then SIGKILL
  after a bound.

tests/load/conftest.py wraps them in fixtures that clean up after each test.

Every wait and every request here is bounded; nothing asserts on speed.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from sqlalchemy import MetaData, create_engine, func, select
from sqlalchemy.engine import Engine

import survey_app
from survey_app.models import Question, Submission, Survey, Tally

#: Set by .ci/run for the second pass of the suite, on a PostgreSQL server it started.
TEST_DATABASE_URL = os.environ.get("SURVEY_APP_TEST_DATABASE_URL")

HOST = "127.0.0.1"
CLI = [sys.executable, "-c", "from survey_app.cli import main; main()"]

ANALYST_EMAIL = "load@example.edu"
ANALYST_PASSWORD = "load-test-password-" + "x" * 8

#: Three questions: a yes/no, a 3-option choice and a 4-option choice.
LOAD_SURVEY = {
    "title": "Load test",
    "intro": "Answered by threads.",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        {"text": "Which year?", "type": "choice", "options": ["1st", "2nd", "3rd", "4th"]},
    ],
}

#: Bounds (seconds). They stop a hung run; none of them is a claim about speed.
CLI_TIMEOUT = 120
START_TIMEOUT = 90
STOP_TIMEOUT = 30
REQUEST_TIMEOUT = 60
BATCH_TIMEOUT = 300

#: Sent with every request, so that the logs test can check they are never logged.
CLIENT_HEADERS = {
    "User-Agent": "load-test-agent/1.0 (marker-ua-7d1f)",
    "X-Forwarded-For": "203.0.113.77",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def new_id() -> str:
    return str(uuid.uuid4())


# --------------------------------------------------------------------------- the database


def reset_database(url: str) -> None:
    """Drop every table (the models' and alembic_version), as tests/conftest.py does."""
    engine = create_engine(url)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        metadata.drop_all(engine)
    finally:
        engine.dispose()


@dataclass
class SurveyRef:
    slug: str
    question_ids: list[int]
    option_counts: list[int]

    @property
    def url(self) -> str:
        return f"/api/v1/surveys/{self.slug}/responses"

    def answers(self, values: Iterable[int]) -> dict[str, int]:
        return {str(q): v for q, v in zip(self.question_ids, values, strict=True)}

    def random_values(self, rng) -> tuple[int, ...]:
        return tuple(rng.randrange(count) for count in self.option_counts)

    def encode(self, values: Iterable[int]) -> str:
        return ",".join(str(v) for v in values)


@dataclass
class Deployment:
    """A database set up with the real CLI, and the environment to serve it with."""

    database_url: str
    env: dict[str, str]
    directory: Path
    survey: SurveyRef = field(init=False)

    def cli(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            [*CLI, *args],
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            cwd=self.directory,
        )
        assert result.returncode == 0, f"{args[0]} failed:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def create_survey(self, definition: dict) -> SurveyRef:
        path = self.directory / f"survey-{secrets.token_hex(4)}.json"
        path.write_text(json.dumps(definition))
        output = self.cli("create-survey", str(path), "--owner", ANALYST_EMAIL, "--open")
        slug = output.strip().splitlines()[-1]
        with self.engine() as engine, engine.connect() as connection:
            survey_id = connection.execute(
                select(Survey.id).where(Survey.slug == slug)
            ).scalar_one()
            rows = connection.execute(
                select(Question.id, Question.kind, Question.choices)
                .where(Question.survey_id == survey_id)
                .order_by(Question.position)
            ).all()
        counts = [2 if kind == "yes_no" else len(choices) for _, kind, choices in rows]
        return SurveyRef(slug, [row[0] for row in rows], counts)

    def engine(self) -> _EngineContext:
        return _EngineContext(self.database_url)

    # ---- what is stored

    def stored(self, survey: SurveyRef | None = None) -> dict[str, str]:
        """submission_id -> stored answers (e.g. "1,0,3") of the survey."""
        survey = survey or self.survey
        with self.engine() as engine, engine.connect() as connection:
            rows = connection.execute(
                select(Submission.submission_id, Submission.answers)
                .join(Survey, Survey.id == Submission.survey_id)
                .where(Survey.slug == survey.slug)
            ).all()
        return dict(map(tuple, rows))

    def respondents(self, survey: SurveyRef | None = None) -> int:
        survey = survey or self.survey
        with self.engine() as engine, engine.connect() as connection:
            return connection.execute(
                select(Survey.respondents).where(Survey.slug == survey.slug)
            ).scalar_one()

    def tallies(self, survey: SurveyRef | None = None) -> dict[tuple[int, int], int]:
        survey = survey or self.survey
        with self.engine() as engine, engine.connect() as connection:
            rows = connection.execute(
                select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count))
                .group_by(Tally.question_id, Tally.value)
                .where(Tally.question_id.in_(survey.question_ids))
            ).all()
        return {(q, v): n for q, v, n in rows}

    def assert_consistent(self, survey: SurveyRef | None = None) -> dict[str, str]:
        """Tallies equal the counts recomputed from the stored rows; respondents = rows."""
        survey = survey or self.survey
        stored = self.stored(survey)
        assert self.respondents(survey) == len(stored)
        assert self.tallies(survey) == recount(survey, stored.values())
        return stored

    def sqlite_integrity(self) -> list[str]:
        with self.engine() as engine, engine.connect() as connection:
            integrity = [row[0] for row in connection.exec_driver_sql("PRAGMA integrity_check")]
            foreign = list(connection.exec_driver_sql("PRAGMA foreign_key_check"))
        return integrity + [f"foreign key: {row}" for row in foreign]

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


class _EngineContext:
    def __init__(self, url: str):
        self.url = url

    def __enter__(self) -> Engine:
        self.engine = create_engine(self.url)
        return self.engine

    def __exit__(self, *exc) -> None:
        self.engine.dispose()


def recount(survey: SurveyRef, encoded_answers: Iterable[str]) -> dict[tuple[int, int], int]:
    """Tallies recomputed from stored answers: a zero for every value of every question."""
    counts = {
        (q, v): 0
        for q, n in zip(survey.question_ids, survey.option_counts, strict=True)
        for v in range(n)
    }
    for encoded in encoded_answers:
        values = [int(v) for v in encoded.split(",")]
        for q, v in zip(survey.question_ids, values, strict=True):
            counts[(q, v)] += 1
    return counts


SQLITE_NAME = "survey_app.sqlite3"


def prepare_deployment(directory: Path, template: Deployment | None = None) -> Deployment:
    """A database set up through the command line: schema, an analyst, an open survey.

    On SQLite, a ``template`` made this way earlier in the session is copied instead (the
    commands take seconds each); PostgreSQL runs them every time, on an emptied database.
    Each deployment has its own secret key and instance folder.
    """
    directory.mkdir(parents=True, exist_ok=True)
    url = TEST_DATABASE_URL or f"sqlite:///{directory / SQLITE_NAME}"
    if TEST_DATABASE_URL:
        reset_database(url)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SURVEY_APP_", "FLASK_"))
    }
    # The server and the commands import the same survey_app as this process (the source
    # tree under test), not whatever copy is installed in site-packages.
    source_root = str(Path(survey_app.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source_root, env.get("PYTHONPATH")]))
    env |= {
        "SURVEY_APP_DATABASE_URL": url,
        "SURVEY_APP_SECRET_KEY": secrets.token_urlsafe(48),
        "SURVEY_APP_INSTANCE_PATH": str(directory / "instance"),
        "SURVEY_APP_RATELIMIT_ENABLED": "false",
        "PYTHONUNBUFFERED": "1",
    }
    deployment = Deployment(url, env, directory)
    if template is not None and template.is_sqlite and deployment.is_sqlite:
        # The commands have exited, so the file is whole (SQLite checkpoints at last close);
        # a -wal file left beside it, if any, is copied too.
        for path in template.directory.glob(SQLITE_NAME + "*"):
            shutil.copyfile(path, directory / path.name)
        deployment.survey = template.survey
        return deployment
    deployment.cli("init-db")
    deployment.cli("create-analyst", ANALYST_EMAIL, "--password-stdin", stdin=ANALYST_PASSWORD)
    deployment.survey = deployment.create_survey(LOAD_SURVEY)
    return deployment


# --------------------------------------------------------------------------- the server


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    log_path: Path
    workers: int
    _log_file: object = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def worker_pids(self) -> set[int]:
        """Pids of the master's children (the gunicorn workers), read from /proc."""
        children = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                content = stat.read_text()
            except OSError:
                continue  # gone meanwhile
            # The command name is in parentheses and may hold spaces: split after it.
            fields = content.rsplit(")", 1)[-1].split()
            if len(fields) > 1 and int(fields[1]) == self.pid and fields[0] != "Z":
                children.add(int(stat.parent.name))
        return children

    def wait_for_workers(self, count: int | None = None, exclude: set[int] = frozenset()) -> set:
        """Wait (bounded) until ``count`` live workers exist, none of them in ``exclude``."""
        count = count or self.workers
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            self.assert_running()
            pids = self.worker_pids()
            if len(pids) == count and not pids & exclude:
                return pids
            time.sleep(0.05)
        pytest.fail(f"gunicorn did not reach {count} workers; log:\n{self.log()}")

    def assert_running(self) -> None:
        if self.process.poll() is not None:
            pytest.fail(f"the server exited with {self.process.returncode}; log:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> str:
        """SIGTERM the master, SIGKILL its group after a bound; return the whole log."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                # The master and its workers: the process group this fixture started.
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=STOP_TIMEOUT)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return self.log()

    # ---- HTTP

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        source: str | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One request on a new connection (the sync workers close after each response).

        ``source``: another loopback address (127.0.0.2 ...) to send from, as another client.
        """
        connection = http.client.HTTPConnection(
            HOST,
            self.port,
            timeout=REQUEST_TIMEOUT,
            source_address=(source, 0) if source else None,
        )
        try:
            connection.request(method, path, body=body, headers=CLIENT_HEADERS | (headers or {}))
            response = connection.getresponse()
            return response.status, response.msg, response.read()
        finally:
            connection.close()

    def submit(self, survey: SurveyRef, submission_id: str, values) -> tuple[int, object]:
        """POST one submission; return (status, parsed JSON reply, or the raw bytes if none)."""
        body = json.dumps({"submission_id": submission_id, "answers": survey.answers(values)})
        status, _, reply = self.request(
            "POST", survey.url, body, {"Content-Type": "application/json"}
        )
        try:
            return status, json.loads(reply)
        except ValueError:
            return status, reply


def launch_server(deployment: Deployment, log_dir: Path, workers: int = 4, **env: str) -> Server:
    """Start ``survey-app serve`` on a free loopback port (then see ``wait_until_ready``).

    ``env`` overrides the deployment's environment (e.g. SURVEY_APP_RATELIMIT_ENABLED="true").
    The caller stops it (``Server.stop``), also when this fails: see the start_server fixture.
    """
    port = free_port()
    log_path = log_dir / f"server-{port}.log"
    log_file = open(log_path, "w")  # noqa: SIM115 (closed by Server.stop)
    args = [*CLI, "serve", "--host", HOST, "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(
        args,
        env=deployment.env | env,
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        cwd=deployment.directory,
        start_new_session=True,
    )
    return Server(process, port, log_path, workers, log_file)


def wait_until_ready(server: Server, survey: SurveyRef) -> None:
    """Wait (bounded) until the server answers and all its workers exist."""
    wait_until_answering(server, survey)
    server.wait_for_workers()


def wait_until_answering(server: Server, survey: SurveyRef) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    last_error: object = None
    while time.monotonic() < deadline:
        server.assert_running()
        try:
            status, _, _ = server.request("GET", f"/api/v1/surveys/{survey.slug}")
            if status == 200:
                return
            last_error = status
        except OSError as error:
            last_error = error
        time.sleep(0.1)
    pytest.fail(f"the server did not answer ({last_error!r}); log:\n{server.log()}")


# --------------------------------------------------------------------------- sign-in

LOGIN_PATH = "/analyst/login"
CSRF_FIELD = re.compile(r'<input[^>]*name="csrf_token"[^>]*value="([^"]+)"')


def login_form(server, source: str | None = None) -> tuple[str, str]:
    """A fresh session's (cookie header, CSRF token) from the sign-in page (GETs are free)."""
    status, headers, body = server.request("GET", LOGIN_PATH, source=source)
    assert status == 200, body
    cookies = SimpleCookie()
    for header in headers.get_all("Set-Cookie") or []:
        cookies.load(header)
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in cookies.items())
    match = CSRF_FIELD.search(body.decode())
    assert cookie and match, "no session cookie or CSRF token on the sign-in page"
    return cookie, match.group(1)


def sign_in(server, form: tuple[str, str], password: str, source: str | None = None) -> int:
    """POST the sign-in form (with its cookie and token) on a new connection; the status."""
    cookie, token = form
    body = urlencode(
        {"csrf_token": token, "email": ANALYST_EMAIL, "password": password, "next": ""}
    )
    status, _, _ = server.request(
        "POST",
        LOGIN_PATH,
        body,
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
        source=source,
    )
    return status


# --------------------------------------------------------------------------- load


def run_parallel(tasks: list[Callable[[], object]], threads: int = 16) -> list[object]:
    """Run the callables on ``threads`` threads; results in the order of ``tasks``.

    Bounded: a batch that has not finished within BATCH_TIMEOUT fails the test.
    """
    executor = ThreadPoolExecutor(max_workers=threads)
    try:
        futures = [executor.submit(task) for task in tasks]
        done, pending = wait(futures, timeout=BATCH_TIMEOUT)
        if pending:
            pytest.fail(f"{len(pending)} of {len(tasks)} requests did not finish in time")
        return [future.result() for future in futures]
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def statuses(results: Iterable[tuple[int, object]]) -> Counter:
    return Counter(status for status, _ in results)


class AtomicCounter:
    """A counter that threads can add to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0

    def add(self, amount: int = 1) -> None:
        with self._lock:
            self.value += amount


# --------------------------------------------------------------------------- logs

#: What an address looks like in a log line: IPv4 dotted quads and the loopback IPv6.
ADDRESS = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b|::1\b")


def address_lines(log: str) -> list[str]:
    """Lines naming a client address: every address-bearing line but gunicorn's Listening."""
    return [
        line
        for line in log.splitlines()
        if (ADDRESS.search(line) or "203.0.113" in line or "marker-ua" in line)
        and "Listening at: http://127.0.0.1:" not in line
    ]
