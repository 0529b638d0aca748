"""Live ranges carried forward from release to release keep their guarantee (issue 27, row 5).

A professor looks after every release (every 5 answers, from the 5th to the 100th). The carried
range (survey_app.privacy.live.carry_forward, on counts) must miss the running true count at
some look in at most 5% of classes at 95%, for classes that answer in blocks and in adversarial
orders (every holder first, or last); and from one look to the next its lower end never falls
and its upper end rises by at most the number of new answers. The control shows why counts and
not shares: intersecting the shares of earlier looks misses the running share in most classes
that answer in blocks, since the running share moves.

Classes are simulated from fixed seeds with the app's own functions, each look handing on what
it proved (Shares.live_sums, as a release keeps it).
"""

from itertools import pairwise

import numpy as np
import pytest

from survey_app.privacy import RandomizedResponse
from survey_app.privacy.live import carried_share_interval, live_share_interval

pytestmark = pytest.mark.statistical

CONFIDENCE = 0.95
BATCH, LAST_LOOK = 5, 100
CLASSES = 2000
#: A correct range misses in at most 5% of classes. With 2,000 classes the count of misses is
#: then at most Bin(2000, 0.05): mean 100, standard deviation 9.7, and more than 130 (6.5%) has
#: probability below 0.002 (3.1 standard deviations), so a correct range fails this about never.
#: (Ville's bound is loose: the live ranges miss in about 1% to 3% of these classes.)
MISS_BOUND = 0.065


def _true_answers(order: str, holders: int) -> np.ndarray:
    """Who truly holds the option, in arrival order."""
    if order == "holders first":
        return np.arange(LAST_LOOK) < holders
    if order == "holders last":
        return np.arange(LAST_LOOK) >= LAST_LOOK - holders
    # In blocks: tables of 10 answering together, every other table all holders.
    return (np.arange(LAST_LOOK) // 10) % 2 == 0


def _counts(truth: np.ndarray, keep: float, other: float, seed: int) -> np.ndarray:
    """Each class's running noisy count after every answer (one row a class)."""
    rng = np.random.default_rng([2026, 27, 5, seed])
    reports = rng.random((CLASSES, LAST_LOOK)) < np.where(truth, keep, other)
    return np.cumsum(reports, axis=1)


def _carried_looks(counts: np.ndarray, keep: float, other: float) -> list[tuple[int, int, int]]:
    """One class's carried ranges in people after every release, as the app carries them."""
    looks, earlier = [], None
    for n in range(BATCH, LAST_LOOK + 1, BATCH):
        low, high = carried_share_interval(int(counts[n - 1]), n, keep, other, CONFIDENCE, earlier)
        earlier = (n, round(low * n), round(high * n))
        looks.append(earlier)
    return looks


CASES = [
    (flip_probability, options, order, holders)
    for flip_probability, options in [(0.25, 2), (0.25, 4), (0.1, 2)]
    for order, holders in [("holders first", 50), ("holders last", 50), ("in blocks", 50)]
]


@pytest.mark.parametrize(("flip_probability", "options", "order", "holders"), CASES)
def test_carried_ranges_miss_in_at_most_five_percent_and_never_give_back(
    flip_probability, options, order, holders
):
    keep, other = RandomizedResponse(flip_probability, options).probabilities
    truth = _true_answers(order, holders)
    running = np.cumsum(truth)
    counts = _counts(truth, keep, other, seed=options * 1000 + round(flip_probability * 100))
    misses = 0
    for path in counts:
        looks = _carried_looks(path, keep, other)
        misses += any(not low <= running[n - 1] <= high for n, low, high in looks)
        # Exact, at every look: what an earlier look proved is never given back.
        for (n_before, low_before, high_before), (n, low, high) in pairwise(looks):
            assert low >= low_before and high <= high_before + (n - n_before)
    assert misses / CLASSES <= MISS_BOUND


def test_intersecting_shares_instead_of_counts_misses_in_most_classes():
    """The control: the same looks, with the earlier looks' shares intersected instead of their
    counts carried, exclude the running share in most classes whose holders answer first (the
    running share falls from 100% to 50%: early looks' lower ends stay above it). 200 classes:
    measured 92% (the carried ranges: 0.5%); above half is 6 standard deviations from the 50%
    of a coin, so it is not chance."""
    keep, other = RandomizedResponse(0.25, 2).probabilities
    truth = _true_answers("holders first", 50)
    running = np.cumsum(truth)
    counts = _counts(truth, keep, other, seed=1)[:200]
    misses = carried_misses = 0
    for path in counts:
        low, high, missed = 0.0, 1.0, False
        for n in range(BATCH, LAST_LOOK + 1, BATCH):
            today = live_share_interval(int(path[n - 1]), n, keep, other, CONFIDENCE)
            low, high = max(low, today[0]), min(high, today[1])
            missed |= not low - 1e-12 <= running[n - 1] / n <= high + 1e-12
        misses += missed
        looks = _carried_looks(path, keep, other)
        carried_misses += any(not low <= running[n - 1] <= high for n, low, high in looks)
    assert misses / len(counts) > 0.7
    assert carried_misses / len(counts) <= MISS_BOUND
