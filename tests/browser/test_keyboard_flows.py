"""The whole student and professor flows with the keyboard alone, and a projector that redraws
without taking the focus, announcing politely, and without motion when motion is turned down.

Keys go to whatever has the focus (Selenium's ActionChains without a target element), so a
control the Tab key cannot reach fails the test: nothing is clicked. WCAG 2.1: 2.1.1 Keyboard,
2.4.3 Focus order, 4.1.3 Status messages, 2.3.3 (motion from interactions, AAA, kept anyway).
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.storage.models import Submission, Survey
from survey_app.surveys.services import find_survey
from tests.conftest import ANALYST_PASSWORD
from tests.unit.results.test_results_api import submit

pytestmark = pytest.mark.browser

WAIT_SECONDS = 15  # generous against a slow CI machine; every step here takes well under 2 s
MOST_TABS = 120  # more stops than any page has; a control past them is unreachable


def press(driver, *keys) -> None:
    """Keys typed into whatever has the focus, as a keyboard would."""
    ActionChains(driver).send_keys(*keys).perform()


def tab_until(driver, reached, what: str):
    """Press Tab until ``reached(focused element)``; fail if it never is."""
    for _ in range(MOST_TABS):
        focused = driver.switch_to.active_element
        if reached(focused):
            return focused
        press(driver, Keys.TAB)
    raise AssertionError(f"the Tab key never reaches {what} on {driver.current_url}")


def tab_to(driver, css: str):
    """Press Tab until the focus reaches ``css``."""
    target = WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_element(By.CSS_SELECTOR, css)
    )
    return tab_until(driver, lambda focused: focused == target, css)


def replace_text(driver, css: str, text: str) -> None:
    tab_to(driver, css)
    chain = ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL)
    chain.send_keys(Keys.BACKSPACE, text).perform()


def submissions_of(app, slug: str) -> int:
    with app.app_context():
        survey_id = find_survey(slug).id
        return db.session.scalar(select(func.count()).where(Submission.survey_id == survey_id))


def test_a_student_joins_and_answers_with_the_keyboard_alone(make_chromium, live_app, survey):
    slug, _ = survey
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(live_app.url("/"))
    tab_to(phone, "#join-code")
    press(phone, code, Keys.ENTER)
    WebDriverWait(phone, WAIT_SECONDS).until(lambda d: f"/s/{slug}" in d.current_url)
    WebDriverWait(phone, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "submit-survey").is_enabled()
    )
    questions = phone.find_elements(By.CSS_SELECTOR, "fieldset.question")
    assert questions
    for question in questions:
        # A radio group is one Tab stop; the arrow key moves to the next option and picks it.
        radios = question.find_elements(By.CSS_SELECTOR, "input[type=radio]")
        tab_until(phone, lambda focused, radios=radios: focused in radios, "an option")
        press(phone, Keys.ARROW_DOWN)
        assert question.find_elements(By.CSS_SELECTOR, "input[type=radio]:checked")
    tab_to(phone, "#submit-survey")
    press(phone, Keys.ENTER)
    WebDriverWait(phone, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "thank-you").is_displayed()
    )
    assert submissions_of(live_app.app, slug) == 1


def test_a_professor_builds_opens_and_closes_a_survey_with_the_keyboard_alone(
    make_chromium, live_app, analyst
):
    driver = make_chromium()
    driver.set_window_size(1280, 900)
    driver.get(live_app.url("/analyst/login"))
    tab_to(driver, "#email")
    press(driver, analyst)
    tab_to(driver, "#password")
    press(driver, ANALYST_PASSWORD, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: "/analyst/login" not in d.current_url)
    tab_to(driver, "#new-survey")
    press(driver, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.current_url.endswith("/surveys/new"))
    replace_text(driver, "#title", "Sleep and study, by keyboard")
    replace_text(driver, "#question-text-0", "Did you sleep more than seven hours last night?")
    tab_to(driver, "#save-survey")
    press(driver, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_elements(By.ID, "open-survey"))
    slug = driver.current_url.rstrip("/").rsplit("/", 1)[-1]
    tab_to(driver, "#open-survey")
    press(driver, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_elements(By.ID, "close-survey"))
    tab_to(driver, "#close-survey")
    press(driver, Keys.ENTER)
    tab_to(driver, "#confirm-close")
    press(driver, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "survey-status-badge").text == "closed"
    )
    with live_app.app.app_context():
        survey = db.session.scalar(select(Survey).where(Survey.slug == slug))
        assert survey.title == "Sleep and study, by keyboard"
        assert [question.text for question in survey.questions] == [
            "Did you sleep more than seven hours last night?"
        ]


def test_the_projector_redraws_politely_without_taking_the_focus_or_moving(
    make_chromium, live_app, analyst, survey
):
    """With motion turned down: the count changes, in a polite status region; the focus stays on
    the professor's control; nothing on the page animates or transitions."""
    slug, _ = survey
    driver = make_chromium()
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
    )
    driver.set_window_size(1280, 720)
    driver.get(live_app.url("/analyst/login"))
    driver.find_element(By.ID, "email").send_keys(analyst)
    driver.find_element(By.ID, "password").send_keys(ANALYST_PASSWORD, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: "/analyst/login" not in d.current_url)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    focused = tab_to(driver, "#back-to-dashboard")
    before = driver.find_element(By.ID, "present-count").text
    submit(live_app.app, slug, [(1, 0)] * 10 + [(0, 1)] * 12)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "present-count").text != before
    )
    assert driver.switch_to.active_element == focused
    announced = driver.execute_script(
        """
        const count = document.getElementById("present-count");
        const region = count.closest("[role=status], [aria-live]");
        return region && (region.getAttribute("aria-live") || region.getAttribute("role"));
        """
    )
    assert announced in ("polite", "status")
    assert not driver.find_elements(By.CSS_SELECTOR, "[aria-live=assertive], [role=alert]")
    moving = driver.execute_script(
        """
        return Array.from(document.querySelectorAll("body *")).filter((element) => {
          const style = getComputedStyle(element);
          const seconds = (text) => Math.max(...text.split(",").map(parseFloat));
          return seconds(style.transitionDuration) > 0 || (style.animationName !== "none" &&
                 seconds(style.animationDuration) > 0);
        }).map((element) => element.id || element.className);
        """
    )
    assert moving == []
