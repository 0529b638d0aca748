"""The development server (`survey-app run`) logs no client address either."""

from __future__ import annotations

import logging


def test_development_server_request_lines_are_dropped(app, caplog):
    from werkzeug.serving import WSGIRequestHandler

    class FakeHandler(WSGIRequestHandler):
        def __init__(self):  # no socket: only the logging path is exercised
            self.client_address = ("203.0.113.7", 50000)
            self.requestline = "GET /s/abc HTTP/1.1"
            self.command = "GET"
            self.path = "/s/abc"
            self.request_version = "HTTP/1.1"

    with caplog.at_level(logging.INFO, logger="werkzeug"):
        FakeHandler().log_request(200)
        logging.getLogger("werkzeug").info("Running on %s", "http://127.0.0.1:5000")
    assert "203.0.113.7" not in caplog.text
    assert "Running on http://127.0.0.1:5000" in caplog.text
