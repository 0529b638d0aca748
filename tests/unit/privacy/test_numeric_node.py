"""The browser's numeric mechanisms (static/js/randomized-response.js) under Node (issue 14).

Two kinds of check. With stubbed words (each crypto.getRandomValues call hands out the next
chosen word) the reports are compared with values worked out by hand from the integer
parameters Python computes. With words from a generator of a fixed seed (mulberry32, as the
Chromium tests use), many reports are compared with the exact law of survey_app.privacy by a
chi-square test: the seed is fixed, so the outcome is repeatable and cannot flake.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import survey_app.privacy as privacy
from survey_app.privacy import GridLaplace, HybridNumeric
from survey_app.privacy.one_bit import OneBitNumeric
from tests.browser.conftest import seeded_words
from tests.unit.respondents.test_randomized_response_node import STUB, run_node

G = privacy.numeric_grid.NUMERIC_GRID_STEPS
WORDS = 2**32
SEED = 20_261_214
# A correct sampler fed uniform words gives a p-value below this with probability 1e-4 per
# check (the chi-square statistic's law is the test's null law); a law off by a percent in
# a cell group of probability 0.1 at 100,000 draws gives a statistic over 100 on one degree of
# freedom alone, so p below 1e-20: wrong thresholds or an off-by-one in a window are caught.
# For the one-bit mechanism (two reports, one degree of freedom) the floor is |z| < 3.9: at
# 100,000 reports the share of 1s must lie within 3.9 standard errors (at most 0.0016 each, so
# 0.0062) of the law's; Duchi's threshold at k + 100 instead of k moves the law by 0.046.
P_VALUE_FLOOR = 1e-4


def value_law(mechanism, value: float, lo: float, hi: float) -> np.ndarray:
    """The exact law of the browser's report of ``value``, over ``mechanism.output_range``.

    The rounding goes up with probability floor(frac 2^32) / 2^32, the browser's threshold;
    the grid position is computed with the same floating-point operations as the browser's.
    """
    position = float(privacy.numeric_grid.grid_position(value, lo, hi))
    floor = math.floor(position)
    up = math.floor((position - floor) * WORDS) / WORDS
    law = (1 - up) * mechanism.pmf(floor)
    if up > 0:
        law = law + up * mechanism.pmf(min(G, floor + 1))
    return law


def chi_square_p_value(counts: dict[str, int], law: np.ndarray, low: int) -> tuple[float, int]:
    """p-value of reports' ``counts`` (by report) against ``law`` (from report ``low``).

    Neighbouring reports are pooled into runs of expected count at least 20 (so the chi-square
    approximation holds), the last run taking what is left. Returns (p-value, runs).
    """
    draws = sum(counts.values())
    observed = np.zeros(len(law))
    for report, count in counts.items():
        observed[int(report) - low] += count
    assert observed.sum() == draws, "a report outside the mechanism's output range"
    expected = law * draws
    boundaries, running = [], 0.0
    for index, value in enumerate(expected):
        running += value
        if running >= 20:
            boundaries.append(index + 1)
            running = 0.0
    boundaries[-1] = len(law)
    starts = [0, *boundaries[:-1]]
    observed_runs = np.array([observed[s:e].sum() for s, e in zip(starts, boundaries, strict=True)])
    expected_runs = np.array([expected[s:e].sum() for s, e in zip(starts, boundaries, strict=True)])
    statistic = float(((observed_runs - expected_runs) ** 2 / expected_runs).sum())
    return float(stats.chi2.sf(statistic, len(starts) - 1)), len(starts)


# The reports of `draws` answers of `value`, by report: a JSON object.
SAMPLER = """
function sampleReports(randomizeNumber, value, lo, hi, mechanism, params, draws) {
  const counts = {};
  for (let i = 0; i < draws; i++) {
    const report = randomizeNumber(value, lo, hi, mechanism, params);
    counts[report] = (counts[report] || 0) + 1;
  }
  return counts;
}
"""

# (mechanism type, epsilon, value on [0, 10], draws): the hybrid's three regimes (Duchi's alone
# at 0.3, mixed at 1 and 3), values at both ends, on a grid point and between two; Laplace at
# three epsilons; the one-bit mechanism at three epsilons, both ends, the middle and between two
# grid points.
CASES = [
    (HybridNumeric, 0.3, 3.7, 100_000),
    (HybridNumeric, 1.0, 0.0, 100_000),
    (HybridNumeric, 1.0, 2.50037, 100_000),
    (HybridNumeric, 3.0, 10.0, 100_000),
    (HybridNumeric, 3.0, 6.2, 100_000),
    (GridLaplace, 0.5, 5.0, 50_000),
    (GridLaplace, 1.0, 0.123456, 50_000),
    (GridLaplace, 3.0, 10.0, 50_000),
    (OneBitNumeric, 0.3, 3.7, 100_000),
    (OneBitNumeric, 1.0, 0.0, 100_000),
    (OneBitNumeric, 1.0, 2.50037, 100_000),
    (OneBitNumeric, 1.0, 5.0, 100_000),
    (OneBitNumeric, 3.0, 10.0, 100_000),
]


def test_every_mechanism_a_survey_may_name_is_sampled():
    assert set(privacy.NUMERIC_MECHANISMS) <= {kind.name for kind, *_ in CASES}


def case_id(case) -> str:
    return f"{case[0].name}-eps{case[1]}-x{case[2]}"


@pytest.fixture(scope="module")
def node_samples(tmp_path_factory):
    """Every case's reports, drawn in one Node run from the seeded words."""
    calls = ",\n".join(
        f"sampleReports(rr.randomizeNumber, {json.dumps(value)}, 0, 10, {json.dumps(kind.name)}, "
        f"{json.dumps(kind(0, 10, epsilon).browser_parameters())}, {draws})"
        for kind, epsilon, value, draws in CASES
    )
    body = f"{seeded_words(SEED)}\n{SAMPLER}\nconsole.log(JSON.stringify([{calls}]));"
    return run_node(tmp_path_factory.mktemp("numeric"), body)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
def test_node_reports_follow_the_exact_law(node_samples, index):
    kind, epsilon, value, draws = CASES[index]
    mechanism = kind(0, 10, epsilon)
    counts = node_samples[index]
    assert sum(counts.values()) == draws
    low, _ = mechanism.output_range
    p_value, runs = chi_square_p_value(counts, value_law(mechanism, value, 0, 10), low)
    assert runs >= 2
    assert p_value > P_VALUE_FLOOR, (p_value, runs)


def test_the_chi_square_check_can_fail(node_samples):
    """The same reports against laws a buggy sampler would have: refused outright."""
    kind, epsilon, value, _ = CASES[2]  # the hybrid at epsilon = 1, value 2.50037
    mechanism = kind(0, 10, epsilon)
    low, _ = mechanism.output_range
    law = value_law(mechanism, value, 0, 10)
    # Another value: the whole point of the noise is that one grid step cannot be told apart,
    # but a quarter of the range can, at 100,000 reports.
    assert chi_square_p_value(node_samples[2], value_law(mechanism, 5.0, 0, 10), low)[0] < 1e-20
    # Duchi's high and low swapped (the last two reports).
    swapped = np.concatenate([law[:-2], law[-1:], law[-2:-1]])
    assert chi_square_p_value(node_samples[2], swapped, low)[0] < 1e-20
    # The Duchi part's threshold at k + 100 instead of k.
    shifted = law.copy()
    high = (mechanism.duchi_base + 350 * mechanism.duchi_slope) / WORDS
    shifted[-2:] = (1 - mechanism.piecewise_probability) * np.array([1 - high, high])
    shifted /= shifted.sum()
    assert chi_square_p_value(node_samples[2], shifted, low)[0] < 1e-6


def test_the_chi_square_check_can_fail_for_the_one_bit_mechanism(node_samples):
    """One-bit reports of 2.50037 at epsilon = 1 against the laws of plausible bugs: refused."""
    index = next(
        i
        for i, (kind, eps, value, _) in enumerate(CASES)
        if kind is OneBitNumeric and eps == 1.0 and value == 2.50037
    )
    mechanism = OneBitNumeric(0, 10, 1.0)
    counts = node_samples[index]
    law = value_law(mechanism, 2.50037, 0, 10)
    # 0 and 1 swapped (the comparison the wrong way round).
    assert chi_square_p_value(counts, law[::-1], 0)[0] < 1e-20
    # The threshold at k + 100 instead of k.
    high = (mechanism.duchi_base + 350 * mechanism.duchi_slope) / WORDS
    assert chi_square_p_value(counts, np.array([1 - high, high]), 0)[0] < 1e-20
    # A fair coin, as if the report ignored the value.
    assert chi_square_p_value(counts, np.array([0.5, 0.5]), 0)[0] < 1e-20


# --------------------------------------------------------------------------- chosen words

HYBRID_1 = HybridNumeric(0, 10, 1.0).browser_parameters()
LAPLACE_1 = GridLaplace(0, 10, 1.0).browser_parameters()
ONE_BIT_1 = OneBitNumeric(0, 10, 1.0).browser_parameters()


def test_the_parameters_of_the_chosen_word_cases():
    """The literals the cases below are worked out from."""
    assert HYBRID_1 == {
        "steps": 1000,
        "width": 708,
        "window_threshold": 2826373224,
        "piecewise_threshold": 1786608622,
        "duchi_base": 1155094648,
        "duchi_slope": 1984778,
    }
    assert LAPLACE_1 == {
        "steps": 1000,
        "scale_numerator": 1_000_000,
        "scale_denominator": 1000,
        "bound": 69078,
    }
    # The one-bit mechanism's integers are the hybrid's Duchi part's at the same epsilon.
    assert ONE_BIT_1 == {"steps": 1000, "duchi_base": 1155094648, "duchi_slope": 1984778}
    # Duchi's threshold at k = 250: T0 + 250 Delta; at k = 251 one Delta more; at k = 1000 it is
    # 2^32 - T0, by the symmetry T0 + 500 Delta = 2^31.
    assert 1155094648 + 250 * 1984778 == 1651289148
    assert 1155094648 + 251 * 1984778 == 1653273926
    assert 1155094648 + 1000 * 1984778 == WORDS - 1155094648 == 3139872648
    # 2.50037 on [0, 10] is at 250.037 on the grid: rounding goes up below floor(0.037 * 2^32).
    assert (
        math.floor((float(privacy.numeric_grid.grid_position(2.50037, 0, 10)) - 250) * WORDS)
        == ROUND_UP
    )
    # uniformBelow(708) rejects words from 2^32 - 2^32 % 708 = 4294966596 on.
    assert WORDS - WORDS % 708 == 4294966596


ROUND_UP = 158913789  # floor(frac * 2^32) for 2.50037 on [0, 10]
PIECE, DUCHI = 0, 1786608622  # part words: the piecewise part below A, Duchi's from A on
INSIDE, OUTSIDE = 2826373223, 2826373224  # window words: K - 1 is inside, K is not

# (value, mechanism, params, words, expected report, words drawn). The hybrid's noise is six
# draws (rounding, part, window, offset among 708, outside among 1000, Duchi); reports of the
# piecewise part are k + offset inside the window, or the outside cell (moved up by w = 708 from
# k on); Duchi's are 1708 (low) and 1709 (high).
CHOSEN = [
    (2.5, "hybrid", HYBRID_1, [0, PIECE, INSIDE, 5, 7, 0], 255, 6),  # k = 250, exactly on the grid
    (2.5, "hybrid", HYBRID_1, [WORDS - 1, PIECE, 0, 707, 7, 0], 957, 6),  # the window's last cell
    (2.5, "hybrid", HYBRID_1, [0, PIECE, OUTSIDE, 5, 249, 0], 249, 6),  # below the window
    (2.5, "hybrid", HYBRID_1, [0, PIECE, OUTSIDE, 5, 250, 0], 958, 6),  # above it: 250 + 708
    (2.5, "hybrid", HYBRID_1, [0, PIECE, OUTSIDE, 5, 999, 0], 1707, 6),  # the last cell
    (2.5, "hybrid", HYBRID_1, [0, DUCHI, 0, 0, 0, 1651289147], 1709, 6),  # high below T0 + 250D
    (2.5, "hybrid", HYBRID_1, [0, DUCHI, 0, 0, 0, 1651289148], 1708, 6),  # low from it on
    (2.5, "hybrid", HYBRID_1, [0, WORDS - 1, 0, 0, 0, WORDS - 1], 1708, 6),
    # Rounding: 250.037 goes to 251 when the word is below ROUND_UP, else stays at 250.
    (2.50037, "hybrid", HYBRID_1, [ROUND_UP - 1, PIECE, INSIDE, 0, 0, 0], 251, 6),
    (2.50037, "hybrid", HYBRID_1, [ROUND_UP, PIECE, INSIDE, 0, 0, 0], 250, 6),
    # Clipping: -3 is 0 and 12 is 10 (k = 1000, window 1000 .. 1707).
    (-3.0, "hybrid", HYBRID_1, [0, PIECE, INSIDE, 3, 0, 0], 3, 6),
    (12.0, "hybrid", HYBRID_1, [0, PIECE, INSIDE, 3, 0, 0], 1003, 6),
    (12.0, "hybrid", HYBRID_1, [0, PIECE, OUTSIDE, 3, 999, 0], 999, 6),
    (12.0, "hybrid", HYBRID_1, [0, DUCHI, 0, 0, 0, WORDS // 2 + 500 * 1984778 - 1], 1709, 6),
    # uniformBelow(708) draws again at 4294966596 and above.
    (2.5, "hybrid", HYBRID_1, [0, PIECE, INSIDE, 4294966596, WORDS - 1, 708 + 9, 0, 0], 259, 8),
    # Laplace (t = 10^6, s = 1000): U = 0 (word 0); Bernoulli(exp(0)) draws one word, always
    # true; V counts Bernoulli(exp(-1)) successes: the first is K = 1 true (any word mod 1),
    # K = 2 true (word 0 mod 2), K = 3 false (word 2 mod 3 = 2), K odd so true; the second is
    # K = 1 true, K = 2 false (word 1 mod 2 = 1), K even so false: V = 1. X = U + t V = 10^6,
    # Y = X div s = 1000, and the sign word below 2^31 makes it -1000. k = 500 gives -500.
    (5.0, "laplace", LAPLACE_1, [0, 0, 0, 0, 0, 2, 0, 1, 0], -500, 9),
    (5.0, "laplace", LAPLACE_1, [0, 0, 0, 0, 0, 2, 0, 1, WORDS // 2], 1500, 9),
    # U = 999,999 (word 999999 mod 10^6): exp(-0.999999) at K = 1 true (word 0 < 999999),
    # K = 2 false (word 999999 mod 2 * 10^6 = 999999, not below); K even so false: try again.
    # Then U = 500 (word 500): Bernoulli(exp(-0.0005)): K = 1 false (word 500 mod 10^6 = 500,
    # not below 500), K odd so true; V = 0 (K = 1 true, K = 2 false: word 1); Y = 0 and a
    # positive sign (word 2^31): Z = 0. A negative zero would be drawn again.
    (5.0, "laplace", LAPLACE_1, [0, 999999, 0, 999999, 500, 500, 0, 1, WORDS // 2], 500, 9),
    (5.0, "laplace", LAPLACE_1, [0, 500, 500, 0, 1, 0, 500, 500, 0, 1, WORDS // 2], 500, 11),
    # The clamp: k = 0 and the largest Z is still -B at most.
    (0.0, "laplace", {**LAPLACE_1, "bound": 900}, [0, 0, 0, 0, 0, 2, 0, 1, 0], -900, 9),
    # One-bit: two draws (rounding, then Duchi's word); 1 when the word is below T0 + k Delta.
    (2.5, "one_bit", ONE_BIT_1, [0, 1651289147], 1, 2),  # k = 250: T0 + 250 Delta - 1 is below
    (2.5, "one_bit", ONE_BIT_1, [WORDS - 1, 1651289148], 0, 2),  # ... T0 + 250 Delta is not
    (2.5, "one_bit", ONE_BIT_1, [0, 0], 1, 2),
    (2.5, "one_bit", ONE_BIT_1, [0, WORDS - 1], 0, 2),
    # Rounding: 250.037 goes to 251 below ROUND_UP, and T0 + 250 Delta is below T0 + 251 Delta.
    (2.50037, "one_bit", ONE_BIT_1, [ROUND_UP - 1, 1651289148], 1, 2),
    (2.50037, "one_bit", ONE_BIT_1, [ROUND_UP, 1651289148], 0, 2),
    (2.50037, "one_bit", ONE_BIT_1, [ROUND_UP - 1, 1653273926], 0, 2),
    # The bounds (and clipping beyond them): k = 0 has threshold T0, k = 1000 has 2^32 - T0.
    (0.0, "one_bit", ONE_BIT_1, [0, 1155094647], 1, 2),
    (-3.0, "one_bit", ONE_BIT_1, [0, 1155094648], 0, 2),
    (10.0, "one_bit", ONE_BIT_1, [0, 3139872647], 1, 2),
    (12.0, "one_bit", ONE_BIT_1, [0, 3139872648], 0, 2),
]


@pytest.fixture(scope="module")
def chosen_outputs(tmp_path_factory):
    calls = ",\n".join(
        f"withWords({json.dumps(words)}, () => rr.randomizeNumber({json.dumps(value)}, 0, 10, "
        f"{json.dumps(name)}, {json.dumps(params)}))"
        for value, name, params, words, _, _ in CHOSEN
    )
    return run_node(
        tmp_path_factory.mktemp("chosen"), f"{STUB}\nconsole.log(JSON.stringify([{calls}]));"
    )


@pytest.mark.parametrize("index", range(len(CHOSEN)))
def test_reports_for_chosen_words(chosen_outputs, index):
    value, name, params, words, expected, drawn = CHOSEN[index]
    result = chosen_outputs[index]
    assert result["output"] == expected, (value, name, words)
    assert result["drawn"] == drawn
    assert result["left"] == len(words) - drawn
    assert all(c == {"type": "Uint32Array", "length": 1} for c in result["calls"])


def test_the_python_law_gives_the_chosen_reports_positive_probability():
    """Every report above is one the exact law allows from its grid index."""
    mechanisms = {"hybrid": HybridNumeric(0, 10, 1.0), "one_bit": OneBitNumeric(0, 10, 1.0)}
    checked = 0
    for value, name, _, _, expected, _ in CHOSEN:
        if name not in mechanisms:
            continue
        low, _ = mechanisms[name].output_range
        assert value_law(mechanisms[name], value, 0, 10)[expected - low] > 0
        checked += 1
    assert checked == 26


def test_noise_once_reports_for_any_value(tmp_path):
    """drawNumericNoise then numericReport: the page re-sends from the same noise."""
    result = run_node(
        tmp_path,
        f"""{STUB}
        const params = {json.dumps(HYBRID_1)};
        const drawn = withWords([0, 0, 0, 5, 7, 0], () => rr.drawNumericNoise("hybrid", params));
        const noise = drawn.output;
        const report = (v) => rr.numericReport(v, 0, 10, "hybrid", params, noise);
        const reports = [2.5, 2.5, 7.5].map(report);
        const fits = [
          rr.numericNoiseFits(noise, "hybrid", params),
          rr.numericNoiseFits({{ ...noise, offset: 708 }}, "hybrid", params),
          rr.numericNoiseFits({{ ...noise, part: -1 }}, "hybrid", params),
          rr.numericNoiseFits(noise, "laplace", {json.dumps(LAPLACE_1)}),
          rr.numericNoiseFits(null, "hybrid", params),
        ];
        console.log(JSON.stringify({{ noise, drawn: drawn.drawn, reports, fits }}));
        """,
    )
    assert result["noise"] == {
        "rounding": 0,
        "part": 0,
        "window": 0,
        "offset": 5,
        "outside": 7,
        "duchi": 0,
    }
    assert result["drawn"] == 6
    assert result["reports"] == [255, 255, 755]  # no words drawn: the same noise, k + 5
    assert result["fits"] == [True, False, False, False, False]


def test_one_bit_noise_once_reports_for_any_value(tmp_path):
    """The one-bit noise is two words, drawn before the value is known; the report of each
    value follows from them, rising from 0 to 1 where T0 + k Delta passes Duchi's word."""
    result = run_node(
        tmp_path,
        f"""{STUB}
        const params = {json.dumps(ONE_BIT_1)};
        const drawn = withWords([0, 1651289148], () => rr.drawNumericNoise("one_bit", params));
        const noise = drawn.output;
        const report = (v) => rr.numericReport(v, 0, 10, "one_bit", params, noise);
        const reports = [0, 2.5, 2.501, 2.51, 10, 2.5].map(report);
        const direct = [
          rr.oneBitReport(250, params, 1651289147),
          rr.oneBitReport(250, params, 1651289148),
          rr.oneBitReport(0, params, 0),
          rr.oneBitReport(1000, params, {WORDS - 1}),
        ];
        const fits = [
          rr.numericNoiseFits(noise, "one_bit", params),
          rr.numericNoiseFits({{ ...noise, duchi: {WORDS} }}, "one_bit", params),
          rr.numericNoiseFits({{ ...noise, duchi: -1 }}, "one_bit", params),
          rr.numericNoiseFits({{ rounding: 0 }}, "one_bit", params),
          rr.numericNoiseFits({{ ...noise, rounding: 0.5 }}, "one_bit", params),
          rr.numericNoiseFits(noise, "hybrid", {json.dumps(HYBRID_1)}),
          rr.numericNoiseFits(noise, "laplace", {json.dumps(LAPLACE_1)}),
          rr.numericNoiseFits(noise, "one_bit", {{ ...params, steps: 999 }}),
        ];
        console.log(JSON.stringify({{ noise, drawn: drawn.drawn, reports, direct, fits }}));
        """,
    )
    assert result["noise"] == {"rounding": 0, "duchi": 1651289148}
    assert result["drawn"] == 2
    # k = 0, 250 (threshold equal to the word: 0), 250.1 and 251 (rounding word 0 goes up:
    # k = 251 for both), 1000, and 250 again from the same noise.
    assert result["reports"] == [0, 0, 1, 1, 1, 0]
    assert result["direct"] == [1, 0, 1, 0]
    assert result["fits"] == [True, False, False, False, False, False, False, False]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('rr.randomizeNumber(1, 5, 5, "hybrid", HYBRID)', "lo must be below hi"),
        ('rr.randomizeNumber(NaN, 0, 5, "hybrid", HYBRID)', "value must be a finite number"),
        ('rr.randomizeNumber("3", 0, 5, "hybrid", HYBRID)', "value must be a finite number"),
        (
            'rr.randomizeNumber(1, 0, 5, "duchi", HYBRID)',
            'mechanism must be "laplace", "hybrid" or "one_bit"',
        ),
        ('rr.randomizeNumber(1, 0, 5, "one_bit", {...ONE_BIT, steps: 999})', "steps must be even"),
        ('rr.randomizeNumber(1, 0, 5, "one_bit", {...ONE_BIT, steps: 998})', "must be 2^31"),
        ('rr.randomizeNumber(1, 0, 5, "one_bit", {...ONE_BIT, duchi_base: 0})', "duchi_base must"),
        (
            'rr.randomizeNumber(1, 0, 5, "one_bit", {...ONE_BIT, duchi_slope: 1.5})',
            "duchi_slope must be an integer",
        ),
        ('rr.randomizeNumber(1, 0, 5, "one_bit", {steps: 1000})', "duchi_base must be an integer"),
        ('rr.randomizeNumber(1, 0, 5, "one_bit", null)', "params must be an object"),
        ('rr.drawNumericNoise("one_bit", {...ONE_BIT, duchi_slope: 7})', "must be 2^31"),
        ('rr.numericReport(1, 0, 5, "one_bit", ONE_BIT, {rounding: 0})', "noise must come from"),
        ("rr.oneBitReport(1001, ONE_BIT, 0)", "k must be an integer in 0 .. 1000"),
        ("rr.oneBitReport(5, ONE_BIT, 2 ** 32)", "duchi must be an integer"),
        ('rr.randomizeNumber(1, 0, 5, "laplace", HYBRID)', "scale_numerator must be an integer"),
        ('rr.randomizeNumber(1, 0, 5, "hybrid", {...HYBRID, width: 0})', "width must be"),
        ('rr.randomizeNumber(1, 0, 5, "hybrid", {...HYBRID, duchi_slope: 7})', "must be 2^31"),
        ('rr.randomizeNumber(1, 0, 5, "hybrid", null)', "params must be an object"),
        ('rr.numericReport(1, 0, 5, "hybrid", HYBRID, {})', "noise must come from"),
    ],
)
def test_bad_arguments_throw_before_any_word_is_drawn(tmp_path, call, message):
    result = run_node(
        tmp_path,
        f"""{STUB}
        const HYBRID = {json.dumps(HYBRID_1)};
        const ONE_BIT = {json.dumps(ONE_BIT_1)};
        console.log(JSON.stringify(withWords([1, 2, 3, 4, 5, 6], () => {call})));
        """,
    )
    assert result["output"].startswith("RangeError: ")
    assert message in result["output"]
    assert result["drawn"] == 0
