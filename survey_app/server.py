"""Serving with gunicorn, the production server."""

from __future__ import annotations

import logging
import re

from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

#: How gunicorn names a client when it refuses a broken request ("Invalid request from
#: ip=203.0.113.7: Invalid HTTP request line: ..."); IPv6 addresses hold colons, not ": ".
_CLIENT_ADDRESS = re.compile(r"\bip=\S*?: ")


class _NoClientAddress(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "ip=" in record.msg:
            record.msg = _CLIENT_ADDRESS.sub("ip=[not logged]: ", record.msg)
        return True


class PrivateLogger(Logger):
    """gunicorn's logger, but the error log names no client address (SECURITY.md)."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        if not any(isinstance(f, _NoClientAddress) for f in self.error_log.filters):
            self.error_log.addFilter(_NoClientAddress())


class SurveyServer(BaseApplication):
    """Gunicorn running the app factory in each worker."""

    def __init__(self, options: dict):
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        from survey_app import create_app

        return create_app()


def serve(host: str, port: int, workers: int) -> None:
    """Serve until interrupted. No access log: it would record client addresses."""
    SurveyServer(
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "accesslog": None,
            "errorlog": "-",
            "logger_class": PrivateLogger,
            "loglevel": "info",
            "timeout": 30,
            "graceful_timeout": 10,
            # Each worker builds its own app (and database pool) after the fork.
            "preload_app": False,
            # Several servers may run side by side (tests, benchmarks); none needs the socket.
            "control_socket_disable": True,
        }
    ).run()
