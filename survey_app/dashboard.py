"""What several analyst pages share: the CSRF-only action form, the confidence chosen, and
the dashboard's figures and page. No blueprint owns it, so that no blueprint imports another
(the dashboard is rendered by the analyst's pages and by the codes' on a refused request)."""

from __future__ import annotations

import secrets

from flask import render_template, request
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import select

from survey_app import planning
from survey_app.access import owned_surveys_or_404
from survey_app.codes import DEFAULT_CODE_COUNT, code_counts, codes_missing
from survey_app.extensions import db
from survey_app.links import external_url, has_public_url, is_absolute
from survey_app.models import Survey, SurveyStatus
from survey_app.presenters import (
    headline_range_kind,
    privacy_explanation,
    qr_code_svg,
    release_words,
)
from survey_app.releases import release_batch
from survey_app.results import (
    CONFIDENCE_LEVELS,
    DEFAULT_CONFIDENCE,
    MIN_ANSWERS_FOR_SHARES,
    PoolingError,
    shape_of,
    survey_results,
)
from survey_app.surveys import join_code_expired


class ActionForm(FlaskForm):
    """A button that changes something: only its CSRF token."""


def chosen_confidence() -> float:
    """The confidence picked on the dashboard: 90, 95 or 99 percent."""
    raw = request.args.get("confidence", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_CONFIDENCE
    return value if value in CONFIDENCE_LEVELS else DEFAULT_CONFIDENCE


def pooled_surveys(survey: Survey) -> list[Survey]:
    """This survey, then the owner's surveys named by ``?pool=a,b`` (404 if any is not theirs)."""
    slugs: list[str] = []
    for value in request.args.getlist("pool"):  # "a,b" in links; pool=a&pool=b from the form
        for slug in value.split(","):
            slug = slug.strip()
            if slug and slug != survey.slug and slug not in slugs:
                slugs.append(slug)
    return [survey, *owned_surveys_or_404(current_user, slugs)]


def shown_results(survey: Survey) -> dict:
    """The results panel's figures: this survey's results, or several pooled, and how."""
    confidence = chosen_confidence()
    together = request.args.get("ranges") == "together"
    pool_error = None
    try:
        results = survey_results(pooled_surveys(survey), confidence)
    except PoolingError as error:
        pool_error = str(error)
        results = survey_results(survey, confidence)
    return {
        "results": results,
        "confidence": confidence,
        "pool": ",".join(each.slug for each in results.surveys[1:]) or None,
        "pool_error": pool_error,
        "answered": results.answered_by_survey if results.pooled else {},
        "release_note": release_words(results, release_batch()),
        # The ranges the words and charts lead with (presenters.headline_range_kind).
        "together": together,
        "headline": headline_range_kind(results, together),
        "min_answers": MIN_ANSWERS_FOR_SHARES,
    }


def pool_choices(survey: Survey) -> dict:
    """The owner's other opened surveys, and those among them that can be pooled with this one."""
    others = list(
        db.session.execute(
            select(Survey)
            .where(
                Survey.owner_id == survey.owner_id,
                Survey.id != survey.id,
                Survey.status != SurveyStatus.DRAFT,
            )
            .order_by(Survey.created_at, Survey.id)
        ).scalars()
    )
    shape = shape_of(survey)
    return {
        "pool_others": len(others),
        "pool_candidates": [other for other in others if shape_of(other) == shape],
    }


def render_dashboard(
    survey: Survey, code_count: str = str(DEFAULT_CODE_COUNT), code_count_error: str | None = None
) -> str:
    """The dashboard page; a refused request for codes comes back with what was typed and why."""
    slug = survey.slug
    counts = code_counts(survey)
    shown = shown_results(survey)
    # A closed survey's code leads nowhere once its grace has passed: then it is not shown.
    joinable = bool(survey.join_code) and not survey.is_draft and not join_code_expired(survey)
    confidence = shown["confidence"]
    return render_template(
        "analyst/dashboard.html",
        survey=survey,
        **shown,
        **pool_choices(survey),
        confidence_levels=CONFIDENCE_LEVELS,
        plan=planning.plan_for_margin(survey, request.args.get("margin"), confidence),
        explanation=privacy_explanation(survey),
        form=ActionForm(),
        respondent_url=external_url("respondent.survey_page", slug=slug),
        join_url=external_url("respondent.home"),
        join_code_works=joinable,
        join_qr=(
            qr_code_svg(external_url("respondent.join_by_code", code=survey.join_code))
            if joinable and is_absolute(external_url("respondent.home"))
            else None
        ),
        public_url_known=has_public_url(),
        codes=counts,
        codes_missing=codes_missing(survey, counts),
        code_count=code_count,
        code_count_error=code_count_error,
        # Names this form's batch of codes: a reload that sends the form again is recognised
        # (codes.issue) rather than issuing a second batch no one asked for.
        code_batch=secrets.token_urlsafe(16),
    )
