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
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext, ngettext
from flask_login import current_user, login_required
from markupsafe import Markup

from survey_app.accounts.access import owned_survey_or_404
from survey_app.classroom.projector_pages import (
    RESULTS,
    STAR,
    Page,
    QuestionShape,
    chosen_page,
    fit_class,
    fitted,
    pages,
    text_class,
    title_class,
)
from survey_app.classroom.qr_codes import join_qr_code_svg
from survey_app.classroom.words import scope_words, too_early_words
from survey_app.dashboard.rendering import chosen_confidence
from survey_app.extensions import db
from survey_app.results.panel import question_view, worded_options
from survey_app.results.releases import ShownCounts, release_batch, shown_counts
from survey_app.results.tables import SurveyResults, survey_results
from survey_app.results.words import headline_range_kind, release_words
from survey_app.storage.models import Survey
from survey_app.web.languages import pin
from survey_app.web.links import external_url, is_absolute
from survey_app.web.security import never_cached
from survey_app.words import closed_on, closed_words, grouped

bp = Blueprint("projector", __name__, url_prefix="/analyst/surveys/<slug>")

#: How often the page asks whether anything changed; a submission shows within this (and the
#: time a request takes), inside the three seconds a room notices.
POLL_SECONDS = 2
#: How long a page of questions stays when the professor lets the pages turn themselves.
AUTO_TURN_SECONDS = 15


# Results are the professor's: no cache keeps a copy (the page checks the ETag itself).
bp.after_request(never_cached)


def results_hidden(survey: Survey) -> bool:
    """True while the projector must show the count but no results."""
    return survey.hide_results_until_closed and not survey.is_closed


def state_version(survey: Survey, shown: ShownCounts, confidence: float) -> str:
    """A short fingerprint of everything the projector shows; it changes when any of it does.

    Of the answers, only the released counts and how many have answered
    (survey_app.results.releases):
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
    layout = STAR if join_is_star(survey, results, hidden) else RESULTS
    # What each question places once shown, worked out once: it sizes the question's place
    # (its caution's length) and fills it.
    views = [
        question_view(question, headline, confidence, chebyshev=False)
        if not hidden and question.shows_results
        else None
        for question in results.questions
    ]
    shapes = [
        fitted(question_shape(question, hidden, (view or {}).get("room_notes") or "", view))
        for question, view in zip(results.questions, views, strict=True)
    ]
    questions = [
        dict(
            question_entry(question, results, headline, hidden, view, chart=bool(shape.chart_rows)),
            fit_class=fit_class(shape.fit),
        )
        for question, view, shape in zip(results.questions, views, shapes, strict=True)
    ]
    return {
        "version": version,
        "status": survey.status.value,
        # One line, as the room reads it: whether it can answer, and when results change
        # (until they show, the summary beside the questions says when they will).
        "status_words": " ".join(
            filter(
                None,
                [
                    status_words(survey),
                    release_note if results_on_screen(results, hidden) else None,
                ],
            )
        ),
        "respondents": results.answered,
        "respondents_words": respondents_words(results.answered),
        "results_hidden": hidden,
        "hidden_words": (
            gettext("The results stay hidden until the survey closes.") if hidden else None
        ),
        "confidence": confidence,
        "headline": headline,
        "questions": questions,
        "layout": layout.name,
        "summary_words": summary_words(results, hidden, release_note),
        "pages": [page_entry(survey, page, confidence) for page in pages(shapes, layout)],
        "join_key": join_key(survey),
        "join_html": render_template("classroom/_present_join.html", join=join_panel(survey)),
    }


def question_entry(
    question, results: SurveyResults, headline: str, hidden: bool, view: dict | None, chart: bool
) -> dict:
    """One question as the projector's state carries it: its HTML (with its chart, if it
    fits the screen: projector_pages.fitted), and its figures once shown (``view``: what
    results.panel.question_view places, None while hidden or too early)."""
    entry = {
        "number": question.number,
        "text": question.text,
        "n": question.n,
        "html": render_template(
            "classroom/_present_question.html",
            question=question,
            answered=results.answered,
            headline=headline,
            confidence=results.confidence,
            hidden=hidden,
            too_early=too_early_words(question.numeric is not None),
            text_class=text_class(len(question.text)),
            chart=chart,
            # What it places once shown: the room needs one range, not Chebyshev's too.
            view=view,
        ),
    }
    if view is not None:
        entry["options"] = [
            {
                "label": option.label,
                "share": option.headline(headline),
                "exact_ci_low": option.estimate.exact_low,
                "exact_ci_high": option.estimate.exact_high,
                "live_ci_low": option.estimate.live_low,
                "live_ci_high": option.estimate.live_high,
            }
            for option in question.options
        ]
    return entry


def results_on_screen(results: SurveyResults, hidden: bool) -> bool:
    """Whether the room sees results now: enough answers, not hidden by the professor."""
    return results.shows_results and not hidden


def join_is_star(survey: Survey, results: SurveyResults, hidden: bool) -> bool:
    """Whether how to join fills the screen: while the survey is open and no results are on
    it yet (too few answers for them: releases.shows_results, or the professor hid them)."""
    return survey.is_open and not results_on_screen(results, hidden)


def summary_words(results: SurveyResults, hidden: bool, release_note: str | None) -> str | None:
    """When the results will show, said once for all the questions while none shows
    (``release_note``: results.words.release_words, brief); their own notes leave it out."""
    if hidden or results.shows_results:
        return None
    return release_note


def question_shape(
    question, hidden: bool, caution: str = "", view: dict | None = None
) -> QuestionShape:
    """How much a question shows, for projector_pages to find it a place (``caution``: its
    notes under the shares, results.panel.shares_view's ``room_notes``; ``view``: what it
    places, a paired question's table among it)."""
    shown = not hidden and question.shows_results and question.consistent_with_randomization
    if not shown:
        return QuestionShape(question.number, len(question.text), note=True)
    table = (view or {}).get("joint")
    if table is not None:
        # Its key and its sentence run under and over it as a caution does.
        said = len(table["room_key"]) + len(Markup(table["room_association"] or "").striptags())
        return QuestionShape(
            question.number, len(question.text), table_rows=len(table["rows"]), caution_length=said
        )
    if question.numeric is not None:
        return QuestionShape(question.number, len(question.text), average_unit=len(question.unit))
    worded = worded_options(question)
    return QuestionShape(
        question.number,
        len(question.text),
        worded_labels=tuple(len(option.label) for option in worded),
        chart_rows=len(question.options),
        caution_length=len(caution),
    )


def page_entry(survey: Survey, page: Page, confidence: float) -> dict:
    """One page as the state carries it: its questions column by column, and its words."""
    return {
        "number": page.number,
        "columns": [list(column) for column in page.columns],
        "wide": page.wide,
        "words": page.words,
        "href": url_for(".present", slug=survey.slug, page=page.number, confidence=confidence),
    }


def pager_links(shown_pages: list[dict], page: int) -> dict:
    """The page shown's words and its neighbours' links (after the last comes the first)."""
    count = len(shown_pages)
    return {
        "single": count < 2,
        "words": shown_pages[page - 1]["words"] if shown_pages else "",
        "previous": shown_pages[(page - 2) % count]["href"] if shown_pages else "",
        "next": shown_pages[page % count]["href"] if shown_pages else "",
    }


def join_key(survey: Survey) -> str:
    """What the join panel depends on: it is redrawn only when this changes."""
    return f"{survey.status.value}:{survey.join_code or ''}:{closed_on(survey.closed_at) or ''}"


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
        # Once closed: since when, and that the dashboard reopens it (words.closed_words).
        "closed": closed_words(survey),
    }


def status_words(survey: Survey) -> str:
    """One line for the room on whether it can still answer."""
    if survey.is_draft:
        return gettext("Not open yet.")
    if survey.is_open:
        return gettext("Open: answer on your phone.")
    day = closed_on(survey.closed_at)
    if day:
        return gettext("Closed since %(day)s: thank you for answering.", day=day)
    return gettext("Closed: thank you for answering.")


def respondents_words(respondents: int) -> str:
    """The count as the room reads it."""
    return ngettext(
        "%(count)s person has answered",
        "%(count)s people have answered",
        respondents,
        count=grouped(respondents),
    )


@bp.get("/present")
@login_required
def present(slug: str):
    """The projector view: how to join, how many answered, and live charts in large type."""
    survey = owned_survey_or_404(current_user, slug)
    pin(survey.language)  # the room is the class: it reads the survey's language
    confidence = chosen_confidence()
    state = projector_state(survey, confidence, shown_counts(survey))
    # Without JavaScript the pages turn by links (?page=N); the script turns them in place.
    page = chosen_page(request.args.get("page"), len(state["pages"]))
    return render_template(
        "classroom/present.html",
        survey=survey,
        state=state,
        page=page,
        questions={question["number"]: question for question in state["questions"]},
        pager=pager_links(state["pages"], page),
        scope=scope_words(state["headline"], confidence),
        title_class=title_class(len(survey.title)),
        state_url=url_for(".present_state", slug=slug, confidence=confidence),
        poll_seconds=POLL_SECONDS,
        auto_turn_seconds=AUTO_TURN_SECONDS,
    )


@bp.get("/present/state")
def present_state(slug: str):
    """What the projector shows, as JSON; 304 when nothing changed since the page's version."""
    if not current_user.is_authenticated:
        # A page left open past the end of its session: JSON it can read, not the sign-in page.
        response = jsonify(
            error=gettext("Your session has ended: sign in again."), code="signed_out"
        )
        return response, 401
    survey = owned_survey_or_404(current_user, slug)
    pin(survey.language)
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
