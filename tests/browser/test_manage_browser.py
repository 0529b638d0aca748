"""Closing and deleting with the keyboard alone: each asks first, on a page of its own.

The professor reaches every control with Tab and presses it with Enter (a link) or Space (a
button), as a keyboard or screen reader user does; nothing is clicked.
"""

from __future__ import annotations

import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage.models import Submission, SurveyStatus
from survey_app.surveys.services import find_survey
from tests.browser.test_accessibility import signed_in

pytestmark = pytest.mark.browser

#: Tab presses allowed to reach a control: the header's links come first; a confirmation page
#: has little else before its button.
MAX_TABS = 40


def tab_to(driver, element_id: str) -> None:
    """Press Tab (on a page just loaded: from its top) until ``element_id`` has the focus."""
    for _ in range(MAX_TABS):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        if driver.switch_to.active_element.get_attribute("id") == element_id:
            return
    pytest.fail(f"#{element_id} was not reached in {MAX_TABS} presses of Tab")


def press_and_wait(driver, key: str) -> None:
    """Press a key on the focused control, and wait for the page it loads."""
    old = driver.find_element(By.TAG_NAME, "html")
    driver.switch_to.active_element.send_keys(key)
    WebDriverWait(driver, 15).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def answer(live_app, slug: str, question_ids: list[int], count: int) -> None:
    for index in range(count):
        with live_app.app.app_context():
            record_submission(
                slug,
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(question_ids[0]): index % 2, str(question_ids[1]): index % 3},
                },
            )


def test_closing_with_the_keyboard_asks_first(make_chromium, live_app, analyst, survey):
    slug, question_ids = survey
    answer(live_app, slug, question_ids, 3)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))

    tab_to(driver, "close-survey")
    press_and_wait(driver, Keys.ENTER)

    assert driver.current_url.endswith(f"/analyst/surveys/{slug}/close")
    assert driver.find_element(By.TAG_NAME, "h1").text.startswith("Close “")
    words = driver.find_element(By.ID, "close-consequences").text
    assert "takes no more answers" in words and "3 answers so far" in words
    with live_app.app.app_context():
        assert find_survey(slug).status == SurveyStatus.OPEN  # asking changed nothing

    tab_to(driver, "confirm-close")
    press_and_wait(driver, Keys.SPACE)

    assert driver.current_url.endswith(f"/analyst/surveys/{slug}")
    assert driver.find_element(By.ID, "survey-status-badge").text == "closed"
    assert "The survey is closed" in driver.find_element(By.CSS_SELECTOR, ".flashes").text
    with live_app.app.app_context():
        assert find_survey(slug).status == SurveyStatus.CLOSED


def test_deleting_with_the_keyboard_names_the_survey_and_its_answers(
    make_chromium, live_app, analyst, make_survey
):
    slug, question_ids = make_survey()
    answer(live_app, slug, question_ids, 4)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))

    tab_to(driver, "delete-survey")
    press_and_wait(driver, Keys.ENTER)

    heading = driver.find_element(By.TAG_NAME, "h1").text
    assert heading == "Delete “Academic integrity (sample)” and its 4 answers?"
    assert "cannot be undone" in driver.find_element(By.ID, "delete-consequences").text
    # Cancelling is one Tab further, and keeps everything.
    tab_to(driver, "cancel-delete")
    press_and_wait(driver, Keys.ENTER)
    assert driver.current_url.endswith(f"/analyst/surveys/{slug}")
    driver.get(live_app.url(f"/analyst/surveys/{slug}/delete"))

    tab_to(driver, "confirm-delete")
    press_and_wait(driver, Keys.SPACE)

    assert driver.current_url == live_app.url("/analyst/")
    assert "and its answers were deleted" in driver.find_element(By.CSS_SELECTOR, ".flashes").text
    with live_app.app.app_context():
        assert find_survey(slug) is None
        assert db.session.execute(select(func.count()).select_from(Submission)).scalar() == 0
