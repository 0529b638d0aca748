"""A paired question's math, by exact enumeration: two answers randomized as one.

The law of the reports is built here independently of the mechanism: respondent by respondent,
each true cell's reports spread over the cells with the browser's probabilities (the keep
threshold over 2**32, the rest shared evenly), so every expectation and coverage below is a sum
over the exact law of the counts, respondents fixed. Nothing is random; a tolerance of 1e-9
covers floating-point rounding in those sums.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from scipy import stats

from survey_app import privacy
from survey_app.privacy import JointRandomizedResponse, RandomizedResponse
from survey_app.privacy.joint import difference_range, independence_p_value
from survey_app.privacy.parameters import BROWSER_RANDOM_WORDS, keep_threshold

ROUNDING = 1e-9
LN3_P = 0.25  # epsilon ln 3
EPS2_P = 1.0 / (1.0 + math.exp(2.0))  # epsilon 2


def transition(flip_probability: float, cells: int) -> np.ndarray:
    """``M[i, j]``: the browser's probability of reporting cell j for true cell i, from its
    integer keep threshold (the other cells equally likely)."""
    keep = keep_threshold(flip_probability, cells) / BROWSER_RANDOM_WORDS
    matrix = np.full((cells, cells), (1.0 - keep) / (cells - 1))
    np.fill_diagonal(matrix, keep)
    return matrix


def report_law(flip_probability: float, truth: tuple[int, ...]) -> np.ndarray:
    """``law[c_0, ..., c_k-1]``: the exact probability of each table of reports when
    ``truth[i]`` people truly hold cell i (a dense array, (n + 1)**k entries)."""
    cells, n = len(truth), sum(truth)
    matrix = transition(flip_probability, cells)
    law = np.zeros((n + 1,) * cells)
    law[(0,) * cells] = 1.0
    for cell, holders in enumerate(truth):
        for _ in range(holders):
            grown = np.zeros_like(law)
            for report in range(cells):
                source = [slice(None)] * cells
                target = [slice(None)] * cells
                source[report], target[report] = slice(0, n), slice(1, n + 1)
                grown[tuple(target)] += matrix[cell, report] * law[tuple(source)]
            law = grown
    return law


def outcomes(law: np.ndarray) -> list[tuple[tuple[int, ...], float]]:
    """The tables of reports the law can give, with their probabilities."""
    return [
        (tuple(int(c) for c in index), float(law[index]))
        for index in zip(*np.nonzero(law), strict=True)
    ]


@functools.cache
def told(flip_probability: float, shape: tuple[int, int], counts: tuple[int, ...]):
    return JointRandomizedResponse(flip_probability, shape).tell(list(counts), 0.95)


# --------------------------------------------------------------------------- the mechanism


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (3, 4), (4, 3), (2, 6), (6, 2)])
@pytest.mark.parametrize("flip_probability", [0.1, LN3_P, 0.4])
def test_the_cells_are_a_choice_question_of_k1_k2_options_at_the_browser_thresholds(
    flip_probability, shape
):
    mechanism = JointRandomizedResponse(flip_probability, shape)
    k = shape[0] * shape[1]
    choice = RandomizedResponse(flip_probability, k)
    assert mechanism.probabilities == choice.probabilities
    keep, other = mechanism.probabilities
    assert keep == keep_threshold(flip_probability, k) / 2**32
    assert math.isclose(keep + (k - 1) * other, 1.0, rel_tol=0, abs_tol=1e-15)
    assert mechanism.epsilon == choice.epsilon
    # The browser's odds between two cells never exceed e^epsilon, in exact rationals.
    kept = keep_threshold(flip_probability, k)
    stated = (1 - Fraction(flip_probability)) / Fraction(flip_probability)
    assert Fraction((k - 1) * kept, BROWSER_RANDOM_WORDS - kept) <= stated
    assert mechanism.report_range == (0, k - 1)
    for a, b in itertools.product(range(shape[0]), range(shape[1])):
        assert mechanism.cell_answers(a * shape[1] + b) == (a, b)


@pytest.mark.parametrize("shape", [(2, 2), (3, 4), (4, 3), (2, 5)])
def test_a_margins_reports_are_randomized_response_with_the_derived_probabilities(shape):
    """Summing the cells' transition over a row (column) of reports gives, whatever the true
    cell's other answer, P + (k' - 1) Q for its own row and k' Q for each other row."""
    mechanism = JointRandomizedResponse(LN3_P, shape)
    k1, k2 = shape
    matrix = transition(LN3_P, k1 * k2).reshape(k1, k2, k1, k2)
    rows = matrix.sum(axis=3)  # [a, b, reported a']
    columns = matrix.sum(axis=2)  # [a, b, reported b']
    keep1, other1 = mechanism.margin_probabilities(0)
    keep2, other2 = mechanism.margin_probabilities(1)
    for a, b in itertools.product(range(k1), range(k2)):
        expected_rows = np.where(np.arange(k1) == a, keep1, other1)
        expected_columns = np.where(np.arange(k2) == b, keep2, other2)
        np.testing.assert_allclose(rows[a, b], expected_rows, rtol=0, atol=1e-15)
        np.testing.assert_allclose(columns[a, b], expected_columns, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    ("shape", "message"),
    [((2, 7), "at most 12 cells"), ((1, 4), "k"), ((2,), "shape"), ((3, 5), "at most 12")],
)
def test_a_shape_it_cannot_run_is_refused_in_words(shape, message):
    with pytest.raises(ValueError, match=message):
        JointRandomizedResponse(LN3_P, shape)


def test_it_implements_the_interface_and_refuses_counts_it_cannot_hold():
    mechanism = JointRandomizedResponse(LN3_P, (2, 3))
    assert isinstance(mechanism, privacy.Mechanism)
    counts = [4, 0, 7, 3, 9, 2]
    result = mechanism.tell(counts, 0.9)
    assert result.n == 25 and result.summary == "joint"
    assert [row.value for row in result.rows()] == list(range(6))
    assert mechanism.tell(dict(enumerate(counts)), 0.9) == result
    assert result.live_sums == mechanism.live_sums(counts, 0.9)
    with pytest.raises(ValueError, match="no cell 6"):
        mechanism.tell({6: 1})
    with pytest.raises(ValueError, match="6 entries"):
        mechanism.tell([1, 2, 3])
    assert 0 < mechanism.half_width(400) < mechanism.half_width(100)


def test_before_any_answer_it_tells_nothing_rather_than_a_figure():
    result = JointRandomizedResponse(LN3_P, (2, 2)).tell([0, 0, 0, 0])
    assert result.n == 0 and result.association.p_value is None
    assert result.association.difference is None
    assert all(value is None for row in result.table for value in row)
    assert result.row_shares == (None, None)


# --------------------------------------------------------------------------- estimates


@pytest.mark.parametrize(
    ("shape", "truth"),
    [((2, 2), (3, 0, 1, 2)), ((2, 2), (0, 0, 0, 6)), ((2, 3), (1, 0, 2, 0, 0, 1)), ((3, 4), None)],
)
def test_the_table_and_margins_are_unbiased_by_exact_expectation(shape, truth):
    """E[estimate] over every table of reports equals the true share, cell by cell and for
    each question's own shares (3x4: two people, in cells 5 and 11)."""
    k1, k2 = shape
    if truth is None:
        truth = tuple(1 if cell in (5, 11) else 0 for cell in range(12))
    n = sum(truth)
    expected_table = np.zeros(shape)
    expected_rows, expected_columns = np.zeros(k1), np.zeros(k2)
    for counts, probability in outcomes(report_law(EPS2_P, truth)):
        result = told(EPS2_P, shape, counts)
        expected_table += probability * np.array(result.table)
        expected_rows += probability * np.array([e.estimate for e in result.margins[0].estimates])
        expected_columns += probability * np.array(
            [e.estimate for e in result.margins[1].estimates]
        )
    true_table = np.array(truth).reshape(shape) / n
    np.testing.assert_allclose(expected_table, true_table, rtol=0, atol=ROUNDING)
    np.testing.assert_allclose(expected_rows, true_table.sum(axis=1), rtol=0, atol=ROUNDING)
    np.testing.assert_allclose(expected_columns, true_table.sum(axis=0), rtol=0, atol=ROUNDING)


def test_the_shown_table_stays_inside_0_100_and_inside_each_cells_exact_range():
    mechanism = JointRandomizedResponse(LN3_P, (2, 2))
    for counts in [(20, 0, 0, 0), (0, 1, 0, 19), (5, 5, 5, 5), (12, 1, 0, 7)]:
        result = mechanism.tell(list(counts))
        shown = [value for row in result.shown_table for value in row]
        for value, e in zip(shown, result.estimates, strict=True):
            assert 0.0 <= value <= 1.0 and e.exact_low <= value <= e.exact_high
        for row in result.row_shares:
            assert row is None or math.isclose(sum(row), 1.0)
    # Noise pushing a cell's unbiased estimate below 0 is shown as 0.
    result = mechanism.tell([20, 0, 0, 0])
    assert min(min(row) for row in result.table) < 0.0 <= min(min(r) for r in result.shown_table)


# --------------------------------------------------------------------------- coverage, n = 20

#: Classes of 20 at epsilon ln 3 (1,771 tables of reports) and, to keep the suite's time down,
#: of 12 at epsilon 2 (455): each table of reports costs one ``tell`` of a few ms.
CASES = [(LN3_P, 20), (EPS2_P, 12)]


def truths(n: int) -> list[tuple[int, ...]]:
    """True tables of n people, among them each cell's and each margin's worst case.

    Each cell's (and each margin's) range depends on its own count alone, whose law depends on
    its own true count alone: the tables (t, 0, 0, n - t) and (0, t, n - t, 0), t = 0..n,
    give every cell and every margin every true count, so they hold the worst case of each. A
    few tables with every cell held are added for the ranges that look at all cells at once.
    """
    spread = [(n // 4, n // 4, n // 4, n - 3 * (n // 4)), (2, n // 2 - 2, 1, n - n // 2 - 1)]
    spread += [(n - 6, 2, 3, 1), (1, 1, 1, n - 3)]
    return [
        *[(t, 0, 0, n - t) for t in range(n + 1)],
        *[(0, t, n - t, 0) for t in range(n + 1)],
    ] + (spread)


def covers(low: np.ndarray, high: np.ndarray, truth) -> np.ndarray:
    return (low - 1e-12 <= truth) & (truth <= high + 1e-12)


@functools.cache
def every_outcome(flip_probability: float, n: int) -> dict[str, np.ndarray]:
    """What the results say for every table of n reports: each range's ends, by outcome.

    The bootstrap's p-value plays no part in any range, and drawing 1,771 of them would cost
    seconds: it is left out here (its own tests are below and in tests/statistical).
    """
    tables = [t for t in itertools.product(range(n + 1), repeat=3) if sum(t) <= n]
    tables = np.array([(*t, n - sum(t)) for t in tables])
    mechanism = JointRandomizedResponse(flip_probability, (2, 2))
    ends: dict[str, list] = {name: [] for name in ("cells", "all at once", "rows", "columns")}
    ends["difference"] = []
    with mock.patch("survey_app.privacy.joint.independence_p_value", return_value=None):
        for counts in tables:
            result = mechanism.tell(counts.tolist(), 0.95)
            ends["cells"].append([(e.exact_low, e.exact_high) for e in result.estimates])
            ends["all at once"].append(
                [(e.simultaneous_low, e.simultaneous_high) for e in result.estimates]
            )
            for name, margin in (("rows", 0), ("columns", 1)):
                shares = result.margins[margin].estimates
                ends[name].append([(e.exact_low, e.exact_high) for e in shares])
            association = result.association
            ends["difference"].append(
                (np.nan, np.nan)
                if association.difference_low is None
                else (association.difference_low, association.difference_high)
            )
    return {"tables": tables, **{name: np.array(value) for name, value in ends.items()}}


@functools.cache
def coverage(flip_probability: float, truth: tuple[int, ...]) -> dict[str, float]:
    """Each range's exact probability of holding the class's own figure (see the module)."""
    n = sum(truth)
    found = every_outcome(flip_probability, n)
    law = report_law(flip_probability, truth)[tuple(found["tables"].T)]
    assert math.isclose(law.sum(), 1.0, abs_tol=ROUNDING)  # every outcome is listed
    table = np.array(truth).reshape(2, 2) / n
    shares = {"rows": table.sum(axis=1), "columns": table.sum(axis=0)}
    held = {
        "cells": law @ covers(found["cells"][..., 0], found["cells"][..., 1], table.ravel()),
        "all at once": law
        @ covers(found["all at once"][..., 0], found["all at once"][..., 1], table.ravel()).all(
            axis=1
        ),
        **{
            name: law @ covers(found[name][..., 0], found[name][..., 1], shares[name])
            for name in ("rows", "columns")
        },
    }
    yes, no = truth[2] + truth[3], truth[0] + truth[1]
    if yes and no:
        difference = truth[3] / yes - truth[1] / no
        spans = found["difference"]
        # No range (NaN) where the bounds leave a row empty: it does not hold the difference.
        held["difference"] = law @ covers(spans[:, 0], spans[:, 1], difference)
    return held


@pytest.mark.parametrize(("flip_probability", "n"), CASES)
def test_every_cells_exact_range_covers_for_every_true_table_of_a_small_class(flip_probability, n):
    worst = min(coverage(flip_probability, truth)["cells"].min() for truth in truths(n))
    assert worst >= 0.95 - ROUNDING


@pytest.mark.parametrize(("flip_probability", "n"), CASES)
def test_the_simultaneous_ranges_hold_all_four_cells_at_once(flip_probability, n):
    worst = min(coverage(flip_probability, truth)["all at once"] for truth in truths(n))
    assert worst >= 0.95 - ROUNDING


@pytest.mark.parametrize(("flip_probability", "n"), CASES)
def test_each_questions_own_shares_are_covered_by_their_exact_ranges(flip_probability, n):
    worst = min(
        min(coverage(flip_probability, truth)[name].min() for name in ("rows", "columns"))
        for truth in truths(n)
    )
    assert worst >= 0.95 - ROUNDING


def test_a_margins_law_is_the_choice_questions_at_the_derived_probabilities():
    """The reported rows' count, summed from the joint law, is Bin(t, P1) + Bin(n - t, Q1)."""
    mechanism = JointRandomizedResponse(LN3_P, (2, 2))
    keep, other = mechanism.margin_probabilities(0)
    truth = (3, 4, 6, 7)  # 13 people truly in row 1
    law = report_law(LN3_P, truth)
    row_one = np.zeros(sum(truth) + 1)
    for counts, probability in outcomes(law):
        row_one[counts[2] + counts[3]] += probability
    expected = np.convolve(
        stats.binom.pmf(range(14), 13, keep), stats.binom.pmf(range(8), 7, other)
    )
    np.testing.assert_allclose(row_one, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("flip_probability", "n"), CASES)
def test_the_difference_range_covers_the_classs_own_difference_as_often_as_it_says(
    flip_probability, n
):
    """Guaranteed at 95%, for every true table with both rows held (the others have none)."""
    checked = [truth for truth in truths(n) if truth[0] + truth[1] and truth[2] + truth[3]]
    worst = min(coverage(flip_probability, truth)["difference"] for truth in checked)
    assert worst >= 0.95 - ROUNDING
    result = told(flip_probability, (2, 2), (6, 4, 3, 7))
    assert result.association.difference_guaranteed is True
    assert "guaranteed" in result.association.difference_method


def test_the_difference_range_is_the_extreme_over_every_table_inside_the_bounds():
    """Against brute force: every integer table of 12 people inside random bounds."""
    rng = np.random.default_rng(5)
    n = 12
    tables = [t for t in itertools.product(range(n + 1), repeat=3) if sum(t) <= n]
    tables = np.array([(*t, n - sum(t)) for t in tables]).reshape(-1, 2, 2)
    for _ in range(40):
        low = rng.integers(0, 5, size=(2, 2))
        high = low + rng.integers(0, 8, size=(2, 2))
        inside = ((tables >= low) & (tables <= high)).all(axis=(1, 2))
        yes, no = tables[:, 1].sum(axis=1), tables[:, 0].sum(axis=1)
        inside &= (yes > 0) & (no > 0)
        found = difference_range(low, high, n)
        if not inside.any():
            assert found is None
            continue
        chosen = tables[inside]
        differences = chosen[:, 1, 1] / chosen[:, 1].sum(1) - chosen[:, 0, 1] / chosen[:, 0].sum(1)
        assert found == pytest.approx((differences.min(), differences.max()), abs=1e-12)


# --------------------------------------------------------------------------- the p-value


def test_the_p_value_is_the_same_at_every_look_and_says_it_is_approximate():
    counts = [30, 12, 9, 49]
    first = JointRandomizedResponse(LN3_P, (2, 2)).tell(counts).association
    independence_p_value.cache_clear()  # worked out again, not remembered: the seed decides
    again = JointRandomizedResponse(LN3_P, (2, 2)).tell(counts).association
    assert first.p_value == again.p_value and 0.0 < first.p_value < 0.01
    assert first.p_value_guaranteed is False and "Approximate" in first.method
    unrelated = JointRandomizedResponse(LN3_P, (2, 2)).tell([25, 25, 25, 25]).association
    assert unrelated.p_value > 0.5


def test_a_larger_table_has_a_p_value_but_no_difference():
    result = JointRandomizedResponse(EPS2_P, (3, 4)).tell(list(range(10, 22)))
    assert 0.0 < result.association.p_value <= 1.0
    assert result.association.difference is None and result.association.difference_low is None
    assert len(result.margins[0].estimates) == 3 and len(result.margins[1].estimates) == 4
