"""Defaults and the ``SURVEY_APP_*`` environment."""

from __future__ import annotations

import datetime as dt
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

#: Keys that were ever published (tutorials, examples): serving with one of them is refused.
PUBLISHED_SECRET_KEYS = frozenset({"", "dev", "secret", "changeme", "change-me", "development"})

#: Bodies above this size are refused before they are read (413).
MAX_CONTENT_LENGTH = 64 * 1024


class ConfigurationError(RuntimeError):
    """The app cannot start safely with the configuration it was given."""


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ConfigurationError(f"expected true or false, got {value!r}")


def instance_secret_key(instance_path: str) -> str:
    """The key kept in the instance folder, generated (owner-readable only) at first start."""
    path = Path(instance_path) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    # O_EXCL: when several workers start at once only one writes; the others read its key.
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return key


def _hours(name: str, default: float) -> dt.timedelta:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return dt.timedelta(hours=default)
    try:
        hours = float(raw)
    except ValueError:
        hours = float("nan")
    if not 0 < hours <= 24 * 366:
        raise ConfigurationError(f"{name} must be a number of hours above 0, got {raw!r}")
    return dt.timedelta(hours=hours)


def release_batch(value: str | None) -> int:
    """SURVEY_APP_RELEASE_BATCH: new submissions between two releases of an open survey's
    results (survey_app.releases); 1 shows each arrival's answers, for a demonstration only."""
    if value is None or value.strip() == "":
        return 5
    try:
        batch = int(value)
    except ValueError:
        batch = 0
    if not 1 <= batch <= 10_000:
        raise ConfigurationError(
            f"SURVEY_APP_RELEASE_BATCH must be a whole number from 1 to 10000, got {value!r}"
        )
    return batch


def public_url(value: str | None) -> str | None:
    """The app's public base URL (``https://surveys.example.edu``), checked; None if unset."""
    if value is None or value.strip() == "":
        return None
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigurationError(
            f"SURVEY_APP_PUBLIC_URL must be an http(s) address like https://surveys.example.edu, "
            f"got {value!r}"
        )
    return value.strip().rstrip("/")


#: How long a browser that saw the app over HTTPS keeps to HTTPS for it: a year.
DEFAULT_HSTS_MAX_AGE = 365 * 24 * 3600


def hsts_max_age(value: str | None) -> int:
    """Strict-Transport-Security's max-age in seconds (0: no header), checked."""
    if value is None or value.strip() == "":
        return DEFAULT_HSTS_MAX_AGE
    if not (value.strip().isascii() and value.strip().isdigit()):
        raise ConfigurationError(
            f"SURVEY_APP_HSTS_MAX_AGE must be a whole number of seconds (0 turns it off), "
            f"got {value!r}"
        )
    return int(value)


def _host_list(value: str | None) -> list[str] | None:
    if value is None or value.strip() == "":
        return None
    return [host.strip() for host in value.split(",") if host.strip()]


def from_environment(instance_path: str, with_secret_key: bool = True) -> dict:
    """Settings read from the environment, with their defaults."""
    env = os.environ
    database_url = env.get("SURVEY_APP_DATABASE_URL") or (
        "sqlite:///" + str(Path(instance_path) / "survey_app.sqlite3")
    )
    settings = {}
    if with_secret_key:
        secret_key = env.get("SURVEY_APP_SECRET_KEY")
        if secret_key is None:
            secret_key = instance_secret_key(instance_path)
        settings["SECRET_KEY"] = secret_key
    return settings | {
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SESSION_COOKIE_SECURE_ALWAYS": _flag(env.get("SURVEY_APP_SESSION_COOKIE_SECURE"), False),
        "TRUSTED_PROXIES": int(env.get("SURVEY_APP_TRUSTED_PROXIES") or 0),
        "RATELIMIT_ENABLED": _flag(env.get("SURVEY_APP_RATELIMIT_ENABLED"), True),
        "RATELIMIT_STORAGE_URI": env.get("SURVEY_APP_RATELIMIT_STORAGE_URL", "memory://"),
        "SUBMISSION_RATE_LIMIT": env.get("SURVEY_APP_SUBMISSION_RATE_LIMIT", "1200 per minute"),
        "LOGIN_RATE_LIMIT": env.get("SURVEY_APP_LOGIN_RATE_LIMIT", "10 per minute"),
        "JOIN_RATE_LIMIT": env.get("SURVEY_APP_JOIN_RATE_LIMIT", "600 per minute"),
        # A closed survey's join code stops resolving this long after it closed.
        "JOIN_CODE_GRACE": _hours("SURVEY_APP_JOIN_CODE_GRACE_HOURS", 24),
        "SESSION_IDLE_TIMEOUT": _hours("SURVEY_APP_SESSION_IDLE_HOURS", 8),
        "SESSION_MAX_AGE": _hours("SURVEY_APP_SESSION_MAX_HOURS", 24),
        "PUBLIC_URL": public_url(env.get("SURVEY_APP_PUBLIC_URL")),
        "RELEASE_BATCH": release_batch(env.get("SURVEY_APP_RELEASE_BATCH")),
        # Flask answers 400 to a request whose Host header is not one of these (None: any).
        "TRUSTED_HOSTS": _host_list(env.get("SURVEY_APP_TRUSTED_HOSTS")),
        "HSTS_MAX_AGE": hsts_max_age(env.get("SURVEY_APP_HSTS_MAX_AGE")),
    }


#: How to make a key, for the messages that refuse one.
_GENERATE_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def distinct_characters_needed(key: str) -> int:
    """How many different characters a key of this length must hold to pass as random.

    A key typed by a person ("aaaa...", "passwordpassword") repeats a few characters; a random
    one almost never does. The bar is 16, lowered for short keys to half their length, and for
    keys of hex digits alone (only 16 to draw from) to a quarter of their length, at most 8: a
    key from ``secrets.token_urlsafe``, ``token_hex`` or 16 random letters and digits falls
    below it with a chance under one in 100,000.
    """
    if set(key) <= _HEX_DIGITS:
        return min(8, len(key) // 4)
    return min(16, len(key) // 2)


def check_secret_key(key: object) -> None:
    """Refuse to serve with no key, a short one, one that was ever published, or one made of
    too few different characters to be random."""
    if not isinstance(key, str) or key.strip().lower() in PUBLISHED_SECRET_KEYS:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is unset or a published example key; "
            f"set a long random value ({_GENERATE_KEY})"
        )
    if len(key) < 16:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY must be at least 16 characters long"
        )
    distinct = len(set(key))
    if distinct < distinct_characters_needed(key):
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is easy to guess (only "
            f"{distinct} different characters); generate a random one with {_GENERATE_KEY}"
        )
