"""Rate limits hold across gunicorn workers.

Sign-ins are counted in the database, so they hold across workers with no Redis at all:
repeated bad sign-ins, each on a new connection and several at once so that they land on
different workers, get 429 after the 5th, whether they come from one address or, against one
account, from many. Submissions are limited by Flask-Limiter, shared through a redis-server
(Debian's; the tests fail, never skip, without it) on loopback: 429 after the 20th under a
20-a-minute limit, and the default lets 600 through from one address. Typed join codes, by
the form or by a link, are counted once for the three workers, in the database or in Redis: a
limit of N a minute lets about N through, not 3N. No limit's storage keeps a client address.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import limits
import pytest
import redis
import sqlalchemy
from loadkit import (
    ANALYST_EMAIL,
    ANALYST_PASSWORD,
    HOST,
    address_lines,
    free_port,
    login_form,
    new_id,
    run_parallel,
    sign_in,
)

from survey_app import config
from survey_app.storage.models import Survey

LOGIN_LIMIT = 5
SUBMISSION_LIMIT = 20
CONCURRENT_ATTEMPTS = 15


def with_limits(redis_url: str | None, **limits_: str) -> dict[str, str]:
    env = {"SURVEY_APP_RATELIMIT_ENABLED": "true"}
    if redis_url:
        env["SURVEY_APP_RATELIMIT_STORAGE_URL"] = redis_url
    return env | {f"SURVEY_APP_{name.upper()}": value for name, value in limits_.items()}


def client_bucket(deployment) -> str:
    """The limiter's key for 127.0.0.1, as survey_app.web.ratelimits.client_bucket computes it."""
    secret = deployment.env["SURVEY_APP_SECRET_KEY"].encode()
    return hashlib.blake2b(HOST.encode(), key=secret[:64], digest_size=12).hexdigest()


def redis_contents(client: redis.Redis) -> dict[bytes, object]:
    contents = {}
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        if kind == b"string":
            contents[key] = client.get(key)
        elif kind == b"list":
            contents[key] = client.lrange(key, 0, -1)
        elif kind == b"zset":
            contents[key] = client.zrange(key, 0, -1, withscores=True)
        elif kind == b"hash":
            contents[key] = client.hgetall(key)
        elif kind == b"set":
            contents[key] = client.smembers(key)
        else:
            contents[key] = kind
    return contents


# --------------------------------------------------------------------------- tests


def test_default_submission_limit_allows_600_a_minute():
    """The documented default (CONTRACT.md): at least 600 submissions a minute per address."""
    settings = config.from_environment("/nonexistent", with_secret_key=False)
    default = limits.parse(settings["SUBMISSION_RATE_LIMIT"])
    assert default.amount * 60 / default.get_expiry() >= 600


def test_limits_are_shared_by_the_workers_and_keep_no_address(
    deployment, start_server, redis_server
):
    redis_url, redis_client = redis_server
    server = start_server(
        deployment,
        workers=3,
        **with_limits(
            redis_url,
            login_rate_limit=f"{LOGIN_LIMIT} per minute",
            submission_rate_limit=f"{SUBMISSION_LIMIT} per minute",
        ),
    )

    # Bad sign-ins, five at a time, each on its own connection (so on different workers):
    # exactly LOGIN_LIMIT are judged (401), every other one is refused before (429).
    forms = [login_form(server) for _ in range(CONCURRENT_ATTEMPTS)]
    results = run_parallel(
        [lambda form=form: sign_in(server, form, "wrong password!") for form in forms], threads=5
    )
    assert Counter(results) == Counter({401: LOGIN_LIMIT, 429: CONCURRENT_ATTEMPTS - LOGIN_LIMIT})
    # Later ones, one by one: still 429, even with the right password.
    for _ in range(3):
        assert sign_in(server, login_form(server), "wrong password!") == 429
    assert sign_in(server, login_form(server), ANALYST_PASSWORD) == 429

    # Submissions: 429 after the 20th, as JSON, and nothing of the refused ones is stored.
    survey = deployment.survey
    replies = run_parallel(
        [
            lambda: server.submit(survey, new_id(), (0,) * len(survey.question_ids))
            for _ in range(SUBMISSION_LIMIT + 10)
        ],
        threads=4,
    )
    assert Counter(status for status, _ in replies) == Counter({201: SUBMISSION_LIMIT, 429: 10})
    for status, body in replies:
        if status == 429:
            assert isinstance(body.get("error"), str) and body["error"]
    assert len(deployment.assert_consistent()) == SUBMISSION_LIMIT

    # The storage holds the limits under a keyed hash of the address, never the address.
    contents = redis_contents(redis_client)
    bucket = client_bucket(deployment).encode()
    assert any(bucket in key and b"submit" in key for key in contents), list(contents)
    for key, value in contents.items():
        assert HOST.encode() not in key
        assert HOST not in repr(value)
    assert_sign_in_counts_keep_no_address_or_email(deployment)
    assert address_lines(server.stop()) == []


def assert_sign_in_counts_keep_no_address_or_email(deployment) -> None:
    engine = sqlalchemy.create_engine(deployment.database_url)
    try:
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT * FROM sign_in_attempts").all()
    finally:
        engine.dispose()
    assert rows, "no sign-in attempt was counted"
    for row in rows:
        assert "127.0.0" not in repr(tuple(row)) and ANALYST_EMAIL not in repr(tuple(row))


def test_default_submission_limit_lets_600_through_from_one_address(
    deployment, start_server, redis_server
):
    redis_url, _ = redis_server
    server = start_server(deployment, workers=2, **with_limits(redis_url))
    survey = deployment.survey
    replies = run_parallel(
        [
            lambda: server.submit(survey, new_id(), (1,) * len(survey.question_ids))
            for _ in range(600)
        ],
        threads=8,
    )
    assert Counter(status for status, _ in replies) == Counter({201: 600})
    assert len(deployment.assert_consistent()) == 600


def test_sign_ins_hold_across_workers_without_shared_storage(deployment, start_server):
    """No Redis: the sign-in counts live in the database, so 3 workers still let 5 through."""
    server = start_server(
        deployment, workers=3, **with_limits(None, login_rate_limit=f"{LOGIN_LIMIT} per minute")
    )
    forms = [login_form(server) for _ in range(CONCURRENT_ATTEMPTS)]
    results = run_parallel(
        [lambda form=form: sign_in(server, form, "wrong password!") for form in forms], threads=5
    )
    assert Counter(results) == Counter({401: LOGIN_LIMIT, 429: CONCURRENT_ATTEMPTS - LOGIN_LIMIT})
    assert sign_in(server, login_form(server), ANALYST_PASSWORD) == 429
    assert_sign_in_counts_keep_no_address_or_email(deployment)


def test_guesses_at_one_account_from_many_addresses_are_throttled(deployment, start_server):
    """Each guess from another loopback address (as from a botnet): the account's own count
    stops them after 5 failures, and then even the right password waits."""
    server = start_server(
        deployment, workers=3, **with_limits(None, login_rate_limit=f"{LOGIN_LIMIT} per minute")
    )
    sources = [f"127.0.0.{index}" for index in range(2, 2 + CONCURRENT_ATTEMPTS)]
    forms = {source: login_form(server, source) for source in sources}
    results = run_parallel(
        [
            lambda source=source: sign_in(server, forms[source], "wrong password!", source)
            for source in sources
        ],
        threads=5,
    )
    assert Counter(results) == Counter({401: LOGIN_LIMIT, 429: CONCURRENT_ATTEMPTS - LOGIN_LIMIT})
    fresh = "127.0.0.200"
    assert sign_in(server, login_form(server, fresh), ANALYST_PASSWORD, fresh) == 429


def test_the_fallback_to_memory_is_in_the_servers_log(deployment, start_server):
    """Redis unreachable: the workers say so in the server's log (and name no address)."""
    unreachable = f"redis://{HOST}:{free_port()}/0"
    server = start_server(deployment, workers=1, **with_limits(unreachable))
    survey = deployment.survey
    status, _ = server.submit(survey, new_id(), (0,) * len(survey.question_ids))
    assert status == 201
    log = server.stop()
    assert "falling back to in-memory storage" in log
    assert address_lines(log) == []


# --------------------------------------------------------------------------- join codes

JOIN_LIMIT = 30


def join_code(deployment) -> str:
    with deployment.engine() as engine, engine.connect() as connection:
        return connection.execute(
            sqlalchemy.select(Survey.join_code).where(Survey.slug == deployment.survey.slug)
        ).scalar_one()


@pytest.mark.parametrize("storage", ["database", "redis"])
def test_the_join_limit_is_counted_once_by_three_workers(
    deployment, start_server, request, storage
):
    """N a minute lets about N typed codes through from one address, not N per worker (3N) or
    per path: counted in the database by default, in Redis when the limiter has it."""
    redis_url = request.getfixturevalue("redis_server")[0] if storage == "redis" else None
    server = start_server(
        deployment, workers=3, **with_limits(redis_url, join_rate_limit=f"{JOIN_LIMIT} per minute")
    )
    code = join_code(deployment)
    paths = [f"/j/{code}" if index % 2 else f"/join?code={code}" for index in range(3 * JOIN_LIMIT)]
    replies = run_parallel(
        [lambda path=path: server.request("GET", path) for path in paths], threads=6
    )
    statuses = Counter(status for status, _, _ in replies)
    assert set(statuses) == {302, 429}, statuses
    # One more than the limit only if the run straddles a minute (the sliding window then
    # weighs the previous minute a hair under 1).
    assert JOIN_LIMIT <= statuses[302] <= JOIN_LIMIT + 1, statuses
    for status, headers, body in replies:
        if status == 429:
            # A minute, or what is left of it: the limiter in Redis counts down from the
            # window's reset, so a refusal a moment into the window says 59.
            assert 50 <= int(headers["Retry-After"]) <= 60, headers["Retry-After"]
            assert b"Many people are joining from this network" in body
    if storage == "database":
        assert_sign_in_counts_keep_no_address_or_email(deployment)
    assert address_lines(server.stop()) == []
