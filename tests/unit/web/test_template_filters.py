"""The templates' filters word a figure as the rest of the app does (survey_app.words)."""

from __future__ import annotations

import pytest
from flask import render_template_string


@pytest.mark.parametrize(
    ("needed", "expected"),
    [(1, "about 1 respondent."), (2, "about 2 respondents."), (1200, "about 1,200 respondents.")],
)
def test_a_count_placed_apart_from_its_noun_agrees_with_it(app, needed, expected):
    """As the dashboard's plan for a number question says it: "about 1 respondent", never
    "about 1 respondents" (a ±50-point margin at a low flip probability needs one)."""
    template = 'about {{ needed|headcount }} {{ needed|plural("respondent") }}.'
    with app.test_request_context():
        assert render_template_string(template, needed=needed) == expected
