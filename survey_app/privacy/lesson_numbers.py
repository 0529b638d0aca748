"""The lesson's figures for a number question, step by step, from its numeric mechanism.

The same steps as :mod:`survey_app.privacy.lesson` tells for shares, with the mechanism a
number question's phones ran (:mod:`survey_app.privacy.numeric`):

4. how sure: Chebyshev with the worst-case variance V of one respondent's estimated value,
   ``sqrt(V / (delta n))`` (plus the mechanism's bias bound, when it has one), beside the
   dashboard's guaranteed range (the narrowest bound the mechanism proves);
5. re-runs: the average over :data:`~survey_app.privacy.lesson.RERUNS` re-randomizations of a
   class in which everyone holds the class's average, drawn with a seeded generator;
6. what one report tells: for a student whose number is the lowest or the highest allowed, as
   likely as not, the most telling report moves the odds by at most ``e^eps``;
7. the trade-off over p: epsilon and the guaranteed range at this class size, with the
   mechanism the survey would use at each epsilon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from survey_app.privacy.lesson import (
    RERUN_SEED,
    RERUNS,
    TRADE_OFF_FLIP_PROBABILITIES,
    RerunSpread,
)
from survey_app.privacy.lesson_written import agreeing_places
from survey_app.privacy.numeric import numeric_mechanism
from survey_app.privacy.numeric_base import NumericMechanism
from survey_app.privacy.numeric_grid import NUMERIC_GRID_STEPS
from survey_app.privacy.parameters import (
    check_confidence,
    check_count,
    epsilon_from_flip_probability,
)

__all__ = [
    "NumberReruns",
    "NumberReport",
    "NumberSureness",
    "NumberTradeOffRow",
    "number_report",
    "number_reruns",
    "number_sureness",
    "number_trade_off",
]


@dataclass(frozen=True)
class NumberSureness:
    """Step 4 for a number: ``h = sqrt(V / (delta n)) + bias``, V written to ``places``."""

    n: int
    delta: float
    variance: float
    places: int
    #: The mechanism's bias bound in the unit (0 for an unbiased one), added to Chebyshev.
    bias: float
    half_width: float


def number_sureness(
    mechanism: NumericMechanism, n: int, confidence: float, result_places: int
) -> NumberSureness:
    """Chebyshev with the worst-case variance, V written to enough decimals that the formula
    gives the half-width to its ``result_places`` (the question's figures')."""
    respondents = check_count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have a margin")
    delta = round(1.0 - check_confidence(confidence), 6)
    variance = mechanism.worst_case_variance
    half_width = mechanism.chebyshev_half_width(respondents, confidence)
    bias = max(0.0, half_width - math.sqrt(variance / (delta * respondents)))
    bias = round(bias, result_places + 2) if bias > 1e-9 else 0.0

    def written(d: int) -> float:
        return math.sqrt(round(variance, d) / (delta * respondents)) + bias

    places = agreeing_places(written, half_width, first=2, result_places=result_places)
    return NumberSureness(respondents, delta, round(variance, places), places, bias, half_width)


@dataclass(frozen=True)
class NumberReruns(RerunSpread):
    """The class's average over re-runs of one class's randomization, and what theory says."""

    n: int
    #: The value everyone of the class re-run holds (the class's average, within the bounds).
    value: float
    estimates: np.ndarray
    expected_std: float
    edges: np.ndarray
    counts: np.ndarray


def number_reruns(
    mechanism: NumericMechanism,
    value: float,
    n: int,
    runs: int = RERUNS,
    seed: int = RERUN_SEED,
    bins: int = 24,
) -> NumberReruns:
    """Step 5: re-randomize a class of n who all hold ``value`` (clipped to the bounds),
    ``runs`` times, with the mechanism's own sampler seeded with ``seed``, and average each
    run's unbiased estimates. Theory: each estimate's variance given the grid index, plus the
    randomized rounding's ``f (1 - f)`` grid steps squared, over n."""
    respondents = check_count("n", n)
    if respondents == 0 or check_count("runs", runs) < 2:
        raise ValueError("n must be at least 1 and runs at least 2")
    held = min(mechanism.hi, max(mechanism.lo, float(value)))
    rng = np.random.default_rng(seed)
    reports = mechanism.randomize(np.full(respondents * runs, held), rng)
    indices = mechanism.estimate_of_output(reports).reshape(runs, respondents).mean(axis=1)
    estimates = mechanism.lo + mechanism.step * indices
    position = (held - mechanism.lo) / mechanism.step
    below = min(int(math.floor(position)), NUMERIC_GRID_STEPS - 1)
    above_share = position - below
    spread = mechanism.variance_given_grid_index(np.array([below, below + 1]))
    variance = (
        (1.0 - above_share) * spread[0] + above_share * spread[1] + above_share * (1 - above_share)
    )
    counts, edges = np.histogram(estimates, bins=bins)
    return NumberReruns(
        n=respondents,
        value=held,
        estimates=estimates,
        expected_std=math.sqrt(variance / respondents) * mechanism.step,
        edges=edges,
        counts=counts,
    )


@dataclass(frozen=True)
class NumberReport:
    """What the most telling report says of a student who holds the lowest or the highest
    number allowed, as likely as not: the odds move by ``ratio``, at most ``e^eps``."""

    epsilon: float
    #: Pr[report | highest] / Pr[report | lowest] for the report that tells the most.
    ratio: float
    #: The chance of "the highest" after that report: ``ratio / (1 + ratio)``.
    after: float
    #: ``e^eps / (1 + e^eps)``: what no report can pass.
    ceiling: float
    #: ``e^eps``: the most any report can multiply the odds by.
    odds: float


def number_report(mechanism: NumericMechanism) -> NumberReport:
    """Step 6 for a number, from the mechanism's exact law at the bounds' grid indices."""
    highest, lowest = mechanism.pmf(NUMERIC_GRID_STEPS), mechanism.pmf(0)
    seen = (highest > 0) & (lowest > 0)
    ratios = np.where(seen, highest / np.where(seen, lowest, 1.0), 0.0)
    ratio = float(ratios.max())
    odds = math.exp(mechanism.epsilon)
    return NumberReport(mechanism.epsilon, ratio, ratio / (1.0 + ratio), odds / (1.0 + odds), odds)


@dataclass(frozen=True)
class NumberTradeOffRow:
    flip_probability: float
    epsilon: float
    #: The guaranteed half-width a class of n gets, in the question's unit.
    half_width: float
    is_current: bool


def number_trade_off(
    mechanism: NumericMechanism,
    named: str | None,
    planned: int,
    n: int,
    flip_probability: float,
    confidence: float,
    highest_flip_probability: float,
) -> list[NumberTradeOffRow]:
    """Step 7 for a number: at each p of the table (up to the highest a number question
    allows) and the survey's own, epsilon and the guaranteed half-width with n answers, with
    the mechanism the survey would get there (``named``, else the one chosen for
    ``planned``)."""
    respondents = max(1, check_count("n", n))
    rows = []
    for p in sorted({*TRADE_OFF_FLIP_PROBABILITIES, float(flip_probability)}):
        if p > highest_flip_probability:
            continue
        epsilon = epsilon_from_flip_probability(p)
        current = p == float(flip_probability)
        chosen = (
            mechanism
            if current
            else numeric_mechanism(mechanism.lo, mechanism.hi, epsilon, named, planned)
        )
        rows.append(
            NumberTradeOffRow(p, epsilon, chosen.half_width(respondents, confidence), current)
        )
    return rows
