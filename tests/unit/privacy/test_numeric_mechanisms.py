"""The numeric mechanisms of the privacy package (issue 14): exact laws, epsilon, estimates.

Everything here is exact or deterministic: the laws are summed, not sampled (the sampled checks
are in tests/statistical/test_numeric_statistics.py, tests/unit/privacy/test_numeric_node.py and
tests/browser/test_numeric_browser.py).
"""

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import survey_app.privacy as privacy
from survey_app.privacy import GridLaplace, HybridNumeric, numeric_mechanism
from survey_app.privacy.hybrid import piecewise_variance
from survey_app.privacy.numeric_grid import _rounding_channel

G = privacy.numeric_grid.NUMERIC_GRID_STEPS
WORDS = 2**32

# Round values, the textbook ln 2 and ln 3, the allowed range's ends, and 40 spread over it.
EPSILONS = sorted(
    {
        0.01,
        0.05,
        0.1,
        0.25,
        0.5,
        math.log(2),
        math.log(3),
        1.0,
        1.5,
        2.0,
        3.0,
        5.0,
        10.0,
        20.0,
        *np.random.default_rng(20_260_114).uniform(0.01, 20.0, 40).tolist(),
    }
)
MECHANISMS = [GridLaplace, HybridNumeric]
GRID_SAMPLE = [0, 1, 137, 500, 999, G]


def _exp_from_decimal(epsilon: float) -> Fraction:
    """e^epsilon to 60 significant digits (Decimal's exp is correctly rounded), as a rational."""
    return Fraction(Decimal(epsilon).exp(Context(prec=60)))


def _all_probabilities(mechanism, chunk=64):
    """The exact law of the report for every grid index, as (k, outputs, rows) chunks."""
    low, high = mechanism.output_range
    outputs = np.arange(low, high + 1)
    for start in range(0, G + 1, chunk):
        k = np.arange(start, min(G + 1, start + chunk))
        yield k, outputs, mechanism._probabilities(k, outputs)


def _hybrid_law_exactly(mechanism: HybridNumeric, k: int) -> dict[int, Fraction]:
    """Pr[report | k] of the hybrid as exact rationals, from its integer parameters alone."""
    params = mechanism.browser_parameters()
    w, keep = params["width"], params["window_threshold"]
    alpha = Fraction(params["piecewise_threshold"], WORDS)
    high = Fraction(params["duchi_base"] + k * params["duchi_slope"], WORDS)
    law = {}
    if alpha > 0:
        for j in range(G + w):
            inside = k <= j < k + w
            law[j] = alpha * (
                Fraction(keep, WORDS * w) if inside else Fraction(WORDS - keep, WORDS * G)
            )
    if alpha < 1:
        law[G + w] = (1 - alpha) * (1 - high)
        law[G + w + 1] = (1 - alpha) * high
    return law


# --------------------------------------------------------------------------- epsilon


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_never_spends_more_epsilon_than_stated(epsilon):
    mechanism = GridLaplace(0, 1, epsilon)
    t, s = mechanism.scale_numerator, mechanism.scale_denominator
    # Exactly, in rationals: G s / t <= epsilon (Fraction(epsilon) is the float's exact value).
    assert Fraction(G * s, t) <= Fraction(epsilon)
    assert mechanism.real_epsilon_fraction == Fraction(G * s, t)
    # And it gives up almost nothing: t < G D / epsilon + 1, so the loss is below eps^2 / (G D).
    assert epsilon - mechanism.real_epsilon <= epsilon**2 / (G * s) + 1e-15


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 3.0, 20.0])
def test_laplace_epsilon_at_the_grids_worst_case(epsilon):
    """k = 0 against k = G, the farthest apart: every report's likelihood ratio, from the law."""
    mechanism = GridLaplace(0, 1, epsilon)
    log_ratio = np.log(mechanism.pmf(0)) - np.log(mechanism.pmf(G))
    # Reports between 0 and G (and the clamped ends) reach the real epsilon; none exceeds it.
    assert np.max(np.abs(log_ratio)) == pytest.approx(mechanism.real_epsilon, rel=1e-9)
    # Each log probability is above -80, so the floats' error in a difference is below 1e-13.
    assert np.max(np.abs(log_ratio)) <= epsilon + 1e-13
    low, _ = mechanism.output_range
    assert log_ratio[0 - low] == pytest.approx(mechanism.real_epsilon, rel=1e-9)
    assert log_ratio[0] == pytest.approx(mechanism.real_epsilon, rel=1e-9)  # the clamped end
    # Neighbouring grid indices differ by one G-th of it.
    step = np.log(mechanism.pmf(500)) - np.log(mechanism.pmf(501))
    assert np.max(np.abs(step)) == pytest.approx(mechanism.real_epsilon / G, rel=1e-6)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_hybrid_never_spends_more_epsilon_than_stated(epsilon):
    mechanism = HybridNumeric(0, 1, epsilon)
    keep, w = mechanism.window_threshold, mechanism.width
    base, slope = mechanism.duchi_base, mechanism.duchi_slope
    e_eps = _exp_from_decimal(epsilon)
    # e^epsilon to 60 digits is within 1e-58 of the truth, far below the margin of 1e-50.
    piecewise_odds = Fraction(keep * G, (WORDS - keep) * w)
    duchi_odds = Fraction(WORDS - base, base)
    assert piecewise_odds <= e_eps * (1 - Fraction(1, 10**50))
    assert duchi_odds <= e_eps * (1 - Fraction(1, 10**50))
    assert base == WORDS // 2 - (G // 2) * slope and base >= 1
    # Each threshold is the largest such: one more would overstate epsilon.
    assert Fraction((keep + 1) * G, (WORDS - keep - 1) * w) > e_eps
    next_base = WORDS // 2 - (G // 2) * (slope + 1)  # a slope one more: none left at k = 0
    assert next_base <= 0 or Fraction(WORDS - next_base, next_base) > e_eps
    used = []
    if mechanism.piecewise_threshold > 0:
        used.append(piecewise_odds)
    if mechanism.piecewise_threshold < WORDS:
        used.append(duchi_odds)
    assert mechanism.real_epsilon_odds == max(used)
    # And gives up little: rounding K down moves ln(odds) by at most 1/K + 1/(2^32 - K - 1),
    # Delta down moves T0 by under G/2 (the hybrid's epsilon is the larger part's).
    loss = epsilon - mechanism.real_epsilon
    if mechanism.piecewise_threshold > 0:
        assert 0 <= loss <= 1 / keep + 1 / (WORDS - keep - 1) + 1e-12
    else:
        assert 0 <= loss <= (G / 2) * (1 / (base - G / 2) + 1 / (WORDS - base - G / 2)) + 1e-12
    assert 1 <= w <= G and 0 <= mechanism.piecewise_threshold <= WORDS


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 2.0, 3.0, 8.0])
def test_hybrid_epsilon_over_every_pair_of_answers(epsilon):
    """max over reports of (max_k Pr[y | k]) / (min_k Pr[y | k]), the whole grid, from the law."""
    mechanism = HybridNumeric(0, 1, epsilon)
    low, high = mechanism.output_range
    law = mechanism._probabilities(np.arange(G + 1), np.arange(low, high + 1))
    assert np.all(law > 0)
    worst = np.max(np.log(law.max(axis=0)) - np.log(law.min(axis=0)))
    assert worst == pytest.approx(mechanism.real_epsilon, rel=1e-9)
    assert worst <= epsilon * (1 + 1e-12)


def test_hand_computed_browser_parameters():
    # epsilon = 1: t = G D = 10^6 exactly; epsilon = 3: 10^6 / 3 = 333333.33 rounds UP.
    assert GridLaplace(0, 10, 1.0).browser_parameters() == {
        "steps": 1000,
        "scale_numerator": 1_000_000,
        "scale_denominator": 1000,
        "bound": 69_078,
    }
    assert GridLaplace(0, 10, 3.0).scale_numerator == 333_334
    # B at epsilon = 1: the smallest with 2 a^(B + 1) / (1 + a) < 1e-30, a = e^-0.001:
    # B + 1 > ln(1e-30 (1 + a) / 2) / ln a = 69078.05, so B + 1 = 69079.
    a = math.exp(-0.001)
    assert math.log(1e-30 * (1 + a) / 2) / math.log(a) == pytest.approx(69078.05, abs=0.01)
    params = HybridNumeric(0, 10, 1.0).browser_parameters()
    assert set(params) == {
        "steps",
        "width",
        "window_threshold",
        "piecewise_threshold",
        "duchi_base",
        "duchi_slope",
    }
    assert all(type(value) is int for value in params.values())
    # K = floor(2^32 w e / (w e + G)) at the chosen width,
    # Delta = floor(2^31 (e - 1) / (500 (e + 1))).
    w = params["width"]
    assert params["window_threshold"] == math.floor(WORDS * w * math.e / (w * math.e + G))
    assert params["duchi_slope"] == math.floor(2**31 * (math.e - 1) / (500 * (math.e + 1)))
    assert params["duchi_base"] == 2**31 - 500 * params["duchi_slope"]
    # Wang et al.'s alpha = 1 - e^(-1/2) = 0.393 is close to the one chosen on the grid.
    assert params["piecewise_threshold"] / WORDS == pytest.approx(1 - math.exp(-0.5), abs=0.03)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 3.0, 20.0])
def test_laplace_bound_is_the_smallest_with_a_negligible_tail(epsilon):
    mechanism = GridLaplace(0, 1, epsilon)
    rate = mechanism.scale_denominator / mechanism.scale_numerator
    bound = mechanism.bound

    # scipy's dlaplace(rate) is Pr[Z = z] proportional to exp(-rate |z|); its sf underflows
    # this far out, so sum the geometric tail from its pmf: Pr[Z > m] = pmf(m + 1) / (1 - a).
    def tail(m):
        return 2 * stats.dlaplace.pmf(m + 1, rate) / -math.expm1(-rate)

    assert tail(bound) < privacy.laplace.LAPLACE_TAIL_PROBABILITY <= tail(bound - 1)
    assert mechanism.output_range == (-bound, G + bound)


# --------------------------------------------------------------------------- the laws


@pytest.mark.parametrize("mechanism_type", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 3.0, 20.0])
def test_laws_sum_to_one(mechanism_type, epsilon):
    mechanism = mechanism_type(-5, 5, epsilon)
    low, high = mechanism.output_range
    for k in GRID_SAMPLE:
        pmf = mechanism.pmf(k)
        assert pmf.shape == (high - low + 1,)
        assert np.all(pmf >= 0)
        # NumPy sums pairwise: its error is below 1e-14 even over 14 million reports.
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 20.0])
def test_hybrid_law_sums_to_one_exactly_and_matches_the_floats(epsilon):
    mechanism = HybridNumeric(0, 1, epsilon)
    low, high = mechanism.output_range
    for k in [0, 137, 500, G]:
        law = _hybrid_law_exactly(mechanism, k)
        assert sum(law.values()) == 1
        assert sorted(law) == list(range(low, high + 1))
        floats = mechanism.pmf(k)
        np.testing.assert_allclose(floats, [float(law[j]) for j in sorted(law)], rtol=1e-12)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_laplace_pmf_is_scipys_discrete_laplace_with_clamped_tails(epsilon):
    mechanism = GridLaplace(0, 1, epsilon)
    rate = mechanism.scale_denominator / mechanism.scale_numerator
    low, high = mechanism.output_range
    outputs = np.arange(low, high + 1)
    for k in GRID_SAMPLE:
        pmf = mechanism.pmf(k)
        inner = slice(1, -1)
        expected = stats.dlaplace.pmf(outputs[inner] - k, rate)
        np.testing.assert_allclose(pmf[inner], expected, rtol=1e-9, atol=0)
        # The ends carry everything beyond them.
        assert pmf[0] == pytest.approx(stats.dlaplace.cdf(low - k, rate), rel=1e-6)
        assert pmf[-1] == pytest.approx(stats.dlaplace.sf(high - k - 1, rate), rel=1e-6)


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 10.0])
def test_laplace_run_probabilities_are_sums_of_the_law(epsilon):
    mechanism = GridLaplace(0, 1, epsilon)
    low, high = mechanism.output_range
    starts = np.array([low, low + 3, -40, 0, 480, 520, 990, high - 5, high])
    ends = np.array([low + 2, -41, 479, 0, 519, 989, high - 6, high - 1, high])
    k = np.array([0, 250, 500, 1000])
    runs = mechanism._interval_probabilities(k, starts, ends)
    law = mechanism._probabilities(k, np.arange(low, high + 1))
    sums = np.array(
        [
            [math.fsum(row[s - low : e - low + 1]) for s, e in zip(starts, ends, strict=True)]
            for row in law
        ]
    )
    np.testing.assert_allclose(runs, sums, rtol=1e-9, atol=1e-300)


# --------------------------------------------------------------------------- estimates


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 20.0])
def test_hybrid_estimate_is_unbiased_exactly(epsilon):
    """sum_y Pr[y | k] estimate(y) = k in exact rationals, the estimate's own constants included."""
    mechanism = HybridNumeric(0, 1, epsilon)
    params = mechanism.browser_parameters()
    w, keep = params["width"], params["window_threshold"]
    base, slope = params["duchi_base"], params["duchi_slope"]
    c_hi, c_lo = Fraction(keep, WORDS * w), Fraction(WORDS - keep, WORDS * G)
    cells = G + w
    offset = c_lo * cells * (cells - 1) / 2 + (c_hi - c_lo) * w * (w - 1) / 2
    piecewise_slope = (c_hi - c_lo) * w

    def estimate(j):
        if j < cells:
            return (j - offset) / piecewise_slope
        return Fraction((WORDS if j == cells + 1 else 0) - base, slope)

    for k in [0, 1, 499, 500, G]:
        law = _hybrid_law_exactly(mechanism, k)
        assert sum(p * estimate(j) for j, p in law.items()) == k
    # The floats the server uses are those rationals to 1e-12.
    low, high = mechanism.output_range
    outputs = np.arange(low, high + 1)
    np.testing.assert_allclose(
        mechanism.estimate_of_output(outputs), [float(estimate(j)) for j in outputs], rtol=1e-12
    )


@pytest.mark.parametrize(
    ("mechanism_type", "epsilon"),
    [
        (GridLaplace, 1.0),
        (GridLaplace, 3.0),
        (HybridNumeric, 0.5),
        (HybridNumeric, 1.0),
        (HybridNumeric, 3.0),
        (HybridNumeric, 20.0),
    ],
)
def test_estimate_is_unbiased_and_its_variance_is_the_laws(mechanism_type, epsilon):
    """sum_y pmf(y | k) estimate(y) = k for every grid index k, and the variance formula holds."""
    mechanism = mechanism_type(0, 1, epsilon)
    largest = 0.0
    for k, outputs, rows in _all_probabilities(mechanism):
        estimates = mechanism.estimate_of_output(outputs)
        means = rows @ estimates
        # Laplace's clamp moves the mean by under 1e-25 steps; the rest is float summation.
        np.testing.assert_allclose(means, k, rtol=0, atol=1e-9)
        variances = (rows * (estimates[None, :] - k[:, None]) ** 2).sum(axis=1)
        # The closed form subtracts squares of means up to G + w: 1e-16 of 1e6 is ~1e-10.
        np.testing.assert_allclose(
            variances, mechanism.variance_given_grid_index(k), rtol=1e-9, atol=1e-8
        )
        largest = max(largest, float(variances.max()))
    assert mechanism._noise_variance == pytest.approx(largest, rel=1e-9)
    assert mechanism.worst_case_variance == pytest.approx(
        (largest + 0.25) * mechanism.step**2, rel=1e-9
    )


def test_laplace_variance_is_scipys():
    for epsilon in [0.5, 1.0, 3.0]:
        mechanism = GridLaplace(0, 1, epsilon)
        rate = mechanism.scale_denominator / mechanism.scale_numerator
        assert mechanism.variance_given_grid_index(7) == pytest.approx(
            stats.dlaplace.var(rate), rel=1e-9
        )


@pytest.mark.parametrize("epsilon", [0.7, 1.0, 2.0, 3.0])
def test_hybrid_design_minimizes_the_worst_case_variance(epsilon):
    """No nearby width, nor another mixing probability, has a smaller worst case."""
    mechanism = HybridNumeric(0, 1, epsilon)
    k = np.arange(G + 1.0)
    duchi = privacy.hybrid._duchi_variance(mechanism.duchi_base, mechanism.duchi_slope, k)

    def worst(width, alpha):
        inside = width * math.exp(epsilon) / (width * math.exp(epsilon) + G)
        return (alpha * piecewise_variance(width, inside, k) + (1 - alpha) * duchi).max()

    w, alpha = mechanism.width, mechanism.piecewise_probability
    chosen = worst(w, alpha)
    for other_w in [w - 5, w - 1, w + 1, w + 5]:
        for other_alpha in np.linspace(0, 1, 41):
            assert chosen <= worst(other_w, other_alpha) * (1 + 1e-9)
    assert 0 < alpha < 1
    # The two cases meet: the mixed variance is flat over the grid (to 1e-6 of its size).
    assert mechanism.variance_given_grid_index(0) == pytest.approx(
        mechanism.variance_given_grid_index(G // 2), rel=1e-6
    )


def test_hybrid_is_duchis_alone_at_small_epsilon():
    mechanism = HybridNumeric(0, 1, 0.3)
    assert mechanism.piecewise_threshold == 0
    assert mechanism.output_range == (G + mechanism.width, G + mechanism.width + 1)
    # Duchi's worst case is in the middle: q (1 - q) (2^32 / Delta)^2 at q = 1/2.
    assert mechanism._noise_variance == pytest.approx((WORDS / mechanism.duchi_slope) ** 2 / 4)


# Worst-case variance of the hybrid mechanism over the Laplace one's, at epsilon: about half on
# [0.5, 3] as the issue asks (the piecewise mechanism alone gives 0.66 at 0.5, 0.63 at 1).
VARIANCE_RATIOS = {0.5: 0.521, 1.0: 0.533, 1.5: 0.520, 2.0: 0.491, 3.0: 0.407}


@pytest.mark.parametrize(("epsilon", "ratio"), VARIANCE_RATIOS.items())
def test_variance_ratio(epsilon, ratio):
    laplace = numeric_mechanism(0, 10, epsilon, "laplace")
    hybrid = numeric_mechanism(0, 10, epsilon, "hybrid")
    assert isinstance(laplace, GridLaplace) and isinstance(hybrid, HybridNumeric)
    assert hybrid.worst_case_variance / laplace.worst_case_variance == pytest.approx(
        ratio, abs=0.001
    )


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("respondents", [10, 40, 100, 1000])
def test_the_default_has_the_narrowest_guaranteed_range_at_the_class_size(epsilon, respondents):
    chosen = numeric_mechanism(0, 40, epsilon, respondents=respondents)
    widths = {
        name: numeric_mechanism(0, 40, epsilon, name).half_width(respondents)
        for name in privacy.NUMERIC_MECHANISMS
    }
    assert chosen.half_width(respondents) == min(widths.values()), widths
    assert chosen.name == min(widths, key=widths.get)


def test_at_a_class_of_40_and_eps_ln_3_the_one_bit_mechanism_is_chosen():
    """The audit's case: 13.0 of 40 for the one-bit mechanism, 16.1 Laplace, 17.0 hybrid."""
    chosen = numeric_mechanism(0, 40, math.log(3))
    assert chosen.name == "one_bit"
    assert chosen.half_width(40) / 40 <= 0.33


def test_the_choice_follows_the_ranges(monkeypatch):
    # Make Laplace's range the narrowest: the rule, not a constant, decides.
    monkeypatch.setattr(GridLaplace, "half_width", lambda self, n, confidence=0.95: 0.0)
    numeric_mechanism.cache_clear()
    try:
        assert isinstance(numeric_mechanism(0, 10, 1.0), GridLaplace)
    finally:
        numeric_mechanism.cache_clear()


def others_than(mechanism):
    """The other mechanisms of the same question and epsilon."""
    return [
        numeric_mechanism(mechanism.lo, mechanism.hi, mechanism.epsilon, name)
        for name in privacy.NUMERIC_MECHANISMS
        if name != mechanism.name
    ]


def test_the_choice_in_words():
    chosen = numeric_mechanism(0, 10, 3.0)  # for the class of 40 planned by default
    best_other = min(others_than(chosen), key=lambda m: m.half_width(40))
    ratio = chosen.half_width(40) / best_other.half_width(40)
    assert ratio <= 1.0
    words = privacy.mechanism_choice_reason(chosen, named=False, respondents=40)
    assert words == (
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        f"class of 40 planned: with these 40 answers, its range is {ratio:.0%} as wide as "
        f"{privacy.MECHANISM_NAMES[best_other.name]}’s would be, for the same privacy."
    )
    # Chosen for a class of 40 and read with 1,000 answers, where another proves narrower:
    # the words say so.
    hybrid = numeric_mechanism(0, 40, 1.0, "hybrid")
    narrowest = min(others_than(hybrid), key=lambda m: m.half_width(1000))
    ratio = privacy.numeric.range_width_ratio(hybrid, narrowest, 1000)
    assert narrowest.name == "one_bit" and ratio > 1.0
    assert privacy.mechanism_choice_reason(hybrid, named=False, respondents=1000) == (
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        f"class of 40 planned. With these 1,000 answers, though, its range is {ratio:.0%} "
        "as wide as the one-bit mechanism’s would be."
    )
    laplace = numeric_mechanism(0, 10, 3.0, "laplace")
    named = privacy.mechanism_choice_reason(laplace, named=True, respondents=1000)
    assert "asks for this mechanism" in named
    assert "with these 1,000 answers, its range is" in named


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("n", [10, 40, 1000])
@pytest.mark.parametrize("name", ["laplace", "hybrid", "one_bit"])
def test_the_choices_ratio_is_the_shown_ranges(epsilon, n, name):
    mechanism = numeric_mechanism(0, 40, epsilon, name)
    best = min(others_than(mechanism), key=lambda other: other.half_width(n, 0.9))
    ratio = privacy.numeric.range_width_ratio(mechanism, best, n, 0.9)
    assert ratio == mechanism.half_width(n, 0.9) / best.half_width(n, 0.9)
    words = privacy.mechanism_choice_reason(mechanism, False, n, 0.9)
    assert f"{ratio:.0%} as wide as {privacy.MECHANISM_NAMES[best.name]}’s" in words


def test_half_widths_follow_their_formulas():
    mechanism = HybridNumeric(10, 30, 1.0)  # a step of 0.02
    n, confidence = 40, 0.95
    variance = mechanism._noise_variance + 0.25
    delta = 1 - confidence
    bias = privacy.numeric_grid.NUMERIC_ROUNDING_BIAS
    chebyshev = (math.sqrt(variance / (n * delta)) + bias) * 0.02
    log_term = math.log(2 / delta)
    low, high = mechanism.output_range
    estimates = mechanism.estimate_of_output(np.arange(low, high + 1))
    deviation = max(estimates.max(), G - estimates.min()) + bias
    linear = log_term * deviation / (3 * n)
    bernstein = (linear + math.sqrt(linear**2 + 2 * log_term * variance / n) + bias) * 0.02
    assert mechanism.chebyshev_half_width(n) == pytest.approx(chebyshev, rel=1e-12)
    assert mechanism.bernstein_half_width(n) == pytest.approx(bernstein, rel=1e-12)
    assert min(chebyshev, bernstein) == pytest.approx(bernstein)
    # Bernstein's root solves n h^2 = 2 L (V + M h / 3) (in grid steps, without the bias).
    h = bernstein / 0.02 - bias
    assert n * h**2 == pytest.approx(2 * log_term * (variance + deviation * h / 3), rel=1e-9)
    # Bernstein's M: the largest distance of an estimate from a mean in [0, G], from the
    # extreme reports of the two parts (the piecewise part's last cell, Duchi's high and low).
    cells = mechanism.cells
    duchi = [(WORDS - mechanism.duchi_base) / mechanism.duchi_slope]
    duchi.append(-mechanism.duchi_base / mechanism.duchi_slope)
    extremes = [*mechanism.estimate_of_output([0, cells - 1]), *duchi]
    assert deviation == pytest.approx(max(max(extremes), G - min(extremes)) + bias, rel=1e-12)
    # The hybrid's Chernoff bound on its exact law is narrower still, and is the one used.
    assert mechanism.half_width(n) == mechanism.tail_half_width(n) < bernstein
    assert mechanism.interval_bound(n) == "chernoff"
    # Laplace's wide range makes Bernstein useless, and its exact noise law beats Chebyshev.
    laplace = GridLaplace(10, 30, 1.0)
    assert laplace.half_width(n) == laplace.tail_half_width(n) < laplace.chebyshev_half_width(n)
    assert laplace.chebyshev_half_width(n) < laplace.bernstein_half_width(n)
    assert laplace.interval_bound(n) == "exact"


def test_half_width_is_in_the_questions_units_and_shrinks_with_n():
    narrow, wide = HybridNumeric(0, 10, 2.0), HybridNumeric(-10, 10, 2.0)
    for n in [1, 40, 300, 10_000]:
        assert wide.half_width(n) == pytest.approx(2 * narrow.half_width(n), rel=1e-12)
    widths = [narrow.half_width(n) for n in [10, 40, 300, 3000]]
    assert widths == sorted(widths, reverse=True)


@pytest.mark.parametrize("mechanism_type", MECHANISMS)
@pytest.mark.parametrize("margin", [0.25, 1.0, 3.0])
def test_respondents_for_is_the_fewest_reaching_the_margin(mechanism_type, margin):
    mechanism = mechanism_type(0, 20, 1.5)
    n = mechanism.respondents_for(margin, 0.9)
    assert mechanism.half_width(n, 0.9) <= margin
    if n > 1:
        assert mechanism.half_width(n - 1, 0.9) > margin


def test_estimate_mean_of_reports():
    mechanism = HybridNumeric(0, 10, 1.0)
    low, high = mechanism.output_range
    reports = [low, high, 500, 700]
    estimate = mechanism.estimate_mean(reports, 0.9)
    expected = 10 * np.mean(mechanism.estimate_of_output(reports)) / G
    assert estimate.mean == pytest.approx(expected, rel=1e-12)
    assert estimate.n == 4 and estimate.mechanism == "hybrid" and estimate.confidence == 0.9
    assert estimate.half_width == mechanism.half_width(4, 0.9)
    assert estimate.ci_low == max(0.0, estimate.mean - estimate.half_width)
    assert estimate.ci_high == min(10.0, estimate.mean + estimate.half_width)
    assert estimate.consistent_with_randomization
    empty = mechanism.estimate_mean([])
    assert (empty.n, empty.mean, empty.half_width, empty.has_data) == (0, None, None, False)
    assert empty.mechanism == "hybrid" and empty.lo == 0 and empty.hi == 10
    # Laplace: the report is the estimate of k.
    laplace = GridLaplace(0, 10, 1.0)
    assert laplace.estimate_mean([100, 300]).mean == pytest.approx(2.0)


def test_reports_all_at_one_end_are_inconsistent_with_the_randomization():
    mechanism = HybridNumeric(0, 10, 3.0)
    low_report = mechanism.cells  # the Duchi part's "low"
    estimate = mechanism.estimate_mean([low_report] * 5000)
    assert estimate.mean + estimate.half_width < 0
    assert not estimate.consistent_with_randomization
    assert estimate.ci_low == estimate.ci_high == 0.0


# --------------------------------------------------------------------------- the grid


def test_grid_mapping_and_its_inverse():
    assert privacy.numeric_grid.grid_position([2.5, -1, 11, 0, 10], 0, 10).tolist() == [
        250,
        0,
        1000,
        0,
        1000,
    ]
    assert privacy.numeric_grid.value_of_grid_index(250, 0, 10) == 2.5
    assert privacy.numeric_grid.value_of_grid_index(np.array([0, 1000]), -4, 6).tolist() == [-4, 6]
    # Estimates may leave the grid: the map is affine everywhere.
    assert privacy.numeric_grid.value_of_grid_index(-100, 0, 10) == pytest.approx(-1.0)


def test_randomized_rounding_has_the_right_mean():
    rng = np.random.default_rng(20_260_115)
    indices = privacy.numeric_grid.randomized_grid_indices(np.full(100_000, 0.12345), 0, 1, rng)
    assert set(np.unique(indices)) == {123, 124}
    # u = 123.45: Pr[124] = 0.45, standard error sqrt(0.45 * 0.55 / 1e5) = 0.0016; 0.01 is
    # over six of them, which a correct sampler misses with probability below 1e-9.
    assert np.mean(indices == 124) == pytest.approx(0.45, abs=0.01)


def test_rounding_channel_rows_are_laws_with_the_bins_mean():
    channel = _rounding_channel(4)
    assert channel.shape == (4, G + 1)
    np.testing.assert_allclose(channel.sum(axis=1), 1.0, atol=1e-12)
    # A value uniform in bin b has mean grid position (b + 1/2) G / 4; rounding keeps it.
    np.testing.assert_allclose(channel @ np.arange(G + 1), [125, 375, 625, 875], atol=1e-9)


@pytest.mark.parametrize("mechanism_type", MECHANISMS)
def test_histogram_recovers_the_bins_from_the_exact_law(mechanism_type):
    """Reports in the exact proportions of a known histogram give it back (no sampling noise)."""
    mechanism = mechanism_type(0, 10, 3.0)
    shares = np.array([0.1, 0.4, 0.0, 0.2, 0.3])
    low, high = mechanism.output_range
    outputs = np.arange(low, high + 1)
    law = _rounding_channel(5) @ mechanism._probabilities(np.arange(G + 1), outputs)
    counts = np.round(shares @ law * 2_000_000).astype(int)
    histogram = mechanism.histogram(np.repeat(outputs, counts), bins=np.linspace(0, 10, 6))
    assert histogram.edges == (0.0, 2.0, 4.0, 6.0, 8.0, 10.0)
    assert sum(histogram.shares) == pytest.approx(1.0)
    assert min(histogram.shares) >= 0.0
    # EM stops within 1e-9 a step, and the counts were rounded; what is left is EM's slow
    # convergence on a blurred channel (largest for Laplace), measured below 0.02.
    np.testing.assert_allclose(histogram.shares, shares, atol=0.02)


def test_histogram_groups_laplaces_many_distinct_reports():
    """Beyond 2048 distinct reports the runs' exact probabilities stand in: same answer."""
    mechanism = GridLaplace(0, 10, 3.0)
    shares = np.array([0.5, 0.0, 0.0, 0.5])
    low, high = mechanism.output_range
    outputs = np.arange(low, high + 1)
    law = _rounding_channel(4) @ mechanism._probabilities(np.arange(G + 1), outputs)
    counts = np.round(shares @ law * 2_000_000).astype(int)
    assert np.count_nonzero(counts) > 2048
    histogram = mechanism.histogram(
        np.repeat(outputs, counts), bins=np.linspace(mechanism.lo, mechanism.hi, 5)
    )
    np.testing.assert_allclose(histogram.shares, shares, atol=0.02)


def test_histogram_without_reports_is_uniform():
    histogram = HybridNumeric(0, 1, 1.0).histogram([], bins=[0, 0.25, 0.5, 0.75, 1])
    assert histogram.shares == (0.25, 0.25, 0.25, 0.25) and histogram.n == 0


def test_valid_outputs():
    mechanism = HybridNumeric(0, 1, 1.0)
    low, high = mechanism.output_range
    assert (low, high) == (0, G + mechanism.width + 1)
    assert mechanism.is_valid_output(low) and mechanism.is_valid_output(high)
    assert mechanism.is_valid_output(np.int64(high))
    for bad in [low - 1, high + 1, 0.5, True, "3", None]:
        assert not mechanism.is_valid_output(bad)
    laplace = GridLaplace(0, 1, 1.0)
    assert laplace.is_valid_output(-laplace.bound)
    assert not laplace.is_valid_output(-laplace.bound - 1)


# --------------------------------------------------------------------------- bad parameters


@pytest.mark.parametrize("mechanism_type", MECHANISMS)
@pytest.mark.parametrize(
    ("lo", "hi", "epsilon", "message"),
    [
        (5, 5, 1.0, "lo must be below hi, got lo=5, hi=5"),
        (6, 5, 1.0, "lo must be below hi, got lo=6, hi=5"),
        (float("nan"), 5, 1.0, "lo must be finite"),
        (0, float("inf"), 1.0, "hi must be finite"),
        (-1e308, 1e308, 1.0, "lo must be in [-1e"),
        (0, 1e200, 1.0, "hi must be in [-1e"),  # variances overflowed
        (0, 1e-300, 1.0, "hi - lo must be at least 1e-06"),  # variances underflowed
        (1e9, 1e9 + 0.5, 1.0, "hi - lo must be at least 1"),  # a billionth of the size
        ("0", 5, 1.0, "lo must be a real number"),
        (0, True, 1.0, "hi must be a real number"),
        (0, 5, 0.0, "epsilon must be in [0.01, 20]"),
        (0, 5, -1.0, "epsilon must be in [0.01, 20]"),
        (0, 5, 0.005, "epsilon must be in [0.01, 20]"),
        (0, 5, 20.5, "epsilon must be in [0.01, 20]"),
        (0, 5, float("nan"), "epsilon must be finite"),
        (0, 5, None, "epsilon must be a real number"),
    ],
)
def test_bad_parameters_are_refused(mechanism_type, lo, hi, epsilon, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        mechanism_type(lo, hi, epsilon)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.estimate_mean([0.5]), "outputs must be integers"),
        (lambda m: m.estimate_mean([10**6]), "outputs must be in 0 .. "),
        (lambda m: m.estimate_mean([-1]), "outputs must be in 0 .. "),
        (lambda m: m.estimate_mean([1], confidence=1.0), "confidence must be in"),
        (lambda m: m.half_width(0), "n must be at least 1"),
        (lambda m: m.half_width(-3), "n must be a non-negative integer"),
        (lambda m: m.respondents_for(0), "margin must be a number > 0"),
        (lambda m: m.histogram([1], bins=0), "bins must be an integer in 1 .. 100"),
        (lambda m: m.pmf(G + 1), "k \\(grid indices\\) must be in 0 .. 1000"),
        (lambda m: m.pmf(1.5), "k \\(grid indices\\) must be integers"),
        (lambda m: m.randomize([1.0], rng=1), "rng must be a numpy.random.Generator"),
        (lambda m: m.randomize([float("nan")], np.random.default_rng(1)), "values must be finite"),
    ],
)
def test_bad_arguments_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call(HybridNumeric(0, 1, 1.0))


def test_bad_mechanism_name():
    with pytest.raises(
        ValueError, match="mechanism must be one of 'laplace', 'hybrid', 'one_bit', got 'duchi'"
    ):
        numeric_mechanism(0, 1, 1.0, "duchi")


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        # Whole numbers 2 to 20 apart: one bar per answer, centred on it.
        (0, 10, [(0, 0)] + [(k, k) for k in range(1, 10)] + [(10, 10)]),
        # Wider: bars of whole answers, edges halfway between them (36 to 40 takes in 40).
        (0, 40, [(0, 3)] + [(4 * k, 4 * k + 3) for k in range(1, 9)] + [(36, 40)]),
        (16, 70, [(16, 20)] + [(5 * k + 1, 5 * k + 5) for k in range(4, 13)] + [(66, 70)]),
        # Small ranges: answers in tenths, a bar for each.
        (0, 1, [(0, 0)] + [(k / 10, k / 10) for k in range(1, 10)] + [(1, 1)]),
    ],
)
def test_histogram_bars_hold_whole_answers(lo, hi, expected):
    edges, step = privacy.numeric_grid.histogram_edges(lo, hi, 10)
    assert edges[0] == lo and edges[-1] == hi
    histogram = HybridNumeric(lo, hi, 1.0).histogram([], bins=10)
    assert histogram.edges == edges and histogram.answer_step == step
    held = [answer for pair in histogram.answers_held for answer in pair]
    assert held == pytest.approx([answer for pair in expected for answer in pair])
    # No round answer sits on an inner edge: each is half a step from the nearest answer.
    for edge in edges[1:-1]:
        assert (edge / step) % 1 == pytest.approx(0.5)


@pytest.mark.parametrize("answer", [1.0, 3.0, 7.0])
def test_everyone_giving_one_whole_answer_fills_one_bar(answer):
    """The review's case: everyone answering 3 on 0-10 was shown as 51% "2 to 3", 49% "3 to 4".

    20,000 answers at epsilon = ln 3, seed fixed: the bar of the answer gets over 90% (it got
    99-100% in development; the 10-point slack is many times the EM estimate's spread here).
    """
    mechanism = numeric_mechanism(0.0, 10.0, math.log(3), "hybrid")  # one with a spread
    rng = np.random.default_rng(5)
    histogram = mechanism.histogram(mechanism.randomize(np.full(20000, answer), rng))
    bar = histogram.answers_held.index((answer, answer))
    assert histogram.shares[bar] > 0.9, histogram.shares
