"""The builder a professor meets first, in headless Chromium, with the keyboard: removing a
question and undoing it (with JavaScript and without), an error's focus and marks, number
bounds that start empty (typing 12 gives 12), the question before saving a range a hundred
times wider, the stop at 50 questions, a flip probability typed with a decimal comma, and a
pair of questions built and planned (these two with JavaScript and without)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from survey_app.surveys.services import MAX_QUESTIONS, find_survey
from tests.browser.test_accessibility import signed_in
from tests.browser.test_professor_browser import find, wait_for

pytestmark = pytest.mark.browser


def active_id(driver) -> str:
    return driver.execute_script("return document.activeElement.id")


def press_enter_on(driver, css: str) -> None:
    """Focus a control as Tab would, press Enter on it, and wait for the page it loads."""
    old = find(driver, "html")
    driver.execute_script("document.querySelector(arguments[0]).focus()", css)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "html") != old)
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def press_enter_on_focus(driver) -> None:
    """Press Enter on what has focus, and wait for the page it loads."""
    old = find(driver, "html")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "html") != old)
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def value_of(driver, css: str) -> str:
    return find(driver, css).get_attribute("value")


def slug_of(driver) -> str:
    return driver.current_url.rstrip("/").rsplit("/", 1)[-1]


def signed_in_browser(make_chromium, live_app, analyst, javascript: bool):
    """A Chromium signed in as ``analyst``; without JavaScript, the same session's cookie in a
    Chromium that runs no script."""
    driver = signed_in(make_chromium, live_app, analyst)
    if javascript:
        return driver
    cookies = driver.get_cookies()
    driver = make_chromium(javascript_enabled=False)
    driver.get(live_app.url("/analyst/login"))
    for cookie in cookies:
        driver.add_cookie({"name": cookie["name"], "value": cookie["value"]})
    return driver


@pytest.mark.parametrize("javascript", [True, False], ids=["with JavaScript", "without"])
def test_removing_a_filled_question_and_undoing_it_with_the_keyboard(
    make_chromium, live_app, analyst, javascript
):
    driver = signed_in_browser(make_chromium, live_app, analyst, javascript)
    driver.get(live_app.url("/analyst/surveys/new"))
    find(driver, "#question-text-0").send_keys("Ever copied homework?")
    press_enter_on(driver, "#add-numeric")
    assert active_id(driver) == "question-text-1"  # the new question has focus
    driver.switch_to.active_element.send_keys("Hours of sleep?")
    find(driver, "#question-min-1").send_keys("0")
    find(driver, "#question-max-1").send_keys("12")
    find(driver, "#question-unit-1").send_keys("hours")
    press_enter_on(driver, "button[value=remove_1]")

    assert active_id(driver) == "undo-remove"
    notice = find(driver, "#undo-notice")
    assert notice.get_attribute("role") == "status"
    assert notice.text.startswith("Question 2 removed.")
    assert driver.find_elements(By.ID, "question-text-1") == []
    press_enter_on_focus(driver)

    assert active_id(driver) == "question-text-1"
    assert value_of(driver, "#question-text-1") == "Hours of sleep?"
    assert value_of(driver, "#question-type-1") == "numeric"
    assert (value_of(driver, "#question-min-1"), value_of(driver, "#question-max-1")) == ("0", "12")
    assert value_of(driver, "#question-unit-1") == "hours"
    assert value_of(driver, "#question-text-0") == "Ever copied homework?"
    assert driver.find_elements(By.ID, "undo-remove") == []


def test_an_error_has_focus_its_marks_and_its_words(make_chromium, live_app, analyst):
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url("/analyst/surveys/new"))
    find(driver, "#title").send_keys("Study habits")
    press_enter_on(driver, "#add-choice")
    find(driver, "#question-text-0").send_keys("Ever?")
    find(driver, "#question-text-1").send_keys("How often?")
    find(driver, "#question-options-1").send_keys("Only one")
    # The server's refusal, not the browser's own validation bubble: turn that off first.
    driver.execute_script("document.getElementById('survey-builder').noValidate = true")
    find(driver, "#flip_probability").clear()
    find(driver, "#flip_probability").send_keys("0.6")
    press_enter_on(driver, "#save-survey")

    assert active_id(driver) == "flip_probability"
    field = find(driver, "#flip_probability")
    assert field.get_attribute("aria-invalid") == "true"
    described = field.get_attribute("aria-describedby").split()
    assert described[0] == "flip_probability-error"
    assert find(driver, "#flip_probability-error").text == (
        "The flip probability must be a number from 0.01 to 0.49"
    )
    options = find(driver, "#question-options-1")
    assert options.get_attribute("aria-invalid") == "true"
    assert find(driver, "#question-options-1-error").text == "Question 2 needs at least 2 options"
    summary = [link.text for link in driver.find_elements(By.CSS_SELECTOR, "#builder-error a")]
    assert summary == [
        "The flip probability must be a number from 0.01 to 0.49",
        "Question 2 needs at least 2 options",
    ]
    # Everything typed is kept.
    assert value_of(driver, "#title") == "Study habits"
    assert value_of(driver, "#flip_probability") == "0.6"
    assert value_of(driver, "#question-options-1") == "Only one"
    assert "questions[" not in find(driver, "main").text


def test_number_bounds_start_empty_and_typing_12_gives_12(make_chromium, live_app, analyst):
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url("/analyst/surveys/new"))
    find(driver, "#title").send_keys("Sleep")
    find(driver, "#question-text-0").send_keys("Ever?")
    press_enter_on(driver, "#add-numeric")
    low, high = find(driver, "#question-min-1"), find(driver, "#question-max-1")
    assert (low.get_attribute("value"), high.get_attribute("value")) == ("", "")
    assert (low.get_attribute("placeholder"), high.get_attribute("placeholder")) == ("0", "10")
    find(driver, "#question-text-1").send_keys("Hours of sleep?")
    low.send_keys("0")
    high.click()
    high.send_keys(Keys.END, "12")
    assert high.get_attribute("value") == "12"
    press_enter_on(driver, "#save-survey")
    with live_app.app.app_context():
        question = find_survey(slug_of(driver)).questions[1]
        assert (question.minimum, question.maximum) == (0.0, 12.0)


def test_a_range_a_hundred_times_wider_is_asked_about(
    make_chromium, live_app, analyst, make_survey
):
    definition = {
        "title": "Sleep",
        "flip_probability": 0.25,
        "questions": [{"text": "Hours of sleep?", "type": "numeric", "min": 0, "max": 10}],
    }
    slug, _ = make_survey(definition, status="draft")
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/edit"))
    high = find(driver, "#question-max-0")
    high.click()
    high.send_keys(Keys.END, "12")  # "10" becomes "1012", as a bound typed after another does
    press_enter_on(driver, "#save-survey")

    assert active_id(driver) == "wide-range-ask"
    assert (
        "Question 1’s range is now 0 to 1012, a hundred times wider than 0 to 10 before. "
        "Save it anyway?"
    ) in find(driver, "#wide-range-ask").text
    press_enter_on(driver, "#review-wide")  # the way back keeps the typing
    assert active_id(driver) == "question-max-0"
    assert value_of(driver, "#question-max-0") == "1012"
    field = driver.switch_to.active_element
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("12")
    press_enter_on(driver, "#save-survey")
    assert driver.current_url.endswith(f"/analyst/surveys/{slug}")
    with live_app.app.app_context():
        assert find_survey(slug).questions[0].maximum == 12.0

    # Asked again, "Save it anyway" saves.
    driver.get(live_app.url(f"/analyst/surveys/{slug}/edit"))
    high = find(driver, "#question-max-0")
    high.click()
    high.send_keys(Keys.END, "00")  # 12 -> 1200
    press_enter_on(driver, "#save-survey")
    assert "0 to 1200" in find(driver, "#wide-range-ask").text
    press_enter_on(driver, "#save-wide")
    with live_app.app.app_context():
        assert find_survey(slug).questions[0].maximum == 1200.0


def test_the_builder_stops_adding_at_50_questions(make_chromium, live_app, analyst, make_survey):
    questions = [{"text": f"Q{n}", "type": "yes_no"} for n in range(MAX_QUESTIONS - 1)]
    slug, _ = make_survey(
        {"title": "Many", "flip_probability": 0.25, "questions": questions}, status="draft"
    )
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/edit"))
    assert find(driver, "#add-numeric").is_enabled()
    press_enter_on(driver, "#add-numeric")
    assert len(driver.find_elements(By.CSS_SELECTOR, "[name=question_text]")) == MAX_QUESTIONS
    for button in ("#add-yes-no", "#add-choice", "#add-numeric"):
        assert not find(driver, button).is_enabled()
        assert find(driver, button).get_attribute("aria-describedby") == "question-limit"
    assert find(driver, "#question-limit").text == "A survey holds at most 50 questions."
    assert find(driver, "#question-limit").is_displayed()


@pytest.mark.parametrize("javascript", [True, False], ids=["with JavaScript", "without"])
def test_a_flip_probability_typed_with_a_decimal_comma_is_read_and_saved(
    make_chromium, live_app, analyst, javascript
):
    driver = signed_in_browser(make_chromium, live_app, analyst, javascript)
    driver.get(live_app.url("/analyst/surveys/new"))
    find(driver, "#title").send_keys("Comma")
    find(driver, "#question-text-0").send_keys("Ever?")
    limits = "a number from 0.01 to 0.49"
    hint = f"(how often a yes/no answer is reversed: {limits})"
    assert hint in find(driver, "#survey-builder").text
    field = find(driver, "#flip_probability")
    if javascript:  # a limit the readout says in the builder's words, as it is typed
        field.clear()
        field.send_keys("0,6")
        wait_for(driver, lambda d: f"must be {limits}" in find(d, "#readout-summary").text)
    field.clear()
    field.send_keys("0,3")
    assert value_of(driver, "#flip_probability") == "0,3"  # not "03"
    if javascript:
        wait_for(driver, lambda d: "flipped 30% of the time" in find(d, "#readout-summary").text)
        assert value_of(driver, "#warner_q") == "0.6"
    press_enter_on(driver, "#save-survey")
    with live_app.app.app_context():
        assert find_survey(slug_of(driver)).flip_probability == 0.3


@pytest.mark.parametrize("javascript", [True, False], ids=["with JavaScript", "without"])
def test_a_pair_is_built_with_the_keyboard_and_planned(
    make_chromium, live_app, analyst, javascript
):
    driver = signed_in_browser(make_chromium, live_app, analyst, javascript)
    driver.get(live_app.url("/analyst/surveys/new"))
    find(driver, "#title").send_keys("Homework")
    find(driver, "#question-text-0").send_keys("Ever copied homework?")
    press_enter_on(driver, "#add-paired")
    assert active_id(driver) == "question-text-1"  # its heading, which it does not require
    assert find(driver, "#question-text-1").get_attribute("required") is None
    assert "optional" in find(driver, "label[for=question-text-1]").text
    find(driver, "#question-part1-text-1").send_keys("Did you use an AI tool?")
    find(driver, "#question-part2-text-1").send_keys("Your year?")
    find(driver, "#question-part2-type-1").send_keys(Keys.ARROW_DOWN)  # multiple choice
    assert value_of(driver, "#question-part2-type-1") == "choice"
    options = find(driver, "#question-part2-options-1")
    assert options.is_displayed()
    # A yes/no question's options field: hidden by the script, there without it (its label
    # says it is for multiple choice only).
    assert find(driver, "#question-part1-options-1").is_displayed() is not javascript
    options.send_keys("First", Keys.ENTER, "Second", Keys.ENTER, "Third")
    if javascript:
        wait_for(driver, lambda d: "takes about" in find(d, "#readout-planning").text)
        # Another question turned into a pair by the keyboard: its fields show, its text
        # is no longer required.
        press_enter_on(driver, "#add-yes-no")
        kind = find(driver, "#question-type-2")
        kind.send_keys(Keys.ARROW_DOWN * 3)  # yes/no, multiple choice, number, pair
        assert value_of(driver, "#question-type-2") == "paired"
        assert find(driver, "#question-part1-text-2").is_displayed()
        assert find(driver, "#question-text-2").get_attribute("required") is None
        press_enter_on(driver, "button[value=remove_2]")
    else:
        press_enter_on(driver, "#update-plan")
        assert "takes about" in find(driver, "#readout-planning").text
    assert "Question 2, two questions asked together" in find(driver, "#readout-planning").text
    press_enter_on(driver, "#save-survey")
    with live_app.app.app_context():
        pair = find_survey(slug_of(driver)).questions[1]
        assert pair.parts == [
            {"text": "Did you use an AI tool?", "type": "yes_no"},
            {"text": "Your year?", "type": "choice", "options": ["First", "Second", "Third"]},
        ]
