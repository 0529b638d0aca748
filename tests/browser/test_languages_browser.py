"""The students' pages and the projector in German and in a right-to-left language, in Chromium:
axe-core finds nothing (tests/browser/test_accessibility.py's checks, as for English), and a
right-to-left page mirrors while a German one does not, the lesson's charts too.

The right-to-left language is a pseudo-language made here from messages.pot, never shipped:
Hebrew (a CLDR language the app does not ship, written right to left), each message's Latin
letters turned into Hebrew ones, its figures, tags and entities kept. The survey's own texts
are the professor's, written in the page's language.

Each page is loaded once. At a phone's width (360 px) and a laptop's (1280 px) its boxes are
measured (getBoundingClientRect against its container and the page's width): each radio at
the start of its option, each question's legend, a number's field, a list's indent, the
projector's corner with how to join; nothing wider than the page; a notice's accent border on
its start side, which the screenshot shows there (the border's pixels, never a font's). The
screenshots are kept in the test's tmp_path. Then axe-core and the WCAG checks run on the same
load (check_at_every_width: axe put in once).
"""

from __future__ import annotations

import io
import uuid

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.surveys.services import close_survey, find_survey
from survey_app.web import languages
from tests.browser.test_accessibility import axe_source, check_at_every_width, settle, signed_in
from tests.unit.respondents.test_pseudo_locale import KEPT
from tests.unit.web.test_translations import TRANSLATIONS

pytestmark = pytest.mark.browser

__all__ = ["axe_source"]  # the fixture (axe-core's script, read once a module), used by name

#: The right-to-left pseudo-language's code: Hebrew, which CLDR knows (its plural rule, its
#: numbers, its direction) and the app does not ship.
RIGHT_TO_LEFT = "he"
HEBREW = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "אבגדהוזחטיכלמנסעפצקרשתךםןף" * 2,
        strict=True,
    )
)
WIDTHS = (360, 1280)


def right_to_left(message: str) -> str:
    """ "Join a survey" -> "יסטנ א קשצתהן": Hebrew letters for Latin ones, figures, tags and
    entities kept."""
    parts, last = [], 0
    for kept in KEPT.finditer(message):
        parts.append("".join(HEBREW.get(c, c) for c in message[last : kept.start()]))
        parts.append(kept.group())
        last = kept.end()
    parts.append("".join(HEBREW.get(c, c) for c in message[last:]))
    return "".join(parts)


@pytest.fixture
def speaking_right_to_left(app, tmp_path, monkeypatch):
    """The app with the right-to-left pseudo-language among its translations: every message
    of messages.pot, each plural form of Hebrew's three filled (CLDR's rule)."""
    with (TRANSLATIONS / "messages.pot").open("rb") as template:
        messages = read_po(template)
    catalog = Catalog(locale=RIGHT_TO_LEFT)
    forms = get_plural(RIGHT_TO_LEFT).num_plurals
    for message in messages:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            singular, plural = (right_to_left(text) for text in message.id)
            catalog.add(message.id, (singular, *[plural] * (forms - 1)), context=message.context)
        else:
            catalog.add(message.id, right_to_left(message.id), context=message.context)
    folder = tmp_path / "catalogs" / RIGHT_TO_LEFT / "LC_MESSAGES"
    folder.mkdir(parents=True)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    (folder / "messages.mo").write_bytes(compiled.getvalue())
    app.extensions["babel"].translation_directories.append(str(tmp_path / "catalogs"))
    shipped = (*languages.SHIPPED_LANGUAGES, RIGHT_TO_LEFT)
    monkeypatch.setattr(languages, "SHIPPED_LANGUAGES", shipped)
    return app


def test_the_pseudo_language_writes_right_to_left_and_keeps_figures():
    assert right_to_left("Join a survey") == "יסטנ א קשצתהן"
    said = right_to_left("<strong>%(odds)s times</strong>&nbsp;%%")
    assert said == "<strong>%(odds)s רטמהק</strong>&nbsp;%%"


#: Each language's survey: its own texts as a professor of that language writes them, every
#: kind of question.
SURVEYS = {
    "de": {
        "title": "Akademische Integrität",
        "intro": "Ihre Antworten werden zufällig verändert.",
        "questions": [
            ("Haben Sie je Hausaufgaben abgeschrieben?", ()),
            ("Wie oft?", ("Nie", "Einmal", "Oft")),
            ("Stunden pro Woche?", "Stunden"),
        ],
    },
    RIGHT_TO_LEFT: {
        "title": "יושרה אקדמית",
        "intro": "התשובות שלכם מוגרלות.",
        "questions": [
            ("האם העתקתם פעם שיעורי בית?", ()),
            ("באיזו תדירות?", ("אף פעם", "פעם אחת", "לעתים קרובות")),
            ("כמה שעות בשבוע?", "שעות"),
        ],
    },
}


def survey_of_every_kind(language: str, show_results: bool = False) -> dict:
    texts = SURVEYS[language]
    (yes_no, _), (choice, options), (number, unit) = texts["questions"]
    return {
        "title": texts["title"],
        "intro": texts["intro"],
        "flip_probability": 0.25,
        "show_results_after_close": show_results,
        "questions": [
            {"text": yes_no, "type": "yes_no"},
            {"text": choice, "type": "choice", "options": list(options)},
            {"text": number, "type": "numeric", "min": 0, "max": 40, "unit": unit},
        ],
    }


def answered(live_app, make_survey, definition: dict, status: str = "open") -> str:
    """A survey with 24 answers (enough for every chart), open or closed."""
    slug, (yes_no, choice, number) = make_survey(definition)
    with live_app.app.app_context():
        for index in range(24):
            answers = {str(yes_no): index % 2, str(choice): index % 3, str(number): index % 2}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})
    if status == "closed":
        with live_app.app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    return slug


def speak(driver, language: str) -> None:
    """The browser asks for ``language`` first (Accept-Language), as a phone set to it does."""
    agent = driver.execute_script("return navigator.userAgent")
    driver.execute_cdp_cmd(
        "Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": language}
    )


#: What is measured on a page, in CSS pixels from the viewport's left: for each visible
#: element of a selector, its box and its container's (the closest ancestor matching the
#: container selector, inside its padding and border); every visible element that reaches
#: beyond the page's width (but the skip link, hidden off the start edge until focused, and
#: what scrolls inside a box of its own); the first visible notice's box and its side borders.
MEASURE = """
const [placed] = arguments;
const visible = (element) => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
};
const inner = (element) => {
  const box = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
  return [left, right];
};
const measured = {};
for (const [name, selector, container] of placed) {
  measured[name] = [...document.querySelectorAll(selector)].filter(visible).map((element) => {
    const box = element.getBoundingClientRect();
    const [left, right] = inner(element.parentElement.closest(container));
    return [box.left - left, right - box.right];
  });
}
const width = window.innerWidth;
const scrolls = (element) => ["auto", "scroll"].includes(getComputedStyle(element).overflowX);
const beyond = [...document.querySelectorAll("body *")].filter((element) => {
  if (!visible(element) || element.closest(".skip-link, .visually-hidden")) return false;
  let parent = element.parentElement;
  while (parent && !scrolls(parent)) parent = parent.parentElement;
  const box = element.getBoundingClientRect();
  return !parent && (box.left < -0.5 || box.right > width + 0.5);
}).map((element) => element.tagName.toLowerCase() + "." + element.getAttribute("class"));
const notice = [...document.querySelectorAll(".notice")].find(visible);
let border = null;
if (notice) {
  notice.scrollIntoView({ block: "center" });
  const box = notice.getBoundingClientRect();
  const style = getComputedStyle(notice);
  border = {
    box: [box.left, box.top, box.right, box.bottom],
    widths: [parseFloat(style.borderLeftWidth), parseFloat(style.borderRightWidth)],
    colour: style.borderRightWidth === "0px" ? style.borderLeftColor : style.borderRightColor,
  };
} else {
  window.scrollTo(0, 0);
}
return {
  dir: document.documentElement.dir, lang: document.documentElement.lang, width,
  scrollWidth: document.documentElement.scrollWidth, measured, beyond, border,
};
"""

#: What stands at its container's start (the radio in its option, a legend, a number's field,
#: the projector's QR code and its corner, a chart's answer above its bar), or is indented
#: from it (a list's items): name, selector, container.
AT_THE_START = [
    ("radio", ".option input[type=radio]", ".option"),
    ("legend", "fieldset.question > legend", "fieldset.question"),
    ("number field", ".number-answer input", ".number-answer"),
    ("join form", ".join-form", "main"),
    ("QR code", ".present-qr", ".present-join"),
    ("projector's corner", ".projector[data-layout=results] > .present-join", ".projector"),
    ("chart's label", "svg.chart text.label", "svg.chart"),
]
INDENTED = [("list item", ".result .plain-words > li", ".result")]


def rgb(colour: str) -> tuple[int, ...]:
    """ "rgb(31, 95, 191)" -> (31, 95, 191)."""
    return tuple(int(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])


def check_the_sides(driver, language: str, page: str, tmp_path) -> int:
    """At each width: the page's direction, its boxes on the side it writes from, nothing
    wider than the page, a notice's accent border on the start side in the screenshot (kept
    in tmp_path). The number of boxes found narrower than their container, placed by it."""
    mirrored = language == RIGHT_TO_LEFT
    indented = {name for name, *_ in INDENTED}
    placed = 0
    for width in WIDTHS:
        driver.set_window_size(width, 900 if page != "projector" else 720)
        settle(driver)
        found = driver.execute_script(MEASURE, AT_THE_START + INDENTED)
        where = f"{page} in {language} at {width} px"
        assert (found["dir"], found["lang"]) == ("rtl" if mirrored else "ltr", language), where
        assert found["scrollWidth"] <= found["width"] == width, where
        assert found["beyond"] == [], f"{where}: wider than the page: {found['beyond']}"
        for name, *_ in AT_THE_START + INDENTED:
            for left, right in found["measured"][name]:
                start, end = (right, left) if mirrored else (left, right)
                if abs(start - end) < 2:  # as wide as its container: no side to be on
                    continue
                placed += 1
                if name in indented:
                    assert start > end, f"{where}: {name} not indented from the start"
                else:
                    assert start < end, f"{where}: {name} {start:.0f} px from the start"
        shot = tmp_path / f"{page}-{language}-{width}.png"
        driver.save_screenshot(str(shot))
        border = found["border"]
        if border is None:
            continue
        thick, thin = (border["widths"][1], border["widths"][0])
        assert (thick, thin) == ((4, 0) if mirrored else (0, 4)), f"{where}: notice's border"
        placed += 1
        # In the screenshot, the border's pixels are at the notice's start edge, not its end.
        image = Image.open(shot).convert("RGB")
        left, top, right, bottom = border["box"]
        middle = round((top + bottom) / 2)
        start_x, end_x = (right - 2, left + 2) if mirrored else (left + 2, right - 2)
        assert image.size[0] == width
        assert image.getpixel((round(start_x), middle)) == rgb(border["colour"]), where
        assert image.getpixel((round(end_x), middle)) != rgb(border["colour"]), where
    return placed


LANGUAGES = ["de", RIGHT_TO_LEFT]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_students_pages(
    make_chromium, live_app, make_survey, speaking_right_to_left, axe_source, tmp_path, language
):
    """The join page, a survey of every kind of question, after sending, a closed survey and
    the class's results: mirrored right to left (not in German), axe finds nothing."""
    slug, _ = make_survey(survey_of_every_kind(language))
    closed, _ = make_survey(survey_of_every_kind(language), status="closed")
    results = answered(live_app, make_survey, survey_of_every_kind(language, True), "closed")
    phone = make_chromium()
    speak(phone, language)
    phone.get(live_app.url("/"))
    assert check_the_sides(phone, language, "join", tmp_path) >= 1  # the form, at 1280
    check_at_every_width(phone, axe_source)

    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    # Five radios and the number's field at both widths, three legends at 1280 px (at 360 a
    # long one is as wide as its question).
    assert check_the_sides(phone, language, "survey", tmp_path) >= 2 * (5 + 1) + 3
    check_at_every_width(phone, axe_source)
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        choices = fieldset.find_elements(By.CSS_SELECTOR, "input[type=radio]")
        if choices:
            choices[0].click()
        else:
            fieldset.find_element(By.CSS_SELECTOR, "input").send_keys("3")
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert check_the_sides(phone, language, "sent", tmp_path) >= 2  # the thanks' border
    check_at_every_width(phone, axe_source)

    phone.get(live_app.url(f"/s/{closed}"))
    assert check_the_sides(phone, language, "closed", tmp_path) >= 2
    check_at_every_width(phone, axe_source)

    phone.get(live_app.url(f"/s/{results}"))
    # The notice's border and each question's sentences, indented from the start as a list.
    assert check_the_sides(phone, language, "results", tmp_path) >= 2 + 2 * 3
    check_at_every_width(phone, axe_source)
    assert len(list(tmp_path.glob("*.png"))) == 5 * len(WIDTHS)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_projector(
    make_chromium,
    live_app,
    analyst,
    make_survey,
    speaking_right_to_left,
    axe_source,
    tmp_path,
    language,
):
    """The projector with results: its corner of how to join on the start side of the screen
    (right to left: on the right), its QR code at the start of the corner, each chart drawn
    from the start side (the answers' labels there); axe finds nothing."""
    slug = answered(live_app, make_survey, survey_of_every_kind(language))
    driver = signed_in(make_chromium, live_app, analyst)
    speak(driver, language)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    # The corner at 1280 px; each answer's label in its chart (two and three), at both widths.
    assert check_the_sides(driver, language, "projector", tmp_path) >= 1 + 2 * 5
    check_at_every_width(driver, axe_source, height=720)
    driver.set_window_size(1280, 720)
    settle(driver)
    assert driver.execute_script(CORNER_CLASHES) == [], "the corner's words clash at 1280x720"


#: Where the projector's corner (how to join, the code, the QR code) overlaps the privacy
#: sentence above it, or spills out of its own box: German and French words take a line more
#: than English, and the QR code must make room for them.
CORNER_CLASHES = """
const corner = document.querySelector(".projector[data-layout=results] > .present-join");
const above = document.querySelector(".present-privacy").getBoundingClientRect();
const own = corner.getBoundingClientRect();
const parts = [...corner.querySelectorAll(".present-how, .present-code, .present-qr")];
return parts.filter((part) => part.getClientRects().length > 0).filter((part) => {
  const box = part.getBoundingClientRect();
  return box.top < above.bottom - 0.5 || box.top < own.top - 0.5 || box.bottom > own.bottom + 0.5;
}).map((part) => part.className);
"""


#: Each of the lesson's charts on the page, measured in CSS pixels: the centres of its axis's
#: ticks in their order in the drawing (lowest value first), how far each label's left and right
#: edges stand from the axis's (a label is written from where the axis starts), and how many of
#: its words show mirrored (the product of the horizontal scales of their transforms, up to the
#: page, turns them back to front).
LESSON_CHARTS = """
const centre = (element) => {
  const box = element.getBoundingClientRect();
  return (box.left + box.right) / 2;
};
const backToFront = (element) => {
  let scale = 1;
  for (let node = element; node && node !== document.documentElement; node = node.parentElement) {
    const transform = getComputedStyle(node).transform;
    if (transform && transform !== "none") scale *= new DOMMatrix(transform).a;
  }
  return scale < 0;
};
return [...document.querySelectorAll("svg.lesson-chart")].map((chart) => {
  const axis = chart.querySelector("line.lesson-axis").getBoundingClientRect();
  return {
    ticks: [...chart.querySelectorAll("text.lesson-tick")].map(centre),
    labels: [...chart.querySelectorAll("text.lesson-chart-label")].map((label) => {
      const box = label.getBoundingClientRect();
      return [box.left - axis.left, box.right - axis.right];
    }),
    mirroredWords: [...chart.querySelectorAll("text")].filter(backToFront).length,
  };
});
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lesson_s_charts(
    make_chromium, live_app, analyst, make_survey, speaking_right_to_left, language
):
    """The lesson's charts (a yes/no question's ranges and its re-runs, a choice question's
    options) are drawn from the page's start side as the dashboard's are: right to left, the
    axis's lowest tick (0 %) right of its highest (100 %) and the labels written from its right
    end, each word still reading forwards; in German, left to right."""
    slug = answered(live_app, make_survey, survey_of_every_kind(language))
    driver = signed_in(make_chromium, live_app, analyst)
    speak(driver, language)
    driver.set_window_size(1280, 900)
    mirrored = language == RIGHT_TO_LEFT
    charts = 0
    for question, step in ((1, 4), (1, 5), (2, 4)):
        driver.get(live_app.url(f"/analyst/surveys/{slug}/lesson?question={question}&step={step}"))
        settle(driver)
        where = f"the lesson's question {question}, step {step}, in {language}"
        assert driver.execute_script("return document.documentElement.dir") == (
            "rtl" if mirrored else "ltr"
        ), where
        for chart in driver.execute_script(LESSON_CHARTS):
            charts += 1
            lowest, *_, highest = chart["ticks"]
            assert (lowest > highest) if mirrored else (lowest < highest), where
            # Each label written from the axis's start: its right edge at the axis's right end
            # right to left, its left edge at the left end otherwise (a glyph's side bearing
            # apart).
            for left, right in chart["labels"]:
                start = right if mirrored else left
                assert abs(start) < 3, f"{where}: a label {start:.0f} px off the axis's start"
            assert chart["mirroredWords"] == 0, f"{where}: words shown back to front"
    assert charts == 3
