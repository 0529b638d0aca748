"""A paired question on a student's phone, in a real headless Chromium: both questions answered
by keyboard alone, one randomized value sent for the pair (its cell, from the page's table), a
missing half named and focused, and no accessibility violation (axe-core) at a phone's width."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from tests.browser.respondent_helpers import (
    encoded,
    open_page,
    saved_state,
    sent_values,
    status_text,
    stored_submissions,
    stored_tallies,
    tab_to_and_choose,
    wait,
)
from tests.browser.test_accessibility import axe_source, violations

pytestmark = pytest.mark.browser

__all__ = ["axe_source"]

DEFINITION = {
    "title": "Homework habits",
    "flip_probability": 0.25,
    "questions": [
        {
            "type": "paired",
            "questions": [
                {"text": "Did you use an AI tool for the essay?", "type": "yes_no"},
                {
                    "text": "How often did you copy homework?",
                    "type": "choice",
                    "options": ["Never", "Once", "Often"],
                },
            ],
        },
    ],
}


def part_radio(driver, question_id: int, part: int, value: int):
    return driver.find_element(
        By.CSS_SELECTOR, f'input[name="question-{question_id}-{part}"][value="{value}"]'
    )


def test_a_pair_is_answered_by_keyboard_on_a_phone_and_sent_as_one_cell(
    driver, live_app, make_survey, axe_source
):
    slug, (pair,) = make_survey(DEFINITION)
    driver.set_window_size(360, 740)
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    width = driver.execute_script("return window.innerWidth;")
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width
    assert violations(driver, axe_source) == []
    # Six cells (2 x 3): the page drew the randomized value of each, once.
    assert len(state["table"][str(pair)]) == 6

    # Each question a group of its own, named by its legend; every radio labelled.
    parts = driver.find_elements(By.CSS_SELECTOR, "fieldset.pair-part")
    assert [part.find_element(By.XPATH, "./legend").text for part in parts] == [
        "1a. Did you use an AI tool for the essay?",
        "1b. How often did you copy homework?",
    ]
    for element in driver.find_elements(By.CSS_SELECTOR, "input[type=radio]"):
        label = driver.execute_script(
            "return Array.from(arguments[0].labels || [], (l) => l.textContent.trim()).join('');",
            element,
        )
        assert label, element.get_attribute("outerHTML")

    # Keyboard only: Tab to the first group (Yes first), Space; the second group left empty is
    # named, and the focus goes to it.
    keys = ActionChains(driver)
    first = part_radio(driver, pair, 0, 1)
    tab_to_and_choose(driver, keys, first)
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: "Not answered yet: 1." in status_text(d))
    assert driver.switch_to.active_element == part_radio(driver, pair, 1, 0)
    assert stored_submissions(live_app, slug) == []

    # An arrow key picks "Once" in the second group; Tab to the button, Enter sends.
    keys.send_keys(Keys.ARROW_DOWN).perform()
    assert part_radio(driver, pair, 1, 1).is_selected()
    keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == driver.find_element(By.ID, "submit-survey")
    keys.send_keys(Keys.ENTER).perform()
    wait(driver).until(EC.visibility_of_element_located((By.ID, "thank-you")))

    # The pair's true cell is Yes (1) and Once (1): 1 * 3 + 1 = 4; what was sent is the table's
    # randomized value of cell 4, one value for the pair, counted once.
    (submission,) = stored_submissions(live_app, slug)
    assert submission.answers == encoded(sent_values(state, {pair: 4}), [pair])
    sent = int(submission.answers)
    assert stored_tallies(live_app, [pair])[pair] == {v: int(v == sent) for v in range(6)}
