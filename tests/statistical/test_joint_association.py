"""A paired question's test of "the two answers are unrelated": its level, its power, and the
difference's range, on seeded classes.

Classes are drawn as the targets say: each class's answers independently from the product of
the two margins (or a related table, for power), randomized by the browser's probabilities. The
reports of n such answers are multinomial with ``Q + (P - Q) pi``, which is how they are drawn.

The full sweep (a few thousand classes a setting) is ``python -m benchmarks.joint_association``,
its table in docs/joint-association.md; here, 200 classes a setting keep the cost near 10 CPU
seconds. The bootstrap's level is approximate (measured, not proven): the bounds below allow
Monte Carlo error and catch a test that is far off, as a plain test on the reports is (checked).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from survey_app.privacy import JointRandomizedResponse, flip_probability_from_epsilon
from survey_app.privacy.joint import independence_p_value

pytestmark = pytest.mark.statistical

EPSILONS = (math.log(3), 2.0)
#: Q1's and Q2's share of "yes": even, uneven, and as lopsided as the targets ask.
MARGINS = ((0.5, 0.5), (0.2, 0.3), (0.1, 0.9))
SIZES = (60, 100, 200)
CLASSES = 200
LEVEL = 0.05
#: A setting's rejection rate has a binomial standard error of sqrt(0.05 * 0.95 / 200) = 1.5
#: points at a true 5%: 5% + 3 of them (9.6%) leaves a valid test failing one setting in 700,
#: and catches the plain test on the reports (18% and more at 0.1 / 0.9, below).
SETTING_LIMIT = LEVEL + 3 * math.sqrt(LEVEL * (1 - LEVEL) / CLASSES)
#: Over all 18 settings (3,600 classes) the standard error is 0.36 points: 5% + 3 of them.
POOLED_LIMIT = LEVEL + 3 * math.sqrt(LEVEL * (1 - LEVEL) / (CLASSES * 18))


def report_tables(epsilon: float, table: np.ndarray, n: int, classes: int, seed: int):
    """Seeded classes' 2x2 tables of reports (by cell) and the mechanism's (P, Q)."""
    mechanism = JointRandomizedResponse(flip_probability_from_epsilon(epsilon), (2, 2))
    keep, other = mechanism.probabilities
    reports = other + (keep - other) * table.ravel()
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, reports / reports.sum(), size=classes), keep, other


def unrelated(first_yes: float, second_yes: float) -> np.ndarray:
    return np.outer([1 - first_yes, first_yes], [1 - second_yes, second_yes])


def rejections(tables: np.ndarray, keep: float, other: float) -> float:
    p_values = [independence_p_value(tuple(t.tolist()), (2, 2), keep, other) for t in tables]
    return float(np.mean(np.array(p_values) <= LEVEL))


def test_the_test_of_no_association_holds_its_level_for_every_pair_of_margins():
    rates = {}
    for e_index, epsilon in enumerate(EPSILONS):
        for m_index, (first, second) in enumerate(MARGINS):
            for n in SIZES:
                seed = 1000 * e_index + 100 * m_index + n
                tables, keep, other = report_tables(
                    epsilon, unrelated(first, second), n, CLASSES, seed
                )
                rates[epsilon, first, second, n] = rejections(tables, keep, other)
    assert max(rates.values()) <= SETTING_LIMIT, rates
    assert np.mean(list(rates.values())) <= POOLED_LIMIT, rates


def plain_test_rejects(tables: np.ndarray) -> float:
    """Pearson's test of independence on the reports themselves, 1 degree of freedom."""
    expected = (
        tables.sum(axis=2)[:, :, None]
        * tables.sum(axis=1)[:, None, :]
        / tables.sum(axis=(1, 2))[:, None, None]
    )
    statistic = ((tables - expected) ** 2 / expected).sum(axis=(1, 2))
    return float(np.mean(statistic > 3.841458820694124))  # chi-square(1)'s 95% quantile


def test_the_level_check_catches_a_plain_test_on_the_reports():
    """The harness above can fail: at margins 0.1 and 0.9 a plain test of the reports rejects
    unrelated answers far beyond its limit, where the bootstrap does not."""
    tables, keep, other = report_tables(math.log(3), unrelated(0.1, 0.9), 200, CLASSES, 31)
    assert plain_test_rejects(tables.reshape(-1, 2, 2)) > 2 * SETTING_LIMIT
    assert rejections(tables, keep, other) <= SETTING_LIMIT


def test_it_sees_a_moderate_relation_in_a_class_of_100():
    """n = 100, epsilon 2, margins 0.5 / 0.5, phi = 0.3: the target is a power of 0.35 (the
    sweep measures about 0.46); 300 classes have a standard error of 2.9 points, so a test at
    0.46 falls below 0.35 once in 10,000 seeds."""
    phi = 0.3
    related = unrelated(0.5, 0.5) + phi * 0.25 * np.array([[1, -1], [-1, 1]])
    tables, keep, other = report_tables(2.0, related, 100, 300, 77)
    assert rejections(tables, keep, other) >= 0.35


@pytest.mark.parametrize(
    "truth",
    [(30, 20, 10, 40), (45, 45, 5, 5), (10, 10, 70, 10)],
    ids=lambda t: "-".join(map(str, t)),
)
def test_the_difference_range_covers_the_classs_own_difference_as_often_as_it_says(truth):
    """Respondents fixed (these 100 people), their reports randomized 400 times: the guaranteed
    95% range holds their own difference in at least 95% of classes, less 3 standard errors
    (1.1 points) of Monte Carlo error. The tests of tests/unit/privacy/test_joint_mechanism.py
    check it exactly at 20 answers."""
    mechanism = JointRandomizedResponse(0.25, (2, 2))
    keep, other = mechanism.probabilities
    rng = np.random.default_rng(sum(truth) + truth[0])
    transition = np.full((4, 4), other) + (keep - other) * np.eye(4)
    reports = sum(rng.multinomial(t, transition[cell], size=400) for cell, t in enumerate(truth))
    difference = truth[3] / (truth[2] + truth[3]) - truth[1] / (truth[0] + truth[1])
    held = 0
    for counts in reports:
        association = mechanism.tell(counts.tolist()).association
        low, high = association.difference_low, association.difference_high
        held += low is not None and low - 1e-12 <= difference <= high + 1e-12
    assert held / 400 >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 400)
