"""The grid of a numeric question, its parameter checks, and the types its results come in.

A numeric question has bounds ``[lo, hi]`` (finite, ``lo < hi``). The browser clips the
respondent's true value ``x`` to them and puts it on a grid of ``G + 1`` points
(``G = NUMERIC_GRID_STEPS = 1000`` steps) by *randomized rounding*:

    u = (x - lo) / (hi - lo) * G,    k = floor(u) + Bernoulli(u - floor(u)),

so ``E[k] = u`` and ``Var[k] <= 1/4``. The Bernoulli is one 32-bit word compared with
``floor(frac * 2**32)``: its probability is below ``frac`` by less than ``2**-32``, and the
floating-point ``u`` is off by a few units of 2**-53 G, so ``E[k]`` is within
``NUMERIC_ROUNDING_BIAS = 2**-31`` grid steps of the exact ``u``; every guaranteed half-width adds
that bias. A mechanism then randomizes the grid index ``k``. Each is an epsilon-LDP map from
``{0, ..., G}`` to integers, and the rounding only mixes such maps (``Pr[y | x] = sum_k Pr[k | x]
Pr[y | k]`` lies between ``min_k`` and ``max_k`` of ``Pr[y | k]``), so the whole path from ``x``
to the report is epsilon-LDP too, however the browser's floating point rounds ``u``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from survey_app.privacy.parameters import check_count, check_real

__all__ = [
    "MAX_NUMERIC_EPSILON",
    "MAX_NUMERIC_MAGNITUDE",
    "MIN_NUMERIC_RANGE",
    "MIN_NUMERIC_RELATIVE_RANGE",
    "MIN_NUMERIC_EPSILON",
    "NUMERIC_GRID_STEPS",
    "NUMERIC_ROUNDING_BIAS",
    "NumericEstimate",
    "NumericHistogram",
    "check_numeric_bounds",
    "grid_position",
    "histogram_edges",
    "randomized_grid_indices",
    "smallest_numeric_range",
    "value_of_grid_index",
]

#: G: the browser puts a numeric answer on the grid 0, 1, ..., G of [lo, hi] (G even: the
#: hybrid mechanism's Duchi part is symmetric about G / 2).
NUMERIC_GRID_STEPS = 1000
#: Numeric questions take an epsilon in [MIN_NUMERIC_EPSILON, MAX_NUMERIC_EPSILON]: below it the
#: Laplace scale (G / epsilon grid steps) needs ever larger integers and a class learns nothing
#: anyway; above it the piecewise window is a cell or two and nothing is gained.
MIN_NUMERIC_EPSILON = 0.01
MAX_NUMERIC_EPSILON = 20.0
#: Bound, in grid steps, on |E[k] - u| of the browser's randomized rounding (see the module).
NUMERIC_ROUNDING_BIAS = 2.0**-31
#: The variance of randomized rounding, Var[k | x] = frac (1 - frac) <= 1/4 (grid steps^2).
ROUNDING_VARIANCE = 0.25


# --------------------------------------------------------------------------- validation


#: Bounds must lie in [-MAX_NUMERIC_MAGNITUDE, MAX_NUMERIC_MAGNITUDE] (a million million), so
#: that hi - lo <= 2e12 and a worst-case variance, (G / epsilon)^2 grid steps^2 at most, times
#: step^2 stays far from overflow (it overflowed from hi - lo ~ 1e154).
MAX_NUMERIC_MAGNITUDE = 1e12
#: hi - lo must be at least MIN_NUMERIC_RANGE, so that variances stay far from underflow (they
#: underflowed below ~1e-151) ...
MIN_NUMERIC_RANGE = 1e-6
#: ... and at least this share of the bounds' size max(|lo|, |hi|), so that a grid step (a
#: thousandth of the range) spans thousands of the floats between the bounds, not a handful.
MIN_NUMERIC_RELATIVE_RANGE = 1e-9


def smallest_numeric_range(lo: float, hi: float) -> float:
    """The smallest hi - lo allowed with these bounds (MIN_NUMERIC_RANGE or relative)."""
    return max(MIN_NUMERIC_RANGE, MIN_NUMERIC_RELATIVE_RANGE * max(abs(lo), abs(hi)))


def check_numeric_bounds(lo: object, hi: object) -> tuple[float, float]:
    """``(lo, hi)`` as floats, or ValueError naming the bound.

    Both finite with ``lo < hi``, within +-:data:`MAX_NUMERIC_MAGNITUDE`, and ``hi - lo`` at
    least :func:`smallest_numeric_range`: beyond these the mechanisms' variances overflow or
    underflow, or the grid is finer than the floats.
    """
    low = check_real("lo", lo)
    high = check_real("hi", hi)
    if not low < high:
        raise ValueError(f"lo must be below hi, got lo={lo!r}, hi={hi!r}")
    for name, value in (("lo", low), ("hi", high)):
        if abs(value) > MAX_NUMERIC_MAGNITUDE:
            raise ValueError(
                f"{name} must be in [-{MAX_NUMERIC_MAGNITUDE:g}, {MAX_NUMERIC_MAGNITUDE:g}], "
                f"got {value!r}"
            )
    if high - low < smallest_numeric_range(low, high):
        raise ValueError(
            f"hi - lo must be at least {smallest_numeric_range(low, high):g}, "
            f"got lo={lo!r}, hi={hi!r}"
        )
    return low, high


def _check_numeric_epsilon(epsilon: object) -> float:
    eps = check_real("epsilon", epsilon)
    if not MIN_NUMERIC_EPSILON <= eps <= MAX_NUMERIC_EPSILON:
        raise ValueError(
            f"epsilon must be in [{MIN_NUMERIC_EPSILON}, {MAX_NUMERIC_EPSILON:g}] for a numeric "
            f"question, got {epsilon!r}"
        )
    return eps


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
    return rng


def _check_grid_indices(indices: object) -> np.ndarray:
    array = np.asarray(indices)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise ValueError("k (grid indices) must be integers")
    if array.size and (array.min() < 0 or array.max() > NUMERIC_GRID_STEPS):
        raise ValueError(f"k (grid indices) must be in 0 .. {NUMERIC_GRID_STEPS}")
    return array.astype(np.int64)


def _positive_count(n: object) -> int:
    respondents = check_count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have a margin")
    return respondents


def _exp_lower_bound(epsilon: float) -> Fraction:
    """A rational at most e^epsilon and below it by no more than a relative 1e-30.

    The Taylor series sum_{i <= m} epsilon^i / i! of e^epsilon (epsilon > 0, the float's exact
    value) stops below the true value; it stops once the last term is below 1e-32 of the sum,
    so the remainder (at most twice the last term once epsilon / i < 1/2) is below 1e-30 of it.
    """
    x = Fraction(epsilon)
    total = term = Fraction(1)
    i = 0
    while True:
        i += 1
        term = term * x / i
        total += term
        if 2 * x < i and term * 10**32 < total:
            return total


# --------------------------------------------------------------------------- the grid


def grid_position(values: ArrayLike, lo: float, hi: float) -> np.ndarray:
    """``u = (clip(x, lo, hi) - lo) / (hi - lo) * G``: where values fall on the grid, in [0, G].

    As the browser computes it (``gridIndex`` in randomized-response.js) before rounding.
    """
    low, high = check_numeric_bounds(lo, hi)
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite numbers")
    clipped = np.clip(array, low, high)
    return (clipped - low) / (high - low) * NUMERIC_GRID_STEPS


def randomized_grid_indices(
    values: ArrayLike, lo: float, hi: float, rng: np.random.Generator
) -> np.ndarray:
    """Grid indices of values by randomized rounding, ``floor(u) + Bernoulli(u - floor(u))``.

    For simulation and tests (the browser draws its Bernoulli from a 32-bit word). ``E[k] = u``.
    """
    position = grid_position(values, lo, hi)
    floor = np.floor(position)
    up = _check_rng(rng).random(position.shape) < position - floor
    return np.minimum(floor.astype(np.int64) + up, NUMERIC_GRID_STEPS)


def value_of_grid_index(k: ArrayLike, lo: float, hi: float) -> np.ndarray | float:
    """The value of grid index (or grid position) k: ``lo + (hi - lo) k / G``.

    Affine, so it maps an unbiased estimate of a mean grid index to an unbiased estimate of
    the mean (clipped) value. Accepts any real k, since estimates may leave [0, G].
    """
    low, high = check_numeric_bounds(lo, hi)
    result = low + (high - low) * np.asarray(k, dtype=float) / NUMERIC_GRID_STEPS
    return float(result) if np.ndim(result) == 0 else result


#: Questions with whole-number bounds this close get one histogram bar per whole answer.
MAX_WHOLE_ANSWER_RANGE = 20


def histogram_edges(lo: float, hi: float, bars: int = 10) -> tuple[tuple[float, ...], float]:
    """Edges of about ``bars`` histogram bars over [lo, hi] that keep round answers whole.

    The EM estimate spreads a bar's share evenly over it, so a common answer sitting on an edge
    (3 on edges 2, 3, 4) is shown split across two bars. Here answers are taken to be multiples
    of an *answer step* s (1, or a power of ten below it on small ranges) and edges sit halfway
    between them, at ``a + m w - s / 2`` (a the first multiple of s from lo, w a whole number of
    steps): each bar holds whole steps, and a common answer sits inside one bar. With whole-
    number bounds 2 to MAX_WHOLE_ANSWER_RANGE apart, every whole answer gets its own bar
    centred on it. An end bar narrower than half a bar joins its neighbour.

    Returns the edges (lo first, hi last) and s.
    """
    low, high = check_numeric_bounds(lo, hi)
    exact_lo, exact_hi = Fraction(repr(low)), Fraction(repr(high))
    span = exact_hi - exact_lo
    whole = exact_lo.denominator == 1 and exact_hi.denominator == 1
    if whole and 2 <= span <= MAX_WHOLE_ANSWER_RANGE:
        step = width = Fraction(1)
    else:
        target = span / bars
        step = min(Fraction(1), Fraction(10) ** math.floor(math.log10(target)))
        width = max(1, round(target / step)) * step
    anchor = math.ceil(exact_lo / step) * step
    edges = [exact_lo]
    edge = anchor + width - step / 2
    while edge < exact_hi:
        if edge > exact_lo:
            edges.append(edge)
        edge += width
    edges.append(exact_hi)
    if len(edges) > 2 and edges[-1] - edges[-2] < width / 2:
        del edges[-2]
    if len(edges) > 2 and edges[1] - edges[0] < width / 2:
        del edges[1]
    return tuple(float(e) for e in edges), float(step)


def _rounding_channel(bins: int | np.ndarray) -> np.ndarray:
    """W[b, m] = Pr[k = m | x uniform in bin b], by randomized rounding.

    ``bins``: a number of equal bins of the grid, or the bins' edges in grid positions (0 to G).
    With u uniform on [a, c] (the bin's grid positions), Pr[k = m] is the average over u of the
    hat function max(0, 1 - |u - m|), i.e. (H(c - m) - H(a - m)) / (c - a) with H the hat's
    integral.
    """
    if isinstance(bins, int | np.integer):
        edges = np.linspace(0.0, NUMERIC_GRID_STEPS, int(bins) + 1)
    else:
        edges = np.asarray(bins, dtype=float)
    cells = np.arange(NUMERIC_GRID_STEPS + 1, dtype=float)

    def hat_integral(v: np.ndarray) -> np.ndarray:
        v = np.clip(v, -1.0, 1.0)
        return np.where(v <= 0.0, (v + 1.0) ** 2 / 2.0, 1.0 - (1.0 - v) ** 2 / 2.0)

    upper = hat_integral(edges[1:, None] - cells[None, :])
    lower = hat_integral(edges[:-1, None] - cells[None, :])
    return (upper - lower) / np.diff(edges)[:, None]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class NumericEstimate:
    """The estimated mean of a numeric question, in the question's units, with its interval.

    Attributes
    ----------
    n : int
        Number of randomized answers.
    mean : float or None
        Unbiased estimate of the respondents' mean (true values clipped to [lo, hi]); not
        clipped itself, so noise can push it outside [lo, hi]. ``None`` when ``n == 0``.
    half_width : float or None
        The guaranteed half-width: the smallest of :attr:`chebyshev_half_width`,
        :attr:`bernstein_half_width` and :attr:`tail_half_width` (each holds whatever the data
        and none depends on it, so their minimum does).
    chebyshev_half_width, bernstein_half_width : float or None
        Two generic bounds, each with ``Pr[|mean - truth| >= h] <= 1 - confidence``.
    ci_low, ci_high : float or None
        ``mean -/+ half_width`` clipped to [lo, hi].
    confidence : float
        The guaranteed coverage.
    epsilon : float
        The stated epsilon of the mechanism.
    mechanism : str
        ``"laplace"``, ``"hybrid"`` or ``"one_bit"``.
    lo, hi : float
        The question's bounds.
    tail_half_width : float or None
        The mechanism's own bound from its exact law (the exact law of Laplace's summed noise,
        a Chernoff bound on the hybrid's, binomial tails for the one-bit mechanism); ``None``
        when ``n == 0`` or the mechanism has none.
    bound : str or None
        Which bound :attr:`half_width` is: ``"chebyshev"``, ``"bernstein"``, ``"exact"``,
        ``"chernoff"`` or ``"binomial"`` (``None`` when ``n == 0``).
    live_low, live_high : float or None
        The live range (:func:`~survey_app.privacy.live.live_mean_interval_from_sum`), within
        [lo, hi]: it covers the running mean at every look at once, however often it is read and
        whatever the order of arrival. ``None`` when ``n == 0``.
    """

    n: int
    mean: float | None
    half_width: float | None
    chebyshev_half_width: float | None
    bernstein_half_width: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    epsilon: float
    mechanism: str
    lo: float
    hi: float
    tail_half_width: float | None = None
    bound: str | None = None
    live_low: float | None = None
    live_high: float | None = None

    @property
    def has_data(self) -> bool:
        return self.n > 0

    @property
    def clipped_mean(self) -> float | None:
        """The mean clipped to [lo, hi], for display: every true mean lies there, so a mean
        outside is noise and the nearest bound is the better reading (``None`` when n == 0)."""
        if self.mean is None:
            return None
        return min(self.hi, max(self.lo, self.mean))

    @property
    def headline(self) -> float | None:
        """The figure pages, the API and the CSV give: the clipped mean, or None when the
        answers are not consistent with the randomization (no figure is given then)."""
        return self.clipped_mean if self.consistent_with_randomization else None

    @property
    def consistent_with_randomization(self) -> bool:
        """False when ``mean -/+ half_width`` misses [lo, hi] entirely.

        Every true mean lies in [lo, hi], so randomized answers do that with probability at
        most ``1 - confidence``; answers sent without the browser's randomization easily.
        """
        if self.mean is None or self.half_width is None:
            return True
        return self.mean + self.half_width >= self.lo and self.mean - self.half_width <= self.hi


@dataclass(frozen=True)
class NumericHistogram:
    """The debiased distribution of the true values over bins of [lo, hi].

    ``edges`` has ``bins + 1`` entries from lo to hi; ``shares`` (on the simplex: non-negative,
    summing to 1) is the maximum-likelihood estimate, by EM, of the share of respondents in
    each bin, the values being taken as uniform within their bin. ``answer_step``: the bins
    hold whole multiples of it (:func:`histogram_edges`), or None for bins given as edges.
    """

    edges: tuple[float, ...]
    shares: tuple[float, ...]
    n: int
    iterations: int
    answer_step: float | None = None

    @property
    def answers_held(self) -> tuple[tuple[float, float], ...]:
        """For each bin, the first and last answer it holds, answers rounded to answer_step.

        An inner edge lies halfway between two multiples of the step, so a bin holds the
        multiples from its low edge + step / 2 to its high edge - step / 2 (lo and hi at the
        ends). Without an answer step, the edges themselves.
        """
        pairs = list(zip(self.edges[:-1], self.edges[1:], strict=True))
        if self.answer_step is None:
            return tuple(pairs)
        half = self.answer_step / 2
        last = len(pairs) - 1
        return tuple(
            (
                low if index == 0 else round((low + half) / self.answer_step) * self.answer_step,
                high
                if index == last
                else round((high - half) / self.answer_step) * self.answer_step,
            )
            for index, (low, high) in enumerate(pairs)
        )
