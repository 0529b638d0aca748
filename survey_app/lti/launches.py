"""An LTI 1.3 launch: the platform's login initiation, then its signed ``id_token``, checked whole.

LTI Core 1.3 and the 1EdTech Security Framework 1.0: the platform starts an OpenID Connect
third-party login at ``/lti/login``; the tool answers with a redirect to the platform's
authorization URL carrying a fresh ``state`` (also set as a cookie) and ``nonce``; the platform
posts back a form with the ``id_token`` (a JWT signed RS256 by a key of its key set) and the
state to ``/lti/launch``. The launch is accepted only when every check holds: the state is the
cookie's and a login's not yet used nor expired; the token is signed by the platform's key named
by its ``kid`` (the key set refetched once when the kid is unknown, as platforms rotate keys);
``iss`` is the platform's, ``aud`` holds its client id (``azp`` it too when there are several),
``exp`` is ahead and ``iat`` not ahead; the nonce is the login's; the deployment is registered;
the message type and version are LTI 1.3's, and the roles claim is there. Else LaunchRefused,
and nothing is written: the login stays until it expires, no session is made.

A launch without its state cookie (a course's frame in a browser that blocks the course's
third-party cookies, as Safari does) is still bound to its login server-side: the posted state
must be a live, unused login whose nonce the platform signed into the token (the state and the
nonce were made together, and the nonce is used once). That is enough for a learner's launch:
it makes no account and no session, and names nobody, so someone who sends a victim's browser
their own launch can at most make it open a survey page (which a link could do anyway). It is
not enough for an instructor's (or a deep linking request): a launch that signs in or acts for
an analyst would let an attacker sign a victim's browser in as the attacker's account (login
CSRF), so those need the cookie and are refused without it ("open in a new window").
``Launch.bound_to_browser`` says which it was.

Nothing of who launched is read beyond the roles (a learner or an instructor) and the custom
parameter naming the survey, and an instructor's ``sub`` as a keyed digest (instructor_links):
a learner's ``sub``, names, e-mails and the token itself are never kept.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import jwt
from flask import current_app
from sqlalchemy import delete

from survey_app.extensions import db
from survey_app.lti.instructor_links import sub_digest
from survey_app.lti.platforms import find_platform
from survey_app.storage.lti_models import LtiLogin, LtiPlatform
from survey_app.storage.models import utc_now
from survey_app.web.links import is_loopback_host

#: How long a login waits for its launch.
LOGIN_LIFETIME = dt.timedelta(minutes=5)
#: The clocks' tolerance on ``exp`` and ``iat``, in seconds.
CLOCK_LEEWAY = 30
#: How long a platform's key set is kept before it is fetched again, and a fetch's timeout.
KEY_SET_LIFESPAN = 300
KEY_SET_TIMEOUT = 5

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
#: LTI Data Privacy Launch 1.0: the platform asks the tool to say what it keeps of a user.
DATA_PRIVACY_REQUEST = "LtiDataPrivacyLaunchRequest"
MESSAGE_TYPES = frozenset({RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST, DATA_PRIVACY_REQUEST})
#: Roles that teach (LIS vocabulary): the course's instructors and administrators, and the
#: institution's or the system's administrators.
TEACHING_ROLES = frozenset(
    {
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
        "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
        "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
    }
)
#: What a platform's login initiation sends (LTI Core 1.3, 5.1.1), as a query or a form.
LOGIN_PARAMETERS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)
#: The custom parameter of a resource link that names the survey it opens.
SURVEY_PARAMETER = "survey"


class LaunchRefused(Exception):
    """A login or launch the tool refuses: ``reason`` names the check (views.py words it)."""

    def __init__(self, reason: str, status: int = 400):
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Launch:
    """What the tool reads of an accepted launch: never who launched, only what they do."""

    platform_id: int
    deployment_id: str
    message_type: str
    teaches: bool
    #: The survey a resource link names (its custom parameter), or None.
    survey_slug: str | None
    #: A deep linking request's return URL and its opaque data, to send back.
    deep_link_return_url: str | None = None
    deep_link_data: str | None = None
    #: An instructor's ``sub``, as the keyed digest their link to an analyst account is kept
    #: under (instructor_links.sub_digest); None for a learner or an anonymous launch.
    instructor_digest: str | None = None
    #: True when the launch came with its login's state cookie (so from the browser that
    #: began the login); False for a learner's launch accepted without it (verify_launch).
    #: Only a launch bound to its browser may sign anyone in (else login CSRF).
    bound_to_browser: bool = True


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode("utf-8")).hexdigest()


def state_name(state: str) -> str:
    """A short name for a login's state (the start of its hash, which tells nothing of it): its
    cookie's, so that two logins at once in one browser each keep their own."""
    return _digest(state)[:16]


def begin_login(params: Mapping[str, str], launch_url: str) -> tuple[str, str]:
    """The platform's authorization URL to redirect to, and the state to set as a cookie;
    ``params``: the login initiation's (LOGIN_PARAMETERS, each one value; "" if not sent)."""
    issuer = params.get("iss", "")
    login_hint = params.get("login_hint", "")
    if not issuer or not login_hint or not params.get("target_link_uri"):
        raise LaunchRefused("login_fields")
    platform = find_platform(issuer, params.get("client_id") or None)
    if platform is None:
        raise LaunchRefused("unknown_platform")
    deployment = params.get("lti_deployment_id")
    if deployment and deployment not in platform.deployment_ids:
        raise LaunchRefused("unknown_deployment")
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = utc_now()
    db.session.execute(delete(LtiLogin).where(LtiLogin.expires_at <= now))
    db.session.add(
        LtiLogin(
            state_sha256=_digest(state),
            nonce=nonce,
            platform_id=platform.id,
            expires_at=now + LOGIN_LIFETIME,
        )
    )
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": launch_url,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in platform.auth_url else "?"
    return f"{platform.auth_url}{separator}{urlencode(query)}", state


#: Each platform key set's client (its keys cached for KEY_SET_LIFESPAN), and when it was last
#: fetched again for a kid it did not hold.
_KEY_SETS: dict[str, jwt.PyJWKClient] = {}
_REFETCHED: dict[str, float] = {}
#: A key set is fetched again for an unknown kid at most this often (seconds): a flood of
#: launches with made-up kids must not make the tool fetch it on every request.
REFETCH_INTERVAL = 60


def _key_set_client(url: str) -> jwt.PyJWKClient:
    client = _KEY_SETS.get(url)
    if client is None:
        client = jwt.PyJWKClient(
            url, cache_keys=False, lifespan=KEY_SET_LIFESPAN, timeout=KEY_SET_TIMEOUT
        )
        _KEY_SETS[url] = client
    return client


def _keys(url: str, refresh: bool) -> list[jwt.PyJWK]:
    """The platform's signing keys (cached unless ``refresh``); LaunchRefused when they cannot
    be read (a 502: the platform's fault, not the launch's)."""
    try:
        return _key_set_client(url).get_signing_keys(refresh=refresh)
    except jwt.PyJWKClientConnectionError:
        raise LaunchRefused("key_set", 502) from None
    except (jwt.PyJWTError, ValueError, TypeError):  # not JSON, no keys, a malformed set
        raise LaunchRefused("key_set", 502) from None


def _signing_key(platform: LtiPlatform, token: str):
    """The platform's RSA key named by the token's ``kid``: from its key set, fetched again
    once (at most every REFETCH_INTERVAL) when the kid is not in it, so that a platform can
    rotate its keys."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise LaunchRefused("token") from None
    kid = header.get("kid")
    if header.get("alg") != "RS256" or not isinstance(kid, str):
        raise LaunchRefused("token")
    url = platform.jwks_url
    found = [key for key in _keys(url, refresh=False) if key.key_id == kid]
    if not found and time.monotonic() - _REFETCHED.get(url, -REFETCH_INTERVAL) >= REFETCH_INTERVAL:
        _REFETCHED[url] = time.monotonic()
        found = [key for key in _keys(url, refresh=True) if key.key_id == kid]
    if not found or found[0].key_type != "RSA":
        raise LaunchRefused("unknown_key")
    return found[0].key


def _login_of(state: str, cookie_state: str | None) -> tuple[LtiLogin, bool]:
    """The live, unused login of ``state``, and whether the browser's state cookie came with
    it (a cookie that names another state is refused: it is not a lost cookie)."""
    if not state or (cookie_state and not secrets.compare_digest(state, cookie_state)):
        raise LaunchRefused("state")
    login = db.session.get(LtiLogin, _digest(state))
    if login is None or login.expires_at <= utc_now():
        raise LaunchRefused("state")
    return login, bool(cookie_state)


def _claims(token: str, platform: LtiPlatform) -> dict:
    """The token's claims once its signature, issuer, audience and times are checked."""
    try:
        claims = jwt.decode(
            token,
            _signing_key(platform, token),
            algorithms=["RS256"],
            audience=platform.client_id,
            issuer=platform.issuer,
            leeway=CLOCK_LEEWAY,
            options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
        )
    except jwt.ExpiredSignatureError:
        raise LaunchRefused("expired") from None
    except (jwt.InvalidAudienceError, jwt.InvalidIssuerError):
        raise LaunchRefused("audience") from None
    except (jwt.PyJWTError, ValueError, TypeError):  # a bad signature, claim or key
        raise LaunchRefused("token") from None
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if ("azp" in claims or len(audiences) > 1) and claims.get("azp") != platform.client_id:
        raise LaunchRefused("audience")
    return claims


def _text(claims: dict, name: str) -> str | None:
    """The claim ``name`` when it is a string, else None: a list or an object (validly signed
    all the same) is compared with no set of strings, and refused in words as any wrong value."""
    value = claims.get(name)
    return value if isinstance(value, str) else None


def verify_launch(form: Mapping[str, str], cookie_state: str | None) -> Launch:
    """The launch of ``form`` (``id_token`` and ``state``), every check passed; else
    LaunchRefused, with nothing written. The caller then ends the login (finish_login)."""
    login, bound = _login_of(form.get("state", ""), cookie_state)
    platform = db.session.get(LtiPlatform, login.platform_id)
    claims = _claims(form.get("id_token", ""), platform)
    if not secrets.compare_digest(str(claims["nonce"]), login.nonce):
        raise LaunchRefused("nonce")
    if _text(claims, CLAIM + "deployment_id") not in platform.deployment_ids:
        raise LaunchRefused("unknown_deployment", 403)
    message_type = _text(claims, CLAIM + "message_type")
    if claims.get(CLAIM + "version") != "1.3.0" or message_type not in MESSAGE_TYPES:
        raise LaunchRefused("message")
    roles = claims.get(CLAIM + "roles")
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise LaunchRefused("roles")
    teaches = bool(TEACHING_ROLES.intersection(roles))
    if not bound and (teaches or message_type == DEEP_LINKING_REQUEST):
        raise LaunchRefused("unbound", 403)
    custom = claims.get(CLAIM + "custom")
    slug = custom.get(SURVEY_PARAMETER) if isinstance(custom, dict) else None
    settings = claims.get(DEEP_LINKING_SETTINGS)
    settings = settings if isinstance(settings, dict) else {}
    if message_type == DEEP_LINKING_REQUEST and not _can_link(settings):
        raise LaunchRefused("message")
    link = claims.get(CLAIM + "resource_link")
    if message_type == RESOURCE_LINK_REQUEST and not (
        isinstance(link, dict) and isinstance(link.get("id"), str) and link["id"]
    ):
        raise LaunchRefused("message")
    teaches = bool(TEACHING_ROLES.intersection(roles))
    sub = claims.get("sub")
    return Launch(
        platform_id=platform.id,
        deployment_id=claims[CLAIM + "deployment_id"],
        message_type=message_type,
        teaches=teaches,
        survey_slug=slug if isinstance(slug, str) else None,
        deep_link_return_url=settings.get("deep_link_return_url"),
        deep_link_data=settings.get("data"),
        instructor_digest=(
            sub_digest(current_app.secret_key, platform.issuer, sub)
            if teaches and isinstance(sub, str) and sub
            else None
        ),
        bound_to_browser=bound,
    )


def _can_link(settings: dict) -> bool:
    """A deep linking request the tool can answer: it takes a resource link (or says nothing
    of what it takes) and names where to send the answer (return_origin)."""
    accepted = settings.get("accept_types", ["ltiResourceLink"])
    url = settings.get("deep_link_return_url")
    return (
        isinstance(accepted, list)
        and "ltiResourceLink" in accepted
        and isinstance(url, str)
        and return_origin(url) is not None
    )


#: A host name as a URL's origin may give it (no user, no spaces, no other punctuation).
_HOST = re.compile(r"^[A-Za-z0-9.-]{1,253}$")


def return_origin(url: str) -> str | None:
    """The origin (scheme, host and port) of a deep linking return URL, or None when it is not
    an https URL (http on loopback) of a plain host name: the chooser's page allows a form to
    be sent there alone, and its policy header is built from this."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    if parts.username is not None or parts.password is not None or not _HOST.match(host):
        return None
    if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback_host(host)):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def finish_login(state: str) -> None:
    """End the login of ``state``: its launch was accepted, and no other may use it. Refused
    (LaunchRefused) when another request ended it first, as two posts of one launch at once
    would: one of them only is accepted."""
    ended = db.session.execute(
        delete(LtiLogin).where(
            LtiLogin.state_sha256 == _digest(state), LtiLogin.expires_at > utc_now()
        )
    )
    if ended.rowcount != 1:
        raise LaunchRefused("state")
