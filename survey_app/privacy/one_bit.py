"""Duchi et al.'s one-bit mechanism for a bounded number, with binomial-tail ranges.

The browser rounds the grid index ``k`` to one of the bounds at random (to the top with
probability ``k / G``) and reports that bit by randomized response at the survey's epsilon. In
integers, as the hybrid's Duchi part (:class:`~survey_app.privacy.hybrid.HybridNumeric`): the
report is 1 when a 32-bit word is below ``T0 + k Delta``, so

    Pr[report = 1 | k] = q_k = (T0 + k Delta) / 2^32,   T0 = 2^31 - (G / 2) Delta,

Delta the largest with ``(2^32 - T0) / T0 <= L``, L a rational lower bound of e^epsilon. Its
epsilon is ``ln((2^32 - T0) / T0)``, and ``(2^32 report - T0) / Delta`` is unbiased for k.

Its reports are single bits: they tell the class's mean, not how the answers spread
(:attr:`shows_spread` is False). The browser draws it in ``static/js/randomized-response.js``
(``oneBitReport``).

References
----------
J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal procedures for locally private
estimation", JASA 113 (2018). W. Hoeffding, "On the distribution of the number of successes in
independent trials", Ann. Math. Stat. 27 (1956), Theorem 4: for a sum T of n independent
Bernoulli(p_i) with mean n p, ``Pr[T >= c] <= Pr[Bin(n, p) >= c]`` when ``c >= n p + 1``, and
``Pr[T <= b] <= Pr[Bin(n, p) <= b]`` when ``b <= n p - 1``. C. J. Clopper, E. S. Pearson, "The use
of confidence or fiducial limits illustrated in the case of the binomial", Biometrika 26 (1934).
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

from survey_app.privacy.hybrid import _duchi_slope, _duchi_variance
from survey_app.privacy.numeric_base import NumericMechanism
from survey_app.privacy.numeric_grid import (
    NUMERIC_GRID_STEPS,
    NUMERIC_ROUNDING_BIAS,
    _exp_lower_bound,
)
from survey_app.privacy.parameters import BROWSER_RANDOM_WORDS

__all__ = ["OneBitNumeric", "worst_binomial_deviation"]

_WORDS = BROWSER_RANDOM_WORDS
_HALF = NUMERIC_GRID_STEPS // 2
#: :func:`worst_binomial_deviation` splits the success probabilities into this many cells.
_CELLS = 1000
#: ... and bisects the deviation until it is known to this share of a count.
_DEVIATION_TOLERANCE = 1e-3


def _binomial_at_least(c: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    """Pr[Bin(n, p) >= c] = I_p(c, n - c + 1), 1 for c <= 0 and 0 for c > n."""
    inside = np.clip(c, 1, n).astype(float)
    value = special.betainc(inside, n - inside + 1.0, p)
    return np.where(c <= 0, 1.0, np.where(c > n, 0.0, value))


def _binomial_at_most(b: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    """Pr[Bin(n, p) <= b] = 1 - I_p(b + 1, n - b) = I_(1-p)(n - b, b + 1), 0 for b < 0 and 1
    for b >= n. (The second form, by the beta function's symmetry, is the same number; SciPy
    computes it several times faster than the complement ``betaincc``.)"""
    inside = np.clip(b, 0, n - 1).astype(float)
    value = special.betainc(n - inside, inside + 1.0, 1.0 - p)
    return np.where(b < 0, 0.0, np.where(b >= n, 1.0, value))


@lru_cache(maxsize=4096)
def worst_binomial_deviation(n: int, low: float, delta: float) -> float:
    """d with ``Pr[|T - n p| >= d] <= delta`` for every sum T of n independent Bernoullis whose
    mean probability p lies in ``[low, 1 - low]`` (``0 < low <= 1/2``).

    The probabilities ``[low, 1/2]`` are cut into cells ``[p1, p2]`` of ``n (p2 - p1) = eta``
    counts (the half above 1/2 is the mirror image, T -> n - T). For p in a cell and
    ``d >= 1 + eta``, with ``c = ceil(n p1 + d) >= n p + 1`` and ``b = floor(n p2 - d) <= n p - 1``,
    Hoeffding's theorem (1956) and the binomial tails' monotonicity in p give

        Pr[|T - n p| >= d] <= Pr[Bin(n, p2) >= c] + Pr[Bin(n, p1) <= b],

    which holds for every p of the cell and every split of p among the respondents. The
    smallest d (to :data:`_DEVIATION_TOLERANCE`) whose largest cell bound is at most delta is
    found by bisection; it is guaranteed, and exact up to the cells' width.
    """
    edges = np.linspace(low, 0.5, _CELLS + 1)
    p1, p2 = edges[:-1], edges[1:]
    eta = n * (edges[1] - edges[0])

    def worst(d: float) -> float:
        c = np.ceil(n * p1 + d)
        b = np.floor(n * p2 - d)
        return float(np.max(_binomial_at_least(c, n, p2) + _binomial_at_most(b, n, p1)))

    smallest, largest = 1.0 + eta, float(n) + 1.0  # |T - n p| < n + 1 always
    if worst(smallest) <= delta:
        return smallest
    while largest - smallest > _DEVIATION_TOLERANCE:
        middle = (smallest + largest) / 2.0
        if worst(middle) <= delta:
            largest = middle
        else:
            smallest = middle
    return largest


@dataclass(frozen=True)
class OneBitNumeric(NumericMechanism):
    """Duchi et al.'s one-bit mechanism on the grid: report 1 with ``q_k = (T0 + k Delta) / 2^32``.

    See the module for the law. Reports are independent bits whatever the answers, so their
    sum has the tails of a binomial (Hoeffding 1956), which give the guaranteed range
    (:meth:`_tail_half_width`).
    """

    name: ClassVar[str] = "one_bit"
    #: One bit a report: two outcomes tell the mean, not how the answers spread.
    shows_spread: ClassVar[bool] = False

    @cached_property
    def duchi_slope(self) -> int:
        """Delta (see the module)."""
        return _duchi_slope(_exp_lower_bound(self.epsilon))

    @cached_property
    def duchi_base(self) -> int:
        """T0 = 2^31 - (G / 2) Delta: the word threshold at k = 0."""
        return _WORDS // 2 - _HALF * self.duchi_slope

    @property
    def output_range(self) -> tuple[int, int]:
        return 0, 1

    @property
    def real_epsilon_odds(self) -> Fraction:
        """(2^32 - T0) / T0, exactly."""
        return Fraction(_WORDS - self.duchi_base, self.duchi_base)

    @property
    def real_epsilon(self) -> float:
        """ln((2^32 - T0) / T0): never above :attr:`epsilon`."""
        return math.log(_WORDS - self.duchi_base) - math.log(self.duchi_base)

    def browser_parameters(self) -> dict[str, int]:
        """The integers a browser needs: G, T0 and Delta."""
        return {
            "steps": NUMERIC_GRID_STEPS,
            "duchi_base": self.duchi_base,
            "duchi_slope": self.duchi_slope,
        }

    def _high(self, k: np.ndarray) -> np.ndarray:
        return (self.duchi_base + k.astype(float) * self.duchi_slope) / _WORDS

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        high = self._high(k.astype(np.int64))[:, None]
        return np.where(outputs[None, :] == 1, high, 1.0 - high)

    def estimate_of_output(self, outputs: ArrayLike) -> np.ndarray:
        """``(2^32 report - T0) / Delta``, unbiased for k."""
        reports = np.asarray(outputs, dtype=float)
        return (reports * _WORDS - self.duchi_base) / self.duchi_slope

    def variance_given_grid_index(self, k: ArrayLike) -> np.ndarray:
        """``q_k (1 - q_k) (2^32 / Delta)^2``."""
        return _duchi_variance(self.duchi_base, self.duchi_slope, k)

    def _tail_half_width(self, n: int, confidence: float) -> tuple[float, str]:
        """Binomial tails: ``(2^32 / Delta) d / n + bias`` grid steps.

        Given the true positions u_i, randomized rounding and the word make each report an
        independent bit with ``Pr[1] = (T0 + E[k_i] Delta) / 2^32``; their mean probability p lies
        in ``[T0 / 2^32, 1 - T0 / 2^32]``, and the estimate of the mean index is ``(2^32 T / n - T0)
        / Delta``, off the mean of E[k_i] by ``(2^32 / Delta) (T / n - p)``. With d from
        :func:`worst_binomial_deviation`, ``|T - n p| < d`` with probability at least the
        confidence, whatever the values; E[k_i] is within the rounding's bias of u_i.
        """
        d = worst_binomial_deviation(n, self.duchi_base / _WORDS, 1.0 - confidence)
        return _WORDS / self.duchi_slope * d / n + NUMERIC_ROUNDING_BIAS, "binomial"

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(k.shape) < self._high(k)).astype(np.int64)
