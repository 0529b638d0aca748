"""The respondent's randomness in a real headless Chromium: it comes from crypto alone, its
words are drawn in order with rejection, and answers sent are randomized as the mechanism says.

Each test serves the app live on loopback (``live_app``: a fresh SQLite database); request
bodies come from Chromium's DevTools performance log. SECURITY.md rows: see
tests/browser/respondent_helpers.py.
"""

from __future__ import annotations

import json
import math
import time

import pytest

from survey_app import privacy
from tests.browser.conftest import seeded_words
from tests.browser.devtools import evaluation, page_devtools, value_of
from tests.browser.respondent_helpers import (
    FLIP_PROBABILITY,
    WORDS,
    YES,
    answer,
    kept_device,
    open_page,
    saved_state,
    stored_respondents,
    stored_submissions,
    stored_tallies,
    submit_and_wait,
    survey_url,
)

pytestmark = pytest.mark.browser


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


def expected_device(stream: WordStream) -> str:
    """answer-table.js deviceId(): 16 bytes in hexadecimal, drawn after the table."""
    return bytes(stream.next() & 0xFF for _ in range(16)).hex()


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
    """(submission id, table, device id, words used) that survey.js draws from this stream,
    for questions given as (id, type, option count): the UUID first, then each question in
    order, each true value 0 .. k - 1 in order, then the device id (a fresh browser)."""
    stream = WordStream(words, cycle)
    submission_id = expected_uuid(stream)
    table = {}
    for qid, kind, k in kinds:
        if kind == "yes_no":
            table[str(qid)] = [expected_bit(stream, value, p) for value in range(k)]
        else:
            table[str(qid)] = [expected_choice(stream, value, k, p) for value in range(k)]
    return submission_id, table, expected_device(stream), stream.used


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

    expected_id, expected_table, expected_device_id, words_used = expected_state(
        [word], True, [(yes_no, "yes_no", 2), (choice, "choice", 3)], FLIP_PROBABILITY
    )
    assert expected_table == {str(yes_no): table[0], str(choice): table[1]}
    state = saved_state(driver, slug)
    assert state == {"submissionId": expected_id, "table": expected_table, "submitted": False}
    assert kept_device(driver, slug) == expected_device_id
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
    words += [0xA0 + i for i in range(16)]  # the device id's bytes: 0xa0, 0xa1, ...
    stub_randomness(before_page_scripts, words, cycle=False)
    open_page(driver, live_app, slug)

    expected_id, expected_table, expected_device_id, words_used = expected_state(
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
    assert expected_device_id == "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    assert kept_device(driver, slug) == expected_device_id
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


#: Whole pages answered and sent, each a respondent: enough to tell a page that randomizes
#: from one that sends true answers (see the test).
SUBMISSIONS = 60


STATISTICS_SEED = 7_000


# The statistical test's page steps. Hundreds of page loads add up, and every command is a round
# trip to a busy machine: WebDriver loads each respondent's page (and waits for it); the rest
# goes over one DevTools client of the page (tests/browser/devtools.py), in batches run in order.
READY_AND_CENTRES = """((selectors) => {
  if (document.getElementById("submit-survey").disabled) return null;  // survey.js has not run
  return selectors.map((selector) => {
    const box = document.querySelector(selector).getBoundingClientRect();
    const inView = box.top >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
    return inView ? [box.x + box.width / 2, box.y + box.height / 2] : null;
  });
})(%s)"""


# Waits in the page until the thank-you shows (or an error does), then clears localStorage so
# that the next load is a new respondent with a new table.
THANKED_THEN_CLEAR = """new Promise((done) => {
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
})"""


def mouse_clicks(points: list[list[float]]) -> list[tuple[str, dict]]:
    """A real (trusted) left click at each point of the viewport, as DevTools input events: the
    events WebElement.click() sends, without the checks it makes around them."""
    return [
        (
            "Input.dispatchMouseEvent",
            {"type": event, "x": x, "y": y, "button": "left", "clickCount": 1},
        )
        for x, y in points
        for event in ("mousePressed", "mouseReleased")
    ]


def ready_and_centres(devtools, selectors: list[str], timeout: float = 15):
    """The centres of ``selectors``' elements once survey.js has run (None for one out of
    view); fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (points := devtools.evaluate(READY_AND_CENTRES % json.dumps(selectors))) is None:
        assert time.monotonic() < deadline, "survey.js did not enable the button"
        time.sleep(0.02)
    return points


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
    with page_devtools(driver) as devtools:
        words = None
        for respondent in range(SUBMISSIONS):
            # Each respondent's page draws its words from a generator of its own fixed seed.
            swap = [] if words is None else [("Page.removeScriptToEvaluateOnNewDocument", words)]
            seeded = {"source": seeded_words(STATISTICS_SEED + respondent)}
            *_, words = devtools.run([*swap, ("Page.addScriptToEvaluateOnNewDocument", seeded)])
            driver.get(survey_url(live_app, slug))
            points = ready_and_centres(devtools, [yes, "#submit-survey"])
            assert None not in points, "the yes radio or the button is out of view"
            # Click yes, then the button; then wait for the thanks.
            *_, thanks = devtools.run(
                [*mouse_clicks(points), evaluation(THANKED_THEN_CLEAR, await_promise=True)]
            )
            assert value_of(thanks) == "thanked"
        devtools.run([("Page.removeScriptToEvaluateOnNewDocument", words)])

    submissions = stored_submissions(live_app, slug)
    assert len(submissions) == len({s.submission_id for s in submissions}) == SUBMISSIONS
    yes = sum(int(s.answers) for s in submissions)
    assert stored_tallies(live_app, [question])[question] == {1: yes, 0: SUBMISSIONS - yes}
    assert stored_respondents(live_app, slug) == SUBMISSIONS

    # Every true answer was yes, so a stored yes share of 1 - p' (p' = 0.25 exactly: the
    # browser's threshold 2^30 / 2^32) shows the browser flipped them. The words are seeded, so
    # the outcome is repeatable; the bound is statistical all the same: the share of 60 is
    # binomial with sd sqrt(0.75 * 0.25 / 60) = 0.0559, and 4 sd (0.224) holds a correct page
    # for all but about 6e-5 of seeds. A page that sent true answers would store a share of 1
    # (refused by the last check). This end-to-end check tells a page that randomizes from one
    # that does not; the rate at which the module flips, which 60 pages cannot pin down, is
    # checked at scale apart: tests/browser/test_randomized_response_browser.py.
    keep = 1 - privacy.browser_flip_probability(FLIP_PROBABILITY)
    share = yes / SUBMISSIONS
    sd = math.sqrt(keep * (1 - keep) / SUBMISSIONS)
    assert abs(share - keep) <= 4 * sd, f"yes share {share}, expected {keep} +- {4 * sd:.3f}"
    assert share < 1.0
