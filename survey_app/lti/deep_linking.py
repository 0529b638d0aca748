"""Deep linking (LTI Deep Linking 2.0): an instructor picks one of their surveys from the course,
and the tool returns to the platform a link that opens it.

The platform's request is checked as any launch (launches.verify_launch); what it asks to be sent
back (its return URL and opaque ``data``) travels to the chooser page in a ticket signed with the
app's secret key, valid for half an hour, so nothing is stored. When the launch signed an
instructor in (their platform account linked, the launch bound to the browser), the ticket also
names their analyst account: the chooser then acts for it without the session cookie, which a
browser never sends to the course's cross-site frame (Canvas opens deep linking in one).

The answer is an ``LtiDeepLinkingResponse`` JWT signed RS256 by the tool's key (its ``kid``
the one in ``/lti/jwks.json``), with one ``ltiResourceLink`` whose custom parameter names
the survey.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

import jwt
from itsdangerous import BadSignature, URLSafeTimedSerializer

from survey_app.lti.keys import public_jwk
from survey_app.lti.launches import CLAIM, SURVEY_PARAMETER, Launch, LaunchRefused
from survey_app.storage.lti_models import LtiPlatform
from survey_app.storage.models import Analyst

#: How long an instructor has to pick a survey once the course asked.
TICKET_LIFETIME = 30 * 60
#: How long the signed answer is good for on its way back to the platform.
RESPONSE_LIFETIME = 10 * 60
_SALT = "survey-app lti deep linking"
_MARKER_PURPOSE = b"survey-app lti chooser account\x00"


def _serializer(secret_key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key, salt=_SALT)


def _hashed(chooser: str) -> str:
    return hashlib.sha256(chooser.encode("utf-8")).hexdigest()


def account_marker(secret_key: str, analyst: Analyst) -> str:
    """A short keyed digest of ``analyst``'s password hash: a new password (which ends every
    session of the account) changes it, and so ends every choice's ticket naming the account."""
    message = _MARKER_PURPOSE + analyst.password_hash.encode("utf-8")
    return hmac.new(secret_key.encode("utf-8"), message, hashlib.sha256).hexdigest()[:32]


def _named(secret_key: str, analyst: Analyst | None) -> dict:
    if analyst is None:
        return {"analyst": None, "account": None}
    return {"analyst": analyst.id, "account": account_marker(secret_key, analyst)}


def ticket(secret_key: str, launch: Launch, chooser: str, analyst: Analyst | None = None) -> str:
    """What the chooser page needs of a deep linking request, signed (nothing of who asked on
    the platform), tied to the browser that made it by the hash of ``chooser``, a secret in its
    cookie: a ticket sent to someone else opens no choice of their surveys. ``analyst``: the
    account the launch signed in, whose surveys the chooser offers (None: the session's), with
    its marker (account_marker)."""
    request = {
        "chooser": _hashed(chooser),
        "platform": launch.platform_id,
        "deployment": launch.deployment_id,
        "return_url": launch.deep_link_return_url,
        "data": launch.deep_link_data,
        "issued": int(time.time()),
    }
    return _serializer(secret_key).dumps(request | _named(secret_key, analyst))


def for_analyst(secret_key: str, text: str, analyst: Analyst) -> str:
    """The ticket ``text`` (checked: signed, not expired) naming ``analyst`` as the account it
    acts for, still tied to the same browser and as old as it was (its lifetime runs from the
    course's request): once a link page has linked the instructor's platform account, their
    choice of a survey acts for that account."""
    asked = _loaded(secret_key, text)
    return _serializer(secret_key).dumps(asked | _named(secret_key, analyst))


def _loaded(secret_key: str, text: str) -> dict:
    """The ticket's request, signed and younger than half an hour since the course asked."""
    try:
        asked = _serializer(secret_key).loads(text, max_age=TICKET_LIFETIME)
    except BadSignature:
        raise LaunchRefused("ticket") from None
    issued = asked.get("issued")
    if not isinstance(issued, int) or not 0 <= time.time() - issued <= TICKET_LIFETIME:
        raise LaunchRefused("ticket")
    return asked


def read_ticket(secret_key: str, text: str, chooser: str | None) -> dict:
    """A ticket's request, or LaunchRefused when forged, older than half an hour, or read in
    another browser than the one it was made for (``chooser``: its cookie)."""
    asked = _loaded(secret_key, text)
    if not chooser or not hmac.compare_digest(asked.get("chooser", ""), _hashed(chooser)):
        raise LaunchRefused("ticket")
    return asked


def marks_account(secret_key: str, asked: dict, analyst: Analyst) -> bool:
    """Whether the ticket's request ``asked`` names ``analyst`` as it is now (its password
    unchanged since the ticket was made)."""
    marker = asked.get("account")
    return isinstance(marker, str) and hmac.compare_digest(
        marker, account_marker(secret_key, analyst)
    )


def signed_response(
    key, platform: LtiPlatform, request: dict, launch_url: str, title: str, slug: str
) -> str:
    """The ``LtiDeepLinkingResponse`` JWT returning one link to the survey ``slug``."""
    now = int(time.time())
    claims = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + RESPONSE_LIFETIME,
        "nonce": secrets.token_urlsafe(24),
        CLAIM + "message_type": "LtiDeepLinkingResponse",
        CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": request["deployment"],
        "https://purl.imsglobal.org/spec/lti-dl/claim/content_items": [
            {
                "type": "ltiResourceLink",
                "title": title,
                "url": launch_url,
                "custom": {SURVEY_PARAMETER: slug},
            }
        ],
    }
    if request.get("data") is not None:
        claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] = request["data"]
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": public_jwk(key)["kid"]})
