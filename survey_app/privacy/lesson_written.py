"""The lesson's formulas written so that they add up: each operand to as many decimals as
the reader's own arithmetic needs to give the result shown (survey_app.privacy.lesson)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "AGREEMENT",
    "MOST_PLACES",
    "RESULT_PLACES",
    "CeilingWorking",
    "agreeing_places",
    "ceiling_working",
    "odds_to_probability",
]

#: Decimals of a formula's result (a share to a tenth of a percentage point).
RESULT_PLACES = 3
#: The most decimals a formula's operand is written with.
MOST_PLACES = 9
#: How far from its written result the reader's own arithmetic may land, in units of the
#: result's last decimal: short of one half, so that no tie decides the last digit.
AGREEMENT = 0.49


def agreeing_places(
    result_of: Callable[[int], float],
    result: float,
    first: int = 3,
    result_places: int = RESULT_PLACES,
) -> int:
    """The fewest decimals (``first`` or more) to write a formula's operands with so that the
    reader's arithmetic on them, ``result_of(places)``, gives ``result`` to its
    ``result_places`` decimals: every formula of the lesson adds up as written."""
    written = round(float(result), result_places)
    for places in range(first, MOST_PLACES + 1):
        if abs(result_of(places) - written) <= AGREEMENT * 10.0**-result_places:
            return places
    return MOST_PLACES


def odds_to_probability(odds: float) -> float:
    """Odds as a probability: ``odds / (1 + odds)`` (1 for infinite odds)."""
    return 1.0 if math.isinf(odds) else odds / (1.0 + odds)


@dataclass(frozen=True)
class CeilingWorking:
    """Step 6's ceiling written out: the prior odds ``b / (1 - b)`` (to ``places`` decimals)
    times ``keep / other`` (``(1 - p) / p``, or P / Q) make ``ceiling_odds``, a chance of
    ``ceiling``; divided by it, ``floor_odds``, a chance of ``floor``."""

    prior_odds: float
    ceiling_odds: float
    ceiling: float
    floor_odds: float
    floor: float
    places: int


def ceiling_working(prior: float, keep: float, other: float) -> CeilingWorking | None:
    """The ceiling's figures for a prior share, the prior odds written to enough decimals that
    the reader's arithmetic gives both chances as the exact ones to :data:`RESULT_PLACES`
    decimals (None for a prior of 0 or 1: its odds are 0 or infinite, nothing to learn)."""
    if prior in (0.0, 1.0):
        return None
    prior_odds = prior / (1.0 - prior)
    ratio = keep / other
    targets = (prior_odds * ratio, prior_odds / ratio)

    def figures(d: int) -> tuple[float, float, float]:
        odds = round(prior_odds, d)
        return odds, round(odds * ratio, d), round(odds / ratio, d)

    def agrees(d: int) -> bool:
        _, up, down = figures(d)
        return all(
            abs(odds_to_probability(mine) - round(odds_to_probability(exact), RESULT_PLACES))
            <= AGREEMENT * 10.0**-RESULT_PLACES
            for mine, exact in zip((up, down), targets, strict=True)
        )

    places = next((d for d in range(3, MOST_PLACES + 1) if agrees(d)), MOST_PLACES)
    odds, up, down = figures(places)
    return CeilingWorking(
        odds, up, odds_to_probability(up), down, odds_to_probability(down), places
    )
