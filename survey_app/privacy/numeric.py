"""Numeric questions: a bounded number randomized in the browser, and its debiased mean.

The browser clips the respondent's value to the question's [lo, hi], puts it on a grid of
``G + 1`` points by randomized rounding (:mod:`~survey_app.privacy.numeric_grid`) and randomizes
the grid index with one of two mechanisms, each knowing its exact output law, an unbiased
estimate of the mean with Chebyshev and Bernstein intervals, planning figures and a debiased
histogram (:mod:`~survey_app.privacy.numeric_base`):

- :class:`~survey_app.privacy.laplace.GridLaplace` (``"laplace"``): the Laplace mechanism of the
  lecture notes in its exact discrete form;
- :class:`~survey_app.privacy.hybrid.HybridNumeric` (``"hybrid"``): Wang et al.'s hybrid of the
  piecewise and Duchi et al.'s mechanisms, bounded, with about half of Laplace's worst-case
  variance for epsilon in [0.5, 3].

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

__all__ = [
    *_grid,
    *_base,
    *_laplace,
    *_hybrid,
    "NUMERIC_MECHANISMS",
    "mechanism_choice_reason",
    "numeric_mechanism",
]

#: The numeric mechanisms by the name a survey definition and the browser use.
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


def mechanism_choice_reason(mechanism: NumericMechanism, named: bool) -> str:
    """Why a numeric question uses ``mechanism``, in plain words for a professor.

    ``named``: the survey's definition asked for it by name. Otherwise it was chosen for the
    smaller worst-case noise, and the words say by how much.
    """
    other_type = HybridNumeric if isinstance(mechanism, GridLaplace) else GridLaplace
    other = numeric_mechanism(mechanism.lo, mechanism.hi, mechanism.epsilon, other_type.name)
    ratio = mechanism.worst_case_variance / other.worst_case_variance
    spread = ratio**0.5
    if named:
        return (
            f"The survey’s definition asks for this mechanism. At this privacy level its noise "
            f"makes ranges {spread:.0%} as wide as the other mechanism’s would be."
        )
    return (
        f"Chosen because it adds less noise at this privacy level: its ranges are "
        f"{spread:.0%} as wide as the other mechanism’s would be, for the same privacy."
    )
