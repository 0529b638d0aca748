"""What the tests of numeric questions share: a survey of hours (HOURS), definitions of one
number question, and sending answers as a browser would.
"""

from __future__ import annotations

import math
import uuid

import numpy as np

from survey_app import privacy

HOURS = {
    "title": "Study time",
    "flip_probability": 0.25,
    "questions": [
        {
            "text": "Hours a week on this course?",
            "type": "numeric",
            "min": 0,
            "max": 40,
            "unit": "hours",
            # Named: these tests read the hybrid's reports and its spread. The one chosen by
            # default (the narrowest range at the class size) is tested with CHOSEN_HOURS.
            "mechanism": "hybrid",
        },
        {"text": "Used the forum?", "type": "yes_no"},
    ],
}


#: The same, with the mechanism left to the app's choice.
CHOSEN_HOURS = {
    **HOURS,
    "questions": [
        {key: value for key, value in HOURS["questions"][0].items() if key != "mechanism"},
        HOURS["questions"][1],
    ],
}


def numeric(**fields) -> dict:
    return {"text": "How many?", "type": "numeric", "min": 0, "max": 10, **fields}


def definition_with(question: dict, flip_probability: float = 0.25) -> dict:
    return {"title": "T", "flip_probability": flip_probability, "questions": [question]}


def post(client, slug: str, answers: dict, submission_id: str | None = None):
    body = {"submission_id": submission_id or str(uuid.uuid4()), "answers": answers}
    return client.post(f"/api/v1/surveys/{slug}/responses", json=body)


def submit_numbers(client, slug, number_id, yes_no_id, values, seed=7):
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    rng = np.random.default_rng(seed)
    reports = mechanism.randomize(np.asarray(values, dtype=float), rng).tolist()
    for report in reports:
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    return mechanism, reports
