"""Exact guaranteed intervals: coverage by exact enumeration, intervals against independent
brute-force constructions, never empty, the large-n bound, and the mechanism type that owns them.

Nothing here is random: coverage is summed over the exact law of the noisy count, so the
checks are exact up to floating point (a tolerance of 1e-9 covers rounding in the sums).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from survey_app import privacy
from survey_app.privacy import RandomizedResponse
from survey_app.privacy.exact import EXACT_LIMIT, TABLE_LIMIT, exact_interval, uses_exact_law

ROUNDING = 1e-9


def count_law(n: int, t: int, keep: float, other: float) -> np.ndarray:
    """Pr[C = c | t] for c = 0..n, by full convolution of the two binomial laws (no windows)."""
    kept = stats.binom.pmf(np.arange(t + 1), t, keep)
    others = stats.binom.pmf(np.arange(n - t + 1), n - t, other)
    return np.convolve(kept, others)


def intervals_from(accepted: np.ndarray) -> list:
    """Each count's interval: the first and last t whose acceptance region holds it."""
    n = accepted.shape[0] - 1
    intervals = []
    for c in range(n + 1):
        ts = np.nonzero(accepted[:, c])[0]
        intervals.append(None if ts.size == 0 else (ts.min() / n, ts.max() / n))
    return intervals


def equal_tailed_table(n: int, keep: float, other: float, confidence: float, bounds=False):
    """Every count's equal-tailed interval, by brute force: every t tested against every c.

    With ``bounds``, t = 0 also takes every count below and t = n every count above.
    """
    half_alpha = (1.0 - confidence) / 2.0
    accepted = np.zeros((n + 1, n + 1), dtype=bool)  # [t, c]
    for t in range(n + 1):
        law = count_law(n, t, keep, other)
        at_least = law[::-1].cumsum()[::-1]
        at_most = law.cumsum()
        accepted[t] = ((at_least > half_alpha) | (bounds and t == n)) & (
            (at_most > half_alpha) | (bounds and t == 0)
        )
    return intervals_from(accepted)


def feldman_cousins_table(n: int, keep: float, other: float, confidence: float) -> list:
    """Every count's interval by the likelihood-ratio ordering, written plainly: for each t,
    sort the counts by f_t(c) / max_s f_s(c), take them until the mass reaches the confidence
    (and any tied with the last), then each count gets the hull of the t that took it."""
    laws = np.array([count_law(n, t, keep, other) for t in range(n + 1)])
    ratios = laws / laws.max(axis=0)
    accepted = np.zeros_like(laws, dtype=bool)
    for t in range(n + 1):
        order = sorted(range(n + 1), key=lambda c: -ratios[t, c])
        mass, taken = 0.0, 0
        while mass < confidence:
            mass += laws[t, order[taken]]
            taken += 1
        cut = ratios[t, order[taken - 1]]
        holds = np.nonzero(ratios[t] >= cut * (1 - 1e-9))[0]
        accepted[t, holds.min() : holds.max() + 1] = True
    return intervals_from(accepted)


def every_interval(n: int, keep: float, other: float, confidence: float) -> list:
    return [exact_interval(c, n, keep, other, confidence) for c in range(n + 1)]


def worst_coverage(n: int, keep: float, other: float, confidence: float) -> float:
    """The smallest, over every true t, of the exact probability that the interval covers t/n."""
    intervals = every_interval(n, keep, other, confidence)
    lows = np.array([low for low, _ in intervals])
    highs = np.array([high for _, high in intervals])
    worst = 1.0
    for t in range(n + 1):
        covers = (lows <= t / n + 1e-12) & (t / n - 1e-12 <= highs)
        worst = min(worst, float(count_law(n, t, keep, other) @ covers))
    return worst


MECHANISMS = [(p, k) for p in (0.1, 0.25, 0.4) for k in (2, 3, 4, 12)]


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
@pytest.mark.parametrize(("flip_probability", "k"), MECHANISMS)
def test_coverage_holds_for_every_true_count(flip_probability, k, confidence):
    """Every n up to 60 (and one above the table, where equal tails take over)."""
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    for n in [*range(1, 61), TABLE_LIMIT + 1]:
        assert worst_coverage(n, keep, other, confidence) >= confidence - ROUNDING, n


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
@pytest.mark.parametrize(("flip_probability", "k"), MECHANISMS)
def test_every_count_has_an_interval(flip_probability, k, confidence):
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    for n in (1, 2, 5, 12, 30, 60, TABLE_LIMIT, TABLE_LIMIT + 1, 1000):
        for low, high in every_interval(n, keep, other, confidence):
            assert 0.0 <= low <= high <= 1.0


@pytest.mark.parametrize(("flip_probability", "k"), [(0.25, 2), (0.1, 4), (0.4, 3), (0.25, 12)])
@pytest.mark.parametrize("n", [7, 40, 61, TABLE_LIMIT])
def test_intervals_equal_a_brute_force_likelihood_ratio_ordering(flip_probability, k, n):
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    expected = feldman_cousins_table(n, keep, other, 0.95)
    for c in range(n + 1):
        assert exact_interval(c, n, keep, other, 0.95) == expected[c], c


@pytest.mark.parametrize(("flip_probability", "k"), [(0.25, 2), (0.1, 4), (0.4, 3)])
def test_above_the_table_intervals_are_equal_tails_with_the_bounds_keeping_their_tails(
    flip_probability, k
):
    n = TABLE_LIMIT + 37
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    plain = equal_tailed_table(n, keep, other, 0.95)
    expected = equal_tailed_table(n, keep, other, 0.95, bounds=True)
    assert None in plain  # equal tails alone leave counts without an interval here ...
    for c in range(n + 1):
        assert exact_interval(c, n, keep, other, 0.95) == expected[c], c
        # ... and only those change: they get a bound alone.
        assert plain[c] in (expected[c], None)
        assert plain[c] is not None or expected[c] in ((0.0, 0.0), (1.0, 1.0))


def test_the_lowest_and_highest_counts_get_the_bound_they_lie_beyond_at_any_size():
    """Counts below the outer tail of t = 0 (which once had no interval): the single point 0;
    likewise above t = n. Checked at sizes for each of the three constructions."""
    keep, other = RandomizedResponse(0.25).probabilities
    for n in (40, TABLE_LIMIT + 1, 1000, EXACT_LIMIT, 50_000):
        assert exact_interval(0, n, keep, other, 0.95)[0] == 0.0
        assert exact_interval(n, n, keep, other, 0.95)[1] == 1.0
        # Far beyond both: the bound alone.
        low_count = max(0, round(n * other - 8 * math.sqrt(n * other * (1 - other))) - 1)
        if n > 100:
            assert exact_interval(low_count, n, keep, other, 0.95) == (0.0, 0.0)
            assert exact_interval(n - low_count, n, keep, other, 0.95) == (1.0, 1.0)


@pytest.mark.parametrize("n", [1000, 20_000, 50_000])
@pytest.mark.parametrize(("flip_probability", "k"), [(0.25, 2), (0.2, 4)])
def test_no_count_is_without_an_interval_at_many_answers(n, flip_probability, k):
    """Every count would cost seconds at 20,000: all counts up to 2,000 past the mean of t = 0
    and from 2,000 before that of t = n (where the bounds meet their outer tails), every 97th
    count between."""
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    low_side = range(0, min(n, round(n * other) + 2000))
    high_side = range(max(0, round(n * keep) - 2000), n + 1)
    middle = range(0, n + 1, 97)
    previous = {}
    for c in sorted({*low_side, *high_side, *middle}):
        low, high = exact_interval(c, n, keep, other, 0.95)
        assert 0.0 <= low <= high <= 1.0, c
        # More reports never move the interval down.
        assert low >= previous.get("low", 0.0) and high >= previous.get("high", 0.0), c
        previous = {"low": low, "high": high}


def test_the_expected_width_at_40_is_narrower_than_equal_tails():
    """The issue's figure: n = 40, p = 0.25, 95%, true share 0.3: 0.486 against the equal-tailed
    construction's 0.517 (brute force here)."""
    keep, other = RandomizedResponse(0.25).probabilities
    width = 2 * privacy.exact.expected_exact_half_width(40, 0.3, keep, other, 0.95)
    equal_tails = brute_force_expected_width(equal_tailed_table, 40, 0.3, keep, other)
    assert equal_tails == pytest.approx(0.5170, abs=5e-5)
    assert width == pytest.approx(0.4864, abs=5e-5)
    assert width < equal_tails


@pytest.mark.parametrize(
    ("flip_probability", "k"), [(0.1, 2), (0.25, 2), (0.25, 3), (0.4, 4), (0.25, 12)]
)
@pytest.mark.parametrize("n", [20, 40, 100, TABLE_LIMIT])
def test_narrower_on_average_than_equal_tails(flip_probability, k, n):
    """Against equal tails made never empty (the bounds keeping their outer tails): narrower
    averaged over every true t (2-8% here), never wider for a true share from 10% to 90%, and
    at most 2.5% wider at the very bounds, where t = 0 spends all of alpha on one tail (2.1% at
    worst among these, at n = 200, p = 0.25)."""
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    ordered = np.array([high - low for low, high in every_interval(n, keep, other, 0.95)])
    equal = np.array([hi - lo for lo, hi in equal_tailed_table(n, keep, other, 0.95, True)])
    laws = np.array([count_law(n, t, keep, other) for t in range(n + 1)])
    ordered_widths, equal_widths = laws @ ordered, laws @ equal
    assert ordered_widths.mean() < equal_widths.mean()
    assert np.all(ordered_widths <= 1.025 * equal_widths)
    middle = slice(math.ceil(0.1 * n), math.floor(0.9 * n) + 1)
    assert np.all(ordered_widths[middle] <= equal_widths[middle] + ROUNDING)


def brute_force_expected_width(table, n: int, share: float, keep: float, other: float) -> float:
    intervals = table(n, keep, other, 0.95)
    law = count_law(n, round(share * n), keep, other)
    return sum(p * (iv[1] - iv[0]) for p, iv in zip(law, intervals, strict=True) if iv is not None)


@pytest.mark.parametrize(("n", "width"), [(30, 0.559), (100, 0.333), (300, 0.200)])
def test_expected_widths_at_p_one_quarter(n, width):
    """p = 0.25, 95%, true share 0.3: expected full widths 0.559 / 0.333 / 0.200 (equal tails:
    0.58 / 0.348 / 0.200), against Chebyshev's 1.41 / 0.78 / 0.45 (its full width)."""
    keep, other = RandomizedResponse(0.25).probabilities
    half = privacy.exact.expected_exact_half_width(n, 0.3, keep, other, 0.95)
    if n <= TABLE_LIMIT:  # the brute force is O(n^2) laws: kept to the table's sizes
        brute = brute_force_expected_width(feldman_cousins_table, n, 0.3, keep, other)
        assert 2 * half == pytest.approx(brute, 1e-9)
    assert 2 * half == pytest.approx(width, abs=0.0005)
    chebyshev = RandomizedResponse(0.25).chebyshev_half_width(n, 0.95)
    assert 2 * chebyshev == pytest.approx({30: 1.414, 100: 0.775, 300: 0.447}[n], abs=0.001)


def test_the_chebyshev_figures_are_unchanged():
    mechanism = RandomizedResponse(0.25)
    (no, yes) = mechanism.estimate([12, 28], 0.95)
    old = privacy.estimates.estimate_proportion(
        28, 40, privacy.browser_flip_probability(0.25), 0.95
    )
    assert (yes.estimate, yes.ci_low, yes.ci_high, yes.half_width) == (
        old.estimate,
        old.ci_low,
        old.ci_high,
        old.half_width,
    )
    assert yes.half_width == pytest.approx(math.sqrt(0.75 * 0.25 / (40 * 0.05)) / 0.5)
    assert no.estimate == pytest.approx(1 - yes.estimate)


def test_lopsided_counts_get_a_range_at_the_bound_and_chebyshev_still_flags_them():
    keep, other = RandomizedResponse(0.25).probabilities
    # 100 "yes" of 100: only a share at the very top explains it.
    assert exact_interval(100, 100, keep, other, 0.95) == (0.99, 1.0)
    (no, yes) = RandomizedResponse(0.25).estimate([0, 100])
    assert (yes.exact_low, yes.exact_high) == (0.99, 1.0)
    assert (no.exact_low, no.exact_high) == (0.0, 0.01)
    # The estimate 1.5 lies further above 1 than Chebyshev's half-width 0.387 at 95%: the flag
    # stands on Chebyshev alone now, and still says so ...
    assert not yes.consistent_with_randomization
    # ... but not at 99%, where that half-width (0.866) reaches back into [0, 1].
    (no, yes) = RandomizedResponse(0.25).estimate([0, 100], 0.99)
    assert yes.consistent_with_randomization and yes.exact_high == 1.0


def test_one_answer():
    keep, other = RandomizedResponse(0.25).probabilities
    assert exact_interval(1, 1, keep, other, 0.95) == (0.0, 1.0)
    assert exact_interval(0, 1, keep, other, 0.95) == (0.0, 1.0)


# --------------------------------------------------------------------------- many answers


@pytest.mark.parametrize(("flip_probability", "k"), [(0.25, 2), (0.2, 4)])
def test_the_large_n_bound_covers_and_is_close_to_exact(flip_probability, k):
    n = 2 * EXACT_LIMIT
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    assert not uses_exact_law(n, keep, other, 0.95)
    for t in (0, n // 10, n // 2, n - 7, n):
        law_first, law = 0, count_law(n, t, keep, other)
        likely = np.nonzero(law > 1e-14)[0]
        covered = 0.0
        for c in likely:
            interval = exact_interval(int(c) + law_first, n, keep, other, 0.95)
            if interval is not None and interval[0] <= t / n <= interval[1]:
                covered += law[c]
        # The mass left out (counts below 1e-14 each) is below 1e-9 in all.
        assert covered >= 0.95 - ROUNDING, (t, covered)
    # Against the exact law at the same n (forced): a few percent wider; with several options
    # (whose two report variances differ) up to 8% here, as the Berry-Esseen term is taken at
    # its worst over t.
    middle = round(n * (0.3 * keep + 0.7 * other))
    bound = exact_interval(middle, n, keep, other, 0.95)
    law_only = _exact_by_law(middle, n, keep, other, 0.95)
    assert bound[0] <= law_only[0] and law_only[1] <= bound[1]
    assert (bound[1] - bound[0]) <= 1.10 * (law_only[1] - law_only[0])


def _exact_by_law(count, n, keep, other, confidence):
    from survey_app.privacy import exact

    saved = exact.EXACT_LIMIT
    exact.EXACT_LIMIT = 10**9
    try:
        exact.exact_interval.cache_clear()
        return exact.exact_interval(count, n, keep, other, confidence)
    finally:
        exact.EXACT_LIMIT = saved
        exact.exact_interval.cache_clear()


def test_a_million_answers_is_fast_enough_to_be_closed_form():
    keep, other = RandomizedResponse(0.25).probabilities
    assert not uses_exact_law(10**6, keep, other, 0.95)
    low, high = exact_interval(400_000, 10**6, keep, other, 0.95)
    assert low < 0.3 < high and high - low < 0.004


# --------------------------------------------------------------------------- the type


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0.5, 2), "flip_probability must be in"),
        ((0.25, 1), "k (the number of options)"),
        ((float("nan"), 2), "flip_probability must be finite"),
        ((0.25, True), "k (the number of options)"),
    ],
)
def test_bad_parameters_are_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=re_escape(message)):
        RandomizedResponse(*arguments)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_yes_no_is_two_options_and_epsilon_is_stated_from_p():
    mechanism = RandomizedResponse(0.25)
    assert mechanism.options == 2
    assert mechanism.probabilities == (0.75, 0.25)
    assert mechanism.epsilon == pytest.approx(math.log(3))
    choice = RandomizedResponse(0.25, 4)
    keep, other = choice.probabilities
    assert keep / other <= 3 + 1e-12  # never above e^epsilon
    assert choice.epsilon == mechanism.epsilon


def test_estimates_carry_both_intervals_and_the_method():
    (a, b, c) = RandomizedResponse(0.2, 3).estimate([10, 25, 15], 0.9)
    for estimate in (a, b, c):
        assert estimate.exact_method == "exact law"
        assert estimate.ci_low <= estimate.exact_low <= estimate.exact_high <= estimate.ci_high
    big = RandomizedResponse(0.2, 3).estimate([100_000, 250_000, 150_000], 0.9)
    assert {e.exact_method for e in big} == {"Berry-Esseen bound"}


def test_counts_must_match_the_options():
    with pytest.raises(ValueError, match="3 entries"):
        RandomizedResponse(0.25, 3).estimate([1, 2])


# --------------------------------------------------------------------------- planning


def test_the_planned_margin_is_the_widest_expected_half_width():
    mechanism = RandomizedResponse(0.25)
    keep, other = mechanism.probabilities
    expected = max(
        privacy.exact.expected_exact_half_width(40, share, keep, other, 0.95)
        for share in (0.3, 0.5, 0.7)
    )
    assert mechanism.planned_half_width(40) == expected
    assert mechanism.planned_half_width(40) < mechanism.chebyshev_half_width(40) / 2


def test_respondents_for_a_margin_reach_it():
    mechanism = RandomizedResponse(0.25)
    needed = mechanism.respondents_for(0.10)
    assert mechanism.planned_half_width(needed) <= 0.10
    assert mechanism.planned_half_width(max(1, needed - 40)) > 0.10
    assert needed < mechanism.respondents_for_chebyshev(0.10) / 3


def test_suggested_flip_probability_reaches_the_margin_within_the_floor():
    p = privacy.suggest_flip_probability(0.15, 100, [2, 3])
    assert privacy.MIN_SUGGESTED_FLIP_PROBABILITY <= p <= privacy.MAX_SUGGESTED_FLIP_PROBABILITY
    assert round(p, 2) == p
    for k in (2, 3):
        assert RandomizedResponse(p, k)._typical_half_width(100, 0.95) <= 0.15
    # A margin nothing can reach at this size, even at the floor of privacy:
    assert privacy.suggest_flip_probability(0.01, 20, [2]) is None
    # A margin any p reaches: the most private suggestion allowed.
    assert privacy.suggest_flip_probability(0.5, 10_000, [2]) == 0.45


def test_suggested_flip_probability_is_the_largest_hundredth_that_reaches():
    # The next hundredth up is less private than allowed for this margin: some question misses.
    p = privacy.suggest_flip_probability(0.15, 100, [2, 3])
    assert p < privacy.MAX_SUGGESTED_FLIP_PROBABILITY
    assert any(
        RandomizedResponse(round(p + 0.01, 2), k)._typical_half_width(100, 0.95) > 0.15
        for k in (2, 3)
    )
