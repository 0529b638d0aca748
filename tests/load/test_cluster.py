"""Several app servers on one PostgreSQL, as docs/deployment.md tells an operator to run them,
started from the repository's own configuration files (deploy/): HAProxy balancing round robin
across three ``survey-app serve``, PgBouncer in transaction pooling before PostgreSQL, Redis for
the rate limits, all on loopback and bounded in time.

A lecture hall of 300 students behind one address (one source address, as behind a campus NAT)
answers through the balancer with the rate limits on, each student's page naming its own device
(the Survey-Device header); one app server is killed with SIGKILL half-way. Every student's
submission is stored exactly once (a reply lost with the server is sent again with the same id,
as the students' page does), none is refused as too many, and the professor's projector, opened
through the balancer (its session made on one server, read on the others), shows the class's
answers within two seconds of the last. Meanwhile one client in the same hall sends over and
over from one device: it is refused (429) past the per-device limit, counted in Redis for all
three servers, while the class is not.

A further test, on three servers that all stay up, checks the other limits the servers must
share: wrong passwords spread over the three are throttled as on one (the count is in the
database), and a closed survey's join code, once its grace has passed, is refused by each.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import random
import signal
import threading
import time
from collections import Counter
from http.cookies import SimpleCookie

import limits
from cluster import HAProxy, PgBouncer, RedisServer
from loadkit import (
    ANALYST_EMAIL,
    ANALYST_PASSWORD,
    LOAD_SURVEY,
    AtomicCounter,
    Deployment,
    Server,
    device_cookie_of,
    launch_server,
    login_form,
    new_device,
    new_id,
    owner_sign_in,
    run_parallel,
    sign_in,
    sign_in_response,
    wait_until_ready,
)
from sqlalchemy import select

from survey_app import config
from survey_app.storage.models import Survey
from survey_app.web.ratelimits import DEVICE_LIMITED

STUDENTS = 300
SERVERS = 3
#: A student's page sends a submission again after a lost reply, with the same id.
ATTEMPTS = 8
RETRY_PAUSE = 0.25
#: The projector redraws from what the class sent within this (seconds) of the last answer.
PROJECTOR_LAG = 2.0


def _balanced(balancer: HAProxy, directory) -> Server:
    """A client of the balancer: a Server object that is never started, only asked."""
    return Server("haproxy", [], {}, 0, directory / "unused.log", port=balancer.port)


def _signed_in_cookie(front: Server) -> str:
    """The professor's session cookie, from the sign-in form sent through the balancer."""
    status, headers = sign_in_response(front, login_form(front), ANALYST_PASSWORD)
    assert status in (302, 303), status
    jar = SimpleCookie()
    for value in headers.get_all("Set-Cookie") or []:
        jar.load(value)
    return "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())


#: One client sending over and over from the lecture hall, from one device: this many
#: submissions, each a new one, against SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT's default.
HAMMERED = 100
#: Its limit: the default, a minute.
DEVICE_LIMIT = limits.parse(
    config.from_environment("/nonexistent", with_secret_key=False)["DEVICE_SUBMISSION_RATE_LIMIT"]
)
#: The hall's address may send the class's answers, what the hammering device gets through
#: (its limit, in at most two windows) and 20 answers sent again after a reply lost with the
#: killed server: so were the device's refused submissions counted against the address, some
#: students would be refused.
ADDRESS_LIMIT = STUDENTS + 2 * DEVICE_LIMIT.amount + 20


def _answer_until_stored(
    front: Server, survey, submission_id: str, values, device: str | None = None
) -> int:
    """One student's submission, sent again (same id and device) after a lost reply; its last
    status."""
    status = 0
    for _ in range(ATTEMPTS):
        try:
            status, _ = front.submit(survey, submission_id, values, device=device)
        except (OSError, http.client.HTTPException):
            status = 0  # the connection, or the reply, went with the server
        if status in (200, 201, 429) or 400 <= status < 500:
            return status
        time.sleep(RETRY_PAUSE)
    return status


def _through_the_cluster(deployment, pgbouncer, redis_server, **settings: str):
    """The deployment as its app servers reach it in the cluster: through PgBouncer (in
    transaction pooling), limits on and counted in Redis, behind one proxy; and ``settings``."""
    redis_url, _ = redis_server
    return dataclasses.replace(
        deployment,
        database_url=pgbouncer.url(deployment.database_url),
        settings={
            "SURVEY_APP_DATABASE_POOL_MODE": "transaction",
            "SURVEY_APP_RATELIMIT_ENABLED": "true",
            "SURVEY_APP_RATELIMIT_STORAGE_URL": redis_url,
            "SURVEY_APP_TRUSTED_PROXIES": "1",
            **settings,
        },
    )


def test_a_class_answers_through_three_servers_while_one_is_killed(
    pgbouncer, redis_server, deployment, start_server, tmp_path
):
    through = _through_the_cluster(
        deployment,
        pgbouncer,
        redis_server,
        SURVEY_APP_SUBMISSION_RATE_LIMIT=f"{ADDRESS_LIMIT} per minute",
    )
    survey = through.create_survey(LOAD_SURVEY)
    servers = [start_server(through, workers=2, **through.settings) for _ in range(SERVERS)]
    balancer = HAProxy.start([server.port for server in servers], tmp_path)
    try:
        front = _balanced(balancer, tmp_path)
        session = _signed_in_cookie(front)
        state_path = f"/analyst/surveys/{survey.slug}/present/state"
        # The session made on one server is read by each of them (round robin).
        for _ in range(SERVERS):
            status, _, _ = front.request("GET", state_path, headers={"Cookie": session})
            assert status == 200

        rng = random.Random(310)
        sent = {new_id(): survey.random_values(rng) for _ in range(STUDENTS)}
        devices = {submission_id: new_device() for submission_id in sent}
        answered = threading.Semaphore(0)
        killed = threading.Event()

        def student(submission_id: str, values) -> int:
            device = devices[submission_id]
            status = _answer_until_stored(front, survey, submission_id, values, device)
            answered.release()
            return status

        def kill_one_half_way() -> None:
            for _ in range(STUDENTS // 2):
                answered.acquire(timeout=120)
            os.killpg(servers[1].process.pid, signal.SIGKILL)
            killed.set()

        killer = threading.Thread(target=kill_one_half_way)
        killer.start()
        hammered: dict[str, tuple[int, object]] = {}  # submission id -> status, reply
        hammerer = threading.Thread(target=_hammer, args=(front, survey, hammered))
        hammerer.start()
        results = run_parallel(
            [lambda item=item: student(*item) for item in sent.items()], threads=16
        )
        killer.join(timeout=120)
        hammerer.join(timeout=120)
        last_answer = time.monotonic()
        assert killed.is_set(), "the server was not killed while the class answered"
        assert len(hammered) == HAMMERED, "the hammering client did not finish"
        # Every student got through, none throttled as one address, each stored once.
        assert set(results) <= {200, 201}, sorted(set(results))
        # The hammering device was refused past its limit (a fixed window: at most two
        # windows' worth got through if a minute began meanwhile), by whichever server, in
        # words.
        assert DEVICE_LIMIT.get_expiry() == 60
        refused = {key for key, (status, _) in hammered.items() if status == 429}
        statuses = Counter(status for status, _ in hammered.values())
        assert len(refused) >= HAMMERED - 2 * DEVICE_LIMIT.amount, statuses
        for key in refused:
            assert hammered[key][1] == {"error": DEVICE_LIMITED, "code": "rate_limited"}

        # The projector shows the class's answers (its last release of whole batches of
        # five) within PROJECTOR_LAG of the last, whichever servers took them and serve it.
        released = STUDENTS - STUDENTS % 5
        seen = 0
        while seen < released and time.monotonic() - last_answer < PROJECTOR_LAG:
            status, _, body = front.request("GET", state_path, headers={"Cookie": session})
            assert status == 200
            seen = int(json.loads(body)["respondents"])
        assert seen >= released, f"the projector showed {seen} of {released}"
        # The class's answers, each once, and of the hammering client's only some: all it
        # was told were recorded, none it was refused (a reply lost with the killed server
        # may be either).
        stored = through.assert_consistent(survey).keys()
        assert stored - hammered.keys() == sent.keys()
        accepted = {key for key, (status, _) in hammered.items() if status in (200, 201)}
        assert accepted <= stored - sent.keys()
        assert not stored & refused
        # The balancer saw the killed server go (its health check: two missed, a second apart),
        # whether or not the class finished first.
        deadline = time.monotonic() + 10
        while "app2 is DOWN" not in balancer.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "app2 is DOWN" in balancer.log.read_text()
    finally:
        balancer.stop()


def _hammer(front: Server, survey, replies: dict[str, tuple[int, object]]) -> None:
    """One client from the lecture hall's address sending HAMMERED submissions in a row from
    one device, each a new one (a script, say); each one's (status, reply) in ``replies``
    (0, None: no reply)."""
    device, rng = new_device(), random.Random(312)
    for _ in range(HAMMERED):
        submission_id = new_id()
        try:
            values = survey.random_values(rng)
            replies[submission_id] = front.submit(survey, submission_id, values, device=device)
        except (OSError, http.client.HTTPException):
            replies[submission_id] = (0, None)  # the reply went with the killed server


#: Sign-in attempts a minute (SURVEY_APP_LOGIN_RATE_LIMIT's default), per address and account.
LOGIN_LIMIT = 10
#: Where the professor signs in from: another address than the guesses' (forwarded-for).
PROFESSORS_ADDRESS = "198.51.100.60"
#: A closed survey's join code leads to it this long after closing (7.2 seconds here, a day
#: by default): long enough to see it still lead, short enough to wait for.
JOIN_CODE_GRACE_HOURS = 0.002


def _joins(servers: list[Server], code: str) -> list[int]:
    """The status of a join link for ``code`` from each server (302: to the survey's page)."""
    return [server.request("GET", f"/j/{code}")[0] for server in servers]


def test_sign_in_throttling_and_join_code_expiry_hold_alike_on_every_server(
    pgbouncer, redis_server, deployment, tmp_path
):
    """Three app servers on one PostgreSQL (through PgBouncer) and one Redis, asked directly
    in turn: what one server counted or decided, the others go by."""
    through = _through_the_cluster(
        deployment,
        pgbouncer,
        redis_server,
        SURVEY_APP_JOIN_CODE_GRACE_HOURS=str(JOIN_CODE_GRACE_HOURS),
    )
    survey = through.create_survey(LOAD_SURVEY)
    servers = [launch_server(through, 1, **through.settings) for _ in range(SERVERS)]
    try:
        for server in servers:  # started together, waited for in turn
            wait_until_ready(server, survey)
        _shared_limits_and_codes(servers, through, survey)
    finally:
        for server in servers:
            server.stop()


@dataclasses.dataclass
class FromAddress:
    """A server asked by a client at another address (the balancer's forwarded-for header)."""

    server: Server
    address: str

    def request(self, method, path, body=None, headers=None, source=None):
        forwarded = {"X-Forwarded-For": self.address} | (headers or {})
        return self.server.request(method, path, body, forwarded, source)


def _shared_limits_and_codes(servers: list[Server], deployment, survey) -> None:
    # A join code leads to its survey from each server; closed, for its grace still.
    with deployment.engine() as engine, engine.connect() as connection:
        code = connection.execute(
            select(Survey.join_code).where(Survey.slug == survey.slug)
        ).scalar_one()
    assert _joins(servers, code) == [302] * SERVERS
    deployment.cli("close-survey", survey.slug)
    closed = time.monotonic()
    assert _joins(servers, code) == [302] * SERVERS  # to the page that says it has closed

    # The professor signs in on the first server, from an address of their own: their browser
    # keeps a device cookie (one of the account's attempts).
    professors = [FromAddress(server, PROFESSORS_ADDRESS) for server in servers]
    device = device_cookie_of(professors[0])
    # Meanwhile, wrong passwords, one server after another: throttled as on one server (the
    # attempts are counted in the database), and then the right one too, on each; but the
    # professor's known browser signs in on every server (its device cookie holds on each).
    attempts = [servers[turn % SERVERS] for turn in range(LOGIN_LIMIT + 5)]
    statuses = [sign_in(server, login_form(server), "wrong password!") for server in attempts]
    assert statuses == [401] * (LOGIN_LIMIT - 1) + [429] * 6
    assert [sign_in(s, login_form(s), ANALYST_PASSWORD) for s in servers] == [429] * SERVERS
    assert [owner_sign_in(s, device) for s in professors] == [302] * SERVERS

    # Past its grace, no server knows the code (it answers as an unknown code does).
    time.sleep(max(0.0, closed + JOIN_CODE_GRACE_HOURS * 3600 - time.monotonic()))
    assert _joins(servers, code) == [404] * SERVERS


#: When, by answers stored, the outages of the second test begin and end.
REDIS_STOPS, POSTGRESQL_RESTARTS, REDIS_RETURNS = 60, 120, 180
OUTAGE_STUDENTS = 240
#: A student's page keeps sending an answer it got no reply for, for this long (seconds).
PATIENCE = 30.0
#: Seconds from the start of PostgreSQL's restart within which every failed try must come: the
#: restart itself (about a second here), PgBouncer's next login (each second), and a retry.
OUTAGE_ERRORS = 5.0


def test_the_class_goes_on_through_a_redis_outage_and_a_postgresql_restart(
    own_postgresql, tmp_path
):
    """Three app servers behind HAProxy, PgBouncer and Redis, on a PostgreSQL of the test's own:
    Redis stopped mid-class (answers go on, the limits counted by each worker meanwhile),
    PostgreSQL restarted (at most a brief error a worker, each answer sent again with its id),
    Redis back (the limits counted there again). Nothing is lost or doubled."""
    postgresql = own_postgresql
    stack: list = []
    try:
        own = Deployment(postgresql.url(), tmp_path / "deployment")
        own.cli("init-db")
        own.cli("create-analyst", ANALYST_EMAIL, "--password-stdin", stdin=ANALYST_PASSWORD)
        survey = own.create_survey(LOAD_SURVEY)
        bouncer = PgBouncer.start(postgresql.url())
        stack.append(bouncer)
        limits = RedisServer.start(tmp_path)
        stack.append(limits)
        through = dataclasses.replace(
            own,
            database_url=bouncer.url(postgresql.url()),
            settings={
                "SURVEY_APP_DATABASE_POOL_MODE": "transaction",
                "SURVEY_APP_RATELIMIT_ENABLED": "true",
                "SURVEY_APP_RATELIMIT_STORAGE_URL": limits.url,
                "SURVEY_APP_TRUSTED_PROXIES": "1",
            },
        )
        servers = [launch_server(through, 1, **through.settings) for _ in range(SERVERS)]
        stack.extend(servers)
        for server in servers:
            wait_until_ready(server, survey)
        balancer = HAProxy.start([server.port for server in servers], tmp_path)
        stack.append(balancer)
        front = _balanced(balancer, tmp_path)
        _class_through_outages(front, survey, through, postgresql, limits)
    finally:
        for part in reversed(stack):
            part.stop()


def _class_through_outages(front, survey, deployment, postgresql, limits) -> None:
    rng = random.Random(311)
    sent = {new_id(): survey.random_values(rng) for _ in range(OUTAGE_STUDENTS)}
    stored = AtomicCounter()
    failed_at: list[float] = []  # when a try failed (list.append is atomic)
    restart_began: list[float] = []

    def student(submission_id: str, values) -> int:
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                status, _ = front.submit(survey, submission_id, values)
            except (OSError, http.client.HTTPException):
                status = 0  # the reply was lost: sent again
            if status in (200, 201) or time.monotonic() > deadline:
                stored.add()
                return status
            failed_at.append(time.monotonic())
            time.sleep(RETRY_PAUSE)

    def restart() -> None:
        restart_began.append(time.monotonic())
        postgresql.restart()

    def outages() -> None:
        for threshold, action in (
            (REDIS_STOPS, limits.stop),
            (POSTGRESQL_RESTARTS, restart),
            (REDIS_RETURNS, limits.resume),
        ):
            while stored.value < threshold:
                time.sleep(0.01)
            action()

    chaos = threading.Thread(target=outages, daemon=True)
    chaos.start()
    results = run_parallel([lambda item=item: student(*item) for item in sent.items()], threads=8)
    chaos.join(timeout=60)
    assert not chaos.is_alive(), "the outages did not all happen while the class answered"
    assert set(results) <= {200, 201}, sorted(set(results))
    assert deployment.assert_consistent(survey).keys() == sent.keys()
    # The errors were brief: every failed try came within OUTAGE_ERRORS seconds of the restart
    # (none while Redis was away, none once PostgreSQL was back).
    restarted = restart_began[0]
    late = [
        round(at - restarted, 2) for at in failed_at if not 0 <= at - restarted <= OUTAGE_ERRORS
    ]
    assert late == [], f"{len(failed_at)} failed tries, these outside the restart: {late}"
    # Redis is back: the limits are counted there again (each worker went back to it).
    client = limits.client()
    try:
        deadline = time.monotonic() + 10
        while not client.keys("*") and time.monotonic() < deadline:
            front.submit(survey, new_id(), survey.random_values(rng))
            time.sleep(0.2)
        assert client.keys("*"), "no limit was counted in Redis once it was back"
    finally:
        client.close()
