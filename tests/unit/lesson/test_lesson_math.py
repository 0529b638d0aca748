"""The lesson's figures (survey_app.privacy.lesson), each worked out again here by hand or from
first principles, never by calling the function under test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from survey_app import privacy
from survey_app.privacy import lesson


def test_the_coin_of_the_notes_at_a_quarter():
    coin = lesson.coin(0.25)
    assert coin.epsilon == pytest.approx(math.log(3))
    assert coin.odds == pytest.approx(3.0)
    assert coin.keep_probability == 0.75
    assert coin.warner_q == 0.5  # Warner's second coin: q = 2p
    assert coin.browser_flip_probability == math.ceil(0.25 * 2**32) / 2**32


@pytest.mark.parametrize("p", lesson.TRADE_OFF_FLIP_PROBABILITIES)
def test_epsilon_for_each_flip_probability_of_the_control(p):
    assert lesson.coin(p).epsilon == pytest.approx(math.log((1 - p) / p), rel=1e-12)


def test_a_choice_question_keeps_three_quarters_at_ln_9_with_four_options():
    # Flip probability 0.1 is epsilon = ln 9; k-RR with k = 4 keeps with 9 / 12.
    coin = lesson.choice_coin(0.1, 4)
    assert coin.keep_probability == pytest.approx(0.75)
    assert coin.other_probability == pytest.approx(1 / 12)
    assert coin.odds == pytest.approx(9.0)


def test_the_estimate_points_the_right_way():
    """Everyone truly answering "yes" sends 75% "yes" at p = 0.25: the estimate is 1, not 0
    (the notes' Claim 3 is written for the probability of keeping)."""
    assert lesson.unbiased_estimate(750, 1000, 0.25) == pytest.approx(1.0)
    assert lesson.unbiased_estimate(250, 1000, 0.25) == pytest.approx(0.0)
    working = lesson.estimate_working(14, 40, 0.25)
    assert working.raw == 0.35
    assert working.numerator == pytest.approx(0.1)
    assert working.denominator == 0.5
    assert working.estimate == pytest.approx(0.2)


def test_an_options_estimate_points_the_right_way():
    """k = 3 at p = 0.25 (eps = ln 3): P = 3 / 5, Q = 1 / 5. A class all holding this option
    sends it 60% of the time: the estimate is 1; one holding none sends it 20%: 0."""
    assert lesson.option_working(24, 40, 0.25, 3).estimate == pytest.approx(1.0)
    assert lesson.option_working(8, 40, 0.25, 3).estimate == pytest.approx(0.0)
    working = lesson.option_working(10, 40, 0.25, 3)
    assert working.raw == 0.25
    assert working.numerator == pytest.approx(0.05) and working.denominator == pytest.approx(0.4)
    assert working.estimate == pytest.approx(0.125)


def test_theorem_5_of_the_notes():
    # sqrt(1 / 0.05) / (2 (1 - 0.5) sqrt(40)) = sqrt(20) / sqrt(40) = 1 / sqrt(2).
    assert lesson.notes_chebyshev_half_width(40, 0.25, 0.95) == pytest.approx(1 / math.sqrt(2))
    # Wider than the app's own Chebyshev bound, which uses the exact variance p (1 - p) < 1/4.
    app = privacy.RandomizedResponse(0.25).chebyshev_half_width(40, 0.95)
    assert lesson.notes_chebyshev_half_width(40, 0.25, 0.95) > app
    with pytest.raises(ValueError, match="n must be at least 1"):
        lesson.notes_chebyshev_half_width(0, 0.25, 0.95)


def test_theorem_5_for_one_option_of_a_choice():
    # k = 3 at p = 0.25 (eps = ln 3): P = 3 / 5, Q = 1 / 5, so P - Q = 0.4 replaces 1 - 2p.
    expected = math.sqrt(1 / 0.05) / (2 * 0.4 * math.sqrt(40))
    assert lesson.notes_chebyshev_half_width(40, 0.25, 0.95, 3) == pytest.approx(expected)
    # With two options it is the yes/no bound.
    assert lesson.notes_chebyshev_half_width(40, 0.25, 0.95, 2) == pytest.approx(1 / math.sqrt(2))


def test_the_sureness_takes_the_dashboards_ranges_as_they_are():
    estimate = privacy.RandomizedResponse(0.25).estimate([26, 14])[1]
    sure = lesson.sureness(estimate, 0.25)
    assert sure.exact_range == (estimate.exact_low, estimate.exact_high)
    assert sure.live_range == (estimate.live_low, estimate.live_high)
    assert sure.chebyshev_range == (estimate.ci_low, estimate.ci_high)
    # 0.2 -/+ 0.7071, clipped to [0, 1].
    assert sure.notes_range == (0.0, pytest.approx(0.2 + 1 / math.sqrt(2)))


def law_of_the_estimate(n: int, true_yes: int, p: float) -> tuple[float, float]:
    """Mean and standard deviation of the debiased estimate, from the browser's p', summed
    over each phone's Bernoulli report."""
    flip = privacy.browser_flip_probability(p)
    keep = 1 - flip
    mean_count = true_yes * keep + (n - true_yes) * flip
    variance = true_yes * keep * flip + (n - true_yes) * flip * keep
    scale = n * (keep - flip)
    return (mean_count / n - flip) / (keep - flip), math.sqrt(variance) / scale


@pytest.mark.parametrize(("share", "n", "p"), [(0.2, 40, 0.25), (0.55, 300, 0.3), (1.3, 60, 0.1)])
def test_reruns_follow_the_law_of_the_estimate(share, n, p):
    runs = lesson.reruns(share, n, p)
    true_yes = round(min(1.0, share) * n)
    mean, std = law_of_the_estimate(n, true_yes, p)
    assert runs.true_yes == true_yes and runs.n == n
    assert runs.expected_mean == pytest.approx(mean)
    assert runs.expected_std == pytest.approx(std)
    assert len(runs.estimates) == lesson.RERUNS == int(runs.counts.sum())
    # The mean of 1,000 draws is within 4 standard errors (std / sqrt(1000)) of the law's mean
    # but for a chance below 1e-4; the sample deviation of 1,000 draws has a relative standard
    # error of about 1 / sqrt(2 * 999) = 2.2%, so 10% is more than 4 of them. The seed is fixed,
    # so the test is reproducible; the tolerances say it would pass for almost any seed.
    assert abs(runs.mean - mean) <= 4 * std / math.sqrt(lesson.RERUNS)
    assert runs.std == pytest.approx(std, rel=0.10)
    # Every estimate is a whole noisy count debiased: its bar holds it.
    assert np.all(np.diff(runs.edges) > 0)
    assert runs.edges[0] <= runs.estimates.min() and runs.estimates.max() <= runs.edges[-1]


def test_reruns_are_seeded_and_the_seed_matters():
    first, again = lesson.reruns(0.3, 40, 0.25), lesson.reruns(0.3, 40, 0.25)
    assert np.array_equal(first.estimates, again.estimates)
    other = lesson.reruns(0.3, 40, 0.25, seed=lesson.RERUN_SEED + 1)
    assert not np.array_equal(first.estimates, other.estimates)
    low, high = first.middle(0.95)
    inside = np.mean((first.estimates >= low) & (first.estimates <= high))
    assert low < high and inside >= 0.95


def test_the_posterior_by_bayes_rule():
    after = lesson.posterior(0.3, 0.25)
    # 0.3 x 0.75 / (0.3 x 0.75 + 0.7 x 0.25) = 0.225 / 0.4.
    assert after.after_yes == pytest.approx(0.5625)
    assert after.yes_kept == pytest.approx(0.225) and after.no_flipped == pytest.approx(0.175)
    # 0.3 x 0.25 / (0.3 x 0.25 + 0.7 x 0.75) = 0.075 / 0.6.
    assert after.after_no == pytest.approx(0.125)
    # Ceiling: 3 x (3 / 7) = 9 / 7 odds, 9 / 16; floor: (1 / 3) x (3 / 7) = 1 / 7 odds, 1 / 8.
    assert after.prior_odds == pytest.approx(3 / 7) and after.ceiling_odds == pytest.approx(9 / 7)
    assert after.ceiling == pytest.approx(9 / 16)
    assert after.floor == pytest.approx(1 / 8)
    assert lesson.posterior(0.0, 0.25).after_yes == 0.0
    assert lesson.posterior(1.0, 0.25).ceiling == 1.0


def expected_exact_half_width_by_hand(n: int, share: float, p: float) -> float:
    """The average half-width of the dashboard's exact range over the law of the noisy count,
    the law built by convolving the two binomials with SciPy."""
    flip = privacy.browser_flip_probability(p)
    true_yes = round(share * n)
    law = np.convolve(
        stats.binom.pmf(np.arange(true_yes + 1), true_yes, 1 - flip),
        stats.binom.pmf(np.arange(n - true_yes + 1), n - true_yes, flip),
    )
    total = 0.0
    for count, weight in enumerate(law):
        estimate = privacy.RandomizedResponse(p).estimate([n - count, count])[1]
        total += weight * (estimate.exact_high - estimate.exact_low) / 2
    return total / law.sum()


def test_the_trade_off_over_p():
    rows = lesson.trade_off(40, 0.2, 0.27)
    ps = [row.flip_probability for row in rows]
    assert ps == sorted([*lesson.TRADE_OFF_FLIP_PROBABILITIES, 0.27])
    assert [row.flip_probability for row in rows if row.is_current] == [0.27]
    for row in rows:
        p = row.flip_probability
        flip = privacy.browser_flip_probability(p)
        assert row.epsilon == pytest.approx(math.log((1 - p) / p))
        assert row.chebyshev_half_width == pytest.approx(
            math.sqrt(flip * (1 - flip) / (40 * 0.05)) / (1 - 2 * flip)
        )
    for row in rows[::4]:  # three of them: each average costs a few dozen ranges
        assert row.exact_half_width == pytest.approx(
            expected_exact_half_width_by_hand(40, 0.2, row.flip_probability), rel=1e-9
        )
    # More flips, more privacy, wider ranges.
    pairs = list(zip(rows, rows[1:], strict=False))
    assert all(a.epsilon > b.epsilon for a, b in pairs)
    assert all(a.exact_half_width <= b.exact_half_width + 1e-12 for a, b in pairs)


def test_budgets_add_up_and_groups_multiply():
    eps = math.log(3)
    budget = lesson.budgets([eps] * 4)
    assert budget.total == pytest.approx(4 * eps)
    assert budget.total_odds == pytest.approx(3**4)
    assert budget.groups == (
        (2, pytest.approx(2 * eps), pytest.approx(8 * eps)),
        (5, pytest.approx(5 * eps), pytest.approx(20 * eps)),
        (10, pytest.approx(10 * eps), pytest.approx(40 * eps)),
    )
