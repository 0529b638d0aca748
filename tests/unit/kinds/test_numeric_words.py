"""A number question's field on the survey page (survey_app.kinds.numeric: answer_label,
answer_hint): a whole sentence with a unit and without, its bounds worded as the results word
them (format_number, and a unit as its figure wants it), and a unit the professor typed left as
text for the page to escape."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from markupsafe import Markup, escape

from survey_app.kinds import numeric

#: Text a professor might type into a unit.
TYPED = '<b>hours</b> & "naps"'
ESCAPED = "&lt;b&gt;hours&lt;/b&gt; &amp; &#34;naps&#34;"

OUTSIDE = "A number outside counts as the nearest of the two."


def question(minimum: float = 0, maximum: float = 40, unit: str | None = "hours"):
    """A number question as the page has it (storage.models.Question: minimum, maximum, and a
    unit that is empty or None without one)."""
    return SimpleNamespace(minimum=minimum, maximum=maximum, unit=unit)


@pytest.mark.parametrize(
    ("unit", "label"),
    [("hours", "Your answer (hours)"), ("", "Your answer"), (None, "Your answer")],
)
def test_the_number_fields_label(unit, label):
    assert numeric.KIND.answer_label(question(unit=unit)) == label


@pytest.mark.parametrize(
    ("minimum", "maximum", "unit", "hint"),
    [
        (0, 40, "hours", f"A number from 0 to 40 hours. {OUTSIDE}"),
        (0, 40, "", f"A number from 0 to 40. {OUTSIDE}"),
        (0, 40, None, f"A number from 0 to 40. {OUTSIDE}"),
        (0, 1, "hours", f"A number from 0 to 1 hour. {OUTSIDE}"),
        (0.5, 2.5, "cups of coffee", f"A number from 0.5 to 2.5 cups of coffee. {OUTSIDE}"),
        (-10.25, 1e6, "", f"A number from -10.25 to 1000000. {OUTSIDE}"),
    ],
    ids=["in a unit", "no unit", "a unit of None", "to one", "decimals", "negative and large"],
)
def test_the_number_fields_hint(minimum, maximum, unit, hint):
    """The bounds as format_number words them (no needless decimals, no thousands separator:
    as the builder and the results say a bound), the unit as the upper bound wants it."""
    assert numeric.KIND.answer_hint(question(minimum, maximum, unit)) == hint


def test_a_unit_the_professor_typed_is_left_for_the_page_to_escape():
    """The label and hint are text, not markup: the template's autoescape escapes the unit."""
    for said in (
        numeric.KIND.answer_label(question(unit=TYPED)),
        numeric.KIND.answer_hint(question(unit=TYPED)),
    ):
        assert not isinstance(said, Markup) and ESCAPED in escape(said)


def test_the_survey_page_places_the_field_escaped(client, make_survey):
    """The number field as the survey page shows it, a typed unit escaped once."""
    slug, (number_id,) = make_survey(
        {
            "title": "Sleep",
            "flip_probability": 0.25,
            "questions": [{"text": "Sleep?", "type": "numeric", "min": 0, "max": 1, "unit": TYPED}],
        }
    )
    page = " ".join(client.get(f"/s/{slug}").text.split())
    assert f'<label for="answer-{number_id}">Your answer ({ESCAPED})</label>' in page
    assert f"A number from 0 to 1 {ESCAPED}. {OUTSIDE}" in page
