"""Analyst accounts: creation and password checks (hashes only, scrypt)."""

from __future__ import annotations

import re

from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from survey_app.extensions import db
from survey_app.models import Analyst

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
