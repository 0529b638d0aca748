"""A numeric question end to end in headless Chromium (issue 14): a student on a 360-pixel phone
types a number, the page sends only its randomized report, the professor's dashboard shows the
average with its guaranteed range, the mechanism and why, and the spread.

The report the page sends is checked against one worked out here, independently of the page's
script, from the noise the page drew and kept (localStorage) and the number typed.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import select

from survey_app import privacy
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage.models import Submission
from survey_app.surveys.services import find_survey
from tests.browser.respondent_helpers import saved_state
from tests.browser.test_accessibility import signed_in
from tests.numeric_helpers import HOURS  # the hybrid named: its reports are read here

pytestmark = pytest.mark.browser

WORDS = 2**32


def report_from_noise(value: float, lo: float, hi: float, params: dict, noise: dict) -> int:
    """The hybrid mechanism's report of ``value`` with the page's noise, worked out in Python."""
    steps, width = params["steps"], params["width"]
    position = float(privacy.numeric_grid.grid_position(value, lo, hi))
    floor = math.floor(position)
    k = min(steps, floor + (noise["rounding"] < math.floor((position - floor) * WORDS)))
    if noise["part"] < params["piecewise_threshold"]:
        if noise["window"] < params["window_threshold"]:
            return k + noise["offset"]
        return noise["outside"] + width if noise["outside"] >= k else noise["outside"]
    high = noise["duchi"] < params["duchi_base"] + k * params["duchi_slope"]
    return steps + width + (1 if high else 0)


def stored(live_app, slug: str) -> list[str]:
    with live_app.app.app_context():
        survey = find_survey(slug)
        rows = db.session.execute(
            select(Submission.answers).where(Submission.survey_id == survey.id)
        )
        return list(rows.scalars())


def test_a_number_typed_on_a_phone_is_sent_randomized_and_shown_on_the_dashboard(
    make_chromium, live_app, make_survey, analyst
):
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    phone = make_chromium()
    phone.set_window_size(360, 800)
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    state = saved_state(phone, slug)
    noise = state["table"][str(number_id)]["noise"]
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert set(noise) == {"rounding", "part", "window", "offset", "outside", "duchi"}

    # The field is labelled, fits the phone, and brings up a decimal keypad.
    field = phone.find_element(By.ID, f"answer-{number_id}")
    label = phone.find_element(By.CSS_SELECTOR, f"label[for=answer-{number_id}]")
    assert label.text == "Your answer (hours)"
    assert field.get_attribute("inputmode") == "decimal"
    assert field.rect["x"] + field.rect["width"] <= 360
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360

    # Not a number: named, nothing sent.
    field.send_keys("twelve")
    phone.find_element(By.CSS_SELECTOR, f'input[data-question-id="{yes_no_id}"][value="1"]').click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(
        lambda d: "a number, like 12 or 2.5" in d.find_element(By.ID, "survey-status").text
    )
    assert field.get_attribute("aria-invalid") == "true"
    assert stored(live_app, slug) == []

    # A decimal comma, as phones in many languages type it.
    field.clear()
    field.send_keys("12,5", Keys.ENTER)
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    expected = report_from_noise(12.5, 0.0, 40.0, mechanism.browser_parameters(), noise)
    yes_no_sent = state["table"][str(yes_no_id)][1]
    assert stored(live_app, slug) == [f"{expected},{yes_no_sent}"]
    assert mechanism.is_valid_output(expected)
    # Sent: the browser keeps only that it answered, not the noise (which with the export
    # would give the number away).
    assert saved_state(phone, slug) == {"submitted": True}
    assert field.get_attribute("value") == ""

    # Enough answers for the dashboard's figures.
    rng = np.random.default_rng(2026_12_15)
    reports = [expected, *mechanism.randomize(rng.uniform(5, 20, 29), rng).tolist()]
    with live_app.app.app_context():
        for report in reports[1:]:
            record_submission(
                slug,
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(number_id): report, str(yes_no_id): 0},
                },
            )
    professor = signed_in(make_chromium, live_app, analyst)
    professor.get(live_app.url(f"/analyst/surveys/{slug}"))
    section = professor.find_element(By.ID, f"question-{number_id}")
    words = section.text
    estimate = mechanism.estimate_mean(reports, 0.95)
    assert f"On average about {estimate.mean:.1f} hours".replace(".0 ", " ") in words
    assert "guaranteed at least 95% of the time" in words
    # How the range was worked out waits in a disclosure beneath: opened, it names the mechanism.
    assert "Wang et al." not in words
    section.find_element(By.CSS_SELECTOR, "details.how-worked-out summary").click()
    words = section.text
    assert "The hybrid mechanism (Wang et al., 2019) randomized each number" in words
    assert "The survey’s definition asks for this mechanism" in words
    bars = section.find_elements(By.CSS_SELECTOR, "svg.spread rect")
    assert len(bars) == 10
    assert section.find_element(By.CSS_SELECTOR, "svg.spread title").get_attribute("textContent")
