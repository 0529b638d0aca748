"""The analyst's sign-in and account: log in, log out, change the password, sign out everywhere."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext, lazy_gettext, ngettext
from flask_login import current_user, login_required, logout_user
from flask_wtf import FlaskForm
from wtforms import EmailField, HiddenField, PasswordField
from wtforms.validators import DataRequired, Length, Regexp, ValidationError

from survey_app.accounts.devices import known_device, remember_device
from survey_app.accounts.services import (
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    authenticate,
    end_all_sessions,
    end_session,
    password_weakness,
    set_language,
    set_password,
    sign_in_browser,
    verify_password,
)
from survey_app.extensions import db
from survey_app.storage.database import begin_session_writes
from survey_app.storage.models import Analyst
from survey_app.web.analyst_area import analyst_blueprint
from survey_app.web.forms import ActionForm
from survey_app.web.languages import language_reach
from survey_app.web.ratelimits import sign_in_throttle

bp = analyst_blueprint("sign_in", __name__)


#: An email address is looked up in the database, which cannot compare text holding U+0000.
WITHOUT_NUL = Regexp(
    r"\A[^\x00]*\Z", message=lazy_gettext("An email address cannot hold a NUL character.")
)
#: What a field left empty says (WTForms' words, through this app's catalog).
FILLED = DataRequired(message=lazy_gettext("This field is required."))


class LoginForm(FlaskForm):
    email = EmailField(lazy_gettext("Email"), validators=[FILLED, Length(max=254), WITHOUT_NUL])
    password = PasswordField(lazy_gettext("Password"), validators=[FILLED, Length(max=1000)])
    next = HiddenField()


class PasswordChangeForm(FlaskForm):
    current_password = PasswordField(
        lazy_gettext("Current password"), validators=[FILLED, Length(max=1000)]
    )
    new_password = PasswordField(
        lazy_gettext("New password"), validators=[FILLED, Length(max=1000)]
    )
    repeat_password = PasswordField(
        lazy_gettext("New password again"), validators=[FILLED, Length(max=1000)]
    )

    def validate_current_password(self, field) -> None:
        if not verify_password(current_user, field.data):
            raise ValidationError(gettext("That is not your current password."))

    def validate_new_password(self, field) -> None:
        weakness = password_weakness(field.data, current_user.email)
        if weakness is not None:
            raise ValidationError(weak_password_words(weakness))

    def validate_repeat_password(self, field) -> None:
        if field.data != self.new_password.data:
            raise ValidationError(gettext("The two new passwords differ."))


def weak_password_words(weakness: str) -> str:
    """Why the new password is too weak (services.password_weakness), a whole sentence."""
    if weakness == "short":
        return ngettext(
            "The new password must be at least %(num)s character.",
            "The new password must be at least %(num)s characters.",
            MIN_PASSWORD_LENGTH,
        )
    if weakness == "long":
        return ngettext(
            "The new password must be at most %(num)s character.",
            "The new password must be at most %(num)s characters.",
            MAX_PASSWORD_LENGTH,
        )
    return {
        "repetitive": gettext(
            "The new password repeats one or two characters; choose something harder to guess."
        ),
        "common": gettext(
            "The new password is one of the most common passwords; choose something harder to "
            "guess."
        ),
        "email_name": gettext(
            "The new password is the email address’s name; choose something harder to guess."
        ),
    }[weakness]


def safe_next(target: str | None) -> str:
    """A path of this site to go to after signing in; anything else goes to the survey list."""
    fallback = url_for("builder.surveys")
    if not target or not target.startswith("/") or target.startswith("//"):
        return fallback
    if "\\" in target or any(ord(char) < 32 or ord(char) == 127 for char in target):
        return fallback
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return fallback
    return target


def _writes_next() -> None:
    """End the transaction so far and begin a write transaction (SQLite: take the lock now)."""
    db.session.commit()
    begin_session_writes()


#: What a sign-in refused for too many attempts, or for a wrong email or password, says.
TOO_MANY_ATTEMPTS = lazy_gettext("Too many sign-in attempts. Please wait a minute and try again.")
NO_MATCH = lazy_gettext("That email and password do not match an account.")


@dataclass(frozen=True)
class SignInCheck:
    """What the sign-in checks made of an email and password: the account, when they match;
    else how long to wait, when the throttle refused the attempt; and the browser's device."""

    analyst: Analyst | None
    device: str | None
    retry_after: int | None = None


def check_sign_in(email: str, password: str) -> SignInCheck:
    """The sign-in page's checks, for every form that signs in with a password: the attempt is
    counted by the throttle (and committed, whatever follows), then the password checked."""
    device = known_device(email)
    throttle = sign_in_throttle()
    refused = throttle.attempt(email, device) if throttle is not None else None
    db.session.commit()  # the attempt counts whatever follows; the lock is not held below
    if refused is not None:
        current_app.logger.warning(
            "sign-in refused: too many attempts %s",
            "from one address" if refused.reason == "address" else "on one account",
        )
        return SignInCheck(None, device, refused.retry_after)
    analyst = authenticate(email, password)
    if analyst is None:
        current_app.logger.warning("sign-in failed: wrong email or password")
    return SignInCheck(analyst, device)


def sign_in_now(analyst: Analyst, then: Callable[[], None] | None = None) -> None:
    """Sign this browser in as ``analyst`` in a fresh session, after ``then`` (a write of the
    same transaction), and commit."""
    _writes_next()
    if then is not None:
        then()
    sign_in_browser(analyst)
    db.session.commit()


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password."""
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    if form.validate_on_submit():
        checked = check_sign_in(form.email.data, form.password.data)
        if checked.retry_after is not None:
            flash(str(TOO_MANY_ATTEMPTS), "error")
            page = render_template("accounts/login.html", form=form)
            return page, 429, {"Retry-After": str(checked.retry_after)}
        if checked.analyst is not None:
            sign_in_now(checked.analyst)
            response = redirect(safe_next(form.next.data))
            remember_device(response, checked.analyst.email, checked.device)
            return response
        flash(str(NO_MATCH), "error")
    status = 401 if request.method == "POST" else 200
    return render_template("accounts/login.html", form=form), status


@bp.post("/logout")
@login_required
def logout():
    """Sign out: this browser's session ends on the server too."""
    end_session(current_user.session_key)
    db.session.commit()
    logout_user()
    session.clear()
    return redirect(url_for("sign_in.login"))


@bp.route("/account", methods=["GET", "POST"])
@login_required
def account():
    """Change the password; sign out on every device."""
    form = PasswordChangeForm()
    if request.method == "POST" and (retry_after := _password_tries_refused()) is not None:
        flash(gettext("Too many attempts. Please wait a minute and try again."), "error")
        return _account_page(form), 429, {"Retry-After": str(retry_after)}
    if form.validate_on_submit():
        _writes_next()
        analyst = current_user._get_current_object()
        set_password(analyst, form.new_password.data)  # ends every session, this one too
        sign_in_browser(analyst)  # ... so this browser gets a new one
        db.session.commit()
        current_app.logger.info("password changed; every other session ended")
        flash(gettext("Password changed. Every other device was signed out."), "success")
        return redirect(url_for("sign_in.account"))
    return _account_page(form), 400 if form.errors else 200


def _password_tries_refused() -> int | None:
    """Count a try of the current password as a sign-in attempt (the same throttle, the same
    limits: a signed-in browser left open is no faster way to guess the password than the
    sign-in page); the seconds to wait when it must be refused unchecked, else None."""
    throttle = sign_in_throttle()
    if throttle is None:
        return None
    email = current_user.email
    refused = throttle.attempt(email, known_device(email))
    db.session.commit()  # the try counts whatever follows
    if refused is None:
        return None
    current_app.logger.warning(
        "password change refused: too many attempts %s",
        "from one address" if refused.reason == "address" else "on one account",
    )
    return refused.retry_after


def _account_page(form: PasswordChangeForm, language_error: str | None = None) -> str:
    return render_template(
        "accounts/account.html",
        form=form,
        action_form=ActionForm(),
        min_password_length=MIN_PASSWORD_LENGTH,
        language_error=language_error,
        language_reach=language_reach(),
    )


@bp.post("/account/language")
@login_required
def account_language():
    """Save the language of this account's pages (none: the browser's)."""
    chosen = request.form.get("language", "") or None
    try:
        set_language(current_user._get_current_object(), chosen)
    except ValueError:
        said = gettext(
            "Not saved: %(language)s is not a language this app speaks. Choose one from the list.",
            language=repr(chosen),
        )
        return _account_page(PasswordChangeForm(formdata=None), said), 400
    db.session.commit()
    flash(gettext("Language saved."), "success")
    return redirect(url_for("sign_in.account"))


@bp.post("/account/sign-out-everywhere")
@login_required
def sign_out_everywhere():
    """End every session of this account, on every device, this one included."""
    end_all_sessions(current_user)
    db.session.commit()
    logout_user()
    session.clear()
    flash(gettext("You were signed out on every device."), "success")
    return redirect(url_for("sign_in.login"))
