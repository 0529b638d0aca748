"""The learning platforms an operator registered to launch the tool, and their checks.

A platform is named by its issuer and the client id it gave the tool; it has one or more
deployment ids, its login (authorization), token and key-set URLs. Everything is checked when it
is registered, so a launch never meets a platform it cannot use.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from sqlalchemy import select

from survey_app.extensions import db
from survey_app.lti.framing import forget_frame_ancestors, origin_of
from survey_app.storage.lti_models import MAX_LTI_TEXT, LtiDeployment, LtiFrameOrigin, LtiPlatform
from survey_app.web.links import is_loopback_host


class PlatformError(ValueError):
    """A platform that cannot be registered or found, with what is wrong, in words."""


def _https_url(name: str, value: str) -> str:
    """An absolute https URL (http only on loopback: a platform on the same machine)."""
    text = (value or "").strip()
    parts = urlsplit(text)
    loopback = is_loopback_host(parts.hostname)
    scheme_ok = parts.scheme == "https" or (parts.scheme == "http" and loopback)
    if not scheme_ok or not parts.netloc or len(text) > MAX_LTI_TEXT:
        raise PlatformError(f"{name} must be an https URL, got {value!r}")
    return text


def _identifier(name: str, value: str) -> str:
    text = (value or "").strip()
    if not text or len(text) > MAX_LTI_TEXT or any(ord(char) < 32 for char in text):
        raise PlatformError(f"{name} must be a non-empty line of text, got {value!r}")
    return text


def _frame_origin(value: str) -> str:
    """An origin whose pages may frame the tool: https (http only on loopback), a plain host
    name, no path, query or fragment (a frame's ancestors are named by origin alone)."""
    text = (value or "").strip()
    origin = origin_of(text)
    parts = urlsplit(text)
    if origin is None or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise PlatformError(
            f"--frame-origin must be an https origin such as https://school.instructure.com "
            f"(no path), got {value!r}"
        )
    return origin


def find_platform(issuer: str, client_id: str | None = None) -> LtiPlatform | None:
    """The platform of ``issuer`` (and ``client_id``, which is needed when the issuer has
    several); None when there is none, or several and no client id to choose."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id is not None:
        query = query.where(LtiPlatform.client_id == client_id)
    found = db.session.execute(query.limit(2)).scalars().all()
    return found[0] if len(found) == 1 else None


def add_platform(
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    urls: dict[str, str],
    frame_origins: Sequence[str] = (),
) -> LtiPlatform:
    """Register a platform (or add deployment ids and frame origins to one registered with the
    same issuer and client id, its URLs then updated); the caller commits."""
    issuer = _https_url("--issuer", issuer)
    client_id = _identifier("--client-id", client_id)
    if not deployment_ids:
        raise PlatformError("--deployment-id is needed at least once")
    deployments = sorted({_identifier("--deployment-id", d) for d in deployment_ids})
    origins = sorted({_frame_origin(origin) for origin in frame_origins})
    checked = {
        name: _https_url(f"--{name.replace('_', '-')}", urls.get(name, ""))
        for name in ("auth_url", "token_url", "jwks_url")
    }
    platform = find_platform(issuer, client_id)
    if platform is None:
        platform = LtiPlatform(issuer=issuer, client_id=client_id, **checked)
        db.session.add(platform)
    else:
        for name, url in checked.items():
            setattr(platform, name, url)
    known = set(platform.deployment_ids)
    new = [deployment for deployment in deployments if deployment not in known]
    platform.deployments.extend(LtiDeployment(deployment_id=deployment) for deployment in new)
    named = set(platform.named_frame_origins)
    platform.frame_origins.extend(
        LtiFrameOrigin(origin=origin) for origin in origins if origin not in named
    )
    db.session.flush()
    forget_frame_ancestors()
    return platform


def remove_platform(issuer: str, client_id: str) -> None:
    """Forget a platform and its deployments (its launches are refused from then on)."""
    platform = find_platform(issuer.strip(), client_id.strip())
    if platform is None:
        raise PlatformError(f"no platform is registered as {issuer!r} with client id {client_id!r}")
    db.session.delete(platform)
    forget_frame_ancestors()


def all_platforms() -> list[LtiPlatform]:
    return list(
        db.session.execute(
            select(LtiPlatform).order_by(LtiPlatform.issuer, LtiPlatform.client_id)
        ).scalars()
    )
