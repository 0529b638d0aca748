"""Numeric questions: a bounded number randomized in the browser, and its debiased mean (issue 14).

A numeric question has bounds ``[lo, hi]`` (finite, ``lo < hi``). The browser clips the
respondent's true value ``x`` to them and puts it on a grid of ``G + 1`` points
(``G = NUMERIC_GRID_STEPS = 1000`` steps) by *randomized rounding*:

    u = (x - lo) / (hi - lo) * G,    k = floor(u) + Bernoulli(u - floor(u)),

so ``E[k] = u`` and ``Var[k] <= 1/4``. The Bernoulli is one 32-bit word compared with
``floor(frac * 2**32)``: its probability is below ``frac`` by less than ``2**-32``, and the
floating-point ``u`` is off by a few units of 2**-53 G, so ``E[k]`` is within
``NUMERIC_ROUNDING_BIAS = 2**-31`` grid steps of the exact ``u``; every guaranteed half-width adds
that bias. The grid index ``k`` is then randomized by one of two mechanisms, each an epsilon-LDP
map from ``{0, ..., G}`` to integers; since the rounding only mixes such maps, the whole path from
``x`` to the report is epsilon-LDP too.

- :class:`GridLaplace`: the Laplace mechanism of the lecture notes on the integer grid,
  ``y = k + Z`` with ``Z`` discrete Laplace (two-sided geometric), drawn exactly in the browser
  (Canonne, Kamath & Steinke 2020), clamped to ``[-B, G + B]``;
- :class:`PiecewiseNumeric`: a discrete form of the piecewise mechanism of Wang et al. (2019):
  a window of ``w`` cells that starts at ``k`` is reported with a boosted probability.

Both report integers and know their exact output law (:meth:`pmf`), give an unbiased estimate of
``k`` from each report, and so of the class mean in the question's units
(:func:`value_of_grid_index` maps back). Guaranteed intervals use only the worst-case variance
over ``k`` and, for Bernstein's inequality, the bounded range of the estimates: both depend on
n, the confidence and the mechanism alone, never on the data, so taking the smaller of the
Chebyshev and Bernstein half-widths keeps the guarantee. :func:`numeric_mechanism` picks the
mechanism of smaller worst-case variance at an epsilon.

References
----------
C. Dwork, F. McSherry, K. Nissim, A. Smith, "Calibrating noise to sensitivity in private data
analysis", TCC 2006 (the Laplace mechanism). A. Ghosh, T. Roughgarden, M. Sundararajan,
"Universally utility-maximizing privacy mechanisms", STOC 2009 (the geometric mechanism).
C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS
2020, Algorithms 1 and 2 (exact Bernoulli(exp(-gamma)) and discrete Laplace sampling).
N. Wang, X. Xiao, Y. Yang, J. Zhao, S. C. Hui, H. Shin, J. Shin, G. Yu, "Collecting and
Analyzing Multidimensional Data with Local Differential Privacy", ICDE 2019 (the piecewise
mechanism). S. Bernstein's inequality: for independent X_i with |X_i - E X_i| <= M and average
variance sigma^2, Pr[|mean - E mean| >= h] <= 2 exp(-n h^2 / (2 (sigma^2 + M h / 3))).
Y. Vardi, D. Lee, "From image deblurring to optimal investments: maximum likelihood solutions
for positive linear inverse problems", JRSS B 55 (1993) (EM / Richardson-Lucy deconvolution).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

import numpy as np

from survey_app.privacy.parameters import (
    BROWSER_RANDOM_WORDS,
    _check_confidence,
    _check_margin,
    _count,
    _real,
)

__all__ = [
    "LAPLACE_EPSILON_DENOMINATOR",
    "LAPLACE_TAIL_PROBABILITY",
    "MAX_NUMERIC_EPSILON",
    "MIN_NUMERIC_EPSILON",
    "NUMERIC_GRID_STEPS",
    "NUMERIC_MECHANISMS",
    "NUMERIC_ROUNDING_BIAS",
    "GridLaplace",
    "NumericEstimate",
    "NumericHistogram",
    "PiecewiseNumeric",
    "grid_position",
    "numeric_mechanism",
    "randomized_grid_indices",
    "value_of_grid_index",
]

#: G: the browser puts a numeric answer on the grid 0, 1, ..., G of [lo, hi].
NUMERIC_GRID_STEPS = 1000
#: Numeric questions take an epsilon in [MIN_NUMERIC_EPSILON, MAX_NUMERIC_EPSILON]: below it the
#: Laplace scale (G / epsilon grid steps) would need more than one 32-bit word per uniform draw
#: and a class learns nothing anyway; above it the piecewise window is a single cell.
MIN_NUMERIC_EPSILON = 0.01
MAX_NUMERIC_EPSILON = 20.0
#: D: GridLaplace's noise has scale t / D grid steps with t = ceil(G D / epsilon), so its real
#: epsilon G D / t is below the stated one by a relative 1e-6 at most (epsilon / (G D) ... ).
LAPLACE_EPSILON_DENOMINATOR = 1000
#: GridLaplace clamps its report to [-B, G + B], B the smallest with Pr[|Z| > B] below this.
LAPLACE_TAIL_PROBABILITY = 1e-30
#: Bound, in grid steps, on |E[k] - u| of the browser's randomized rounding (see the module).
NUMERIC_ROUNDING_BIAS = 2.0**-31
#: The variance of randomized rounding, Var[k | x] = frac (1 - frac) <= 1/4 (grid steps^2).
_ROUNDING_VARIANCE = 0.25
#: The histogram's EM stops when no share moves by more than this in an iteration ...
_EM_TOLERANCE = 1e-9
#: ... or after this many iterations.
_EM_MAX_ITERATIONS = 5000


# --------------------------------------------------------------------------- validation


def _check_bounds(lo: object, hi: object) -> tuple[float, float]:
    low = _real("lo", lo)
    high = _real("hi", hi)
    if not low < high:
        raise ValueError(f"lo must be below hi, got lo={lo!r}, hi={hi!r}")
    if not math.isfinite(high - low):
        raise ValueError(f"hi - lo must be a finite number, got lo={lo!r}, hi={hi!r}")
    return low, high


def _check_numeric_epsilon(epsilon: object) -> float:
    eps = _real("epsilon", epsilon)
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


def _exp_lower_bound(epsilon: float) -> Fraction:
    """A rational at most e^epsilon and above it by no more than a relative 1e-30.

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


def grid_position(values: np.typing.ArrayLike, lo: float, hi: float) -> np.ndarray:
    """``u = (clip(x, lo, hi) - lo) / (hi - lo) * G``: where values fall on the grid, in [0, G].

    As the browser computes it (``gridIndex`` in randomized-response.js) before rounding.
    """
    low, high = _check_bounds(lo, hi)
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite numbers")
    clipped = np.clip(array, low, high)
    return (clipped - low) / (high - low) * NUMERIC_GRID_STEPS


def randomized_grid_indices(
    values: np.typing.ArrayLike, lo: float, hi: float, rng: np.random.Generator
) -> np.ndarray:
    """Grid indices of values by randomized rounding, ``floor(u) + Bernoulli(u - floor(u))``.

    For simulation and tests (the browser draws its Bernoulli from a 32-bit word). ``E[k] = u``.
    """
    position = grid_position(values, lo, hi)
    floor = np.floor(position)
    up = _check_rng(rng).random(position.shape) < position - floor
    return np.minimum(floor.astype(np.int64) + up, NUMERIC_GRID_STEPS)


def value_of_grid_index(k: np.typing.ArrayLike, lo: float, hi: float) -> np.ndarray | float:
    """The value of grid index (or grid position) k: ``lo + (hi - lo) k / G``.

    Affine, so it maps an unbiased estimate of a mean grid index to an unbiased estimate of
    the mean (clipped) value. Accepts any real k, since estimates may leave [0, G].
    """
    low, high = _check_bounds(lo, hi)
    result = low + (high - low) * np.asarray(k, dtype=float) / NUMERIC_GRID_STEPS
    return float(result) if np.ndim(result) == 0 else result


def _rounding_channel(bins: int) -> np.ndarray:
    """W[b, m] = Pr[k = m | x uniform in bin b of B equal bins], by randomized rounding.

    With u uniform on [a, c] (the bin's grid positions), Pr[k = m] is the average over u of the
    hat function max(0, 1 - |u - m|), i.e. (H(c - m) - H(a - m)) / (c - a) with H the hat's
    integral.
    """
    edges = np.linspace(0.0, NUMERIC_GRID_STEPS, bins + 1)
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
        The guaranteed half-width: the smaller of :attr:`chebyshev_half_width` and
        :attr:`bernstein_half_width` (both hold whatever the data, so their minimum does).
    chebyshev_half_width, bernstein_half_width : float or None
        The two bounds, each with ``Pr[|mean - truth| >= h] <= 1 - confidence``.
    ci_low, ci_high : float or None
        ``mean -/+ half_width`` clipped to [lo, hi].
    confidence : float
        The guaranteed coverage.
    epsilon : float
        The stated epsilon of the mechanism.
    mechanism : str
        ``"laplace"`` or ``"piecewise"``.
    lo, hi : float
        The question's bounds.
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

    @property
    def has_data(self) -> bool:
        return self.n > 0

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
    """The debiased distribution of the true values over equal bins of [lo, hi].

    ``edges`` has ``bins + 1`` entries from lo to hi; ``shares`` (on the simplex: non-negative,
    summing to 1) is the maximum-likelihood estimate, by EM, of the share of respondents in
    each bin, the values being taken as uniform within their bin.
    """

    edges: tuple[float, ...]
    shares: tuple[float, ...]
    n: int
    iterations: int


# --------------------------------------------------------------------------- mechanisms


@dataclass(frozen=True)
class _NumericMechanism:
    """What both numeric mechanisms share: the grid, intervals, planning and the histogram.

    A subclass defines the output range, the exact law of a report given the grid index
    (:meth:`_probabilities`), the unbiased estimate of k from a report, its variance, and the
    sampler.
    """

    lo: float
    hi: float
    epsilon: float

    name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        _check_bounds(self.lo, self.hi)
        _check_numeric_epsilon(self.epsilon)

    # ---------------------------------------------------------------- to subclass

    @property
    def output_range(self) -> tuple[int, int]:
        """The smallest and largest report the browser can send (both included)."""
        raise NotImplementedError

    @property
    def real_epsilon(self) -> float:
        raise NotImplementedError

    def browser_parameters(self) -> dict[str, int]:
        raise NotImplementedError

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """Pr[report = outputs[j] | grid index k[i]], shape (len(k), len(outputs))."""
        raise NotImplementedError

    def estimate_of_output(self, outputs: np.typing.ArrayLike) -> np.ndarray:
        """The unbiased estimate of the grid index from each report (grid steps)."""
        raise NotImplementedError

    def variance_given_grid_index(self, k: np.typing.ArrayLike) -> np.ndarray:
        """Var[estimate_of_output(report) | grid index k], in grid steps squared."""
        raise NotImplementedError

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    @property
    def _bias_bound(self) -> float:
        """Bound on |E[estimate | x] - u| in grid steps (rounding, clamping)."""
        return NUMERIC_ROUNDING_BIAS

    # ---------------------------------------------------------------- the law

    @property
    def step(self) -> float:
        """One grid step in the question's units: ``(hi - lo) / G``."""
        return (self.hi - self.lo) / NUMERIC_GRID_STEPS

    def is_valid_output(self, output: object) -> bool:
        """True when ``output`` is an integer the browser can send (the server refuses others)."""
        if isinstance(output, bool) or not isinstance(output, numbers.Integral):
            return False
        low, high = self.output_range
        return low <= int(output) <= high

    def _check_outputs(self, outputs: object) -> np.ndarray:
        array = np.asarray(outputs)
        if array.size == 0:
            return np.zeros(0, dtype=np.int64)
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise ValueError("outputs must be integers")
        low, high = self.output_range
        if array.min() < low or array.max() > high:
            raise ValueError(f"outputs must be in {low} .. {high}")
        return array.astype(np.int64).ravel()

    def pmf(self, k: int) -> np.ndarray:
        """The exact law of the report given grid index k, over ``output_range`` in order."""
        index = _check_grid_indices(k)
        if index.ndim != 0:
            raise ValueError("k must be a single grid index")
        low, high = self.output_range
        outputs = np.arange(low, high + 1, dtype=np.int64)
        return self._probabilities(index.reshape(1), outputs)[0]

    @cached_property
    def _noise_variance(self) -> float:
        """max over k of Var[estimate | k], grid steps squared."""
        k = np.arange(NUMERIC_GRID_STEPS + 1)
        return float(np.max(self.variance_given_grid_index(k)))

    @cached_property
    def worst_case_variance(self) -> float:
        """The largest variance of one respondent's estimated value, in units squared.

        ``(max_k Var[estimate | k] + 1/4) step^2``: by the law of total variance the randomized
        rounding adds ``Var[k | x] <= 1/4`` grid steps squared to the mechanism's own variance.
        """
        return (self._noise_variance + _ROUNDING_VARIANCE) * self.step**2

    @cached_property
    def _deviation_bound(self) -> float:
        """M (grid steps): |estimate - E[estimate | x]| <= M for every report and value."""
        low, high = self.output_range
        estimates = self.estimate_of_output(np.array([low, high]))
        smallest, largest = float(np.min(estimates)), float(np.max(estimates))
        return max(largest, NUMERIC_GRID_STEPS - smallest) + self._bias_bound

    # ---------------------------------------------------------------- sampling

    def randomize(self, values: np.typing.ArrayLike, rng: np.random.Generator) -> np.ndarray:
        """Reports of true values as the browser makes them: clip, round, randomize.

        The reference sampler, for simulation and tests: it draws from the same law with NumPy
        (the browser draws from 32-bit words; tests check both against :meth:`pmf`).
        """
        return self.randomize_grid_indices(
            randomized_grid_indices(values, self.lo, self.hi, rng), rng
        )

    def randomize_grid_indices(
        self, k: np.typing.ArrayLike, rng: np.random.Generator
    ) -> np.ndarray:
        """Reports of grid indices (each in 0 .. G), drawn from :meth:`pmf`."""
        return self._randomize_indices(_check_grid_indices(k), _check_rng(rng))

    # ---------------------------------------------------------------- estimates

    def _half_widths(self, n: int, confidence: float) -> tuple[float, float]:
        """(Chebyshev, Bernstein) half-widths in grid steps, the bias bound included.

        With V the worst-case variance and M the deviation bound (grid steps), delta =
        1 - confidence and L = ln(2 / delta):

            Chebyshev: h = sqrt(V / (n delta));
            Bernstein: h = L M / (3n) + sqrt((L M / (3n))^2 + 2 L V / n),

        the root of n h^2 = 2 L (V + M h / 3). Each holds for independent respondents whatever
        their values (V bounds every respondent's variance), so the smaller does too.
        """
        delta = 1.0 - confidence
        variance = self._noise_variance + _ROUNDING_VARIANCE
        chebyshev = math.sqrt(variance / (n * delta))
        log_term = math.log(2.0 / delta)
        linear = log_term * self._deviation_bound / (3.0 * n)
        bernstein = linear + math.sqrt(linear**2 + 2.0 * log_term * variance / n)
        return chebyshev + self._bias_bound, bernstein + self._bias_bound

    def chebyshev_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Chebyshev's guaranteed half-width with n answers, in the question's units."""
        return self._half_widths(_positive_count(n), _check_confidence(confidence))[0] * self.step

    def bernstein_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Bernstein's guaranteed half-width with n answers, in the question's units."""
        return self._half_widths(_positive_count(n), _check_confidence(confidence))[1] * self.step

    def half_width(self, n: int, confidence: float = 0.95) -> float:
        """The guaranteed half-width n answers reach (the smaller bound), in the question's units.

        It depends on n and the mechanism only, so it is also the planned margin.
        """
        return min(self._half_widths(_positive_count(n), _check_confidence(confidence))) * self.step

    def respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose :meth:`half_width` is at most ``margin`` (question's units)."""
        size = _check_margin(margin)
        level = _check_confidence(confidence)

        def reaches(n: int) -> bool:
            return min(self._half_widths(n, level)) * self.step <= size

        low, high = 0, 1
        while not reaches(high):
            low, high = high, high * 2
        while high - low > 1:
            middle = (low + high) // 2
            if reaches(middle):
                high = middle
            else:
                low = middle
        return high

    def estimate_mean(
        self, outputs: np.typing.ArrayLike, confidence: float = 0.95
    ) -> NumericEstimate:
        """The unbiased mean of the respondents' (clipped) values, with its guaranteed interval.

        ``mean = value_of_grid_index(average of estimate_of_output(report))``; the half-width is
        :meth:`half_width` at n = the number of reports.
        """
        reports = self._check_outputs(outputs)
        level = _check_confidence(confidence)
        n = int(reports.size)
        if n == 0:
            return NumericEstimate(
                *(0, None, None, None, None, None, None),
                *(level, self.epsilon, self.name, self.lo, self.hi),
            )
        mean_index = float(np.mean(self.estimate_of_output(reports)))
        mean = float(value_of_grid_index(mean_index, self.lo, self.hi))
        chebyshev, bernstein = (h * self.step for h in self._half_widths(n, level))
        half_width = min(chebyshev, bernstein)
        return NumericEstimate(
            n=n,
            mean=mean,
            half_width=half_width,
            chebyshev_half_width=chebyshev,
            bernstein_half_width=bernstein,
            ci_low=min(self.hi, max(self.lo, mean - half_width)),
            ci_high=max(self.lo, min(self.hi, mean + half_width)),
            confidence=level,
            epsilon=self.epsilon,
            mechanism=self.name,
            lo=self.lo,
            hi=self.hi,
        )

    def histogram(self, outputs: np.typing.ArrayLike, bins: int = 10) -> NumericHistogram:
        """The debiased distribution of the true values over ``bins`` equal bins of [lo, hi].

        Maximum likelihood by EM (Richardson-Lucy deconvolution, Vardi & Lee 1993) with the
        exact channel from a bin to a report: ``A[b, y] = sum_m W[b, m] Pr[y | m]``, W the
        randomized rounding of a value uniform in bin b (:func:`_rounding_channel`). From equal
        shares, each step is ``pi_b <- pi_b sum_y (c_y / n) A[b, y] / (pi A)_y``, which stays on
        the simplex (no projection is needed) and never lowers the likelihood. Only the distinct
        reports enter, so the cost is bins x (distinct reports) per step.
        """
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or not 1 <= bins <= 100:
            raise ValueError(f"bins must be an integer in 1 .. 100, got {bins!r}")
        reports = self._check_outputs(outputs)
        edges = tuple(float(e) for e in np.linspace(self.lo, self.hi, int(bins) + 1))
        n = int(reports.size)
        shares = np.full(int(bins), 1.0 / int(bins))
        if n == 0:
            return NumericHistogram(edges, tuple(shares.tolist()), 0, 0)
        distinct, counts = np.unique(reports, return_counts=True)
        grid = np.arange(NUMERIC_GRID_STEPS + 1, dtype=np.int64)
        channel = _rounding_channel(int(bins)) @ self._probabilities(grid, distinct)
        weights = counts / n
        iterations, moved = 0, math.inf
        while moved >= _EM_TOLERANCE and iterations < _EM_MAX_ITERATIONS:
            likelihood = shares @ channel
            updated = shares * (channel @ (weights / likelihood))
            updated /= updated.sum()  # only rounding moves it off the simplex
            moved = float(np.max(np.abs(updated - shares)))
            shares = updated
            iterations += 1
        return NumericHistogram(edges, tuple(shares.tolist()), n, iterations)


def _positive_count(n: object) -> int:
    respondents = _count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have a margin")
    return respondents


@dataclass(frozen=True)
class GridLaplace(_NumericMechanism):
    """The Laplace mechanism on the grid: ``y = clamp(k + Z, -B, G + B)``, Z discrete Laplace.

    ``Pr[Z = z] = (1 - a) / (1 + a) a^|z|`` with ``a = exp(-s / t)`` (scale t / s grid steps),
    ``s = D = LAPLACE_EPSILON_DENOMINATOR`` and ``t = ceil(G D / epsilon)``. Grid indices
    differ by at most G, so for every report y

        Pr[y | k] / Pr[y | k'] <= a^-|k - k'| <= exp(G s / t),

    and the real epsilon ``G s / t`` is at most the stated one (exactly, in rationals: t is the
    ceiling of ``G D / epsilon`` taken at the float's exact value). This is the lecture notes'
    Laplace mechanism with sensitivity G on the integers (Ghosh et al.'s geometric mechanism);
    the browser draws Z exactly with Canonne, Kamath & Steinke's Algorithms 1 and 2, from
    32-bit words and integer arithmetic only, so no floating-point leak (Mironov 2012) applies.

    The report is clamped to ``[-B, G + B]``, B the smallest with ``Pr[|Z| > B] <
    LAPLACE_TAIL_PROBABILITY`` (1e-30): post-processing, so privacy is unchanged, and the server
    can refuse anything outside. The estimate of k is the report itself, unbiased up to the
    clamp's bias ``E[|Z| 1{|Z| > B}]`` (below 1e-25 grid steps; :attr:`_bias_bound` adds it),
    with variance ``2a / (1 - a)^2`` (at most; clamping is 1-Lipschitz so it can only lower it).
    """

    name: ClassVar[str] = "laplace"

    @cached_property
    def scale_numerator(self) -> int:
        """t = ceil(G D / epsilon), exactly."""
        fraction = Fraction(NUMERIC_GRID_STEPS * LAPLACE_EPSILON_DENOMINATOR) / Fraction(
            self.epsilon
        )
        return math.ceil(fraction)

    @property
    def scale_denominator(self) -> int:
        """s = D."""
        return LAPLACE_EPSILON_DENOMINATOR

    @cached_property
    def _log_a(self) -> float:
        return -self.scale_denominator / self.scale_numerator

    @cached_property
    def decay(self) -> float:
        """a = exp(-s / t): Pr[Z = z] is proportional to a^|z|."""
        return math.exp(self._log_a)

    def _log_tail(self, bound: int) -> float:
        """ln Pr[|Z| > bound] = ln(2 a^(bound + 1) / (1 + a))."""
        return math.log(2.0) + (bound + 1) * self._log_a - math.log1p(self.decay)

    @cached_property
    def bound(self) -> int:
        """B: the smallest with Pr[|Z| > B] < LAPLACE_TAIL_PROBABILITY."""
        target = math.log(LAPLACE_TAIL_PROBABILITY)
        guess = (target - math.log(2.0) + math.log1p(self.decay)) / self._log_a
        bound = max(0, math.floor(guess) - 2)
        while self._log_tail(bound) >= target:
            bound += 1
        return bound

    @property
    def output_range(self) -> tuple[int, int]:
        return -self.bound, NUMERIC_GRID_STEPS + self.bound

    @cached_property
    def real_epsilon_fraction(self) -> Fraction:
        """G s / t as an exact rational."""
        return Fraction(NUMERIC_GRID_STEPS * self.scale_denominator, self.scale_numerator)

    @property
    def real_epsilon(self) -> float:
        """The epsilon the browser really spends, G s / t: never above :attr:`epsilon`."""
        return float(self.real_epsilon_fraction)

    def browser_parameters(self) -> dict[str, int]:
        """What ``randomizeNumberLaplace`` needs, all integers: G, t, s and B."""
        return {
            "steps": NUMERIC_GRID_STEPS,
            "scale_numerator": self.scale_numerator,
            "scale_denominator": self.scale_denominator,
            "bound": self.bound,
        }

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        a, log_a = self.decay, self._log_a
        log_center = math.log(-math.expm1(log_a)) - math.log1p(a)  # ln((1 - a) / (1 + a))
        k = k.astype(np.int64)[:, None]
        y = outputs.astype(np.int64)[None, :]
        distance = np.abs(y - k)
        log_p = log_center + distance * log_a
        # The clamped ends carry the tails: Pr[Z <= -m] = Pr[Z >= m] = a^m / (1 + a), m >= 1.
        low, high = self.output_range
        log_low = (k - low) * log_a - math.log1p(a)
        log_high = (high - k) * log_a - math.log1p(a)
        log_p = np.where(y == low, log_low, np.where(y == high, log_high, log_p))
        return np.exp(log_p)

    def estimate_of_output(self, outputs: np.typing.ArrayLike) -> np.ndarray:
        """The report itself estimates k."""
        return np.asarray(outputs, dtype=float)

    def variance_given_grid_index(self, k: np.typing.ArrayLike) -> np.ndarray:
        """``2a / (1 - a)^2`` for every k (the unclamped variance, an upper bound)."""
        a = self.decay
        value = 2.0 * a / math.expm1(self._log_a) ** 2
        return np.full(np.shape(k), value)

    @property
    def _bias_bound(self) -> float:
        """Rounding's bias plus the clamp's: E[|Z| 1{|Z| > B}] = 2 (1-a)/(1+a) sum_{z>B} z a^z.

        With m = B + 1, ``sum_{z >= m} z a^z = a^m (m (1 - a) + a) / (1 - a)^2``.
        """
        a, m = self.decay, self.bound + 1
        one_minus_a = -math.expm1(self._log_a)
        log_clamp = (
            math.log(2.0)
            - math.log1p(a)
            + m * self._log_a
            + math.log(m * one_minus_a + a)
            - math.log(one_minus_a)
        )
        return NUMERIC_ROUNDING_BIAS + math.exp(log_clamp)

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # The difference of two independent geometric counts of failures is discrete Laplace.
        success = -math.expm1(self._log_a)
        noise = rng.geometric(success, size=k.shape) - rng.geometric(success, size=k.shape)
        low, high = self.output_range
        return np.clip(k + noise, low, high).astype(np.int64)


@dataclass(frozen=True)
class PiecewiseNumeric(_NumericMechanism):
    """A discrete piecewise mechanism (after Wang et al., ICDE 2019) on the grid.

    Reports are ``j`` in ``{0, ..., N - 1}``, ``N = G + w``. For grid index k the *window* is
    ``{k, ..., k + w - 1}``: the browser lands in it when a 32-bit word is below ``K``, i.e. with
    probability ``P_in = K / 2**32``, then picks a cell of it uniformly; otherwise it picks one
    of the ``N - w = G`` cells outside it uniformly. So every report has probability
    ``c_hi = P_in / w`` (in the window) or ``c_lo = (1 - P_in) / G`` (outside), and

        real epsilon = ln(c_hi / c_lo) = ln(K G / ((2**32 - K) w)).

    K is the largest integer with ``K G / ((2**32 - K) w) <= L``, L a rational lower bound of
    e^epsilon (:func:`_exp_lower_bound`), i.e. ``floor(2**32 L w / (G + L w))``: the keep
    probability ``w e^eps / (w e^eps + G)`` rounded down, so the real epsilon never exceeds the
    stated one (in exact rationals).

    The estimate is affine in j. Summing over the cells,

        E[j | k] = c_lo N (N - 1) / 2 + (c_hi - c_lo) w (k + (w - 1) / 2),

    so ``estimate(j) = (j - c_lo N (N - 1) / 2 - (c_hi - c_lo) w (w - 1) / 2) / ((c_hi - c_lo) w)``
    is unbiased for k, with variance ``Var[j | k] / ((c_hi - c_lo) w)^2`` (a quadratic in k,
    largest at the ends of the grid).

    Window width. Wang et al.'s continuous mechanism has a window of width C - 1 in an output
    range of 2C, C = (e^(eps/2) + 1) / (e^(eps/2) - 1), i.e. ``w = G (C - 1) / (C + 1) =
    G e^(-eps/2)`` cells here. On the grid the worst-case variance is a closed form in w, so this
    type takes instead the w in 1 .. G that minimizes it (exactly, by evaluating all of them):
    any w keeps epsilon, and the minimizer lowers the worst-case variance by 1% at epsilon = 0.5
    and 22% at epsilon = 3 below Wang's width.
    """

    name: ClassVar[str] = "piecewise"

    @cached_property
    def width(self) -> int:
        """w: the window width in 1 .. G that minimizes the worst-case variance at epsilon."""
        widths = np.arange(1, NUMERIC_GRID_STEPS + 1, dtype=float)[:, None]
        odds = math.exp(self.epsilon)
        inside = widths * odds / (widths * odds + NUMERIC_GRID_STEPS)
        variances = _piecewise_variance(
            widths, inside, np.arange(NUMERIC_GRID_STEPS + 1.0)[None, :]
        )
        return int(np.argmin(variances.max(axis=1))) + 1

    @property
    def wang_width(self) -> int:
        """Wang et al.'s width G (C - 1) / (C + 1) = G e^(-eps/2), rounded, at least 1."""
        return max(1, round(NUMERIC_GRID_STEPS * math.exp(-self.epsilon / 2.0)))

    @cached_property
    def window_threshold(self) -> int:
        """K = floor(2**32 L w / (G + L w)), L <= e^epsilon (see the class)."""
        bound = _exp_lower_bound(self.epsilon)
        w = self.width
        return math.floor(BROWSER_RANDOM_WORDS * bound * w / (NUMERIC_GRID_STEPS + bound * w))

    @property
    def outputs(self) -> int:
        """N = G + w, the number of distinct reports."""
        return NUMERIC_GRID_STEPS + self.width

    @property
    def output_range(self) -> tuple[int, int]:
        return 0, self.outputs - 1

    @cached_property
    def real_epsilon_odds(self) -> Fraction:
        """c_hi / c_lo = K G / ((2**32 - K) w), exactly."""
        keep = self.window_threshold
        return Fraction(keep * NUMERIC_GRID_STEPS, (BROWSER_RANDOM_WORDS - keep) * self.width)

    @property
    def real_epsilon(self) -> float:
        """ln(c_hi / c_lo): never above :attr:`epsilon`."""
        odds = self.real_epsilon_odds
        return math.log(odds.numerator) - math.log(odds.denominator)

    @property
    def window_probability(self) -> float:
        """P_in = K / 2**32."""
        return self.window_threshold / BROWSER_RANDOM_WORDS

    @property
    def _cell_probabilities(self) -> tuple[float, float]:
        inside = self.window_probability
        return inside / self.width, (1.0 - inside) / NUMERIC_GRID_STEPS

    def browser_parameters(self) -> dict[str, int]:
        """What ``randomizeNumberPiecewise`` needs, all integers: G, w and K."""
        return {
            "steps": NUMERIC_GRID_STEPS,
            "width": self.width,
            "window_threshold": self.window_threshold,
        }

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        high, low = self._cell_probabilities
        k = k.astype(np.int64)[:, None]
        j = outputs.astype(np.int64)[None, :]
        inside = (j >= k) & (j < k + self.width)
        return np.where(inside, high, low)

    @cached_property
    def _affine(self) -> tuple[float, float]:
        """(offset, slope) with E[j | k] = offset + slope k."""
        high, low = self._cell_probabilities
        w, n = self.width, self.outputs
        slope = (high - low) * w
        offset = low * n * (n - 1) / 2.0 + (high - low) * w * (w - 1) / 2.0
        return offset, slope

    def estimate_of_output(self, outputs: np.typing.ArrayLike) -> np.ndarray:
        """``(j - offset) / slope``, unbiased for k (see the class)."""
        offset, slope = self._affine
        return (np.asarray(outputs, dtype=float) - offset) / slope

    def variance_given_grid_index(self, k: np.typing.ArrayLike) -> np.ndarray:
        """``Var[j | k] / ((c_hi - c_lo) w)^2``, from the sums of j and j^2 over the cells."""
        widths = np.array(float(self.width))
        return _piecewise_variance(widths, self.window_probability, np.asarray(k, dtype=float))

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        inside = rng.random(k.shape) < self.window_probability
        in_window = k + rng.integers(0, self.width, size=k.shape)
        outside = rng.integers(0, NUMERIC_GRID_STEPS, size=k.shape)
        outside = outside + self.width * (outside >= k)
        return np.where(inside, in_window, outside).astype(np.int64)


def _piecewise_variance(width: np.ndarray, inside: np.ndarray | float, k: np.ndarray) -> np.ndarray:
    """Var[estimate | k] of the piecewise mechanism with window ``width`` and P_in ``inside``.

    With S1 = sum_j j and S2 = sum_j j^2 over all N cells, and the window's own sums,
    E[j] = c_lo S1 + (c_hi - c_lo) sum_window j, E[j^2] likewise; the estimate divides j by
    (c_hi - c_lo) w. Broadcasts over width and k.
    """
    steps = NUMERIC_GRID_STEPS
    n = steps + width
    high, low = inside / width, (1.0 - inside) / steps

    def squares(m):  # sum_{j < m} j^2
        return (m - 1.0) * m * (2.0 * m - 1.0) / 6.0

    first = low * n * (n - 1.0) / 2.0 + (high - low) * (width * k + width * (width - 1.0) / 2.0)
    second = low * squares(n) + (high - low) * (squares(k + width) - squares(k))
    return (second - first**2) / ((high - low) * width) ** 2


#: The numeric mechanisms by name.
NUMERIC_MECHANISMS: dict[str, type[_NumericMechanism]] = {
    "laplace": GridLaplace,
    "piecewise": PiecewiseNumeric,
}


def numeric_mechanism(
    lo: float, hi: float, epsilon: float, name: str | None = None
) -> GridLaplace | PiecewiseNumeric:
    """The mechanism of a numeric question on [lo, hi] at epsilon.

    ``name`` ("laplace" or "piecewise") picks one; without it, the one with the smaller
    :attr:`~_NumericMechanism.worst_case_variance` at epsilon (the piecewise one over the whole
    allowed range, as tests check; the comparison stays so that the rule, not a constant, is
    what decides).
    """
    if name is not None:
        if name not in NUMERIC_MECHANISMS:
            raise ValueError(f"name must be 'laplace' or 'piecewise', got {name!r}")
        return NUMERIC_MECHANISMS[name](lo, hi, epsilon)
    laplace = GridLaplace(lo, hi, epsilon)
    piecewise = PiecewiseNumeric(lo, hi, epsilon)
    return piecewise if piecewise.worst_case_variance <= laplace.worst_case_variance else laplace
