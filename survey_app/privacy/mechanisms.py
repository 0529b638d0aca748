"""One type per mechanism: what a question's answers went through, and what they can tell.

:class:`RandomizedResponse` is k-option randomized response as the browser runs it at a
survey's flip probability p; yes/no is the case k = 2. It owns the probabilities the browser
really uses, the epsilon, the estimates with both intervals, and the planning figures, so that
callers never ask which kind of question they hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from survey_app.privacy.estimates import (
    Estimate,
    chebyshev_half_width,
    check_counts,
    debias,
    smallest_n,
)
from survey_app.privacy.exact import exact_interval, expected_exact_half_width, uses_exact_law
from survey_app.privacy.interface import Counts, Look, Shares
from survey_app.privacy.live import carried_share_interval, live_share_interval
from survey_app.privacy.numeric import numeric_mechanism
from survey_app.privacy.parameters import (
    BROWSER_RANDOM_WORDS,
    MAX_PLANNED_RESPONDENTS,
    browser_epsilon,
    browser_keep_probabilities,
    check_confidence,
    check_count,
    check_flip_probability,
    check_margin,
    check_option_count,
    epsilon_from_flip_probability,
    fewest_respondents,
    keep_threshold,
)

__all__ = [
    "MAX_SUGGESTED_FLIP_PROBABILITY",
    "MIN_SUGGESTED_FLIP_PROBABILITY",
    "PLANNING_SHARES",
    "RandomizedResponse",
    "suggest_flip_probability",
]

#: Planning figures are the widest expected interval over these true shares.
PLANNING_SHARES = (0.3, 0.5, 0.7)
#: Above this many answers a planned margin is the interval at the expected count: the width
#: barely depends on the count there (within 0.3% of the average at 1,000 and 3,000 answers,
#: p = 0.25 to 0.4, k = 2 and 3, as measured), and averaging costs a second a figure.
PLANNING_AVERAGE_LIMIT = 1_000
#: Suggestions never go below this flip probability (epsilon = ln 19 = 2.94 a question) ...
MIN_SUGGESTED_FLIP_PROBABILITY = 0.05
#: ... nor above this one, beyond which a class learns next to nothing.
MAX_SUGGESTED_FLIP_PROBABILITY = 0.45


@dataclass(frozen=True)
class RandomizedResponse:
    """k-option randomized response as the browser runs it at flip probability p.

    The true option is reported with probability ``P`` and each other option with ``Q``
    (:func:`~survey_app.privacy.parameters.browser_keep_probabilities`: the browser's integer
    thresholds); for yes/no (k = 2) ``P = 1 - p'`` and ``Q = p'``, ``p'`` the flip probability
    the browser really uses. The stated epsilon is ``ln((1 - p) / p)`` for every k, never below
    the real one (:attr:`browser_epsilon`).

    Parameters
    ----------
    flip_probability : float
        The survey's p, in (0, 0.5), leaving ``P > Q`` (any p up to 0.499999 does).
    options : int
        k, the number of values a respondent can report: 2 for yes/no.
    """

    flip_probability: float
    options: int = 2

    #: The name the interface gives it (:class:`~survey_app.privacy.interface.Mechanism`).
    name: ClassVar[str] = "randomized_response"

    def __post_init__(self) -> None:
        p = check_flip_probability(self.flip_probability)
        k = check_option_count(self.options)
        if keep_threshold(p, k) * k <= BROWSER_RANDOM_WORDS:
            raise ValueError(
                f"flip_probability must leave the browser’s keep probability above 1/{k}, "
                f"got {self.flip_probability!r}"
            )

    # ---------------------------------------------------------------- the mechanism

    @cached_property
    def probabilities(self) -> tuple[float, float]:
        """``(P, Q)``: the probabilities of reporting the true option and one given other."""
        return browser_keep_probabilities(self.flip_probability, self.options)

    @property
    def keep(self) -> float:
        return self.probabilities[0]

    @property
    def other(self) -> float:
        return self.probabilities[1]

    @cached_property
    def epsilon(self) -> float:
        """The stated epsilon, ``ln((1 - p) / p)``: what pages and the API say."""
        return epsilon_from_flip_probability(self.flip_probability)

    @cached_property
    def browser_epsilon(self) -> float:
        """The epsilon of the probabilities the browser uses: never above :attr:`epsilon`."""
        return browser_epsilon(self.flip_probability, self.options)

    @property
    def _variance(self) -> float:
        """The largest variance of one report's indicator, ``max(P(1 - P), Q(1 - Q))``."""
        keep, other = self.probabilities
        return max(keep * (1.0 - keep), other * (1.0 - other))

    @property
    def report_range(self) -> tuple[int, int]:
        """The smallest and largest report a browser sends: an option's value, 0 .. k - 1."""
        return 0, self.options - 1

    def report_value(self, report: int) -> float:
        """What one report says of its respondent's answer: the option it names."""
        return report

    # ---------------------------------------------------------------- estimates

    def tell(
        self, noisy_counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> Shares:
        """What the counts tell (the interface's): :meth:`estimate`, an option a value.

        ``noisy_counts``: a list by value, or a dict of value to count (values left out
        counted 0); ``carried``: what each option's live range proved at the last look
        (:attr:`Shares.live_sums` then), which it never gives back; empty for none. Each
        option's figure for people is its estimate's
        :meth:`~survey_app.privacy.estimates.Estimate.headline`.
        """
        if isinstance(noisy_counts, Mapping):
            unknown = set(noisy_counts) - set(range(self.options))
            if unknown:
                raise ValueError(f"noisy_counts has no option {sorted(unknown)[0]!r}")
            noisy_counts = [noisy_counts.get(value, 0) for value in range(self.options)]
        return Shares(tuple(self.estimate(noisy_counts, confidence, carried)))

    def estimate(
        self,
        noisy_counts: Sequence[int],
        confidence: float = 0.95,
        carried: Sequence[Look] = (),
    ) -> list[Estimate]:
        """The debiased share of each value, with its Chebyshev, exact and live intervals.

        ``noisy_counts`` holds how many reports gave each value, in value order (``[no, yes]``
        for yes/no); ``carried`` what each option's live range proved at the last look, or
        empty (see :meth:`tell`). The estimate is
        ``(c / n - Q) / (P - Q)``, unbiased and not clipped; the Chebyshev interval is that of
        :func:`~survey_app.privacy.estimates._estimate_frequencies`, the exact one that of
        :func:`~survey_app.privacy.exact.exact_interval` and the live one carries the last
        look's forward (:func:`~survey_app.privacy.live.carried_share_interval`).
        """
        counts = check_counts(noisy_counts)
        if len(counts) != self.options:
            raise ValueError(f"noisy_counts must have {self.options} entries, got {len(counts)}")
        if carried and len(carried) != self.options:
            raise ValueError(f"carried must have {self.options} entries, got {len(carried)}")
        level = check_confidence(confidence)
        keep, other = self.probabilities
        return option_estimates(counts, keep, other, level, self.browser_epsilon, carried)

    def live_sums(
        self, noisy_counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> tuple[Look, ...]:
        """What each option's live range proves with these counts (:meth:`tell`'s
        ``live_sums``) alone, without the other ranges: what a release keeps."""
        if isinstance(noisy_counts, Mapping):
            noisy_counts = [noisy_counts.get(value, 0) for value in range(self.options)]
        counts = check_counts(noisy_counts)
        if len(counts) != self.options:
            raise ValueError(f"noisy_counts must have {self.options} entries, got {len(counts)}")
        n = sum(counts)
        if n == 0:
            return ()
        keep, other = self.probabilities
        level = check_confidence(confidence)
        sums = []
        for value, count in enumerate(counts):
            earlier = carried[value] if carried else None
            low, high = carried_share_interval(count, n, keep, other, level, earlier)
            sums.append((n, round(low * n), round(high * n)))
        return tuple(sums)

    # ---------------------------------------------------------------- planning

    def chebyshev_half_width(self, n: int, confidence: float = 0.95) -> float:
        """The Chebyshev half-width with n answers (the same for every outcome)."""
        respondents = check_count("n", n)
        if respondents == 0:
            raise ValueError("n must be at least 1 to have a margin")
        keep, other = self.probabilities
        return chebyshev_half_width(
            self._variance, respondents, check_confidence(confidence), keep - other
        )

    def half_width(self, n: int, confidence: float = 0.95) -> float:
        """The interface's planned half-width: :meth:`planned_half_width`."""
        return self.planned_half_width(n, confidence)

    def planned_half_width(self, n: int, confidence: float = 0.95) -> float:
        """The margin n answers will reach: half the exact interval's expected width.

        At its widest over the true shares :data:`PLANNING_SHARES` (30%, 50%, 70%); a class
        of n reaches it on average (tests simulate classes to check). Above
        :data:`PLANNING_AVERAGE_LIMIT` answers, the half-width at the expected count stands
        for the average.
        """
        respondents = check_count("n", n)
        if respondents == 0:
            raise ValueError("n must be at least 1 to have a margin")
        if respondents > PLANNING_AVERAGE_LIMIT:
            return self._typical_half_width(respondents, check_confidence(confidence))
        return max(
            self._expected_half_width(respondents, share, check_confidence(confidence))
            for share in PLANNING_SHARES
        )

    def _expected_half_width(self, n: int, share: float, confidence: float) -> float:
        keep, other = self.probabilities
        return expected_exact_half_width(n, share, keep, other, confidence)

    def _typical_half_width(self, n: int, confidence: float) -> float:
        """A quick stand-in for :meth:`planned_half_width`: the interval of the expected count.

        One interval per share instead of one per likely count; for searches.
        """
        keep, other = self.probabilities
        widths = []
        for share in PLANNING_SHARES:
            count = round(n * (share * keep + (1.0 - share) * other))
            interval = exact_interval(count, n, keep, other, confidence)
            widths.append(1.0 if interval is None else interval[1] - interval[0])
        return max(widths) / 2.0

    def respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose planned (exact) half-width is at most ``margin``."""
        size = check_margin(margin)
        level = check_confidence(confidence)
        high = fewest_respondents(self._typical_half_width, size, level)
        if high >= MAX_PLANNED_RESPONDENTS:
            return MAX_PLANNED_RESPONDENTS
        # Settle on the figure that is shown: the expected width, not the quick stand-in.
        while high < MAX_PLANNED_RESPONDENTS and self.planned_half_width(high, level) > size:
            high += max(1, high // 50)
        return high

    def live_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Half the live range's width n answers reach, as :meth:`planned_half_width` plans the
        exact one's: at the expected count, at the widest of :data:`PLANNING_SHARES`."""
        respondents = check_count("n", n)
        if respondents == 0:
            raise ValueError("n must be at least 1 to have a margin")
        level = check_confidence(confidence)
        keep, other = self.probabilities
        widths = []
        for share in PLANNING_SHARES:
            count = round(respondents * (share * keep + (1.0 - share) * other))
            low, high = live_share_interval(count, respondents, keep, other, level)
            widths.append((high - low) / 2.0)
        return max(widths)

    def live_respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose live half-width (:meth:`live_half_width`) is at most
        ``margin``; :data:`MAX_PLANNED_RESPONDENTS` when more would be needed. A live range
        holds at every look, so it takes more answers than the exact one (:meth:`respondents_for`).
        """
        return fewest_respondents(
            self.live_half_width, check_margin(margin), check_confidence(confidence)
        )

    def respondents_for_chebyshev(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose Chebyshev half-width is at most ``margin``."""
        keep, other = self.probabilities
        return smallest_n(
            self._variance, keep - other, check_margin(margin), check_confidence(confidence)
        )


def option_estimates(
    counts: Sequence[int],
    keep: float,
    other: float,
    level: float,
    epsilon: float,
    carried: Sequence[Look] = (),
) -> list[Estimate]:
    """Each option's debiased share with its Chebyshev, exact, simultaneous and live ranges,
    from checked counts of reports whose law is k-option randomized response at ``(P, Q)`` =
    ``(keep, other)``, k = ``len(counts)`` (see :meth:`RandomizedResponse.estimate`; a paired
    question's margins use it at their own P and Q)."""
    n = sum(counts)
    # Bonferroni: each of k ranges at 1 - alpha / k, so all k hold at once with 1 - alpha.
    # Two options need none: one's range is the other's, mirrored.
    all_at_once = level if len(counts) == 2 else 1.0 - (1.0 - level) / len(counts)
    estimates = []
    for value, count in enumerate(counts):
        estimate = debias(count, n, keep, other, level, epsilon)
        if n > 0:
            interval = exact_interval(count, n, keep, other, level)
            estimate = estimate.with_exact(interval, uses_exact_law(n, keep, other, level))
            low, high = exact_interval(count, n, keep, other, all_at_once)
            earlier = carried[value] if carried else None
            live_low, live_high = carried_share_interval(count, n, keep, other, level, earlier)
            estimate = dataclasses.replace(
                estimate,
                simultaneous_low=low,
                simultaneous_high=high,
                live_low=live_low,
                live_high=live_high,
            )
        estimates.append(estimate)
    return estimates


def suggest_flip_probability(
    margin: float,
    n: int,
    option_counts: Sequence[int],
    confidence: float = 0.95,
    numeric_questions: Sequence[tuple[float, float, str | None]] = (),
) -> float | None:
    """The most private p (largest, at most 0.45) at which every question reaches ``margin``.

    ``option_counts`` holds each question's k (2 for yes/no); n is the expected number of
    answers. ``numeric_questions`` holds each numeric question's ``(lo, hi, mechanism name or
    None)``: for them ``margin`` is a share of ``hi - lo`` (0.1: a tenth of the range), reached
    by the guaranteed half-width at epsilon = ln((1 - p) / p) of the mechanism a survey
    planned for n answers gets (or the one named). The search never goes below
    p = 0.05: None when even p = 0.05 does not reach the margin (the class is too small for it).
    The result has two decimals: the largest p of two decimals that reaches the margin.
    """
    size = check_margin(margin)
    respondents = check_count("n", n)
    level = check_confidence(confidence)
    distinct_options = sorted({check_option_count(k) for k in option_counts})
    if not distinct_options and not numeric_questions:
        distinct_options = [2]
    if respondents == 0:
        return None

    def reaches(p: float) -> bool:
        epsilon = epsilon_from_flip_probability(p)
        return all(
            RandomizedResponse(p, k)._typical_half_width(respondents, level) <= size
            for k in distinct_options
        ) and all(
            # The mechanism a survey planned for this class gets (or the one named).
            numeric_mechanism(lo, hi, epsilon, name, respondents).half_width(respondents, level)
            <= size * (hi - lo)
            for lo, hi, name in numeric_questions
        )

    # Searched on the hundredths the suggestion is given in: about six looks, each at a p
    # that recurs from one plan to the next (so its numeric mechanisms come from the cache),
    # and the p returned is one that was seen to reach the margin.
    low = round(MIN_SUGGESTED_FLIP_PROBABILITY * 100)
    high = round(MAX_SUGGESTED_FLIP_PROBABILITY * 100)
    if not reaches(low / 100):
        return None
    if reaches(high / 100):
        return high / 100
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle / 100):
            low = middle
        else:
            high = middle
    return low / 100
