"""Rate limits: submissions and typed join codes per client address, sign-ins per address and
per account.

Submissions and join codes go through Flask-Limiter (in memory, or Redis shared by the
workers). Each app gets its own limiter, and only when limits are on: with
``SURVEY_APP_RATELIMIT_ENABLED=false`` nothing of the limiter is left in the request path.

Sign-ins are counted in the database (:class:`SignInThrottle`), so every worker and every app
server sees the same counts with no Redis: a guesser cannot spread guesses over workers, nor
over addresses against one account. Clients and accounts are named only by keyed hashes.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

import limits
from flask import Flask, current_app, request
from flask.logging import default_handler
from flask_limiter import Limiter
from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite

from survey_app.database import is_sqlite
from survey_app.extensions import db
from survey_app.models import SignInAttempts

#: How long a worker waits on the shared storage (Redis) before counting in memory instead.
STORAGE_TIMEOUT_SECONDS = 0.5

#: The limited endpoints: the setting that holds each one's limit, and the methods it counts.
LIMITED_ENDPOINTS = {
    "api.submit_response": ("SUBMISSION_RATE_LIMIT", None),
    # Typed join codes: generous for a lecture hall behind one address, and far too few for
    # anyone to find open surveys by trying codes (about 10^8 of them).
    "respondent.join": ("JOIN_RATE_LIMIT", None),
    "respondent.join_by_code": ("JOIN_RATE_LIMIT", None),
}


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


# --------------------------------------------------------------------------- sign-in


@dataclass(frozen=True)
class Throttled:
    """Why a sign-in was refused before its password was checked."""

    reason: str  # "address" or "account"
    retry_after: int  # seconds


class SignInThrottle:
    """Counts sign-in attempts in the database, per address and per account.

    Every attempt counts against the address it came from and against the account it named
    (a right password too: during a guessing attack the owner waits a minute like everyone).
    Each limit of ``SURVEY_APP_LOGIN_RATE_LIMIT`` (Flask-Limiter syntax, e.g.
    ``"10 per minute"`` or ``"10 per minute; 50 per hour"``) is a sliding window, estimated
    from two fixed windows: the current one, plus the previous one weighted by how much of it
    the sliding window still covers. Increments are single statements (an upsert), so
    concurrent workers never lose a count.

    The caller commits, whatever the outcome.
    """

    def __init__(self, setting: str):
        self.limits = limits.parse_many(setting)

    @staticmethod
    def _bucket(kind: str, value: str, period: int) -> str:
        return f"{_keyed_hash(kind + ':' + value, 16)}:{period}"

    def _weighted(self, bucket: str, window: int, current: int, now: float, period: int) -> float:
        previous = db.session.execute(
            select(SignInAttempts.attempts).where(
                SignInAttempts.bucket == bucket, SignInAttempts.window == window - 1
            )
        ).scalar_one_or_none()
        covered = 1.0 - (now - window * period) / period
        return current + (previous or 0) * covered

    def _add(self, kind: str, value: str, now: float) -> list[tuple[limits.RateLimitItem, float]]:
        counts = []
        for item in self.limits:
            period = item.get_expiry()
            bucket = self._bucket(kind, value, period)
            window = int(now // period)
            dialect = sqlite if is_sqlite() else postgresql
            statement = (
                dialect.insert(SignInAttempts)
                .values(bucket=bucket, window=window, attempts=1)
                .on_conflict_do_update(
                    index_elements=["bucket", "window"],
                    set_={"attempts": SignInAttempts.attempts + 1},
                )
                .returning(SignInAttempts.attempts)
            )
            current = db.session.execute(statement).scalar_one()
            if current == 1:  # a new window: forget the ones the sliding window has left
                db.session.execute(
                    delete(SignInAttempts).where(
                        SignInAttempts.bucket == bucket, SignInAttempts.window < window - 1
                    )
                )
            counts.append((item, self._weighted(bucket, window, current, now, period)))
        return counts

    @staticmethod
    def _over(counts, reason: str) -> Throttled | None:
        for item, count in counts:
            if count > item.amount:
                return Throttled(reason, item.get_expiry())
        return None

    def attempt(self, email: str) -> Throttled | None:
        """Count an attempt from this request's address on the account named by ``email``;
        say whether it must be refused before its password is checked.

        Each attempt is counted before it is judged, in one statement, so that attempts
        arriving together on several workers cannot all slip under the limit.
        """
        now = time.time()
        address = self._add("address", request.remote_addr or "unknown", now)
        account = self._add("account", email.strip().lower(), now)
        return self._over(address, "address") or self._over(account, "account")


def sign_in_throttle() -> SignInThrottle | None:
    """The app's sign-in throttle, or None when rate limits are off."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return None
    throttle = current_app.extensions.get("sign_in_throttle")
    if throttle is None:
        throttle = SignInThrottle(current_app.config["LOGIN_RATE_LIMIT"])
        current_app.extensions["sign_in_throttle"] = throttle
    return throttle


def register(app: Flask) -> Limiter | None:
    """Apply the limits to the app's views (after its blueprints are registered)."""
    if not app.config["RATELIMIT_ENABLED"]:
        return None
    # When the shared storage (Redis) cannot be reached, each worker goes on counting in its
    # own memory, and returns to the storage once it answers: a lecture never stops on it.
    # Nor does it hang on a storage that accepts connections but never answers.
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    if not str(app.config.get("RATELIMIT_STORAGE_URI", "memory://")).startswith("memory"):
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
    for endpoint, (setting, methods) in LIMITED_ENDPOINTS.items():
        limit = limiter.limit(app.config[setting], methods=methods)
        app.view_functions[endpoint] = limit(app.view_functions[endpoint])
    return limiter
