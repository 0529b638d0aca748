"""The browser's numeric mechanisms in a real headless Chromium (issue 14).

The module is imported into a blank page, as in test_randomized_response_browser.py. With words
from a generator of a fixed seed, many reports of every mechanism (Laplace, the hybrid and the
one-bit mechanism) are compared with the exact law of survey_app.privacy by a chi-square test
(the same cases and tolerance as under Node, in tests/unit/privacy/test_numeric_node.py);
with stubbed words, reports equal the values worked out by hand there. A survey whose
numeric question names the one-bit mechanism is answered through the respondent page
(survey.js) as a student would.
"""

import json
import math

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.privacy.one_bit import OneBitNumeric
from tests.browser.conftest import seeded_words
from tests.browser.respondent_helpers import saved_state
from tests.browser.test_numeric_end_to_end import stored
from tests.browser.test_randomized_response_browser import STUB_WORDS, load_module
from tests.numeric_helpers import HOURS
from tests.unit.privacy.test_numeric_node import (
    CASES,
    CHOSEN,
    P_VALUE_FLOOR,
    SAMPLER,
    case_id,
    chi_square_p_value,
    value_law,
)

pytestmark = pytest.mark.browser

WORDS = 2**32

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
    assert status == (
        "Please check question 1: write 1500 without a separator, or 1.5 with one decimal point "
        "or comma."
    )
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


# At epsilon = ln 3 (flip probability 0.25) on [0, 40]: T0 and Delta, and 12.5 sits at 312.5 on
# the grid, so the rounding word 0 takes it up to k = 313, whose threshold is T0 + 313 Delta.
ONE_BIT_LN3 = {"steps": 1000, "duchi_base": 1073742148, "duchi_slope": 2147483}
THRESHOLD_AT_313 = 1073742148 + 313 * 2147483


@pytest.mark.parametrize(("duchi", "expected"), [(THRESHOLD_AT_313 - 1, 1), (THRESHOLD_AT_313, 0)])
def test_a_one_bit_question_is_answered_through_the_page(
    make_chromium, live_app, make_survey, duchi, expected
):
    """survey.js draws the one-bit noise (two words) on load and sends the bit they give: here
    from noise planted in the page's storage, which it reuses as it would its own."""
    number, yes_no = HOURS["questions"]
    definition = {**HOURS, "questions": [{**number, "mechanism": "one_bit"}, yes_no]}
    slug, (number_id, yes_no_id) = make_survey(definition)
    assert OneBitNumeric(0.0, 40.0, math.log(3)).browser_parameters() == ONE_BIT_LN3
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    fieldset = phone.find_element(By.CSS_SELECTOR, f'fieldset[data-question-id="{number_id}"]')
    assert fieldset.get_attribute("data-mechanism") == "one_bit"
    assert json.loads(fieldset.get_attribute("data-parameters")) == ONE_BIT_LN3
    state = saved_state(phone, slug)
    noise = state["table"][str(number_id)]["noise"]
    assert set(noise) == {"rounding", "duchi"}
    assert all(isinstance(word, int) and 0 <= word < WORDS for word in noise.values())

    state["table"][str(number_id)]["noise"] = {"rounding": 0, "duchi": duchi}
    phone.execute_script(
        "localStorage.setItem(arguments[0], arguments[1]);", f"survey-app:{slug}", json.dumps(state)
    )
    phone.refresh()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert saved_state(phone, slug) == state  # kept, not drawn again
    phone.find_element(By.ID, f"answer-{number_id}").send_keys("12.5")
    phone.find_element(By.CSS_SELECTOR, f'input[data-question-id="{yes_no_id}"][value="1"]').click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    yes_no_sent = state["table"][str(yes_no_id)][1]
    assert stored(live_app, slug) == [f"{expected},{yes_no_sent}"]
    assert saved_state(phone, slug) == {"submitted": True}
