"""The lesson's step on two questions asked together: what randomizing the pair as one answer
kept of how the two answers go together, against what asking the two questions separately, at
the same total epsilon, would have kept.

What "kept" means. Take the true table pi of the class's pairs of answers (k1 x k2 cells,
k = k1 k2) with each question's answers split evenly (every row and column share 1 / k1 and
1 / k2), and D = pi - a b^T its departure from "unrelated" (a, b its margins). The association
is the size of D against the margins: Pearson's phi for a 2x2 (``phi^2 = sum D^2 / (a b)``).

- **Together**: k-option randomized response over the cells at epsilon reports a cell with
  probability ``r = Q + (P - Q) pi`` (``P = e^eps / (e^eps + k - 1)``, ``Q = 1 / (e^eps + k -
  1)``). Its margins stay even (``Q k2 + (P - Q) / k1 = 1 / k1``, as ``P + (k - 1) Q = 1``)
  and ``r - (its margins' product) = (P - Q) [D + Q k (a - 1/k1)(b - 1/k2)^T]``: with even
  margins the reports show ``(P - Q) D``, so their phi is ``(P - Q) phi``: they keep
  ``P - Q`` of it (the cell estimates divide it back out). With uneven margins the second
  term is an association the reports show that the class does not have: why a plain test on
  the reports is wrong (survey_app.privacy.joint tests with a bootstrap instead).
- **Separately**: each question at half the budget, epsilon / 2 (the survey's total the same),
  question i keeping its answer with ``P_i'`` and sending each other one with ``Q_i'``. The
  reports' table is ``M1 pi M2^T`` with ``M_i = Q_i' J + (P_i' - Q_i') I``; as D's rows and
  columns add up to 0, its part of it is ``(P1' - Q1') (P2' - Q2') D``, the margins stay even,
  and the reports keep ``(P1' - Q1') (P2' - Q2')``. For a yes/no question ``P' - Q' = 1 - 2p'``
  with ``p' = 1 / (1 + e^(eps / 2))``, which is ``tanh(eps / 4)``: a 2x2 keeps
  ``tanh(eps / 4)^2``. (With uneven margins the reports' own spread grows, and they keep less.)

At a total epsilon of 2 a 2x2 keeps 62% together (P - Q = 0.615) and 21% separately (0.214):
the figures of an independent simulation of the two ways.

How many students that takes: a chi-square test of "unrelated" on n answers sees the reports'
phi (``phi^2 = chi^2 / n``), kept x phi, with noncentrality ``lambda = n (kept phi)^2`` and
``(k1 - 1)(k2 - 1)`` degrees of freedom (the usual large-sample approximation), so a relation
phi is seen with power ``1 - beta`` at level alpha from ``n = lambda / (kept phi)^2`` answers,
lambda the noncentrality at which the test has that power (``(z_(1 - alpha / 2) + z_(1 -
beta))^2 = 7.85`` for a 2x2): the students needed grow as ``1 / kept^2``, and separate
questions need ``(kept together / kept separately)^2`` times as many. At epsilon 2, phi = 0.3,
80% at 5%: about 231 together and 1,913 separately (the simulation: about 230 and 1,900), 8.3
times as many. An approximation for answers split about evenly, as said where it is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import special

from survey_app.privacy.lesson_written import agreeing_places
from survey_app.privacy.parameters import (
    check_flip_probability,
    epsilon_from_flip_probability,
    keep_probabilities,
)

__all__ = [
    "MODERATE_RELATION",
    "PLANNED_LEVEL",
    "PLANNED_POWER",
    "Together",
    "TogetherWorking",
    "roughly",
    "students_needed",
    "together",
    "together_working",
]

#: A moderate relation between two answers: Pearson's phi (the issue's and the planner's).
MODERATE_RELATION = 0.3
#: How often a class should see it ("8 times in 10"), and the test's level.
PLANNED_POWER = 0.8
PLANNED_LEVEL = 0.05


@dataclass(frozen=True)
class Together:
    """What asking two questions together kept of their association, against separately."""

    shape: tuple[int, int]
    #: The survey's epsilon: the pair spends it once.
    epsilon: float
    #: k-option randomized response over the k1 k2 cells: keep P, each other cell Q.
    keep_probability: float
    other_probability: float
    #: Each question's ``P_i' - Q_i'`` at epsilon / 2 (``1 - 2p'`` for a yes/no question).
    separate_gaps: tuple[float, float]

    @property
    def kept(self) -> float:
        """The share of the association the joint reports keep: ``P - Q``."""
        return self.keep_probability - self.other_probability

    @property
    def half_epsilon(self) -> float:
        """Each question's epsilon, asked separately at the same total."""
        return self.epsilon / 2.0

    @property
    def separate_flip_probability(self) -> float:
        """A yes/no question's flip probability at epsilon / 2: ``1 / (1 + e^(eps / 2))``."""
        return 1.0 / (1.0 + math.exp(self.half_epsilon))

    @property
    def separate_kept(self) -> float:
        """The share separate questions keep: ``(P1' - Q1') (P2' - Q2')``."""
        return self.separate_gaps[0] * self.separate_gaps[1]

    @property
    def students_ratio(self) -> float:
        """How many times as many students separate questions need: ``(kept / kept')^2``."""
        return (self.kept / self.separate_kept) ** 2


def together(flip_probability: float, shape: tuple[int, int]) -> Together:
    """The figures of the step for a pair of ``shape`` ``(k1, k2)`` at the survey's p."""
    epsilon = epsilon_from_flip_probability(check_flip_probability(flip_probability))
    k1, k2 = (int(each) for each in shape)
    keep, other = keep_probabilities(epsilon, k1 * k2)
    gaps = []
    for options in (k1, k2):
        each_keep, each_other = keep_probabilities(epsilon / 2.0, options)
        gaps.append(each_keep - each_other)
    return Together((k1, k2), epsilon, keep, other, (gaps[0], gaps[1]))


def students_needed(
    kept: float,
    relation: float = MODERATE_RELATION,
    power: float = PLANNED_POWER,
    level: float = PLANNED_LEVEL,
    shape: tuple[int, int] = (2, 2),
) -> int:
    """The students a chi-square test of "unrelated" needs to see a relation phi = ``relation``
    between the answers of a pair of ``shape`` with ``power`` at ``level``, when the reports
    keep ``kept`` of it: ``lambda / (kept relation)^2``, rounded up, lambda the noncentrality
    at which the test of ``(k1 - 1)(k2 - 1)`` degrees of freedom has that power (the
    large-sample approximation, for answers split about evenly)."""
    if not 0.0 < kept <= 1.0 or not 0.0 < relation <= 1.0:
        raise ValueError("kept and relation must be in (0, 1]")
    if not 0.0 < power < 1.0 or not 0.0 < level < 1.0:
        raise ValueError("power and level must be in (0, 1)")
    freedom = (int(shape[0]) - 1) * (int(shape[1]) - 1)
    # scipy.special, not scipy.stats (some 45 MB more in every worker): the critical value of
    # chi-square at the level, and the noncentrality at which the test has that power.
    critical = special.chdtri(freedom, level)
    noncentrality = special.chndtrinc(critical, freedom, 1.0 - power)
    return math.ceil(noncentrality / (kept * relation) ** 2)


@dataclass(frozen=True)
class TogetherWorking:
    """The step's two formulas written so that they add up: ``P - Q = kept``, P and Q to
    ``places`` decimals, and ``(P1' - Q1') x (P2' - Q2') = kept separately``, each gap to
    ``separate_places``: enough that the reader's arithmetic gives each result to three."""

    keep: float
    other: float
    places: int
    gaps: tuple[float, float]
    separate_places: int


def together_working(figures: Together) -> TogetherWorking:
    """The digits :class:`Together`'s formulas are written with."""
    keep, other = figures.keep_probability, figures.other_probability
    places = agreeing_places(lambda d: round(keep, d) - round(other, d), figures.kept)
    first, second = figures.separate_gaps
    separate = agreeing_places(lambda d: round(first, d) * round(second, d), figures.separate_kept)
    return TogetherWorking(
        round(keep, places),
        round(other, places),
        places,
        (round(first, separate), round(second, separate)),
        separate,
    )


def roughly(count: int) -> int:
    """A number of students to two significant figures, as a plan says it: 231 -> 230,
    1,913 -> 1,900 (a figure of an approximation, not a count)."""
    if count < 100:
        return int(count)
    step = 10 ** (len(str(int(count))) - 2)
    return math.floor(count / step + 0.5) * step  # a half up: 785 -> 790
