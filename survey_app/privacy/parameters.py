"""The mechanism's parameters: flip probability, epsilon, the browser's integer thresholds.

Validation of every parameter lives here too, with messages that name the parameter and its
allowed range.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable

__all__ = [
    "BROWSER_RANDOM_WORDS",
    "MAX_OPTIONS",
    "browser_epsilon",
    "browser_flip_probability",
    "browser_keep_probabilities",
    "deniability",
    "epsilon_from_flip_probability",
    "flip_probability_from_epsilon",
    "flip_probability_from_warner_q",
    "flip_threshold",
    "keep_probabilities",
    "keep_threshold",
    "odds_ratio",
    "total_epsilon",
    "warner_q_from_flip_probability",
]

#: The browser's uniform draws are 32-bit words: there are this many of them.
BROWSER_RANDOM_WORDS = 2**32

#: The largest number of options a multiple-choice question may have.
MAX_OPTIONS = 12


# --------------------------------------------------------------------------- validation
# Each check returns its value, or raises ValueError naming the parameter and its allowed range:
# every function of the package checks its parameters with these, once, at its entrance. They
# are this package's own (the package does not export them).


def check_real(name: str, value: object) -> float:
    """Return ``value`` as a finite float, refusing booleans, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def check_count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int, refusing booleans and non-integers."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    count = int(value)
    if count < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return count


def check_flip_probability(flip_probability: object) -> float:
    p = check_real("flip_probability", flip_probability)
    if not 0.0 < p < 0.5:
        raise ValueError(f"flip_probability must be in (0, 0.5), got {flip_probability!r}")
    return p


def check_epsilon(epsilon: object) -> float:
    eps = check_real("epsilon", epsilon)
    if eps <= 0.0:
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return eps


def check_option_count(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) < 2:
        raise ValueError(f"k (the number of options) must be an integer >= 2, got {k!r}")
    return int(k)


def check_confidence(confidence: object) -> float:
    level = check_real("confidence", confidence)
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return level


def check_margin(margin: object) -> float:
    value = check_real("margin", margin)
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
    p = check_flip_probability(flip_probability)
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
    eps = check_epsilon(epsilon)
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
    eps = check_epsilon(epsilon)
    options = check_option_count(k)
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
    p = check_flip_probability(flip_probability)
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
    options = check_option_count(k)
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
    options = check_option_count(k)
    keep = keep_threshold(flip_probability, options) / BROWSER_RANDOM_WORDS
    return keep, (1.0 - keep) / (options - 1)


def browser_epsilon(flip_probability: float, k: int = 2) -> float:
    """The epsilon the browser really spends on a question of k options (2: yes/no).

    ``ln(P' / Q') = ln((k - 1) K / (2**32 - K))``, from the integers of :func:`keep_threshold`;
    it never exceeds the stated :func:`epsilon_from_flip_probability` (see
    :func:`browser_keep_probabilities`).
    """
    options = check_option_count(k)
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
    return math.fsum(check_epsilon(eps) for eps in epsilons)


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
    p = check_flip_probability(flip_probability)
    belief = check_real("prior", prior)
    if not 0.0 <= belief <= 1.0:
        raise ValueError(f"prior must be in [0, 1], got {prior!r}")
    sent_yes = belief * (1.0 - p) + (1.0 - belief) * p
    return belief * (1.0 - p) / sent_yes


def odds_ratio(flip_probability: float) -> float:
    """The most an observer's odds on any answer can grow from seeing what was sent.

    ``Pr[sent | answer] / Pr[sent | other answer] <= (1 - p) / p = e^eps``: "someone who sees
    what your browser sent can't be more than (1 - p) / p times surer of your real answer".
    """
    p = check_flip_probability(flip_probability)
    return (1.0 - p) / p


# --------------------------------------------------------------------------- Warner's coins


def flip_probability_from_warner_q(warner_q: float) -> float:
    """The flip probability ``p = q / 2`` that Warner's coins (1965) set.

    A fair coin, then on tails a second coin that says "send the opposite" with probability
    ``q``: an answer is reversed with probability ``q / 2``. Any real ``q`` is halved, so a
    ``q`` outside (0, 1) gives a ``p`` that the flip probability's own check refuses, naming it.
    static/js/warner.js is the same in the browser (tests/warner_coins.json pins both).
    """
    return check_real("warner_q", warner_q) / 2.0


def warner_q_from_flip_probability(flip_probability: float) -> float:
    """Warner's ``q = 2 p``: the second coin's chance of "the opposite" that reverses an answer
    with probability ``p`` (the inverse of :func:`flip_probability_from_warner_q`)."""
    return 2.0 * check_real("flip_probability", flip_probability)


#: The most respondents a planning search considers.
MAX_PLANNED_RESPONDENTS = 1_000_000


def fewest_respondents(half_width: Callable[[int, float], float], size: float, level: float) -> int:
    """The fewest answers whose ``half_width(n, level)`` is at most ``size`` (by doubling, then
    halving: half-widths shrink as answers come); :data:`MAX_PLANNED_RESPONDENTS` when more
    would be needed."""
    low, high = 0, 1
    while half_width(high, level) > size:
        low, high = high, high * 2
        if high > MAX_PLANNED_RESPONDENTS:
            return MAX_PLANNED_RESPONDENTS
    while high - low > 1:
        middle = (low + high) // 2
        if half_width(middle, level) > size:
            low = middle
        else:
            high = middle
    return high
