"""The browser's numeric mechanisms in a real headless Chromium (issue 14).

The module is imported into a blank page, as in test_randomized_response_browser.py. With words
from a generator of a fixed seed, many reports are compared with the exact law of
survey_app.privacy by a chi-square test (the same cases and tolerance as under Node, in
tests/unit/test_numeric_node.py); with stubbed words, reports equal the values worked out by
hand there.
"""

import pytest

from tests.browser.conftest import seeded_words
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
