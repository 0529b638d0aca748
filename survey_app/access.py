"""Who is asking, and which surveys they may see: each analyst only their own."""

from __future__ import annotations

from flask import abort, request
from flask_login import current_user
from sqlalchemy import select

from survey_app.accounts import analyst_for_token
from survey_app.extensions import db
from survey_app.models import Analyst, Survey


def bearer_analyst() -> Analyst | None:
    """The analyst named by an ``Authorization: Bearer <token>`` header, if any."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return analyst_for_token(token.strip())


def api_analyst() -> Analyst:
    """The analyst behind an API request (token or session), or 401."""
    if request.headers.get("Authorization"):
        analyst = bearer_analyst()
        if analyst is None:
            abort(401, description="the API token is not valid")
        return analyst
    if current_user.is_authenticated:
        return current_user
    abort(401, description="sign in, or send an API token as Authorization: Bearer <token>")


def owned_survey_or_404(analyst: Analyst, slug: str) -> Survey:
    """The survey if ``analyst`` owns it; 404 otherwise, revealing nothing of other analysts'."""
    survey = db.session.execute(
        select(Survey).where(Survey.slug == slug, Survey.owner_id == analyst.id)
    ).scalar_one_or_none()
    if survey is None:
        abort(404)
    return survey
