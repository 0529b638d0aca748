"""Fixtures shared by every test: an app on a fresh database, its client and CLI runner.

Every test that reaches the pass's database is marked ``database`` (see
``pytest_collection_modifyitems``): the PostgreSQL pass of CI runs those alone, since the others
ran already in the SQLite pass and a second run would check nothing new. The browser tests run
in the SQLite pass alone, but for those marked ``database`` by hand: what they check is the page
in Chromium, and every query their pages make runs on PostgreSQL in the unit tests of the same
views; the professor's whole day runs on both, as a deployment on PostgreSQL meets it.
"""

from __future__ import annotations

import os
import shutil

import pytest
from jinja2 import BytecodeCache
from werkzeug.routing import Rule

from survey_app import create_app
from survey_app.extensions import db
from survey_app.surveys.services import SAMPLE_SURVEY, create_survey, open_survey, parse_definition
from tests.analyst_helpers import create_test_analyst
from tests.databases import TEST_DATABASE_URL, create_worker_database, empty_postgresql_database

#: A fixed random key (secrets.token_urlsafe(36)): the app refuses keys that read as words.
TEST_SECRET_KEY = "lFYLZ8BMLzE804NL8B8XAGdiNZOZl40XaRlAsqLOJ8l77gX5"
ANALYST_PASSWORD = "correct horse battery"

#: The app's own sample survey (what quickstart opens): a yes/no and a three-option question.
SAMPLE_DEFINITION = SAMPLE_SURVEY


#: Fixtures that give a test the pass's database: tests/conftest.py's, the load tests' deployment
#: (tests/load) and the benchmark's small run (tests/unit/test_bench.py).
DATABASE_FIXTURES = frozenset(
    {"app", "database_url", "deployment", "small_run", "pgbouncer", "own_postgresql"}
)
#: Fixtures that measure SQLite, and PostgreSQL too when the pass has it: the benchmark's small
#: run; and those of PostgreSQL alone: PgBouncer before it, a server of a test's own. CI's SQLite
#: pass leaves their tests to the PostgreSQL pass.
EVERY_DATABASE_FIXTURES = frozenset({"small_run", "pgbouncer", "own_postgresql"})
#: Tests that run one at a time on one worker, by the fixtures they use (see worker_group).
WORKER_GROUPS = {
    "browser": frozenset({"chromium", "make_chromium"}),
    "load": frozenset({"deployment", "start_server", "own_postgresql"}),
}


def pytest_configure(config):
    if TEST_DATABASE_URL:
        create_worker_database()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Mark ``database`` every test that reaches the pass's database, through any fixture; with
    parallel workers (pytest-xdist, ``--dist loadgroup``) group the tests that must share one."""
    parallel = config.pluginmanager.hasplugin("xdist")
    for item in items:
        if reaches_the_database(item):
            item.add_marker(pytest.mark.database)
        fixtures = getattr(item, "fixturenames", ())
        if EVERY_DATABASE_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.every_database)
        if WORKER_GROUPS["load"].intersection(fixtures):
            item.add_marker(pytest.mark.load)
        group = worker_group(item) if parallel else None
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def reaches_the_database(item) -> bool:
    """Whether the PostgreSQL pass runs ``item``: it reaches the pass's database through a
    fixture, is not about SQLite itself, and is no browser test (but those marked by hand)."""
    if item.get_closest_marker("database") is not None:
        return True
    reaches = DATABASE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    elsewhere = any(item.get_closest_marker(mark) for mark in ("sqlite", "browser"))
    return bool(reaches) and not elsewhere


def worker_group(item) -> str | None:
    """The tests that run on one worker together, or None for a test any worker may run.

    The browser tests, one at a time: two Chromiums on two cores starve each other, and a page
    that redraws itself on a timer (the open dashboard, every 10 s) then changes under a slow
    check. The load tests, one at a time: each starts a server of several processes. The tests
    of a module-scoped fixture (a wheel, a Node run drawing many samples, the benchmark's small
    run): made once, not once a worker.
    """
    for group, fixtures in WORKER_GROUPS.items():
        if fixtures.intersection(item.fixturenames):
            return group
    fixtures = getattr(item, "_fixtureinfo", None)
    definitions = fixtures.name2fixturedefs.values() if fixtures is not None else ()
    if any(definition[-1].scope == "module" for definition in definitions):
        return item.module.__name__
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (CI=true) a skipped test fails: nothing the suite checks may quietly not run
    there, whatever the machine lacks (a browser, a database server, R)."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") == "true" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run every test: {report.longrepr}"


@pytest.fixture
def database_url(request, tmp_path) -> str:
    """The pass's database; a SQLite file for a test marked ``sqlite`` (what it checks is
    SQLite's own, such as its write-ahead log), so that it runs, not skips, in every pass."""
    if TEST_DATABASE_URL and request.node.get_closest_marker("sqlite") is None:
        return TEST_DATABASE_URL
    return f"sqlite:///{tmp_path / 'test.sqlite3'}"


class CompiledTemplates(BytecodeCache):
    """The templates' compiled code, kept for the session and shared by every app made here.

    Each test makes its own app, whose Jinja environment would otherwise parse and compile every
    template it renders again: a third of a page test's time. Jinja reuses code only while the
    template's source has the checksum it was compiled from.
    """

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = CompiledTemplates()


#: The URL rules' builders, compiled once a session and shared by every app made here.
#:
#: Werkzeug compiles each rule of an app's URL map into a Python function that builds its URLs
#: (``Rule._compile_builder``): nine tenths of ``create_app``'s time, made again for each of the
#: thousands of apps the tests make. A builder depends only on the rule's text and parsed parts
#: (its trace), its defaults and whether it appends unknown arguments; a rule with a default for
#: one of its own variables (resolved by its converter) is compiled as werkzeug does.
URL_BUILDERS: dict[tuple, object] = {}
compile_url_builder = Rule._compile_builder


def compiled_url_builder(rule: Rule, append_unknown: bool = True):
    defaults = rule.defaults or {}
    if any(dynamic and part in defaults for dynamic, part in rule._trace):
        return compile_url_builder(rule, append_unknown)
    key = (rule.rule, tuple(rule._trace), repr(sorted(defaults.items())), append_unknown)
    if key not in URL_BUILDERS:
        URL_BUILDERS[key] = compile_url_builder(rule, append_unknown)
    return URL_BUILDERS[key]


Rule._compile_builder = compiled_url_builder


def make_app(database_url: str):
    """The app as the tests run it: rate limits off, on ``database_url``."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": TEST_SECRET_KEY,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_ENABLED": False,
        }
    )
    app.jinja_env.bytecode_cache = COMPILED_TEMPLATES
    return app


@pytest.fixture(scope="session")
def sqlite_schema(tmp_path_factory) -> str:
    """A SQLite file with the models' tables, made once a session; each test starts a copy."""
    path = tmp_path_factory.mktemp("schema") / "schema.sqlite3"
    app = make_app(f"sqlite:///{path}")
    with app.app_context():
        db.create_all()
        db.engine.dispose()  # the last connection's close checkpoints the log into the file
    return str(path)


@pytest.fixture
def app(database_url, sqlite_schema):
    """The app on an empty database with the models' tables: on SQLite a new file in the test's
    tmp_path, on PostgreSQL the worker's database, emptied (tests/databases.py)."""
    database = database_url.removeprefix("sqlite:///")
    fresh_file = database != database_url and not os.path.exists(database)
    if fresh_file:
        shutil.copyfile(sqlite_schema, database)
    app = make_app(database_url)
    with app.app_context():
        if database_url.startswith("postgresql"):
            empty_postgresql_database(db)
        elif not fresh_file:
            drop_everything()
            db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def drop_everything() -> None:
    """Drop the models' tables and the migrations' version stamp (tests share one server)."""
    db.drop_all()
    with db.engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def sign_in_as(app):
    """``sign_in_as(client, email)``: a signed-in session as the sign-in form makes it.

    The form itself (and its deliberately slow scrypt check) is tested in test_sign_in.py; other
    tests only need the session. The request context carries the client's address and user
    agent, for Flask-Login's session protection.
    """
    from flask import session

    from survey_app.accounts.services import find_analyst, sign_in_browser

    def sign_in(client, email: str) -> None:
        with app.test_request_context(environ_base=client.environ_base):
            sign_in_browser(find_analyst(email))
            db.session.commit()
            values = dict(session)
        with client.session_transaction() as client_session:
            client_session.clear()
            client_session.update(values)

    return sign_in


@pytest.fixture
def analyst(app):
    with app.app_context():
        email = create_test_analyst("prof@example.edu", ANALYST_PASSWORD).email
        db.session.commit()
        return email


@pytest.fixture
def make_survey(app, analyst):
    """Create a survey (open unless told otherwise) and return its slug and question ids."""

    def make(definition: dict | None = None, status: str = "open"):
        from survey_app.accounts.services import find_analyst
        from survey_app.surveys.services import close_survey

        with app.app_context():
            owner = find_analyst(analyst)
            survey = create_survey(owner, parse_definition(definition or SAMPLE_DEFINITION))
            db.session.commit()
            if status in ("open", "closed"):
                open_survey(survey)
                db.session.commit()
            if status == "closed":
                close_survey(survey)
                db.session.commit()
            return survey.slug, [question.id for question in survey.questions]

    return make


@pytest.fixture
def close(app):
    """Close a survey by slug, as its dashboard's button does: its results then hold every
    answer (while open, they change in releases of several: survey_app.results.releases)."""

    def close_now(slug: str) -> None:
        from survey_app.surveys.services import close_survey, find_survey

        with app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()

    return close_now


@pytest.fixture
def survey(make_survey):
    """An open sample survey: (slug, [yes_no question id, choice question id])."""
    return make_survey()
