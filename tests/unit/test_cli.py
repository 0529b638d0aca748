"""The survey-app commands: accounts, surveys from JSON and TOML files, status, tables."""

from __future__ import annotations

import json
import re
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import func, inspect, select

from survey_app.accounts.services import find_analyst, verify_password
from survey_app.extensions import db
from survey_app.storage.models import Analyst, Question, Survey, SurveyStatus

PASSWORD = "a long and secret passphrase"

VALID_SURVEY = {
    "title": "Academic integrity",
    "intro": "Your browser randomizes your answers.",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
    ],
}

VALID_TOML = """\
title = "Lab safety"
intro = "Randomized in your browser."
flip_probability = 0.2

[[questions]]
text = "Have you ever skipped the goggles?"
type = "yes_no"

[[questions]]
text = "Which lab?"
type = "choice"
options = ["Chemistry", "Physics"]
"""

SLUG = re.compile(r"^[A-Za-z0-9_-]{22,}$")


def count(app, model) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(model)).scalar_one()


def survey_by_slug(app, slug: str) -> Survey | None:
    with app.app_context():
        survey = db.session.execute(select(Survey).where(Survey.slug == slug)).scalar_one_or_none()
        if survey is not None:
            db.session.expunge(survey)
        return survey


def status_of(app, slug: str) -> SurveyStatus:
    with app.app_context():
        return db.session.execute(select(Survey.status).where(Survey.slug == slug)).scalar_one()


def assert_one_line_error(result, *fragments: str) -> str:
    """Exit status 2, one line on standard error naming what is wrong, and no traceback."""
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in result.output
    return lines[0]


def submission(question_ids: list[int]) -> str:
    return json.dumps(
        {"submission_id": str(uuid.uuid4()), "answers": {str(q): 0 for q in question_ids}}
    )


# --------------------------------------------------------------------------- create-analyst


def test_create_analyst_reads_the_password_from_stdin(app, runner):
    result = runner.invoke(
        args=["create-analyst", "Dean@Example.EDU", "--password-stdin"], input=PASSWORD + "\n"
    )
    assert result.exit_code == 0, result.output
    assert "dean@example.edu" in result.stdout
    with app.app_context():
        analyst = find_analyst("dean@example.edu")
        assert analyst is not None
        assert analyst.email == "dean@example.edu"
        assert analyst.password_hash.startswith("scrypt:")
        assert verify_password(analyst, PASSWORD)
        assert not verify_password(analyst, PASSWORD + "x")
        row = db.session.execute(sa.select(Analyst.__table__).where(Analyst.id == analyst.id)).one()
        assert all(PASSWORD not in str(value) for value in row)
        # Nor anywhere else in the database.
        for table in db.metadata.sorted_tables:
            for stored in db.session.execute(sa.select(table)).all():
                assert all(PASSWORD not in str(value) for value in stored)
    assert PASSWORD not in result.output


def test_create_analyst_prompts_for_the_password_twice(app, runner):
    result = runner.invoke(
        args=["create-analyst", "ta@example.edu"], input=f"{PASSWORD}\n{PASSWORD}\n"
    )
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert verify_password(find_analyst("ta@example.edu"), PASSWORD)


@pytest.mark.parametrize(
    ("email", "password", "fragment"),
    [
        ("short@example.edu", "short", "password"),
        ("short@example.edu", "", "password"),
        ("not-an-email", PASSWORD, "email"),
        ("two@@example.edu", PASSWORD, "email"),
        ("spaces in@example.edu", PASSWORD, "email"),
        ("", PASSWORD, "email"),
    ],
    ids=["short-password", "empty-password", "no-at", "two-ats", "space", "empty-email"],
)
def test_create_analyst_refuses_bad_input(app, runner, email, password, fragment):
    before = count(app, Analyst)
    result = runner.invoke(
        args=["create-analyst", email, "--password-stdin"], input=password + "\n"
    )
    assert_one_line_error(result, fragment)
    assert count(app, Analyst) == before


def test_create_analyst_refuses_a_duplicate(app, runner, analyst):
    with app.app_context():
        original_hash = find_analyst(analyst).password_hash
    before = count(app, Analyst)
    result = runner.invoke(
        args=["create-analyst", analyst.upper(), "--password-stdin"], input=PASSWORD + "\n"
    )
    assert_one_line_error(result, "email", "already exists")
    assert count(app, Analyst) == before
    with app.app_context():
        assert find_analyst(analyst).password_hash == original_hash


# --------------------------------------------------------------------------- create-survey


@pytest.mark.parametrize("open_now", [False, True], ids=["draft", "open"])
def test_create_survey_from_json(app, runner, client, analyst, tmp_path, open_now):
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(VALID_SURVEY), encoding="utf-8")
    args = ["create-survey", str(path), "--owner", analyst] + (["--open"] if open_now else [])

    result = runner.invoke(args=args)

    assert result.exit_code == 0, (result.output, result.exception)
    slug = result.stdout.rstrip("\n").splitlines()[-1]
    assert SLUG.match(slug), slug
    survey = survey_by_slug(app, slug)
    assert survey is not None
    assert survey.title == "Academic integrity"
    assert survey.intro == "Your browser randomizes your answers."
    assert survey.flip_probability == 0.25
    assert survey.status == (SurveyStatus.OPEN if open_now else SurveyStatus.DRAFT)
    with app.app_context():
        questions = (
            db.session.execute(
                select(Question).join(Survey).where(Survey.slug == slug).order_by(Question.position)
            )
            .scalars()
            .all()
        )
        assert [(q.text, q.kind, q.choices) for q in questions] == [
            ("Have you ever copied homework?", "yes_no", None),
            ("How often?", "choice", ["Never", "Once", "Often"]),
        ]
        assert find_analyst(analyst).id == survey.owner_id
    assert client.get(f"/s/{slug}").status_code == (200 if open_now else 404)


def test_create_survey_from_toml(app, runner, client, analyst, tmp_path):
    path = tmp_path / "survey.toml"
    path.write_text(VALID_TOML, encoding="utf-8")

    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst, "--open"])

    assert result.exit_code == 0, (result.output, result.exception)
    slug = result.stdout.splitlines()[-1]
    assert SLUG.match(slug), slug
    survey = survey_by_slug(app, slug)
    assert survey.title == "Lab safety"
    assert survey.flip_probability == 0.2
    assert survey.status == SurveyStatus.OPEN
    definition = client.get(f"/api/v1/surveys/{slug}").get_json()
    assert [q["type"] for q in definition["questions"]] == ["yes_no", "choice"]
    assert [o["label"] for o in definition["questions"][1]["options"]] == ["Chemistry", "Physics"]


#: Marks a field to leave out of the definition.
DROP = object()


def with_changes(**changes: object) -> dict:
    return {key: value for key, value in (VALID_SURVEY | changes).items() if value is not DROP}


def choice_with(options: list[str]) -> dict:
    return with_changes(questions=[{"text": "Which?", "type": "choice", "options": options}])


def json_file(definition: object) -> tuple[str, bytes]:
    return "survey.json", json.dumps(definition).encode()


INVALID_FILES = {
    "missing-title": (json_file(with_changes(title=DROP)), "title"),
    "blank-title": (json_file(with_changes(title="   ")), "title"),
    "title-not-text": (json_file(with_changes(title=42)), "title"),
    "empty-questions": (json_file(with_changes(questions=[])), "questions"),
    "missing-questions": (json_file(with_changes(questions=DROP)), "questions"),
    "questions-not-a-list": (json_file(with_changes(questions={"text": "Q"})), "questions"),
    "flip-probability-0.5": (json_file(with_changes(flip_probability=0.5)), "flip_probability"),
    "flip-probability-0": (json_file(with_changes(flip_probability=0)), "flip_probability"),
    "flip-probability-negative": (
        json_file(with_changes(flip_probability=-0.1)),
        "flip_probability",
    ),
    "flip-probability-string": (
        json_file(with_changes(flip_probability="0.25")),
        "flip_probability",
    ),
    "flip-probability-true": (json_file(with_changes(flip_probability=True)), "flip_probability"),
    "flip-probability-missing": (
        json_file(with_changes(flip_probability=DROP)),
        "flip_probability",
    ),
    "flip-probability-nan": (
        ("survey.json", json.dumps(VALID_SURVEY).replace("0.25", "NaN").encode()),
        "NaN",
    ),
    "choice-1-option": (json_file(choice_with(["Only"])), "questions[0].options"),
    "choice-13-options": (
        json_file(choice_with([f"Option {n}" for n in range(13)])),
        "questions[0].options",
    ),
    "choice-duplicate-options": (json_file(choice_with(["Same", "Same"])), "questions[0].options"),
    "choice-no-options": (
        json_file(with_changes(questions=[{"text": "Which?", "type": "choice"}])),
        "questions[0].options",
    ),
    "yes-no-with-options": (
        json_file(
            with_changes(questions=[{"text": "Q?", "type": "yes_no", "options": ["a", "b"]}])
        ),
        "questions[0].options",
    ),
    "unknown-question-type": (
        json_file(with_changes(questions=[{"text": "Rate it", "type": "rating"}])),
        "questions[0].type",
    ),
    "blank-question-text": (
        json_file(with_changes(questions=[{"text": " ", "type": "yes_no"}])),
        "questions[0].text",
    ),
    "second-question-bad": (
        json_file(
            with_changes(
                questions=[{"text": "Q?", "type": "yes_no"}, {"text": "R?", "type": "scale"}]
            )
        ),
        "questions[1].type",
    ),
    "unknown-field": (json_file(with_changes(colour="blue")), "colour"),
    "unknown-question-field": (
        json_file(with_changes(questions=[{"text": "Q?", "type": "yes_no", "weight": 2}])),
        "weight",
    ),
    "not-an-object": (json_file([VALID_SURVEY]), "survey"),
    "broken-json": (("survey.json", b'{"title": "Oops",'), "JSON"),
    "empty-json": (("survey.json", b""), "JSON"),
    "broken-toml": (("survey.toml", b'title = "Oops\nflip_probability = 0.25\n'), "TOML"),
    "toml-flip-probability-0.5": (
        ("survey.toml", VALID_TOML.replace("0.2", "0.5").encode()),
        "flip_probability",
    ),
    "toml-unknown-field": (("survey.toml", b"colour = 'blue'\n" + VALID_TOML.encode()), "colour"),
    "non-utf8-json": (("survey.json", '{"title": "Caf\xe9"}'.encode("latin-1")), "UTF-8"),
    "non-utf8-toml": (("survey.toml", b"title = '\xff\xfe'\n"), "UTF-8"),
    "flip-probability-of-401-digits": (
        (
            "survey.json",
            json.dumps(with_changes(flip_probability=0.125)).replace("0.125", "2" * 401).encode(),
        ),
        "flip_probability",
    ),
    "toml-flip-probability-of-401-digits": (
        ("survey.toml", VALID_TOML.replace("0.2", "2" * 401).encode()),
        "flip_probability",
    ),
    "json-nested-50000-deep": (("survey.json", b"[" * 50_000 + b"]" * 50_000), "JSON"),
    "toml-nested-50000-deep": (("survey.toml", b"a = " + b"[" * 50_000 + b"]" * 50_000), "TOML"),
}


@pytest.mark.parametrize(("file", "fragment"), INVALID_FILES.values(), ids=INVALID_FILES.keys())
def test_create_survey_refuses_an_invalid_file(app, runner, analyst, tmp_path, file, fragment):
    name, content = file
    path = tmp_path / name
    path.write_bytes(content)
    before = (count(app, Survey), count(app, Question))

    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst, "--open"])

    assert_one_line_error(result, fragment)
    assert (count(app, Survey), count(app, Question)) == before
    assert not any(SLUG.match(line) for line in result.stdout.splitlines())


def test_create_survey_refuses_a_missing_file(app, runner, analyst, tmp_path):
    path = tmp_path / "no-such-survey.json"
    before = count(app, Survey)
    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst])
    assert_one_line_error(result, "no-such-survey.json", "cannot be read")
    assert count(app, Survey) == before


def test_create_survey_refuses_an_unknown_owner(app, runner, analyst, tmp_path):
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(VALID_SURVEY), encoding="utf-8")
    before = (count(app, Survey), count(app, Question), count(app, Analyst))
    result = runner.invoke(
        args=["create-survey", str(path), "--owner", "nobody@example.edu", "--open"]
    )
    assert_one_line_error(result, "nobody@example.edu")
    assert (count(app, Survey), count(app, Question), count(app, Analyst)) == before


# --------------------------------------------------------------------------- open and close


def test_open_survey_opens_a_draft(app, runner, client, make_survey):
    slug, question_ids = make_survey(status="draft")
    assert client.get(f"/s/{slug}").status_code == 404

    result = runner.invoke(args=["open-survey", slug])

    assert result.exit_code == 0, result.output
    assert status_of(app, slug) == SurveyStatus.OPEN
    assert client.get(f"/s/{slug}").status_code == 200
    response = client.post(
        f"/api/v1/surveys/{slug}/responses",
        data=submission(question_ids),
        content_type="application/json",
    )
    assert response.status_code == 201


def test_close_survey_then_page_is_gone_and_api_conflicts(app, runner, client, survey):
    slug, question_ids = survey
    assert client.get(f"/s/{slug}").status_code == 200

    result = runner.invoke(args=["close-survey", slug])

    assert result.exit_code == 0, result.output
    assert status_of(app, slug) == SurveyStatus.CLOSED
    assert client.get(f"/s/{slug}").status_code == 410
    response = client.post(
        f"/api/v1/surveys/{slug}/responses",
        data=submission(question_ids),
        content_type="application/json",
    )
    assert response.status_code == 409
    assert response.get_json()["error"]
    with app.app_context():
        respondents = select(Survey.respondents).where(Survey.slug == slug)
        assert db.session.execute(respondents).scalar_one() == 0


def test_reopen_a_closed_survey(app, runner, client, make_survey):
    slug, _ = make_survey(status="closed")
    result = runner.invoke(args=["open-survey", slug])
    assert result.exit_code == 0, result.output
    assert status_of(app, slug) == SurveyStatus.OPEN
    assert client.get(f"/s/{slug}").status_code == 200


def test_closing_a_draft_is_refused(app, runner, make_survey):
    slug, _ = make_survey(status="draft")
    assert_one_line_error(runner.invoke(args=["close-survey", slug]), "draft")
    assert status_of(app, slug) == SurveyStatus.DRAFT


@pytest.mark.parametrize("command", ["open-survey", "close-survey"])
def test_status_commands_refuse_an_unknown_slug(app, runner, survey, command):
    slug, _ = survey
    assert_one_line_error(runner.invoke(args=[command, "no-such-slug"]), "no-such-slug")
    assert status_of(app, slug) == SurveyStatus.OPEN


# --------------------------------------------------------------------------- init-db


def empty_the_database(app) -> None:
    """No tables at all: neither the models' nor the migrations' version stamp."""
    with app.app_context():
        db.drop_all()
        with db.engine.begin() as connection:
            connection.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
        assert inspect(db.engine).get_table_names() == []


def test_init_db_creates_the_tables(app, runner):
    empty_the_database(app)

    result = runner.invoke(args=["init-db"])

    assert result.exit_code == 0, (result.output, result.exception)
    assert "Database ready" in result.stdout
    with app.app_context():
        tables = set(inspect(db.engine).get_table_names())
    assert {"analysts", "surveys", "questions", "submissions", "tallies"} <= tables


def test_init_db_again_keeps_existing_data(app, runner, tmp_path):
    empty_the_database(app)
    assert runner.invoke(args=["init-db"]).exit_code == 0
    assert (
        runner.invoke(
            args=["create-analyst", "dean@example.edu", "--password-stdin"], input=PASSWORD + "\n"
        ).exit_code
        == 0
    )
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(VALID_SURVEY), encoding="utf-8")
    created = runner.invoke(args=["create-survey", str(path), "--owner", "dean@example.edu"])
    slug = created.stdout.splitlines()[-1]

    result = runner.invoke(args=["init-db"])

    assert result.exit_code == 0, (result.output, result.exception)
    assert survey_by_slug(app, slug) is not None
    with app.app_context():
        assert find_analyst("dean@example.edu") is not None


# --------------------------------------------------------------------------- links printed


@pytest.mark.parametrize(
    ("public_url", "base", "printed"),
    [
        (None, None, "/s/SLUG"),
        ("https://surveys.example.edu", None, "https://surveys.example.edu/s/SLUG"),
        ("https://surveys.example.edu", "http://10.0.0.5:5000", "http://10.0.0.5:5000/s/SLUG"),
    ],
)
def test_a_command_builds_links_from_the_routes(app, public_url, base, printed):
    # Commands have no request: links.external_url builds the path from the app's own routes
    # and prefixes the address given, or the configured one, or none.
    from survey_app.web.links import external_url

    app.config["PUBLIC_URL"] = public_url
    with app.app_context():
        assert external_url("respondent.survey_page", base, slug="SLUG") == printed
        assert external_url("respondent.join_by_code", code="ABC234") == (
            f"{public_url or ''}/j/ABC234"
        )


def test_create_survey_prints_a_respondent_link_that_opens_it(
    app, runner, client, analyst, tmp_path
):
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(VALID_SURVEY), encoding="utf-8")
    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst, "--open"])
    assert result.exit_code == 0, result.output
    link = re.search(r"Respondent link: (\S+)", result.stdout).group(1)
    slug = result.stdout.splitlines()[-1]
    assert link == f"https://surveys.example.edu/s/{slug}"
    assert client.get(link.removeprefix("https://surveys.example.edu")).status_code == 200


def survey_app_help(monkeypatch, tmp_path, *args: str) -> str:
    """What `survey-app ARGS` prints, at a terminal's 80 columns, as the installed command runs."""
    from click.testing import CliRunner

    from survey_app.cli import main

    monkeypatch.setenv("SURVEY_APP_DATABASE_URL", f"sqlite:///{tmp_path / 'help.db'}")
    monkeypatch.setenv("SURVEY_APP_INSTANCE_PATH", str(tmp_path / "instance"))
    result = CliRunner().invoke(main, list(args), prog_name="survey-app", terminal_width=80)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def test_help_leads_with_the_apps_own_commands_in_sections(monkeypatch, tmp_path):
    from survey_app.cli import COMMAND_SECTIONS, DEVELOPER_SECTION

    text = survey_app_help(monkeypatch, tmp_path, "--help")
    lines = text.splitlines()
    assert lines[0] == "Usage: survey-app [OPTIONS] COMMAND [ARGS]..."
    # What the app does comes right after the usage, before any command or option.
    assert lines[2].strip().startswith("Classroom surveys with local differential privacy")
    headings = [line.removesuffix(":") for line in lines if line and not line.startswith(" ")]
    sections = [title for title, _ in COMMAND_SECTIONS]
    assert headings[1:] == [*sections, DEVELOPER_SECTION, "Options"]
    assert sections[0] == "Getting started"
    commands_part = lines[lines.index("Getting started:") : lines.index("Options:")]
    listed = [line.split()[0] for line in commands_part if re.match(r"^  [a-z][a-z-]+ ", line)]
    ours = [command.name for _, commands in COMMAND_SECTIONS for command in commands]
    assert listed[: len(ours)] == ours
    assert listed[0] == "quickstart"
    # Flask's and its extensions' commands are still there, after the app's own.
    assert {"db", "limiter", "routes", "run", "shell"} <= set(listed[len(ours) :])


def test_help_speaks_of_the_app_not_flask(monkeypatch, tmp_path):
    text = survey_app_help(monkeypatch, tmp_path, "--help")
    before_developers = text.split("For developers")[0]
    for flask_words in ("Flask", "factory function", "Load environment variables", "--app"):
        assert flask_words not in before_developers, flask_words
    options = text.split("\nOptions:\n")[1]
    assert "Show the Flask version" not in options and "--app" not in options
    assert "Show survey-app’s version." in options
    assert "SURVEY_APP_DATABASE_URL" in options
    # Every description whole: none cut short with an ellipsis.
    assert "..." not in text.replace("COMMAND [ARGS]...", "")
    assert "survey-app COMMAND --help" in text


def test_version_is_the_apps(monkeypatch, tmp_path):
    from importlib.metadata import version

    printed = survey_app_help(monkeypatch, tmp_path, "--version")
    assert printed.strip() == f"survey-app {version('survey-app')}"
