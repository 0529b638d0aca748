"""Managing surveys: open and close (with a confirmation), duplicate, archive, delete.

The rules are :mod:`survey_app.surveys.services`'; these views ask the professor first where a slip
of
the finger would cost something (closing stops the answers, deleting loses them for good),
on a page of its own, so the confirmation works without JavaScript and reads out as a page.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user, login_required
from sqlalchemy import select
from sqlalchemy.orm import undefer

from survey_app.accounts.access import owned_survey_or_404
from survey_app.classroom.codes import code_counts, codes_missing
from survey_app.dashboard.rendering import render_dashboard
from survey_app.extensions import db
from survey_app.storage.models import Survey
from survey_app.surveys.copies import duplicate_survey
from survey_app.surveys.services import (
    SurveyStateError,
    archive_survey,
    close_survey,
    delete_survey,
    open_survey,
)
from survey_app.surveys.words import (
    class_results_setting_words,
    delete_words,
    deleted_words,
    state_refusal,
)
from survey_app.web.forms import ActionForm
from survey_app.web.security import never_cached
from survey_app.words import STATUS_NAMES

bp = Blueprint("manage", __name__, url_prefix="/analyst")

#: A confirmation page's form carries this field; without it a POST only leads to that page.
CONFIRMED = "confirmed"


bp.after_request(never_cached)  # analyst pages name surveys and their answers


def _confirmed() -> bool:
    return request.method == "POST" and request.form.get(CONFIRMED) == "yes"


def _apply(survey: Survey, change: Callable[[Survey], None], message: str) -> bool:
    """Make a lifecycle change and commit it, flashing ``message``; or flash why not."""
    try:
        change(survey)
    except SurveyStateError as error:
        db.session.rollback()
        flash(state_refusal(error), "error")
        return False
    db.session.commit()
    flash(message, "success")
    return True


def _to_dashboard(slug: str):
    return redirect(url_for("dashboard.dashboard", slug=slug))


# --------------------------------------------------------------------------- open, close


@bp.post("/surveys/<slug>/open")
@login_required
def open_survey_view(slug: str):
    """Open the survey to respondents (or reopen a closed one)."""
    survey = owned_survey_or_404(current_user, slug)
    if _apply(survey, open_survey, gettext("The survey is open: share the link below.")) and (
        missing := codes_missing(survey)
    ):
        # Open all the same: codes can be issued now, and the dashboard keeps saying so.
        said = gettext(
            "%(missing)s Issue them under “One answer per student” below.", missing=missing
        )
        flash(said, "error")
    return _to_dashboard(slug)


@bp.route("/surveys/<slug>/close", methods=["GET", "POST"])
@login_required
def close_survey_view(slug: str):
    """Close the survey once the professor confirms: no more answers; results stay."""
    survey = owned_survey_or_404(current_user, slug)
    if _confirmed():
        _apply(survey, close_survey, gettext("The survey is closed; its results stay here."))
        return _to_dashboard(slug)
    if request.method == "POST":  # the dashboard's button, without JavaScript: ask first
        return redirect(url_for("manage.close_survey_view", slug=slug), 303)
    if not survey.is_open:
        flash(
            gettext("This survey is a draft: it has not opened, so it cannot close.")
            if survey.is_draft
            else gettext("This survey is already closed."),
            "error",
        )
        return _to_dashboard(slug)
    return render_template("surveys/confirm_close.html", survey=survey, form=ActionForm())


# --------------------------------------------------------------------------- class results

#: The form's ``show`` field: whether respondents see the class's results once it closes.
SHOW_CLASS_RESULTS = {"1": True, "0": False}


@bp.post("/surveys/<slug>/class-results")
@login_required
def set_class_results(slug: str):
    """Show the class's results to respondents once the survey closes, or stop; at any time."""
    survey = owned_survey_or_404(current_user, slug)
    show = SHOW_CLASS_RESULTS.get(request.form.get("show", ""))
    if show is None:
        # Refused in words on the dashboard itself, the setting as it was.
        flash(gettext("Say whether to show the class’s results: show=1 or show=0."), "error")
        return render_dashboard(survey), 400
    survey.show_results_after_close = show
    db.session.commit()
    flash(class_results_setting_words(survey)["state"], "success")
    return redirect(url_for("dashboard.dashboard", slug=slug, _anchor="class-results-setting"))


# --------------------------------------------------------------------------- duplicate, archive


@bp.post("/surveys/<slug>/duplicate")
@login_required
def duplicate(slug: str):
    """Copy the survey as a new draft (questions and settings, no answers) and edit the copy."""
    original = owned_survey_or_404(current_user, slug)
    copy = duplicate_survey(original)
    db.session.commit()
    said = gettext(
        "This is a new draft, a copy of “%(title)s” with its questions and privacy level, "
        "without its answers or codes. Rename it for the next section, then save it.",
        title=original.title,
    )
    flash(said, "success")
    return redirect(url_for("builder.edit_survey", slug=copy.slug))


@bp.post("/surveys/<slug>/archive")
@login_required
def archive(slug: str):
    """Take the survey off the survey list; its results and exports stay."""
    survey = owned_survey_or_404(current_user, slug)
    _apply(
        survey,
        archive_survey,
        gettext(
            "Archived: the survey is off your survey list, under “Archived surveys”. "
            "Its results and exports stay here."
        ),
    )
    return _to_dashboard(slug)


@bp.post("/surveys/<slug>/unarchive")
@login_required
def unarchive(slug: str):
    """Put an archived survey back on the survey list."""
    survey = owned_survey_or_404(current_user, slug)
    _apply(
        survey,
        lambda each: archive_survey(each, archived=False),
        gettext("The survey is back on your survey list."),
    )
    if request.form.get("back") == "archived":  # pressed on the list of archived surveys
        return redirect(url_for("manage.archived_surveys"))
    return _to_dashboard(slug)


@bp.get("/archived")
@login_required
def archived_surveys():
    """The signed-in analyst's archived surveys."""
    archived = db.session.execute(
        select(Survey)
        .where(Survey.owner_id == current_user.id, Survey.archived.is_(True))
        .order_by(Survey.created_at.desc(), Survey.id.desc())
        # Each row shows how many answered: counted in the list's one query, not one a row.
        .options(undefer(Survey.respondents))
    ).scalars()
    return render_template(
        "surveys/archived.html",
        surveys=list(archived),
        form=ActionForm(),
        status_names=STATUS_NAMES,
    )


# --------------------------------------------------------------------------- delete


@bp.route("/surveys/<slug>/delete", methods=["GET", "POST"])
@login_required
def delete(slug: str):
    """Delete the survey and everything of it, once the professor confirms."""
    survey = owned_survey_or_404(current_user, slug)
    if _confirmed():
        said = deleted_words(survey.title, survey.respondents)
        delete_survey(survey)
        db.session.commit()
        flash(said, "success")
        return redirect(url_for("builder.surveys"))
    if request.method == "POST":
        return redirect(url_for("manage.delete", slug=slug), 303)
    return render_template(
        "surveys/confirm_delete.html",
        survey=survey,
        words=delete_words(survey.title, survey.respondents, code_counts(survey)["issued"]),
        form=ActionForm(),
    )
