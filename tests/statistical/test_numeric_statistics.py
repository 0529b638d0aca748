"""Numeric questions over many simulated classes (issue 14): unbiased means, covering intervals.

Each test randomizes the same class REPETITIONS times from a fixed seed with the mechanisms'
reference samplers (which draw from the exact laws the browser's draws are checked against in
tests/unit/privacy/test_numeric_node.py) and estimates each class's mean with ``estimate_mean``. The
seeds are fixed, so a run is reproducible; each comment says how unlikely a failure of a correct
implementation would be for another seed.
"""

import functools

import numpy as np
import pytest

from survey_app.privacy import GridLaplace, HybridNumeric, OneBitNumeric
from survey_app.privacy.numeric_grid import grid_position, value_of_grid_index

pytestmark = pytest.mark.statistical

REPETITIONS = 4000
LO, HI = 0.0, 40.0  # "hours a week on this course"
EPSILONS = [0.5, 1.0, 3.0]
MECHANISMS = [GridLaplace, HybridNumeric]
CLASS_SIZES = [40, 1000]


def _population(kind: str, n: int) -> np.ndarray:
    """True answers of a class of n: skewed with some beyond the bounds, or at the worst cases."""
    rng = np.random.default_rng([2026, 14, n, len(kind)])
    if kind == "skewed":  # mostly a few hours, a long tail; some answer -2 or 60 (clipped)
        values = rng.gamma(2.0, 4.0, n)
        values[:3] = [-2.0, 60.0, 41.5]
        return values
    if kind == "ends":  # every answer at an end: the piecewise part's worst case
        return np.where(np.arange(n) % 2 == 0, LO, HI)
    return np.full(n, (LO + HI) / 2)  # "middle": Duchi's worst case


def _truth(values: np.ndarray) -> float:
    """The mean the estimate is unbiased for: the values clipped to [lo, hi]."""
    return float(value_of_grid_index(grid_position(values, LO, HI).mean(), LO, HI))


@functools.cache
def _estimates(kind_name: str, epsilon: float, population: str, n: int):
    """(means, half-widths at 90/95/99 %) of REPETITIONS classes of the same people."""
    mechanism = {"laplace": GridLaplace, "hybrid": HybridNumeric}[kind_name](LO, HI, epsilon)
    rng = np.random.default_rng(
        [2026, 14, round(epsilon * 100), n, len(population), len(kind_name)]
    )
    values = np.broadcast_to(_population(population, n), (REPETITIONS, n))
    reports = mechanism.randomize(values, rng)
    estimates = [mechanism.estimate_mean(row, 0.95) for row in reports]
    means = np.array([estimate.mean for estimate in estimates])
    assert {estimate.n for estimate in estimates} == {n}
    return mechanism, means, estimates


@pytest.mark.parametrize("kind", MECHANISMS, ids=lambda k: k.name)
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("population", ["skewed", "ends", "middle"])
def test_mean_estimate_is_unbiased(kind, epsilon, population):
    n = 1000
    mechanism, means, _ = _estimates(kind.name, epsilon, population, n)
    truth = _truth(_population(population, n))
    # Each class's estimate has variance at most V / n (V the worst-case variance of one
    # answer), so the average of REPETITIONS of them is within 5 of its standard deviations
    # sqrt(V / (n R)) of the expected value except with probability below 1e-6 (the average of
    # 4,000 independent estimates is normal to within far less than that); a bias of a fifth
    # of a grid step would already exceed it for the hybrid at epsilon = 3.
    tolerance = 5 * np.sqrt(mechanism.worst_case_variance / (n * REPETITIONS))
    assert abs(means.mean() - truth) <= tolerance, (means.mean(), truth, tolerance)
    # The estimates really vary as much as the noise says (not, say, a constant): their
    # variance is below the worst case and, for these classes, above a tenth of it.
    assert (
        0.1 * mechanism.worst_case_variance / n
        < means.var()
        <= 1.1 * (mechanism.worst_case_variance / n)
    )


@pytest.mark.parametrize("kind", MECHANISMS, ids=lambda k: k.name)
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("population", ["skewed", "ends", "middle"])
@pytest.mark.parametrize("n", CLASS_SIZES)
def test_interval_covers_the_truth_at_least_as_often_as_stated(kind, epsilon, population, n):
    mechanism, means, estimates = _estimates(kind.name, epsilon, population, n)
    truth = _truth(_population(population, n))
    for confidence in [0.9, 0.95, 0.99]:
        half_width = mechanism.half_width(n, confidence)
        assert estimates[0].half_width == mechanism.half_width(n, 0.95)
        low = np.clip(means - half_width, LO, HI)
        high = np.clip(means + half_width, LO, HI)
        coverage = np.mean((low <= truth) & (truth <= high))
        # The guarantee is at least `confidence` for every class; the observed share of 4,000
        # classes falls more than 4 binomial standard deviations below a true coverage of
        # exactly `confidence` with probability below 4e-5 (at 99 %: 0.0063).
        slack = 4 * np.sqrt(confidence * (1 - confidence) / REPETITIONS)
        assert coverage >= confidence - slack, (confidence, coverage)
    # The intervals are honest but not vacuous: at n = 1000 they are narrower than the range.
    if n == 1000:
        assert 2 * mechanism.half_width(n, 0.95) < HI - LO


# Issue 19, item 4: the ranges from each mechanism's exact law, at the worst cases.
WORST_CASE_REPETITIONS = 20_000
WORST_CASES = {
    "all_at_one_bound": lambda n: np.full(n, LO),
    "half_at_each": lambda n: np.where(np.arange(n) % 2 == 0, LO, HI),
    "all_at_the_midpoint": lambda n: np.full(n, (LO + HI) / 2),
}


@pytest.mark.parametrize("kind", [GridLaplace, HybridNumeric, OneBitNumeric], ids=lambda k: k.name)
@pytest.mark.parametrize("epsilon", [np.log(3.0), 1.0])
@pytest.mark.parametrize("case", WORST_CASES)
@pytest.mark.parametrize("n", [40, 200])
def test_exact_law_ranges_cover_at_the_worst_cases(kind, epsilon, case, n):
    mechanism = kind(LO, HI, epsilon)
    values = WORST_CASES[case](n)
    rng = np.random.default_rng([2026, 19, 4, n, len(case), len(kind.name), round(epsilon * 1e3)])
    reports = mechanism.randomize(np.broadcast_to(values, (WORST_CASE_REPETITIONS, n)), rng)
    means = value_of_grid_index(mechanism.estimate_of_output(reports).mean(axis=1), LO, HI)
    assert mechanism.estimate_mean(reports[0]).mean == pytest.approx(means[0], abs=1e-9)
    half_width = mechanism.half_width(n, 0.95)
    assert mechanism.interval_bound(n, 0.95) in {"exact", "chernoff", "binomial"}
    misses = np.mean(np.abs(means - _truth(values)) > half_width)
    # Guaranteed: at most 5% of classes missed. At a true miss rate of exactly 5% the share of
    # 20,000 classes exceeds 0.05 by 4 binomial standard deviations (0.0062) with probability
    # below 4e-5; Laplace's exact range sits close to 5%, the others below it.
    assert misses <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / WORST_CASE_REPETITIONS), misses
    if kind is GridLaplace:  # exact, so not needlessly wide: about 4.7% of classes miss
        assert misses >= 0.035, misses
