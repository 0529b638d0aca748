"""The respondent's page in a real headless Chromium: answering, what the request carries,
no JavaScript (nothing sent), a retry (the same values, the same id), a phone and the keyboard.

Each test serves the app live on loopback (``live_app``: a fresh SQLite database); request
bodies come from Chromium's DevTools performance log. SECURITY.md rows: see
tests/browser/respondent_helpers.py.
"""

from __future__ import annotations

import json
import re

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from tests.browser.respondent_helpers import (
    FLIP_PROBABILITY,
    NO,
    YES,
    NetworkLog,
    answer,
    encoded,
    kept_device,
    open_page,
    radio,
    request_body,
    responses_path,
    saved_state,
    sent_values,
    set_open,
    status_text,
    stored_respondents,
    stored_submissions,
    stored_tallies,
    submit_and_wait,
    survey_url,
    tab_to_and_choose,
    wait,
)

pytestmark = pytest.mark.browser


def test_answering_stores_one_randomized_submission(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    assert state is not None and state["submitted"] is False

    answer(driver, {yes_no: YES, choice: 2})
    submit_and_wait(driver)

    (submission,) = stored_submissions(live_app, slug)
    assert submission.submission_id == state["submissionId"]
    values = [int(value) for value in submission.answers.split(",")]
    assert len(values) == 2 and values[0] in (0, 1) and values[1] in (0, 1, 2)
    assert submission.answers == encoded(
        sent_values(state, {yes_no: YES, choice: 2}), [yes_no, choice]
    )
    # Exactly one tally of each question counted it: the stored (randomized) value's.
    tallies = stored_tallies(live_app, [yes_no, choice])
    assert tallies[yes_no] == {v: int(v == values[0]) for v in (0, 1)}
    assert tallies[choice] == {v: int(v == values[1]) for v in (0, 1, 2)}
    assert stored_respondents(live_app, slug) == 1
    assert saved_state(driver, slug)["submitted"] is True
    assert not driver.find_element(By.ID, "survey").is_displayed()


def test_an_unanswered_question_is_named_and_nothing_is_sent(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    answer(driver, {yes_no: NO})
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: "Not answered yet: 2." in status_text(d))
    assert driver.switch_to.active_element == radio(driver, choice, 0)
    assert stored_submissions(live_app, slug) == []

    answer(driver, {choice: 0})
    submit_and_wait(driver)
    assert len(stored_submissions(live_app, slug)) == 1


def test_the_request_body_holds_only_the_id_and_the_randomized_values(
    make_chromium, live_app, survey
):
    slug, (yes_no, choice) = survey
    driver = make_chromium(performance_log=True)
    network = NetworkLog(driver)
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    # Where the table allows, pick a true answer whose randomized value differs from it, so that
    # a page sending true answers could not pass by chance.
    true_answers = {
        qid: next(
            (value for value, sent in enumerate(state["table"][str(qid)]) if sent != value), 0
        )
        for qid in (yes_no, choice)
    }
    answer(driver, true_answers)
    submit_and_wait(driver)

    requests = network.requests()
    posts = network.posts_to(responses_path(slug))
    assert len(posts) == 1
    body = json.loads(request_body(posts[0]))
    assert set(body) == {"submission_id", "answers"}
    assert body["submission_id"] == state["submissionId"]
    assert body["answers"] == sent_values(state, true_answers)
    assert posts[0]["url"] == live_app.url(responses_path(slug))
    # Sent without cookies or a referrer (DevTools lists the blanked Referer as "").
    headers = {name.lower(): value for name, value in posts[0]["headers"].items()}
    assert "cookie" not in headers and headers.get("referer", "") == ""
    assert posts[0]["referrerPolicy"] == "no-referrer"

    # Nothing else left the page with a body: only GETs of the page and its files.
    others = [request for request in requests if request is not posts[0]]
    assert others, "the performance log recorded no page load"
    for request in others:
        assert request["method"] == "GET", request["url"]
        assert request_body(request) is None, request["url"]

    (submission,) = stored_submissions(live_app, slug)
    assert submission.answers == encoded(body["answers"], [yes_no, choice])


def test_without_javascript_nothing_is_sent_or_stored(make_chromium, live_app, survey):
    slug, (yes_no, choice) = survey
    driver = make_chromium(javascript_enabled=False, performance_log=True)
    network = NetworkLog(driver)
    driver.get(survey_url(live_app, slug))

    notice = driver.find_element(By.ID, "javascript-required")
    assert notice.is_displayed()
    assert "needs JavaScript" in notice.text
    # The other notice (for a script that did not start) stays out of the way: one is enough.
    assert not driver.find_element(By.ID, "script-not-started").is_displayed()
    button = driver.find_element(By.ID, "submit-survey")
    assert not button.is_enabled()
    # The true-answer controls are in no form that could submit them.
    for form in driver.find_elements(By.TAG_NAME, "form"):
        assert not form.find_elements(By.CSS_SELECTOR, "input[type=radio]")

    answer(driver, {yes_no: YES, choice: 1})
    radio(driver, choice, 1).send_keys(Keys.ENTER)
    radio(driver, yes_no, YES).send_keys(Keys.ENTER)
    # The button stays disabled without its script, so it cannot take focus or keys: click it
    # with the mouse, then press Enter (and Space) wherever the focus is.
    ActionChains(driver).move_to_element(button).click().perform()
    ActionChains(driver).send_keys(Keys.ENTER).send_keys(Keys.SPACE).perform()
    assert driver.switch_to.active_element != button
    assert not driver.find_element(By.ID, "thank-you").is_displayed()
    assert driver.find_element(By.ID, "survey-status").text == ""

    # Any other button the page may grow gets the same treatment, on a freshly answered page.
    others = "button:not(#submit-survey), input[type=submit], input[type=image]"
    for index in range(len(driver.find_elements(By.CSS_SELECTOR, others))):
        driver.get(survey_url(live_app, slug))
        answer(driver, {yes_no: YES, choice: 1})
        target = driver.find_elements(By.CSS_SELECTOR, others)[index]
        if target.is_displayed():
            ActionChains(driver).move_to_element(target).click().perform()
            ActionChains(driver).send_keys(Keys.ENTER).perform()

    # Give anything that might have been sent time to arrive: a page load of the same server,
    # which is served after any request already in flight from this browser.
    driver.get(live_app.url("/static/css/app.css"))

    assert stored_submissions(live_app, slug) == []
    assert stored_respondents(live_app, slug) == 0
    requests = network.requests()
    assert any(r["url"] == survey_url(live_app, slug) for r in requests)
    for request in requests:
        assert request["method"] == "GET", request["url"]
        assert request_body(request) is None, request["url"]
        assert "/api/" not in request["url"]


#: A browser that refuses the page its storage: reading window.localStorage throws, as in a
#: course's frame where the browser blocks a third party's storage, or a sandboxed frame.
BLOCKED_STORAGE = """
Object.defineProperty(window, "localStorage", {
  configurable: true,
  get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
});
"""


def test_a_page_whose_storage_is_blocked_still_sends_once_naming_a_device(
    make_chromium, live_app, survey
):
    slug, (yes_no, choice) = survey
    blocked = make_chromium(performance_log=True)
    blocked.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BLOCKED_STORAGE})
    network = NetworkLog(blocked)
    open_page(blocked, live_app, slug)
    answer(blocked, {yes_no: YES, choice: 2})
    submit_and_wait(blocked)
    (post,) = network.posts_to(responses_path(slug))
    assert re.fullmatch(r"[0-9a-f]{32}", post["headers"].get("Survey-Device", ""))
    (submission,) = stored_submissions(live_app, slug)
    assert json.loads(request_body(post))["submission_id"] == submission.submission_id


def test_a_retry_resends_the_same_values_with_the_same_id(make_chromium, driver, live_app, survey):
    slug, (yes_no, choice) = survey
    logged = make_chromium(performance_log=True)
    network = NetworkLog(logged)
    true_answers = {yes_no: YES, choice: 0}
    open_page(logged, live_app, slug)
    state = saved_state(logged, slug)

    # The server refuses the first attempt (the survey closed while the page was open).
    set_open(live_app, slug, False)
    answer(logged, true_answers)
    logged.find_element(By.ID, "submit-survey").click()
    wait(logged).until(lambda d: "not taking answers" in status_text(d))
    assert "error" in logged.find_element(By.ID, "survey-status").get_attribute("class")
    wait(logged).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    # Sending again from the same page, still refused.
    logged.find_element(By.ID, "submit-survey").click()
    wait(logged).until(lambda d: len(network.posts_to(responses_path(slug))) == 2)
    wait(logged).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert stored_submissions(live_app, slug) == []
    assert saved_state(logged, slug) == state  # still not submitted, same table and id

    # Reopened; the respondent reloads, answers the same and sends again.
    set_open(live_app, slug, True)
    open_page(logged, live_app, slug)
    assert saved_state(logged, slug) == state
    answer(logged, true_answers)
    submit_and_wait(logged)

    # All three attempts sent the very same body, from the same device (across the reload).
    posts = network.posts_to(responses_path(slug))
    bodies = [json.loads(request_body(r)) for r in posts]
    assert len(bodies) == 3
    devices = {post["headers"].get("Survey-Device") for post in posts}
    assert devices == {kept_device(logged, slug)}
    assert re.fullmatch(r"[0-9a-f]{32}", kept_device(logged, slug))
    assert bodies[0] == bodies[1] == bodies[2]
    body = bodies[0]
    assert body == {
        "submission_id": state["submissionId"],
        "answers": sent_values(state, true_answers),
    }
    (submission,) = stored_submissions(live_app, slug)
    assert submission.submission_id == state["submissionId"]
    assert submission.answers == encoded(body["answers"], [yes_no, choice])

    # Once recorded, the page says so and offers nothing to send.
    open_page(logged, live_app, slug)
    assert logged.find_element(By.ID, "already-answered").is_displayed()
    assert not logged.find_element(By.ID, "survey").is_displayed()
    assert not logged.find_element(By.ID, "submit-survey").is_displayed()
    assert not logged.find_element(By.ID, "submit-survey").is_enabled()
    assert len(network.posts_to(responses_path(slug))) == 3
    assert stored_respondents(live_app, slug) == 1

    # Another browser profile (the session's Chromium) draws its own table under its own id.
    other = driver
    open_page(other, live_app, slug)
    other_state = saved_state(other, slug)
    assert other_state["submissionId"] != state["submissionId"]
    assert {qid: len(values) for qid, values in other_state["table"].items()} == {
        str(yes_no): 2,
        str(choice): 3,
    }
    answer(other, true_answers)
    submit_and_wait(other)
    assert re.fullmatch(r"[0-9a-f]{32}", kept_device(other, slug))
    assert kept_device(other, slug) != kept_device(logged, slug)
    submissions = {s.submission_id: s.answers for s in stored_submissions(live_app, slug)}
    assert submissions == {
        state["submissionId"]: submission.answers,
        other_state["submissionId"]: encoded(
            sent_values(other_state, true_answers), [yes_no, choice]
        ),
    }
    assert stored_respondents(live_app, slug) == 2


LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 2  # 90 letters, no break


#: A connection that answers nothing for a minute (a crowded hall's stalled Wi-Fi), and one that
#: works again.
STALLED = {"offline": False, "latency": 60000, "downloadThroughput": -1, "uploadThroughput": -1}
WORKING = {**STALLED, "latency": 0}


def test_a_stalled_sending_gives_the_button_back_and_a_resend_is_stored_once(
    make_chromium, live_app, survey
):
    """No reply within the page's wait (15 s): the student is asked to send again, with the
    answers still there, and the resend (the same id) is stored once."""
    slug, (yes_no, choice) = survey
    phone = make_chromium(performance_log=True)
    network = NetworkLog(phone)
    open_page(phone, live_app, slug)
    answer(phone, {yes_no: YES, choice: 1})
    phone.execute_cdp_cmd("Network.enable", {})
    phone.execute_cdp_cmd("Network.emulateNetworkConditions", STALLED)
    button = phone.find_element(By.ID, "submit-survey")
    button.click()
    wait(phone).until(lambda d: "Sending" in status_text(d))
    assert not button.is_enabled()
    wait(phone, 40).until(lambda d: "No reply came" in status_text(d))
    assert "please send again" in status_text(phone)
    assert button.is_enabled()
    assert radio(phone, yes_no, YES).is_selected() and radio(phone, choice, 1).is_selected()

    phone.execute_cdp_cmd("Network.emulateNetworkConditions", WORKING)
    submit_and_wait(phone)
    posts = network.posts_to(responses_path(slug))
    ids = {json.loads(request_body(post))["submission_id"] for post in posts}
    (submission,) = stored_submissions(live_app, slug)
    assert ids == {submission.submission_id}
    assert stored_respondents(live_app, slug) == 1


def test_a_phone_sized_page_works_with_the_keyboard(driver, live_app, make_survey):
    # Long unbreakable words in the survey's texts: they must wrap, not widen the page. (The
    # intro is left out here: see the next test.)
    slug, (yes_no, choice) = make_survey(
        {
            "title": f"Title {LONG_WORD}",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [
                {"text": f"Yes or no {LONG_WORD}?", "type": "yes_no"},
                {
                    "text": f"Which {LONG_WORD}?",
                    "type": "choice",
                    "options": [f"A {LONG_WORD}", f"B {LONG_WORD}", f"C {LONG_WORD}"],
                },
            ],
        }
    )
    driver.set_window_size(360, 740)
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)  # the table the answers will be sent from
    width = driver.execute_script("return window.innerWidth;")
    assert width <= 360
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width

    # Accessibility basics: each question a fieldset with its legend, every radio labelled,
    # and a live status region.
    fieldsets = driver.find_elements(By.CSS_SELECTOR, "fieldset.question")
    assert len(fieldsets) == 2
    for fieldset in fieldsets:
        legend = fieldset.find_element(By.XPATH, "./legend")
        assert legend.text.strip()
    radios = driver.find_elements(By.CSS_SELECTOR, "input[type=radio]")
    assert len(radios) == 5
    for element in radios:
        label = driver.execute_script(
            "const i = arguments[0];"
            "return Array.from(i.labels || [], (l) => l.textContent.trim()).join(' ');",
            element,
        )
        assert label, element.get_attribute("outerHTML")
        assert element.get_attribute("name")  # one group per question, arrow keys move in it
    status = driver.find_element(By.ID, "survey-status")
    assert status.get_attribute("role") == "status"
    assert status.get_attribute("aria-live") == "polite"

    # Keyboard only: Tab to the first radio, Space chooses, Tab to the next question, an arrow
    # key chooses, Tab to the button, Enter sends.
    keys = ActionChains(driver)
    first = radio(driver, yes_no, YES)
    tab_to_and_choose(driver, keys, first)
    keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == radio(driver, choice, 0)
    keys.send_keys(Keys.ARROW_DOWN).perform()
    assert radio(driver, choice, 1).is_selected()
    assert driver.switch_to.active_element == radio(driver, choice, 1)
    keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == driver.find_element(By.ID, "submit-survey")
    keys.send_keys(Keys.ENTER).perform()
    wait(driver).until(EC.visibility_of_element_located((By.ID, "thank-you")))
    assert driver.switch_to.active_element == driver.find_element(By.ID, "thank-you")
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width

    (submission,) = stored_submissions(live_app, slug)
    assert submission.answers == encoded(
        sent_values(state, {yes_no: YES, choice: 1}), [yes_no, choice]
    )


def test_a_long_word_in_the_intro_does_not_widen_a_phone_page(driver, live_app, make_survey):
    slug, _ = make_survey(
        {
            "title": "Intro",
            "intro": f"Intro {LONG_WORD}",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [{"text": "Yes or no?", "type": "yes_no"}],
        }
    )
    driver.set_window_size(360, 740)
    open_page(driver, live_app, slug)
    width = driver.execute_script("return window.innerWidth;")
    assert width <= 360
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width


#: A survey whose third question asks a number, as a class met it: a student typed "about 7".
THREE_KINDS = {
    "title": "Study habits",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Did you do the reading?", "type": "yes_no"},
        {"text": "Where do you study?", "type": "choice", "options": ["Home", "Library"]},
        {"text": "Hours a week?", "type": "numeric", "min": 0, "max": 40},
    ],
}


def test_a_number_typed_among_words_is_said_what_is_wrong_with_it(driver, live_app, make_survey):
    """ "about 7" is typed, not left blank: the line above the button and the note under the
    field say what to type instead (the note tied to the field, read when it takes focus; the
    line a live region), never "Not answered yet: 3"."""
    slug, (yes_no, choice, hours) = make_survey(THREE_KINDS)
    open_page(driver, live_app, slug)
    answer(driver, {yes_no: YES, choice: 1})
    field = driver.find_element(By.ID, f"answer-{hours}")
    field.send_keys("about 7")
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: status_text(d) != "")
    note = "Type 7, the number alone (not “about 7”)."
    assert (
        status_text(driver) == "Please check question 3: type 7, the number alone (not “about 7”)."
    )
    status = driver.find_element(By.ID, "survey-status")
    assert (
        status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    )
    assert driver.find_element(By.ID, f"answer-{hours}-error").text == note
    assert field.get_attribute("aria-describedby").split() == [
        f"answer-{hours}-hint",
        f"answer-{hours}-error",
    ]
    assert field.get_attribute("aria-invalid") == "true"
    assert driver.switch_to.active_element == field
    assert stored_submissions(live_app, slug) == []

    # Left blank, it is unanswered, as before; typed as asked, the answers go.
    field.clear()
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: "Not answered yet: 3." in status_text(d))
    assert driver.find_elements(By.ID, f"answer-{hours}-error") == []
    field.send_keys("7")
    submit_and_wait(driver)
    assert len(stored_submissions(live_app, slug)) == 1


def test_a_mark_goes_once_its_question_is_answered_or_corrected(driver, live_app, make_survey):
    """After a send stopped at missing and wrongly typed answers, each option picked reads them
    again: the question answered or corrected loses its mark and note (a screen reader no longer
    reads the old error on the corrected field), and the line above the button says what is
    left. A typed number is read again then, or at the send (not when its field is left, which
    pressing Send also does: the page must not move under the press)."""
    slug, (yes_no, choice, hours) = make_survey(THREE_KINDS)
    open_page(driver, live_app, slug)
    field = driver.find_element(By.ID, f"answer-{hours}")
    field.send_keys("abc")
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: "Not answered yet: 1, 2." in status_text(d))
    fieldsets = {
        qid: driver.find_element(By.CSS_SELECTOR, f'fieldset.question[data-question-id="{qid}"]')
        for qid in (yes_no, choice, hours)
    }

    def marked(qid) -> bool:
        return "unanswered" in fieldsets[qid].get_attribute("class").split()

    assert marked(yes_no) and marked(choice)
    assert field.get_attribute("aria-invalid") == "true"

    field.clear()
    field.send_keys("7.5", Keys.TAB)
    assert field.get_attribute("aria-invalid") == "true"  # left alone until the next pick
    answer(driver, {yes_no: YES})
    wait(driver).until(lambda d: not marked(yes_no))
    left = "Please answer every question before sending. Not answered yet: 2."
    assert status_text(driver) == left
    assert marked(choice) and field.get_attribute("aria-invalid") is None
    assert driver.find_elements(By.ID, f"answer-{hours}-error") == []
    assert f"answer-{hours}-error" not in (field.get_attribute("aria-describedby") or "")

    answer(driver, {choice: 1})
    wait(driver).until(lambda d: status_text(d) == "")
    assert not any(marked(qid) for qid in fieldsets)
    assert stored_submissions(live_app, slug) == []  # a pick sends nothing
    submit_and_wait(driver)
    assert len(stored_submissions(live_app, slug)) == 1


#: A phone's first screen, as the issue measured it.
PHONE = {"width": 360, "height": 640, "deviceScaleFactor": 2, "mobile": True}

#: Where an element is on the screen: its top and bottom, in CSS pixels.
BOX = "const box = arguments[0].getBoundingClientRect(); return [box.top, box.bottom];"


def test_without_javascript_the_notice_is_on_the_first_screen_and_the_button_says_why(
    make_chromium, live_app, survey
):
    slug, _ = survey
    phone = make_chromium(javascript_enabled=False)
    phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        phone.get(survey_url(live_app, slug))
        assert phone.execute_script("return window.innerHeight") == PHONE["height"]
        notice = phone.find_element(By.ID, "javascript-required")
        top, bottom = phone.execute_script(BOX, notice)
        assert notice.is_displayed() and 0 <= top and bottom <= PHONE["height"], (top, bottom)

        button = phone.find_element(By.ID, "submit-survey")
        assert not button.is_enabled()
        reason = phone.find_element(By.ID, button.get_attribute("aria-describedby"))
        assert reason.is_displayed()
        assert reason.text == (
            "This button works once the page’s script runs: it randomizes your answers on this "
            "device before anything is sent."
        )
        # Beside it: right below the button, nothing in between.
        _, button_bottom = phone.execute_script(BOX, button)
        reason_top, _ = phone.execute_script(BOX, reason)
        assert 0 <= reason_top - button_bottom <= 24, (button_bottom, reason_top)
    finally:
        phone.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_once_its_script_runs_the_button_has_no_reason_left(driver, live_app, survey):
    slug, _ = survey
    open_page(driver, live_app, slug)
    button = driver.find_element(By.ID, "submit-survey")
    assert button.is_enabled() and button.get_attribute("aria-describedby") is None
    assert driver.find_elements(By.ID, "submit-survey-reason") == []
