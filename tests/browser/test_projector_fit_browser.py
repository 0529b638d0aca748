"""The projector fits the screen in a real Chromium: at 1280x720, 1920x1080 and 3840x2160, with
1, 5 and 50 questions (yes/no, choice and number questions, long texts among them), nothing
scrolls; the pages turn with the keys a clicker sends and with the links, saying which
questions show; while few have answered the QR code fills at least 40% of the height; a redraw
keeps the page; without JavaScript the links turn the pages."""

from __future__ import annotations

import io
import math
import time
import uuid

import numpy as np
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from survey_app import privacy
from survey_app.respondents.submissions import record_submission
from survey_app.surveys.services import find_survey
from tests.browser.screens import WORD_SIZES_FUNCTION
from tests.browser.test_accessibility import (
    AXE,
    check_at_every_width,
    signed_in,
    violations,
)

pytestmark = pytest.mark.browser

WAIT_SECONDS = 15
SCREENS = [(1280, 720, 16), (1920, 1080, 24), (3840, 2160, 36)]
#: A text as long as a question may be (surveys.MAX_QUESTION_LENGTH).
LONGEST = ("Thinking back over the whole of this term, including the weeks of the midterm " * 13)[
    :1000
]
TWELVE = [f"Answer number {n} of twelve" for n in range(1, 13)]


def wait(driver, seconds: float = WAIT_SECONDS) -> WebDriverWait:
    """A wait that looks often: the page redraws on its own (asking every 2 s), and a wait that
    looked every half second would add a quarter of a second to each, on average."""
    return WebDriverWait(driver, seconds, poll_frequency=0.05)


def question(index: int) -> dict:
    """The ``index``-th question of a mixed survey: every kind, long texts and many options."""
    kinds = [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        {
            "text": "Hours a week on this course?",
            "type": "numeric",
            "min": 0,
            "max": 40,
            "unit": "hours",
            "mechanism": "hybrid",
        },
        {
            "text": "Have you ever handed in work that was "
            + "partly someone else's, " * 12
            + "without saying so?",
            "type": "yes_no",
        },
        {
            "text": "Which of these did you use last week?",
            "type": "choice",
            "options": ["The library", "The forum", "Office hours", "A tutor", "Nothing"],
        },
        {"text": LONGEST, "type": "yes_no"},
        {"text": "Which answer?", "type": "choice", "options": TWELVE},
        {"text": "Which of nine?", "type": "choice", "options": TWELVE[:9]},
        {
            "text": "Minutes late to class, on average?",
            "type": "numeric",
            "min": 0,
            "max": 60,
            "unit": "minutes",
            "mechanism": "hybrid",
        },
        {"text": "Did you enjoy the course? " * 4, "type": "yes_no"},
    ]
    return dict(kinds[index % len(kinds)])


def mixed_survey(count: int) -> dict:
    return {
        "title": "Academic integrity, week 12",
        "flip_probability": 0.25,
        "questions": [question(index) for index in range(count)],
    }


def answer(live_app, slug: str, people: int, seed: int = 2026_11_25) -> None:
    """Store ``people`` valid randomized submissions (values drawn with a fixed seed: which
    ones does not matter here, only that the results show)."""
    rng = np.random.default_rng(seed)
    with live_app.app.app_context():
        questions = list(find_survey(slug).questions)
        reports = []
        for item in questions:
            if item.kind == "numeric":
                mechanism = privacy.numeric_mechanism(
                    item.minimum, item.maximum, math.log(3), "hybrid"
                )
                reports.append(
                    mechanism.randomize(
                        rng.uniform(item.minimum, item.maximum, people), rng
                    ).tolist()
                )
            else:
                reports.append(rng.integers(0, max(2, len(item.choices or [])), people).tolist())
        ids = [str(item.id) for item in questions]
    for person in range(people):
        with live_app.app.app_context():
            answers = {qid: column[person] for qid, column in zip(ids, reports, strict=True)}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})


def on_screen(make_chromium, live_app, analyst, width: int, height: int):
    """A signed-in Chromium whose page is exactly the screen, as in full-screen mode."""
    driver = signed_in(make_chromium, live_app, analyst)
    driver.set_window_size(width, height + 200)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


#: A script's expression: the numbers of the questions on the page shown.
SHOWN_QUESTIONS = """[...document.querySelectorAll('.present-page:not([hidden]) .present-question')]
  .map((s) => Number(s.id.replace('present-question-', '')))"""


def shown(driver) -> list[int]:
    """The numbers of the questions on the page shown."""
    return driver.execute_script(f"return {SHOWN_QUESTIONS};")


def page_words(driver) -> str:
    return driver.find_element(By.ID, "present-page-words").text


def expected_words(numbers: list[int], total: int) -> str:
    """What the pager must say of the questions shown, read from the page itself."""
    if numbers[0] == numbers[-1]:
        return f"Question {numbers[0]} of {total}"
    return f"Questions {numbers[0]}–{numbers[-1]} of {total}"


#: The professor's own links in the corner, and the QR code: not words the room reads.
PROFESSORS_OWN = ".present-tools, .present-qr"

#: The page shown, measured in one script (a page of a 50-question survey is read some 40
#: times a test): the document's size, the size of each word the room reads, the numbers of
#: the questions shown and what the pager says of them.
PAGE_SHOWN = (
    WORD_SIZES_FUNCTION
    + """
const root = document.documentElement;
return {
  width: root.scrollWidth,
  height: root.scrollHeight,
  sizes: wordSizes("#projector", arguments[0]),
  numbers: """
    + SHOWN_QUESTIONS
    + """,
  words: document.getElementById("present-page-words").innerText,
};
"""
)


def check_page(driver, width: int, height: int, smallest: float) -> tuple[list[int], str]:
    """The page shown fits the screen, its words are large enough; its questions' numbers and
    what the pager says of them."""
    page = driver.execute_script(PAGE_SHOWN, PROFESSORS_OWN)
    numbers = page["numbers"]
    assert page["width"] <= width and page["height"] <= height, (page["height"], numbers)
    assert min(page["sizes"]) >= smallest, (sorted(page["sizes"])[:3], numbers)
    assert numbers, "a page without questions"
    return numbers, page["words"]


def walk(driver, width, height, smallest, total, turn) -> list[int]:
    """Turn through every page with ``turn`` until the first comes back; each page fits and
    says which questions it shows. Returns the questions seen, in order."""
    seen = []
    for _ in range(total + 1):
        numbers, words = check_page(driver, width, height, smallest)
        if seen and numbers[0] == seen[0]:
            break
        if total > 1 and len(numbers) < total:
            assert words == expected_words(numbers, total)
        seen += numbers
        turn()
    return seen


def decodes_to_the_join_link(driver, live_app, slug) -> None:
    import zxingcpp
    from PIL import Image

    qr = driver.find_element(By.ID, "present-qr")
    with live_app.app.app_context():
        code = find_survey(slug).join_code
    picture = Image.open(io.BytesIO(qr.screenshot_as_png))
    assert [r.text for r in zxingcpp.read_barcodes(picture)] == [live_app.url(f"/j/{code}")]


def layout(driver) -> str:
    return driver.find_element(By.ID, "projector").get_attribute("data-layout")


@pytest.mark.parametrize("count", [1, 5, 50])
@pytest.mark.parametrize(("width", "height", "smallest"), SCREENS)
def test_every_question_fits_the_screen_page_by_page(
    make_chromium, live_app, analyst, make_survey, width, height, smallest, count
):
    slug, _ = make_survey(mixed_survey(count))
    driver = on_screen(make_chromium, live_app, analyst, width, height)
    # No fade while pages turn: what is measured is the page itself.
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]
    body = driver.find_element(By.TAG_NAME, "body")

    # Nobody has answered: how to join is the star, its QR code at least 40% of the height.
    assert layout(driver) == "star"
    qr = driver.find_element(By.ID, "present-qr")
    assert qr.rect["height"] >= 0.4 * height and qr.rect["y"] + qr.rect["height"] <= height
    code = driver.find_element(By.ID, "present-code")
    assert float(code.value_of_css_property("font-size")[:-2]) >= 4 * smallest
    decodes_to_the_join_link(driver, live_app, slug)
    pager = driver.find_element(By.ID, "present-pager")
    if count == 1:
        assert not pager.is_displayed()
        assert check_page(driver, width, height, smallest)[0] == [1]
    else:
        assert walk(
            driver, width, height, smallest, count, lambda: body.send_keys(Keys.PAGE_DOWN)
        ) == list(range(1, count + 1))

    # Enough answers for results (a release of them): the page redraws itself into the
    # results' layout, the join panel in a corner; the links turn the pages, and the keys back.
    answer(live_app, slug, 12)
    wait(driver).until(lambda d: layout(d) == "results")
    assert driver.find_element(By.ID, "present-code").is_displayed()
    if count == 1:
        assert not pager.is_displayed()
        assert check_page(driver, width, height, smallest)[0] == [1]
        return
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    following = driver.find_element(By.ID, "present-next")
    assert walk(driver, width, height, smallest, count, following.click) == list(
        range(1, count + 1)
    )
    first = shown(driver)
    body.send_keys(Keys.END)
    last = shown(driver)
    assert last[-1] == count
    body.send_keys(Keys.ARROW_RIGHT)
    assert shown(driver) == first, "after the last page comes the first"
    body.send_keys(Keys.PAGE_UP)
    assert shown(driver) == last
    driver.find_element(By.ID, "present-previous").click()
    body.send_keys(Keys.ARROW_LEFT)
    body.send_keys(Keys.ARROW_DOWN)
    assert shown(driver)[-1] < count and page_words(driver).endswith(f" of {count}")


@pytest.mark.parametrize("people", [7, 12])
def test_a_long_title_and_status_leave_the_questions_their_room(
    make_chromium, live_app, analyst, make_survey, people
):
    """The longest title a survey may have (surveys.MAX_TITLE_LENGTH), and a status of two
    lines (some have answered, too few for results; or results shown): still no scrolling."""
    definition = mixed_survey(50)
    definition["title"] = ("Academic integrity in the second year of the programme, " * 4)[:200]
    slug, _ = make_survey(definition)
    answer(live_app, slug, people)
    driver = on_screen(make_chromium, live_app, analyst, 1280, 720)
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert layout(driver) == ("star" if people < 10 else "results")
    body = driver.find_element(By.TAG_NAME, "body")
    seen = walk(driver, 1280, 720, 16, 50, lambda: body.send_keys(Keys.PAGE_DOWN))
    assert seen == list(range(1, 51))


def test_a_redraw_keeps_the_page_and_the_focus(make_chromium, live_app, analyst, make_survey):
    slug, _ = make_survey(mixed_survey(50))
    answer(live_app, slug, 12)
    driver = on_screen(make_chromium, live_app, analyst, 1280, 720)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    following = driver.find_element(By.ID, "present-next")
    following.click()
    following.click()
    reading, words = shown(driver), page_words(driver)
    assert reading[0] > 1
    count = driver.find_element(By.ID, "present-count").text
    driver.execute_script("window.__notReloaded = true")
    answer(live_app, slug, 10, seed=2026_11_26)
    wait(driver).until(lambda d: d.find_element(By.ID, "present-count").text != count)
    assert shown(driver) == reading and page_words(driver) == words
    assert driver.switch_to.active_element == following, "a redraw moved the focus"
    assert driver.execute_script("return window.__notReloaded") is True
    # The words are a polite status: a turn is said, not shouted, and focus stays put.
    assert driver.find_element(By.ID, "present-page-words").get_attribute("role") == "status"
    # The address names the page: reloading shows the same one.
    driver.refresh()
    assert shown(driver) == reading and page_words(driver) == words


def test_the_pages_turn_by_themselves_only_when_asked(
    make_chromium, live_app, analyst, make_survey
):
    slug, _ = make_survey(mixed_survey(5))
    answer(live_app, slug, 12)
    driver = on_screen(make_chromium, live_app, analyst, 1280, 720)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    first = shown(driver)
    automatic = driver.find_element(By.ID, "present-auto-turn")
    assert not automatic.is_selected(), "off unless the professor turns it on"
    # A second instead of the fifteen the server says, to keep the test short.
    driver.execute_script("document.getElementById('projector').dataset.autoTurnSeconds = '1'")
    automatic.click()
    wait(driver).until(lambda d: shown(d) != first)
    # A key in the checkbox is the checkbox's: the page stays.
    turned = shown(driver)
    automatic.click()
    automatic.send_keys(Keys.ARROW_RIGHT)
    time.sleep(2.5)
    assert shown(driver) == turned, "the pages still turn after the professor stopped them"
    # Each page appears with a short fade; with reduced motion, with none.
    fade = """return getComputedStyle(
        document.querySelector('.present-page:not([hidden])')).animationName"""
    assert driver.execute_script(fade) == "present-turn"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
    )
    assert driver.execute_script(fade) == "none"


def test_without_javascript_links_turn_the_pages(make_chromium, live_app, analyst, make_survey):
    """Twenty questions (some seven pages at 1280x720), each page a new load of the whole
    projector: the links turn through them all and round to the first."""
    slug, _ = make_survey(mixed_survey(20))
    answer(live_app, slug, 12)
    driver = make_chromium(javascript_enabled=False)
    driver.get(live_app.url("/analyst/login"))
    from tests.conftest import ANALYST_PASSWORD

    driver.find_element(By.ID, "email").send_keys(analyst)
    driver.find_element(By.ID, "password").send_keys(ANALYST_PASSWORD, Keys.ENTER)
    driver.set_window_size(1280, 920)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    seen = []
    for _ in range(30):
        page = driver.execute_script(PAGE_SHOWN, PROFESSORS_OWN)
        numbers = page["numbers"]
        if seen and numbers[0] == 1:
            break
        assert page["words"] == expected_words(numbers, 20)
        assert page["width"] <= 1280 and page["height"] <= 720, numbers
        seen += numbers
        driver.find_element(By.ID, "present-next").click()
    assert seen == list(range(1, 21)) and len(seen) > len(numbers), "one page, nothing turned"


@pytest.mark.parametrize("people", [0, 12])
def test_axe_finds_nothing_on_a_projector_of_many_questions(
    make_chromium, live_app, analyst, make_survey, people
):
    if not AXE.exists():  # never a skip: CI installs it, and a missing tool is a failure
        pytest.fail(f"{AXE} is missing: run `npm ci --prefix tests/browser`")
    slug, _ = make_survey(mixed_survey(50))
    answer(live_app, slug, people)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert layout(driver) == ("star" if people == 0 else "results")
    check_at_every_width(driver, AXE.read_text(encoding="utf-8"), height=720)


#: The longest option a question may have (surveys.MAX_OPTION_LENGTH), twelve of them.
LONGEST_OPTIONS = [
    (f"{n}: " + "the longest answer the builder lets a professor write, " * 4)[:200]
    for n in range(1, 13)
]

#: Each card shown: its own overflow, whether it scrolls inside itself (and can be reached),
#: and each of its words' boxes that stick out of the card's box.
CARDS = """
const cards = [];
for (const card of document.querySelectorAll('.present-page:not([hidden]) .present-question')) {
  const box = card.getBoundingClientRect();
  const outside = [];
  const scrolls = card.classList.contains('present-clipped');
  for (const element of card.querySelectorAll('*')) {
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const rect = element.getBoundingClientRect();
    if (!own || rect.width === 0) continue;
    const across = rect.left < box.left - 1 || rect.right > box.right + 1;
    const down = !scrolls && (rect.top < box.top - 1 || rect.bottom > box.bottom + 1);
    if (across || down) outside.push(element.textContent.slice(0, 40));
  }
  cards.push({
    id: card.id, scrolls, outside,
    overflow: card.scrollHeight - card.clientHeight,
    tabIndex: card.tabIndex, label: card.getAttribute('aria-label'),
    fit: getComputedStyle(card).getPropertyValue('--fit'),
    page: card.closest('.present-page').getBoundingClientRect().bottom,
    bottom: box.bottom,
  });
}
return cards;
"""


#: Notes in the page when the element ``arguments[0]`` stops scrolling.
SCROLL_END = """
window.__scrollEnded = false;
arguments[0].addEventListener("scrollend", () => { window.__scrollEnded = true; }, {once: true});
"""


@pytest.mark.parametrize("people", [0, 12])
@pytest.mark.parametrize(("width", "height", "smallest"), SCREENS)
def test_the_longest_text_with_twelve_longest_options_never_overflows(
    make_chromium, live_app, analyst, make_survey, width, height, smallest, people
):
    """The worst a definition allows (a 1,000-character text, 12 options of 200 characters),
    before results and with them: nothing scrolls the document, no words stick out of a card,
    every word at least the smallest size; a card too tall even in the smallest words scrolls
    inside itself and the keyboard reaches it (its arrows scroll it, PageDown still turns)."""
    definition = {
        "title": "The worst case",
        "flip_probability": 0.25,
        "questions": [
            {"text": LONGEST, "type": "choice", "options": LONGEST_OPTIONS},
            {"text": LONGEST, "type": "yes_no"},
            {"text": LONGEST, "type": "choice", "options": LONGEST_OPTIONS[:8]},
        ],
    }
    slug, _ = make_survey(definition)
    answer(live_app, slug, people)
    driver = on_screen(make_chromium, live_app, analyst, width, height)
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert layout(driver) == ("star" if people == 0 else "results")
    body = driver.find_element(By.TAG_NAME, "body")
    seen = []
    for _ in range(4):
        numbers, _ = check_page(driver, width, height, smallest)
        if seen and numbers[0] == seen[0]:
            break
        seen += numbers
        for card in driver.execute_script(CARDS):
            assert card["outside"] == [], card
            assert card["bottom"] <= card["page"] + 1, card
            if card["scrolls"]:
                assert card["tabIndex"] == 0 and card["label"], card
                assert float(card["fit"]) == pytest.approx(0.68), "scrolls only at the smallest"
            else:
                assert card["overflow"] <= 1, card
        body.send_keys(Keys.PAGE_DOWN)
    assert seen == [1, 2, 3]
    if people == 0:
        return
    body.send_keys(Keys.HOME)
    shot = __import__("os").environ.get("SURVEY_APP_SHOTS")
    if shot and width == 1280:
        driver.save_screenshot(f"{shot}/projector-worst-case-1280.png")
    if width == 1280:  # axe on the card that scrolls: focusable, named, readable
        assert violations(driver, AXE.read_text(encoding="utf-8")) == []
    # The first question cannot fit in the smallest words: it scrolls inside, from the keys.
    card = driver.find_element(By.ID, "present-question-1")
    assert "present-clipped" in card.get_attribute("class")
    # The arrow scrolls smoothly: the question is read where the scroll comes to rest.
    driver.execute_script(SCROLL_END, card)
    card.send_keys(Keys.ARROW_DOWN)
    wait(driver, 5).until(lambda d: d.execute_script("return window.__scrollEnded === true"))
    assert card.get_property("scrollTop") > 0
    assert shown(driver) == [1], "the arrow scrolled the question, not the page"
    assert driver.switch_to.active_element == card
    assert card.get_attribute("aria-label") == "Question 1 in full: scroll to read it"
    # A redraw (more answers) keeps the question where it was read, and the focus on it.
    read = card.get_property("scrollTop")
    count = driver.find_element(By.ID, "present-count").text
    answer(live_app, slug, 3, seed=2026_11_26)
    wait(driver).until(lambda d: d.find_element(By.ID, "present-count").text != count)
    card = driver.find_element(By.ID, "present-question-1")
    assert driver.switch_to.active_element == card, "a redraw moved the focus"
    assert card.get_property("scrollTop") == read
    card.send_keys(Keys.PAGE_DOWN)
    assert shown(driver) == [2]


FIT = "return getComputedStyle(arguments[0]).getPropertyValue('--fit') || '1'"


def test_the_last_resort_sets_a_card_smaller_where_the_estimate_was_wrong(
    make_chromium, live_app, analyst, make_survey
):
    """A card drawn larger than its page holds (here: the server's smaller size taken off, as if
    its estimate had been wrong) is set smaller in the browser when its page shows, until it
    fits, its words still at least 16 px; it does not scroll, since it fits before the smallest."""
    options = [(f"{n}: " + "a middling answer of some length, " * 2)[:60] for n in range(1, 13)]
    definition = {
        "title": "The last resort",
        "flip_probability": 0.25,
        "questions": [
            {"text": "Short?", "type": "yes_no"},
            {"text": LONGEST, "type": "choice", "options": options},
        ],
    }
    slug, _ = make_survey(definition)
    answer(live_app, slug, 12)
    driver = on_screen(make_chromium, live_app, analyst, 1280, 720)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    card = driver.find_element(By.ID, "present-question-2")
    server_fit = float(driver.execute_script(FIT, card))
    assert server_fit < 1, "the server sets it smaller already"
    # As if the server had thought it fits as usual.
    driver.execute_script("arguments[0].className = 'present-question'", card)
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.PAGE_DOWN)
    assert shown(driver) == [2]
    fits = driver.execute_script(CARDS)
    assert fits[0]["overflow"] <= 1 and not fits[0]["scrolls"] and fits[0]["outside"] == []
    assert 0.68 <= float(fits[0]["fit"]) < 1, fits[0]
    check_page(driver, 1280, 720, 16)
