"""The LTI pages: the tool's key set, the platform's login initiation and the launch."""

from __future__ import annotations

import secrets

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import select

from survey_app.extensions import csrf, db
from survey_app.lti import deep_linking, framing, instructors, launches
from survey_app.lti.cookies import delete_cookie, read_cookie, set_cookie
from survey_app.lti.keys import public_jwk, tool_key
from survey_app.lti.launches import LaunchRefused
from survey_app.lti.words import REFUSALS
from survey_app.storage.database import begin_session_writes
from survey_app.storage.lti_models import LtiPlatform
from survey_app.storage.models import Analyst, Survey
from survey_app.surveys.services import find_survey
from survey_app.web.languages import enter_error_page
from survey_app.web.security import CONTENT_SECURITY_POLICY, never_cached

bp = Blueprint("lti", __name__, url_prefix="/lti")
# No cache keeps a login's redirect (its state cookie), a launch's landing or a choice of surveys.
bp.after_request(never_cached)
# The course's page shows them in its frame: its platform's origins may (framing.py).
bp.after_request(framing.framed_by_platforms)

#: The cookies that carry a login's state to its launch, one a login (named after its state's
#: hash, so that two launches at once in one browser keep theirs), and a deep linking request's
#: tie to the browser that made it; their attributes and ``__Host-`` prefix: cookies.py (the
#: login and its launch happen in the same frame, under the same course page).
STATE_COOKIE = "survey_app_lti_state_"
CHOOSER_COOKIE = "survey_app_lti_chooser"
#: The chooser cookie's path below the blueprint's: the choice of a survey's pages alone.
CHOOSER_PATH = "/deep-link"


def _refused(error: LaunchRefused):
    """A refused login or launch: its page in words (an error page's), nothing kept."""
    enter_error_page()
    return render_template("error.html", status=error.status, message=REFUSALS[error.reason]), (
        error.status
    )


def _chooser_path() -> str:
    return request.script_root + bp.url_prefix + CHOOSER_PATH


def _state_cookie(state: str) -> str:
    return STATE_COOKIE + launches.state_name(state)


@bp.get("/jwks.json")
def key_set():
    """The tool's public key set: platforms check what the tool signs with it."""
    key = tool_key(current_app.config, current_app.instance_path)
    return jsonify(keys=[public_jwk(key)])


@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt  # the platform's cross-site login initiation, which carries no token of ours
def login():
    """The platform's third-party login initiation: on to its authorization URL."""
    sent = request.form if request.method == "POST" else request.args
    params = {name: sent.get(name, "") for name in launches.LOGIN_PARAMETERS}
    begin_session_writes()  # it reads the platform, then writes the login (SQLite: one lock)
    try:
        target, state = launches.begin_login(params, url_for("lti.launch", _external=True))
    except LaunchRefused as error:
        return _refused(error)
    db.session.commit()
    response = redirect(target, 302)
    seconds = int(launches.LOGIN_LIFETIME.total_seconds())
    set_cookie(response, _state_cookie(state), state, seconds, url_for("lti.launch"))
    return response


@bp.post("/launch")
@csrf.exempt  # the platform's form post, checked by its signed token, state and nonce instead
def launch():
    """A launch from the course: checked whole, then on to where it lands."""
    state = request.form.get("state", "")
    try:
        # Checked before any write: the platform's key set may be fetched meanwhile, and on
        # SQLite no write lock may wait on the network.
        accepted = launches.verify_launch(request.form, read_cookie(_state_cookie(state)))
        target, chooser, chooser_ticket = _landing(accepted)
        # An instructor is signed in (or asked to link) on the way to a survey or its choice;
        # what the tool keeps is for anyone to read, signed in or not.
        signs_in = accepted.teaches and accepted.message_type != launches.DATA_PRIVACY_REQUEST
        arrived = instructors.arrival(accepted, target, chooser_ticket) if signs_in else None
        db.session.rollback()
        begin_session_writes()
        launches.finish_login(state)
    except LaunchRefused as error:
        db.session.rollback()
        return _refused(error)
    if arrived is not None:
        arrived.begin()
    db.session.commit()
    if arrived is not None and arrived.refusal is not None:
        response = current_app.make_response(_refused(LaunchRefused(arrived.refusal, 403)))
    elif chooser is not None and arrived is not None and arrived.analyst is not None:
        # Signed in by the launch: the choice acts for that account, named in its ticket.
        signed = deep_linking.ticket(current_app.secret_key, accepted, chooser, arrived.analyst)
        response = redirect(url_for("lti.choose_survey", ticket=signed), 303)
    else:
        response = redirect(target if arrived is None else arrived.target, 303)
    return _with_cookies(response, state, arrived, chooser)


def _with_cookies(response, state: str, arrived: instructors.Arrival | None, chooser):
    """A launch's ``response`` with its state cookie deleted and the cookies its landing needs
    set: the link page's and the choice's ties to this browser."""
    delete_cookie(response, _state_cookie(state), url_for("lti.launch"))
    if arrived is not None and arrived.linker is not None:
        set_cookie(
            response,
            instructors.LINKER_COOKIE,
            arrived.linker,
            instructors.TICKET_LIFETIME,
            instructors.linker_path(),
        )
    if chooser is not None:
        seconds = deep_linking.TICKET_LIFETIME
        set_cookie(response, CHOOSER_COOKIE, chooser, seconds, _chooser_path())
    return response


def _landing(accepted: launches.Launch) -> tuple[str, str | None, str | None]:
    """Where an accepted launch goes, and for a deep linking request the secret that ties its
    choice to this browser and the choice's ticket: a learner to the survey's page, as if its
    join code had been typed; an instructor to its dashboard (in a frame: the page that opens
    it in a new tab), or to the choice of a survey for the course (signed in, or asked to link
    their account, by instructors.arrival); anyone to what the tool keeps (a data privacy
    launch)."""
    if accepted.message_type == launches.DATA_PRIVACY_REQUEST:
        return url_for("lti.data_privacy"), None, None
    if accepted.message_type == launches.DEEP_LINKING_REQUEST:
        if not accepted.teaches:
            raise LaunchRefused("deep_linking_role", 403)
        chooser = secrets.token_urlsafe(24)
        signed = deep_linking.ticket(current_app.secret_key, accepted, chooser)
        return url_for("lti.choose_survey", ticket=signed), chooser, signed
    survey = find_survey(accepted.survey_slug) if accepted.survey_slug else None
    if survey is None or (survey.is_draft and not accepted.teaches):
        raise LaunchRefused("no_survey", 404)
    if accepted.teaches:
        return _dashboard_address(survey.slug), None, None
    # Marked as reached from a launch: the course's page may frame it (framing.py).
    marked = {framing.LAUNCHED_PARAMETER: "1"}
    return url_for("respondent.survey_page", slug=survey.slug, **marked), None, None


@bp.get("/data-privacy")
def data_privacy():
    """What the tool keeps of who launched it (nothing), the page a data privacy launch opens."""
    return render_template("lti/data_privacy.html")


def _dashboard_address(slug: str) -> str:
    """Where an instructor's launch of the survey ``slug`` goes: its dashboard, or, when the
    launch arrived in a frame, the page that opens the dashboard in a new tab (framing.py)."""
    if framing.arrived_in_a_frame():
        return url_for("lti.dashboard_in_new_tab", slug=slug)
    return url_for("dashboard.dashboard", slug=slug)


@bp.get("/dashboard/<slug>")
def dashboard_in_new_tab(slug: str):
    """In the course's frame, a link that opens the survey's dashboard in a new tab."""
    # It names no one and shows nothing of the survey: the dashboard checks who opens it.
    return render_template("lti/new_tab.html", slug=slug)


@bp.route(CHOOSER_PATH + "/<ticket>", methods=["GET", "POST"])
# No CSRF token: in the course's frame there is no session to keep one in (its cookie is
# SameSite=Lax, never sent to a cross-site frame). The ticket in the address proves what the
# token would: it is an unguessable secret of this one launch, signed, half an hour old at
# most, and it opens nothing unless this browser also sends the chooser cookie it is tied to,
# which only the launch's own response set (another site cannot read the address, and over
# HTTPS no other host can plant the cookie: cookies.py). Every other form of the app keeps
# Flask-WTF's token.
@csrf.exempt
def choose_survey(ticket: str):
    """An instructor picks one of their surveys for the course (deep linking); then the signed
    answer goes back to the platform."""
    try:
        asked = deep_linking.read_ticket(
            current_app.secret_key, ticket, read_cookie(CHOOSER_COOKIE)
        )
    except LaunchRefused as error:
        return _refused(error)
    if asked.get("analyst") is not None:
        # The account the launch signed in (bound to this browser, linked): no session needed.
        analyst = db.session.get(Analyst, asked["analyst"])
        if analyst is None or not deep_linking.marks_account(
            current_app.secret_key, asked, analyst
        ):
            # A deleted account's, or one whose password changed since (which ends its sessions).
            return _refused(LaunchRefused("ticket"))
    elif current_user.is_authenticated:
        analyst = current_user
    elif framing.arrived_in_a_frame():
        # The sign-in page refuses every frame: say so, rather than show an empty frame.
        return _refused(LaunchRefused("chooser_sign_in", 403))
    else:
        return current_app.login_manager.unauthorized()
    surveys = db.session.execute(
        select(Survey)
        .where(Survey.owner_id == analyst.id, Survey.archived.is_(False))
        .order_by(Survey.created_at.desc())
    ).scalars()
    mine = {survey.slug: survey for survey in surveys}
    if request.method == "GET" or request.form.get("survey") not in mine:
        # A post naming no survey of this account's (another's, an archived one): refused,
        # the choice shown again with why.
        unknown = request.method == "POST"
        page = render_template("lti/choose.html", surveys=list(mine.values()), unknown=unknown)
        return page, 400 if unknown else 200
    return _chosen(asked, mine[request.form["survey"]])


def _chosen(asked: dict, chosen: Survey):
    """The page that returns the choice of ``chosen`` to the platform, signed."""
    platform = db.session.get(LtiPlatform, asked["platform"])
    if platform is None:
        return _refused(LaunchRefused("unknown_platform"))
    signed = deep_linking.signed_response(
        tool_key(current_app.config, current_app.instance_path),
        platform,
        asked,
        url_for("lti.launch", _external=True),
        chosen.title,
        chosen.slug,
    )
    page = render_template(
        "lti/return.html", return_url=asked["return_url"], signed=signed, title=chosen.title
    )
    response = current_app.make_response(page)
    # The choice is made: its ticket opens nothing more in this browser.
    delete_cookie(response, CHOOSER_COOKIE, _chooser_path())
    # The one form that leaves the site: to the platform's return URL (its origin checked
    # when the launch was: launches.return_origin), which the platform named.
    origin = launches.return_origin(asked["return_url"])
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'", f"form-action 'self' {origin}"
    )
    return response


@bp.route(instructors.LINK_PATH + "/<ticket>", methods=["GET", "POST"])
# No CSRF token, as the choice of a survey (above): the link ticket in the address is this one
# launch's unguessable secret, tied to the linker cookie only the launch's response set. The
# sign-in it takes still goes through the sign-in page's checks and throttle.
@csrf.exempt
def link_account(ticket: str):
    """An instructor's first launch from a platform: link it to an account, signing in once or
    making one; then on to where the launch was going."""
    # Which of the page's two forms was sent (a form's field: a GET reads none).
    action = request.form.get("action") if request.method == "POST" else None
    answer = instructors.link_page(
        ticket, read_cookie(instructors.LINKER_COOKIE), request.method, action
    )
    if not isinstance(answer, LaunchRefused):
        return answer
    # A refusal ends the ticket in this browser (after a link, its not-owner page, too).
    response = current_app.make_response(_refused(answer))
    delete_cookie(response, instructors.LINKER_COOKIE, instructors.linker_path())
    return response
