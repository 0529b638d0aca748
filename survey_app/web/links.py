"""Absolute links to the app, built from its configured public address, never from a request.

A link shown to a professor (to hand to a class) or printed must not come from the request's
Host header, which any client can set. With ``SURVEY_APP_PUBLIC_URL`` set, links start with it;
without it, only a request to this machine's loopback names is trusted to name the app (local
use), and otherwise the link is the path alone.
"""

from __future__ import annotations

from flask import current_app, has_request_context, request, url_for

#: Host names that can only have come from this machine.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def is_loopback_host(host: str | None) -> bool:
    """True when ``host`` (a URL's host name) can only name this machine: a loopback name or
    any address of 127.0.0.0/8."""
    return bool(host) and (host in LOOPBACK_HOSTS or host.startswith("127."))


def path_of(endpoint: str, **values: object) -> str:
    """The path of ``endpoint``, inside a request or outside one (a command of the CLI)."""
    if has_request_context():
        return url_for(endpoint, **values)
    root = current_app.config.get("APPLICATION_ROOT") or "/"
    adapter = current_app.url_map.bind("localhost", script_name=root)
    return adapter.build(endpoint, values)


def external_url(endpoint: str, base: str | None = None, **values: object) -> str:
    """The absolute address of ``endpoint`` as people outside should use it.

    ``base``: the address the app is reached at, when the caller knows it (quickstart, which
    serves at the address it prints); else the configured one.
    """
    path = path_of(endpoint, **values)
    base = base or current_app.config.get("PUBLIC_URL")
    if base:
        return base.rstrip("/") + path
    if not has_request_context():
        return path  # a command: no request names the app
    if request.host.rsplit(":", 1)[0] in LOOPBACK_HOSTS or request.host in LOOPBACK_HOSTS:
        return request.host_url.rstrip("/") + path
    return path


def has_public_url() -> bool:
    """True when the app knows the address people reach it at."""
    return bool(current_app.config.get("PUBLIC_URL"))


def is_absolute(link: str) -> bool:
    """True for a whole address a phone can open (and a QR code can carry), False for a path."""
    return link.startswith(("http://", "https://"))
