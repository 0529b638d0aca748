"""Serving with gunicorn, the production server."""

from __future__ import annotations

from gunicorn.app.base import BaseApplication


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
            "loglevel": "info",
            "timeout": 30,
            "graceful_timeout": 10,
            # Each worker builds its own app (and database pool) after the fork.
            "preload_app": False,
            # Several servers may run side by side (tests, benchmarks); none needs the socket.
            "control_socket_disable": True,
        }
    ).run()
