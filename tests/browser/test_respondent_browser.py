"""The respondent's page in a real headless Chromium: what is sent, stored and kept.

Each test serves the app live on loopback (``live_app``: a fresh SQLite database) and answers
a survey as a respondent would, with clicks and keys. The database is read through the app
(``with live_app.app.app_context():``); request bodies come from Chromium's DevTools
performance log (Network.requestWillBeSent carries a request's postData).

SECURITY.md rows covered here: no-JS, payload, randomness, storage (and the repeat protection:
one pre-drawn table per browser, re-sent as it is).
"""

from __future__ import annotations

import base64
import json
import math
import shutil
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import select

from survey_app import privacy
from survey_app.extensions import db
from survey_app.models import Submission, Survey, Tally
from survey_app.surveys import close_survey, find_survey, open_survey
from tests.browser.conftest import STATIC_DIR, seeded_words

pytestmark = pytest.mark.browser

WORDS = 2**32
FLIP_PROBABILITY = 0.25  # the sample survey's (tests/conftest.py SAMPLE_DEFINITION)
YES, NO = 1, 0


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def driver(chromium, live_app):
    """The session's Chromium with nothing kept for this test's origin (no cookies, no storage),
    as a fresh profile would be; the window size it had is restored afterwards."""
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.execute_cdp_cmd(
        "Storage.clearDataForOrigin", {"origin": live_app.base_url, "storageTypes": "all"}
    )
    size = chromium.get_window_size()
    yield chromium
    chromium.get("about:blank")
    chromium.set_window_size(size["width"], size["height"])


@pytest.fixture
def before_page_scripts(driver):
    """``add(source)``: run ``source`` in every page ``driver`` opens, before the page's own
    scripts; removed when the test ends, so the shared Chromium is left as it was."""
    identifiers: list[str] = []

    def add(source: str) -> None:
        added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        identifiers.append(added["identifier"])

    yield add
    for identifier in identifiers:
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier}
        )


# --------------------------------------------------------------------------- helpers


def wait(driver, timeout: float = 15):
    """An explicit wait that polls often: page actions here take milliseconds."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02)


def survey_url(live_app, slug: str) -> str:
    return live_app.url(f"/s/{slug}")


def open_page(driver, live_app, slug: str) -> None:
    """Load the survey page and wait until survey.js has run (it enables the button)."""
    driver.get(survey_url(live_app, slug))
    wait(driver).until(
        lambda d: d.execute_script(
            "const b = document.getElementById('submit-survey');"
            "return (b && !b.disabled) || !document.getElementById('already-answered').hidden;"
        )
    )


def radio(driver, question_id: int, value: int):
    return driver.find_element(
        By.CSS_SELECTOR, f'input[data-question-id="{question_id}"][value="{value}"]'
    )


def answer(driver, answers: dict[int, int]) -> None:
    """Click the radio of each true answer ({question id: value})."""
    for question_id, value in answers.items():
        element = radio(driver, question_id, value)
        element.click()
        assert element.is_selected()


def submit_and_wait(driver, element_id: str = "thank-you") -> None:
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(EC.visibility_of_element_located((By.ID, element_id)))


def saved_state(driver, slug: str) -> dict | None:
    raw = driver.execute_script("return localStorage.getItem(arguments[0]);", f"survey-app:{slug}")
    return None if raw is None else json.loads(raw)


def status_text(driver) -> str:
    return driver.find_element(By.ID, "survey-status").text


class NetworkLog:
    """Requests read from a Chromium's performance log (reading it empties Chromium's buffer,
    so every request read so far is kept here)."""

    def __init__(self, driver):
        self.driver = driver
        self.seen: list[dict] = []

    def requests(self) -> list[dict]:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.seen.append(message["params"]["request"])
        return self.seen

    def posts_to(self, path: str) -> list[dict]:
        return [
            request
            for request in self.requests()
            if request["method"] == "POST" and request["url"].split("?")[0].endswith(path)
        ]


def request_body(request: dict) -> str | None:
    """A request's body as DevTools reports it, or None when it had none."""
    if "postData" in request:
        return request["postData"]
    if request.get("postDataEntries"):
        return b"".join(
            base64.b64decode(entry.get("bytes", "")) for entry in request["postDataEntries"]
        ).decode("utf-8")
    if request.get("hasPostData"):
        return "<a body DevTools did not include>"
    return None


def responses_path(slug: str) -> str:
    return f"/api/v1/surveys/{slug}/responses"


def stored_submissions(live_app, slug: str) -> list[Submission]:
    with live_app.app.app_context():
        survey = find_survey(slug)
        rows = db.session.execute(select(Submission).where(Submission.survey_id == survey.id))
        submissions = list(rows.scalars())
        db.session.expunge_all()
        return submissions


def stored_tallies(live_app, question_ids: list[int]) -> dict[int, dict[int, int]]:
    """{question id: {value: noisy count}}."""
    with live_app.app.app_context():
        tallies: dict[int, dict[int, int]] = {qid: {} for qid in question_ids}
        rows = db.session.execute(select(Tally).where(Tally.question_id.in_(question_ids)))
        for tally in rows.scalars():
            # A value's count is the sum over its shards.
            counts = tallies[tally.question_id]
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        return tallies


def stored_respondents(live_app, slug: str) -> int:
    with live_app.app.app_context():
        return db.session.execute(
            select(Survey.respondents).where(Survey.slug == slug)
        ).scalar_one()


def set_open(live_app, slug: str, is_open: bool) -> None:
    with live_app.app.app_context():
        survey = find_survey(slug)
        (open_survey if is_open else close_survey)(survey)
        db.session.commit()


def sent_values(state: dict, answers: dict[int, int]) -> dict[str, int]:
    """What the page must send for these true answers: the saved table, indexed by them."""
    return {str(qid): state["table"][str(qid)][value] for qid, value in answers.items()}


def encoded(values: dict[str, int], question_ids: list[int]) -> str:
    """The randomized values as Submission.answers keeps them: in question order."""
    return ",".join(str(values[str(qid)]) for qid in question_ids)


# --------------------------------------------------------------------------- 1. answering


def test_answering_stores_one_randomized_submission(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    assert state is not None and state["submitted"] is False

    answer(driver, {yes_no: YES, choice: 2})
    submit_and_wait(driver)

    (submission,) = stored_submissions(live_app, slug)
    assert submission.submission_id == state["submissionId"]
    values = [int(value) for value in submission.answers.split(",")]
    assert len(values) == 2 and values[0] in (0, 1) and values[1] in (0, 1, 2)
    assert submission.answers == encoded(
        sent_values(state, {yes_no: YES, choice: 2}), [yes_no, choice]
    )
    # Exactly one tally of each question counted it: the stored (randomized) value's.
    tallies = stored_tallies(live_app, [yes_no, choice])
    assert tallies[yes_no] == {v: int(v == values[0]) for v in (0, 1)}
    assert tallies[choice] == {v: int(v == values[1]) for v in (0, 1, 2)}
    assert stored_respondents(live_app, slug) == 1
    assert saved_state(driver, slug)["submitted"] is True
    assert not driver.find_element(By.ID, "survey").is_displayed()


def test_an_unanswered_question_is_named_and_nothing_is_sent(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    answer(driver, {yes_no: NO})
    driver.find_element(By.ID, "submit-survey").click()
    wait(driver).until(lambda d: "Not answered yet: 2." in status_text(d))
    assert driver.switch_to.active_element == radio(driver, choice, 0)
    assert stored_submissions(live_app, slug) == []

    answer(driver, {choice: 0})
    submit_and_wait(driver)
    assert len(stored_submissions(live_app, slug)) == 1


# --------------------------------------------------------------------------- 2. payload


def test_the_request_body_holds_only_the_id_and_the_randomized_values(
    make_chromium, live_app, survey
):
    slug, (yes_no, choice) = survey
    driver = make_chromium(performance_log=True)
    network = NetworkLog(driver)
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    # Where the table allows, pick a true answer whose randomized value differs from it, so that
    # a page sending true answers could not pass by chance.
    true_answers = {
        qid: next(
            (value for value, sent in enumerate(state["table"][str(qid)]) if sent != value), 0
        )
        for qid in (yes_no, choice)
    }
    answer(driver, true_answers)
    submit_and_wait(driver)

    requests = network.requests()
    posts = network.posts_to(responses_path(slug))
    assert len(posts) == 1
    body = json.loads(request_body(posts[0]))
    assert set(body) == {"submission_id", "answers"}
    assert body["submission_id"] == state["submissionId"]
    assert body["answers"] == sent_values(state, true_answers)
    assert posts[0]["url"] == live_app.url(responses_path(slug))
    # Sent without cookies or a referrer (DevTools lists the blanked Referer as "").
    headers = {name.lower(): value for name, value in posts[0]["headers"].items()}
    assert "cookie" not in headers and headers.get("referer", "") == ""
    assert posts[0]["referrerPolicy"] == "no-referrer"

    # Nothing else left the page with a body: only GETs of the page and its files.
    others = [request for request in requests if request is not posts[0]]
    assert others, "the performance log recorded no page load"
    for request in others:
        assert request["method"] == "GET", request["url"]
        assert request_body(request) is None, request["url"]

    (submission,) = stored_submissions(live_app, slug)
    assert submission.answers == encoded(body["answers"], [yes_no, choice])


# --------------------------------------------------------------------------- 3. no JavaScript


def test_without_javascript_nothing_is_sent_or_stored(make_chromium, live_app, survey):
    slug, (yes_no, choice) = survey
    driver = make_chromium(javascript_enabled=False, performance_log=True)
    network = NetworkLog(driver)
    driver.get(survey_url(live_app, slug))

    notice = driver.find_element(By.ID, "javascript-required")
    assert notice.is_displayed()
    assert "needs JavaScript" in notice.text
    # The other notice (for a script that did not start) stays out of the way: one is enough.
    assert not driver.find_element(By.ID, "script-not-started").is_displayed()
    button = driver.find_element(By.ID, "submit-survey")
    assert not button.is_enabled()
    # The true-answer controls are in no form that could submit them.
    for form in driver.find_elements(By.TAG_NAME, "form"):
        assert not form.find_elements(By.CSS_SELECTOR, "input[type=radio]")

    answer(driver, {yes_no: YES, choice: 1})
    radio(driver, choice, 1).send_keys(Keys.ENTER)
    radio(driver, yes_no, YES).send_keys(Keys.ENTER)
    # The button stays disabled without its script, so it cannot take focus or keys: click it
    # with the mouse, then press Enter (and Space) wherever the focus is.
    ActionChains(driver).move_to_element(button).click().perform()
    ActionChains(driver).send_keys(Keys.ENTER).send_keys(Keys.SPACE).perform()
    assert driver.switch_to.active_element != button
    assert not driver.find_element(By.ID, "thank-you").is_displayed()
    assert driver.find_element(By.ID, "survey-status").text == ""

    # Any other button the page may grow gets the same treatment, on a freshly answered page.
    others = "button:not(#submit-survey), input[type=submit], input[type=image]"
    for index in range(len(driver.find_elements(By.CSS_SELECTOR, others))):
        driver.get(survey_url(live_app, slug))
        answer(driver, {yes_no: YES, choice: 1})
        target = driver.find_elements(By.CSS_SELECTOR, others)[index]
        if target.is_displayed():
            ActionChains(driver).move_to_element(target).click().perform()
            ActionChains(driver).send_keys(Keys.ENTER).perform()

    # Give anything that might have been sent time to arrive: a page load of the same server,
    # which is served after any request already in flight from this browser.
    driver.get(live_app.url("/static/css/app.css"))

    assert stored_submissions(live_app, slug) == []
    assert stored_respondents(live_app, slug) == 0
    requests = network.requests()
    assert any(r["url"] == survey_url(live_app, slug) for r in requests)
    for request in requests:
        assert request["method"] == "GET", request["url"]
        assert request_body(request) is None, request["url"]
        assert "/api/" not in request["url"]


# --------------------------------------------------------------------------- 4. repeats


def test_a_retry_resends_the_same_values_with_the_same_id(make_chromium, driver, live_app, survey):
    slug, (yes_no, choice) = survey
    logged = make_chromium(performance_log=True)
    network = NetworkLog(logged)
    true_answers = {yes_no: YES, choice: 0}
    open_page(logged, live_app, slug)
    state = saved_state(logged, slug)

    # The server refuses the first attempt (the survey closed while the page was open).
    set_open(live_app, slug, False)
    answer(logged, true_answers)
    logged.find_element(By.ID, "submit-survey").click()
    wait(logged).until(lambda d: "not taking answers" in status_text(d))
    assert "error" in logged.find_element(By.ID, "survey-status").get_attribute("class")
    wait(logged).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    # Sending again from the same page, still refused.
    logged.find_element(By.ID, "submit-survey").click()
    wait(logged).until(lambda d: len(network.posts_to(responses_path(slug))) == 2)
    wait(logged).until(lambda d: d.find_element(By.ID, "submit-survey").is_enabled())
    assert stored_submissions(live_app, slug) == []
    assert saved_state(logged, slug) == state  # still not submitted, same table and id

    # Reopened; the respondent reloads, answers the same and sends again.
    set_open(live_app, slug, True)
    open_page(logged, live_app, slug)
    assert saved_state(logged, slug) == state
    answer(logged, true_answers)
    submit_and_wait(logged)

    # All three attempts sent the very same body.
    bodies = [json.loads(request_body(r)) for r in network.posts_to(responses_path(slug))]
    assert len(bodies) == 3
    assert bodies[0] == bodies[1] == bodies[2]
    body = bodies[0]
    assert body == {
        "submission_id": state["submissionId"],
        "answers": sent_values(state, true_answers),
    }
    (submission,) = stored_submissions(live_app, slug)
    assert submission.submission_id == state["submissionId"]
    assert submission.answers == encoded(body["answers"], [yes_no, choice])

    # Once recorded, the page says so and offers nothing to send.
    open_page(logged, live_app, slug)
    assert logged.find_element(By.ID, "already-answered").is_displayed()
    assert not logged.find_element(By.ID, "survey").is_displayed()
    assert not logged.find_element(By.ID, "submit-survey").is_displayed()
    assert not logged.find_element(By.ID, "submit-survey").is_enabled()
    assert len(network.posts_to(responses_path(slug))) == 3
    assert stored_respondents(live_app, slug) == 1

    # Another browser profile (the session's Chromium) draws its own table under its own id.
    other = driver
    open_page(other, live_app, slug)
    other_state = saved_state(other, slug)
    assert other_state["submissionId"] != state["submissionId"]
    assert {qid: len(values) for qid, values in other_state["table"].items()} == {
        str(yes_no): 2,
        str(choice): 3,
    }
    answer(other, true_answers)
    submit_and_wait(other)
    submissions = {s.submission_id: s.answers for s in stored_submissions(live_app, slug)}
    assert submissions == {
        state["submissionId"]: submission.answers,
        other_state["submissionId"]: encoded(
            sent_values(other_state, true_answers), [yes_no, choice]
        ),
    }
    assert stored_respondents(live_app, slug) == 2


# --------------------------------------------------------------------------- 5. storage


def everything_the_page_stored(driver) -> dict:
    """localStorage and sessionStorage (key -> value), cookies, IndexedDB and Cache Storage
    names, as the page's origin sees them."""
    return driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const entries = (store) => Object.fromEntries(Object.keys(store).map((k) => [k, store[k]]));
        Promise.all([indexedDB.databases(), caches.keys()]).then(([databases, cacheNames]) => done({
          local: entries(localStorage),
          session: entries(sessionStorage),
          cookie: document.cookie,
          databases: databases.map((d) => d.name),
          caches: cacheNames,
        }));
        """
    )


def test_browser_storage_keeps_no_true_answer(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    before = saved_state(driver, slug)
    # Until the send succeeds the table is kept: it covers every possible true answer, drawn
    # before any was chosen, so it cannot depend on (or reveal) the answers clicked since.
    assert set(before) == {"submissionId", "table", "submitted"}
    assert before["submitted"] is False
    assert set(before["table"]) == {str(yes_no), str(choice)}
    assert [len(before["table"][str(qid)]) for qid in (yes_no, choice)] == [2, 3]
    answer(driver, {yes_no: YES, choice: 2})
    assert saved_state(driver, slug) == before

    submit_and_wait(driver)

    stored = everything_the_page_stored(driver)
    assert stored["local"] == {f"survey-app:{slug}": '{"submitted":true}'}
    assert stored["session"] == {} and stored["cookie"] == ""
    assert stored["databases"] == [] and stored["caches"] == []
    assert driver.get_cookies() == []
    # Nor are the true answers left in the page's controls.
    assert driver.execute_script("return document.querySelectorAll('input:checked').length;") == 0


@pytest.mark.parametrize("server_had", ["nothing", "the same answers", "other answers"])
def test_after_sending_the_device_keeps_nothing_that_decodes_the_answer(
    driver, live_app, survey, server_had
):
    """SECURITY.md "device": whoever holds the device and the export must not learn the true
    answer. The export holds the submission id and the values sent; the table held, for every
    answer not given, the value that would have been sent. Kept beside the id, the unsent
    entries say which answer was true whenever they differ from the sent one (at p = 1/4 a
    yes/no answer exactly, with probability (1 - p)^2 + p^2 = 0.625)."""
    slug, (yes_no, choice) = survey
    true_answers = {yes_no: YES, choice: 2}
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    sent = sent_values(state, true_answers)
    # The server may already hold this submission id: the same answers (the browser's first
    # send arrived but its reply was lost: 200) or other ones (409 "already used").
    if server_had != "nothing":
        answers = (
            sent
            if server_had == "the same answers"
            else {
                str(yes_no): 1 - sent[str(yes_no)],
                str(choice): sent[str(choice)],
            }
        )
        assert post_submission(live_app, slug, state["submissionId"], answers) == 201

    answer(driver, true_answers)
    submit_and_wait(driver, "already-answered" if server_had == "other answers" else "thank-you")

    stored = everything_the_page_stored(driver)
    kept = json.loads(stored["local"][f"survey-app:{slug}"])
    # Nothing per question is kept, so no randomized value of an answer not given is on the
    # device, and nothing (no id) joins the device to its row of the export.
    assert kept == {"submitted": True}, kept
    everything = json.dumps(stored)
    assert state["submissionId"] not in everything
    assert "table" not in everything
    # Reloading says "already answered" from that alone, and sends nothing.
    open_page(driver, live_app, slug)
    assert driver.find_element(By.ID, "already-answered").is_displayed()
    assert saved_state(driver, slug) == {"submitted": True}
    assert len(stored_submissions(live_app, slug)) == 1


def test_a_page_that_kept_a_table_after_sending_forgets_it(driver, live_app, survey):
    """A browser that answered before this fix still holds the whole table: the next visit
    drops it."""
    slug, _ = survey
    open_page(driver, live_app, slug)
    old = {**saved_state(driver, slug), "submitted": True}
    driver.execute_script(
        "localStorage.setItem(arguments[0], arguments[1]);", f"survey-app:{slug}", json.dumps(old)
    )
    open_page(driver, live_app, slug)
    assert driver.find_element(By.ID, "already-answered").is_displayed()
    assert saved_state(driver, slug) == {"submitted": True}


def post_submission(live_app, slug: str, submission_id: str, answers: dict[str, int]) -> int:
    """POST a submission to the live app as any API client could; the HTTP status."""
    request = urllib.request.Request(
        live_app.url(responses_path(slug)),
        data=json.dumps({"submission_id": submission_id, "answers": answers}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


# --------------------------------------------------------------------------- 6. randomness

# A stub of crypto.getRandomValues, installed before any page script runs: it fills each array
# element by element from a fixed list of 32-bit words (a Uint8Array keeps each word's low byte)
# and counts the words used. Math.random throws, and counts its calls in case a caller swallows
# the error.
STUB_RANDOMNESS = """
(() => {
  const words = %(words)s;
  const cycle = %(cycle)s;
  window.__wordsUsed = 0;
  window.__mathRandomCalls = 0;
  Object.defineProperty(Crypto.prototype, "getRandomValues", {
    configurable: true,
    writable: true,
    value(array) {
      for (let i = 0; i < array.length; i += 1) {
        if (!cycle && window.__wordsUsed >= words.length) {
          throw new Error("the stubbed word stream is exhausted");
        }
        array[i] = words[window.__wordsUsed %% words.length];
        window.__wordsUsed += 1;
      }
      return array;
    },
  });
  Math.random = () => {
    window.__mathRandomCalls += 1;
    throw new Error("Math.random must not be used");
  };
})();
"""


def flip_threshold(p: float) -> int:
    """T = ceil(p * 2^32), rounded up so that the browser flips at least as often as asked."""
    return math.ceil(p * WORDS)


def keep_threshold(k: int, p: float) -> int:
    """K = floor(2^32 (2^32 - T) / (2^32 + (k - 2) T)): k-RR's keep probability
    (1 - p) / (1 + (k - 2) p) at the browser's flip probability T / 2^32, rounded down."""
    flips = flip_threshold(p)
    return WORDS * (WORDS - flips) // (WORDS + (k - 2) * flips)


class WordStream:
    """The words the stub hands out, consumed in the same order as the page consumes them."""

    def __init__(self, words: list[int], cycle: bool):
        self.words, self.cycle, self.used = words, cycle, 0

    def next(self) -> int:
        if not self.cycle:
            assert self.used < len(self.words), "the expected draws need more words"
        word = self.words[self.used % len(self.words)]
        self.used += 1
        return word


def expected_uuid(stream: WordStream) -> str:
    """survey.js randomUuid(): 16 bytes, then the version 4 and RFC 4122 variant bits."""
    data = [stream.next() & 0xFF for _ in range(16)]
    data[6] = (data[6] & 0x0F) | 0x40
    data[8] = (data[8] & 0x3F) | 0x80
    hex_ = bytes(data).hex()
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{hex_[16:20]}-{hex_[20:]}"


def expected_bit(stream: WordStream, bit: int, p: float) -> int:
    """randomizeBit: flipped when the word is below T = ceil(p * 2^32)."""
    return 1 - bit if stream.next() < flip_threshold(p) else bit


def expected_choice(stream: WordStream, index: int, k: int, p: float) -> int:
    """randomizeChoice: kept when the word is below K (keep_threshold); otherwise a pick among
    the other k - 1 by rejection (words at or above the largest multiple of k - 1 not above
    2^32 are drawn again), skipping past the true index."""
    if stream.next() < keep_threshold(k, p):
        return index
    limit = WORDS - WORDS % (k - 1)
    while (word := stream.next()) >= limit:
        pass
    other = word % (k - 1)
    return other + 1 if other >= index else other


def expected_state(words: list[int], cycle: bool, kinds: list[tuple[int, str, int]], p: float):
    """(submission id, table, words used) that survey.js draws from this stream, for
    questions given as (id, type, option count): the UUID first, then each question in
    order, each true value 0 .. k - 1 in order."""
    stream = WordStream(words, cycle)
    submission_id = expected_uuid(stream)
    table = {}
    for qid, kind, k in kinds:
        if kind == "yes_no":
            table[str(qid)] = [expected_bit(stream, value, p) for value in range(k)]
        else:
            table[str(qid)] = [expected_choice(stream, value, k, p) for value in range(k)]
    return submission_id, table, stream.used


def stub_randomness(before_page_scripts, words: list[int], cycle: bool) -> None:
    before_page_scripts(STUB_RANDOMNESS % {"words": json.dumps(words), "cycle": json.dumps(cycle)})


@pytest.mark.parametrize(
    ("word", "table", "stored"),
    [
        # Every word 0: every Bernoulli draw (u < T) happens: yes/no answers are flipped,
        # choices kept. Answering yes and option 1 sends 0 and 1.
        (0, ([1, 0], [0, 1, 2]), "0,1"),
        # Every word 0xFFFFFFFF: no draw happens: nothing flipped, no choice kept; the pick
        # among the other 2 options accepts 0xFFFFFFFF (below the limit 2^32) and takes
        # 0xFFFFFFFF % 2 = 1, i.e. the second other option: 0 -> 2, 1 -> 2, 2 -> 1.
        (0xFFFFFFFF, ([0, 1], [2, 2, 1]), "1,2"),
    ],
)
def test_randomness_comes_only_from_crypto(
    driver, before_page_scripts, live_app, survey, word, table, stored
):
    slug, (yes_no, choice) = survey
    stub_randomness(before_page_scripts, [word], cycle=True)
    open_page(driver, live_app, slug)

    expected_id, expected_table, words_used = expected_state(
        [word], True, [(yes_no, "yes_no", 2), (choice, "choice", 3)], FLIP_PROBABILITY
    )
    assert expected_table == {str(yes_no): table[0], str(choice): table[1]}
    state = saved_state(driver, slug)
    assert state == {"submissionId": expected_id, "table": expected_table, "submitted": False}
    assert driver.execute_script("return window.__wordsUsed;") == words_used

    answer(driver, {yes_no: YES, choice: 1})
    submit_and_wait(driver)
    (submission,) = stored_submissions(live_app, slug)
    assert (submission.submission_id, submission.answers) == (expected_id, stored)
    assert driver.execute_script("return window.__mathRandomCalls;") == 0


def test_draws_consume_words_in_order_with_rejection(
    driver, before_page_scripts, live_app, make_survey
):
    slug, (yes_no, three, four) = make_survey(
        {
            "title": "Chosen words",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [
                {"text": "Yes or no?", "type": "yes_no"},
                {"text": "Three?", "type": "choice", "options": ["a", "b", "c"]},
                {"text": "Four?", "type": "choice", "options": ["a", "b", "c", "d"]},
            ],
        }
    )
    flip_t = WORDS // 4  # ceil(0.25 * 2^32), exact
    keep3_t = math.floor(0.6 * WORDS)  # P = (1 - p) / (1 + p) = 3 / 5 at p = 1/4, rounded down
    keep4_t = WORDS // 2  # P = (1 - p) / (1 + 2p) = 1 / 2, exact
    assert (keep_threshold(3, FLIP_PROBABILITY), keep_threshold(4, FLIP_PROBABILITY)) == (
        keep3_t,
        keep4_t,
    )
    words = [0x12345600 + 17 * i for i in range(16)]  # the UUID's bytes: 0x00, 0x11, ...
    words += [flip_t - 1, flip_t]  # yes/no, true 0 and 1: flipped, then kept: [1, 1]
    words += [keep3_t - 1]  # k = 3, true 0: kept -> 0
    words += [keep3_t, 0xFFFFFFFF]  # true 1: not kept; other = 1 -> skips 1 -> 2
    words += [0xFFFFFFFF, 4]  # true 2: not kept; other = 4 % 2 = 0 -> 0
    # k = 4, true 0: not kept; 0xFFFFFFFF >= limit 2^32 - (2^32 % 3) = 0xFFFFFFFF is rejected,
    # 0xFFFFFFFE % 3 = 2 -> other 2 -> skips 0 -> 3.
    words += [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE]
    words += [0]  # true 1: kept -> 1
    words += [keep4_t, 7]  # true 2: not kept (u < T fails at u = T); 7 % 3 = 1 -> 1
    words += [keep4_t - 1]  # true 3: kept -> 3
    stub_randomness(before_page_scripts, words, cycle=False)
    open_page(driver, live_app, slug)

    expected_id, expected_table, words_used = expected_state(
        words,
        False,
        [(yes_no, "yes_no", 2), (three, "choice", 3), (four, "choice", 4)],
        FLIP_PROBABILITY,
    )
    assert words_used == len(words)
    assert expected_table == {
        str(yes_no): [1, 1],
        str(three): [0, 2, 0],
        str(four): [3, 1, 1, 3],
    }
    assert expected_id == "00112233-4455-4677-8899-aabbccddeeff"
    assert saved_state(driver, slug) == {
        "submissionId": expected_id,
        "table": expected_table,
        "submitted": False,
    }
    assert driver.execute_script("return window.__wordsUsed;") == len(words)

    answer(driver, {yes_no: YES, three: 1, four: 0})
    submit_and_wait(driver)
    (submission,) = stored_submissions(live_app, slug)
    assert (submission.submission_id, submission.answers) == (expected_id, "1,2,3")
    assert driver.execute_script("return [window.__mathRandomCalls, window.__wordsUsed];") == [
        0,
        len(words),
    ]


# --------------------------------------------------------------------------- 7. statistics

SUBMISSIONS = 200
STATISTICS_SEED = 7_000

# The statistical test's page steps, each in one WebDriver command: hundreds of page loads add
# up, and every command is a round trip to a busy machine.
READY_AND_CENTRES = """
if (document.getElementById("submit-survey").disabled) return null;  // survey.js has not run
return Array.from(arguments, (selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  const inView = box.top >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
  return inView ? [box.x + box.width / 2, box.y + box.height / 2] : null;
});
"""
# Waits in the page until the thank-you shows (or an error does), then clears localStorage so
# that the next load is a new respondent with a new table.
THANKED_THEN_CLEAR = """
const done = arguments[arguments.length - 1];
const deadline = Date.now() + 15000;
(function check() {
  const status = document.getElementById("survey-status");
  if (!document.getElementById("thank-you").hidden) {
    localStorage.clear();
    done("thanked");
  } else if (status.classList.contains("error") || Date.now() > deadline) {
    done(`not thanked: ${status.textContent}`);
  } else {
    setTimeout(check, 5);
  }
})();
"""


def mouse_click_at(driver, x: float, y: float) -> None:
    """A real (trusted) left click at a point of the viewport, as DevTools input events: the
    events WebElement.click() sends, without the checks it makes around them."""
    for event in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd(
            "Input.dispatchMouseEvent",
            {"type": event, "x": x, "y": y, "button": "left", "clickCount": 1},
        )


def test_answers_are_randomized_in_the_browser(driver, live_app, make_survey):
    slug, (question,) = make_survey(
        {
            "title": "Everyone says yes",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [{"text": "Do you agree?", "type": "yes_no"}],
        }
    )
    yes = f'input[data-question-id="{question}"][value="{YES}"]'
    driver.set_window_size(800, 1400)  # the whole page in view: no scrolling between clicks
    for respondent in range(SUBMISSIONS):
        # Each respondent's page draws its words from a generator of its own fixed seed.
        words = driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": seeded_words(STATISTICS_SEED + respondent)},
        )
        try:
            driver.get(survey_url(live_app, slug))
            points = wait(driver).until(
                lambda d: d.execute_script(READY_AND_CENTRES, yes, "#submit-survey")
            )
            assert None not in points, "the yes radio or the button is out of view"
            for x, y in points:  # click yes, then the button
                mouse_click_at(driver, x, y)
            assert driver.execute_async_script(THANKED_THEN_CLEAR) == "thanked"
        finally:
            driver.execute_cdp_cmd(
                "Page.removeScriptToEvaluateOnNewDocument", {"identifier": words["identifier"]}
            )

    submissions = stored_submissions(live_app, slug)
    assert len(submissions) == len({s.submission_id for s in submissions}) == SUBMISSIONS
    yes = sum(int(s.answers) for s in submissions)
    assert stored_tallies(live_app, [question])[question] == {1: yes, 0: SUBMISSIONS - yes}
    assert stored_respondents(live_app, slug) == SUBMISSIONS

    # Every true answer was yes, so a stored yes share of 1 - p' (p' = 0.25 exactly: the
    # browser's threshold 2^30 / 2^32) shows the browser flipped them. The words are seeded, so
    # the outcome is repeatable; the bound is statistical all the same: the share of 200 is
    # binomial with sd sqrt(0.75 * 0.25 / 200) = 0.0306, and 5 sd (0.153) holds a correct page
    # for all but about 6e-7 of seeds. A page that sent true answers would store a share of 1
    # (8 sd away).
    keep = 1 - privacy.browser_flip_probability(FLIP_PROBABILITY)
    share = yes / SUBMISSIONS
    sd = math.sqrt(keep * (1 - keep) / SUBMISSIONS)
    assert abs(share - keep) <= 5 * sd, f"yes share {share}, expected {keep} +- {5 * sd:.3f}"
    assert share < 1.0


# --------------------------------------------------------------------------- 8. phone, keyboard


LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 2  # 90 letters, no break


def test_a_phone_sized_page_works_with_the_keyboard(driver, live_app, make_survey):
    # Long unbreakable words in the survey's texts: they must wrap, not widen the page. (The
    # intro is left out here: see the next test.)
    slug, (yes_no, choice) = make_survey(
        {
            "title": f"Title {LONG_WORD}",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [
                {"text": f"Yes or no {LONG_WORD}?", "type": "yes_no"},
                {
                    "text": f"Which {LONG_WORD}?",
                    "type": "choice",
                    "options": [f"A {LONG_WORD}", f"B {LONG_WORD}", f"C {LONG_WORD}"],
                },
            ],
        }
    )
    driver.set_window_size(360, 740)
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)  # the table the answers will be sent from
    width = driver.execute_script("return window.innerWidth;")
    assert width <= 360
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width

    # Accessibility basics: each question a fieldset with its legend, every radio labelled,
    # and a live status region.
    fieldsets = driver.find_elements(By.CSS_SELECTOR, "fieldset.question")
    assert len(fieldsets) == 2
    for fieldset in fieldsets:
        legend = fieldset.find_element(By.XPATH, "./legend")
        assert legend.text.strip()
    radios = driver.find_elements(By.CSS_SELECTOR, "input[type=radio]")
    assert len(radios) == 5
    for element in radios:
        label = driver.execute_script(
            "const i = arguments[0];"
            "return Array.from(i.labels || [], (l) => l.textContent.trim()).join(' ');",
            element,
        )
        assert label, element.get_attribute("outerHTML")
        assert element.get_attribute("name")  # one group per question, arrow keys move in it
    status = driver.find_element(By.ID, "survey-status")
    assert status.get_attribute("role") == "status"
    assert status.get_attribute("aria-live") == "polite"

    # Keyboard only: Tab to the first radio, Space chooses, Tab to the next question, an arrow
    # key chooses, Tab to the button, Enter sends.
    keys = ActionChains(driver)
    first = radio(driver, yes_no, YES)
    for _ in range(10):
        if driver.switch_to.active_element == first:
            break
        keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == first
    keys.send_keys(Keys.SPACE).perform()
    assert first.is_selected()
    keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == radio(driver, choice, 0)
    keys.send_keys(Keys.ARROW_DOWN).perform()
    assert radio(driver, choice, 1).is_selected()
    assert driver.switch_to.active_element == radio(driver, choice, 1)
    keys.send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element == driver.find_element(By.ID, "submit-survey")
    keys.send_keys(Keys.ENTER).perform()
    wait(driver).until(EC.visibility_of_element_located((By.ID, "thank-you")))
    assert driver.switch_to.active_element == driver.find_element(By.ID, "thank-you")
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width

    (submission,) = stored_submissions(live_app, slug)
    assert submission.answers == encoded(
        sent_values(state, {yes_no: YES, choice: 1}), [yes_no, choice]
    )


def test_a_long_word_in_the_intro_does_not_widen_a_phone_page(driver, live_app, make_survey):
    slug, _ = make_survey(
        {
            "title": "Intro",
            "intro": f"Intro {LONG_WORD}",
            "flip_probability": FLIP_PROBABILITY,
            "questions": [{"text": "Yes or no?", "type": "yes_no"}],
        }
    )
    driver.set_window_size(360, 740)
    open_page(driver, live_app, slug)
    width = driver.execute_script("return window.innerWidth;")
    assert width <= 360
    assert driver.execute_script("return document.documentElement.scrollWidth;") <= width


# --------------------------------------------------------------------------- 9. script integrity

# Records, from before the page's own scripts, every script or preload that fails to load (a
# failed integrity check included): element error events do not bubble, but they are seen on
# the way down.
RECORD_LOAD_ERRORS = """
window.__loadErrors = [];
document.addEventListener("error", (event) => {
  const element = event.target;
  if (element instanceof HTMLScriptElement || element instanceof HTMLLinkElement) {
    window.__loadErrors.push(element.src || element.href);
  }
}, true);
"""

# A mechanism that keeps every answer as it is: what a tampered copy might do.
HONEST_FLIP = "return randomWord() < flip ? 1 - bit : bit;"


@pytest.mark.parametrize("altered", ["js/randomized-response.js", "js/survey.js"])
def test_a_script_changed_after_its_hash_was_published_is_refused(
    make_chromium, live_app, survey, tmp_path, altered
):
    """Every script the page loads carries Subresource Integrity, the module survey.js imports
    included (through its modulepreload): a copy that differs from the one the page's hashes were
    computed from does not run, and the page says that nothing can be sent."""
    slug, (yes_no, choice) = survey
    static = tmp_path / "static"
    shutil.copytree(STATIC_DIR, static)
    live_app.app.static_folder = str(static)
    # The page is rendered (and the scripts hashed) once, with the files intact ...
    with live_app.app.test_client() as client:
        assert client.get(f"/s/{slug}").status_code == 200
    # ... and then a file changes under the running server.
    script = static / altered
    source = script.read_text(encoding="utf-8")
    if altered == "js/randomized-response.js":
        assert HONEST_FLIP in source
        script.write_text(source.replace(HONEST_FLIP, "return bit;"), encoding="utf-8")
    else:
        script.write_text(source + "\n// changed\n", encoding="utf-8")

    driver = make_chromium(performance_log=True)
    network = NetworkLog(driver)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_LOAD_ERRORS})
    driver.get(survey_url(live_app, slug))
    # survey.js fails: its own integrity, or that of the module it imports.
    wait(driver).until(
        lambda d: any(
            "/static/js/survey.js" in url for url in d.execute_script("return window.__loadErrors;")
        )
    )
    errors = driver.execute_script("return window.__loadErrors;")
    if altered == "js/randomized-response.js":
        assert any(url.endswith("/static/js/randomized-response.js") for url in errors), errors

    # The notice appears once the script has had its few seconds to start.
    notice = driver.find_element(By.ID, "script-not-started")
    wait(driver).until(lambda _: notice.is_displayed())
    assert "nothing can be sent" in notice.text
    button = driver.find_element(By.ID, "submit-survey")
    assert not button.is_enabled()
    answer(driver, {yes_no: YES, choice: 1})
    ActionChains(driver).move_to_element(button).click().perform()
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    driver.get(live_app.url("/static/css/app.css"))  # anything in flight has arrived by now

    assert stored_submissions(live_app, slug) == []
    posts = [r for r in network.requests() if r["method"] != "GET"]
    assert posts == []
    # The altered file was fetched once, for the preload or the script tag, and refused; no
    # fetch without an integrity check (the import's own, say) replaced it.
    fetched = [
        r["url"]
        for r in network.requests()
        if urllib.parse.urlsplit(r["url"]).path == f"/static/{altered}"
    ]
    assert len(fetched) == 1, fetched


def test_the_scripts_that_load_hide_the_notice(driver, live_app, survey):
    slug, _ = survey
    open_page(driver, live_app, slug)
    assert driver.find_elements(By.ID, "script-not-started") == []  # removed by survey.js
    assert driver.find_elements(By.ID, "javascript-required") == []  # in <noscript>: inert
    assert driver.find_element(By.ID, "submit-survey").is_enabled()
