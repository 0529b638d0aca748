"""The filters templates use, by the name templates call them: one table, registered at once
(and the few constants pages place, such as a field's length).

They format a figure (survey_app.words) or name a question's kind, and nothing more: a page's
sentences are worded before it is placed (results.panel and the domains' words modules), so no
template calls back into them to word a result again.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask

from survey_app.classroom.codes import CODE_FIELD_LENGTH
from survey_app.kinds import kind_of
from survey_app.storage.models import JOIN_CODE_FIELD_LENGTH
from survey_app.words import (
    counted,
    format_count,
    format_epsilon,
    format_number,
    format_points,
    format_upper_bound,
    grouped,
    percent,
    percent_high,
    percent_low,
    plural,
)

#: Each filter's name in templates, and the function that computes it.
FILTERS: dict[str, Callable] = {
    "percent": percent,
    "percent_low": percent_low,
    "percent_high": percent_high,
    "epsilon": format_epsilon,
    "upper_bound": format_upper_bound,
    "points": format_points,
    "headcount": format_count,
    # A whole number, its thousands grouped the page language's way: "1,234", "1.234".
    "grouped": grouped,
    # A count and its noun, by the one rule for plurals: {{ n|counted("answer") }}.
    "counted": counted,
    # The noun alone, as a count wants it, where the count is placed apart: {{ n|plural("vote") }}.
    "plural": plural,
    "bound": format_number,
    # A question's kind (survey_app.kinds): {% include (question|kind).partial %}.
    "kind": kind_of,
}


#: Constants templates place, by their name in templates: a field's length is the app's, not
#: typed again in each page that shows the field.
CONSTANTS = {
    "join_code_field_length": JOIN_CODE_FIELD_LENGTH,
    "code_field_length": CODE_FIELD_LENGTH,
}


def register(app: Flask) -> None:
    """Make every filter of the table, and every constant, available to the app's templates."""
    for name, presenter in FILTERS.items():
        app.add_template_filter(presenter, name)
    app.jinja_env.globals.update(CONSTANTS)
