"""The analyst's side: sign-in, the survey builder, planning, the dashboard and exports."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_required, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import EmailField, HiddenField, PasswordField
from wtforms.validators import DataRequired, Length, ValidationError

from survey_app import planning
from survey_app.access import owned_survey_or_404
from survey_app.accounts import (
    authenticate,
    end_all_sessions,
    end_session,
    password_problem,
    set_password,
    sign_in_browser,
    verify_password,
)
from survey_app.builder import definition_from_form, definition_of
from survey_app.dashboard import ActionForm, render_dashboard, shown_results
from survey_app.database import begin_session_writes
from survey_app.devices import known_device, remember_device
from survey_app.exports import date_like_labels
from survey_app.extensions import db
from survey_app.models import Survey
from survey_app.presenters import (
    privacy_explanation,
)
from survey_app.ratelimits import sign_in_throttle
from survey_app.surveys import (
    MAX_QUESTIONS,
    SurveyDefinition,
    SurveyDefinitionError,
    create_survey,
    parse_definition,
    replace_questions,
)

bp = Blueprint("analyst", __name__, url_prefix="/analyst")


# --------------------------------------------------------------------------- sign-in


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=1000)])
    next = HiddenField()


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


@bp.after_request
def _never_cached(response):
    # Analyst pages show survey results and carry session tokens: no browser or proxy cache
    # keeps them, and the back button after signing out shows nothing of them.
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.before_request
def _plan_ahead():
    # A professor signs in and looks around before opening a dashboard: time enough to work
    # out the default trade-off tables (seconds of exact figures) once for this process.
    # Tests leave it out: they time and check the figures themselves.
    if not current_app.testing:
        planning.warm_up_in_background()


def _writes_next() -> None:
    """End the transaction so far and begin a write transaction (SQLite: take the lock now)."""
    db.session.commit()
    begin_session_writes()


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password."""
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    if form.validate_on_submit():
        email = form.email.data
        device = known_device(email)
        throttle = sign_in_throttle()
        refused = throttle.attempt(email, device) if throttle is not None else None
        db.session.commit()  # the attempt counts whatever follows; the lock is not held below
        if refused is not None:
            current_app.logger.warning(
                "sign-in refused: too many attempts %s",
                "from one address" if refused.reason == "address" else "on one account",
            )
            flash("Too many sign-in attempts. Please wait a minute and try again.", "error")
            page = render_template("analyst/login.html", form=form)
            return page, 429, {"Retry-After": str(refused.retry_after)}
        analyst = authenticate(email, form.password.data)
        if analyst is not None:
            _writes_next()
            sign_in_browser(analyst)
            db.session.commit()
            response = redirect(safe_next(form.next.data))
            remember_device(response, analyst.email, device)
            return response
        current_app.logger.warning("sign-in failed: wrong email or password")
        flash("That email and password do not match an account.", "error")
    status = 401 if request.method == "POST" else 200
    return render_template("analyst/login.html", form=form), status


@bp.post("/logout")
@login_required
def logout():
    """Sign out: this browser's session ends on the server too."""
    if not ActionForm().validate_on_submit():
        abort(400)
    end_session(current_user.session_key)
    db.session.commit()
    logout_user()
    session.clear()
    return redirect(url_for("analyst.login"))


class PasswordChangeForm(FlaskForm):
    current_password = PasswordField(
        "Current password", validators=[DataRequired(), Length(max=1000)]
    )
    new_password = PasswordField("New password", validators=[DataRequired(), Length(max=1000)])
    repeat_password = PasswordField(
        "New password again", validators=[DataRequired(), Length(max=1000)]
    )

    def validate_current_password(self, field) -> None:
        if not verify_password(current_user, field.data):
            raise ValidationError("That is not your current password.")

    def validate_new_password(self, field) -> None:
        problem = password_problem(field.data, current_user.email)
        if problem is not None:
            raise ValidationError(f"The new password {problem}.")

    def validate_repeat_password(self, field) -> None:
        if field.data != self.new_password.data:
            raise ValidationError("The two new passwords differ.")


@bp.route("/account", methods=["GET", "POST"])
@login_required
def account():
    """Change the password; sign out on every device."""
    form = PasswordChangeForm()
    if form.validate_on_submit():
        _writes_next()
        analyst = current_user._get_current_object()
        set_password(analyst, form.new_password.data)  # ends every session, this one too
        sign_in_browser(analyst)  # ... so this browser gets a new one
        db.session.commit()
        current_app.logger.info("password changed; every other session ended")
        flash("Password changed. Every other device was signed out.", "success")
        return redirect(url_for("analyst.account"))
    status = 400 if form.errors else 200
    return render_template("analyst/account.html", form=form, action_form=ActionForm()), status


@bp.post("/account/sign-out-everywhere")
@login_required
def sign_out_everywhere():
    """End every session of this account, on every device, this one included."""
    if not ActionForm().validate_on_submit():
        abort(400)
    end_all_sessions(current_user)
    db.session.commit()
    logout_user()
    session.clear()
    flash("You were signed out on every device.", "success")
    return redirect(url_for("analyst.login"))


# --------------------------------------------------------------------------- surveys


@bp.get("/")
@login_required
def surveys():
    """The signed-in analyst's surveys, but for those archived (counted, and a link away)."""
    owned = list(
        db.session.execute(
            select(Survey)
            .where(Survey.owner_id == current_user.id)
            .order_by(Survey.created_at.desc())
        ).scalars()
    )
    return render_template(
        "analyst/surveys.html",
        surveys=[survey for survey in owned if not survey.archived],
        archived_count=sum(survey.archived for survey in owned),
        form=ActionForm(),
    )


BLANK_DEFINITION = {
    "title": "",
    "intro": "",
    "flip_probability": 0.25,
    "questions": [{"text": "", "type": "yes_no"}],
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
    elif action == "add_numeric":
        definition["questions"].append({"text": "", "type": "numeric", "min": 0, "max": 10})
    elif action == "apply_warner":  # Warner's coins: p = q / 2 (pages without JavaScript)
        try:
            definition["flip_probability"] = float(request.form.get("warner_q", "")) / 2
        except ValueError:
            pass  # the field's own check says why when the draft is saved
    elif action.startswith("remove_") and small_count(action[7:]) is not None:
        index = small_count(action[7:])
        if index < len(definition["questions"]):
            del definition["questions"][index]
    elif action == "apply_suggestion":
        suggestion = planning.builder_readout(definition, *planning_fields())["suggestion"]
        if suggestion and suggestion.get("flip_probability") is not None:
            definition["flip_probability"] = suggestion["flip_probability"]
    elif action != "plan":  # "plan" only shows the figures again (pages without JavaScript)
        return False
    return True


def planning_fields(planned: int = planning.DEFAULT_CLASS_SIZE) -> tuple[str, str]:
    """The class size (saved with the survey) and the margin wanted (not), as typed in the
    builder; the class size ``planned`` before anything was typed."""
    form = request.form
    return form.get("class_size", str(planned)), form.get("margin", "")


def render_builder(definition: dict, survey: Survey | None = None, error: str | None = None):
    status = 400 if error else 200
    class_size, margin = planning_fields(
        definition.get("expected_respondents", planning.DEFAULT_CLASS_SIZE)
    )
    return (
        render_template(
            "analyst/builder.html",
            definition=definition,
            survey=survey,
            error=error,
            form=ActionForm(),
            class_size=class_size,
            margin=margin,
            planning=planning,
            # The same figures and words as the live readout's JSON.
            readout=planning.builder_readout(definition, class_size, margin),
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
    note_date_like_labels(checked)
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
    survey.expected_respondents = checked.expected_respondents
    replace_questions(survey, checked.questions)
    db.session.commit()
    flash("Draft saved.", "success")
    note_date_like_labels(checked)
    return redirect(url_for("analyst.dashboard", slug=slug))


def note_date_like_labels(definition: SurveyDefinition) -> None:
    """Say, after a save, which options a spreadsheet would turn into dates in the exports."""
    labels = date_like_labels(
        label for question in definition.questions for label in question.choices or ()
    )
    if labels:
        quoted = ", ".join(f"“{label}”" for label in labels[:3])
        flash(
            f"Excel shows options such as {quoted} as dates when it opens the exported files "
            "(the number beside each answer stays right). Writing “1 to 2” avoids it.",
            "notice",
        )


def _copy(definition: dict) -> dict:
    return {**definition, "questions": [dict(q) for q in definition["questions"]]}


@bp.get("/surveys/<slug>/preview")
@login_required
def preview(slug: str):
    """The survey as respondents will see it; nothing can be sent from a preview."""
    survey = owned_survey_or_404(current_user, slug)
    return render_template(
        "respondent/survey.html",
        survey=survey,
        explanation=privacy_explanation(survey),
        preview=True,
    )


# --------------------------------------------------------------------------- dashboard


@bp.get("/surveys/<slug>")
@login_required
def dashboard(slug: str):
    """Respondents so far, estimates with exact and Chebyshev ranges, pooling, planning, exports."""
    return render_dashboard(owned_survey_or_404(current_user, slug))


@bp.get("/surveys/<slug>/results-panel")
@login_required
def results_panel(slug: str):
    """The dashboard's results alone, which the open dashboard fetches to refresh itself."""
    survey = owned_survey_or_404(current_user, slug)
    return render_template("analyst/_results.html", survey=survey, **shown_results(survey))


@bp.route("/privacy-readout", methods=["GET", "POST"])
@login_required
def readout():
    """What p means and what the class will learn, for the builder's live readout (JSON).

    POST: the builder's form, as the page sends it while it changes. GET: ``flip_probability``,
    ``questions`` (how many yes/no questions), ``class_size`` and ``margin``.
    """
    if request.method == "POST":
        return jsonify(planning.builder_readout(definition_from_form(), *planning_fields()))
    raw = request.args.get("flip_probability", "")
    try:
        value: object = float(raw)
    except ValueError:
        value = raw
    count = min(small_count(request.args.get("questions", "1")) or 1, MAX_QUESTIONS)
    definition = {"flip_probability": value, "questions": [{"type": "yes_no"}] * count}
    return jsonify(
        planning.builder_readout(
            definition, request.args.get("class_size"), request.args.get("margin")
        )
    )
