"""The page scripts' modules, wired into their pages, in headless Chromium: the builder's
Warner's coins (warner.js) and the respondent page's typed numbers (typed-numbers.js), by the
same rules the Node tests pin (tests/warner_coins.json, tests/typed_numbers.json)."""

from __future__ import annotations

import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.dashboard import rendering as dashboard
from tests.analyst_helpers import ROWS, submit
from tests.browser import test_respondent_device_browser as device
from tests.browser.test_dashboard_browser import sign_in
from tests.browser.test_numeric_end_to_end import stored
from tests.browser.test_professor_browser import find, type_into
from tests.numeric_helpers import HOURS

pytestmark = pytest.mark.browser


def test_the_builder_sets_p_from_warners_q_and_q_from_p(live_app, analyst, chromium):
    sign_in(chromium, live_app, analyst)
    chromium.get(live_app.url("/analyst/surveys/new"))
    find(chromium, "#warner summary").click()
    assert not find(chromium, "#apply-warner").is_displayed()  # the script applies q as typed
    type_into(chromium, "#warner_q", "0.3")
    WebDriverWait(chromium, 10).until(
        lambda d: find(d, "#flip_probability").get_attribute("value") == "0.15"
    )
    type_into(chromium, "#flip_probability", "0.2")
    WebDriverWait(chromium, 10).until(
        lambda d: find(d, "#warner_q").get_attribute("value") == "0.4"
    )


@pytest.mark.parametrize(
    ("typed", "outcome"),
    [("1 000", "sent"), ("\u22123", "sent"), ("1e3", "no number"), ("12 5", "unclear")],
)
def test_the_respondent_page_reads_a_number_by_the_one_rule(
    make_chromium, live_app, make_survey, typed, outcome
):
    """Spaces grouping thousands and a minus sign are clear (both clipped to the bounds and
    sent); an exponent is no number, and the note under the field says the number to type;
    spaces that group no thousands are unclear, and the note says how to write the number."""
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    phone.find_element(By.CSS_SELECTOR, f'input[data-question-id="{yes_no_id}"][value="1"]').click()
    phone.find_element(By.ID, f"answer-{number_id}").send_keys(typed)
    phone.find_element(By.ID, "submit-survey").click()
    if outcome == "sent":
        WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
        assert len(stored(live_app, slug)) == 1
        return
    note = {
        "no number": "Type 1000 (not “1e3”).",
        "unclear": "Write the number without thousands separators and with at most one decimal "
        "point or comma, like 1500 or 1.5.",
    }[outcome]
    WebDriverWait(phone, 15).until(
        lambda d: "Please check question 1" in d.find_element(By.ID, "survey-status").text
    )
    status = phone.find_element(By.ID, "survey-status").text
    assert status == f"Please check question 1: {note[0].lower()}{note[1:]}"
    notes = phone.find_elements(By.ID, f"answer-{number_id}-error")
    assert [shown.text for shown in notes] == [note]
    assert stored(live_app, slug) == []


@pytest.mark.parametrize(
    "altered", ["js/answer-table.js", "js/survey-replies.js", "js/typed-numbers.js"]
)
def test_each_module_survey_js_imports_is_refused_when_altered(
    make_chromium, live_app, survey, tmp_path, altered
):
    """As survey.js and randomized-response.js are (test_respondent_device_browser.py): each
    module of the page is preloaded with its integrity, and an altered copy stops the page."""
    device.test_a_script_changed_after_its_hash_was_published_is_refused(
        make_chromium, live_app, survey, tmp_path, altered
    )


FOCUS_FIRST_TABLE = """
const table = document.querySelector("#results .table-scroll");
table.focus();
document.getElementById("results").dataset.shown = "before";
"""
STATE = """
const results = document.getElementById("results");
const active = document.activeElement;
return {marked: results.dataset.shown || null,
        focusedFirstTable: active === results.querySelector(".table-scroll"),
        count: document.getElementById("respondent-count").textContent};
"""


def test_the_open_dashboard_redraws_only_what_changed_and_keeps_focus(
    live_app, analyst, make_survey, chromium, monkeypatch
):
    """live-updates.js: the results panel is asked for every second here; while nothing
    changed the answer is a 304 and the page keeps its results (marked in the page); a new
    release is swapped in, and focus stays on the table it was on."""
    monkeypatch.setattr(dashboard, "REFRESH_SECONDS", 1)
    monkeypatch.setitem(live_app.app.config, "RELEASE_BATCH", 1)
    slug, _ = make_survey()
    submit(live_app.app, slug, ROWS)
    sign_in(chromium, live_app, analyst)
    chromium.get(live_app.url(f"/analyst/surveys/{slug}"))
    assert find(chromium, "#results").get_attribute("data-refresh-seconds") == "1"
    chromium.execute_script(FOCUS_FIRST_TABLE)
    # The first answer carries no ETag to compare with: it is swapped in, focus kept.
    wait = WebDriverWait(chromium, 10)
    wait.until(lambda d: d.execute_script(STATE)["marked"] is None)
    assert chromium.execute_script(STATE)["focusedFirstTable"] is True
    chromium.execute_script('document.getElementById("results").dataset.shown = "kept";')
    time.sleep(3.5)  # three more asks, each a 304
    state = chromium.execute_script(STATE)
    assert state == {"marked": "kept", "focusedFirstTable": True, "count": str(len(ROWS))}
    # A disclosure the reader opened stays open across the swap; the others stay shut.
    opened = chromium.execute_script(
        'const each = document.querySelectorAll("#results details.how-worked-out");'
        "each[0].open = true; return [each.length, each[0].id];"
    )
    assert opened[0] == 2
    submit(live_app.app, slug, ROWS[:1])  # a release of one: the results change
    wait.until(lambda d: d.execute_script(STATE)["count"] == str(len(ROWS) + 1))
    assert chromium.execute_script(
        'return [...document.querySelectorAll("#results details.how-worked-out")]'
        ".map((each) => [each.id, each.open]);"
    ) == [
        [opened[1], True],
        [find(chromium, "#results details:not([open])").get_attribute("id"), False],
    ]
    assert chromium.execute_script(STATE) == {
        "marked": None,
        "focusedFirstTable": True,
        "count": str(len(ROWS) + 1),
    }
