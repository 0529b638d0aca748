"""static/js/randomized-response.js in a real headless Chromium (issue 2).

The module is served over http (ES modules do not load from file://) and imported into a blank
page on the same origin; each test navigates afresh, so stubs never leak between tests.
"""

import json
import math

import pytest

import survey_app.privacy as privacy
from tests.browser.conftest import seeded_words
from tests.unit.privacy.test_privacy import EPSILON_GRID, OPTION_COUNTS

pytestmark = pytest.mark.browser

MODULE_PATH = "/js/randomized-response.js"
BLANK_PAGE = "/__tests__/blank.html"
WORDS = 2**32
DRAWS = 200_000
RATE_SEED = 20_261_122

IMPORT_MODULE = """
const [url, done] = [arguments[0], arguments[arguments.length - 1]];
import(url).then(
  (module) => { window.rr = module; done("loaded"); },
  (error) => done(`import failed: ${error}`),
);
"""


def load_module(driver, static_server, before_import: str = "") -> None:
    """Open a blank page of the static server and import the module as ``window.rr``.

    ``before_import`` is JavaScript run in the page first (e.g. to stub Math.random).
    """
    driver.get(static_server.add_page(BLANK_PAGE, "<!doctype html><title>blank</title>"))
    if before_import:
        driver.execute_script(before_import)
    assert driver.execute_async_script(IMPORT_MODULE, static_server.url(MODULE_PATH)) == "loaded"


@pytest.fixture
def rr_page(chromium, static_server):
    """The shared Chromium on a fresh page with the module imported as ``window.rr``."""
    load_module(chromium, static_server)
    return chromium


@pytest.fixture
def seeded_rr_page(chromium, static_server):
    """As ``rr_page``, with the page's random words from a generator of a fixed seed."""
    load_module(chromium, static_server, before_import=seeded_words(RATE_SEED))
    return chromium


def five_sigma(probability: float, draws: int) -> float:
    """Five binomial standard deviations of an observed rate."""
    return 5 * math.sqrt(probability * (1 - probability) / draws)


# --------------------------------------------------------------------------- rates

# The words come from a generator of a fixed seed (seeded_words), so the checks are repeatable.
# Each rate is checked to 5 binomial standard deviations of 200,000 draws (at most 0.0055): a
# correct module given uniform words lies within that with probability 1 - 6e-7 per check, and
# does for this seed; a module whose rate is wrong by half a percentage point or more (a wrong
# threshold, an off-by-one in the rejection step) is caught at p = 0.1 and k = 5.


@pytest.mark.parametrize("flip_probability", [0.1, 0.25, 0.4])
def test_bit_flip_rates_in_the_browser(seeded_rr_page, flip_probability):
    ones = seeded_rr_page.execute_script(
        """
        const [p, draws] = arguments;
        const ones = [0, 0];
        for (const bit of [0, 1]) {
          for (let i = 0; i < draws; i++) ones[bit] += window.rr.randomizeBit(bit, p);
        }
        return ones;
        """,
        flip_probability,
        DRAWS,
    )
    flip = privacy.browser_flip_probability(flip_probability)
    # A true "no" is reported as "yes" with probability p'; a true "yes" as "no" with p'.
    assert abs(ones[0] / DRAWS - flip) <= five_sigma(flip, DRAWS)
    assert abs((DRAWS - ones[1]) / DRAWS - flip) <= five_sigma(flip, DRAWS)


@pytest.mark.parametrize("k", [3, 5])
def test_choice_rates_in_the_browser(seeded_rr_page, k):
    flip_probability = 0.25  # epsilon = ln 3
    counts = seeded_rr_page.execute_script(
        """
        const [k, p, draws] = arguments;
        const counts = [];
        for (let index = 0; index < k; index++) {
          const row = new Array(k).fill(0);
          for (let i = 0; i < draws; i++) row[window.rr.randomizeChoice(index, k, p)]++;
          counts.push(row);
        }
        return counts;
        """,
        k,
        flip_probability,
        DRAWS,
    )
    keep, other = privacy.browser_keep_probabilities(flip_probability, k)
    assert other == pytest.approx((1 - keep) / (k - 1))
    for index, row in enumerate(counts):
        assert sum(row) == DRAWS
        for reported, count in enumerate(row):
            expected = keep if reported == index else other
            assert abs(count / DRAWS - expected) <= five_sigma(expected, DRAWS), (index, reported)


# --------------------------------------------------------------------------- chosen words

STUB_WORDS = """
window.queue = [];
window.drawn = 0;
crypto.getRandomValues = (array) => {
  window.drawn++;
  if (window.queue.length === 0) throw new Error("no more stubbed words");
  array[0] = window.queue.shift();
  return array;
};
"""

T_QUARTER = 2**30  # flip threshold of p = 0.25: 0.25 * 2^32
T_TENTH = 429496730  # flip threshold of p = 0.1: 0.1 * 2^32 = 429496729.6 rounded up
# Keep threshold of k = 4, p = 0.1 (eps = ln 9): floor(2^32 (2^32 - T) / (2^32 + 2 T)), just
# under 0.75 * 2^32 (tests/unit/privacy/test_privacy.py derives it).
T_KEEP_4_TENTH = 3221225471

# (function, arguments, words handed out, expected output, words drawn)
STUBBED_CASES = [
    ("randomizeBit", [1, 0.25], [T_QUARTER - 1], 0, 1),  # below T: flipped
    ("randomizeBit", [1, 0.25], [T_QUARTER], 1, 1),  # at T: kept
    ("randomizeBit", [0, 0.25], [T_QUARTER - 1], 1, 1),
    ("randomizeBit", [0, 0.25], [T_QUARTER], 0, 1),
    ("randomizeBit", [1, 0.1], [T_TENTH - 1], 0, 1),
    ("randomizeBit", [0, 0.1], [T_TENTH], 0, 1),
    ("randomizeChoice", [2, 4, 0.1], [T_KEEP_4_TENTH - 1], 2, 1),  # below T: kept
    # At T: one of the 3 others, word % 3, moved past the true index 2.
    ("randomizeChoice", [2, 4, 0.1], [T_KEEP_4_TENTH, 4], 1, 2),  # 4 % 3 = 1 -> 1
    ("randomizeChoice", [2, 4, 0.1], [T_KEEP_4_TENTH, 5], 3, 2),  # 5 % 3 = 2 -> 3
    # 2^32 % 3 = 1: the word 2^32 - 1 is rejected and drawn again; 9 % 3 = 0 -> 0.
    ("randomizeChoice", [2, 4, 0.1], [T_KEEP_4_TENTH, WORDS - 1, 9], 0, 3),
]


def test_outputs_for_chosen_words(rr_page):
    rr_page.execute_script(STUB_WORDS)
    results = rr_page.execute_script(
        """
        return arguments[0].map(([name, args, words]) => {
          window.queue = [...words];
          window.drawn = 0;
          const output = window.rr[name](...args);
          return [output, window.drawn, window.queue.length];
        });
        """,
        [[name, args, words] for name, args, words, _, _ in STUBBED_CASES],
    )
    for (name, args, words, expected, drawn), result in zip(STUBBED_CASES, results, strict=True):
        assert result == [expected, drawn, len(words) - drawn], (name, args, words)


def test_thresholds_in_the_browser_match_python(rr_page):
    ks = list(OPTION_COUNTS)
    result = rr_page.execute_script(
        """
        const [ps, ks] = arguments;
        const { flipThreshold, keepThreshold } = window.rr;
        return ps.map((p) => [flipThreshold(p), ks.map((k) => keepThreshold(k, p))]);
        """,
        EPSILON_GRID,
        ks,
    )
    assert result == [
        [privacy.flip_threshold(p), [privacy.keep_threshold(p, k) for k in ks]]
        for p in EPSILON_GRID
    ]
    assert privacy.keep_threshold(0.1, 4) == T_KEEP_4_TENTH


def test_bad_arguments_throw_range_errors_in_the_browser(rr_page):
    errors = rr_page.execute_script(
        """
        const calls = [
          () => window.rr.randomizeBit(1, 0.5),
          () => window.rr.randomizeBit(2, 0.25),
          () => window.rr.randomizeChoice(0, 1, 0.25),
          () => window.rr.randomizeChoice(0, 3, 0),
          () => window.rr.randomizeChoice(3, 3, 0.25),
        ];
        return calls.map((call) => {
          try {
            call();
            return "no error";
          } catch (error) {
            return `${error.name}: ${error.message}`;
          }
        });
        """
    )
    parameters = ["flip_probability", "bit", "k", "flip_probability", "index"]
    for parameter, error in zip(parameters, errors, strict=True):
        assert error.startswith(f"RangeError: {parameter} must "), error


# --------------------------------------------------------------------------- no Math.random


def test_served_source_has_no_math_random(rr_page, static_server):
    served = rr_page.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then(async (response) => done({
          status: response.status,
          type: response.headers.get("content-type"),
          text: await response.text(),
        }), (error) => done({ status: 0, type: "", text: String(error) }));
        """,
        static_server.url(MODULE_PATH),
    )
    assert served["status"] == 200
    assert served["type"].startswith("text/javascript")
    assert "export function randomizeBit" in served["text"]
    assert "Math.random" not in served["text"]


def test_module_works_with_math_random_disabled(chromium, static_server):
    load_module(
        chromium,
        static_server,
        before_import=seeded_words(RATE_SEED + 1)
        + """
        window.mathRandomCalls = 0;
        Math.random = () => { window.mathRandomCalls++; throw new Error("Math.random called"); };
        """,
    )
    result = chromium.execute_script(
        """
        const bits = [], choices = [];
        for (let i = 0; i < 4000; i++) bits.push(window.rr.randomizeBit(i % 2, 0.25));
        for (let i = 0; i < 4000; i++) choices.push(window.rr.randomizeChoice(i % 5, 5, 0.25));
        return { bits, choices, mathRandomCalls: window.mathRandomCalls };
        """
    )
    assert result["mathRandomCalls"] == 0
    assert set(result["bits"]) == {0, 1}
    assert set(result["choices"]) == {0, 1, 2, 3, 4}
    # Seeded words: about 1000 of 4000 bits flip (std ~27); 800 .. 1200 is over 7 std, so
    # the check holds for any reasonable seed and fails a module that flips none or all.
    flipped = sum(bit != i % 2 for i, bit in enumerate(result["bits"]))
    assert 800 <= flipped <= 1200


# --------------------------------------------------------------------------- the fixtures


def test_javascript_can_be_turned_off(chromium, make_chromium, static_server):
    url = static_server.add_page(
        "/__tests__/script-sets-title.html",
        '<!doctype html><title>off</title><script>document.title = "on";</script>',
    )
    chromium.get(url)
    assert chromium.title == "on"
    no_script = make_chromium(javascript_enabled=False)
    no_script.get(url)
    assert no_script.title == "off"


def test_performance_log_records_request_bodies(make_chromium, static_server):
    driver = make_chromium(performance_log=True)
    load_module(driver, static_server)
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const body = JSON.stringify({ answer: window.rr.randomizeBit(1, 0.25) });
        fetch("/__tests__/echo", { method: "POST", body }).then(() => done(), () => done());
        """
    )
    events = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    module_responses = [
        e["params"]["response"]
        for e in events
        if e["method"] == "Network.responseReceived"
        and e["params"]["response"]["url"].endswith(MODULE_PATH)
    ]
    assert module_responses and module_responses[0]["mimeType"] == "text/javascript"
    posted = [
        e["params"]["request"]
        for e in events
        if e["method"] == "Network.requestWillBeSent" and e["params"]["request"]["method"] == "POST"
    ]
    assert len(posted) == 1
    assert json.loads(posted[0]["postData"])["answer"] in (0, 1)
