"""The browser's numeric mechanisms in a real headless Chromium (issue 14).

The module is imported into a blank page, as in test_randomized_response_browser.py. With words
from a generator of a fixed seed, many reports are compared with the exact law of
survey_app.privacy by a chi-square test (the same cases and tolerance as under Node, in
tests/unit/test_numeric_node.py); with stubbed words, reports equal the values worked out by
hand there.
"""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import seeded_words
from tests.browser.test_numeric_end_to_end import HOURS, stored
from tests.browser.test_randomized_response_browser import STUB_WORDS, load_module
from tests.unit.test_numeric_node import (
    CASES,
    CHOSEN,
    P_VALUE_FLOOR,
    SAMPLER,
    case_id,
    chi_square_p_value,
    value_law,
)

pytestmark = pytest.mark.browser

# Another seed than Node's: the two runs are two independent samples of each law.
SEED = 20_261_215


@pytest.fixture(scope="module")
def chromium_samples(chromium, static_server):
    """Every case's reports, drawn in one page from the seeded words."""
    load_module(chromium, static_server, before_import=seeded_words(SEED))
    chromium.set_script_timeout(300)
    cases = [
        [value, kind.name, kind(0, 10, epsilon).browser_parameters(), draws]
        for kind, epsilon, value, draws in CASES
    ]
    return chromium.execute_script(
        f"""{SAMPLER}
        return arguments[0].map(([value, name, params, draws]) =>
          sampleReports(window.rr.randomizeNumber, value, 0, 10, name, params, draws));
        """,
        cases,
    )


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
def test_chromium_reports_follow_the_exact_law(chromium_samples, index):
    kind, epsilon, value, draws = CASES[index]
    mechanism = kind(0, 10, epsilon)
    counts = chromium_samples[index]
    assert sum(counts.values()) == draws
    low, _ = mechanism.output_range
    p_value, runs = chi_square_p_value(counts, value_law(mechanism, value, 0, 10), low)
    assert runs >= 2
    assert p_value > P_VALUE_FLOOR, (p_value, runs)


def test_chromium_reports_for_chosen_words(chromium, static_server):
    load_module(chromium, static_server)
    chromium.execute_script(STUB_WORDS)
    results = chromium.execute_script(
        """
        return arguments[0].map(([value, name, params, words]) => {
          window.queue = [...words];
          window.drawn = 0;
          const output = window.rr.randomizeNumber(value, 0, 10, name, params);
          return [output, window.drawn, window.queue.length];
        });
        """,
        [[value, name, params, words] for value, name, params, words, _, _ in CHOSEN],
    )
    for case, result in zip(CHOSEN, results, strict=True):
        value, name, _, words, expected, drawn = case
        assert result == [expected, drawn, len(words) - drawn], (value, name, words)


def test_a_number_with_a_thousands_separator_gets_its_own_message(
    make_chromium, live_app, make_survey
):
    """ "1,500" is 1500 in English and 1.5 in French: the page asks which, under the field."""
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    field = phone.find_element(By.ID, f"answer-{number_id}")
    phone.find_element(By.CSS_SELECTOR, f'input[data-question-id="{yes_no_id}"][value="1"]').click()
    field.send_keys("1,500")
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(
        lambda d: d.find_element(By.ID, "survey-status").text.startswith("Please check")
    )
    status = phone.find_element(By.ID, "survey-status").text
    assert status == "Please check the number in question 1: see the note under it."
    assert "Not answered yet" not in status
    note = phone.find_element(By.ID, f"answer-{number_id}-error")
    assert note.text == "Write 1500 without a separator, or 1.5 with one decimal point or comma."
    assert field.get_attribute("aria-invalid") == "true"
    described = field.get_attribute("aria-describedby").split()
    assert described == [f"answer-{number_id}-hint", f"answer-{number_id}-error"]
    assert phone.switch_to.active_element == field
    assert stored(live_app, slug) == []
    # "1.500" is the same question read the other way round (a thousand and a half in German).
    field.clear()
    field.send_keys("1.500")
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(
        lambda d: d.find_element(By.ID, f"answer-{number_id}-error").text.startswith("Write 1500")
    )
    assert stored(live_app, slug) == []

    # Written plainly, the note goes, and the answer is sent.
    field.clear()
    field.send_keys("1500")
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    assert phone.find_elements(By.ID, f"answer-{number_id}-error") == []
    assert field.get_attribute("aria-describedby") == f"answer-{number_id}-hint"
    assert len(stored(live_app, slug)) == 1
