"""How every command of ``survey-app`` refuses bad input: one line on standard error, exit
status 2, nothing changed (survey_app.cli's commands and survey_app.lti.commands')."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from survey_app.extensions import db

#: Exit status for bad input (a bad file, an unknown account), as usage errors have.
BAD_INPUT = 2


def fail(message: str) -> NoReturn:
    """One line on standard error, exit status 2, nothing changed."""
    db.session.rollback()
    click.echo(f"Error: {message}", err=True)
    sys.exit(BAD_INPUT)
