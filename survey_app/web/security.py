"""Headers on responses: what the browser may load, frame or send elsewhere (every response),
and what no cache may keep (:func:`never_cached`, the one rule the pages and views that need it
use)."""

from __future__ import annotations

import logging
import re

from flask import Flask, Response, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ]
)

#: Sent on every response, unless the view set the header itself.
SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
)


def never_cached(response: Response) -> Response:
    """``response`` marked no-store: no browser or proxy cache keeps a copy.

    For what is the professor's alone (results, analyst pages carrying session tokens, the
    projector's and the lesson's figures) and for what is shown once (a page of codes): the
    back button after signing out, or after printing the slips, shows nothing of it. Blueprints
    take it as their after_request; a view of a blueprint that caches some of its answers
    (the API) applies it to the response it returns.
    """
    response.headers["Cache-Control"] = "no-store"
    return response


class SessionInterface(SecureCookieSessionInterface):
    """Marks the session cookie Secure when the request came over HTTPS (or when told always).

    Plain HTTP on loopback keeps working for local use; behind a TLS proxy the cookie is Secure
    once the proxy is trusted (SURVEY_APP_TRUSTED_PROXIES) to report X-Forwarded-Proto.
    """

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config.get("SESSION_COOKIE_SECURE_ALWAYS")) or request.is_secure

    # Respondents and API clients send no session cookie: their requests skip the signer.
    def open_session(self, app: Flask, request):
        if "HTTP_COOKIE" not in request.environ:
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app: Flask, session, response) -> None:
        if not session and not session.modified:  # no cookie to set or to clear
            if session.accessed:
                response.vary.add("Cookie")
            return
        super().save_session(app, session, response)


#: The development server's request line: "<client address> - - [<date>] ...".
_REQUEST_LINE = re.compile(r"^\S+ - - \[")


class _NoRequestLines(logging.Filter):
    """Drops the development server's request lines, which begin with the client's address."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and _REQUEST_LINE.match(record.msg))


def _keep_addresses_out_of_logs() -> None:
    werkzeug_log = logging.getLogger("werkzeug")
    if not any(isinstance(f, _NoRequestLines) for f in werkzeug_log.filters):
        werkzeug_log.addFilter(_NoRequestLines())


def register(app: Flask) -> None:
    _keep_addresses_out_of_logs()
    app.session_interface = SessionInterface()
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)

    @app.after_request
    def _security_headers(response):
        headers = response.headers
        present = {name.lower() for name in headers.keys()}
        # X-Frame-Options cannot name origins: a page whose policy lets some frame it (an LTI
        # page, in the course's frame: survey_app.lti.framing) goes without it.
        policy = headers.get("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        if "frame-ancestors " in policy and "frame-ancestors 'none'" not in policy:
            present.add("x-frame-options")
        for name, value in SECURITY_HEADERS:
            if name.lower() not in present:
                headers.add(name, value)
        # Only over HTTPS (directly, or through a trusted proxy): a browser ignores it over
        # plain HTTP, and a local install on loopback must keep working without TLS.
        max_age = app.config.get("HSTS_MAX_AGE", 0)
        if request.is_secure and max_age > 0 and "strict-transport-security" not in present:
            headers.add("Strict-Transport-Security", f"max-age={max_age}")
        return response
