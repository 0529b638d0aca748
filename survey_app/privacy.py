"""The privacy math: randomized response, its debiased estimates and Chebyshev intervals.

This module is the only place in the project that does this math. It imports NumPy and
nothing of Flask or the database, so it can be read, tested and reused on its own.

Conventions
-----------
``flip_probability`` (``p``) is the probability that a respondent's browser *flips* a yes/no
answer, with ``0 < p < 1/2``. The mechanism is epsilon-differentially private with

    epsilon = ln((1 - p) / p).

A multiple-choice question with ``k`` options uses k-option generalized randomized response
(k-RR): the true option is kept with probability ``P = e^eps / (e^eps + k - 1)``; otherwise one of
the other ``k - 1`` options is reported, uniformly, so each of them has probability
``Q = 1 / (e^eps + k - 1)``. For ``k = 2`` this is the yes/no mechanism with ``P = 1 - p`` and
``Q = p``.

Note that some lecture notes write the estimator as ``(mean - (1 - p)) / (2p - 1)``; that form
holds when ``p`` is the probability of *keeping* the answer. Here ``p`` is the probability of
flipping it, so the unbiased estimator is ``(mean - p) / (1 - 2p)``.

The browser draws each Bernoulli event by comparing one uniform 32-bit word with an integer
threshold, so the probabilities it really uses are multiples of ``2**-32``. Its thresholds are
rounded in the direction that never raises epsilon: it flips a yes/no answer when the word is
below ``T = ceil(p * 2**32)`` (:func:`flip_threshold`), and keeps a choice when the word is below
``K = floor(2**32 (2**32 - T) / (2**32 + (k - 2) T))`` (:func:`keep_threshold`), so its epsilon
(:func:`browser_epsilon`) is at most the stated one. :func:`estimate_browser_frequencies`
debiases answers that came from the browser with exactly those probabilities.

References
----------
S. L. Warner, "Randomized response: a survey technique for eliminating evasive answer bias",
JASA 60 (1965). P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local differential
privacy", NeurIPS 2014 (k-RR). Chebyshev's inequality: Pr[|X - mu| >= k sigma] <= 1 / k^2.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BROWSER_RANDOM_WORDS",
    "MAX_OPTIONS",
    "Estimate",
    "browser_epsilon",
    "browser_flip_probability",
    "browser_keep_probabilities",
    "deniability",
    "epsilon_from_flip_probability",
    "estimate_browser_frequencies",
    "estimate_frequencies",
    "estimate_proportion",
    "estimate_yes_no",
    "flip_probability_from_epsilon",
    "flip_threshold",
    "half_width_for_choices",
    "half_width_for_yes_no",
    "keep_probabilities",
    "keep_threshold",
    "odds_ratio",
    "randomize_bits",
    "randomize_choices",
    "required_sample_size",
    "required_sample_size_for_choices",
    "total_epsilon",
]

#: The browser's uniform draws are 32-bit words: there are this many of them.
BROWSER_RANDOM_WORDS = 2**32

#: The largest number of options a multiple-choice question may have.
MAX_OPTIONS = 12


# --------------------------------------------------------------------------- validation


def _real(name: str, value: object) -> float:
    """Return ``value`` as a finite float, refusing booleans, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def _count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int, refusing booleans and non-integers."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    count = int(value)
    if count < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return count


def _check_flip_probability(flip_probability: object) -> float:
    p = _real("flip_probability", flip_probability)
    if not 0.0 < p < 0.5:
        raise ValueError(f"flip_probability must be in (0, 0.5), got {flip_probability!r}")
    return p


def _check_epsilon(epsilon: object) -> float:
    eps = _real("epsilon", epsilon)
    if eps <= 0.0:
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return eps


def _check_option_count(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) < 2:
        raise ValueError(f"k (the number of options) must be an integer >= 2, got {k!r}")
    return int(k)


def _check_confidence(confidence: object) -> float:
    level = _real("confidence", confidence)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return level


def _check_margin(margin: object) -> float:
    value = _real("margin", margin)
    if not 0.0 < value:
        raise ValueError(f"margin must be a number > 0, got {margin!r}")
    return value


# --------------------------------------------------------------------------- parameters


def epsilon_from_flip_probability(flip_probability: float) -> float:
    """Privacy loss of yes/no randomized response that flips with probability ``p``.

    ``epsilon = ln((1 - p) / p)``, for ``0 < p < 1/2``; ``p = 0.25`` gives ``ln 3``.

    Parameters
    ----------
    flip_probability : float
        Probability that the browser reports the opposite answer, in (0, 0.5).

    Returns
    -------
    float
        epsilon > 0.
    """
    p = _check_flip_probability(flip_probability)
    return math.log1p(-p) - math.log(p)


def flip_probability_from_epsilon(epsilon: float) -> float:
    """Flip probability of yes/no randomized response with privacy loss ``epsilon``.

    ``p = 1 / (1 + e^eps)``, the inverse of :func:`epsilon_from_flip_probability`.

    Parameters
    ----------
    epsilon : float
        Privacy loss, a finite number > 0.

    Returns
    -------
    float
        p in (0, 0.5).
    """
    eps = _check_epsilon(epsilon)
    return 1.0 / (1.0 + math.exp(eps))


def keep_probabilities(epsilon: float, k: int) -> tuple[float, float]:
    """Probabilities of k-option generalized randomized response.

    ``P = e^eps / (e^eps + k - 1)`` is the probability of reporting the true option and
    ``Q = 1 / (e^eps + k - 1)`` that of reporting any one given other option, so
    ``P + (k - 1) Q = 1`` and ``P / Q = e^eps``. ``k = 4``, ``eps = ln 9`` gives ``P = 0.75``.

    Parameters
    ----------
    epsilon : float
        Privacy loss, a finite number > 0.
    k : int
        Number of options, at least 2.

    Returns
    -------
    tuple of float
        ``(P, Q)``.
    """
    eps = _check_epsilon(epsilon)
    options = _check_option_count(k)
    # Written with e^-eps so that large epsilons do not overflow.
    other_weight = (options - 1) * math.exp(-eps)
    keep = 1.0 / (1.0 + other_weight)
    other = math.exp(-eps) / (1.0 + other_weight)
    return keep, other


def flip_threshold(flip_probability: float) -> int:
    """The browser's flip threshold ``T = ceil(p * 2**32)``.

    ``randomizeBit(bit, p)`` flips when a uniform 32-bit word is below ``T``, so it flips with
    probability ``p' = T / 2**32 >= p``. Rounding up, never to nearest, keeps its epsilon
    ``ln((1 - p') / p')`` at or below the stated ``ln((1 - p) / p)``. ``p * 2**32`` is exact
    (scaling by a power of two), so the ceiling is exact and equals JavaScript's
    ``Math.ceil(p * 2 ** 32)``; ``0 < p < 1/2`` gives ``1 <= T <= 2**31``.

    Parameters
    ----------
    flip_probability : float
        p in (0, 0.5).

    Returns
    -------
    int
        T.
    """
    p = _check_flip_probability(flip_probability)
    return math.ceil(p * BROWSER_RANDOM_WORDS)


def keep_threshold(flip_probability: float, k: int) -> int:
    """The browser's keep threshold of k-option randomized response at the survey's epsilon.

    At ``epsilon = ln((1 - p) / p)`` k-RR keeps the true option with probability
    ``P = (1 - p) / (1 + (k - 2) p)``. The browser takes that formula at its own flip probability
    ``p' = T / 2**32`` (:func:`flip_threshold`) and rounds down, in integers (BigInt in the
    browser, so both sides agree bit for bit):

        K = floor(2**32 (2**32 - T) / (2**32 + (k - 2) T)).

    ``randomizeChoice(index, k, p)`` keeps the true option when a uniform 32-bit word is below
    ``K``. ``k = 2`` gives ``K = 2**32 - T``, the yes/no mechanism.

    Parameters
    ----------
    flip_probability : float
        p in (0, 0.5).
    k : int
        Number of options, at least 2.

    Returns
    -------
    int
        K.
    """
    options = _check_option_count(k)
    flips = flip_threshold(flip_probability)
    words = BROWSER_RANDOM_WORDS
    return words * (words - flips) // (words + (options - 2) * flips)


def browser_flip_probability(flip_probability: float) -> float:
    """The flip probability the browser's ``randomizeBit(bit, p)`` really uses: ``T / 2**32``."""
    return flip_threshold(flip_probability) / BROWSER_RANDOM_WORDS


def browser_keep_probabilities(flip_probability: float, k: int) -> tuple[float, float]:
    """``(P', Q')`` as the browser's ``randomizeChoice(index, k, p)`` really uses them.

    ``P' = K / 2**32`` with ``K`` from :func:`keep_threshold`; the other option is picked exactly
    uniformly (rejection sampling), so ``Q' = (1 - P') / (k - 1)``. Since ``P'`` is at most
    ``P`` at ``p'`` and ``P / Q`` grows with ``P``,

        P' / Q' <= (1 - p') / p' <= (1 - p) / p = e^eps.

    For ``k = 2`` this is ``(1 - p', p')``.
    """
    options = _check_option_count(k)
    keep = keep_threshold(flip_probability, options) / BROWSER_RANDOM_WORDS
    return keep, (1.0 - keep) / (options - 1)


def browser_epsilon(flip_probability: float, k: int = 2) -> float:
    """The epsilon the browser really spends on a question of k options (2: yes/no).

    ``ln(P' / Q') = ln((k - 1) K / (2**32 - K))``, from the integers of :func:`keep_threshold`;
    it never exceeds the stated :func:`epsilon_from_flip_probability` (see
    :func:`browser_keep_probabilities`).
    """
    options = _check_option_count(k)
    keep = keep_threshold(flip_probability, options)
    return math.log((options - 1) * keep) - math.log(BROWSER_RANDOM_WORDS - keep)


def total_epsilon(epsilons: Iterable[float]) -> float:
    """Privacy loss of answering several questions: the sum (basic composition).

    A respondent who answers m questions at ``eps_1, ..., eps_m`` is
    ``(eps_1 + ... + eps_m)``-differentially private.

    Parameters
    ----------
    epsilons : iterable of float
        Each a finite number > 0.

    Returns
    -------
    float
        The sum; 0.0 for no questions.
    """
    return math.fsum(_check_epsilon(eps) for eps in epsilons)


def deniability(flip_probability: float, prior: float = 0.5) -> float:
    """How sure an observer can be of a "yes" after seeing the browser send "yes".

    By Bayes' rule, ``Pr[yes | sent yes] = prior (1 - p) / (prior (1 - p) + (1 - prior) p)``;
    with a 50/50 prior this is ``1 - p``.

    Parameters
    ----------
    flip_probability : float
        p in (0, 0.5).
    prior : float
        The observer's belief in "yes" before seeing anything, in [0, 1].

    Returns
    -------
    float
        The observer's belief in "yes" afterwards.
    """
    p = _check_flip_probability(flip_probability)
    belief = _real("prior", prior)
    if not 0.0 <= belief <= 1.0:
        raise ValueError(f"prior must be in [0, 1], got {prior!r}")
    sent_yes = belief * (1.0 - p) + (1.0 - belief) * p
    return belief * (1.0 - p) / sent_yes


def odds_ratio(flip_probability: float) -> float:
    """The most an observer's odds on any answer can grow from seeing what was sent.

    ``Pr[sent | answer] / Pr[sent | other answer] <= (1 - p) / p = e^eps``: "someone who sees
    what your browser sent can't be more than (1 - p) / p times surer of your real answer".
    """
    p = _check_flip_probability(flip_probability)
    return (1.0 - p) / p


# --------------------------------------------------------------------------- estimates


@dataclass(frozen=True)
class Estimate:
    """A debiased share with its Chebyshev interval.

    Attributes
    ----------
    n : int
        Number of randomized answers the estimate rests on.
    noisy_count : int
        How many of them reported this value.
    estimate : float or None
        Unbiased estimate of the true share. It is *not* clipped, so noise can push it below 0
        or above 1. ``None`` when ``n == 0``.
    ci_low, ci_high : float or None
        The interval ``estimate -/+ half_width``, clipped to [0, 1]. ``None`` when ``n == 0``.
    half_width : float or None
        The Chebyshev half-width: the true share lies within it with probability at least
        ``confidence``. ``None`` when ``n == 0``.
    confidence : float
        The interval's guaranteed coverage, in (0, 1).
    epsilon : float
        Privacy loss of the mechanism the answers came from.
    """

    n: int
    noisy_count: int
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    half_width: float | None
    confidence: float
    epsilon: float

    @property
    def has_data(self) -> bool:
        """False when there were no answers, so there is no estimate and no interval."""
        return self.n > 0

    @property
    def noisy_share(self) -> float | None:
        """The raw share of randomized answers that reported this value (biased)."""
        return self.noisy_count / self.n if self.n else None

    @property
    def clipped_estimate(self) -> float | None:
        """The estimate clipped to [0, 1], for display."""
        return None if self.estimate is None else min(1.0, max(0.0, self.estimate))

    @property
    def outside_unit_interval(self) -> bool:
        """True when noise pushed the unbiased estimate below 0 or above 1."""
        return self.estimate is not None and not 0.0 <= self.estimate <= 1.0

    @property
    def consistent_with_randomization(self) -> bool:
        """False when the unclipped interval ``estimate -/+ half_width`` misses [0, 1] entirely.

        Every true share lies in [0, 1], so randomized answers give such an estimate with
        probability at most ``1 - confidence`` (Chebyshev); answers that were not randomized as
        the browser does (sent without the survey page, say) give it easily. The clipped
        interval would then shrink to the point 0 or 1. True when there are no answers.
        """
        if self.estimate is None or self.half_width is None:
            return True
        return self.estimate + self.half_width >= 0.0 and self.estimate - self.half_width <= 1.0


def _chebyshev_half_width(variance: float, n: int, confidence: float, scale: float) -> float:
    """Half-width h with Pr[|estimate - truth| >= h] <= 1 - confidence.

    The estimate is ``(share - Q) / scale`` where ``share`` averages n independent indicators
    of variance at most ``variance``, so Var[estimate] <= variance / (n scale^2). Chebyshev with
    k = 1 / sqrt(delta), delta = 1 - confidence, gives ``h = sqrt(variance / (n delta)) / scale``.
    """
    delta = 1.0 - confidence
    return math.sqrt(variance / (n * delta)) / scale


def _debias(
    noisy_count: int,
    n: int,
    keep: float,
    other: float,
    confidence: float,
    epsilon: float,
) -> Estimate:
    if n == 0:
        return Estimate(0, 0, None, None, None, None, confidence, epsilon)
    scale = keep - other
    estimate = (noisy_count / n - other) / scale
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    half_width = _chebyshev_half_width(variance, n, confidence, scale)
    return Estimate(
        n=n,
        noisy_count=noisy_count,
        estimate=estimate,
        # Clip both ends into [0, 1]: an estimate more than half_width outside the unit
        # interval would otherwise give ci_low > 1 (or ci_high < 0) and an inverted interval.
        ci_low=min(1.0, max(0.0, estimate - half_width)),
        ci_high=max(0.0, min(1.0, estimate + half_width)),
        half_width=half_width,
        confidence=confidence,
        epsilon=epsilon,
    )


def estimate_proportion(
    noisy_ones: int, n: int, flip_probability: float, confidence: float = 0.95
) -> Estimate:
    """Debiased share of "yes" from n yes/no answers randomized with flip probability p.

    With ``m = noisy_ones / n``, ``E[m] = p + (1 - 2p) b`` for the true share b, so

        estimate = (m - p) / (1 - 2p)

    is unbiased. Each reported bit has variance exactly ``p (1 - p)`` whatever the true answer,
    so Chebyshev's inequality at confidence ``1 - delta`` gives the half-width

        h = sqrt(p (1 - p) / (n delta)) / (1 - 2p),

    and ``Pr[|estimate - b| >= h] <= delta``. The interval is ``[max(0, estimate - h),
    min(1, estimate + h)]``.

    Parameters
    ----------
    noisy_ones : int
        Number of randomized answers that came out "yes", 0 <= noisy_ones <= n.
    n : int
        Number of answers, >= 0. With n = 0 the result has no estimate and no interval.
    flip_probability : float
        p in (0, 0.5).
    confidence : float
        Coverage of the interval, in (0, 1); 0.95 by default.

    Returns
    -------
    Estimate
    """
    p = _check_flip_probability(flip_probability)
    level = _check_confidence(confidence)
    total = _count("n", n)
    ones = _count("noisy_ones", noisy_ones)
    if ones > total:
        raise ValueError(f"noisy_ones must be at most n = {total}, got {noisy_ones!r}")
    # Yes/no is k-RR with k = 2: keep with 1 - p, report the other answer with p.
    return _debias(ones, total, 1.0 - p, p, level, epsilon_from_flip_probability(p))


def estimate_yes_no(
    noisy_yes: int, n: int, flip_probability: float, confidence: float = 0.95
) -> list[Estimate]:
    """Estimates for both answers of a yes/no question: ``[no, yes]`` (values 0 and 1).

    The "no" entry is :func:`estimate_proportion` of the ``n - noisy_yes`` randomized "no"s; it
    equals ``1 - `` the "yes" estimate and has the same half-width.
    """
    total = _count("n", n)
    yes = _count("noisy_yes", noisy_yes)
    if yes > total:
        raise ValueError(f"noisy_yes must be at most n = {total}, got {noisy_yes!r}")
    return [
        estimate_proportion(total - yes, total, flip_probability, confidence),
        estimate_proportion(yes, total, flip_probability, confidence),
    ]


def _check_counts(noisy_counts: Sequence[int]) -> list[int]:
    if isinstance(noisy_counts, (str, bytes)) or not isinstance(
        noisy_counts, (Sequence, np.ndarray)
    ):
        raise ValueError(f"noisy_counts must be a sequence of counts, got {noisy_counts!r}")
    counts = [_count(f"noisy_counts[{index}]", c) for index, c in enumerate(noisy_counts)]
    _check_option_count(len(counts))
    return counts


def estimate_frequencies(
    noisy_counts: Sequence[int], epsilon: float, confidence: float = 0.95
) -> list[Estimate]:
    """Debiased share of each option from answers randomized by k-option randomized response.

    ``n = sum(noisy_counts)`` and ``k = len(noisy_counts)``. With ``(P, Q)`` from
    :func:`keep_probabilities`, ``E[c_v / n] = Q + (P - Q) f_v`` for the true share ``f_v``, so

        estimate_v = (c_v / n - Q) / (P - Q)

    is unbiased. Each indicator "reported v" has variance ``P(1 - P)`` or ``Q(1 - Q)``, so at
    confidence ``1 - delta`` Chebyshev gives

        h = sqrt(max(P(1 - P), Q(1 - Q)) / (n delta)) / (P - Q),

    and the interval is clipped to [0, 1] as in :func:`estimate_proportion`. For k = 2 the entry
    of option 1 equals ``estimate_proportion(c_1, n, p)`` with ``p = Q``.

    Parameters
    ----------
    noisy_counts : sequence of int
        How many randomized answers reported each option, in option order; k >= 2 entries.
    epsilon : float
        Privacy loss of the mechanism, a finite number > 0.
    confidence : float
        Coverage of each interval, in (0, 1); 0.95 by default.

    Returns
    -------
    list of Estimate
        One per option, in the order of ``noisy_counts``.
    """
    counts = _check_counts(noisy_counts)
    eps = _check_epsilon(epsilon)
    level = _check_confidence(confidence)
    keep, other = keep_probabilities(eps, len(counts))
    n = sum(counts)
    return [_debias(count, n, keep, other, level, eps) for count in counts]


def estimate_browser_frequencies(
    noisy_counts: Sequence[int], flip_probability: float, confidence: float = 0.95
) -> list[Estimate]:
    """Debiased share of each value of a question answered in the browser at flip probability p.

    A yes/no question (counts ``[no, yes]``) is the case ``k = 2``. The estimator and interval
    are those of :func:`estimate_frequencies`, with the probabilities the browser really used,
    ``(P', Q')`` of :func:`browser_keep_probabilities`, in place of ``(P, Q)``; each estimate's
    epsilon is :func:`browser_epsilon`. For ``k = 2`` the "yes" entry equals
    ``estimate_proportion(noisy_yes, n, browser_flip_probability(p))``.

    The parameters and the result are those of :func:`estimate_frequencies`, with the survey's
    ``flip_probability`` in place of ``epsilon``; it must leave ``P' > Q'`` (any p in
    (0, 0.499999] does).
    """
    counts = _check_counts(noisy_counts)
    level = _check_confidence(confidence)
    options = len(counts)
    if keep_threshold(flip_probability, options) * options <= BROWSER_RANDOM_WORDS:
        raise ValueError(
            f"flip_probability must leave the browser's keep probability above 1/{options}, "
            f"got {flip_probability!r}"
        )
    keep, other = browser_keep_probabilities(flip_probability, options)
    epsilon = browser_epsilon(flip_probability, options)
    n = sum(counts)
    return [_debias(count, n, keep, other, level, epsilon) for count in counts]


# --------------------------------------------------------------------------- planning


def half_width_for_yes_no(n: int, flip_probability: float, confidence: float = 0.95) -> float:
    """The Chebyshev half-width :func:`estimate_proportion` reaches with n answers.

    ``h = sqrt(p (1 - p) / (n delta)) / (1 - 2p)``; n must be at least 1.
    """
    p = _check_flip_probability(flip_probability)
    level = _check_confidence(confidence)
    total = _count("n", n)
    if total == 0:
        raise ValueError("n must be at least 1 to have a margin")
    return _chebyshev_half_width(p * (1.0 - p), total, level, 1.0 - 2.0 * p)


def half_width_for_choices(n: int, epsilon: float, k: int, confidence: float = 0.95) -> float:
    """The Chebyshev half-width :func:`estimate_frequencies` reaches with n answers."""
    keep, other = keep_probabilities(epsilon, k)
    level = _check_confidence(confidence)
    total = _count("n", n)
    if total == 0:
        raise ValueError("n must be at least 1 to have a margin")
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    return _chebyshev_half_width(variance, total, level, keep - other)


def _smallest_n(variance: float, scale: float, margin: float, confidence: float) -> int:
    """Smallest n with sqrt(variance / (n delta)) / scale <= margin."""
    delta = 1.0 - confidence
    bound = variance / (delta * (margin * scale) ** 2)
    n = max(1, math.ceil(bound))
    # ceil of a float quotient can land one off either way; settle it on the half-width itself.
    while n > 1 and _chebyshev_half_width(variance, n - 1, confidence, scale) <= margin:
        n -= 1
    while _chebyshev_half_width(variance, n, confidence, scale) > margin:
        n += 1
    return n


def required_sample_size(margin: float, flip_probability: float, confidence: float = 0.95) -> int:
    """Fewest yes/no answers whose Chebyshev half-width is at most ``margin``.

    From ``h = sqrt(p (1 - p) / (n delta)) / (1 - 2p) <= margin``:

        n >= p (1 - p) / (delta margin^2 (1 - 2p)^2).

    Parameters
    ----------
    margin : float
        The half-width wanted, as a share (0.1 for plus or minus 10 points), > 0.
    flip_probability : float
        p in (0, 0.5).
    confidence : float
        In (0, 1); 0.95 by default.

    Returns
    -------
    int
        The smallest such n, at least 1.
    """
    size = _check_margin(margin)
    p = _check_flip_probability(flip_probability)
    level = _check_confidence(confidence)
    return _smallest_n(p * (1.0 - p), 1.0 - 2.0 * p, size, level)


def required_sample_size_for_choices(
    margin: float, epsilon: float, k: int, confidence: float = 0.95
) -> int:
    """Fewest k-option answers whose Chebyshev half-width is at most ``margin``.

    ``n >= max(P(1 - P), Q(1 - Q)) / (delta margin^2 (P - Q)^2)``, the counterpart of
    :func:`required_sample_size` for :func:`estimate_frequencies`.
    """
    size = _check_margin(margin)
    keep, other = keep_probabilities(epsilon, k)
    level = _check_confidence(confidence)
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    return _smallest_n(variance, keep - other, size, level)


# --------------------------------------------------------------------------- simulation


def randomize_bits(
    true_bits: np.typing.ArrayLike, flip_probability: float, rng: np.random.Generator
) -> np.ndarray:
    """Randomize yes/no answers as the browser does: flip each with probability p.

    For simulation and tests; respondents' answers are randomized in their own browsers.

    Parameters
    ----------
    true_bits : array_like of 0/1
        The true answers.
    flip_probability : float
        p in (0, 0.5).
    rng : numpy.random.Generator
        The source of randomness (seed it to reproduce a run).

    Returns
    -------
    numpy.ndarray of int8
        The randomized answers, same shape.
    """
    p = _check_flip_probability(flip_probability)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
    bits = np.asarray(true_bits)
    if bits.dtype == np.bool_ or not np.all((bits == 0) | (bits == 1)):
        raise ValueError("true_bits must hold only the integers 0 and 1")
    flips = rng.random(bits.shape) < p
    return (bits.astype(np.int8) ^ flips.astype(np.int8)).astype(np.int8)


def randomize_choices(
    true_indices: np.typing.ArrayLike, epsilon: float, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Randomize multiple-choice answers with k-option generalized randomized response.

    Each true option is kept with probability P; otherwise one of the other k - 1 options is
    reported uniformly. For simulation and tests.

    Parameters
    ----------
    true_indices : array_like of int
        The true options, each in 0 .. k - 1.
    epsilon : float
        Privacy loss, > 0.
    k : int
        Number of options, >= 2.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray of int64
        The randomized options, same shape.
    """
    keep, _ = keep_probabilities(epsilon, k)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
    indices = np.asarray(true_indices)
    if indices.dtype == np.bool_ or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("true_indices must be integers")
    if indices.size and (indices.min() < 0 or indices.max() >= k):
        raise ValueError(f"true_indices must be in 0 .. {k - 1}")
    indices = indices.astype(np.int64)
    kept = rng.random(indices.shape) < keep
    # A uniform pick among the k - 1 others: draw from 0 .. k - 2 and skip over the true one.
    other = rng.integers(0, k - 1, size=indices.shape)
    other = other + (other >= indices)
    return np.where(kept, indices, other)
