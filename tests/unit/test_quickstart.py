"""`survey-app quickstart`: a database, an analyst who can sign in, and an open sample survey."""

from __future__ import annotations

import re

import survey_app.server
from survey_app.extensions import db
from survey_app.surveys import SAMPLE_SURVEY


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
