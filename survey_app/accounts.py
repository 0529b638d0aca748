"""Analyst accounts: creation and password checks (hashes only, scrypt)."""

from __future__ import annotations

import hashlib
import re
import secrets
from functools import cache

from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from survey_app.extensions import db
from survey_app.models import Analyst, ApiToken

MIN_PASSWORD_LENGTH = 10
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


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


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"password: must be at least {MIN_PASSWORD_LENGTH} characters")


def create_analyst(email: str, password: str) -> Analyst:
    """Add an analyst (the caller commits); refuses a bad email, a short password, a duplicate."""
    address = normalise_email(email)
    if not _EMAIL.match(address) or len(address) > 254:
        raise AccountError(f"email: {email!r} is not an email address")
    _check_password(password)
    if find_analyst(address) is not None:
        raise AccountError(f"email: an analyst with {address} already exists")
    analyst = Analyst(email=address, password_hash=hash_password(password))
    db.session.add(analyst)
    db.session.commit()
    return analyst


def set_password(analyst: Analyst, password: str) -> None:
    _check_password(password)
    analyst.password_hash = hash_password(password)


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


#: Tokens carry this prefix so that leaked ones are easy to recognise (and to scan for).
TOKEN_PREFIX = "sat_"


def _token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(analyst: Analyst) -> str:
    """A new API token for ``analyst``; returned once, stored only as its SHA-256."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    db.session.add(ApiToken(analyst_id=analyst.id, token_sha256=_token_digest(token)))
    db.session.commit()
    return token


def analyst_for_token(token: str) -> Analyst | None:
    """The analyst a bearer token belongs to, or None."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    stored = db.session.execute(
        select(ApiToken).where(ApiToken.token_sha256 == _token_digest(token))
    ).scalar_one_or_none()
    return stored.analyst if stored is not None else None
