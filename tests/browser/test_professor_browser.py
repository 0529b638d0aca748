"""A professor's whole day in headless Chromium, against the app served live on loopback.

Sign in, build a survey with both question types, watch the privacy readout follow p, save,
preview, open, share the link; several respondents answer in another browser; the dashboard
refreshes itself; the estimates, chart and both CSVs agree with the results API; close.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.words import format_epsilon, percent, percent_high, percent_low

pytestmark = pytest.mark.browser

#: The account the ``analyst`` fixture creates (tests/conftest.py).
ANALYST_PASSWORD = "correct horse battery"

YES_NO_TEXT = "Have you ever copied homework?"
CHOICE_TEXT = "How often?"
OPTIONS = ["Never", "Once", "Often"]
#: True answers of the respondents: (yes/no value, choice value). Ten: enough for shares.
TRUE_ANSWERS = [(1, 0), (0, 2), (1, 1), (1, 2), (0, 0), (1, 2), (0, 1), (1, 0), (0, 2), (1, 1)]

FETCH_TEXT = """
const [url, done] = [arguments[0], arguments[arguments.length - 1]];
fetch(url, {credentials: "same-origin", cache: "no-store"})
  .then(async (response) => {
    const bytes = new Uint8Array(await response.arrayBuffer());
    done({
      status: response.status,
      type: response.headers.get("Content-Type"),
      disposition: response.headers.get("Content-Disposition"),
      // The first bytes as they came (a CSV's byte-order mark); the text without them, as
      // TextDecoder drops a UTF-8 byte-order mark.
      head: Array.from(bytes.slice(0, 3)),
      text: new TextDecoder().decode(bytes),
    });
  })
  .catch((error) => done({status: 0, text: String(error)}));
"""


def wait_for(driver, condition, timeout: float = 15, message: str = ""):
    # The open dashboard swaps its results panel every 10 s: an element read a moment before
    # the swap is stale, so the wait tries again rather than failing.
    return WebDriverWait(
        driver,
        timeout,
        poll_frequency=0.1,
        ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
    ).until(lambda d: condition(d), message)


def find(driver, css: str):
    return driver.find_element(By.CSS_SELECTOR, css)


def type_into(driver, css: str, text: str) -> None:
    field = find(driver, css)
    field.clear()
    field.send_keys(text)


def click_and_wait_for_page(driver, css: str) -> None:
    """Click something that loads a new page, and wait until the new page is there."""
    old = find(driver, "html")
    find(driver, css).click()
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "html") != old)
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def readout_text(driver) -> str:
    return find(driver, "#privacy-readout").text


def fetch(driver, url: str) -> dict:
    """GET ``url`` from inside the page, with the page's own session cookie."""
    return driver.execute_async_script(FETCH_TEXT, url)


def table_rows(section) -> list[tuple[str, ...]]:
    rows = []
    for row in section.find_elements(By.CSS_SELECTOR, "table.data tbody tr"):
        cells = row.find_elements(By.CSS_SELECTOR, "th, td")
        rows.append(tuple(cell.get_attribute("textContent").strip() for cell in cells))
    return rows


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.database  # the whole day on PostgreSQL too, as a deployment meets it
def test_a_professors_day(live_app, analyst, make_chromium):
    prof = make_chromium()

    # ------------------------------------------------------------------ sign in
    prof.get(live_app.url("/analyst/login"))
    type_into(prof, "#email", analyst)
    type_into(prof, "#password", ANALYST_PASSWORD)
    click_and_wait_for_page(prof, "#sign-in")
    assert prof.current_url == live_app.url("/analyst/")
    assert analyst in find(prof, ".site-header").text

    # ------------------------------------------------------------------ build
    click_and_wait_for_page(prof, "#new-survey")
    type_into(prof, "#title", "Academic integrity, week 3")
    type_into(prof, "#intro", "Answer honestly: your browser randomizes your answers.")
    type_into(prof, "#question-text-0", YES_NO_TEXT)

    # The readout follows p as it is typed, without a page load.
    page = find(prof, "html")
    type_into(prof, "#flip_probability", "0.1")
    ln9 = math.log(9)
    wait_for(
        prof, lambda d: "flipped 10% of the time" in readout_text(d), message=readout_text(prof)
    )
    assert f"ε = {format_epsilon(ln9)} a question" in readout_text(prof)
    assert "at most 90% sure" in readout_text(prof)
    assert find(prof, "html") == page

    # A multiple-choice question, added with the button; what was typed stays.
    click_and_wait_for_page(prof, "#add-choice")
    assert find(prof, "#title").get_attribute("value") == "Academic integrity, week 3"
    assert find(prof, "#question-text-0").get_attribute("value") == YES_NO_TEXT
    assert find(prof, "#flip_probability").get_attribute("value") == "0.1"
    assert find(prof, "#question-type-1").get_attribute("value") == "choice"
    # 2 ln 9 = 4.394: rounded up
    assert "4.40 for 2 questions" in readout_text(prof)
    assert find(prof, "#question-options-1").is_displayed()
    assert not find(prof, "#question-options-0").is_displayed()  # yes/no has no options
    type_into(prof, "#question-text-1", CHOICE_TEXT)
    type_into(prof, "#question-options-1", "\n".join(OPTIONS))

    type_into(prof, "#flip_probability", "0.25")
    ln3 = math.log(3)
    wait_for(
        prof, lambda d: "flipped 25% of the time" in readout_text(d), message=readout_text(prof)
    )
    readout = readout_text(prof)
    assert (
        f"ε = {format_epsilon(ln3)} a question; {format_epsilon(2 * ln3)} for 2 questions"
        in readout
    )
    assert "at most 75% sure" in readout

    type_into(prof, "#flip_probability", "0.7")
    wait_for(
        prof, lambda d: "a number from 0.01 to 0.49" in readout_text(d), message=readout_text(prof)
    )
    type_into(prof, "#flip_probability", "0.25")
    wait_for(prof, lambda d: "flipped 25%" in readout_text(d), message=readout_text(prof))

    click_and_wait_for_page(prof, "#save-survey")
    match = re.fullmatch(
        re.escape(live_app.url("/analyst/surveys/")) + r"([\w-]+)", prof.current_url
    )
    assert match, prof.current_url
    slug = match.group(1)
    dashboard_url = prof.current_url
    assert find(prof, "#survey-status-badge").text == "draft"
    assert "ε = 1.10" in find(prof, "#privacy-heading + p").text

    # ------------------------------------------------------------------ preview
    click_and_wait_for_page(prof, "#preview-survey")
    assert find(prof, "#preview-notice").is_displayed()
    assert find(prof, "h1").text == "Academic integrity, week 3"
    legends = [normalise(e.text) for e in prof.find_elements(By.CSS_SELECTOR, "legend")]
    assert legends == [f"1. {YES_NO_TEXT}", f"2. {CHOICE_TEXT}"]
    labels = [e.text for e in prof.find_elements(By.CSS_SELECTOR, "label.option")]
    assert labels == ["Yes", "No", *OPTIONS]
    assert not find(prof, "#submit-survey").is_enabled()
    prof.get(dashboard_url)

    # ------------------------------------------------------------------ open, share
    click_and_wait_for_page(prof, "#open-survey")
    assert find(prof, "#survey-status-badge").text == "open"
    link = find(prof, "#respondent-link").get_attribute("value")
    assert link == live_app.url(f"/s/{slug}")
    find(prof, "#copy-link").click()
    wait_for(prof, lambda d: d.find_element(By.CSS_SELECTOR, "#copy-status").text.strip())
    assert find(prof, "#respondent-count").text == "0"

    # ------------------------------------------------------------------ respondents
    # Results change in releases of whole batches (test_releases): with a batch of the class's
    # size, the dashboard's first release, whenever it refreshes, holds every answer.
    live_app.app.config["RELEASE_BATCH"] = len(TRUE_ANSWERS)
    respondent = make_chromium()
    for yes_no, choice in TRUE_ANSWERS:
        respondent.get(link)
        wait_for(respondent, lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
        fieldsets = respondent.find_elements(By.CSS_SELECTOR, "fieldset.question")
        for fieldset, value in zip(fieldsets, (yes_no, choice), strict=True):
            fieldset.find_element(By.CSS_SELECTOR, f"input[value='{value}']").click()
        find(respondent, "#submit-survey").click()
        wait_for(respondent, lambda d: d.find_element(By.ID, "thank-you").is_displayed())
        # The next respondent starts afresh: a new submission id and a new randomized table.
        respondent.execute_script("window.localStorage.clear();")

    # ------------------------------------------------------------------ the dashboard
    # No reload: the open dashboard fetches its results panel every 10 seconds.
    wait_for(
        prof,
        lambda d: d.find_element(By.ID, "respondent-count").text == str(len(TRUE_ANSWERS)),
        timeout=30,
        message="the dashboard did not refresh itself",
    )
    # Read the figures from a fresh page: its next self-refresh is 10 s away, so no element
    # read below is swapped out from under the reads.
    prof.refresh()
    wait_for(
        prof, lambda d: d.find_element(By.ID, "respondent-count").text == str(len(TRUE_ANSWERS))
    )
    reply = fetch(prof, f"/api/v1/surveys/{slug}/results")
    assert reply["status"] == 200, reply
    document = json.loads(reply["text"])
    assert document["respondents"] == len(TRUE_ANSWERS)
    assert document["status"] == "open"
    assert [q["text"] for q in document["questions"]] == [YES_NO_TEXT, CHOICE_TEXT]
    assert [o["label"] for o in document["questions"][1]["options"]] == OPTIONS

    def table_estimate(o: dict) -> str:
        """The table's figure: the headline, with the unbiased estimate beside it where the two
        differ as shown (noise can push an estimate outside 0-100%)."""
        shown, unbiased = percent(o["headline"]), percent(o["estimate"])
        return shown if shown == unbiased else f"{shown} (unbiased: {unbiased})"

    for question in document["questions"]:
        assert question["n"] == len(TRUE_ANSWERS)
        assert sum(o["noisy_count"] for o in question["options"]) == len(TRUE_ANSWERS)
        section = find(prof, f"#question-{question['id']}")
        expected = [
            (
                o["label"],
                str(o["noisy_count"]),
                percent(o["noisy_count"] / question["n"]),
                table_estimate(o),
                f"{percent_low(o['exact_ci_low'])} – {percent_high(o['exact_ci_high'])}",
                f"{percent_low(o['live_ci_low'])} – {percent_high(o['live_ci_high'])}",
                f"{percent_low(o['ci_low'])} – {percent_high(o['ci_high'])}",
            )
            if o["consistent"]
            else (
                o["label"],
                str(o["noisy_count"]),
                percent(o["noisy_count"] / question["n"]),
                table_estimate(o),
                "not consistent",
                "not consistent",
                "not consistent",
            )
            for o in question["options"]
        ]
        assert table_rows(section) == expected
        chart = section.find_element(By.CSS_SELECTOR, "svg.chart")
        assert chart.is_displayed()
        consistent = [o for o in question["options"] if o["consistent"]]
        assert len(chart.find_elements(By.CSS_SELECTOR, "rect.exact")) == len(consistent)
        chart_labels = [
            e.get_attribute("textContent") for e in chart.find_elements(By.CSS_SELECTOR, ".label")
        ]
        assert chart_labels == [o["label"] for o in question["options"]]
        # With ten respondents the ranges are usually wide, and the page says so when the
        # widest range it leads with (live while the survey is open: headline_range) reaches
        # further than 20 points either way. (The answers were randomized by the browser, so
        # whether it does depends on the draw.)
        led = {"live": "live_ci", "exact": "exact_ci"}[document["headline_range"]]
        half_widths = [
            (o[f"{led}_high"] - o[f"{led}_low"]) / 2
            for o in question["options"]
            if o[f"{led}_low"] is not None
        ]
        wide = bool(half_widths) and max(half_widths) > 0.2
        assert ("too wide to say much yet" in section.text) is wide, half_widths

    # Nothing on the dashboard came from anywhere else.
    resources = prof.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name);"
    )
    assert resources and all(url.startswith(live_app.base_url) for url in resources), resources

    # ------------------------------------------------------------------ CSV exports
    assert (
        find(prof, "#download-results")
        .get_attribute("href")
        .endswith(f"/api/v1/surveys/{slug}/results.csv?confidence=0.95")
    )
    results = fetch(prof, find(prof, "#download-results").get_attribute("href"))
    assert results["status"] == 200
    assert results["type"].startswith("text/csv")
    assert re.fullmatch(
        r'attachment; filename="academic-integrity-week-3-\d{4}-\d\d-\d\d-results\.csv"',
        results["disposition"],
    ), results["disposition"]
    assert results["head"] == [0xEF, 0xBB, 0xBF]  # the byte-order mark Excel needs
    rows = list(csv.reader(io.StringIO(results["text"], newline="")))
    # The figure the pages give beside the unbiased one, then the headline (exact) range
    # first; the Chebyshev columns say what they are.
    assert rows[0] == [
        "question_number",
        "question",
        "option_value",
        "option",
        "n",
        "noisy_count",
        "estimate",
        "headline",
        "exact_ci_low",
        "exact_ci_high",
        "chebyshev_ci_low",
        "chebyshev_ci_high",
        "confidence",
        "epsilon",
        "bernstein_ci_low",  # numeric questions only
        "bernstein_ci_high",
        "simultaneous_ci_low",  # all of a question's options at once
        "simultaneous_ci_high",
        "live_ci_low",  # valid at every look
        "live_ci_high",
        "row_value",  # a paired question's two answers, by value
        "column_value",
    ]
    options = [
        (number, q, o)
        for number, q in enumerate(document["questions"], start=1)
        for o in q["options"]
    ]
    assert [row[:6] for row in rows[1:]] == [
        [str(number), q["text"], str(o["value"]), o["label"], str(q["n"]), str(o["noisy_count"])]
        for number, q, o in options
    ]
    # The figures are the API's to four decimal places (ranges rounded outward, by less than a
    # step of 0.0001), the confidence as asked for.
    for row, (_, _, o) in zip(rows[1:], options, strict=True):
        assert abs(float(row[6]) - o["estimate"]) <= 0.00005 + 1e-12
        assert abs(float(row[7]) - o["headline"]) <= 0.00005 + 1e-12
        if o["exact_ci_low"] is not None:
            assert -1e-9 <= o["exact_ci_low"] - float(row[8]) < 1e-4
            assert -1e-9 <= float(row[9]) - o["exact_ci_high"] < 1e-4
        assert -1e-9 <= o["ci_low"] - float(row[10]) < 1e-4  # the API's Chebyshev range
        assert -1e-9 <= float(row[11]) - o["ci_high"] < 1e-4
        assert row[12] == "0.95"
        assert -1e-9 <= float(row[13]) - document["epsilon_per_question"] < 1e-4
        for cell in row[6:]:
            assert re.fullmatch(r"-?\d+(\.\d{1,4})?", cell) or cell == "", cell

    # A row per submission only once the survey closes (see "close" below).
    assert "once the survey closes" in find(prof, "#responses-after-closing").text
    assert not prof.find_elements(By.ID, "download-responses")

    # ------------------------------------------------------------------ on a phone
    prof.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True},
    )
    try:
        prof.get(dashboard_url)
        widths = prof.execute_script(
            """
            const root = document.documentElement;
            return {inner: window.innerWidth, client: root.clientWidth,
                    scroll: root.scrollWidth, body: document.body.scrollWidth};
            """
        )
        assert widths["inner"] == 360, widths
        assert widths["scroll"] <= widths["client"], widths
        assert widths["body"] <= widths["client"], widths
    finally:
        prof.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # ------------------------------------------------------------------ close
    click_and_wait_for_page(prof, "#close-survey")
    assert "takes no more answers" in find(prof, "#close-consequences").text  # asked first
    click_and_wait_for_page(prof, "#confirm-close")
    assert find(prof, "#survey-status-badge").text == "closed"
    assert find(prof, "#respondent-count").text == str(len(TRUE_ANSWERS))
    responses = fetch(prof, find(prof, "#download-responses").get_attribute("href"))
    assert responses["status"] == 200
    assert responses["head"] == [0xEF, 0xBB, 0xBF]
    # Saved, the file is named by the title and the day, and says its answers are randomized
    # (the address stays responses.csv).
    named = r'attachment; filename="academic-integrity-week-3-{day}-randomized-responses\.csv"'
    day = r"\d{4}-\d\d-\d\d"
    assert re.fullmatch(named.format(day=day), responses["disposition"]), responses["disposition"]
    rows = list(csv.reader(io.StringIO(responses["text"], newline="")))
    assert rows[0] == [
        "submission_id",
        "submitted_on",
        f"Q1 (randomized): {YES_NO_TEXT}",
        "Q1 value",
        f"Q2 (randomized): {CHOICE_TEXT}",
        "Q2 value",
    ]
    assert len(rows) == 1 + len(TRUE_ANSWERS)
    ids = [row[0] for row in rows[1:]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for number, question in enumerate(document["questions"], start=1):
        labels = [o["label"] for o in question["options"]]
        answers = [(row[2 * number], int(row[2 * number + 1])) for row in rows[1:]]
        assert all(label == labels[value] for label, value in answers), answers
        counts = Counter(value for _, value in answers)
        assert [counts[o["value"]] for o in question["options"]] == [
            o["noisy_count"] for o in question["options"]
        ]
    respondent.execute_script("window.localStorage.clear();")
    respondent.get(link)
    assert not respondent.find_elements(By.ID, "submit-survey")
    assert "has closed and no longer takes answers" in find(respondent, "main").text
