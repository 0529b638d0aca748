"""Serving with gunicorn, the production server."""

from __future__ import annotations

import ipaddress
import logging
import multiprocessing
import os
import re
import socket

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


def default_workers() -> int:
    """Gunicorn's rule of thumb: two workers a core, plus one."""
    return 2 * multiprocessing.cpu_count() + 1


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


#: Bind addresses that mean "every interface": no one can reach the app by them.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})
LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1"})


def lan_address() -> str:
    """This machine's address on its local network (the interface of its default route).

    A UDP socket "connected" to a documentation address sends nothing; it only makes the
    kernel choose the interface it would use. Loopback when there is no network.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def public_base(host: str, port: int) -> str:
    """The address people reach a server bound to ``host:port`` at (never 0.0.0.0).

    ``SURVEY_APP_PUBLIC_URL`` when it is set; otherwise built from the bind address, with the
    machine's LAN address for a wildcard bind.
    """
    configured = os.environ.get("SURVEY_APP_PUBLIC_URL", "").strip()
    if configured:
        return configured.rstrip("/")
    name = lan_address() if host in WILDCARD_HOSTS else host.strip("[]")
    try:
        if ipaddress.ip_address(name).version == 6:
            name = f"[{name}]"
    except ValueError:
        pass  # a host name
    return f"http://{name}:{port}"


def serve(host: str, port: int, workers: int) -> None:
    """Serve until interrupted. No access log: it would record client addresses.

    Links the app shows are built from ``SURVEY_APP_PUBLIC_URL``, never from a request's Host
    header. Unset, a server bound to a network address (or to all of them: the LAN address)
    takes that address; one bound to loopback sits behind a proxy or serves this machine, and
    the app shows whole links only to requests made on loopback (see survey_app.web.links).
    X-Forwarded-* headers are left to the app, which trusts them only when
    ``SURVEY_APP_TRUSTED_PROXIES`` says so.
    """
    if host.strip("[]") not in LOOPBACK_BINDS:
        os.environ["SURVEY_APP_PUBLIC_URL"] = public_base(host, port)
    SurveyServer(
        {
            "bind": f"{host}:{port}",
            # gunicorn would otherwise apply X-Forwarded-Proto (and more) from any client on
            # loopback; the app's ProxyFix, set by SURVEY_APP_TRUSTED_PROXIES, decides instead.
            "forwarded_allow_ips": "",
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
