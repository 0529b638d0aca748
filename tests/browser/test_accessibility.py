"""Every page, checked by axe-core in Chromium at a phone's width (360) and a laptop's (1280).

axe-core (Deque's accessibility engine, pinned in tests/browser/package.json and installed by
`npm ci --prefix tests/browser`, which .ci/run does) runs its default rules: WCAG 2.x A and AA,
and its best practices. A page passes when it reports no violation at all, whatever its impact.
Pages are checked in the states people meet them in: with results, with errors, after sending.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from survey_app.classroom.codes import issue_codes
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.surveys.services import close_survey, find_survey, open_survey
from tests.browser.contrast import MINIMUM, low_contrast_controls
from tests.browser.pointer import label_in_name_problems, pointer_cancellation_problems
from tests.browser.wcag import focus_problems, wcag_problems

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (360, 1280)


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():  # never a skip: CI installs it, and a missing tool is a failure
        pytest.fail(f"{AXE} is missing: run `npm ci --prefix tests/browser`")
    return AXE.read_text(encoding="utf-8")


#: axe-core's violations on the page as it is now, each with the first few elements; null when
#: the page has no axe-core yet. Only violations are gathered in full (resultTypes): the other
#: kinds of result are not read, and axe makes a selector for each of their elements otherwise.
#: The first argument, when given, runs only those rules (see COLOUR_RULES).
RUN_AXE = """
const done = arguments[arguments.length - 1];
if (typeof axe === "undefined") {
  done(null);
  return;
}
const options = { resultTypes: ["violations"] };
if (arguments.length > 1 && arguments[0]) {
  options.runOnly = { type: "rule", values: arguments[0] };
}
axe.run(document, options).then(
  (result) => done(result.violations.map((v) => ({
    rule: v.id, impact: v.impact, help: v.help,
    where: v.nodes.slice(0, 3).map((node) => node.target.join(" ")),
  }))),
  (error) => done([{ rule: "axe-error", help: String(error) }]),
);
"""


#: The axe rules whose outcome depends on the colours alone: in a second colour scheme the
#: page's structure, names and roles are those already checked in the first, so only these run.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def violations(driver, axe_source: str, rules: tuple[str, ...] | None = None) -> list[dict]:
    """axe-core's violations on the page as it is now (only ``rules`` when given), each with the
    first few elements.

    axe-core is put into a page once (half a megabyte of script) and stays there while the page
    is checked at every width and colour scheme."""
    driver.set_script_timeout(60)
    chosen = list(rules) if rules else None
    found = driver.execute_async_script(RUN_AXE, chosen)
    if found is None:
        driver.execute_script(axe_source)
        found = driver.execute_async_script(RUN_AXE, chosen)
    return found


#: How many animations are still moving (a page turn's fade on the projector, say): measured
#: mid-fade, text is fainter than it rests, and axe would judge a contrast nobody reads.
MOVING = """
return document.getAnimations().filter((animation) => animation.playState === "running" &&
  animation.effect && animation.effect.getComputedTiming().activeDuration > 0).length;
"""


def settle(driver) -> None:
    """Wait until nothing on the page is animating (a resize may turn the projector's page)."""
    WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda d: d.execute_script(MOVING) == 0)


def check_at_every_width(driver, axe_source: str, height: int = 900) -> None:
    """axe finds nothing at a phone's and a laptop's width (in dark colours, its colour rules:
    the rest was checked in light ones at the same width), the page
    has no horizontal scroll bar, and every control's text is readable at rest, hovered and
    focused (tests/browser/contrast.py: axe checks contrast at rest only); then the WCAG checks
    axe does not make: reflow at 320 px, text at 200%, visible focus, charts' text alternatives,
    and every control's label in its accessible name."""
    try:
        for width in WIDTHS:
            driver.set_window_size(width, height)
            for scheme in ("light", "dark"):
                driver.execute_cdp_cmd(
                    "Emulation.setEmulatedMedia",
                    {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
                )
                settle(driver)
                found = violations(driver, axe_source, COLOUR_RULES if scheme == "dark" else None)
                where = f"at {width} px, {scheme}, on {driver.current_url}"
                assert found == [], where + ":\n" + json.dumps(found, indent=1)
                scroll = driver.execute_script("return document.documentElement.scrollWidth")
                assert scroll <= width, f"{where} the page is {scroll} px wide"
                unreadable = low_contrast_controls(driver)
                assert unreadable == [], f"{where}, controls under {MINIMUM}:1: {unreadable}"
        problems = wcag_problems(driver)  # reflow, text zoom, focus, charts: tests/browser/wcag.py
        problems += label_in_name_problems(driver)  # 2.5.3: tests/browser/pointer.py
        assert problems == [], f"on {driver.current_url}: {problems}"
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_axe_does_report_what_it_should(chromium, live_app, axe_source):
    """The check can fail: a page given an image without words, a scrolling box a keyboard
    cannot reach and grey text on grey is reported, rule by rule; run with the colour rules
    alone, only the grey text."""
    chromium.get(live_app.url("/"))
    chromium.execute_script(
        """
        const box = document.createElement("div");
        box.style.cssText = "overflow: auto; width: 100px; height: 40px";
        box.innerHTML = "<p style='width: 900px'>wide text in a box</p>";
        const image = document.createElement("img");
        image.src = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
        const faint = document.createElement("p");
        faint.textContent = "grey on grey";
        faint.style.cssText = "color: #777; background: #888";
        document.querySelector("main").append(box, image, faint);
        """
    )
    rules = {found["rule"] for found in violations(chromium, axe_source)}
    assert {"image-alt", "scrollable-region-focusable", "color-contrast"} <= rules
    # The second colour scheme's run, of the colour rules alone, still finds what they find.
    colours = {found["rule"] for found in violations(chromium, axe_source, COLOUR_RULES)}
    assert colours == {"color-contrast"}


def test_the_contrast_check_sees_every_state(chromium, live_app):
    """The contrast check can fail: a button readable at rest but red on red when hovered, a
    link that fades when focused, and a blank red bar (the builder's old remove button) are each
    reported in the state that hides them, while an ordinary link is not."""
    chromium.get(live_app.url("/"))
    chromium.execute_script(
        """
        // The page's CSP refuses a <style> element; rules added through the CSSOM are allowed.
        const sheet = document.styleSheets[0];
        for (const rule of [
          "#hover-trap { color: #fff; background: #1f4e79; }",
          "#hover-trap:hover { color: rgb(164, 22, 26); background: rgb(164, 22, 26); }",
          "#focus-trap:focus { color: #eee; }",
          "#red-bar { color: rgb(164, 22, 26); background: rgb(164, 22, 26); }",
        ]) sheet.insertRule(rule, sheet.cssRules.length);
        const main = document.querySelector("main");
        main.insertAdjacentHTML("beforeend",
          "<button id='hover-trap'>Hover trap</button><a id='focus-trap' href='#'>Focus trap</a>" +
          "<button id='red-bar'>Remove question 1</button>");
        """
    )
    found = low_contrast_controls(chromium)
    assert any(line.startswith("'Hover trap' :hover") for line in found), found
    assert not any(line.startswith("'Hover trap' at rest") for line in found), found
    assert any(line.startswith("'Focus trap' :focus") for line in found), found
    assert any(line.startswith("'Remove question 1' at rest") for line in found), found
    chromium.get(live_app.url("/"))
    assert low_contrast_controls(chromium) == []


def test_the_wcag_checks_can_fail(chromium, live_app):
    """Each check in tests/browser/wcag.py reports what it is for: focus rings removed, a chart
    without words, a box 500 px wide (reflow), and a fixed-size box that cuts text at 200%."""
    chromium.get(live_app.url("/"))
    assert wcag_problems(chromium) == []
    chromium.execute_script(
        """
        const sheet = document.styleSheets[0];
        for (const rule of [
          "*:focus, *:focus-visible { outline: none !important; box-shadow: none !important; }",
          "#wide { width: 500px; }",
          "#cut { width: 20rem; height: 1.6em; overflow: hidden; white-space: nowrap; }",
          "#cut span { font-size: 1rem; }",
        ]) sheet.insertRule(rule, sheet.cssRules.length);
        document.querySelector("main").insertAdjacentHTML("beforeend",
          "<div id='wide'>wide</div><div id='cut'><span>" + "words ".repeat(40) + "</span></div>" +
          "<svg width='40' height='40'><rect width='40' height='40'/></svg>");
        """
    )
    found = "\n".join(wcag_problems(chromium))
    for expected in (
        "no visible focus",
        "chart without a text alternative",
        "horizontal scroll at 320",
    ):
        assert expected in found, found
    assert "text cut off at 200%: div#cut" in found, found


def test_the_focus_walk_finds_a_trap(chromium, live_app):
    """The Tab walk can fail on a trap: two buttons that send Tab back and forth between them
    are reported, while the page without them goes round."""
    chromium.get(live_app.url("/"))
    assert focus_problems(chromium) == []
    chromium.execute_script(
        """
        document.querySelector("main").insertAdjacentHTML("beforeend",
          "<button id='trap-a'>Trap A</button><button id='trap-b'>Trap B</button>");
        document.getElementById("trap-b").addEventListener("keydown", (event) => {
          if (event.key !== "Tab") return;
          event.preventDefault();
          document.getElementById("trap-a").focus();
        });
        """
    )
    assert focus_problems(chromium) == [
        "focus trapped: Tab goes round ['Trap A', 'Trap B'] and never leaves"
    ]


def test_the_pointer_checks_can_fail(chromium, live_app):
    """2.5.3 and 2.5.2 (tests/browser/pointer.py) report what they are for: a button named
    other than its words, a field whose name leaves out its label; a button that acts on the
    down event, a link that leaves on it. Controls done right beside them are not reported."""
    chromium.get(live_app.url("/"))
    assert label_in_name_problems(chromium) == []
    assert pointer_cancellation_problems(chromium) == []
    chromium.execute_script(
        """
        document.querySelector("main").insertAdjacentHTML("beforeend",
          "<button id='renamed' aria-label='Go'>Send my answers</button>" +
          "<button id='extended' aria-label='Send my answers now'>Send my answers</button>" +
          "<label for='typed'>Hours a week</label><input id='typed' aria-label='Number'>" +
          "<button id='on-down'>Add</button><a id='leaves' href='/analyst/login'>Sign in</a>" +
          "<button id='on-click'>Add on click</button>");
        const main = document.querySelector("main");
        document.getElementById("on-down").addEventListener("pointerdown", () =>
          main.insertAdjacentHTML("beforeend", "<p>added</p>"));
        document.getElementById("on-click").addEventListener("click", () =>
          main.insertAdjacentHTML("beforeend", "<p>added</p>"));
        document.getElementById("leaves").addEventListener("mousedown", (event) =>
          window.location.assign(event.currentTarget.href));
        """
    )
    labels = label_in_name_problems(chromium)
    assert [problem.split(":")[0] for problem in labels] == ["button#renamed", "input#typed"]
    pressed = pointer_cancellation_problems(chromium)
    assert [problem.split(":")[0] for problem in pressed] == ["button#on-down", "a#leaves"], pressed


def answered_survey(live_app, make_survey, answers: int = 24, status: str = "open") -> str:
    """An open survey with enough answers for every chart and table of the dashboard."""
    slug, question_ids = make_survey()
    with live_app.app.app_context():
        for index in range(answers):
            record_submission(
                slug,
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(question_ids[0]): index % 2, str(question_ids[1]): index % 3},
                },
            )
    if status == "closed":
        with live_app.app.app_context():  # a new session: not the snapshot of the reads above
            close_survey(find_survey(slug))
            db.session.commit()
    return slug


def signed_in(make_chromium, live_app, email: str):
    """A Chromium of its own, signed in as ``email`` and showing the list of surveys.

    The session is the app's own sign-in's (``sign_in_browser``, for this browser's address and
    user agent), handed to the browser as its session cookie: the tests that take this only need
    a signed-in professor. The sign-in form itself, and its deliberately slow scrypt check, are
    tested where they are the subject (test_the_sign_in_page_and_its_error,
    tests/browser/test_keyboard_flows.py, tests/browser/test_professor_browser.py and the
    others that type a password, tests/unit's sign-in tests)."""
    from flask import session

    from survey_app.accounts.services import find_analyst, sign_in_browser

    driver = make_chromium()
    app = live_app.app
    browser = {"REMOTE_ADDR": "127.0.0.1", "HTTP_USER_AGENT": driver.execute_script(USER_AGENT)}
    with app.test_request_context(environ_base=browser):
        sign_in_browser(find_analyst(email))
        db.session.commit()
        cookie = app.session_interface.get_signing_serializer(app).dumps(dict(session))
    driver.execute_cdp_cmd(
        "Network.setCookie",
        {
            "name": app.config["SESSION_COOKIE_NAME"],
            "value": cookie,
            "url": live_app.base_url,
            "path": "/",
            "httpOnly": True,
            "sameSite": "Lax",
        },
    )
    driver.get(live_app.url("/analyst/"))
    assert driver.find_elements(By.CSS_SELECTOR, "form[action$='/logout']"), driver.current_url
    return driver


USER_AGENT = "return navigator.userAgent"


# --------------------------------------------------------------------------- respondents' pages


def test_the_join_page_and_its_error(chromium, live_app, axe_source):
    chromium.get(live_app.url("/"))
    check_at_every_width(chromium, axe_source)
    chromium.get(live_app.url("/join?code=ZZZZZZ"))
    assert chromium.find_element(By.ID, "join-error")
    check_at_every_width(chromium, axe_source)


def test_the_survey_page_before_and_after_sending(make_chromium, live_app, survey, axe_source):
    slug, _ = survey
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    check_at_every_width(phone, axe_source)
    phone.find_element(By.ID, "submit-survey").click()  # nothing answered: the error shows
    assert phone.find_element(By.ID, "survey-status").text
    check_at_every_width(phone, axe_source)
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        fieldset.find_element(By.CSS_SELECTOR, "input[type=radio]").click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "thank-you").is_displayed())
    check_at_every_width(phone, axe_source)


def test_a_survey_that_asks_for_a_code(make_chromium, live_app, make_survey, axe_source):
    slug, _ = make_survey(status="draft")
    with live_app.app.app_context():
        survey = find_survey(slug)
        (code,) = issue_codes(survey, 1)
        open_survey(survey)
        db.session.commit()
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    phone.find_element(By.ID, "submit-survey").click()  # no code: the field's error shows
    assert phone.find_element(By.ID, "one-time-code-error").text
    check_at_every_width(phone, axe_source)
    # Sent: the thanks, with the way for the next student on a shared phone.
    phone.find_element(By.ID, "one-time-code").send_keys(code)
    for fieldset in phone.find_elements(By.CSS_SELECTOR, "fieldset.question"):
        fieldset.find_element(By.CSS_SELECTOR, "input[type=radio]").click()
    phone.find_element(By.ID, "submit-survey").click()
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "answer-again").is_displayed())
    check_at_every_width(phone, axe_source)


def test_a_closed_survey_and_a_missing_page(chromium, live_app, make_survey, axe_source):
    slug, _ = make_survey(status="closed")
    chromium.get(live_app.url(f"/s/{slug}"))
    check_at_every_width(chromium, axe_source)
    chromium.get(live_app.url("/s/no-such-survey"))
    check_at_every_width(chromium, axe_source)


# --------------------------------------------------------------------------- professors' pages


def test_the_sign_in_page_and_its_error(make_chromium, live_app, analyst, axe_source):
    driver = make_chromium()
    driver.get(live_app.url("/analyst/login"))
    check_at_every_width(driver, axe_source)
    driver.find_element(By.ID, "email").send_keys(analyst)
    driver.find_element(By.ID, "password").send_keys("not the password", Keys.ENTER)
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".notice.error"))
    check_at_every_width(driver, axe_source)


def test_the_survey_list_builder_and_account(
    make_chromium, live_app, analyst, survey, make_survey, axe_source
):
    driver = signed_in(make_chromium, live_app, analyst)
    for path in ("/analyst/", "/analyst/surveys/new", "/analyst/account"):
        driver.get(live_app.url(path))
        check_at_every_width(driver, axe_source)
    # The builder with a choice question and a refused save (its error shown).
    driver.get(live_app.url("/analyst/surveys/new"))
    add_choice = driver.find_element(By.CSS_SELECTOR, "button[value=add_choice]")
    add_choice.click()
    # Adding a question posts the form: wait for the new page before pressing Save on it.
    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(add_choice))
    # The server's refusal, not the browser's own validation bubble: turn that off first.
    driver.execute_script("document.getElementById('survey-builder').noValidate = true")
    save = driver.find_element(By.ID, "save-survey")
    save.click()
    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(save))
    assert driver.find_elements(By.CSS_SELECTOR, ".notice.error, [role=alert]")
    assert driver.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]")  # errors beside fields
    check_at_every_width(driver, axe_source)
    # A question removed: the notice with its undo button.
    remove = driver.find_element(By.CSS_SELECTOR, "button[value=remove_1]")
    remove.click()
    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(remove))
    assert driver.find_element(By.ID, "undo-remove")
    check_at_every_width(driver, axe_source)
    # A pair of questions: its heading and its two questions' fields, each in its group.
    add_pair = driver.find_element(By.CSS_SELECTOR, "button[value=add_paired]")
    add_pair.click()
    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(add_pair))
    assert driver.find_element(By.ID, "question-part2-text-1").is_displayed()
    check_at_every_width(driver, axe_source)
    builder_asking_and_full(driver, live_app, make_survey, axe_source)


def builder_asking_and_full(driver, live_app, make_survey, axe_source) -> None:
    """The builder asking before saving a range a hundred times wider, and at 50 questions."""
    number = {"text": "Hours of sleep?", "type": "numeric", "min": 0, "max": 10}
    others = [{"text": f"Q{n}", "type": "yes_no"} for n in range(49)]
    slug, _ = make_survey(
        {"title": "Sleep", "flip_probability": 0.25, "questions": [number, *others]},
        status="draft",
    )
    driver.get(live_app.url(f"/analyst/surveys/{slug}/edit"))
    assert not driver.find_element(By.ID, "add-yes-no").is_enabled()  # 50 questions
    high = driver.find_element(By.ID, "question-max-0")
    high.send_keys(Keys.END, "12")
    save = driver.find_element(By.ID, "save-survey")
    save.click()
    WebDriverWait(driver, 15).until(expected_conditions.staleness_of(save))
    assert driver.find_element(By.ID, "wide-range-ask")
    check_at_every_width(driver, axe_source)


def test_the_dashboard_with_results_tables_and_plans(
    make_chromium, live_app, analyst, make_survey, axe_source
):
    slug = answered_survey(live_app, make_survey)
    other = answered_survey(live_app, make_survey, status="closed")
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}?pool={other}&margin=0.1"))
    check_at_every_width(driver, axe_source)
    # Wide tables scroll inside regions a keyboard can reach.
    for region in driver.find_elements(By.CSS_SELECTOR, ".table-scroll, [role=region]"):
        assert region.get_attribute("tabindex") == "0"
    draft, _ = make_survey(status="draft")
    for path in (f"/analyst/surveys/{draft}", f"/analyst/surveys/{draft}/preview"):
        driver.get(live_app.url(path))
        check_at_every_width(driver, axe_source)


def test_the_management_pages(make_chromium, live_app, analyst, make_survey, axe_source):
    """Close and delete confirmations, the archived list (empty, then not), an archived
    survey's dashboard, the survey list's link to the archived ones, a copy in the builder."""
    slug = answered_survey(live_app, make_survey)
    closed = answered_survey(live_app, make_survey, status="closed")
    driver = signed_in(make_chromium, live_app, analyst)
    for path in (f"/{slug}/close", f"/{slug}/delete", f"/{closed}/delete"):
        driver.get(live_app.url(f"/analyst/surveys{path}"))
        assert driver.find_elements(By.CSS_SELECTOR, "#confirm-close, #confirm-delete")
        check_at_every_width(driver, axe_source)
    driver.get(live_app.url("/analyst/archived"))
    assert driver.find_element(By.ID, "no-archived")
    check_at_every_width(driver, axe_source)
    driver.get(live_app.url(f"/analyst/surveys/{closed}"))
    driver.find_element(By.ID, "archive-survey").click()
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "archived-notice"))
    check_at_every_width(driver, axe_source)  # an archived survey's dashboard, and its message
    for path in ("/analyst/archived", "/analyst/"):
        driver.get(live_app.url(path))
        assert driver.find_elements(By.CSS_SELECTOR, "#archived-surveys, #archived-link")
        check_at_every_width(driver, axe_source)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    driver.find_element(By.ID, "duplicate-survey").click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url.endswith("/edit"))
    check_at_every_width(driver, axe_source)


def test_the_code_slips(make_chromium, live_app, analyst, make_survey, axe_source):
    slug, _ = make_survey(status="draft")
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    driver.find_element(By.ID, "require-codes").click()
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "issue-slips"))
    assert driver.find_element(By.ID, "codes-missing").text  # none issued: nobody could answer
    check_at_every_width(driver, axe_source)
    # A number refused: the dashboard again, the field as typed, the reason beside it.
    field = driver.find_element(By.ID, "code-count")
    field.clear()
    field.send_keys("abc")
    driver.find_element(By.ID, "issue-slips").click()
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "code-count-error"))
    assert driver.find_element(By.ID, "code-count").get_attribute("value") == "abc"
    assert driver.switch_to.active_element == driver.find_element(By.ID, "code-count")
    check_at_every_width(driver, axe_source)
    field = driver.find_element(By.ID, "code-count")
    field.clear()
    field.send_keys("2")
    driver.find_element(By.ID, "issue-slips").click()
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".slip"))
    check_at_every_width(driver, axe_source)


def test_the_projector_view(make_chromium, live_app, analyst, make_survey, axe_source):
    slug = answered_survey(live_app, make_survey)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    check_at_every_width(driver, axe_source, height=720)


def test_paired_questions_results(make_chromium, live_app, analyst, make_survey, axe_source):
    """Two questions asked together, a 2x2 and a 3x2 pair: the dashboard's cross-tabs (real
    tables, captioned, their headers scoped), grouped bars and sentences, and the projector's
    compact tables at 1280x720."""
    from tests.unit.kinds.test_paired import DEFINITION

    slug, question_ids = make_survey(DEFINITION)
    with live_app.app.app_context():
        for index in range(24):
            answers = {str(question_ids[0]): index % 4, str(question_ids[1]): index % 6}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.crosstab caption")) == 2
    check_at_every_width(driver, axe_source)
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.present-crosstab")) == 2
    check_at_every_width(driver, axe_source, height=720)


# --------------------------------------------------------------------------- numeric questions


def test_numeric_questions_pages(make_chromium, live_app, analyst, make_survey, axe_source):
    """A number question: the survey page (and its error), the dashboard with its average and
    spread, and the builder with a number question and Warner's coins open."""
    from tests.numeric_helpers import HOURS

    slug, (number_id, yes_no_id) = make_survey(HOURS)
    with live_app.app.app_context():
        for index in range(24):
            record_submission(
                slug,
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(number_id): 300 + 40 * index, str(yes_no_id): index % 2},
                },
            )
    phone = make_chromium()
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    phone.find_element(By.CSS_SELECTOR, "details summary").click()  # more about your privacy
    check_at_every_width(phone, axe_source)
    phone.find_element(By.ID, f"answer-{number_id}").send_keys("many")
    phone.find_element(By.ID, "submit-survey").click()
    assert phone.find_element(By.ID, "survey-status").text
    check_at_every_width(phone, axe_source)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    assert driver.find_element(By.CSS_SELECTOR, "svg.spread")
    check_at_every_width(driver, axe_source)
    # A survey of numbers alone: its plan and trade-off table in the question's unit.
    numbers_only, _ = make_survey({**HOURS, "questions": HOURS["questions"][:1]})
    driver.get(live_app.url(f"/analyst/surveys/{numbers_only}"))
    assert driver.find_element(By.ID, "number-trade-off")
    check_at_every_width(driver, axe_source)
    driver.get(live_app.url("/analyst/surveys/new"))
    driver.find_element(By.ID, "add-numeric").click()  # the page comes back with it
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "question-min-1"))
    assert driver.find_element(By.ID, "question-min-1").is_displayed()
    driver.find_element(By.CSS_SELECTOR, "#warner summary").click()
    check_at_every_width(driver, axe_source)


# --------------------------------------------------------------------------- pointers


def test_no_control_acts_on_a_press_let_go_of_off_it(make_chromium, live_app, analyst, make_survey):
    """2.5.2 Pointer cancellation, on the pages of each kind: the join page, a survey page of
    every kind of question with a one-time code, the survey list, the builder, a dashboard with
    results, the projector and the lesson. Every control pressed, slid off and let go of does
    nothing (tests/browser/pointer.py)."""
    from tests.numeric_helpers import HOURS

    slug, _ = make_survey({**HOURS, "questions": [*HOURS["questions"], CHOICE]}, status="draft")
    with live_app.app.app_context():
        issue_codes(find_survey(slug), 1)
        open_survey(find_survey(slug))
        db.session.commit()
    results = answered_survey(live_app, make_survey)
    phone = make_chromium()
    phone.get(live_app.url("/"))
    assert pointer_cancellation_problems(phone) == []
    phone.get(live_app.url(f"/s/{slug}"))
    WebDriverWait(phone, 15).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert pointer_cancellation_problems(phone) == []
    driver = signed_in(make_chromium, live_app, analyst)
    pages = ("/analyst/", "/analyst/surveys/new", f"/analyst/surveys/{results}")
    for path in (
        *pages,
        f"/analyst/surveys/{results}/present",
        f"/analyst/surveys/{results}/lesson",
    ):
        driver.get(live_app.url(path))
        assert pointer_cancellation_problems(driver) == [], path


CHOICE = {"text": "Where do you study?", "type": "choice", "options": ["Home", "Library"]}
