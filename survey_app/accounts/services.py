"""Analyst accounts: creation, passwords, signed-in sessions and API tokens.

Passwords are kept only as scrypt hashes; sessions and tokens only as SHA-256 digests of random
keys. Services here flush; the view or command that calls them commits.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import re
import secrets
from functools import cache
from importlib import resources

from flask import current_app, session
from flask_login import login_user
from sqlalchemy import delete, select
from sqlalchemy.orm import joinedload
from werkzeug.security import check_password_hash, generate_password_hash

from survey_app.extensions import db
from survey_app.storage.models import Analyst, AnalystSession, ApiToken, utc_now
from survey_app.web.languages import is_shipped

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1000
#: A password made of fewer different characters than this ("aaaaaaaaaaaa") is refused.
MIN_DISTINCT_CHARACTERS = 3
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
#: What a guesser adds around a common word: "Summer2024!" is "summer" to them.
_DECORATION = "0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


class AccountError(ValueError):
    """An account cannot be created or changed as asked; the message says why."""


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_analyst(email: str) -> Analyst | None:
    return db.session.execute(
        select(Analyst).where(Analyst.email == normalise_email(email))
    ).scalar_one_or_none()


def hash_password(password: str) -> str:
    return generate_password_hash(password, method="scrypt")


@cache
def common_passwords() -> frozenset[str]:
    """The 20,000 most common passwords (lower case, 4 characters or more).

    The list is the one Django's CommonPasswordValidator ships (BSD licence), itself taken from
    leaked password lists; it is kept gzipped beside this module.
    """
    packed = resources.files("survey_app.accounts").joinpath("common-passwords.txt.gz").read_bytes()
    return frozenset(gzip.decompress(packed).decode("utf-8").split())


def password_weakness(password: str, email: str = "") -> str | None:
    """Why ``password`` is too weak for an analyst account, as a reason: "short", "long",
    "repetitive", "common" or "email_name"; None when it will do."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return "short"
    if len(password) > MAX_PASSWORD_LENGTH:
        return "long"
    if len(set(password)) < MIN_DISTINCT_CHARACTERS:
        return "repetitive"
    lowered = password.lower()
    core = lowered.strip(_DECORATION)
    common = common_passwords()
    if lowered in common or core in common:
        return "common"
    local_part = normalise_email(email).partition("@")[0]
    if local_part and core in (local_part, local_part.replace(".", "")):
        return "email_name"
    return None


#: Each reason a password is too weak, in words after "password" (the command line's).
PASSWORD_PROBLEMS = {
    "short": f"must be at least {MIN_PASSWORD_LENGTH} characters",
    "long": f"must be at most {MAX_PASSWORD_LENGTH} characters",
    "repetitive": "repeats one or two characters; choose something harder to guess",
    "common": "is one of the most common passwords; choose something harder to guess",
    "email_name": "is the email address’s name; choose something harder to guess",
}


def password_problem(password: str, email: str = "") -> str | None:
    """Why ``password`` is too weak for an analyst account, in words; None when it will do."""
    weakness = password_weakness(password, email)
    return None if weakness is None else PASSWORD_PROBLEMS[weakness]


def check_new_password(password: str, email: str = "") -> None:
    """Refuse a password that is too short, too simple or too common (:class:`AccountError`)."""
    problem = password_problem(password, email)
    if problem is not None:
        raise AccountError(f"password: {problem}")


def create_analyst(email: str, password: str) -> Analyst:
    """Add an analyst (the caller commits); refuses a bad email, a weak password, a duplicate."""
    address = normalise_email(email)
    if not _EMAIL.match(address) or len(address) > 254:
        raise AccountError(f"email: {email!r} is not an email address")
    check_new_password(password, address)
    if find_analyst(address) is not None:
        raise AccountError(f"email: an analyst with {address} already exists")
    analyst = Analyst(email=address, password_hash=hash_password(password))
    db.session.add(analyst)
    db.session.flush()
    return analyst


def set_password(analyst: Analyst, password: str) -> None:
    """Change the password and end every session of the analyst (the caller commits)."""
    check_new_password(password, analyst.email)
    analyst.password_hash = hash_password(password)
    end_all_sessions(analyst)


def set_language(analyst: Analyst, language: str | None) -> None:
    """The language of the analyst's pages: a shipped one's code, or None for the browser's
    (the caller commits); ValueError, in words, for any other."""
    if language is not None and not is_shipped(language):
        raise ValueError(f"{language!r} is not a language this app speaks")
    analyst.language = language


def verify_password(analyst: Analyst, password: str) -> bool:
    return check_password_hash(analyst.password_hash, password)


@cache
def _decoy_hash() -> str:
    return hash_password(secrets.token_urlsafe(16))


def authenticate(email: str, password: str) -> Analyst | None:
    """The analyst with this email and password, or None.

    An unknown email costs the same hash check as a wrong password, so the time of the answer
    does not tell which emails have accounts.
    """
    analyst = find_analyst(email)
    if analyst is None:
        check_password_hash(_decoy_hash(), password)
        return None
    return analyst if verify_password(analyst, password) else None


# --------------------------------------------------------------------------- sessions

#: The session cookie's entry holding the time (seconds since the epoch) of the last request,
#: rewritten at most once a minute: the idle timeout is counted from it.
LAST_SEEN = "seen"
_LAST_SEEN_RESOLUTION = 60


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> dt.datetime:
    """The current time (UTC, naive); tests move it."""
    return utc_now()


def start_session(analyst: Analyst) -> str:
    """Record a new signed-in session for ``analyst``; return its key for the session cookie.

    Expired sessions of the analyst are removed on the way. The caller commits.
    """
    now = _now()
    db.session.execute(
        delete(AnalystSession).where(
            AnalystSession.analyst_id == analyst.id,
            AnalystSession.started_at < now - current_app.config["SESSION_MAX_AGE"],
        )
    )
    key = secrets.token_urlsafe(32)
    db.session.add(AnalystSession(key_sha256=_digest(key), analyst_id=analyst.id, started_at=now))
    db.session.flush()
    analyst.session_key = key
    session[LAST_SEEN] = int(now.replace(tzinfo=dt.UTC).timestamp())
    return key


def sign_in_browser(analyst: Analyst) -> None:
    """Sign this browser in as ``analyst`` in a new session (nothing from before carries over).

    The caller commits.
    """
    session.clear()  # no fixation: a session planted before sign-in is not reused
    start_session(analyst)
    login_user(analyst)


def load_session_analyst(key: str) -> Analyst | None:
    """The analyst of a live session key, or None (signed out, revoked, idle or too old).

    Flask-Login calls this on every request that reads ``current_user``. The session's row is
    the server's word that it was not ended; the idle clock lives in the signed cookie, so a
    request costs no write.
    """
    if not isinstance(key, str) or not 20 <= len(key) <= 100:
        return None
    # The analyst comes in the same query: this runs on every analyst request.
    stored = db.session.get(
        AnalystSession, _digest(key), options=[joinedload(AnalystSession.analyst)]
    )
    if stored is None:
        return None
    config = current_app.config
    now = _now()
    if stored.started_at < now - config["SESSION_MAX_AGE"]:
        return None
    now_seconds = int(now.replace(tzinfo=dt.UTC).timestamp())
    last_seen = session.get(LAST_SEEN)
    if not isinstance(last_seen, int) or last_seen > now_seconds:
        return None
    if now_seconds - last_seen > config["SESSION_IDLE_TIMEOUT"].total_seconds():
        return None
    if now_seconds - last_seen >= _LAST_SEEN_RESOLUTION:
        session[LAST_SEEN] = now_seconds
    analyst = stored.analyst
    analyst.session_key = key
    return analyst


def end_session(key: str | None) -> None:
    """End one session (signing out); the caller commits."""
    if key:
        db.session.execute(delete(AnalystSession).where(AnalystSession.key_sha256 == _digest(key)))


def end_all_sessions(analyst: Analyst) -> None:
    """End every session of the analyst, on every device; the caller commits."""
    db.session.execute(delete(AnalystSession).where(AnalystSession.analyst_id == analyst.id))


# --------------------------------------------------------------------------- API tokens

#: Tokens carry this prefix so that leaked ones are easy to recognise (and to scan for).
TOKEN_PREFIX = "sat_"


def create_token(analyst: Analyst, expires_at: dt.datetime | None = None) -> str:
    """A new API token for ``analyst``; returned once, stored only as its SHA-256.

    ``expires_at`` (UTC) ends it on its own; without it the token works until revoked. The
    caller commits.
    """
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    db.session.add(
        ApiToken(
            analyst_id=analyst.id,
            token_sha256=_digest(token),
            hint=token[-4:],
            expires_at=expires_at,
        )
    )
    db.session.flush()
    return token


def tokens_of(analyst: Analyst) -> list[ApiToken]:
    """The analyst's API tokens, oldest first."""
    return list(
        db.session.execute(
            select(ApiToken).where(ApiToken.analyst_id == analyst.id).order_by(ApiToken.id)
        ).scalars()
    )


def revoke_token(analyst: Analyst, token_id: int) -> bool:
    """Delete one of the analyst's tokens; False if they have none with that id."""
    result = db.session.execute(
        delete(ApiToken).where(ApiToken.id == token_id, ApiToken.analyst_id == analyst.id)
    )
    return result.rowcount == 1


def analyst_for_token(token: str) -> Analyst | None:
    """The analyst a bearer token belongs to, or None (unknown, revoked or expired)."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    stored = db.session.execute(
        select(ApiToken).where(ApiToken.token_sha256 == _digest(token))
    ).scalar_one_or_none()
    if stored is None:
        return None
    if stored.expires_at is not None and stored.expires_at <= _now():
        return None
    return stored.analyst
