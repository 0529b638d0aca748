"""The LTI pages' own cookies (a login's state, the link page's and the choice's ties to the
browser): set, read and deleted through one helper, so that a deletion has the attributes of
what it deletes (a partitioned cookie is deleted only by a partitioned deletion).

They go with the platform's cross-site form post: over HTTPS they are SameSite=None, hence
Secure, and Partitioned (CHIPS), so that a browser blocking third-party cookies still keeps
them for the course's frame that set them. Over HTTPS they are also named with the
``__Host-`` prefix, which a browser accepts only from this very host, Secure, with Path=/ and no
Domain: another host under the same parent domain cannot plant one (cookie tossing), which would
otherwise hand a victim's browser the attacker's state (login CSRF) or link page. Over plain HTTP
(a local install, the tests) no prefix is possible: they keep their bare names, SameSite=Lax.
"""

from __future__ import annotations

from flask import current_app, request

#: What a browser requires of a cookie whose name starts so: set by this host alone, Secure,
#: Path=/ and no Domain.
HOST_PREFIX = "__Host-"


def over_https() -> bool:
    """Whether this request's cookies are Secure (HTTPS, or an operator's say-so behind a
    proxy)."""
    return bool(current_app.config.get("SESSION_COOKIE_SECURE_ALWAYS")) or request.is_secure


def cookie_name(name: str) -> str:
    """The name the cookie ``name`` has on this request: ``__Host-`` prefixed over HTTPS."""
    return HOST_PREFIX + name if over_https() else name


def read_cookie(name: str) -> str | None:
    """The browser's cookie ``name`` (under its prefixed name over HTTPS), or None."""
    return request.cookies.get(cookie_name(name))


def set_cookie(response, name: str, value: str, seconds: int, path: str) -> None:
    """Set the cookie ``name`` on ``response`` for ``seconds``; ``path`` holds over plain HTTP
    only (the prefix requires Path=/)."""
    secure = over_https()
    response.set_cookie(
        cookie_name(name),
        value,
        max_age=seconds,
        path="/" if secure else path,
        secure=secure,
        httponly=True,
        samesite="None" if secure else "Lax",
        partitioned=secure,
    )


def delete_cookie(response, name: str, path: str) -> None:
    """Delete the cookie ``name`` with the attributes it was set with."""
    set_cookie(response, name, "", 0, path)
