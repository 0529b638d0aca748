"""Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies").

A browser that has signed in to an account gets a signed cookie naming that account and a
random device id. Its later sign-ins to that account are throttled per device rather than by
the account's shared count (:class:`survey_app.ratelimits.SignInThrottle`), so strangers
guessing the owner's password from many addresses cannot lock the owner out of a browser
they used before; a new browser still waits.

The cookie is signed with the app's secret key (itsdangerous) and names the account by a keyed
hash, never the email itself. It holds no session: alone it signs nobody in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import Response, current_app, request, url_for
from itsdangerous import BadData, Signer, URLSafeTimedSerializer

from survey_app.accounts import normalise_email

DEVICE_COOKIE = "sign_in_device"
#: A device is remembered this long after its last successful sign-in.
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600
#: Longer values are not ours (ours are about 150 characters): not worth a signature check.
_MAX_COOKIE_LENGTH = 400
_SALT = "sign-in-device"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def _account_tag(email: str) -> str:
    """The account a device cookie names: a keyed hash of its email, never the email."""
    signer = Signer(
        current_app.config["SECRET_KEY"], salt=_SALT + ":account", digest_method=hashlib.sha256
    )
    return signer.get_signature(normalise_email(email)).decode("ascii")


def known_device(email: str) -> str | None:
    """The device id of this browser's device cookie, if it is valid for the account named by
    ``email`` (signed by this app, not expired, that account's); otherwise None."""
    value = request.cookies.get(DEVICE_COOKIE)
    if not value or len(value) > _MAX_COOKIE_LENGTH:
        return None
    try:
        payload = _serializer().loads(value, max_age=DEVICE_COOKIE_MAX_AGE)
    except BadData:
        return None
    if not isinstance(payload, dict):
        return None
    account, device = payload.get("account"), payload.get("device")
    if not isinstance(account, str) or not isinstance(device, str):
        return None
    return device if hmac.compare_digest(account, _account_tag(email)) else None


def remember_device(response: Response, email: str, device: str | None) -> None:
    """Give this browser a device cookie for the account after a successful sign-in.

    A browser that already had one for the account keeps its device id (and so its count of
    attempts); the cookie's year starts again.
    """
    value = _serializer().dumps(
        {"account": _account_tag(email), "device": device or secrets.token_urlsafe(16)}
    )
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=DEVICE_COOKIE_MAX_AGE,
        # Only the sign-in form needs it; no other request carries it.
        path=url_for("analyst.login"),
        httponly=True,
        # The sign-in form posts from this site's own page: no other site's request needs it.
        samesite="Strict",
        # Secure exactly when the session cookie is (HTTPS, or SURVEY_APP_SESSION_COOKIE_SECURE).
        secure=current_app.session_interface.get_cookie_secure(current_app),
    )
