"""The lesson in a real Chromium: moved through with the arrow keys, a presentation clicker's
PageUp / PageDown and the buttons; every step on one 1280x720 screen in projector type; axe-core
finds nothing at 360 and 1280 px; the students' results page too."""

from __future__ import annotations

import copy

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.extensions import db
from survey_app.privacy import MAX_OPTIONS
from survey_app.surveys.services import SAMPLE_SURVEY, close_survey, find_survey
from tests.browser.screens import word_sizes
from tests.browser.test_accessibility import axe_source, check_at_every_width, signed_in
from tests.conftest import ANALYST_PASSWORD
from tests.numeric_helpers import HOURS, submit_numbers
from tests.unit.kinds.test_paired import DEFINITION as PAIRS
from tests.unit.lesson.test_lesson_pages import ROWS
from tests.unit.lesson.test_lesson_pairs import ROWS as PAIR_ROWS
from tests.unit.results.test_results_api import submit_and_close

pytestmark = pytest.mark.browser

__all__ = ["axe_source"]  # the fixture (axe-core's script, read once a module), used by name

WAIT_SECONDS = 15
FOUR_OPTIONS = ["Bus", "Walk", "Bike", "Car"]


def on_screen(driver, width: int = 1280, height: int = 720) -> None:
    """The screen itself, as a projector in full-screen mode shows it."""
    driver.set_window_size(width, height + 200)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def step_shown(driver) -> int:
    return int(driver.find_element(By.ID, "lesson").get_attribute("data-step"))


def press(driver, key: str) -> None:
    """A key pressed with the focus on the page (not in a control), as a clicker sends it."""
    before = driver.current_url
    ActionChains(driver).send_keys(key).perform()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.current_url != before)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


@pytest.fixture
def lesson_url(live_app, make_survey):
    slug, _ = make_survey()
    submit_and_close(live_app.app, slug, ROWS)
    return live_app.url(f"/analyst/surveys/{slug}/lesson")


def test_keys_clicker_and_buttons_move_through_the_steps(
    make_chromium, live_app, analyst, lesson_url
):
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    driver.get(lesson_url)
    assert step_shown(driver) == 1
    assert driver.find_element(By.ID, "lesson-keys").is_displayed()  # the script said the keys
    press(driver, Keys.ARROW_RIGHT)
    assert step_shown(driver) == 2
    press(driver, Keys.PAGE_DOWN)  # a clicker's "next"
    assert step_shown(driver) == 3
    press(driver, Keys.PAGE_UP)  # and its "previous"
    assert step_shown(driver) == 2
    press(driver, Keys.ARROW_LEFT)
    assert step_shown(driver) == 1
    press(driver, Keys.END)
    assert step_shown(driver) == 8
    press(driver, Keys.HOME)
    assert step_shown(driver) == 1
    driver.find_element(By.ID, "lesson-next").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: step_shown(d) == 2)
    driver.find_element(By.ID, "lesson-previous").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: step_shown(d) == 1)
    # Keyboard alone: Tab reaches the Next button, Enter follows it.
    for _ in range(30):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.switch_to.active_element.get_attribute("id") == "lesson-next":
            break
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: step_shown(d) == 2)
    # An arrow key in the question chooser changes the question, not the step.
    chooser = driver.find_element(By.ID, "question")
    chooser.send_keys(Keys.ARROW_RIGHT)
    assert step_shown(driver) == 2 and "step=2" in driver.current_url


def test_step_7s_control_shows_the_servers_words_for_each_p(
    make_chromium, live_app, analyst, lesson_url
):
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    driver.get(lesson_url + "?step=7")
    words = driver.find_element(By.ID, "trade-off-words")
    assert words.text.startswith("At p = 0.25:")
    slider = driver.find_element(By.ID, "trade-off-p")
    slider.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)  # 0.25 -> 0.35
    assert step_shown(driver) == 7  # the slider keeps its keys
    row = driver.find_element(By.CSS_SELECTOR, '#trade-off-table tr[data-p="0.35"]')
    assert words.text == row.get_attribute("data-words") and "picked" in row.get_attribute("class")


def assert_every_step_fits(driver, url: str, what: str, steps: int = 8) -> None:
    """Each of the eight steps (nine for a pair) on one 1280x720 screen (no scrolling either
    way), every word of it at least 16 px (the projector's rule)."""
    for step in range(1, steps + 1):
        driver.get(f"{url}&step={step}")
        assert driver.execute_script("return [innerWidth, innerHeight]") == [1280, 720]
        where = f"{what}, step {step}"
        assert driver.execute_script("return document.documentElement.scrollHeight") <= 720, where
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 1280, where
        # The room reads it: every word of the step at least 16 px (the projector's rule).
        sizes = word_sizes(driver, ".lesson-step", "math, .lesson-control")
        assert sizes and min(sizes) >= 16, (where, sorted(sizes)[:5])
        # Every step teaches on the question's own kind: none is left to another kind.
        assert not driver.find_elements(By.CSS_SELECTOR, ".lesson-note"), where


@pytest.mark.parametrize("question", [1, 2])
def test_every_step_fits_the_projector_in_large_type(
    make_chromium, live_app, analyst, lesson_url, question
):
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    assert_every_step_fits(driver, f"{lesson_url}?question={question}", f"question {question}")


#: A choice of four answers (the most whose ranges step 4 still draws) and a yes/no question.
FOUR_ANSWERS = {
    "title": "Getting here",
    "flip_probability": 0.25,
    "questions": [
        {"text": "How do you come to class?", "type": "choice", "options": FOUR_OPTIONS},
        {"text": "Late this week?", "type": "yes_no"},
    ],
}


@pytest.mark.parametrize("kind", ["a choice of four", "a number"])
def test_every_step_of_every_kind_fits_the_projector(
    make_chromium, live_app, analyst, make_survey, kind
):
    """A choice of four answers and a number question: all eight steps teach on the
    question's own kind, each on one screen."""
    if kind == "a number":
        slug, (number_id, yes_no_id) = make_survey(HOURS)
        submit_numbers(
            live_app.app.test_client(), slug, number_id, yes_no_id, [10.0] * 20 + [30.0] * 20
        )
        with live_app.app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    else:
        slug, _ = make_survey(FOUR_ANSWERS)
        submit_and_close(live_app.app, slug, [(i % 4, i % 2) for i in range(40)])
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    url = live_app.url(f"/analyst/surveys/{slug}/lesson?question=1")
    assert_every_step_fits(driver, url, kind)


def test_every_step_of_a_pair_fits_the_projector_and_passes_axe(
    make_chromium, live_app, analyst, make_survey, axe_source
):
    """Two yes/no questions asked together: its nine steps each on one screen, the step on
    asking them together with the class's own difference, which axe finds nothing on."""
    slug, _ = make_survey(PAIRS)
    submit_and_close(live_app.app, slug, PAIR_ROWS)
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    url = live_app.url(f"/analyst/surveys/{slug}/lesson?question=1")
    assert_every_step_fits(driver, url, "a pair", steps=9)
    driver.get(f"{url}&step=8")
    assert driver.find_element(By.ID, "lesson-pair-difference").text
    # Off the projector's screen: axe looks at each width the window is set to.
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    check_at_every_width(driver, axe_source)


def test_a_question_of_the_most_options_fits_too(make_chromium, live_app, analyst, make_survey):
    """Twelve options (the most a question may have): the tables of steps 2 to 4 still fit
    the projector's screen (step 4 then leaves its chart out: the table says every range)."""
    definition = copy.deepcopy(SAMPLE_SURVEY)
    definition["questions"][1]["options"] = [
        f"Answer number {i}" for i in range(1, MAX_OPTIONS + 1)
    ]
    slug, _ = make_survey(definition)
    rows = [(i % 2, i % MAX_OPTIONS) for i in range(60)]
    submit_and_close(live_app.app, slug, rows)
    driver = signed_in(make_chromium, live_app, analyst)
    on_screen(driver)
    for step in (2, 3, 4):
        driver.get(live_app.url(f"/analyst/surveys/{slug}/lesson?question=2&step={step}"))
        rows_shown = driver.find_elements(By.CSS_SELECTOR, ".lesson-table tbody tr")
        assert len(rows_shown) == MAX_OPTIONS, step
        assert driver.execute_script("return document.documentElement.scrollHeight") <= 720, step


def test_the_lesson_passes_axe_at_360_and_1280(
    make_chromium, live_app, analyst, lesson_url, axe_source
):
    driver = signed_in(make_chromium, live_app, analyst)
    for step in range(1, 9):
        driver.get(f"{lesson_url}?step={step}")
        check_at_every_width(driver, axe_source)
    for step in (3, 4):  # a choice question's estimates, and its ranges' table and chart
        driver.get(f"{lesson_url}?question=2&step={step}")
        check_at_every_width(driver, axe_source)


def test_the_students_results_page_passes_axe(chromium, live_app, make_survey, axe_source):
    slug, _ = make_survey({**copy.deepcopy(SAMPLE_SURVEY), "show_results_after_close": True})
    submit_and_close(live_app.app, slug, ROWS)
    chromium.get(live_app.url(f"/s/{slug}/results"))
    assert chromium.find_element(By.ID, "class-results")
    check_at_every_width(chromium, axe_source)


def test_without_javascript_each_step_is_a_plain_page(make_chromium, live_app, analyst, lesson_url):
    driver = make_chromium(javascript_enabled=False)
    driver.get(live_app.url("/analyst/login"))
    driver.find_element(By.ID, "email").send_keys(analyst)
    driver.find_element(By.ID, "password").send_keys(ANALYST_PASSWORD, Keys.ENTER)
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: "/analyst/login" not in d.current_url)
    driver.get(lesson_url)
    assert not driver.find_element(By.ID, "lesson-keys").is_displayed()  # keys need the script
    driver.find_element(By.ID, "lesson-next").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: step_shown(d) == 2)
    driver.get(lesson_url + "?step=7")
    driver.find_element(By.ID, "trade-off-p")  # the control's form sends ?p=
    driver.get(lesson_url + "?step=7&p=0.1")
    assert driver.find_element(By.ID, "trade-off-words").text.startswith("At p = 0.1:")
