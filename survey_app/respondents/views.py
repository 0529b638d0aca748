"""The pages respondents answer."""

from __future__ import annotations

from flask import Blueprint, abort, make_response, redirect, render_template, request, url_for
from flask_babel import gettext

from survey_app.classroom.codes import normalise_code
from survey_app.lti.framing import framed_by_platforms, reached_from_a_launch
from survey_app.respondents.class_results import class_results_context, results_shown_to_respondents
from survey_app.respondents.words import privacy_words
from survey_app.storage.models import JOIN_CODE_LENGTH
from survey_app.surveys.services import find_survey, find_survey_by_join_code
from survey_app.surveys.words import privacy_explanation
from survey_app.web.languages import pin

bp = Blueprint("respondent", __name__)


@bp.get("/s/<slug>")
def survey_page(slug: str):
    """A survey for respondents: answers are randomized in the browser before they are sent."""
    response = make_response(_survey_page(slug))
    # Reached from a course's launch (survey_app.lti): the course's page may show it in its
    # frame; its answers are sent with no cookie, so the frame needs none (lti.framing).
    return framed_by_platforms(response) if reached_from_a_launch() else response


def _survey_page(slug: str):
    survey = find_survey(slug)
    if survey is None or survey.is_draft:
        abort(404)
    pin(survey.language)  # the class's language, whatever each browser asks for
    if survey.is_closed:
        if results_shown_to_respondents(survey):  # still 410: it takes no more answers
            return render_template("respondents/results.html", **class_results_context(survey)), 410
        return render_template("respondents/closed.html", survey=survey), 410
    explanation = privacy_explanation(survey)
    return render_template(
        "respondents/survey.html",
        survey=survey,
        explanation=explanation,
        privacy_words=privacy_words(explanation),
    )


@bp.get("/s/<slug>/results")
def class_results(slug: str):
    """The class's results, once the survey has closed, if its owner chose to show them."""
    survey = find_survey(slug)
    if survey is None or survey.is_draft or not survey.show_results_after_close:
        abort(404)
    pin(survey.language)
    if not survey.is_closed:
        abort(403, description=gettext("The class’s results show here once the survey closes."))
    return render_template("respondents/results.html", **class_results_context(survey))


@bp.get("/")
def home():
    """The front door: join a survey with the code on the screen; professors sign in."""
    return render_template("respondents/join.html", code="", error=None)


@bp.get("/join")
def join():
    """The join form's target: go to the survey a typed code names, or say what is wrong."""
    typed = request.args.get("code", "")[:100]
    return _join(typed)


@bp.get("/j/<code>")
def join_by_code(code: str):
    """A join link (the QR code's, the projector's): go to the survey it names."""
    return _join(code[:100])


def _join(typed: str):
    survey = find_survey_by_join_code(typed)
    if survey is not None and not survey.is_draft:
        # A closed survey's page says that it has closed.
        return redirect(url_for("respondent.survey_page", slug=survey.slug))
    code = typed.strip()
    if not code:
        error = gettext("Type the code shown by whoever runs the survey.")
    elif survey is not None:
        # A draft gets its code before class when its one-time code slips are printed.
        pin(survey.language)
        error = gettext(
            "The survey with the code “%(code)s” has not opened yet. Ask whoever runs it (your "
            "professor) to open it, then press Join again.",
            code=code,
        )
    elif normalise_code(typed) is not None:
        # A slip holds two codes; students reach for the long one, which the survey page asks
        # for once they are in.
        error = gettext(
            "“%(code)s” looks like your one-time code. Type the 6-character survey code first "
            "(on the screen, or above the one-time code on your slip), or scan the slip’s QR "
            "code: the survey page will then ask for your one-time code.",
            code=code,
        )
    else:
        error = gettext(
            "No survey has the code “%(code)s”. Check it: it has %(length)s letters and digits, "
            "like “K7W3PX”.",
            code=code,
            length=JOIN_CODE_LENGTH,
        )
    return render_template("respondents/join.html", code=typed.strip(), error=error), 404
