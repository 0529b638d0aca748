"""A student on a phone joins by typing the code off the projector (in lower case, with the
phone's keyboard), with the keyboard alone, and lands on the survey."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.surveys.services import find_survey

pytestmark = pytest.mark.browser


def test_a_student_joins_by_typing_the_code_on_a_phone(make_chromium, live_app, survey):
    slug, _ = survey
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(live_app.url("/"))
    field = phone.find_element(By.ID, "join-code")
    field.send_keys(code[:3].lower() + " " + code[3:].lower(), Keys.ENTER)
    WebDriverWait(phone, 15).until(lambda d: d.current_url.endswith(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert phone.find_element(By.TAG_NAME, "h1").text
    # Nothing on the join page or the survey is wider than the phone.
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360


def test_a_wrong_code_is_said_next_to_the_field(make_chromium, live_app, survey):
    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(live_app.url("/"))
    phone.find_element(By.ID, "join-code").send_keys("ABCDEF", Keys.ENTER)
    error = WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "join-error"))
    assert "No survey has the code" in error.text
    field = phone.find_element(By.ID, "join-code")
    assert field.get_attribute("value") == "ABCDEF"
    assert field.get_attribute("aria-describedby") == "join-error"
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360


def test_the_dashboards_qr_code_decodes_to_the_join_link(make_chromium, live_app, survey, analyst):
    """The QR code as Chromium draws it on the dashboard, read by a QR decoder (zxing-cpp)."""
    import io

    import zxingcpp
    from PIL import Image

    from tests.analyst_helpers import ANALYST_PASSWORD

    slug, _ = survey
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    prof = make_chromium()
    prof.set_window_size(1280, 900)
    prof.get(live_app.url("/analyst/login"))
    prof.find_element(By.ID, "email").send_keys(analyst)
    prof.find_element(By.ID, "password").send_keys(ANALYST_PASSWORD, Keys.ENTER)
    WebDriverWait(prof, 15).until(lambda d: "/analyst/login" not in d.current_url)
    prof.get(live_app.url(f"/analyst/surveys/{slug}"))
    figure = WebDriverWait(prof, 15).until(lambda d: d.find_element(By.ID, "join-qr"))
    image = Image.open(io.BytesIO(figure.screenshot_as_png))
    decoded = [result.text for result in zxingcpp.read_barcodes(image)]
    # The live app knows no public address and is asked on loopback: the link is this one.
    assert decoded == [live_app.url(f"/j/{code}")]
    # Following it leads to the survey.
    prof.get(decoded[0])
    WebDriverWait(prof, 15).until(lambda d: d.current_url.endswith(f"/s/{slug}"))
