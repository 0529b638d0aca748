"""`survey-app quickstart`: a database, an analyst who can sign in, and an open sample survey."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3

import pytest

import survey_app.server
from survey_app.extensions import db
from survey_app.surveys.services import SAMPLE_SURVEY


def test_quickstart_prints_working_credentials_and_a_sample_survey(app, runner, monkeypatch):
    served = {}
    monkeypatch.setattr(survey_app.server, "serve", lambda **options: served.update(options))
    with app.app_context():
        db.drop_all()

    result = runner.invoke(args=["quickstart", "--port", "5055"])

    assert result.exit_code == 0, result.output
    assert served == {"host": "127.0.0.1", "port": 5055, "workers": 2}
    email = re.search(r"email:\s+(\S+)", result.output).group(1)
    password = re.search(r"password:\s+(\S+)", result.output).group(1)
    survey_path = re.search(r"http://127\.0\.0\.1:5055(/s/\S+)", result.output).group(1)
    assert "http://127.0.0.1:5055/analyst/login" in result.output

    client = app.test_client()
    assert client.get(survey_path).status_code == 200  # the sample survey is open
    login_page = client.get("/analyst/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', login_page).group(1)
    signed_in = client.post(
        "/analyst/login", data={"email": email, "password": password, "csrf_token": token}
    )
    assert signed_in.status_code == 302
    assert SAMPLE_SURVEY["title"] in client.get("/analyst/").get_data(as_text=True)


def test_quickstart_again_gives_a_new_password_and_keeps_one_sample(app, runner, monkeypatch):
    monkeypatch.setattr(survey_app.server, "serve", lambda **options: None)
    with app.app_context():
        db.drop_all()
    first = runner.invoke(args=["quickstart"])
    second = runner.invoke(args=["quickstart"])
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    passwords = [re.search(r"password:\s+(\S+)", r.output).group(1) for r in (first, second)]
    assert passwords[0] != passwords[1]
    links = [re.search(r"(/s/\S+)", r.output).group(1) for r in (first, second)]
    assert links[0] == links[1]


def wal_checkpoint(database: str) -> tuple[int, int, int]:
    """``PRAGMA wal_checkpoint(TRUNCATE)`` from a connection of its own: (busy, log, done)."""
    # A short busy wait: a reader that holds the log would hold it for the whole server run.
    with contextlib.closing(sqlite3.connect(database, timeout=0.2)) as connection:
        return connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()


@pytest.mark.sqlite
@pytest.mark.parametrize("runs", [1, 2], ids=["new sample", "sample already there"])
def test_quickstart_holds_no_database_connection_while_it_serves(
    app, runner, monkeypatch, database_url, runs
):
    """The server runs for hours: a read transaction left open by the setup would keep SQLite
    from emptying its write-ahead log, which holds every write in arrival order."""
    assert database_url.startswith("sqlite:")  # marked sqlite: in every pass
    database = database_url.removeprefix("sqlite:///")
    seen = {}

    def serve(**_options) -> None:
        seen["checked_out"] = db.engine.pool.checkedout()
        seen["in_transaction"] = db.session().in_transaction()
        with sqlite3.connect(database) as writer:  # a submission while the server runs
            writer.execute("UPDATE surveys SET intro = intro")
        seen["checkpoint"] = wal_checkpoint(database)
        seen["wal_bytes"] = os.path.getsize(database + "-wal")

    with app.app_context():
        db.drop_all()
    for _ in range(runs):
        monkeypatch.setattr(survey_app.server, "serve", lambda **options: None)
        assert runner.invoke(args=["quickstart"]).exit_code == 0
    monkeypatch.setattr(survey_app.server, "serve", serve)
    result = runner.invoke(args=["quickstart"])
    assert result.exit_code == 0, result.output
    assert seen["checked_out"] == 0 and not seen["in_transaction"]
    assert seen["checkpoint"][0] == 0, f"checkpoint busy: {seen['checkpoint']}"
    assert seen["wal_bytes"] == 0
