"""A pair's difference range (privacy/joint.py) against EVERY true 2x2 table of a small class:
its exact probability of holding the class's own difference, P(Q2 yes | Q1 yes) - P(Q2 yes |
Q1 no), is at least the confidence for each table with both groups held, by exact enumeration
of the law of the reports (the unit tests check the tables that hold each cell's and each
margin's worst case; the difference looks at all four cells at once, so here every table)."""

from __future__ import annotations

import itertools

import pytest

from tests.unit.privacy.test_joint_mechanism import EPS2_P, LN3_P, ROUNDING, coverage


def every_table(n: int) -> list[tuple[int, int, int, int]]:
    """Every table of n people over the 4 cells (No/No, No/Yes, Yes/No, Yes/Yes) with someone
    in each row: the tables that have a difference."""
    tables = []
    for first in itertools.product(range(n + 1), repeat=3):
        table = (*first, n - sum(first))
        if sum(first) <= n and table[0] + table[1] and table[2] + table[3]:
            tables.append(table)
    return tables


@pytest.mark.parametrize(("flip_probability", "n"), [(EPS2_P, 12), (LN3_P, 12)])
def test_the_difference_range_holds_the_classs_difference_for_every_true_table(flip_probability, n):
    tables = every_table(n)
    assert len(tables) == 455 - 2 * (n + 1)  # all 455, but the 13 + 13 with a row empty
    worst = min(coverage(flip_probability, table)["difference"] for table in tables)
    # Exact probabilities: only floating-point rounding separates them from the 95% promised.
    assert worst >= 0.95 - ROUNDING
