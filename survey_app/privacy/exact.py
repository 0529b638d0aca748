"""Exact guaranteed intervals for randomized response, and the margins they reach.

The law of a noisy count
------------------------
Fix the ``n`` people who answered, and let ``t`` of them truly hold an option. Each of the
``t`` reports it with probability ``P`` (the keep probability), each of the other ``n - t``
with probability ``Q`` (the probability of reporting this particular other option), all
independently, so the noisy count is

    C ~ Bin(t, P) + Bin(n - t, Q).

For yes/no, ``P = 1 - p`` and ``Q = p``; for k options, the k-RR probabilities the browser
really uses. Since ``P > Q``, C grows stochastically with t: ``Pr[C >= c | t]`` increases and
``Pr[C <= c | t]`` decreases in t.

The interval (a Neyman construction)
------------------------------------
At confidence ``1 - alpha``, the interval for ``t / n`` after observing ``c`` is

    { t / n :  Pr[C >= c | t] > alpha / 2  and  Pr[C <= c | t] > alpha / 2 },

the set of t that the observation does not reject in either tail (the construction of
Clopper and Pearson, 1934, for this law). For every t, the chance that the observed c rejects
t in the upper tail is at most ``alpha / 2``, and likewise in the lower tail, so the interval
covers the true ``t / n`` with probability at least ``1 - alpha`` **for every t**: a guarantee,
like Chebyshev's, not an approximation. By the monotonicity above the set is an interval,
found by a search over t on the exact tail probabilities. When no t survives (counts that
randomized answers give with probability below ``alpha``), there is no interval: the counts
are not consistent with the randomization.

The tails are sums of the exact probabilities of C, the convolution of the two binomial laws,
each kept where it is not negligible: within ``12 sd + 60`` of its mean, beyond which Bernstein's
inequality leaves less than ``e^-70`` of probability. A search costs a few dozen such tails,
each ``O(sqrt(n) log n)``.

Many answers: a proven bound
----------------------------
Above :data:`EXACT_LIMIT` answers, the interval is computed instead from the Berry-Esseen
theorem, which bounds how far the law of C is from the normal law of the same mean and
variance: ``sup |F(x) - Phi((x - mu) / sigma)| <= C0 sum E|X_i - p_i|^3 / sigma^3`` with
``C0 = 0.56`` for independent, not identically distributed terms (I. G. Shevtsova, "An
improvement of convergence rate estimates in the Lyapunov theorem", Doklady Math. 82, 2010).
With ``eps`` that bound at its worst over t and ``z`` such that ``Phi(-z) = alpha / 2 - eps``,
the set of t with ``|c - mu_t| <= z sigma_t`` still covers with probability at least
``1 - alpha`` for every t (each tail is at most ``Phi(-z) + eps``), and its ends are found by
bisection on a closed form. At 20,000 to 40,000 answers it is 3% (yes/no) to 8% (several
options) wider than the exact interval, and the difference shrinks as ``1 / sqrt(n)``; it is
used only where ``eps <= alpha / 4`` and where both ends of the set move monotonically with t.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

# scipy.special alone: scipy.stats would add some 45 MB to every worker for one quantile.
from scipy import special

__all__ = [
    "BERRY_ESSEEN_CONSTANT",
    "EXACT_LIMIT",
    "exact_interval",
    "expected_exact_half_width",
]

#: Up to this many answers intervals are exact; above it, the Berry-Esseen bound (see above).
EXACT_LIMIT = 20_000
#: Shevtsova's (2010) constant of the Berry-Esseen bound for non-identical terms.
BERRY_ESSEEN_CONSTANT = 0.56
#: A binomial law is kept within this many standard deviations (plus WINDOW_EXTRA) of its mean.
WINDOW_SDS = 12.0
WINDOW_EXTRA = 60
#: Windows longer than this are convolved by FFT (its error, ~1e-16, is far below any alpha).
FFT_FROM = 400


def _binomial_window(trials: int, probability: float) -> tuple[int, np.ndarray]:
    """``(first value, probabilities)`` of Bin(trials, probability) where it is not negligible."""
    if trials == 0:
        return 0, np.ones(1)
    mean = trials * probability
    radius = WINDOW_SDS * math.sqrt(trials * probability * (1.0 - probability)) + WINDOW_EXTRA
    low = max(0, math.floor(mean - radius))
    high = min(trials, math.ceil(mean + radius))
    values = np.arange(low, high + 1, dtype=np.float64)
    log_pmf = (
        special.gammaln(trials + 1.0)
        - special.gammaln(values + 1.0)
        - special.gammaln(trials - values + 1.0)
        + values * math.log(probability)
        + (trials - values) * math.log1p(-probability)
    )
    return low, np.exp(log_pmf)


def _normal_upper_quantile(tail: float) -> float:
    """z with Pr[Z > z] = tail for a standard normal Z (scipy.stats.norm.isf)."""
    return float(-special.ndtri(tail))


def _fft_convolve(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The full linear convolution of two probability vectors, by real FFT."""
    size = len(first) + len(second) - 1
    length = 1 << (size - 1).bit_length()
    product = np.fft.rfft(first, length) * np.fft.rfft(second, length)
    return np.fft.irfft(product, length)[:size]


@lru_cache(maxsize=8192)
def _count_law(n: int, t: int, keep: float, other: float) -> tuple[int, np.ndarray]:
    """``(first value, cumulative probabilities)`` of the noisy count C given t."""
    first_kept, kept = _binomial_window(t, keep)
    first_other, others = _binomial_window(n - t, other)
    if min(len(kept), len(others)) >= FFT_FROM:
        pmf = np.clip(_fft_convolve(kept, others), 0.0, None)
    else:
        pmf = np.convolve(kept, others)
    return first_kept + first_other, np.cumsum(pmf)


def _tails(n: int, t: int, count: int, keep: float, other: float) -> tuple[float, float]:
    """``(Pr[C >= count | t], Pr[C <= count | t])``."""
    first, cumulative = _count_law(n, t, keep, other)
    total = float(cumulative[-1])
    index = count - first
    if index < 0:
        return total, 0.0
    if index >= len(cumulative):
        return 0.0, total
    at_most = float(cumulative[index])
    below = float(cumulative[index - 1]) if index > 0 else 0.0
    return total - below, at_most


def _first_true(predicate, low: int, high: int, guess: int) -> int | None:
    """The smallest t in [low, high] with predicate(t), for a predicate false then true.

    Gallops from ``guess`` to a bracket, then bisects: a good guess costs few evaluations.
    """
    guess = min(high, max(low, guess))
    if predicate(guess):
        step, hi = 1, guess
        lo = guess - 1
        while lo >= low and predicate(lo):
            hi = lo
            step *= 2
            lo = guess - step
        lo = max(lo, low - 1)  # predicate(lo) is false, or lo is below the range
    else:
        step, lo = 1, guess
        hi = guess + 1
        while hi <= high and not predicate(hi):
            lo = hi
            step *= 2
            hi = guess + step
        if hi > high:
            if not predicate(high):
                return None
            hi = high
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _normal_guess(count: int, n: int, keep: float, other: float, confidence: float):
    """Where the interval's ends lie, roughly: the normal approximation, in people."""
    z = _normal_upper_quantile((1.0 - confidence) / 2.0)
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    centre = (count - n * other) / (keep - other)
    spread = z * math.sqrt(n * variance) / (keep - other)
    return round(centre - spread), round(centre + spread)


def _berry_esseen_error(n: int, keep: float, other: float) -> float:
    """The Berry-Esseen bound on |F - Phi| for the noisy count, at its worst over t."""
    variances = [q * (1.0 - q) for q in (keep, other)]
    # E|X - q|^3 of a Bernoulli(q): q (1 - q) (q^2 + (1 - q)^2).
    third_moments = [q * (1.0 - q) * (q * q + (1.0 - q) ** 2) for q in (keep, other)]
    return BERRY_ESSEEN_CONSTANT * max(third_moments) / (min(variances) ** 1.5 * math.sqrt(n))


def _bound_slope_ok(n: int, keep: float, other: float, z: float) -> bool:
    """True when ``mu_t -/+ z sigma_t`` both increase with t, so the bound's set is an interval.

    ``d/dt (z sigma_t) = z (v_P - v_Q) / (2 sigma_t)`` in absolute value stays below ``P - Q``
    once ``sigma_t >= sqrt(n min(v_P, v_Q))`` exceeds ``z |v_P - v_Q| / (2 (P - Q))``.
    """
    variances = [q * (1.0 - q) for q in (keep, other)]
    return math.sqrt(n * min(variances)) > z * abs(variances[0] - variances[1]) / (
        2.0 * (keep - other)
    )


def _bound_z(n: int, keep: float, other: float, confidence: float) -> float:
    return _normal_upper_quantile((1.0 - confidence) / 2.0 - _berry_esseen_error(n, keep, other))


def _bound_interval(count: int, n: int, keep: float, other: float, confidence: float):
    """The interval from the Berry-Esseen bound, in people: ``(t_lo, t_hi)``.

    The t with ``|count - mu_t| <= z sigma_t``, ``mu_t = tP + (n - t)Q`` and
    ``sigma_t^2 = tP(1 - P) + (n - t)Q(1 - Q)``; both ends move monotonically with t
    (:func:`_bound_slope_ok`), so each is found by bisection on the closed form.
    """
    z = _bound_z(n, keep, other, confidence)
    variance_kept, variance_other = keep * (1.0 - keep), other * (1.0 - other)

    def reach(t: int, sign: float) -> float:
        mean = t * keep + (n - t) * other
        return mean + sign * z * math.sqrt(t * variance_kept + (n - t) * variance_other)

    low = _first_true(lambda t: reach(t, +1.0) >= count, 0, n, 0)
    first_beyond = _first_true(lambda t: reach(t, -1.0) > count, 0, n, n)
    if low is None:
        return n + 1, n  # empty
    high = n if first_beyond is None else first_beyond - 1
    return low, high


def uses_exact_law(n: int, keep: float, other: float, confidence: float) -> bool:
    """True where the interval comes from the exact law, False where from the bound."""
    if n <= EXACT_LIMIT or _berry_esseen_error(n, keep, other) > (1.0 - confidence) / 4.0:
        return True
    return not _bound_slope_ok(n, keep, other, _bound_z(n, keep, other, confidence))


@lru_cache(maxsize=65536)
def exact_interval(
    count: int, n: int, keep: float, other: float, confidence: float
) -> tuple[float, float] | None:
    """The guaranteed interval for the true share ``t / n`` after ``count`` noisy reports.

    Parameters
    ----------
    count : int
        The noisy count of the option, 0 <= count <= n.
    n : int
        How many answered, >= 1.
    keep, other : float
        ``P`` and ``Q``, with ``0 <= Q < P <= 1``.
    confidence : float
        ``1 - alpha``, in (0, 1).

    Returns
    -------
    tuple of float, or None
        ``(low, high)``, multiples of ``1 / n`` in [0, 1]; None when no share is consistent
        with the count (see the module's docstring).
    """
    if not uses_exact_law(n, keep, other, confidence):
        t_lo, t_hi = _bound_interval(count, n, keep, other, confidence)
    else:
        half_alpha = (1.0 - confidence) / 2.0
        guess_lo, guess_hi = _normal_guess(count, n, keep, other, confidence)
        t_lo = _first_true(
            lambda t: _tails(n, t, count, keep, other)[0] > half_alpha, 0, n, guess_lo
        )
        # The largest t with Pr[C <= count | t] > alpha / 2: one before the first that fails.
        first_failing = _first_true(
            lambda t: not _tails(n, t, count, keep, other)[1] > half_alpha, 0, n, guess_hi + 1
        )
        t_hi = n if first_failing is None else first_failing - 1
        if t_lo is None:
            return None
    if t_lo > t_hi:
        return None
    return t_lo / n, t_hi / n


def expected_exact_half_width(
    n: int, share: float, keep: float, other: float, confidence: float
) -> float:
    """Half the exact interval's expected width, when a share ``share`` of n truly hold it.

    The average over the law of the noisy count, whose likely values (all but ``1e-9`` of the
    probability) are each given their interval; counts with no interval count as width 0.
    Planning figures ("the margin a class of n will reach") are this at the share where the
    interval is widest.
    """
    t = round(share * n)
    first, cumulative = _count_law(n, t, keep, other)
    pmf = np.diff(cumulative, prepend=0.0)
    low_index = int(np.searchsorted(cumulative, 0.5e-9))
    high_index = int(np.searchsorted(cumulative, cumulative[-1] - 0.5e-9))
    total, weight = 0.0, 0.0
    for index in range(low_index, high_index + 1):
        interval = exact_interval(first + index, n, keep, other, confidence)
        if interval is not None:
            total += pmf[index] * (interval[1] - interval[0])
        weight += pmf[index]
    return total / weight / 2.0
