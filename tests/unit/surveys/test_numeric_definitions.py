"""Numeric questions' definitions: bounds, units and mechanisms checked (bad ones refused
with a clear error naming the field), from the builder, a file or the command line, and the class
size each survey plans for.

The mechanisms' math is tested in test_numeric_mechanisms.py; here the app around it.
"""

from __future__ import annotations

import math

import pytest

from survey_app import privacy
from survey_app.cli import main as survey_app_command
from survey_app.extensions import db
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import find_survey, parse_definition
from tests.numeric_helpers import (
    CHOSEN_HOURS,
    definition_with,
    numeric,
    submit_numbers,
)


def test_a_numeric_question_is_parsed():
    parsed = parse_definition(CHOSEN_HOURS).questions[0]
    assert (parsed.kind, parsed.minimum, parsed.maximum, parsed.unit) == (
        "numeric",
        0.0,
        40.0,
        "hours",
    )
    assert parsed.mechanism is None
    named = parse_definition(definition_with(numeric(mechanism="laplace"))).questions[0]
    assert named.mechanism == "laplace" and named.unit == ""


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (numeric(min=5, max=5), "questions[0].max: must be above min (5), got 5"),
        (numeric(min=6, max=5), "questions[0].max: must be above min (6), got 5"),
        ({"text": "x", "type": "numeric", "max": 5}, "questions[0].min: missing"),
        ({"text": "x", "type": "numeric", "min": 5}, "questions[0].max: missing"),
        (numeric(min="0"), "questions[0].min: must be a number, got '0'"),
        (numeric(max=True), "questions[0].max: must be a number, got True"),
        (numeric(min=float("nan")), "questions[0].min: must be a finite number"),
        (numeric(max=float("inf")), "questions[0].max: must be a finite number"),
        (numeric(max=10**400), "questions[0].max: must be a finite number"),
        (
            numeric(min=-1e308, max=1e308),
            "questions[0].min: must be between -1,000,000,000,000 and 1,000,000,000,000",
        ),
        (
            numeric(max=1e200),
            "questions[0].max: must be between -1,000,000,000,000 and 1,000,000,000,000, "
            "got 1e+200",
        ),
        (
            numeric(max=1e-300),
            "questions[0].max: must be at least 1e-06 above min (a millionth, and a "
            "billionth of the bounds’ size), got min=0.0, max=1e-300",
        ),
        (numeric(min=1e9, max=1e9 + 0.5), "questions[0].max: must be at least 1 above min"),
        (numeric(max=0.1234567), "questions[0].max: must have at most 6 decimals, got 0.1234567"),
        (numeric(mechanism="duchi"), "questions[0].mechanism: must be 'laplace' or 'hybrid'"),
        (numeric(options=["a", "b"]), "questions[0].options: a numeric question has no options"),
        (numeric(unit="x" * 41), "questions[0].unit: must be at most 40 characters"),
        ({"text": "x", "type": "yes_no", "min": 0}, "questions[0].min: only a numeric question"),
        ({"text": "x", "type": "number"}, "must be 'yes_no', 'choice', 'numeric' or 'paired'"),
    ],
)
def test_bad_numeric_questions_are_refused_naming_the_field(question, message):
    with pytest.raises(SurveyDefinitionError) as raised:
        parse_definition(definition_with(question))
    assert message in str(raised.value)


def test_a_numeric_question_needs_a_flip_probability_that_leaves_it_information():
    with pytest.raises(SurveyDefinitionError, match="flip_probability: must be at most 0.4975"):
        parse_definition(definition_with(numeric(), flip_probability=0.499))
    assert parse_definition(definition_with(numeric(), flip_probability=0.4975))
    # ... which is where its epsilon reaches the numeric mechanisms' floor, 0.01.
    assert privacy.epsilon_from_flip_probability(0.4975) >= privacy.MIN_NUMERIC_EPSILON


def test_toml_definition_with_a_numeric_question(runner, analyst, tmp_path, app):
    path = tmp_path / "hours.toml"
    path.write_text(
        'title = "Study time"\nflip_probability = 0.25\n\n[[questions]]\n'
        'text = "Hours a week?"\ntype = "numeric"\nmin = 0\nmax = 40\nunit = "hours"\n'
        'mechanism = "laplace"\n',
        encoding="utf-8",
    )
    result = runner.invoke(survey_app_command, ["create-survey", str(path), "--owner", analyst])
    assert result.exit_code == 0, result.output
    slug = result.output.strip().splitlines()[-1]
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.0, "hours")
        assert question.mechanism.name == "laplace"


def test_bad_bounds_in_a_file_are_one_line_errors(runner, analyst, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'title = "T"\nflip_probability = 0.25\n[[questions]]\ntext = "x"\ntype = "numeric"\n'
        "min = 10\nmax = nan\n",
        encoding="utf-8",
    )
    result = runner.invoke(survey_app_command, ["create-survey", str(path), "--owner", analyst])
    assert result.exit_code == 2
    assert "questions[0].max: must be a finite number, got nan" in result.output


@pytest.mark.parametrize(("given", "kept"), [(None, 40), (25, 25), (2, 2), (100_000, 100_000)])
def test_a_definition_plans_its_class_size(given, kept):
    raw = CHOSEN_HOURS if given is None else {**CHOSEN_HOURS, "expected_respondents": given}
    assert parse_definition(raw).expected_respondents == kept


@pytest.mark.parametrize("given", [1, 0, -5, 100_001, 2.5, "40", True])
def test_a_bad_class_size_is_refused_naming_the_field(given):
    with pytest.raises(SurveyDefinitionError, match="expected_respondents: must be a whole number"):
        parse_definition({**CHOSEN_HOURS, "expected_respondents": given})


def test_the_mechanism_is_chosen_for_the_class_planned_and_kept_once_open(app, make_survey):
    """A draft follows its class size; opening fixes the mechanism the browsers will use, so a
    later rule (or class size) cannot decode their reports with another."""
    slug, _ = make_survey({**CHOSEN_HOURS, "expected_respondents": 1000}, status="draft")
    with app.app_context():
        question = find_survey(slug).questions[0]
        widths = {
            name: privacy.numeric_mechanism(0.0, 40.0, math.log(3), name).half_width(1000)
            for name in privacy.NUMERIC_MECHANISMS
        }
        assert question.chosen_mechanism is None
        assert question.mechanism.name == min(widths, key=widths.get)
        from survey_app.surveys.services import open_survey

        open_survey(find_survey(slug))
        db.session.commit()
        question = find_survey(slug).questions[0]
        assert question.chosen_mechanism == question.mechanism.name
        find_survey(slug).expected_respondents = 10
        db.session.commit()
        assert find_survey(slug).questions[0].mechanism.name == question.chosen_mechanism


def test_a_survey_opened_under_the_earlier_rule_keeps_its_mechanism_and_says_so(
    app, client, make_survey, sign_in_as, analyst
):
    """The migration keeps the hybrid for surveys opened before the narrowest-range rule: their
    reason, planning and copies follow from that, not from today's rule."""
    from survey_app.planning.numbers import survey_numbers
    from survey_app.surveys.copies import duplicate_survey

    slug, (number_id, yes_no_id) = make_survey(CHOSEN_HOURS)
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert question.chosen_mechanism == "one_bit"  # today's rule, fixed at opening
        question.chosen_mechanism = "hybrid"  # as the migration leaves an older survey
        db.session.commit()
    mechanism, _ = submit_numbers(client, slug, number_id, yes_no_id, [10.0] * 40)
    sign_in_as(client, analyst)
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert api["mechanism"] == "hybrid"
    assert api["mechanism_reason"].startswith(
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise)"
    )
    with app.app_context():
        survey = find_survey(slug)
        assert [number.mechanism for number in survey_numbers(survey)] == ["hybrid"]
        copy = duplicate_survey(survey)
        db.session.commit()
        assert copy.questions[0].chosen_mechanism is None  # chosen when the copy opens
        assert copy.questions[0].mechanism.name == "one_bit"
