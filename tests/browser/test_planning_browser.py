"""The builder's planning on a phone-sized window in headless Chromium: typing p, the class size
and the margin wanted updates what the class will learn without a page load, and the suggested
flip probability is applied with one tap."""

from __future__ import annotations

import pytest
from selenium.common.exceptions import NoSuchElementException, TimeoutException
from selenium.webdriver.common.by import By

from survey_app import privacy
from survey_app.words import format_points
from tests.browser.test_accessibility import signed_in
from tests.browser.test_professor_browser import (
    ANALYST_PASSWORD,
    click_and_wait_for_page,
    find,
    type_into,
    wait_for,
)

pytestmark = pytest.mark.browser

YES_NO = "a yes/no question will be known within about"
PHONE = {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True}


def planning_text(driver) -> str:
    return find(driver, "#readout-planning").text


def suggestion_text(driver) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, "#readout-suggestion")
    return found[0].text if found else ""


def wait_for_words(driver, read, words: str) -> None:
    """Wait until ``read(driver)`` holds ``words`` (the readout answers a moment after typing,
    and is missing a moment while it is swapped for the new one)."""
    try:
        wait_for(driver, lambda d: words in read(d))
    except TimeoutException:
        try:
            seen = read(driver)
        except NoSuchElementException:
            seen = "(no readout)"
        pytest.fail(f"{words!r} not in {seen!r}")


def margin_words(p: float, k: int, n: int, first: bool = True) -> str:
    """A margin as the readout says it: the first in full ("±27 percentage points"), the
    others short ("±32 points")."""
    half_width = privacy.RandomizedResponse(p, k).planned_half_width(n)
    return f"±{format_points(half_width)} {'percentage points' if first else 'points'}"


def test_the_builder_plans_as_p_and_the_class_size_change(live_app, analyst, make_chromium):
    prof = make_chromium()
    prof.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    prof.get(live_app.url("/analyst/login"))
    type_into(prof, "#email", analyst)
    type_into(prof, "#password", ANALYST_PASSWORD)
    click_and_wait_for_page(prof, "#sign-in")
    prof.get(live_app.url("/analyst/surveys/new"))

    # The page works it out itself: the button that asks the server again is hidden.
    assert not find(prof, "#update-plan").is_displayed()
    assert find(prof, "#privacy-readout").get_attribute("aria-live") == "polite"
    assert f"With 40 students, {YES_NO} {margin_words(0.25, 2, 40)}" in planning_text(prof)

    page = find(prof, "html")
    type_into(prof, "#flip_probability", "0.2")
    type_into(prof, "#class_size", "100")
    expected = f"With 100 students, {YES_NO} {margin_words(0.2, 2, 100)}"
    wait_for_words(prof, planning_text, expected)
    chebyshev = privacy.RandomizedResponse(0.2).chebyshev_half_width(100)
    assert (
        f"Chebyshev’s bound with the exact variance would say ±{format_points(chebyshev)} points."
        in planning_text(prof)
    )
    assert find(prof, "html") == page  # no page load

    # A class size of 0: a plain message, and the figures come back with a real one.
    type_into(prof, "#class_size", "0")
    wait_for_words(prof, planning_text, "The class size must be")
    type_into(prof, "#class_size", "100")
    wait_for_words(prof, planning_text, expected)

    # The margin wanted: the suggestion, applied with its button.
    suggested = privacy.suggest_flip_probability(0.15, 100, [2])
    assert suggested is not None and suggested != 0.2
    type_into(prof, "#margin", "15")
    wait_for_words(prof, suggestion_text, f"use a flip probability of {suggested:g}")
    button = find(prof, "#apply-suggestion")
    assert button.text == f"Use {suggested:g}"
    button.click()
    wait_for_words(prof, suggestion_text, "already the most private")
    assert find(prof, "#flip_probability").get_attribute("value") == f"{suggested:g}"
    assert f"known within about {margin_words(suggested, 2, 100)}" in planning_text(prof)
    assert find(prof, "html") == page

    # Out of reach: the floor of privacy, and the students it would take.
    type_into(prof, "#margin", "3")
    wait_for_words(prof, suggestion_text, "the least privacy this app will suggest")
    assert not prof.find_elements(By.CSS_SELECTOR, "#apply-suggestion")

    # Adding a question reloads the page from the server: the class size stays, and the new
    # question joins the figures as it is typed.
    click_and_wait_for_page(prof, "#add-choice")
    assert find(prof, "#class_size").get_attribute("value") == "100"
    type_into(prof, "#question-text-1", "How often?")
    type_into(prof, "#question-options-1", "Never\nOnce\nOften")
    words = f"“How often?” (3 options) within {margin_words(suggested, 3, 100, first=False)}"
    wait_for_words(prof, planning_text, words)

    # Nothing is wider than the phone.
    widths = prof.execute_script(
        "const root = document.documentElement;"
        "return {inner: window.innerWidth, client: root.clientWidth, scroll: root.scrollWidth};"
    )
    assert widths["inner"] == 360, widths
    assert widths["scroll"] <= widths["client"], widths


#: The contrast of a button's text against the background it is really drawn on, in the page:
#: WCAG's relative luminance, the first opaque background going up from the button.
CONTRAST = """
const element = arguments[0];
function rgb(text) { return text.match(/[\\d.]+/g).map(Number); }
function luminance([r, g, b]) {
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
let node = element, background = null;
while (node && node.nodeType === 1) {
  const value = rgb(getComputedStyle(node).backgroundColor);
  if (value.length < 4 || value[3] > 0) { background = value; break; }
  node = node.parentElement;
}
background = background || [255, 255, 255];
const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(background)];
return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
"""


def test_the_builders_remove_buttons_are_readable_in_every_state(live_app, analyst, make_chromium):
    """They were blank red bars: red text on button.danger's red background (contrast 1:1)."""
    from selenium.webdriver.common.action_chains import ActionChains

    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url("/analyst/surveys/new"))
    buttons = driver.find_elements(By.CSS_SELECTOR, "button[value^='remove_']")
    assert buttons
    for button in buttons:
        assert button.text.startswith("Remove question")
        assert driver.execute_script(CONTRAST, button) >= 4.5  # at rest
        ActionChains(driver).move_to_element(button).perform()
        assert driver.execute_script(CONTRAST, button) >= 4.5  # hovered
        driver.execute_script("arguments[0].focus()", button)
        assert driver.execute_script(CONTRAST, button) >= 4.5  # focused
