"""The one interface every mechanism implements, from counts: what they tell, and planning.

Every mechanism a question's answers can go through is a :class:`Mechanism`:
:class:`~survey_app.privacy.mechanisms.RandomizedResponse` (yes/no, k options) and each numeric
one (:class:`~survey_app.privacy.laplace.GridLaplace`,
:class:`~survey_app.privacy.hybrid.HybridNumeric`,
:class:`~survey_app.privacy.one_bit.OneBitNumeric`), and a paired question's
:class:`~survey_app.privacy.joint.JointRandomizedResponse` (two answers randomized as one).
Callers hold a ``Mechanism`` and never ask which kind it is::

    mechanism.name                  "randomized_response", "laplace", "hybrid", "one_bit"
                                    or "joint_randomized_response"
    mechanism.epsilon               the stated epsilon a report costs
    mechanism.report_range          (smallest, largest) integer report a browser may send
    mechanism.report_value(r)       what one report r says of its respondent's answer
                                    (an option's value; a number's unbiased estimate)
    mechanism.tell(counts, conf, carried)  -> Told: what the counts tell (below);
                                    ``carried``, the last look's ``told.live_sums`` at the
                                    same confidence: what its live ranges proved, which
                                    they never give back (privacy.live.carry_forward)
    mechanism.live_sums(counts, conf, carried)  ``tell(...).live_sums`` alone, for a release
    mechanism.half_width(n, conf)   the planned half-width n answers reach (a share, or
                                    the question's unit)
    mechanism.respondents_for(m, conf)  the fewest answers whose planned half-width is <= m

``counts`` are how many reports gave each value: a dict of report to count (reports that
never came may be left out), which suits every mechanism, or a list by report from 0 (as a
yes/no or choice question's are kept: ``[no, yes]``).

What counts tell (:data:`Told`) is :class:`Shares` (one estimate per option) or
:class:`Average` (a mean and, where the reports carry it, a histogram); a paired question's
:class:`~survey_app.privacy.joint.JointRandomizedResponse` tells
:class:`~survey_app.privacy.joint.JointShares` (summary "joint": its cells as a choice
question's options, and more). All have::

    told.n                               how many answers the counts hold
    told.estimates                       each option's Estimate, whose ``headline(low,
                                         high)`` is its figure for people (none for an
                                         average: its mean is ``told.estimate``)
    told.consistent_with_randomization   False when no randomized answers could give them
    told.summary                         "shares" (one per option), "average" or "joint"
    told.live_sums                       what each live range proved, as (n, low, high) of
                                         its running count (a share's) or sum (an average's):
                                         the next look's ``carried``
    told.rows()                          its rows for a table or CSV (:class:`Row`), each
                                         with the estimate and every range: exact (the
                                         fixed-size guaranteed one), chebyshev, bernstein,
                                         simultaneous (all options at once) and live (valid
                                         at every look), each ``(low, high)`` or None
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from survey_app.privacy.estimates import Estimate
from survey_app.privacy.numeric_grid import NumericEstimate, NumericHistogram

__all__ = [
    "HISTOGRAM_BARS",
    "Average",
    "Counts",
    "Look",
    "Mechanism",
    "Row",
    "Shares",
    "Told",
]

#: How many randomized reports gave each value: a list by value, or a dict of report to count.
Counts = Sequence[int] | Mapping[int, int]
#: A numeric question's debiased histogram has about this many bars of [lo, hi], placed so
#: that round answers fall inside a bar (:func:`~survey_app.privacy.numeric_grid.histogram_edges`).
HISTOGRAM_BARS = 10

Range = tuple[float | None, float | None] | None
#: What a look proved of a running sum: ``(n, low, high)``, its range among the first n answers
#: (a count of holders for a share; the true values' sum for an average).
Look = tuple[float, float, float]


@dataclass(frozen=True)
class Row:
    """One row of what counts tell: an option, an average, or a histogram bar.

    ``value``: the option's value or the bar's index (None for an average); ``held``: a bar's
    first and last answer (None otherwise). Each range is ``(low, high)``, or None where the
    row has no range of that kind.
    """

    value: int | None
    noisy_count: int | None
    estimate: float | None
    exact: Range = None
    chebyshev: Range = None
    bernstein: Range = None
    simultaneous: Range = None
    live: Range = None
    held: tuple[float, float] | None = None


@dataclass(frozen=True)
class Shares:
    """What a k-option question's counts tell: each option's debiased share and ranges.

    The estimates stay unbiased and unclipped; the figure pages lead with is each one's
    :meth:`~survey_app.privacy.estimates.Estimate.headline`.
    """

    estimates: tuple[Estimate, ...]

    summary: Literal["shares"] = "shares"

    @property
    def n(self) -> int:
        return self.estimates[0].n

    @property
    def consistent_with_randomization(self) -> bool:
        return all(estimate.consistent_with_randomization for estimate in self.estimates)

    @property
    def live_sums(self) -> tuple[Look, ...]:
        """Each option's live range in people, ``(n, low, high)``: the next look carries it
        (empty before any answer)."""
        n = self.n
        if n == 0:
            return ()
        return tuple((n, round(e.live_low * n), round(e.live_high * n)) for e in self.estimates)

    def rows(self) -> Iterator[Row]:
        """One row per option, by value."""
        for value, e in enumerate(self.estimates):
            yield Row(
                value=value,
                noisy_count=e.noisy_count,
                estimate=e.estimate,
                exact=(e.exact_low, e.exact_high),
                chebyshev=(e.ci_low, e.ci_high),
                simultaneous=(e.simultaneous_low, e.simultaneous_high),
                live=(e.live_low, e.live_high),
            )


@dataclass(frozen=True)
class Average:
    """What a numeric question's counts tell: the mean with its ranges, and the histogram.

    ``histogram`` is None for a mechanism whose reports tell the mean alone (one bit each).
    """

    estimate: NumericEstimate
    histogram: NumericHistogram | None

    summary: Literal["average"] = "average"

    @property
    def n(self) -> int:
        return self.estimate.n

    @property
    def estimates(self) -> tuple[Estimate, ...]:
        """An average has no options: no estimate of a share (as :attr:`Shares.estimates`)."""
        return ()

    @property
    def consistent_with_randomization(self) -> bool:
        return self.estimate.consistent_with_randomization

    @property
    def live_sums(self) -> tuple[Look, ...]:
        """The live range of the sum of the true values, ``(n, low, high)``: the next look
        carries it (empty before any answer)."""
        e = self.estimate
        if e.n == 0 or e.live_low is None:
            return ()
        return ((e.n, e.n * e.live_low, e.n * e.live_high),)

    def _clipped(self, half_width: float | None) -> Range:
        e = self.estimate
        if e.mean is None or half_width is None:
            return None, None
        return max(e.lo, min(e.hi, e.mean - half_width)), min(e.hi, max(e.lo, e.mean + half_width))

    def rows(self) -> Iterator[Row]:
        """The average's row (its ranges clipped to [lo, hi]), then one per histogram bar.

        Answers not consistent with the randomization (their range misses [lo, hi] entirely)
        get no range and no bars: clipped, the range would shrink to one end of the scale, and
        the spread would pile there, each reading as certain.
        """
        e = self.estimate
        if not e.consistent_with_randomization:
            yield Row(value=None, noisy_count=None, estimate=e.mean)
            return
        yield Row(
            value=None,
            noisy_count=None,
            estimate=e.mean,
            exact=(e.ci_low, e.ci_high),
            chebyshev=self._clipped(e.chebyshev_half_width),
            bernstein=self._clipped(e.bernstein_half_width),
            live=(e.live_low, e.live_high),
        )
        if self.histogram is None:
            return
        for index, (held, share) in enumerate(
            zip(self.histogram.answers_held, self.histogram.shares, strict=True)
        ):
            yield Row(value=index, noisy_count=None, estimate=share, held=held)


#: What a mechanism's counts tell.
Told = Shares | Average


@runtime_checkable
class Mechanism(Protocol):
    """What a question's answers went through, and what their counts can tell (see above)."""

    name: str

    @property
    def epsilon(self) -> float: ...

    @property
    def report_range(self) -> tuple[int, int]: ...

    def report_value(self, report: int) -> float: ...

    def tell(
        self, counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> Told: ...

    def live_sums(
        self, counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> tuple[Look, ...]: ...

    def half_width(self, n: int, confidence: float = 0.95) -> float: ...

    def respondents_for(self, margin: float, confidence: float = 0.95) -> int: ...
