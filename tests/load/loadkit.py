"""Helpers of the load tests, on the harness they share with the benchmark.

benchmarks/harness.py runs the app as its users do: a deployment (a database and its
environment) and ``survey-app serve`` (gunicorn, several workers) in a subprocess. Here:

- ``prepare_deployment``: a fresh database (a SQLite file in tmp_path, or a database of its own on
  the PostgreSQL server of ``SURVEY_APP_TEST_DATABASE_URL``) set up through the real command
  line: ``init-db`` (the migrations), ``create-analyst`` and ``create-survey --open``, or a copy
  of one set up so; and what a test reads back from it (stored rows, tallies, consistency).
- ``launch_server``: ``survey-app serve`` for a deployment, whose requests carry marker headers
  (for the logs test) and which can post a submission; ``wait_until_ready`` waits (bounded)
  until it answers and all its workers exist; ``Server.stop`` sends the master SIGTERM, then
  SIGKILL after a bound.

tests/load/conftest.py wraps them in fixtures that clean up after each test.

Every wait and every request here is bounded; nothing asserts on speed.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Engine

from benchmarks import harness
from benchmarks.harness import (  # noqa: F401 (the tests import them from here)
    HOST,
    REQUEST_TIMEOUT,
    START_TIMEOUT,
    STOP_TIMEOUT,
    free_port,
)
from survey_app.accounts.devices import DEVICE_COOKIE_PREFIX
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Question, Submission, Survey, Tally
from tests.databases import TEST_DATABASE_URL, new_database

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

#: Bounds (seconds) of a batch of requests: it stops a hung run, and is no claim about speed.
BATCH_TIMEOUT = 300

#: Sent with every request, so that the logs test can check they are never logged.
CLIENT_HEADERS = {
    "User-Agent": "load-test-agent/1.0 (marker-ua-7d1f)",
    "X-Forwarded-For": "203.0.113.77",
}


def new_id() -> str:
    return str(uuid.uuid4())


def new_device() -> str:
    """A device id as the students' page draws it: 128 random bits in hexadecimal."""
    return secrets.token_hex(16)


# --------------------------------------------------------------------------- the database


@dataclass
class SurveyRef:
    slug: str
    question_ids: list[int]
    option_counts: list[int | None]

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
class Deployment(harness.Deployment):
    """A database set up with the real CLI (see prepare_deployment), and what it stores."""

    survey: SurveyRef | None = None
    #: Settings its commands and servers get besides the deployment's own (``SURVEY_APP_*``).
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return super().env | self.settings

    def create_survey(self, definition: dict, open_it: bool = True) -> SurveyRef:
        """Create a survey with the command line (opened, unless ``open_it`` is False)."""
        path = self.directory / f"survey-{secrets.token_hex(4)}.json"
        path.write_text(json.dumps(definition))
        opened = ["--open"] if open_it else []
        output = self.cli("create-survey", str(path), "--owner", ANALYST_EMAIL, *opened)
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
        # A numeric question has no option count (None): its reports' range is in the public
        # definition (report_range), which a test reads from the running server.
        counts = [
            None if kind == "numeric" else 2 if kind == "yes_no" else len(choices)
            for _, kind, choices in rows
        ]
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
        with self.engine() as engine, engine.begin() as connection:
            count_arrivals(None, connection)  # what a reader of the counts does first
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

    A ``template`` made this way earlier in the session is copied instead (the commands take
    seconds each): its SQLite file, or its PostgreSQL database (``CREATE DATABASE ... TEMPLATE``).
    Each deployment has its own secret key and instance folder.
    """
    directory.mkdir(parents=True, exist_ok=True)
    if TEST_DATABASE_URL:
        template_url = template.database_url if template is not None else None
        url = new_database("load" if template else "load_template", template_url)
    else:
        url = f"sqlite:///{directory / SQLITE_NAME}"
    deployment = Deployment(url, directory)
    if template is not None:
        # The commands have exited, so a SQLite file is whole (SQLite checkpoints at last
        # close); a -wal file left beside it, if any, is copied too.
        for path in template.directory.glob(SQLITE_NAME + "*"):
            shutil.copyfile(path, directory / path.name)
        deployment.survey = template.survey
        return deployment
    deployment.cli("init-db")
    deployment.cli("create-analyst", ANALYST_EMAIL, "--password-stdin", stdin=ANALYST_PASSWORD)
    deployment.survey = deployment.create_survey(LOAD_SURVEY)
    return deployment


# --------------------------------------------------------------------------- the server


class Server(harness.Server):
    """``survey-app serve`` whose requests carry the marker headers, and which can submit."""

    def request(self, method, path, body=None, headers=None, source=None):
        return super().request(method, path, body, CLIENT_HEADERS | (headers or {}), source)

    def submit(
        self,
        survey: SurveyRef,
        submission_id: str,
        values,
        code: str | None = None,
        device: str | None = None,
    ) -> tuple[int, object]:
        """POST one submission (with a one-time ``code``, and naming a ``device`` as the
        students' page does, if given); return (status, parsed JSON reply, or the raw bytes if
        none)."""
        body = {"submission_id": submission_id, "answers": survey.answers(values)}
        body = json.dumps(body | ({"code": code} if code is not None else {}))
        headers = {"Content-Type": "application/json"}
        if device is not None:
            headers["Survey-Device"] = device
        status, _, reply = self.request("POST", survey.url, body, headers)
        try:
            return status, json.loads(reply)
        except ValueError:
            return status, reply


def launch_server(deployment: Deployment, workers: int = 4, **env: str) -> Server:
    """Start ``survey-app serve`` on a free loopback port (then see ``wait_until_ready``).

    ``env`` overrides the deployment's environment (e.g. SURVEY_APP_RATELIMIT_ENABLED="true").
    The caller stops it (``Server.stop``), also when this fails: see the start_server fixture.
    """
    return Server.survey_app(deployment, workers, **env).start()


def wait_until_ready(server: Server, survey: SurveyRef) -> None:
    """Wait (bounded) until the server answers and all its workers exist."""
    server.wait_ready(f"/api/v1/surveys/{survey.slug}", expected=200)


def wait_until_answering(server: Server, survey: SurveyRef) -> None:
    server.wait_answering(f"/api/v1/surveys/{survey.slug}", expected=200)


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
    return sign_in_response(server, form, password, source)[0]


def sign_in_response(server, form: tuple[str, str], password: str, source: str | None = None):
    """POST the sign-in form (with its cookie and token) on a new connection; the status and
    the response's headers (its session cookie)."""
    cookie, token = form
    body = urlencode(
        {"csrf_token": token, "email": ANALYST_EMAIL, "password": password, "next": ""}
    )
    status, headers, _ = server.request(
        "POST",
        LOGIN_PATH,
        body,
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
        source=source,
    )
    return status, headers


def device_cookie_of(server, source: str | None = None) -> str:
    """Sign in with the right password from ``source``; the device cookie that leaves, as a
    browser would send it back ("name=value")."""
    cookie, token = login_form(server, source)
    body = urlencode(
        {"csrf_token": token, "email": ANALYST_EMAIL, "password": ANALYST_PASSWORD, "next": ""}
    )
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    status, replied, _ = server.request("POST", LOGIN_PATH, body, headers, source=source)
    assert status == 302
    for header in replied.get_all("Set-Cookie") or []:
        if header.startswith(DEVICE_COOKIE_PREFIX):
            return header.split(";")[0]
    pytest.fail("a successful sign-in left no device cookie")


def owner_sign_in(server, device_cookie: str, source: str | None = None) -> int:
    """The owner's known browser signs in (from ``source``); the status."""
    cookie, token = login_form(server, source)
    return sign_in(server, (f"{cookie}; {device_cookie}", token), ANALYST_PASSWORD, source)


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


def submit_all(server, survey: SurveyRef, sent: dict[str, tuple], threads: int = 16) -> list:
    """POST every submission of ``sent`` (id -> values) from ``threads`` threads; the
    ``(status, reply)`` of each, in the order of ``sent``."""
    return run_parallel(
        [
            lambda submission_id=submission_id, values=values: server.submit(
                survey, submission_id, values
            )
            for submission_id, values in sent.items()
        ],
        threads=threads,
    )


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
