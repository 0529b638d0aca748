"""A numeric average's guaranteed range covers, with the reports drawn by the browser's own sampler.

Classes of 40 at the worst cases (everyone at one bound, half at each, everyone at the midpoint)
answer through ``randomizeNumber`` of static/js/randomized-response.js under Node, with words
from a generator of a fixed seed (as the law tests in tests/unit/privacy/test_numeric_node.py); the
ranges are the server's (``estimate_mean``, and the live range at the last look). The seed is
fixed, so the outcome is repeatable and cannot flake.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from survey_app import privacy
from tests.browser.conftest import seeded_words
from tests.unit.respondents.test_randomized_response_node import run_node

SEED = 20_261_125
CLASS = 40
#: Classes a case: the binomial standard error of a coverage of 0.95 is 0.0069.
CLASSES = 1000
#: Allowed shortfall below 95%: four standard errors.
TOLERANCE = 4 * math.sqrt(0.95 * 0.05 / CLASSES)
LO, HI = 0.0, 40.0
WORST_CASES = {
    "all at the bottom": [LO] * CLASS,
    "all at the top": [HI] * CLASS,
    "half at each": [LO] * (CLASS // 2) + [HI] * (CLASS // 2),
    "all at the midpoint": [(LO + HI) / 2] * CLASS,
}
SAMPLER = """
function classes(values, mechanism, params, count) {
  const out = [];
  for (let c = 0; c < count; c++) {
    out.push(values.map((value) => rr.randomizeNumber(value, %(lo)s, %(hi)s, mechanism, params)));
  }
  return out;
}
"""


@pytest.fixture(scope="module")
def browser_classes(tmp_path_factory):
    """Every mechanism's classes at every worst case, drawn in one Node run."""
    epsilon = math.log(3)
    calls = []
    for name in privacy.NUMERIC_MECHANISMS:
        params = privacy.numeric_mechanism(LO, HI, epsilon, name).browser_parameters()
        for values in WORST_CASES.values():
            calls.append(
                f"classes({json.dumps(values)}, {json.dumps(name)}, {json.dumps(params)}, "
                f"{CLASSES})"
            )
    body = (
        f"{seeded_words(SEED)}\n{SAMPLER % {'lo': LO, 'hi': HI}}\n"
        f"console.log(JSON.stringify([{', '.join(calls)}]));"
    )
    drawn = run_node(tmp_path_factory.mktemp("coverage"), body)
    cases = [(name, case) for name in privacy.NUMERIC_MECHANISMS for case in WORST_CASES]
    return dict(zip(cases, drawn, strict=True))


@pytest.mark.parametrize("name", list(privacy.NUMERIC_MECHANISMS))
@pytest.mark.parametrize("case", list(WORST_CASES))
def test_the_range_covers_the_class_average_at_the_worst_cases(browser_classes, name, case):
    mechanism = privacy.numeric_mechanism(LO, HI, math.log(3), name)
    truth = float(np.mean(WORST_CASES[case]))
    fixed = live = 0
    for reports in browser_classes[(name, case)]:
        estimate = privacy.live.estimate_mean_with_live_range(mechanism, reports, 0.95)
        fixed += estimate.ci_low - 1e-9 <= truth <= estimate.ci_high + 1e-9
        live += estimate.live_low - 1e-9 <= truth <= estimate.live_high + 1e-9
    assert fixed / CLASSES >= 0.95 - TOLERANCE, (fixed / CLASSES, name, case)
    assert live / CLASSES >= 0.95 - TOLERANCE, (live / CLASSES, name, case)
