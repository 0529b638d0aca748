"""LTI 1.3 launches driven by headless Chromium, in the top-level window ("open in a new
window"), from the tests' own platform (tests/lti_platform.py): a link on its course page, the
tool's login, the platform's authorization endpoint posting the signed id_token back, and the
landing. A learner answers the survey; an instructor links their course account once by signing
in, launches again with no form, and adds a survey to the course by deep linking, which the
platform verifies."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from survey_app.extensions import db
from survey_app.lti.platforms import add_platform
from tests.browser.respondent_helpers import answer, stored_respondents, submit_and_wait, wait
from tests.conftest import ANALYST_PASSWORD
from tests.lti_platform import CLAIM, CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, LEARNER, Platform

pytestmark = pytest.mark.browser

CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"


@pytest.fixture
def course(live_app):
    """The platform, registered with the live app, with a learner and an instructor."""
    platform = Platform()
    platform.tool_base = live_app.base_url
    platform.users = {
        "learner-1": {"sub": "learner-sub-1", "name": "Ada Student", CLAIM + "roles": [LEARNER]},
        "teacher-1": {"sub": "teacher-sub-1", "name": "Grace Prof", CLAIM + "roles": [INSTRUCTOR]},
    }
    with live_app.app.app_context():
        add_platform(platform.issuer, CLIENT_ID, [DEPLOYMENT_ID], platform.urls)
        db.session.commit()
    yield platform
    platform.stop()


def launch(driver, course, user: str, survey: str | None, landed: str) -> None:
    """Open the course page and click its link; wait until the tool's page ``landed`` (an
    element's id) shows."""
    driver.get(course.course_url(user, survey))
    driver.find_element(By.ID, "open-tool").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, landed)))


def test_a_learner_clicks_the_course_link_and_answers(driver, live_app, course, survey):
    slug, question_ids = survey
    launch(driver, course, "learner-1", slug, "submit-survey")
    assert urlsplit(driver.current_url).path == f"/s/{slug}"
    wait(driver).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    answer(driver, {question_ids[0]: 1, question_ids[1]: 2})
    submit_and_wait(driver)
    assert stored_respondents(live_app, slug) == 1  # stored, counted once


def test_an_instructor_links_once_launches_with_no_form_and_adds_a_survey(
    driver, live_app, course, survey, analyst
):
    slug, _ = survey
    # The first launch: the page that links the course account, once, by signing in.
    launch(driver, course, "teacher-1", slug, "link-sign-in")
    driver.find_element(By.ID, "existing-email").send_keys(analyst)
    driver.find_element(By.ID, "existing-password").send_keys(ANALYST_PASSWORD)
    driver.find_element(By.ID, "link-sign-in-button").click()
    wait(driver).until(lambda d: urlsplit(d.current_url).path == f"/analyst/surveys/{slug}")
    # Signed out, then the course's link again: signed in with no form.
    driver.find_element(By.CSS_SELECTOR, "form[action$='/logout'] button").click()
    wait(driver).until(lambda d: urlsplit(d.current_url).path == "/analyst/login")
    launch(driver, course, "teacher-1", slug, "account-link")
    assert urlsplit(driver.current_url).path == f"/analyst/surveys/{slug}"

    # Deep linking: the choice of a survey, then back to the course, which verifies it.
    launch(driver, course, "teacher-1", None, "choose-survey")
    driver.find_element(By.CSS_SELECTOR, "#choose-survey button[type=submit]").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, "return-to-course")))
    driver.find_element(By.CSS_SELECTOR, "#return-to-course button").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, "added")))
    (claims,) = course.deep_links  # verified against the tool's key set on arrival
    (item,) = claims[CONTENT_ITEMS]
    assert item["custom"] == {"survey": slug}
