"""Numeric questions in the builder: its live readout in the question's unit, Warner's coins,
saving, the bounds as typed (thousands separators refused, limits kept over a resave).
"""

from __future__ import annotations

import html
import math
import re

import pytest

from survey_app import privacy
from survey_app.extensions import db
from survey_app.surveys.services import find_survey
from tests.numeric_helpers import (
    numeric,
)


def test_the_builder_readout_plans_numbers_in_their_unit(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    form = {
        "title": "T",
        "flip_probability": "0.25",
        "question_text": ["Hours?"],
        "question_type": ["numeric"],
        "question_min": ["0"],
        "question_max": ["40"],
        "question_unit": ["hours"],
        "question_mechanism": [""],
        "question_options": [""],
        "class_size": "100",
        "margin": "25",
    }
    page = client.get("/analyst/surveys/new").text
    form["csrf_token"] = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    readout = client.post("/analyst/privacy-readout", data=form).get_json()
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), respondents=100)
    half_width = mechanism.half_width(100)
    shown = f"{math.ceil(half_width * 10 - 1e-9) / 10:.1f}".rstrip("0").rstrip(".")
    assert readout["planning"]["text"] == (
        f"With 100 students, the average of “Hours?” within ±{shown} hours (guaranteed ranges)."
    )
    # With 20 students the margin passes 40% of the range (±16 hours): the readout says so.
    small = client.post("/analyst/privacy-readout", data={**form, "class_size": "20"}).get_json()
    wide = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").half_width(20)
    assert wide >= 16.0 > half_width
    assert small["planning"]["text"].endswith(
        "hours, which says next to nothing (guaranteed ranges)."
    )
    assert "next to nothing" not in readout["planning"]["text"]
    # ±25 points of a range of 40 hours: ±10 hours.
    suggestion = readout["suggestion"]
    assert "±25 percentage points (±10 hours for “Hours?”)" in suggestion["text"]
    p = suggestion["flip_probability"]
    assert 0.05 < p < privacy.MAX_SUGGESTED_FLIP_PROBABILITY
    epsilon = privacy.epsilon_from_flip_probability(p)
    # With the mechanism a class of 100 gets (the one its survey would have).
    assert privacy.numeric_mechanism(0.0, 40.0, epsilon, None, 100).half_width(100) <= 10.0
    # A hundredth more privacy would miss the margin: the suggestion is the most private.
    looser = privacy.epsilon_from_flip_probability(p + 0.01)
    assert privacy.numeric_mechanism(0.0, 40.0, looser, None, 100).half_width(100) > 10.0


def test_warners_coins_set_the_flip_probability(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new").text
    assert 'id="warner_q"' in page and 'value="0.5"' in page  # q = 2p at p = 0.25
    token = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    form = {
        "csrf_token": token,
        "title": "T",
        "flip_probability": "0.25",
        "warner_q": "0.3",
        "question_text": ["Q"],
        "question_type": ["yes_no"],
        "question_options": [""],
        "question_min": [""],
        "question_max": [""],
        "question_unit": [""],
        "question_mechanism": [""],
        "action": "apply_warner",
    }
    again = client.post("/analyst/surveys/new", data=form).text
    assert 'name="flip_probability" type="text" inputmode="decimal"' in again
    assert re.search(r'id="flip_probability"[^>]*value="0.15"', again)


def test_the_builder_saves_a_numeric_question(client, sign_in_as, analyst, app):
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new").text
    token = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    form = {
        "csrf_token": token,
        "title": "Study time",
        "flip_probability": "0.25",
        "question_text": ["Hours a week?", "Forum?"],
        "question_type": ["numeric", "yes_no"],
        "question_options": ["", ""],
        "question_min": ["0", ""],
        "question_max": ["40,5", ""],
        "question_unit": ["hours", ""],
        "question_mechanism": ["laplace", ""],
        "action": "save",
    }
    bad = client.post("/analyst/surveys/new", data={**form, "question_max": ["zero", ""]})
    assert bad.status_code == 400
    assert "Question 1’s largest answer must be a number, like 10 or 2.5" in bad.text
    assert 'value="zero"' in bad.text  # what was typed is kept
    saved = client.post("/analyst/surveys/new", data=form)
    assert saved.status_code == 302
    slug = saved.headers["Location"].rsplit("/", 1)[-1]
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.5, "hours")
        assert question.numeric_mechanism == "laplace"
    edit = client.get(f"/analyst/surveys/{slug}/edit").text
    assert 'id="question-max-0" name="question_max" inputmode="decimal" value="40.5"' in edit
    assert '<option value="laplace" selected>' in edit


def test_without_javascript_the_builder_shows_options_only_for_multiple_choice(
    client, make_survey, sign_in_as, analyst
):
    definition = {
        "title": "T",
        "flip_probability": 0.25,
        "questions": [
            numeric(),
            {"text": "Forum?", "type": "yes_no"},
            {"text": "Which?", "type": "choice", "options": ["a", "b"]},
        ],
    }
    slug, _ = make_survey(definition, status="draft")
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}/edit").text
    boxes = re.findall(r'<div class="choice-options"([^>]*)>', page)
    assert [("hidden" in attributes) for attributes in boxes] == [True, True, False]


def number_form(client, **fields) -> dict:
    """The builder's form, with its CSRF token, for one number question; ``fields`` override."""
    page = client.get("/analyst/surveys/new").text
    return {
        "csrf_token": re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1),
        "title": "T",
        "flip_probability": "0.25",
        "question_text": "How much?",
        "question_type": "numeric",
        "question_options": "",
        "question_min": "0",
        "question_max": "10",
        "question_unit": "",
        "question_mechanism": "",
        "action": "save",
        **fields,
    }


@pytest.mark.parametrize(
    "typed", ["1,000", "1,000,000", "1.000,5", "2.5.1", "12 5", "1.000", "-12.500"]
)
def test_the_builder_refuses_a_bound_with_a_thousands_separator(client, sign_in_as, analyst, typed):
    """ "1,000" is a thousand in English and one in French: the builder asks which."""
    sign_in_as(client, analyst)
    form = number_form(client, question_text="Dollars?", question_max=typed)
    refused = client.post("/analyst/surveys/new", data=form)
    assert refused.status_code == 400
    text = html.unescape(refused.text)
    assert (
        "Question 1’s largest answer is not clear: write 1000 without a thousands separator, "
        "or 1.5 with one decimal point or comma"
    ) in text
    assert f'id="question-max-0" name="question_max" inputmode="decimal" value="{typed}"' in text
    saved = client.post("/analyst/surveys/new", data={**form, "question_max": "2,5"})
    assert saved.status_code == 302  # one decimal comma is still a decimal point
    # No one groups thousands after a 0: three decimals after one are clear.
    assert (
        client.post("/analyst/surveys/new", data={**form, "question_max": "0.125"}).status_code
        == 302
    )
    # Thousands grouped by spaces, and a minus sign typed as such, are clear (typed_numbers.json).
    for low, high in (("0", "1 000"), ("\u22123", "10")):
        bounds = {"question_min": low, "question_max": high}
        assert client.post("/analyst/surveys/new", data={**form, **bounds}).status_code == 302


@pytest.mark.parametrize(
    ("low", "high"),
    [("0", "0.000001"), ("-1000000000000", "1000000000000"), ("-0.123456", "98765.654321")],
)
def test_bounds_at_the_limits_work_and_survive_a_resave(
    client, sign_in_as, analyst, app, low, high
):
    sign_in_as(client, analyst)
    form = number_form(client, question_min=low, question_max=high)
    saved = client.post("/analyst/surveys/new", data=form)
    assert saved.status_code == 302, html.unescape(saved.text)
    slug = saved.headers["Location"].rsplit("/", 1)[-1]
    assert client.get(f"/analyst/surveys/{slug}").status_code == 200
    with app.app_context():
        question = find_survey(slug).questions[0]
        bounds = (question.minimum, question.maximum)
    # Saved again from the fields the builder shows, the bounds do not move.
    edit = client.get(f"/analyst/surveys/{slug}/edit").text
    shown = [
        re.search(rf'name="question_{name}" inputmode="decimal" value="([^"]*)"', edit).group(1)
        for name in ("min", "max")
    ]
    again = client.post(
        f"/analyst/surveys/{slug}/edit",
        data={**form, "question_min": shown[0], "question_max": shown[1]},
    )
    assert again.status_code == 302
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum) == bounds == (float(low), float(high))


def test_the_builder_names_a_bound_too_wide(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    too_wide = "1" + "0" * 200  # exponents (1e200) are no typed number (typed_numbers.json)
    refused = client.post("/analyst/surveys/new", data=number_form(client, question_max=too_wide))
    assert refused.status_code == 400
    assert "Question 1’s largest answer must be between -1,000,000,000,000" in refused.text
    exponent = client.post("/analyst/surveys/new", data=number_form(client, question_max="1e3"))
    assert "Question 1’s largest answer must be a number, like 10 or 2.5" in exponent.text


def test_the_builder_saves_the_class_size_with_the_survey(app, client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    form = number_form(client, title="Planned", class_size="120")
    assert client.post("/analyst/surveys/new", data=form).status_code == 302
    with app.app_context():
        from survey_app.storage.models import Survey

        survey = db.session.execute(db.select(Survey).filter_by(title="Planned")).scalar_one()
        assert survey.expected_respondents == 120
        slug = survey.slug
    editor = client.get(f"/analyst/surveys/{slug}/edit").text
    assert re.search(r'name="class_size"[^>]*value="120"', editor)
