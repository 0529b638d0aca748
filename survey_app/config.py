"""Defaults and the ``SURVEY_APP_*`` environment."""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
import secrets
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import limits

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
    results (survey_app.results.releases); 1 shows each arrival's answers, for a demonstration
    only."""
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


#: How a connection pooler between the app and PostgreSQL lends server connections (PgBouncer's
#: ``pool_mode``): "session" (or no pooler) keeps one server connection a client connection;
#: "transaction" lends one a transaction, so the app must keep nothing on a server connection
#: between transactions.
DATABASE_POOL_MODES = ("session", "transaction")


def database_pool_mode(value: str | None) -> str:
    """SURVEY_APP_DATABASE_POOL_MODE, checked: "session" unless set."""
    if value is None or value.strip() == "":
        return "session"
    mode = value.strip().lower()
    if mode not in DATABASE_POOL_MODES:
        raise ConfigurationError(
            f"SURVEY_APP_DATABASE_POOL_MODE must be session or transaction (PgBouncer's "
            f"pool_mode), got {value!r}"
        )
    return mode


def engine_options(pool_mode: str) -> dict:
    """The database engine's options for a pool mode.

    Behind a pooler that lends server connections a transaction at a time, psycopg must not
    prepare statements on the server (it does after a statement's fifth use): the next
    transaction may run on another server connection, where the prepared statement does not
    exist. PgBouncer 1.18, Debian 12's, cannot carry them.
    """
    if pool_mode == "transaction":
        return {"connect_args": {"prepare_threshold": None}}
    return {}


def rate_limit(name: str, value: str | None, default: str) -> str:
    """A rate-limit setting (Flask-Limiter syntax: "20 per minute", several joined by ";"),
    checked: Flask-Limiter drops a limit it cannot read with no more than a log line, so a
    value it cannot read is refused at start instead."""
    if value is None or value.strip() == "":
        return default
    try:
        parsed = limits.parse_many(value)
    except ValueError:
        parsed = []
    if not parsed or any(item.amount < 1 for item in parsed):
        raise ConfigurationError(
            f"{name} must be a rate limit like '20 per minute' (several separated by ';'), "
            f"got {value!r}"
        )
    return value.strip()


def _rate_limits(env) -> dict[str, str]:
    """Each rate limit's setting, checked, with its default."""
    defaults = {
        "SUBMISSION_RATE_LIMIT": "1200 per minute",
        # Submissions per device and survey, when the students' page names its device
        # (web/ratelimits.py): one, and its retries after replies lost on a busy network, stay
        # far below; a lecture hall shares an address, not a device.
        "DEVICE_SUBMISSION_RATE_LIMIT": "20 per minute",
        "LOGIN_RATE_LIMIT": "10 per minute",
        "JOIN_RATE_LIMIT": "600 per minute",
        # LTI logins and launches per address: a lecture hall behind one address launches at
        # once (a login and a launch a student).
        "LTI_RATE_LIMIT": "600 per minute",
    }
    return {
        key: rate_limit(f"SURVEY_APP_{key}", env.get(f"SURVEY_APP_{key}"), default)
        for key, default in defaults.items()
    }


def _host_list(value: str | None) -> list[str] | None:
    if value is None or value.strip() == "":
        return None
    return [host.strip() for host in value.split(",") if host.strip()]


def database_url(value: str | None, instance_path: str) -> str:
    """SURVEY_APP_DATABASE_URL, checked: a SQLite file in the instance folder unless set.

    The app speaks to PostgreSQL through psycopg (version 3), whose libpq layer runs the
    submission statement (storage.kept_connection): a PostgreSQL URL must name it.
    """
    if value is None or value.strip() == "":
        return "sqlite:///" + str(Path(instance_path) / "survey_app.sqlite3")
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(value.strip())
    except ArgumentError:
        raise ConfigurationError(
            "SURVEY_APP_DATABASE_URL must be a SQLAlchemy URL (sqlite:///PATH or "
            "postgresql+psycopg://USER:PASSWORD@HOST/DATABASE)"
        ) from None
    backend = url.get_backend_name()
    if backend == "postgres" or (backend == "postgresql" and url.get_driver_name() != "psycopg"):
        raise ConfigurationError(
            "SURVEY_APP_DATABASE_URL must name the psycopg driver the app runs PostgreSQL "
            f"with: postgresql+psycopg://..., got {url.drivername}://..."
        )
    return value.strip()


def from_environment(instance_path: str, with_secret_key: bool = True) -> dict:
    """Settings read from the environment, with their defaults."""
    env = os.environ
    database = database_url(env.get("SURVEY_APP_DATABASE_URL"), instance_path)
    settings = {}
    if with_secret_key:
        secret_key = env.get("SURVEY_APP_SECRET_KEY")
        if secret_key is None:
            secret_key = instance_secret_key(instance_path)
        settings["SECRET_KEY"] = secret_key
    return (
        settings
        | _rate_limits(env)
        | {
            "SQLALCHEMY_DATABASE_URI": database,
            "DATABASE_POOL_MODE": database_pool_mode(env.get("SURVEY_APP_DATABASE_POOL_MODE")),
            "SESSION_COOKIE_SECURE_ALWAYS": _flag(
                env.get("SURVEY_APP_SESSION_COOKIE_SECURE"), False
            ),
            "TRUSTED_PROXIES": int(env.get("SURVEY_APP_TRUSTED_PROXIES") or 0),
            "RATELIMIT_ENABLED": _flag(env.get("SURVEY_APP_RATELIMIT_ENABLED"), True),
            "RATELIMIT_STORAGE_URI": env.get("SURVEY_APP_RATELIMIT_STORAGE_URL", "memory://"),
            # A closed survey's join code stops resolving this long after it closed.
            "JOIN_CODE_GRACE": _hours("SURVEY_APP_JOIN_CODE_GRACE_HOURS", 24),
            "SESSION_IDLE_TIMEOUT": _hours("SURVEY_APP_SESSION_IDLE_HOURS", 8),
            "SESSION_MAX_AGE": _hours("SURVEY_APP_SESSION_MAX_HOURS", 24),
            "PUBLIC_URL": public_url(env.get("SURVEY_APP_PUBLIC_URL")),
            "RELEASE_BATCH": release_batch(env.get("SURVEY_APP_RELEASE_BATCH")),
            # Flask answers 400 to a request whose Host header is not one of these (None: any).
            "TRUSTED_HOSTS": _host_list(env.get("SURVEY_APP_TRUSTED_HOSTS")),
            "HSTS_MAX_AGE": hsts_max_age(env.get("SURVEY_APP_HSTS_MAX_AGE")),
            # The LTI tool's signing key (PEM); without it, one made in the instance folder.
            "LTI_PRIVATE_KEY": env.get("SURVEY_APP_LTI_PRIVATE_KEY") or None,
            # Whether an instructor's first launch may make a new account (no e-mail is checked):
            # off, they link only an account that exists already.
            "LTI_CREATE_ACCOUNTS": _flag(env.get("SURVEY_APP_LTI_CREATE_ACCOUNTS"), True),
        }
    )


#: How to make a key, for the messages that refuse one.
_GENERATE_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
#: The least estimated strength of a key, in bits: as hard to guess as a 128-bit random key.
SECRET_KEY_BITS_NEEDED = 128


def repeats_a_pattern(key: str) -> bool:
    """Whether the key is a shorter pattern said twice or more ("abcdabcd", "deadbeefdeadbeef",
    "abcabcab"): it is then as easy to guess as that pattern."""
    return any(key[shift:] == key[:-shift] for shift in range(1, len(key) // 2 + 1))


def estimated_strength_bits(key: str) -> float:
    """How many bits a key holds, judged by how its characters vary: its length times the
    Shannon entropy of its characters' frequencies, ``sum(c * log2(n / c))`` over the count
    ``c`` of each distinct character in a key of ``n``.

    It credits a character at most ``log2`` of the number of different characters the key
    uses, and less when some recur more than others, as words and typed keys' do ("e", "-");
    tools that find secrets in code (detect-secrets, truffleHog) tell random strings from text
    the same way. It cannot see that "qwerty..." follows a keyboard, so the bar is high.

    Random keys, measured over 100,000 draws of each kind (refused / lowest estimate):
    ``secrets.token_urlsafe(48)`` (the generated instance key) 0 / 298 bits,
    ``token_urlsafe(32)`` 0 / 183, ``token_hex(32)`` 0 / 218, ``token_hex(24)`` 0 / 153,
    ``openssl rand -base64 32`` 0 / 189, Django's ``get_random_secret_key()`` 0 / 214;
    shorter ones sit at the bar: ``token_urlsafe(24)`` 13, ``token_hex(20)`` 16 and 32 random
    letters and digits 18 refused. Keys of 16 random bytes (``token_hex(16)``,
    ``token_urlsafe(16)``) hold exactly 128 bits, which no estimate from the characters can
    credit in full without crediting typed keys as long: they are refused, always (a hex one
    would pass only with each digit exactly twice, about one in 10^8).
    """
    length = len(key)
    return sum(count * math.log2(length / count) for count in Counter(key).values())


#: Bits in a factor of ten: zxcvbn counts guesses in powers of ten (and guesses ten for each
#: character it finds in no pattern).
_ZXCVBN_BITS_A_CHARACTER = math.log2(10)
#: What a separator between words is worth: one of the 33 printable ASCII characters that are
#: not letters or digits, chosen once; each time it recurs, a bit (the same or not).
_SEPARATOR_BITS = math.log2(33)


@functools.lru_cache(maxsize=8)
def typed_strength_bits(key: str) -> float:
    """How many bits a key holds against a guesser who tries what people type: words, names,
    keyboard rows, runs of the alphabet or digits, dates, repeats (zxcvbn's estimate).

    zxcvbn treats a space or a dash between words as a character found in no pattern, and
    credits it as much as a random one: a sentence reaches 129 bits. Attackers try sentences
    whole (pangrams, "please change this..."), so the key is also judged without them, as the
    words alone, each separator credited as a character chosen once and a bit for each time
    it recurs; the lower estimate holds. Random keys lose little either way: their separators
    are few, and the rest is still random (measured: see check_secret_key).

    About 40 ms a key (once a process: kept).
    """
    from zxcvbn import zxcvbn

    def estimate(text: str) -> float:
        return zxcvbn(text)["guesses_log10"] * _ZXCVBN_BITS_A_CHARACTER if text else 0.0

    separators = Counter(char for char in key if not char.isalnum())
    if not separators:
        return estimate(key)
    words = "".join(char for char in key if char.isalnum())
    credit = sum(_SEPARATOR_BITS + count - 1 for count in separators.values())
    return min(estimate(key), estimate(words) + credit)


def check_secret_key(key: object) -> None:
    """Refuse to serve with no key, a short one, one that was ever published, one that repeats
    a pattern, or one estimated at fewer than 128 bits, by its characters or as typed text.

    The typed-text estimate (:func:`typed_strength_bits`) over 2,000 draws of each kind:
    ``token_urlsafe(32)`` lowest 135 bits, ``openssl rand -base64 32`` 140 (300 draws of
    ``token_urlsafe(48)`` 199, ``token_hex(32)`` 194, ``token_hex(24)`` 146, Django's 156):
    none refused. A keyboard's rows with the digits 40, the alphabet and digits 14, the fox's
    pangram 103, "please change this secret key before deploying" 90.
    """
    if not isinstance(key, str) or key.strip().lower() in PUBLISHED_SECRET_KEYS:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is unset or a published example key; "
            f"set a long random value ({_GENERATE_KEY})"
        )
    if len(key) < 16:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY must be at least 16 characters long; "
            f"generate a random one with {_GENERATE_KEY}"
        )
    if repeats_a_pattern(key):
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is easy to guess (it repeats a shorter "
            f"pattern); generate a random one with {_GENERATE_KEY}"
        )
    bits = estimated_strength_bits(key)
    if bits < SECRET_KEY_BITS_NEEDED:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is easy to guess (about "
            f"{bits:.0f} bits by how its characters vary, {SECRET_KEY_BITS_NEEDED} needed); "
            f"generate a random one with {_GENERATE_KEY}"
        )
    bits = typed_strength_bits(key)
    if bits < SECRET_KEY_BITS_NEEDED:
        raise ConfigurationError(
            "refusing to start: SURVEY_APP_SECRET_KEY is easy to guess (it reads as words, "
            f"keys typed in a row or a run of letters or digits: about {bits:.0f} bits, "
            f"{SECRET_KEY_BITS_NEEDED} needed); generate a random one with {_GENERATE_KEY}"
        )
