"""The tool inside a course's page: which origins may show it in a frame, and the headers that
say so.

Canvas, Moodle and Blackboard open a tool in an iframe of the course's page, another site than
the tool's. Every other page of the app refuses to be framed (``frame-ancestors 'none'`` and
``X-Frame-Options: DENY``, survey_app.web.security); the LTI pages, and the survey page a
launch lands on (marked by :data:`LAUNCHED_PARAMETER` in its address), may be framed by the
registered platforms' origins alone: each platform's issuer and login (authorization URL)
origins, and those its operator named (``--frame-origin``). Never ``*``, never another origin.
X-Frame-Options cannot name origins: such a response drops it, and its policy's
``frame-ancestors`` governs (every browser that frames honours it).

The marker in the survey page's address is harmless: anyone may add it, but it lets only the
registered platforms' pages frame the survey, and the page reads nothing else from it.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from flask import Response, current_app, request
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from survey_app.extensions import db
from survey_app.storage.lti_models import LtiPlatform
from survey_app.web.links import is_loopback_host
from survey_app.web.security import CONTENT_SECURITY_POLICY

#: The query parameter (value "1") of the survey page a learner's launch lands on.
LAUNCHED_PARAMETER = "launched"
#: The policy's directive for pages no site may frame.
FRAMED_BY_NONE = "frame-ancestors 'none'"
#: How long a worker keeps the framing origins it read (see :func:`frame_ancestors`).
FRAME_ORIGINS_SECONDS = 10.0
_KEPT_ORIGINS = "survey_app.lti.frame_ancestors"
#: A host name as an origin may give it (no user, no wildcard, no other punctuation): it goes
#: into a header, so nothing else may.
_HOST = re.compile(r"^[A-Za-z0-9.-]{1,253}$")


def origin_of(url: str) -> str | None:
    """The origin (scheme, host, port) of an https URL (http only on loopback) of a plain host
    name, lower-cased; None for anything else."""
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None or not _HOST.match(host):
        return None
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and is_loopback_host(host)):
        return None
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def platform_origins(platform: LtiPlatform) -> set[str]:
    """The origins whose pages may frame the tool for ``platform``."""
    found = {origin_of(platform.issuer), origin_of(platform.auth_url)}
    found.update(platform.named_frame_origins)
    return {origin for origin in found if origin}


def frame_ancestors() -> list[str]:
    """Every registered platform's framing origins, sorted (one policy for all pages).

    Read from the database at most every :data:`FRAME_ORIGINS_SECONDS` by each worker: every
    student a course's launch brings asks for them, a class at once. A platform registered or
    removed by another process (the command line, another server) is framed accordingly within
    that time; by this process, at once (:func:`forget_frame_ancestors`). None registered is
    never kept: the first platform registered frames at once everywhere."""
    kept = current_app.extensions.get(_KEPT_ORIGINS)
    if kept is not None and time.monotonic() < kept[0]:
        return kept[1]
    query = select(LtiPlatform).options(selectinload(LtiPlatform.frame_origins))
    platforms = db.session.execute(query).scalars()
    origins = sorted(set().union(*(platform_origins(platform) for platform in platforms)))
    if origins:
        current_app.extensions[_KEPT_ORIGINS] = (time.monotonic() + FRAME_ORIGINS_SECONDS, origins)
    return origins


def forget_frame_ancestors() -> None:
    """This process reads the platforms' framing origins afresh at the next framed response."""
    current_app.extensions.pop(_KEPT_ORIGINS, None)


def framed_by_platforms(response: Response) -> Response:
    """``response`` allowed in a frame of the registered platforms' pages (none registered:
    still in none); the rest of its policy kept as the view set it."""
    origins = frame_ancestors()
    if not origins:
        return response
    policy = response.headers.get("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers["Content-Security-Policy"] = policy.replace(
        FRAMED_BY_NONE, "frame-ancestors " + " ".join(origins)
    )
    response.headers.pop("X-Frame-Options", None)
    return response


def arrived_in_a_frame() -> bool:
    """Whether this request is a frame's navigation, by the ``Sec-Fetch-Dest`` header browsers
    send on every navigation (Chromium, Firefox, Safari 16.4+): ``iframe`` in the course's page.

    The header, rather than the session cookie missing on the next request: a platform on the
    same site as the tool (lms.school.edu and surveys.school.edu) gets the session cookie in its
    frame, yet the dashboard still refuses to be framed; the header tells both cases apart from
    a window of its own at once, with no extra request. A browser that sends no such header is
    taken to be in a window of its own (as before: the dashboard)."""
    return request.headers.get("Sec-Fetch-Dest", "").lower() in {"iframe", "frame"}


def reached_from_a_launch() -> bool:
    """Whether this request's address carries the mark of a learner's launch."""
    return request.args.get(LAUNCHED_PARAMETER) == "1"
