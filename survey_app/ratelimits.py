"""Rate limits on submissions and on sign-in, per client address (a keyed hash of it).

Each app gets its own limiter, and only when limits are on: with
``SURVEY_APP_RATELIMIT_ENABLED=false`` nothing of the limiter is left in the request path.
"""

from __future__ import annotations

import hashlib

from flask import Flask, current_app, request
from flask_limiter import Limiter

#: How long a worker waits on the shared storage (Redis) before counting in memory instead.
STORAGE_TIMEOUT_SECONDS = 0.5

#: The limited endpoints: the setting that holds each one's limit, and the methods it counts.
LIMITED_ENDPOINTS = {
    "api.submit_response": ("SUBMISSION_RATE_LIMIT", None),
    "analyst.login": ("LOGIN_RATE_LIMIT", ["POST"]),
}


def client_bucket() -> str:
    """The rate-limit key of a client: a keyed hash of its address, never the address itself.

    The limiter's storage then holds no client address, and the hash cannot be reversed
    without the app's secret key.
    """
    address = request.remote_addr or "unknown"
    secret = current_app.config["SECRET_KEY"].encode("utf-8")
    return hashlib.blake2b(address.encode("utf-8"), key=secret[:64], digest_size=12).hexdigest()


def register(app: Flask) -> Limiter | None:
    """Apply the limits to the app's views (after its blueprints are registered)."""
    if not app.config["RATELIMIT_ENABLED"]:
        return None
    # When the shared storage (Redis) cannot be reached, each worker goes on counting in its
    # own memory, and returns to the storage once it answers: a lecture never stops on it.
    # Nor does it hang on a storage that accepts connections but never answers.
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    if not str(app.config.get("RATELIMIT_STORAGE_URI", "memory://")).startswith("memory"):
        app.config.setdefault(
            "RATELIMIT_STORAGE_OPTIONS",
            {
                "socket_connect_timeout": STORAGE_TIMEOUT_SECONDS,
                "socket_timeout": STORAGE_TIMEOUT_SECONDS,
            },
        )
    limiter = Limiter(key_func=client_bucket, default_limits=[], headers_enabled=True)
    limiter.init_app(app)
    # The limits are read once, here: the settings do not change while the app runs.
    for endpoint, (setting, methods) in LIMITED_ENDPOINTS.items():
        limit = limiter.limit(app.config[setting], methods=methods)
        app.view_functions[endpoint] = limit(app.view_functions[endpoint])
    return limiter
