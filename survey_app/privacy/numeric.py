"""Numeric questions: a bounded number randomized in the browser, and its debiased mean.

The browser clips the respondent's value to the question's [lo, hi], puts it on a grid of
``G + 1`` points by randomized rounding (:mod:`~survey_app.privacy.numeric_grid`) and randomizes
the grid index with one of two mechanisms, each knowing its exact output law, an unbiased
estimate of the mean with guaranteed intervals (Chebyshev, Bernstein, and the mechanism's own
tail bound from its exact law, the narrowest used), planning figures and a debiased histogram
(:mod:`~survey_app.privacy.numeric_base`):

- :class:`~survey_app.privacy.laplace.GridLaplace` (``"laplace"``): the Laplace mechanism of the
  lecture notes in its exact discrete form;
- :class:`~survey_app.privacy.hybrid.HybridNumeric` (``"hybrid"``): Wang et al.'s hybrid of the
  piecewise and Duchi et al.'s mechanisms, bounded, with about half of Laplace's worst-case
  variance for epsilon in [0.5, 3];
- :class:`~survey_app.privacy.one_bit.OneBitNumeric` (``"one_bit"``, server side only for now):
  Duchi et al.'s one-bit mechanism, whose binomial tails give the narrowest range of the three.

:func:`numeric_mechanism` picks the one of smaller worst-case variance at an epsilon unless a
survey names one, and :func:`mechanism_choice_reason` says why in words.
"""

from __future__ import annotations

from functools import lru_cache

from survey_app.privacy.hybrid import *  # noqa: F403
from survey_app.privacy.hybrid import HybridNumeric
from survey_app.privacy.hybrid import __all__ as _hybrid
from survey_app.privacy.laplace import *  # noqa: F403
from survey_app.privacy.laplace import GridLaplace
from survey_app.privacy.laplace import __all__ as _laplace
from survey_app.privacy.numeric_base import *  # noqa: F403
from survey_app.privacy.numeric_base import NumericMechanism
from survey_app.privacy.numeric_base import __all__ as _base
from survey_app.privacy.numeric_grid import *  # noqa: F403
from survey_app.privacy.numeric_grid import __all__ as _grid
from survey_app.privacy.one_bit import *  # noqa: F403
from survey_app.privacy.one_bit import __all__ as _one_bit

__all__ = [
    *_grid,
    *_base,
    *_laplace,
    *_hybrid,
    *_one_bit,
    "NUMERIC_MECHANISMS",
    "REASON_PLANNING_RESPONDENTS",
    "mechanism_choice_reason",
    "numeric_mechanism",
    "range_width_ratio",
]

#: The numeric mechanisms by the name a survey definition and the browser use (not yet
#: :class:`~survey_app.privacy.one_bit.OneBitNumeric`, which the browser cannot draw yet).
NUMERIC_MECHANISMS: dict[str, type[NumericMechanism]] = {
    "laplace": GridLaplace,
    "hybrid": HybridNumeric,
}


@lru_cache(maxsize=256)
def numeric_mechanism(
    lo: float, hi: float, epsilon: float, name: str | None = None
) -> NumericMechanism:
    """The mechanism of a numeric question on [lo, hi] at epsilon.

    ``name`` ("laplace" or "hybrid") picks one; without it, the one with the smaller
    :attr:`~NumericMechanism.worst_case_variance` at epsilon (the hybrid over the whole allowed
    range, as tests check; the comparison stays so that the rule, not a constant, decides).
    Cached: a mechanism is immutable, and choosing costs a few milliseconds.
    """
    if name is not None:
        if name not in NUMERIC_MECHANISMS:
            raise ValueError(f"mechanism must be 'laplace' or 'hybrid', got {name!r}")
        return NUMERIC_MECHANISMS[name](lo, hi, epsilon)
    laplace = GridLaplace(lo, hi, epsilon)
    hybrid = HybridNumeric(lo, hi, epsilon)
    return hybrid if hybrid.worst_case_variance <= laplace.worst_case_variance else laplace


#: The number of answers :func:`mechanism_choice_reason` compares ranges at before any came:
#: a class of 40, the builder's default class size.
REASON_PLANNING_RESPONDENTS = 40


def range_width_ratio(
    mechanism: NumericMechanism, other: NumericMechanism, n: int, confidence: float = 0.95
) -> float:
    """How wide ``mechanism``'s guaranteed range is with n answers, as a share of ``other``'s.

    The ratio of the :meth:`~NumericMechanism.half_width` the dashboard shows (the smallest of
    Chebyshev's, Bernstein's and the mechanism's tail bound: Laplace's exact noise law, the
    hybrid's Chernoff bound), not the square root of the worst-case variances' ratio: the bounds
    differ in kind, and at eps = ln 3 with 40 answers Laplace's exact range (16.1 of 40) is the
    narrower though the hybrid's worst-case variance is about half of Laplace's.
    """
    return mechanism.half_width(n, confidence) / other.half_width(n, confidence)


def mechanism_choice_reason(
    mechanism: NumericMechanism,
    named: bool,
    respondents: int | None = None,
    confidence: float = 0.95,
) -> str:
    """Why a numeric question uses ``mechanism``, in plain words for a professor.

    ``named``: the survey's definition asked for it by name. Otherwise it was chosen for the
    smaller worst-case noise. Either way the words say how wide its guaranteed range is beside
    the other mechanism's with ``respondents`` answers (:func:`range_width_ratio`), or with
    :data:`REASON_PLANNING_RESPONDENTS` when there are none (or ``None``) yet; when the chosen
    one's range is the wider, they say so and why.
    """
    other_type = HybridNumeric if isinstance(mechanism, GridLaplace) else GridLaplace
    other = numeric_mechanism(mechanism.lo, mechanism.hi, mechanism.epsilon, other_type.name)
    if respondents:
        n, answers = respondents, f"with these {respondents:,} answers"
    else:
        n, answers = REASON_PLANNING_RESPONDENTS, f"with {REASON_PLANNING_RESPONDENTS} answers"
    ratio = range_width_ratio(mechanism, other, n, confidence)
    if named:
        return (
            f"The survey’s definition asks for this mechanism. At this privacy level and "
            f"{answers}, its range is {ratio:.0%} as wide as the other mechanism’s would be."
        )
    if ratio <= 1.0:
        return (
            f"Chosen because it adds less noise at this privacy level: {answers}, its range is "
            f"{ratio:.0%} as wide as the other mechanism’s would be, for the same privacy."
        )
    return (
        f"Chosen because it adds less noise at this privacy level on average. {answers[0].upper()}"
        f"{answers[1:]}, though, its range is {ratio:.0%} as wide as the other mechanism’s "
        f"would be, for the same privacy: the other’s noise has a law known exactly, which "
        f"proves a narrower range."
    )
