"""Live ranges (survey_app.privacy.live): their widths, their edges, and what they refuse.

How often they miss when looked at after every answer is measured in
tests/statistical/test_live_statistics.py.
"""

import math

import numpy as np
import pytest
from scipy import special

from survey_app.privacy import GridLaplace, HybridNumeric, RandomizedResponse
from survey_app.privacy import live as live_module
from survey_app.privacy.live import (
    live_mean_interval,
    live_mean_interval_from_sum,
    live_mean_margins,
    live_share_interval,
)

KEEP, OTHER = RandomizedResponse(0.25).probabilities  # 0.75 and 0.25, to 2**-32


def _binomial(trials: int, probability: float) -> np.ndarray:
    values = np.arange(trials + 1)
    return np.exp(
        special.gammaln(trials + 1)
        - special.gammaln(values + 1)
        - special.gammaln(trials - values + 1)
        + values * math.log(probability)
        + (trials - values) * math.log1p(-probability)
    )


def _expected_width(n: int, share: float, keep: float = KEEP, other: float = OTHER) -> float:
    """The live range's average width over the exact law of the count, C ~ Bin(t,P)+Bin(n-t,Q)."""
    t = round(share * n)
    law = np.convolve(_binomial(t, keep), _binomial(n - t, other))
    widths = [np.subtract(*live_share_interval(c, n, keep, other)[::-1]) for c in range(n + 1)]
    return float(law @ np.array(widths))


@pytest.mark.parametrize(("n", "target"), [(40, 0.88), (100, 0.60), (300, 0.36)])
def test_share_width_at_the_issue_targets(n, target):
    """p = 0.25, true share 50%, 95%: about 0.80, 0.54 and 0.32 wide on average."""
    assert _expected_width(n, 0.5) <= target


def test_share_range_at_the_expected_count():
    assert live_share_interval(20, 40, KEEP, OTHER) == (0.075, 0.925)
    assert live_share_interval(50, 100, KEEP, OTHER) == (0.23, 0.77)


@pytest.mark.parametrize("flip_probability", [0.1, 0.25, 0.4])
@pytest.mark.parametrize("options", [2, 4])
def test_share_range_is_never_empty_and_moves_with_the_count(flip_probability, options):
    keep, other = RandomizedResponse(flip_probability, options).probabilities
    for n in (1, 2, 7, 40, 60):
        ends = [live_share_interval(c, n, keep, other) for c in range(n + 1)]
        for low, high in ends:
            assert 0.0 <= low <= high <= 1.0
            assert round(low * n) == pytest.approx(low * n) and round(high * n) == pytest.approx(
                high * n
            )
        lows, highs = zip(*ends, strict=True)
        assert list(lows) == sorted(lows) and list(highs) == sorted(highs)


def test_share_range_when_every_share_is_rejected_is_the_nearest_one():
    """No report named it among 40 at p = 0.25 (chance 0.75^40 = 1e-5 even if nobody holds it):
    every share is rejected, and the range is the single share least rejected, 0."""
    assert live_share_interval(0, 40, KEEP, OTHER) == (0.0, 0.0)
    assert live_share_interval(40, 40, KEEP, OTHER) == (1.0, 1.0)


def test_share_range_before_any_answer_is_everything():
    assert live_share_interval(0, 0, KEEP, OTHER) == (0.0, 1.0)


def test_share_range_narrows_towards_the_truth_with_a_million_answers():
    low, high = live_share_interval(500_000, 1_000_000, KEEP, OTHER)
    assert low < 0.5 < high and high - low < 0.01


@pytest.mark.parametrize(
    ("count", "n", "keep", "other", "confidence", "word"),
    [
        (-1, 10, 0.75, 0.25, 0.95, "count"),
        (11, 10, 0.75, 0.25, 0.95, "count"),
        (1.5, 10, 0.75, 0.25, 0.95, "count"),
        (1, True, 0.75, 0.25, 0.95, "n"),
        (1, 10, 0.25, 0.75, 0.95, "keep"),
        (1, 10, 1.0, 0.0, 0.95, "keep"),
        (1, 10, 0.75, 0.25, 1.0, "confidence"),
        (1, 10, 0.75, 0.25, 0.0, "confidence"),
    ],
)
def test_share_range_refuses_bad_input(count, n, keep, other, confidence, word):
    with pytest.raises(ValueError, match=word):
        live_share_interval(count, n, keep, other, confidence)


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.999])
def test_mixture_weights_sum_to_one(confidence):
    """Ville's inequality needs a mixture that starts at 1: the weights must sum to 1."""
    lambdas, log_weights = live_module._mixture(confidence)
    assert np.exp(log_weights).sum() == pytest.approx(1.0, abs=1e-12)
    assert (lambdas > 0).sum() == (lambdas < 0).sum()


# --------------------------------------------------------------------------- numeric averages


@pytest.mark.parametrize("mechanism_type", [HybridNumeric, GridLaplace])
def test_laplace_and_hybrid_cgf_bounds_hold_for_every_grid_index(mechanism_type):
    """Psi(lambda) is at least ln E[e^(lambda (E - k)) | k] from each exact law (some k)."""
    mechanism = mechanism_type(0.0, 40.0, math.log(3.0))
    lambdas, _, bound = live_module._mean_terms(mechanism, 0.95)
    low, high = mechanism.output_range
    estimates = mechanism.estimate_of_output(np.arange(low, high + 1))
    for k in (0, 1, 250, 500, 999, 1000):
        law = mechanism.pmf(k)
        picked = lambdas[:: max(1, len(lambdas) // 40)]
        exact = [special.logsumexp(lam * (estimates - k), b=law) for lam in picked]
        assert np.all(np.array(exact) <= bound[:: max(1, len(lambdas) // 40)] + 1e-12)


@pytest.mark.parametrize("mechanism_type", [HybridNumeric, GridLaplace])
def test_mean_margins_shrink_with_the_class(mechanism_type):
    mechanism = mechanism_type(0.0, 40.0, math.log(3.0))
    halves = [sum(live_mean_margins(mechanism, n)) / 2 for n in (40, 100, 1000, 1_000_000)]
    assert halves == sorted(halves, reverse=True)
    assert halves[-1] < 0.01 * 40


def test_mean_range_at_forty_answers_eps_ln3():
    """The hybrid at epsilon = ln 3 on 0-40: half-width about 19.1 at 40 answers, 12.1 at 100."""
    hybrid = HybridNumeric(0.0, 40.0, math.log(3.0))
    assert sum(live_mean_margins(hybrid, 40)) / 2 < 19.5
    assert sum(live_mean_margins(hybrid, 100)) / 2 < 12.5


def test_mean_range_is_clipped_and_never_empty():
    hybrid = HybridNumeric(0.0, 40.0, math.log(3.0))
    steps = 1000  # NUMERIC_GRID_STEPS
    assert live_mean_interval_from_sum(hybrid, 0, 0.0) == (0.0, 40.0)
    assert live_mean_interval_from_sum(hybrid, 100, 2 * steps * 100) == (40.0, 40.0)
    assert live_mean_interval_from_sum(hybrid, 100, -steps * 100) == (0.0, 0.0)
    low, high = live_mean_interval_from_sum(hybrid, 100, steps / 2 * 100)
    assert low == pytest.approx(20.0 - live_mean_margins(hybrid, 100)[0])
    assert high == pytest.approx(20.0 + live_mean_margins(hybrid, 100)[1])


def test_mean_range_from_reports_uses_their_estimates():
    hybrid = HybridNumeric(0.0, 40.0, math.log(3.0))
    reports = hybrid.randomize(np.full(50, 10.0), np.random.default_rng([2026, 19, 3]))
    total = float(hybrid.estimate_of_output(reports).sum())
    assert live_mean_interval(hybrid, reports) == live_mean_interval_from_sum(hybrid, 50, total)
    assert live_mean_interval(hybrid, []) == (0.0, 40.0)


@pytest.mark.parametrize("outputs", [[0.5], [True], [-1], [10**9]])
def test_mean_range_refuses_reports_the_browser_cannot_send(outputs):
    with pytest.raises(ValueError, match="outputs"):
        live_mean_interval(HybridNumeric(0.0, 40.0, 1.0), outputs)


def test_mean_margins_need_an_answer():
    with pytest.raises(ValueError, match="n"):
        live_mean_margins(HybridNumeric(0.0, 40.0, 1.0), 0)
