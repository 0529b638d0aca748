"""Each option's headline figure: its estimate clipped to 0–100%, inside its own ranges.

The pages, the CSV and the API lead with Estimate.headline; the words around it promise that it
lies inside the range printed beside it, so that promise is checked here at every count, not on
a sample: every count of 1 to 60 answers, for 2 to 6 options and flip probabilities from
strong to weak privacy.
"""

from __future__ import annotations

import pytest

from survey_app.privacy import RandomizedResponse
from survey_app.privacy.estimates import UNIT_INTERVAL_DUST
from survey_app.privacy.exact import exact_interval

FLIP_PROBABILITIES = (0.1, 0.25, 0.4)
OPTION_COUNTS = (2, 3, 4, 6)
MOST_ANSWERS = 60


@pytest.mark.parametrize("options", OPTION_COUNTS)
def test_the_clipped_estimate_lies_in_its_exact_ranges_at_every_count(options):
    misses = []
    for p in FLIP_PROBABILITIES:
        keep, other = RandomizedResponse(p, options).probabilities
        all_at_once = 0.95 if options == 2 else 1 - 0.05 / options
        for n in range(1, MOST_ANSWERS + 1):
            for count in range(n + 1):
                headline = min(1.0, max(0.0, (count / n - other) / (keep - other)))
                for level in (0.95, all_at_once):
                    low, high = exact_interval(count, n, keep, other, level)
                    # No slack: the promise is about the figures themselves.
                    if not low <= headline <= high:
                        misses.append((p, n, count, level, headline, low, high))
    assert misses == []


def test_the_headline_is_the_estimate_clipped_then_kept_in_the_range_given():
    mechanism = RandomizedResponse(0.25, 3)
    below, above, inside = mechanism.estimate([0, 10, 5], 0.95)
    assert below.estimate < 0 and below.headline() == 0.0
    assert above.estimate > 1 and above.headline() == 1.0
    assert inside.headline() == inside.estimate
    # A range carried forward from earlier looks can leave the clipped estimate out: the
    # headline then sits at the range's nearer end.
    assert inside.headline(0.5, 0.9) == 0.5
    assert inside.headline(0.0, 0.01) == 0.01
    assert below.headline(0.05, None) == 0.05
    (nobody, _, _) = mechanism.estimate([0, 0, 0], 0.95)
    assert nobody.headline() is None and nobody.headline(0.0, 1.0) is None


def test_floating_point_dust_is_not_outside_0_to_100_percent():
    # At p = 0.1 the browser flips with 429,496,730 / 2^32, a hair above 0.1: one "Yes" of ten
    # is exactly what nobody holding it gives, and debiases to -1.2e-10, not 0.
    no, yes = RandomizedResponse(0.1).estimate([9, 1])
    assert -UNIT_INTERVAL_DUST < yes.estimate < 0 < no.estimate - 1 < UNIT_INTERVAL_DUST
    assert not yes.outside_unit_interval and not no.outside_unit_interval
    assert yes.headline() == 0.0
    # One "Yes" fewer is news: the estimate is -12.5%.
    _, none = RandomizedResponse(0.1).estimate([10, 0])
    assert none.outside_unit_interval
