"""Debiased shares with Chebyshev intervals: :class:`Estimate` and the math behind it.

Public here is :class:`Estimate` (the package exports it), :func:`estimate_proportion`
(Warner's yes/no estimate at the ideal flip probability, for lessons), and the math
:class:`~survey_app.privacy.mechanisms.RandomizedResponse` is built on (:func:`debias`,
:func:`chebyshev_half_width`, :func:`smallest_n`, :func:`check_counts`). Callers estimate
through a mechanism (:class:`~survey_app.privacy.mechanisms.RandomizedResponse`, the
:class:`~survey_app.privacy.interface.Mechanism` interface), which uses the probabilities the
browser really uses. The functions with a leading underscore are this module's internals and
the reference forms the tests check the mechanism against: the estimates and planning figures
at the *ideal* probabilities (``_estimate_frequencies`` debiases with ``keep_probabilities(eps,
k)``, not the browser's: not for answers that came from a browser), and NumPy samplers. The
formulas are in each function's docstring; :mod:`survey_app.privacy.exact` adds the exact
intervals.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey_app.privacy.parameters import (
    BROWSER_RANDOM_WORDS,
    browser_epsilon,
    browser_keep_probabilities,
    check_confidence,
    check_count,
    check_epsilon,
    check_flip_probability,
    check_margin,
    check_option_count,
    epsilon_from_flip_probability,
    keep_probabilities,
    keep_threshold,
)

__all__ = ["UNIT_INTERVAL_DUST", "Estimate"]

#: An estimate within this of 0 or 1 counts as inside 0–100%: the browser's integer thresholds
#: make P and Q binary fractions, so a count of exactly Q n debiases to -3.5e-10 rather than 0.
#: Floating-point dust, a millionth of the tenth of a point pages round to: not news.
UNIT_INTERVAL_DUST = 1e-9

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
    exact_low, exact_high : float or None
        The exact guaranteed interval (:func:`~survey_app.privacy.exact.exact_interval`), never
        empty: always set when it was computed (every count with ``n > 0``); ``None`` only when
        it was not (no answers, or an estimate made without it).
    exact_method : str or None
        ``"exact law"`` or ``"Berry-Esseen bound"`` (many answers): how the exact interval was
        computed; ``None`` when it was not.
    simultaneous_low, simultaneous_high : float or None
        The exact interval at ``1 - (1 - confidence) / k`` for an option of k (Bonferroni): the
        k options' ranges then hold **all at once** with probability at least ``confidence``
        (each exact range alone holds for its own option). For yes/no, the exact interval
        itself (one option's range fixes the other's). ``None`` when not computed.
    live_low, live_high : float or None
        The live range (:func:`~survey_app.privacy.live.live_share_interval`): it covers the
        running share at every look at once, however often it is read and whatever the order
        of arrival. ``None`` when not computed.
    """

    n: int
    noisy_count: int
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    half_width: float | None
    confidence: float
    epsilon: float
    exact_low: float | None = None
    exact_high: float | None = None
    exact_method: str | None = None
    simultaneous_low: float | None = None
    simultaneous_high: float | None = None
    live_low: float | None = None
    live_high: float | None = None

    def with_exact(self, interval: tuple[float, float], from_exact_law: bool) -> Estimate:
        """This estimate with its exact interval."""
        low, high = interval
        method = "exact law" if from_exact_law else "Berry-Esseen bound"
        return dataclasses.replace(self, exact_low=low, exact_high=high, exact_method=method)

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
        """True when noise pushed the unbiased estimate below 0 or above 1, by more than
        :data:`UNIT_INTERVAL_DUST` (floating-point dust is not outside)."""
        if self.estimate is None:
            return False
        return not -UNIT_INTERVAL_DUST <= self.estimate <= 1.0 + UNIT_INTERVAL_DUST

    def headline(self, low: float | None = None, high: float | None = None) -> float | None:
        """The one figure pages, the CSV and the API lead with for this share: the estimate
        clipped to [0, 1] (:attr:`clipped_estimate`), then kept within ``[low, high]``, the
        range the page leads with, at its nearer end. None before any answer.

        Why this figure: each option's own estimate, clipped, lies in its own exact range at
        every count (an exact range holds every share under which the count is not unusual,
        and the share the count estimates is the least unusual one; a test checks every count
        of up to 60 answers), so the figure never contradicts the range printed beside it,
        and it is the unbiased estimate wherever that lies in 0–100%: one figure for the
        words, the chart, the table, the CSV and the API. The shares projected onto the
        simplex, shown before, added up to 100% but could leave an option's own range ("about
        0%: between 7.5% and 80%") and differed from the table's estimate. The price: when
        noise pushes an option's estimate below 0, a choice question's shares add up to more
        than 100% (pages say so). The range is taken for live ranges carried forward from
        earlier looks, which can leave out the clipped estimate of the counts at hand.
        """
        clipped = self.clipped_estimate
        if clipped is None:
            return None
        if low is not None:
            clipped = max(clipped, low)
        if high is not None:
            clipped = min(clipped, high)
        return clipped

    @property
    def consistent_with_randomization(self) -> bool:
        """False when the unclipped interval ``estimate -/+ half_width`` misses [0, 1] entirely.

        Every true share lies in [0, 1], so randomized answers give such an estimate with
        probability at most ``1 - confidence`` (Chebyshev); answers that were not randomized as
        the browser does (sent without the survey page, say) give it easily. The clipped
        interval would then shrink to the point 0 or 1. The exact interval does not enter: it
        is never empty (a count this lopsided gets the bound 0 or 1 there). True when there are
        no answers.
        """
        if self.estimate is None or self.half_width is None:
            return True
        return self.estimate + self.half_width >= 0.0 and self.estimate - self.half_width <= 1.0


def chebyshev_half_width(variance: float, n: int, confidence: float, scale: float) -> float:
    """Half-width h with Pr[|estimate - truth| >= h] <= 1 - confidence.

    The estimate is ``(share - Q) / scale`` where ``share`` averages n independent indicators
    of variance at most ``variance``, so Var[estimate] <= variance / (n scale^2). Chebyshev with
    k = 1 / sqrt(delta), delta = 1 - confidence, gives ``h = sqrt(variance / (n delta)) / scale``.
    """
    delta = 1.0 - confidence
    return math.sqrt(variance / (n * delta)) / scale


def debias(
    noisy_count: int,
    n: int,
    keep: float,
    other: float,
    confidence: float,
    epsilon: float,
) -> Estimate:
    """The estimate ``(c / n - Q) / (P - Q)`` of one value reported ``noisy_count`` times of n,
    with its Chebyshev interval clipped to [0, 1], at keep and other probabilities (P, Q)."""
    if n == 0:
        return Estimate(0, 0, None, None, None, None, confidence, epsilon)
    scale = keep - other
    estimate = (noisy_count / n - other) / scale
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    half_width = chebyshev_half_width(variance, n, confidence, scale)
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
    p = check_flip_probability(flip_probability)
    level = check_confidence(confidence)
    total = check_count("n", n)
    ones = check_count("noisy_ones", noisy_ones)
    if ones > total:
        raise ValueError(f"noisy_ones must be at most n = {total}, got {noisy_ones!r}")
    # Yes/no is k-RR with k = 2: keep with 1 - p, report the other answer with p.
    return debias(ones, total, 1.0 - p, p, level, epsilon_from_flip_probability(p))


def _estimate_yes_no(
    noisy_yes: int, n: int, flip_probability: float, confidence: float = 0.95
) -> list[Estimate]:
    """Estimates for both answers of a yes/no question: ``[no, yes]`` (values 0 and 1).

    The "no" entry is :func:`estimate_proportion` of the ``n - noisy_yes`` randomized "no"s; it
    equals ``1 - `` the "yes" estimate and has the same half-width.
    """
    total = check_count("n", n)
    yes = check_count("noisy_yes", noisy_yes)
    if yes > total:
        raise ValueError(f"noisy_yes must be at most n = {total}, got {noisy_yes!r}")
    return [
        estimate_proportion(total - yes, total, flip_probability, confidence),
        estimate_proportion(yes, total, flip_probability, confidence),
    ]


def check_counts(noisy_counts: Sequence[int]) -> list[int]:
    if isinstance(noisy_counts, (str, bytes)) or not isinstance(
        noisy_counts, (Sequence, np.ndarray)
    ):
        raise ValueError(f"noisy_counts must be a sequence of counts, got {noisy_counts!r}")
    counts = [check_count(f"noisy_counts[{index}]", c) for index, c in enumerate(noisy_counts)]
    check_option_count(len(counts))
    return counts


def _estimate_frequencies(
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
    counts = check_counts(noisy_counts)
    eps = check_epsilon(epsilon)
    level = check_confidence(confidence)
    keep, other = keep_probabilities(eps, len(counts))
    n = sum(counts)
    return [debias(count, n, keep, other, level, eps) for count in counts]


def _estimate_browser_frequencies(
    noisy_counts: Sequence[int], flip_probability: float, confidence: float = 0.95
) -> list[Estimate]:
    """Debiased share of each value of a question answered in the browser at flip probability p.

    A yes/no question (counts ``[no, yes]``) is the case ``k = 2``. The estimator and interval
    are those of :func:`_estimate_frequencies`, with the probabilities the browser really used,
    ``(P', Q')`` of :func:`browser_keep_probabilities`, in place of ``(P, Q)``; each estimate's
    epsilon is :func:`browser_epsilon`. For ``k = 2`` the "yes" entry equals
    ``estimate_proportion(noisy_yes, n, browser_flip_probability(p))``.

    The parameters and the result are those of :func:`_estimate_frequencies`, with the survey's
    ``flip_probability`` in place of ``epsilon``; it must leave ``P' > Q'`` (any p in
    (0, 0.499999] does).
    """
    counts = check_counts(noisy_counts)
    level = check_confidence(confidence)
    options = len(counts)
    if keep_threshold(flip_probability, options) * options <= BROWSER_RANDOM_WORDS:
        raise ValueError(
            f"flip_probability must leave the browser’s keep probability above 1/{options}, "
            f"got {flip_probability!r}"
        )
    keep, other = browser_keep_probabilities(flip_probability, options)
    epsilon = browser_epsilon(flip_probability, options)
    n = sum(counts)
    return [debias(count, n, keep, other, level, epsilon) for count in counts]


# --------------------------------------------------------------------------- planning


def _half_width_for_yes_no(n: int, flip_probability: float, confidence: float = 0.95) -> float:
    """The Chebyshev half-width :func:`estimate_proportion` reaches with n answers.

    ``h = sqrt(p (1 - p) / (n delta)) / (1 - 2p)``; n must be at least 1.
    """
    p = check_flip_probability(flip_probability)
    level = check_confidence(confidence)
    total = check_count("n", n)
    if total == 0:
        raise ValueError("n must be at least 1 to have a margin")
    return chebyshev_half_width(p * (1.0 - p), total, level, 1.0 - 2.0 * p)


def _half_width_for_choices(n: int, epsilon: float, k: int, confidence: float = 0.95) -> float:
    """The Chebyshev half-width :func:`_estimate_frequencies` reaches with n answers."""
    keep, other = keep_probabilities(epsilon, k)
    level = check_confidence(confidence)
    total = check_count("n", n)
    if total == 0:
        raise ValueError("n must be at least 1 to have a margin")
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    return chebyshev_half_width(variance, total, level, keep - other)


def smallest_n(variance: float, scale: float, margin: float, confidence: float) -> int:
    """Smallest n with sqrt(variance / (n delta)) / scale <= margin."""
    delta = 1.0 - confidence
    bound = variance / (delta * (margin * scale) ** 2)
    n = max(1, math.ceil(bound))
    # ceil of a float quotient can land one off either way; settle it on the half-width itself.
    while n > 1 and chebyshev_half_width(variance, n - 1, confidence, scale) <= margin:
        n -= 1
    while chebyshev_half_width(variance, n, confidence, scale) > margin:
        n += 1
    return n


def _required_sample_size(margin: float, flip_probability: float, confidence: float = 0.95) -> int:
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
    size = check_margin(margin)
    p = check_flip_probability(flip_probability)
    level = check_confidence(confidence)
    return smallest_n(p * (1.0 - p), 1.0 - 2.0 * p, size, level)


def _required_sample_size_for_choices(
    margin: float, epsilon: float, k: int, confidence: float = 0.95
) -> int:
    """Fewest k-option answers whose Chebyshev half-width is at most ``margin``.

    ``n >= max(P(1 - P), Q(1 - Q)) / (delta margin^2 (P - Q)^2)``, the counterpart of
    :func:`_required_sample_size` for :func:`_estimate_frequencies`.
    """
    size = check_margin(margin)
    keep, other = keep_probabilities(epsilon, k)
    level = check_confidence(confidence)
    variance = max(keep * (1.0 - keep), other * (1.0 - other))
    return smallest_n(variance, keep - other, size, level)


# --------------------------------------------------------------------------- simulation


def _randomize_bits(
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
    p = check_flip_probability(flip_probability)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
    bits = np.asarray(true_bits)
    if bits.dtype == np.bool_ or not np.all((bits == 0) | (bits == 1)):
        raise ValueError("true_bits must hold only the integers 0 and 1")
    flips = rng.random(bits.shape) < p
    return (bits.astype(np.int8) ^ flips.astype(np.int8)).astype(np.int8)


def _randomize_choices(
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
