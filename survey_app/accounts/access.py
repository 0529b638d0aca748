"""Who is asking, and which surveys they may see: each analyst only their own."""

from __future__ import annotations

from collections.abc import Sequence

from flask import abort, request
from flask_login import current_user
from sqlalchemy import select

from survey_app.accounts.services import analyst_for_token
from survey_app.extensions import db
from survey_app.storage.models import Analyst, Survey

#: At most this many surveys are pooled at once.
MAX_POOLED_SURVEYS = 50


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


def owned_surveys_or_404(analyst: Analyst, slugs: Sequence[str]) -> list[Survey]:
    """The surveys named, in order, if ``analyst`` owns every one; 404 if any is not theirs.

    The 404 is the same whether a slug is someone else's or no survey's, so it reveals nothing.
    More than :data:`MAX_POOLED_SURVEYS` slugs is a 400.
    """
    if len(slugs) > MAX_POOLED_SURVEYS:
        abort(400, description=f"at most {MAX_POOLED_SURVEYS} surveys can be pooled at once")
    found = {
        survey.slug: survey
        for survey in db.session.execute(
            select(Survey).where(Survey.slug.in_(slugs), Survey.owner_id == analyst.id)
        ).scalars()
    }
    if any(slug not in found for slug in slugs):
        abort(404)
    return [found[slug] for slug in slugs]
