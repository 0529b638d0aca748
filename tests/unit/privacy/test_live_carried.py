"""Live ranges carried forward (survey_app.privacy.live.carry_forward): a later look never gives
back what an earlier one proved, and never widens by more than the new answers allow.

That the carried ranges keep their guarantee is measured in
tests/statistical/test_live_carried_statistics.py.
"""

import pytest

from survey_app.privacy import GridLaplace, RandomizedResponse
from survey_app.privacy.live import (
    carried_mean_interval,
    carried_share_interval,
    carry_forward,
    live_mean_interval_from_sum,
    live_share_interval,
)

KEEP, OTHER = RandomizedResponse(0.25, 4).probabilities


def test_a_count_keeps_its_lower_end_and_its_upper_end_grows_by_the_new_answers_at_most():
    # 5 to 9 holders among 24 answers; today, 0 to 14 among 25: at least 5, at most 10.
    assert carry_forward([(24, 5, 9), (25, 0, 14)]) == (5, 10)


def test_todays_range_narrower_than_the_carried_one_is_kept():
    assert carry_forward([(20, 0, 20), (25, 3, 7)]) == (3, 7)


def test_every_earlier_look_is_carried_not_only_the_last():
    # The first look's upper end, grown by 10 answers, is below the second's grown by 5.
    assert carry_forward([(10, 0, 2), (15, 0, 15), (20, 0, 20)]) == (0, 12)


def test_a_sum_of_values_grows_by_the_lowest_and_highest_value_an_answer():
    # 10 answers summing to 30 to 50, values in [1, 7]; 5 more: at least 35, at most 85.
    assert carry_forward([(10, 30.0, 50.0), (15, 0.0, 200.0)], 1.0, 7.0) == (35.0, 85.0)


@pytest.mark.parametrize(
    ("today", "carried"),
    [((12, 0, 3), (12, 5, 5)), ((12, 15, 20), (12, 11, 11))],
    ids=["below what was proved", "above what was allowed"],
)
def test_a_range_that_meets_nothing_earlier_allows_becomes_the_nearest_end(today, carried):
    """Every look covering its count would have made them meet: this happens with probability at
    most alpha, and even then the carried range never widens by more than the new answers."""
    assert carry_forward([(10, 5, 9), today]) == carried[1:]


def test_looks_out_of_order_and_nothing_to_carry_are_refused():
    with pytest.raises(ValueError, match="in order of answers"):
        carry_forward([(10, 0, 5), (9, 0, 5)])
    with pytest.raises(ValueError, match="at least today"):
        carry_forward([])
    with pytest.raises(ValueError, match="lowest must be at most highest"):
        carry_forward([(1, 0, 1)], 2.0, 1.0)


def test_the_issues_widening_share_range_is_carried_on_counts():
    """Home at 24 answers, then 25: today's own live range reaches further than one new answer
    allows; the carried one's upper end is at most one person more."""
    count_24, count_25 = 2, 4
    low_24, high_24 = live_share_interval(count_24, 24, KEEP, OTHER)
    low_25, high_25 = live_share_interval(count_25, 25, KEEP, OTHER)
    assert high_25 * 25 > high_24 * 24 + 1  # the widening the issue saw
    earlier = (24, round(low_24 * 24), round(high_24 * 24))
    low, high = carried_share_interval(count_25, 25, KEEP, OTHER, 0.95, earlier)
    assert round(high * 25) <= round(high_24 * 24) + 1
    assert round(low * 25) >= round(low_24 * 24)
    assert low_25 <= low <= high <= high_25


def test_without_an_earlier_look_the_share_range_is_the_live_one():
    assert carried_share_interval(7, 30, KEEP, OTHER) == live_share_interval(7, 30, KEEP, OTHER)
    assert carried_share_interval(0, 0, KEEP, OTHER, 0.95, (0, 0, 0)) == (0.0, 1.0)


def test_a_mean_is_carried_on_its_sum_and_stays_within_its_bounds():
    mechanism = GridLaplace(0.0, 10.0, 1.0)
    raw = live_mean_interval_from_sum(mechanism, 30, 30 * 50.0, 0.95)  # grid steps
    assert carried_mean_interval(mechanism, 30, 30 * 50.0, 0.95) == raw
    # 20 answers summing to 40 to 60 hours: 10 more at 0 to 10 each leave 40 to 160.
    low, high = carried_mean_interval(mechanism, 30, 30 * 50.0, 0.95, (20, 40.0, 60.0))
    assert low == pytest.approx(max(raw[0], 40.0 / 30))
    assert high == pytest.approx(min(raw[1], 160.0 / 30))
    assert 0.0 <= low <= high <= 10.0


def test_tell_carries_what_the_last_look_proved_and_hands_on_its_own():
    mechanism = RandomizedResponse(0.25, 4)
    first = mechanism.tell([9, 6, 5, 4], 0.95)
    assert first.live_sums == tuple(
        (24, round(e.live_low * 24), round(e.live_high * 24)) for e in first.estimates
    )
    later = mechanism.tell([9, 6, 5, 5], 0.95, first.live_sums)
    for (_, low_before, high_before), (n, low, high) in zip(
        first.live_sums, later.live_sums, strict=True
    ):
        assert n == 25 and low >= low_before and high <= high_before + 1
    with pytest.raises(ValueError, match="carried must have 4 entries"):
        mechanism.tell([9, 6, 5, 5], 0.95, first.live_sums[:2])
    assert mechanism.tell([0, 0, 0, 0]).live_sums == ()


def test_an_average_hands_on_its_sum_and_carries_it():
    mechanism = GridLaplace(0.0, 10.0, 1.0)
    first = mechanism.tell({0: 10, 300: 10}, 0.95)
    (n, low_sum, high_sum) = first.live_sums[0]
    assert n == 20
    assert low_sum == pytest.approx(20 * first.estimate.live_low)
    later = mechanism.tell({0: 10, 300: 11}, 0.95, first.live_sums)
    assert later.estimate.live_low * 21 >= low_sum - 1e-9
    assert later.estimate.live_high * 21 <= high_sum + 10.0 + 1e-9


@pytest.mark.parametrize(
    ("mechanism", "counts", "later"),
    [
        (RandomizedResponse(0.25, 4), [9, 6, 5, 4], {0: 9, 1: 7, 2: 9, 3: 4}),
        (GridLaplace(0.0, 10.0, 1.0), {0: 10, 300: 10}, {0: 12, 300: 13}),
    ],
    ids=["shares", "average"],
)
def test_what_a_release_keeps_is_what_tell_hands_on(mechanism, counts, later):
    for level in (0.9, 0.95, 0.99):
        first = mechanism.tell(counts, level)
        assert mechanism.live_sums(counts, level) == first.live_sums
        carried = mechanism.live_sums(later, level, first.live_sums)
        assert carried == mechanism.tell(later, level, first.live_sums).live_sums
