"""A multiple-choice question's words on its option count (survey_app.kinds.choice): the
builder's hint beside the options field and the refusal of too few or too many options name
the limits the definition's check holds, and an option typed with markup stays text."""

from __future__ import annotations

import pytest
from markupsafe import escape

from survey_app import privacy
from survey_app.kinds import choice
from survey_app.surveys.definition_checks import SurveyDefinitionError

#: Text a professor might type into an option.
TYPED = '<b>Never</b> & "once"'


def test_the_builders_hint_names_the_limits_the_check_holds():
    assert (choice.MIN_OPTIONS, privacy.MAX_OPTIONS) == (2, 12)
    assert choice.KIND.options_hint == "(2 to 12; multiple choice only)"


@pytest.mark.parametrize("count", [1, 13])
def test_too_few_or_too_many_options_are_refused_in_words(count):
    options = [f"Option {number}" for number in range(count)]
    with pytest.raises(SurveyDefinitionError) as refused:
        choice.KIND.parse("questions[0]", "How often?", {"options": options})
    assert f"must have 2 to 12 options, got {count}" in str(refused.value)
    # The builder words the refusal from these (builder.errors): the count and the limits.
    assert refused.value.key == "option_count"
    assert refused.value.values == {"count": count, "low": 2, "high": 12}


@pytest.mark.parametrize("count", [2, 12])
def test_the_limits_themselves_are_taken(count):
    options = [f"Option {number}" for number in range(count)]
    parsed = choice.KIND.parse("questions[0]", "How often?", {"options": options})
    assert len(parsed.choices) == count


def test_an_option_typed_with_markup_stays_text(client, make_survey):
    """The option's label reaches the survey page escaped once, as typed."""
    slug, _ = make_survey(
        {
            "title": "Ethics",
            "flip_probability": 0.25,
            "questions": [{"text": "How often?", "type": "choice", "options": [TYPED, "Often"]}],
        }
    )
    page = client.get(f"/s/{slug}").text
    assert str(escape(TYPED)) in page and TYPED not in page
