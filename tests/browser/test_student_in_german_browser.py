"""A German class answers in headless Chromium: a survey pinned to German speaks German to a
browser that asks for English, its script says what is wrong in German, the "3,5" a student
types is sent as the randomized report of 3.5 and "1.234,5" (German grouping, unclear in
English) as that of 1234.5 (JSON numbers, as in every language); the page fits 360 px.
"""

from __future__ import annotations

import math

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app import privacy
from tests.browser.respondent_helpers import saved_state
from tests.browser.test_numeric_end_to_end import report_from_noise, stored
from tests.numeric_helpers import HOURS

pytestmark = pytest.mark.browser


def test_a_german_student_types_3_comma_5_and_reads_every_message_in_german(
    make_chromium, live_app, make_survey
):
    minutes = {
        "text": "Minuten Lesen im Monat?",
        "type": "numeric",
        "min": 0,
        "max": 20000,
        "unit": "min",
        "mechanism": "hybrid",
    }
    german = {**HOURS, "language": "de", "questions": [*HOURS["questions"], minutes]}
    slug, (number_id, yes_no_id, minutes_id) = make_survey(german)
    phone = make_chromium()
    phone.set_window_size(360, 800)
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert phone.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de"
    assert phone.find_element(By.ID, "submit-survey").text == (
        "Meine zufällig veränderten Antworten senden"
    )
    label = phone.find_element(By.CSS_SELECTOR, f"label[for=answer-{number_id}]")
    assert label.text == "Ihre Antwort (hours)"
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360
    noise = saved_state(phone, slug)["table"][str(number_id)]["noise"]
    minutes_noise = saved_state(phone, slug)["table"][str(minutes_id)]["noise"]
    yes_no_sent = saved_state(phone, slug)["table"][str(yes_no_id)][1]

    # Not a number: the note under the field and the status line say so in German.
    field = phone.find_element(By.ID, f"answer-{number_id}")
    field.send_keys("zwölf")
    phone.find_element(By.CSS_SELECTOR, f'input[data-question-id="{yes_no_id}"][value="1"]').click()
    phone.find_element(By.ID, "submit-survey").click()
    status = phone.find_element(By.ID, "survey-status")
    WebDriverWait(phone, 15).until(lambda d: status.text.startswith("Bitte prüfen Sie Frage 1:"))
    note = phone.find_element(By.ID, f"answer-{number_id}-error").text
    assert note == "Geben Sie eine Zahl ein, etwa 12 oder 2,5 („zwölf“ ist keine)."
    assert stored(live_app, slug) == []

    # "3,5" is 3.5 and "1.234,5" is 1234.5: their randomized reports are sent, and the thanks
    # are German.
    field.clear()
    field.send_keys("3,5")
    phone.find_element(By.ID, f"answer-{minutes_id}").send_keys("1.234,5")
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert phone.find_element(By.CSS_SELECTOR, "#thank-you h2").text == (
        "Danke: Ihre zufällig veränderten Antworten wurden gespeichert."
    )
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    expected = report_from_noise(3.5, 0.0, 40.0, mechanism.browser_parameters(), noise)
    wide = privacy.numeric_mechanism(0.0, 20000.0, math.log(3), "hybrid")
    read = report_from_noise(1234.5, 0.0, 20000.0, wide.browser_parameters(), minutes_noise)
    assert stored(live_app, slug) == [f"{expected},{yes_no_sent},{read}"]
