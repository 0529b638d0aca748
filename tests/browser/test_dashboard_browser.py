"""The dashboard's results on a 360-pixel phone and a 1280-pixel screen, in headless Chromium.

The answers are recorded on the server (the respondent's side has its own browser tests); the
figures the page shows are compared with the results API's, and the chart's bands are measured
where Chromium draws them.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from survey_app.extensions import db
from survey_app.surveys.services import close_survey, find_survey
from survey_app.words import percent_high, percent_low
from tests.analyst_helpers import ROWS, submit
from tests.browser.test_professor_browser import (
    ANALYST_PASSWORD,
    click_and_wait_for_page,
    fetch,
    find,
    type_into,
)
from tests.unit.results.test_pooled_results import OTHER_ROWS

pytestmark = pytest.mark.browser

#: Where the chart draws 0% and 100%, in its own 320 units (templates/results/_chart.html).
CHART_UNITS, CHART_LEFT, CHART_WIDTH = 320, 16, 282

SCREENS = {
    "phone": {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True},
    "projector": {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
}

MEASURE = """
const section = arguments[0];
const svg = section.querySelector("svg.chart");
const box = svg.getBoundingClientRect();
const rows = [...svg.querySelectorAll("rect.exact")].map((band, index) => {
  const b = band.getBoundingClientRect();
  const line = svg.querySelectorAll("line.chebyshev")[3 * index].getBoundingClientRect();
  return {band: [b.left - box.left, b.right - box.left, b.height],
          chebyshev: [line.left - box.left, line.right - box.left]};
});
const label = svg.querySelector("text.label").getBoundingClientRect();
const region = section.querySelector(".table-scroll");
return {width: box.width, rows, label_height: label.height,
        title: svg.querySelector("title").textContent,
        region: {role: region.getAttribute("role"), tabindex: region.getAttribute("tabindex"),
                 label: region.getAttribute("aria-label"),
                 scrolls: region.scrollWidth > region.clientWidth}};
"""


def sign_in(driver, live_app, email: str) -> None:
    driver.get(live_app.url("/analyst/login"))
    type_into(driver, "#email", email)
    type_into(driver, "#password", ANALYST_PASSWORD)
    click_and_wait_for_page(driver, "#sign-in")


def words(element) -> str:
    return re.sub(r"\s+", " ", element.text).strip()


def x_at(share: float, width: float) -> float:
    """Where a share lies across a chart drawn ``width`` pixels wide."""
    return (CHART_LEFT + CHART_WIDTH * share) * width / CHART_UNITS


@pytest.mark.parametrize("screen", SCREENS)
def test_dashboard_words_and_chart_at_phone_and_projector_sizes(
    live_app, analyst, make_survey, chromium, screen
):
    slug, _ = make_survey()
    submit(live_app.app, slug, ROWS + OTHER_ROWS)
    # Closed: the words and bands give the exact ranges (open: the live ones, further below).
    with live_app.app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
    sign_in(chromium, live_app, analyst)
    chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREENS[screen])
    try:
        chromium.get(live_app.url(f"/analyst/surveys/{slug}"))
        reply = fetch(chromium, f"/api/v1/surveys/{slug}/results")
        document = json.loads(reply["text"])
        sizes = chromium.execute_script(
            "const root = document.documentElement;"
            "return {inner: window.innerWidth, client: root.clientWidth, scroll: root.scrollWidth};"
        )
        assert sizes["inner"] == SCREENS[screen]["width"], sizes
        assert sizes["scroll"] <= sizes["client"], sizes  # the page never scrolls sideways

        for question in document["questions"]:
            section = find(chromium, f"#question-{question['id']}")
            text = words(section)
            options = question["options"]
            worded = options if question["type"] == "choice" else options[1:]
            for option in worded:
                assert option["consistent"] and option["exact_ci_low"] < option["exact_ci_high"]
                assert (
                    f"would truly answer “{option['label']}”: between "
                    f"{percent_low(option['exact_ci_low'])} and "
                    f"{percent_high(option['exact_ci_high'])}, "
                    "guaranteed at least 95% of the time."
                ) in text
            assert f"These ranges cover the {question['n']} people who answered" in text
            assert "Chebyshev’s bound with the exact variance" in text

            seen = chromium.execute_script(MEASURE, section)
            assert seen["title"].startswith(f"Question {question['number']}: the share")
            assert len(seen["rows"]) == len(options)
            for row, option in zip(seen["rows"], options, strict=True):
                left, right, height = row["band"]
                # The thick band spans the exact range, within a pixel ...
                assert left == pytest.approx(x_at(option["exact_ci_low"], seen["width"]), abs=1)
                assert right == pytest.approx(x_at(option["exact_ci_high"], seen["width"]), abs=1)
                assert height >= 12  # thick: at least 12 pixels on a phone
                # ... and the thin line the Chebyshev one, wider here.
                low, high = row["chebyshev"]
                assert low == pytest.approx(x_at(option["ci_low"], seen["width"]), abs=2)
                assert high == pytest.approx(x_at(option["ci_high"], seen["width"]), abs=2)
                assert high - low > right - left
            # Readable: labels at least 12 pixels high on a phone, twice that on a projector.
            assert seen["label_height"] >= (12 if screen == "phone" else 24), seen
            region = seen["region"]
            assert (region["role"], region["tabindex"]) == ("region", "0")
            assert region["label"] == f"Counts and ranges for question {question['number']}"
            # On a phone the six columns scroll inside their region, which the keyboard reaches.
            assert region["scrolls"] is (screen == "phone")
    finally:
        chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        chromium.delete_all_cookies()


def test_sections_are_combined_from_the_dashboard(live_app, analyst, make_survey, chromium):
    first, _ = make_survey()
    second, _ = make_survey()
    submit(live_app.app, first, ROWS)
    submit(live_app.app, second, OTHER_ROWS)
    sign_in(chromium, live_app, analyst)
    chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREENS["phone"])
    try:
        chromium.get(live_app.url(f"/analyst/surveys/{first}"))
        assert find(chromium, "#respondent-count").text == str(len(ROWS))
        find(chromium, "#pool-picker summary").click()
        find(chromium, f"input[name='pool'][value='{second}']").click()
        click_and_wait_for_page(chromium, "#pool-show")
        assert f"pool={second}" in chromium.current_url
        total = len(ROWS) + len(OTHER_ROWS)
        assert find(chromium, "#respondent-count").text == str(total)
        summary = words(find(chromium, "#pooled-summary"))
        assert f"this survey: {len(ROWS)} answered" in summary
        assert f": {len(OTHER_ROWS)} answered" in summary
        # The pooled figures are the pooled API's.
        link = find(chromium, "#pool-json").get_attribute("href")
        assert link.endswith(f"/api/v1/results?surveys={first},{second}&confidence=0.95")
        document = json.loads(fetch(chromium, link)["text"])
        assert document["respondents"] == total
        yes = document["questions"][0]["options"][1]
        text = words(find(chromium, f"#question-{document['questions'][0]['id']}"))
        # Open sections: the live ranges, which hold however often the page is read.
        low, high = percent_low(yes["live_ci_low"]), percent_high(yes["live_ci_high"])
        assert f"between {low} and {high}, guaranteed at least 95% of the time, however" in text
        # Back to this survey alone.
        click_and_wait_for_page(chromium, "#pool-off")
        assert find(chromium, "#respondent-count").text == str(len(ROWS))
    finally:
        chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        chromium.delete_all_cookies()


def test_a_closed_survey_says_so_and_how_to_reopen_at_1280_pixels(
    live_app, analyst, make_survey, chromium
):
    """Open, the dashboard says how to join (code and QR code); closed, it says since when it
    is closed and how to reopen, and offers no way to join. A screenshot is kept where
    SURVEY_APP_SHOTS names a folder, to look at."""
    slug, _ = make_survey()
    submit(live_app.app, slug, ROWS)
    sign_in(chromium, live_app, analyst)
    chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREENS["projector"])
    try:
        chromium.get(live_app.url(f"/analyst/surveys/{slug}"))
        assert find(chromium, "#join-qr").is_displayed()
        assert "Students go to" in words(find(chromium, "#join-instructions"))
        with live_app.app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
            day = find_survey(slug).closed_at
        chromium.get(live_app.url(f"/analyst/surveys/{slug}"))
        status = words(find(chromium, "#survey-status"))
        assert status.startswith(f"This survey has been closed since {day.day} {day:%B %Y}:")
        reopen = find(chromium, "#reopen-how")
        assert reopen.is_displayed() and "press Reopen below" in words(reopen)
        assert "keeps every answer already in" in words(reopen)
        assert find(chromium, "#open-survey").text == "Reopen"
        for joining in ("#join-instructions", "#join-code", "#join-qr"):
            assert chromium.find_elements("css selector", joining) == []
        assert "type the code" not in words(find(chromium, "main"))
        folder = os.environ.get("SURVEY_APP_SHOTS")
        if folder:
            chromium.save_screenshot(os.path.join(folder, "closed-dashboard-1280.png"))
    finally:
        chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        chromium.delete_all_cookies()
