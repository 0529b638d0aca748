"""The Laplace mechanism of the lecture notes, on a numeric question's integer grid.

References
----------
C. Dwork, F. McSherry, K. Nissim, A. Smith, "Calibrating noise to sensitivity in private data
analysis", TCC 2006 (the Laplace mechanism). A. Ghosh, T. Roughgarden, M. Sundararajan,
"Universally utility-maximizing privacy mechanisms", STOC 2009 (the geometric mechanism).
C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS
2020, Algorithms 1 and 2 (exact Bernoulli(exp(-gamma)) and discrete Laplace sampling).
I. Mironov, "On significance of the least significant bits for differential privacy", CCS 2012
(the floating-point leak of naive Laplace sampling). S. Inusah, T. Kozubowski, "A discrete analogue
of the Laplace distribution", J. Stat. Plan. Inference 136 (2006) (Z as a difference of two
geometric counts, so a sum of n of them is a difference of two negative binomials).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from survey_app.privacy.numeric_base import NumericMechanism, rounding_deviation
from survey_app.privacy.numeric_grid import NUMERIC_GRID_STEPS, NUMERIC_ROUNDING_BIAS

__all__ = [
    "LAPLACE_EPSILON_DENOMINATOR",
    "LAPLACE_TAIL_PROBABILITY",
    "GridLaplace",
    "summed_noise_quantile",
]

#: D: GridLaplace's noise has scale t / D grid steps with t = ceil(G D / epsilon), so its real
#: epsilon G D / t is below the stated one by less than epsilon^2 / (G D) (1e-6 at epsilon = 1).
LAPLACE_EPSILON_DENOMINATOR = 1000
#: GridLaplace clamps its report to [-B, G + B], B the smallest with Pr[|Z| > B] below this.
LAPLACE_TAIL_PROBABILITY = 1e-30
#: The exact interval reads the summed noise's law on a lattice of about this many points per
#: standard deviation of one negative binomial (:func:`summed_noise_quantile`): it overstates the
#: quantile by under two lattice steps, about 1% of the half-width, and costs a few ms at any n.
_LATTICE_POINTS_PER_SD = 100
#: ... from this many standard deviations below the negative binomial's mean to this many above,
#: plus the largest quantile searched (beyond them the mass is below 1e-15, bounded by 1).
_LATTICE_SDS = 8.5
#: The share of 1 - confidence spent on randomized rounding (:func:`rounding_deviation`).
_ROUNDING_SHARE = 1e-3


def _negative_binomial_cdf(x: np.ndarray, n: int, success: float) -> np.ndarray:
    """Pr[X <= x] for X ~ NB(n, success) failures before the n-th success: I_success(n, x + 1)."""
    return np.where(x < 0, 0.0, special.betainc(n, np.maximum(x, 0.0) + 1.0, success))


@lru_cache(maxsize=4096)
def summed_noise_quantile(n: int, log_decay: float, delta: float) -> int:
    """An integer m with Pr[|Z_1 + ... + Z_n| >= m] <= delta, Z_i i.i.d. discrete Laplace(a).

    ``Z = X - Y`` with X, Y independent geometric counts of failures (success ``1 - a``), so the
    sum is ``X - Y`` with X, Y i.i.d. negative binomial NB(n, 1 - a), whose CDF is the regularized
    incomplete beta function: ``Pr[X <= x] = I_(1-a)(n, x + 1)``. Then, for m >= 1,

        Pr[S >= m] = sum_y Pr[Y = y] Pr[X >= m + y]
                   <= sum_j Pr[y_j <= Y < y_(j+1)] Pr[X >= m + y_j]  (+ Pr[Y < y_0]),

    the tail of X falling in y: an upper bound for every lattice ``y_j = y_0 + j w``. For m a
    multiple of w the terms ``Pr[X >= m + y_j]`` are the same array of tails shifted, so one batch
    of incomplete beta values gives the bound at every candidate m; S is symmetric, so
    ``Pr[|S| >= m] = 2 Pr[S >= m]``. The smallest candidate with ``2 bound <= delta`` is returned:
    guaranteed, and above the exact quantile by under two lattice steps (about 1/50 of a standard
    deviation of S). Cached: the same n, scale and confidence give the same m.
    """
    decay = math.exp(log_decay)
    success = -math.expm1(log_decay)
    mean = n * decay / success
    sd = math.sqrt(n * decay) / success
    step = max(1, math.floor(sd / _LATTICE_POINTS_PER_SD))
    start = max(0, math.floor((mean - _LATTICE_SDS * sd) / step) * step)
    bins = math.ceil(2 * _LATTICE_SDS * sd / step) + 1
    shifts = math.ceil(math.sqrt(2.0) * sd * math.sqrt(2.0 * math.log(4.0 / delta)) / step) + 2
    lattice = start + step * np.arange(bins + shifts + 1, dtype=float)
    cdf_below = _negative_binomial_cdf(lattice - 1.0, n, success)  # Pr[X < y]
    tails = 1.0 - cdf_below  # Pr[X >= y]
    tails = np.where(cdf_below > 0.5, special.betaincc(n, np.maximum(lattice, 1.0), success), tails)
    masses = np.diff(cdf_below[: bins + 1])
    masses = np.append(masses, tails[bins])  # the last bin holds all of Y >= y_bins
    below = float(cdf_below[0])
    # bound[i] = sum_j masses[j] tails[i + j]: the tail at m = i w, for i = 1 .. shifts.
    windows = np.lib.stride_tricks.sliding_window_view(tails[1:], bins + 1)[:shifts]
    bound = windows @ masses + below
    passing = np.flatnonzero(2.0 * bound * (1.0 + 1e-9) <= delta)
    if passing.size == 0:  # not reached on the lattice: Chebyshev's bound still holds
        return math.ceil(math.sqrt(n * 2.0 * decay / success**2 / delta)) + 1
    return int(passing[0] + 1) * step


@dataclass(frozen=True)
class GridLaplace(NumericMechanism):
    """The Laplace mechanism on the grid: ``y = clamp(k + Z, -B, G + B)``, Z discrete Laplace.

    ``Pr[Z = z] = (1 - a) / (1 + a) a^|z|`` with ``a = exp(-s / t)`` (scale t / s grid steps),
    ``s = D = LAPLACE_EPSILON_DENOMINATOR`` and ``t = ceil(G D / epsilon)``. Grid indices
    differ by at most G (the sensitivity), so for every report y

        Pr[y | k] / Pr[y | k'] <= a^-|k - k'| <= exp(G s / t),

    with equality for k = 0, k' = G and any y in between: the real epsilon ``G s / t`` is at
    most the stated one (exactly, in rationals: t is the ceiling of ``G D / epsilon`` taken at
    the float's exact value). This is the lecture notes' Laplace mechanism with sensitivity G on
    the integers (Ghosh et al.'s geometric mechanism); the browser draws Z exactly with Canonne,
    Kamath & Steinke's Algorithms 1 and 2, from 32-bit words and integer arithmetic only, so the
    floating-point leak of naive Laplace sampling (Mironov 2012) cannot occur.

    The report is clamped to ``[-B, G + B]``, B the smallest with ``Pr[|Z| > B] <
    LAPLACE_TAIL_PROBABILITY`` (1e-30): post-processing, so privacy is unchanged (the clamped
    ends carry ``a^m / (1 + a)``, whose ratios obey the same bound), and the server can refuse
    anything outside. The estimate of k is the report itself, unbiased up to the clamp's bias
    ``E[|Z| 1{|Z| > B}]`` (below 1e-25 grid steps; :attr:`_bias_bound` adds it), with variance
    at most ``2a / (1 - a)^2``, the unclamped one (clamping is 1-Lipschitz, and
    ``Var f(Z) = E[(f(Z) - f(Z'))^2] / 2 <= Var Z`` for such f).
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
        log_p = log_center + np.abs(y - k) * log_a
        # The clamped ends carry the tails: Pr[Z <= -m] = Pr[Z >= m] = a^m / (1 + a), m >= 1.
        low, high = self.output_range
        log_low = (k - low) * log_a - math.log1p(a)
        log_high = (high - k) * log_a - math.log1p(a)
        log_p = np.where(y == low, log_low, np.where(y == high, log_high, log_p))
        return np.exp(log_p)

    def _interval_probabilities(
        self, k: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray:
        """Pr[start <= y <= end | k] in closed form, without cancellation in the tails.

        A run of m reports wholly above k, from distance d: ``a^d (1 - a^m) / (1 + a)``, or
        ``a^d / (1 + a)`` when it ends at the clamp G + B (all the tail); below k likewise. A
        run over k: one minus the tails beyond each end.
        """
        log_a = self._log_a
        log_norm = math.log1p(self.decay)
        low, high = self.output_range
        k = k.astype(np.int64)[:, None]
        start = starts.astype(np.int64)[None, :]
        end = ends.astype(np.int64)[None, :]
        length = (end - start + 1).astype(float)
        # 1 - a^m for a run of m, or 1 when the run reaches the clamped end (the whole tail).
        above_rest = np.where(end >= high, 1.0, -np.expm1(length * log_a))
        below_rest = np.where(start <= low, 1.0, -np.expm1(length * log_a))
        above = np.exp((start - k) * log_a - log_norm) * above_rest
        below = np.exp((k - end) * log_a - log_norm) * below_rest
        left_tail = np.where(start <= low, 0.0, np.exp((k - start + 1) * log_a - log_norm))
        right_tail = np.where(end >= high, 0.0, np.exp((end + 1 - k) * log_a - log_norm))
        over = 1.0 - left_tail - right_tail
        return np.where(start > k, above, np.where(end < k, below, over))

    def _tail_half_width(self, n: int, confidence: float) -> tuple[float, str]:
        """The exact law's half-width (grid steps): ``m / n + r + bias``.

        The error of the mean is ``avg(y_i - k_i) + avg(k_i - u_i)``. Unless some |Z_i| > B
        (probability at most ``n Pr[|Z| > B]``), ``y_i - k_i = Z_i``, whose sum has a law that does
        not depend on the answers: :func:`summed_noise_quantile` gives m with ``Pr[|sum Z_i| >= m]
        <= delta_noise``, exactly up to the lattice. The rounding's part is at most
        :func:`rounding_deviation` r but with probability ``delta_round = delta / 1000``, and the
        means of y_i - k_i and k_i - u_i are within :attr:`_bias_bound` of zero. The three
        failure probabilities sum to ``delta = 1 - confidence`` (union bound), whatever the values.
        """
        delta = 1.0 - confidence
        delta_round = delta * _ROUNDING_SHARE
        delta_noise = delta - delta_round - n * math.exp(self._log_tail(self.bound))
        m = summed_noise_quantile(n, self._log_a, delta_noise)
        return m / n + rounding_deviation(n, delta_round) + self._bias_bound, "exact"

    @property
    def cumulant_reach(self) -> float:
        """``-ln a``: the summed noise's cumulant function is finite for ``|lambda|`` below it."""
        return self.scale_denominator / self.scale_numerator

    def cumulant_bound(self, lambdas: np.ndarray) -> np.ndarray:
        """A bound on ``ln E[e^(lambda (report - k)) | k]`` for every k: the clamped noise
        (for the live ranges, :mod:`~survey_app.privacy.live`).

        ``ln((1 - a)^2 / ((1 - a e^l)(1 - a e^-l)))``, written as ``-ln(1 - a (e^l - 1) / (1 - a))
        - ln(1 - a (e^-l - 1) / (1 - a))`` to keep its small values exact, plus the clamp's tau.
        """
        a = self.decay
        one_minus_a = -math.expm1(-self.scale_denominator / self.scale_numerator)
        ratio = a / one_minus_a
        noise = -np.log1p(-ratio * np.expm1(lambdas)) - np.log1p(-ratio * np.expm1(-lambdas))
        return noise + LAPLACE_TAIL_PROBABILITY

    def estimate_of_output(self, outputs: ArrayLike) -> np.ndarray:
        """The report itself estimates k."""
        return np.asarray(outputs, dtype=float)

    def variance_given_grid_index(self, k: ArrayLike) -> np.ndarray:
        """``2a / (1 - a)^2`` for every k (the unclamped variance, an upper bound)."""
        value = 2.0 * self.decay / math.expm1(self._log_a) ** 2
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
