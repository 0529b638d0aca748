"""Rate limits: submissions and typed join codes per client address, submissions also per
device, sign-ins per address and per account.

Submissions go through Flask-Limiter (in memory, or Redis shared by the workers). Each app gets
its own limiter, and only when limits are on: with ``SURVEY_APP_RATELIMIT_ENABLED=false``
nothing of the limiter is left in the request path.

Sign-ins and typed join codes are counted once for every worker and every app server: in the
database (:class:`WindowCounter`), or, for join codes, in Redis when the limiter has it. A
guesser cannot spread sign-ins or join-code guesses over workers, nor sign-ins over addresses
against one account. Clients and accounts are named only by keyed hashes.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import limits
from flask import Flask, abort, current_app, request
from flask.logging import default_handler
from flask_limiter import Limiter
from sqlalchemy import delete, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite

from survey_app.extensions import db
from survey_app.storage.database import is_sqlite
from survey_app.storage.models import SignInAttempts

#: How long a worker waits on the shared storage (Redis) before counting in memory instead.
STORAGE_TIMEOUT_SECONDS = 0.5

#: The endpoints Flask-Limiter limits: the setting that holds each one's limit, and the methods
#: it counts.
LIMITED_ENDPOINTS = {
    "api.submit_response": ("SUBMISSION_RATE_LIMIT", None),
    # LTI: each login writes a row that lives 5 minutes, and a launch may fetch a key set.
    "lti.login": ("LTI_RATE_LIMIT", None),
    "lti.launch": ("LTI_RATE_LIMIT", None),
}

#: Typed join codes, by the join form or a join link: one count per address for both, under
#: ``SURVEY_APP_JOIN_RATE_LIMIT``. Generous for a lecture hall behind one address, and far too
#: few for anyone to find open surveys by trying codes (about 10^8 of them).
JOIN_ENDPOINTS = ("respondent.join", "respondent.join_by_code")


#: The request header in which the students' page names its device: 32 hexadecimal digits (128
#: random bits) drawn once per browser (static/js/answer-table.js). Scripts may leave it out.
DEVICE_HEADER = "Survey-Device"
_DEVICE_ID = re.compile(r"[0-9a-f]{32}")

#: What a device over ``SURVEY_APP_DEVICE_SUBMISSION_RATE_LIMIT`` is told (the API speaks
#: English; the students' page says it in its own words, as for any ``rate_limited``).
DEVICE_LIMITED = "too many submissions from this device; wait a minute, then send again"


class DeviceHeaderError(ValueError):
    """The device header is there but is not a device id."""


def device_id(header: str | None) -> str | None:
    """The device id a submission names in its ``Survey-Device`` header; None without one.

    A header that is not 32 hexadecimal digits is a DeviceHeaderError, whose message says what
    is expected without repeating what was sent.
    """
    if header is None:
        return None
    device = header.strip().lower()
    if _DEVICE_ID.fullmatch(device) is None:
        raise DeviceHeaderError(
            f"the {DEVICE_HEADER} header must be 32 hexadecimal digits (a random id the "
            "students' page draws once per browser), or be left out"
        )
    return device


def _keyed_hash(text: str, digest_size: int = 12) -> str:
    secret = current_app.config["SECRET_KEY"].encode("utf-8")
    return hashlib.blake2b(
        text.encode("utf-8"), key=secret[:64], digest_size=digest_size
    ).hexdigest()


def client_bucket() -> str:
    """The rate-limit key of a client: a keyed hash of its address, never the address itself.

    The limiter's storage then holds no client address, and the hash cannot be reversed
    without the app's secret key.
    """
    return _keyed_hash(request.remote_addr or "unknown")


def _named_device() -> str | None:
    try:
        return device_id(request.headers.get(DEVICE_HEADER))
    except DeviceHeaderError:
        return None  # the view refuses it (400); its address is counted meanwhile


def device_bucket() -> str:
    """The rate-limit key of a device's submissions to one survey: a keyed hash of the
    survey's slug and the device id, so the limiter's storage never holds the id, and one id
    cannot be followed from survey to survey there."""
    slug = (request.view_args or {}).get("slug", "")
    return _keyed_hash(f"device:{slug}:{_named_device()}")


def names_no_device() -> bool:
    """Whether a submission names no valid device: then only its address is counted."""
    return _named_device() is None


# ------------------------------------------------------------------- counted in the database


class WindowCounter:
    """Counts events in the database, per keyed-hash bucket, for every worker and server at once.

    Each limit of a setting (Flask-Limiter syntax, e.g. ``"10 per minute"`` or
    ``"10 per minute; 50 per hour"``) is a sliding window, estimated from two fixed windows: the
    current one, plus the previous one weighted by how much of it the sliding window still
    covers. Each increment is one statement (an upsert that also reads the previous window), so
    concurrent workers never lose a count, and an event costs one statement per limit. The rows
    are ``sign_in_attempts`` (sign-ins were counted first); each kind of event has buckets of its
    own.
    """

    def __init__(self, setting: str, clock: Callable[[], float] = time.time):
        self.limits = limits.parse_many(setting)
        #: Seconds since the epoch; tests set it instead of sleeping.
        self.clock = clock

    @staticmethod
    def _bucket(kind: str, value: str, period: int) -> str:
        return f"{_keyed_hash(kind + ':' + value, 16)}:{period}"

    @staticmethod
    def _increment(bucket: str, window: int) -> tuple[int, int]:
        """Add one to the bucket's current window; its (current, previous window) counts."""
        earlier = SignInAttempts.__table__.alias("earlier")
        previous = (
            select(earlier.c.attempts)
            .where(earlier.c.bucket == bucket, earlier.c.window == window - 1)
            .scalar_subquery()
        )
        dialect = sqlite if is_sqlite() else postgresql
        statement = (
            dialect.insert(SignInAttempts)
            .values(bucket=bucket, window=window, attempts=1)
            .on_conflict_do_update(
                index_elements=["bucket", "window"],
                set_={"attempts": SignInAttempts.attempts + 1},
            )
            .returning(SignInAttempts.attempts, previous)
        )
        current, previous_count = db.session.execute(statement).one()
        return current, previous_count or 0

    @staticmethod
    def _forget_before(period: int, window: int) -> None:
        """Delete the counts of every bucket of this period from windows before ``window``.

        Each bucket's rows would otherwise stay until that same client or account is counted
        again, telling (to whoever holds the database and the key) the minute an address
        joined. Windows are numbered per period (the time divided by it), so only buckets of
        this period, named ``<hash>:<period>``, are compared with ``window``. One statement;
        on PostgreSQL rows another transaction holds are skipped (it is deleting them, or a
        later window start will), so two workers never wait on each other here.
        """
        old = (
            select(SignInAttempts.bucket, SignInAttempts.window)
            .where(
                SignInAttempts.bucket.endswith(f":{period}", autoescape=True),
                SignInAttempts.window < window,
            )
            .with_for_update(skip_locked=True)
        )
        db.session.execute(
            delete(SignInAttempts).where(
                tuple_(SignInAttempts.bucket, SignInAttempts.window).in_(old)
            )
        )

    def count(self, kind: str, value: str) -> list[tuple[limits.RateLimitItem, float]]:
        """Count one event of ``kind`` for ``value``; each limit with its sliding-window count."""
        now = self.clock()
        counts = []
        for item in self.limits:
            period = item.get_expiry()
            bucket = self._bucket(kind, value, period)
            window = int(now // period)
            current, previous = self._increment(bucket, window)
            if current == 1:  # a new window: forget the ones the sliding window has left
                self._forget_before(period, window - 1)
            covered = 1.0 - (now - window * period) / period
            counts.append((item, current + previous * covered))
        return counts

    @staticmethod
    def over(counts: list[tuple[limits.RateLimitItem, float]]) -> int | None:
        """The seconds to wait if a count is over its limit (that limit's period), else None."""
        for item, count in counts:
            if count > item.amount:
                return item.get_expiry()
        return None


# --------------------------------------------------------------------------- sign-in


@dataclass(frozen=True)
class Throttled:
    """Why a sign-in was refused before its password was checked."""

    reason: str  # "address" or "account"
    retry_after: int  # seconds


class SignInThrottle(WindowCounter):
    """Counts sign-in attempts in the database, per address and per account.

    Every attempt counts against the address it came from and against the account it named
    (a right password too: during a guessing attack a new browser waits a minute like
    everyone), under each limit of ``SURVEY_APP_LOGIN_RATE_LIMIT``; an attempt from a browser
    that holds a device cookie for that account counts against that device instead of the
    account, under the same limits.

    The caller commits, whatever the outcome.
    """

    def attempt(self, email: str, device: str | None = None) -> Throttled | None:
        """Count an attempt from this request's address on the account named by ``email``;
        say whether it must be refused before its password is checked.

        ``device`` is the id in this browser's device cookie for that account
        (:mod:`survey_app.accounts.devices`), if it has a valid one. Each attempt is counted before
        it
        is judged, in one statement, so that attempts arriving together on several workers
        cannot all slip under the limit.
        """
        address = self.over(self.count("address", request.remote_addr or "unknown"))
        # A browser that signed in to the account before is counted on its own, not by the
        # account's shared count, so strangers guessing cannot lock its owner out (OWASP's
        # device cookies). Once it has itself tried too often it loses that pass until its
        # count falls back under the limit, and is judged as a new browser.
        if device is not None and self.over(self.count("device", device)) is None:
            return Throttled("address", address) if address is not None else None
        account = self.over(self.count("account", email.strip().lower()))
        if address is not None:
            return Throttled("address", address)
        if account is not None:
            return Throttled("account", account)
        return None


def sign_in_throttle() -> SignInThrottle | None:
    """The app's sign-in throttle, or None when rate limits are off."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return None
    throttle = current_app.extensions.get("sign_in_throttle")
    if throttle is None:
        throttle = SignInThrottle(current_app.config["LOGIN_RATE_LIMIT"])
        current_app.extensions["sign_in_throttle"] = throttle
    return throttle


# --------------------------------------------------------------------------- join codes


class JoinThrottle(WindowCounter):
    """Typed join codes per client address, on either join path, counted in the database."""

    def check(self) -> None:
        """Count this request's typed code; over the limit, refuse it with 429 (which the join
        form answers, saying that the network is busy: see survey_app.web.errors).

        The count is committed at once, before the code is looked up: a lecture hall's
        requests share one row, whose lock is then held for one short statement only.
        """
        counts = self.count("join", request.remote_addr or "unknown")
        db.session.commit()
        if self.over(counts) is not None:
            abort(429)


def _counted_first(view: Callable, throttle: JoinThrottle) -> Callable:
    """``view``, with each request counted by ``throttle`` before it runs."""

    @functools.wraps(view)
    def counted(*args, **kwargs):
        throttle.check()
        return view(*args, **kwargs)

    return counted


def _limit_join_codes(app: Flask, limiter: Limiter, shared_storage: bool) -> None:
    """One count per address for typed join codes, whichever worker or server answers.

    With a shared storage (Redis) configured, Flask-Limiter counts them there, both paths in
    one scope; otherwise the database does (:class:`JoinThrottle`), never a worker's memory.
    """
    setting = app.config["JOIN_RATE_LIMIT"]
    if shared_storage:
        limit = limiter.shared_limit(setting, scope="join")
        for endpoint in JOIN_ENDPOINTS:
            app.view_functions[endpoint] = limit(app.view_functions[endpoint])
        return
    throttle = JoinThrottle(setting)
    app.extensions["join_throttle"] = throttle
    for endpoint in JOIN_ENDPOINTS:
        app.view_functions[endpoint] = _counted_first(app.view_functions[endpoint], throttle)


def _limit_devices(app: Flask, limiter: Limiter) -> None:
    """Submissions per device as well as per address, in the same storage: a lecture hall
    behind one address is many devices, and one device sending over and over is still one."""
    limit = limiter.limit(
        app.config["DEVICE_SUBMISSION_RATE_LIMIT"],
        key_func=device_bucket,
        exempt_when=names_no_device,
        error_message=DEVICE_LIMITED,
        scope="device",
    )
    app.view_functions["api.submit_response"] = limit(app.view_functions["api.submit_response"])


def register(app: Flask) -> Limiter | None:
    """Apply the limits to the app's views (after its blueprints are registered)."""
    if not app.config["RATELIMIT_ENABLED"]:
        return None
    # When the shared storage (Redis) cannot be reached, each worker goes on counting in its
    # own memory, and returns to the storage once it answers: a lecture never stops on it.
    # Nor does it hang on a storage that accepts connections but never answers.
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    shared_storage = not str(app.config.get("RATELIMIT_STORAGE_URI", "memory://")).startswith(
        "memory"
    )
    if shared_storage:
        app.config.setdefault(
            "RATELIMIT_STORAGE_OPTIONS",
            {
                "socket_connect_timeout": STORAGE_TIMEOUT_SECONDS,
                "socket_timeout": STORAGE_TIMEOUT_SECONDS,
            },
        )
    limiter = Limiter(key_func=client_bucket, default_limits=[], headers_enabled=True)
    limiter.init_app(app)
    # The limiter says when it falls back to memory (and when its storage is back) on a
    # logger of its own that prints nowhere by default; send it to the app's error output.
    limiter_log = logging.getLogger("flask-limiter")
    if default_handler not in limiter_log.handlers:
        limiter_log.addHandler(default_handler)
    limiter_log.setLevel(logging.INFO)
    # The limits are read once, here: the settings do not change while the app runs.
    # The device's limit before its address's: a submission refused by its device's limit
    # spends nothing of its address's (the limiter checks a request's limits in this order, by
    # their period, and stops at the first it breaks), else one device sending over and over
    # would use up the limit of the lecture hall behind that address.
    _limit_devices(app, limiter)
    for endpoint, (setting, methods) in LIMITED_ENDPOINTS.items():
        limit = limiter.limit(app.config[setting], methods=methods)
        app.view_functions[endpoint] = limit(app.view_functions[endpoint])
    _limit_join_codes(app, limiter, shared_storage)
    return limiter
