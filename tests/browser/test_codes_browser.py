"""One answer per student, in a real browser: the survey asks for the code on the slip, a used
code is refused with words next to the field, and a slip's QR code fills the code in."""

from __future__ import annotations

import io
import json
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import func, select

from survey_app.classroom.codes import format_code, issue_codes
from survey_app.extensions import db
from survey_app.storage.models import OneTimeCode, Submission
from survey_app.surveys.services import find_survey, open_survey

pytestmark = pytest.mark.browser


@pytest.fixture
def coded_survey(live_app, make_survey):
    """An open survey that requires codes, and two codes as printed."""
    slug, _ = make_survey(status="draft")
    with live_app.app.app_context():
        survey = find_survey(slug)
        printed = [format_code(code) for code in issue_codes(survey, 2)]
        open_survey(survey)
        db.session.commit()
    return slug, printed


def stored(live_app) -> int:
    with live_app.app.app_context():
        return db.session.execute(select(func.count()).select_from(Submission)).scalar_one()


def answer_every_question(phone) -> None:
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        fieldset.find_element(By.CSS_SELECTOR, "input[type=radio]").click()


def open_on_a_phone(make_chromium, live_app, path: str):
    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(live_app.url(path))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    return phone


def test_the_code_on_the_slip_is_asked_for_and_used_once(make_chromium, live_app, coded_survey):
    slug, printed = coded_survey
    phone = open_on_a_phone(make_chromium, live_app, f"/s/{slug}")
    field = phone.find_element(By.ID, "one-time-code")
    assert phone.find_element(By.CSS_SELECTOR, "label[for=one-time-code]").text
    answer_every_question(phone)
    phone.find_element(By.ID, "submit-survey").click()
    # Without a code nothing is sent: the field says why and has the focus.
    error = phone.find_element(By.ID, "one-time-code-error")
    assert "one-time code" in error.text
    assert phone.switch_to.active_element == field
    assert field.get_attribute("aria-invalid") == "true"
    assert stored(live_app) == 0

    field.send_keys(printed[0].lower())
    phone.find_element(By.ID, "submit-survey").send_keys(Keys.ENTER)
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert stored(live_app) == 1
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360

    # Another phone (its own storage) with the same code: refused, in words, by the field.
    second = open_on_a_phone(make_chromium, live_app, f"/s/{slug}")
    second.find_element(By.ID, "one-time-code").send_keys(printed[0])
    answer_every_question(second)
    second.find_element(By.ID, "submit-survey").click()
    WebDriverWait(second, 15).until(
        lambda d: "already used" in d.find_element(By.ID, "one-time-code-error").text
    )
    assert not second.find_element(By.ID, "thank-you").is_displayed()
    assert stored(live_app) == 1

    # A code that was never issued.
    field = second.find_element(By.ID, "one-time-code")
    field.clear()
    field.send_keys("AAAAA-AAAAA")
    second.find_element(By.ID, "submit-survey").click()
    WebDriverWait(second, 15).until(
        lambda d: "not right" in d.find_element(By.ID, "one-time-code-error").text
    )
    assert stored(live_app) == 1


def test_a_slips_qr_code_fills_in_its_code_and_leaves_no_trace_in_the_address(
    make_chromium, live_app, make_survey, analyst
):
    """The professor issues slips on the dashboard; a phone reads a slip's QR code."""
    import zxingcpp
    from PIL import Image

    from tests.conftest import ANALYST_PASSWORD

    slug, _ = make_survey(status="draft")
    prof = make_chromium()
    prof.set_window_size(1280, 900)
    prof.get(live_app.url("/analyst/login"))
    prof.find_element(By.ID, "email").send_keys(analyst)
    prof.find_element(By.ID, "password").send_keys(ANALYST_PASSWORD, Keys.ENTER)
    WebDriverWait(prof, 15).until(lambda d: "/analyst/login" not in d.current_url)
    prof.get(live_app.url(f"/analyst/surveys/{slug}"))
    prof.find_element(By.ID, "require-codes").click()
    count = WebDriverWait(prof, 15).until(lambda d: d.find_element(By.ID, "code-count"))
    count.clear()
    count.send_keys("2")
    prof.find_element(By.ID, "issue-slips").click()
    slips = WebDriverWait(prof, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".slip"))
    assert len(slips) == 2
    printed = slips[0].find_element(By.CSS_SELECTOR, ".slip-code").text
    qr = slips[0].find_element(By.CSS_SELECTOR, ".slip-qr")
    prof.execute_script("arguments[0].scrollIntoView({block: 'center'})", qr)
    image = Image.open(io.BytesIO(qr.screenshot_as_png))
    (decoded,) = [result.text for result in zxingcpp.read_barcodes(image)]
    with live_app.app.app_context():
        survey = find_survey(slug)
        assert decoded == live_app.url(f"/j/{survey.join_code}#code={printed}")
        open_survey(survey)
        db.session.commit()

    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(decoded)
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert phone.find_element(By.ID, "one-time-code").get_attribute("value") == printed
    assert phone.current_url == live_app.url(f"/s/{slug}")  # the code left the address bar
    answer_every_question(phone)
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert stored(live_app) == 1


def saved_state(phone, slug: str):
    raw = phone.execute_script("return localStorage.getItem(arguments[0]);", f"survey-app:{slug}")
    return json.loads(raw) if raw else None


def test_two_students_answer_on_one_phone_each_with_their_own_code(
    make_chromium, live_app, coded_survey
):
    """A shared phone: in a survey that requires codes, the code limits the answers, not the
    browser. The phone keeps nothing that, with the export, tells either student's answer."""
    slug, printed = coded_survey
    phone = open_on_a_phone(make_chromium, live_app, f"/s/{slug}")
    first = saved_state(phone, slug)
    phone.find_element(By.ID, "one-time-code").send_keys(printed[0])
    answer_every_question(phone)
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert saved_state(phone, slug) == {"submitted": True}

    # The next student, on the same phone: a clean form, not "already answered".
    again = phone.find_element(By.ID, "answer-again")
    assert again.is_displayed() and "code" in again.text
    again.click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert not phone.find_element(By.ID, "already-answered").is_displayed()
    assert phone.find_element(By.ID, "survey").is_displayed()
    field = phone.find_element(By.ID, "one-time-code")
    assert field.get_attribute("value") == ""
    assert phone.execute_script("return document.querySelectorAll('input:checked').length") == 0
    # A table drawn afresh for this student, under a new submission id.
    second = saved_state(phone, slug)
    assert second["submitted"] is False
    assert second["submissionId"] != first["submissionId"]
    field.send_keys(printed[1])
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        fieldset.find_elements(By.CSS_SELECTOR, "input[type=radio]")[-1].click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())

    # Both stored, each with its own code.
    with live_app.app.app_context():
        ids = set(db.session.execute(select(Submission.submission_id)).scalars())
        used = db.session.execute(
            select(func.count()).where(OneTimeCode.used_on.is_not(None))
        ).scalar_one()
    assert ids == {first["submissionId"], second["submissionId"]}
    assert used == 2
    # SECURITY.md "device" and "storage": only the note that this phone answered; no table and
    # no submission id that would join it to a row of the export. Besides, the device id the
    # page names to the rate limit, which the server never stores.
    everything = phone.execute_script(
        "return Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage[k]]));"
    )
    assert re.fullmatch(r"[0-9a-f]{32}", everything.pop(f"survey-app:device:{slug}"))
    assert everything == {f"survey-app:{slug}": '{"submitted":true}'}
    assert phone.execute_script("return sessionStorage.length") == 0

    # A reload shows the form again, and a used code is still refused: the code is the limit.
    phone.refresh()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    phone.find_element(By.ID, "one-time-code").send_keys(printed[0])
    answer_every_question(phone)
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(
        lambda d: "already used" in d.find_element(By.ID, "one-time-code-error").text
    )
    assert stored(live_app) == 2
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360


def test_the_issue_form_is_sent_once_per_press(make_chromium, live_app, make_survey, analyst):
    """A double click's second press comes while the first request is on its way: the browser
    drops the first answer and shows the second's codes, leaving the first batch issued and
    never seen. The page lets the second press through only after a few seconds."""
    from tests.browser.test_accessibility import signed_in

    slug, _ = make_survey(status="draft")
    prof = signed_in(make_chromium, live_app, analyst)
    prof.get(live_app.url(f"/analyst/surveys/{slug}"))
    prof.find_element(By.ID, "require-codes").click()
    WebDriverWait(prof, 15).until(lambda d: d.find_element(By.ID, "code-count"))
    # Two presses as the form sees them (events that do not navigate): the second is stopped.
    prevented = prof.execute_script(
        """
        const form = document.getElementById("issue-codes");
        const submitter = document.getElementById("issue-slips");
        const press = () => {
          const event = new SubmitEvent("submit", { cancelable: true, submitter });
          form.dispatchEvent(event);
          return event.defaultPrevented;
        };
        return [press(), press()];
        """
    )
    assert prevented == [False, True]
    # A real press still issues the codes.
    count = prof.find_element(By.ID, "code-count")
    count.clear()
    count.send_keys("3")
    prof.execute_script('delete document.getElementById("issue-codes").dataset.sending')
    prof.find_element(By.ID, "issue-slips").click()
    slips = WebDriverWait(prof, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".slip"))
    assert len(slips) == 3
