"""The builder says only what is true of the survey it shows: a reopened draft or a copy plans
every question it has (no question left out that is ready), its suggestion and the students it
needs are worked out with the mechanism the planned class would get, and its flip probability
is typed as any number is (a decimal comma too) with its limits said in one way.
"""

from __future__ import annotations

import html
import re

import pytest

from survey_app import privacy
from survey_app.surveys.services import find_survey
from tests.analyst_helpers import token_of
from tests.unit.builder.test_builder_undo_and_asks import form_of

#: A survey of each kind of question, ready to plan: a yes/no, a choice and a number question.
EVERY_KIND = {
    "title": "Study habits",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        {"text": "Hours a week?", "type": "numeric", "min": 0, "max": 40, "unit": "hours"},
    ],
}


def readout_planning(page: str) -> str:
    """The builder page's planning sentence, as a person reads it."""
    found = re.search(r'<p id="readout-planning"[^>]*>(.*?)</p>', page, re.S)
    assert found, "the builder shows no plan"
    return html.unescape(found.group(1))


def test_a_reopened_draft_plans_every_question_and_leaves_none_out(signed_in, make_survey):
    slug, _ = make_survey(EVERY_KIND, status="draft")
    plan = readout_planning(signed_in.get(f"/analyst/surveys/{slug}/edit").text)
    assert "left out" not in plan
    assert "a yes/no question will be known within" in plan
    assert "“How often?” (3 options) within" in plan
    assert "the average of “Hours a week?” within ±" in plan


def test_a_copy_plans_every_question_and_leaves_none_out(signed_in, make_survey):
    slug, _ = make_survey(EVERY_KIND, status="closed")
    copied = signed_in.post(
        f"/analyst/surveys/{slug}/duplicate", data={"csrf_token": token_of(signed_in)}
    )
    plan = readout_planning(signed_in.get(copied.headers["Location"]).text)
    assert "left out" not in plan
    assert "the average of “Hours a week?” within ±" in plan


def test_a_number_question_not_ready_is_left_out_in_its_own_words(signed_in):
    questions = [{"text": "Ever?"}, {"text": "Hours?", "type": "numeric", "min": "0"}]
    fields = form_of(signed_in, questions)
    plan = signed_in.post("/analyst/privacy-readout", data=fields).get_json()["planning"]
    assert plan["text"].endswith(
        " (1 number question without a usable smallest and largest answer yet left out.)"
    )
    assert "multiple-choice" not in plan["text"]


# --------------------------------------------------------------------------- planned class size


def hours_readout(client, class_size: str, margin: str) -> dict:
    """The builder's readout for one number question, 0 to 40 hours, its mechanism automatic."""
    hours = {"text": "Hours?", "type": "numeric", "min": "0", "max": "40", "unit": "hours"}
    fields = form_of(client, [hours], class_size=class_size, margin=margin)
    return client.post("/analyst/privacy-readout", data=fields).get_json()


def reaches(p: float, n: int, hours: float) -> bool:
    """Whether a class of n, with the mechanism a survey planned for n gets, knows the average
    within ``hours`` at p."""
    epsilon = privacy.epsilon_from_flip_probability(p)
    return privacy.numeric_mechanism(0.0, 40.0, epsilon, None, n).half_width(n) <= hours


def test_the_suggestion_is_worked_out_for_the_class_planned(signed_in):
    # ±4 points of 0 to 40 hours is ±1.6 hours. With 1,000 students the hybrid is chosen at
    # p = 0.1, where a class of 40 would get Laplace (planning with Laplace said 0.09).
    suggestion = hours_readout(signed_in, "1000", "4")["suggestion"]
    p = suggestion["flip_probability"]
    assert p == 0.1
    assert reaches(p, 1000, 1.6)
    assert not reaches(p + 0.01, 1000, 1.6)  # the most private p that reaches it


def test_a_class_large_enough_is_never_told_it_is_too_few(signed_in):
    # ±2 points (±0.8 hours) with 2,000 students: reached at p = 0.05 by the mechanism a class
    # of 2,000 gets (planning with a class of 40's said 2,000 were too few, 2,246 needed).
    suggestion = hours_readout(signed_in, "2000", "2")["suggestion"]
    assert suggestion["flip_probability"] == 0.05
    assert reaches(0.05, 2000, 0.8)


def test_the_students_a_margin_takes_are_the_fewest_whose_own_mechanism_reaches_it(signed_in):
    suggestion = hours_readout(signed_in, "1000", "2")["suggestion"]
    assert suggestion["flip_probability"] is None
    needed = suggestion["respondents_at_floor"]
    assert f"that takes about {needed:,} students" in suggestion["text"]
    # A class of that many reaches ±0.8 hours at p = 0.05 with the mechanism it gets; one
    # student fewer does not, whichever mechanism it gets.
    assert reaches(0.05, needed, 0.8)
    assert not reaches(0.05, needed - 1, 0.8)
    assert needed < 2000  # the class of 40's mechanism (Laplace) would need 2,246


# --------------------------------------------------------------------------- the flip probability

#: The builder's flip probability limits, as every part of it says them.
LIMITS = "a number from 0.01 to 0.49"
REFUSED = f"The flip probability must be {LIMITS}"


def yes_no_fields(client, flip_probability: str, **more) -> dict:
    """The builder's form of one yes/no question, its flip probability as typed."""
    return form_of(client, [{"text": "Ever?"}], flip_probability=flip_probability, **more)


def test_the_decimal_fields_take_a_decimal_comma_as_the_survey_page_does(signed_in):
    page = signed_in.get("/analyst/surveys/new").text
    # Text fields with a decimal keypad: no browser check rounds "0,3" to "03" or words the
    # limits its own way.
    for name in ("flip_probability", "warner_q", "margin"):
        field = re.search(rf'<input id="{name}"[^>]*>', page).group(0)
        assert 'type="text" inputmode="decimal"' in field
        assert not re.search(r"\b(min|max|step)=", field)
    readout = signed_in.post(
        "/analyst/privacy-readout", data=yes_no_fields(signed_in, "0,3", margin="12,5")
    ).get_json()
    assert readout["flip_probability"] == 0.3
    assert readout["summary"].startswith("Each answer is flipped 30% of the time")
    assert readout["suggestion"]["margin"] == 0.125
    warner = signed_in.post(
        "/analyst/surveys/new",
        data=yes_no_fields(signed_in, "0.25", warner_q="0,3", action="apply_warner"),
    )
    assert re.search(r'id="flip_probability"[^>]*value="0.15"', warner.text)


def test_a_flip_probability_with_a_decimal_comma_is_saved(app, signed_in):
    saved = signed_in.post("/analyst/surveys/new", data=yes_no_fields(signed_in, " 0,3 "))
    assert saved.status_code == 302
    slug = saved.headers["Location"].rsplit("/", 1)[-1]
    with app.app_context():
        assert find_survey(slug).flip_probability == 0.3


@pytest.mark.parametrize("typed", ["0,6", "0.005", "0.495", "0", "half"])
def test_the_limits_are_said_one_way_everywhere(app, signed_in, typed):
    page = signed_in.get("/analyst/surveys/new").text
    assert f"(how often a yes/no answer is reversed: {LIMITS})" in html.unescape(page)
    refused = signed_in.post("/analyst/surveys/new", data=yes_no_fields(signed_in, typed))
    assert refused.status_code == 400
    words = html.unescape(refused.text)
    assert f'<p class="field-error" id="flip_probability-error">{REFUSED}</p>' in words
    assert f'<p id="readout-summary" class="error">{REFUSED}</p>' in words
    readout = signed_in.post("/analyst/privacy-readout", data=yes_no_fields(signed_in, typed))
    assert readout.get_json()["error"] == REFUSED
    # No other wording of the limits anywhere on the page.
    for other in ("0.5", "0.000001", "0.499999", "between 0"):
        assert other not in re.sub(r"<[^>]*>", " ", words).replace("0.05", "")
