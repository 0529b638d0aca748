"""Headers on every response: what the browser may load, frame or send elsewhere."""

from __future__ import annotations

import logging
import re

from flask import Flask, request
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


class SessionInterface(SecureCookieSessionInterface):
    """Marks the session cookie Secure when the request came over HTTPS (or when told always).

    Plain HTTP on loopback keeps working for local use; behind a TLS proxy the cookie is Secure
    once the proxy is trusted (SURVEY_APP_TRUSTED_PROXIES) to report X-Forwarded-Proto.
    """

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config.get("SESSION_COOKIE_SECURE_ALWAYS")) or request.is_secure


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
        headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("Referrer-Policy", "no-referrer")
        headers.setdefault("X-Frame-Options", "DENY")
        headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        return response
