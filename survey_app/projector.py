"""The projector view: what a professor shows the room while the class answers.

``/analyst/surveys/<slug>/present`` is a full-screen page in large type with nothing private on
it (no email, no buttons that change the survey): how to join (the address, the code and a QR
code of the join link), how many have answered, and each question's chart. The page asks
``/present/state`` every two seconds; that small JSON document carries an ETag made from
what it shows (the noisy counts, the status, whether results are hidden), so while nothing
changes the answer is an empty 304 and the server computes no estimate.

A professor can hide the results from the projector until the survey closes (the dashboard
still shows them): the room then sees only the count, so early answers do not sway later ones.
"""

from __future__ import annotations

import hashlib
import json

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required

from survey_app.access import owned_survey_or_404
from survey_app.dashboard import ActionForm, chosen_confidence
from survey_app.extensions import db
from survey_app.links import external_url, is_absolute
from survey_app.models import Survey
from survey_app.presenters import (
    headline_range_kind,
    join_qr_code_svg,
    release_words,
)
from survey_app.releases import ShownCounts, release_batch, shown_counts
from survey_app.results import MIN_ANSWERS_FOR_SHARES, SurveyResults, survey_results
from survey_app.results_presenters import have_answered, question_view

bp = Blueprint("projector", __name__, url_prefix="/analyst/surveys/<slug>")

#: How often the page asks whether anything changed; a submission shows within this (and the
#: time a request takes), inside the three seconds a room notices.
POLL_SECONDS = 2


@bp.after_request
def _never_cached(response):
    # Results are the professor's: no cache keeps a copy (the ETag is checked by the page itself).
    response.headers["Cache-Control"] = "no-store"
    return response


def results_hidden(survey: Survey) -> bool:
    """True while the projector must show the count but no results."""
    return survey.hide_results_until_closed and not survey.is_closed


def state_version(survey: Survey, shown: ShownCounts, confidence: float) -> str:
    """A short fingerprint of everything the projector shows; it changes when any of it does.

    Of the answers, only the released counts and how many have answered (survey_app.releases):
    the version changes with each arrival, as the count does, never with its answers alone.
    """
    content = {
        "title": survey.title,
        "status": survey.status.value,
        "hidden": results_hidden(survey),
        "confidence": confidence,
        "join_code": survey.join_code,
        "counts": None if results_hidden(survey) else sorted(shown.counts.items()),
        "respondents": shown.respondents,
        "answered": shown.answered,
    }
    encoded = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:20]


def projector_state(survey: Survey, confidence: float, shown: ShownCounts) -> dict:
    """The document the page redraws itself from: words, figures and each question's chart."""
    hidden = results_hidden(survey)
    version = state_version(survey, shown, confidence)
    results = survey_results(survey, confidence, {survey.id: shown})
    release_note = release_words(results, release_batch(), brief=True)
    headline = headline_range_kind(results)  # live while open: the screen redraws itself
    questions = [
        question_entry(question, results, headline, hidden) for question in results.questions
    ]
    return {
        "version": version,
        "status": survey.status.value,
        # One line, as the room reads it: whether it can answer, and when results change.
        "status_words": " ".join(
            filter(None, [status_words(survey), None if hidden else release_note])
        ),
        "respondents": results.answered,
        "respondents_words": respondents_words(results.answered),
        "results_hidden": hidden,
        "confidence": confidence,
        "headline": headline,
        "questions": questions,
        "join_key": join_key(survey),
        "join_html": render_template("analyst/_present_join.html", join=join_panel(survey)),
    }


def question_entry(question, results: SurveyResults, headline: str, hidden: bool) -> dict:
    """One question as the projector's state carries it: its HTML, and its figures once shown."""
    shown_now = not hidden and not question.too_early and question.n
    entry = {
        "number": question.number,
        "text": question.text,
        "n": question.n,
        "html": render_template(
            "analyst/_present_question.html",
            question=question,
            answered=results.answered,
            awaiting=results.awaiting_release,
            headline=headline,
            confidence=results.confidence,
            hidden=hidden,
            min_answers=MIN_ANSWERS_FOR_SHARES,
            # What it places once shown: the room needs one range, not Chebyshev's too.
            view=question_view(question, headline, results.confidence, chebyshev=False)
            if shown_now
            else None,
        ),
    }
    if shown_now:
        entry["options"] = [
            {
                "label": option.label,
                "share": option.shown_share,
                "exact_ci_low": option.estimate.exact_low,
                "exact_ci_high": option.estimate.exact_high,
                "live_ci_low": option.estimate.live_low,
                "live_ci_high": option.estimate.live_high,
            }
            for option in question.options
        ]
    return entry


def join_key(survey: Survey) -> str:
    """What the join panel depends on: it is redrawn only when this changes."""
    return f"{survey.status.value}:{survey.join_code or ''}"


def join_panel(survey: Survey) -> dict:
    """How the room joins: the address, the code and a QR code, only while the survey is open.

    A QR code of a bare path would lead a phone nowhere: without a known public address the
    panel says so instead (links.external_url never trusts the Host header).
    """
    address = external_url("respondent.home")
    code = survey.join_code if survey.is_open else None
    link = external_url("respondent.join_by_code", code=code) if code else None
    return {
        "code": code,
        "address": address,
        "address_known": is_absolute(address),
        "qr": join_qr_code_svg(link) if link and is_absolute(link) else None,
        "draft": survey.is_draft,
    }


def status_words(survey: Survey) -> str:
    """One line for the room on whether it can still answer."""
    if survey.is_draft:
        return "Not open yet."
    if survey.is_open:
        return "Open: answer on your phone."
    return "Closed: thank you for answering."


def respondents_words(respondents: int) -> str:
    """The count as the room reads it."""
    return f"{respondents:,} {have_answered(respondents)}"


@bp.get("/present")
@login_required
def present(slug: str):
    """The projector view: how to join, how many answered, and live charts in large type."""
    survey = owned_survey_or_404(current_user, slug)
    confidence = chosen_confidence()
    return render_template(
        "analyst/present.html",
        survey=survey,
        state=projector_state(survey, confidence, shown_counts(survey)),
        state_url=url_for(".present_state", slug=slug, confidence=confidence),
        poll_seconds=POLL_SECONDS,
    )


@bp.get("/present/state")
def present_state(slug: str):
    """What the projector shows, as JSON; 304 when nothing changed since the page's version."""
    if not current_user.is_authenticated:
        # A page left open past the end of its session: JSON it can read, not the sign-in page.
        response = jsonify(error="Your session has ended: sign in again.", code="signed_out")
        return response, 401
    survey = owned_survey_or_404(current_user, slug)
    confidence = chosen_confidence()
    shown = shown_counts(survey)
    version = state_version(survey, shown, confidence)
    if version in request.if_none_match:
        response = Response(status=304)
    else:
        response = jsonify(projector_state(survey, confidence, shown))
    response.set_etag(version)
    return response


@bp.post("/results-visibility")
@login_required
def set_results_visibility(slug: str):
    """Hide the results from the projector until the survey closes, or show them again."""
    survey = owned_survey_or_404(current_user, slug)
    if not ActionForm().validate_on_submit():
        abort(400)
    hide = request.form.get("hide") == "1"
    survey.hide_results_until_closed = hide
    db.session.commit()
    if hide:
        flash(
            "The projector view now hides the results until you close the survey; "
            "it still shows how many have answered. This dashboard shows everything.",
            "success",
        )
    else:
        flash("The projector view shows the results as they come in.", "success")
    return redirect(url_for("dashboard.dashboard", slug=slug, _anchor="projector"))
