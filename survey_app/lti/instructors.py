"""An instructor's launch: signed in as the analyst account their platform account is linked to,
or asked once to link it (signing in with an account, or making one).

Only a launch bound to the browser (its state cookie matched) signs anyone in or offers a link:
a launch made elsewhere and carried into this browser must not sign it in as someone (login
CSRF), nor link another's platform account to the account typed here. The pending launch travels
to the link page in a ticket signed with the secret key, short-lived and tied to a cookie of the
browser (as deep linking's choice is); nothing of it is stored but the link itself.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext
from flask_wtf import FlaskForm
from itsdangerous import BadSignature, URLSafeTimedSerializer
from wtforms import BooleanField, EmailField, PasswordField
from wtforms.validators import DataRequired, Length, ValidationError

from survey_app.accounts.devices import remember_device
from survey_app.accounts.services import (
    AccountError,
    create_analyst,
    find_analyst,
    password_weakness,
    sign_in_browser,
)
from survey_app.accounts.views import (
    FILLED,
    NO_MATCH,
    TOO_MANY_ATTEMPTS,
    WITHOUT_NUL,
    LoginForm,
    check_sign_in,
    sign_in_now,
    weak_password_words,
)
from survey_app.extensions import db
from survey_app.lti.cookies import delete_cookie
from survey_app.lti.deep_linking import for_analyst
from survey_app.lti.instructor_links import is_linked, link_instructor, linked_analyst
from survey_app.lti.launches import DEEP_LINKING_REQUEST, Launch, LaunchRefused
from survey_app.storage.models import Analyst
from survey_app.surveys.services import find_survey

#: The cookie that ties a link page's ticket to the browser the launch arrived in, and the
#: link page's path below the blueprint's (the cookie's path).
LINKER_COOKIE = "survey_app_lti_linker"
LINK_PATH = "/link"
#: How long an instructor has to sign in or make an account once the launch arrived.
TICKET_LIFETIME = 15 * 60
_SALT = "survey-app lti instructor link"


@dataclass
class Arrival:
    """Where an instructor's accepted launch goes: ``target``, signed in as ``analyst`` (if
    any), else the reason its page refuses (a 403 in words); and the link page's cookie."""

    target: str
    analyst: Analyst | None = None
    refusal: str | None = None
    linker: str | None = field(default=None, repr=False)
    #: The launch named no user (no ``sub``): it cannot be linked, and the page says so.
    anonymous: bool = False

    def begin(self) -> None:
        """Once the launch is accepted: sign in (a fresh session, as the sign-in page's), or
        say why this launch cannot (the caller commits)."""
        if self.analyst is not None:
            sign_in_browser(self.analyst)
        elif self.anonymous:
            flash(
                gettext(
                    "The course sent this launch without a user id (an anonymous launch), so "
                    "this survey app cannot remember you: sign in with your survey-app account."
                ),
                "info",
            )


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt=_SALT)


def _hashed(linker: str) -> str:
    return hashlib.sha256(linker.encode("utf-8")).hexdigest()


def owns_target(analyst: Analyst, survey_slug: str | None) -> bool:
    """Whether ``analyst`` may land where the launch goes: the survey the link names is theirs
    (a deep linking request names none: the choice shows their own surveys)."""
    if survey_slug is None:
        return True
    survey = find_survey(survey_slug)
    return survey is not None and survey.owner_id == analyst.id


def arrival(accepted: Launch, target: str, chooser_ticket: str | None = None) -> Arrival:
    """Where an instructor's launch lands (``target``: the dashboard, or deep linking's choice,
    whose ticket is ``chooser_ticket``): signed in when linked and bound to this browser; the
    link page when not linked yet; as before (a sign-in on the page) when it cannot be linked,
    saying why when it has no sub."""
    slug = None if accepted.message_type == DEEP_LINKING_REQUEST else accepted.survey_slug
    if accepted.instructor_digest is None:
        return Arrival(target, anonymous=True)
    if not accepted.bound_to_browser:
        return Arrival(target)
    analyst = linked_analyst(accepted.platform_id, accepted.instructor_digest)
    if analyst is not None:
        return Arrival(target, analyst, None if owns_target(analyst, slug) else "not_owner")
    linker = secrets.token_urlsafe(24)
    signed = ticket(
        accepted.platform_id, accepted.instructor_digest, target, slug, linker, chooser_ticket
    )
    return Arrival(url_for("lti.link_account", ticket=signed), linker=linker)


def ticket(
    platform_id: int,
    digest: str,
    target: str,
    slug: str | None,
    linker: str,
    chooser_ticket: str | None = None,
) -> str:
    """The pending launch, signed, for the link page: the platform, the instructor's digest,
    where the launch goes and the survey it names (or, for deep linking, the choice's ticket);
    tied to the browser by the hash of ``linker``, a secret in its cookie."""
    pending = {
        "linker": _hashed(linker),
        "platform": platform_id,
        "sub": digest,
        "next": target,
        "survey": slug,
        "chooser": chooser_ticket,
    }
    return _serializer().dumps(pending)


def read_ticket(text: str, linker: str | None) -> dict:
    """A link page's pending launch, or LaunchRefused when forged, expired, or read in another
    browser than the one the launch arrived in (``linker``: its cookie)."""
    try:
        pending = _serializer().loads(text, max_age=TICKET_LIFETIME)
    except BadSignature:
        raise LaunchRefused("link_ticket") from None
    if not linker or not hmac.compare_digest(pending.get("linker", ""), _hashed(linker)):
        raise LaunchRefused("link_ticket")
    return pending


class NewAccountForm(FlaskForm):
    email = EmailField(lazy_gettext("Email"), validators=[FILLED, Length(max=254), WITHOUT_NUL])
    password = PasswordField(lazy_gettext("Password"), validators=[FILLED, Length(max=1000)])
    repeat_password = PasswordField(
        lazy_gettext("Password again"), validators=[FILLED, Length(max=1000)]
    )
    confirm = BooleanField(
        lazy_gettext("Make this account, and open it from this course from now on"),
        validators=[DataRequired(message=lazy_gettext("Tick this box to make the account."))],
    )

    def validate_password(self, field) -> None:
        weakness = password_weakness(field.data, self.email.data or "")
        if weakness is not None:
            raise ValidationError(weak_password_words(weakness))

    def validate_repeat_password(self, field) -> None:
        if field.data != self.password.data:
            raise ValidationError(gettext("The two passwords differ."))


def link_page(ticket: str, linker: str | None, method: str, action: str | None):
    """The link page (GET), or its sign-in or new account (POST): on success the link is saved,
    the browser signed in, and the launch goes on where it was going."""
    try:
        pending = read_ticket(ticket, linker)
    except LaunchRefused as error:
        return error
    if is_linked(pending["platform"], pending["sub"]):
        # A ticket is good for one link: used already (or linked meanwhile elsewhere).
        return LaunchRefused("link_ticket")
    # No CSRF token (the page's view says why): the ticket and its cookie stand for it.
    existing = LoginForm(prefix="existing", meta={"csrf": False})
    new = NewAccountForm(prefix="new", meta={"csrf": False})
    if method == "POST" and action == "sign-in" and existing.validate_on_submit():
        checked = check_sign_in(existing.email.data, existing.password.data)
        if checked.retry_after is not None:
            existing.password.errors.append(str(TOO_MANY_ATTEMPTS))
            page = _page(existing, new)
            return page, 429, {"Retry-After": str(checked.retry_after)}
        if checked.analyst is not None:
            answer = _linked(pending, checked.analyst)
            if not isinstance(answer, LaunchRefused):
                remember_device(answer, checked.analyst.email, checked.device)
            return answer
        existing.password.errors.append(str(NO_MATCH))
    elif method == "POST" and action == "create" and _creates() and new.validate_on_submit():
        analyst = _new_account(new)
        if analyst is not None:
            return _linked(pending, analyst)
    status = 200 if method == "GET" else 400
    return _page(existing, new), status


def _new_account(new: NewAccountForm) -> Analyst | None:
    """The account the form asks for, made by the usual rules (create_analyst); None, with the
    email's error beside it, when one has that email or it is not an email address (the
    password's rules were the form's)."""
    if find_analyst(new.email.data) is not None:
        new.email.errors.append(
            gettext("An account with this email exists already: sign in with it instead.")
        )
        return None
    try:
        return create_analyst(new.email.data, new.password.data)
    except AccountError:
        new.email.errors.append(gettext("That is not an email address."))
        return None


def _linked(pending: dict, analyst: Analyst):
    """Save the link, sign the browser in as ``analyst``, and go on with the launch."""

    def save() -> None:
        if not link_instructor(pending["platform"], pending["sub"], analyst):
            raise LaunchRefused("link_ticket")  # linked meanwhile: never re-pointed

    try:
        sign_in_now(analyst, then=save)
    except LaunchRefused as error:
        db.session.rollback()
        return error
    current_app.logger.info("an instructor's platform account was linked to an analyst account")
    if not owns_target(analyst, pending.get("survey")):
        return LaunchRefused("not_owner", 403)
    next_page = pending["next"]
    if pending.get("chooser"):
        # The choice of a survey acts for the account just linked, with no session (in the
        # course's frame the session cookie never arrives).
        try:
            signed = for_analyst(current_app.secret_key, pending["chooser"], analyst)
        except LaunchRefused as error:
            return error
        next_page = url_for("lti.choose_survey", ticket=signed)
    response = redirect(next_page, 303)
    delete_cookie(response, LINKER_COOKIE, linker_path())  # the ticket is used
    return response


def linker_path() -> str:
    """The link page's cookie's path: the link pages' alone."""
    return request.script_root + "/lti" + LINK_PATH


def _creates() -> bool:
    """Whether the link page may make a new account (the operator's setting)."""
    return bool(current_app.config.get("LTI_CREATE_ACCOUNTS", True))


def _page(existing: LoginForm, new: NewAccountForm) -> str:
    return render_template("lti/link.html", existing=existing, new=new, creates=_creates())
