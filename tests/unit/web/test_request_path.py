"""What every request passes through: pooled connections, rate limits, sessions, headers."""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import Flask, Response
from sqlalchemy import event, select

from survey_app import config, create_app
from survey_app.accounts.services import create_analyst
from survey_app.config import ConfigurationError
from survey_app.extensions import db
from survey_app.storage import database
from survey_app.storage.models import Survey
from survey_app.surveys.services import create_survey, find_survey, open_survey, parse_definition
from survey_app.web.ratelimits import DEVICE_LIMITED, STORAGE_TIMEOUT_SECONDS, device_bucket
from tests.analyst_helpers import csrf_token
from tests.conftest import SAMPLE_DEFINITION, TEST_SECRET_KEY, drop_everything
from tests.unit.respondents.test_submission_api import post_json


def submission(app, slug: str) -> dict[str, object]:
    """A valid submission to ``slug``: every question answered 0."""
    with app.app_context():
        survey = db.session.execute(select(Survey).where(Survey.slug == slug)).scalar_one()
        answers = {str(question.id): 0 for question in survey.questions}
    return {"submission_id": str(uuid.uuid4()), "answers": answers}


# --------------------------------------------------------------------------- pooled connections


def server_engine(app):
    """The app's engine when its database is a server; None (having checked that no connection
    check is installed) for SQLite, a file with no server to drop connections."""
    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "sqlite":
        assert not event.contains(engine, "checkout", database.check_idle_connection)
        return None
    return engine


def test_a_pooled_connection_the_server_closed_while_idle_is_replaced(
    app, client, survey, monkeypatch
):
    """The server ends idle sessions (a restart, a timeout): the next request still succeeds."""
    slug, _ = survey
    engine = server_engine(app)
    if engine is None:
        return
    assert post_json(client, slug, submission(app, slug)).status_code == 201
    monkeypatch.setattr(database, "IDLE_CONNECTION_CHECK_SECONDS", 0.0)
    with app.app_context():
        pooled = engine.pool.checkedin()
        assert pooled >= 1
        assert end_other_sessions(engine) >= pooled

    # Both the session's reads and the submission's statement get live connections.
    response = post_json(client, slug, submission(app, slug))
    assert response.status_code == 201, response.get_json()
    assert client.get(f"/api/v1/surveys/{slug}").status_code == 200


def end_other_sessions(engine) -> int:
    """From a connection outside the pool, end every other session of this database."""
    killer = engine.pool._creator()
    try:
        killer.autocommit = True
        return killer.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()[0]
    finally:
        killer.close()


# --------------------------------------------------------------------------- rate limits


@contextmanager
def limited_app(database_url: str, **settings) -> Iterator[tuple[Flask, str]]:
    """An app with rate limits on (low ones) and an open sample survey: ``(app, slug)``."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": TEST_SECRET_KEY,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_ENABLED": True,
            "LOGIN_RATE_LIMIT": "3 per minute",
            "SUBMISSION_RATE_LIMIT": "4 per minute",
            "JOIN_RATE_LIMIT": "3 per minute",
        }
        | settings
    )
    try:
        with app.app_context():
            drop_everything()
            db.create_all()
            owner = create_analyst("limits@example.edu", "a long enough password")
            created = create_survey(owner, parse_definition(SAMPLE_DEFINITION))
            db.session.commit()
            open_survey(created)
            db.session.commit()
            slug = created.slug
        yield app, slug
    finally:
        with app.app_context():
            db.session.remove()
            drop_everything()
            db.engine.dispose()


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wrong_sign_in(client) -> int:
    token = csrf_token(client.get("/analyst/login").text)
    data = {"email": "nobody@example.edu", "password": "wrong password!", "csrf_token": token}
    return client.post("/analyst/login", data=data).status_code


def test_with_limits_off_no_limiter_is_in_the_request_path(app, client, survey):
    slug, _ = survey
    assert "limiter" not in app.extensions
    assert [wrong_sign_in(client) for _ in range(15)].count(429) == 0
    statuses = [post_json(client, slug, submission(app, slug)).status_code for _ in range(30)]
    assert statuses == [201] * 30


@pytest.mark.parametrize("storage", ["memory", "unreachable redis"])
def test_limits_hold_in_memory_and_when_redis_is_unreachable(database_url, storage, caplog):
    """With Redis down, each worker counts in its own memory: limited, and never a 500."""
    settings = {"RATELIMIT_STORAGE_URI": "memory://"}
    if storage == "unreachable redis":
        settings = {"RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{closed_port()}/0"}
    with limited_app(database_url, **settings) as (app, slug):
        client = app.test_client()
        assert [wrong_sign_in(client) for _ in range(5)] == [401, 401, 401, 429, 429]
        statuses = [post_json(client, slug, submission(app, slug)).status_code for _ in range(6)]
        assert statuses == [201] * 4 + [429] * 2
        # Typed join codes, right or wrong, on either path (one count for both): a guesser
        # is slowed down too.
        with app.app_context():
            code = find_survey(slug).join_code
        window_opened = time.monotonic()
        joins = [
            client.get(f"/j/{code}").status_code,
            client.get("/join", query_string={"code": "AAAAAA"}).status_code,
            client.get("/join", query_string={"code": "CCCCCC"}).status_code,
            client.get("/join", query_string={"code": "DDDDDD"}).status_code,
        ]
        assert joins == [302, 404, 404, 429]
        # Refused, a student gets the join form again, saying why and what to do.
        busy = client.get("/join", query_string={"code": code})
        # The minute counts from the first join: as long, less what has passed (on a busy
        # machine, a second or two).
        passed = math.ceil(time.monotonic() - window_opened)
        assert busy.status_code == 429
        assert 60 - passed <= int(busy.headers["Retry-After"]) <= 60
        page = busy.get_data(as_text=True)
        assert "Many people are joining from this network" in page
        assert 'id="join-code"' in page and f'value="{code}"' in page
        assert client.get(f"/j/{code}").status_code == 429  # the join link shares the count
        if storage == "unreachable redis":
            assert "falling back to in-memory storage" in caplog.text


def test_a_redis_that_never_answers_does_not_hold_requests(database_url):
    """Redis accepts connections but never replies (a hung server): after a short wait each
    worker counts in memory; the requests do not hang on it."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # the kernel completes handshakes; nothing ever reads or answers
    silent_url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
    outcome: dict[str, object] = {}
    try:
        with limited_app(database_url, RATELIMIT_STORAGE_URI=silent_url) as (app, slug):
            body = submission(app, slug)

            def submit() -> None:
                outcome["status"] = post_json(app.test_client(), slug, body).status_code

            worker = threading.Thread(target=submit, daemon=True)
            worker.start()
            worker.join(timeout=60)  # a liveness bound, not a speed target
            assert not worker.is_alive(), "the submission hangs on the silent rate-limit storage"
            assert outcome["status"] == 201
            # The wait is bounded by the app, not by the Redis client's defaults (which vary by
            # version; older clients wait without limit).
            (limiter,) = app.extensions["limiter"]
            client_settings = limiter.storage.storage.connection_pool.connection_kwargs
            assert client_settings["socket_timeout"] == STORAGE_TIMEOUT_SECONDS
            assert client_settings["socket_connect_timeout"] == STORAGE_TIMEOUT_SECONDS
    finally:
        silent.close()


# --------------------------------------------------------------------------- devices

#: Device ids as the students' page draws them: 128 random bits in hexadecimal.
ONE_DEVICE, OTHER_DEVICE = "0123456789abcdef" * 2, "f" * 32


def post_from(client, slug: str, body: object, device: str | None):
    """A submission naming ``device`` in its Survey-Device header (None: no header)."""
    headers = {} if device is None else {"Survey-Device": device}
    return client.post(
        f"/api/v1/surveys/{slug}/responses",
        data=json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def test_a_device_is_counted_by_a_keyed_hash_of_the_survey_and_its_id(database_url, caplog):
    """The limiter's storage holds neither the id nor anything one could follow from survey
    to survey without the app's secret key; the database and the logs hold nothing of it."""
    caplog.set_level(logging.DEBUG)
    with limited_app(database_url) as (app, slug):

        def bucket(device: str, survey_slug: str = slug, key: str = TEST_SECRET_KEY) -> str:
            app.config["SECRET_KEY"] = key
            path = f"/api/v1/surveys/{survey_slug}/responses"
            with app.test_request_context(path, method="POST", headers={"Survey-Device": device}):
                return device_bucket()

        assert bucket(ONE_DEVICE) == bucket(ONE_DEVICE.upper())
        assert ONE_DEVICE not in bucket(ONE_DEVICE)
        assert len({bucket(ONE_DEVICE), bucket(OTHER_DEVICE), bucket(ONE_DEVICE, "other")}) == 3
        assert bucket(ONE_DEVICE, key=TEST_SECRET_KEY[::-1]) != bucket(ONE_DEVICE)
        app.config["SECRET_KEY"] = TEST_SECRET_KEY

        client = app.test_client()
        assert post_from(client, slug, submission(app, slug), ONE_DEVICE).status_code == 201
        (limiter,) = app.extensions["limiter"]
        counted = " ".join(str(key) for key in limiter.storage.storage)
        assert bucket(ONE_DEVICE) in counted
        assert ONE_DEVICE not in counted
        with app.app_context():
            stored = [
                str(value)
                for table in db.metadata.sorted_tables
                for row in db.session.execute(select(table)).all()
                for value in row
            ]
        assert len(stored) > 10  # the dump sees the survey and the submission
        assert ONE_DEVICE not in "\n".join(stored)
        assert ONE_DEVICE not in caplog.text


@pytest.mark.parametrize(
    "header",
    ["", "abc", "g" * 32, "0" * 31, "0" * 33, str(uuid.UUID(int=1)), ONE_DEVICE + " x"],
)
def test_a_malformed_device_header_is_refused_in_words_and_stores_nothing(
    app, client, survey, header
):
    slug, _ = survey
    response = post_from(client, slug, submission(app, slug), header)
    assert response.status_code == 400
    assert response.get_json() == {
        "error": "the Survey-Device header must be 32 hexadecimal digits (a random id the "
        "students' page draws once per browser), or be left out",
        "code": "invalid",
    }
    with app.app_context():
        assert db.session.execute(select(Survey.respondents)).scalar_one() == 0


def test_a_device_is_limited_while_another_from_the_same_address_is_not(database_url):
    settings = {"SUBMISSION_RATE_LIMIT": "100 per minute", "DEVICE_SUBMISSION_RATE_LIMIT": "3/hour"}
    with limited_app(database_url, **settings) as (app, slug):
        client = app.test_client()

        def statuses(device: str | None, count: int) -> list[int]:
            return [
                post_from(client, slug, submission(app, slug), device).status_code
                for _ in range(count)
            ]

        assert statuses(ONE_DEVICE, 3) == [201] * 3
        refused = post_from(client, slug, submission(app, slug), ONE_DEVICE)
        assert refused.status_code == 429
        # In words, with the code the students' page reads as "busy, send again later".
        assert refused.get_json() == {"error": DEVICE_LIMITED, "code": "rate_limited"}
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
        assert statuses(OTHER_DEVICE, 3) == [201] * 3
        # Scripts that name no device are counted by their address alone.
        assert statuses(None, 5) == [201] * 5
        with app.app_context():
            assert db.session.execute(select(Survey.respondents)).scalar_one() == 11


def test_a_device_over_its_limit_spends_nothing_of_its_addresss(database_url):
    """One device sending over and over, refused as too many, leaves the lecture hall behind
    its address the whole of the address's limit."""
    settings = {"SUBMISSION_RATE_LIMIT": "6 per minute", "DEVICE_SUBMISSION_RATE_LIMIT": "2/minute"}
    with limited_app(database_url, **settings) as (app, slug):
        client = app.test_client()
        hammered = [post_from(client, slug, submission(app, slug), ONE_DEVICE) for _ in range(20)]
        assert [response.status_code for response in hammered] == [201] * 2 + [429] * 18
        others = [
            post_from(client, slug, submission(app, slug), f"{index:032x}") for index in range(4)
        ]
        assert [response.status_code for response in others] == [201] * 4
        # The address's limit still holds: 6 taken, the next refused.
        assert post_from(client, slug, submission(app, slug), OTHER_DEVICE).status_code == 429


def test_without_a_device_header_only_the_address_is_counted_and_it_still_is(database_url):
    settings = {"SUBMISSION_RATE_LIMIT": "4 per minute", "DEVICE_SUBMISSION_RATE_LIMIT": "2/minute"}
    with limited_app(database_url, **settings) as (app, slug):
        client = app.test_client()
        sent = [post_from(client, slug, submission(app, slug), None) for _ in range(4)]
        assert [response.status_code for response in sent] == [201] * 4
        # The address's limit stays over every device behind it.
        refused = post_from(client, slug, submission(app, slug), OTHER_DEVICE)
        assert refused.status_code == 429
        assert refused.get_json()["code"] == "rate_limited"


def test_the_device_limit_setting_is_checked_at_start(monkeypatch, database_url):
    monkeypatch.setenv("SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT", "5 per minute; 30 per hour")
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url})
    assert app.config["DEVICE_SUBMISSION_RATE_LIMIT"] == "5 per minute; 30 per hour"
    monkeypatch.delenv("SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT")
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url})
    assert app.config["DEVICE_SUBMISSION_RATE_LIMIT"] == "20 per minute"


@pytest.mark.parametrize("value", ["twenty a minute", "20", "0 per minute", "20 per fortnight"])
def test_a_bad_device_limit_is_refused_at_start_naming_the_setting(
    monkeypatch, database_url, value
):
    monkeypatch.setenv("SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT", value)
    with pytest.raises(ConfigurationError, match="SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT"):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url})


@pytest.mark.parametrize("setting", ["SUBMISSION", "LOGIN", "JOIN", "LTI"])
def test_every_rate_limit_the_limiter_could_not_read_is_refused_at_start(
    monkeypatch, database_url, setting
):
    """Flask-Limiter would drop it, logging a line, and limit nothing."""
    monkeypatch.setenv(f"SURVEY_APP_{setting}_RATE_LIMIT", "1200/min")
    with pytest.raises(ConfigurationError, match=f"SURVEY_APP_{setting}_RATE_LIMIT must be"):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url})


@pytest.mark.parametrize(
    "value",
    ["postgres://survey@db/survey_app", "postgresql+psycopg2://survey@db/survey_app", "db:5432"],
)
def test_a_database_url_the_app_cannot_run_on_is_refused_at_start(monkeypatch, value):
    """Not psycopg (the submission statement runs on its libpq layer), or not a URL at all."""
    monkeypatch.setenv("SURVEY_APP_DATABASE_URL", value)
    with pytest.raises(ConfigurationError, match="SURVEY_APP_DATABASE_URL must"):
        create_app({"TESTING": True, "SECRET_KEY": TEST_SECRET_KEY})


def test_the_database_url_names_psycopg_or_sqlite(tmp_path):
    url = "postgresql+psycopg://survey:secret@db.internal/survey_app"
    assert config.database_url(f" {url} ", str(tmp_path)) == url
    assert config.database_url("", str(tmp_path)) == f"sqlite:///{tmp_path}/survey_app.sqlite3"


# --------------------------------------------------------------------------- sessions, headers


def test_a_submission_sets_no_cookie_and_carries_the_security_headers(app, client, survey):
    slug, _ = survey
    response = post_json(client, slug, submission(app, slug))
    assert response.status_code == 201
    assert response.headers.getlist("Set-Cookie") == []
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]


def test_a_header_a_view_sets_is_kept_and_sent_once(app):
    @app.get("/framed-probe")
    def framed_probe():
        response = Response(json.dumps({}), mimetype="application/json")
        response.headers["X-Frame-Options"] = "SAMEORIGIN"
        return response

    response = app.test_client().get("/framed-probe")
    assert response.headers.getlist("X-Frame-Options") == ["SAMEORIGIN"]
    assert response.headers.getlist("Referrer-Policy") == ["no-referrer"]


def test_a_signed_in_session_survives_requests_without_cookies(app, client, analyst):
    """Skipping the session for cookie-less requests must not lose a real session."""
    from tests.analyst_helpers import sign_in

    assert sign_in(client, analyst).status_code == 302
    assert client.get("/analyst/").status_code == 200
    anonymous = app.test_client()
    assert anonymous.get("/analyst/").status_code == 302
    assert client.get("/analyst/").status_code == 200
