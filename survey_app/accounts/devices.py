"""Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies").

A browser that has signed in to an account gets a signed cookie naming that account and a
random device id. Its later sign-ins to that account are throttled per device rather than by
the account's shared count (:class:`survey_app.web.ratelimits.SignInThrottle`), so strangers
guessing the owner's password from many addresses cannot lock the owner out of a browser
they used before; a new browser still waits.

Each account has a cookie of its own in the browser, named by a keyed hash of the account, so
that signing in to a second account (a colleague's, a test account) keeps the first one's pass;
a browser keeps at most :data:`MAX_DEVICE_COOKIES`, the least recently used dropped first.
The cookie is signed with the app's secret key (itsdangerous) and names the account by a keyed
hash, never the email itself. It holds no session: alone it signs nobody in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime

from flask import Response, current_app, request, url_for
from itsdangerous import BadData, Signer, URLSafeTimedSerializer

from survey_app.accounts.services import normalise_email

#: Every device cookie's name starts so; a keyed hash of its account follows.
DEVICE_COOKIE_PREFIX = "sign_in_device_"
#: A device is remembered this long after its last successful sign-in.
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600
#: Device cookies a browser keeps (one per account it signed in to): enough for a professor's
#: own, a colleague's and a test account, while the sign-in form's requests stay small.
MAX_DEVICE_COOKIES = 5
#: Longer values are not ours (ours are about 150 characters): not worth a signature check.
_MAX_COOKIE_LENGTH = 400
_SALT = "sign-in-device"
_NEVER = datetime.min.replace(tzinfo=UTC)


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def _account_tag(email: str) -> str:
    """The account a device cookie names: a keyed hash of its email, never the email."""
    signer = Signer(
        current_app.config["SECRET_KEY"], salt=_SALT + ":account", digest_method=hashlib.sha256
    )
    return signer.get_signature(normalise_email(email)).decode("ascii")


def device_cookie_name(email: str) -> str:
    """The name of the account's device cookie: a keyed hash of its email (another key than
    the tag inside), so that the names a browser holds tell no one without the key which
    accounts it signed in to."""
    secret = current_app.config["SECRET_KEY"].encode("utf-8")
    account = (_SALT + ":cookie-name:" + normalise_email(email)).encode("utf-8")
    return DEVICE_COOKIE_PREFIX + hmac.new(secret, account, hashlib.sha256).hexdigest()[:20]


def _load(value: str | None) -> tuple[dict, datetime] | None:
    """A device cookie's payload and when it was signed, if it is ours and not expired."""
    if not value or len(value) > _MAX_COOKIE_LENGTH:
        return None
    try:
        payload, signed = _serializer().loads(
            value, max_age=DEVICE_COOKIE_MAX_AGE, return_timestamp=True
        )
    except BadData:
        return None
    return (payload, signed) if isinstance(payload, dict) else None


def known_device(email: str) -> str | None:
    """The device id of this browser's device cookie for the account named by ``email``, if
    it is valid (signed by this app, not expired, that account's); otherwise None."""
    loaded = _load(request.cookies.get(device_cookie_name(email)))
    if loaded is None:
        return None
    account, device = loaded[0].get("account"), loaded[0].get("device")
    if not isinstance(account, str) or not isinstance(device, str):
        return None
    return device if hmac.compare_digest(account, _account_tag(email)) else None


def _cookie_attributes() -> dict:
    return {
        # Only the sign-in form needs it; no other request carries it.
        "path": url_for("sign_in.login"),
        "httponly": True,
        # The sign-in form posts from this site's own page: no other site's request needs it.
        "samesite": "Strict",
        # Secure exactly when the session cookie is (HTTPS, or SURVEY_APP_SESSION_COOKIE_SECURE).
        "secure": current_app.session_interface.get_cookie_secure(current_app),
    }


def _drop_the_oldest(response: Response, keep: str) -> None:
    """Delete this browser's device cookies beyond :data:`MAX_DEVICE_COOKIES` (``keep``'s
    included), the least recently signed first; unreadable ones go first of all."""
    others = [
        (loaded[1] if (loaded := _load(value)) is not None else _NEVER, name)
        for name, value in request.cookies.items()
        if name.startswith(DEVICE_COOKIE_PREFIX) and name != keep
    ]
    others.sort(reverse=True)
    for _, name in others[MAX_DEVICE_COOKIES - 1 :]:
        response.delete_cookie(name, **_cookie_attributes())


def remember_device(response: Response, email: str, device: str | None) -> None:
    """Give this browser a device cookie for the account after a successful sign-in.

    A browser that already had one for the account keeps its device id (and so its count of
    attempts); the cookie's year starts again. Other accounts' cookies stay, up to
    :data:`MAX_DEVICE_COOKIES` in all.
    """
    name = device_cookie_name(email)
    value = _serializer().dumps(
        {"account": _account_tag(email), "device": device or secrets.token_urlsafe(16)}
    )
    response.set_cookie(name, value, max_age=DEVICE_COOKIE_MAX_AGE, **_cookie_attributes())
    _drop_the_oldest(response, keep=name)
