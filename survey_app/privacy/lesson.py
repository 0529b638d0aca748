"""The lesson: randomized response worked out, step by step, on a class's own answers.

Every figure the lesson view shows is computed here, from what the dashboard may show (a
question's released noisy counts and the :class:`~survey_app.privacy.estimates.Estimate` built
from them). The steps follow the lecture notes (randomized response RR_p, flip probability p):

1. the coin: keep the answer with probability 1 - p, flip it with p (Warner's two coins: a fair
   coin, then on tails a second coin that says "the opposite" with q = 2p), so
   ``epsilon = ln((1 - p) / p)``;
2. what arrived: n answers, the noisy counts and the raw share of "Yes";
3. the unbiased estimate ``(raw - p) / (1 - 2p)``: ``E[raw] = p + (1 - 2p) b`` for the true share b;
4. how sure: Theorem 5 of the notes (Chebyshev with the variance bound 1/4),
   ``sqrt(1 / delta) / (2 (1 - 2p) sqrt(n))``, beside the app's own Chebyshev (exact variance),
   exact and live ranges, taken from the Estimate as the dashboard shows them;
5. re-runs: the estimate over :data:`RERUNS` re-randomizations of a class whose true share is
   the estimate, drawn with a seeded generator from the probabilities the browser uses;
6. Bayes: ``Pr[truly Yes | sent Yes]`` with the class's estimate as the prior, and its ceiling
   ``e^eps`` times the prior odds;
7. the trade-off over p: epsilon and the range a class of this size would get;
8. budgets: composition (the sum of the questions' epsilons) and group privacy (k x epsilon).

As everywhere in :mod:`survey_app.privacy`, p is the probability of *flipping*; the notes' Claim 3
writes the estimator for the probability of keeping, ``(mean - (1 - p)) / (2p - 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey_app.privacy.estimates import Estimate, estimate_proportion
from survey_app.privacy.exact import exact_interval, expected_exact_half_width
from survey_app.privacy.lesson_written import agreeing_places, odds_to_probability
from survey_app.privacy.mechanisms import PLANNING_AVERAGE_LIMIT, RandomizedResponse
from survey_app.privacy.parameters import (
    browser_flip_probability,
    check_confidence,
    check_count,
    check_flip_probability,
    epsilon_from_flip_probability,
    keep_probabilities,
    odds_ratio,
    total_epsilon,
)

__all__ = [
    "GROUP_SIZES",
    "RERUNS",
    "RERUN_SEED",
    "TRADE_OFF_FLIP_PROBABILITIES",
    "Budgets",
    "NotesWorking",
    "ChoiceCoin",
    "Coin",
    "EstimateWorking",
    "Posterior",
    "OptionWorking",
    "Reruns",
    "Sureness",
    "TradeOffRow",
    "budgets",
    "choice_coin",
    "coin",
    "estimate_working",
    "notes_chebyshev_half_width",
    "notes_working",
    "option_working",
    "posterior",
    "reruns",
    "sureness",
    "trade_off",
    "unbiased_estimate",
]

#: How many times step 5 re-runs the randomization.
RERUNS = 1_000
#: Its seed: the same counts always draw the same picture (reloading the page changes nothing).
RERUN_SEED = 22
#: The flip probabilities of step 7's control: 0.05 to 0.45 in steps of 0.05.
TRADE_OFF_FLIP_PROBABILITIES = tuple(round(0.05 * step, 2) for step in range(1, 10))
#: Step 8's groups of friends answering alike.
GROUP_SIZES = (2, 5, 10)


# --------------------------------------------------------------------------- step 1


@dataclass(frozen=True)
class Coin:
    """What every phone did to a yes/no answer, and the privacy it gives."""

    flip_probability: float
    keep_probability: float
    #: Warner's second coin's chance of "the opposite": q = 2p (the first coin is fair).
    warner_q: float
    epsilon: float
    #: e^epsilon = (1 - p) / p: the most anyone can be surer of an answer from what was sent.
    odds: float
    #: The flip probability the browser really uses (its 32-bit threshold, rounded up).
    browser_flip_probability: float


def coin(flip_probability: float) -> Coin:
    """Step 1: keep with 1 - p, flip with p; ``epsilon = ln((1 - p) / p)``, ``q = 2p``."""
    p = check_flip_probability(flip_probability)
    return Coin(
        flip_probability=p,
        keep_probability=1.0 - p,
        warner_q=2.0 * p,
        epsilon=epsilon_from_flip_probability(p),
        odds=odds_ratio(p),
        browser_flip_probability=browser_flip_probability(p),
    )


@dataclass(frozen=True)
class ChoiceCoin:
    """k-option randomized response at the survey's epsilon: keep P, each other option Q.

    ``places``: the decimals the lesson writes P and Q with, enough that ``ln(P / Q)`` from
    the figures written gives epsilon to three decimals.
    """

    options: int
    keep_probability: float
    other_probability: float
    epsilon: float
    odds: float
    places: int = 3

    @property
    def written(self) -> tuple[float, float]:
        """P and Q as the lesson writes them."""
        return round(self.keep_probability, self.places), round(self.other_probability, self.places)


def choice_coin(flip_probability: float, options: int) -> ChoiceCoin:
    """Step 1 for a choice: ``P = e^eps / (e^eps + k - 1)``, ``Q = 1 / (e^eps + k - 1)``."""
    epsilon = epsilon_from_flip_probability(flip_probability)
    keep, other = keep_probabilities(epsilon, options)
    places = agreeing_places(lambda d: math.log(round(keep, d) / round(other, d)), epsilon)
    return ChoiceCoin(options, keep, other, epsilon, keep / other, places)


# --------------------------------------------------------------------------- step 3


def unbiased_estimate(noisy_yes: int, n: int, flip_probability: float) -> float | None:
    """Step 3: ``(raw - p) / (1 - 2p)`` with ``raw = noisy_yes / n`` (None without answers).

    Unbiased: ``E[raw] = b (1 - p) + (1 - b) p = p + (1 - 2p) b`` for the true share b.
    """
    return estimate_proportion(noisy_yes, n, flip_probability).estimate


@dataclass(frozen=True)
class EstimateWorking:
    """Step 3 written out: ``(raw - p) / (1 - 2p) = numerator / denominator = estimate``.

    ``raw`` and ``numerator`` as the formula writes them, to ``places`` decimals (p has at most
    six): enough that ``numerator / denominator`` gives the estimate to its three.
    """

    raw: float
    flip_probability: float
    numerator: float
    denominator: float
    estimate: float
    places: int


def estimate_working(noisy_yes: int, n: int, flip_probability: float) -> EstimateWorking:
    """The figures of step 3's formula, at the survey's p (n must be at least 1)."""
    estimate = unbiased_estimate(noisy_yes, n, flip_probability)
    if estimate is None:
        raise ValueError("n must be at least 1 to have an estimate")
    p = float(flip_probability)
    raw = noisy_yes / n
    places = agreeing_places(lambda d: (round(raw, d) - p) / (1.0 - 2.0 * p), estimate)
    written = max(places, 6)  # the numerator's decimals: the raw share's or p's
    shown_raw = round(raw, places)
    numerator = round(shown_raw - p, written)
    return EstimateWorking(shown_raw, p, numerator, round(1.0 - 2.0 * p, 6), estimate, places)


@dataclass(frozen=True)
class OptionWorking:
    """Step 3 for one option of k: ``(raw - Q) / (P - Q) = numerator / denominator``, each
    figure as the formula writes it, to ``places`` decimals (enough to give the estimate)."""

    raw: float
    keep_probability: float
    other_probability: float
    numerator: float
    denominator: float
    estimate: float
    places: int


def option_working(
    noisy_count: int, n: int, flip_probability: float, options: int
) -> OptionWorking:
    """One option's estimate written out, with k-option randomized response's P and Q at the
    survey's epsilon: ``E[raw] = Q + (P - Q) b`` for the option's true share b (n at least 1)."""
    respondents = check_count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have an estimate")
    figures = choice_coin(flip_probability, options)
    raw = check_count("noisy_count", noisy_count) / respondents
    keep, other = figures.keep_probability, figures.other_probability
    estimate = (raw - other) / (keep - other)

    def written(d: int) -> float:
        return (round(raw, d) - round(other, d)) / (round(keep, d) - round(other, d))

    places = agreeing_places(written, estimate)
    keep, other, raw = round(keep, places), round(other, places), round(raw, places)
    return OptionWorking(
        raw,
        keep,
        other,
        round(raw - other, places),
        round(keep - other, places),
        estimate,
        places,
    )


# --------------------------------------------------------------------------- step 4


def notes_chebyshev_half_width(
    n: int, flip_probability: float, confidence: float, options: int = 2
) -> float:
    """Theorem 5 of the notes: ``sqrt(1 / delta) / (2 (1 - 2p) sqrt(n))``, delta = 1 - confidence.

    Chebyshev with each reported bit's variance bounded by 1/4; the app's own Chebyshev
    half-width uses the exact variance ``p (1 - p)`` and is narrower. For an option of a
    k-option question the same argument gives ``sqrt(1 / delta) / (2 (P - Q) sqrt(n))``: each
    phone's "sent this option" is a bit of variance at most 1/4, and the estimate divides by
    ``P - Q`` (``P = e^eps / (e^eps + k - 1)``, ``Q = 1 / (e^eps + k - 1)``; 1 - 2p for k = 2).
    """
    p = check_flip_probability(flip_probability)
    delta = 1.0 - check_confidence(confidence)
    respondents = check_count("n", n)
    if respondents == 0:
        raise ValueError("n must be at least 1 to have a margin")
    if options == 2:
        gap = 1.0 - 2.0 * p
    else:
        keep, other = keep_probabilities(epsilon_from_flip_probability(p), options)
        gap = keep - other
    return math.sqrt(1.0 / delta) / (2.0 * gap * math.sqrt(respondents))


@dataclass(frozen=True)
class NotesWorking:
    """Theorem 5 written out: ``sqrt(1 / delta) / (2 gap sqrt(n)) = half_width``.

    The gap is ``1 - 2p`` for yes/no (``keep`` = 1 - p and ``other`` = p, exact) and ``P - Q``
    for an option of k, ``keep`` and ``other`` then written to ``places`` decimals: enough that
    the formula gives the half-width to its three.
    """

    n: int
    delta: float
    keep: float
    other: float
    places: int
    half_width: float


def notes_working(
    n: int, flip_probability: float, confidence: float, options: int = 2
) -> NotesWorking:
    """The figures of Theorem 5's formula with this n and p (for one option of ``options``)."""
    half_width = notes_chebyshev_half_width(n, flip_probability, confidence, options)
    delta = round(1.0 - check_confidence(confidence), 6)
    if options == 2:
        p = float(flip_probability)
        return NotesWorking(n, delta, round(1.0 - p, 6), p, 6, half_width)
    keep, other = keep_probabilities(epsilon_from_flip_probability(flip_probability), options)

    def written(d: int) -> float:
        return math.sqrt(1.0 / delta) / (2.0 * (round(keep, d) - round(other, d)) * math.sqrt(n))

    places = agreeing_places(written, half_width)
    return NotesWorking(n, delta, round(keep, places), round(other, places), places, half_width)


@dataclass(frozen=True)
class Sureness:
    """Step 4's ranges for one share, all at ``confidence``: each ``(low, high)``."""

    estimate: float
    confidence: float
    #: Theorem 5 of the notes (variance bound 1/4); its range is clipped to [0, 1] as the
    #: app's Chebyshev range is.
    notes_half_width: float
    notes_range: tuple[float, float]
    #: The app's Chebyshev half-width (exact variance p(1 - p)), as the dashboard computes it.
    chebyshev_half_width: float
    chebyshev_range: tuple[float, float]
    exact_range: tuple[float, float]
    live_range: tuple[float, float]


def sureness(estimate: Estimate, flip_probability: float, options: int = 2) -> Sureness:
    """Step 4 from the Estimate the dashboard shows (its exact and live ranges are taken as
    they are, not re-derived) and the notes' bound at its n and the survey's p (for one option
    of a question of ``options``)."""
    if estimate.estimate is None or estimate.exact_low is None or estimate.live_low is None:
        raise ValueError("estimate must have answers and its exact and live ranges")
    notes = notes_chebyshev_half_width(estimate.n, flip_probability, estimate.confidence, options)
    return Sureness(
        estimate=estimate.estimate,
        confidence=estimate.confidence,
        notes_half_width=notes,
        notes_range=(
            min(1.0, max(0.0, estimate.estimate - notes)),
            max(0.0, min(1.0, estimate.estimate + notes)),
        ),
        chebyshev_half_width=estimate.half_width,
        chebyshev_range=(estimate.ci_low, estimate.ci_high),
        exact_range=(estimate.exact_low, estimate.exact_high),
        live_range=(estimate.live_low, estimate.live_high),
    )


# --------------------------------------------------------------------------- step 5


class RerunSpread:
    """How a class's re-runs' ``estimates`` spread: their mean, standard deviation and middle."""

    estimates: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.estimates.mean())

    @property
    def std(self) -> float:
        return float(self.estimates.std(ddof=1))

    def middle(self, share: float) -> tuple[float, float]:
        """Where the middle ``share`` of the re-runs' estimates lay: its two quantiles."""
        tail = (1.0 - share) / 2.0
        low, high = np.quantile(self.estimates, [tail, 1.0 - tail])
        return float(low), float(high)


@dataclass(frozen=True)
class Reruns(RerunSpread):
    """The estimate over re-runs of the randomization of one class, and what theory expects."""

    #: The class re-run: n people, ``true_yes`` of whom truly hold "Yes".
    n: int
    true_yes: int
    #: Each re-run's estimate, ``(raw - Q) / (P - Q)`` with the browser's P and Q.
    estimates: np.ndarray
    #: The law of the estimate: its mean (the true share: unbiased) and standard deviation.
    expected_mean: float
    expected_std: float
    #: The histogram of the estimates: ``edges`` (one more than ``counts``) and ``counts``.
    edges: np.ndarray
    counts: np.ndarray

    @property
    def true_share(self) -> float:
        return self.true_yes / self.n


def reruns(
    share: float,
    n: int,
    flip_probability: float,
    runs: int = RERUNS,
    seed: int = RERUN_SEED,
    bins: int = 24,
    options: int = 2,
) -> Reruns:
    """Step 5: re-randomize a class of n whose true share of "Yes" (or of one option of
    ``options``) is ``share`` (clipped to [0, 1] and rounded to whole people), ``runs`` times,
    and debias each run.

    Each run's noisy count is ``Bin(t, P) + Bin(n - t, Q)``, the sum of each phone's report
    naming the option, with the probabilities the browser really uses
    (:class:`RandomizedResponse`), drawn by
    NumPy's generator seeded with ``seed``. The estimate's law has mean ``t / n`` and variance
    ``(t P (1 - P) + (n - t) Q (1 - Q)) / (n (P - Q))^2``.
    """
    respondents = check_count("n", n)
    if respondents == 0 or check_count("runs", runs) < 2:
        raise ValueError("n must be at least 1 and runs at least 2")
    keep, other = RandomizedResponse(flip_probability, options).probabilities
    true_yes = round(min(1.0, max(0.0, float(share))) * respondents)
    rng = np.random.default_rng(seed)
    noisy = rng.binomial(true_yes, keep, size=runs) + rng.binomial(
        respondents - true_yes, other, size=runs
    )
    estimates = (noisy / respondents - other) / (keep - other)
    variance = true_yes * keep * (1.0 - keep) + (respondents - true_yes) * other * (1.0 - other)
    count_edges = _count_edges(int(noisy.min()), int(noisy.max()), bins)
    counts, _ = np.histogram(noisy, bins=count_edges)
    return Reruns(
        n=respondents,
        true_yes=true_yes,
        estimates=estimates,
        expected_mean=true_yes / respondents,
        expected_std=math.sqrt(variance) / (respondents * (keep - other)),
        edges=(count_edges / respondents - other) / (keep - other),
        counts=counts,
    )


def _count_edges(lowest: int, highest: int, bins: int) -> np.ndarray:
    """Bars of whole noisy counts, at most ``bins`` of them: each holds the same number of
    counts (one while they fit), its edges half a count beyond them."""
    per_bar = max(1, math.ceil((highest - lowest + 1) / bins))
    bars = math.ceil((highest - lowest + 1) / per_bar)
    return lowest - 0.5 + per_bar * np.arange(bars + 1, dtype=np.float64)


# --------------------------------------------------------------------------- step 6


@dataclass(frozen=True)
class Posterior:
    """What one student's report tells, by Bayes' rule, to someone who believed the prior."""

    prior: float
    #: The two ways a phone sends "Yes": ``b (1 - p)`` (truly Yes, kept) and ``(1 - b) p``.
    yes_kept: float
    no_flipped: float
    #: Pr[truly Yes | sent Yes] and Pr[truly Yes | sent No].
    after_yes: float
    after_no: float
    epsilon: float
    #: The prior odds of "Yes", ``b / (1 - b)``, and e^eps times them (inf for a prior of 1).
    prior_odds: float
    ceiling_odds: float
    #: e^eps times the prior odds, as a probability: the most a "Yes" can raise the belief.
    ceiling: float
    #: e^-eps times the prior odds, as a probability: the most a "No" can lower it.
    floor: float


def posterior(
    prior: float,
    flip_probability: float,
    options: int = 2,
    probabilities: tuple[float, float] | None = None,
) -> Posterior:
    """Step 6: ``Pr[Yes | sent Yes] = b (1 - p) / (b (1 - p) + (1 - b) p)`` for the prior b;
    for one option of k, ``b P / (b P + (1 - b) Q)`` (and "sent another": ``1 - P``, ``1 - Q``).

    Its odds are the prior odds times ``(1 - p) / p = P / Q = e^eps``: randomized response
    spends its whole epsilon on a report, so the posterior *is* the ceiling epsilon allows.
    ``probabilities``: P and Q as the lesson writes them (:attr:`ChoiceCoin.written`), so
    that its formula adds up with the figures it shows.
    """
    belief = min(1.0, max(0.0, float(prior)))
    epsilon = epsilon_from_flip_probability(flip_probability)
    prior_odds = math.inf if belief == 1.0 else belief / (1.0 - belief)
    p = float(flip_probability)
    keep, other = probabilities or (
        (1.0 - p, p) if options == 2 else keep_probabilities(epsilon, options)
    )
    missed, others_missed = belief * (1.0 - keep), (1.0 - belief) * (1.0 - other)
    return Posterior(
        prior=belief,
        yes_kept=belief * keep,
        no_flipped=(1.0 - belief) * other,
        after_yes=belief * keep / (belief * keep + (1.0 - belief) * other),
        after_no=missed / (missed + others_missed),
        epsilon=epsilon,
        prior_odds=prior_odds,
        ceiling_odds=math.exp(epsilon) * prior_odds,
        ceiling=odds_to_probability(math.exp(epsilon) * prior_odds),
        floor=odds_to_probability(math.exp(-epsilon) * prior_odds),
    )


# --------------------------------------------------------------------------- step 7


@dataclass(frozen=True)
class TradeOffRow:
    flip_probability: float
    epsilon: float
    #: Half the exact range a class of n at this share would get, on average.
    exact_half_width: float
    #: The app's Chebyshev half-width with n answers.
    chebyshev_half_width: float
    is_current: bool


def _expected_exact_half_width(n: int, share: float, rr: RandomizedResponse, level: float):
    keep, other = rr.probabilities
    if n <= PLANNING_AVERAGE_LIMIT:
        return float(expected_exact_half_width(n, share, keep, other, level))
    # Many answers: the range at the expected count stands for the average (as in planning).
    count = round(n * (share * keep + (1.0 - share) * other))
    low, high = exact_interval(count, n, keep, other, level)
    return (high - low) / 2.0


def trade_off(
    n: int, share: float, flip_probability: float, confidence: float = 0.95, options: int = 2
) -> list[TradeOffRow]:
    """Step 7: for each p of :data:`TRADE_OFF_FLIP_PROBABILITIES` (and the survey's own), the
    epsilon and the ranges a class of n whose true share (of one option of ``options``) is
    ``share`` would get."""
    respondents = check_count("n", n)
    level = check_confidence(confidence)
    current = check_flip_probability(flip_probability)
    clipped = min(1.0, max(0.0, float(share)))
    rows = []
    for p in sorted({*TRADE_OFF_FLIP_PROBABILITIES, current}):
        rr = RandomizedResponse(p, options)
        rows.append(
            TradeOffRow(
                flip_probability=p,
                epsilon=rr.epsilon,
                exact_half_width=_expected_exact_half_width(respondents, clipped, rr, level),
                chebyshev_half_width=rr.chebyshev_half_width(respondents, level),
                is_current=p == current,
            )
        )
    return rows


# --------------------------------------------------------------------------- step 8


@dataclass(frozen=True)
class Budgets:
    """Composition over a survey's questions, and group privacy for k friends."""

    question_epsilons: tuple[float, ...]
    #: The sum of the questions' epsilons (basic composition): what the whole survey costs.
    total: float
    #: ``(k, k * epsilon of one question, k * total)`` for each group size k.
    groups: tuple[tuple[int, float, float], ...]

    @property
    def total_odds(self) -> float:
        """``e^total``: the most anyone can be surer of all of one person's answers."""
        return math.exp(self.total)


def budgets(question_epsilons: Sequence[float], group_sizes: Sequence[int] = GROUP_SIZES):
    """Step 8: ``total = eps_1 + ... + eps_m``; k friends answering alike: ``k x eps``.

    Group privacy: changing k people's answers changes the odds of any outcome by at most
    ``e^(k eps)``, so k friends are together ``k eps``-private (``k x total`` for the survey).
    """
    epsilons = tuple(float(eps) for eps in question_epsilons)
    total = total_epsilon(epsilons)
    one = epsilons[0] if epsilons else 0.0
    groups = tuple(
        (size, size * one, size * total) for size in (check_count("k", k) for k in group_sizes)
    )
    return Budgets(question_epsilons=epsilons, total=total, groups=groups)
