"""What every numeric mechanism shares: the exact law's checks, estimates, intervals, histogram.

A numeric mechanism randomizes a grid index ``k`` in ``0 .. G`` (:mod:`numeric_grid`) into an
integer report, and knows the exact law of that report (:meth:`NumericMechanism.pmf`) and an
estimate of ``k`` from it that is unbiased for every k. The class mean in the question's units
is then the average of those estimates mapped back to [lo, hi].

Guaranteed intervals: Chebyshev's from the worst-case variance over ``k``, Bernstein's from it and
the bounded range of the estimates, and each mechanism's own *tail bound* from its exact law
(:meth:`NumericMechanism._tail_half_width`: the exact law of Laplace's summed noise, a Chernoff
bound on the hybrid's, binomial tails for the one-bit mechanism). Each holds for every set of true
values and depends on n, the confidence and the mechanism alone, never on the data, so the
smallest of them keeps the guarantee.

References
----------
S. Bernstein's inequality: for independent X_i with |X_i - E X_i| <= M and average variance
sigma^2, Pr[|mean - E mean| >= h] <= 2 exp(-n h^2 / (2 (sigma^2 + M h / 3))).
W. Hoeffding, "Probability inequalities for sums of bounded random variables", JASA 58 (1963)
(Hoeffding's lemma: a variable in an interval of length 1 has E exp(lambda (X - E X)) <=
exp(lambda^2 / 8)).
Y. Vardi, D. Lee, "From image deblurring to optimal investments: maximum likelihood solutions
for positive linear inverse problems", JRSS B 55 (1993) (EM / Richardson-Lucy deconvolution).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from survey_app.privacy.interface import HISTOGRAM_BARS, Average, Look
from survey_app.privacy.live import (
    carried_mean_interval,
    estimate_mean_with_live_range,
    live_mean_margins,
)
from survey_app.privacy.numeric_grid import (
    NUMERIC_GRID_STEPS,
    NUMERIC_ROUNDING_BIAS,
    ROUNDING_VARIANCE,
    NumericEstimate,
    NumericHistogram,
    _check_grid_indices,
    _check_numeric_epsilon,
    _check_rng,
    _positive_count,
    _rounding_channel,
    check_numeric_bounds,
    histogram_edges,
    randomized_grid_indices,
    value_of_grid_index,
)
from survey_app.privacy.parameters import check_confidence, check_margin, fewest_respondents

__all__ = ["NumericMechanism", "rounding_deviation"]

#: The histogram's EM stops when no share moves by more than this in an iteration ...
_EM_TOLERANCE = 1e-9
#: ... or after this many iterations.
_EM_MAX_ITERATIONS = 5000
#: How many fitted histograms are kept (see :func:`_fitted_shares`): a page asks for the same
#: counts again and again (the projector and the open dashboard redraw themselves, and release
#: counts change only with a batch of answers), and each fit is thousands of small steps. A
#: fit is kept under its counts as bytes: at most 16 bytes a distinct report.
_EM_FITS_KEPT = 128
#: Above this many distinct reports, the histogram groups them into this many runs of
#: neighbouring reports (only Laplace's wide range gets there): the likelihood of grouped data
#: is still exact, and the channel matrix stays small (G + 1 by this).
_EM_MAX_GROUPS = 2048


def rounding_deviation(n: int, delta: float) -> float:
    """r (grid steps) with ``Pr[|avg(k_i - E k_i)| >= r] <= delta`` for n independent roundings.

    Each ``k_i - u_i`` lies in ``[-frac_i, 1 - frac_i]``, an interval of length 1, so Hoeffding's
    inequality (1963) gives ``2 exp(-2 n r^2)``: ``r = sqrt(ln(2 / delta) / (2 n))``; and
    ``|k_i - u_i| < 1`` always, so r is at most 1 (then with probability 1).
    """
    return min(1.0, math.sqrt(math.log(2.0 / delta) / (2.0 * n)))


@dataclass(frozen=True)
class NumericMechanism:
    """A numeric question's mechanism on [lo, hi] at epsilon; subclasses define the law.

    A subclass defines the output range, the exact law of a report given the grid index
    (:meth:`_probabilities`), the unbiased estimate of k from a report, its variance, the
    browser's integer parameters, and a reference sampler.
    """

    lo: float
    hi: float
    epsilon: float

    #: The name a survey definition and the browser use.
    name: ClassVar[str] = ""
    #: Whether its reports carry how answers spread (a debiased histogram), not only their mean.
    shows_spread: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_numeric_bounds(self.lo, self.hi)
        _check_numeric_epsilon(self.epsilon)

    # ---------------------------------------------------------------- to subclass

    @property
    def output_range(self) -> tuple[int, int]:
        """The smallest and largest report the browser can send (both included)."""
        raise NotImplementedError

    @property
    def real_epsilon(self) -> float:
        """The epsilon the browser's integer parameters really give: never above epsilon."""
        raise NotImplementedError

    def browser_parameters(self) -> dict[str, int]:
        """The integers randomized-response.js needs for this mechanism."""
        raise NotImplementedError

    def _probabilities(self, k: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """Pr[report = outputs[j] | grid index k[i]], shape (len(k), len(outputs))."""
        raise NotImplementedError

    def estimate_of_output(self, outputs: ArrayLike) -> np.ndarray:
        """The unbiased estimate of the grid index from each report (grid steps)."""
        raise NotImplementedError

    def variance_given_grid_index(self, k: ArrayLike) -> np.ndarray:
        """Var[estimate_of_output(report) | grid index k], in grid steps squared."""
        raise NotImplementedError

    def _randomize_indices(self, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    #: For the live ranges (:mod:`~survey_app.privacy.live`): None, or a mechanism whose
    #: cumulant function is known in closed form gives ``|lambda|`` below which it is finite,
    #: and :meth:`cumulant_bound` gives it there (else the live range tabulates the exact law).
    cumulant_reach: ClassVar[float | None] = None

    def cumulant_bound(self, lambdas: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @property
    def _bias_bound(self) -> float:
        """Bound on |E[estimate | x] - u| in grid steps (rounding, clamping)."""
        return NUMERIC_ROUNDING_BIAS

    def _interval_probabilities(
        self, k: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray:
        """Pr[starts[j] <= report <= ends[j] | k[i]]: sums of the law (a subclass may do better)."""
        low, high = self.output_range
        rows = self._probabilities(k, np.arange(low, high + 1, dtype=np.int64))
        cumulative = np.concatenate([np.zeros((len(k), 1)), np.cumsum(rows, axis=1)], axis=1)
        return cumulative[:, ends - low + 1] - cumulative[:, starts - low]

    # ---------------------------------------------------------------- the interface

    @property
    def report_range(self) -> tuple[int, int]:
        """The interface's name for :attr:`output_range`."""
        return self.output_range

    def report_value(self, report: int) -> float:
        """What one report says of its respondent's number: its unbiased estimate, in units."""
        estimate = self.estimate_of_output(np.array([int(report)]))[0]
        return float(value_of_grid_index(estimate, self.lo, self.hi))

    def tell(
        self,
        counts: Mapping[int, int] | Sequence[int],
        confidence: float = 0.95,
        carried: Sequence[Look] = (),
    ) -> Average:
        """What the counts of each report tell (the interface's): the mean with its fixed-size
        and live ranges, and the histogram (:data:`~survey_app.privacy.interface.HISTOGRAM_BARS`
        bars) unless :attr:`shows_spread` is False.

        ``counts``: a dict of report to count, or a list by report from 0; ``carried``: what
        the live range proved at the last look (:attr:`Average.live_sums` then), which it never
        gives back (:func:`~survey_app.privacy.live.carried_mean_interval`); empty for none.
        """
        if not isinstance(counts, Mapping):
            counts = dict(enumerate(counts))
        values = sorted(counts)
        reports = np.repeat(np.array(values, dtype=np.int64), [counts[v] for v in values])
        earlier = carried[0] if carried else None
        return Average(
            estimate=estimate_mean_with_live_range(self, reports, confidence, earlier),
            histogram=self.histogram(reports, HISTOGRAM_BARS) if self.shows_spread else None,
        )

    def live_sums(
        self,
        counts: Mapping[int, int] | Sequence[int],
        confidence: float = 0.95,
        carried: Sequence[Look] = (),
    ) -> tuple[Look, ...]:
        """What the live range proves with these counts (:meth:`tell`'s ``live_sums``) alone,
        without the histogram and the fixed-size ranges: what a release keeps."""
        if not isinstance(counts, Mapping):
            counts = dict(enumerate(counts))
        values = sorted(counts)
        reports = np.repeat(np.array(values, dtype=np.int64), [counts[v] for v in values])
        n = int(reports.size)
        if n == 0:
            return ()
        total = float(np.sum(self.estimate_of_output(self._check_outputs(reports))))
        earlier = carried[0] if carried else None
        low, high = carried_mean_interval(self, n, total, check_confidence(confidence), earlier)
        return ((n, n * low, n * high),)

    # ---------------------------------------------------------------- the law

    @property
    def step(self) -> float:
        """One grid step in the question's units: ``(hi - lo) / G``."""
        return (self.hi - self.lo) / NUMERIC_GRID_STEPS

    def is_valid_output(self, output: object) -> bool:
        """True when ``output`` is an integer the browser can send (the server refuses others)."""
        if isinstance(output, bool) or not isinstance(output, numbers.Integral):
            return False
        low, high = self.output_range
        return low <= int(output) <= high

    def _check_outputs(self, outputs: object) -> np.ndarray:
        array = np.asarray(outputs)
        if array.size == 0:
            return np.zeros(0, dtype=np.int64)
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise ValueError("outputs must be integers")
        low, high = self.output_range
        if array.min() < low or array.max() > high:
            raise ValueError(f"outputs must be in {low} .. {high}")
        return array.astype(np.int64).ravel()

    def pmf(self, k: int) -> np.ndarray:
        """The exact law of the report given grid index k, over ``output_range`` in order."""
        index = _check_grid_indices(k)
        if index.ndim != 0:
            raise ValueError("k must be a single grid index")
        low, high = self.output_range
        outputs = np.arange(low, high + 1, dtype=np.int64)
        return self._probabilities(index.reshape(1), outputs)[0]

    @cached_property
    def _noise_variance(self) -> float:
        """max over k of Var[estimate | k], grid steps squared."""
        k = np.arange(NUMERIC_GRID_STEPS + 1)
        return float(np.max(self.variance_given_grid_index(k)))

    @cached_property
    def worst_case_variance(self) -> float:
        """The largest variance of one respondent's estimated value, in units squared.

        ``(max_k Var[estimate | k] + 1/4) step^2``: by the law of total variance the randomized
        rounding adds ``Var[k | x] <= 1/4`` grid steps squared to the mechanism's own variance.
        """
        return (self._noise_variance + ROUNDING_VARIANCE) * self.step**2

    @property
    def _estimate_range(self) -> tuple[float, float]:
        """The smallest and largest estimate of any report (at the range's ends if monotone)."""
        low, high = self.output_range
        estimates = self.estimate_of_output(np.array([low, high]))
        return float(np.min(estimates)), float(np.max(estimates))

    @cached_property
    def _deviation_bound(self) -> float:
        """M (grid steps): |estimate - E[estimate | x]| <= M for every report and value.

        The estimate of a report lies in :attr:`_estimate_range`, and its mean given x within
        the bias bound of u in [0, G].
        """
        smallest, largest = self._estimate_range
        return max(largest, NUMERIC_GRID_STEPS - smallest) + self._bias_bound

    # ---------------------------------------------------------------- sampling

    def randomize(self, values: ArrayLike, rng: np.random.Generator) -> np.ndarray:
        """Reports of true values as the browser makes them: clip, round, randomize.

        The reference sampler, for simulation and tests: it draws from the same law with NumPy
        (the browser draws from 32-bit words; tests check both against :meth:`pmf`).
        """
        return self.randomize_grid_indices(
            randomized_grid_indices(values, self.lo, self.hi, rng), rng
        )

    def randomize_grid_indices(self, k: ArrayLike, rng: np.random.Generator) -> np.ndarray:
        """Reports of grid indices (each in 0 .. G), drawn from :meth:`pmf`."""
        return self._randomize_indices(_check_grid_indices(k), _check_rng(rng))

    # ---------------------------------------------------------------- estimates

    def _half_widths(self, n: int, confidence: float) -> tuple[float, float]:
        """(Chebyshev, Bernstein) half-widths in grid steps, the bias bound included.

        With V the worst-case variance and M the deviation bound (grid steps), delta =
        1 - confidence and L = ln(2 / delta):

            Chebyshev: h = sqrt(V / (n delta));
            Bernstein: h = L M / (3n) + sqrt((L M / (3n))^2 + 2 L V / n),

        the root of n h^2 = 2 L (V + M h / 3). Each holds for independent respondents whatever
        their values (V bounds every respondent's variance), so the smaller does too; the bias
        bound is added because the estimate's mean is within it of the true mean.
        """
        delta = 1.0 - confidence
        variance = self._noise_variance + ROUNDING_VARIANCE
        chebyshev = math.sqrt(variance / (n * delta))
        log_term = math.log(2.0 / delta)
        linear = log_term * self._deviation_bound / (3.0 * n)
        bernstein = linear + math.sqrt(linear**2 + 2.0 * log_term * variance / n)
        return chebyshev + self._bias_bound, bernstein + self._bias_bound

    def _tail_half_width(self, n: int, confidence: float) -> tuple[float, str] | None:
        """The mechanism's own tail bound: (half-width in grid steps, its name), or None.

        Like the others it must hold for every set of true values, depend on n, the confidence
        and the mechanism only, and include the rounding and the bias.
        """
        return None

    def _all_half_widths(self, n: int, confidence: float) -> tuple[float, float, float | None, str]:
        """(Chebyshev, Bernstein, tail bound or None, name of the smallest), in grid steps."""
        chebyshev, bernstein = self._half_widths(n, confidence)
        tail = self._tail_half_width(n, confidence)
        candidates = [(chebyshev, "chebyshev"), (bernstein, "bernstein")]
        if tail is not None:
            candidates.append(tail)
        best = min(candidates, key=lambda pair: pair[0])[1]
        return chebyshev, bernstein, None if tail is None else tail[0], best

    def chebyshev_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Chebyshev's guaranteed half-width with n answers, in the question's units."""
        return self._half_widths(_positive_count(n), check_confidence(confidence))[0] * self.step

    def bernstein_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Bernstein's guaranteed half-width with n answers, in the question's units."""
        return self._half_widths(_positive_count(n), check_confidence(confidence))[1] * self.step

    def tail_half_width(self, n: int, confidence: float = 0.95) -> float | None:
        """The mechanism's own tail bound's half-width (question's units), or None without one."""
        tail = self._tail_half_width(_positive_count(n), check_confidence(confidence))
        return None if tail is None else tail[0] * self.step

    def interval_bound(self, n: int, confidence: float = 0.95) -> str:
        """Which bound gives :meth:`half_width`: "chebyshev", "bernstein" or the tail bound's."""
        return self._all_half_widths(_positive_count(n), check_confidence(confidence))[3]

    def _smallest_half_width(self, n: int, confidence: float) -> float:
        """The smallest guaranteed half-width, in grid steps."""
        chebyshev, bernstein, tail, _ = self._all_half_widths(n, confidence)
        return min(chebyshev, bernstein, math.inf if tail is None else tail)

    def half_width(self, n: int, confidence: float = 0.95) -> float:
        """The guaranteed half-width n answers reach (the smallest bound), in the question's units.

        It depends on n and the mechanism only, so it is also the planned margin.
        """
        n, level = _positive_count(n), check_confidence(confidence)
        return self._smallest_half_width(n, level) * self.step

    def respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose :meth:`half_width` is at most ``margin`` (question's units).

        Found by doubling, then bisection: the half-widths shrink as n grows.
        """
        size = check_margin(margin)
        level = check_confidence(confidence)

        def reaches(n: int) -> bool:
            return self._smallest_half_width(n, level) * self.step <= size

        low, high = 0, 1
        while not reaches(high):
            low, high = high, high * 2
        while high - low > 1:
            middle = (low + high) // 2
            if reaches(middle):
                high = middle
            else:
                low = middle
        return high

    def live_half_width(self, n: int, confidence: float = 0.95) -> float:
        """Half the live range's width after n answers (question's units, before clipping to
        [lo, hi]): it depends on n alone (live.live_mean_margins), so a class of n sees it."""
        below, above = live_mean_margins(self, _positive_count(n), check_confidence(confidence))
        return (below + above) / 2.0

    def live_respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose :meth:`live_half_width` is at most ``margin`` (question's
        units); MAX_PLANNED_RESPONDENTS when more would be needed. A live range holds at every
        look, so it takes more answers than the fixed-size one (:meth:`respondents_for`)."""
        return fewest_respondents(
            self.live_half_width, check_margin(margin), check_confidence(confidence)
        )

    def estimate_mean(self, outputs: ArrayLike, confidence: float = 0.95) -> NumericEstimate:
        """The unbiased mean of the respondents' (clipped) values, with its guaranteed interval.

        ``mean = value_of_grid_index(average of estimate_of_output(report))``; the half-width is
        :meth:`half_width` at n = the number of reports (the smallest of the bounds, each
        guaranteed for every set of true values and independent of the data).
        """
        reports = self._check_outputs(outputs)
        level = check_confidence(confidence)
        n = int(reports.size)
        common = {"confidence": level, "epsilon": self.epsilon, "mechanism": self.name}
        if n == 0:
            empty = dict.fromkeys(["mean", "half_width", "ci_low", "ci_high"])
            return NumericEstimate(
                n=0,
                chebyshev_half_width=None,
                bernstein_half_width=None,
                lo=self.lo,
                hi=self.hi,
                **empty,
                **common,
            )
        mean_index = float(np.mean(self.estimate_of_output(reports)))
        mean = float(value_of_grid_index(mean_index, self.lo, self.hi))
        chebyshev, bernstein, tail, bound = self._all_half_widths(n, level)
        # Plain floats: NumPy's would make the JSON API's figures (and flags) unserializable.
        tail = None if tail is None else float(tail)
        half_width = float(
            min(chebyshev, bernstein, math.inf if tail is None else tail) * self.step
        )
        return NumericEstimate(
            n=n,
            mean=mean,
            half_width=half_width,
            chebyshev_half_width=chebyshev * self.step,
            bernstein_half_width=bernstein * self.step,
            ci_low=min(self.hi, max(self.lo, mean - half_width)),
            ci_high=max(self.lo, min(self.hi, mean + half_width)),
            lo=self.lo,
            hi=self.hi,
            tail_half_width=None if tail is None else tail * self.step,
            bound=bound,
            **common,
        )

    def _check_edges(self, edges: object) -> tuple[float, ...]:
        try:
            values = tuple(float(edge) for edge in edges)  # type: ignore[union-attr]
        except (TypeError, ValueError) as error:
            message = f"bins must be an integer in 1 .. 100 or edges, got {edges!r}"
            raise ValueError(message) from error
        if (
            not 2 <= len(values) <= 101
            or values[0] != self.lo
            or values[-1] != self.hi
            or any(b <= a for a, b in zip(values[:-1], values[1:], strict=True))
        ):
            raise ValueError(f"edges must increase from lo to hi (2 to 101), got {edges!r}")
        return values

    def histogram(self, outputs: ArrayLike, bins: int | Sequence[float] = 10) -> NumericHistogram:
        """The debiased distribution of the true values over about ``bins`` bars of [lo, hi].

        ``bins``: a number of bars, placed by :func:`histogram_edges` so that round answers
        fall inside a bar (one bar per whole answer on short whole-number scales), or the
        bars' edges themselves, increasing from lo to hi.

        Maximum likelihood by EM (Richardson-Lucy deconvolution, Vardi & Lee 1993) with the
        exact channel from a bin to a report: ``A[b, y] = sum_m W[b, m] Pr[y | m]``, W the
        randomized rounding of a value uniform in bin b (:func:`_rounding_channel`). From equal
        shares, each step is ``pi_b <- pi_b sum_y (c_y / n) A[b, y] / (pi A)_y``, which stays on
        the simplex (no projection is needed) and never lowers the likelihood. Only the distinct
        reports enter (grouped into runs of neighbours beyond :data:`_EM_MAX_GROUPS`), so the
        cost is bins x (distinct reports) per step.
        """
        if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
            if not 1 <= bins <= 100:
                raise ValueError(f"bins must be an integer in 1 .. 100, got {bins!r}")
            edges, answer_step = histogram_edges(self.lo, self.hi, int(bins))
        else:
            edges, answer_step = self._check_edges(bins), None
        reports = self._check_outputs(outputs)
        n = int(reports.size)
        if n == 0:
            bins = len(edges) - 1
            return NumericHistogram(edges, (1.0 / bins,) * bins, 0, 0, answer_step)
        distinct, counts = np.unique(reports, return_counts=True)
        shares, iterations = _fitted_shares(
            self,
            tuple(edges),
            distinct.astype(np.int64).tobytes(),
            counts.astype(np.int64).tobytes(),
        )
        return NumericHistogram(edges, shares, n, iterations, answer_step)

    def _fit_histogram(
        self, edges: tuple[float, ...], distinct: np.ndarray, counts: np.ndarray
    ) -> tuple[tuple[float, ...], int]:
        """The EM of :meth:`histogram` over bars of these edges, from the distinct reports and
        how often each came: the shares, and how many steps it took."""
        bins = len(edges) - 1
        grid_edges = (np.asarray(edges) - self.lo) / (self.hi - self.lo) * NUMERIC_GRID_STEPS
        n = int(counts.sum())
        shares = np.full(bins, 1.0 / bins)
        grid = np.arange(NUMERIC_GRID_STEPS + 1, dtype=np.int64)
        if distinct.size <= _EM_MAX_GROUPS:
            law = self._probabilities(grid, distinct)
        else:
            groups = np.array_split(np.arange(distinct.size), _EM_MAX_GROUPS)
            starts = distinct[[group[0] for group in groups]]
            ends = np.append(starts[1:] - 1, distinct[-1])
            law = self._interval_probabilities(grid, starts, ends)
            counts = np.array([counts[group].sum() for group in groups])
        channel = _rounding_channel(grid_edges) @ law
        weights = counts / n
        iterations, moved = 0, math.inf
        while moved >= _EM_TOLERANCE and iterations < _EM_MAX_ITERATIONS:
            likelihood = shares @ channel
            updated = shares * (channel @ (weights / likelihood))
            updated /= updated.sum()  # only rounding moves it off the simplex
            moved = float(np.max(np.abs(updated - shares)))
            shares = updated
            iterations += 1
        return tuple(shares.tolist()), iterations


@lru_cache(maxsize=_EM_FITS_KEPT)
def _fitted_shares(
    mechanism: NumericMechanism,
    edges: tuple[float, ...],
    distinct: bytes,
    counts: bytes,
) -> tuple[tuple[float, ...], int]:
    """:meth:`NumericMechanism._fit_histogram`, kept for the same mechanism (a frozen
    dataclass: equal when its parameters are), bars and counts of reports (int64 bytes)."""
    return mechanism._fit_histogram(
        edges, np.frombuffer(distinct, dtype=np.int64), np.frombuffer(counts, dtype=np.int64)
    )
