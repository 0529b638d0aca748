"""Exact guaranteed intervals: coverage by exact enumeration, widths against an independent
computation, the large-n bound, and the mechanism type that owns them.

Nothing here is random: coverage is summed over the exact law of the noisy count, so the
checks are exact up to floating point (a tolerance of 1e-9 covers rounding in the sums).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from survey_app import privacy
from survey_app.privacy import RandomizedResponse, exact_interval, project_to_simplex
from survey_app.privacy.exact import EXACT_LIMIT, uses_exact_law

ROUNDING = 1e-9


def count_law(n: int, t: int, keep: float, other: float) -> np.ndarray:
    """Pr[C = c | t] for c = 0..n, by full convolution of the two binomial laws (no windows)."""
    kept = stats.binom.pmf(np.arange(t + 1), t, keep)
    others = stats.binom.pmf(np.arange(n - t + 1), n - t, other)
    return np.convolve(kept, others)


def neyman_table(n: int, keep: float, other: float, confidence: float) -> list:
    """The interval for every count, by brute force: every t tested against every c."""
    half_alpha = (1.0 - confidence) / 2.0
    accepted = np.zeros((n + 1, n + 1), dtype=bool)  # [t, c]
    for t in range(n + 1):
        law = count_law(n, t, keep, other)
        at_least = law[::-1].cumsum()[::-1]
        at_most = law.cumsum()
        accepted[t] = (at_least > half_alpha) & (at_most > half_alpha)
    intervals = []
    for c in range(n + 1):
        ts = np.nonzero(accepted[:, c])[0]
        intervals.append(None if ts.size == 0 else (ts.min() / n, ts.max() / n))
    return intervals


MECHANISMS = [(p, k) for p in (0.1, 0.25, 0.4) for k in (2, 3, 5)]


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
@pytest.mark.parametrize(("flip_probability", "k"), MECHANISMS)
def test_coverage_holds_for_every_true_count(flip_probability, k, confidence):
    mechanism = RandomizedResponse(flip_probability, k)
    keep, other = mechanism.probabilities
    for n in (1, 2, 5, 12, 30, 60):
        for t in range(n + 1):
            law = count_law(n, t, keep, other)
            covered = 0.0
            for c, probability in enumerate(law):
                interval = exact_interval(c, n, keep, other, confidence)
                if interval is not None and interval[0] <= t / n <= interval[1]:
                    covered += probability
            assert covered >= confidence - ROUNDING, (n, t, covered)


@pytest.mark.parametrize(("flip_probability", "k"), [(0.25, 2), (0.1, 4), (0.4, 3)])
@pytest.mark.parametrize("n", [7, 40, 61])
def test_intervals_equal_a_brute_force_neyman_construction(flip_probability, k, n):
    keep, other = RandomizedResponse(flip_probability, k).probabilities
    expected = neyman_table(n, keep, other, 0.95)
    for c in range(n + 1):
        assert exact_interval(c, n, keep, other, 0.95) == expected[c], c


def brute_force_expected_width(n: int, share: float, keep: float, other: float) -> float:
    table = neyman_table(n, keep, other, 0.95)
    law = count_law(n, round(share * n), keep, other)
    return sum(p * (iv[1] - iv[0]) for p, iv in zip(law, table, strict=True) if iv is not None)


@pytest.mark.parametrize(("n", "width"), [(30, 0.58), (100, 0.35), (300, 0.20)])
def test_expected_widths_at_p_one_quarter(n, width):
    """p = 0.25, 95%, true share 0.3: expected full widths 0.58 / 0.35 / 0.20, against
    Chebyshev's 1.41 / 0.78 / 0.45 (its full width, clipped or not)."""
    keep, other = RandomizedResponse(0.25).probabilities
    half = privacy.expected_exact_half_width(n, 0.3, keep, other, 0.95)
    if n <= 100:  # the brute force is O(n^2) laws: kept to the smaller sizes
        assert 2 * half == pytest.approx(brute_force_expected_width(n, 0.3, keep, other), 1e-9)
    assert 2 * half == pytest.approx(width, abs=0.005)
    chebyshev = RandomizedResponse(0.25).chebyshev_half_width(n, 0.95)
    assert 2 * chebyshev == pytest.approx({30: 1.414, 100: 0.775, 300: 0.447}[n], abs=0.001)


def test_the_chebyshev_figures_are_unchanged():
    mechanism = RandomizedResponse(0.25)
    (no, yes) = mechanism.estimate([12, 28], 0.95)
    old = privacy.estimate_proportion(28, 40, privacy.browser_flip_probability(0.25), 0.95)
    assert (yes.estimate, yes.ci_low, yes.ci_high, yes.half_width) == (
        old.estimate,
        old.ci_low,
        old.ci_high,
        old.half_width,
    )
    assert yes.half_width == pytest.approx(math.sqrt(0.75 * 0.25 / (40 * 0.05)) / 0.5)
    assert no.estimate == pytest.approx(1 - yes.estimate)


def test_counts_no_share_can_give_have_no_interval():
    keep, other = RandomizedResponse(0.25).probabilities
    # 100 "yes" of 100: even if everyone truly said yes, 0.75^100 is far below 2.5%.
    assert exact_interval(100, 100, keep, other, 0.95) is None
    (no, yes) = RandomizedResponse(0.25).estimate([0, 100])
    assert yes.exact_low is None and not yes.consistent_with_randomization
    # A plausible count always has one.
    assert exact_interval(50, 100, keep, other, 0.95) is not None


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
        privacy.expected_exact_half_width(40, share, keep, other, 0.95) for share in (0.3, 0.5, 0.7)
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


# --------------------------------------------------------------------------- simplex


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]),
        ([0.6, 0.5, -0.1], [0.55, 0.45, 0.0]),
        ([1.2, -0.1, -0.1], [1.0, 0.0, 0.0]),
        ([0.5, 0.5, 0.5, -0.5], [1 / 3, 1 / 3, 1 / 3, 0.0]),
    ],
)
def test_projection_onto_the_simplex(values, expected):
    projected = project_to_simplex(values)
    assert projected == pytest.approx(expected)
    assert sum(projected) == pytest.approx(1.0)
    assert min(projected) >= 0.0


def test_projection_is_the_closest_point_of_the_simplex():
    rng = np.random.default_rng(20261123)
    for _ in range(200):
        values = rng.normal(0.3, 0.4, size=4)
        projected = np.array(project_to_simplex(values))
        # Any other point of the simplex is at least as far (checked against random ones).
        others = rng.dirichlet(np.ones(4), size=50)
        distances = np.linalg.norm(others - values, axis=1)
        assert np.linalg.norm(projected - values) <= distances.min() + 1e-12
