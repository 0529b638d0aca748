"""Live ranges: confidence sequences that stay right however often they are looked at.

A fixed-size range read after every answer is the optional-stopping error: each reading has its
chance of missing, and the chances add up (a 95% exact range looked at after every answer from 10
to 100 misses at some look in about a fifth of classes). A *confidence sequence* is a range for
every n at once: with probability at least ``1 - alpha`` it covers the running truth **at every
n simultaneously**, so a professor may look as often as she likes and stop when she likes.

Shares (yes/no and k-option randomized response)
------------------------------------------------
Let ``x_i`` be 1 when the i-th person truly holds the option, ``t_n = x_1 + ... + x_n`` and
``c_n`` the noisy count: report i is Bernoulli(``m_i``) with ``m_i = P`` if ``x_i = 1`` and
``Q`` otherwise (the law of :mod:`~survey_app.privacy.exact`, ``C ~ Bin(t, P) + Bin(n - t, Q)``).
With ``psi_q(lambda) = ln(1 - q + q e^lambda) - lambda q``, the cumulant function of a centred
Bernoulli(q), each ``exp(lambda (X_i - m_i) - psi_{m_i}(lambda))`` has mean 1 given the past, so
their product is a martingale, and it depends on the order **only through t_n**::

    L_n(lambda, t_n) = exp(lambda (c_n - t_n P - (n - t_n) Q) - t_n psi_P(lambda)
                           - (n - t_n) psi_Q(lambda)).

This holds for every order in which holders arrive, even one chosen as the reports come in: it
assumes nothing about a share (a plain beta-binomial mixture assumes identically distributed
reports, and fails for the running share when the holders come first or last). It is exact, so
it is never wider than bounding ``psi`` by the larger of ``psi_P`` and ``psi_Q``. A mixture
``M_n(t) = sum_j w_j L_n(lambda_j, t)`` (weights summing to 1, lambdas of both signs) is again a
martingale with ``M_0 = 1``, and Ville's inequality gives ``Pr[exists n: M_n(t_n) >= 1 / alpha]
<= alpha``. The live range after n answers is therefore

    { t / n :  t in 0 .. n,  M_n(t) < 1 / alpha }.

``ln M_n(t)`` is a log-sum-exp of functions affine in t, so convex: the set is an interval,
whose ends are found by Newton's method from outside (each step stays outside, so stopping
early only widens it). Never empty: when every t is rejected (which happens with probability at
most alpha over the whole sequence), the range is the single share where ``M_n`` is smallest.

The mixture is Robbins' normal mixture over lambda, discretized on a geometric grid of
``|lambda|`` (:data:`_MIXTURE_MAGNITUDES`, ratio 1.1; a discrete mixture is valid in its own
right, whatever the grid), with precision chosen as in Howard et al. (2021, eq. (3.6)) so that the
range is narrowest near :data:`LIVE_TUNED_RESPONDENTS` answers, in units of the largest report
standard deviation.

Numeric averages
----------------
A numeric report is turned into an unbiased estimate ``E_i`` of the grid index (grid steps);
the target is the running mean ``u_bar`` of the true positions ``u_i`` in [0, G]
(:mod:`~survey_app.privacy.numeric_grid`). Given the true value, the randomized rounding gives
``k_i``, ``E[e^(lambda (k - u))] <= e^(|lambda| b + lambda^2 / 8)`` (Hoeffding; ``b`` the
rounding's bias bound), and the mechanism gives ``E_i`` with ``psi_k(lambda) = ln E[e^(lambda
(E - k)) | k]``, so with

    Psi(lambda) = max_k psi_k(lambda) + |lambda| b + lambda^2 / 8

every ``exp(lambda sum (E_i - u_i) - n Psi(lambda))`` is a supermartingale, again for every
order. For the hybrid (bounded reports) ``psi_k`` comes from the exact law of each k; for Laplace
``E - k`` is the discrete Laplace noise, clamped, whose cumulant function is at most
``ln((1 - a)^2 / ((1 - a e^lambda)(1 - a e^-lambda))) + tau`` (the clamp moves at most ``tau <
LAPLACE_TAIL_PROBABILITY`` of probability inward; finite for ``|lambda| < -ln a``). Mixing as
above, the range is the set of m with ``sum_j w_j exp(lambda_j n (E_bar - m) - n
Psi(lambda_j)) < 1 / alpha``: in ``s = n (E_bar - m)`` its ends depend on n alone, cached.

Carried forward: what earlier looks proved
------------------------------------------
Each look's range is right at every n at once, so the earlier looks' ranges hold too, together
with today's. Among the first t answers the number of true holders can only grow, and by at most
one an answer: a count ``t_s`` in ``[low_s, high_s]`` at an earlier look of s answers leaves
``t_t`` in ``[low_s, high_s + (t - s)]``. On the event (probability at least ``1 - alpha``) that
every look's range covers its running count, the intersection of those with today's range covers
``t_t`` as well: the *carried* range keeps the same guarantee and never gives back what an
earlier look proved (:func:`carry_forward`). The carried range of the last look already holds
every look before it (intersecting is associative), so a look needs only the last one's. It is
carried **on counts**, not shares: the running share moves as answers arrive, so intersecting
shares would miss the truth (holders answering in a block move it by more than any range
allows). A numeric question's running sum of true values in ``[lo, hi]`` is carried likewise:
it grows by at least ``lo`` and at most ``hi`` an answer.

References
----------
J. Ville, "Etude critique de la notion de collectif" (1939) (Ville's inequality). H. Robbins,
"Statistical methods related to the law of the iterated logarithm", Ann. Math. Statist. 41
(1970) (mixture martingales). S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform,
nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49 (2021). I. Waudby-Smith,
Z. S. Wu, A. Ramdas, "Nonparametric extensions of randomized response for private confidence
sets", ICML 2023 (confidence sequences for randomized reports, running means included).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

# scipy.special alone: scipy.stats would add some 45 MB to every worker.
from scipy import special

# Not numeric_base nor laplace: NumericMechanism's interface (tell) is built on this module.
from survey_app.privacy.interface import Look
from survey_app.privacy.interface import Mechanism as NumericMechanism
from survey_app.privacy.numeric_grid import (
    NUMERIC_GRID_STEPS,
    NUMERIC_ROUNDING_BIAS,
    NumericEstimate,
    value_of_grid_index,
)
from survey_app.privacy.parameters import check_confidence, check_count, check_real

__all__ = [
    "LIVE_TUNED_RESPONDENTS",
    "carried_mean_interval",
    "carried_share_interval",
    "carry_forward",
    "estimate_mean_with_live_range",
    "live_mean_interval",
    "live_mean_interval_from_sum",
    "live_mean_margins",
    "live_share_interval",
]

#: The live ranges are narrowest around this many answers (a class; the builder's default).
LIVE_TUNED_RESPONDENTS = 40
#: |lambda| times the largest report standard deviation: the mixture's points for each sign.
#: Below 1e-5 the points would only matter beyond some 10^10 answers.
_MIXTURE_MAGNITUDES = 1e-5 * 1.1 ** np.arange(int(math.log(8e5) / math.log(1.1)) + 2)
#: Newton's method stops after this many steps (always outside the set: only wider).
_NEWTON_STEPS = 200
#: Hybrid-like mechanisms' exact laws are tabulated; more reports than this need a closed form.
_MAX_TABULATED_OUTPUTS = 10_000

Evaluator = Callable[[float], tuple[float, float]]


# --------------------------------------------------------------------------- the mixture


def _mixture_precision(confidence: float) -> float:
    """Howard et al.'s (2021) rho for n0 = LIVE_TUNED_RESPONDENTS, per unit variance."""
    log_alpha = math.log(1.0 / (1.0 - confidence))
    return LIVE_TUNED_RESPONDENTS / (2.0 * log_alpha + math.log1p(2.0 * log_alpha))


@lru_cache(maxsize=64)
def _mixture(confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """``(x, log w)``: dimensionless mixing points of both signs and their log weights.

    The normal mixture N(0, 1 / rho) over ``x = lambda sigma``, with Howard et al.'s (2021)
    ``rho = n0 / (2 ln(1 / alpha) + ln(1 + 2 ln(1 / alpha)))`` for ``n0 =``
    :data:`LIVE_TUNED_RESPONDENTS`, discretized on a geometric grid: each point's weight is
    the density of ``ln |x|`` there, ``|x| exp(-rho x^2 / 2)``, normalized to sum 1.
    """
    rho = _mixture_precision(confidence)
    magnitudes = _MIXTURE_MAGNITUDES
    log_weights = np.log(magnitudes) - rho * magnitudes**2 / 2.0
    log_weights -= special.logsumexp(log_weights) + math.log(2.0)
    return np.concatenate([magnitudes, -magnitudes]), np.concatenate([log_weights, log_weights])


def _log_sum_exp_affine(intercepts: np.ndarray, slopes: np.ndarray) -> Evaluator:
    """``x -> (ln sum exp(intercepts + x slopes), its derivative)``: convex in x."""

    def evaluate(x: float) -> tuple[float, float]:
        exponents = intercepts + x * slopes
        top = float(np.max(exponents))
        terms = np.exp(exponents - top)
        total = float(np.sum(terms))
        return top + math.log(total), float(terms @ slopes) / total

    return evaluate


def _newton_inward(evaluate: Evaluator, start: float, threshold: float) -> float:
    """From ``start`` outside the convex set {f < threshold}, Newton's steps to its boundary.

    The tangent of a convex function lies below it, so every step lands outside the set or on
    its boundary: wherever it stops, the point is no nearer the inside than the boundary.
    """
    x = start
    value, slope = evaluate(x)
    for _ in range(_NEWTON_STEPS):
        excess = value - threshold
        if excess <= 0.0 or slope == 0.0:
            break
        step = excess / slope
        x -= step
        if abs(step) <= 1e-12 * max(1.0, abs(x)):
            break
        value, slope = evaluate(x)
    return x


# --------------------------------------------------------------------------- shares


def _bernoulli_cgf(probability: float, lambdas: np.ndarray) -> np.ndarray:
    """``ln(1 - q + q e^lambda)``: the (uncentred) cumulant function of a Bernoulli(q)."""
    return np.log1p(probability * np.expm1(lambdas))


@lru_cache(maxsize=256)
def _share_terms(keep: float, other: float, confidence: float) -> tuple[np.ndarray, ...]:
    """``(lambda, ln w, ln E e^(lambda X) for X ~ Bernoulli(Q), slope in t)`` for the shares.

    ``ln L_n(lambda, t) = lambda c - n K_Q(lambda) - t (K_P(lambda) - K_Q(lambda))`` with K the
    uncentred cumulant functions: the centring terms of the module's formula cancel.
    """
    x, log_weights = _mixture(confidence)
    sigma = math.sqrt(max(keep * (1.0 - keep), other * (1.0 - other)))
    lambdas = x / sigma
    cgf_other = _bernoulli_cgf(other, lambdas)
    return lambdas, log_weights, cgf_other, _bernoulli_cgf(keep, lambdas) - cgf_other


def _least_rejected(evaluate: Evaluator, n: int) -> int:
    """The t in 0 .. n where the convex ``ln M_n(t)`` is smallest (bisection on its steps)."""
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if evaluate(middle + 1)[0] >= evaluate(middle)[0]:
            high = middle
        else:
            low = middle + 1
    return low


def _outer_points(centre: float, n: int, keep: float, other: float, confidence: float):
    """Guesses of points just beyond the range's ends, in people: 1.5 times Robbins' normal
    mixture bound at the largest report variance (the caller checks that they are outside)."""
    log_alpha = math.log(1.0 / (1.0 - confidence))
    variance = n * max(keep * (1.0 - keep), other * (1.0 - other))
    prior = variance / n * _mixture_precision(confidence)
    reach = math.sqrt((variance + prior) * (2.0 * log_alpha + math.log1p(variance / prior)))
    spread = 1.5 * reach / (keep - other) + 1.0
    return max(0.0, centre - spread), min(float(n), centre + spread)


@lru_cache(maxsize=65536)
def _live_share_people(count: int, n: int, keep: float, other: float, confidence: float):
    """``(t_low, t_high)``: the live range in people (see :func:`live_share_interval`)."""
    lambdas, log_weights, cgf_other, slopes = _share_terms(keep, other, confidence)
    intercepts = log_weights + lambdas * count - n * cgf_other
    evaluate = _log_sum_exp_affine(intercepts, -slopes)
    threshold = math.log(1.0 / (1.0 - confidence))
    centre = min(float(n), max(0.0, (count - n * other) / (keep - other)))
    start = min({math.floor(centre), math.ceil(centre)}, key=lambda t: evaluate(t)[0])
    left, right = _outer_points(centre, n, keep, other, confidence)
    if evaluate(start)[0] >= threshold:
        start = _least_rejected(evaluate, n)
        if evaluate(start)[0] >= threshold:
            return start, start  # every share rejected: the least rejected one
        left, right = 0.0, float(n)
    left = left if left <= start and evaluate(left)[0] >= threshold else 0.0
    right = right if right >= start and evaluate(right)[0] >= threshold else float(n)
    # Terms below e^(threshold - 60) at both outer points are below it between them (they are
    # affine in t): leaving them out changes the mixture by next to nothing, and only lowers it,
    # which can only widen the range.
    kept = np.maximum(intercepts - left * slopes, intercepts - right * slopes) > threshold - 60.0
    evaluate = _log_sum_exp_affine(intercepts[kept], -slopes[kept])
    # A hair of slack in rounding: Newton's points are outside the set, so this only widens.
    slack = 1e-9 * max(1.0, n)
    low = 0
    if evaluate(left)[0] >= threshold:
        low = math.ceil(_newton_inward(evaluate, left, threshold) - slack)
    high = n
    if evaluate(right)[0] >= threshold:
        high = math.floor(_newton_inward(evaluate, right, threshold) + slack)
    return max(0, min(low, start)), min(n, max(high, start))


def live_share_interval(
    count: int, n: int, keep: float, other: float, confidence: float = 0.95
) -> tuple[float, float]:
    """The live range for the running true share ``t_n / n`` of an option: valid at every look.

    With probability at least ``confidence`` the range covers the running share at every n at
    once, for every order in which holders arrive (see the module's docstring).

    Parameters
    ----------
    count : int
        How many of the n reports named the option (the noisy count), 0 <= count <= n.
    n : int
        How many answered so far.
    keep, other : float
        ``P`` and ``Q`` (:attr:`RandomizedResponse.keep`, :attr:`RandomizedResponse.other`),
        ``0 < Q < P < 1``.
    confidence : float
        ``1 - alpha``, in (0, 1).

    Returns
    -------
    tuple of float
        ``(low, high)``, multiples of ``1 / n`` in [0, 1], never empty; ``(0.0, 1.0)`` when
        ``n`` is 0. Cached: the live view asks again for the same counts.
    """
    respondents = check_count("n", n)
    noisy = check_count("count", count)
    if noisy > respondents:
        raise ValueError(f"count must be at most n ({respondents}), got {count!r}")
    p_keep, p_other = check_real("keep", keep), check_real("other", other)
    if not 0.0 < p_other < p_keep < 1.0:
        raise ValueError(f"keep and other must have 0 < other < keep < 1, got {keep}, {other}")
    level = check_confidence(confidence)
    if respondents == 0:
        return 0.0, 1.0
    low, high = _live_share_people(noisy, respondents, p_keep, p_other, level)
    return low / respondents, high / respondents


# --------------------------------------------------------------------------- carried forward


def carry_forward(
    looks: Sequence[tuple[float, float, float]], lowest: float = 0.0, highest: float = 1.0
) -> tuple[float, float]:
    """Today's range of a running sum, narrowed by what every earlier look proved.

    Parameters
    ----------
    looks : sequence of (n, low, high)
        Each look's range for the running sum of the first n true values, oldest first, the
        last one today's; n never falls from one look to the next.
    lowest, highest : float
        Each true value lies in [lowest, highest] (0 and 1 for a count of holders).

    Returns
    -------
    tuple of float
        ``(low, high)`` for the last look: at each look the range carried so far, its lower end
        grown by ``lowest`` and its upper end by ``highest`` for every answer since, is
        intersected with that look's own range. When they do not meet (every look's range
        covering its sum would have made them meet: probability at most alpha), the carried
        range is the end of what the earlier looks allow nearest to today's range, so that it
        never widens by more than the new answers allow, whatever happens.
    """
    if not looks:
        raise ValueError("looks must hold at least today’s look")
    if lowest > highest:
        raise ValueError(f"lowest must be at most highest, got {lowest}, {highest}")
    carried_n, carried_low, carried_high = looks[0]
    for n, low, high in looks[1:]:
        new_answers = n - carried_n
        if new_answers < 0:
            raise ValueError(f"looks must come in order of answers, got {n} after {carried_n}")
        floor = carried_low + new_answers * lowest
        ceiling = carried_high + new_answers * highest
        if high < floor or low > ceiling:
            carried_low = carried_high = floor if high < floor else ceiling
        else:
            carried_low, carried_high = max(low, floor), min(high, ceiling)
        carried_n = n
    return carried_low, carried_high


def carried_share_interval(
    count: int,
    n: int,
    keep: float,
    other: float,
    confidence: float = 0.95,
    earlier: Look | None = None,
) -> tuple[float, float]:
    """:func:`live_share_interval`, never giving back what earlier looks proved.

    ``earlier``: ``(n_s, low, high)``, the range in people this option's carried live range had
    at the last look, of ``n_s <= n`` answers at the same confidence (None: no earlier look). It
    carries every look before it, so carrying it alone carries them all (:func:`carry_forward`),
    and the result keeps the guarantee: with probability at least ``confidence`` it covers the
    running share at every look at once. Returns ``(low, high)``, multiples of ``1 / n``.
    """
    low, high = live_share_interval(count, n, keep, other, confidence)
    if earlier is None or n == 0:
        return low, high
    low, high = carry_forward([earlier, (n, round(low * n), round(high * n))])
    return low / n, high / n


# --------------------------------------------------------------------------- numeric averages


def _tabulated_cgf(mechanism: NumericMechanism, lambdas: np.ndarray) -> np.ndarray:
    """``max_k ln E[e^(lambda (E - k)) | k]`` from the exact law of every grid index k."""
    low, high = mechanism.output_range
    if high - low + 1 > _MAX_TABULATED_OUTPUTS:
        raise ValueError(f"{type(mechanism).__name__} has too many reports to tabulate its law")
    estimates = mechanism.estimate_of_output(np.arange(low, high + 1)).astype(float)
    indices = np.arange(NUMERIC_GRID_STEPS + 1, dtype=float)
    laws = np.stack([mechanism.pmf(int(k)) for k in indices])
    # Centred at G / 2 so that the exponents stay small; one shift per lambda keeps them <= 0.
    centre = NUMERIC_GRID_STEPS / 2.0
    exponents = np.outer(estimates - centre, lambdas)
    shifts = exponents.max(axis=0)
    moments = laws @ np.exp(exponents - shifts)
    cgf = np.log(moments) + shifts - np.outer(indices - centre, lambdas)
    return cgf.max(axis=0)


@lru_cache(maxsize=64)
def _mean_terms(mechanism: NumericMechanism, confidence: float) -> tuple[np.ndarray, ...]:
    """``(lambda, ln w, Psi(lambda))`` of a numeric mechanism, lambda per grid step.

    Laplace's cumulant function is finite only for ``|lambda| < -ln a``: the mixture keeps the
    points inside (renormalized: any weights summing to 1 make a valid mixture).
    """
    x, log_weights = _mixture(confidence)
    sigma = math.sqrt(mechanism.worst_case_variance) / mechanism.step
    lambdas = x / sigma
    reach = mechanism.cumulant_reach
    if reach is not None:  # Laplace's: finite inside its reach, in closed form there
        inside = np.abs(lambdas) < 0.999 * reach
        lambdas, log_weights = lambdas[inside], log_weights[inside]
        log_weights = log_weights - special.logsumexp(log_weights)
        cgf = mechanism.cumulant_bound(lambdas)
    else:
        cgf = _tabulated_cgf(mechanism, lambdas)
    bound = cgf + np.abs(lambdas) * NUMERIC_ROUNDING_BIAS + lambdas**2 / 8.0
    return lambdas, log_weights, bound


@lru_cache(maxsize=64)
def _unit_mechanism(kind: type[NumericMechanism], epsilon: float) -> NumericMechanism:
    return kind(0.0, 1.0, epsilon)


def _on_the_grid(mechanism: NumericMechanism) -> NumericMechanism:
    """The same mechanism on [0, 1]: its law on the grid depends on epsilon alone, so caches
    keyed by this one (made once) serve every question of that kind and epsilon."""
    return _unit_mechanism(type(mechanism), mechanism.epsilon)


@lru_cache(maxsize=8192)
def _mean_boundary(mechanism: NumericMechanism, n: int, confidence: float) -> tuple[float, float]:
    """``(s_low, s_high)``, grid steps: outside them ``n (E_bar - u_bar)`` is rejected.

    The set {s: ln sum_j w_j exp(lambda_j s - n Psi_j) < ln(1 / alpha)} is an interval around 0
    (convex in s, below the threshold at s = 0 since Psi >= 0); Newton's method from beyond
    each end, reached by doubling, finds it.
    """
    lambdas, log_weights, bound = _mean_terms(mechanism, confidence)
    evaluate = _log_sum_exp_affine(log_weights - n * bound, lambdas)
    threshold = math.log(1.0 / (1.0 - confidence))
    sigma = math.sqrt(mechanism.worst_case_variance) / mechanism.step
    ends = []
    for sign in (-1.0, 1.0):
        reach = sign * sigma * math.sqrt(n * threshold)
        while evaluate(reach)[0] < threshold:
            reach *= 2.0
        ends.append(_newton_inward(evaluate, reach, threshold))
    return ends[0], ends[1]


def live_mean_margins(
    mechanism: NumericMechanism, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """``(below, above)``: the live range after n answers is ``[mean - below, mean + above]``.

    In the question's units, before clipping to [lo, hi]; ``mean`` is the unbiased estimate
    (:meth:`~NumericMechanism.estimate_mean`). They depend on n alone, not on the answers, so
    they are also what a class of n will see (planning). Cached.
    """
    respondents = check_count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have a margin")
    level = check_confidence(confidence)
    s_low, s_high = _mean_boundary(_on_the_grid(mechanism), respondents, level)
    return s_high / respondents * mechanism.step, -s_low / respondents * mechanism.step


def live_mean_interval_from_sum(
    mechanism: NumericMechanism, n: int, estimate_sum: float, confidence: float = 0.95
) -> tuple[float, float]:
    """The live range for the running mean of the true (clipped) values, from n and a sum.

    ``estimate_sum`` is the sum of ``mechanism.estimate_of_output(report)`` over the n reports,
    in grid steps (the sufficient statistic). With probability at least ``confidence`` the range
    covers the running mean at every n at once, whatever the values and their order (see the
    module's docstring). Returns ``(low, high)`` in the question's units, within [lo, hi] and
    never empty (a single bound when the estimate is far beyond it); ``(lo, hi)`` when n is 0.
    """
    respondents = check_count("n", n)
    total = check_real("estimate_sum", estimate_sum)
    level = check_confidence(confidence)
    if respondents == 0:
        return mechanism.lo, mechanism.hi
    s_low, s_high = _mean_boundary(_on_the_grid(mechanism), respondents, level)
    mean_index = total / respondents
    low = min(float(NUMERIC_GRID_STEPS), max(0.0, mean_index - s_high / respondents))
    high = max(0.0, min(float(NUMERIC_GRID_STEPS), mean_index - s_low / respondents))
    ends = value_of_grid_index(np.array([low, high]), mechanism.lo, mechanism.hi)
    return float(ends[0]), float(ends[1])


def live_mean_interval(
    mechanism: NumericMechanism, outputs: ArrayLike, confidence: float = 0.95
) -> tuple[float, float]:
    """The live range for the running mean of a numeric question's true values, from reports.

    :func:`live_mean_interval_from_sum` of the reports' unbiased estimates; ``outputs`` are
    the reports as the browser sent them (integers in ``mechanism.output_range``).
    """
    reports = np.asarray(outputs).ravel()
    if reports.size:
        if reports.dtype == np.bool_ or not np.issubdtype(reports.dtype, np.integer):
            raise ValueError("outputs must be integers")
        low, high = mechanism.output_range
        if reports.min() < low or reports.max() > high:
            raise ValueError(f"outputs must be in {low} .. {high}")
    total = float(np.sum(mechanism.estimate_of_output(reports))) if reports.size else 0.0
    return live_mean_interval_from_sum(mechanism, int(reports.size), total, confidence)


def carried_mean_interval(
    mechanism: NumericMechanism,
    n: int,
    estimate_sum: float,
    confidence: float = 0.95,
    earlier: Look | None = None,
) -> tuple[float, float]:
    """:func:`live_mean_interval_from_sum`, never giving back what earlier looks proved.

    ``earlier``: ``(n_s, low, high)``, the range of the running sum of the true values (the
    carried live range of the mean times ``n_s``) at the last look, of ``n_s <= n`` answers at
    the same confidence (None: no earlier look). Each true value lies in ``[lo, hi]``, so
    :func:`carry_forward` carries the sum; today's n turns it back into a mean. The guarantee
    is that of every look at once, as for :func:`live_mean_interval_from_sum`.
    """
    low, high = live_mean_interval_from_sum(mechanism, n, estimate_sum, confidence)
    if earlier is None or n == 0:
        return low, high
    low, high = carry_forward([earlier, (n, n * low, n * high)], mechanism.lo, mechanism.hi)
    # Dividing by n may leave a hair outside [lo, hi]; the range is within it.
    return max(mechanism.lo, low / n), min(mechanism.hi, high / n)


def estimate_mean_with_live_range(
    mechanism: NumericMechanism,
    outputs: ArrayLike,
    confidence: float = 0.95,
    earlier: Look | None = None,
) -> NumericEstimate:
    """``mechanism.estimate_mean`` with its live range (``live_low``, ``live_high``) set,
    carried forward from what the ``earlier`` look proved (:func:`carried_mean_interval`).

    Here rather than on the mechanism, which this module's ranges are built on.
    """
    estimate = mechanism.estimate_mean(outputs, confidence)
    if estimate.n == 0:
        return estimate
    low, high = live_mean_interval(mechanism, outputs, confidence)
    if earlier is not None:
        reports = np.asarray(outputs).ravel()
        total = float(np.sum(mechanism.estimate_of_output(reports)))
        low, high = carried_mean_interval(mechanism, estimate.n, total, confidence, earlier)
    return dataclasses.replace(estimate, live_low=low, live_high=high)
