"""What several analyst pages share: the confidence chosen, and the dashboard's figures and
page. No blueprint owns it, so that no blueprint imports another (the dashboard is rendered by
the analyst's pages and by the codes' on a refused request)."""

from __future__ import annotations

import secrets

from flask import render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user
from sqlalchemy import select

from survey_app.accounts.access import owned_surveys_or_404
from survey_app.classroom.codes import DEFAULT_CODE_COUNT, code_counts, codes_missing
from survey_app.classroom.qr_codes import qr_code_svg
from survey_app.classroom.words import join_instructions
from survey_app.extensions import db
from survey_app.planning import shares as planning
from survey_app.planning.words import plan_words
from survey_app.results.panel import answered_words, pooled_words, question_views
from survey_app.results.releases import release_batch
from survey_app.results.tables import (
    CONFIDENCE_LEVELS,
    DEFAULT_CONFIDENCE,
    PoolingError,
    check_poolable,
    survey_results,
)
from survey_app.results.words import (
    confidence_refused_words,
    export_words,
    headline_range_kind,
    release_words,
    together_label,
)
from survey_app.storage.models import Survey, SurveyStatus
from survey_app.surveys.words import (
    archive_words,
    class_results_setting_words,
    privacy_explanation,
)
from survey_app.web.forms import ActionForm
from survey_app.web.languages import is_english
from survey_app.web.links import external_url, has_public_url, is_absolute
from survey_app.web.parsing import QueryError, parse_confidence, parse_survey_list
from survey_app.words import STATUS_NAMES, survey_status_words

#: How often an open survey's dashboard fetches its results panel again (the page's script
#: reads it from the panel's data-refresh-seconds).
REFRESH_SECONDS = 10


def confidence_choice() -> tuple[float, str | None]:
    """The confidence picked on the dashboard (90, 95 or 99 percent), and None; or, when the
    query names another, the default and why (parsing.parse_confidence: the API's words)."""
    try:
        return parse_confidence(request.args.get("confidence"), CONFIDENCE_LEVELS), None
    except QueryError as error:
        asked = request.args.get("confidence")
        said = confidence_refused_words(str(error), DEFAULT_CONFIDENCE, asked, CONFIDENCE_LEVELS)
        return DEFAULT_CONFIDENCE, said


def chosen_confidence() -> float:
    """The confidence picked: 90, 95 or 99 percent (the default for any other; the projector
    has no place to say why, the dashboard does: :func:`confidence_choice`)."""
    return confidence_choice()[0]


def pool_choice(survey: Survey) -> tuple[list[Survey], str | None]:
    """This survey, then the owner's surveys named by ``?pool=a,b`` (404 if any is not theirs),
    and None; or this survey alone and why (parsing.parse_survey_list: the API's words)."""
    try:
        slugs = parse_survey_list(request.args.getlist("pool"), "pool", required=False)
    except QueryError as error:
        return [survey], pool_refused_words(error)
    # Naming this survey itself adds nothing: it is always first.
    others = [slug for slug in slugs if slug != survey.slug]
    return [survey, *owned_surveys_or_404(current_user, others)], None


def pool_refused_words(error: QueryError) -> str:
    """Why ``?pool=`` cannot be read, as the dashboard's "These surveys can’t be combined: ..."
    says it: the API's words in English, the page's language's otherwise."""
    if is_english():
        return str(error)
    if error.reason == "repeated_survey":
        return gettext("%(parameter)s names a survey more than once", parameter="pool")
    return gettext(
        "%(parameter)s must name your surveys, separated by commas: ?%(parameter)s=slug1,slug2",
        parameter="pool",
    )


def shown_results(survey: Survey) -> dict:
    """The results panel's figures, gathered once: this survey's results, or several pooled,
    and how (the page's plan and the results panel take them from here)."""
    confidence, confidence_error = confidence_choice()
    together = request.args.get("ranges") == "together"
    surveys, pool_error = pool_choice(survey)
    try:
        check_poolable(surveys)
    except PoolingError as error:
        surveys, pool_error = [survey], str(error)
    # The one read of the results on the dashboard's way: what follows words and places them.
    results = survey_results(surveys, confidence)
    headline = headline_range_kind(results, together)
    return {
        "results": results,
        "confidence": confidence,
        "confidence_error": confidence_error,
        "pool": ",".join(each.slug for each in results.surveys[1:]) or None,
        "pool_error": pool_error,
        "release_note": release_words(results, release_batch()),
        # The ranges the words and charts lead with (results.words.headline_range_kind).
        "together": together,
        "headline": headline,
        "refresh_seconds": REFRESH_SECONDS,
        # What each question places, and the count's words (results.panel).
        "views": question_views(results, headline),
        "answered_words": answered_words(results),
        "pooled_words": pooled_words(results, survey.id) if results.pooled else None,
        "pooled_slugs": ",".join(each.slug for each in results.surveys),
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
    return {
        "pool_others": len(others),
        "pool_candidates": [other for other in others if can_pool(survey, other)],
    }


def can_pool(survey: Survey, other: Survey) -> bool:
    """Whether results.survey_results would pool the two (results.check_poolable decides)."""
    try:
        check_poolable([survey, other])
    except PoolingError:
        return False
    return True


def joining(survey: Survey) -> dict:
    """How the class joins, as the dashboard says it: only an open survey is joined (a draft is
    not yet, a closed one says how to reopen), with its QR code where the page knows the app's
    public address."""
    join_url = external_url("respondent.home")
    joinable = survey.is_open and bool(survey.join_code)
    join_qr = (
        qr_code_svg(external_url("respondent.join_by_code", code=survey.join_code))
        if joinable and is_absolute(join_url)
        else None
    )
    return {
        "join_code_works": joinable,
        "join_qr": join_qr,
        "join_instructions": join_instructions(join_url, survey.join_code, join_qr is not None)
        if joinable
        else None,
    }


def render_dashboard(
    survey: Survey, code_count: str = str(DEFAULT_CODE_COUNT), code_count_error: str | None = None
) -> str:
    """The dashboard page; a refused request for codes comes back with what was typed and why."""
    slug = survey.slug
    counts = code_counts(survey)
    shown = shown_results(survey)
    explanation = privacy_explanation(survey)
    # The plan counts this survey's respondents as the results gathered them (not pooled).
    respondents = shown["results"].answered_by_survey[survey.id]
    respondent_url = external_url("respondent.survey_page", slug=slug)
    plan = planning.plan_for_margin(
        survey, request.args.get("margin"), shown["confidence"], respondents
    )
    return render_template(
        "dashboard/dashboard.html",
        survey=survey,
        **shown,
        **pool_choices(survey),
        confidence_levels=CONFIDENCE_LEVELS,
        plan=plan,
        plan_words=plan_words(plan),
        margin_meaning=planning.margin_meaning(shown["confidence"]),
        explanation=explanation,
        status=survey_status_words(survey),
        status_names=STATUS_NAMES,
        form=ActionForm(),
        respondent_url=respondent_url,
        **joining(survey),
        together_label=together_label(survey.is_open),
        exports=export_words(
            url_for("api.survey_results_csv", slug=slug, confidence=shown["confidence"]),
            explanation["has_numeric"],
            survey.results_held,
        ),
        archive_words=archive_words(survey.is_open),
        class_results_setting=class_results_setting_words(survey),
        # Without a known public address the link is a path: the page says how to fix that.
        respondent_link_is_path=not has_public_url() and not is_absolute(respondent_url),
        codes=counts,
        codes_missing=codes_missing(survey, counts),
        code_count=code_count,
        code_count_error=code_count_error,
        # Names this form's batch of codes: a reload that sends the form again is recognised
        # (codes.issue) rather than issuing a second batch no one asked for.
        code_batch=secrets.token_urlsafe(16),
    )
