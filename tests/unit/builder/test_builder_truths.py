"""The builder says only what is true of the survey it shows: a reopened draft or a copy plans
every question it has (no question left out that is ready), its suggestion and the students it
needs are worked out with the mechanism the planned class would get, and its flip probability
is typed as any number is (a decimal comma too) with its limits said in one way.
"""

from __future__ import annotations

import html
import re

from tests.analyst_helpers import token_of

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
    fields = {
        "csrf_token": token_of(signed_in),
        "title": "T",
        "flip_probability": "0.25",
        "question_text": ["Ever?", "Hours?"],
        "question_type": ["yes_no", "numeric"],
        "question_options": ["", ""],
        "question_min": ["", "0"],
        "question_max": ["", ""],
        "question_unit": ["", "hours"],
        "question_mechanism": ["", ""],
    }
    plan = signed_in.post("/analyst/privacy-readout", data=fields).get_json()["planning"]
    assert plan["text"].endswith(
        " (1 number question without a usable smallest and largest answer yet left out.)"
    )
    assert "multiple-choice" not in plan["text"]
