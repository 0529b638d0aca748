"""What a client cannot steer and what the disk does not give away: links never come from the
Host header, the database files are their owner's alone, and survey text holds no hidden
characters."""

from __future__ import annotations

import os
import re
import stat

import pytest

import survey_app.server
from survey_app import create_app
from survey_app.extensions import db
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import parse_definition
from tests.conftest import SAMPLE_DEFINITION, TEST_SECRET_KEY

LINK = re.compile(r'id="respondent-link" value="([^"]*)"')


def dashboard_at(client, slug: str, host: str):
    """The dashboard asked for with ``host`` in the Host header, with the client's session."""
    cookie = client.get_cookie("session").value
    other = client.application.test_client()
    other.set_cookie("session", cookie, domain=host.split(":")[0])
    page = other.get(f"/analyst/surveys/{slug}", base_url=f"http://{host}")
    assert page.status_code == 200
    return page


def respondent_link(client, slug: str, host: str) -> str:
    return LINK.search(dashboard_at(client, slug, host).text).group(1)


@pytest.fixture
def signed_in(client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    return client


# --------------------------------------------------------------------------- hosts


def test_a_forged_host_never_makes_the_link(signed_in, survey):
    slug = survey[0]
    link = respondent_link(signed_in, slug, "evil.example")
    assert "evil.example" not in link
    assert link == f"/s/{slug}"
    assert "SURVEY_APP_PUBLIC_URL" in dashboard_at(signed_in, slug, "evil.example").text


def test_the_configured_public_url_makes_the_link(app, signed_in, survey):
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    slug = survey[0]
    for host in ("evil.example", "localhost"):
        assert respondent_link(signed_in, slug, host) == f"https://surveys.example.edu/s/{slug}"


def test_a_loopback_request_gets_a_whole_local_link(signed_in, survey):
    slug = survey[0]
    assert respondent_link(signed_in, slug, "127.0.0.1:5000") == f"http://127.0.0.1:5000/s/{slug}"


def test_trusted_hosts_refuse_other_hosts(app, client):
    app.config["TRUSTED_HOSTS"] = ["surveys.example.edu"]
    assert client.get("/analyst/login", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/analyst/login", headers={"Host": "surveys.example.edu"}).status_code == 200


@pytest.mark.parametrize(
    "value", ["surveys.example.edu", "ftp://x.example", "https://", "http://a/?q"]
)
def test_a_bad_public_url_is_refused_at_start(monkeypatch, tmp_path, value):
    from survey_app.config import ConfigurationError

    monkeypatch.setenv("SURVEY_APP_PUBLIC_URL", value)
    with pytest.raises(ConfigurationError, match="SURVEY_APP_PUBLIC_URL"):
        create_app({"SECRET_KEY": TEST_SECRET_KEY, "SQLALCHEMY_DATABASE_URI": "sqlite://"})


def test_quickstart_on_every_interface_prints_the_lan_address(app, runner, monkeypatch):
    monkeypatch.delenv("SURVEY_APP_PUBLIC_URL", raising=False)
    monkeypatch.setattr(survey_app.server, "serve", lambda **options: None)
    monkeypatch.setattr(survey_app.server, "lan_address", lambda: "192.0.2.10")
    with app.app_context():
        db.drop_all()
    result = runner.invoke(args=["quickstart", "--host", "0.0.0.0", "--port", "5055"])
    assert result.exit_code == 0, result.output
    assert "0.0.0.0" not in result.output
    assert "http://192.0.2.10:5055/analyst/login" in result.output
    assert re.search(r"http://192\.0\.2\.10:5055/s/\S+", result.output)


def test_lan_address_is_an_address_of_this_machine():
    address = survey_app.server.lan_address()
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)
    assert address != "0.0.0.0"


# --------------------------------------------------------------------------- files


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_database_files_and_the_key_are_the_owners_alone(tmp_path, monkeypatch):
    monkeypatch.delenv("SURVEY_APP_SECRET_KEY", raising=False)
    monkeypatch.delenv("SURVEY_APP_DATABASE_URL", raising=False)
    monkeypatch.setenv("SURVEY_APP_INSTANCE_PATH", str(tmp_path / "instance"))
    old_umask = os.umask(0o022)  # a usual umask, which would leave files world-readable
    try:
        app = create_app({"TESTING": True})
        with app.app_context():
            db.create_all()
            parse = parse_definition(SAMPLE_DEFINITION)
            assert parse.title  # a write, so that the log files exist
            db.session.execute(db.text("CREATE TABLE touched (x INTEGER)"))
            db.session.commit()
            database = db.engine.url.database
            for path in (database, database + "-wal", database + "-shm"):
                assert os.path.exists(path), path
                assert mode(path) == 0o600, (path, oct(mode(path)))
            db.engine.dispose()
    finally:
        os.umask(old_umask)
    assert mode(tmp_path / "instance" / "secret_key") == 0o600
    assert mode(tmp_path / "instance") == 0o700


def test_an_existing_readable_database_file_is_narrowed(tmp_path):
    database = tmp_path / "old.sqlite3"
    database.write_bytes(b"")
    os.chmod(database, 0o644)
    create_app(
        {
            "TESTING": True,
            "SECRET_KEY": TEST_SECRET_KEY,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}",
        }
    )
    assert mode(database) == 0o600


# --------------------------------------------------------------------------- survey text


def definition_with(title: str = "Title", question: str = "Question?", option: str = "One"):
    return {
        "title": title,
        "flip_probability": 0.25,
        "questions": [{"text": question, "type": "choice", "options": [option, "Two"]}],
    }


HIDDEN = {
    "zero-width space": "Ye\u200bs",
    "right-to-left override": "\u202eOne",
    "byte-order mark": "\ufeffOne",
    "control character": "One\x07",
    "tab": "One\tTwo",
    "line break": "One\nTwo",
    "hangul filler": "\u3164",
    "private use": "\ue000One",
    "line separator": "One\u2028",
    "lone zero-width joiner": "O\u200dne",
}


@pytest.mark.parametrize("where", ["title", "question", "option"])
@pytest.mark.parametrize("name", [name for name in HIDDEN if name != "line break"])
def test_hidden_characters_are_refused(where, name):
    text = HIDDEN[name]
    with pytest.raises(SurveyDefinitionError, match="invisible or control character"):
        parse_definition(definition_with(**{where: text}))


def test_line_breaks_are_refused_in_titles_and_options_only():
    for where in ("title", "option"):
        with pytest.raises(SurveyDefinitionError, match="U\\+000A"):
            parse_definition(definition_with(**{where: HIDDEN["line break"]}))
    parse_definition(definition_with(question="First line\nsecond line?"))
    parse_definition({**definition_with(), "intro": "One paragraph.\r\n\r\nAnother."})


@pytest.mark.parametrize(
    "text", ["Très bien", "日本語", "😀 yes", "👩\u200d💻 coder", "❤\ufe0f\u200d🔥", "No\u00a0way"]
)
def test_ordinary_text_and_emoji_are_accepted(text):
    parse_definition(definition_with(option=text))


def test_the_builder_refuses_hidden_characters_and_keeps_what_was_typed(app, signed_in):
    token = re.search(
        r'name="csrf_token"[^>]*?value="([^"]+)"', signed_in.get("/analyst/surveys/new").text
    ).group(1)
    response = signed_in.post(
        "/analyst/surveys/new",
        data={
            "csrf_token": token,
            "title": "Study\u200b habits",
            "flip_probability": "0.25",
            "question_text": "Did you study?",
            "question_type": "yes_no",
            "action": "save",
        },
    )
    assert response.status_code == 400
    assert "invisible or control character" in response.text
    assert "Did you study?" in response.text
