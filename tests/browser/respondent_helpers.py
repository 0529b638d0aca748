"""What the respondent's browser tests share: opening and answering the page, reading what was
sent (the DevTools log) and stored (through the app).

The tests (test_respondent_*_browser.py) answer a survey in a real headless Chromium as a
respondent would, with clicks and keys, the app served live on loopback (``live_app``: a fresh
SQLite database), read through the app (``with live_app.app.app_context():``); request bodies
come from Chromium's DevTools performance log (Network.requestWillBeSent carries a request's
postData).

SECURITY.md rows covered by them: no-JS, payload, randomness, storage (and the repeat
protection: one pre-drawn table per browser, re-sent as it is).
"""

from __future__ import annotations

import base64
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import select

from survey_app.extensions import db
from survey_app.storage.models import Submission, Survey, Tally
from survey_app.surveys.services import close_survey, find_survey, open_survey

WORDS = 2**32


FLIP_PROBABILITY = 0.25  # the sample survey's (tests/conftest.py SAMPLE_DEFINITION)


YES, NO = 1, 0


def wait(driver, timeout: float = 15):
    """An explicit wait that polls often: page actions here take milliseconds."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02)


def survey_url(live_app, slug: str) -> str:
    return live_app.url(f"/s/{slug}")


def open_page(driver, live_app, slug: str) -> None:
    """Load the survey page and wait until survey.js has run (it enables the button)."""
    driver.get(survey_url(live_app, slug))
    wait(driver).until(
        lambda d: d.execute_script(
            "const b = document.getElementById('submit-survey');"
            "return (b && !b.disabled) || !document.getElementById('already-answered').hidden;"
        )
    )


def radio(driver, question_id: int, value: int):
    return driver.find_element(
        By.CSS_SELECTOR, f'input[data-question-id="{question_id}"][value="{value}"]'
    )


def answer(driver, answers: dict[int, int]) -> None:
    """Click the radio of each true answer ({question id: value})."""
    for question_id, value in answers.items():
        element = radio(driver, question_id, value)
        element.click()
        assert element.is_selected()


def tab_to_and_choose(driver, keys, element) -> None:
    """Tab from where the focus is to ``element`` (ten presses at most), then Space chooses it."""
    for _ in range(10):
        if driver.switch_to.active_element == element:
            break
        keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == element
    keys.send_keys(Keys.SPACE).perform()
    assert element.is_selected()


def submit_and_wait(driver, element_id: str = "thank-you") -> None:
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(EC.visibility_of_element_located((By.ID, element_id)))


def saved_state(driver, slug: str) -> dict | None:
    raw = driver.execute_script("return localStorage.getItem(arguments[0]);", f"survey-app:{slug}")
    return None if raw is None else json.loads(raw)


def status_text(driver) -> str:
    return driver.find_element(By.ID, "survey-status").text


class NetworkLog:
    """Requests read from a Chromium's performance log (reading it empties Chromium's buffer,
    so every request read so far is kept here)."""

    def __init__(self, driver):
        self.driver = driver
        self.seen: list[dict] = []

    def requests(self) -> list[dict]:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.seen.append(message["params"]["request"])
        return self.seen

    def posts_to(self, path: str) -> list[dict]:
        return [
            request
            for request in self.requests()
            if request["method"] == "POST" and request["url"].split("?")[0].endswith(path)
        ]


def request_body(request: dict) -> str | None:
    """A request's body as DevTools reports it, or None when it had none."""
    if "postData" in request:
        return request["postData"]
    if request.get("postDataEntries"):
        return b"".join(
            base64.b64decode(entry.get("bytes", "")) for entry in request["postDataEntries"]
        ).decode("utf-8")
    if request.get("hasPostData"):
        return "<a body DevTools did not include>"
    return None


def responses_path(slug: str) -> str:
    return f"/api/v1/surveys/{slug}/responses"


def stored_submissions(live_app, slug: str) -> list[Submission]:
    with live_app.app.app_context():
        survey = find_survey(slug)
        rows = db.session.execute(select(Submission).where(Submission.survey_id == survey.id))
        submissions = list(rows.scalars())
        db.session.expunge_all()
        return submissions


def stored_tallies(live_app, question_ids: list[int]) -> dict[int, dict[int, int]]:
    """{question id: {value: noisy count}}."""
    with live_app.app.app_context():
        tallies: dict[int, dict[int, int]] = {qid: {} for qid in question_ids}
        rows = db.session.execute(select(Tally).where(Tally.question_id.in_(question_ids)))
        for tally in rows.scalars():
            # A value's count is the sum over its shards.
            counts = tallies[tally.question_id]
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        return tallies


def stored_respondents(live_app, slug: str) -> int:
    with live_app.app.app_context():
        return db.session.execute(
            select(Survey.respondents).where(Survey.slug == slug)
        ).scalar_one()


def set_open(live_app, slug: str, is_open: bool) -> None:
    with live_app.app.app_context():
        survey = find_survey(slug)
        (open_survey if is_open else close_survey)(survey)
        db.session.commit()


def sent_values(state: dict, answers: dict[int, int]) -> dict[str, int]:
    """What the page must send for these true answers: the saved table, indexed by them."""
    return {str(qid): state["table"][str(qid)][value] for qid, value in answers.items()}


def encoded(values: dict[str, int], question_ids: list[int]) -> str:
    """The randomized values as Submission.answers keeps them: in question order."""
    return ",".join(str(values[str(qid)]) for qid in question_ids)


def kept_device(driver, slug: str) -> str | None:
    """The device id this browser keeps for the survey's rate limit (answer-table.js
    deviceId)."""
    return driver.execute_script(
        "return localStorage.getItem(arguments[0]);", f"survey-app:device:{slug}"
    )
