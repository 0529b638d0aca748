"""The pages respondents answer."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from survey_app.presenters import privacy_explanation
from survey_app.surveys import find_survey

bp = Blueprint("respondent", __name__)


@bp.get("/s/<slug>")
def survey_page(slug: str):
    """A survey for respondents: answers are randomized in the browser before they are sent."""
    survey = find_survey(slug)
    if survey is None or survey.is_draft:
        abort(404)
    if survey.is_closed:
        return render_template("respondent/closed.html", survey=survey), 410
    return render_template(
        "respondent/survey.html",
        survey=survey,
        explanation=privacy_explanation(survey),
    )
