"""One rule for rounding what people and programs read: estimates to the nearest, ranges outward,
privacy losses and margins up.

A range rounded to the nearest could show less than it guarantees (0 to 48.65% shown as "0 to
48.6%" leaves out 48.61%); rounded outward it still covers all it does. An epsilon, a margin or
an "at most" bound rounded up never promises more privacy or precision than there is. Pages, the
projector, the API's words and the CSV files all round through here.

A figure within :data:`TOLERANCE` of a step is taken to be on it: floating-point noise (ln 3
summed ten times, 0.35 computed as 0.34999999999999998) must not move it a whole step.
"""

from __future__ import annotations

import math

#: Far below any difference that matters, far above floating-point noise.
TOLERANCE = 1e-9


def _per_unit(step: float) -> float:
    """Steps per unit: 10,000 for 0.0001, exactly. Multiplying by it is exact where dividing
    by the step is not (0.35 / 0.0001 is 3499.9999999999995; 0.35 * 10000 is 3500)."""
    inverse = 1.0 / step
    whole = round(inverse)
    return float(whole) if whole and abs(inverse - whole) < 1e-6 * whole else inverse


def down(value: float, step: float) -> float:
    """``value`` rounded down to a multiple of ``step`` (a range's lower end)."""
    per_unit = _per_unit(step)
    return math.floor((value + TOLERANCE) * per_unit) / per_unit + 0.0


def up(value: float, step: float) -> float:
    """``value`` rounded up to a multiple of ``step`` (a range's upper end, an epsilon)."""
    per_unit = _per_unit(step)
    return math.ceil((value - TOLERANCE) * per_unit) / per_unit + 0.0


def nearest(value: float, step: float) -> float:
    """``value`` rounded to the nearest multiple of ``step`` (an estimate)."""
    per_unit = _per_unit(step)
    return round(value * per_unit) / per_unit + 0.0


def significant_step(value: float, digits: int) -> float:
    """The step of ``digits`` significant digits at ``value`` (3 digits at 7.3: 0.01)."""
    return 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)


def text(value: float, places: int) -> str:
    """A rounded figure as text without needless decimals: 40.0 -> '40', 2.50 -> '2.5'.

    No thousands separator (the builder's fields read these back, where a comma is a decimal
    comma), and negative zero shows as '0'.
    """
    written = f"{value:.{max(0, places)}f}"
    written = written.rstrip("0").rstrip(".") if "." in written else written
    return "0" if written in ("-0", "") else written


def places_of(step: float) -> int:
    """Decimals a multiple of ``step`` needs (0.001 -> 3, 5 -> 0)."""
    return max(0, -math.floor(math.log10(step) + TOLERANCE))
