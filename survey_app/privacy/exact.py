"""Exact guaranteed intervals for randomized response, and the margins they reach.

The law of a noisy count
------------------------
Fix the ``n`` people who answered, and let ``t`` of them truly hold an option. Each of the
``t`` reports it with probability ``P`` (the keep probability), each of the other ``n - t``
with probability ``Q`` (the probability of reporting this particular other option), all
independently, so the noisy count is

    C ~ Bin(t, P) + Bin(n - t, Q),    f_t(c) = Pr[C = c | t].

For yes/no, ``P = 1 - p`` and ``Q = p``; for k options, the k-RR probabilities the browser
really uses. Since ``P > Q``, C grows stochastically with t: ``Pr[C >= c | t]`` increases and
``Pr[C <= c | t]`` decreases in t. Coupling the two laws person by person (one person of
``t + 1`` who reports with ``P`` instead of ``Q``) gives ``C_{t+1} <= C_t + 1``, so
``Pr[C_t >= c] >= Pr[C_{t+1} >= c + 1]``; this is what keeps the intervals below non-empty.

Every interval here is a Neyman construction
--------------------------------------------
At confidence ``1 - alpha`` each t gets an *acceptance region* ``A_t`` of counts with
``Pr[C in A_t | t] >= 1 - alpha``, and the interval after observing ``c`` is (the hull of)
``{ t / n : c in A_t }``. Whatever the true t, the interval misses it only when C falls
outside ``A_t``, with probability at most ``alpha``: the interval covers the true share with
probability at least ``1 - alpha`` **for every t**, a guarantee, like Chebyshev's, not an
approximation. Making an ``A_t`` larger, or reporting a hull or any larger set of t, can only
raise that probability; the constructions below use this freely. They differ in how each
``A_t`` is chosen, and every count lies in some ``A_t``, so **no interval is ever empty**.

Up to :data:`TABLE_LIMIT` answers: likelihood-ratio ordering
------------------------------------------------------------
Following Feldman and Cousins ("Unified approach to the classical statistical analysis of
small signals", Phys. Rev. D 57, 1998; a signal over a known background is this law), each
``A_t`` takes the counts in decreasing order of

    R_t(c) = f_t(c) / max_s f_s(c),

until their probability under t reaches ``1 - alpha`` (counts tied with the last one taken are
taken too). The interval for ``c`` is ``[min, max]`` of the t whose region holds it. It is never
empty: the t that best explains ``c`` has ``R_t(c) = 1``, the largest ratio there is, so ``c``
is among the first counts its region takes. It is narrower than an equal-tailed construction
(expected width 0.486 against 0.517 at n = 40, p = 0.25, true share 0.3, 95%), because each
region spends its whole ``alpha`` where the counts are least likely (near a bound, the region of
``t = 0`` takes every count below its mean). All laws and regions at one ``(n, P, Q, 1 - alpha)``
are computed at once (``O(n^2)``, a few ms at 200) and cached, so each interval is a look-up.
Counts so unlikely that every ``f_t(c)`` underflows get the nearest bound, 0 or n, alone.

Above it: equal tails, the bounds keeping their outer tails
-----------------------------------------------------------
Above :data:`TABLE_LIMIT`, computing every law costs too much, and the interval is found by a
search over t on the exact tail probabilities:

    { t / n :  (Pr[C >= c | t] > alpha / 2  or  t = n)
           and (Pr[C <= c | t] > alpha / 2  or  t = 0) },

the construction of Clopper and Pearson (1934) for this law, except that ``A_0`` keeps every
count below its upper limit and ``A_n`` every count above its lower one (their regions only
grow, so the guarantee stands). By the monotonicity above, the t meeting the first condition
are ``[t_lo, n]`` and those meeting the second ``[0, t_hi]``, ``t_hi >= 0``. The two meet:
if ``t_hi < n``, then ``Pr[C <= c | t_hi + 1] <= alpha / 2``, and by the coupling
``Pr[C >= c | t_hi] >= Pr[C >= c + 1 | t_hi + 1] >= 1 - alpha / 2 > alpha / 2``, so ``t_hi``
meets the first condition too and the interval ``[t_lo, t_hi]`` holds it. The counts that
equal tails alone gave no interval (below the lower ``alpha / 2`` tail of ``t = 0``, or above
the upper one of ``t = n``) now get the single bound 0 or 1. Away from the bounds these are
today's intervals; at 200 answers they are 2-4% wider than the ordered ones.

The tails are sums of the exact probabilities of C, the convolution of the two binomial laws,
each kept where it is not negligible: within ``12 sd + 60`` of its mean, beyond which Bernstein's
inequality leaves less than ``e^-70`` of probability. A search, started where the normal
law corrected for skewness puts each end, costs a handful of such tails, each ``O(sqrt(n) log n)``.

Many answers: a proven bound
----------------------------
Above :data:`EXACT_LIMIT` answers, the interval is computed instead from the Berry-Esseen
theorem, which bounds how far the law of C is from the normal law of the same mean and
variance: ``sup |F(x) - Phi((x - mu) / sigma)| <= C0 sum E|X_i - p_i|^3 / sigma^3`` with
``C0 = 0.56`` for independent, not identically distributed terms (I. G. Shevtsova, "An
improvement of convergence rate estimates in the Lyapunov theorem", Doklady Math. 82, 2010).
With ``eps`` that bound at its worst over t and ``z`` such that ``Phi(-z) = alpha / 2 - eps``,
``A_t = { c : |c - mu_t| <= z sigma_t }`` (each tail outside it is at most ``Phi(-z) + eps``),
with again ``A_0`` keeping the counts below it and ``A_n`` those above, so the interval is
never empty (if ``t_hi < n``, ``mu_{t_hi+1} - z sigma_{t_hi+1} > c`` and
``mu_{t_hi+1} = mu_{t_hi} + P - Q`` give ``mu_{t_hi} + z sigma_{t_hi} > c`` as soon as
``z sigma >= 1``, true by far at these n). Its ends are found by bisection on a closed form. At
20,000 to 40,000 answers it is 3% (yes/no) to 8% (several options) wider than the exact
interval, and the difference shrinks as ``1 / sqrt(n)``; it is used only where ``eps <= alpha / 4``
and where both ends of the set move monotonically with t.
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
    "TABLE_LIMIT",
    "exact_interval",
    "expected_exact_half_width",
]

#: Up to this many answers intervals are exact; above it, the Berry-Esseen bound (see above).
EXACT_LIMIT = 20_000
#: Up to this many answers intervals come from the likelihood-ratio ordering (see above).
TABLE_LIMIT = 200
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


def _binomial_rows(n: int, probability: float) -> np.ndarray:
    """``rows[m, j] = Pr[Bin(m, probability) = j]`` for ``0 <= j <= m <= n``, zero above."""
    log_factorial = special.gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)
    j = np.arange(n + 1)
    m = j[:, None]
    inside = j <= m
    log_pmf = (
        log_factorial[m]
        - log_factorial[j]
        - log_factorial[np.where(inside, m - j, 0)]
        + j * math.log(probability)
        + np.where(inside, m - j, 0) * math.log1p(-probability)
    )
    return np.where(inside, np.exp(np.where(inside, log_pmf, -np.inf)), 0.0)


def _all_laws(n: int, keep: float, other: float) -> np.ndarray:
    """``laws[t, c] = f_t(c)`` for every t and c, by direct convolution (exact to rounding)."""
    kept, others = _binomial_rows(n, keep), _binomial_rows(n, other)
    laws = np.empty((n + 1, n + 1))
    for t in range(n + 1):
        laws[t] = np.convolve(kept[t, : t + 1], others[n - t, : n - t + 1])
    return laws


def _ordered_regions(laws: np.ndarray, confidence: float) -> np.ndarray:
    """``accepted[t, c]``: the counts each t takes in decreasing ``f_t(c) / max_s f_s(c)``.

    Each row takes counts until their probability reaches ``confidence``; counts whose ratio
    ties (to 1e-9) with the last one taken are taken too, so the best t of every count takes it.
    """
    best = laws.max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(best > 0.0, laws / best, 0.0)
    order = np.argsort(-ratios, axis=1, kind="stable")
    mass = np.cumsum(np.take_along_axis(laws, order, axis=1), axis=1)
    # The first position where the mass reaches the confidence (the last, if rounding never
    # lets it: taking every count is always allowed).
    last = np.minimum((mass < confidence).sum(axis=1), laws.shape[1] - 1)
    threshold = np.take_along_axis(ratios, np.take_along_axis(order, last[:, None], axis=1), 1)
    return (ratios >= threshold * (1.0 - 1e-9)) & (best > 0.0)


@lru_cache(maxsize=256)
def _ordered_table(n: int, keep: float, other: float, confidence: float) -> np.ndarray:
    """``table[c] = (t_lo, t_hi)``: the ordered interval of every count, in people."""
    accepted = _ordered_regions(_all_laws(n, keep, other), confidence)
    counts = np.arange(n + 1)
    # Each region's hull: a larger region only raises coverage, and it makes the t of a count
    # the t whose hull holds it.
    first = np.argmax(accepted, axis=1)
    last = n - np.argmax(accepted[:, ::-1], axis=1)
    holds = (first[:, None] <= counts) & (counts <= last[:, None])  # [t, c]
    table = np.stack([np.argmax(holds, axis=0), n - np.argmax(holds[::-1], axis=0)], axis=1)
    # A count no t holds is one whose every f_t underflowed: it gets the nearer bound alone.
    nobody = ~holds.any(axis=0)
    bound = np.where(2 * counts < n * (keep + other), 0, n)
    table[nobody] = bound[nobody, None]
    table.setflags(write=False)
    return table


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
    """Where the interval's ends lie, roughly, in people: only where the search starts
    (:func:`_first_true` finds the same ends from any guess), so a better guess costs fewer
    tails, nothing else.

    Each end is the t whose law puts ``count`` at its ``alpha / 2`` quantile (half a count
    inward, for the discrete law), the quantile taken by the normal approximation with
    Cornish and Fisher's skewness term at that t's own mean, variance and skewness; two rounds
    of fixed-point iteration from the centre land within a person or two of the ends.
    """
    z = _normal_upper_quantile((1.0 - confidence) / 2.0)
    centre = (count - n * other) / (keep - other)
    ends = []
    for sign in (+1.0, -1.0):  # the lower end puts count at t's upper quantile, and back
        t = centre
        for _ in range(2):
            holders = min(float(n), max(0.0, t))
            variance = holders * keep * (1.0 - keep) + (n - holders) * other * (1.0 - other)
            third = holders * keep * (1.0 - keep) * (1.0 - 2.0 * keep) + (n - holders) * other * (
                1.0 - other
            ) * (1.0 - 2.0 * other)
            sd = math.sqrt(max(variance, 1e-12))
            quantile = sign * z + (z * z - 1.0) * third / sd**3 / 6.0
            t = (count - sign * 0.5 - n * other - sd * quantile) / (keep - other)
        ends.append(round(t) if math.isfinite(t) else round(centre))
    return ends[0], ends[1]


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
    """The interval from the Berry-Esseen bound, in people: ``(t_lo, t_hi)``, never empty.

    The t with ``|count - mu_t| <= z sigma_t``, ``mu_t = tP + (n - t)Q`` and
    ``sigma_t^2 = tP(1 - P) + (n - t)Q(1 - Q)``, where t = 0 also holds every count below and
    t = n every count above (see the module's docstring); both ends move monotonically with t
    (:func:`_bound_slope_ok`), so each is found by bisection on the closed form.
    """
    z = _bound_z(n, keep, other, confidence)
    variance_kept, variance_other = keep * (1.0 - keep), other * (1.0 - other)

    def reach(t: int, sign: float) -> float:
        mean = t * keep + (n - t) * other
        return mean + sign * z * math.sqrt(t * variance_kept + (n - t) * variance_other)

    low = _first_true(lambda t: reach(t, +1.0) >= count, 0, n, 0)
    first_beyond = _first_true(lambda t: reach(t, -1.0) > count, 0, n, n)
    return _clamped(low, first_beyond, n)


def _clamped(low: int | None, first_beyond: int | None, n: int) -> tuple[int, int]:
    """``(t_lo, t_hi)`` from the first t whose upper condition holds and the first t whose
    lower one fails, with t = n taking every count above and t = 0 every count below.

    Proven to meet (``t_lo <= t_hi``, module docstring); should rounding ever say otherwise,
    both are kept, as a larger set of t only raises coverage.
    """
    t_lo = n if low is None else low
    t_hi = max(0, n if first_beyond is None else first_beyond - 1)
    return min(t_lo, t_hi), max(t_lo, t_hi)


def _equal_tailed_interval(count: int, n: int, keep: float, other: float, confidence: float):
    """The equal-tailed interval on the exact law, in people: ``(t_lo, t_hi)``, never empty."""
    half_alpha = (1.0 - confidence) / 2.0
    guess_lo, guess_hi = _normal_guess(count, n, keep, other, confidence)
    low = _first_true(lambda t: _tails(n, t, count, keep, other)[0] > half_alpha, 0, n, guess_lo)
    # The largest t with Pr[C <= count | t] > alpha / 2 is one before the first that fails.
    first_failing = _first_true(
        lambda t: not _tails(n, t, count, keep, other)[1] > half_alpha, 0, n, guess_hi + 1
    )
    return _clamped(low, first_failing, n)


def uses_exact_law(n: int, keep: float, other: float, confidence: float) -> bool:
    """True where the interval comes from the exact law, False where from the bound."""
    if n <= EXACT_LIMIT or _berry_esseen_error(n, keep, other) > (1.0 - confidence) / 4.0:
        return True
    return not _bound_slope_ok(n, keep, other, _bound_z(n, keep, other, confidence))


@lru_cache(maxsize=65536)
def exact_interval(
    count: int, n: int, keep: float, other: float, confidence: float
) -> tuple[float, float]:
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
    tuple of float
        ``(low, high)``, multiples of ``1 / n`` in [0, 1], ``low <= high``: never empty, never
        None (a count randomized answers hardly give gets the bound it lies beyond, a point).
        Up to :data:`TABLE_LIMIT` answers the likelihood-ratio ordering, then equal tails on
        the exact law, then the Berry-Esseen bound (see the module's docstring).
    """
    if n <= TABLE_LIMIT:
        t_lo, t_hi = (int(t) for t in _ordered_table(n, keep, other, confidence)[count])
    elif uses_exact_law(n, keep, other, confidence):
        t_lo, t_hi = _equal_tailed_interval(count, n, keep, other, confidence)
    else:
        t_lo, t_hi = _bound_interval(count, n, keep, other, confidence)
    return t_lo / n, t_hi / n


def expected_exact_half_width(
    n: int, share: float, keep: float, other: float, confidence: float
) -> float:
    """Half the exact interval's expected width, when a share ``share`` of n truly hold it.

    The average over the law of the noisy count, whose likely values (all but ``1e-9`` of the
    probability) are each given their interval. Planning figures ("the margin a class of n will
    reach") are this at the share where the interval is widest.
    """
    t = round(share * n)
    first, cumulative = _count_law(n, t, keep, other)
    pmf = np.diff(cumulative, prepend=0.0)
    low_index = int(np.searchsorted(cumulative, 0.5e-9))
    high_index = int(np.searchsorted(cumulative, cumulative[-1] - 0.5e-9))
    total, weight = 0.0, 0.0
    for index in range(low_index, high_index + 1):
        low, high = exact_interval(first + index, n, keep, other, confidence)
        total += pmf[index] * (high - low)
        weight += pmf[index]
    return total / weight / 2.0
