"""Exact values and parameter checks of survey_app.privacy (issue 2).

Every number below is computed by hand in the test from the formulas in the module's docstrings,
so a test fails if the code drifts from its contract.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import survey_app.privacy as privacy

LN3 = math.log(3)
LN9 = math.log(9)
WORDS = 2**32


# --------------------------------------------------------------------------- parameters


def test_flip_probability_one_quarter_is_epsilon_ln3():
    # (1 - 1/4) / (1/4) = 3
    assert privacy.epsilon_from_flip_probability(0.25) == pytest.approx(LN3, rel=1e-15)


def test_epsilon_ln3_is_flip_probability_one_quarter():
    # 1 / (1 + e^ln3) = 1 / 4
    assert privacy.flip_probability_from_epsilon(LN3) == pytest.approx(0.25, rel=1e-15)


@pytest.mark.parametrize("flip_probability", [1e-6, 0.01, 0.1, 0.25, 1 / 3, 0.4, 0.499])
def test_flip_probability_and_epsilon_are_inverse(flip_probability):
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    assert epsilon == pytest.approx(math.log((1 - flip_probability) / flip_probability))
    assert privacy.flip_probability_from_epsilon(epsilon) == pytest.approx(
        flip_probability, rel=1e-12
    )


def test_four_options_at_ln9_keep_three_quarters():
    keep, other = privacy.keep_probabilities(LN9, 4)
    # P = 9 / (9 + 3) = 3/4, Q = 1 / (9 + 3) = 1/12
    assert keep == pytest.approx(0.75, rel=1e-15)
    assert other == pytest.approx(1 / 12, rel=1e-15)
    assert keep + 3 * other == pytest.approx(1.0, rel=1e-15)
    assert keep / other == pytest.approx(9.0, rel=1e-14)


@pytest.mark.parametrize("flip_probability", [0.1, 0.25, 0.4])
def test_two_options_are_yes_no(flip_probability):
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    keep, other = privacy.keep_probabilities(epsilon, 2)
    assert keep == pytest.approx(1 - flip_probability, rel=1e-12)
    assert other == pytest.approx(flip_probability, rel=1e-12)


def test_keep_probabilities_do_not_overflow_for_a_large_epsilon():
    keep, other = privacy.keep_probabilities(1000.0, 3)
    assert keep == 1.0
    assert other == 0.0


def test_total_epsilon_sums_the_questions():
    assert privacy.total_epsilon([LN3, LN9, 0.5]) == pytest.approx(LN3 + LN9 + 0.5)
    # ln 3 + ln 9 = ln 27
    assert privacy.total_epsilon([LN3, LN9]) == pytest.approx(math.log(27))
    assert privacy.total_epsilon([]) == 0.0


def test_deniability_with_an_even_prior_is_the_keep_probability():
    # 0.5 * 0.75 / (0.5 * 0.75 + 0.5 * 0.25) = 0.75
    assert privacy.deniability(0.25) == pytest.approx(0.75, rel=1e-15)


def test_deniability_with_a_skewed_prior():
    # 0.2 * 0.9 / (0.2 * 0.9 + 0.8 * 0.1) = 0.18 / 0.26
    assert privacy.deniability(0.1, prior=0.2) == pytest.approx(0.18 / 0.26, rel=1e-12)


# --------------------------------------------------------------------------- the browser's draws


def test_flip_threshold_of_one_quarter_is_exact():
    # 0.25 * 2^32 = 2^30 exactly: nothing to round
    assert privacy.flip_threshold(0.25) == 2**30
    assert privacy.browser_flip_probability(0.25) == 0.25


def test_flip_threshold_rounds_up_never_to_nearest():
    # 2^32 / 3 = 1431655765.33...: rounding to nearest would give 1431655765, which flips less
    # often than asked and raises epsilon; rounding up gives 1431655766.
    assert math.floor(WORDS / 3 + 0.5) == 1431655765
    assert privacy.flip_threshold(1 / 3) == 1431655766
    # 0.1 * 2^32 = 429496729.6 -> 429496730; 1e-6 * 2^32 = 4294.967296 -> 4295
    assert privacy.flip_threshold(0.1) == 429496730
    assert privacy.flip_threshold(1e-6) == 4295
    assert privacy.browser_flip_probability(1e-6) == 4295 / WORDS
    # Just above a whole word still rounds up: 2^30 + 2^-22 words -> 2^30 + 1
    assert privacy.flip_threshold(0.25 + 2**-54) == 2**30 + 1


def test_keep_thresholds_by_hand():
    # k = 3, p = 1/4 (eps = ln 3): P = (3/4) / (5/4) = 3/5, and T = 2^30 exactly, so
    # K = floor(2^32 * 3 * 2^30 / (2^32 + 2^30)) = floor(0.6 * 2^32) = floor(2576980377.6)
    assert privacy.keep_threshold(0.25, 3) == 2576980377
    keep, other = privacy.browser_keep_probabilities(0.25, 3)
    assert keep == 2576980377 / WORDS
    assert other == (1 - 2576980377 / WORDS) / 2
    # k = 4, p = 1/4: P = (3/4) / (6/4) = 1/2 exactly
    assert privacy.keep_threshold(0.25, 4) == 2**31
    # k = 4, p = 0.1 (eps = ln 9): P = 0.9 / 1.2 = 3/4, taken at p' = T / 2^32 with
    # T = 0.1 * 2^32 + 0.4: 2^32 (0.9 * 2^32 - 0.4) / (1.2 * 2^32 + 0.8) = 0.75 * 2^32 - 5/6 + tiny
    t = 429496730
    assert privacy.keep_threshold(0.1, 4) == WORDS * (WORDS - t) // (WORDS + 2 * t) == 3221225471
    assert 0.75 * WORDS == 3221225472


@pytest.mark.parametrize("flip_probability", [1e-6, 0.1, 0.25, 1 / 3, 0.499999])
def test_two_options_keep_exactly_when_yes_no_does_not_flip(flip_probability):
    flips = privacy.flip_threshold(flip_probability)
    assert privacy.keep_threshold(flip_probability, 2) == WORDS - flips
    assert privacy.browser_keep_probabilities(flip_probability, 2) == (
        1 - flips / WORDS,
        flips / WORDS,
    )


# The grid of the epsilon checks: the survey's bounds (surveys.MIN/MAX_FLIP_PROBABILITY), values
# just inside them, round values, values whose scaling to 2^32 words has a fractional part
# just above or below a whole word, and 200 spread over the whole range.
EPSILON_GRID = sorted(
    {
        0.000001,
        0.0000010001,
        0.00001,
        0.001,
        0.01,
        0.05,
        0.1,
        0.123456789,
        0.2,
        0.25,
        0.25 + 2**-54,
        0.3,
        1 / 3,
        0.4,
        0.45,
        0.49,
        0.4999,
        0.49999899,
        0.499999,
        *np.random.default_rng(20_241_010).uniform(0.000001, 0.499999, 200).tolist(),
    }
)
OPTION_COUNTS = range(2, 13)


def test_the_browser_never_spends_more_epsilon_than_stated():
    """Exactly, in rationals: (k - 1) K / (2^32 - K) <= (1 - p) / p for every p and k."""
    for p in EPSILON_GRID:
        stated_odds = (1 - Fraction(p)) / Fraction(p)  # Fraction(p): the float's exact value
        stated = privacy.epsilon_from_flip_probability(p)
        flips = privacy.flip_threshold(p)
        assert Fraction(flips, WORDS) >= Fraction(p), p
        for k in OPTION_COUNTS:
            keep = privacy.keep_threshold(p, k)
            assert Fraction((k - 1) * keep, WORDS - keep) <= stated_odds, (p, k)
            # The floats agree to rounding; an epsilon that equals the stated one exactly
            # (p = 1/4, k = 2) may come out one unit in the last place either side.
            real = privacy.browser_epsilon(p, k)
            assert real <= stated * (1 + 1e-12), (p, k)
            # And it gives up almost nothing: rounding p by at most one word of 2^32 moves
            # epsilon by at most 2^-32 / (p (1 - p)) (its derivative), about 2.4e-4 at the
            # smallest p; rounding K down by under one word moves it by far less.
            assert stated - real <= 2 * 2**-32 / (p * (1 - p)) + 1e-9 * k, (p, k)


def test_rounding_to_nearest_would_have_understated_epsilon():
    """The check above has teeth: round(p * 2^32), as the browser once did, exceeds the stated
    epsilon wherever p * 2^32 has a fractional part of one half or more."""
    p = 0.4  # 0.4 * 2^32 = 1717986918.4 rounds down to nearest, up to 1717986919
    nearest = round(p * WORDS)
    assert nearest == 1717986918
    assert Fraction(WORDS - nearest, nearest) > (1 - Fraction(p)) / Fraction(p)
    assert privacy.flip_threshold(p) == 1717986919


def test_browser_epsilon_of_one_quarter_and_four_options_is_ln3():
    # k = 4, p = 1/4: K = 2^31, so P' = 1/2, Q' = 1/6 and P' / Q' = 3 exactly
    assert privacy.browser_epsilon(0.25, 4) == pytest.approx(LN3, rel=1e-15)
    assert privacy.browser_epsilon(0.25) == pytest.approx(LN3, rel=1e-15)


def test_browser_frequencies_use_the_browsers_probabilities():
    # k = 3, p = 1/4: P' = 2576980377 / 2^32, Q' = (1 - P') / 2
    keep = 2576980377 / WORDS
    other = (1 - keep) / 2
    counts = [500, 300, 200]
    results = privacy.estimates._estimate_browser_frequencies(counts, 0.25, 0.9)
    half_width = math.sqrt(keep * (1 - keep) / (1000 * 0.1)) / (keep - other)
    for count, result in zip(counts, results, strict=True):
        assert result.estimate == pytest.approx((count / 1000 - other) / (keep - other), rel=1e-15)
        assert result.half_width == pytest.approx(half_width, rel=1e-15)
        assert result.epsilon == privacy.browser_epsilon(0.25, 3)
    # Not the textbook P = 0.6: the two differ in the tenth decimal.
    textbook = privacy.estimates._estimate_frequencies(counts, LN3, 0.9)
    assert results[0].estimate != textbook[0].estimate
    assert results[0].estimate == pytest.approx(textbook[0].estimate, rel=1e-9)


@pytest.mark.parametrize("flip_probability", [1e-6, 0.1, 0.25, 1 / 3, 0.499999])
@pytest.mark.parametrize("noisy_yes", [0, 37, 100])
def test_browser_frequencies_of_yes_no_are_the_yes_no_estimate(flip_probability, noisy_yes):
    no, yes = privacy.estimates._estimate_browser_frequencies(
        [100 - noisy_yes, noisy_yes], flip_probability
    )
    expected = privacy.estimates._estimate_yes_no(
        noisy_yes, 100, privacy.browser_flip_probability(flip_probability)
    )
    for result, wanted in zip((no, yes), expected, strict=True):
        assert (result.estimate, result.ci_low, result.ci_high, result.half_width) == (
            wanted.estimate,
            wanted.ci_low,
            wanted.ci_high,
            wanted.half_width,
        )


def test_browser_frequencies_refuse_a_flip_probability_that_tells_nothing_apart():
    # p = 1/2 - 2^-33 rounds up to T = 2^31: p' = 1/2, the browser's answers say nothing
    with pytest.raises(ValueError, match="^flip_probability "):
        privacy.estimates._estimate_browser_frequencies([3, 4], 0.5 - 2**-33)


# --------------------------------------------------------------------------- yes/no estimates


def test_hand_computed_interval_for_a_thousand_answers():
    n, flip_probability, confidence = 1000, 0.25, 0.95
    delta = 1 - confidence
    half_width = math.sqrt(0.25 * 0.75 / (n * delta)) / (1 - 2 * 0.25)
    assert half_width == pytest.approx(0.12247448713915887, rel=1e-12)

    result = privacy.estimates.estimate_proportion(625, n, flip_probability, confidence)

    # (625 / 1000 - 0.25) / (1 - 0.5) = 0.375 / 0.5 = 0.75
    assert result.estimate == pytest.approx(0.75, rel=1e-15)
    assert result.half_width == pytest.approx(half_width, rel=1e-12)
    assert result.ci_low == pytest.approx(0.75 - half_width, rel=1e-12)
    assert result.ci_high == pytest.approx(0.75 + half_width, rel=1e-12)
    assert result.ci_low == pytest.approx(0.6275255128608411, rel=1e-12)
    assert result.ci_high == pytest.approx(0.8724744871391589, rel=1e-12)
    assert (result.n, result.noisy_count) == (1000, 625)
    assert result.noisy_share == 0.625
    assert result.confidence == confidence
    assert result.epsilon == pytest.approx(LN3)
    assert result.has_data
    assert not result.outside_unit_interval


def test_half_width_for_yes_no_matches_the_estimate():
    result = privacy.estimates.estimate_proportion(300, 1000, 0.25, 0.95)
    assert privacy.estimates._half_width_for_yes_no(1000, 0.25, 0.95) == result.half_width


def test_everyone_yes_estimates_about_one_not_zero():
    # The convention trap: (mean - (1 - p)) / (2p - 1) would give about 0 here.
    rng = np.random.default_rng(20240602)
    noisy = privacy.estimates._randomize_bits(np.ones(10_000, dtype=np.int8), 0.25, rng)
    result = privacy.estimates.estimate_proportion(int(noisy.sum()), noisy.size, 0.25)
    # The mean is about 1 - p = 0.75; the estimate's std is sqrt(p(1-p)/n)/(1-2p) ~ 0.0087,
    # so 0.05 is more than 5 standard deviations, and the seed is fixed.
    assert result.noisy_share == pytest.approx(0.75, abs=0.025)
    assert result.estimate == pytest.approx(1.0, abs=0.05)


def test_everyone_no_estimates_about_zero():
    rng = np.random.default_rng(20240603)
    noisy = privacy.estimates._randomize_bits(np.zeros(10_000, dtype=np.int8), 0.25, rng)
    result = privacy.estimates.estimate_proportion(int(noisy.sum()), noisy.size, 0.25)
    # Same tolerance argument as above: 0.05 is over 5 standard deviations of ~0.0087.
    assert result.estimate == pytest.approx(0.0, abs=0.05)


def test_randomize_bits_keeps_the_shape_and_only_flips():
    rng = np.random.default_rng(7)
    true_bits = np.array([[0, 1, 1], [1, 0, 0]])
    noisy = privacy.estimates._randomize_bits(true_bits, 0.25, rng)
    assert noisy.shape == (2, 3)
    assert noisy.dtype == np.int8
    assert set(np.unique(noisy)) <= {0, 1}


def test_estimate_yes_no_is_no_then_yes_and_sums_to_one():
    no, yes = privacy.estimates._estimate_yes_no(625, 1000, 0.25)
    assert yes.noisy_count == 625
    assert no.noisy_count == 375
    assert yes.estimate == pytest.approx(0.75)
    # (375 / 1000 - 0.25) / 0.5 = 0.25
    assert no.estimate == pytest.approx(0.25)
    assert no.estimate + yes.estimate == pytest.approx(1.0, rel=1e-15)
    assert no.half_width == yes.half_width
    assert no.ci_low == pytest.approx(1 - yes.ci_high)
    assert no.ci_high == pytest.approx(1 - yes.ci_low)


@pytest.mark.parametrize("noisy_yes", [0, 120, 481, 1000])
@pytest.mark.parametrize("flip_probability", [0.1, 0.25, 0.4])
def test_two_option_frequencies_equal_the_yes_no_estimate(noisy_yes, flip_probability):
    n = 1000
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    no, yes = privacy.estimates._estimate_frequencies([n - noisy_yes, noisy_yes], epsilon, 0.9)
    expected = privacy.estimates.estimate_proportion(noisy_yes, n, flip_probability, 0.9)
    assert yes.estimate == pytest.approx(expected.estimate, rel=1e-9, abs=1e-12)
    assert yes.half_width == pytest.approx(expected.half_width, rel=1e-9)
    assert yes.ci_low == pytest.approx(expected.ci_low, rel=1e-9, abs=1e-12)
    assert yes.ci_high == pytest.approx(expected.ci_high, rel=1e-9, abs=1e-12)
    assert no.estimate + yes.estimate == pytest.approx(1.0)


def test_hand_computed_frequencies_for_four_options():
    # k = 4, eps = ln 9: P = 3/4, Q = 1/12, P - Q = 2/3; n = 1200
    counts = [500, 300, 250, 150]
    results = privacy.estimates._estimate_frequencies(counts, LN9, 0.95)
    keep, other = 0.75, 1 / 12
    for count, result in zip(counts, results, strict=True):
        assert result.n == 1200
        assert result.estimate == pytest.approx((count / 1200 - other) / (keep - other))
    # 500 / 1200 = 5/12; (5/12 - 1/12) / (2/3) = 1/2
    assert results[0].estimate == pytest.approx(0.5)
    # max(P(1-P), Q(1-Q)) = max(3/16, 11/144) = 3/16
    half_width = math.sqrt((3 / 16) / (1200 * 0.05)) / (2 / 3)
    assert all(r.half_width == pytest.approx(half_width) for r in results)
    assert privacy.estimates._half_width_for_choices(1200, LN9, 4, 0.95) == pytest.approx(
        half_width
    )
    assert sum(r.estimate for r in results) == pytest.approx(1.0)


def test_estimate_frequencies_accepts_a_numpy_array():
    from_list = privacy.estimates._estimate_frequencies([3, 5, 9], LN3)
    from_array = privacy.estimates._estimate_frequencies(np.array([3, 5, 9]), LN3)
    assert [r.estimate for r in from_array] == [r.estimate for r in from_list]


# --------------------------------------------------------------------------- clipping


def test_estimate_above_one_is_kept_but_the_interval_is_clipped():
    # (1000 / 1000 - 0.25) / 0.5 = 1.5
    result = privacy.estimates.estimate_proportion(1000, 1000, 0.25)
    assert result.estimate == pytest.approx(1.5)
    assert result.outside_unit_interval
    assert result.clipped_estimate == 1.0
    assert 0.0 <= result.ci_low <= result.ci_high <= 1.0
    assert result.ci_high == 1.0


def test_estimate_below_zero_is_kept_but_the_interval_is_clipped():
    # (0 - 0.25) / 0.5 = -0.5
    result = privacy.estimates.estimate_proportion(0, 1000, 0.25)
    assert result.estimate == pytest.approx(-0.5)
    assert result.outside_unit_interval
    assert result.clipped_estimate == 0.0
    assert 0.0 <= result.ci_low <= result.ci_high <= 1.0
    assert result.ci_low == 0.0


def test_interval_near_the_edge_is_clipped_only_on_that_side():
    # (90 / 100 - 0.25) / 0.5 = 1.3 > 1, h = sqrt(0.1875 / 5) / 0.5 = 0.387...
    result = privacy.estimates.estimate_proportion(90, 100, 0.25)
    half_width = math.sqrt(0.1875 / (100 * 0.05)) / 0.5
    assert result.ci_low == pytest.approx(1.3 - half_width)
    assert result.ci_high == 1.0
    # (50 / 100 - 0.25) / 0.5 = 0.5; 0.5 +/- 0.387 fits: nothing clipped
    result = privacy.estimates.estimate_proportion(50, 100, 0.25)
    assert result.ci_low == pytest.approx(0.5 - half_width)
    assert result.ci_high == pytest.approx(0.5 + half_width)
    assert not result.outside_unit_interval


@pytest.mark.parametrize(("noisy_ones", "side"), [(1000, "above"), (0, "below")])
def test_an_estimate_beyond_its_half_width_outside_zero_one_is_not_consistent(noisy_ones, side):
    # Every answer the same: (1 - 0.25) / 0.5 = 1.5 or (0 - 0.25) / 0.5 = -0.5, and
    # h = sqrt(0.1875 / (1000 * 0.05)) / 0.5 = 0.122: the interval 1.5 -/+ 0.122 misses [0, 1],
    # and clipped it would be the single point 1 (or 0).
    result = privacy.estimates.estimate_proportion(noisy_ones, 1000, 0.25)
    assert result.half_width == pytest.approx(0.12247448713915887)
    assert result.ci_low == result.ci_high == (1.0 if side == "above" else 0.0)
    assert not result.consistent_with_randomization


def test_an_estimate_outside_zero_one_within_its_half_width_is_consistent():
    # (90 / 100 - 0.25) / 0.5 = 1.3, h = 0.387: the interval [0.913, 1.687] meets [0, 1]
    result = privacy.estimates.estimate_proportion(90, 100, 0.25)
    assert result.outside_unit_interval
    assert result.consistent_with_randomization


def test_consistency_at_the_edge_of_the_half_width():
    # n = 1000, p = 1/4, confidence 0.95: h = 0.12247; the estimate is 1 + h when the noisy
    # share is 0.25 + 0.5 (1 + h) = 0.81124. 811 "yes" give 1.122 (inside), 812 give 1.124.
    inside = privacy.estimates.estimate_proportion(811, 1000, 0.25)
    outside = privacy.estimates.estimate_proportion(812, 1000, 0.25)
    assert inside.estimate - inside.half_width <= 1.0 < outside.estimate - outside.half_width
    assert inside.consistent_with_randomization
    assert not outside.consistent_with_randomization


def test_no_answers_are_consistent():
    assert privacy.estimates.estimate_proportion(0, 0, 0.25).consistent_with_randomization


@pytest.mark.parametrize("noisy_ones", range(0, 1001, 50))
def test_every_interval_lies_in_the_unit_interval(noisy_ones):
    result = privacy.estimates.estimate_proportion(noisy_ones, 1000, 0.1, 0.5)
    assert 0.0 <= result.ci_low <= result.ci_high <= 1.0
    assert result.clipped_estimate == min(1.0, max(0.0, result.estimate))


# --------------------------------------------------------------------------- no answers


def test_no_answers_give_no_estimate():
    result = privacy.estimates.estimate_proportion(0, 0, 0.25)
    assert not result.has_data
    assert result.estimate is None
    assert result.ci_low is None
    assert result.ci_high is None
    assert result.half_width is None
    assert result.noisy_share is None
    assert result.clipped_estimate is None
    assert not result.outside_unit_interval
    assert result.epsilon == pytest.approx(LN3)


def test_no_answers_for_yes_no_and_choices():
    assert all(not r.has_data for r in privacy.estimates._estimate_yes_no(0, 0, 0.25))
    results = privacy.estimates._estimate_frequencies([0, 0, 0], LN3)
    assert len(results) == 3
    assert all(not r.has_data and r.estimate is None for r in results)


# --------------------------------------------------------------------------- planning


def test_required_sample_size_hand_value():
    # p(1-p) / (delta m^2 (1-2p)^2) = 0.1875 / (0.05 * 0.01 * 0.25) = 1500
    assert 0.1875 / (0.05 * 0.01 * 0.25) == pytest.approx(1500)
    assert privacy.estimates._required_sample_size(0.1, 0.25, 0.95) == 1500


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("flip_probability", [0.05, 0.1, 0.25, 0.4, 0.45])
@pytest.mark.parametrize("margin", [0.01, 0.03, 0.1, 0.25])
def test_required_sample_size_is_the_smallest(margin, flip_probability, confidence):
    n = privacy.estimates._required_sample_size(margin, flip_probability, confidence)
    assert privacy.estimates._half_width_for_yes_no(n, flip_probability, confidence) <= margin
    if n > 1:
        assert (
            privacy.estimates._half_width_for_yes_no(n - 1, flip_probability, confidence) > margin
        )


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
@pytest.mark.parametrize(("epsilon", "k"), [(LN3, 3), (LN9, 4), (1.0, 5), (0.5, 12), (5.0, 2)])
@pytest.mark.parametrize("margin", [0.02, 0.05, 0.1])
def test_required_sample_size_for_choices_is_the_smallest(margin, epsilon, k, confidence):
    n = privacy.estimates._required_sample_size_for_choices(margin, epsilon, k, confidence)
    assert privacy.estimates._half_width_for_choices(n, epsilon, k, confidence) <= margin
    if n > 1:
        assert privacy.estimates._half_width_for_choices(n - 1, epsilon, k, confidence) > margin


def test_required_sample_size_for_choices_hand_value():
    # k = 4, eps = ln 9: max(3/16, 11/144) / (0.05 * 0.1^2 * (2/3)^2) = 0.1875 / (1/4500) = 843.75
    bound = (3 / 16) / (0.05 * 0.1**2 * (2 / 3) ** 2)
    assert bound == pytest.approx(843.75)
    assert privacy.estimates._required_sample_size_for_choices(0.1, LN9, 4, 0.95) == 844


def test_a_huge_margin_needs_one_answer():
    assert privacy.estimates._required_sample_size(10.0, 0.25) == 1


# --------------------------------------------------------------------------- bad parameters


def _bad_calls():
    """(function name, arguments, parameter the message must name) for each kind of bad input."""
    bad_flip_probabilities = [
        0,
        0.0,
        0.5,
        0.7,
        -0.1,
        1,
        math.nan,
        math.inf,
        -math.inf,
        True,
        "0.25",
    ]
    for p in [*bad_flip_probabilities, None]:
        yield "epsilon_from_flip_probability", (p,), "flip_probability"
        yield "estimate_proportion", (5, 10, p), "flip_probability"
        yield "browser_flip_probability", (p,), "flip_probability"
        yield "flip_threshold", (p,), "flip_probability"
        yield "keep_threshold", (p, 3), "flip_probability"
        yield "estimate_browser_frequencies", ([1, 2, 3], p), "flip_probability"
        yield "required_sample_size", (0.1, p), "flip_probability"
        yield "half_width_for_yes_no", (10, p), "flip_probability"
        yield "deniability", (p,), "flip_probability"
    for eps in [0, 0.0, -1.0, math.nan, math.inf, -math.inf, True, "1"]:
        yield "flip_probability_from_epsilon", (eps,), "epsilon"
        yield "keep_probabilities", (eps, 3), "epsilon"
        yield "estimate_frequencies", ([1, 2, 3], eps), "epsilon"
        yield "total_epsilon", ([1.0, eps],), "epsilon"
    for k in [1, 0, -3, 2.0, 3.5, True, False, "3", None]:
        yield "keep_probabilities", (LN3, k), "k"
        yield "half_width_for_choices", (100, LN3, k), "k"
        yield "browser_keep_probabilities", (0.25, k), "k"
        yield "keep_threshold", (0.25, k), "k"
        yield "browser_epsilon", (0.25, k), "k"
        yield "required_sample_size_for_choices", (0.1, LN3, k), "k"
    yield "estimate_frequencies", ([5], LN3), "k"
    yield "estimate_frequencies", ([], LN3), "k"
    for level in [0, 1, 1.5, -0.5, math.nan, math.inf, True]:
        yield "estimate_proportion", (5, 10, 0.25, level), "confidence"
        yield "estimate_frequencies", ([1, 2], LN3, level), "confidence"
        yield "estimate_browser_frequencies", ([1, 2], 0.25, level), "confidence"
        yield "half_width_for_yes_no", (10, 0.25, level), "confidence"
        yield "required_sample_size", (0.1, 0.25, level), "confidence"
    for count in [-1, 2.5, "3", True, None, 3.0]:
        yield "estimate_proportion", (count, 10, 0.25), "noisy_ones"
        yield "estimate_yes_no", (count, 10, 0.25), "noisy_yes"
        yield "estimate_frequencies", ([4, count], LN3), r"noisy_counts\[1\]"
    for n in [-1, 2.5, "10", True, None]:
        yield "estimate_proportion", (0, n, 0.25), "n"
        yield "estimate_yes_no", (0, n, 0.25), "n"
        yield "half_width_for_yes_no", (n, 0.25), "n"
        yield "half_width_for_choices", (n, LN3, 3), "n"
    # counts above n
    yield "estimate_proportion", (11, 10, 0.25), "noisy_ones"
    yield "estimate_yes_no", (11, 10, 0.25), "noisy_yes"
    # a margin needs at least one answer
    yield "half_width_for_yes_no", (0, 0.25), "n"
    yield "half_width_for_choices", (0, LN3, 3), "n"
    for margin in [0, -0.1, math.nan, math.inf, True]:
        yield "required_sample_size", (margin, 0.25), "margin"
        yield "required_sample_size_for_choices", (margin, LN3, 3), "margin"
    for counts in ["123", b"12", 12, None, {1: 2, 3: 4}]:
        yield "estimate_frequencies", (counts, LN3), "noisy_counts"
    for prior in [-0.1, 1.1, math.nan, True]:
        yield "deniability", (0.25, prior), "prior"


@pytest.mark.parametrize(
    ("function", "arguments", "parameter"),
    [pytest.param(*case, id=f"{case[0]}{case[1]!r}") for case in _bad_calls()],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(function, arguments, parameter):
    with pytest.raises(ValueError, match=rf"^{parameter} "):
        _function(function)(*arguments)


def _function(name: str):
    """A function by name: public in the package, or an estimate of privacy.estimates (the
    reference forms at ideal probabilities are private there: ``_estimate_frequencies``)."""
    if name in privacy.__all__:
        return getattr(privacy, name)
    return getattr(privacy.estimates, name, None) or getattr(privacy.estimates, f"_{name}")


@pytest.mark.parametrize(
    ("bad_bits", "message"),
    [
        (np.array([0, 2, 1]), "true_bits"),
        (np.array([True, False]), "true_bits"),
        (np.array([0.5, 1.0]), "true_bits"),
    ],
)
def test_randomize_bits_refuses_values_other_than_zero_and_one(bad_bits, message):
    with pytest.raises(ValueError, match=message):
        privacy.estimates._randomize_bits(bad_bits, 0.25, np.random.default_rng(1))


@pytest.mark.parametrize(
    ("bad_indices", "message"),
    [
        (np.array([0, 3]), "true_indices"),
        (np.array([-1, 0]), "true_indices"),
        (np.array([0.0, 1.0]), "true_indices"),
        (np.array([True, False]), "true_indices"),
    ],
)
def test_randomize_choices_refuses_bad_indices(bad_indices, message):
    with pytest.raises(ValueError, match=message):
        privacy.estimates._randomize_choices(bad_indices, LN3, 3, np.random.default_rng(1))


@pytest.mark.parametrize("bad_rng", [None, 42, np.random.RandomState(1)])
def test_randomizers_need_a_numpy_generator(bad_rng):
    with pytest.raises(ValueError, match="^rng "):
        privacy.estimates._randomize_bits([0, 1], 0.25, bad_rng)
    with pytest.raises(ValueError, match="^rng "):
        privacy.estimates._randomize_choices([0, 1], LN3, 3, bad_rng)


def test_messages_state_the_allowed_range():
    with pytest.raises(ValueError, match=r"flip_probability must be in \(0, 0\.5\), got 0\.7"):
        privacy.epsilon_from_flip_probability(0.7)
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\), got 1\.5"):
        privacy.estimates.estimate_proportion(1, 2, 0.25, 1.5)
    with pytest.raises(ValueError, match=r"noisy_ones must be at most n = 10, got 11"):
        privacy.estimates.estimate_proportion(11, 10, 0.25)
