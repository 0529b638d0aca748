"""The analyst's side: sign-in, the survey builder, planning, the dashboard and exports."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import EmailField, HiddenField, PasswordField
from wtforms.validators import DataRequired, Length

from survey_app import planning
from survey_app.access import owned_survey_or_404
from survey_app.accounts import authenticate
from survey_app.assets import mechanism_sha256
from survey_app.extensions import db
from survey_app.models import Survey
from survey_app.results import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE, survey_results
from survey_app.surveys import (
    MAX_QUESTIONS,
    SurveyDefinitionError,
    SurveyStateError,
    close_survey,
    create_survey,
    open_survey,
    parse_definition,
    replace_questions,
)
from survey_app.views import privacy_explanation, privacy_readout

bp = Blueprint("analyst", __name__, url_prefix="/analyst")


# --------------------------------------------------------------------------- sign-in


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=1000)])
    next = HiddenField()


class ActionForm(FlaskForm):
    """A button that changes something: only its CSRF token."""


def safe_next(target: str | None) -> str:
    """A path of this site to go to after signing in; anything else goes to the survey list."""
    fallback = url_for("analyst.surveys")
    if not target or not target.startswith("/") or target.startswith("//"):
        return fallback
    if "\\" in target or any(ord(char) < 32 or ord(char) == 127 for char in target):
        return fallback
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return fallback
    return target


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password."""
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    if form.validate_on_submit():
        analyst = authenticate(form.email.data, form.password.data)
        if analyst is not None:
            # A new session at sign-in: nothing from before it carries over (no fixation).
            session.clear()
            login_user(analyst)
            return redirect(safe_next(form.next.data))
        flash("That email and password do not match an account.", "error")
    status = 401 if request.method == "POST" else 200
    return render_template("analyst/login.html", form=form), status


@bp.post("/logout")
@login_required
def logout():
    """Sign out."""
    if not ActionForm().validate_on_submit():
        abort(400)
    logout_user()
    session.clear()
    return redirect(url_for("analyst.login"))


# --------------------------------------------------------------------------- surveys


@bp.get("/")
@login_required
def surveys():
    """The signed-in analyst's surveys."""
    owned = db.session.execute(
        select(Survey).where(Survey.owner_id == current_user.id).order_by(Survey.created_at.desc())
    ).scalars()
    return render_template("analyst/surveys.html", surveys=list(owned), form=ActionForm())


BLANK_DEFINITION = {
    "title": "",
    "intro": "",
    "flip_probability": 0.25,
    "questions": [{"text": "", "type": "yes_no"}],
}


def definition_from_form() -> dict:
    """The builder's fields as a survey definition, checked by the same rules as files."""
    form = request.form
    texts = form.getlist("question_text")
    kinds = form.getlist("question_type")
    options = form.getlist("question_options")
    questions = []
    for index, text in enumerate(texts):
        kind = kinds[index] if index < len(kinds) else "yes_no"
        question = {"text": text, "type": kind}
        if kind == "choice":
            raw = options[index] if index < len(options) else ""
            question["options"] = [line.strip() for line in raw.splitlines() if line.strip()]
        questions.append(question)
    raw_p = form.get("flip_probability", "").strip()
    try:
        flip_probability: object = float(raw_p)
    except ValueError:
        flip_probability = raw_p
    return {
        "title": form.get("title", ""),
        "intro": form.get("intro", ""),
        "flip_probability": flip_probability,
        "questions": questions,
    }


def small_count(text: str) -> int | None:
    """A count written in at most four digits, else None.

    Not ``str.isdigit`` and ``int``: "²" is a digit that ``int`` refuses, and so is a string of
    more than 4300 digits; either would be a 500 instead of a plain answer.
    """
    return int(text) if text.isdecimal() and len(text) <= 4 else None


def apply_builder_action(definition: dict) -> bool:
    """Add or remove a question as the pressed button asks; True if it was such a button."""
    action = request.form.get("action", "save")
    if action == "add_yes_no":
        definition["questions"].append({"text": "", "type": "yes_no"})
    elif action == "add_choice":
        definition["questions"].append({"text": "", "type": "choice", "options": ["", ""]})
    elif action.startswith("remove_") and small_count(action[7:]) is not None:
        index = small_count(action[7:])
        if index < len(definition["questions"]):
            del definition["questions"][index]
    else:
        return False
    return True


def render_builder(definition: dict, survey: Survey | None = None, error: str | None = None):
    status = 400 if error else 200
    return (
        render_template(
            "analyst/builder.html",
            definition=definition,
            survey=survey,
            error=error,
            form=ActionForm(),
            # The total epsilon counts the questions on the page, as the live readout does.
            readout=privacy_readout(
                definition["flip_probability"],
                max(1, min(len(definition["questions"]), MAX_QUESTIONS)),
            ),
        ),
        status,
    )


@bp.route("/surveys/new", methods=["GET", "POST"])
@login_required
def new_survey():
    """Build a new survey (it starts as a draft)."""
    if request.method == "GET":
        return render_builder(_copy(BLANK_DEFINITION))
    if not ActionForm().validate_on_submit():
        abort(400)
    definition = definition_from_form()
    if apply_builder_action(definition):
        return render_builder(definition)
    try:
        checked = parse_definition(definition)
    except SurveyDefinitionError as error:
        return render_builder(definition, error=str(error))
    survey = create_survey(current_user, checked)
    db.session.commit()
    flash("Draft saved. Preview it, then open it to respondents when it is ready.", "success")
    return redirect(url_for("analyst.dashboard", slug=survey.slug))


@bp.route("/surveys/<slug>/edit", methods=["GET", "POST"])
@login_required
def edit_survey(slug: str):
    """Change a draft; a survey that has opened keeps its questions and mechanism."""
    survey = owned_survey_or_404(current_user, slug)
    if not survey.is_draft:
        flash(
            "A survey that has opened can no longer change: answers must all come from "
            "the same questions and the same randomization.",
            "error",
        )
        return redirect(url_for("analyst.dashboard", slug=slug))
    if request.method == "GET":
        return render_builder(definition_of(survey), survey)
    if not ActionForm().validate_on_submit():
        abort(400)
    definition = definition_from_form()
    if apply_builder_action(definition):
        return render_builder(definition, survey)
    try:
        checked = parse_definition(definition)
    except SurveyDefinitionError as error:
        return render_builder(definition, survey, error=str(error))
    survey.title = checked.title
    survey.intro = checked.intro
    survey.flip_probability = checked.flip_probability
    replace_questions(survey, checked.questions)
    db.session.commit()
    flash("Draft saved.", "success")
    return redirect(url_for("analyst.dashboard", slug=slug))


def definition_of(survey: Survey) -> dict:
    return {
        "title": survey.title,
        "intro": survey.intro,
        "flip_probability": survey.flip_probability,
        "questions": [
            {"text": q.text, "type": q.kind.value, "options": list(q.choices or [])}
            for q in survey.questions
        ],
    }


def _copy(definition: dict) -> dict:
    return {**definition, "questions": [dict(q) for q in definition["questions"]]}


@bp.post("/surveys/<slug>/open")
@login_required
def open_survey_view(slug: str):
    """Open the survey to respondents."""
    return _change_status(slug, open_survey, "The survey is open: share the link below.")


@bp.post("/surveys/<slug>/close")
@login_required
def close_survey_view(slug: str):
    """Close the survey: no more answers; results stay."""
    return _change_status(slug, close_survey, "The survey is closed; its results stay here.")


def _change_status(slug: str, change, message: str):
    survey = owned_survey_or_404(current_user, slug)
    if not ActionForm().validate_on_submit():
        abort(400)
    try:
        change(survey)
    except SurveyStateError as error:
        flash(str(error), "error")
    else:
        flash(message, "success")
    return redirect(url_for("analyst.dashboard", slug=slug))


@bp.get("/surveys/<slug>/preview")
@login_required
def preview(slug: str):
    """The survey as respondents will see it; nothing can be sent from a preview."""
    survey = owned_survey_or_404(current_user, slug)
    return render_template(
        "respondent/survey.html",
        survey=survey,
        explanation=privacy_explanation(survey),
        mechanism_sha256=mechanism_sha256(),
        preview=True,
    )


# --------------------------------------------------------------------------- dashboard


def chosen_confidence() -> float:
    """The confidence picked on the dashboard: 90, 95 or 99 percent."""
    raw = request.args.get("confidence", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_CONFIDENCE
    return value if value in CONFIDENCE_LEVELS else DEFAULT_CONFIDENCE


@bp.get("/surveys/<slug>")
@login_required
def dashboard(slug: str):
    """Respondents so far, debiased estimates with Chebyshev intervals, planning, exports."""
    survey = owned_survey_or_404(current_user, slug)
    confidence = chosen_confidence()
    results = survey_results(survey, confidence)
    return render_template(
        "analyst/dashboard.html",
        survey=survey,
        results=results,
        confidence=confidence,
        confidence_levels=CONFIDENCE_LEVELS,
        plan=planning.plan_from_request(survey, confidence),
        explanation=privacy_explanation(survey),
        form=ActionForm(),
        respondent_url=url_for("respondent.survey_page", slug=slug, _external=True),
    )


@bp.get("/surveys/<slug>/results-panel")
@login_required
def results_panel(slug: str):
    """The dashboard's results alone, which the open dashboard fetches to refresh itself."""
    survey = owned_survey_or_404(current_user, slug)
    confidence = chosen_confidence()
    return render_template(
        "analyst/_results.html",
        survey=survey,
        results=survey_results(survey, confidence),
        confidence=confidence,
    )


@bp.get("/privacy-readout")
@login_required
def readout():
    """What a flip probability means, for the builder's live readout."""
    raw = request.args.get("flip_probability", "")
    questions = request.args.get("questions", "1")
    try:
        value: object = float(raw)
    except ValueError:
        value = raw
    count = small_count(questions) or 1
    return jsonify(privacy_readout(value, max(1, min(count, MAX_QUESTIONS))))
