"""Two questions randomized together: a cross-tabulation the class can trust.

The mechanism
-------------
A paired question asks Q1 (k1 options, value a) and Q2 (k2 options, value b) and randomizes
the pair as **one** answer: k-option randomized response over the ``k = k1 k2`` cells at the
survey's flip probability, with the browser's integer thresholds, exactly as a choice question
of k options (:class:`~survey_app.privacy.mechanisms.RandomizedResponse`, whose probabilities
``P`` and ``Q`` these are). The report is the cell's index ``a k2 + b``. The pair costs the
survey's epsilon once, not twice.

Cells
-----
Each cell is an option of that k-option question, so its estimate ``(c / n - Q) / (P - Q)`` is
unbiased and its exact, simultaneous (all k cells at once) and live ranges are the choice
question's, guaranteed as they are (:mod:`~survey_app.privacy.exact`).

Margins: each question's own shares
-----------------------------------
A respondent whose true cell is ``(a, b)`` reports a cell of row ``a`` when the mechanism
keeps the cell (probability ``P``) or reports one of the ``k2 - 1`` other cells of the row
(``Q`` each); a given other row ``a'`` when it reports one of that row's ``k2`` cells (``Q``
each). Whatever ``b`` is, the reported row is therefore k1-option randomized response with

    P1 = P + (k2 - 1) Q,    Q1 = k2 Q,    P1 + (k1 - 1) Q1 = P + (k - 1) Q = 1,

and likewise the reported column with ``P2 = P + (k1 - 1) Q`` and ``Q2 = k1 Q``. So a margin's
count has the law of a choice question's count at ``(P1, Q1)``, and its estimate and exact,
simultaneous and live ranges are the choice question's at those probabilities: guaranteed too.
(``P1 - Q1 = P - Q``: a margin is no noisier than a cell.)

Association: are the two answers unrelated?
-------------------------------------------
"Unrelated" is the hypothesis that the class's true table is the product of its margins. A
plain test of independence on the *reports* is wrong: the reports' probabilities
``Q + (P - Q) alpha_a beta_b`` are not a product even when the answers are unrelated, so such a
test rejects far too often when the margins are lopsided. The statistic here is Pearson's, of the
reports against what unrelated answers with the estimated margins would send,

    T = sum_ab (c_ab - n lambda_ab)^2 / (n lambda_ab),
    lambda_ab = Q + (P - Q) alpha_a beta_b,

the margins ``alpha``, ``beta`` debiased from the reports (clipped to 0 and rescaled to sum to
1). Its law under "unrelated" depends a little on the true margins, which are unknown: the
p-value is a **parametric bootstrap** under the null at the estimated margins
(:data:`BOOTSTRAP_REPLICATES` classes of n reports drawn from ``lambda``, each with its own
margins estimated, as the class's were). Its level is **approximate**, not guaranteed: measured
between 3.0% and 5.8% at 5% (2,000 classes a setting, standard error 0.5 points) for 60 to
200 answers, epsilon ln 3 and 2, margins from 0.5 and 0.5 to as lopsided as 0.1 and 0.9, where
a plain test of the reports rejects 23% to 76% (docs/joint-association.md). Its power at 100
answers, epsilon 2, phi = 0.3, was 0.44. Berger and Boos's p-value (see References) would make
the level guaranteed, at a cost per look too high for a results page. The bootstrap's random
draws are seeded from the counts, so the same counts always give the same p-value; each draws
a multinomial of 12 cells at most, so it costs a few ms at any n.

The difference (a 2x2 table)
----------------------------
``d = P(Q2 yes | Q1 yes) - P(Q2 yes | Q1 no)`` of the class's own answers. Its range is
**guaranteed**: the four cells' simultaneous ranges hold the class's true table, all at once,
with probability at least the confidence; the range is the smallest and largest ``d`` of every
table of n people inside them, so it holds ``d`` at least as often. "Yes" is the option of value
1 (a yes/no question's counts are ``[no, yes]``); the difference of a class with no one in a
row does not exist, and a range whose bounds leave a row empty is None. It is wide: at 100
answers, 1.0 to 1.3 (of the 2 from -100 to +100 points) at epsilon 2, 1.5 to 1.7 at ln 3.

Counts no randomized answers would give (every report in one cell, say) get a tiny p-value
too: the reports stray far from any unrelated answers. ``consistent_with_randomization`` is
then False, as for a choice question, and pages say so.

References
----------
R. L. Berger and D. D. Boos, "P values maximised over a confidence set for the nuisance
parameter", JASA 89 (1994). P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
differential privacy", NeurIPS 2014 (k-RR).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar, Literal

import numpy as np

# scipy.special alone: scipy.stats would add some 45 MB to every worker.
from scipy import special

from survey_app.privacy.estimates import Estimate, check_counts
from survey_app.privacy.interface import Counts, Look, Row, Shares
from survey_app.privacy.mechanisms import RandomizedResponse, option_estimates
from survey_app.privacy.parameters import MAX_OPTIONS, check_confidence, check_option_count

__all__ = [
    "BOOTSTRAP_REPLICATES",
    "PLANNED_PHI",
    "PLANNED_POWER",
    "Association",
    "JointRandomizedResponse",
    "JointShares",
    "association_power",
    "difference_range",
    "independence_p_value",
    "related_table",
    "respondents_for_association",
]

#: How many classes the bootstrap draws under "unrelated": the p-value is a multiple of 1/2000,
#: its Monte Carlo error at 5% is 0.5 points, and the draws cost a few ms at any n.
BOOTSTRAP_REPLICATES = 1999

BOOTSTRAP_METHOD = (
    "Parametric bootstrap under no association: {replicates} classes of {n} randomized answers "
    "drawn from the two questions' estimated shares, answered independently, and randomized as "
    "the browser does; the p-value is the share of them whose reports stray at least as far "
    "from unrelated answers (Pearson's statistic). Approximate: its level was measured near 5% "
    "(3% to 6%) however lopsided the shares, but is not guaranteed."
)
DIFFERENCE_METHOD = (
    "The smallest and largest difference of every table of {n} people inside the four cells' "
    "simultaneous ranges: guaranteed to hold the class's own difference at least {level:.0%} "
    "of the time."
)


@dataclass(frozen=True)
class Association:
    """What the counts say of how the two answers go together.

    ``p_value``: of "the two answers are unrelated" (None before any answer), by
    :func:`independence_p_value`, an approximate level (``p_value_guaranteed`` False);
    ``method``: how, in words. For a 2x2 table, ``difference`` is ``P(Q2 yes | Q1 yes) -
    P(Q2 yes | Q1 no)`` from the shown table, with its guaranteed range ``difference_low`` ..
    ``difference_high`` (:func:`difference_range`) and ``difference_method`` in words; all None
    for larger tables, and the difference None where a row of the shown table is empty.
    """

    p_value: float | None
    method: str
    p_value_guaranteed: bool = False
    difference: float | None = None
    difference_low: float | None = None
    difference_high: float | None = None
    difference_guaranteed: bool | None = None
    difference_method: str | None = None


@dataclass(frozen=True)
class JointShares:
    """What a paired question's counts tell: its cells (as a choice question of k1 k2 options
    tells its options), each question's own shares, and the association.

    ``cells`` holds one estimate per cell, by report ``a k2 + b``; ``margins`` Q1's then Q2's
    shares. The interface's ``estimates``, ``rows()`` and ``live_sums`` are the cells'.
    """

    shape: tuple[int, int]
    cells: Shares
    margins: tuple[Shares, Shares]
    association: Association

    summary: Literal["joint"] = "joint"

    @property
    def n(self) -> int:
        return self.cells.n

    @property
    def estimates(self) -> tuple[Estimate, ...]:
        return self.cells.estimates

    @property
    def consistent_with_randomization(self) -> bool:
        return self.cells.consistent_with_randomization

    @property
    def live_sums(self) -> tuple[Look, ...]:
        return self.cells.live_sums

    def rows(self) -> Iterator[Row]:
        """One row per cell, by report (the cell's answers are ``divmod(value, k2)``)."""
        return self.cells.rows()

    @property
    def table(self) -> tuple[tuple[float | None, ...], ...]:
        """The unbiased estimate of each cell's share, row a, column b (not clipped: noise can
        push one below 0); None in every cell before any answer."""
        k2 = self.shape[1]
        values = [e.estimate for e in self.cells.estimates]
        return tuple(tuple(values[a * k2 : (a + 1) * k2]) for a in range(self.shape[0]))

    @property
    def shown_table(self) -> tuple[tuple[float | None, ...], ...]:
        """Each cell's figure for people, inside 0-100% and inside its own exact range (the
        estimate's :meth:`~survey_app.privacy.estimates.Estimate.headline`, as a choice
        question's options are shown); the cells may not add up to exactly 100%."""
        k2 = self.shape[1]
        values = [e.headline(e.exact_low, e.exact_high) for e in self.cells.estimates]
        return tuple(tuple(values[a * k2 : (a + 1) * k2]) for a in range(self.shape[0]))

    @property
    def row_shares(self) -> tuple[tuple[float, ...] | None, ...]:
        """Each row of :attr:`shown_table` as shares of the row (a cross-tab's "% of row"):
        among those who gave Q1's answer a, the share who gave each answer of Q2; None for a
        row whose shown cells are all 0 (or before any answer)."""
        shares = []
        for row in self.shown_table:
            total = sum(value or 0.0 for value in row)
            shares.append(tuple(value / total for value in row) if total > 0.0 else None)
        return tuple(shares)


@dataclass(frozen=True)
class JointRandomizedResponse:
    """Two questions' answers randomized together as one, at flip probability p.

    Parameters
    ----------
    flip_probability : float
        The survey's p, in (0, 0.5) (as :class:`RandomizedResponse`'s).
    shape : tuple of int
        ``(k1, k2)``, each question's number of options, each at least 2, ``k1 k2 <= 12``.
    """

    flip_probability: float
    shape: tuple[int, int]

    #: The name the interface gives it (:class:`~survey_app.privacy.interface.Mechanism`).
    name: ClassVar[str] = "joint_randomized_response"

    def __post_init__(self) -> None:
        if not isinstance(self.shape, Sequence) or len(self.shape) != 2:
            raise ValueError(f"shape must be (k1, k2), got {self.shape!r}")
        k1, k2 = (check_option_count(k) for k in self.shape)
        if k1 * k2 > MAX_OPTIONS:
            raise ValueError(f"shape must have at most {MAX_OPTIONS} cells, got {k1} x {k2}")
        object.__setattr__(self, "shape", (k1, k2))
        _ = self.cells  # checks the flip probability, as a choice question of k1 k2 options

    # ---------------------------------------------------------------- the mechanism

    @cached_property
    def cells(self) -> RandomizedResponse:
        """The k1 k2-option randomized response the browser runs over the cells."""
        return RandomizedResponse(self.flip_probability, self.shape[0] * self.shape[1])

    @property
    def probabilities(self) -> tuple[float, float]:
        """``(P, Q)``: the probabilities of reporting the true cell and one given other."""
        return self.cells.probabilities

    def margin_probabilities(self, question: int) -> tuple[float, float]:
        """``(P1, Q1)`` of Q1's reported answer (``question`` 0) or ``(P2, Q2)`` of Q2's (1):
        ``P + (k' - 1) Q`` and ``k' Q``, k' the other question's options (module docstring)."""
        keep, other = self.probabilities
        others = self.shape[1 - question]
        return keep + (others - 1) * other, others * other

    @property
    def epsilon(self) -> float:
        """The stated epsilon, once for the pair."""
        return self.cells.epsilon

    @property
    def browser_epsilon(self) -> float:
        return self.cells.browser_epsilon

    @property
    def report_range(self) -> tuple[int, int]:
        """The cells' indices, ``0 .. k1 k2 - 1``."""
        return self.cells.report_range

    def report_value(self, report: int) -> float:
        """What one report names: its cell's index ``a k2 + b``."""
        return report

    def cell_answers(self, report: int) -> tuple[int, int]:
        """The answers ``(a, b)`` of the cell a report names."""
        return divmod(report, self.shape[1])

    # ---------------------------------------------------------------- estimates

    def tell(
        self, noisy_counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> JointShares:
        """What the counts of cells tell: every cell (as a choice question's options, with the
        same ``carried``), each question's own shares, and the association."""
        if isinstance(noisy_counts, Mapping):
            unknown = set(noisy_counts) - set(range(self.cells.options))
            if unknown:
                raise ValueError(f"noisy_counts has no cell {sorted(unknown)[0]!r}")
            noisy_counts = [noisy_counts.get(value, 0) for value in range(self.cells.options)]
        counts = check_counts(noisy_counts)
        if len(counts) != self.cells.options:
            raise ValueError(f"noisy_counts must have {self.cells.options} entries")
        level = check_confidence(confidence)
        cells = self.cells.tell(counts, level, carried)
        table = np.asarray(counts, dtype=np.int64).reshape(self.shape)
        margins = (
            self._margin(table.sum(axis=1), 0, level),
            self._margin(table.sum(axis=0), 1, level),
        )
        return JointShares(self.shape, cells, margins, self._association(table, cells, level))

    def live_sums(
        self, noisy_counts: Counts, confidence: float = 0.95, carried: Sequence[Look] = ()
    ) -> tuple[Look, ...]:
        """The cells' live sums alone (the interface's: what a release keeps)."""
        return self.cells.live_sums(noisy_counts, confidence, carried)

    def _margin(self, counts: np.ndarray, question: int, level: float) -> Shares:
        keep, other = self.margin_probabilities(question)
        estimates = option_estimates(counts.tolist(), keep, other, level, self.browser_epsilon)
        return Shares(tuple(estimates))

    def _association(self, table: np.ndarray, cells: Shares, level: float) -> Association:
        n = int(table.sum())
        keep, other = self.probabilities
        p_value = independence_p_value(tuple(table.ravel().tolist()), self.shape, keep, other)
        method = BOOTSTRAP_METHOD.format(replicates=f"{BOOTSTRAP_REPLICATES:,}", n=f"{n:,}")
        if self.shape != (2, 2) or n == 0:
            return Association(p_value, method)
        estimates = cells.estimates
        low = np.array([round(e.simultaneous_low * n) for e in estimates]).reshape(2, 2)
        high = np.array([round(e.simultaneous_high * n) for e in estimates]).reshape(2, 2)
        shown = [e.headline(e.exact_low, e.exact_high) for e in estimates]
        bounds = difference_range(low, high, n)
        difference = _difference(*shown)
        if difference is not None and bounds is not None:
            difference = min(max(difference, bounds[0]), bounds[1])
        return Association(
            p_value,
            method,
            difference=difference,
            difference_low=None if bounds is None else bounds[0],
            difference_high=None if bounds is None else bounds[1],
            difference_guaranteed=True,
            difference_method=DIFFERENCE_METHOD.format(n=f"{n:,}", level=level),
        )

    # ---------------------------------------------------------------- planning

    def half_width(self, n: int, confidence: float = 0.95) -> float:
        """The planned half-width of a cell's range (the choice question's of k1 k2 options)."""
        return self.cells.half_width(n, confidence)

    def respondents_for(self, margin: float, confidence: float = 0.95) -> int:
        """The fewest answers whose planned cell half-width is at most ``margin``."""
        return self.cells.respondents_for(margin, confidence)


def _difference(no_no: float, no_yes: float, yes_no: float, yes_yes: float) -> float | None:
    """``P(yes | yes) - P(yes | no)`` of a 2x2 table of shares (row Q1, column Q2, 0 = no);
    None where a row is empty."""
    yes, no = yes_no + yes_yes, no_no + no_yes
    if yes <= 0.0 or no <= 0.0:
        return None
    return yes_yes / yes - no_yes / no


def difference_range(low: np.ndarray, high: np.ndarray, n: int) -> tuple[float, float] | None:
    """The smallest and largest ``t11 / r1 - t01 / r0`` over the 2x2 tables of n people ``t``
    (row a = Q1's answer, column b = Q2's, 0 = no; ``r_a`` a row's total) with ``low <= t <=
    high`` cell by cell and both rows non-empty: the guaranteed range of the difference when
    ``low`` .. ``high`` (integer arrays, in people) hold the true table. None when no such
    table exists (the bounds leave a row empty, or cannot add up to n).

    For a row total ``r1``, the first term is largest with ``t11 = min(H11, r1 - L10)`` and
    smallest with ``max(L11, r1 - H10)``, each allowed exactly when ``r1`` lies between the
    row's bounds' sums; the second term likewise with ``r0 = n - r1``. Every allowed ``r1`` is
    tried at once (a few thousand at most: the bounds' widths).
    """
    low = np.asarray(low, dtype=np.int64)
    high = np.asarray(high, dtype=np.int64)
    first = max(int(low[1].sum()), n - int(high[0].sum()), 1)
    last = min(int(high[1].sum()), n - int(low[0].sum()), n - 1)
    if first > last:
        return None
    yes = np.arange(first, last + 1)
    no = n - yes
    most_yes = np.minimum(high[1, 1], yes - low[1, 0]) / yes
    least_yes = np.maximum(low[1, 1], yes - high[1, 0]) / yes
    most_no = np.minimum(high[0, 1], no - low[0, 0]) / no
    least_no = np.maximum(low[0, 1], no - high[0, 0]) / no
    return float((least_yes - most_no).min()), float((most_yes - least_no).max())


def _seed(counts: tuple[int, ...], shape: tuple[int, int]) -> int:
    """A seed from the counts alone: the same counts always draw the same bootstrap."""
    text = f"joint-association {shape} {counts}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little")


def _null_margins(tables: np.ndarray, keep: float, other: float) -> tuple[np.ndarray, ...]:
    """The debiased margins of each table (``tables[..., a, b]``), clipped to 0 and rescaled to
    sum to 1 (a margin's reports always leave a positive share, see the module docstring)."""
    n = tables.sum(axis=(-2, -1))[..., None]
    k1, k2 = tables.shape[-2:]
    rows = (tables.sum(axis=-1) / n - k2 * other) / (keep - other)
    columns = (tables.sum(axis=-2) / n - k1 * other) / (keep - other)
    rows = np.clip(rows, 0.0, None)
    columns = np.clip(columns, 0.0, None)
    return rows / rows.sum(axis=-1, keepdims=True), columns / columns.sum(axis=-1, keepdims=True)


def _pearson(tables: np.ndarray, keep: float, other: float) -> np.ndarray:
    """Pearson's statistic of each table of reports against unrelated answers with its own
    estimated margins (module docstring)."""
    n = tables.sum(axis=(-2, -1))[..., None, None]
    rows, columns = _null_margins(tables, keep, other)
    expected = n * (other + (keep - other) * rows[..., :, None] * columns[..., None, :])
    return (((tables - expected) ** 2) / expected).sum(axis=(-2, -1))


@lru_cache(maxsize=4096)
def independence_p_value(
    counts: tuple[int, ...],
    shape: tuple[int, int],
    keep: float,
    other: float,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> float | None:
    """The p-value of "the two answers are unrelated" from the counts of cells (by report),
    by a parametric bootstrap under the null at the estimated margins (module docstring):
    approximate. Seeded from the counts; None before any answer."""
    table = np.asarray(counts, dtype=np.int64).reshape(shape)
    n = int(table.sum())
    if n == 0:
        return None
    observed = float(_pearson(table.astype(np.float64), keep, other))
    rows, columns = _null_margins(table.astype(np.float64), keep, other)
    null = other + (keep - other) * np.outer(rows, columns).ravel()
    rng = np.random.default_rng(_seed(counts, shape))
    drawn = rng.multinomial(n, null / null.sum(), size=replicates).reshape(-1, *shape)
    statistics = _pearson(drawn.astype(np.float64), keep, other)
    # Ties count as at least as far (a relative tolerance for rounding): never too small.
    beyond = int(np.count_nonzero(statistics >= observed * (1.0 - 1e-9)))
    return (1 + beyond) / (1 + replicates)


# --------------------------------------------------------------------------- planning a pair

#: The relation a pair is planned to show: phi = sqrt(chi^2 / n) of the class's true table (for
#: two yes/no questions the phi coefficient; Cohen's "medium" effect w for any table).
PLANNED_PHI = 0.3
#: How often a class should see it (the test of no association at PLANNED_LEVEL rejects).
PLANNED_POWER = 0.8
PLANNED_LEVEL = 0.05


def related_table(shape: tuple[int, int], phi: float = PLANNED_PHI) -> np.ndarray:
    """A true table of people's answers (shares, row a = Q1's answer, column b = Q2's) whose
    options are all equally common and whose relation is ``phi``: the first two options of each
    question go together ``delta = phi / (2 sqrt(k1 k2))`` more often and apart as much less
    (for a 2x2 at phi 0.3: 32.5%, 17.5%, 17.5%, 32.5%). ValueError if no such table exists."""
    k1, k2 = shape
    delta = phi / (2.0 * np.sqrt(k1 * k2))
    if not 0.0 <= delta <= 1.0 / (k1 * k2):
        raise ValueError(f"no {k1} x {k2} table of equally common options has phi = {phi}")
    table = np.full((k1, k2), 1.0 / (k1 * k2))
    table[:2, :2] += delta * np.array([[1.0, -1.0], [-1.0, 1.0]])
    return table


def _noncentrality_per_answer(keep: float, other: float, table: np.ndarray) -> float:
    """``sum (lambda - lambda0)^2 / lambda0`` of one report: ``lambda = Q + (P - Q) pi`` the
    report's probabilities from the true table ``pi``, ``lambda0 = Q + (P - Q) alpha beta``
    those of unrelated answers with the same margins ``alpha``, ``beta``."""
    reports = other + (keep - other) * table
    unrelated = other + (keep - other) * np.outer(table.sum(axis=1), table.sum(axis=0))
    return float(((reports - unrelated) ** 2 / unrelated).sum())


def _planned_test(
    flip_probability: float, shape: tuple[int, int], phi: float, level: float
) -> tuple[int, float, float]:
    """The test's degrees of freedom, critical value and noncentrality per answer."""
    keep, other = JointRandomizedResponse(flip_probability, shape).probabilities
    freedom = (shape[0] - 1) * (shape[1] - 1)
    critical = float(special.chdtri(freedom, level))
    return freedom, critical, _noncentrality_per_answer(keep, other, related_table(shape, phi))


def association_power(
    flip_probability: float,
    shape: tuple[int, int],
    n: int,
    phi: float = PLANNED_PHI,
    level: float = PLANNED_LEVEL,
) -> float:
    """How often ``n`` answers to a pair of ``shape`` show a relation of strength ``phi``
    (:func:`related_table`: options equally common): the chance that Pearson's test of no
    association on the reports rejects at ``level``. APPROXIMATE, by the noncentral chi-square
    law of Pearson's statistic: (k1 - 1)(k2 - 1) degrees of freedom and noncentrality
    ``n sum (lambda - lambda0)^2 / lambda0`` (lambda: the reports' probabilities from the true
    table, lambda0: from unrelated answers with its margins).

    With equally common options ``lambda0`` is ``1 / (k1 k2)`` in every cell, so the
    noncentrality is ``n (P - Q)^2 phi^2`` whatever the pattern of the relation: the figure
    depends on phi, the shape and p alone. How close it is to the app's own test (the bootstrap
    of :func:`independence_p_value`, its margins estimated): at epsilon 2, a 2x2 of margins
    0.5 / 0.5 and phi 0.3 it gives 0.298, 0.454, 0.742 and 0.892 at n = 60, 100, 200 and 300,
    where docs/joint-association.md measured 0.296, 0.441, 0.737 and 0.891 (2,000 classes
    each, standard error at most 0.011): within 0.013. Lopsided margins were not measured.
    """
    freedom, critical, per_answer = _planned_test(flip_probability, shape, phi, level)
    return float(1.0 - special.chndtr(critical, freedom, n * per_answer))


def respondents_for_association(
    flip_probability: float,
    shape: tuple[int, int],
    power: float = PLANNED_POWER,
    phi: float = PLANNED_PHI,
    level: float = PLANNED_LEVEL,
) -> int:
    """The fewest answers whose :func:`association_power` is at least ``power`` (approximate,
    as it is): at epsilon 2, a 2x2 at phi 0.3 and 80%, 231."""
    freedom, critical, per_answer = _planned_test(flip_probability, shape, phi, level)
    needed = float(special.chndtrinc(critical, freedom, 1.0 - power))
    n = max(1, int(np.ceil(needed / per_answer)))
    # chndtrinc is solved numerically: step to the exact fewest.
    while 1.0 - special.chndtr(critical, freedom, n * per_answer) < power:
        n += 1
    while n > 1 and 1.0 - special.chndtr(critical, freedom, (n - 1) * per_answer) >= power:
        n -= 1
    return n
