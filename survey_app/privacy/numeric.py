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
- :class:`~survey_app.privacy.one_bit.OneBitNumeric` (``"one_bit"``): Duchi et al.'s one-bit
  mechanism, whose binomial tails give the narrowest range of the three at a class's size.

:func:`numeric_mechanism` picks the one whose guaranteed range is narrowest at an epsilon and a
planned class size unless a survey names one, and :func:`mechanism_choice_reason` says why.
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
from survey_app.privacy.one_bit import OneBitNumeric
from survey_app.privacy.one_bit import __all__ as _one_bit

__all__ = [
    *_grid,
    *_base,
    *_laplace,
    *_hybrid,
    *_one_bit,
    "MECHANISM_NAMES",
    "NUMERIC_MECHANISMS",
    "PLANNED_RESPONDENTS",
    "REASON_PLANNING_RESPONDENTS",
    "mechanism_choice_reason",
    "numeric_mechanism",
    "numeric_respondents_for",
    "range_width_ratio",
]

#: The numeric mechanisms by the name a survey definition and the browser use.
NUMERIC_MECHANISMS: dict[str, type[NumericMechanism]] = {
    "laplace": GridLaplace,
    "hybrid": HybridNumeric,
    "one_bit": OneBitNumeric,
}


#: The class size a numeric question's mechanism is chosen for when none is planned: the
#: builder's default.
PLANNED_RESPONDENTS = 40


@lru_cache(maxsize=256)
def numeric_mechanism(
    lo: float,
    hi: float,
    epsilon: float,
    name: str | None = None,
    respondents: int = PLANNED_RESPONDENTS,
) -> NumericMechanism:
    """The mechanism of a numeric question on [lo, hi] at epsilon.

    ``name`` (a key of :data:`NUMERIC_MECHANISMS`) picks one; without it, the one whose
    guaranteed range (:meth:`~NumericMechanism.half_width`, the narrowest bound each proves) is
    narrowest with ``respondents`` answers, the class size planned. Cached: a mechanism is
    immutable, and choosing costs a few milliseconds.
    """
    if name is not None:
        if name not in NUMERIC_MECHANISMS:
            known = ", ".join(repr(each) for each in NUMERIC_MECHANISMS)
            raise ValueError(f"mechanism must be one of {known}, got {name!r}")
        return NUMERIC_MECHANISMS[name](lo, hi, epsilon)
    # Each candidate from the cache too: its costly figures (a tail bound's worst moments) are
    # then worked out once a process, not once a choice.
    candidates = [numeric_mechanism(lo, hi, epsilon, each) for each in NUMERIC_MECHANISMS]
    return min(candidates, key=lambda mechanism: mechanism.half_width(respondents))


def numeric_respondents_for(
    lo: float,
    hi: float,
    epsilon: float,
    margin: float,
    name: str | None = None,
    confidence: float = 0.95,
) -> int:
    """The fewest answers whose guaranteed half-width is at most ``margin`` (in the question's
    units), each class size with the mechanism a survey planned for it gets.

    ``name`` picks the mechanism. Without it a class of n gets :func:`numeric_mechanism`'s
    choice for n, the one whose range is narrowest with n answers, so that class reaches
    ``margin`` as soon as any mechanism does with n answers: the fewest answers is the smallest
    of the mechanisms' own (never the figure of the mechanism chosen for some other size).
    """
    if name is not None:
        return numeric_mechanism(lo, hi, epsilon, name).respondents_for(margin, confidence)
    return min(
        numeric_mechanism(lo, hi, epsilon, each).respondents_for(margin, confidence)
        for each in NUMERIC_MECHANISMS
    )


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


#: How the reasons name each mechanism.
MECHANISM_NAMES = {"laplace": "Laplace", "hybrid": "the hybrid", "one_bit": "the one-bit mechanism"}


def mechanism_choice_reason(
    mechanism: NumericMechanism,
    named: bool,
    respondents: int | None = None,
    confidence: float = 0.95,
    planned: int = PLANNED_RESPONDENTS,
    earlier: bool = False,
) -> str:
    """Why a numeric question uses ``mechanism``, in plain words for a professor.

    ``earlier``: it was chosen when the survey opened by the rule of the time (the smaller
    worst-case noise), which the browsers' answers keep.

    ``named``: the survey's definition asked for it by name. Otherwise it was chosen because
    its guaranteed range was the narrowest for the ``planned`` class size. Either way the words
    compare its range with the narrowest of the other mechanisms' with ``respondents`` answers
    (:func:`range_width_ratio`), or with :data:`REASON_PLANNING_RESPONDENTS` when there are
    none (or ``None``) yet; when the chosen one's range is the wider, they say so.
    """
    if respondents:
        n, answers = respondents, f"with these {respondents:,} answers"
    else:
        n, answers = REASON_PLANNING_RESPONDENTS, f"with {REASON_PLANNING_RESPONDENTS} answers"
    others = [
        numeric_mechanism(mechanism.lo, mechanism.hi, mechanism.epsilon, name)
        for name in NUMERIC_MECHANISMS
        if name != mechanism.name
    ]
    best = min(others, key=lambda other: other.half_width(n, confidence))
    ratio = range_width_ratio(mechanism, best, n, confidence)
    beside = f"{ratio:.0%} as wide as {MECHANISM_NAMES[best.name]}’s would be"
    if named:
        return (
            f"The survey’s definition asks for this mechanism. At this privacy level and "
            f"{answers}, its range is {beside}."
        )
    if earlier:
        return (
            "Chosen when the survey opened, by the rule of the time (the smaller worst-case "
            f"noise); its answers keep it. At this privacy level and {answers}, its range is "
            f"{beside}."
        )
    chosen = (
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        f"class of {planned:,} planned"
    )
    if ratio <= 1.0:
        return f"{chosen}: {answers}, its range is {beside}, for the same privacy."
    return f"{chosen}. {answers[0].upper()}{answers[1:]}, though, its range is {beside}."
