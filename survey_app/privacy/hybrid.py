"""A bounded numeric mechanism of lower variance than Laplace's: Wang et al.'s hybrid, on the grid.

The hybrid mechanism mixes two epsilon-LDP mechanisms with a probability that does not depend on
the answer: Wang et al.'s *piecewise* mechanism, whose variance is largest for answers at the
ends of [lo, hi], and *Duchi et al.'s* two-report mechanism, whose variance is largest for
answers in the middle. Mixed in the right proportion their worst cases offset each other, and
the hybrid's worst-case variance is about half of Laplace's for epsilon in [0.5, 3] (0.52 at 0.5,
0.53 at 1, 0.49 at 2, 0.41 at 3; tests pin these), where the piecewise mechanism alone is at 0.66
at epsilon = 0.5 and 0.63 at 1.

References
----------
N. Wang, X. Xiao, Y. Yang, J. Zhao, S. C. Hui, H. Shin, J. Shin, G. Yu, "Collecting and
Analyzing Multidimensional Data with Local Differential Privacy", ICDE 2019 (the piecewise and
hybrid mechanisms). J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal procedures for
locally private estimation", JASA 113 (2018) (the two-report mechanism for a bounded value).
H. Chernoff, "A measure of asymptotic efficiency for tests of a hypothesis based on the sum of
observations", Ann. Math. Stat. 23 (1952) (the exponential bound); W. Hoeffding, JASA 58 (1963)
(his lemma, for the rounding).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from survey_app.privacy.numeric_base import NumericMechanism
from survey_app.privacy.numeric_grid import NUMERIC_GRID_STEPS, _exp_lower_bound
from survey_app.privacy.parameters import BROWSER_RANDOM_WORDS

__all__ = ["HybridNumeric"]

_G = NUMERIC_GRID_STEPS
_HALF = NUMERIC_GRID_STEPS // 2
_WORDS = BROWSER_RANDOM_WORDS
#: The Chernoff bound minimizes over this grid of lambda (per grid step), geometric from
#: 1e-8 to 1: every lambda gives a valid bound, and neighbours differ by under 5%, so the
#: minimum on the grid is within a fraction of a percent of the true infimum.
_LAMBDAS = np.geomspace(1e-8, 1.0, 400)


def _log_abs_expm1(x: np.ndarray) -> np.ndarray:
    """ln |e^x - 1| for x != 0, without overflow for large x."""
    x = np.asarray(x, dtype=float)
    positive = x + np.log(-np.expm1(-np.abs(x)))
    return np.where(x > 0, positive, np.log(-np.expm1(np.minimum(x, -1e-300))))


def _log_geometric_sum(ratio_log: np.ndarray, first: np.ndarray, count: float) -> np.ndarray:
    """ln sum_{j < count} exp(first + j ratio_log), for ratio_log != 0 (broadcasts)."""
    return first + _log_abs_expm1(ratio_log * count) - _log_abs_expm1(ratio_log)


def _sum_of_squares(m: np.ndarray | float) -> np.ndarray | float:
    """sum_{j < m} j^2."""
    return (m - 1.0) * m * (2.0 * m - 1.0) / 6.0


def piecewise_variance(width: ArrayLike, inside: ArrayLike, k: ArrayLike) -> np.ndarray:
    """Var[estimate | k] of the piecewise part with window ``width`` and window probability
    ``inside``; broadcasts over all three.

    Reports are ``j`` in ``0 .. N - 1``, ``N = G + w``, each with probability ``c_hi = P_in / w``
    in the window ``k .. k + w - 1`` and ``c_lo = (1 - P_in) / G`` outside it. With the sums of
    j and j^2 over all cells and over the window, ``E[j] = c_lo S1 + (c_hi - c_lo) sum_window j``
    and ``E[j^2]`` likewise; the estimate divides j by ``(c_hi - c_lo) w``.
    """
    width = np.asarray(width, dtype=float)
    inside = np.asarray(inside, dtype=float)
    k = np.asarray(k, dtype=float)
    cells = _G + width
    high, low = inside / width, (1.0 - inside) / _G
    first = low * cells * (cells - 1.0) / 2.0 + (high - low) * (
        width * k + width * (width - 1.0) / 2.0
    )
    second = low * _sum_of_squares(cells) + (high - low) * (
        _sum_of_squares(k + width) - _sum_of_squares(k)
    )
    return (second - first**2) / ((high - low) * width) ** 2


def _duchi_slope(bound: Fraction) -> int:
    """Delta: the largest with (2^31 + (G/2) Delta) / (2^31 - (G/2) Delta) <= bound."""
    half_words = Fraction(_WORDS // 2)
    return math.floor(half_words * (bound - 1) / (_HALF * (bound + 1)))


def _duchi_variance(base: int, slope: int, k: ArrayLike) -> np.ndarray:
    """Var[estimate | k] of the Duchi part: Bernoulli(q) scaled by 2^32 / Delta.

    That is ``q (1 - q) (2^32 / Delta)^2`` with ``q = (T0 + k Delta) / 2^32``.
    """
    high = (base + np.asarray(k, dtype=float) * slope) / _WORDS
    return high * (1.0 - high) * (_WORDS / slope) ** 2


@dataclass(frozen=True)
class HybridNumeric(NumericMechanism):
    """Wang et al.'s hybrid mechanism on the grid: piecewise with probability alpha, else Duchi.

    A 32-bit word below ``A`` picks the piecewise part (``alpha = A / 2**32``), otherwise the
    Duchi part. Reports ``0 .. N - 1`` (``N = G + w``) come from the first, ``N`` and ``N + 1``
    from the second; when ``A`` is 0 or 2**32 only the part used has reports in the range.

    *Piecewise part* (a discrete form of Wang et al.'s piecewise mechanism). For grid index k
    the window is ``k .. k + w - 1``: the browser lands in it when a word is below ``K``
    (probability ``P_in = K / 2**32``) and picks one of its cells uniformly, otherwise one of the
    ``G`` cells outside it uniformly. Every report has probability ``c_hi = P_in / w`` or
    ``c_lo = (1 - P_in) / G``, so its epsilon is ``ln(K G / ((2**32 - K) w))``, K the largest
    keeping that at most ``ln L``, L a rational lower bound of e^epsilon (:func:`_exp_lower_bound`).
    ``E[j | k] = c_lo N (N - 1) / 2 + (c_hi - c_lo) w (k + (w - 1) / 2)`` is affine in k, so
    ``(j - offset) / slope`` is unbiased for k.

    *Duchi part*. The report is ``N + 1`` ("high") when a word is below ``T0 + k Delta`` and
    ``N`` ("low") otherwise, ``T0 = 2**31 - (G / 2) Delta``: Pr[high] runs from ``T0 / 2**32``
    at k = 0 to ``(2**32 - T0) / 2**32`` at k = G, and its epsilon is ``ln((2**32 - T0) / T0)``,
    Delta the largest keeping that at most ``ln L``. The estimate ``(2**32 [high] - T0) / Delta``
    is unbiased for k.

    Each part is epsilon-LDP and the choice between them does not depend on the answer, so
    each report's probability is alpha (or 1 - alpha) times a probability of one part, and the
    hybrid's real epsilon is the larger of the parts' (over the parts in use). Both estimates are
    unbiased, so the hybrid's is too, with variance ``alpha V_pw(k) + (1 - alpha) V_duchi(k)``:
    V_pw is a convex quadratic in k, largest at the ends, V_duchi a concave one, largest at
    k = G / 2, both symmetric about G / 2, so the worst case over k is at k = 0 or G / 2. This
    type takes the w in 1 .. G and the alpha in [0, 1] that minimize it (for each w the best
    alpha is at 0, 1 or where the two cases meet; Wang et al.'s ``alpha = 1 - e^(-eps/2)`` is
    that meeting point in the continuous case). Below epsilon = 0.6 or so it is Duchi's alone.
    """

    name: ClassVar[str] = "hybrid"

    @cached_property
    def _exp_bound(self) -> Fraction:
        return _exp_lower_bound(self.epsilon)

    @cached_property
    def duchi_slope(self) -> int:
        """Delta (see the class)."""
        return _duchi_slope(self._exp_bound)

    @cached_property
    def duchi_base(self) -> int:
        """T0 = 2^31 - (G / 2) Delta: the high report's threshold at k = 0."""
        return _WORDS // 2 - _HALF * self.duchi_slope

    @cached_property
    def _design(self) -> tuple[int, float]:
        """(w, alpha) minimizing the worst-case variance (see the class)."""
        widths = np.arange(1, _G + 1, dtype=float)
        odds = math.exp(self.epsilon)
        inside = widths * odds / (widths * odds + _G)
        ends_pw = piecewise_variance(widths, inside, 0.0)
        middle_pw = piecewise_variance(widths, inside, float(_HALF))
        ends_duchi, middle_duchi = _duchi_variance(
            self.duchi_base, self.duchi_slope, np.array([0.0, float(_HALF)])
        )
        # worst(alpha) = max(alpha P0 + (1 - alpha) D0, alpha Pc + (1 - alpha) Dc), linear pieces.
        with np.errstate(divide="ignore", invalid="ignore"):
            meet = (middle_duchi - ends_duchi) / (
                (ends_pw - ends_duchi) - (middle_pw - middle_duchi)
            )
        candidates = np.stack(
            [np.zeros_like(widths), np.ones_like(widths), np.nan_to_num(meet, nan=0.0)]
        )
        candidates = np.clip(candidates, 0.0, 1.0)
        worst = np.maximum(
            candidates * ends_pw + (1 - candidates) * ends_duchi,
            candidates * middle_pw + (1 - candidates) * middle_duchi,
        )
        choice, width = np.unravel_index(np.argmin(worst), worst.shape)
        return int(width) + 1, float(candidates[choice, width])

    @property
    def width(self) -> int:
        """w: the piecewise window's width in grid cells."""
        return self._design[0]

    @cached_property
    def piecewise_threshold(self) -> int:
        """A = round(alpha 2^32): a word below it picks the piecewise part."""
        return min(_WORDS, max(0, round(self._design[1] * _WORDS)))

    @property
    def piecewise_probability(self) -> float:
        """alpha = A / 2^32."""
        return self.piecewise_threshold / _WORDS

    @cached_property
    def window_threshold(self) -> int:
        """K = floor(2**32 L w / (G + L w)), L <= e^epsilon (see the class)."""
        bound, w = self._exp_bound, self.width
        return math.floor(_WORDS * bound * w / (_G + bound * w))

    @property
    def window_probability(self) -> float:
        """P_in = K / 2**32."""
        return self.window_threshold / _WORDS

    @property
    def cells(self) -> int:
        """N = G + w: the piecewise part's reports are 0 .. N - 1."""
        return _G + self.width

    @property
    def output_range(self) -> tuple[int, int]:
        low = 0 if self.piecewise_threshold > 0 else self.cells
        high = self.cells + 1 if self.piecewise_threshold < _WORDS else self.cells - 1
        return low, high

    @cached_property
    def real_epsilon_odds(self) -> Fraction:
        """The largest ratio of a report's probabilities under two answers, exactly."""
        keep, w = self.window_threshold, self.width
        ratios = []
        if self.piecewise_threshold > 0:
            ratios.append(Fraction(keep * _G, (_WORDS - keep) * w))
        if self.piecewise_threshold < _WORDS:
            ratios.append(Fraction(_WORDS - self.duchi_base, self.duchi_base))
        return max(ratios)

    @property
    def real_epsilon(self) -> float:
        """ln of :attr:`real_epsilon_odds`: never above :attr:`epsilon`."""
        odds = self.real_epsilon_odds
        return math.log(odds.numerator) - math.log(odds.denominator)

    def browser_parameters(self) -> dict[str, int]:
        """What ``randomizeNumberHybrid`` needs, all integers: G, w, K, A, T0 and Delta."""
        return {
            "steps": _G,
            "width": self.width,
            "window_threshold": self.window_threshold,
            "piecewise_threshold": self.piecewise_threshold,
            "duchi_base": self.duchi_base,
            "duchi_slope": self.duchi_slope,
        }

    # ---------------------------------------------------------------- the law

    @property
    def _cell_probabilities(self) -> tuple[float, float]:
        """(c_hi, c_lo) of the piecewise part."""
        inside = self.window_probability
        return inside / self.width, (1.0 - inside) / _G

    def _duchi_high(self, k: np.ndarray) -> np.ndarray:
        """q_k = (T0 + k Delta) / 2^32: Pr[high | k] in the Duchi part."""
        return (self.duchi_base + k.astype(float) * self.duchi_slope) / _WORDS

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        alpha = self.piecewise_probability
        high, low = self._cell_probabilities
        k = k.astype(np.int64)[:, None]
        j = outputs.astype(np.int64)[None, :]
        piecewise = np.where((j >= k) & (j < k + self.width), high, low)
        duchi_high = self._duchi_high(k)
        return np.where(
            j < self.cells,
            alpha * piecewise,
            (1.0 - alpha) * np.where(j == self.cells + 1, duchi_high, 1.0 - duchi_high),
        )

    @cached_property
    def _affine(self) -> tuple[float, float]:
        """(offset, slope) with E[j | k, piecewise part] = offset + slope k."""
        high, low = self._cell_probabilities
        w, n = self.width, self.cells
        slope = (high - low) * w
        offset = low * n * (n - 1) / 2.0 + (high - low) * w * (w - 1) / 2.0
        return offset, slope

    def estimate_of_output(self, outputs: ArrayLike) -> np.ndarray:
        """``(j - offset) / slope`` for a piecewise report, ``(2^32 [high] - T0) / Delta`` else."""
        offset, slope = self._affine
        j = np.asarray(outputs, dtype=np.int64)
        duchi = (np.where(j == self.cells + 1, _WORDS, 0) - self.duchi_base) / self.duchi_slope
        return np.where(j < self.cells, (j - offset) / slope, duchi)

    @property
    def _estimate_range(self) -> tuple[float, float]:
        low, high = self.output_range
        estimates = self.estimate_of_output(np.arange(low, high + 1))
        return float(np.min(estimates)), float(np.max(estimates))

    def variance_given_grid_index(self, k: ArrayLike) -> np.ndarray:
        """``alpha V_pw(k) + (1 - alpha) V_duchi(k)``: both parts are unbiased for k."""
        alpha = self.piecewise_probability
        k = np.asarray(k, dtype=float)
        piecewise = piecewise_variance(self.width, self.window_probability, k)
        duchi = _duchi_variance(self.duchi_base, self.duchi_slope, k)
        return alpha * piecewise + (1.0 - alpha) * duchi

    def log_moment_generating(self, lambdas: ArrayLike, k: ArrayLike) -> np.ndarray:
        """``psi_k(lambda) = ln E[exp(lambda (estimate - k)) | k]``, shape (len(k), len(lambdas)).

        Exactly, from the law: the piecewise estimates ``(j - offset) / slope`` are affine in j,
        so the sums of ``exp(lambda e_j)`` over all N cells and over the window are geometric
        series; the Duchi part has two reports. Lambda must be nonzero.
        """
        lam = np.asarray(lambdas, dtype=float)[None, :]
        k = np.asarray(k, dtype=float)[:, None]
        offset, slope = self._affine
        ratio = lam / slope
        terms = []
        if self.piecewise_threshold > 0:
            high, low = self._cell_probabilities
            everywhere = _log_geometric_sum(ratio, -ratio * offset, self.cells)
            window = _log_geometric_sum(ratio, ratio * (k - offset), self.width)
            piecewise = np.logaddexp(math.log(low) + everywhere, math.log(high - low) + window)
            terms.append(math.log(self.piecewise_probability) + piecewise)
        if self.piecewise_threshold < _WORDS:
            q = self._duchi_high(k.astype(np.int64))
            low_estimate, high_estimate = self.estimate_of_output(
                np.array([self.cells, self.cells + 1])
            )
            duchi = np.logaddexp(np.log(q) + lam * high_estimate, np.log1p(-q) + lam * low_estimate)
            terms.append(math.log1p(-self.piecewise_probability) + duchi)
        total = terms[0] if len(terms) == 1 else np.logaddexp(terms[0], terms[1])
        return total - lam * k

    @cached_property
    def _worst_log_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """max over k of psi_k(lambda) and of psi_k(-lambda), on the lambda grid."""
        k = np.arange(_G + 1)
        return (
            np.max(self.log_moment_generating(_LAMBDAS, k), axis=0),
            np.max(self.log_moment_generating(-_LAMBDAS, k), axis=0),
        )

    def _tail_half_width(self, n: int, confidence: float) -> tuple[float, str]:
        """Chernoff's half-width on the exact law, worst case over the true grid indices.

        With ``psi(lambda) = max_k psi_k(lambda)`` (:meth:`log_moment_generating`), independent
        respondents at any indices k_i, and randomized rounding adding ``k_i - u_i`` (in an
        interval of length 1, so ``E exp(lambda (k_i - E k_i)) <= exp(lambda^2 / 8)`` by
        Hoeffding's lemma, whatever the report's law given k_i):

            Pr[sum (estimate_i - E k_i) >= n h] <= exp(-n (lambda h - psi(lambda) - lambda^2 / 8))

        for every lambda > 0 (Chernoff 1952), so ``h = (psi(lambda) + lambda^2 / 8 + ln(2 / delta)
        / n) / lambda`` at the best lambda on a grid bounds each side with delta / 2; the two
        sides (psi at +lambda and at -lambda) take the larger, and the bias bound is added.
        """
        log_term = math.log(2.0 / (1.0 - confidence)) / n
        upper, lower = self._worst_log_moments
        rounding = _LAMBDAS**2 / 8.0
        sides = [np.min((psi + rounding + log_term) / _LAMBDAS) for psi in (upper, lower)]
        return float(max(sides)) + self._bias_bound, "chernoff"

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        use_piecewise = rng.random(k.shape) < self.piecewise_probability
        inside = rng.random(k.shape) < self.window_probability
        in_window = k + rng.integers(0, self.width, size=k.shape)
        outside = rng.integers(0, _G, size=k.shape)
        outside = outside + self.width * (outside >= k)
        piecewise = np.where(inside, in_window, outside)
        duchi = self.cells + (rng.random(k.shape) < self._duchi_high(k))
        return np.where(use_piecewise, piecewise, duchi).astype(np.int64)
