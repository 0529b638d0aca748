"""The projector view in a real Chromium: it redraws itself as students answer (no reload),
hides the results when asked, and reads from the back of a room at 1280x720 and on 4K."""

from __future__ import annotations

import io

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.extensions import db
from survey_app.surveys.services import find_survey
from tests.browser.screens import word_sizes
from tests.browser.test_accessibility import signed_in
from tests.numeric_helpers import HOURS
from tests.unit.results.test_results_api import submit

pytestmark = pytest.mark.browser

#: Generous against a slow CI machine; the page asks every 2 s (projector.POLL_SECONDS).
WAIT_SECONDS = 15


def send(live_app, slug: str, rows) -> None:
    """Store randomized submissions as the submission API does."""
    submit(live_app.app, slug, rows)


def answer_on_a_phone(make_chromium, live_app, slug: str) -> None:
    """A student answers the first option of every question on the real survey page."""
    phone = make_chromium()
    phone.set_window_size(360, 740)
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "submit-survey").is_enabled()
    )
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        fieldset.find_element(By.CSS_SELECTOR, "input[type=radio]").click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, WAIT_SECONDS).until(
        lambda d: d.find_element(By.ID, "thank-you").is_displayed()
    )


def count_text(driver) -> str:
    return driver.find_element(By.ID, "present-count").text


def test_the_projector_redraws_itself_as_students_answer(make_chromium, live_app, analyst, survey):
    slug, _ = survey
    projector = signed_in(make_chromium, live_app, analyst)
    projector.set_window_size(1280, 720)
    projector.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert count_text(projector) == "0 people have answered"
    # A mark the page would lose if it reloaded.
    projector.execute_script("window.__notReloaded = true")
    answer_on_a_phone(make_chromium, live_app, slug)
    WebDriverWait(projector, WAIT_SECONDS).until(lambda d: count_text(d) == "1 person has answered")
    # Too early for charts; then enough answers for them.
    assert not projector.find_elements(By.CSS_SELECTOR, "#present-results svg.chart")
    send(live_app, slug, [(1, 0)] * 10 + [(0, 1)] * 12 + [(1, 2)] * 13)
    WebDriverWait(projector, WAIT_SECONDS).until(
        lambda d: count_text(d) == "36 people have answered"
    )
    WebDriverWait(projector, WAIT_SECONDS).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#present-results svg.chart")) == 2
    )
    words = projector.find_element(By.ID, "present-question-1").text
    assert "“Yes”: about" in words
    assert projector.execute_script("return window.__notReloaded") is True


def test_hidden_results_stay_off_the_projector_until_the_survey_closes(
    make_chromium, live_app, analyst, survey
):
    slug, _ = survey
    send(live_app, slug, [(1, 0)] * 10 + [(0, 1)] * 12 + [(1, 2)] * 13)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    driver.find_element(By.ID, "hide-results-on-projector").click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.ID, "show-results-on-projector")
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert driver.find_element(By.ID, "present-hidden").is_displayed()
    assert not driver.find_elements(By.CSS_SELECTOR, "#present-results svg.chart")
    assert count_text(driver) == "35 people have answered"
    driver.execute_script("window.__notReloaded = true")
    with live_app.app.app_context():
        from survey_app.surveys.services import close_survey

        close_survey(find_survey(slug))
        db.session.commit()
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#present-results svg.chart")) == 2
    )
    assert not driver.find_elements(By.ID, "present-hidden")
    assert driver.find_element(By.ID, "present-status").text.startswith("Closed")
    assert driver.execute_script("return window.__notReloaded") is True


@pytest.mark.parametrize(("width", "height", "smallest"), [(1280, 720, 16), (3840, 2160, 36)])
def test_the_projector_reads_from_the_back_of_the_room(
    make_chromium, live_app, analyst, survey, width, height, smallest
):
    """Every word at least ``smallest`` pixels high (about 2.2% of a 720-line screen and 1.7%
    of a 2160-line one), the code far larger, the whole page on the screen, and the QR code
    decodes to the join link."""
    import zxingcpp
    from PIL import Image

    slug, _ = survey
    send(live_app, slug, [(1, 0)] * 10 + [(0, 1)] * 12 + [(1, 2)] * 13)
    driver = signed_in(make_chromium, live_app, analyst)
    # The screen itself, as a projector in full-screen mode shows it (a window would lose the
    # height of its own bars).
    driver.set_window_size(width, height + 200)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]
    sizes = word_sizes(driver, "#projector", ".present-tools, .present-qr")
    assert sizes and min(sizes) >= smallest, sorted(sizes)[:5]
    check_chart_type(driver)
    code_size = driver.execute_script(
        "return parseFloat(getComputedStyle(document.getElementById('present-code')).fontSize)"
    )
    assert code_size >= 2.5 * smallest
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    # A two-question survey fits the screen whole: the room cannot scroll.
    assert driver.execute_script("return document.documentElement.scrollHeight") <= height
    # The join box (title, count, code, QR code) is on the first screen, without scrolling.
    qr = driver.find_element(By.ID, "present-qr")
    viewport = driver.execute_script("return window.innerHeight")
    assert qr.rect["y"] + qr.rect["height"] <= viewport
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    decoded = [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot_as_png)))]
    assert decoded == [live_app.url(f"/j/{code}")]


def test_a_projector_opened_on_a_draft_shows_how_to_join_once_it_opens(
    make_chromium, live_app, analyst, make_survey
):
    from survey_app.surveys.services import open_survey

    slug, _ = make_survey(status="draft")
    projector = signed_in(make_chromium, live_app, analyst)
    projector.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert not projector.find_elements(By.ID, "present-code")
    projector.execute_script("window.__notReloaded = true")
    with live_app.app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()
        code = find_survey(slug).join_code
    WebDriverWait(projector, WAIT_SECONDS).until(lambda d: d.find_elements(By.ID, "present-code"))
    assert projector.find_element(By.ID, "present-code").text == code
    assert "draft" not in projector.find_element(By.ID, "present-join").text
    assert projector.execute_script("return window.__notReloaded") is True


#: Each chart text's size on the screen (its font size in SVG units times the chart's scale),
#: whether its box lies inside the chart's, and the projector's own size of words.
CHART_TEXT = """
const page = parseFloat(getComputedStyle(document.getElementById('projector')).fontSize);
const texts = [];
for (const text of document.querySelectorAll('#present-results svg.chart text')) {
  const svg = text.closest('svg').getBoundingClientRect();
  const box = text.getBoundingClientRect();
  texts.push({
    text: text.textContent,
    size: parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a,
    inside: box.left >= svg.left - 0.5 && box.right <= svg.right + 0.5,
  });
}
return [page, texts];
"""


def check_chart_type(driver) -> None:
    """Every label, figure and tick of the charts is at least the size of the page's words,
    and inside its chart ("100%" keeps its "%")."""
    page, texts = driver.execute_script(CHART_TEXT)
    assert texts, "no chart on the projector"
    assert [each for each in texts if each["size"] < page - 0.05] == [], page
    assert [each for each in texts if not each["inside"]] == []
    assert "100%" in [each["text"] for each in texts]


#: Three questions, as a class is often asked: all their results show on one page.
THREE = {
    "title": "Getting to class",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Did you come by bike today?", "type": "yes_no"},
        {
            "text": "How did you get here?",
            "type": "choice",
            "options": ["Bus", "Walk", "Car", "Home"],
        },
        HOURS["questions"][0],
    ],
}


def test_three_questions_with_results_fit_one_page_at_1280x720(
    make_chromium, live_app, analyst, make_survey
):
    """Once results show, a three-question survey stays on one page (no pager), its charts in
    the page's type, and the join QR code keeps at least 7 em (150 px at 720 lines, about
    4 px to each of the 37 modules of the join link's code) and decodes to the join link."""
    import zxingcpp
    from PIL import Image

    from tests.browser.test_projector_fit_browser import answer, on_screen

    slug, _ = make_survey(THREE)
    answer(live_app, slug, 40)
    driver = on_screen(make_chromium, live_app, analyst, 1280, 720)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert driver.find_element(By.ID, "projector").get_attribute("data-layout") == "results"
    shown = driver.find_elements(By.CSS_SELECTOR, ".present-page:not([hidden]) .present-question")
    assert [each.get_attribute("id") for each in shown] == [
        f"present-question-{n}" for n in (1, 2, 3)
    ]
    assert not driver.find_element(By.ID, "present-pager").is_displayed()
    assert len(driver.find_elements(By.CSS_SELECTOR, "#present-results svg.chart")) == 2
    assert driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    ) == [1280, 720]
    for card in shown:  # nothing cut off at a card's foot
        assert card.get_property("scrollHeight") <= card.get_property("clientHeight") + 1
    check_chart_type(driver)
    qr = driver.find_element(By.ID, "present-qr")
    assert qr.rect["width"] >= 150 and qr.rect["y"] + qr.rect["height"] <= 720, qr.rect
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    decoded = [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot_as_png)))]
    assert decoded == [live_app.url(f"/j/{code}")]
