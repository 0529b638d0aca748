"""The ``survey-app`` command: the Flask CLI bound to the app factory, plus our commands."""

from __future__ import annotations

import copy
import datetime as dt
import re
import secrets
import sys

import click
from flask import Flask
from flask.cli import FlaskGroup, with_appcontext

from survey_app.extensions import db, login
from survey_app.lti.commands import COMMANDS as LTI_COMMANDS
from survey_app.refusals import fail
from survey_app.web.links import external_url


def _find_analyst(email: str):
    from survey_app.accounts.services import find_analyst

    analyst = find_analyst(email)
    if analyst is None:
        fail(f"no analyst account with the email {email!r} (create it with create-analyst)")
    return analyst


def _find_survey(slug: str):
    from survey_app.surveys.services import find_survey

    survey = find_survey(slug)
    if survey is None:
        fail(f"no survey with the slug {slug!r}")
    return survey


def _echo_join(survey, err: bool = False) -> None:
    """How a class reaches the survey: its join code and join link (on standard error when
    standard output carries something else, such as codes)."""
    if survey.join_code is None:
        click.echo("It gets a join code when it opens (survey-app open-survey SLUG).", err=err)
        return
    click.echo(f"Join code: {survey.join_code}", err=err)
    link = external_url("respondent.join_by_code", code=survey.join_code)
    click.echo(f"Join link: {link}", err=err)


def upgrade_database() -> None:
    """Create the schema, or bring it up to date, by running the migrations."""
    from flask_migrate import upgrade

    upgrade()


@click.command("init-db", short_help="Create or update the database (keeps its data).")
@with_appcontext
def init_db_command() -> None:
    """Create the database schema, or upgrade it (keeps existing data); as `db upgrade`."""
    from survey_app.storage.database import forget_arrival_order, is_sqlite

    upgrade_database()  # on SQLite it rebuilds the file too (migrations/env.py)
    if not is_sqlite():
        # An upgrade may rewrite rows: their old versions stay in the pages until copied out.
        forget_arrival_order()
    click.echo(f"Database ready: {_safe_url()}")


@click.command("create-analyst", short_help="Create an account that signs in to make surveys.")
@click.argument("email")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@with_appcontext
def create_analyst_command(email: str, password_stdin: bool) -> None:
    """Create an analyst account that signs in with EMAIL."""
    from survey_app.accounts.services import AccountError, create_analyst

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        create_analyst(email, password)
    except AccountError as error:
        fail(str(error))
    db.session.commit()
    click.echo(f"Analyst {email.strip().lower()} created.")


@click.command("create-survey", short_help="Create a survey from a JSON or TOML file.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--owner", "owner_email", required=True, help="Email of the owning analyst.")
@click.option("--open", "open_now", is_flag=True, help="Open the survey to respondents now.")
@with_appcontext
def create_survey_command(file: str, owner_email: str, open_now: bool) -> None:
    """Create a survey from a JSON or TOML definition FILE; print its slug last."""
    from survey_app.surveys.definition_checks import SurveyDefinitionError
    from survey_app.surveys.services import create_survey, load_definition_file, open_survey

    try:
        definition = load_definition_file(file)
    except SurveyDefinitionError as error:
        fail(str(error))
    owner = _find_analyst(owner_email)
    survey = create_survey(owner, definition)
    if open_now:
        open_survey(survey)
    db.session.commit()
    click.echo(f"Survey {survey.title!r} created ({survey.status.value}).")
    _echo_join(survey)
    click.echo(f"Respondent link: {external_url('respondent.survey_page', slug=survey.slug)}")
    click.echo(survey.slug)  # alone on the last line, for scripts


@click.command("open-survey", short_help="Open a survey to the class.")
@click.argument("slug")
@with_appcontext
def open_survey_command(slug: str) -> None:
    """Open the survey SLUG to respondents."""
    from survey_app.classroom.codes import codes_missing
    from survey_app.surveys.services import SurveyStateError, open_survey

    survey = _find_survey(slug)
    try:
        open_survey(survey)
    except SurveyStateError as error:
        fail(str(error))
    db.session.commit()
    click.echo(f"Survey {slug} is open.")
    _echo_join(survey)
    if missing := codes_missing(survey):
        click.echo(f"Warning: {missing} Issue them with: survey-app issue-codes {slug} N", err=True)


@click.command("close-survey", short_help="Close a survey: no more answers; results stay.")
@click.argument("slug")
@with_appcontext
def close_survey_command(slug: str) -> None:
    """Close the survey SLUG: no more answers; results stay readable."""
    from survey_app.surveys.services import SurveyStateError, close_survey

    survey = _find_survey(slug)
    if survey.is_closed:  # its closing time, and its join code's grace, stay as they were
        click.echo(f"Survey {slug} is already closed.")
        return
    try:
        close_survey(survey)
    except SurveyStateError as error:
        fail(str(error))
    db.session.commit()  # then the storage forgets the submissions' arrival order
    click.echo(f"Survey {slug} is closed.")


@click.command("issue-codes", short_help="Print one-time codes to hand out, one a student.")
@click.argument("slug")
@click.argument("count")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (a header, then one code a row).")
@with_appcontext
def issue_codes_command(slug: str, count: str, as_csv: bool) -> None:
    """Issue COUNT one-time codes for the survey SLUG; print them, one a line.

    A draft then requires a code from every respondent. The codes are printed once and never
    kept (the database holds only their hashes): save or print them now.
    """
    from survey_app.classroom.codes import (
        CodeRequestError,
        format_code,
        issue_codes,
        parse_code_count,
    )
    from survey_app.surveys.services import SurveyStateError

    survey = _find_survey(slug)
    try:
        codes = issue_codes(survey, parse_code_count(count))
    except (CodeRequestError, SurveyStateError) as error:
        fail(str(error))
    db.session.commit()
    click.echo(
        f"{len(codes)} one-time codes for {survey.title!r}; they are not shown again.", err=True
    )
    # For the slips: the survey's join code (a draft has it already), beside the codes.
    _echo_join(survey, err=True)
    if as_csv:
        click.echo("code")
    for code in codes:
        click.echo(format_code(code))


#: "30d", "12h", "90 days": a token's lifetime on the command line.
_DURATION = re.compile(r"^\s*(\d{1,5})\s*(h|hours?|d|days?)\s*$", re.IGNORECASE)


def parse_duration(text: str) -> dt.timedelta:
    """A lifetime such as ``30d`` or ``12h``; BadParameter otherwise."""
    match = _DURATION.match(text)
    if match is None or int(match.group(1)) == 0:
        raise click.BadParameter(
            f"expected a number of days or hours like 30d or 12h, got {text!r}"
        )
    amount = int(match.group(1))
    if match.group(2).lower().startswith("h"):
        return dt.timedelta(hours=amount)
    return dt.timedelta(days=amount)


@click.command("create-token", short_help="Print a new API token for scripts that read results.")
@click.argument("email")
@click.option(
    "--expires-in",
    "lifetime",
    default=None,
    metavar="DURATION",
    help="Stop working after this long (30d, 12h). Default: until revoked.",
)
@with_appcontext
def create_token_command(email: str, lifetime: str | None) -> None:
    """Print a new API token for the analyst EMAIL (shown once; only its hash is kept)."""
    from survey_app.accounts.services import create_token
    from survey_app.storage.models import utc_now

    expires_at = None
    if lifetime is not None:
        try:
            expires_at = utc_now() + parse_duration(lifetime)
        except click.BadParameter as error:
            fail(f"--expires-in: {error.message}")
    token = create_token(_find_analyst(email), expires_at)
    db.session.commit()
    if expires_at is not None:
        click.echo(f"It works until {expires_at:%Y-%m-%d %H:%M} UTC.")
    click.echo("Send it as 'Authorization: Bearer <token>'. It is shown only now:")
    click.echo(token)


@click.command("list-tokens", short_help="List an account’s API tokens.")
@click.argument("email")
@with_appcontext
def list_tokens_command(email: str) -> None:
    """List the API tokens of the analyst EMAIL: id, end of the token, created, expires."""
    from survey_app.accounts.services import tokens_of
    from survey_app.storage.models import utc_now

    tokens = tokens_of(_find_analyst(email))
    if not tokens:
        click.echo("No API tokens.")
        return
    now = utc_now()
    click.echo(f"{'id':>6}  {'ends in':<9}  {'created (UTC)':<16}  expires (UTC)")
    for token in tokens:
        if token.expires_at is None:
            expires = "never (until revoked)"
        else:
            expired = " (expired)" if token.expires_at <= now else ""
            expires = f"{token.expires_at:%Y-%m-%d %H:%M}{expired}"
        click.echo(
            f"{token.id:>6}  {'…' + token.hint:<9}  {token.created_at:%Y-%m-%d %H:%M}  {expires}"
        )


@click.command("revoke-token", short_help="Stop an API token from working.")
@click.argument("email")
@click.argument("token_id", type=int)
@with_appcontext
def revoke_token_command(email: str, token_id: int) -> None:
    """Revoke the API token TOKEN_ID (from list-tokens) of the analyst EMAIL."""
    from survey_app.accounts.services import revoke_token

    if not revoke_token(_find_analyst(email), token_id):
        fail(f"{email} has no API token with the id {token_id} (see list-tokens)")
    db.session.commit()
    click.echo(f"Token {token_id} revoked: it no longer opens the API.")


@click.command(
    "forget-arrival-order", short_help="Rewrite stored answers so their arrival order is gone."
)
@with_appcontext
def forget_arrival_order_command() -> None:
    """Rewrite what submissions stored (answers, counts, used codes) so that nothing in storage
    follows their arrival order.

    Closing a survey does this for it; run this for surveys still open (e.g. nightly).
    """
    from survey_app.storage.database import forget_arrival_order, is_sqlite

    if not forget_arrival_order():
        said = (
            "the database’s write-ahead log could not be emptied (another process is reading "
            "it) and still holds recent writes in arrival order"
            if is_sqlite()
            else "the tables could not be copied into new files (another connection kept "
            "reading them) and their pages still hold old row versions"
        )
        click.echo(f"Error: {said}; run this again later.", err=True)
        sys.exit(1)
    click.echo("Stored submissions, counts and used codes rewritten in key order.")


@click.command("serve", short_help="Serve the app to the class (with gunicorn).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=None, type=click.IntRange(min=1), help="Default: 2 x cores + 1.")
def serve_command(host: str, port: int, workers: int | None) -> None:
    """Serve the app with gunicorn, the production server."""
    from survey_app.server import default_workers, serve

    serve(host=host, port=port, workers=workers or default_workers())


@click.command("quickstart", short_help="Try it out: a sample survey, served from this computer.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--email", default="professor@example.edu", show_default=True)
@with_appcontext
def quickstart_command(host: str, port: int, email: str) -> None:
    """Set up the database, an analyst account and a sample survey, then serve."""
    from survey_app.accounts.services import create_analyst, find_analyst, set_password
    from survey_app.surveys.services import (
        SAMPLE_SURVEY,
        create_survey,
        open_survey,
        parse_definition,
    )

    upgrade_database()
    password = secrets.token_urlsafe(12)
    analyst = find_analyst(email)
    if analyst is None:
        analyst = create_analyst(email, password)
    else:
        set_password(analyst, password)
    db.session.commit()
    survey = next((s for s in analyst.surveys if s.title == SAMPLE_SURVEY["title"]), None)
    if survey is None:
        survey = create_survey(analyst, parse_definition(SAMPLE_SURVEY))
        open_survey(survey)
        db.session.commit()
    from survey_app.server import public_base

    base = public_base(host, port)
    click.echo("")
    click.echo(f"  Database:        {_safe_url()}")
    click.echo(f"  Sign in at:      {external_url(login.login_view, base)}")
    click.echo(f"    email:         {email}")
    click.echo(f"    password:      {password}   (new at every quickstart)")
    click.echo(
        f"  Sample survey:   {external_url('respondent.survey_page', base, slug=survey.slug)}"
    )
    if survey.join_code is not None:
        click.echo(f"    join code:     {survey.join_code}")
        front_page = external_url("respondent.home", base)
        click.echo(f"    front page:    {front_page}   (students type the code there)")
        join_link = external_url("respondent.join_by_code", base, code=survey.join_code)
        click.echo(f"    join link:     {join_link}")
    click.echo("  Stop with Ctrl+C.")
    click.echo("")
    from survey_app.server import serve

    release_database()
    serve(host=host, port=port, workers=2)


def release_database() -> None:
    """End the session and close every pooled connection, before this process serves.

    Reading the survey after the commit began a read transaction; held for the server's whole
    run (this process is gunicorn's master), it would keep SQLite from ever emptying its
    write-ahead log, which holds every write in arrival order. The workers open their own.
    """
    db.session.remove()
    db.engine.dispose()


def _safe_url() -> str:
    """The database URL without its password."""
    return db.engine.url.render_as_string(hide_password=True)


#: The app's commands as --help lists them: in sections, in the order a professor meets them.
COMMAND_SECTIONS = (
    (
        "Getting started",
        (quickstart_command, init_db_command, create_analyst_command, serve_command),
    ),
    (
        "Surveys",
        (create_survey_command, open_survey_command, close_survey_command, issue_codes_command),
    ),
    (
        "API tokens (for scripts that read results)",
        (create_token_command, list_tokens_command, revoke_token_command),
    ),
    ("Upkeep", (forget_arrival_order_command,)),
    ("Learning platforms (LTI 1.3)", LTI_COMMANDS),
)

COMMANDS = tuple(command for _, commands in COMMAND_SECTIONS for command in commands)

#: Flask's and its extensions' own commands (db, limiter, routes, run, shell) come last.
DEVELOPER_SECTION = "For developers (Flask’s own commands)"

#: Flask's options, in the app's words; --app is hidden, as this command loads the app itself.
OPTION_HELP = {
    "env_file": "Read settings such as SURVEY_APP_DATABASE_URL from this file.",
    "debug": "Debug mode, for developers (with `run`).",
}


def register_commands(app: Flask) -> None:
    for command in COMMANDS:
        app.cli.add_command(command)


def _create_app() -> Flask:
    from survey_app import create_app
    from survey_app.config import ConfigurationError

    try:
        return create_app()
    except ConfigurationError as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(1)


class SurveyAppGroup(FlaskGroup):
    """Flask's command group, its help led by the app's own commands and options."""

    def __init__(self, **extra) -> None:
        super().__init__(add_version_option=False, **extra)
        # Flask's options are shared objects: change copies, never Flask's own.
        self.params = [_in_our_words(param) for param in self.params]

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Usage, what the app does, its commands, then the options (Flask puts options first)."""
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_commands(ctx, formatter)
        click.Command.format_options(self, ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The app's commands by section, then the developers' commands Flask and its
        extensions add."""
        ours = {command.name for command in COMMANDS}
        sections = [(title, [c.name for c in commands]) for title, commands in COMMAND_SECTIONS]
        others = [name for name in self.list_commands(ctx) if name not in ours]
        sections.append((DEVELOPER_SECTION, others))
        # Padded to the longest name, so that every section's descriptions line up.
        width = max(len(name) for _, names in sections for name in names)
        for title, names in sections:
            rows = [
                (name.ljust(width), command.get_short_help_str(limit=formatter.width))
                for name in names
                if (command := self.get_command(ctx, name)) is not None and not command.hidden
            ]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _in_our_words(param: click.Parameter) -> click.Parameter:
    if param.name == "app":
        return copy.copy(param) if param.hidden else _hidden(param)
    if param.name in OPTION_HELP:
        worded = copy.copy(param)
        worded.help = OPTION_HELP[param.name]
        return worded
    return param


def _hidden(param: click.Parameter) -> click.Parameter:
    hidden = copy.copy(param)
    hidden.hidden = True
    return hidden


@click.group(
    cls=SurveyAppGroup,
    create_app=_create_app,
    epilog="A command’s details: survey-app COMMAND --help",
)
@click.version_option(
    package_name="survey-app", message="survey-app %(version)s", help="Show survey-app’s version."
)
def main() -> None:
    """Classroom surveys with local differential privacy: each student’s browser randomizes the
    answers before sending them, so the server keeps only noisy answers. New here? Run
    survey-app quickstart."""
